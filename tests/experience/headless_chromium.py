"""Headless Chromium (Debian's package) driven over the DevTools protocol on a pipe: open a page, run a
script in it, click, and screenshot one element. A private profile, no network, nothing to install."""

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from system_packages import require

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TIMEOUT_S = 120


def cjk_font_installed() -> bool:
    """Whether a font with Chinese glyphs is installed: without one Chromium draws CJK text (the report's
    Chinese course-note titles, a zh report) in fallback boxes of another width, and pages overflow."""
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False) \
        if shutil.which("fc-list") else None
    return bool(listed and listed.stdout.strip()) or any(Path("/usr/share/fonts").glob("**/NotoSansCJK*"))


def require_chromium() -> None:
    missing = [name for name, present in (("chromium", Path(CHROMIUM).exists()),
                                          ("fonts-noto-cjk", cjk_font_installed())) if not present]
    if missing and os.environ.get("ATTNLAB_SKIP_BROWSER") == "1":
        pytest.skip(f"ATTNLAB_SKIP_BROWSER=1 and {', '.join(missing)} is not installed")
    require("chromium and fonts-noto-cjk", missing, f"apt-get install -y {' '.join(missing)}", "ATTNLAB_SKIP_BROWSER")


class Browser:
    """One headless Chromium; `with Browser() as b: b.open(url); b.evaluate("1 + 1")`."""

    def __init__(self, width: int = 1200, height: int = 1000, env: dict | None = None):
        require_chromium()
        self.height = height
        self.profile = tempfile.mkdtemp(prefix="attnlab-chromium-")
        self.log = Path(self.profile) / "stderr.log"
        commands_r, commands_w = os.pipe()  # the browser reads commands on fd 3, answers on fd 4
        answers_r, answers_w = os.pipe()

        def on_fds_3_and_4():
            first, second = os.dup(commands_r), os.dup(answers_w)  # never clobber one with the other
            os.dup2(first, 3)
            os.dup2(second, 4)
            os.set_inheritable(3, True)  # dup2 onto itself (fd 3 was free) keeps dup's close-on-exec
            os.set_inheritable(4, True)

        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-pipe", f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
             "about:blank"],
            preexec_fn=on_fds_3_and_4, close_fds=False, stdout=subprocess.DEVNULL, stderr=self.log.open("wb"),
            env={**os.environ, **(env or {})})
        os.close(commands_r)
        os.close(answers_w)
        self.commands, self.answers = commands_w, answers_r
        self.buffer, self.events, self.last_id = b"", [], 0
        page = next(t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.send("Page.enable", session=True)

    def _message(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            if not select.select([self.answers], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.answers, 1 << 16)
            if not chunk:
                raise RuntimeError(f"chromium closed the pipe: {self.log.read_text(errors='replace')[-2000:]}")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, session: bool = False, **params) -> dict:
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self.last_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer.get("method"))

    def open(self, url: str) -> None:
        self.events.clear()
        self.send("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + TIMEOUT_S
        while "Page.loadEventFired" not in self.events:
            self.events.append(self._message(deadline).get("method"))

    def evaluate(self, expression: str):
        answer = self.send("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def shot(self, selector: str) -> np.ndarray:
        """The element as RGB pixels, scrolled to the top of the window (at most a window's height of it)."""
        box = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView();"
                            " const r = e.getBoundingClientRect();"
                            " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()")
        clip = {"x": box[0], "y": box[1], "width": box[2], "height": min(box[3], self.height - 20), "scale": 1}
        data = self.send("Page.captureScreenshot", session=True, format="png", clip=clip)
        with tempfile.TemporaryFile() as png:
            png.write(base64.b64decode(data["data"]))
            png.seek(0)
            return np.asarray(Image.open(png).convert("RGB"))

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.send("Browser.close")
            self.process.wait(timeout=30)
        except (RuntimeError, TimeoutError, OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        finally:
            os.close(self.commands)
            os.close(self.answers)
            shutil.rmtree(self.profile, ignore_errors=True)


def distinct_colours(pixels: np.ndarray) -> int:
    """How many colours an RGB or RGBA image has: each pixel packed into one integer first (np.unique over rows,
    axis=0, sorts them as records and takes about 1.7 s for one window's worth of pixels)."""
    flat = pixels.reshape(-1, pixels.shape[-1]).astype(np.uint32)
    packed = np.zeros(len(flat), dtype=np.uint32)
    for channel in range(flat.shape[1]):
        packed = (packed << 8) | flat[:, channel]
    return len(np.unique(packed))


def assert_not_blank(pixels: np.ndarray, what: str = "") -> None:
    colours = distinct_colours(pixels)
    not_white = (pixels < 240).any(axis=-1).mean()
    assert colours > 20 and not_white > 0.02, (what, colours, not_white)
