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
from rules.game_state import DrawSource, Game, GameError, Status, Table, table_of, table_tiles
from rules.tiles import Tile, tile_count

NOT_STARTED = "the next hand has not started: press Start hand once the tiles are dealt"


class TableNotClear(GameError):
    """Start hand while tiles still lie on the table (the last hand's, as a rule): a hand starts from an
    empty table, and every tile on it would count as placed by the first player (a false NOT LEGAL, and a
    time-out's penalty).  Asked, not refused outright: the camera may see something that is no tile."""

    def __init__(self, tiles: int, what: str = "hand") -> None:
        self.tiles = tiles
        n = tile_count(tiles)
        self.question = (f"The camera still sees {n} on the table. A {what} starts from an empty table: clear it "
                         f"first. Start the {what} anyway, taking those {n} as lying there before it (they count "
                         "for nobody)?")
        super().__init__(f"clear the table first: the camera still sees {n} on it, and a {what} starts from an "
                         "empty table (tiles left there would count as placed by the first player)")

    @property
    def details(self) -> dict:
        """What a client needs to ask the players, and what to send again with."""
        return {"ask": {"question": self.question, "send": {"table_checked": True}}}


def start_hand(game: Game, now: float, trump: Tile | None = None, *, table: Table = (),
               table_checked: bool = False) -> Game:
    """The players have dealt: the first turn's clock starts now, with the full time.

    ``trump``: the tile turned face up for this hand (American and International),
    as the first hand's is given to ``start_game``; None: not said.  Every hand
    turns its own (the last hand's was shuffled in with the rest), so a hand
    waiting for its start has none yet.  ``table``: what the camera sees on the
    table now; tiles there are asked about (:class:`TableNotClear`) unless
    ``table_checked``, and then they are the table the first turn starts from.
    """
    if game is None or game.status is not Status.DEALING:
        state = "no game yet" if game is None else f"the game is in its {game.status.value}"
        raise GameError(f"no hand is waiting to start ({state})")
    if trump is not None and not game.options.flow.trump:
        raise GameError(f"a {game.options.game.capitalize()} hand has no trump tile")
    table = table_of(table)
    if table and not table_checked:
        raise TableNotClear(len(table_tiles(table)))
    clock = TurnClock.start(game.options.turn_time_limit, now)
    return replace(game, status=Status.PLAYING, trump=trump, turn=replace(game.turn, clock=clock, table_before=table))


def set_trump(game: Game, trump: Tile) -> Game:
    """The face-up trump tile of the hand in play, said after its start (American and International).

    Start hand (and New game) take it, but players forget, and then it could
    never be entered: so it may be said while the hand is in play, and a
    mistyped one corrected, as long as it still lies face up.  Once taken
    (only to win at once, seed 004) it is in a rack and the hand's record of
    it stands; a turn that took it can take the draw back first.  Refused for
    a game without a trump (Sabra), outside play (a hand waiting for its start
    takes it with Start hand), and once it has been taken.
    """
    if game is None:
        raise GameError("no game yet: start one first")
    if not game.options.flow.trump:
        raise GameError(f"a {game.options.game.capitalize()} hand has no trump tile")
    if game.status is Status.DEALING:
        raise GameError(f"hand {game.hand} has not started: type its trump tile beside Start hand")
    if game.status is not Status.PLAYING:
        raise GameError(f"the trump tile is set while a hand is in play, not while the game is in its "
                        f"{game.status.value}")
    if not game.trump_up:
        drew = game.turn.drew
        if drew is not None and drew.source is DrawSource.TRUMP:
            raise GameError(f"{game.current.name} has taken the trump tile this turn: take the draw back to "
                            "put it face up again, then set it")
        raise GameError("the trump tile has been taken: it can no longer be set")
    return replace(game, trump=trump)
