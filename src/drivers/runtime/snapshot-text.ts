/**
 * The snapshot tree as text: merged text runs, one line per node (plain or interactiveOnly), depth and
 * filters, and the byte count the bound uses.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { Line, SNode } from './types.js';
import type { RuntimeSnapshot } from './api.js';

type Deps = ReturnType<typeof helpersModule> & ReturnType<typeof rolesModule>;

export function snapshotTextModule(dep: Deps) {
  const { NAME_FROM_CONTENT, cut, norm } = dep;

  // Per line: a name or value past this is cut with "…" (the full text is in the page for grep).
  const NAME_MAX_CHARS = 120;
  // Inline text of a node (a paragraph, a row) past this is cut: enough to recognise it.
  const TEXT_MAX_CHARS = 300;

  /** Merge adjacent text, drop text that only repeats a name, inline a lone text child. */
  function compact(nodes: SNode[]): SNode[] {
    const out: SNode[] = [];
    for (const n of nodes) {
      if (n.role === 'text') {
        const prevNode = out[out.length - 1];
        if (prevNode && prevNode.role === 'text') {
          prevNode.text = prevNode.text + ' ' + n.text;
          prevNode.count++;
          continue;
        }
        out.push({ ...n });
        continue;
      }
      n.children = compact(n.children);
      out.push(n);
    }
    for (const n of out) {
      if (n.role === 'text') n.text = norm(n.text);
      else if (n.role !== 'summary') {
        const kids = n.children;
        const allText = kids.length > 0 && kids.every((k) => k.role === 'text');
        if (allText) {
          const t = norm(kids.map((k) => norm(k.text)).join(' '));
          if (NAME_FROM_CONTENT.has(n.role) || t === n.name || (n.name && n.name.includes(t))) n.children = [];
          else if (!n.name || kids.length === 1) {
            n.inline = t;
            n.children = [];
          }
        }
        n.count = 1 + n.children.reduce((s, k) => s + k.count, 0);
      }
    }
    return out.filter((n) => n.role !== 'text' || n.text);
  }

  function lineOf(n: SNode): string {
    if (n.role === 'text') return `- text: ${cut(n.text ?? '', TEXT_MAX_CHARS)}`;
    if (n.role === 'summary') return `- ${n.text}`;
    let s = '- ' + n.role;
    if (n.name) s += ' ' + JSON.stringify(cut(n.name, NAME_MAX_CHARS));
    s += n.states;
    if (n.ref) s += ` [ref=${n.ref}]`;
    if (n.typeable) s += ' typeable: true';
    if (n.value) s += ' value: ' + JSON.stringify(cut(n.value, NAME_MAX_CHARS));
    if (n.inline) s += ': ' + cut(n.inline, TEXT_MAX_CHARS);
    else if (n.children.length) s += ':';
    return s;
  }

  // Roles whose element takes typing anyway: `typeable` is news only on other roles.
  const TYPEABLE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'combobox']);
  /**
   * interactiveOnly's line: the ref first, then role, name, states and value, unquoted. It lists
   * what can be acted on, for an agent that pays per byte: offscreen is left out (every action
   * scrolls its target into view) and so is a collapsed state (the name says what it opens);
   * a plain snap shows both.
   */
  function compactLineOf(n: SNode): string {
    let s = n.ref ? `${n.ref} ${n.role}` : n.role;
    if (n.name) s += ' ' + cut(n.name, NAME_MAX_CHARS);
    s += n.states.replace(/ \[(offscreen|expanded=false)\]/g, '');
    if (n.typeable && !TYPEABLE_ROLES.has(n.role)) s += ' [typeable]';
    if (n.value) s += ' = ' + cut(n.value, NAME_MAX_CHARS);
    return s;
  }

  function flatten(nodes: SNode[], depth: number, out: Line[], maxDepth: number, line: (n: SNode) => string): void {
    for (const n of nodes) {
      if (depth > maxDepth) continue;
      let text = line(n);
      if (depth === maxDepth && n.children.length) text = text.replace(/:$/, '') + ` (+${n.count - 1} below)`;
      out.push({ depth, text, weight: n.summary ?? 1 });
      if (depth < maxDepth) flatten(n.children, depth + 1, out, maxDepth, line);
    }
  }

  function filterTree(nodes: SNode[], keep: (n: SNode) => boolean, keepAncestor: (n: SNode) => boolean): SNode[] {
    const out: SNode[] = [];
    for (const n of nodes) {
      const kids = filterTree(n.children, keep, keepAncestor);
      if (keep(n)) out.push({ ...n, children: kids, inline: n.inline, count: 1 + kids.reduce((s, k) => s + k.count, 0) });
      else if (kids.length && keepAncestor(n))
        out.push({ ...n, children: kids, inline: undefined, count: 1 + kids.reduce((s, k) => s + k.count, 0) });
      else out.push(...kids);
    }
    return out;
  }

  const utf8 = (s: string): number => {
    let n = s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) n += c > 0x7ff ? (c >= 0xd800 && c <= 0xdbff ? 1 : 2) : 1;
    }
    return n;
  };

  function collectRefs(nodes: SNode[], into: Record<string, [string, string]>): void {
    for (const n of nodes) {
      if (n.ref) into[n.ref] = [n.role, n.name];
      collectRefs(n.children, into);
    }
  }

  // Room kept under maxBytes for the truncation line.
  const FOOTER_BYTES = 160;
  function bound(
    body: string[],
    lines: Line[],
    diff: RuntimeSnapshot['diff'],
    maxBytes: number,
  ): { kept: string[]; shown: number; truncated: boolean } {
    // Bound the output: keep whole lines up to maxBytes, then say what was left out and how to narrow.
    let bytes = 0;
    let shown = 0;
    const kept: string[] = [];
    for (const t of body) {
      const b = utf8(t) + 1;
      if (bytes + b > maxBytes - FOOTER_BYTES) break;
      kept.push(t);
      bytes += b;
      shown++;
    }
    const truncated = shown < body.length;
    if (truncated) {
      const rest = body.length - shown;
      // Lines of a plain snapshot map 1:1 to `lines` (a baseline diff has one header line first);
      // a summary line stands for many nodes.
      let restNodes = rest;
      if (!diff || diff.baseline) {
        restNodes = 0;
        for (let i = Math.max(0, shown - (diff ? 1 : 0)); i < lines.length; i++) restNodes += lines[i]!.weight;
      }
      const footer =
        `… truncated: ${rest} more line${rest === 1 ? '' : 's'} (${restNodes} node${restNodes === 1 ? '' : 's'}) not shown; ` +
        'narrow with within/depth/grep/interactiveOnly';
      kept.push(footer);
    }
    return { kept, shown, truncated };
  }

  return { bound, collectRefs, compact, compactLineOf, filterTree, flatten, lineOf, utf8 };
}
