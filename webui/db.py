"""SQLite storage for the companion: players, games, hands, scores and the turn log.

A move of the game is saved in one transaction (the game's new state, the
turn it finished, the hands scored so far, the picture of the new turn) and
only then shown, so a server killed with ``kill -9`` comes back with the same
game, turn and score sheet, and a write that fails (disk full, read-only
file) changes nothing.  The game itself is one JSON document per game
(``games.state``, see :mod:`rules.game_codec`); hands, scores and turns are
also kept as plain rows for anyone who wants to query the history with
``sqlite3``.  Only the current turn's picture is kept.

The schema's version is SQLite's ``user_version``: a file made by an older
version is brought up to date when it is opened (:data:`MIGRATIONS`), its
rows kept.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

TURNS = """CREATE TABLE IF NOT EXISTS {name} (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    hand INTEGER NOT NULL,
    number INTEGER NOT NULL,
    player TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL NOT NULL,
    action TEXT NOT NULL,           -- done | pass | draw | discard | timeout | rummikub | unchecked | table_found
    legal INTEGER,                  -- 1 legal, 0 not; NULL: not judged (unchecked, table_found)
    problems TEXT NOT NULL,         -- JSON list of plain-words problems
    placed TEXT NOT NULL,           -- tile codes
    penalty INTEGER NOT NULL,       -- tiles drawn as a penalty
    table_before TEXT NOT NULL,     -- table notation
    table_after TEXT NOT NULL,
    discard TEXT,                   -- the tile the turn ended with (the winner's final discard included)
    -- 1: a Rummikub! taken back with Back to the game: the turn went on; 2 (TURN_UNDONE): a turn recorded on
    -- the players' word, taken back with Undo last turn: the game went back to before it, the turn is played again
    taken_back INTEGER NOT NULL DEFAULT 0,
    drew TEXT                       -- where its draw came from: pool, discard K13, trump R7 (NULL: no draw)
);"""

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
    details TEXT,                   -- JSON: how it was won (final discard, win, closed hand, doubling, trump's twin)
    UNIQUE (game_id, number)
);
CREATE TABLE IF NOT EXISTS scores (
    hand_id INTEGER NOT NULL REFERENCES hands(id),
    player TEXT NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (hand_id, player)
);
{turns}
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS snapshots (  -- the picture of the table when the current turn began
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    jpeg BLOB NOT NULL
);
DELETE FROM settings WHERE key LIKE 'snapshot:%';  -- older versions kept one picture per game forever
""".replace("{turns}", TURNS.format(name="turns"))

TURN_COLUMNS = ("id, game_id, hand, number, player, started_at, ended_at, action, legal, problems, placed, penalty, "
                "table_before, table_after")


def _turns_legal_nullable(c: sqlite3.Connection) -> None:
    """Version 1: a turn no camera saw (action ``unchecked``) was stored as legal, the column could not be
    empty.  The turns are copied into a table whose ``legal`` may be NULL (SQLite cannot drop NOT NULL in
    place), and those turns become NULL: not judged."""
    notnull = {r["name"]: r["notnull"] for r in c.execute("PRAGMA table_info(turns)")}
    if notnull.get("legal"):
        c.execute(TURNS.format(name="turns_v1"))
        c.execute(f"INSERT INTO turns_v1 ({TURN_COLUMNS}) SELECT {TURN_COLUMNS} FROM turns")
        c.execute("DROP TABLE turns")
        c.execute("ALTER TABLE turns_v1 RENAME TO turns")
    c.execute("UPDATE turns SET legal = NULL WHERE action = 'unchecked'")


def _hand_record(c: sqlite3.Connection) -> None:
    """Version 2: a turn keeps the tile it ended with and whether a Rummikub! was taken back; a hand how it
    was won.  Older rows have none of it (NULL, not taken back)."""
    for table, column, kind in (("turns", "discard", "TEXT"), ("turns", "taken_back", "INTEGER NOT NULL DEFAULT 0"),
                                ("hands", "details", "TEXT")):
        if column not in {r["name"] for r in c.execute(f"PRAGMA table_info({table})")}:
            c.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _turn_draw(c: sqlite3.Connection) -> None:
    """Version 3: a turn keeps where its draw came from (the pool, the previous discard, the trump), so
    who took a discard or the trump can be looked up after the hand.  Older rows: NULL."""
    if "drew" not in {r["name"] for r in c.execute("PRAGMA table_info(turns)")}:
        c.execute("ALTER TABLE turns ADD COLUMN drew TEXT")


# (version, step): each step brings a file of the version before it up to that version, keeping its rows
MIGRATIONS = ((1, _turns_legal_nullable), (2, _hand_record), (3, _turn_draw))
SCHEMA_VERSION = MIGRATIONS[-1][0]

KEEP = object()  # save(..., snapshot=KEEP): leave the stored picture as it is
CALL_TAKEN_BACK, TURN_UNDONE = 1, 2  # turns.taken_back: how a logged turn was taken back


class StoreError(RuntimeError):
    """A write that SQLite refused (disk full, read-only file ...): nothing of it was stored."""


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
            self._migrate()

    def _migrate(self) -> None:
        """Bring a file made by an older version up to :data:`SCHEMA_VERSION`, one transaction per step."""
        for version, step in MIGRATIONS:
            if self._conn.execute("PRAGMA user_version").fetchone()[0] >= version:
                continue
            with self.transaction() as c:
                if c.execute("PRAGMA user_version").fetchone()[0] < version:  # another process got there first
                    step(c)
                    c.execute(f"PRAGMA user_version = {int(version)}")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _write(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        with self._lock:
            try:
                return self._conn.execute(sql, params)
            except sqlite3.Error as exc:
                raise StoreError(f"could not save to {self.path}: {exc}") from exc

    @contextlib.contextmanager
    def transaction(self):
        """All or nothing: any error rolls back and comes out as a StoreError."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"could not save to {self.path}: {exc}") from exc

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

    def create_game(self, players: list[str], options: dict, state: dict, snapshot: bytes | None = None) -> int:
        now = time.time()
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO games (started_at, updated_at, options, status, state) VALUES (?, ?, ?, ?, ?)",
                (now, now, json.dumps(options), state.get("status", "playing"), json.dumps(state)),
            )
            game_id = cur.lastrowid
            for seat, name in enumerate(players):
                c.execute("INSERT OR IGNORE INTO players (name) VALUES (?)", (name,))
                pid = c.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()[0]
                c.execute("INSERT INTO game_players (game_id, seat, player_id) VALUES (?, ?, ?)", (game_id, seat, pid))
            self._put_snapshot(c, game_id, snapshot)
        return game_id

    def save(self, game_id: int, state: dict, *, hands: list[dict] | None = None, turn: dict | None = None,
             snapshot=KEEP, taken_back: tuple[int, int] | None = None, undone: bool = False) -> None:
        """The game's new state, with the turn it finished, its scored hands and the new turn's picture;
        ``taken_back`` (hand, turn): that turn's Rummikub! was taken back, its row is marked so (``undone``:
        the turn itself was taken back with Undo last turn)."""
        now = time.time()
        with self.transaction() as c:
            c.execute("UPDATE games SET state = ?, status = ?, options = ?, updated_at = ? WHERE id = ?",
                      (json.dumps(state), state.get("status", "playing"), json.dumps(state.get("options", {})),
                       now, game_id))
            if turn is not None:
                c.execute(
                    "INSERT INTO turns (game_id, hand, number, player, started_at, ended_at, action, legal, "
                    "problems, placed, penalty, table_before, table_after, discard, drew) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, turn["hand"], turn["number"], turn["player"], turn["started_at"], turn["ended_at"],
                     turn["action"], None if turn["legal"] is None else int(turn["legal"]),
                     json.dumps(turn["problems"]), turn["placed"],
                     turn["penalty"], turn["table_before"], turn["table_after"], turn.get("discard"),
                     turn.get("drew")),
                )
            if taken_back is not None:
                self._take_back(c, game_id, *taken_back, TURN_UNDONE if undone else CALL_TAKEN_BACK)
            if hands is not None:
                self._sync_hands(c, game_id, hands, now)
            if snapshot is not KEEP:
                self._put_snapshot(c, game_id, snapshot)

    @staticmethod
    def _take_back(c: sqlite3.Connection, game_id: int, hand: int, number: int, how: int) -> None:
        """Mark the row logged for turn ``number`` of ``hand`` (the latest of that turn that is a turn, not
        the table the camera found) taken back (``how``): the turn goes on, or is played again, and will be
        logged again.  The row stays: the log keeps what was said, and that it was taken back."""
        c.execute("UPDATE turns SET taken_back = ? WHERE id = (SELECT id FROM turns WHERE game_id = ? AND hand = ? "
                  "AND number = ? AND action != 'table_found' AND taken_back = 0 ORDER BY id DESC LIMIT 1)",
                  (how, game_id, hand, number))

    @staticmethod
    def _put_snapshot(c: sqlite3.Connection, game_id: int, jpeg: bytes | None) -> None:
        c.execute("DELETE FROM snapshots")  # one picture: the current turn's
        if jpeg:
            c.execute("INSERT INTO snapshots (game_id, jpeg) VALUES (?, ?)", (game_id, sqlite3.Binary(jpeg)))

    @staticmethod
    def _sync_hands(c: sqlite3.Connection, game_id: int, hands: list[dict], now: float) -> None:
        """Rows for exactly the hands given (a hand taken back is deleted)."""
        c.execute("DELETE FROM scores WHERE hand_id IN (SELECT id FROM hands WHERE game_id = ? AND number > ?)",
                  (game_id, len(hands)))
        c.execute("DELETE FROM hands WHERE game_id = ? AND number > ?", (game_id, len(hands)))
        have = {r[0] for r in c.execute("SELECT number FROM hands WHERE game_id = ?", (game_id,))}
        for h in hands:
            if h["number"] in have:
                continue
            cur = c.execute(
                "INSERT INTO hands (game_id, number, ended_at, winner, pool_empty, racks, details) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, h["number"], now, h["winner"], int(h["pool_empty"]), json.dumps(h["racks"]),
                 json.dumps(h.get("details") or {})),
            )
            c.executemany("INSERT INTO scores (hand_id, player, score) VALUES (?, ?, ?)",
                          [(cur.lastrowid, p, int(v)) for p, v in h["scores"].items()])

    def delete_game(self, game_id: int) -> None:
        """Remove a game and everything kept of it (the recorded demo replaces its own game each pass)."""
        with self.transaction() as c:
            c.execute("DELETE FROM scores WHERE hand_id IN (SELECT id FROM hands WHERE game_id = ?)", (game_id,))
            for table in ("hands", "turns", "game_players", "snapshots", "games"):
                c.execute(f"DELETE FROM {table} WHERE {'id' if table == 'games' else 'game_id'} = ?", (game_id,))

    def snapshot(self, game_id: int) -> bytes | None:
        rows = self._read("SELECT jpeg FROM snapshots WHERE game_id = ?", (game_id,))
        return bytes(rows[0]["jpeg"]) if rows else None

    def load_game(self, game_id: int) -> dict | None:
        rows = self._read("SELECT state FROM games WHERE id = ?", (game_id,))
        return json.loads(rows[0]["state"]) if rows else None

    def started_at(self, game_id: int) -> float | None:
        """When a game was started (``time.time()``), None for no such game."""
        rows = self._read("SELECT started_at FROM games WHERE id = ?", (game_id,))
        return rows[0]["started_at"] if rows else None

    def latest_game_id(self) -> int | None:
        rows = self._read("SELECT id FROM games ORDER BY updated_at DESC, id DESC LIMIT 1")
        return rows[0]["id"] if rows else None

    def games(self, limit: int = 50) -> list[dict]:
        """Recent games, newest first: when, who, status, hands scored."""
        rows = self._read(
            "SELECT g.id, g.started_at, g.updated_at, g.status, json_extract(g.options, '$.game') AS game, "
            "json_extract(g.options, '$.scoring') AS scoring, "
            "(SELECT COUNT(*) FROM hands h WHERE h.game_id = g.id) AS hands "
            "FROM games g ORDER BY g.updated_at DESC, g.id DESC LIMIT ?", (int(limit),))
        return [dict(r, players=self.game_players(r["id"])) for r in rows]

    def game_players(self, game_id: int) -> list[str]:
        rows = self._read(
            "SELECT p.name FROM game_players g JOIN players p ON p.id = g.player_id "
            "WHERE g.game_id = ? ORDER BY g.seat",
            (game_id,),
        )
        return [r["name"] for r in rows]

    # hands, scores, turns ------------------------------------------------------
    def hands(self, game_id: int) -> list[dict]:
        rows = self._read(
            "SELECT id, number, winner, pool_empty, racks, details FROM hands WHERE game_id = ? ORDER BY number",
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
                "details": json.loads(r["details"]) if r["details"] else {},  # stored before hands kept it: none
            })
        return out

    def _last_logged(self, game_id: int, hand: int, number: int):
        """The log's latest row for turn ``number`` of hand ``hand`` (None: no such turn)."""
        rows = self._read("SELECT player, taken_back FROM turns WHERE game_id = ? AND hand = ? AND number = ? "
                          "ORDER BY id DESC LIMIT 1", (game_id, hand, number))
        return rows[0] if rows else None

    def turn_player(self, game_id: int, hand: int, number: int) -> str | None:
        """Who played turn ``number`` of hand ``hand`` (None when the log has no such turn)."""
        row = self._last_logged(game_id, hand, number)
        return row["player"] if row else None

    def turn_undone(self, game_id: int, hand: int, number: int) -> bool:
        """Was turn ``number`` of hand ``hand`` last logged as taken back by Undo last turn (taken_back 2)?"""
        row = self._last_logged(game_id, hand, number)
        return row is not None and row["taken_back"] == TURN_UNDONE

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
            d["legal"] = None if d["legal"] is None else bool(d["legal"])  # None: not judged
            d["undone"] = d["taken_back"] == TURN_UNDONE  # taken back with Undo last turn
            d["taken_back"] = bool(d["taken_back"])
            d["problems"] = json.loads(d["problems"])
            d.pop("game_id", None)
            out.append(d)
        return out
