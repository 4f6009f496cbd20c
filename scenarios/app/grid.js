// A data grid like a typical third-party one: 5,000 orders × 8 columns, a windowed body (only the rows in
// view plus an overscan are in the DOM) whose rows are re-rendered on every scroll event.
//
// Query switches, each its own named function so a CPU profile / trace names it:
//   ?busy=MS    recomputeRowStats()    a busy loop of MS ms on every scroll event (issue 27's candidate: busy=8)
//   ?cpu=PCT    evaluateCellRules()    extra script work per scroll event sized to add about PCT % to the
//                                      grid-scroll scenario's counters.threadCpuMs (see CPU_MS_PER_PCT)
//   ?layout=1   measureRowHeights()    forced layout: a style write then a geometry read per visible row
// Without a switch nothing extra runs on scroll.
import { markReady } from './common.js';

export const ROW_COUNT = 5000;
// The row height the CSS sets (.grid-row): the window is computed from it, as windowed grids do.
const ROW_PX = 32;
// Rows rendered above and below the viewport, so a fast wheel does not show blank space.
const OVERSCAN = 8;
// Busy loops check the clock every this many rows: often enough to stop within ~0.1 ms of the target.
const ROWS_PER_CLOCK_CHECK = 500;
// Milliseconds of extra script per scroll event per % of added CPU, measured on grid-scroll (timing repeats,
// this 2-core machine): counters.threadCpuMs median 185 ms per repeat, and 8 scroll events per repeat (each wheel
// scroll lands in one event: gridSink.scrollEvents read after the 8 steps). 1 % = 1.85 ms / 8 events ≈ 0.23 ms.
// Checked with `perf run --against --fixed --repeat 10` (cpu=0 vs cpu=15, a loaded machine): threadCpuMs +21 %
// (interval +6…+31 %), per frame +16 %: within the noise of +15 %, so the constant was left as computed.
export const CPU_MS_PER_PCT = 0.23;

const CUSTOMERS = [
  'Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark Industries', 'Wayne Enterprises', 'Soylent', 'Tyrell', 'Cyberdyne',
];
const PRODUCTS = ['Widget', 'Gadget', 'Sprocket', 'Gizmo', 'Doohickey', 'Thingamajig', 'Whatsit', 'Contraption'];
const STATUSES = ['shipped', 'pending', 'cancelled', 'shipped', 'shipped'];
const COLUMNS = [
  { key: 'id', label: 'Order', num: true },
  { key: 'date', label: 'Date' },
  { key: 'customer', label: 'Customer' },
  { key: 'product', label: 'Product' },
  { key: 'qty', label: 'Qty', num: true },
  { key: 'price', label: 'Unit price', num: true },
  { key: 'total', label: 'Total', num: true },
  { key: 'status', label: 'Status' },
];

const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const day = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: '2-digit', timeZone: 'UTC' });

/** Deterministic orders: the same grid on every load, so two runs render the same work. */
function makeOrders(n) {
  const orders = [];
  for (let i = 0; i < n; i++) {
    const qty = (i * 7) % 23 + 1;
    const price = ((i * 37) % 9973) / 100 + 1;
    orders.push({
      id: 100000 + i,
      date: Date.UTC(2026, 0, 1) + ((i * 13) % 330) * 86400000,
      customer: CUSTOMERS[i % CUSTOMERS.length],
      product: PRODUCTS[(i * 3) % PRODUCTS.length],
      qty,
      price,
      total: qty * price,
      status: STATUSES[i % STATUSES.length],
    });
  }
  return orders;
}

/** A switch's number from the query string; 0 when absent or not a number ≥ 0. */
export function queryNumber(name, search = location.search) {
  const n = Number.parseFloat(new URLSearchParams(search).get(name) ?? '');
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function cellText(order, key) {
  switch (key) {
    case 'date': return day.format(order.date);
    case 'price': return money.format(order.price);
    case 'total': return money.format(order.total);
    default: return String(order[key]);
  }
}

function makeRowElement() {
  const row = document.createElement('div');
  row.className = 'grid-row';
  row.setAttribute('role', 'row');
  for (const c of COLUMNS) {
    const cell = document.createElement('div');
    cell.setAttribute('role', 'gridcell');
    if (c.num) cell.className = 'num';
    row.append(cell);
  }
  return row;
}

function makeHeader() {
  const head = document.createElement('div');
  head.className = 'grid-head';
  head.setAttribute('role', 'rowgroup');
  const row = document.createElement('div');
  row.className = 'grid-row';
  row.setAttribute('role', 'row');
  row.setAttribute('aria-rowindex', '1');
  for (const c of COLUMNS) {
    const cell = document.createElement('div');
    cell.setAttribute('role', 'columnheader');
    if (c.num) cell.className = 'num';
    cell.textContent = c.label;
    row.append(cell);
  }
  head.append(row);
  return head;
}

/** Re-render the window of rows in view: every cell's text, class and position, as a grid's row renderer does. */
function renderWindow(grid, body, orders, pool) {
  const first = Math.max(0, Math.floor(grid.scrollTop / ROW_PX) - OVERSCAN);
  const last = Math.min(orders.length, Math.ceil((grid.scrollTop + grid.clientHeight) / ROW_PX) + OVERSCAN);
  while (pool.length < last - first) pool.push(body.appendChild(makeRowElement()));
  for (let k = 0; k < pool.length; k++) {
    const row = pool[k];
    const i = first + k;
    if (i >= last) {
      row.hidden = true;
      continue;
    }
    const order = orders[i];
    row.hidden = false;
    row.style.transform = `translateY(${i * ROW_PX}px)`;
    row.setAttribute('aria-rowindex', String(i + 2));
    const cells = row.children;
    for (let c = 0; c < COLUMNS.length; c++) {
      const text = cellText(order, COLUMNS[c].key);
      if (cells[c].textContent !== text) cells[c].textContent = text;
    }
    cells[COLUMNS.length - 1].className = `status-${order.status}`;
  }
  return pool.slice(0, last - first);
}

/** Work over the whole data set until `ms` have passed: totals per status and customer (the busy=MS switch). */
export function recomputeRowStats(orders, ms) {
  const t0 = performance.now();
  const stats = {};
  let passes = 0;
  do {
    for (let i = 0; i < orders.length; i++) {
      const o = orders[i];
      const key = `${o.status}:${o.customer}`;
      stats[key] = (stats[key] ?? 0) + o.total * (1 + (passes & 1));
      if (i % ROWS_PER_CLOCK_CHECK === 0 && performance.now() - t0 >= ms) return stats;
    }
    passes++;
  } while (performance.now() - t0 < ms);
  return stats;
}

/** Conditional-format rules over the data for `ms` (the cpu=PCT switch): a separate function from busy's. */
export function evaluateCellRules(orders, ms) {
  const t0 = performance.now();
  let flagged = 0;
  for (let i = 0; ; i = (i + 1) % orders.length) {
    const o = orders[i];
    if (o.total > 500 && o.status !== 'cancelled') flagged++;
    if (o.qty * o.price > 1000) flagged += 2;
    if (i % ROWS_PER_CLOCK_CHECK === 0 && performance.now() - t0 >= ms) return flagged;
  }
}

/** Forced synchronous layout: write a layout-affecting style, then read offsetHeight, per visible row (layout=1). */
export function measureRowHeights(rows, tick) {
  let total = 0;
  for (let i = 0; i < rows.length; i++) {
    rows[i].style.paddingLeft = ((tick + i) & 1 ? 1 : 0) + 'px';
    total += rows[i].offsetHeight;
  }
  return total;
}

function install() {
  const grid = document.getElementById('grid');
  const busyMs = queryNumber('busy');
  const cpuPct = queryNumber('cpu');
  const layout = queryNumber('layout') > 0;
  const orders = makeOrders(ROW_COUNT);
  grid.setAttribute('aria-rowcount', String(ROW_COUNT + 1));
  grid.setAttribute('aria-colcount', String(COLUMNS.length));
  const body = document.createElement('div');
  body.className = 'grid-body';
  body.setAttribute('role', 'rowgroup');
  body.style.height = `${ROW_COUNT * ROW_PX}px`;
  grid.append(makeHeader(), body);
  const pool = [];
  let visible = renderWindow(grid, body, orders, pool);
  let tick = 0;
  // Results kept on window so no engine can drop the work as dead code.
  const sink = { stats: null, flagged: 0, heights: 0, scrollEvents: 0 };
  window.gridSink = sink;
  grid.addEventListener('scroll', function onGridScroll() {
    tick++;
    sink.scrollEvents++;
    visible = renderWindow(grid, body, orders, pool);
    if (busyMs) sink.stats = recomputeRowStats(orders, busyMs);
    if (cpuPct) sink.flagged += evaluateCellRules(orders, cpuPct * CPU_MS_PER_PCT);
    if (layout) sink.heights += measureRowHeights(visible, tick);
  }, { passive: true });
  const on = [busyMs && `busy loop ${busyMs} ms`, cpuPct && `+${cpuPct} % CPU`, layout && 'forced layout per row'].filter(Boolean);
  if (on.length) {
    const note = document.getElementById('grid-note');
    note.textContent = `On every scroll event: ${on.join(', ')}.`;
    note.hidden = false;
    document.body.dataset.switches = on.join(', ');
  }
  document.getElementById('grid-count').textContent = `${ROW_COUNT} orders`;
  markReady();
}

install();
