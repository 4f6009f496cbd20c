/**
 * The HTML reporters' two primitives, shared by html.ts and html-attribution.ts (a module of its own so
 * neither imports the other): escaping, and the table every section is drawn with.
 */

/** Text as HTML text or a quoted attribute value: the five characters that can change structure. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A table in its own scrolling box; `head` and `rows` are markup already escaped, `numeric` the right-aligned columns. */
export function table(head: string[], rows: string[][], numeric: number[] = []): string {
  const th = head.map((h, i) => `<th${numeric.includes(i) ? ' class="num"' : ''}>${h}</th>`).join('');
  const td = (c: string, i: number): string => `<td${numeric.includes(i) ? ' class="num"' : ''}>${c}</td>`;
  const body = rows.map((r) => `<tr>${r.map(td).join('')}</tr>`).join('\n');
  return `<div class="scroll"><table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}
