"""What is wrong with a set or a turn: a stable code, the tiles concerned, and plain words.

Codes never change once published (pages group by them, tests match them);
the words may be reworded.  One problem per kind and place: twelve tiles taken
back to a rack are one ``tile_taken_back`` problem naming the twelve tiles.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from rules.tiles import Tile

# code -> what it means (docs/rules.md lists this table)
CODES: dict[str, str] = {
    # a single set
    "too_few_tiles": "a set has fewer than 3 tiles",
    "too_many_jokers": "more jokers in one set than the box holds",
    "two_jokers_in_set": "two jokers in one set where the rules forbid it",
    "group_repeats_colour": "a group holds one colour twice",
    "group_too_long": "a group has more than 4 tiles",
    "mixed_set": "neither one number (group) nor one colour (run)",
    "run_repeats_number": "a run holds one number twice",
    "run_too_long": "a run has more than 13 tiles",
    "one_always_low": "'1' after 13 where '1' is always low",
    "one_high_and_low": "a '1' used high and low at once (13-1-2)",
    "run_gap": "a run with gaps the jokers cannot fill",
    "box_exceeded": "more copies of a tile than the box holds",
    # a turn
    "invalid_set": "a set on the table after the turn is not valid",
    "tile_taken_back": "number tiles on the table before are gone after the turn",
    "joker_taken_back": "a joker left the table",
    "not_on_rack": "tiles added to the table that the rack did not hold",
    "nothing_played": "no tile was played from the rack",
    "last_tile_melded": "every rack tile melded, none left to discard (American family)",
    "manipulation_not_allowed": "table sets split or rearranged where the game allows only extending them",
    "joker_before_initial_meld": "a joker taken from the table before the player's initial meld",
    "joker_not_replaced": "a table joker made to stand for another tile without its tile put in its place",
    "joker_group_needs_both_colours": "a group's joker freed without both missing colours",
    "joker_set_rearranged": "a set holding a joker split or rearranged where the rules forbid it",
    "freed_joker_in_old_set": "a freed joker put into a set that was on the table",
    "freed_joker_needs_rack_tiles": "a freed joker not played with two or more rack tiles",
    "freed_joker_not_own_set": "a freed joker that does not first form a set with rack tiles alone",
    "initial_meld_uses_table": "an initial meld that uses or changes table sets",
    "initial_meld_too_low": "an initial meld worth less than the threshold",
    # not a turn's fault: the table a camera found on its return, which the players took over the game's record
    "table_found_doubted": "the table found on the camera's return disagreed with the game's record",
}


@dataclass(frozen=True)
class Problem:
    """One broken rule: ``code`` (a key of :data:`CODES`), the tiles it concerns, and plain words."""

    code: str
    tiles: tuple[Tile, ...]
    message: str

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown problem code {self.code!r}")

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict:
        return {"code": self.code, "tiles": [t.code for t in self.tiles], "message": self.message}


def tile_list(tiles: Iterable[Tile]) -> str:
    """``K4, K7 (2 copies) and R1``: each face once, in order, its copies counted."""
    parts = [f"{t} ({n} copies)" if n > 1 else str(t) for t, n in sorted(Counter(tiles).items())]
    if len(parts) <= 1:
        return "".join(parts)
    return f"{', '.join(parts[:-1])} and {parts[-1]}"


def plural(tiles: Iterable[Tile], one: str, many: str) -> str:
    """``one`` for a single tile, ``many`` for more (copies count)."""
    return one if len(list(tiles)) == 1 else many


__all__ = ["CODES", "Problem", "tile_list", "plural"]
