"""A headless Chromium driven through the DevTools protocol over
--remote-debugging-pipe (JSON messages separated by NUL on fds 3 and 4):
standard library only, no websocket module needed.
"""
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, executable, width=1280, height=900):
        self.profile = tempfile.mkdtemp(prefix="prof-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def child_fds():
            # Copies first: a pipe end may already sit at 3 or 4, and dup2
            # onto itself would leave it closing on exec.
            read_end, write_end = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        args = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height), "about:blank"]
        # os.pipe()'s fds close on exec; the copies dup2 makes at 3 and 4 do not.
        self.process = subprocess.Popen(args, close_fds=False, preexec_fn=child_fds,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if ready:
                chunk = os.read(self.from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe: " + self.process.stderr.read().decode(errors="replace")[-2000:])
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        for event in self.events:
            if event["method"] == method:
                return event
        while True:
            event = self._read_message(deadline)
            if "method" in event:
                self.events.append(event)
                if event["method"] == method:
                    return event

    def open_page(self):
        """A new tab with the domains the tests watch enabled (console, log, network)."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=False)
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")

    def navigate(self, url, timeout=30):
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        start = time.monotonic()
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", timeout)
        return time.monotonic() - start

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError("evaluate failed: %s" % result["exceptionDetails"])
        return result["result"].get("value")

    def console_errors(self):
        """Console errors and assertions, uncaught exceptions, and errors the browser logged (CSP, loads)."""
        return [e["params"] for e in self.events
                if (e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
                or e["method"] == "Runtime.exceptionThrown"
                or (e["method"] == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")]

    def requested_urls(self):
        """Every request the tab made, in order (the page itself first)."""
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]

    def screenshot(self, path):
        import base64
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
