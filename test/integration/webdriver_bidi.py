"""A headless Firefox driven through WebDriver BiDi, which Firefox serves
itself on --remote-debugging-port (no geckodriver): a WebSocket client of
our own on the standard library, so nothing beyond Debian's firefox-esr is
needed. Same interface as devtools_pipe.Browser: open_page, navigate,
evaluate, console_errors, requested_urls, close.
"""
import base64
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import time

# Firefox talks to Mozilla's services on its own (updates, remote settings,
# telemetry, safe browsing): off, so that the only requests are the page's.
PREFS = {
    "app.update.disabledForTesting": True,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "services.settings.server": "data:,",
    "extensions.update.enabled": False,
    "app.normandy.enabled": False,
    "browser.region.network.url": "",
    "remote.prefs.recommended": True,
}


def find_firefox():
    for name in ("firefox-esr", "firefox"):
        path = shutil.which(name)
        if path:
            return path
    return None


class WebSocket:
    """RFC 6455, client side: text frames out (masked), text frames in."""

    def __init__(self, host, port, path, timeout=30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key)).encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("firefox closed the WebSocket handshake")
            response += chunk
        head, self.buffer = response.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError("WebSocket handshake refused: " + head.decode(errors="replace"))

    def send(self, text):
        payload = text.encode()
        header = bytes([0x81])  # FIN, text
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, n, deadline):
        while len(self.buffer) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from firefox")
            ready, _, _ = select.select([self.sock], [], [], left)
            if ready:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise RuntimeError("firefox closed the WebSocket")
                self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def receive(self, deadline):
        """The next whole text message (fragments joined; pings answered)."""
        message = b""
        while True:
            first, second = self._read(2, deadline)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2, deadline))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8, deadline))[0]
            mask = self._read(4, deadline) if second & 0x80 else None
            payload = self._read(length, deadline)
            if mask:
                payload = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise RuntimeError("firefox closed the WebSocket")
            if opcode == 0x9:  # ping: answer with the same payload, masked
                mask = os.urandom(4)
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + mask +
                                  bytes(b ^ mask[i & 3] for i, b in enumerate(payload)))
                continue
            if opcode in (0x0, 0x1, 0x2):
                message += payload
                if first & 0x80:
                    return message.decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    def __init__(self, executable, width=1280, height=900):
        self.profile = tempfile.mkdtemp(prefix="prof-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for name, value in PREFS.items():
                f.write("user_pref(%s, %s);\n" % (json.dumps(name), json.dumps(value)))
        env = dict(os.environ, MOZ_HEADLESS="1", MOZ_HEADLESS_WIDTH=str(width), MOZ_HEADLESS_HEIGHT=str(height))
        env.pop("LD_PRELOAD", None)
        self.process = subprocess.Popen([executable, "--headless", "--no-remote", "--profile", self.profile,
                                         "--remote-debugging-port", "0", "about:blank"],
                                        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.stderr = b""
        self.socket = None
        self.next_id = 0
        self.events = []
        self.context = None
        try:
            port = self._listening_port(time.monotonic() + 60)
            self.socket = WebSocket("127.0.0.1", port, "/session")
            self.send("session.new", {"capabilities": {}})
        except Exception:
            self.close()
            raise

    def _listening_port(self, deadline):
        """Firefox prints 'WebDriver BiDi listening on ws://127.0.0.1:PORT' on stderr."""
        fd = self.process.stderr.fileno()
        while True:
            match = re.search(rb"WebDriver BiDi listening on ws://[^:]+:(\d+)", self.stderr)
            if match:
                return int(match.group(1))
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("firefox did not start WebDriver BiDi: " + self.stderr.decode(errors="replace")[-2000:])
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise RuntimeError("firefox exited: " + self.stderr.decode(errors="replace")[-2000:])
                self.stderr += chunk

    def close(self):
        if self.socket:
            try:
                self.send("browser.close", timeout=5)
            except Exception:
                pass
            self.socket.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def send(self, method, params=None, timeout=30):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while True:
            reply = json.loads(self.socket.receive(deadline))
            if reply.get("id") == self.next_id:
                if reply.get("type") == "error":
                    raise RuntimeError("%s: %s: %s" % (method, reply.get("error"), reply.get("message")))
                return reply.get("result", {})
            if reply.get("type") == "event":
                self.events.append(reply)

    def open_page(self):
        """The first tab, with the events the tests watch (console, JavaScript errors, requests)."""
        self.context = self.send("browsingContext.getTree", {"maxDepth": 0})["contexts"][0]["context"]
        self.send("session.subscribe", {"events": ["log.entryAdded", "network.beforeRequestSent"]})

    def navigate(self, url, timeout=30):
        start = time.monotonic()
        self.send("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"}, timeout)
        return time.monotonic() - start

    def evaluate(self, expression):
        """The value of `expression` (awaited), through JSON as Chromium's returnByValue gives it."""
        wrapped = "(async () => { const v = await (%s); return v === undefined ? undefined : JSON.stringify(v); })()" % expression
        result = self.send("script.evaluate", {"expression": wrapped, "target": {"context": self.context},
                                               "awaitPromise": True, "resultOwnership": "none"})
        if result.get("type") == "exception":
            raise RuntimeError("evaluate failed: %s" % result.get("exceptionDetails"))
        value = result["result"]
        return json.loads(value["value"]) if value.get("type") == "string" else None

    def console_errors(self):
        """Console errors and uncaught exceptions (log.entryAdded of level error)."""
        return [e["params"] for e in self.events
                if e["method"] == "log.entryAdded" and e["params"].get("level") == "error"]

    def requested_urls(self):
        """Every request the tab made, in order."""
        return [e["params"]["request"]["url"] for e in self.events
                if e["method"] == "network.beforeRequestSent" and e["params"].get("context") == self.context]

    def screenshot(self, path):
        data = self.send("browsingContext.captureScreenshot", {"context": self.context})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
