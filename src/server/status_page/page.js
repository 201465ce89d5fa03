'use strict';
// cuzk's status page: reads /status every second and /status/history (the daemon's last ten
// minutes of samples and last hour of WinningPoSt latencies) and draws them. Read-only: it only
// ever sends GET requests. Every text from the daemon goes in as textContent, never as HTML.
(function () {
  const POLL_MS = 1000;
  const WINDOW_MS = 10 * 60 * 1000;
  const LATENCY_WINDOW_MS = 60 * 60 * 1000;
  const HISTORY_REFRESH_MS = 10 * 1000; // the latencies come from the history only
  const ENDED_SHOWN = 6; // ended jobs listed unless all are asked for

  // A partition's way through the engine (src/engine/stages.hpp), in order, and its colour.
  const STAGES = [
    ['queued', '#cbd5e1'],
    ['waiting_budget', '#94a3b8'],
    ['waiting_permit', '#a8a29e'],
    ['loading_parameters', '#c4b5fd'],
    ['synth_running', '#f59e0b'],
    ['synth_done_waiting_gpu', '#fcd34d'],
    ['on_gpu', '#2563eb'],
    ['abc_freed', '#93c5fd'],
    ['finalizing_b_g2', '#0d9488'],
    ['verifying', '#5eead4'],
    ['dealloc_pending', '#6b7280'],
  ];
  const STAGE_COLOR = Object.fromEntries(STAGES);
  const DONE_COLOR = '#16a34a';
  const CLASS_COLOR = {
    abc: '#4e79a7',
    aux: '#f28e2b',
    inputs: '#e15759',
    densities: '#76b7b2',
    synth_scratch: '#59a14f',
    witness: '#edc948',
    input: '#b07aa1',
  };
  const EXTRA_COLORS = ['#9c755f', '#bab0ac', '#ff9da7', '#af7aa1'];

  const state = {
    classes: [], // buffer class names, in the samples' order
    stages: [], // tracked stage names, in the samples' order
    samples: [], // {t, cls, stg, input, budget_total, budget_used, rss, gpu_busy}
    latencies: [], // {t, seconds, request_id, state}
    offset: 0, // the daemon's clock minus this browser's, in ms
    group: 'class',
    status: null,
    hover: null, // the sample index under the pointer
    historyAt: 0,
    allEnded: false, // list every ended job the daemon keeps
  };

  const $ = (id) => document.getElementById(id);

  function node(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'style') Object.assign(e.style, v);
      else e.setAttribute(k, String(v));
    }
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function bytes(b) {
    if (b == null || !isFinite(b)) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let u = 0;
    let v = Math.abs(b);
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    const s = u === 0 ? String(Math.round(v)) : v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0);
    return (b < 0 ? '-' : '') + s + ' ' + units[u];
  }

  function duration(s) {
    if (s == null || !isFinite(s)) return '–';
    if (s < 1) return (s * 1000).toFixed(0) + ' ms';
    if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + ' s';
    const m = Math.floor(s / 60);
    if (m < 60) return m + ' min ' + Math.round(s - 60 * m) + ' s';
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }

  function now() {
    return Date.now() + state.offset;
  }

  async function getJson(url) {
    const r = await fetch(url, { cache: 'no-store' });
    if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
    return r.json();
  }

  // --- data ------------------------------------------------------------------------------

  function takeHistory(h) {
    state.offset = h.now_unix_ms - Date.now();
    state.classes = h.classes;
    state.stages = h.stages;
    const first = state.samples.length ? state.samples[0].t : Infinity;
    const older = h.samples
      .filter((x) => x.t < first)
      .map((x) => ({
        t: x.t,
        cls: x.class,
        stg: x.stage,
        input: x.input,
        budget_total: x.budget_total,
        budget_used: x.budget_used,
        rss: x.rss,
        gpu_busy: x.gpu_busy,
      }));
    state.samples = older.concat(state.samples);
    state.latencies = h.winning_post;
    state.historyAt = Date.now();
  }

  // A sample from /status, as the daemon's history makes them.
  function sampleOf(st) {
    const b = st.buffers;
    if (!state.stages.length) state.stages = Object.keys(b.stages);
    if (!state.classes.length) state.classes = Object.keys(b.stages[state.stages[0]].bytes);
    const cls = state.classes.map((c) => state.stages.reduce((sum, s) => sum + (b.stages[s].bytes[c] || 0), 0));
    const stg = state.stages.map((s) => b.stages[s].total_bytes);
    return {
      t: now(),
      cls,
      stg,
      input: b.input_bytes,
      budget_total: st.budget.total_bytes,
      budget_used: st.budget.used_bytes,
      rss: b.rss_bytes,
      gpu_busy: st.devices.map((d) => d.busy_seconds || 0),
    };
  }

  function trim() {
    const from = now() - WINDOW_MS;
    while (state.samples.length && state.samples[0].t < from) state.samples.shift();
    const lfrom = now() - LATENCY_WINDOW_MS;
    state.latencies = state.latencies.filter((l) => l.t >= lfrom);
  }

  // --- jobs ------------------------------------------------------------------------------

  function stageLegend() {
    const box = $('stage-legend');
    if (box.childElementCount) return;
    for (const [name, color] of STAGES.concat([['done', DONE_COLOR]])) {
      const item = node('span');
      item.appendChild(node('span', { class: 'swatch', style: { background: color } }));
      item.appendChild(document.createTextNode(name));
      box.appendChild(item);
    }
  }

  function progressBar(job) {
    const wrap = node('div');
    const bar = node('div', { class: 'bar', 'data-job': job.request_id });
    const total = Math.max(1, job.partitions);
    const ended = ['succeeded', 'failed', 'cancelled'].includes(job.state);
    let live = 0;
    const parts = [];
    for (const [name, color] of STAGES) {
      const n = ended ? 0 : (job.stages || {})[name] || 0;
      if (n) parts.push([name, color, n]);
      live += n;
    }
    const done = ended && job.state !== 'succeeded' ? 0 : job.partitions - live;
    if (done > 0) parts.push(['done', DONE_COLOR, done]);
    if (ended && job.state !== 'succeeded') parts.push([job.state, job.state === 'failed' ? '#c0392b' : '#9ca3af', total]);
    for (const [name, color, n] of parts) {
      const seg = node('span', { title: `${name}: ${n}`, 'data-stage': name, style: { width: (100 * n) / total + '%', background: color } });
      bar.appendChild(seg);
    }
    wrap.appendChild(bar);
    const caption = parts
      .filter(([name]) => name !== 'failed' && name !== 'cancelled')
      .map(([name, , n]) => `${n} ${name}`)
      .join(', ');
    wrap.appendChild(node('div', { class: 'bar-caption' }, `${job.partitions} partition${job.partitions === 1 ? '' : 's'}` + (caption ? ': ' + caption : '')));
    return wrap;
  }

  function renderJobs(st) {
    stageLegend();
    const body = $('jobs-body');
    const jobs = st.job_list || [];
    const isActive = (j) => j.state === 'queued' || j.state === 'running';
    const active = jobs.filter(isActive).length;
    // Every active job; of the ended ones (latest first) a few unless asked for all.
    let endedShown = 0;
    const shown = jobs.filter((j) => isActive(j) || state.allEnded || endedShown++ < ENDED_SHOWN);
    const rows = [];
    for (const job of shown) {
      const tr = node('tr', { 'data-job': job.request_id, 'data-state': job.state });
      const id = node('td', { class: 'id' }, job.request_id);
      if (job.what && job.what !== job.request_id) id.appendChild(node('span', { class: 'what' }, job.what));
      if (job.error) id.appendChild(node('span', { class: 'error' }, job.error));
      tr.appendChild(id);
      tr.appendChild(node('td', {}, job.kind));
      tr.appendChild(node('td', { class: 'num' }, String(job.priority)));
      const stateCell = node('td');
      stateCell.appendChild(node('span', { class: 'state', 'data-state': job.state }, job.state));
      tr.appendChild(stateCell);
      const progress = node('td');
      progress.appendChild(progressBar(job));
      tr.appendChild(progress);
      tr.appendChild(node('td', { class: 'num' }, duration(job.elapsed_seconds)));
      const expected = job.expected_seconds;
      tr.appendChild(node('td', { class: 'num', title: 'moving average of recent successful jobs of this kind and size' }, expected == null ? '–' : duration(expected)));
      const link = node('td');
      const a = node('a', { href: '/timeline?job=' + encodeURIComponent(job.request_id), download: '' }, 'trace');
      a.title = 'Chrome trace of its partitions\u2019 stages (open in ui.perfetto.dev or chrome://tracing)';
      link.appendChild(a);
      tr.appendChild(link);
      rows.push(tr);
    }
    body.replaceChildren(...rows);
    $('jobs-empty').hidden = rows.length > 0;
    $('jobs-count').textContent = `${active} active, ${jobs.length - active} recently ended`;
    const more = $('jobs-more');
    const hidden = jobs.length - shown.length;
    more.hidden = hidden === 0 && !state.allEnded;
    more.textContent = state.allEnded ? 'show fewer ended jobs' : `show ${hidden} more ended job${hidden === 1 ? '' : 's'}`;
  }

  // --- memory ----------------------------------------------------------------------------

  function seriesOf(group) {
    const names = group === 'class' ? state.classes : state.stages;
    const key = group === 'class' ? 'cls' : 'stg';
    const series = names.map((name, i) => ({
      name,
      color: (group === 'class' ? CLASS_COLOR[name] : STAGE_COLOR[name]) || EXTRA_COLORS[i % EXTRA_COLORS.length],
      values: state.samples.map((s) => s[key][i] || 0),
    }));
    // The jobs' parsed inputs are tracked per job, in no stage.
    series.push({ name: 'input (jobs\u2019 inputs)', color: CLASS_COLOR.input, values: state.samples.map((s) => s.input || 0) });
    return series;
  }

  function tracked(s) {
    return s.cls.reduce((a, b) => a + b, 0) + (s.input || 0);
  }

  function renderMemory(st) {
    const series = seriesOf(state.group);
    const lines = [
      { name: 'budget', color: '#c0392b', dash: '6 4', width: 2, mayExceed: true, values: state.samples.map((s) => s.budget_total) },
      { name: 'budget used (reserved)', color: '#1d2330', width: 1, values: state.samples.map((s) => s.budget_used) },
    ];
    const t1 = now();
    CuzkCharts.stacked($('memory-chart'), {
      times: state.samples.map((s) => s.t),
      series,
      lines,
      tmin: t1 - WINDOW_MS,
      tmax: t1,
      format: bytes,
      onHover: (i) => {
        state.hover = i;
        memoryLegend(series, lines);
      },
    });
    memoryLegend(series, lines);
    const b = st.buffers;
    const current = state.samples.length ? tracked(state.samples[state.samples.length - 1]) : b.tracked_bytes;
    const peak = state.samples.reduce((m, s) => Math.max(m, tracked(s)), 0);
    $('tracked-now').textContent = bytes(current);
    $('tracked-now').dataset.bytes = String(current);
    $('tracked-peak').textContent = bytes(peak);
    $('tracked-peak').dataset.bytes = String(peak);
    $('budget-used').textContent = bytes(st.budget.used_bytes);
    $('budget-total').textContent = bytes(st.budget.total_bytes);
    $('rss').textContent = bytes(b.rss_bytes);
  }

  function memoryLegend(series, lines) {
    const i = state.hover != null && state.hover < state.samples.length ? state.hover : state.samples.length - 1;
    const box = $('memory-legend');
    const items = [];
    const at = i >= 0 ? state.samples[i] : null;
    if (at) items.push(node('span', { class: 'muted' }, CuzkCharts.clock(at.t, true)));
    for (const s of series.concat(lines)) {
      const item = node('span');
      item.appendChild(node('span', { class: 'swatch', style: { background: s.color } }));
      item.appendChild(document.createTextNode(`${s.name} ${at ? bytes(s.values[i]) : '–'}`));
      items.push(item);
    }
    box.replaceChildren(...items);
  }

  // --- parameters, devices -----------------------------------------------------------------

  function renderParams(st) {
    const rows = (st.params || []).map((p) => {
      const tr = node('tr');
      tr.appendChild(node('td', { class: 'id' }, p.param_id));
      tr.appendChild(node('td', { class: 'num' }, bytes(p.host_bytes)));
      tr.appendChild(node('td', { class: 'num', title: 'known while it is the only set resident' }, p.device_bytes == null ? 'n/a' : bytes(p.device_bytes)));
      tr.appendChild(node('td', { class: 'num' }, String(p.jobs ?? '')));
      tr.appendChild(node('td', {}, p.in_use ? 'yes' : 'no'));
      return tr;
    });
    $('params-body').replaceChildren(...rows);
    $('params-empty').hidden = rows.length > 0;
    const b = st.buffers;
    $('compiled-bytes').textContent = bytes(b.compiled_circuit_bytes);
    $('params-device-bytes').textContent = bytes(b.parameters_device_bytes);
    $('params-released-bytes').textContent = bytes(b.parameters_released_bytes || 0);
    $('pinned-bytes').textContent = bytes(b.pinned_pool_bytes);
    $('abc-kept-bytes').textContent = bytes(b.abc_kept_bytes);
    $('witness-kept-bytes').textContent = bytes(b.witness_kept_bytes || 0);
  }

  // Busy share of device i between two samples: the growth of its busy_seconds (time with a
  // partition in prove_start, overlapping ones counted once) over wall time.
  function busyShare(i, a, b) {
    const dt = (b.t - a.t) / 1000;
    if (!(dt > 0) || a.gpu_busy[i] == null || b.gpu_busy[i] == null) return null;
    return Math.max(0, Math.min(1, (b.gpu_busy[i] - a.gpu_busy[i]) / dt));
  }

  function meterRow(label, fraction, value, color) {
    const row = node('div', { class: 'row' });
    row.appendChild(node('span', {}, label));
    const bar = node('div', { class: 'bar' });
    bar.appendChild(node('span', { style: { width: Math.round(100 * Math.max(0, Math.min(1, fraction || 0))) + '%', background: color } }));
    row.appendChild(bar);
    row.appendChild(node('span', { class: 'value' }, value));
    return row;
  }

  function renderDevices(st) {
    const box = $('gpus');
    const cards = [];
    const n = state.samples.length;
    st.devices.forEach((d, i) => {
      const card = node('div', { class: 'gpu', 'data-device': d.ordinal });
      // The CPU backend is a device of its own (ordinal -1).
      card.appendChild(node('div', { class: 'title' }, d.ordinal < 0 ? `${d.name} (CPU backend)` : `GPU ${d.ordinal}: ${d.name}`));
      // Busy share over the last ~5 s of samples, and over the window as a sparkline.
      const back = state.samples[Math.max(0, n - 6)];
      const share = n >= 2 ? busyShare(i, back, state.samples[n - 1]) : null;
      card.appendChild(meterRow('busy', share, share == null ? '–' : Math.round(100 * share) + ' %', '#2563eb'));
      const times = [], shares = [];
      for (let k = 1; k < n; k++) {
        const v = busyShare(i, state.samples[k - 1], state.samples[k]);
        if (v != null) {
          times.push(state.samples[k].t);
          shares.push(v);
        }
      }
      const spark = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      spark.setAttribute('class', 'spark');
      card.appendChild(spark);
      if (d.memory_total_bytes) {
        const used = d.memory_total_bytes - d.memory_free_bytes;
        card.appendChild(meterRow('memory', used / d.memory_total_bytes, `${bytes(used)} of ${bytes(d.memory_total_bytes)}`, '#0d9488'));
      } else {
        card.appendChild(node('div', { class: 'line muted' }, 'memory: host memory (no device memory)'));
      }
      card.appendChild(node('div', { class: 'line muted' }, d.current_job ? `proving ${d.current_job} (${d.current_kind})` : 'idle'));
      if (d.memory_plan) card.appendChild(node('div', { class: 'line muted' }, d.memory_plan));
      cards.push([card, spark, times, shares]);
    });
    box.replaceChildren(...cards.map((c) => c[0]));
    const t1 = now();
    for (const [, spark, times, shares] of cards) CuzkCharts.spark(spark, { times, values: shares, max: 1, color: '#2563eb', tmin: t1 - WINDOW_MS, tmax: t1 });
  }

  // --- WinningPoSt -----------------------------------------------------------------------------

  function renderWinning() {
    const t1 = now();
    const pts = state.latencies.map((l) => ({
      t: l.t,
      v: l.seconds,
      bad: l.state !== 'succeeded',
      label: `${l.request_id}: ${duration(l.seconds)} (${l.state}) at ${CuzkCharts.clock(l.t, true)}`,
    }));
    CuzkCharts.points($('winning-chart'), { points: pts, tmin: t1 - LATENCY_WINDOW_MS, tmax: t1, format: duration, empty: 'no WinningPoSt in the last hour' });
    if (!pts.length) {
      $('winning-summary').textContent = '';
      return;
    }
    const v = pts.map((p) => p.v).sort((a, b) => a - b);
    const failed = pts.filter((p) => p.bad).length;
    $('winning-summary').textContent = `${pts.length} proofs, median ${duration(v[Math.floor(v.length / 2)])}, max ${duration(v[v.length - 1])}` + (failed ? `, ${failed} not succeeded` : '');
  }

  // --- loop --------------------------------------------------------------------------------------

  function renderHeader(st) {
    const up = duration(st.uptime_seconds);
    const draining = st.daemon && st.daemon.draining ? ', shutting down' : '';
    $('daemon-summary').textContent = `backend ${st.backend}, policy ${st.policy}, up ${up}${draining}; ` + `${st.jobs.completed} completed, ${st.jobs.failed} failed, ${st.jobs.cancelled} cancelled`;
  }

  function linkState(s, why) {
    const e = $('link-state');
    e.dataset.state = s;
    e.textContent = s === 'live' ? 'live ' + CuzkCharts.clock(now(), true) : s + (why ? ': ' + why : '');
  }

  function render() {
    const st = state.status;
    if (!st) return;
    renderHeader(st);
    renderJobs(st);
    renderMemory(st);
    renderParams(st);
    renderDevices(st);
    renderWinning();
  }

  async function poll() {
    const started = Date.now();
    try {
      if (started - state.historyAt >= HISTORY_REFRESH_MS) {
        try {
          takeHistory(await getJson('/status/history'));
        } catch (e) {
          state.historyAt = started; // retried later; the page still works from its own polls
        }
      }
      const st = await getJson('/status');
      state.status = st;
      state.samples.push(sampleOf(st));
      trim();
      render();
      linkState('live');
    } catch (e) {
      linkState('stale', e.message);
    }
    setTimeout(poll, Math.max(0, POLL_MS - (Date.now() - started)));
  }

  function showError(message) {
    const box = $('page-error');
    box.hidden = false;
    box.textContent = 'page error: ' + message;
    document.body.dataset.errors = String(Number(document.body.dataset.errors || 0) + 1);
  }

  window.addEventListener('error', (e) => showError(e.message));
  window.addEventListener('unhandledrejection', (e) => showError(String(e.reason)));

  for (const [id, group] of [['group-class', 'class'], ['group-stage', 'stage']]) {
    $(id).addEventListener('click', () => {
      state.group = group;
      $('group-class').setAttribute('aria-pressed', String(group === 'class'));
      $('group-stage').setAttribute('aria-pressed', String(group === 'stage'));
      render();
    });
  }
  $('jobs-more').addEventListener('click', () => {
    state.allEnded = !state.allEnded;
    render();
  });
  window.addEventListener('resize', render);
  poll();
})();
