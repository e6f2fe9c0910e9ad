"""Persistence: the SQLite store, and a real server killed with SIGKILL coming back with the same game."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from rules.game_codec import to_dict
from webui.db import SCHEMA_VERSION, Store, StoreError, default_db_path
from webui.session import PRESS_GUARD_S, GameSession, StorageError
from webui_fakes import FakeClock

ROOT = Path(__file__).resolve().parents[1]


def test_store_is_wal_and_keeps_settings(tmp_path):
    path = tmp_path / "sub" / "c.sqlite3"
    store = Store(path)
    assert path.exists()
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    store.set_setting("hint", True)
    store.set_setting("hint", False)
    assert Store(path).get_setting("hint") is False
    assert store.get_setting("missing", 7) == 7


TURN = {"hand": 1, "number": 1, "player": "Ann", "started_at": 1.0, "ended_at": 2.0, "action": "done",
        "legal": True, "problems": [], "placed": "R1 R2 R3", "penalty": 0,
        "table_before": "", "table_after": "R1 R2 R3"}
HAND = {"number": 1, "winner": "Ann", "pool_empty": False, "racks": {"Ann": "", "Ben": "K5"},
        "scores": {"Ann": 5, "Ben": -5}}


def test_games_hands_scores_and_turns_are_rows(tmp_path):
    store = Store(tmp_path / "c.sqlite3")
    gid = store.create_game(["Ann", "Ben"], {"game": "sabra"}, {"status": "playing", "n": 1}, b"pic-1")
    assert store.game_players(gid) == ["Ann", "Ben"] and store.snapshot(gid) == b"pic-1"
    store.save(gid, {"status": "playing", "n": 2}, turn=TURN, snapshot=b"pic-2")
    store.save(gid, {"status": "playing", "n": 3}, hands=[HAND])
    again = Store(tmp_path / "c.sqlite3")
    assert again.latest_game_id() == gid and again.load_game(gid) == {"status": "playing", "n": 3}
    assert again.hands(gid) == [dict(HAND, details={})] and again.snapshot(gid) == b"pic-2"
    assert [t["placed"] for t in again.turns(gid)] == ["R1 R2 R3"]
    store.save(gid, {"status": "tally", "n": 4}, hands=[])  # the hand taken back
    assert store.hands(gid) == [] and store.games()[0]["status"] == "tally"
    # a second game with a returning player reuses the player row; one picture is kept in all
    gid2 = store.create_game(["Ben", "Cid"], {"game": "sabra"}, {"status": "playing"}, b"pic-3")
    assert store.game_players(gid2) == ["Ben", "Cid"]
    assert store.latest_game_id() == gid2 and store.snapshot(gid) is None
    con = sqlite3.connect(tmp_path / "c.sqlite3")
    assert con.execute("SELECT count(*) FROM players").fetchone() == (3,)
    assert con.execute("SELECT count(*) FROM snapshots").fetchone() == (1,)
    assert [g["id"] for g in store.games()] == [gid2, gid]


def test_a_save_is_one_transaction(tmp_path):
    """A hand whose scores cannot be written leaves neither a turn row nor a changed state."""
    store = Store(tmp_path / "c.sqlite3")
    gid = store.create_game(["Ann", "Ben"], {}, {"status": "playing", "n": 1})
    with pytest.raises(StoreError):
        store.save(gid, {"status": "playing", "n": 2}, turn=TURN, hands=[dict(HAND, scores={"Ann": 1, None: 2})])
    assert store.hands(gid) == [] and store.turns(gid) == [] and store.load_game(gid)["n"] == 1


def fill_the_disk(store: Store) -> None:
    """The database file may not grow by a page more: SQLite answers SQLITE_FULL, as on a full disk."""
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")


def test_a_full_disk_leaves_the_game_as_it_was(tmp_path):
    """The write fails: the game shown stays the one stored, the page is told, and play goes on once there is room."""
    store = Store(tmp_path / "c.sqlite3")
    session = GameSession(store, now=FakeClock())
    session.start_game(["Ann", "Ben"])
    session.end_turn(())  # Ann draws
    shown = session.game
    fill_the_disk(store)
    big_picture = bytes(range(256)) * 800  # the next turn's picture: more than a free page holds
    with pytest.raises(StorageError, match="full"):
        session.end_turn((), big_picture)
    assert session.game == shown and store.load_game(session.game_id) == to_dict(shown)
    assert "not saved" in session.storage_error
    store._conn.execute("PRAGMA max_page_count = 1073741823")  # room again
    session.end_turn(())
    assert session.storage_error is None and store.load_game(session.game_id) == to_dict(session.game)
    assert session.current_player == "Ann"


def test_a_read_only_database_is_refused_without_changing_the_game(tmp_path):
    store = Store(tmp_path / "c.sqlite3")
    session = GameSession(store, now=FakeClock())
    session.start_game(["Ann", "Ben"])
    before = session.game
    store._conn.execute("PRAGMA query_only = ON")  # every write now fails as on a read-only file
    with pytest.raises(StorageError, match="readonly"):
        session.end_turn(())
    with pytest.raises(StorageError):
        session.start_game(["Cid", "Dan"])
    assert session.game == before and session.current_player == "Ann" and "not saved" in session.storage_error
    assert store.load_game(session.game_id) == to_dict(before)


def test_default_db_path_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "rummikub-companion" / "companion.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path().parts[-4:] == (".local", "share", "rummikub-companion", "companion.sqlite3")


# --- a real server, killed with SIGKILL ------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port: int, path: str, payload: dict | None = None) -> dict:
    data = None if payload is None else json.dumps(payload).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def serve(port: int, db: Path, tmp_path: Path, source: str | None = "missing") -> subprocess.Popen:
    """``rummikub-companion serve`` in a child process; returns once it answers.

    ``source="missing"``: an empty folder, a camera that shows nothing; None: the default source.
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "cli", "serve", "--port", str(port), "--db", str(db)]
    if source == "missing":  # serve refuses a source that is no camera, URL, file or folder at all
        (tmp_path / "no-camera-here").mkdir(exist_ok=True)
        cmd += ["--source", str(tmp_path / "no-camera-here")]
    elif source is not None:
        cmd += ["--source", source]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with code {proc.returncode}")
        try:
            call(port, "/api/state")
            return proc
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("server did not answer within 30 s")


def test_kill_9_and_restart_shows_the_same_game_and_scores(tmp_path):
    db = tmp_path / "companion.sqlite3"
    port = free_port()
    proc = serve(port, db, tmp_path)
    try:
        call(port, "/api/game", {"players": ["Ann", "Ben", "Cid"], "options": {"turn_time_limit": 600}})
        call(port, "/api/pass", {})  # Ann draws; Ben's turn
        time.sleep(PRESS_GUARD_S)  # a press right after a turn ended is taken for a late press for that turn
        call(port, "/api/rummikub", {"count_checked": True, "winner": "Ben"})
        call(port, "/api/tally/confirm", {"racks": {"Ann": "R5 R6", "Cid": "J"}})
        call(port, "/api/hand/start", {})  # hand 2 is dealt: the start passes to Ben
        call(port, "/api/pass", {})  # Ben draws
        before = call(port, "/api/state")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    assert before["camera"]["ok"] is False and "no-camera-here" in before["camera"]["error"]

    proc = serve(port, db, tmp_path)
    try:
        after = call(port, "/api/state")
        turns = call(port, "/api/turns")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    for key in ("id", "players", "current", "hand", "turn", "pool", "status", "last"):
        assert after["game"][key] == before["game"][key], key
    assert after["game"]["current"] == "Cid" and after["game"]["hand"] == 2
    assert after["scores"]["totals"] == before["scores"]["totals"] == {"Ann": -11, "Ben": 41, "Cid": -30}
    assert after["options"]["turn_time_limit"] == 600
    assert after["clock"]["elapsed"] >= before["clock"]["elapsed"] and after["clock"]["running"]  # it runs on
    assert [(t["hand"], t["player"], t["action"]) for t in turns] == [
        (1, "Ann", "pass"), (1, "Ben", "rummikub"), (2, "Ben", "pass")]  # Rummikub! ends Ben's turn: logged


OLD_TURNS = """CREATE TABLE turns (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id), hand INTEGER NOT NULL,
    number INTEGER NOT NULL, player TEXT NOT NULL, started_at REAL NOT NULL, ended_at REAL NOT NULL,
    action TEXT NOT NULL, legal INTEGER NOT NULL, problems TEXT NOT NULL, placed TEXT NOT NULL,
    penalty INTEGER NOT NULL, table_before TEXT NOT NULL, table_after TEXT NOT NULL)"""


def test_a_database_from_before_keeps_its_turns_and_says_the_unchecked_ones_were_not_judged(tmp_path):
    path = tmp_path / "old.sqlite3"
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE games (id INTEGER PRIMARY KEY, started_at REAL NOT NULL, updated_at REAL NOT "
                      "NULL, options TEXT NOT NULL, status TEXT NOT NULL, state TEXT NOT NULL);" + OLD_TURNS + ";")
    con.execute("INSERT INTO games VALUES (1, 1.0, 2.0, '{}', 'playing', '{}')")
    rows = [(1, 1, 1, 1, "Ann", 1.0, 2.0, "unchecked", 1, "[]", "3 tiles", 0, "", ""),
            (2, 1, 1, 2, "Ben", 2.0, 3.0, "done", 1, "[]", "R1 R2 R3", 0, "", "R1 R2 R3"),
            (3, 1, 1, 3, "Ann", 3.0, 4.0, "timeout", 0, json.dumps(["R5 R7: not a set"]), "R5 R7", 3, "R1 R2 R3",
             "R1 R2 R3 | R5 R7")]
    con.executemany("INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    store = Store(path)
    turns = store.turns(1)
    assert [(t["id"], t["action"], t["legal"], t["placed"]) for t in turns] == [
        (1, "unchecked", None, "3 tiles"), (2, "done", True, "R1 R2 R3"), (3, "timeout", False, "R5 R7")]
    assert turns[2]["problems"] == ["R5 R7: not a set"] and turns[2]["penalty"] == 3
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    store.save(1, {"status": "playing"}, turn={"hand": 1, "number": 4, "player": "Ben", "started_at": 4.0,
                                               "ended_at": 5.0, "action": "unchecked", "legal": None, "problems": [],
                                               "placed": "2 tiles", "penalty": 0, "table_before": "",
                                               "table_after": ""})
    assert store.turns(1)[-1]["legal"] is None
    store.close()
    again = Store(path)  # opened again: nothing more to do, nothing lost
    assert len(again.turns(1)) == 4
    again.close()
