"""``rummikub-companion serve`` as a user runs it: waitress, one server per database, a clean Ctrl+C."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from test_webui_db import call, free_port, serve

ROOT = Path(__file__).resolve().parents[1]


def test_one_server_per_database_and_a_clean_stop(tmp_path):
    db = tmp_path / "club.sqlite3"
    port = free_port()
    (tmp_path / "no-camera").mkdir()  # an empty folder: a camera that shows nothing
    first = serve(port, db, tmp_path)
    try:
        call(port, "/api/game", {"players": ["Ann", "Ben"]})
        second = subprocess.run([sys.executable, "-m", "cli", "serve", "--port", str(free_port()), "--db", str(db),
                                 "--source", str(tmp_path / "no-camera")],
                                cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert str(db) in second.stderr and "in use by another companion server" in second.stderr
        assert f"pid {first.pid}" in second.stderr
        res = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5)
        assert res.headers["Server"] == "rummikub-companion"  # waitress, not the development server
        assert "frame-ancestors 'none'" in res.headers["Content-Security-Policy"]
        foreign = urllib.request.Request(f"http://127.0.0.1:{port}/api/state", headers={"Host": "evil.example"})
        try:
            urllib.request.urlopen(foreign, timeout=5)
            raise AssertionError("a foreign Host was served")
        except urllib.error.HTTPError as exc:
            assert exc.code == 400
    finally:
        first.send_signal(signal.SIGINT)  # Ctrl+C
        start = time.monotonic()
        code = first.wait(20)
    assert code == 0 and time.monotonic() - start < 10
    # the lock went with the server: the same file serves again, with the game kept
    port = free_port()
    again = serve(port, db, tmp_path)
    try:
        assert [p["name"] for p in call(port, "/api/state")["game"]["players"]] == ["Ann", "Ben"]
    finally:
        again.kill()
        again.wait()


def test_a_server_started_in_the_background_of_a_script_still_stops_on_ctrl_c(tmp_path):
    """A shell starts background jobs with SIGINT ignored; ``kill -INT`` must still stop the server."""
    port = free_port()
    (tmp_path / "no-camera").mkdir()  # an empty folder: a camera that shows nothing
    proc = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port), "--db", str(tmp_path / "c.db"),
                             "--source", str(tmp_path / "no-camera")], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                call(port, "/api/state")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "Stopped: camera, turn clock and database closed." in output


def test_serve_refuses_a_bad_pin():
    done = subprocess.run([sys.executable, "-m", "cli", "serve", "--pin", "12ab"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--pin" in done.stderr
