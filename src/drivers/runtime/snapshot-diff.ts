/**
 * The snapshot diff: the lines that changed since the last in hunks headed by their context.
 */
import type { helpersModule } from './helpers.js';

type Deps = ReturnType<typeof helpersModule>;

export function snapshotDiffModule(dep: Deps) {
  const { cut } = dep;

  function diffLines(a: string[], b: string[]): { out: string[]; added: number; removed: number } {
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start++;
    let endA = a.length;
    let endB = b.length;
    while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
      endA--;
      endB--;
    }
    const ma = a.slice(start, endA);
    const mb = b.slice(start, endB);
    const ops: [string, string][] = [];
    // LCS on the changed middle; past ~4M cells it would cost more than it tells, so list it whole.
    if (ma.length * mb.length <= 4_000_000 && ma.length && mb.length) {
      const n = ma.length;
      const m = mb.length;
      const dp = new Uint32Array((n + 1) * (m + 1));
      for (let i = n - 1; i >= 0; i--)
        for (let j = m - 1; j >= 0; j--)
          dp[i * (m + 1) + j] =
            ma[i] === mb[j] ? dp[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(dp[(i + 1) * (m + 1) + j]!, dp[i * (m + 1) + j + 1]!);
      let i = 0;
      let j = 0;
      while (i < n && j < m) {
        if (ma[i] === mb[j]) {
          ops.push([' ', ma[i]!]);
          i++;
          j++;
        } else if (dp[(i + 1) * (m + 1) + j]! >= dp[i * (m + 1) + j + 1]!) ops.push(['-', ma[i++]!]);
        else ops.push(['+', mb[j++]!]);
      }
      while (i < n) ops.push(['-', ma[i++]!]);
      while (j < m) ops.push(['+', mb[j++]!]);
    } else {
      for (const l of ma) ops.push(['-', l]);
      for (const l of mb) ops.push(['+', l]);
    }
    const out: string[] = [];
    let added = 0;
    let removed = 0;
    let inHunk = false;
    // Context for a hunk: the nearest enclosing (less indented) line of the new snapshot.
    let bIndex = start;
    for (const [op, line] of ops) {
      if (op === ' ') {
        inHunk = false;
        bIndex++;
        continue;
      }
      if (!inHunk) {
        const indent = line.length - line.trimStart().length;
        let parent = '';
        for (let k = bIndex - 1; k >= 0; k--) {
          const l = b[k]!;
          if (l.length - l.trimStart().length < indent) {
            parent = l.trim();
            break;
          }
        }
        out.push(`@@ ${parent ? `in ${cut(parent.replace(/^- /, '').replace(/:$/, ''), 100)}` : 'top level'}`);
        inHunk = true;
      }
      out.push(op + line);
      if (op === '+') {
        added++;
        bIndex++;
      } else removed++;
    }
    return { out, added, removed };
  }

  return { diffLines };
}
