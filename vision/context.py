"""Tiles read in the context of their set: the likeliest reading under which a line is valid.

A tile seen small, blurred or at a slant may be read as a near neighbour of
what it is (R3 as R4, O1 as O4).  Players lay valid sets far more often than
invalid ones, so when a line of tiles is invalid as read, and another reading
the classifier found nearly as likely for one or two of its tiles makes it a
valid set as laid, that reading is the better guess.  Nothing is changed
silently: the reader marks such tiles ``inferred`` and keeps what the model read.
"""

from __future__ import annotations

from itertools import combinations, product

import numpy as np

from rules.options import RuleOptions
from rules.sets import SetVerdict, analyse_set
from rules.tiles import ALL_FACES, NUMBERS, Tile

LONGEST = len(NUMBERS)  # no set has more tiles than a run 1-13: a longer line is never read as one
ALTERNATIVE = 0.07  # another reading is weighed when at least this likely beside the tile's own reading (docs/vision.md)
CHOICES = 3  # at most this many other readings of one tile are weighed
CHANGES = 2  # at most this many tiles of one line are read otherwise
DOUBT = 0.5  # a tile read less surely than this may be any number of its colour (weighed as ALTERNATIVE)
STANDS_OUT = 2.0  # the likeliest valid reading must be this much likelier than the next (another set)


def valid_as_laid(verdict: SetVerdict) -> bool:
    """Valid in the order the tiles lie (a run ascending or descending, or a group): how players lay
    sets, so a piece cut from a longer line or two lines joined must read so (K8 K9 K10 K7 does not)."""
    return verdict.valid and (not verdict.ranks or min(verdict.ranks) < 2)


def likeliest_valid(probs: np.ndarray, read: np.ndarray, rules: RuleOptions) -> np.ndarray | None:
    """Tile indices for a line (in the order it lies) that make it a valid set as laid, or None.

    ``probs`` (n, 53): each tile's probabilities (``TileDetections.probs``);
    ``read``: the codes as read.  Up to CHANGES tiles may be read otherwise,
    each as one of its CHOICES likeliest other codes at least ALTERNATIVE as
    likely as its own; a tile read below DOUBT may also be any number of its
    colour, weighed as ALTERNATIVE.  None when the line is valid as read, when
    no such reading makes it valid, or when two that give different sets are
    about as likely (none STANDS_OUT times likelier than the next).
    """
    n = len(read)
    if not 3 <= n <= LONGEST or valid_as_laid(analyse_set([Tile.from_index(int(c)) for c in read], rules)):
        return None
    own = probs[np.arange(n), read]
    others: list[list[tuple[int, float]]] = []
    for i in range(n):
        order = [int(c) for c in np.argsort(-probs[i]) if c != read[i]][:CHOICES]
        others.append([(c, float(probs[i, c] / max(own[i], 1e-6))) for c in order
                       if probs[i, c] >= ALTERNATIVE * own[i]])
    found: dict[tuple[int, ...], float] = {}  # a valid reading -> how much less likely than as read

    def weigh(where: tuple[int, ...], choice) -> None:
        codes = read.copy()
        odds = 1.0
        for i, (c, ratio) in zip(where, choice):
            codes[i] = c
            odds *= ratio
        if odds >= ALTERNATIVE and valid_as_laid(analyse_set([Tile.from_index(int(c)) for c in codes], rules)):
            key = tuple(int(c) for c in codes)
            found[key] = max(odds, found.get(key, 0.0))

    for i in range(n):  # one tile read otherwise; a doubtful one as any number of its colour
        alike = _same_colour(int(read[i])) if own[i] < DOUBT else []
        for c in sorted({c for c, _ in others[i]} | set(alike)):
            floor = ALTERNATIVE if c in alike else 0.0
            weigh((i,), [(c, max(float(probs[i, c] / max(own[i], 1e-6)), floor))])
    open_ = [i for i in range(n) if others[i]]
    for k in range(2, min(CHANGES, len(open_)) + 1):
        for where in combinations(open_, k):
            for choice in product(*(others[i] for i in where)):
                weigh(where, choice)
    if not found:
        return None
    ranked = sorted(found.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] < STANDS_OUT * ranked[1][1]:
        return None
    return np.array(ranked[0][0], dtype=np.int64)


def laid_in_sets(tiles: list[Tile], rules: RuleOptions) -> int:
    """How many tiles of a row (in the order they lie) can be in valid sets cut from it as laid.

    The sets on a table cover their lines; the tiles on a rack stand in the
    order they were drawn, so a long row that is mostly in no set is a rack's.
    """
    best = [0] * (len(tiles) + 1)  # best[b]: most tiles in sets among the first b
    for b in range(1, len(tiles) + 1):
        best[b] = max([best[b - 1]] + [best[a] + b - a for a in range(max(0, b - LONGEST), b - 2)
                                       if valid_as_laid(analyse_set(tiles[a:b], rules))])
    return best[-1]


def _same_colour(code: int) -> list[int]:
    """The other numbers of a tile's colour (a small tile's numeral is misread far more often than its colour)."""
    tile = Tile.from_index(code)
    if tile.is_joker:
        return []
    return [t.index for t in ALL_FACES if not t.is_joker and t.color == tile.color and t != tile]


__all__ = ["laid_in_sets", "likeliest_valid", "valid_as_laid"]
