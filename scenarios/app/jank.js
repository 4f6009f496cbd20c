// Deliberate scroll jank for list.html, switched on by ?jank=N (N >= 1).
// Kept in named functions so a CPU profile / trace names them:
//   forceLayoutThrash()  interleaved style write + offsetHeight read per visible row
//   burnCpu()            busy loop of 12 ms x N
// Without the flag nothing here is installed and scrolling does no extra work.

export const JANK_MS_PER_LEVEL = 12;
export const MAX_JANK_LEVEL = 4;

/** 0 when off; ?jank=1 -> 1, ?jank=2 -> 2 ... (clamped to MAX_JANK_LEVEL). */
export function jankLevelFromQuery(search = location.search) {
  const n = Number.parseInt(new URLSearchParams(search).get('jank') ?? '', 10);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(n, MAX_JANK_LEVEL);
}

/** Rows of `container` currently inside its scroll viewport (reads only: one layout at most). */
export function visibleRows(container) {
  const top = container.scrollTop;
  const bottom = top + container.clientHeight;
  const rows = [];
  for (const row of container.children) {
    if (row.hidden) continue;
    const rowTop = row.offsetTop;
    if (rowTop >= bottom) break;
    if (rowTop + row.offsetHeight > top) rows.push(row);
  }
  return rows;
}

/** Forced synchronous layout: write a layout-affecting style, then read offsetHeight, per row. */
export function forceLayoutThrash(rows, tick) {
  let total = 0;
  for (let i = 0; i < rows.length; i++) {
    rows[i].style.paddingLeft = ((tick + i) & 1 ? 13 : 12) + 'px'; // write (invalidates layout)
    total += rows[i].offsetHeight;                                  // read (forces layout now)
  }
  return total;
}

/** Busy loop: blocks the main thread for `ms` milliseconds. */
export function burnCpu(ms) {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) { /* spin */ }
}

/** Install the jank on `container`'s scroll events. Returns an uninstall function. */
export function installJank(container, level) {
  if (!level) return () => {};
  const busyMs = JANK_MS_PER_LEVEL * level;
  let tick = 0;
  function jankFrame() {
    tick++;
    forceLayoutThrash(visibleRows(container), tick);
    burnCpu(busyMs);
  }
  function jankOnScroll() {
    requestAnimationFrame(jankFrame);
  }
  container.addEventListener('scroll', jankOnScroll, { passive: true });
  return () => container.removeEventListener('scroll', jankOnScroll);
}
