"""Glue between the live table (camera -> vision) and the game session.

The :class:`Companion` is the one object the blueprints talk to: it reads the
newest stable table from the live pipeline (a typed
:class:`vision.live.TableState`), hands it to the session's actions, keeps
the camera's reader on the game's rules, runs the turn clock's ticker and
builds the JSON the page and ``GET /api/state`` show.
"""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

from rules.game_codec import from_dict
from rules.game_state import Game, Status, Table
from rules.game_tally import score_sheet
from rules.tiles import format_table
from vision.capture import sample_images_dir
from vision.live import LiveTable, TableState
from webui.demo import DemoDriver, DemoScript
from webui.session import GameSession, SessionError
from webui.table_found import FoundTable
from webui.views import Hints, camera_notice, csv_rows, game_json, preview_json, sets_json, sheet_view


# how long a press that judges the table waits for the camera's first steady reading after a start
READ_WAIT_S = 3.0
NOT_READ = ("the camera has not read the table yet (it has only just started): nothing can be judged "
            "against a table nobody has looked at. Press again in a moment")


class NotRead(SessionError):
    """A press that judges the table, made before the camera's first steady reading since the start:
    the table is not known yet (an empty table would be judged as tiles taken back, or nothing placed)."""


class UnavailableLive:
    """Stands in for the live table when the camera pipeline cannot start (reported on the page)."""

    def __init__(self, error: str) -> None:
        self.error = error
        self._state = TableState.empty(camera_error=error)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def follow_rules(self, rules) -> None:
        pass

    def follow_count(self, final) -> None:
        pass

    def state(self) -> TableState:
        return self._state

    def wait_for_change(self, version: int, timeout: float) -> TableState:
        if version == self._state.version:
            time.sleep(min(timeout, 1.0))
        return self._state


NO_CAMERA = ("none. The recorded demo game stopped when you took over: this server has no camera "
             "(it was started without --source), so it cannot see your table. It keeps the turns, the clock "
             "and the scores, seeing no tile placed (End turn asks what each turn did); racks are typed in at "
             "the end of a hand. "
             "To watch a table, start it with --source 0 (a webcam).")


class NoCamera:
    """The live table once a person has taken over the recorded demo: no camera, and the table is taken
    to be the game's own (as the turn found it), so nothing of the recording is ever judged."""

    def __init__(self, session: GameSession, version: int, error: str = NO_CAMERA) -> None:
        self.session = session
        self.version = version  # never below the recording's, so a page drops no state as old
        self.error = error
        self._wake = threading.Event()

    def start(self) -> None:
        pass

    def stop(self) -> None:
        self._wake.set()

    def follow_rules(self, rules) -> None:
        pass

    def follow_count(self, final) -> None:
        pass

    def state(self) -> TableState:
        g = self.session.game
        table: Table = ()
        if g is not None:
            table = g.tally.table if g.status is Status.TALLY and g.tally is not None else g.turn.table_before
        return TableState.from_sets(table, version=self.version, stable=True, camera_ok=False,
                                    camera_error=self.error)

    def wait_for_change(self, version: int, timeout: float) -> TableState:
        if version == self.version:
            self._wake.wait(min(timeout, 1.0))
        return self.state()


def recorded_game() -> Path:
    """The demo game shipped in sample_images/ (``python -m models.render.game`` makes it), and its script."""
    return sample_images_dir() / "recorded_game.mp4"


def make_live(source: str | None, rules):
    """The real live table on ``source`` (None: the recorded game) read under ``rules``, or an UnavailableLive saying why not."""
    if source is None and recorded_game().is_file():
        source = str(recorded_game())  # a video: played at its own pace, looping
    try:
        # the tile model loads in the live table's own thread; a failure shows as camera_error
        return LiveTable(source, rules=rules)
    except Exception as exc:  # a camera or folder that cannot be opened is shown on the page
        return UnavailableLive(f"cannot open source {source!r}: {exc}")


class Companion:
    """The live table and the game session, as the web app uses them."""

    def __init__(self, live, session: GameSession) -> None:
        self.live = live
        self.session = session
        self.hints = Hints()
        # versions count from zero again after a restart: the page compares them only within one server run
        self.server_id = uuid.uuid4().hex[:12]
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
        self._switch = threading.Lock()
        self._rules = None
        self._final = None  # the final table the live picture was told of, while racks are counted
        self.demo_players: list[str] = []  # the recorded game's players, when it is the source
        self.demo: DemoDriver | None = None  # plays the recorded players' presses until a person acts
        self.found = FoundTable(session)  # the camera's return after turns it did not see
        # the camera's state as last shown (works, has read the table, what is wrong) and how often it changed
        self._camera: tuple | None = None
        self._camera_changes = 0
        self._camera_lock = threading.Lock()
        self.follow_rules()

    def follow_rules(self) -> None:
        """The camera's reader judges and infers by the rules the game plays, and while the racks are
        counted its picture draws the racks laid out as racks (checked on every tick)."""
        rules = self.session.rules
        if rules != self._rules:
            self.live.follow_rules(rules)
            self._rules = rules
        final = self._counted_table()
        if final != self._final:  # the picture draws racks laid out for the count as racks
            self.live.follow_count(final)
            self._final = final

    def _counted_table(self):
        """The final table while the racks are counted (None in play): other groups are racks laid out."""
        g = self.session.game
        return g.tally.table if g is not None and g.status is Status.TALLY else None

    def play_recorded_game(self) -> None:
        """The source is the shipped recording: follow it by itself, pressing its players' buttons, unless
        a person's game was left on the table (a restart after they took over): it stays theirs."""
        script = recorded_game().with_suffix(".json")
        if script.is_file():
            self.demo = DemoDriver(DemoScript.load(script), self.session)
            self.demo_players = list(self.demo.script.players)
            if not self.demo.driving:
                self._drop_recording()

    def take_over(self) -> None:
        """A person acts on the page: the recorded demo stops pressing buttons for good, and the
        recording stops (:meth:`_drop_recording`)."""
        if self.demo is None:
            return
        with self._switch:
            if not self.demo.driving:
                return
            self.demo.take_over()
            self._drop_recording()

    def _drop_recording(self) -> None:
        """From now on this server has no camera (:class:`NoCamera`), so nothing the recording shows is
        judged as the people's table."""
        recording = self.live
        self.live = NoCamera(self.session, self.table_state().version + 1)
        self._rules = self._final = None
        # stopping the video's thread takes a moment: not on the request's time
        threading.Thread(target=recording.stop, name="recording stops", daemon=True).start()

    # the table now ------------------------------------------------------------
    def table_state(self) -> TableState:
        return self.live.state()

    def table_now(self, ts: TableState | None = None) -> Table:
        """The latest stable table (the live pipeline never reports a half-moved one); none while the
        camera has not read the table, or shows only its last reading (it is out)."""
        ts = ts if ts is not None else self.table_state()
        return ts.tables if ts.read else ()

    @staticmethod
    def reading(ts: TableState) -> bool:
        """The camera works but has not given its first steady reading since the start: the table is
        unknown, not empty, so nothing is judged against it and no time-out falls until it is read."""
        return ts.camera_ok and not ts.read

    def read_state(self, timeout: float | None = None) -> TableState:
        """The table state for a press that judges the table: waits up to ``timeout`` s (READ_WAIT_S)
        for the camera's first steady reading, then refuses the press (:class:`NotRead`)."""
        deadline = time.monotonic() + (READ_WAIT_S if timeout is None else timeout)
        ts = self.table_state()
        while self.reading(ts) and time.monotonic() < deadline:
            ts = self.live.wait_for_change(ts.version, min(0.1, max(0.0, deadline - time.monotonic())))
        if self.reading(ts):
            raise NotRead(NOT_READ)
        return ts

    def sees_table(self, ts: TableState | None = None) -> bool:
        """Whether what the camera sees is judged: it works and has read the table, and the game knows
        the table the turn started from (after turns no camera saw, not until the camera has found the
        table)."""
        ts = ts if ts is not None else self.table_state()
        return ts.camera_ok and ts.read and not self.found.waiting()

    def turn_table(self, ts: TableState | None = None, *, settle: bool = False) -> Table:
        """The table a turn action judges: the camera's (``settle``: once hands are off it), but the game's
        own while no camera sees it (a camera out shows no tile, or its last picture: judged, that would
        take every tile down) and while the turn waits for the camera to find the table (turns no camera
        saw before it): tiles placed unseen must not count as this turn's (:meth:`sees_table`)."""
        ts = ts if ts is not None else self.table_state()
        g = self.session.game
        if g is not None and not self.sees_table(ts):
            return g.turn.table_before
        return self.settled_table() if settle else self.table_now(ts)

    def settled(self, timeout: float = 1.5) -> TableState:
        """The table state once hands are off it: waits up to ``timeout`` s while the camera sees movement."""
        deadline = time.monotonic() + timeout
        ts = self.table_state()
        while not ts.stable and time.monotonic() < deadline:
            time.sleep(0.1)  # "stable" flips without a version bump, so look again shortly
            ts = self.table_state()
        return ts

    def settled_table(self, timeout: float = 1.5) -> Table:
        """The table once hands are off it (:meth:`settled`)."""
        return self.table_now(self.settled(timeout))

    @staticmethod
    def racks_now(ts: TableState) -> Table:
        """The rows of tiles the camera sees standing on racks (none while the table is not read)."""
        return ts.racks if ts.read else ()

    def picture(self, ts: TableState | None = None) -> bytes | None:
        """The camera's picture with the sets it read drawn on it; the plain frame while the table is not
        read (the sets drawn would be those of a reading that is not the table now)."""
        ts = ts if ts is not None else self.table_state()
        return (ts.annotated_jpeg if ts.read else None) or ts.frame_jpeg

    # ticker -------------------------------------------------------------------
    def tick(self) -> None:
        """One step of the background clock: time-outs, the restore banner, the reader's rules.  Until the
        camera has read the table after a start, a time-out that falls due waits: judged against a table
        nobody has looked at, Ann's meld would be "nothing placed" and a legal table "tiles taken back"."""
        self.follow_rules()
        ts = self.table_state()
        demo = self.demo
        # the recording is judged only as the demo's own game's table (the demo drives only while that
        # game, or none, is on the table: a person's game left there keeps the server without a camera)
        if (demo is None or not demo.driving or demo.owns_table()) and not self.reading(ts):
            if ts.stable and ts.read:
                self.session.check_restored(ts.tables)
            self.found.watch(ts, self.picture(ts))
            self.session.tick(self.turn_table(ts), self.picture(ts), seen=self.sees_table(ts))
        if demo is not None and ts.frame > 0:
            demo.step(ts.frame - 1, ts.tables, self.picture(ts))

    def take_found(self, *, turn: str | None = None, camera: int | None = None) -> None:
        """``POST /api/turn/found``: the players take the table the camera sees (webui.table_found)."""
        ts = self.table_state()
        self.found.take(ts, self.picture(ts), turn=turn, camera=camera)

    def start(self, interval: float = 0.25) -> None:
        self.live.start()
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._run_ticker, args=(interval,),
                                            name="turn-clock", daemon=True)
            self._ticker.start()

    def stop(self) -> None:
        self._stop.set()
        self.live.stop()

    def _run_ticker(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.tick()
            except Exception:  # a bad frame or a failed write must not stop the clock; the next tick retries
                pass

    # output -------------------------------------------------------------------
    def _preview(self, table: Table, sets: list[dict]) -> dict | None:
        """The verdict the turn would get now, so a player fixing an illegal table sees their progress
        (UNSURE where it rests only on sets whose verdict hangs on a doubtful tile)."""
        g = self.session.game
        if g is None or g.status is not Status.PLAYING:
            return None
        try:
            return preview_json(self.session.judge(table), g.current.name, sets)
        except ValueError as exc:  # e.g. more copies of a tile than the box holds: say so
            return {"legal": False, "changed": True, "placed": [], "problems": [str(exc)],
                    "groups": [{"kind": str(exc), "items": []}], "word": "NOT LEGAL", "player": g.current.name}

    def version(self, ts: TableState | None = None) -> str:
        """``TABLE.GAME.CAMERA``: the counts of the stable table's changes, the game's and the camera's
        state's (out, back, its first reading, what is wrong, a question about the table it found), so
        that the event stream pushes each at once: a camera gone out bumps neither of the others, and an
        idle page kept saying "steady"."""
        ts = ts if ts is not None else self.table_state()
        return f"{ts.version}.{self.session.version}.{self._camera_count(ts)}"

    def _camera_count(self, ts: TableState) -> int:
        asked = self.found.question(ts)
        key = (ts.camera_ok, ts.read, ts.camera_error, asked and asked["question"])
        with self._camera_lock:
            if key != self._camera:
                self._camera = key
                self._camera_changes += 1
            return self._camera_changes

    def game_of(self, game_id: int | None = None) -> tuple[int | None, Game | None]:
        """The game on the table (``game_id`` None or its id), or an earlier one from the database;
        (game_id, None) when there is no such game."""
        s = self.session
        if game_id is None or game_id == s.game_id:
            return s.game_id, s.game
        doc = s.store.load_game(game_id)
        return game_id, (from_dict(doc) if doc is not None else None)

    def sheet_json(self, game_id: int | None = None) -> dict | None:
        """The score sheet of the game on the table, or of game ``game_id``; None when there is none."""
        game_id, game = self.game_of(game_id)
        if game is None:
            return None
        return sheet_view(score_sheet(game), self.session.store.hands(game_id), game.status is Status.FINISHED)

    def csv_rows(self, game_id: int | None = None) -> list[list] | None:
        """The score sheet of that game as CSV rows (views.csv_rows); None when there is no such game."""
        game_id, game = self.game_of(game_id)
        if game is None:
            return None
        return csv_rows(score_sheet(game), game.status is Status.FINISHED, self.session.store.hands(game_id))

    def state_json(self) -> dict:
        self.follow_rules()
        ts = self.table_state()
        s = self.session
        g = s.game
        options = s.rules
        table = self.table_now(ts)
        # a table not read yet, or the last reading of a camera gone out, is no table now: no set is shown
        sets = sets_json(ts, options, g.turn.table_before if g and g.status is Status.PLAYING else None,
                         self._counted_table()) if ts.read else []
        return {
            "version": self.version(ts),
            "server": self.server_id,
            "camera": {
                "ok": ts.camera_ok, "error": ts.camera_error, "stable": ts.stable, "fps": round(ts.fps, 1),
                "version": ts.version, "changed_at": ts.changed_at, "has_picture": self.picture(ts) is not None,
                "notice": camera_notice(ts.camera_ok, ts.camera_error, isinstance(self.live, NoCamera)),
                "read": ts.read, "picture_at": ts.picture_at or None,
            },
            "table": format_table(table),
            "sets": sets,
            "all_valid": all(x["valid"] for x in sets if x["group"] == "table"),
            "warnings": list(ts.warnings) if ts.read else [],
            "game": game_json(g, s.game_id, hint=s.hint_enabled, clock=s.clock(), storage_error=s.storage_error,
                              snapshot=s.snapshot_jpeg is not None, typing=s.typing_now()),
            "clock": s.clock(),
            "scores": self.sheet_json(),
            "options": options.to_dict(),
            # no verdict while the table is not read: it would judge an empty table
            "preview": None if self.reading(ts) else self._preview(self.turn_table(ts), sets),
            "demo": self.demo.view() if self.demo is not None else None,
            # the camera is back, but its table disagrees with the game's record: asked, not taken
            "found_check": self.found.question(ts),
            # the hint names the current player's tiles: every phone learns only whether a phone holds its key
            "hint": Hints.shared(g, g is not None and s.hint_keys.held(g.current.name)) if s.hint_enabled else None,
            "suggestion": self.hints.suggestion(g, table) if s.hint_enabled else None,
        }

    def hint_for(self, player: str) -> dict:
        """The hint for ``player``'s typed rack, for the phone holding its key (``GET /api/hint``): on the
        table now during that player's turn, else none (``turn`` false: another player's turn, or none)."""
        g = self.session.game
        turn = g is not None and g.status is Status.PLAYING and g.current.name == player
        return {"player": player, "turn": turn, "hint": self.hints.hint(g, self.table_now()) if turn else None}
