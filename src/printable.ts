/**
 * The one sanitiser of text perf prints or writes as text: every text reporter (table, markdown, junit, the
 * trends and leaks texts), the CLI's own lines (bisect, gate, errors on stderr) and MCP's text replies.
 * Strings from outside (a commit subject, a scenario or step name, a metric named after a step, a page's
 * console message, an insight's text, a constructor or property name out of a heap) may carry terminal
 * escape sequences: an OSC retitles the terminal or writes a link (and some terminals answer queries by
 * typing into the shell), a CSI moves the cursor or clears the screen over the real verdict, a bare CR
 * overwrites the start of a line. The same text also breaks a report's format (XML, a Markdown table).
 *
 * `oneLine` (reports: one fact per line) drops escape sequences whole and control characters, and joins
 * lines; `plainText` does the same keeping the line breaks of a multi-line block (and a whole report's own
 * colours); `printable` (a message the user must act on: it may quote what was wrong) shows every control
 * character as a visible `\uXXXX`; `jsonText` is JSON.stringify with DEL and the C1 controls escaped too.
 */

/**
 * One escape sequence as a terminal parses it (ECMA-48 § 5), 7-bit (ESC and a letter) or 8-bit (C1):
 * CSI (ESC [ or 0x9B) parameters, intermediates, a final byte; OSC, DCS, SOS, PM, APC (ESC ] P X ^ _ or
 * 0x9D 0x90 0x98 0x9E 0x9F) up to BEL or ST (ESC \ or 0x9C), or to the end of the text when unterminated
 * (a terminal would swallow the rest too); ESC with intermediates and a final byte. Each part is one
 * character class with a bounded follow-up, so a long run of any input is matched in linear time.
 */
const ESCAPE_SEQUENCE =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;
/** C0 controls but TAB and LF, DEL, and the C1 controls (0x80–0x9F: 0x9B alone is a CSI on many terminals). */
const CONTROL_CHAR = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The colour sequences (SGR: ESC [ digits m) a reporter paints a terminal with, and nothing else. */
const SGR = /^\x1b\[[0-9;]*m$/;

/** `text` without escape sequences (but SGR with `sgr`) and control characters; a CR or CRLF becomes a line break, TAB stays. */
function stripped(text: string, sgr = false): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      .replace(ESCAPE_SEQUENCE, (seq) => (sgr && SGR.test(seq) ? seq : ''))
      // Every ESC left starts a kept SGR: the pass above matched each one (a lone ESC included).
      .replace(CONTROL_CHAR, (c) => (sgr && c === '\x1b' ? c : ''))
  );
}

/**
 * Untrusted text on one line, without escape sequences or control characters: reports keep one fact per
 * line, and nothing from outside may recolour, move or retitle a terminal. `max` cuts it with an ellipsis.
 */
export function oneLine(text: string, max = Infinity): string {
  // Split and trim, not /\s*[\r\n]+\s*/: that regex retries every position of a long run of spaces
  // (quadratic: a message of 40,000 spaces took 2.5 s, a megabyte would take an hour).
  const t = stripped(text)
    .split(/[\n\t]+/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
  return t.length > max ? `${t.slice(0, Math.max(0, max - 1))}…` : t;
}

/**
 * Multi-line text without escape sequences or control characters, its line breaks and tabs kept: untrusted
 * text a report shows as a block, and the last pass over a whole text report (src/cli prints it, a file
 * holds it). `sgr`: keep the colour sequences of a report rendered with colour (the report's own; every
 * untrusted string in it went through `oneLine` first, which keeps none).
 */
export function plainText(text: string, opts: { sgr?: boolean } = {}): string {
  return stripped(text, opts.sgr === true);
}

/**
 * Text safe to print on a terminal: control characters (escape sequences from a hostile or corrupt input
 * file would recolour, move or retitle the user's terminal) become visible \u escapes, so a message can
 * still say what was wrong. Newlines and tabs stay.
 */
export function printable(text: string): string {
  return text.replace(CONTROL_CHAR, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * JSON.stringify, with DEL and the C1 controls (which JSON leaves raw) written as \u escapes too: the same
 * value for a parser, and nothing a terminal acts on when `--json` output or an MCP reply is shown as is.
 */
export function jsonText(value: unknown, space?: number): string {
  return (JSON.stringify(value, null, space) ?? String(value)).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
