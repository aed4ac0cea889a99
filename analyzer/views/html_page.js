// profanalyze html: draws the aggregates carried in #prof-data (built by
// cli/html_command.cpp) as plain SVG and tables. No library, no request.
// Every number shown carries its exact value in data-value, so tests can
// compare the page with `report --format json` and `advise --format json`.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("prof-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const COLORS = { kernel: "#43a047", memcpy: "#1e88e5", memset: "#8e24aa", sync: "#e53935",
                   busy: "#fb8c00", idle: "#cfd8dc" };

  function el(tag, attrs, ...children) {
    const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  function fmtNs(ns) {
    if (ns === null || ns === undefined) return "";
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
    if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
    if (a >= 1e3) return (ns / 1e3).toFixed(3) + " us";
    return String(ns) + " ns";
  }
  function fmtBytes(b) {
    if (b === null || b === undefined) return "";
    const a = Math.abs(b);
    if (a >= 1 << 30) return (b / (1 << 30)).toFixed(2) + " GiB";
    if (a >= 1 << 20) return (b / (1 << 20)).toFixed(2) + " MiB";
    if (a >= 1 << 10) return (b / (1 << 10)).toFixed(2) + " KiB";
    return String(b) + " B";
  }
  function fmtNum(v) { return v === null || v === undefined ? "" : Number(v).toLocaleString("en-US"); }
  function fmtPct(v) { return v === null || v === undefined ? "" : Number(v).toFixed(2) + " %"; }
  // A cell showing `value` formatted, with the exact value kept for tests and sorting.
  function cell(value, format, cls) {
    const attrs = { "data-value": value === null || value === undefined ? "" : String(value) };
    if (cls) attrs.class = cls;
    return el("td", Object.assign(attrs, { text: (format || fmtNum)(value) }));
  }
  function nameCell(text) { return el("td", { class: "name", "data-value": text, text: text }); }

  // A table whose every column sorts on a click (numbers by value, text by text).
  function sortableTable(columns, rows, id) {
    const table = el("table", { id: id, class: "sortable" });
    const head = el("tr");
    const body = el("tbody");
    let sortCol = -1, desc = true;
    function render() {
      body.replaceChildren();
      const sorted = rows.slice();
      if (sortCol >= 0) {
        const c = columns[sortCol];
        sorted.sort((a, b) => {
          const x = a[c.key], y = b[c.key];
          const r = c.text ? String(x).localeCompare(String(y)) : (Number(x) || 0) - (Number(y) || 0);
          return desc ? -r : r;
        });
      }
      for (const r of sorted) {
        if (table.filter && !table.filter(r)) continue;
        body.append(el("tr", {}, ...columns.map(c => c.text ? nameCell(r[c.key]) : cell(r[c.key], c.format))));
      }
    }
    columns.forEach((c, i) => {
      head.append(el("th", { class: c.text ? "name" : "", "data-key": c.key, text: c.title, onclick: () => {
        desc = sortCol === i ? !desc : true;
        sortCol = i;
        for (const th of head.children) th.classList.remove("sorted-desc", "sorted-asc");
        head.children[i].classList.add(desc ? "sorted-desc" : "sorted-asc");
        render();
      } }));
    });
    table.append(el("thead", {}, head), body);
    table.rerender = render;
    render();
    return table;
  }

  const advise = DATA.advise && DATA.advise.windows && DATA.advise.windows.length ? DATA.advise : null;
  const adviseWindow = advise ? advise.windows[0] : null;
  const rankOfPid = {};
  for (const f of DATA.facts) rankOfPid[f.pid] = f.rank;
  function processLabel(pid) {
    if (DATA.facts.length < 2) return "";
    const r = rankOfPid[pid];
    return r === null || r === undefined ? "pid " + pid : "rank " + r;
  }

  // ---- Overview ----
  // Step bars (cli/html_steps.h): one per step, or per run of `count`
  // consecutive steps past 200 steps, with times summed over its steps.
  const STEP_BARS = DATA.step_bars || { step_count: 0, steps_per_bar: 1, bars: [] };
  function barLabel(b) { return b.count === 1 ? String(b.first) : b.first + "-" + b.last; }
  // A bar's segments per step (its sums over its count of steps): exact for one step.
  function stepSegments(b) {
    const n = b.count || 1;
    const other = Math.max(0, b.duration_ns - b.kernel_ns - b.copy_ns - b.memset_ns - b.sync_ns - b.busy_ns);
    return [["kernel", b.kernel_ns / n], ["memcpy", b.copy_ns / n], ["memset", b.memset_ns / n], ["sync", b.sync_ns / n],
            ["busy", b.busy_ns / n], ["idle", other / n]];
  }
  function perStep(b) { return b.duration_ns / (b.count || 1); }
  const SEGMENT_NAMES = { kernel: "kernel", memcpy: "memcpy", memset: "memset", sync: "synchronisation wait",
                          busy: "GPU idle, CPU busy", idle: "GPU idle, other" };
  function legend(keys) {
    return el("div", { class: "legend" },
              ...keys.map(k => el("span", {}, el("i", { style: "background:" + COLORS[k] }), SEGMENT_NAMES[k])));
  }
  function stepChart(steps) {
    const w = Math.max(300, Math.min(1200, steps.length * 40 + 80)), h = 220, left = 70, bottom = 30;
    // advise keeps each step's segments within its duration; the larger of the two still sets the scale.
    const max = Math.max(1, ...steps.map(s => Math.max(perStep(s), stepSegments(s).reduce((a, v) => a + v[1], 0))));
    const bw = Math.max(2, (w - left - 10) / steps.length);
    const svg = el("svg:svg", { width: w, height: h, id: "step-chart" });
    for (let t = 0; t <= 4; ++t) {
      const y = h - bottom - (h - bottom - 10) * t / 4;
      svg.append(el("svg:line", { x1: left, x2: w, y1: y, y2: y, stroke: "#eee" }),
                 el("svg:text", { x: left - 4, y: y + 4, "text-anchor": "end", text: fmtNs(Math.round(max * t / 4)) }));
    }
    steps.forEach((s, i) => {
      const x = left + i * bw;
      let y = h - bottom;
      const g = el("svg:g", { class: "step-bar", "data-step": barLabel(s), "data-pid": s.pid, "data-duration-ns": perStep(s) });
      for (const [k, v] of stepSegments(s)) {
        const hh = (h - bottom - 10) * v / max;
        y -= hh;
        g.append(el("svg:rect", { x: x + 1, y: y, width: Math.max(1, bw - 2), height: hh, fill: COLORS[k], "data-segment": k },
                    el("svg:title", { text: (s.count === 1 ? "step " : "steps ") + barLabel(s) + " " + processLabel(s.pid) + ": " + SEGMENT_NAMES[k] + " " + fmtNs(Math.round(v)) + (s.count === 1 ? "" : " per step") })));
      }
      svg.append(g);
      if (steps.length <= 40 || i % Math.ceil(steps.length / 40) === 0)
        svg.append(el("svg:text", { x: x + bw / 2, y: h - bottom + 14, "text-anchor": "middle", text: String(s.first) }));
    });
    return svg;
  }
  function overview() {
    const sec = el("section", { id: "view-overview" });
    // Run facts.
    const facts = el("table", { class: "facts", id: "facts" });
    const hosts = [...new Set(DATA.facts.map(f => f.host))].join(", ");
    const ranks = DATA.facts.map(f => f.rank === null ? "none" : f.rank + " of " + f.world_size).join(", ");
    const devices = [];
    for (const f of DATA.facts) for (const d of f.devices) devices.push((DATA.facts.length > 1 ? "pid " + f.pid + " " : "") + d.id + ": " + d.name);
    const duration = Math.max(0, ...DATA.facts.map(f => f.duration_ns));
    const drops = DATA.facts.reduce((a, f) => a + f.drops.ring_full + f.drops.cupti_records, 0);
    const truncated = DATA.facts.reduce((a, f) => a + f.drops.truncated_payloads, 0);
    for (const [k, v, raw] of [["files", DATA.facts.map(f => f.file).join(", ")], ["host", hosts],
                               ["processes", DATA.facts.map(f => f.pid).join(", ")], ["ranks", ranks],
                               ["devices", devices.join("; ") || "none recorded"],
                               ["duration", fmtNs(duration), duration], ["records dropped", fmtNum(drops), drops],
                               ["payloads truncated", fmtNum(truncated), truncated],
                               ["steps", advise ? String(advise.steps) + (advise.step_rule ? " (" + advise.step_rule + ")" : "") : "no steps found", advise ? advise.steps : 0]])
      facts.append(el("tr", { "data-fact": k }, el("td", { text: k }), el("td", { class: "name", "data-value": raw === undefined ? v : raw, text: v })));
    sec.append(el("h2", { text: "Run" }), facts);
    if (!adviseWindow) {
      sec.append(el("p", { class: "note", text: "No advise data." }));
      return sec;
    }
    const steps = STEP_BARS.bars;
    const grouped = STEP_BARS.steps_per_bar > 1;
    sec.append(el("h2", { text: "Step time (" + adviseWindow.title + ")" }));
    if (steps.length) {
      if (grouped)
        sec.append(el("p", { class: "note", id: "steps-grouped", text: fmtNum(STEP_BARS.step_count) + " steps: each bar and row is a run of " +
                             fmtNum(STEP_BARS.steps_per_bar) + " consecutive steps, its times per step (the mean); 'slowest' is its longest step" }));
      sec.append(legend(["kernel", "memcpy", "memset", "sync", "busy", "idle"]), stepChart(steps));
      const roundNs = v => fmtNs(Math.round(v));
      const cols = [["step", grouped ? "steps" : "step", String], ["duration_ns", "duration", roundNs], ["kernel_ns", "kernel", roundNs],
                    ["copy_ns", "memcpy", roundNs], ["memset_ns", "memset", roundNs], ["sync", "sync wait", roundNs],
                    ["busy", "GPU idle, CPU busy", roundNs], ["idle", "GPU idle, other", roundNs]];
      if (grouped) cols.push(["max_duration_ns", "slowest", fmtNs], ["max_step", "slowest step", String]);
      const t = el("table", { id: "steps" }, el("tr", {}, ...(DATA.facts.length > 1 ? [el("th", { text: "process" })] : []),
                                                 ...cols.map(c => el("th", { text: c[1] }))));
      for (const s of steps) {
        const seg = Object.fromEntries(stepSegments(s));
        const row = { step: barLabel(s), duration_ns: perStep(s), kernel_ns: seg.kernel, copy_ns: seg.memcpy, memset_ns: seg.memset,
                      sync: seg.sync, busy: seg.busy, idle: seg.idle, max_duration_ns: s.max_duration_ns, max_step: s.max_step };
        t.append(el("tr", { "data-step": barLabel(s), "data-pid": s.pid }, ...(DATA.facts.length > 1 ? [nameCell(processLabel(s.pid))] : []),
                    ...cols.map(c => el("td", { "data-key": c[0], "data-value": row[c[0]], text: c[2](row[c[0]]) }))));
      }
      sec.append(t);
    } else {
      sec.append(el("p", { class: "note", text: "No steps found (profanalyze html --step RULE)." }));
    }
    sec.append(el("h2", { text: "GPU utilisation (kernel time over each device's span)" }));
    const util = el("table", { id: "utilisation" }, el("tr", {}, ...["device", "span", "kernel", "utilisation", ""].map(t => el("th", { text: t }))));
    for (const d of adviseWindow.devices || []) {
      const pct = d.span_ns ? 100 * d.kernel_ns / d.span_ns : 0;
      util.append(el("tr", {}, nameCell((processLabel(d.pid) + " GPU " + d.device).trim()), cell(d.span_ns, fmtNs), cell(d.kernel_ns, fmtNs),
                     cell(pct.toFixed(1), v => v + " %"),
                     el("td", {}, el("svg:svg", { width: 200, height: 12 }, el("svg:rect", { width: 200, height: 12, fill: COLORS.idle }),
                                     el("svg:rect", { width: 2 * pct, height: 12, fill: COLORS.kernel })))));
    }
    sec.append(util);
    sec.append(el("h2", { text: "Findings (profanalyze advise)" }));
    const findings = adviseWindow.findings || [];
    if (!findings.length) sec.append(el("p", { class: "note", id: "no-findings", text: "No finding above the minimum share." }));
    for (const f of findings.slice(0, 5)) {
      const box = el("div", { class: "finding", "data-kind": f.kind, "data-cost-ns": f.cost_ns },
                     el("b", { text: f.title }), el("span", { class: "note", text: "  " + fmtNs(f.cost_ns) + " (" + fmtPct(f.cost_pct) + " of the GPU span)" }),
                     el("div", { text: f.measured }), el("div", { class: "note", text: f.action }));
      for (const w of f.where || [])
        box.append(el("div", { class: "where", text: w.api + " x" + w.calls + " (" + fmtNs(w.cost_ns) + "): " + (w.frames.length ? w.frames.join(" < ") : "no stack recorded") }));
      sec.append(box);
    }
    sec.append(el("h2", { text: "Top kernels" }));
    sec.append(sortableTable([{ key: "name", title: "kernel", text: true }, { key: "count", title: "count" },
                              { key: "total_ns", title: "total", format: fmtNs }], adviseWindow.top_kernels || [], "top-kernels"));
    return sec;
  }

  // ---- Operators ----
  const OPERATOR_COLUMNS = [
    { key: "name", title: "Name", text: true }, { key: "self_cpu_pct", title: "Self CPU %", format: fmtPct },
    { key: "self_cpu_ns", title: "Self CPU", format: fmtNs }, { key: "cpu_total_pct", title: "CPU total %", format: fmtPct },
    { key: "cpu_total_ns", title: "CPU total", format: fmtNs }, { key: "cpu_avg_ns", title: "CPU time avg", format: fmtNs },
    { key: "self_cuda_ns", title: "Self CUDA", format: fmtNs }, { key: "self_cuda_pct", title: "Self CUDA %", format: fmtPct },
    { key: "cuda_total_ns", title: "CUDA total", format: fmtNs }, { key: "cuda_avg_ns", title: "CUDA time avg", format: fmtNs },
    { key: "cpu_mem_bytes", title: "CPU Mem", format: fmtBytes }, { key: "self_cpu_mem_bytes", title: "Self CPU Mem", format: fmtBytes },
    { key: "cuda_mem_bytes", title: "CUDA Mem", format: fmtBytes }, { key: "self_cuda_mem_bytes", title: "Self CUDA Mem", format: fmtBytes },
    { key: "calls", title: "# of Calls" }];
  function operators() {
    const sec = el("section", { id: "view-operators" });
    const holder = el("div");
    const select = el("select", { id: "window-select" });
    DATA.windows.forEach((w, i) => select.append(el("option", { value: i, text: w.title })));
    const filter = el("input", { id: "operator-filter", type: "search", placeholder: "filter by name" });
    function show() {
      const w = DATA.windows[Number(select.value)];
      // Not id "operators": that is the tab's address (#operators), which
      // would scroll the page to the table, past the tab bar.
      const table = sortableTable(OPERATOR_COLUMNS, w.rows, "operator-table");
      const text = filter.value.toLowerCase();
      table.filter = r => !text || r.name.toLowerCase().includes(text);
      table.rerender();
      holder.replaceChildren(el("p", { class: "note", id: "operator-totals",
        text: "Self CPU time total: " + fmtNs(w.self_cpu_time_total_ns) + ", Self CUDA time total: " + fmtNs(w.self_cuda_time_total_ns) }), table);
    }
    select.addEventListener("change", show);
    filter.addEventListener("input", () => { const t = document.getElementById("operator-table"); const text = filter.value.toLowerCase();
      t.filter = r => !text || r.name.toLowerCase().includes(text); t.rerender(); });
    sec.append(el("div", { class: "controls" }, el("label", { text: "window " }, select), filter), holder);
    show();
    return sec;
  }

  // ---- Kernels ----
  function histogram(h) {
    const w = 160, hh = 24, n = h.counts.length, max = Math.max(1, ...h.counts);
    const svg = el("svg:svg", { width: w, height: hh, class: "histogram" },
                   el("svg:title", { text: "durations " + fmtNs(h.min_ns) + " to " + fmtNs(h.max_ns) }));
    h.counts.forEach((c, i) => svg.append(el("svg:rect", { x: i * w / n, y: hh - hh * c / max, width: w / n - 1, height: hh * c / max, fill: COLORS.kernel },
                                             el("svg:title", { text: c + " runs" }))));
    return svg;
  }
  function kernels() {
    const sec = el("section", { id: "view-kernels" });
    sec.append(el("h2", { text: "Kernels (report --view kernels)" }));
    const t = sortableTable([{ key: "time_pct", title: "Time (%)", format: fmtPct }, { key: "total_ns", title: "Total Time", format: fmtNs },
                             { key: "instances", title: "Instances" }, { key: "avg_ns", title: "Avg", format: fmtNs },
                             { key: "med_ns", title: "Med", format: fmtNs }, { key: "min_ns", title: "Min", format: fmtNs },
                             { key: "max_ns", title: "Max", format: fmtNs }, { key: "stddev_ns", title: "StdDev", format: fmtNs },
                             { key: "name", title: "Name", text: true }], DATA.kernels, "kernels");
    t.querySelector("thead tr").append(el("th", { text: "Durations" }));
    function addHistograms() {
      for (const tr of t.querySelectorAll("tbody tr")) {
        const name = tr.lastChild.getAttribute("data-value");
        if (DATA.kernel_histograms[name]) tr.append(el("td", {}, histogram(DATA.kernel_histograms[name])));
      }
    }
    const rerender = t.rerender;
    t.rerender = () => { rerender(); addHistograms(); };
    addHistograms();
    t.querySelectorAll("th[data-key]").forEach(th => th.addEventListener("click", addHistograms));
    sec.append(t, el("h2", { text: "Copies and memsets" }));
    sec.append(sortableTable([{ key: "name", title: "Name", text: true }, { key: "count", title: "Count" },
                              { key: "bytes", title: "Bytes", format: fmtBytes }, { key: "total_ns", title: "Total Time", format: fmtNs },
                              { key: "gbps", title: "Achieved GB/s", format: v => Number(v).toFixed(2) }], DATA.copies, "copies"));
    return sec;
  }

  // ---- Memory ----
  function memoryChart(m) {
    const w = 900, h = 200, left = 80, bottom = 24;
    const t0 = m.points[0][0], t1 = Math.max(t0 + 1, m.points[m.points.length - 1][0]);
    const max = Math.max(1, m.peak_bytes);
    const x = t => left + (w - left - 10) * (t - t0) / (t1 - t0), y = b => h - bottom - (h - bottom - 10) * b / max;
    let d = "M" + x(t0) + "," + y(0);
    for (const [t, b] of m.points) d += " H" + x(t) + " V" + y(b);
    const svg = el("svg:svg", { width: w, height: h, class: "memory-chart" });
    for (let i = 0; i <= 4; ++i)
      svg.append(el("svg:line", { x1: left, x2: w, y1: y(max * i / 4), y2: y(max * i / 4), stroke: "#eee" }),
                 el("svg:text", { x: left - 4, y: y(max * i / 4) + 4, "text-anchor": "end", text: fmtBytes(Math.round(max * i / 4)) }));
    svg.append(el("svg:path", { d: d, fill: "none", stroke: COLORS.memcpy, "stroke-width": 1.5 }),
               el("svg:circle", { cx: x(m.peak_ns), cy: y(m.peak_bytes), r: 4, fill: COLORS.sync }, el("svg:title", { text: "peak " + fmtBytes(m.peak_bytes) })),
               el("svg:text", { x: left, y: h - 6, text: "+0 s" }), el("svg:text", { x: w - 10, y: h - 6, "text-anchor": "end", text: "+" + fmtNs(t1 - t0) }));
    return svg;
  }
  function memory() {
    const sec = el("section", { id: "view-memory" });
    if (!DATA.memory.length) sec.append(el("p", { class: "note", text: "No device memory records." }));
    for (const m of DATA.memory) {
      const pid = DATA.facts[m.process] ? DATA.facts[m.process].pid : m.process;
      sec.append(el("h2", { text: ((processLabel(pid) + " GPU " + m.device).trim()) + ": peak " }, el("span", { class: "peak", "data-pid": pid, "data-device": m.device, "data-value": m.peak_bytes, text: fmtBytes(m.peak_bytes) })));
      sec.append(memoryChart(m));
      const t = el("table", { class: "largest" }, el("tr", {}, ...["bytes", "at", "call", "call stack (innermost first)"].map(s => el("th", { text: s }))));
      for (const a of m.largest)
        t.append(el("tr", {}, cell(a.bytes, fmtBytes), cell(a.time_ns - m.points[0][0], v => "+" + fmtNs(v)), nameCell(a.api),
                    el("td", { class: "name" }, el("pre", { class: "stack", text: a.frames.join("\n") || "no stack recorded" }))));
      sec.append(el("h2", { text: "Largest allocations" }), t);
    }
    return sec;
  }

  // ---- Stacks: an icicle flamegraph, click to zoom ----
  // The tree as sent (html_data.h): nodes in preorder, [parent, name, ns] each.
  function buildTree(t) {
    const root = { name: "all", value: 0, children: new Map(), minShare: t.min_share };
    const nodes = [];
    for (let i = 0; i < t.nodes.length; i += 3) {
      const parent = t.nodes[i] < 0 ? root : nodes[t.nodes[i]];
      const node = { name: t.names[t.nodes[i + 1]], value: t.nodes[i + 2], children: new Map(), parent: parent };
      parent.children.set(node.name, node);
      nodes.push(node);
      if (parent === root) root.value += node.value;
    }
    return root;
  }
  function hue(name) { let h = 0; for (let i = 0; i < name.length; ++i) h = (h * 31 + name.charCodeAt(i)) % 360; return h; }
  function stacks() {
    const sec = el("section", { id: "view-stacks" });
    const holder = el("div", { id: "flamegraph" });
    const trees = { cuda: buildTree(DATA.stacks.cuda), cpu: buildTree(DATA.stacks.cpu) };
    let metric = "cuda";
    function draw(zoom) {
      const root = trees[metric];
      const focus = zoom || root;
      const w = 1200, rowH = 17;
      const rows = [];
      (function walk(n, x, depth) {  // x: fraction of the focus' width
        rows.push([n, x, depth]);
        let cx = x;
        for (const c of n.children.values()) { walk(c, cx, depth + 1); cx += c.value / focus.value; }
      })(focus, 0, 0);
      const depth = Math.max(...rows.map(r => r[2])) + 1;
      const svg = el("svg:svg", { width: w, height: depth * rowH + 4, class: "flame" });
      for (const [n, x, d] of rows) {
        const width = w * n.value / Math.max(1, focus.value);
        if (width < 0.5) continue;
        const g = el("svg:g", { transform: "translate(" + (x * w) + "," + (d * rowH) + ")", "data-frame": n.name, "data-value": n.value,
                                onclick: () => draw(n === focus ? focus.parent || null : n) });
        g.append(el("svg:rect", { width: width, height: rowH - 1, fill: n === root ? "#b0bec5" : "hsl(" + hue(n.name) + ",70%,65%)" }),
                 el("svg:title", { text: n.name + ": " + fmtNs(n.value) + " (" + (100 * n.value / Math.max(1, root.value)).toFixed(2) + " %)" }));
        if (width > 40) g.append(el("svg:text", { x: 3, y: rowH - 5, text: n.name.slice(0, Math.floor(width / 6.5)) }));
        svg.append(g);
      }
      holder.replaceChildren(el("p", { class: "note", text: (metric === "cuda" ? "CUDA time" : "CPU time") + " total " + fmtNs(root.value) +
                                      (zoom ? "; zoomed into " + focus.name + " (click it to zoom out)" : "; click a frame to zoom") +
                                      "; frames under 1/" + fmtNum(root.minShare) + " of the total are summed into one per parent" }), svg);
    }
    const choose = el("select", { id: "stack-metric", onchange: e => { metric = e.target.value; draw(null); } },
                      el("option", { value: "cuda", text: "self CUDA time (GPU work under its launching call)" }),
                      el("option", { value: "cpu", text: "self CPU time (API calls and NVTX ranges)" }));
    sec.append(el("div", { class: "controls" }, choose), holder);
    draw(null);
    return sec;
  }

  // ---- Ranks ----
  function ranks() {
    const sec = el("section", { id: "view-ranks" });
    const ranks = adviseWindow ? adviseWindow.ranks || [] : [];
    if (DATA.facts.length < 2 || !ranks.length) {
      sec.append(el("p", { class: "note", text: "One process: load one file per rank (profanalyze html rank0.pb rank1.pb ...) to compare ranks." }));
      return sec;
    }
    const slowest = ranks.reduce((a, r) => (r.median_step_ns > a.median_step_ns ? r : a), ranks[0]);
    const t = el("table", { id: "ranks" }, el("tr", {}, ...["rank", "pid", "steps", "median step", "mean step", ""].map(s => el("th", { text: s }))));
    const max = Math.max(1, ...ranks.map(r => r.median_step_ns));
    for (const r of ranks)
      t.append(el("tr", { class: r === slowest ? "slowest" : "", "data-pid": r.pid }, cell(r.rank === null ? "none" : r.rank, String), cell(r.pid, String),
                  cell(r.steps), cell(r.median_step_ns, fmtNs), cell(r.mean_step_ns, fmtNs),
                  el("td", {}, el("svg:svg", { width: 300, height: 12 }, el("svg:rect", { width: 300 * r.median_step_ns / max, height: 12, fill: r === slowest ? COLORS.sync : COLORS.memcpy })))));
    sec.append(el("h2", { text: "Step time per rank (slowest highlighted)" }), t);
    // Each step's duration per rank, side by side.
    const byStep = new Map();
    for (const s of STEP_BARS.bars) { const k = barLabel(s); if (!byStep.has(k)) byStep.set(k, []); byStep.get(k).push(s); }
    const pids = ranks.map(r => r.pid), smax = Math.max(1, ...STEP_BARS.bars.map(perStep));
    // Each step (or run of steps) a group of one bar per rank, narrowed to fit 1200 px.
    const group = Math.min(pids.length * 8 + 6, (1200 - 80) / Math.max(1, byStep.size));
    const bw = Math.max(1, (group - 1) / pids.length);
    const w = Math.min(1200, 80 + byStep.size * group), h = 180;
    const svg = el("svg:svg", { width: w, height: h, id: "rank-steps" });
    let x = 70;
    for (const [step, list] of byStep) {
      pids.forEach((pid, i) => {
        const s = list.find(v => v.pid === pid);
        if (s) svg.append(el("svg:rect", { x: x + i * bw, y: h - 20 - (h - 30) * perStep(s) / smax, width: Math.max(1, bw - 1), height: (h - 30) * perStep(s) / smax,
                                           fill: pid === slowest.pid ? COLORS.sync : COLORS.memcpy },
                             el("svg:title", { text: (s.count === 1 ? "step " : "steps ") + step + " " + processLabel(pid) + ": " + fmtNs(Math.round(perStep(s))) + (s.count === 1 ? "" : " per step") })));
      });
      x += group;
    }
    sec.append(svg);
    return sec;
  }

  // ---- Page ----
  const views = [["overview", overview], ["operators", operators], ["kernels", kernels], ["memory", memory], ["stacks", stacks], ["ranks", ranks]];
  const nav = el("nav");
  document.body.append(el("header", {}, el("h1", { text: DATA.title }), nav));
  const sections = {};
  function activate(name) {
    for (const [n] of views) { sections[n].classList.toggle("active", n === name); nav.querySelector("[data-view=" + n + "]").classList.toggle("active", n === name); }
  }
  for (const [name, make] of views) {
    nav.append(el("button", { "data-view": name, text: name, onclick: () => { activate(name); history.replaceState(null, "", "#" + name); } }));
    let sec;
    try { sec = make(); } catch (e) { sec = el("section", { id: "view-" + name }, el("p", { text: "could not draw: " + e })); console.error(e); }
    sections[name] = sec;
    document.body.append(sec);
  }
  activate(views.some(v => "#" + v[0] === location.hash) ? location.hash.slice(1) : "overview");
  document.body.setAttribute("data-ready", "1");
})();
