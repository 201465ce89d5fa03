'use strict';
// The status page's charts, drawn as SVG by hand (no library): a stacked area chart over time
// with lines on top, points over time, and a sparkline. Each call redraws the whole chart at
// the SVG element's current size.
(function () {
  const NS = 'http://www.w3.org/2000/svg';
  const PAD = { left: 64, right: 12, top: 10, bottom: 22 };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (parent) parent.appendChild(e);
    return e;
  }

  function clear(svg) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
  }

  function size(svg) {
    const r = svg.getBoundingClientRect();
    return { w: Math.max(240, Math.round(r.width) || 800), h: Math.max(30, Math.round(r.height) || 240) };
  }

  // A round top for an axis: 1, 2, 2.5 or 5 times a power of `base` (10, or 1024 for bytes).
  function niceMax(v, base) {
    if (!(v > 0)) return 1;
    let unit = 1;
    if (base === 1024) {
      while (unit * 1024 <= v) unit *= 1024;
      v = v / unit;
    }
    const e = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) {
      if (m * e >= v * 0.9999) return m * e * unit;
    }
    return 10 * e * unit;
  }

  function pad2(n) {
    return String(n).padStart(2, '0');
  }

  function clock(ms, seconds) {
    const d = new Date(ms);
    return pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + (seconds ? ':' + pad2(d.getSeconds()) : '');
  }

  // Time ticks: the first step that gives at most 6 of them.
  function timeTicks(tmin, tmax) {
    const steps = [10e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3];
    let step = steps[steps.length - 1];
    for (const s of steps) {
      if ((tmax - tmin) / s <= 6) {
        step = s;
        break;
      }
    }
    const ticks = [];
    for (let t = Math.ceil(tmin / step) * step; t <= tmax; t += step) ticks.push(t);
    return { ticks, seconds: step < 60e3 };
  }

  // Axes, grid and labels; returns the scales.
  function frame(svg, opts, ymax) {
    const { w, h } = size(svg);
    svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
    const x0 = PAD.left, x1 = w - PAD.right, y0 = h - PAD.bottom, y1 = PAD.top;
    const x = (t) => x0 + ((t - opts.tmin) / Math.max(1, opts.tmax - opts.tmin)) * (x1 - x0);
    const y = (v) => y0 - (v / ymax) * (y0 - y1);
    for (let i = 0; i <= 4; i++) {
      const v = (ymax * i) / 4;
      el('line', { x1: x0, x2: x1, y1: y(v), y2: y(v), class: i ? 'grid' : 'axis' }, svg);
      const label = el('text', { x: x0 - 6, y: y(v) + 4, 'text-anchor': 'end' }, svg);
      label.textContent = opts.format(v);
    }
    const { ticks, seconds } = timeTicks(opts.tmin, opts.tmax);
    for (const t of ticks) {
      el('line', { x1: x(t), x2: x(t), y1: y0, y2: y0 + 4, class: 'axis' }, svg);
      const label = el('text', { x: x(t), y: h - 6, 'text-anchor': 'middle' }, svg);
      label.textContent = clock(t, seconds);
    }
    return { x, y, x0, x1, y0, y1, w, h };
  }

  // A message in an empty chart.
  function note(svg, f, text) {
    const t = el('text', { x: (f.x0 + f.x1) / 2, y: (f.y0 + f.y1) / 2, 'text-anchor': 'middle' }, svg);
    t.textContent = text;
  }

  // Stacked areas of opts.series ({name, color, values}) over opts.times, with opts.lines
  // ({name, color, values, dash, mayExceed}) on top. A line marked mayExceed (the budget) is left
  // out of the scale when it is far above everything else, and named above the chart instead, so
  // that a large budget does not flatten the data. opts.onHover(index or null) follows the pointer.
  function stacked(svg, opts) {
    clear(svg);
    const n = opts.times.length;
    const totals = new Array(n).fill(0);
    for (const s of opts.series) s.values.forEach((v, i) => (totals[i] += v || 0));
    const peak = (values) => Math.max(0, ...values.map((v) => v || 0));
    let top = Math.max(0, ...totals);
    for (const l of opts.lines) if (!l.mayExceed) top = Math.max(top, peak(l.values));
    const above = opts.lines.filter((l) => l.mayExceed && top > 0 && peak(l.values) > 2 * top);
    for (const l of opts.lines) if (!above.includes(l)) top = Math.max(top, peak(l.values));
    const f = frame(svg, opts, niceMax(top * 1.05, 1024));
    if (n === 0) note(svg, f, 'no samples yet');
    above.forEach((l, k) => {
      const t = el('text', { x: f.x1 - 4, y: f.y1 + 12 + 14 * k, 'text-anchor': 'end', fill: l.color }, svg);
      t.textContent = `${l.name} ${opts.format(peak(l.values))}: above the scale`;
    });
    const lower = new Array(n).fill(0);
    for (const s of opts.series) {
      if (!s.values.some((v) => v > 0)) {
        s.values.forEach((v, i) => (lower[i] += v || 0));
        continue;
      }
      const upper = lower.map((l, i) => l + (s.values[i] || 0));
      let d = '';
      for (let i = 0; i < n; i++) d += (i ? 'L' : 'M') + f.x(opts.times[i]).toFixed(1) + ',' + f.y(upper[i]).toFixed(1);
      for (let i = n - 1; i >= 0; i--) d += 'L' + f.x(opts.times[i]).toFixed(1) + ',' + f.y(lower[i]).toFixed(1);
      el('path', { d: d + 'Z', fill: s.color, 'fill-opacity': 0.85, stroke: 'none' }, svg).appendChild(title(s.name));
      for (let i = 0; i < n; i++) lower[i] = upper[i];
    }
    for (const l of opts.lines) {
      if (n === 0 || above.includes(l)) continue;
      let d = '';
      for (let i = 0; i < n; i++) d += (i ? 'L' : 'M') + f.x(opts.times[i]).toFixed(1) + ',' + f.y(l.values[i] || 0).toFixed(1);
      const attrs = { d, fill: 'none', stroke: l.color, 'stroke-width': l.width || 1.5 };
      if (l.dash) attrs['stroke-dasharray'] = l.dash;
      el('path', attrs, svg).appendChild(title(l.name));
    }
    hover(svg, f, opts);
  }

  function title(text) {
    const t = document.createElementNS(NS, 'title');
    t.textContent = text;
    return t;
  }

  // A vertical cursor at the sample nearest the pointer; opts.onHover gets its index.
  function hover(svg, f, opts) {
    svg.__chart = { f, opts };
    if (svg.__hoverBound) {
      if (svg.__hoverIndex != null) drawCursor(svg, svg.__hoverIndex);
      return;
    }
    svg.__hoverBound = true;
    svg.addEventListener('mousemove', (ev) => {
      const { f, opts } = svg.__chart;
      const r = svg.getBoundingClientRect();
      const px = ((ev.clientX - r.left) / r.width) * f.w;
      let best = null;
      opts.times.forEach((t, i) => {
        if (best === null || Math.abs(f.x(t) - px) < Math.abs(f.x(opts.times[best]) - px)) best = i;
      });
      svg.__hoverIndex = best;
      drawCursor(svg, best);
      if (opts.onHover) opts.onHover(best);
    });
    svg.addEventListener('mouseleave', () => {
      svg.__hoverIndex = null;
      drawCursor(svg, null);
      const { opts } = svg.__chart;
      if (opts.onHover) opts.onHover(null);
    });
  }

  function drawCursor(svg, index) {
    const old = svg.querySelector('.cursor');
    if (old) old.remove();
    const { f, opts } = svg.__chart;
    if (index == null || index >= opts.times.length) return;
    const x = f.x(opts.times[index]);
    el('line', { x1: x, x2: x, y1: f.y1, y2: f.y0, stroke: '#1d2330', 'stroke-width': 1, class: 'cursor' }, svg);
  }

  // Points ({t, v, bad, label}) over [tmin, tmax], with their median as a line.
  function points(svg, opts) {
    clear(svg);
    const top = Math.max(0, ...opts.points.map((p) => p.v));
    const f = frame(svg, opts, niceMax(top * 1.1, 10));
    if (opts.points.length === 0) {
      note(svg, f, opts.empty || 'none yet');
      return;
    }
    const sorted = opts.points.map((p) => p.v).sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    el('line', { x1: f.x0, x2: f.x1, y1: f.y(median), y2: f.y(median), stroke: '#6b7280', 'stroke-dasharray': '4 3' }, svg)
      .appendChild(title('median ' + opts.format(median)));
    for (const p of opts.points) {
      el('circle', { cx: f.x(p.t), cy: f.y(p.v), r: 3.5, fill: p.bad ? '#c0392b' : '#2563eb' }, svg).appendChild(
        title(p.label)
      );
    }
  }

  // A small line of values (0..max) over times, no axes.
  function spark(svg, opts) {
    clear(svg);
    const { w, h } = size(svg);
    svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
    const n = opts.values.length;
    el('rect', { x: 0, y: 0, width: w, height: h, fill: '#f3f4f6' }, svg);
    if (n < 2) return;
    const x = (t) => ((t - opts.tmin) / Math.max(1, opts.tmax - opts.tmin)) * w;
    const y = (v) => h - 2 - (Math.min(v, opts.max) / opts.max) * (h - 4);
    let d = '';
    for (let i = 0; i < n; i++) d += (i ? 'L' : 'M') + x(opts.times[i]).toFixed(1) + ',' + y(opts.values[i]).toFixed(1);
    el('path', { d: d + `L${x(opts.times[n - 1]).toFixed(1)},${h}L${x(opts.times[0]).toFixed(1)},${h}Z`, fill: opts.color, 'fill-opacity': 0.25, stroke: 'none' }, svg);
    el('path', { d, fill: 'none', stroke: opts.color, 'stroke-width': 1.5 }, svg);
  }

  window.CuzkCharts = { stacked, points, spark, clock };
})();
