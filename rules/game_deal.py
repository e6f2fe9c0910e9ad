"""The wait between a scored hand and the next: the tiles are collected, shuffled and dealt.

A scored hand leaves the game :attr:`~rules.game_state.Status.DEALING`: the
next hand is set up but its first turn's clock waits, so nobody is timed (and
charged a draw) while the players deal, and the scored hand can still be
taken back.  The hand starts when the players say so, when a turn action is
made, or when the camera sees the table cleared.
"""

from __future__ import annotations

from dataclasses import replace

from rules.game_clock import TurnClock
from rules.game_state import Game, GameError, Status, Table, table_tiles


def start_hand(game: Game, now: float) -> Game:
    """The players have dealt: the first turn's clock starts now, with the full time."""
    if game is None or game.status is not Status.DEALING:
        state = "no game yet" if game is None else f"the game is in its {game.status.value}"
        raise GameError(f"no hand is waiting to start ({state})")
    clock = TurnClock.start(game.options.turn_time_limit, now)
    return replace(game, status=Status.PLAYING, tiles_seen=False, turn=replace(game.turn, clock=clock))


def started(game: Game, now: float | None) -> Game:
    """A turn action while the hand waits: play is on, so the hand starts first (``now`` needed)."""
    if game is None or game.status is not Status.DEALING:
        return game
    if now is None:
        raise GameError("the next hand has not started yet: start it once the tiles are dealt")
    return start_hand(game, now)


def hand_table_seen(game: Game, table: Table, now: float) -> Game:
    """A table the camera sees while the hand waits: tiles seen, then none, means it was cleared.

    Only an empty table after tiles were seen starts the hand, so a camera that
    sees nothing (none connected) or a table cleared before the tally was
    confirmed never starts it by itself.  Returns ``game`` itself when nothing changes.
    """
    if game is None or game.status is not Status.DEALING:
        return game
    if table_tiles(table):
        return game if game.tiles_seen else replace(game, tiles_seen=True)
    return start_hand(game, now) if game.tiles_seen else game
