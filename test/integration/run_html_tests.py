#!/usr/bin/env python3
"""`profanalyze html` in a real browser: a simcuda training run
(test/apps/nvtx_training) is recorded under libprof.so, its page is loaded in
headless Chromium (DevTools protocol over a pipe, devtools_pipe.py) or, with
--browser firefox, headless Firefox (WebDriver BiDi, webdriver_bidi.py), and
what the page shows is compared with `report --format json` and `advise
--format json` on the same capture. One scenario per invocation (harness.py),
given the page.
Skips (exit 77) only when the browser is not installed.
"""
import json
import os
import sys

import devtools_pipe
import harness
import webdriver_bidi
from harness import ARGS, Failure, Skipped, check, main

STEPS = 6
# More steps than the page draws bars (200): 450 steps are 150 bars of 3.
MANY_STEPS = 450
STEP_RULE = "nvtx:^ProfilerStep#[0-9]+$"
# Distinct kernel durations, so that a mix-up of rows shows.
KERNEL_NS = {"forward_kernel": 150000, "backward_kernel": 250000, "optimizer_kernel": 50000}
# Every view of the page, by its section id.
VIEWS = ("overview", "operators", "kernels", "memory", "stacks", "ranks")
# The operator table's columns, as `report --format json` names them.
OPERATOR_KEYS = ("self_cpu_pct", "self_cpu_ns", "cpu_total_pct", "cpu_total_ns", "cpu_avg_ns", "self_cuda_ns",
                 "self_cuda_pct", "cuda_total_ns", "cuda_avg_ns", "cpu_mem_bytes", "self_cpu_mem_bytes",
                 "cuda_mem_bytes", "self_cuda_mem_bytes", "calls")


def record_training(tmp, output="run.pb", rank=None, slower=1, steps=STEPS):
    env = harness.agent_env()
    env["SIMCUDA_KERNEL_NS"] = ",".join("%s=%d" % (k, v * slower) for k, v in KERNEL_NS.items())
    env["PROF_OUTPUT"] = os.path.join(tmp, output)
    if rank is not None:
        env.update(RANK=str(rank), WORLD_SIZE="2")
    result = harness.run([os.path.join(ARGS.simcuda_apps, "nvtx_training"), str(steps)], env, tmp, timeout=120)
    check(result.returncode == 0, "nvtx_training exited %d: %s" % (result.returncode, result.stderr))


def analyze(tmp, *args):
    return harness.analyze(args, tmp)


def analyze_json(tmp, *args):
    return json.loads(analyze(tmp, *args, "--format", "json"))


def report_windows(tmp, *args):
    """`report --format json`'s windows: [{title, rows, ...}]."""
    return analyze_json(tmp, "report", *args)["windows"]


class Page:
    """The page of a fresh simcuda training run, loaded in the headless browser."""

    def __init__(self, tmp, ranks=False, steps=STEPS):
        self.tmp = tmp
        if ranks:  # rank 1's kernels take 50 times as long (22 ms more per step)
            self.files = ["rank0.pb", "rank1.pb"]
            record_training(tmp, "rank0.pb", rank=0)
            record_training(tmp, "rank1.pb", rank=1, slower=50)
        else:
            self.files = ["run.pb"]
            record_training(tmp, steps=steps)
        analyze(tmp, "html", *self.files, "-o", "page.html")
        self.path = os.path.join(tmp, "page.html")
        self.browser = ARGS.driver.Browser(ARGS.browser_path)
        self.browser.open_page()
        self.load_s = self.browser.navigate("file://" + self.path)
        check(self.eval("document.body.getAttribute('data-ready')") == "1", "the page's script did not finish")

    def eval(self, expression):
        return self.browser.evaluate(expression)

    def table(self, selector):
        """Rows of a table as {key: data-value} (keys from the header's data-key)."""
        return self.eval("""(() => {
            const t = document.querySelector(%s);
            if (!t) return null;
            const keys = [...t.querySelectorAll('thead th')].map(th => th.getAttribute('data-key'));
            return [...t.querySelectorAll('tbody tr')].map(tr => {
                const row = {};
                [...tr.children].forEach((td, i) => { if (keys[i]) row[keys[i]] = td.getAttribute('data-value'); });
                return row; });
        })()""" % json.dumps(selector))

    def close(self):
        self.browser.close()


def same_number(shown, expected):
    if expected is None:
        return shown in ("", None)
    try:
        a, b = float(shown), float(expected)
    except (TypeError, ValueError):
        return False
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def compare_operator_rows(shown, report_rows, what):
    check(shown is not None, what + ": no operator table")
    check(len(shown) == len(report_rows), "%s: %d rows shown, report has %d" % (what, len(shown), len(report_rows)))
    by_name = {r["name"]: r for r in report_rows}
    check(len(by_name) == len(report_rows), what + ": report rows are not unique by name")
    for row in shown:
        expected = by_name.get(row["name"])
        check(expected is not None, "%s: row %r not in the report" % (what, row["name"]))
        for key in OPERATOR_KEYS:
            check(same_number(row[key], expected[key]),
                  "%s: %s %s shown %r, report %r" % (what, row["name"], key, row[key], expected[key]))


def loads_offline_and_every_view_renders(page):
    errors = page.browser.console_errors()
    check(not errors, "console errors: %s" % [json.dumps(e)[:300] for e in errors])
    page_url = "file://" + page.path
    requests = page.browser.requested_urls()
    if ARGS.browser == "chromium":  # Firefox reports http(s) requests only, not the file itself
        check(requests and requests[0] == page_url, "the page itself was not requested first: %s" % requests[:3])
    # The favicon is the page's own data: URL (Firefox reports it), not a request off the page.
    others = [u for u in requests if u != page_url and not u.startswith("data:")]
    check(not others, "requests besides the page: %s" % others)
    # Every view: drawn, and not the "could not draw" fallback.
    for view in VIEWS:
        page.eval("document.querySelector('nav button[data-view=%s]').click()" % view)
        state = page.eval("""(() => { const s = document.getElementById('view-%s');
            return s && {visible: s.offsetHeight > 0, text: s.textContent.length,
                         svg: s.querySelectorAll('svg rect, svg path').length,
                         failed: s.textContent.startsWith('could not draw')}; })()""" % view)
        check(state and state["visible"], view + ": not shown after clicking its tab")
        check(not state["failed"], view + ": could not draw")
        check(state["text"] > 0, view + ": empty")
        if view in ("overview", "kernels", "memory", "stacks"):
            check(state["svg"] > 0, view + ": no chart drawn")
    for metric in ("cuda", "cpu"):
        frames = page.eval("""(() => { const s = document.getElementById('stack-metric'); s.value = '%s';
            s.dispatchEvent(new Event('change')); return document.querySelectorAll('#flamegraph g[data-frame]').length; })()""" % metric)
        check(frames > 3, "flamegraph of %s time has %d frames" % (metric, frames))
    errors = page.browser.console_errors()
    check(not errors, "console errors after switching views: %s" % [json.dumps(e)[:300] for e in errors])
    size = os.path.getsize(page.path)
    check(size < 2 << 20, "page of a %d-step run is %d bytes" % (STEPS, size))
    print("page %d bytes, loaded in %.3f s (%s)" % (size, page.load_s, ARGS.browser))
    # The watch itself: a page that does make a request is seen to make it
    # (a closed port on this machine; no CSP on this page).
    control = os.path.join(page.tmp, "control.html")
    with open(control, "w") as f:
        f.write('<!DOCTYPE html><title>control</title><img src="http://127.0.0.1:%d/control.png">' % closed_port())
    page.browser.navigate("file://" + control)
    seen = page.eval("new Promise(r => setTimeout(() => r(true), 200))") and page.browser.requested_urls()
    check(any(u.endswith("/control.png") for u in seen), "a request the control page makes was not seen: %s" % seen)


def closed_port():
    """A TCP port on 127.0.0.1 that nothing listens on (bound, then released)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ranks_of_two_files(page):
    errors = page.browser.console_errors()
    check(not errors, "console errors: %s" % [json.dumps(e)[:300] for e in errors])
    page.eval("document.querySelector('nav button[data-view=ranks]').click()")
    advise = analyze_json(page.tmp, "advise", *page.files)
    ranks = advise["windows"][0]["ranks"]
    check(len(ranks) == 2, "advise has %d ranks" % len(ranks))
    rows = page.eval("""[...document.querySelectorAll('#ranks tr[data-pid]')].map(tr => ({pid: tr.getAttribute('data-pid'),
        slowest: tr.classList.contains('slowest'), cells: [...tr.children].map(td => td.getAttribute('data-value'))}))""")
    check(len(rows) == 2, "%d ranks shown" % len(rows))
    for row, expected in zip(rows, ranks):
        check(row["cells"][:5] == [str(expected["rank"]), str(expected["pid"]), str(expected["steps"]),
                                   str(expected["median_step_ns"]), str(expected["mean_step_ns"])],
              "rank shown %s, advise %s" % (row["cells"][:5], expected))
    slowest = [r for r in rows if r["slowest"]]
    expected = max(ranks, key=lambda r: r["median_step_ns"])
    check(len(slowest) == 1 and slowest[0]["pid"] == str(expected["pid"]) and expected["rank"] == 1,
          "slowest highlighted %s, advise's slowest %s" % (slowest, expected))
    bars = page.eval("document.querySelectorAll('#rank-steps rect').length")
    check(bars == 2 * STEPS, "%d step bars for two ranks of %d steps" % (bars, STEPS))


def numbers_equal_report_and_advise(page):
    tmp = page.tmp
    # Operators: the whole run's table is report's.
    report = report_windows(tmp, "--row-limit", "-1", "run.pb")
    compare_operator_rows(page.table("#operator-table"), report[0]["rows"], "whole run")
    # Kernels: the --view kernels summary.
    kernels = report_windows(tmp, "--view", "kernels", "run.pb")[0]["rows"]
    shown = page.table("#kernels")
    check(len(shown) == len(kernels) == len(KERNEL_NS), "kernels: %d shown, report %d" % (len(shown), len(kernels)))
    by_name = {k["name"]: k for k in kernels}
    for row in shown:
        expected = by_name.get(row["name"])
        check(expected is not None, "kernel %r not in the report" % row["name"])
        for key in ("total_ns", "instances", "avg_ns", "med_ns", "min_ns", "max_ns", "time_pct"):
            check(same_number(row[key], expected[key]), "kernel %s %s: shown %r, report %r" % (row["name"], key, row[key], expected[key]))
    check(page.eval("document.querySelectorAll('#kernels svg.histogram').length") == len(kernels), "a kernel has no histogram")
    # Steps, top kernels and peak memory: advise's.
    advise = analyze_json(tmp, "advise", "run.pb")
    window = advise["windows"][0]
    steps = page.eval("""[...document.querySelectorAll('#steps tr[data-step]')].map(tr => {
        const r = {step: tr.getAttribute('data-step')};
        tr.querySelectorAll('td[data-key]').forEach(td => r[td.getAttribute('data-key')] = td.getAttribute('data-value'));
        return r; })""")
    usage = window["step_usage"]
    check(len(usage) == STEPS, "advise found %d steps, the app ran %d" % (len(usage), STEPS))
    check(len(steps) == len(usage), "%d steps shown, advise has %d" % (len(steps), len(usage)))
    for row, expected in zip(steps, usage):
        for key in ("step", "duration_ns", "kernel_ns", "copy_ns", "memset_ns"):
            check(same_number(row[key], expected[key]), "step %s %s: shown %r, advise %r" % (expected["step"], key, row[key], expected[key]))
        check(same_number(row["sync"], expected["no_kernel"]["sync_wait_ns"]), "step %s sync wait" % expected["step"])
    bars = page.eval("[...document.querySelectorAll('#step-chart g.step-bar')].map(g => g.getAttribute('data-duration-ns'))")
    check([int(b) for b in bars] == [s["duration_ns"] for s in usage], "step bars %s, advise %s" % (bars, [s["duration_ns"] for s in usage]))
    top = page.table("#top-kernels")
    check([(r["name"], int(r["count"]), int(r["total_ns"])) for r in top] ==
          [(k["name"], k["count"], k["total_ns"]) for k in window["top_kernels"]], "top kernels differ from advise")
    # The page shows kernel totals twice (overview, kernels): they must agree.
    report_totals = {k["name"]: int(k["total_ns"]) for k in kernels}
    for k in window["top_kernels"]:
        check(report_totals.get(k["name"]) == k["total_ns"], "kernel %s: advise %d, report %s" % (k["name"], k["total_ns"], report_totals.get(k["name"])))
    peaks = page.eval("[...document.querySelectorAll('#view-memory .peak')].map(s => [s.getAttribute('data-device'), s.getAttribute('data-value')])")
    expected_peaks = [[str(m["device"]), str(m["peak_bytes"])] for m in window["memory"]]
    check(sorted(peaks) == sorted(expected_peaks), "peak memory shown %s, advise %s" % (peaks, expected_peaks))
    check(int(peaks[0][1]) == 4 * (1 << 18) * 4, "peak %s, the app holds four 1 MiB buffers" % peaks[0][1])
    # Flamegraphs: each total is the report's (small frames are summed, never dropped).
    page.eval("document.querySelector('nav button[data-view=stacks]').click()")
    for metric, key in (("cuda", "self_cuda_time_total_ns"), ("cpu", "self_cpu_time_total_ns")):
        total = page.eval("""(() => { const s = document.getElementById('stack-metric'); s.value = '%s';
            s.dispatchEvent(new Event('change'));
            return document.querySelector('#flamegraph g[data-frame=all]').getAttribute('data-value'); })()""" % metric)
        check(int(total) == report[0][key], "flamegraph of %s time totals %s, report %d" % (metric, total, report[0][key]))
    findings = page.eval("[...document.querySelectorAll('.finding')].map(f => [f.getAttribute('data-kind'), f.getAttribute('data-cost-ns')])")
    check(findings == [[f["kind"], str(f["cost_ns"])] for f in window["findings"][:5]], "findings shown %s, advise %s" % (findings, window["findings"][:5]))


def sorting_filter_and_window_selector(page):
    tmp = page.tmp
    page.eval("document.querySelector('nav button[data-view=operators]').click()")
    for key in ("self_cuda_ns", "calls", "name"):
        for direction in ("desc", "asc"):
            page.eval("document.querySelector('#operator-table th[data-key=%s]').click()" % key)
            values = [r[key] for r in page.table("#operator-table")]
            ordered = sorted(values, key=(lambda v: v) if key == "name" else float, reverse=direction == "desc")
            if key == "name":
                ordered = page.eval("(%s).sort((a, b) => %sa.localeCompare(b))" % (json.dumps(values), "-" if direction == "desc" else ""))
            check(values == ordered, "sorted by %s %s: %s" % (key, direction, values))
            cls = page.eval("document.querySelector('#operator-table th[data-key=%s]').className" % key)
            check(("sorted-" + direction) in cls, "header of %s shows %r after sorting %s" % (key, cls, direction))
    # Filter: only the rows whose name contains the text.
    report = report_windows(tmp, "--row-limit", "-1", "run.pb")[0]["rows"]
    page.eval("(() => { const f = document.getElementById('operator-filter'); f.value = 'KERNEL'; f.dispatchEvent(new Event('input')); })()")
    names = [r["name"] for r in page.table("#operator-table")]
    expected = sorted(r["name"] for r in report if "kernel" in r["name"].lower())
    check(sorted(names) == expected and expected, "filter 'KERNEL' shows %s, expected %s" % (names, expected))
    page.eval("(() => { const f = document.getElementById('operator-filter'); f.value = ''; f.dispatchEvent(new Event('input')); })()")
    # Window selector: each step, then all merged, equal report's windows.
    windows = report_windows(tmp, "--row-limit", "-1", "--step", STEP_RULE, "--active", "1", "run.pb")
    merged = report_windows(tmp, "--row-limit", "-1", "--step", STEP_RULE, "--active", "1", "--merge-windows", "run.pb")
    options = page.eval("[...document.querySelectorAll('#window-select option')].map(o => o.textContent)")
    check(options == ["Whole run"] + [w["title"] for w in windows] + [merged[0]["title"]],
          "window selector offers %s" % options)
    for index, expected in enumerate(windows + merged, start=1):
        page.eval("(() => { const s = document.getElementById('window-select'); s.value = '%d'; s.dispatchEvent(new Event('change')); })()" % index)
        compare_operator_rows(page.table("#operator-table"), expected["rows"], expected["title"])
    def forward_calls(rows):
        return [r["calls"] for r in rows if r["name"].startswith("forward_kernel(")]
    check(forward_calls(windows[0]["rows"]) == [1] and forward_calls(report) == [STEPS],
          "a step's window does not narrow the table")


def many_steps_in_bounded_bars(page):
    """Past 200 steps a bar is a run of consecutive steps: its sums are advise's."""
    errors = page.browser.console_errors()
    check(not errors, "console errors: %s" % [json.dumps(e)[:300] for e in errors])
    usage = analyze_json(page.tmp, "advise", "run.pb")["windows"][0]["step_usage"]
    check(len(usage) == MANY_STEPS, "advise found %d steps, the app ran %d" % (len(usage), MANY_STEPS))
    per_bar = -(-MANY_STEPS // 200)
    rows = page.eval("""[...document.querySelectorAll('#steps tr[data-step]')].map(tr => {
        const r = {steps: tr.getAttribute('data-step')};
        tr.querySelectorAll('td[data-key]').forEach(td => r[td.getAttribute('data-key')] = td.getAttribute('data-value'));
        return r; })""")
    groups = [usage[i:i + per_bar] for i in range(0, len(usage), per_bar)]
    check(len(rows) == len(groups), "%d step rows, expected %d runs of %d steps" % (len(rows), len(groups), per_bar))
    for row, group in zip(rows, groups):
        label = "%d-%d" % (group[0]["step"], group[-1]["step"])
        check(row["steps"] == label, "row %s, expected steps %s" % (row["steps"], label))
        for key in ("duration_ns", "kernel_ns", "copy_ns"):
            mean = sum(s[key] for s in group) / len(group)
            check(abs(float(row[key]) - mean) <= 1e-6 * max(1, mean), "steps %s %s: shown %s, advise's mean %s" % (label, key, row[key], mean))
        slowest = max(group, key=lambda s: s["duration_ns"])
        check(int(row["max_duration_ns"]) == slowest["duration_ns"], "steps %s: slowest %s, advise %d" % (label, row["max_duration_ns"], slowest["duration_ns"]))
    bars = page.eval("document.querySelectorAll('#step-chart g.step-bar').length")
    check(bars == len(groups), "%d bars drawn for %d runs of steps" % (bars, len(groups)))
    check(page.eval("document.getElementById('steps-grouped') !== null"), "the page does not say that steps are grouped")
    size = os.path.getsize(page.path)
    check(size < 512 << 10, "page of a %d-step run is %d bytes" % (MANY_STEPS, size))


def operators_tab_readable_at_1280_and_1920(page):
    """The operators tab at 1280 and 1920 px wide (Chromium's device
    metrics): its name column keeps room for the names (word-break:
    break-all let the numbers squeeze it to a letter per line at 1400 px),
    no id is on two elements, and the tab's address #operators opens the
    tab at the top of the page, not scrolled to a table of that id past the
    tab bar."""
    page.eval("document.querySelector('nav button[data-view=operators]').click()")
    for width in (1280, 1920):
        page.browser.send("Emulation.setDeviceMetricsOverride",
                          {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        column = page.eval("document.querySelector('#operator-table th.name').getBoundingClientRect().width")
        check(column >= 200, "at %d px the operators' name column is %.0f px wide" % (width, column))
        # The widest name cell holds at least 20 characters per line.
        chars_per_line = page.eval("""(() => {
            const td = [...document.querySelectorAll('#operator-table td.name')]
                .reduce((a, b) => a.textContent.length >= b.textContent.length ? a : b);
            const range = document.createRange(); range.selectNodeContents(td);
            const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
            return td.textContent.length / Math.max(lines, 1); })()""")
        check(chars_per_line >= 20, "at %d px the longest operator name wraps at %.1f characters per line"
              % (width, chars_per_line))
    duplicates = page.eval("""(() => { const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
        return ids.filter((id, i) => ids.indexOf(id) !== i); })()""")
    check(duplicates == [], "ids on more than one element: %s" % duplicates)
    page.browser.navigate("about:blank")  # a hash alone would not load the page again
    page.browser.navigate("file://" + page.path + "#operators")
    state = page.eval("""[document.querySelector('#view-operators').classList.contains('active'), window.scrollY,
        document.getElementById('operators') === null]""")
    check(state == [True, 0, True], "#operators: tab active, scrolled, no element of that id: %s" % state)


def add_browser_option(parser):
    parser.add_argument("--browser", choices=("chromium", "firefox"), default="chromium")


def in_page(scenario, tmp):
    """Calls scenario(page): the page of a fresh training run, in the browser."""
    ARGS.driver = webdriver_bidi if ARGS.browser == "firefox" else devtools_pipe
    ARGS.browser_path = webdriver_bidi.find_firefox() if ARGS.browser == "firefox" else devtools_pipe.find_chromium()
    if not ARGS.browser_path:
        raise Skipped("no %s installed (scripts/bootstrap.sh installs Debian's %s)" %
                      (ARGS.browser, "firefox-esr" if ARGS.browser == "firefox" else "chromium"))
    page = None
    try:
        page = Page(tmp, ranks=ARGS.scenario == "ranks_of_two_files",
                    steps=MANY_STEPS if ARGS.scenario == "many_steps_in_bounded_bars" else STEPS)
        scenario(page)
    except Failure as failure:
        raise Failure("(%s) %s" % (ARGS.browser, failure))
    finally:
        if page:
            page.close()


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-html-", add_arguments=add_browser_option, call=in_page))
