"""SQLite storage for the companion: players, games, hands, scores and the turn log.

Every change is written through (committed at once, WAL journal), so a server
killed with ``kill -9`` comes back with the same game, turn and score sheet.
The live game's bookkeeping is one JSON document per game (``games.state``);
hands, scores and turns are also kept as plain rows for anyone who wants to
query the history with ``sqlite3``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    options TEXT NOT NULL,          -- RuleOptions.to_dict() as JSON
    status TEXT NOT NULL,           -- playing | tally | over
    state TEXT NOT NULL             -- the session's own JSON document
);
CREATE TABLE IF NOT EXISTS game_players (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS hands (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    ended_at REAL NOT NULL,
    winner TEXT,
    pool_empty INTEGER NOT NULL,
    racks TEXT NOT NULL,            -- {player: "tile codes"}
    UNIQUE (game_id, number)
);
CREATE TABLE IF NOT EXISTS scores (
    hand_id INTEGER NOT NULL REFERENCES hands(id),
    player TEXT NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (hand_id, player)
);
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    hand INTEGER NOT NULL,
    number INTEGER NOT NULL,
    player TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL NOT NULL,
    action TEXT NOT NULL,           -- done | pass | draw | discard | timeout
    legal INTEGER NOT NULL,
    problems TEXT NOT NULL,         -- JSON list of plain-words problems
    placed TEXT NOT NULL,           -- tile codes
    penalty INTEGER NOT NULL,       -- tiles drawn as a penalty
    table_before TEXT NOT NULL,     -- table notation
    table_after TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/rummikub-companion/companion.sqlite3`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "rummikub-companion" / "companion.sqlite3"


class Store:
    """One SQLite file shared by the request threads (a lock serialises writes)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _write(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        with self._lock:
            return self._conn.execute(sql, params)

    def _read(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # settings ---------------------------------------------------------------
    def get_setting(self, key: str, default=None):
        rows = self._read("SELECT value FROM settings WHERE key = ?", (key,))
        return json.loads(rows[0]["value"]) if rows else default

    def set_setting(self, key: str, value) -> None:
        self._write(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    # games ------------------------------------------------------------------
    def player_id(self, name: str) -> int:
        with self._lock:
            self._conn.execute("INSERT OR IGNORE INTO players (name) VALUES (?)", (name,))
            return self._conn.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()[0]

    def create_game(self, players: list[str], options: dict, state: dict) -> int:
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                cur = self._conn.execute(
                    "INSERT INTO games (started_at, updated_at, options, status, state) VALUES (?, ?, ?, ?, ?)",
                    (now, now, json.dumps(options), state.get("status", "playing"), json.dumps(state)),
                )
                game_id = cur.lastrowid
                for seat, name in enumerate(players):
                    self._conn.execute("INSERT OR IGNORE INTO players (name) VALUES (?)", (name,))
                    pid = self._conn.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()[0]
                    self._conn.execute(
                        "INSERT INTO game_players (game_id, seat, player_id) VALUES (?, ?, ?)",
                        (game_id, seat, pid),
                    )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return game_id

    def save_game(self, game_id: int, state: dict, options: dict | None = None) -> None:
        if options is None:
            self._write(
                "UPDATE games SET state = ?, status = ?, updated_at = ? WHERE id = ?",
                (json.dumps(state), state.get("status", "playing"), time.time(), game_id),
            )
        else:
            self._write(
                "UPDATE games SET state = ?, status = ?, options = ?, updated_at = ? WHERE id = ?",
                (json.dumps(state), state.get("status", "playing"), json.dumps(options), time.time(), game_id),
            )

    def latest_game(self) -> tuple[int, dict, dict] | None:
        """(id, options, state) of the most recent game, or None."""
        rows = self._read("SELECT id, options, state FROM games ORDER BY id DESC LIMIT 1")
        if not rows:
            return None
        row = rows[0]
        return row["id"], json.loads(row["options"]), json.loads(row["state"])

    def game_players(self, game_id: int) -> list[str]:
        rows = self._read(
            "SELECT p.name FROM game_players g JOIN players p ON p.id = g.player_id "
            "WHERE g.game_id = ? ORDER BY g.seat",
            (game_id,),
        )
        return [r["name"] for r in rows]

    # hands, scores, turns ------------------------------------------------------
    def add_hand(
        self, game_id: int, number: int, winner: str | None, pool_empty: bool,
        racks: dict[str, str], scores: dict[str, int], state: dict,
    ) -> int:
        """Record a scored hand and the game's new state in one transaction."""
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                cur = self._conn.execute(
                    "INSERT INTO hands (game_id, number, ended_at, winner, pool_empty, racks) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, number, now, winner, int(pool_empty), json.dumps(racks)),
                )
                hand_id = cur.lastrowid
                self._conn.executemany(
                    "INSERT INTO scores (hand_id, player, score) VALUES (?, ?, ?)",
                    [(hand_id, p, int(s)) for p, s in scores.items()],
                )
                self._conn.execute(
                    "UPDATE games SET state = ?, status = ?, updated_at = ? WHERE id = ?",
                    (json.dumps(state), state.get("status", "playing"), now, game_id),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return hand_id

    def hands(self, game_id: int) -> list[dict]:
        rows = self._read(
            "SELECT id, number, winner, pool_empty, racks FROM hands WHERE game_id = ? ORDER BY number",
            (game_id,),
        )
        out = []
        for r in rows:
            scores = {
                s["player"]: s["score"]
                for s in self._read("SELECT player, score FROM scores WHERE hand_id = ?", (r["id"],))
            }
            out.append({
                "number": r["number"], "winner": r["winner"], "pool_empty": bool(r["pool_empty"]),
                "racks": json.loads(r["racks"]), "scores": scores,
            })
        return out

    def log_turn(self, game_id: int, turn: dict, state: dict) -> None:
        """Append one finished turn and save the game's new state together."""
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                self._conn.execute(
                    "INSERT INTO turns (game_id, hand, number, player, started_at, ended_at, action, legal, "
                    "problems, placed, penalty, table_before, table_after) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game_id, turn["hand"], turn["number"], turn["player"], turn["started_at"],
                        turn["ended_at"], turn["action"], int(turn["legal"]), json.dumps(turn["problems"]),
                        turn["placed"], turn["penalty"], turn["table_before"], turn["table_after"],
                    ),
                )
                self._conn.execute(
                    "UPDATE games SET state = ?, status = ?, updated_at = ? WHERE id = ?",
                    (json.dumps(state), state.get("status", "playing"), time.time(), game_id),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def turns(self, game_id: int, limit: int | None = None) -> list[dict]:
        sql = "SELECT * FROM turns WHERE game_id = ? ORDER BY id DESC"
        params: tuple = (game_id,)
        if limit is not None:
            sql += " LIMIT ?"
            params += (int(limit),)
        rows = self._read(sql, params)
        out = []
        for r in reversed(rows):
            d = dict(r)
            d["legal"] = bool(d["legal"])
            d["problems"] = json.loads(d["problems"])
            d.pop("game_id", None)
            out.append(d)
        return out
