"""Drive Debian's headless Chromium over the DevTools protocol on a pipe (no port, no new package).

``open_page(path)`` loads a local HTML file, waits for its charts, and returns what a person
(and a console) would see: console errors, uncaught exceptions, failed loads, every URL the page
requested, how many chart containers hold a drawn SVG, and a full-page PNG screenshot.

Chromium talks DevTools JSON messages, each ended by a NUL byte, on file descriptors 3 (commands
in) and 4 (events and replies out) when started with ``--remote-debugging-pipe``.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The path of a Chromium binary (``AGGFRAME_CHROMIUM`` first), or None."""
    env = os.environ.get("AGGFRAME_CHROMIUM")
    if env:
        return env if Path(env).exists() else None
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageResult:
    console_errors: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    log_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    charts: int = 0
    drawn: int = 0
    marks: int = 0
    screenshot: bytes = b""
    seconds: float = 0.0
    #: the JSON value of ``open_page(..., ask=...)``, evaluated once the charts are drawn
    probed: Any = None


class _DevTools:
    def __init__(self, binary: str, profile: str) -> None:
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        args = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--mute-audio",
            f"--user-data-dir={profile}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        # bash (dash takes one-digit fds only) puts the pipe ends at fds 3 and 4, then becomes Chromium
        redirect = f'exec "$0" "$@" 3<&{to_child_r} 4>&{from_child_w}'
        self.proc = subprocess.Popen(
            ["/bin/bash", "-c", redirect, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(to_child_r, from_child_w),
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> int:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self._next

    def _read(self, deadline: float) -> dict[str, Any] | None:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._r], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                msg = "Chromium closed the DevTools pipe"
                raise RuntimeError(msg)
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30,
    ) -> dict[str, Any]:
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(deadline)
            if msg is None:
                text = f"no reply to {method} within {timeout}s"
                raise TimeoutError(text)
            if msg.get("id") == wanted:
                if "error" in msg:
                    text = f"{method}: {msg['error']}"
                    raise RuntimeError(text)
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, name: str, timeout: float) -> bool:
        if any(e["method"] == name for e in self.events):
            return True
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(deadline)
            if msg is None:
                return False
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == name:
                    return True

    def close(self) -> None:
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=10)
        finally:
            os.close(self._w)
            os.close(self._r)


_PROBE = """JSON.stringify({
  charts: document.querySelectorAll("div.chart").length,
  drawn: Array.from(document.querySelectorAll("div.chart")).filter(
    (d) => d.querySelector("svg") && d.querySelector("svg").getBoundingClientRect().width > 0).length,
  marks: document.querySelectorAll("div.chart svg path, div.chart svg rect, div.chart svg line").length,
})"""


def open_page(path: Path, *, width: int = 1280, timeout: float = 60.0, ask: str | None = None) -> PageResult:
    """Load ``path`` in headless Chromium and report what happened (see the module docstring).

    ``ask``: a JavaScript expression whose value (JSON-serialisable) is kept in ``probed``.
    """
    binary = find_chromium()
    if binary is None:
        msg = "no Chromium found"
        raise FileNotFoundError(msg)
    started = time.monotonic()
    result = PageResult()
    with tempfile.TemporaryDirectory(prefix="aggframe-chromium-") as profile:
        dt = _DevTools(binary, profile)
        try:
            target = dt.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = dt.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                dt.call(f"{domain}.enable", session=session)
            dt.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                session=session,
            )
            dt.events.clear()
            dt.call("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
            if not dt.wait_event("Page.loadEventFired", timeout):
                msg = f"{path} did not finish loading within {timeout}s"
                raise TimeoutError(msg)
            deadline = time.monotonic() + timeout
            probe: dict[str, Any] = {}
            while time.monotonic() < deadline:  # charts drawn by script appear after load
                reply = dt.call(
                    "Runtime.evaluate", {"expression": _PROBE, "returnByValue": True}, session=session
                )
                probe = json.loads(reply["result"]["value"])
                if probe["drawn"] >= probe["charts"]:
                    break
                time.sleep(0.2)
            result.charts, result.drawn, result.marks = probe["charts"], probe["drawn"], probe["marks"]
            if ask is not None:
                expression = f"JSON.stringify({ask})"
                reply = dt.call(
                    "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
                )
                result.probed = json.loads(reply["result"]["value"])
            size = dt.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
            shot = dt.call(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "captureBeyondViewport": True,
                    "clip": {
                        "x": 0,
                        "y": 0,
                        "width": width,
                        "height": min(size["height"], 16000),
                        "scale": 1,
                    },
                },
                session=session,
                timeout=timeout,
            )
            result.screenshot = base64.b64decode(shot["data"])
        finally:
            dt.close()
    for event in dt.events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            result.console_errors.append(
                " ".join(str(a.get("value", a.get("description"))) for a in params["args"])
            )
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            result.exceptions.append(
                details.get("exception", {}).get("description") or details.get("text", "")
            )
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            result.log_errors.append(params["entry"]["text"])
        elif method == "Network.requestWillBeSent":
            result.requests.append(params["request"]["url"])
    result.seconds = time.monotonic() - started
    return result
