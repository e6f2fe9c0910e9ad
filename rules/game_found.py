"""The table a camera finds on its return after turns it did not see, checked against what the game knows.

Turns recorded on the players' word leave the table the game knows behind
the real one, so the table the camera finds becomes where the turn on
started (:func:`table_found`).  But a camera takes any table: a misread, the
discard piles or the next hand's tiles in view, a count said wrong.  The game
knows some of what must be there: how many tiles the players said were placed
since the table was last seen (``Turn.said``), which of them they named, the
tiles of the table it knew (tiles never leave the table), the tiles lying in
the discard piles and the face-up trump, and what the box holds.  A table that
disagrees is not taken by itself: the players are asked (:class:`FoundDoubt`),
and what they took over it is logged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from rules.game_state import (
    Action, Game, GameError, Status, Table, TurnRecord, Verdict, same_table, table_of, table_tiles, tiles_added,
)
from rules.problems import Problem
from rules.tiles import RuleError, Tile, format_tiles, tile_count


@dataclass(frozen=True)
class FoundCheck:
    """The table found, against the game's record: the tiles beyond the table it knew, the tiles the
    players said were placed meanwhile (None: not known, a game saved before they were counted), and
    what disagrees, each in words that follow "but"."""

    player: str  # whose turn it is: the table found becomes where it started
    found: tuple[Tile, ...]
    said: int | None
    doubts: tuple[str, ...]

    @property
    def question(self) -> str:
        n = len(self.found)
        return (f"The camera is back and sees {tile_count(n)} beyond the table the game knew, but "
                f"{'; '.join(self.doubts)}. Take the table it sees as where {self.player}'s turn started? "
                "(Or put the table right, or let the camera see it better: a table that agrees is taken by itself.)")


class FoundDoubt(GameError):
    """The table found disagrees with the game's record: taken only when the players say so."""

    def __init__(self, check: FoundCheck) -> None:
        self.check = check
        super().__init__(check.question)


def _are(tiles) -> str:
    return f"{format_tiles(tiles)} {'is' if len(tiles) == 1 else 'are'}"


def waits_for_table(game: Game | None) -> bool:
    """The turn on waits for a camera to find its table: it follows turns no camera saw (not while a
    timed-out table is being put back: the clock waits for that table, found once it is back)."""
    return game is not None and game.status is Status.PLAYING and game.turn.unseen and game.restore is None


def check_found(game: Game | None, table: Table) -> FoundCheck | None:
    """What the table the camera found (``table``, once hands are off it) says against the game's
    record; None when the turn on does not wait for a table (:func:`waits_for_table`)."""
    if not waits_for_table(game):
        return None
    turn = game.turn
    table = table_of(table)
    found = tiles_added(turn.table_before, table)
    doubts = []
    if turn.said is not None and len(found) != turn.said:
        more = (f" (tiles {game.current.name} laid this turn before it came back would be among them)"
                if len(found) > turn.said else "")
        doubts.append(f"the players said {tile_count(turn.said)} {'was' if turn.said == 1 else 'were'} placed "
                      f"while no camera saw{more}")
    gone = tiles_added(table, turn.table_before)
    if gone:
        doubts.append(f"{_are(gone)} missing from it, though on the table the game knew (tiles never leave "
                      "the table)")
    unfound = tuple(sorted((Counter(turn.said_tiles) - Counter(found)).elements()))
    if unfound:
        doubts.append(f"{_are(unfound)} not on it, though said to be placed")
    discarded = tuple(sorted((Counter(found) & Counter(game.discards)).elements()))
    if discarded:
        doubts.append(f"{format_tiles(discarded)} {'was' if len(discarded) == 1 else 'were'} discarded this "
                      "hand (are the discards in view?)")
    if game.trump_up and game.trump is not None and game.trump in found:
        doubts.append(f"{game.trump} is the face-up trump (is it in view?)")
    try:
        game.options.box.check_counts(table_tiles(table))
    except RuleError as exc:
        doubts.append(f"it holds {exc}")
    return FoundCheck(player=game.current.name, found=found, said=turn.said, doubts=tuple(doubts))


def table_found(game: Game, table: Table, now: float, *, confirmed: bool = False
                ) -> tuple[Game, TurnRecord] | None:
    """The camera is back after turns it did not see: the table it finds becomes the start of the turn on.

    A turn recorded on the players' word (``rules.game_turns.end_turn_unseen``),
    or ended by the clock with no camera seeing, leaves the table the game knows
    behind the real one; judged against it, the first turn after the camera's
    return would count every tile placed meanwhile as that player's (a wrong
    verdict, a wrong rack count, a false "illegal").  So the table found
    (``table``, once hands are off it) is taken as the one this turn started
    from: the turn goes on with its clock, a refused End turn's verdict is
    dropped, and a :class:`TurnRecord` (``Action.TABLE_FOUND``, not judged) logs
    the tiles found beyond the table the game knew.  Tiles the current player
    had placed before the camera came back cannot be told apart from those:
    they count as on the table already, not as this turn's, and leave no rack
    (``Turn.found`` keeps the tiles so that the page can say so).

    A table that disagrees with the game's record (:func:`check_found`) is
    refused with :class:`FoundDoubt` unless ``confirmed`` (the players took it);
    the record then keeps what disagreed (problems ``table_found_doubted``).

    None when the turn's table is known (only turns after one no camera saw
    need it: a camera out during part of a turn that began seen saw the table
    it started from, so what it finds on its return is that turn's doing),
    outside play, and while a timed-out table is being put back.
    """
    check = check_found(game, table)
    if check is None:
        return None
    if check.doubts and not confirmed:
        raise FoundDoubt(check)
    turn = game.turn
    table = table_of(table)
    problems = tuple(Problem("table_found_doubted", (), f"the players took it, but {d}") for d in check.doubts)
    verdict = Verdict(legal=True, changed=not same_table(turn.table_before, table), placed=check.found,
                      problems=problems)
    record = TurnRecord(hand=game.hand, number=turn.number, player=game.current.name, started_at=now,
                        ended_at=now, action=Action.TABLE_FOUND, verdict=verdict, penalty=0,
                        table_before=turn.table_before, table_after=table)
    turn = replace(turn, table_before=table, unseen=False, found=check.found, attempt=None, said=0, said_tiles=())
    return replace(game, turn=turn), record
