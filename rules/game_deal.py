"""The wait between a scored hand and the next: the tiles are collected, shuffled and dealt.

A scored hand leaves the game :attr:`~rules.game_state.Status.DEALING`: the
next hand is set up but its first turn's clock waits, so nobody is timed (and
charged a draw) while the players deal, and the scored hand can still be
taken back.  The hand starts only when the players say so (Start hand): every
turn action is refused until then (:data:`NOT_STARTED`), since the tiles on the
table then are the scored hand's, and clearing the table is where the deal
begins, not where it ends.
"""

from __future__ import annotations

from dataclasses import replace

from rules.game_clock import TurnClock
from rules.game_state import Game, GameError, Status
from rules.tiles import Tile

NOT_STARTED = "the next hand has not started: press Start hand once the tiles are dealt"


def start_hand(game: Game, now: float, trump: Tile | None = None) -> Game:
    """The players have dealt: the first turn's clock starts now, with the full time.

    ``trump``: the tile turned face up for this hand (American and International),
    as the first hand's is given to ``start_game``; None: not said.  Every hand
    turns its own (the last hand's was shuffled in with the rest), so a hand
    waiting for its start has none yet.
    """
    if game is None or game.status is not Status.DEALING:
        state = "no game yet" if game is None else f"the game is in its {game.status.value}"
        raise GameError(f"no hand is waiting to start ({state})")
    if trump is not None and not game.options.flow.trump:
        raise GameError(f"a {game.options.game.capitalize()} hand has no trump tile")
    clock = TurnClock.start(game.options.turn_time_limit, now)
    return replace(game, status=Status.PLAYING, trump=trump, turn=replace(game.turn, clock=clock))
