"""``rummikub-companion serve`` as a user runs it: waitress, one server per database, a clean Ctrl+C."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from cli import main
from test_webui_db import call, free_port, serve
from vision.profile import TileProfile
from webui.dblock import DatabaseLock

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


# -- refused at the start: exit 2, one line, and nothing changed ----------------------------------------------

class Reached(Exception):
    """The start went on to build the app."""


def never(*args, **kwargs):
    raise Reached("the server went on to build the app")


@pytest.fixture
def no_app(monkeypatch):
    """The app is never built (a start that gets that far raises Reached); the profile read with is reset."""
    import vision.profile
    import webui.app

    monkeypatch.setattr(webui.app, "create_app", never)
    monkeypatch.setattr(vision.profile, "_default", None)


def profile_file(path: Path, seed: int) -> Path:
    """A tile profile serve takes (which classifier it fits is checked only when tiles are read)."""
    rng = np.random.default_rng(seed)
    return TileProfile(rng.normal(size=(54, 8)).astype(np.float32), np.zeros(54, np.float32), "test").save(path)


def serve_here(capsys, *argv: str) -> tuple[int, str]:
    """``serve`` in this process: its exit code and what it said on stderr, which holds no traceback."""
    code = main(["serve", *argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize("taken", ["database", "port"])
def test_a_start_refused_for_a_busy_database_or_port_leaves_the_kept_profile_alone(tmp_path, capsys, no_app, taken):
    db, port = tmp_path / "club.sqlite3", free_port()
    kept = profile_file(tmp_path / "tile_profile.npz", seed=1)
    before = kept.read_bytes()
    new = profile_file(tmp_path / "new.npz", seed=2)
    with contextlib.ExitStack() as busy:
        if taken == "database":
            busy.enter_context(DatabaseLock(db, owner="the first server"))
        else:
            sock = busy.enter_context(socket.socket())
            sock.bind(("127.0.0.1", port))
            sock.listen()
        code, err = serve_here(capsys, "--db", str(db), "--port", str(port), "--profile", str(new),
                               "--source", str(tmp_path))
    assert code == 2
    said = "in use by another companion server" if taken == "database" else f"cannot listen on 127.0.0.1:{port}"
    assert said in err
    assert kept.read_bytes() == before
    assert [p.name for p in tmp_path.glob("tile_profile*")] == ["tile_profile.npz"]


def test_the_profile_given_is_kept_once_the_start_is_sure(tmp_path, capsys, no_app):
    new = profile_file(tmp_path / "new.npz", seed=2)
    profile_file(tmp_path / "tile_profile.npz", seed=1)
    with pytest.raises(Reached):
        main(["serve", "--db", str(tmp_path / "club.sqlite3"), "--port", str(free_port()), "--profile", str(new),
              "--source", str(tmp_path)])
    assert np.array_equal(TileProfile.load(tmp_path / "tile_profile.npz").weight, TileProfile.load(new).weight)
    assert [p.name for p in tmp_path.glob("tile_profile*")] == ["tile_profile.npz"]


@pytest.mark.parametrize("damage", ["truncated", "not a profile"])
def test_a_damaged_profile_in_the_data_folder_stops_the_start_saying_what_to_do(tmp_path, capsys, no_app, damage):
    kept = profile_file(tmp_path / "tile_profile.npz", seed=1)
    kept.write_bytes(kept.read_bytes()[:1000] if damage == "truncated" else b"not a profile")
    before = kept.read_bytes()
    code, err = serve_here(capsys, "--db", str(tmp_path / "club.sqlite3"), "--port", str(free_port()),
                           "--source", str(tmp_path))
    assert code == 2 and err.count("\n") == 1
    assert f"{kept} is not a tile profile" in err
    assert "Delete that file" in err and "--profile GOOD.npz" in err and "rummikub-companion calibrate" in err
    assert kept.read_bytes() == before and not (tmp_path / "club.sqlite3").exists()  # nothing started


def test_a_truncated_profile_given_is_refused_by_name(tmp_path, capsys, no_app):
    given = profile_file(tmp_path / "box.npz", seed=1)
    given.write_bytes(given.read_bytes()[:1000])
    code, err = serve_here(capsys, "--db", str(tmp_path / "club.sqlite3"), "--port", str(free_port()),
                           "--profile", str(given), "--source", str(tmp_path))
    assert code == 2 and f"--profile {given} is not a tile profile" in err
    assert not (tmp_path / "tile_profile.npz").exists()


@pytest.mark.parametrize("host, words", [
    ("nosuchhost.invalid", "cannot listen on nosuchhost.invalid:{port}: no such address or host name here"),
    ("256.1.1.1", "cannot listen on 256.1.1.1:{port}: no such address or host name here"),
    ("[::1]", "an IPv6 address goes without brackets"),
    ("", "--host is empty"),
    (" 127.0.0.1", "--host ' 127.0.0.1' has spaces around it"),
    ("*", "0.0.0.0 listens on every address"),
])
def test_a_host_it_cannot_listen_on_is_refused_before_anything_starts(tmp_path, capsys, no_app, host, words):
    port = free_port()
    db = tmp_path / "club.sqlite3"
    code, err = serve_here(capsys, "--host", host, "--port", str(port), "--db", str(db), "--source", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and words.format(port=port) in err
    assert not db.with_name(db.name + ".lock").exists()  # the database was not even locked


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")
def test_an_ipv6_address_is_printed_in_brackets_as_a_browser_takes_it(tmp_path, capsys, no_app):
    port = free_port()
    with socket.socket(socket.AF_INET6) as taken:
        taken.bind(("::1", port))
        taken.listen()
        code, err = serve_here(capsys, "--host", "::1", "--port", str(port), "--db", str(tmp_path / "c.sqlite3"),
                               "--source", str(tmp_path))
    assert code == 2 and f"cannot listen on [::1]:{port}: " in err

    (tmp_path / "no-camera").mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--host", "::1", "--port", str(port),
                             "--db", str(tmp_path / "c.sqlite3"), "--source", str(tmp_path / "no-camera")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        said = proc.stdout.readline()
        assert said.startswith(f"Rummikub companion on http://[::1]:{port}/ "), said
        with urllib.request.urlopen(f"http://[::1]:{port}/api/state", timeout=10) as res:  # the URL printed works
            assert res.status == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)


def saved_game(db: Path) -> None:
    """A good database with a game in it."""
    from webui.db import Store

    store = Store(db)
    store.create_game(["Ann", "Ben"], {}, {}, None)
    store.close()


def test_a_good_database_in_a_folder_it_cannot_write_is_not_called_broken(tmp_path, capsys, no_app, monkeypatch):
    import os

    db = tmp_path / "club" / "g.sqlite3"
    db.parent.mkdir()
    saved_game(db)
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != db.parent and real(path, mode, **kw))
    code, err = serve_here(capsys, "--db", str(db), "--port", str(free_port()), "--source", str(tmp_path))
    assert code == 2 and err.count("\n") == 1
    assert f"--db {db}: the folder {db.parent} is not writable for this user" in err
    assert "cannot be opened as a database" not in err


@pytest.fixture
def read_only_mount(tmp_path):
    """A folder on a small file system of its own, made read-only by ``.lock()``; only where mount works."""
    folder = tmp_path / "romnt"
    folder.mkdir()
    if os.name != "posix" or os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], capture_output=True).returncode:
        pytest.skip("cannot mount a file system here")

    class Mount:
        path = folder

        @staticmethod
        def lock() -> None:
            subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)

    yield Mount
    subprocess.run(["umount", str(folder)], check=True)


def test_a_good_database_on_a_read_only_file_system_says_so(tmp_path, capsys, no_app, read_only_mount):
    db = read_only_mount.path / "g.sqlite3"
    saved_game(db)
    read_only_mount.lock()
    code, err = serve_here(capsys, "--db", str(db), "--port", str(free_port()), "--source", str(tmp_path))
    assert code == 2 and f"the folder {db.parent} is on a read-only file system" in err
    assert "cannot be opened as a database" not in err


@pytest.mark.parametrize("name", ["http://x y", "x y", "", " table.club.lan", "http://table.club.lan",
                                  "table.club.lan/", "256.1.1.1", "table.club.lan:99999", "table.club.lan:",
                                  "[::1", "[table.club.lan]", "-table.club.lan", "tàble.lan"])
def test_an_allow_host_that_is_no_host_name_or_address_is_refused(tmp_path, capsys, no_app, name):
    code, err = serve_here(capsys, "--allow-host", "table.club.lan", f"--allow-host={name}", "--port", str(free_port()),
                           "--db", str(tmp_path / "club.sqlite3"), "--source", str(tmp_path))
    assert code == 2 and err.count("\n") == 1
    assert f"--allow-host {name!r} is not a host name or address" in err and "without http://" in err


@pytest.mark.parametrize("name", ["table.club.lan", "Table.Club.Lan.", "table.club.lan:5000", "192.168.1.20",
                                  "192.168.1.20:5000", "fe80::1", "[::1]", "[::1]:5000", "my_table"])
def test_a_host_name_or_address_with_or_without_a_port_is_taken(tmp_path, no_app, name):
    with pytest.raises(Reached):
        main(["serve", "--allow-host", name, "--port", str(free_port()), "--db", str(tmp_path / "club.sqlite3"),
              "--source", str(tmp_path)])
