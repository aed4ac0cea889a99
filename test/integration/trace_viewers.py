"""Two trace viewers, run for real in headless Chromium (devtools_pipe.py) on
a trace file, and what each made of it:

- speedscope (npm `speedscope`): its own page loads the trace through its
  Chrome importer, as `speedscope FILE` does (#localProfilePath=), and its
  own export (Ctrl+S, caught at URL.createObjectURL) hands back every lane
  it built, as a frame's opens and closes.
- the Catapult trace viewer (chrome://tracing, TensorBoard's Trace tab):
  `trace_viewer_full.html` from the pinned TensorBoard plugin, after the
  Custom Elements v0 polyfill TensorBoard loads it with (npm
  `webcomponents.js`), imports the trace into a `tr.Model`; each slice is
  read back with its parent, and each flow with its ends.

scripts/install_trace_readers.sh installs both npm packages into
PROF_TRACE_READERS_DIR (default ~/.cache/libprof/trace-readers).
"""
import base64
import json
import os
import tempfile
import time

import devtools_pipe


def readers_dir():
    return os.environ.get("PROF_TRACE_READERS_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "libprof", "trace-readers")


def speedscope_page():
    path = os.path.join(readers_dir(), "node_modules", "speedscope", "dist", "release", "index.html")
    return path if os.path.isfile(path) else None


def polyfill_path():
    path = os.path.join(readers_dir(), "node_modules", "webcomponents.js", "webcomponents.min.js")
    return path if os.path.isfile(path) else None


class Chromium:
    def __init__(self):
        self.browser = devtools_pipe.Browser(devtools_pipe.find_chromium())
        self.browser.open_page()
        self.tmp = tempfile.mkdtemp(prefix="prof-viewers-")

    def close(self):
        self.browser.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def evaluate(self, expression):
        return self.browser.evaluate(expression)

    def wait_for(self, expression, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError("waited %d s for %s" % (timeout, expression))
            time.sleep(0.1)

    def speedscope_lanes(self, trace_path):
        """{lane name: [(frame name, open us, close us), ...]} as speedscope imported the trace."""
        with open(trace_path, "rb") as f:
            data = f.read()
        loader = os.path.join(self.tmp, "load-%d.js" % time.monotonic_ns())
        with open(loader, "w") as f:
            f.write("speedscope.loadFileFromBase64(%s, %s)" % (
                json.dumps(os.path.basename(trace_path)), json.dumps(base64.b64encode(data).decode())))
        # Through a blank page: a URL that differs from the last one only by
        # its fragment would not load the page again.
        self.browser.navigate("about:blank")
        self.browser.navigate("file://%s#localProfilePath=%s" % (speedscope_page(), loader), timeout=60)
        # Loaded once the page's save shortcut has a profile to export; the
        # download it starts (a link's click) is kept from leaving the page.
        deadline = time.monotonic() + 60
        while True:
            text = self.evaluate("""(async () => {
                let exported = null;
                URL.createObjectURL = blob => { exported = blob; return 'data:,'; };
                HTMLAnchorElement.prototype.click = function () {};
                window.dispatchEvent(new KeyboardEvent('keydown', {key: 's', ctrlKey: true}));
                return exported ? await exported.text() : null; })()""")
            if text:
                break
            if time.monotonic() > deadline:
                raise TimeoutError("speedscope did not load %s: %s" % (trace_path, self.browser.console_errors()[:3]))
            time.sleep(0.2)
        exported = json.loads(text)
        # speedscope names a frame "NAME {ARGS AS JSON}".
        frames = [f["name"].split(' {"', 1)[0] for f in exported["shared"]["frames"]]
        lanes = {}
        for profile in exported["profiles"]:
            check_unit(profile)
            intervals = []
            opened = []
            for event in profile["events"]:
                if event["type"] == "O":
                    opened.append(event)
                else:
                    start = opened.pop()
                    intervals.append((frames[start["frame"]], start["at"], event["at"]))
            lanes[profile["name"]] = intervals
        return lanes

    def catapult_model(self, viewer_path, trace_text):
        """The Catapult viewer's model of a trace: its slices per thread (with
        their parent's index) and its flows, plus the import's warnings.
        The viewer's page is inlined after the polyfill: file:// pages may
        not fetch each other, which an HTML import would."""
        if not self.evaluate("typeof tr !== 'undefined'"):
            page = os.path.join(self.tmp, "catapult.html")
            with open(page, "w") as f, open(polyfill_path()) as polyfill, open(viewer_path) as viewer:
                f.write("<!DOCTYPE html><html><head><script>%s</script></head><body>%s</body></html>" % (
                    polyfill.read(), viewer.read()))
            self.browser.navigate("file://" + page, timeout=120)
            self.wait_for("typeof tr !== 'undefined' && typeof tr.Model === 'function'")
        return self.evaluate("""(async () => {
            const model = new tr.Model();
            const warnings = [];
            model.importWarning = w => warnings.push(w.message);
            await new tr.importer.Import(model).importTracesWithProgressDialog([%s]);
            const index = new Map();
            const slices = [];
            for (const thread of model.getAllThreads())
              for (const s of thread.sliceGroup.slices) {
                index.set(s, slices.length);
                slices.push({pid: thread.parent.pid, tid: thread.tid, name: s.title, start_ms: s.start,
                             end_ms: s.start + s.duration, parent: null, slice: s});
              }
            for (const s of slices) {
              s.parent = s.slice.parentSlice ? index.get(s.slice.parentSlice) : null;
              delete s.slice;
            }
            const flows = model.flowEvents.map(f => ({id: f.id, start_ms: f.start,
              from: f.startSlice ? index.get(f.startSlice) : null, to: f.endSlice ? index.get(f.endSlice) : null}));
            return {slices, flows, warnings};
        })()""" % json.dumps(trace_text))


def check_unit(profile):
    if profile.get("unit") not in ("microseconds", "none"):
        raise ValueError("speedscope profile %s in %s, not microseconds" % (profile.get("name"), profile.get("unit")))
