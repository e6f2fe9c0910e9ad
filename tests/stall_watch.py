"""A browser test that Chromium stops answering is ended, and said, instead of holding the run up.

Playwright's calls that wait on a page without a timeout of their own (``evaluate``, ``is_visible``,
``new_page``) wait for ever when Chromium stops answering. pytest-timeout's alarm then lands inside
Playwright's own event loop, and every later call of the run waits for ever too. The watch ends Chromium
first: the waiting call fails at once, what Chromium's processes and the test were doing is printed
with the failure, and the next test gets a new Chromium (``conftest.Chromium``).
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import threading
import traceback
from pathlib import Path


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Playwright's driver, Chromium and its helpers), read from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def chromium_browsers(pids: list[int]) -> list[int]:
    """The Chromium browser processes among ``pids`` (its helpers carry a --type= flag)."""
    browsers = []
    for pid in pids:
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if Path(args[0].decode(errors="replace")).name in ("chromium", "chrome", "headless_shell") \
                and not any(a.startswith(b"--type=") for a in args):
            browsers.append(pid)
    return browsers


def waiting_stacks() -> str:
    """Where each suspended greenlet waits: the test's own call into Playwright is among them."""
    try:
        import greenlet
    except ImportError:
        return ""
    stacks = [
        "".join(traceback.format_stack(g.gr_frame))
        for g in gc.get_objects() if isinstance(g, greenlet.greenlet) and g.gr_frame is not None
    ]
    return "\n".join(stacks)


class StallWatch:
    """Ends this process's Chromium when the test it watches is still running after ``seconds``."""

    def __init__(self, seconds: float, test: str):
        self.seconds = seconds
        self.test = test
        self.fired = False
        self._timer = threading.Timer(seconds, self._stalled)
        self._timer.daemon = True

    def __enter__(self) -> "StallWatch":
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def _stalled(self) -> None:
        self.fired = True
        pids = descendants(os.getpid())
        ps = subprocess.run(["ps", "-o", "pid,ppid,pcpu,etime,args", "-p", ",".join(map(str, pids))],
                            capture_output=True, text=True).stdout if pids else "(none)"
        ps = "\n".join(line[:160] for line in ps.splitlines())  # Chromium's flags run to pages
        report = (f"\n{self.test}: Chromium has not answered for {self.seconds:.0f} s; ending it.\n"
                  f"Processes below the test run:\n{ps}\nWhere the test waits:\n{waiting_stacks()}\n")
        os.write(2, report.encode(errors="replace"))
        for pid in chromium_browsers(pids):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
