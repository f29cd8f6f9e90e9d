/* tern-monitor's page: a single-page app over the server's JSON API.
 *
 * Plain ES2017, no framework and no build step: the file is embedded in the
 * tern-monitor binary as it is (web/embed.py) and nothing is ever loaded
 * from another host.
 *
 * How it works.  The URL's hash picks a view (route()); a view builds its
 * skeleton once and refresh() fills it from one API call.  One poll loop
 * (tick()) refreshes the current view and the count of firing alerts every
 * REFRESH_MS, one round at a time, so a slow server never gets a pile of
 * requests.  A failed fetch shows a line in the banner and leaves the last
 * good data on the page.
 *
 * Safety.  Job names, node names and alert messages come from users and
 * hosts: every piece of API text reaches the page through textContent or
 * an attribute value (el()/svgEl() below), never through innerHTML, and
 * links are always built as "#/<view>/" + encodeURIComponent(name). */
'use strict';

const REFRESH_MS = 2000;
const FETCH_TIMEOUT_MS = 8000;
const STUCK_S = 60;               // a rank this long in one call is "stuck"
const RETRANS_WARN = 0.001;       // transport health: green below 0.1 %,
const RETRANS_BAD = 0.01;         // amber below 1 %, red above
const MATRIX_PX = 560;
const TRANSPORT_ROWS = 64;        // node pairs shown before only the troubled ones are            // the matrix's cells fill about this many pixels
const SVG_NS = 'http://www.w3.org/2000/svg';

/* ------------------------------------------------------------------ */
/* DOM helpers: text only ever goes in through textContent.            */

function setAttrs(e, attrs) {
  if (!attrs) return;
  for (const k of Object.keys(attrs)) {
    const v = attrs[k];
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'style') Object.assign(e.style, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
}

function appendKids(e, kids) {
  for (const k of kids) {
    if (k === null || k === undefined || k === false) continue;
    if (Array.isArray(k)) appendKids(e, k);
    else if (k instanceof Node) e.appendChild(k);
    else e.appendChild(document.createTextNode(String(k)));
  }
}

/* el('td', {class: 'num'}, 'text', child, ...): an HTML element. */
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  setAttrs(e, attrs);
  appendKids(e, kids);
  return e;
}

/* The same for SVG elements. */
function svgEl(tag, attrs, ...kids) {
  const e = document.createElementNS(SVG_NS, tag);
  setAttrs(e, attrs);
  appendKids(e, kids);
  return e;
}

function clear(e) {
  while (e.firstChild) e.removeChild(e.firstChild);
  return e;
}

function jobHref(id) { return '#/job/' + encodeURIComponent(String(id)); }
function nodeHref(name) { return '#/node/' + encodeURIComponent(String(name)); }

/* ------------------------------------------------------------------ */
/* Numbers and their text.  The API may leave any field out; these     */
/* helpers take anything and print a dash for what is not a number.    */

function num(v) { return typeof v === 'number' && isFinite(v) ? v : null; }
function arr(v) { return Array.isArray(v) ? v : []; }
function str(v) { return v === null || v === undefined ? '' : String(v); }

const DASH = '–';

/* About three significant digits, no exponent, no trailing zeros
 * ("1", "1.5", "12.3", "512"). */
function sig3(v) {
  const a = Math.abs(v);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return String(Number(v.toFixed(digits)));
}

function fmtCount(v) {
  v = num(v);
  if (v === null) return DASH;
  const a = Math.abs(v);
  if (a < 1000) return Number.isInteger(v) ? String(v) : sig3(v);
  const units = ['k', 'M', 'G', 'T', 'P'];
  let i = -1;
  let x = v;
  while (Math.abs(x) >= 1000 && i < units.length - 1) { x /= 1000; i++; }
  return sig3(x) + ' ' + units[i];
}

function fmtBytes(v) {
  v = num(v);
  if (v === null) return DASH;
  if (Math.abs(v) < 1024) return (Number.isInteger(v) ? String(v) : sig3(v)) + ' B';
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = -1;
  let x = v;
  while (Math.abs(x) >= 1024 && i < units.length - 1) { x /= 1024; i++; }
  return sig3(x) + ' ' + units[i];
}

function fmtRate(bps) { return num(bps) === null ? DASH : fmtBytes(bps) + '/s'; }

/* Bytes per second as bits per second, the unit of a link's speed. */
function fmtBits(bps) {
  bps = num(bps);
  if (bps === null) return DASH;
  const units = ['b/s', 'kb/s', 'Mb/s', 'Gb/s', 'Tb/s'];
  let x = bps * 8;
  let i = 0;
  while (Math.abs(x) >= 1000 && i < units.length - 1) { x /= 1000; i++; }
  return sig3(x) + ' ' + units[i];
}

/* A fraction as a percentage: 0.012 -> "1.20 %". */
function fmtPct(f) {
  f = num(f);
  if (f === null) return DASH;
  const p = f * 100;
  return (p !== 0 && p < 0.1 ? p.toFixed(3) : p.toFixed(2)) + ' %';
}

function fmtDuration(ms) {
  ms = num(ms);
  if (ms === null || ms < 0) return DASH;
  const s = ms / 1000;
  if (s < 60) return (s < 10 ? s.toFixed(1) : s.toFixed(0)) + ' s';
  const m = Math.floor(s / 60);
  if (m < 60) return m + ' min ' + Math.floor(s % 60) + ' s';
  const h = Math.floor(m / 60);
  if (h < 48) return h + ' h ' + (m % 60) + ' min';
  return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
}

function pad2(n) { return n < 10 ? '0' + n : String(n); }

/* A wall-clock time in ms: "2024-05-01 13:02:07" (local time). */
function fmtTime(ms) {
  ms = num(ms);
  if (ms === null || ms <= 0) return DASH;
  const d = new Date(ms);
  return d.getFullYear() + '-' + pad2(d.getMonth() + 1) + '-' + pad2(d.getDate()) + ' ' +
    pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());
}

/* A number of unknown unit (an alert's value): four significant digits. */
function fmtValue(v) {
  v = num(v);
  if (v === null) return DASH;
  if (v !== 0 && Math.abs(v) < 0.001) return v.toExponential(2);
  return String(Number(v.toPrecision(4)));
}

function healthOf(rate) {
  rate = num(rate);
  if (rate === null) return 'ok';
  if (rate < RETRANS_WARN) return 'ok';
  if (rate < RETRANS_BAD) return 'warn';
  return 'bad';
}

const STATE_RANK = { bad: 2, warn: 1, ok: 0 };
function worse(a, b) { return (STATE_RANK[a] || 0) >= (STATE_RANK[b] || 0) ? a : b; }

/* A badge for a state word from the API; the class only takes known words. */
const STATE_WORDS = ['running', 'finished', 'failed', 'finalized', 'exited', 'dead',
  'firing', 'resolved', 'up', 'down', 'ok', 'warn', 'bad'];
function stateBadge(s) {
  s = str(s) || 'unknown';
  return el('span', { class: 'state' + (STATE_WORDS.includes(s) ? ' ' + s : '') }, s);
}

/* ------------------------------------------------------------------ */
/* Small drawings.                                                     */

/* An inline SVG sparkline of values (oldest first), scaled to its own max
 * (or opts.max when larger).  Not-a-number points are left out. */
function sparkline(values, opts) {
  const o = Object.assign({ w: 80, h: 18, max: 0, title: '' }, opts || {});
  const vs = arr(values).map(num);
  const svg = svgEl('svg', { class: 'spark', width: o.w, height: o.h, viewBox: `0 0 ${o.w} ${o.h}` });
  if (o.title) svg.appendChild(svgEl('title', { text: o.title }));
  if (vs.length === 0) return svg;
  const max = Math.max(o.max, ...vs.filter((v) => v !== null)) || 1;
  const step = vs.length > 1 ? (o.w - 2) / (vs.length - 1) : 0;
  const pts = [];
  vs.forEach((v, i) => {
    if (v === null) return;
    const x = 1 + i * step;
    const y = o.h - 1 - (Math.max(0, v) / max) * (o.h - 2);
    pts.push(x.toFixed(1) + ',' + y.toFixed(1));
  });
  if (pts.length === 1) pts.push((o.w - 1) + ',' + pts[0].split(',')[1]);
  svg.appendChild(svgEl('polyline', { points: pts.join(' ') }));
  return svg;
}

/* The largest number in values (0 when none). */
function peak(values) {
  return arr(values).reduce((m, v) => Math.max(m, num(v) || 0), 0);
}

/* A horizontal bar filled to frac (0..1). */
function bar(frac, cls) {
  const f = Math.max(0, Math.min(1, num(frac) || 0));
  return el('div', { class: 'bar' + (cls ? ' ' + cls : '') },
    el('div', { style: { width: (f * 100).toFixed(1) + '%' } }));
}

/* <dl class="facts"> from [label, value] pairs; a value may be a node. */
function facts(pairs) {
  return el('dl', { class: 'facts' },
    pairs.map(([k, v]) => el('div', null, el('dt', null, k), el('dd', null, v))));
}

function table(id, headers, rows) {
  return el('table', { class: 'grid', id: id },
    el('thead', null, el('tr', null, headers.map((h) =>
      el('th', { class: h.num ? 'num' : null }, h.label || h)))),
    el('tbody', null, rows));
}

function emptyNote(text) { return el('p', { class: 'empty' }, text); }

/* What a panel shows until its first data; a failed fetch replaces the
 * words with the reason (tick()), so a page never stays blank. */
function loading() { return el('p', { class: 'empty loading' }, 'Loading…'); }

/* ------------------------------------------------------------------ */
/* The tooltip: one absolutely placed box for the canvas's hover.      */

const tooltip = document.getElementById('tooltip');

function showTooltip(ev, text) {
  tooltip.textContent = text;
  tooltip.hidden = false;
  // keep it inside the window
  const w = tooltip.offsetWidth;
  let x = ev.pageX + 14;
  if (x + w > window.scrollX + document.documentElement.clientWidth - 4) x = ev.pageX - w - 14;
  tooltip.style.left = x + 'px';
  tooltip.style.top = (ev.pageY + 14) + 'px';
}

function hideTooltip() { tooltip.hidden = true; }

/* ------------------------------------------------------------------ */
/* Fetching and the error banner.                                      */

const banner = document.getElementById('banner');
const errors = new Map();   // source -> message

function setError(key, msg) {
  errors.set(key, msg);
  drawBanner();
}

function clearError(key) {
  if (errors.delete(key)) drawBanner();
}

function drawBanner() {
  clear(banner);
  for (const msg of errors.values()) banner.appendChild(el('div', null, msg));
  banner.hidden = errors.size === 0;
}

/* An Error of a fetch: the server's fault or the network's, not the page's. */
function fetchError(msg) {
  const e = new Error(msg);
  e.fetch = true;
  return e;
}

/* GET url as JSON; throws an Error whose message says what went wrong. */
async function getJSON(url) {
  const ctl = typeof AbortController === 'function' ? new AbortController() : null;
  const timer = ctl ? setTimeout(() => ctl.abort(), FETCH_TIMEOUT_MS) : 0;
  let r;
  try {
    r = await fetch(url, { signal: ctl ? ctl.signal : undefined, cache: 'no-store',
      headers: { Accept: 'application/json' } });
  } catch (e) {
    if (e && e.name === 'AbortError') {
      throw fetchError(`${url}: no answer within ${FETCH_TIMEOUT_MS / 1000} s`);
    }
    throw fetchError(`${url}: the server cannot be reached (${e && e.message})`);
  } finally {
    clearTimeout(timer);
  }
  if (!r.ok) {
    // the server's own words, when it sent a short text
    let why = '';
    try { why = (await r.text()).trim().slice(0, 200); } catch (e) { /* none */ }
    throw fetchError(`${url}: HTTP ${r.status}${why ? ' — ' + why : ''}`);
  }
  let d;
  try {
    d = await r.json();
  } catch (e) {
    throw fetchError(`${url}: the answer is not JSON`);
  }
  // every answer is an object; the views read fields of it without asking
  if (d === null || typeof d !== 'object' || Array.isArray(d)) {
    throw fetchError(`${url}: the answer is not a JSON object`);
  }
  return d;
}

/* ------------------------------------------------------------------ */
/* Jobs: #/                                                            */

function JobsView(root) {
  root.appendChild(el('h1', null, 'Jobs'));
  const panel = root.appendChild(el('section', { class: 'panel scroll' }, loading()));

  async function refresh() {
    const data = await getJSON('api/jobs');
    const now = num(data.now) || Date.now();
    // live jobs first, then the newest
    const live = (j) => j.state === 'running' ? 0 : 1;
    const jobs = arr(data.jobs).filter((j) => j && typeof j === 'object').sort((a, b) =>
      (live(a) - live(b)) || ((num(b.start) || 0) - (num(a.start) || 0)));
    const rows = jobs.map((j) => {
      const id = str(j.id);
      const start = num(j.start);
      const end = num(j.end);
      const stuck = num(j.stuck) || 0;
      const dead = num(j.dead) || 0;
      return el('tr', { 'data-job': id, onclick: (ev) => {
        if (ev.target.closest('a')) return;   // the link does it already
        location.hash = jobHref(id);
      } },
      el('td', { class: 'wrap' }, el('a', { href: jobHref(id), class: 'mono' }, id)),
      el('td', { class: 'wrap' }, str(j.program) || DASH),
      el('td', { class: 'num' }, num(j.uid) === null ? DASH : String(j.uid)),
      el('td', { class: 'num' }, fmtCount(j.ranks)),
      el('td', { class: 'num' }, fmtCount(j.nodes)),
      el('td', null, stateBadge(j.state)),
      el('td', null, fmtTime(start)),
      el('td', { class: 'num' }, start === null ? DASH : fmtDuration((end === null ? now : end) - start)),
      el('td', { class: 'num' }, fmtBytes(j.bytes)),
      el('td', { class: 'num' }, fmtCount(j.msgs)),
      el('td', { class: 'num' + (stuck > 0 ? ' warn' : '') }, String(stuck)),
      el('td', { class: 'num' + (dead > 0 ? ' bad' : '') }, String(dead)));
    });
    clear(panel).appendChild(table('jobs-table', [
      'Job', 'Program', { label: 'User (uid)', num: 1 }, { label: 'Ranks', num: 1 },
      { label: 'Nodes', num: 1 }, 'State', 'Started', { label: 'Duration', num: 1 },
      { label: 'Bytes', num: 1 }, { label: 'Messages', num: 1 }, { label: 'Stuck', num: 1 },
      { label: 'Dead', num: 1 }], rows));
    if (rows.length === 0) panel.appendChild(emptyNote('No jobs seen yet.'));
  }
  return { refresh };
}

/* ------------------------------------------------------------------ */
/* The communication matrix: a heatmap on a canvas.                    */

/* Sequential colours from few to many (light green to dark blue). */
const RAMP = [[199, 233, 180], [127, 205, 187], [65, 182, 196], [29, 145, 192],
  [34, 94, 168], [12, 44, 132]];
const EMPTY_RGB = [241, 243, 245];
const EMPTY_CELL = 'rgb(241,243,245)';

/* The ramp's colour at t in 0..1 as [r, g, b]. */
function rampRGB(t) {
  t = Math.max(0, Math.min(1, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(t));
  const f = t - i;
  return RAMP[i].map((a, k) => Math.round(a + (RAMP[i + 1][k] - a) * f));
}

function rampColour(t) {
  const c = rampRGB(t);
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/* 256 steps of the ramp, looked up per cell. */
const RAMP_LUT = Array.from({ length: 256 }, (_, k) => rampRGB(k / 255));

function matrixValueText(what, v) {
  if (what === 'msgs') return fmtCount(v) + ' msgs';
  if (what === 'avg') return fmtBytes(v) + ' avg';
  return fmtBytes(v);
}

/* Draw matrix m (the API's "matrix" object) on canvas; returns what the
 * hover handler needs to find a cell, and the scale for the legend. */
function drawMatrix(canvas, m) {
  const cells = arr(m.cells).map(arr);
  const n = Math.max(arr(m.labels).length, cells.length);
  const labels = [];
  for (let i = 0; i < n; i++) labels.push(i < arr(m.labels).length ? str(m.labels[i]) : String(i));
  const byNode = m.level === 'node';
  const cell = n ? Math.max(1, Math.min(48, Math.floor(MATRIX_PX / n))) : 0;
  const ctx = canvas.getContext('2d');
  const font = '11px system-ui, "DejaVu Sans", Arial, sans-serif';
  ctx.font = font;

  // labels on every step-th row and column so that they do not overlap
  let step = 1;
  while (step * cell < 13) step *= 2;   // 1, 2, 4, 8...: rank numbers read easily
  let labelW = 0;
  for (let i = 0; i < n; i += step) labelW = Math.max(labelW, ctx.measureText(labels[i]).width);
  labelW = Math.min(Math.ceil(labelW), 120);
  const left = 22 + labelW + 6;   // axis title, labels, gap
  const top = 22 + labelW + 6;
  const titleX = byNode ? 'receiving node →' : 'receiving rank →';
  const titleY = byNode ? 'sending node →' : 'sending rank →';
  // a small matrix still leaves room for its axis titles
  const extent = Math.max(n * cell, Math.ceil(ctx.measureText(titleX).width) + 16);
  const W = left + extent + 10;
  const H = top + extent + 10;

  // sharp on high-density screens
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  canvas.style.width = W + 'px';
  canvas.style.height = H + 'px';
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  ctx.font = font;

  // the log scale runs from the smallest nonzero value to the largest
  let min = Infinity;
  let max = 0;
  for (const row of cells) {
    for (const c of row) {
      const v = num(c);
      if (v !== null && v > 0) { min = Math.min(min, v); max = Math.max(max, v); }
    }
  }
  // at least three decades, so that nearly equal cells look nearly equal
  if (max > 0) min = Math.min(min, max / 1000);
  const lmin = max > 0 ? Math.log(min) : 0;
  const span = max > 0 ? Math.log(max) - lmin : 0;
  // one pixel per cell in an image, scaled up without smoothing: a
  // thousand ranks are a million cells, too many to fill one by one
  if (n > 0) {
    const img = new ImageData(n, n);
    for (let i = 0; i < n; i++) {
      const row = cells[i] || [];
      for (let j = 0; j < n; j++) {
        const v = num(row[j]);
        const c = v === null || v <= 0 ? EMPTY_RGB
          : RAMP_LUT[span > 0 ? Math.round(255 * (Math.log(v) - lmin) / span) : 255];
        const o = 4 * (i * n + j);
        img.data[o] = c[0];
        img.data[o + 1] = c[1];
        img.data[o + 2] = c[2];
        img.data[o + 3] = 255;
      }
    }
    const off = document.createElement('canvas');
    off.width = n;
    off.height = n;
    off.getContext('2d').putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(off, left, top, n * cell, n * cell);
  }
  // grid lines only where cells are big enough to show them
  if (cell >= 8) {
    ctx.strokeStyle = 'rgba(255,255,255,0.9)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let k = 0; k <= n; k++) {
      ctx.moveTo(left + k * cell + 0.5, top);
      ctx.lineTo(left + k * cell + 0.5, top + n * cell);
      ctx.moveTo(left, top + k * cell + 0.5);
      ctx.lineTo(left + n * cell, top + k * cell + 0.5);
    }
    ctx.stroke();
  }

  // axis labels: senders down the left, receivers along the top
  ctx.fillStyle = '#44505c';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  const fit = (s) => {
    if (ctx.measureText(s).width <= labelW) return s;
    while (s.length > 1 && ctx.measureText(s + '…').width > labelW) s = s.slice(0, -1);
    return s + '…';
  };
  for (let i = 0; i < n; i += step) {
    ctx.fillText(fit(labels[i]), left - 4, top + i * cell + cell / 2);
  }
  ctx.save();
  ctx.textAlign = 'left';
  for (let j = 0; j < n; j += step) {
    ctx.save();
    ctx.translate(left + j * cell + cell / 2, top - 4);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText(fit(labels[j]), 0, 0);
    ctx.restore();
  }
  ctx.restore();

  // axis titles
  ctx.font = '600 11px system-ui, "DejaVu Sans", Arial, sans-serif';
  ctx.fillStyle = '#66727f';
  ctx.textAlign = 'center';
  ctx.fillText(titleX, left + extent / 2, 10);
  ctx.save();
  ctx.translate(10, top + extent / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(titleY, 0, 0);
  ctx.restore();

  return { n, cell, left, top, labels, cells, min: max > 0 ? min : 0, max };
}

/* The legend: a gradient from the smallest to the largest value. */
function matrixLegend(geo, what) {
  const c = el('canvas', { width: 160, height: 12 });
  const ctx = c.getContext('2d');
  for (let x = 0; x < 160; x++) {
    ctx.fillStyle = rampColour(x / 159);
    ctx.fillRect(x, 0, 1, 12);
  }
  const swatch = el('span', { class: 'swatch', style: { background: EMPTY_CELL } });
  if (geo.max <= 0) return el('div', { class: 'legend' }, swatch, 'no traffic in this selection');
  return el('div', { class: 'legend' },
    el('span', null, matrixValueText(what, geo.min)), c, el('span', null, matrixValueText(what, geo.max)),
    el('span', null, '(log scale)'), swatch, el('span', null, 'none'));
}

/* The hidden mirror of the matrix for tests and screen readers: one row
 * per sender, one cell per receiver holding the raw value.  Large
 * matrices keep only their nonzero cells, at most MIRROR_MAX. */
const MIRROR_FULL = 4096;
const MIRROR_MAX = 20000;
function matrixMirror(geo, what) {
  const t = el('table', { id: 'matrix-values', class: 'visually-hidden' },
    el('caption', null, `Communication matrix (${what}), sender by receiver`));
  const full = geo.n * geo.n <= MIRROR_FULL;
  let kept = 0;
  const body = el('tbody');
  for (let i = 0; i < geo.n && kept < MIRROR_MAX; i++) {
    const row = geo.cells[i] || [];
    const tr = el('tr', null, el('th', { scope: 'row' }, geo.labels[i]));
    for (let j = 0; j < geo.n && kept < MIRROR_MAX; j++) {
      const v = num(row[j]);
      if (!full && !(v > 0)) continue;
      tr.appendChild(el('td', { 'data-src': geo.labels[i], 'data-dst': geo.labels[j] },
        v === null ? '0' : String(v)));
      kept++;
    }
    body.appendChild(tr);
  }
  t.appendChild(body);
  return t;
}

/* ------------------------------------------------------------------ */
/* One job: #/job/<id>                                                 */

const CLASS_CHOICES = [['all', 'all'], ['p2p', 'point-to-point'], ['coll', 'collectives'], ['rma', 'RMA']];
const WHAT_CHOICES = [['bytes', 'bytes'], ['msgs', 'messages'], ['avg', 'average size']];
const WINDOW_CHOICES = [['0', 'whole run'], ['10', 'last 10 s'], ['60', 'last 60 s']];

function pick(value, choices) {
  return choices.some((c) => c[0] === value) ? value : choices[0][0];
}

function JobView(root, route) {
  const id = route.arg;
  const sel = {
    class: pick(route.query.get('class'), CLASS_CHOICES),
    what: pick(route.query.get('what'), WHAT_CHOICES),
    window: pick(route.query.get('window'), WINDOW_CHOICES),
  };
  let geo = null;   // the matrix as last drawn, for the hover

  const select = (key, label, choices) => {
    const s = el('select', { 'data-sel': key, onchange: () => {
      sel[key] = s.value;
      // keep the choice in the URL (bookmarks, reload) without a new route
      const q = new URLSearchParams(sel).toString();
      history.replaceState(null, '', jobHref(id) + '?' + q);
      refreshNow();
    } }, choices.map(([v, t]) => el('option', { value: v, selected: v === sel[key] }, t)));
    return el('label', null, label, s);
  };

  const title = el('h1', null, 'Job ', el('span', { class: 'mono' }, id));
  const head = el('section', { class: 'panel' }, loading());
  const canvas = el('canvas', { id: 'matrix', width: 10, height: 10,
    'aria-describedby': 'matrix-values' });
  const legend = el('div');
  const mirror = el('div');
  const matrixNote = el('p', { class: 'muted' });
  const hist = el('div', { class: 'hist scroll' });
  const calls = el('div');
  const ranks = el('div', { class: 'scroll ranks-box' });
  const transport = el('div', { class: 'scroll' });
  root.append(title, head,
    el('section', { class: 'panel' }, el('h2', null, 'Communication matrix'),
      el('div', { class: 'controls' },
        select('class', 'class', CLASS_CHOICES), select('what', 'show', WHAT_CHOICES),
        select('window', 'window', WINDOW_CHOICES)),
      matrixNote, el('div', { class: 'matrix-wrap' }, canvas), legend, mirror),
    el('div', { class: 'cols' },
      el('section', { class: 'panel' }, el('h2', null, 'Message sizes'), hist),
      el('section', { class: 'panel' }, el('h2', null, 'Top MPI functions'), calls)),
    el('section', { class: 'panel' }, el('h2', null, 'Ranks'), ranks),
    el('section', { class: 'panel' }, el('h2', null, 'Transport health'), transport));

  canvas.addEventListener('mousemove', (ev) => {
    if (!geo || geo.n === 0) return hideTooltip();
    const r = canvas.getBoundingClientRect();
    const j = Math.floor((ev.clientX - r.left - geo.left) / geo.cell);
    const i = Math.floor((ev.clientY - r.top - geo.top) / geo.cell);
    if (i < 0 || j < 0 || i >= geo.n || j >= geo.n) return hideTooltip();
    const v = num((geo.cells[i] || [])[j]) || 0;
    showTooltip(ev, `${geo.labels[i]} -> ${geo.labels[j]}: ${matrixValueText(sel.what, v)}`);
  });
  canvas.addEventListener('mouseleave', hideTooltip);

  function drawHead(d) {
    const now = num(d.now) || Date.now();
    const start = num(d.start);
    const end = num(d.end);
    const rs = arr(d.ranks);
    const stuck = rs.filter(isStuck).length;
    const dead = rs.filter((r) => r.state === 'dead').length;
    const sum = (k) => rs.reduce((a, r) => a + (num(r[k]) || 0), 0);
    const nodes = arr(d.nodes);
    clear(head).appendChild(facts([
      ['Program', str(d.program) || DASH],
      ['User (uid)', num(d.uid) === null ? DASH : String(d.uid)],
      ['State', stateBadge(d.state)],
      ['Ranks', String(rs.length)],
      ['Nodes', nodes.length ? [nodes.slice(0, 8).map((nm, k) =>
        [k ? ', ' : '', el('a', { href: nodeHref(nm) }, str(nm))]),
      nodes.length > 8 ? ` and ${nodes.length - 8} more` : ''] : DASH],
      ['Started', fmtTime(start)],
      [end === null ? 'Running for' : 'Ended', end === null ? fmtDuration(now - (start || now))
        : fmtTime(end) + ' (' + fmtDuration(end - (start || end)) + ')'],
      ['Bytes sent', fmtBytes(sum('bytes'))],
      ['Messages sent', fmtCount(sum('msgs'))],
      ['Stuck ranks', el('span', { class: stuck ? 'bad' : null }, String(stuck))],
      ['Dead ranks', el('span', { class: dead ? 'bad' : null }, String(dead))],
    ]));
  }

  function drawMatrixPanel(d) {
    const m = d.matrix || {};
    geo = drawMatrix(canvas, m);
    // where the cells are, for tests that point at one
    canvas.dataset.left = String(geo.left);
    canvas.dataset.top = String(geo.top);
    canvas.dataset.cell = String(geo.cell);
    canvas.dataset.n = String(geo.n);
    const what = WHAT_CHOICES.some((c) => c[0] === m.what) ? m.what : sel.what;
    matrixNote.textContent = geo.n === 0 ? 'No matrix for this job.'
      : m.level === 'node' ? `By node: ${geo.n} nodes (the job's ranks summed per node).`
        : `By rank: ${geo.n} ranks.`;
    clear(legend).appendChild(matrixLegend(geo, what));
    clear(mirror).appendChild(matrixMirror(geo, what));
  }

  function drawHist(d) {
    let hs = arr(d.hist).filter((h) => h && typeof h === 'object');
    clear(hist);
    // the buckets from the first to the last that counted anything (the
    // server sends all of them, up to 4 GiB)
    const used = hs.map((h) => num(h.count) > 0);
    if (!used.includes(true)) return hist.appendChild(emptyNote('No messages yet.'));
    hs = hs.slice(used.indexOf(true), used.lastIndexOf(true) + 1);
    const label = (le) => le === '+Inf' ? 'more' : (num(Number(le)) === null ? str(le)
      : Number(le) === 0 ? '0 B' : '≤' + fmtBytes(Number(le)).replace(' ', ''));
    const max = hs.reduce((m, h) => Math.max(m, num(h.count) || 0), 0);
    const bw = Math.max(14, Math.min(40, Math.floor(560 / hs.length)));
    const H = 150;
    const W = hs.length * bw + 50;
    const svg = svgEl('svg', { width: W, height: H + 60, viewBox: `0 0 ${W} ${H + 60}` });
    // a base line and the largest count
    svg.appendChild(svgEl('line', { x1: 40, y1: H + 0.5, x2: W, y2: H + 0.5, stroke: '#b8c3cf' }));
    svg.appendChild(svgEl('text', { x: 36, y: 12, 'text-anchor': 'end', 'font-size': 10, fill: '#66727f',
      text: fmtCount(max) }));
    hs.forEach((h, k) => {
      const c = num(h.count) || 0;
      const bh = max > 0 ? Math.max(c > 0 ? 1 : 0, (c / max) * (H - 10)) : 0;
      const x = 40 + k * bw;
      svg.appendChild(svgEl('rect', { class: 'barrect', x: x + 2, y: H - bh, width: bw - 4, height: bh },
        svgEl('title', { text: `${label(str(h.le))}: ${fmtCount(c)} messages` })));
      svg.appendChild(svgEl('text', { x: x + bw / 2, y: H + 8, 'font-size': 10, fill: '#44505c',
        'text-anchor': 'end', transform: `rotate(-50 ${x + bw / 2} ${H + 8})`, text: label(str(h.le)) }));
    });
    hist.appendChild(svg);
  }

  function drawCalls(d) {
    const cs = arr(d.calls).filter((c) => num(c.count) > 0)
      .sort((a, b) => b.count - a.count).slice(0, 15);
    clear(calls);
    if (cs.length === 0) return calls.appendChild(emptyNote('No calls counted yet.'));
    const max = cs[0].count;
    calls.appendChild(el('div', { class: 'barlist' }, cs.map((c) => [
      el('span', { class: 'name' }, str(c.fn)), bar(c.count / max),
      el('span', { class: 'num' }, fmtCount(c.count))])));
  }

  function isStuck(r) {
    return r.state !== 'dead' && r.in_call === true && num(r.call_s) !== null && r.call_s > STUCK_S;
  }

  function drawRanks(d) {
    // the ranks that need a look first: dead, then stuck (longest first), then by number
    const trouble = (r) => r.state === 'dead' ? 0 : isStuck(r) ? 1 : 2;
    const rs = arr(d.ranks).slice().sort((a, b) => (trouble(a) - trouble(b)) ||
      (trouble(a) === 1 ? b.call_s - a.call_s : 0) || ((num(a.rank) || 0) - (num(b.rank) || 0)));
    clear(ranks);
    if (rs.length === 0) return ranks.appendChild(emptyNote('No ranks reported.'));
    ranks.appendChild(table('ranks-table', [{ label: 'Rank', num: 1 }, 'Node', { label: 'PID', num: 1 },
      'State', 'Current call', { label: 'In it for', num: 1 }, { label: 'Messages', num: 1 },
      { label: 'Bytes', num: 1 }], rs.map((r) => {
      const cls = r.state === 'dead' ? 'dead' : isStuck(r) ? 'stuck' : null;
      const call = r.call ? (r.in_call ? str(r.call) : 'last: ' + str(r.call)) : DASH;
      return el('tr', { class: cls, 'data-rank': str(r.rank) },
        el('td', { class: 'num' }, str(r.rank)),
        el('td', null, r.node ? el('a', { href: nodeHref(r.node) }, str(r.node)) : DASH),
        el('td', { class: 'num' }, num(r.pid) === null ? DASH : String(r.pid)),
        el('td', null, stateBadge(r.state)),
        el('td', { class: 'mono' + (r.in_call ? '' : ' muted') }, call),
        el('td', { class: 'num' }, r.in_call && num(r.call_s) !== null ? fmtDuration(r.call_s * 1000) : DASH),
        el('td', { class: 'num' }, fmtCount(r.msgs)),
        el('td', { class: 'num' }, fmtBytes(r.bytes)));
    })));
  }

  function drawTransport(d) {
    const ts = arr(d.transport);
    clear(transport);
    if (ts.length === 0) return transport.appendChild(emptyNote('No transport counters (one node, or shared memory only).'));
    // peer-node pairs down, rails across
    const pairSet = new Set();
    const railSet = new Set();
    const byKey = new Map();
    const worst = new Map();   // pair -> its worst rail's state
    const rateOf = (t) => {
      const r = num(t.retrans_rate);
      return r === null && num(t.sent) > 0 ? (num(t.retrans) || 0) / t.sent : r;
    };
    for (const t of ts) {
      const p = str(t.src) + '\u0000' + str(t.dst);
      const rail = num(t.rail) === null ? 0 : t.rail;
      pairSet.add(p);
      railSet.add(rail);
      byKey.set(p + '\u0000' + rail, t);
      worst.set(p, worse(worst.get(p) || 'ok', healthOf(rateOf(t))));
    }
    let pairs = Array.from(pairSet).sort();
    const rails = Array.from(railSet).sort((a, b) => a - b);
    // a large job has too many pairs to show: keep those in trouble
    let hidden = 0;
    if (pairs.length > TRANSPORT_ROWS) {
      const bad = pairs.filter((p) => worst.get(p) !== 'ok');
      hidden = pairs.length - Math.min(bad.length, TRANSPORT_ROWS);
      pairs = bad.sort((a, b) => STATE_RANK[worst.get(b)] - STATE_RANK[worst.get(a)] || (a < b ? -1 : 1))
        .slice(0, TRANSPORT_ROWS);
    }
    const rows = pairs.map((p) => {
      const [src, dst] = p.split('\u0000');
      return el('tr', null, el('th', { scope: 'row' }, `${src} → ${dst}`), rails.map((rail) => {
        const t = byKey.get(p + '\u0000' + rail);
        if (!t) return el('td', { class: 'muted' }, DASH);
        const rate = rateOf(t);
        const state = healthOf(rate);
        const tip = `${src} → ${dst} rail ${rail}\n` +
          `retransmitted ${fmtPct(rate)} (${fmtCount(t.retrans)} of ${fmtCount(t.sent)} packets)\n` +
          `RTT ${num(t.rtt_us) === null ? DASH : sig3(t.rtt_us) + ' µs'}, errors ${fmtCount(t.errors)}`;
        return el('td', null, el('div', { class: 'transport-cell', 'data-src': src, 'data-dst': dst,
          'data-rail': String(rail), 'data-state': state, title: tip },
        el('span', { class: 'rate' }, fmtPct(rate)),
        sparkline(t.spark, { w: 70, h: 18, max: RETRANS_WARN, title: 'retransmission rate, recent' }),
        num(t.errors) > 0 ? el('span', null, fmtCount(t.errors) + ' err') : null));
      }));
    });
    transport.appendChild(el('table', { class: 'transport' },
      el('thead', null, el('tr', null, el('th', null, 'from → to'),
        rails.map((r) => el('th', null, 'rail ' + r)))),
      el('tbody', null, rows)));
    if (hidden > 0) {
      transport.appendChild(el('p', { class: 'muted' }, `${hidden} more node pairs not shown` +
        (pairs.length < TRANSPORT_ROWS ? ': every rail of each retransmits less than 0.1 %.' : '.')));
    }
    transport.appendChild(el('div', { class: 'legend-inline' },
      el('span', { class: 'ok' }, 'retransmissions < 0.1 %'), el('span', { class: 'warn' }, '< 1 %'),
      el('span', { class: 'bad' }, '≥ 1 %'), el('span', { class: 'muted' }, 'hover a cell for RTT and errors')));
  }

  async function refresh() {
    const q = new URLSearchParams({ id: id, class: sel.class, what: sel.what, window: sel.window });
    const d = await getJSON('api/job?' + q.toString());
    drawHead(d);
    drawMatrixPanel(d);
    drawHist(d);
    drawCalls(d);
    drawRanks(d);
    drawTransport(d);
  }
  return { refresh };
}

/* ------------------------------------------------------------------ */
/* One node: #/node/<name>                                             */

function NodeView(root, route) {
  const name = route.arg;
  root.appendChild(el('h1', null, 'Node ', el('span', { class: 'mono' }, name)));
  const head = root.appendChild(el('section', { class: 'panel' }, loading()));
  const nics = el('div', { class: 'scroll' });
  const udp = el('div');
  root.appendChild(el('section', { class: 'panel' }, el('h2', null, 'Network interfaces'), nics));
  root.appendChild(el('section', { class: 'panel' }, el('h2', null, 'UDP'), udp));

  async function refresh() {
    const d = await getJSON('api/node?name=' + encodeURIComponent(name));
    const last = num(d.last);
    const jobs = arr(d.jobs);
    clear(head).appendChild(facts([
      ['Agent', stateBadge(d.agent_up === true ? 'up' : d.agent_up === false ? 'down' : '')],
      ['Last report', last === null ? DASH : fmtTime(last) + ' (' + fmtDuration(Date.now() - last) + ' ago)'],
      ['Ranks here', num(d.ranks) === null ? DASH : String(d.ranks)],
      ['Jobs here', jobs.length ? jobs.map((j, k) =>
        [k ? ', ' : '', el('a', { href: jobHref(j), class: 'mono' }, str(j))]) : 'none'],
    ]));

    const ns = arr(d.nics);
    clear(nics);
    if (ns.length === 0) nics.appendChild(emptyNote('No interfaces reported.'));
    else {
      nics.appendChild(table('nics-table', ['Interface', 'State', { label: 'Speed', num: 1 },
        { label: 'Receive', num: 1 }, { label: 'Send', num: 1 }, 'Utilisation',
        { label: 'Errors', num: 1 }, 'Receive, recent', 'Send, recent'], ns.map((n) => {
        const speed = num(n.speed_mbps);
        let util = num(n.util);
        if (util === null && speed > 0) {
          util = Math.max(num(n.rx_Bps) || 0, num(n.tx_Bps) || 0) * 8 / (speed * 1e6);
        }
        const ucls = util > 0.9 ? 'bad' : util > 0.7 ? 'warn' : null;
        return el('tr', { 'data-nic': str(n.name) },
          el('td', { class: 'mono' }, str(n.name)),
          el('td', null, stateBadge(n.oper)),
          el('td', { class: 'num' }, speed > 0 ? fmtBits(speed * 1e6 / 8) : DASH),
          el('td', { class: 'num', title: fmtRate(n.rx_Bps) }, fmtBits(n.rx_Bps)),
          el('td', { class: 'num', title: fmtRate(n.tx_Bps) }, fmtBits(n.tx_Bps)),
          el('td', null, speed > 0 && util !== null
            ? el('div', { class: 'util' }, bar(util, ucls), el('span', { class: 'num' }, fmtPct(util)))
            : el('span', { class: 'muted' }, 'speed unknown')),
          el('td', { class: 'num' + (num(n.errors) > 0 ? ' bad' : '') }, fmtCount(n.errors)),
          // a floor of 1 KiB/s keeps an idle NIC's few packets from looking like traffic
          el('td', null, sparkline(n.spark_rx, { w: 100, h: 20, max: 1024,
            title: 'receive rate, recent; peak ' + fmtBits(peak(n.spark_rx)) })),
          el('td', null, sparkline(n.spark_tx, { w: 100, h: 20, max: 1024,
            title: 'send rate, recent; peak ' + fmtBits(peak(n.spark_tx)) })));
      })));
    }

    const u = d.udp || {};
    const rb = num(u.rcvbuf_errors_rate);
    const ie = num(u.in_errors_rate);
    clear(udp).appendChild(facts([
      ['Receive-buffer errors', el('span', { class: rb > 0 ? 'bad' : null },
        rb === null ? DASH : sig3(rb) + ' /s')],
      ['Input errors', el('span', { class: ie > 0 ? 'bad' : null }, ie === null ? DASH : sig3(ie) + ' /s')],
    ]));
    if (rb > 0) {
      udp.appendChild(el('p', { class: 'muted' },
        'Receive-buffer errors mean datagrams were dropped because a socket\'s buffer was full; ' +
        'raise net.core.rmem_max or the transport\'s receive buffer.'));
    }
  }
  return { refresh };
}

/* ------------------------------------------------------------------ */
/* Network: #/network.  Switches as boxes holding their nodes, links   */
/* between nodes as curves coloured by state, thicker with traffic.    */

const NODE_W = 96;
const NODE_H = 26;
const GAP = 10;
const HEAD_H = 26;
const MAP_W = 1320;

function layoutNetwork(d) {
  const groups = [];
  const placed = new Set();
  for (const sw of arr(d.switches)) {
    const ns = arr(sw.nodes).map(str).filter((n) => n && !placed.has(n));
    ns.forEach((n) => placed.add(n));
    groups.push({ name: str(sw.name), nodes: ns });
  }
  // nodes the site's map does not place: the node list and the links' ends
  const loose = [];
  const addLoose = (n) => { n = str(n); if (n && !placed.has(n)) { placed.add(n); loose.push(n); } };
  arr(d.nodes).forEach(addLoose);
  arr(d.links).forEach((l) => { addLoose(l.a); addLoose(l.b); });
  if (loose.length) groups.push({ name: 'no switch known', nodes: loose, loose: true });

  // each group a box of nodes in a near-square grid; boxes flow in rows
  const pos = new Map();
  let x = 0;
  let y = 0;
  let rowH = 0;
  let width = 0;
  for (const g of groups) {
    const cols = Math.max(1, Math.min(6, Math.ceil(Math.sqrt(g.nodes.length * 1.5))));
    const rows = Math.max(1, Math.ceil(g.nodes.length / cols));
    g.w = GAP + cols * (NODE_W + GAP);
    g.h = HEAD_H + rows * (NODE_H + GAP);
    if (x > 0 && x + g.w > MAP_W) { x = 0; y += rowH + 40; rowH = 0; }
    g.x = x + 10;
    g.y = y + 10;
    g.nodes.forEach((n, k) => {
      pos.set(n, { x: g.x + GAP + (k % cols) * (NODE_W + GAP), y: g.y + HEAD_H + Math.floor(k / cols) * (NODE_H + GAP) });
    });
    x += g.w + 40;
    rowH = Math.max(rowH, g.h);
    width = Math.max(width, x);
  }
  return { groups, pos, width: Math.max(width, 200), height: y + rowH + 30 };
}

/* One entry per pair of nodes, whichever way round: the server may list a
 * pair once per direction, rail and job.  Traffic adds up; the state and
 * the retransmission rate are the worst seen. */
function mergeLinks(links) {
  const known = ['ok', 'warn', 'bad'];
  const byPair = new Map();
  for (const l of links) {
    if (!l || typeof l !== 'object') continue;
    const a = str(l.a);
    const b = str(l.b);
    if (!a || !b) continue;
    const [p, q] = a < b ? [a, b] : [b, a];
    const key = p + '\u0000' + q;
    let m = byPair.get(key);
    if (!m) {
      m = { a: p, b: q, bytes_rate: 0, retrans_rate: null, state: 'ok', rails: new Set() };
      byPair.set(key, m);
    }
    m.bytes_rate += num(l.bytes_rate) || 0;
    const r = num(l.retrans_rate);
    if (r !== null) m.retrans_rate = Math.max(m.retrans_rate === null ? 0 : m.retrans_rate, r);
    m.state = worse(m.state, known.includes(l.state) ? l.state : healthOf(r));
    if (num(l.rail) !== null) m.rails.add(l.rail);
  }
  return Array.from(byPair.values());
}

function NetworkView(root) {
  root.appendChild(el('h1', null, 'Network'));
  const map = el('div', { class: 'netmap' }, loading());
  const list = el('div', { class: 'scroll' });
  root.appendChild(el('section', { class: 'panel' }, map,
    el('div', { class: 'legend-inline' }, el('span', { class: 'ok' }, 'link ok'),
      el('span', { class: 'warn' }, 'retransmitting'), el('span', { class: 'bad' }, 'bad'),
      el('span', { class: 'muted' }, 'thicker: more traffic; boxes: switches (the site\'s host map)'))));
  root.appendChild(el('section', { class: 'panel' }, el('h2', null, 'Links'), list));

  async function refresh() {
    const d = await getJSON('api/network');
    const lay = layoutNetwork(d);
    const links = mergeLinks(arr(d.links));
    const stateOf = (l) => l.state;
    const maxRate = links.reduce((m, l) => Math.max(m, l.bytes_rate), 0);
    const nodeState = new Map();
    for (const l of links) {
      for (const n of [str(l.a), str(l.b)]) nodeState.set(n, worse(nodeState.get(n) || 'ok', stateOf(l)));
    }

    const svg = svgEl('svg', { width: lay.width, height: lay.height, viewBox: `0 0 ${lay.width} ${lay.height}`,
      role: 'img', 'aria-label': 'network map' });
    for (const g of lay.groups) {
      svg.appendChild(svgEl('g', { class: 'switch', 'data-switch': g.name },
        svgEl('rect', { x: g.x, y: g.y, width: g.w, height: g.h, rx: 6,
          'stroke-dasharray': g.loose ? '4 3' : null }),
        svgEl('text', { x: g.x + 10, y: g.y + 17, text: g.name })));
    }
    // links under the nodes; a slight curve keeps a line off the nodes between its ends
    for (const l of links) {
      const a = lay.pos.get(str(l.a));
      const b = lay.pos.get(str(l.b));
      if (!a || !b) continue;
      const ax = a.x + NODE_W / 2;
      const ay = a.y + NODE_H / 2;
      const bx = b.x + NODE_W / 2;
      const by = b.y + NODE_H / 2;
      const mx = (ax + bx) / 2 - (by - ay) * 0.2;
      const my = (ay + by) / 2 + (bx - ax) * 0.2;
      const r = num(l.bytes_rate) || 0;
      const w = maxRate > 0 ? 1.5 + 5 * Math.log1p(r) / Math.log1p(maxRate) : 1.5;
      const st = stateOf(l);
      svg.appendChild(svgEl('path', { class: 'link ' + st, d: `M${ax},${ay} Q${mx},${my} ${bx},${by}`,
        'stroke-width': w.toFixed(1), 'data-a': str(l.a), 'data-b': str(l.b), 'data-state': st },
      svgEl('title', { text: `${str(l.a)} ↔ ${str(l.b)}: ${fmtRate(l.bytes_rate)}, ` +
        `retransmitted ${fmtPct(l.retrans_rate)}` })));
    }
    for (const [n, p] of lay.pos) {
      const shown = n.length > 12 ? n.slice(0, 11) + '…' : n;
      svg.appendChild(svgEl('a', { href: nodeHref(n), class: 'node ' + (nodeState.get(n) || 'ok'), 'data-node': n },
        svgEl('title', { text: n }),
        svgEl('rect', { x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: 4 }),
        svgEl('text', { x: p.x + NODE_W / 2, y: p.y + 17, 'text-anchor': 'middle', text: shown })));
    }
    clear(map);
    if (lay.pos.size === 0) map.appendChild(emptyNote('No nodes known yet.'));
    else map.appendChild(svg);

    const sorted = links.slice().sort((p, q) => (STATE_RANK[stateOf(q)] - STATE_RANK[stateOf(p)]) ||
      ((num(q.bytes_rate) || 0) - (num(p.bytes_rate) || 0)));
    clear(list).appendChild(table('links-table', ['Between', 'State', { label: 'Traffic', num: 1 },
      { label: 'Retransmitted (worst)', num: 1 }, 'Rails'], sorted.map((l) =>
      el('tr', { 'data-state': stateOf(l), 'data-a': l.a, 'data-b': l.b },
        el('td', null, el('a', { href: nodeHref(l.a) }, l.a), ' ↔ ', el('a', { href: nodeHref(l.b) }, l.b)),
        el('td', null, stateBadge(stateOf(l))),
        el('td', { class: 'num' }, fmtRate(l.bytes_rate)),
        el('td', { class: 'num' }, fmtPct(l.retrans_rate)),
        el('td', null, l.rails.size ? Array.from(l.rails).sort((x, y) => x - y).join(', ') : DASH)))));
    if (links.length === 0) list.appendChild(emptyNote('No traffic between nodes observed.'));
  }
  return { refresh };
}

/* ------------------------------------------------------------------ */
/* Alerts: #/alerts                                                    */

/* Firing before resolved, critical before warning, newest first. */
function alertOrder(a, b) {
  const f = (x) => x.state === 'firing' ? 0 : 1;
  const s = (x) => x.severity === 'critical' ? 0 : 1;
  return (f(a) - f(b)) || (s(a) - s(b)) || ((num(b.since) || 0) - (num(a.since) || 0));
}

function AlertsView(root) {
  root.appendChild(el('h1', null, 'Alerts'));
  const panel = root.appendChild(el('section', { class: 'panel scroll' }, loading()));

  async function refresh() {
    const d = await getJSON('api/alerts');
    noteAlerts(d);
    const as = arr(d.alerts).slice().sort(alertOrder);
    const sevs = ['warning', 'critical'];
    clear(panel).appendChild(table('alerts-table', ['State', 'Severity', 'Rule', 'Target',
      { label: 'Value', num: 1 }, 'Since', 'Resolved', 'Message'], as.map((a) => {
      const sev = sevs.includes(a.severity) ? a.severity : 'warning';
      const resolved = num(a.resolved);
      return el('tr', { 'data-rule': str(a.rule), 'data-state': str(a.state), 'data-id': str(a.id),
        class: `sev-${sev} ${a.state === 'firing' ? 'firing' : 'resolved'}` },
      el('td', null, stateBadge(a.state)),
      el('td', null, el('span', { class: 'sev ' + sev }, str(a.severity) || DASH)),
      el('td', { class: 'mono' }, str(a.rule)),
      el('td', { class: 'wrap' }, str(a.target)),
      el('td', { class: 'num' }, fmtValue(a.value)),
      el('td', null, fmtTime(a.since)),
      el('td', null, resolved === null ? DASH
        : fmtTime(resolved) + ' (after ' + fmtDuration(resolved - (num(a.since) || resolved)) + ')'),
      el('td', { class: 'wrap' }, str(a.message)));
    })));
    if (as.length === 0) panel.appendChild(emptyNote('No alerts.'));
  }
  return { refresh };
}

/* The count of firing alerts in the top bar. */
const alertCount = document.getElementById('alert-count');
function noteAlerts(d) {
  clearError('alerts');
  const firing = arr(d.alerts).filter((a) => a.state === 'firing');
  const critical = firing.some((a) => a.severity === 'critical');
  alertCount.textContent = String(firing.length);
  alertCount.title = 'firing alerts';
  alertCount.className = 'badge' + (firing.length === 0 ? ' zero' : critical ? '' : ' warning');
}

async function refreshAlertCount() {
  try {
    noteAlerts(await getJSON('api/alerts'));
  } catch (e) {
    // a server built without alert rules answers 501 (404 if older): no
    // count to show, and nothing wrong worth a banner on every page
    if (/: HTTP (501|404)\b/.test(e.message)) {
      clearError('alerts');
      alertCount.textContent = '–';
      alertCount.className = 'badge zero';
      alertCount.title = 'this server has no alert rules';
      return;
    }
    throw e;
  }
}

/* ------------------------------------------------------------------ */
/* Routing and the poll loop.                                          */

function NotFoundView(root) {
  root.appendChild(el('h1', null, 'No such page'));
  root.appendChild(el('p', null, 'Try ', el('a', { href: '#/' }, 'the jobs'), '.'));
  return { refresh: async () => {} };
}

const VIEWS = { jobs: JobsView, job: JobView, node: NodeView, network: NetworkView, alerts: AlertsView };

/* "#/job/<id>?class=p2p" -> {view: 'job', arg: id, query}. */
function parseRoute() {
  const h = location.hash.replace(/^#\/?/, '');
  const qpos = h.indexOf('?');
  const path = qpos < 0 ? h : h.slice(0, qpos);
  const query = new URLSearchParams(qpos < 0 ? '' : h.slice(qpos + 1));
  const parts = path.split('/').filter((p) => p !== '');
  let arg = '';
  try {
    arg = parts.length > 1 ? decodeURIComponent(parts.slice(1).join('/')) : '';
  } catch (e) {
    return { view: 'notfound', arg: '', query };
  }
  const view = parts.length === 0 ? 'jobs' : parts[0];
  const needsArg = view === 'job' || view === 'node';
  if (!VIEWS[view] || needsArg !== (arg !== '')) return { view: 'notfound', arg: '', query };
  return { view, arg, query };
}

const main = document.getElementById('view');
const updated = document.getElementById('updated');
let current = null;       // the view on the page: {refresh}
let currentView = '';     // its name
let pollTimer = 0;
let inFlight = false;
let wantNow = false;

function route() {
  const r = parseRoute();
  hideTooltip();
  clearError('view');
  clear(main);
  const root = main.appendChild(el('div', { class: 'view-' + r.view }));
  currentView = r.view;
  current = (VIEWS[r.view] || NotFoundView)(root, r);
  for (const a of document.querySelectorAll('#topbar nav a')) {
    const nav = a.getAttribute('data-nav');
    a.classList.toggle('active', nav === r.view || (nav === 'jobs' && r.view === 'job'));
  }
  document.title = 'tern-monitor' + (r.arg ? ' — ' + r.arg : r.view !== 'jobs' ? ' — ' + r.view : '');
  refreshNow();
}

/* Refresh at once; a round under way is followed by another at once. */
function refreshNow() {
  if (inFlight) { wantNow = true; return; }
  clearTimeout(pollTimer);
  tick();
}

/* One round: the view and the alert count, then the next round. */
async function tick() {
  inFlight = true;
  const view = current;
  // a hidden tab asks nothing; it catches up when it is shown again
  if (!document.hidden) {
    await Promise.all([
      view.refresh().then(() => {
        if (view !== current) return;
        clearError('view');
        updated.textContent = 'updated ' + fmtTime(Date.now()).slice(11);
      }, (e) => {
        if (view !== current) return;
        const msg = String(e && e.message ? e.message : e);
        setError('view', msg);
        for (const p of main.querySelectorAll('p.loading')) p.textContent = 'No data: ' + msg;
        // anything but a failed fetch is a bug of the page: say where
        if (!(e && e.fetch) && window.console) console.error(e);
      }),
      // the alerts page counts them itself
      currentView === 'alerts' ? null
        : refreshAlertCount().catch((e) => setError('alerts', 'alert count: ' + (e && e.message ? e.message : e))),
    ]);
  }
  inFlight = false;
  if (wantNow) { wantNow = false; tick(); return; }
  pollTimer = setTimeout(tick, REFRESH_MS);
}

window.addEventListener('hashchange', route);
document.addEventListener('visibilitychange', () => { if (!document.hidden) refreshNow(); });
route();
