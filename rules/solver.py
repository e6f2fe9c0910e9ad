"""The move solver: the most a player can put down, and a legal layout of given tiles.

This is the integer program of den Hertog and Hulshof (2006).  Every set a
player could lay (runs of 3-5 tiles, groups of 3-4, at most two jokers each)
is a column ``x_j`` counting how often it is laid; for each tile face the
sets laid must hold every table tile and at most the rack tiles on top:

    t_i <= sum_j s_ij x_j <= t_i + r_i

so the rack tiles played are ``y_i = sum_j s_ij x_j - t_i`` and need no
variables of their own.  Longer runs never need a column: a run of 6 or more
splits into runs of 3-5 (table sets the catalogue lacks, such as long runs,
get a column of their own so they can stay as they are).  HiGHS (``highspy``)
solves the program exactly.

Objectives, one after the other (weights keep them strictly ordered):

1. the chosen one: ``"tiles"`` (most rack tiles) or ``"value"`` (most
   points: the table's value after the move minus before, a joker counting
   as the tile it stands for, as in the initial-meld rule of seed 004_*);
2. keep the table as it lies: every set laid that holds a whole table set
   (as it was, or with tiles added) earns that set's size, so the suggestion
   is easy to lay out by hand;
3. the other measure (with ``"tiles"``: the face value of the tiles played;
   with ``"value"``: how many tiles).

Jokers are treated as free tiles: the program may move a table joker to
another set, which the rules allow only by replacing it (seed 004_* "The
Joker"); the rule options on retrieved jokers are not modelled.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Iterable, Sequence

import highspy
import numpy as np

from rules.options import RuleOptions, require
from rules.sets import analyse_set
from rules.tiles import JOKER, JOKER_INDEX, STANDARD, XP, Color, Tile, TileSet, format_tiles

OBJECTIVES = ("tiles", "value")
_FACES = JOKER_INDEX + 1  # 52 number faces and the joker


@dataclass
class Solution:
    """A move: the rack tiles played and the whole table after it.

    ``value`` is the table's value after the move minus its value before, a
    joker counting as the tile it stands for; with the table untouched it is
    the value of the tiles put down.  ``kept`` counts table sets left
    together (unchanged or only added to).
    """

    count: int
    value: int
    placed: list[Tile]
    sets: list[list[Tile]]
    kept: int = 0

    def to_dict(self) -> dict:
        return {
            "count": self.count,
            "value": self.value,
            "placed": [t.code for t in self.placed],
            "sets": [[t.code for t in s] for s in self.sets],
        }


def tile_box(options: RuleOptions) -> TileSet:
    """The box the options play with: 106 tiles or the 160-tile XP set."""
    return XP if require(options, "tile_box").tile_set == "xp" else STANDARD


def solve(
    table: Sequence[Sequence[Tile]],
    rack: Sequence[Tile],
    *,
    objective: str = "tiles",
    initial: int | None = None,
    options: RuleOptions,
) -> Solution | None:
    """The best move from ``rack`` onto ``table``, or None when no rack tile can be played.

    With ``initial=N`` the move is an initial meld: new sets from rack tiles
    only, together worth at least N, the table left as it is.  Raises
    RuleError for an invalid table set (named) or more copies of a tile than
    the box holds.
    """
    o = require(options, "solve")
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r} (use {' or '.join(OBJECTIVES)})")
    if initial is not None and (isinstance(initial, bool) or not isinstance(initial, int) or initial < 0):
        raise ValueError(f"initial meld threshold must be a whole number >= 0, not {initial!r}")
    table = [list(s) for s in table]
    rack = list(rack)
    _check_tiles(table, rack, o)
    if not rack:
        return None

    cat = _catalogue(o.one_high, 2 if o.two_jokers_in_set else 1)
    table_counts = _counts(t for s in table for t in s)
    rack_counts = _counts(rack)
    before = sum(_set_value(s, o) for s in table)
    n_table = int(table_counts.sum())

    if initial is not None:
        # new sets from the rack alone; the table stays exactly as it lies
        model = _Model(cat, avail=rack_counts, low=np.zeros(_FACES, dtype=np.int64))
        model.add_row("size", lower=1)
        model.add_row("value", lower=initial)
    else:
        model = _Model(cat, avail=table_counts + rack_counts, low=table_counts)
        model.keep(table, o)
        model.add_row("size", lower=n_table + 1)

    if objective == "tiles":
        sets = model.solve("size", "face", sum(t.number or 0 for t in rack))
    else:
        sets = model.solve("value", "size", len(rack))
    if sets is None:
        return None
    if initial is not None:
        after, kept = [*(_natural(s, o) for s in table), *sets], len(table)
    else:
        after, kept = _in_table_order(sets, table)
    placed = sorted((Counter(t for s in after for t in s) - Counter(t for s in table for t in s)).elements())
    value = sum(_set_value(s, o) for s in after) - before
    return Solution(count=len(placed), value=value, placed=placed, sets=after, kept=kept)


def arrange(
    tiles: Iterable[Tile],
    options: RuleOptions,
    *,
    like: Sequence[Sequence[Tile]] | None = None,
) -> list[list[Tile]] | None:
    """A legal table made of exactly ``tiles``, or None if there is none.

    ``like`` is a layout to stay close to (for example the illegal table a
    turn left behind): its valid sets are kept whole where possible.
    """
    o = require(options, "arrange")
    tiles = list(tiles)
    _check_tiles([], tiles, o)
    if not tiles:
        return []
    counts = _counts(tiles)
    cat = _catalogue(o.one_high, 2 if o.two_jokers_in_set else 1)
    model = _Model(cat, avail=counts, low=counts)
    like = [list(s) for s in like or () if analyse_set(list(s), o).valid]
    model.keep(like, o, extend=False)
    sets = model.solve(None, None, 0)
    return None if sets is None else _in_table_order(sets, like)[0]


def suggest_rearrangement(
    before: Sequence[Sequence[Tile]],
    after: Sequence[Sequence[Tile]],
    options: RuleOptions,
) -> list[list[Tile]] | None:
    """After an illegal turn: a legal layout of the tiles now on the table, or None.

    Sets that are valid in ``after`` (or were on the table ``before``) are
    kept whole where possible.
    """
    tiles = [t for s in after for t in s]
    return arrange(tiles, options, like=[*after, *before])


# --- checks -----------------------------------------------------------------


def _check_tiles(table: list[list[Tile]], rack: list[Tile], o: RuleOptions) -> None:
    from rules.tiles import RuleError

    for t in [*(t for s in table for t in s), *rack]:
        if not isinstance(t, Tile):
            raise TypeError(f"expected tiles, got {t!r}")
    tile_box(o).check_counts([*(t for s in table for t in s), *rack])
    for i, s in enumerate(table, 1):
        verdict = analyse_set(s, o)
        if not verdict.valid:
            raise RuleError(f"table set {i} ({format_tiles(s)}) is not valid: {verdict.problem}")


def _counts(tiles: Iterable[Tile]) -> np.ndarray:
    c = np.zeros(_FACES, dtype=np.int64)
    for t in tiles:
        c[t.index] += 1
    return c


# --- the candidate sets -----------------------------------------------------


@dataclass(frozen=True)
class _Catalogue:
    """Every candidate set once (as a multiset), with its best reading laid out in order."""

    S: np.ndarray  # (n, 53) copies of each face in each set
    size: np.ndarray
    value: np.ndarray  # jokers as the tiles they stand for, best reading
    face: np.ndarray  # face value of the number tiles only
    layout: tuple[tuple[Tile, ...], ...]  # natural order, JOKER at its place
    index: dict  # (sorted natural indices, jokers) -> row


@lru_cache(maxsize=8)
def _catalogue(one_high: bool, jokers_per_set: int) -> _Catalogue:
    best: dict[tuple[tuple[int, ...], int], tuple[int, tuple[Tile, ...]]] = {}

    def add(meant: tuple[Tile, ...], value: int) -> None:
        for k in range(jokers_per_set + 1):
            for spots in combinations(range(len(meant)), k):
                if k == len(meant):
                    continue
                shown = tuple(JOKER if i in spots else t for i, t in enumerate(meant))
                key = (tuple(sorted(t.index for t in shown if not t.is_joker)), k)
                if key not in best or value > best[key][0]:
                    best[key] = (value, shown)

    top = 14 if one_high else 13
    for colour in Color:
        for length in range(3, 6):
            for start in range(1, top - length + 2):
                nums = range(start, start + length)
                meant = tuple(Tile(colour, 1 if n == 14 else n) for n in nums)
                add(meant, sum(1 if n == 14 else n for n in nums))
    for number in range(1, 14):
        for size in (3, 4):
            for colours in combinations(Color, size):
                add(tuple(Tile(c, number) for c in colours), number * size)

    keys = sorted(best)
    S = np.zeros((len(keys), _FACES), dtype=np.int64)
    value = np.zeros(len(keys), dtype=np.int64)
    face = np.zeros(len(keys), dtype=np.int64)
    layouts = []
    for j, key in enumerate(keys):
        naturals, k = key
        S[j, list(naturals)] = 1
        S[j, JOKER_INDEX] = k
        value[j], shown = best[key]
        face[j] = sum(i % 13 + 1 for i in naturals)
        layouts.append(shown)
    for a in (S, value, face):
        a.setflags(write=False)
    return _Catalogue(S, S.sum(1), value, face, tuple(layouts), {k: j for j, k in enumerate(keys)})


def _natural(tiles: Sequence[Tile], o: RuleOptions) -> list[Tile]:
    """A valid set in natural order: runs ascending, groups by colour, jokers in their place."""
    pairs = _pairs(tiles, o)
    return list(tiles) if pairs is None else [shown for shown, _ in pairs]


def _reading(s: Sequence[Tile], o: RuleOptions) -> tuple[Tile, ...] | None:
    """What each tile of a valid set means: as the tiles lie if that reads, else the most valuable reading."""
    verdict = analyse_set(list(s), o)
    if not verdict.readings:
        return None
    laid = [r for r, ok in zip(verdict.readings, verdict.laid) if ok]
    return laid[0] if laid else max(verdict.readings, key=_reading_value)


def _reading_value(reading: Sequence[Tile]) -> int:
    return sum(t.number for t in reading)


def _place(meant: Tile, reading: Sequence[Tile]) -> int:
    """Where a tile goes in natural order: by number in a run ('1' after 13 is high), by colour in a group."""
    if len({t.color for t in reading}) == 1:
        numbers = {t.number for t in reading}
        high = 13 in numbers and 2 not in numbers
        return 14 if meant.number == 1 and high else meant.number
    return int(meant.color)


# --- the integer program ----------------------------------------------------


class _Model:
    """The candidate columns that fit the tiles at hand, their rows, and the HiGHS call.

    ``reward`` is the secondary objective: a column that holds a whole set of
    the layout to keep (``keep``) earns that set's size.  Catalogue columns
    are checked for it at once; kept sets the catalogue lacks (runs longer
    than 5, sets with more jokers) and their extensions get columns of their own.
    """

    def __init__(self, cat: _Catalogue, avail: np.ndarray, low: np.ndarray) -> None:
        self.cat, self.avail, self.low = cat, avail, low
        idx = np.flatnonzero((cat.S <= avail).all(axis=1))
        self.S = cat.S[idx]
        self.size = cat.size[idx]
        self.value = cat.value[idx]
        self.face = cat.face[idx]
        self.layouts = [cat.layout[j] for j in idx]
        self.reward = np.zeros(len(idx), dtype=np.int64)
        self.rows: list[tuple[str, float, float]] = []

    @property
    def n(self) -> int:
        return len(self.size)

    def keep(self, table: Sequence[Sequence[Tile]], o: RuleOptions, extend: bool = True) -> None:
        """Reward columns holding a whole set of ``table`` (with up to two tiles added when ``extend``)."""
        extra: dict[tuple, tuple[list[Tile], int]] = {}
        for s in {tuple(sorted(s)): s for s in table}.values():
            counts = _counts(s)
            if not (counts <= self.avail).all():
                continue
            self.reward = np.maximum(self.reward, len(s) * (self.S >= counts).all(axis=1))
            pairs = _pairs(s, o)
            # a grown set can only fall outside the catalogue from 4 tiles or 2 jokers up
            extend_here = extend and (len(s) >= 4 or sum(t.is_joker for t in s) >= 2)
            grown = [] if pairs is None else [pairs, *(_extensions(pairs, o) if extend_here else ())]
            for shown in [list(s)] if pairs is None else [[t for t, _ in g] for g in grown]:
                key = (tuple(sorted(t.index for t in shown if not t.is_joker)), sum(t.is_joker for t in shown))
                if key not in self.cat.index and len(s) > extra.get(key, ((), 0))[1]:
                    extra[key] = (shown, len(s))
        columns = [(shown, r) for shown, r in extra.values() if (_counts(shown) <= self.avail).all()]
        if columns:
            self.S = np.vstack([self.S, [_counts(shown) for shown, _ in columns]])
            self.size = np.append(self.size, [len(shown) for shown, _ in columns])
            self.value = np.append(self.value, [_set_value(shown, o) for shown, _ in columns])
            self.face = np.append(self.face, [sum(t.number or 0 for t in shown) for shown, _ in columns])
            self.reward = np.append(self.reward, [r for _, r in columns])
            self.layouts += [tuple(shown) for shown, _ in columns]

    def add_row(self, measure: str, lower: float = -np.inf, upper: float = np.inf) -> None:
        """A bound on one of the column measures ("size" or "value") summed over the sets laid."""
        self.rows.append((measure, lower, upper))

    def solve(self, primary: str | None, third: str | None, third_max: int) -> list[list[Tile]] | None:
        """The sets laid for the best lexicographic objective; None if there is no solution.

        ``primary`` and ``third`` name column measures ("size", "value", "face");
        with no primary objective the search is mostly for any feasible layout.
        """
        zero = np.zeros(self.n, dtype=np.int64)
        w2 = third_max + 1
        w1 = (int(self.avail.sum()) + 1) * w2  # the reward never exceeds the tiles laid
        cost = w1 * (getattr(self, primary) if primary else zero) + w2 * self.reward
        cost = cost + (getattr(self, third) if third else zero)

        faces = np.flatnonzero(self.avail)
        blocks = [self.S[:, faces].T]
        lo = [self.low[faces].astype(float)]
        hi = [self.avail[faces].astype(float)]
        for measure, a, b in self.rows:
            blocks.append(getattr(self, measure)[None, :])
            lo.append(np.array([a], float))
            hi.append(np.array([b], float))
        A = np.vstack(blocks)
        safe = np.maximum(self.S, 1)
        ub = np.where(self.S > 0, self.avail[None, :] // safe, np.iinfo(np.int64).max).min(axis=1)
        chosen = _run_highs(cost, ub.astype(float), A, np.concatenate(lo), np.concatenate(hi), primary is None)
        if chosen is None:
            return None
        return [list(self.layouts[j]) for j in sorted(chosen) for _ in range(chosen[j])]


def _in_table_order(sets: list[list[Tile]], table: Sequence[Sequence[Tile]]) -> tuple[list[list[Tile]], int]:
    """Sets that hold a whole table set first, where that set lay; then the new ones. Also: how many."""
    if not sets:
        return [], 0
    have = np.array([_counts(s) for s in sets])
    free = np.ones(len(sets), dtype=bool)
    first = []
    for s in table:
        fits = np.flatnonzero(free & (have >= _counts(s)).all(axis=1))
        if len(fits):
            free[fits[0]] = False
            first.append(fits[0])
    rest = np.flatnonzero(free)
    return [sets[i] for i in [*first, *rest]], len(first)


def _pairs(tiles: Sequence[Tile], o: RuleOptions) -> list[tuple[Tile, Tile]] | None:
    """(tile as shown, tile it means) in natural order; None for a set of jokers only."""
    reading = _reading(tiles, o)
    if reading is None:
        return None
    return sorted(zip(tiles, reading), key=lambda p: _place(p[1], reading))


def _set_value(shown: list[Tile], o: RuleOptions) -> int:
    """The set's value as rules.sets counts it: a joker as the most valuable tile it may stand for."""
    if not any(t.is_joker for t in shown):
        return sum(t.number for t in shown)
    return analyse_set(shown, o).value or 0


def _extensions(base: list[tuple[Tile, Tile]], o: RuleOptions) -> list[list[tuple[Tile, Tile]]]:
    """The set with one or two tiles added: at a run's ends, or a group's missing colours.

    Built from what each tile means, so every result is a valid set by construction.
    """
    jokers_allowed = o.max_jokers if o.two_jokers_in_set else 1
    out: dict[tuple[int, ...], list[tuple[Tile, Tile]]] = {}
    frontier = [base]
    for _ in range(2):
        nxt = []
        for pairs in frontier:
            meant = [m for _, m in pairs]
            jokers = sum(shown.is_joker for shown, _ in pairs)
            if len({m.color for m in meant}) == 1:  # a run: the next number at either end
                colour, numbers = meant[0].color, [_place(m, meant) for m in meant]
                ends = []
                if numbers[0] > 1:
                    ends.append((0, Tile(colour, numbers[0] - 1)))
                if numbers[-1] < 13 or (o.one_high and numbers[-1] == 13 and numbers[0] > 1):
                    ends.append((len(pairs), Tile(colour, numbers[-1] % 13 + 1)))
            else:  # a group: a missing colour, laid in colour order
                have = {m.color for m in meant}
                ends = [] if len(pairs) >= 4 else [
                    (sum(m.color < c for m in meant), Tile(c, meant[0].number)) for c in Color if c not in have
                ]
            for at, new in ends:
                for shown in (new, JOKER) if jokers < jokers_allowed else (new,):
                    grown = [*pairs[:at], (shown, new), *pairs[at:]]
                    key = tuple(sorted(t.index for t, _ in grown))
                    if key not in out:
                        out[key] = grown
                        nxt.append(grown)
        frontier = nxt
    return list(out.values())


def _run_highs(cost, ub, A, row_lo, row_hi, feasibility: bool = False) -> dict[int, int] | None:
    n = len(cost)
    if n == 0:
        return None
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)  # every objective coefficient is whole
    h.setOptionValue("threads", 1)
    # presolve and the costlier root heuristics take far longer than the search itself here;
    # only the feasibility jump pays, when any layout at all is sought (arrange)
    h.setOptionValue("presolve", "off")
    for heuristic in ("rins", "rens", "root_reduced_cost"):
        h.setOptionValue(f"mip_heuristic_run_{heuristic}", False)
    h.setOptionValue("mip_heuristic_run_feasibility_jump", feasibility)
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = A.shape[0]
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_ = np.zeros(n)
    lp.col_upper_ = ub
    lp.row_lower_ = row_lo
    lp.row_upper_ = row_hi
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n
    csc = A.T  # columns as rows
    nz_col, nz_row = np.nonzero(csc)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(nz_col, np.arange(n + 1)).astype(np.int32)
    lp.a_matrix_.index_ = nz_row.astype(np.int32)
    lp.a_matrix_.value_ = csc[nz_col, nz_row].astype(float)
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    x = np.rint(np.asarray(h.getSolution().col_value)).astype(int)
    return {int(j): int(x[j]) for j in np.flatnonzero(x)}


__all__ = ["OBJECTIVES", "Solution", "arrange", "solve", "suggest_rearrangement", "tile_box"]
