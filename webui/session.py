"""The game the page shows: a :class:`rules.game_state.Game` kept in step with SQLite.

Every action runs a pure transition of :mod:`rules.game_turns` or
:mod:`rules.game_tally`, saves the new state in one transaction and only then
makes it the state shown.  A write that fails (disk full, read-only file)
leaves the game as it was and is reported (``storage_error``), so the page is
never ahead of the database.  No game rule lives here.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Callable

from rules.game_codec import from_dict, options_back, to_dict
from rules.game_deal import set_trump, start_hand
from rules.game_state import (
    NOT_JUDGED, Action, DrawSource, Game, GameError, ScoredHand, Status, Table, TurnRecord, table_of,
)
from rules.game_tally import (
    call_rummikub, cancel_tally, confirm_tally, finish_game, read_rack, score_sheet, set_tally_melded, set_tally_rack,
    undo_last_hand,
)
from rules.game_win import WIN_DETAILS, set_tally_win
from rules.game_turns import (
    change_rules, check_rack, draw, end_turn, end_turn_unseen, judge, same_scoring, set_rack, start_game,
    table_restored, time_out, undo_draw,
)
from rules.game_found import FoundCheck, FoundDoubt, table_found
from rules.game_undo import undo_turn
from rules.international import hand_type as closed_type
from rules.options import RuleOptions, find_variant, variant_name
from rules.scoring import ScoreSheet
from rules.tiles import Tile, format_table, format_tiles, parse_tiles, tile_count
from webui.db import KEEP, Store, StoreError
from webui.hint_keys import HintKeys
from webui.rack_typing import RackTyping, TypingMarks
from webui.views import result_words

SessionError = GameError  # a move that makes no sense now: a 400 with the reason

SAME_START_S = 3.0  # a second identical "Start the game" this soon after the first is a double press
# a turn press this soon (``now`` seconds) after a press ended the turn before is taken for a late press
# meant for that turn (a second phone, a second tap): refused (409) until then, a press after it counts
PRESS_GUARD_S = 1.5
END_PRESS = "end {}'s turn"  # what pressing again does, for the refusal of PRESS_GUARD_S
RUMMIKUB_PRESS = "call Rummikub! (or Pool empty) for {}"
DRAW_PRESS = "draw for {}"
NEW_GAMES_ONLY = "for new games only"  # set_options: the game on the table keeps its scoring method
FINISHED = "the game is finished: start a new one"  # as rules.game_turns.require says it


class Conflict(SessionError):
    """A press for something already done (a turn that has ended, a game just started): a 409."""


class TakenBack(Conflict):
    """A press for the turn after one that Undo last turn took back: that turn is no longer on."""


class StorageError(RuntimeError):
    """The database refused the write: the game stays as it was before the action."""


def turn_row(record: TurnRecord, *, seen: bool = True, discard: Tile | None = None) -> dict:
    """The turn log's row; a turn no camera saw (action ``unchecked``) whose tiles were not named
    says how many were placed ("3 tiles").  ``legal`` is None where no rule judged the table (a turn
    no camera saw, the table found on the camera's return, and any turn ended while no camera saw the
    table: ``seen`` False, its table was the game's own): neither legal nor illegal.  ``discard``: the
    tile the turn ended with, where the record does not name it."""
    v = record.verdict
    n = record.unchecked
    placed = format_tiles(v.placed) or (tile_count(n) if n else "")
    discard = record.discard or discard
    return {
        "hand": record.hand, "number": record.number, "player": record.player,
        "started_at": record.started_at, "ended_at": record.ended_at, "action": record.action.value,
        "legal": None if record.action in NOT_JUDGED or not seen else v.legal,
        "problems": [p.message for p in v.problems],
        "placed": placed, "penalty": record.penalty,
        "table_before": format_table(record.table_before), "table_after": format_table(record.table_after),
        "discard": discard.code if discard else None,
        # "pool", or the source and the tile: "discard K13", "trump R7"
        "drew": None if record.drew is None else " ".join(
            [record.drew.source.value] + ([record.drew.tile.code] if record.drew.tile else [])),
    }


def hand_rows(game: Game) -> list[dict]:
    return [{"number": h.number, "winner": h.winner, "pool_empty": h.pool_empty,
             "racks": {n: format_tiles(r) for n, r in zip(game.names, h.racks)},
             "scores": dict(zip(game.names, h.scores)), "details": hand_details(h)} for h in game.hands]


def hand_details(h: ScoredHand) -> dict:
    """How a scored hand was won, for its row in the database and the sheet (empty in Sabra)."""
    out: dict = {}
    if h.discard is not None:
        out["discard"] = h.discard.code
    if h.win is not None:
        out.update(win=h.win, joker_discard=h.joker_discard)
    if h.closed_type is not None:
        kind = closed_type(h.closed_type)
        out["closed_hand"] = {"type": kind.number, "name": kind.name, "jokers": h.closed_jokers,
                              "points": kind.points[h.closed_jokers]}
        if h.hand:
            out["hand"] = format_tiles(h.hand)
    if h.trump_holders:
        out.update(trump_holders=list(h.trump_holders), trump_bonus=h.trump_bonus)
    return out


def rack_arg(text: str | None, name: str | None = None) -> tuple[Tile, ...] | None:
    """A rack typed on the page: blank (or only spaces) means not given, never an empty rack.

    A code that is not a tile is refused naming whose rack it is in (``name``).
    """
    if text is None or not str(text).strip():
        return None
    try:
        return tuple(parse_tiles(str(text)))
    except ValueError as exc:
        if name is None:
            raise
        raise SessionError(f"{name}'s rack: {exc}") from None


def hand_arg(text: str | None) -> tuple[Tile, ...] | None:
    """International, a Closed win's hand typed on the page: blank means not given, as for a rack."""
    try:
        return rack_arg(text)
    except ValueError as exc:
        raise SessionError(f"the closed hand: {exc}") from None


def trump_arg(code: str | None) -> Tile | None:
    """The face-up trump tile typed on the page: blank means not said; a code that is no tile is refused
    naming it."""
    if code is None or not str(code).strip():
        return None
    try:
        return Tile.parse(str(code).strip())
    except ValueError as exc:
        raise SessionError(f"trump tile: {exc}") from None


class GameSession:
    """The current game, its storage, the rules for new games and the hint switch."""

    def __init__(self, store: Store, options: RuleOptions | None = None, now: Callable[[], float] = time.time):
        self.store = store
        self.now = now
        self._lock = threading.RLock()
        self.version = 0  # bumped on every change; the page's event stream watches it
        self.game_id: int | None = None
        self.game: Game | None = None
        self.snapshot_jpeg: bytes | None = None
        self.storage_error: str | None = None
        self.load_error: str | None = None
        saved = store.get_setting("options")
        self.options = options or (options_back(saved) if saved else find_variant("sabra"))
        self.hint_enabled = bool(store.get_setting("hint", False))
        self._hint_cache: dict = {}
        self.hint_keys = HintKeys()  # who may see a typed rack's hint (webui.hint_keys)
        self._started: tuple | None = None  # (request, monotonic time, game): the last "Start the game"
        self._ended: tuple | None = None  # (turn id begun, who ended the turn before, now): the last press's end
        self._typing = TypingMarks()  # racks typed on a phone and not saved yet (webui.rack_typing)
        latest = store.latest_game_id()
        if latest is not None:
            try:
                self._load(latest)
            except ValueError as exc:  # saved by an older version: start afresh, the rows stay browsable
                self.load_error = str(exc)

    # storage ----------------------------------------------------------------------
    def _load(self, game_id: int) -> None:
        doc = self.store.load_game(game_id)
        if doc is None:
            raise SessionError(f"there is no game {game_id}")
        self.game, self.game_id = from_dict(doc), game_id
        self.snapshot_jpeg = self.store.snapshot(game_id)

    def _commit(self, new: Game, *, record: TurnRecord | None = None, snapshot=KEEP, hands: bool = False,
                seen: bool = True, taken_back: tuple[int, int] | None = None, undone: bool = False) -> None:
        """Save first; only a saved state becomes the state shown.  ``seen``: a camera saw the table the
        turn ``record`` ended on (else the log says it was not judged); ``taken_back``, ``undone``: see
        Store.save."""
        row = None
        if record is not None:
            ended = new.last if new.last is not None and new.last.player == record.player else None
            row = turn_row(record, seen=seen, discard=ended.discard if ended else None)
        try:
            self.store.save(self.game_id, to_dict(new), turn=row, hands=hand_rows(new) if hands else None,
                            snapshot=snapshot, taken_back=taken_back, undone=undone)
        except StoreError as exc:
            self._failed(exc)
        old, self.game = self.game, new
        self.hint_keys.follow(old, new)
        if snapshot is not KEEP:
            self.snapshot_jpeg = snapshot
        self.storage_error = None
        self._hint_cache.clear()
        self._bump()

    def _failed(self, exc: Exception):
        self.storage_error = f"not saved: {exc}. The game stays as it was; free some disk space and try again."
        self._bump()
        raise StorageError(self.storage_error) from exc

    def _bump(self) -> None:
        with self._lock:
            self.version += 1

    # queries ----------------------------------------------------------------------
    @property
    def has_game(self) -> bool:
        return self.game is not None

    @property
    def rules(self) -> RuleOptions:
        """The rules in force: the game's, else those chosen for the next game."""
        return self.game.options if self.game else self.options

    @property
    def settings_rules(self) -> RuleOptions:
        """The rules Settings shows and a save there changes: those of the game in play (waiting for its
        next hand, its length included), else those for new games.  A game resumed keeps its own: the
        rules saved for new games since (a target score, another clock) are not what a save would change."""
        g = self.open_game
        if g is None:
            return self.options
        return g.pending or g.options

    def _playing(self) -> Game:
        if self.game is None:
            raise SessionError("no game yet: start one first")
        if self.game.status is Status.FINISHED:
            raise SessionError(FINISHED)
        return self.game

    @property
    def open_game(self) -> Game | None:
        """The game on the table unless it is finished (then rules chosen apply to the next game)."""
        g = self.game
        return None if g is None or g.status is Status.FINISHED else g

    @property
    def current_player(self) -> str | None:
        return self.game.current.name if self.game else None

    def turn_id(self) -> str | None:
        """Which turn is on: ``GAME.HAND.TURN``.  A press names it (``turn``) so that a second press
        of the same button, or another phone's at the same moment, cannot end the next player's turn."""
        g = self.game
        return None if g is None else f"{self.game_id}.{g.hand}.{g.turn.number}"

    def check_turn(self, turn: str | None, *, press: str | None = None) -> None:
        """Refuse (:class:`Conflict`, a 409) a press meant for a turn that is no longer on; ``press``
        (a turn press, see :meth:`_check_fresh`): also one that comes right after a press ended a turn."""
        with self._lock:
            self._check_turn(turn)
            if press is not None:
                self._check_fresh(press)

    def _check_fresh(self, press: str) -> None:
        """Refuse (:class:`Conflict`) a turn press within ``PRESS_GUARD_S`` of a press that ended the turn
        before: another phone's press (which had already shown the new turn) or a second tap was meant
        for that turn, not for the one that has just begun.  ``press`` says what pressing again does
        ("end {}'s turn", the player's name filled in)."""
        g = self.game
        if self._ended is None or g is None or g.status is not Status.PLAYING:
            return
        turn, who, at = self._ended
        if turn == self.turn_id() and self.now() - at < PRESS_GUARD_S:
            name = g.current.name
            raise Conflict(f"{name}'s turn began a moment ago: was that press for {who}'s turn? "
                           f"Press again to {press.format(name)}.")

    def _check_turn(self, turn: str | None) -> None:
        if turn is None or turn == self.turn_id():
            return
        try:
            game_id, hand, number = (int(x) for x in str(turn).split("."))
        except ValueError:
            raise SessionError(f"turn {str(turn)[:40]!r} is not GAME.HAND.TURN (game.turn.id in /api/state)") from None
        g = self.game
        if g is None:
            raise Conflict("that press was for a game that is no longer on the table: start or resume one")
        if game_id != self.game_id:
            raise Conflict(f"that press was for another game (game {game_id}); the game on the table "
                           f"is {', '.join(g.names)}: it is {g.current.name}'s turn")
        now = f"it is {g.current.name}'s turn now (hand {g.hand}, turn {g.turn.number})"
        if (hand, number) > (g.hand, g.turn.number):
            if (hand, number) == (g.hand, g.turn.number + 1) and self.store.turn_undone(self.game_id, hand, number - 1):
                raise TakenBack(f"{g.current.name}'s turn was taken back (Undo last turn, on another phone or a "
                                f"moment ago), so the turn after it is no longer on; {now}")
            raise Conflict(f"turn {number} of hand {hand} has not started; {now}")
        who = self.store.turn_player(self.game_id, hand, number)
        raise Conflict(f"{who}'s turn already ended; {now}" if who
                       else f"turn {number} of hand {hand} already ended; {now}")

    def _in_play(self, what: str) -> Game:
        """The game, in play; in plain words why not (the racks are being counted)."""
        g = self._playing()
        if g.status is Status.TALLY:
            raise SessionError(f"the hand is already being counted: {what} is not possible now "
                               "(confirm the racks, or press Back to the game)")
        return g

    def _counting(self) -> Game:
        """The game, its racks being counted; in plain words why not."""
        g = self._playing()
        if g.status is not Status.TALLY:
            if g.undo is not None:
                raise SessionError(f"no hand is being counted: hand {g.undo.hand} is already scored "
                                   "(press Take back this hand to count it again)")
            if g.status is Status.PLAYING:
                raise SessionError("no hand is being counted: press Rummikub! or Pool empty first")
        return g

    def judge(self, table: Table):
        return judge(self._playing(), table_of(table))

    def clock(self) -> dict:
        """The turn clock: limit, seconds spent and left (None without a limit), running or paused."""
        g, now = self.game, self.now()
        if g is None:
            return {"limit": self.options.turn_time_limit, "elapsed": 0.0, "remaining": None, "running": False,
                    "paused": False, "expired": False, "time_up": False}
        c = g.turn.clock
        if g.status is Status.FINISHED:  # the clock is off for good, not paused
            return {"limit": c.limit, "elapsed": round(c.elapsed(now), 2), "remaining": None, "running": False,
                    "paused": False, "expired": False, "time_up": False}
        left = c.remaining(now)
        running = g.status is Status.PLAYING and not c.paused
        # time_up: the clock ran out and stopped; the turn waits for the players to finish it
        return {"limit": c.limit, "elapsed": round(c.elapsed(now), 2),
                "remaining": None if left is None else round(left, 2), "running": running,
                "paused": c.paused, "expired": c.expired(now), "time_up": g.turn.time_up is not None}

    def games(self) -> list[dict]:
        """Games to resume or browse, newest first; ``game_name`` names the rules ("Israeli");
        a finished game also its ``winner`` (None for a tie) and ``result`` in words."""
        return [dict(g, current=g["id"] == self.game_id, game_name=variant_name(g["game"], g.get("scoring")),
                     **self._final(g)) for g in self.store.games()]

    def _final(self, row: dict) -> dict:
        if row["status"] != Status.FINISHED.value:
            return {"winner": None, "result": None}
        try:
            game = self.game if row["id"] == self.game_id else from_dict(self.store.load_game(row["id"]))
        except (KeyError, TypeError, ValueError):  # saved by an older version: listed, without its result
            return {"winner": None, "result": None}
        sheet = score_sheet(game)
        return {"winner": sheet.overall_winner, "result": result_words(sheet)}

    # settings ---------------------------------------------------------------------
    def set_options(self, options: RuleOptions) -> str:
        """Rules for new games; a game in progress takes them from its next hand (a hand dealt and not
        started is that hand: it takes them at once).  Says which: "now", "from the next hand", or
        ``NEW_GAMES_ONLY`` when the game on the table keeps its scoring method (rules.game_turns.change_rules
        refuses that change; the rules are still saved for new games)."""
        with self._lock:
            game = self.open_game  # a finished game keeps its rules: these are for the next game
            kept = game is not None and not same_scoring(options, game.options)
            if game is not None and not kept:
                new = change_rules(game, options)
                if new != game:
                    self._commit(new)
            try:
                self.store.set_setting("options", options.to_dict())
            except StoreError as exc:
                self._failed(exc)
            self.options = options
            self._bump()
            if kept:
                return NEW_GAMES_ONLY
            return "from the next hand" if self.open_game is not None and self.game.pending else "now"

    def set_hint(self, enabled: bool) -> None:
        with self._lock:
            try:
                self.store.set_setting("hint", bool(enabled))
            except StoreError as exc:
                self._failed(exc)
            self.hint_enabled = bool(enabled)
            self._bump()

    # games ------------------------------------------------------------------------
    def start_game(self, names: list[str], *, first: int = 0, trump: str | None = None, table: Table = (),
                   picture: bytes | None = None, options: RuleOptions | None = None, remember: bool = True,
                   once: bool = False, table_checked: bool = True) -> None:
        """Seat the players (listed clockwise round the table) and start the first hand.

        ``options`` become the rules for later games too unless ``remember`` is False (the recorded demo's).
        ``once``: refuse (:class:`Conflict`) the same new game asked for again within ``SAME_START_S``
        while the one just started is untouched (a double press of "Start the game").  ``table_checked``
        False: tiles the camera sees are asked about first (rules.game_deal.TableNotClear).
        """
        with self._lock:
            opts = options or self.options
            request = (tuple(names), opts, int(first), trump)
            if once and self._started is not None:
                asked, at, started = self._started
                if asked == request and started is self.game and time.monotonic() - at < SAME_START_S:
                    raise Conflict(f"this game of {', '.join(map(str, names))} was started a moment ago "
                                   "(Start the game pressed twice?): it is on the table")
            game = start_game(names, opts, self.now(), first=int(first), trump=trump_arg(trump),
                              table=table_of(table), table_checked=table_checked)
            self._leave()
            self.hint_keys.clear()
            try:
                if options is not None and remember:
                    self.store.set_setting("options", opts.to_dict())
                game_id = self.store.create_game(list(game.names), opts.to_dict(), to_dict(game), picture)
            except StoreError as exc:
                self._failed(exc)
            if remember:
                self.options = opts
            self.game, self.game_id, self.snapshot_jpeg = game, game_id, picture
            self._started = (request, time.monotonic(), game)
            self.storage_error = None
            self._bump()

    def _leave(self) -> None:
        """The game on screen is set aside: its clock stops with the time it had left."""
        g = self.game
        if g is not None and g.status is Status.PLAYING and not g.turn.clock.paused:
            try:
                self.store.save(self.game_id, to_dict(replace(g, turn=replace(g.turn, clock=g.turn.clock.pause(self.now())))))
            except StoreError:
                pass  # it resumes with its clock as last saved

    def resume(self, game_id: int) -> None:
        """Bring back an earlier game (a paused clock goes on with the time it had left)."""
        with self._lock:
            if game_id == self.game_id:
                return
            doc = self.store.load_game(game_id)
            if doc is None:
                raise SessionError(f"there is no game {game_id}")
            game = from_dict(doc)
            self._leave()
            self.hint_keys.clear()
            self.game_id, self.game = game_id, game
            self.snapshot_jpeg = self.store.snapshot(game_id)
            if game.status is Status.PLAYING and game.restore is None and game.turn.time_up is None:
                self._commit(replace(game, turn=replace(game.turn, clock=game.turn.clock.resume(self.now()))))
            self._bump()

    # turns ------------------------------------------------------------------------
    def draw(self, source: str = "pool", table: Table | None = None, *, turn: str | None = None,
             guard: bool = False) -> None:
        """American/International: the draw that opens a turn (``turn``: see :meth:`turn_id`); one from
        another source replaces the turn's draw while nothing is placed on ``table`` (the table now)."""
        with self._lock:
            try:
                src = DrawSource(source)
            except ValueError:
                raise SessionError(f"draw source {source!r}: use pool, discard or trump") from None
            self._check_turn(turn)
            if guard:
                self._check_fresh(DRAW_PRESS)
            self._commit(draw(self._in_play("a draw"), src, None if table is None else table_of(table)))

    def undo_draw(self, table: Table | None = None, *, turn: str | None = None) -> None:
        """American/International: take the turn's draw back (the wrong draw pressed) while nothing is
        placed on ``table`` (the table now): the turn is at its draw again, its clock running on."""
        with self._lock:
            self._check_turn(turn)
            self._commit(undo_draw(self._in_play("taking a draw back"), None if table is None else table_of(table)))

    def end_turn(self, table: Table, picture: bytes | None = None, *, action: str = "done",
                 discard: str | None = None, turn: str | None = None, guard: bool = False, seen: bool = True):
        """The player says the turn is over; an illegal table is refused and the turn goes on.

        ``turn`` (see :meth:`turn_id`): the turn the press is for; one that has ended already is refused
        (:class:`Conflict`), so a double press cannot end the next player's turn.  None: whichever is on.
        ``guard`` (a person's press): refused too a moment after a press ended a turn (:meth:`_check_fresh`).
        ``seen`` False: no camera saw ``table`` (the game's own): the log says the turn was not judged.
        """
        with self._lock:
            g = self._ending(turn, guard)
            new, record, verdict = end_turn(g, table_of(table), self.now(), action=Action(action),
                                            discard=Tile.parse(discard) if discard else None, seen=seen)
            if record is None:
                self._commit(new)
            else:
                self._ended_by(g, new, record, picture, seen=seen)
            return verdict

    def end_turn_unseen(self, placed: int | None, *, tiles: str | None = None, discard: str | None = None,
                        camera: bool, turn: str | None = None, guard: bool = False,
                        count_checked: bool = False) -> None:
        """No camera sees the table: the players say the turn placed ``placed`` tiles (``tiles``: which, as
        codes), recorded unchecked (rules.game_turns.end_turn_unseen); ``camera``: one sees the table, so
        this is refused.  ``turn`` and ``guard`` as for :meth:`end_turn`; ``count_checked``: the players
        say a first meld the game's record doubts is right (the player had melded before)."""
        with self._lock:
            g = self._ending(turn, guard)
            try:
                named = tuple(parse_tiles(tiles)) if tiles and tiles.strip() else ()
            except ValueError as exc:
                raise SessionError(f"the tiles placed: {exc}") from None
            new, record = end_turn_unseen(g, self.now(), placed, tiles=named, camera=camera,
                                          discard=Tile.parse(discard) if discard else None,
                                          count_checked=count_checked)
            self._ended_by(g, new, record, None)  # no picture of a table nobody sees

    def undo_turn(self, *, turn: str | None = None) -> dict:
        """Undo last turn: the turn before ``turn`` (the one on, see :meth:`turn_id`), recorded on the
        players' word, is taken back while nothing has happened since (rules.game_undo.undo_turn); its log
        row is marked taken back, never deleted.  A press for a turn no longer on (a second tap, another
        phone) is refused (:class:`Conflict`).  Returns which turn went back."""
        with self._lock:
            try:
                self._check_turn(turn)
            except TakenBack:
                g = self.game
                raise Conflict(f"{g.current.name}'s turn was already taken back (on another phone or a moment "
                               f"ago): it is {g.current.name}'s turn again") from None
            except Conflict as exc:
                raise Conflict(f"that Undo was for another turn (taken back already, or played on): {exc}") from None
            g = self.game
            new = undo_turn(g, self.now())
            undone = {"player": new.current.name, "hand": new.hand, "number": new.turn.number}
            self._commit(new, taken_back=(new.hand, new.turn.number), undone=True)
            return undone

    def _ending(self, turn: str | None, guard: bool) -> Game:
        """The game, for a press that ends the turn ``turn``: refused as :meth:`end_turn` says."""
        self._check_turn(turn)
        if guard:
            self._check_fresh(END_PRESS)
        return self._in_play("ending a turn")

    def _ended_by(self, g: Game, new: Game, record: TurnRecord, picture: bytes | None, *, seen: bool = True) -> None:
        """Store the turn ``g``'s player ended, and remember the press for :meth:`_check_fresh`."""
        self._commit(new, record=record, snapshot=picture, seen=seen)
        self._ended = (self.turn_id(), g.current.name, self.now())

    def tick(self, table: Table, picture: bytes | None = None, *, seen: bool = True) -> None:
        """Called often: when the clock has run out, end the turn by the time-limit rules, or stop it
        where the players finish the turn (``seen`` False: no camera sees ``table``, so End turn asks
        what the turn did; American and International: the discard)."""
        with self._lock:
            if self.game is None:
                return
            out = time_out(self.game, table_of(table), self.now(), seen=seen)
            if out is None:
                return
            new, record = out
            self._commit(new, record=record, snapshot=KEEP if new.restore or record is None else picture, seen=seen)

    def take_found_table(self, table: Table, picture: bytes | None = None, *, confirmed: bool = False,
                         turn: str | None = None) -> FoundCheck | None:
        """The camera is back and sees ``table`` held still: a turn that followed turns no camera saw
        starts from it (rules.game_found.table_found), logged; ``picture`` becomes the turn's.  Nothing
        changes when the turn's table is known.  A table that disagrees with the game's record is taken
        only ``confirmed`` (the players said so; ``turn``: the turn they said it for, see
        :meth:`turn_id`), else its check is returned for the page to ask about."""
        with self._lock:
            self._check_turn(turn)
            try:
                out = table_found(self.game, table_of(table), self.now(), confirmed=confirmed)
            except FoundDoubt as doubt:
                return doubt.check
            if out is not None:
                new, record = out
                self._commit(new, record=record, snapshot=picture)
            return None

    def check_restored(self, table: Table) -> None:
        """Clear the restore banner by itself once the camera sees the turn's table again."""
        with self._lock:
            if self.game is not None and self.game.restore is not None:
                new = table_restored(self.game, self.now(), table_of(table))
                if new is not self.game:
                    self._commit(new)

    def start_hand(self, *, turn: str | None = None, trump: str | None = None, table: Table = (),
                   picture: bytes | None = None, table_checked: bool = False) -> None:
        """The players have dealt the next hand ("Start hand"): its first turn's clock starts now.
        ``trump``: the code of the tile this hand turned face up (American, International), blank: not said.
        ``table``: what the camera sees (asked about unless ``table_checked``: rules.game_deal.start_hand),
        ``picture`` its picture, the first turn's when tiles are taken as lying there."""
        with self._lock:
            self._check_turn(turn)
            g = self._playing()
            if g.status is Status.PLAYING:
                raise Conflict(f"hand {g.hand} has already started: it is {g.current.name}'s turn")
            new = start_hand(g, self.now(), trump_arg(trump), table=table, table_checked=table_checked)
            self._commit(new, snapshot=picture if new.turn.table_before else KEEP)

    def set_trump(self, code: str | None) -> None:
        """The face-up trump tile of the hand in play, said after Start hand (forgotten, or mistyped),
        as long as it lies face up (rules.game_deal.set_trump)."""
        with self._lock:
            trump = trump_arg(code)
            if trump is None:
                raise SessionError("trump tile: type the code of the tile face up, e.g. R7")
            self._commit(set_trump(self._playing(), trump))

    def dismiss_restore(self) -> None:
        """The players say the table is back as the picture shows."""
        with self._lock:
            g = self._playing()
            if g.restore is not None:
                self._commit(table_restored(g, self.now()))

    def set_rack(self, name: str, codes: str | None, *, turn: str | None = None) -> str | None:
        """A player's own rack, typed in for hints and the turn check.  Returns the private key to that
        player's hint (webui.hint_keys: only the phone that typed the rack sees it), None for a rack cleared.
        ``turn``: the turn it was typed in, refused (:class:`Conflict`) once over."""
        with self._lock:
            self._check_turn(turn)
            self._commit(set_rack(self._playing(), name, rack_arg(codes, name)))
            if self.game.seats[self.game.seat_of(name)].rack is None:
                self.hint_keys.drop(name)
                return None
            return self.hint_keys.issue(name)

    # end of hand ------------------------------------------------------------------
    def call_rummikub(self, table: Table, *, winner: str | None = None, pool_empty: bool = False,
                      discard: str | None = None, turn: str | None = None, guard: bool = False,
                      count_checked: bool = False, seen: bool = True):
        """"Rummikub!" (or the pool ran out): the turn it ends is judged as "End turn" is; on an illegal
        table it is refused and the turn goes on.  Returns the verdict.  ``seen`` as for :meth:`end_turn`."""
        with self._lock:
            self._check_turn(turn)
            if guard:
                self._check_fresh(RUMMIKUB_PRESS)
            g = self._in_play("Rummikub!" if not pool_empty else "Pool empty")
            extra = {"discard": Tile.parse(discard)} if discard else {}
            new, record, verdict = call_rummikub(g, table_of(table), self.now(), winner=winner,
                                                 pool_empty=pool_empty, count_checked=count_checked, **extra)
            self._commit(new, record=record, seen=seen)
            return verdict

    def _check_count(self, turn: str | None) -> None:
        """A tally press names the turn its hand ended on (``turn``, see :meth:`turn_id`): one meant for a
        count that is over (the hand scored on another phone) is refused (:class:`Conflict`), never
        entered in the next hand's count."""
        try:
            self._check_turn(turn)
        except Conflict as exc:
            raise Conflict(f"the count of that hand is over (scored on another phone?): {exc}") from None

    def read_rack(self, name: str, table: Table, racks: Table = (), *, turn: str | None = None) -> str:
        """The tiles the camera sees beyond the final table: the player's rack laid out in view, or the
        rack rows it sees (a rack turned to the camera)."""
        with self._lock:
            self._check_count(turn)
            new = read_rack(self._counting(), name, table_of(table), table_of(racks))
            self._commit(new)
            self._typing.clear(name)  # the camera's reading replaces what was being typed
            return format_tiles(new.tally.racks[new.seat_of(name)])

    def typing(self, name: str, *, phone: str, turn: str | None = None, on: bool = True) -> dict[str, float]:
        """A phone says ``name``'s rack is being typed on it and not saved yet (``on`` False: no longer, the
        box is back to the rack saved), so that a Confirm on another phone asks first (webui.rack_typing).  Not
        stored: the count holds only what is saved.  Returns the racks being typed (:meth:`typing_now`)."""
        with self._lock:
            self._check_count(turn)
            g = self._counting()
            g.seat_of(name)
            if name == g.tally.winner:
                raise SessionError(f"{name} went out, so that rack is empty")
            if on:
                self._typing.mark(self.turn_id(), name, str(phone)[:64], self.now())
            else:
                self._typing.clear(name)
            self._bump()  # every phone shows which rack is being typed elsewhere
            return self.typing_now()

    def typing_now(self, besides: str | None = None) -> dict[str, float]:
        """The racks of the count being typed on a phone and not saved yet, with the seconds each mark has
        left (``besides``: leaving out that phone's own)."""
        g = self.game
        if g is None or g.status is not Status.TALLY:
            return {}
        return self._typing.active(self.turn_id(), self.now(), besides)

    def enter_tally(self, name: str | None, *, turn: str | None = None, count_checked: bool = False,
                    **entry) -> None:
        """One entry in the count, kept in the game so that every phone shows it and any can confirm:
        player ``name``'s ``rack`` (tile codes; blank or None: not given) and/or ``melded`` (True or
        False, the players' correction of the first meld; None: as the game knows); International, the
        win: ``win``, ``hand`` (tile codes), ``joker_discard`` and/or ``original_hand``
        (rules.game_win.set_tally_win).  A code that is not a tile and a rack the box cannot hold are
        refused naming whose rack it is; more tiles than the count says are asked about unless
        ``count_checked``."""
        with self._lock:
            self._check_count(turn)
            g = self._counting()
            if name is not None:
                g.seat_of(name)
            win = {k: entry.pop(k) for k in WIN_DETAILS if k in entry}
            if "hand" in win:
                win["hand"] = hand_arg(win["hand"])
            if win:
                g = set_tally_win(g, **win)
            if "rack" in entry:
                rack = rack_arg(entry["rack"], name)
                if rack:
                    try:
                        check_rack(rack, g.options)
                    except GameError as exc:
                        raise SessionError(f"{name}'s rack: {exc}") from None
                g = set_tally_rack(g, name, rack, count_checked=count_checked)
            if "melded" in entry:
                g = set_tally_melded(g, name, entry["melded"])
            self._commit(g)
            if "rack" in entry:
                self._typing.clear(name)  # saved: the count holds it now

    def confirm_tally(self, racks: dict[str, str | None], *, melded: dict[str, bool] | None = None,
                      turn: str | None = None, count_checked: bool = False, phone: str | None = None,
                      typing_checked: bool = False, **extra) -> dict:
        """The players agree on every rack: score the hand and deal the next one (it waits for its start).

        The racks are those entered in the count (:meth:`enter_tally`, :meth:`read_rack`); one given in
        ``racks`` replaces the entered one, a blank one leaves it.  ``melded`` corrects, for this hand's
        score, who has made the first meld (Israeli and International scoring count a player who never
        melded at 100), over the corrections entered.  International: the win entered in the count is
        scored; a ``win``, ``hand`` or ``joker_discard`` in ``extra`` replaces it (a blank hand leaves it).

        A rack another phone is typing and has not saved yet (:meth:`typing`; ``phone``: the confirming
        phone, whose own typing goes with the press) is asked about (:class:`webui.rack_typing.RackTyping`)
        unless ``typing_checked``: the players may wait a moment for it, or score without it.
        """
        with self._lock:
            self._check_count(turn)
            g = self._counting()
            given = {name: rack_arg(text, name) for name, text in racks.items()}
            waiting = [n for n in self.typing_now(besides=phone) if not given.get(n)]
            if waiting and not typing_checked:
                raise RackTyping(g, waiting)
            if isinstance(extra.get("hand"), str):  # International closed hand, as codes (blank: the one entered)
                extra["hand"] = hand_arg(extra["hand"])
            if melded:
                extra["melded"] = melded
            new = confirm_tally(g, self.now(), given, count_checked=count_checked, **extra)
            self._commit(new, hands=True, snapshot=None)
            self._typing.reset()
            h = new.hands[-1]
            return {"hand": h.number, "winner": h.winner, "scores": dict(zip(new.names, h.scores))}

    def cancel_tally(self) -> None:
        """Back to the game: "Rummikub!" was called by mistake; the clock keeps the time left.  The turn
        goes on, so the row the call logged for it is marked taken back: the log never shows one turn
        ended twice."""
        with self._lock:
            g = self._counting()
            self._commit(cancel_tally(g, self.now()), taken_back=(g.hand, g.turn.number))
            self._typing.reset()

    def undo_hand(self) -> None:
        """Take back the last scored hand: its tally opens again, also when that hand ended the game by
        its agreed length (a game the players finished stays finished)."""
        with self._lock:
            self._commit(undo_last_hand(self.game, self.now()), hands=True)

    def finish_game(self) -> None:
        """The players stop ("Finish the game"): the sheet is final, its winner the game's
        (rules.game_tally.finish_game).  The hand in progress is not scored; refused while the racks are
        counted, and (:class:`Conflict`) for a game finished already."""
        with self._lock:
            g = self.game
            try:
                new = finish_game(g, self.now())
            except GameError as exc:
                if g is not None and g.status is Status.FINISHED:
                    raise Conflict(str(exc)) from None
                raise
            self._commit(new)

    # sheet --------------------------------------------------------------------------
    def sheet(self) -> ScoreSheet | None:
        return score_sheet(self.game) if self.game else None

    def sheet_csv_rows(self) -> list[list]:
        sheet = self.sheet()
        return [list(r) for r in sheet.to_rows()] if sheet else []
