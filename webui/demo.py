"""The recorded demo game plays itself until a person takes over.

With the shipped recording as the source, nobody at the table presses the
buttons, so :class:`DemoDriver` presses them for the recorded players at the
frames the recording's script names: it starts a game with them, ends their
turns, lets the clock run out, calls "Rummikub!", reads the loser's rack and
confirms the tally, through the same :class:`webui.session.GameSession`
actions the page's buttons use.  Each pass of the looping video is a new
game; the previous pass's game is deleted, so the database keeps one.  The
first request a person sends that changes anything (``take_over``) stops it
for good: from then on the people own the game.  It drives only while the
game on the table is its own, or there is none: a server started again with
a person's game on the table leaves it there, and the demo does not play.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.game_state import GameError, Table, table_of
from rules.options import RuleOptions, find_variant
from rules.tiles import format_tiles, parse_table
from webui.session import GameSession

log = logging.getLogger(__name__)

ACTIONS = ("start", "end_turn", "time_out", "restored", "rummikub", "read_rack", "confirm")
DEMO_GAME = "demo_game"  # setting: the id of the game the demo started (it is the demo's to replace)
GRACE_SECONDS = 2.0  # how long past its frame an action waits for the camera to see the recorded table


def _table_key(table: Table) -> list[str]:
    return sorted(format_tiles(s) for s in table)


@dataclass(frozen=True)
class DemoEvent:
    """One press in the recording: after which frame, which action, the table then, the expected result."""

    after_frame: int
    action: str
    table: Table
    expect: Any = None
    player: str | None = None


@dataclass(frozen=True)
class DemoScript:
    """``recorded_game.json``: the video's pace and length, who plays by which rules, and the presses."""

    fps: float
    frames: int
    players: tuple[str, ...]
    rules: RuleOptions
    events: tuple[DemoEvent, ...]

    @classmethod
    def load(cls, path: Path) -> "DemoScript":
        """Read a script; anything malformed is a ValueError naming the file and what is wrong."""
        try:
            doc = json.loads(Path(path).read_text())
            rules = find_variant(doc["rules"])
            if doc.get("turn_time_limit") is not None:
                rules = rules.replace(turn_time_limit=int(doc["turn_time_limit"]))
            events = tuple(
                DemoEvent(after_frame=int(e["after_frame"]), action=e["action"], table=table_of(parse_table(e["table"])),
                          expect=e.get("expect"), player=e.get("player"))
                for e in doc["events"]
            )
            script = cls(fps=float(doc["fps"]), frames=int(doc["frames"]), players=tuple(doc["players"]),
                         rules=rules, events=events)
        except (OSError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"recorded game script {path}: {exc}") from exc
        unknown = [e.action for e in events if e.action not in ACTIONS]
        if unknown or not events or events[0].action != "start":
            raise ValueError(f"recorded game script {path}: must start with 'start' and use only {ACTIONS}")
        if any(e.action == "read_rack" and e.player not in script.players for e in events):
            raise ValueError(f"recorded game script {path}: a read_rack event must name one of the players")
        if any(e.after_frame >= script.frames for e in events) or script.fps <= 0:
            raise ValueError(f"recorded game script {path}: an event lies beyond the video's {script.frames} frames")
        return script


class DemoDriver:
    """Presses the recorded players' buttons in step with the video, until a person takes over.

    ``step(frame, table, picture)`` is called often (the turn clock's ticker)
    with the running number of the video frame the table state comes from
    (0 = the first frame of the first pass).  An action is done once that
    frame is reached and the camera sees the recorded table, or
    ``GRACE_SECONDS`` later whatever it sees (a player would not wait longer).
    """

    def __init__(self, script: DemoScript, session: GameSession) -> None:
        self.script = script
        self.session = session
        self.last: dict | None = None  # the latest press, in words for the page
        self._pass = -1
        self._next = 0
        self._lock = threading.Lock()
        self._grace = round(GRACE_SECONDS * script.fps)
        self._game_id = session.store.get_setting(DEMO_GAME)  # the game the demo started, if any
        self.driving = self.owns_table()  # a person's game left on the table is never replaced

    def owns_table(self) -> bool:
        """No game is on the table, or the demo's own: the recording may be judged as that game's table."""
        return self.session.game is None or self.session.game_id == self._game_id

    @property
    def adopted(self) -> int | None:
        """The demo's game a person took over, while it is on the table (None: none): it plays on by the
        demo's rules (its quick clock), which a new game does not take as the table's own
        (webui.shown_rules.new_game_rules)."""
        if self.driving or self._game_id is None or self.session.game_id != self._game_id:
            return None
        return self._game_id

    @property
    def done(self) -> int:
        """How many of this pass's presses are done (tests watch it)."""
        return self._next

    def take_over(self) -> None:
        """A person acted: the demo stops driving and its game becomes theirs (never deleted)."""
        with self._lock:
            if not self.driving:
                return
            self.driving = False
            self.last = None
            if self.session.store.get_setting(DEMO_GAME) is not None:
                try:
                    self.session.store.set_setting(DEMO_GAME, None)
                except Exception:  # the write is retried by nothing: at worst the demo replaces it next run
                    log.exception("could not hand the demo game over")

    def view(self) -> dict | None:
        """What the page says while the demo drives (None once the people own the game)."""
        if not self.driving:
            return None
        return {"players": list(self.script.players), "last": self.last}

    def step(self, frame: int, table: Table, picture: bytes | None = None) -> None:
        with self._lock:
            if not self.driving or frame < 0:
                return
            events = self.script.events
            number, at = divmod(frame, self.script.frames)
            if number != self._pass:
                self._pass = number
                # joined too late to start this pass's game: wait for the next pass
                self._next = 0 if at <= events[0].after_frame + self._grace else len(events)
            while self._next < len(events):
                event = events[self._next]
                if at < event.after_frame or not self._ready(event, at, table):
                    return
                self._next += 1
                try:
                    self._press(event, table, picture)
                except GameError as exc:  # the game did not allow it (a misread table): the next press goes on
                    log.warning("recorded %s not played: %s", event.action, exc)
                    self.last = {"player": None, "action": event.action, "result": f"not played: {exc}"}

    def _ready(self, event: DemoEvent, at: int, table: Table) -> bool:
        if at >= event.after_frame + self._grace:
            return True
        if event.action == "time_out":  # the clock does it: wait for it
            game = self.session.game
            return game is not None and game.restore is not None
        return _table_key(table) == _table_key(event.table)

    def _press(self, event: DemoEvent, table: Table, picture: bytes | None) -> None:
        s = self.session
        action = event.action
        if action == "start":
            self._start(table, picture)
            return
        game = s.game
        if game is None or s.game_id != s.store.get_setting(DEMO_GAME):
            raise GameError("the demo's game is not on the table")
        player = game.current.name
        if action == "end_turn":
            verdict = s.end_turn(table, picture)
            self._said(player, "ended the turn", "LEGAL" if verdict.legal else "NOT LEGAL")
        elif action == "time_out":
            if game.restore is not None:
                self._said(game.restore.player, "ran out of time", "put the table back")
        elif action == "restored":
            if game.restore is not None:  # the camera did not see it back in time: the players say so
                s.dismiss_restore()
            self._said(None, "the table is back", None)
        elif action == "rummikub":
            s.call_rummikub(table, count_checked=True)  # the recording shows who went out; trust it
            self._said(player, "called Rummikub!", None)
        elif action == "read_rack":
            rack = s.read_rack(event.player, table)
            self._said(event.player, "showed the rack", rack)
        elif action == "confirm":
            result = s.confirm_tally({}, count_checked=True)  # the racks are the recording's: trust them too
            scores = ", ".join(f"{n} {v:+d}" for n, v in result["scores"].items())
            self._said(None, f"hand {result['hand']} scored", scores)

    def _start(self, table: Table, picture: bytes | None) -> None:
        """A new game of the recorded players by the recording's rules; the previous pass's game goes."""
        s = self.session
        old = s.store.get_setting(DEMO_GAME)
        s.start_game(list(self.script.players), table=table, picture=picture, options=self.script.rules,
                     remember=False)
        s.store.set_setting(DEMO_GAME, s.game_id)
        self._game_id = s.game_id
        if old is not None and old != s.game_id:
            s.store.delete_game(int(old))
        self._said(None, "a new game of " + " and ".join(self.script.players), None)

    def _said(self, player: str | None, what: str, result: str | None) -> None:
        self.last = {"player": player, "action": what, "result": result}
