"""A headless Chromium driven over the DevTools protocol, through --remote-debugging-pipe.

The pipe transport (fd 3 in, fd 4 out, messages separated by NUL) needs no websocket client and no
port: the test talks to exactly the browser it started. Only what the site tests need is here:
open a page, evaluate JavaScript, record every request the page makes, take a screenshot.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",                      # we run as root in CI
    "--disable-gpu",
    "--disable-background-networking",   # no update checks, no safe-browsing lists
    "--disable-component-update",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
    "--window-size=1280,1800",
    # Belt and braces: whatever the page asks for, only the local server resolves.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
)


def find_chromium() -> str | None:
    """Debian's chromium here; $CHROMIUM names another Chromium build (a CI runner's Chrome)."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(RuntimeError):
    pass


class Chromium:
    """One browser, one page target (flattened session)."""

    def __init__(self, binary: str, profile_dir: Path, log_path: Path) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_fds() -> None:  # runs in the child: put the pipe ends where Chromium expects them
            import fcntl
            # Lift both ends above 4 first, so neither dup2 overwrites the other.
            hi_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
            hi_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(hi_r, 3)  # dup2 leaves the copy inheritable; everything else Python opened is not (PEP 446)
            os.dup2(hi_w, 4)

        self._log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile_dir}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
            preexec_fn=wire_fds, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._ids = itertools.count(1)
        self._replies: dict[int, queue.Queue] = {}
        self._lock = threading.Lock()
        self.events: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    # -- transport ----------------------------------------------------------------------------------
    def _read_loop(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.events.put(None)  # browser gone
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._lock:
                        q = self._replies.get(msg["id"])
                    if q is not None:
                        q.put(msg)
                else:
                    self.events.put(msg)

    def call(self, method: str, timeout: float = 30, session: str | None = None, **params):
        msg_id = next(self._ids)
        q: queue.Queue = queue.Queue()
        with self._lock:
            self._replies[msg_id] = q
        msg = {"id": msg_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        try:
            reply = q.get(timeout=timeout)
        except queue.Empty:
            raise BrowserError(f"{method}: no reply in {timeout} s") from None
        finally:
            with self._lock:
                self._replies.pop(msg_id, None)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def page(self, method: str, timeout: float = 30, **params):
        return self.call(method, timeout=timeout, session=self.session, **params)

    # -- what the tests use -------------------------------------------------------------------------
    def drain_events(self) -> list[dict]:
        out = []
        while True:
            try:
                ev = self.events.get_nowait()
            except queue.Empty:
                return out
            if ev is not None:
                out.append(ev)

    def open(self, url: str, timeout: float = 30) -> list[dict]:
        """Navigate and wait for the load event; returns the events seen (requests among them)."""
        self.page("Page.enable")
        self.page("Network.enable")
        self.page("Runtime.enable")
        seen = self.drain_events()
        self.page("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                ev = self.events.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            if ev is None:
                raise BrowserError("the browser exited")
            seen.append(ev)
            if ev.get("method") == "Page.loadEventFired":
                return seen
        raise BrowserError(f"{url}: no load event in {timeout} s")

    def evaluate(self, expression: str):
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"JavaScript failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 90, interval: float = 0.1):
        """`expression`'s value once it is truthy, asked again every `interval` s (what a page draws comes with no
        event the protocol reports); after `timeout` s, its falsy value. The timeout is a net for a page that never
        gets there, not a guess at how long drawing takes: a loaded machine draws a diagram in many seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except BrowserError as exc:   # the page is being replaced (a reload): ask the next one
                if "navigated or closed" not in str(exc) or time.monotonic() > deadline:
                    raise
                value = None
            if value or time.monotonic() > deadline:
                return value
            time.sleep(interval)

    def screenshot(self, path: Path, selector: str | None = None, hide: str | None = None) -> bytes:
        """PNG of the page, or of the first element matching `selector` at its full size (a diagram wider
        than the column is shown whole: its scrolling parent is let overflow for the capture, and the
        elements matching `hide`, which it would then overlap, are hidden). Written to `path`, and returned."""
        params: dict = {"format": "png"}
        if selector:
            box = self.evaluate(
                f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                f" document.querySelectorAll({json.dumps(hide or '#none')})"
                ".forEach(h => h.style.visibility = 'hidden');"
                " e.parentElement.style.overflow = 'visible';"
                # scroll it below the page's sticky header, which would otherwise cover its top
                " scrollTo(0, e.getBoundingClientRect().top + scrollY - 100);"
                " const r = e.getBoundingClientRect();"
                " return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })()")
            params.update(clip={**box, "scale": 1}, captureBeyondViewport=True)
        png = base64.b64decode(self.page("Page.captureScreenshot", **params)["data"])
        path.write_bytes(png)
        return png

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except BrowserError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
