/**
 * Small drawings as inline SVG, built from the data (no chart library: a few rectangles and labels
 * keep the bundle small). Each drawing is an `<svg role="img">` with an `aria-label` saying what it
 * shows and a `<title>` per mark, so the numbers are readable without the picture.
 * @module
 */

const SVG = 'http://www.w3.org/2000/svg';

function el(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.append(c);
  return e;
}

/** A mark with its figure as a tooltip. */
const titled = (mark: SVGElement, title: string) => (mark.append(el('title', {}, title)), mark);

/** One bar of a horizontal bar chart. */
export interface Bar {
  label: string;
  value: number;
  /** A CSS class for the bar's colour (`bar-block`, `bar-allow`, `bar-change`). */
  kind?: string;
}

/**
 * Horizontal bars, one a row: the label above its bar, the figure after it. As wide as its container
 * (x in percent), a fixed height a row, so its text keeps the page's size at any width.
 */
export function barChart(bars: Bar[], label: string, unit: string): SVGElement {
  const row = 34;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const svg = el('svg', { class: 'chart bars', width: '100%', height: bars.length * row + 4, role: 'img', 'aria-label': label });
  bars.forEach((b, i) => {
    const y = i * row;
    const w = Math.max(0.5, (88 * b.value) / max);
    svg.append(
      el('text', { x: 0, y: y + 11, class: 'chart-label' }, b.label),
      titled(el('rect', { x: 0, y: y + 15, width: `${w.toFixed(2)}%`, height: 14, rx: 2, class: `bar ${b.kind ?? ''}` }), `${b.label}: ${b.value} ${unit}`),
      el('text', { x: `${(w + 1).toFixed(2)}%`, y: y + 26, class: 'chart-figure' }, String(b.value)),
    );
  });
  return svg;
}

/** One time bin: its start (ms since the epoch) and a count per series. */
export interface TimeBin {
  start: number;
  counts: Record<string, number>;
}

const duration = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);

/**
 * Stacked columns over time, one series a colour (`series` in stacking order, each a CSS class
 * `col-NAME`); x in percent of the container, y in pixels. The tallest column's figure at the top left.
 */
export function timeChart(bins: TimeBin[], series: string[], binMs: number, label: string): SVGElement {
  const height = 150;
  const top = 16;
  const bottom = 20;
  const plot = height - top - bottom;
  const max = Math.max(1, ...bins.map((b) => series.reduce((n, s) => n + (b.counts[s] ?? 0), 0)));
  const col = 100 / Math.max(1, bins.length);
  const svg = el('svg', { class: 'chart time', width: '100%', height, role: 'img', 'aria-label': label });
  svg.append(el('line', { x1: 0, x2: '100%', y1: top + plot, y2: top + plot, class: 'axis' }), el('text', { x: 0, y: 11, class: 'chart-figure' }, `${max} a column at most`));
  const t0 = bins[0]?.start ?? 0;
  bins.forEach((b, i) => {
    let y = top + plot;
    for (const s of series) {
      const n = b.counts[s] ?? 0;
      if (!n) continue;
      const h = (plot * n) / max;
      y -= h;
      svg.append(titled(el('rect', { x: `${(i * col).toFixed(3)}%`, y: y.toFixed(1), width: `${Math.max(0.2, col * 0.85).toFixed(3)}%`, height: h.toFixed(1), class: `col-${s}` }), `${duration(b.start - t0)} + ${duration(binMs)}: ${n} ${s}`));
    }
  });
  svg.append(el('text', { x: 0, y: height - 4, class: 'chart-figure' }, '0 s'), el('text', { x: '100%', y: height - 4, class: 'chart-figure', 'text-anchor': 'end' }, duration(bins.length * binMs)));
  return svg;
}

/** Times (ms) and a series name each into at most `count` bins of equal width. */
export function binTimes(points: { t: number; series: string }[], count = 40): { bins: TimeBin[]; binMs: number } {
  if (!points.length) return { bins: [], binMs: 0 };
  let lo = Infinity;
  let hi = -Infinity;
  for (const p of points) {
    if (p.t < lo) lo = p.t;
    if (p.t > hi) hi = p.t;
  }
  const n = Math.max(1, Math.min(count, points.length));
  const binMs = Math.max((hi - lo) / n, 1e-3);
  const bins: TimeBin[] = Array.from({ length: n }, (_, i) => ({ start: lo + i * binMs, counts: {} }));
  for (const p of points) {
    const b = bins[Math.min(n - 1, Math.floor((p.t - lo) / binMs))]!;
    b.counts[p.series] = (b.counts[p.series] ?? 0) + 1;
  }
  return { bins, binMs };
}
