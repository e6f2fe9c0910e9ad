"""Pure transitions at the end of a hand: "Rummikub!", the pool running out, the rack
tally, scoring, undoing the last scored hand and dealing the next one.

Only the player who went out has an empty rack; every other rack must be
given (typed, or read from the tiles laid in view of the camera) before a hand
is scored.  Scores come from :func:`rules.scoring.score_hand` with the game's
rule options; the start passes on to the next player (seed 004).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from rules.game_state import (
    Game, GameError, LastTurn, ScoredHand, Status, Table, Tally, Verdict, table_of, tiles_added,
)
from rules.game_turns import deal, open_turn, require
from rules.scoring import HandResult, ScoreSheet, score_hand
from rules.tiles import RuleError, Tile


def call_rummikub(game: Game, table: Table, now: float, *, winner: str | None = None,
                  pool_empty: bool = False) -> Game:
    """"Rummikub!" (the current player unless another is named) or the pool ran out: count the racks.

    The turn clock stops with the time it had left, for "Back to the game".
    """
    require(game)
    if pool_empty:
        winner = None
    elif winner is None:
        winner = game.current.name
    else:
        game.seat_of(winner)
    racks = tuple(() if s.name == winner else None for s in game.seats)
    tally = Tally(winner=winner, pool_empty=bool(pool_empty), table=table_of(table), racks=racks,
                  read=tuple(False for _ in game.seats))
    turn = replace(game.turn, clock=game.turn.clock.pause(now))
    return replace(game, status=Status.TALLY, tally=tally, turn=turn)


def cancel_tally(game: Game, now: float) -> Game:
    """Back to the game: "Rummikub!" was called by mistake; the clock goes on with the time left."""
    require(game, Status.TALLY)
    paused_for_restore = game.restore is not None
    clock = game.turn.clock if paused_for_restore else game.turn.clock.resume(now)
    return replace(game, status=Status.PLAYING, tally=None, turn=replace(game.turn, clock=clock))


def _with_rack(game: Game, name: str, rack: tuple[Tile, ...] | None, read: bool) -> Game:
    tally = game.tally
    i = game.seat_of(name)
    if name == tally.winner and rack:
        raise GameError(f"{name} went out, so that rack is empty")
    racks = tuple(rack if j == i else r for j, r in enumerate(tally.racks))
    reads = tuple(read if j == i else r for j, r in enumerate(tally.read))
    return replace(game, tally=replace(tally, racks=racks, read=reads))


def read_rack(game: Game, name: str, table: Table) -> Game:
    """The tiles the camera sees beyond the final table: the player's rack laid out in view."""
    require(game, Status.TALLY)
    rack = tiles_added(game.tally.table, table)
    if not rack:
        raise GameError(f"no tiles in view beyond the final table: lay {name}'s rack out by the table, "
                        "or type it")
    return _with_rack(game, name, rack, True)


def laid_out(final: Table, groups) -> list[bool]:
    """While racks are counted: which groups (tile sequences, in any order) are not sets of the
    final table, so are racks laid out to be read; they are totalled, never judged as melds."""
    sets = {tuple(sorted(s)) for s in final}
    return [tuple(sorted(g)) not in sets for g in groups]


def set_tally_rack(game: Game, name: str, rack: tuple[Tile, ...] | None) -> Game:
    """A rack typed by the players (None: not given yet)."""
    require(game, Status.TALLY)
    return _with_rack(game, name, rack, False)


def _missing(game: Game) -> list[str]:
    return [s.name for s, r in zip(game.seats, game.tally.racks) if r is None or (not r and s.name != game.tally.winner)]


def confirm_tally(game: Game, now: float, racks: Mapping[str, tuple[Tile, ...] | None] | None = None,
                  **extra: Any) -> Game:
    """The players agree on every rack: score the hand and deal the next one.

    ``racks`` override the tally's (None or an empty rack: not given).  Only the
    player who went out may have an empty rack.  ``extra`` are the International
    hand details of :func:`rules.scoring.score_hand` (win kind, closed hand ...).
    """
    require(game, Status.TALLY)
    for name, rack in (racks or {}).items():
        game.seat_of(name)
        if rack is not None or name != game.tally.winner:
            game = set_tally_rack(game, name, tuple(rack) if rack else None)
    tally = game.tally
    blank = _missing(game)
    if blank:
        who = f"only {tally.winner}, who went out, has an empty rack" if tally.winner else \
            "nobody went out, so every rack holds tiles"
        raise GameError(f"rack not given for {', '.join(blank)}: type the tiles left on it "
                        f"or read it from the camera ({who})")
    names = game.names
    parsed = {n: list(r) for n, r in zip(names, tally.racks)}
    melded = {s.name: s.has_melded for s in game.seats}
    if tally.winner:
        melded[tally.winner] = True
        extra.setdefault("winner", tally.winner)
    try:
        result = score_hand(parsed, melded=melded, pool_empty=tally.pool_empty, options=game.options, **extra)
    except (TypeError, RuleError) as exc:
        raise GameError(f"cannot score this hand: {exc}") from None
    scored = ScoredHand(number=game.hand, winner=result.winner, pool_empty=tally.pool_empty,
                        racks=tuple(tuple(r) for r in tally.racks),
                        scores=tuple(int(result.scores.get(n, 0)) for n in names), method=result.method)
    agreed = replace(game, undo=None)
    return replace(new_hand(replace(game, hands=game.hands + (scored,)), now), undo=agreed)


def new_hand(game: Game, now: float) -> Game:
    """Deal the next hand: the start passes on, rules chosen meanwhile apply, penalties start again."""
    options = game.pending or game.options
    starter = game.step_from(game.starter)
    seats, pool = deal(options, game.names, starter)
    last = game.hands[-1] if game.hands else None
    summary = LastTurn(
        player=last.winner if last else None, action="score", verdict=Verdict(legal=True, changed=False),
        note=(f"hand {last.number} scored: " + ", ".join(f"{n} {s:+d}" for n, s in zip(game.names, last.scores)))
        if last else "",
    )
    return replace(game, options=options, pending=None, seats=seats, pool=pool, status=Status.PLAYING,
                   hand=game.hand + 1, starter=starter, trump=None, trump_up=options.flow.trump, dead=0,
                   turn=open_turn(options, starter, 1, (), now), last=summary, restore=None, tally=None)


def undo_last_hand(game: Game, now: float) -> Game:
    """Take back the last scored hand: its tally opens again as the players left it."""
    if game.undo is None:
        raise GameError("there is no scored hand to take back (only until the next hand's first turn ends)")
    back = game.undo
    return replace(back, turn=replace(back.turn, clock=back.turn.clock.pause(now)))


def score_sheet(game: Game) -> ScoreSheet:
    """The score sheet of the hands scored so far, by the game's scoring method."""
    sheet = ScoreSheet(list(game.names), game.options)
    for h in game.hands:
        sheet.add_hand(HandResult(winner=h.winner, scores=dict(zip(game.names, h.scores)), method=h.method))
    return sheet
