"""A :class:`~rules.game_state.Game` as a plain JSON-ready dict and back.

Storage keeps this document; tiles are written as codes once and parsed once
on load, never in play.  ``from_dict`` names what is wrong with a bad document.
"""

from __future__ import annotations

from typing import Any

from rules.game_clock import TurnClock
from rules.game_state import (
    Drawn, DrawSource, Game, LastTurn, Restore, ScoredHand, Seat, Status, Step, Table, Tally, TimeUp, Turn, Verdict,
)
from rules.options import OPTION_DOCS, RuleOptions
from rules.problems import Problem
from rules.tiles import Tile

VERSION = 1


def _tiles(tiles) -> list[str] | None:
    return None if tiles is None else [t.code for t in tiles]


def _table(table: Table) -> list[list[str]]:
    return [_tiles(s) for s in table]


def _tiles_back(codes) -> tuple[Tile, ...] | None:
    return None if codes is None else tuple(Tile.parse(c) for c in codes)


def _table_back(sets) -> Table:
    return tuple(tuple(Tile.parse(c) for c in s) for s in sets)


def _tile_back(code) -> Tile | None:
    return None if code is None else Tile.parse(code)


def _flag_back(value) -> bool | None:
    return None if value is None else bool(value)


def _time_up_back(d) -> TimeUp | None:
    """A turn waiting after its clock ran out; a game saved before turns waited has none."""
    if d is None:
        return None
    return TimeUp(table=None if d["table"] is None else _table_back(d["table"]), note=str(d["note"]))


def _melded_back(items, seats: int) -> tuple[bool | None, ...]:
    """The tally's "has melded" corrections; a game stored before they were kept has none."""
    if items is None:
        return tuple(None for _ in range(seats))
    return tuple(_flag_back(m) for m in items)


def _verdict(v: Verdict | None) -> dict | None:
    if v is None:
        return None
    return {"legal": v.legal, "changed": v.changed, "placed": _tiles(v.placed), "problems": _problems(v.problems)}


def _problems(problems) -> list[dict]:
    return [p.to_dict() for p in problems]


def _problems_back(items) -> tuple[Problem, ...]:
    return tuple(Problem(d["code"], _tiles_back(d["tiles"]), d["message"]) for d in items)


def _verdict_back(d) -> Verdict | None:
    if d is None:
        return None
    return Verdict(legal=bool(d["legal"]), changed=bool(d["changed"]), placed=_tiles_back(d["placed"]),
                   problems=_problems_back(d["problems"]))


def options_back(d: dict) -> RuleOptions:
    """Rules saved by an older version: options this one no longer knows are dropped."""
    return RuleOptions.from_dict({k: v for k, v in d.items() if k in OPTION_DOCS})


def to_dict(game: Game) -> dict[str, Any]:
    t = game.turn
    out = {
        "version": VERSION,
        "options": game.options.to_dict(),
        "seats": [{"name": s.name, "rack_count": s.rack_count, "has_melded": s.has_melded,
                   "penalties": s.penalties, "discard": s.discard.code if s.discard else None,
                   "rack": _tiles(s.rack)} for s in game.seats],
        "status": game.status.value,
        "hand": game.hand,
        "starter": game.starter,
        "trump": game.trump.code if game.trump else None,
        "trump_up": game.trump_up,
        "pool": game.pool,
        "dead": game.dead,
        "discards": _tiles(game.discards),
        "turn": {"number": t.number, "seat": t.seat, "step": t.step.value, "table_before": _table(t.table_before),
                 "clock": {"limit": t.clock.limit, "since": t.clock.since, "spent": t.clock.spent,
                           "paused": t.clock.paused, "started": t.clock.started},
                 "drew": None if t.drew is None else {"source": t.drew.source.value,
                                                       "tile": t.drew.tile.code if t.drew.tile else None},
                 "attempt": _verdict(t.attempt), "unseen": t.unseen, "found": _tiles(t.found),
                 "said": t.said, "said_tiles": _tiles(t.said_tiles),
                 "time_up": None if t.time_up is None else {
                     "table": None if t.time_up.table is None else _table(t.time_up.table), "note": t.time_up.note}},
        "last": None if game.last is None else {
            "player": game.last.player, "action": game.last.action, "verdict": _verdict(game.last.verdict),
            "penalty": game.last.penalty, "note": game.last.note,
            "discard": game.last.discard.code if game.last.discard else None, "unchecked": game.last.unchecked},
        "restore": None if game.restore is None else {
            "player": game.restore.player, "table": _table(game.restore.table),
            "problems": _problems(game.restore.problems), "penalty": game.restore.penalty},
        "tally": None if game.tally is None else {
            "winner": game.tally.winner, "pool_empty": game.tally.pool_empty, "table": _table(game.tally.table),
            "racks": [_tiles(r) for r in game.tally.racks], "read": list(game.tally.read),
            "discard": game.tally.discard.code if game.tally.discard else None,
            "trump_drawn": game.tally.trump_drawn, "melded": list(game.tally.melded),
            "win": game.tally.win, "hand": _tiles(game.tally.hand), "joker_discard": game.tally.joker_discard,
            "original_hand": game.tally.original_hand},
        "hands": [_hand(h) for h in game.hands],
        "pending": None if game.pending is None else game.pending.to_dict(),
        "undo": None if game.undo is None else to_dict(game.undo),
        "turn_back": None if game.turn_back is None else to_dict(game.turn_back),
    }
    return out


def _hand(h: ScoredHand) -> dict[str, Any]:
    return {"number": h.number, "winner": h.winner, "pool_empty": h.pool_empty,
            "racks": [_tiles(r) for r in h.racks], "scores": list(h.scores), "method": h.method,
            "discard": h.discard.code if h.discard else None, "win": h.win, "hand": _tiles(h.hand),
            "closed_type": h.closed_type, "closed_jokers": h.closed_jokers, "joker_discard": h.joker_discard,
            "trump_holders": list(h.trump_holders), "trump_bonus": h.trump_bonus}


def _hand_back(h: dict[str, Any]) -> ScoredHand:
    """A scored hand; one stored before hands kept how they were won has none of it."""
    closed = h.get("closed_type")
    return ScoredHand(number=int(h["number"]), winner=h["winner"], pool_empty=bool(h["pool_empty"]),
                      racks=tuple(_tiles_back(r) for r in h["racks"]), scores=tuple(int(x) for x in h["scores"]),
                      method=h["method"], discard=_tile_back(h.get("discard")), win=h.get("win"),
                      hand=_tiles_back(h.get("hand")), closed_type=None if closed is None else int(closed),
                      closed_jokers=int(h.get("closed_jokers", 0)), joker_discard=bool(h.get("joker_discard", False)),
                      trump_holders=tuple(h.get("trump_holders") or ()), trump_bonus=int(h.get("trump_bonus", 0)))


def from_dict(d: dict[str, Any]) -> Game:
    try:
        t = d["turn"]
        c = t["clock"]
        turn = Turn(number=int(t["number"]), seat=int(t["seat"]), step=Step(t["step"]),
                    table_before=_table_back(t["table_before"]),
                    clock=TurnClock(limit=c["limit"], since=float(c["since"]), spent=float(c["spent"]),
                                    paused=bool(c["paused"]),
                                    # saved before the turn's start was kept: its last start stands in
                                    started=None if c.get("started") is None else float(c["started"])),
                    drew=None if t["drew"] is None else Drawn(DrawSource(t["drew"]["source"]),
                                                              _tile_back(t["drew"]["tile"])),
                    attempt=_verdict_back(t["attempt"]),
                    # saved before a camera's return was followed: the table was taken as known
                    unseen=bool(t.get("unseen", False)), found=_tiles_back(t.get("found")),
                    # saved before the tiles said placed were counted: how many is not known
                    said=t["said"] if "said" in t else (None if t.get("unseen") else 0),
                    said_tiles=_tiles_back(t.get("said_tiles")) or (),
                    time_up=_time_up_back(t.get("time_up")))
        last = d.get("last")
        restore = d.get("restore")
        tally = d.get("tally")
        return Game(
            options=options_back(d["options"]),
            seats=tuple(Seat(name=s["name"], rack_count=int(s["rack_count"]), has_melded=bool(s["has_melded"]),
                             penalties=int(s["penalties"]), discard=_tile_back(s["discard"]),
                             rack=_tiles_back(s["rack"])) for s in d["seats"]),
            status=Status(d["status"]), hand=int(d["hand"]), starter=int(d["starter"]),
            trump=_tile_back(d["trump"]), trump_up=bool(d["trump_up"]), pool=int(d["pool"]), dead=int(d["dead"]),
            # saved before the discards' tiles were kept: none known
            discards=_tiles_back(d.get("discards")) or (),
            turn=turn,
            last=None if last is None else LastTurn(player=last["player"], action=last["action"],
                                                    verdict=_verdict_back(last["verdict"]),
                                                    penalty=int(last["penalty"]), note=last["note"],
                                                    # saved before the last turn named its discard: none
                                                    discard=_tile_back(last.get("discard")),
                                                    unchecked=int(last.get("unchecked", 0))),
            restore=None if restore is None else Restore(player=restore["player"],
                                                         table=_table_back(restore["table"]),
                                                         problems=_problems_back(restore["problems"]),
                                                         penalty=int(restore["penalty"])),
            tally=None if tally is None else Tally(winner=tally["winner"], pool_empty=bool(tally["pool_empty"]),
                                                   table=_table_back(tally["table"]),
                                                   racks=tuple(_tiles_back(r) for r in tally["racks"]),
                                                   read=tuple(bool(x) for x in tally["read"]),
                                                   discard=_tile_back(tally.get("discard")),
                                                   trump_drawn=bool(tally.get("trump_drawn", False)),
                                                   melded=_melded_back(tally.get("melded"), len(tally["racks"])),
                                                   # a game stored before the win was kept: none entered
                                                   win=tally.get("win"), hand=_tiles_back(tally.get("hand")),
                                                   joker_discard=_flag_back(tally.get("joker_discard")),
                                                   original_hand=_flag_back(tally.get("original_hand"))),
            hands=tuple(_hand_back(h) for h in d["hands"]),
            pending=None if d.get("pending") is None else options_back(d["pending"]),
            undo=None if d.get("undo") is None else from_dict(d["undo"]),
            # saved before turns could be taken back: the last turn cannot be
            turn_back=None if d.get("turn_back") is None else from_dict(d["turn_back"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"stored game is not readable ({type(exc).__name__}: {exc})") from None
