"""The move solver: the most a player can put down, and a legal layout of given tiles.

This is the integer program of den Hertog and Hulshof (2006), made to follow
the same rules as the turn judge.  Every set a player could lay (runs of 3-5
tiles, groups of 3-4, jokers as the rules allow) is a column ``x_j``
counting how often it is laid; for each tile face the sets laid must hold
every table tile and at most the rack tiles on top:

    t_i <= sum_j s_ij x_j <= t_i + r_i

so the rack tiles played are ``sum_j s_ij x_j - t_i``.  Longer runs never
need a column: a run of 6 or more splits into runs of 3-5 (table sets the
catalogue lacks get columns of their own).  HiGHS (``highspy``) solves the
program (rules.highs): first its linear relaxation, whose optimum is whole
for most moves; otherwise a dive from it (round one column up, solve again)
or the integer search finds a whole solution that reaches the relaxation's
bound on the chosen objective, which proves it the best.

Jokers are modelled by what they stand for, as the judge (rules.turns) reads
them: a run column exists for every place a joker can take (``R5 R6 J`` is
R7, ``J R5 R6`` is R4) and is worth the judge's value of that layout.  A
table joker keeps standing for its tile unless that tile is put on the
table (one row per joker meaning).  Table sets that may only grow (every set
where the game knows no manipulation, as in American and International;
sets holding a joker where those are fixed) are blocks: exactly one of their
grown forms is laid, and a form with a joker replaced by its tile sets that
joker free.

What linear rows do not say (where a freed joker may be re-used, the tile
left for the discard in the American family, ...) the judge says: each
optimum goes to :func:`rules.turns.validate_turn` with the same options, and
an optimum it rejects is cut off (a no-good cut) and the program solved
again.  The answer is therefore always a move the judge accepts, and no
move the judge accepts is better in the chosen objective.

Objectives, one after the other (weights keep them strictly ordered; the
first is always the optimum, the other two are tie-breaks, optimal where the
relaxation's optimum is whole and otherwise as good as the dive or search
found them once the first reached its bound):

1. the chosen one: ``"tiles"`` (most rack tiles) or ``"value"`` (most
   points: the table's value after the move minus before, a joker counting
   as the tile it stands for, as in the initial-meld rule of seed 004_*);
2. keep the table as it lies: every set laid that holds a whole table set
   (as it was, or with tiles added) earns that set's size, so the suggestion
   is easy to lay out by hand;
3. the other measure (with ``"tiles"``: the value of the table after the
   move, jokers as the tiles their places say; with ``"value"``: how many tiles).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product
from typing import Iterable, Sequence

import numpy as np

from rules.highs import Program
from rules.options import RuleOptions, require
from rules.sets import analyse_set
from rules.tiles import ALL_FACES, JOKER, JOKER_INDEX, Color, RuleError, Tile, TileSet, format_tiles
from rules.turns import validate_turn

OBJECTIVES = ("tiles", "value")
_FACES = JOKER_INDEX + 1  # 52 number faces and the joker
MAX_CUTS = 200  # optima the judge may reject before the solver gives up (never reached in the tests)


class SolverError(RuntimeError):
    """The judge rejected more optima than :data:`MAX_CUTS`: no answer rather than an unproven one."""


@dataclass
class Solution:
    """A move: the rack tiles played and the whole table after it.

    ``value`` is the table's value after the move minus its value before, a
    joker counting as the tile it stands for; with the table untouched it is
    the value of the tiles put down.  ``kept`` counts table sets left
    together (unchanged or only added to).  ``rounds`` is how many optima the
    program produced before the judge accepted one (1: the first).
    """

    count: int
    value: int
    placed: list[Tile]
    sets: list[list[Tile]]
    kept: int = 0
    rounds: int = 1

    def to_dict(self) -> dict:
        return {
            "count": self.count,
            "value": self.value,
            "placed": [t.code for t in self.placed],
            "sets": [[t.code for t in s] for s in self.sets],
        }


def tile_box(options: RuleOptions) -> TileSet:
    """The box the options play with (``options.box``)."""
    return require(options, "tile_box").box


def solve(
    table: Sequence[Sequence[Tile]],
    rack: Sequence[Tile],
    *,
    objective: str = "tiles",
    initial: int | None = None,
    options: RuleOptions,
) -> Solution | None:
    """The best legal move from ``rack`` onto ``table``, or None when no rack tile can be played.

    In the American family ``rack`` is the rack after the turn's draw, and one
    tile is always left on it for the discard.

    With ``initial=N`` the move is an initial meld: new sets from rack tiles
    only, together worth at least N, the table left as it is.  Every move
    returned is one :func:`rules.turns.validate_turn` accepts under the same
    options.  Raises RuleError for an invalid table set (named) or more
    copies of a tile than the box holds.
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

    cat = _catalogue(o.one_high, _jokers_per_set(o))
    table_counts = _counts(t for s in table for t in s)
    rack_counts = _counts(rack)
    before = sum(_set_value(s, o) for s in table)
    n_table = int(table_counts.sum())
    most = len(rack) - 1 if o.flow.draw_then_discard else len(rack)  # one tile is left for the discard

    if initial is not None:
        # new sets from the rack alone; the table stays exactly as it lies
        model = _Model(cat, avail=rack_counts, low=np.zeros(_FACES, dtype=np.int64))
        model.add_row("size", lower=1, upper=most)
        model.add_row("value", lower=initial)
        judge = o.replace(initial_meld=initial)
    else:
        model = _Model(cat, avail=table_counts + rack_counts, low=table_counts)
        model.blocks(table, o)
        # sets that are blocks are kept by their block rows; the others are rewarded for staying whole
        model.keep([s for s in table if o.manipulation and (o.manipulate_joker_sets or JOKER not in s)], o)
        model.joker_rows(table, o)
        model.add_row("size", lower=n_table + 1, upper=n_table + most)
        judge = o

    if objective == "tiles":
        # ties go to the more valuable table (a joker counting as the tile its place says)
        weights = ("size", "value", 13 * (n_table + len(rack)))
    else:
        weights = ("value", "size", len(rack))
    search = model.search(*weights)
    rounds = 0
    for sets in search:
        rounds += 1
        if initial is not None:
            after, kept = [*(_natural(s, o) for s in table), *sets], len(table)
        else:
            after, kept = _in_table_order(sets, table)
        verdict = validate_turn(table, after, rack, has_melded=initial is None, options=judge, rack_is_whole=True)
        if verdict.legal:
            placed = sorted(verdict.placed)
            value = sum(_set_value(s, o) for s in after) - before
            return Solution(count=len(placed), value=value, placed=placed, sets=after, kept=kept, rounds=rounds)
        if rounds > MAX_CUTS:
            raise SolverError(f"the judge rejected {MAX_CUTS} optimal moves in a row; giving up")
    return None


def arrange(
    tiles: Iterable[Tile],
    options: RuleOptions,
    *,
    like: Sequence[Sequence[Tile]] | None = None,
) -> list[list[Tile]] | None:
    """A table of valid sets made of exactly ``tiles``, or None if there is none.

    ``like`` is a layout to stay close to (for example the illegal table a
    turn left behind): its valid sets are kept whole where possible.
    """
    o = require(options, "arrange")
    tiles = list(tiles)
    _check_tiles([], tiles, o)
    if not tiles:
        return []
    counts = _counts(tiles)
    cat = _catalogue(o.one_high, _jokers_per_set(o))
    model = _Model(cat, avail=counts, low=counts)
    like = [list(s) for s in like or () if analyse_set(list(s), o).valid]
    model.keep(like, o, extend=False)
    sets = next(model.search(None, None, 0), None)
    return None if sets is None else _in_table_order(sets, like)[0]


def suggest_rearrangement(
    before: Sequence[Sequence[Tile]],
    after: Sequence[Sequence[Tile]],
    options: RuleOptions,
) -> list[list[Tile]] | None:
    """After an illegal turn: a table of valid sets made of the tiles now on the table, or None.

    Sets that are valid in ``after`` (or were on the table ``before``) are
    kept whole where possible.
    """
    tiles = [t for s in after for t in s]
    return arrange(tiles, options, like=[*after, *before])


# --- checks -----------------------------------------------------------------


def _check_tiles(table: list[list[Tile]], rack: list[Tile], o: RuleOptions) -> None:
    for t in [*(t for s in table for t in s), *rack]:
        if not isinstance(t, Tile):
            raise TypeError(f"expected tiles, got {t!r}")
    o.box.check_counts([*(t for s in table for t in s), *rack])
    for i, s in enumerate(table, 1):
        verdict = analyse_set(s, o)
        if not verdict.valid:
            raise RuleError(f"table set {i} ({format_tiles(s)}) is not valid: {verdict.problem}")


def _count_rows(sets: Sequence[Sequence[Tile]]) -> np.ndarray:
    """Copies of each face in each set, one row per set (one count for them all)."""
    flat = [i * _FACES + t.index for i, s in enumerate(sets) for t in s]
    return np.bincount(flat, minlength=len(sets) * _FACES).astype(np.int64).reshape(len(sets), _FACES)


def _counts(tiles: Iterable[Tile]) -> np.ndarray:
    """Copies of each face (0-52) among ``tiles``."""
    return np.bincount([t.index for t in tiles], minlength=_FACES).astype(np.int64)


def _holds(have: np.ndarray, need: np.ndarray) -> np.ndarray:
    """``[i, k]``: row ``have[i]`` holds at least the copies ``need[k]`` of every face.

    Counted as sum_k [have >= c] [need >= c] over copies c, which reaches the
    tiles of ``need[k]`` exactly when every face is held (one product per copy).
    """
    hits = np.zeros((len(have), len(need)), dtype=np.int64)
    for c in range(1, int(need.max(initial=0)) + 1):
        hits += (have >= c).astype(np.int64) @ (need >= c).astype(np.int64).T
    return hits == need.sum(axis=1)[None, :]


def _jokers_per_set(o: RuleOptions) -> int:
    return min(2, o.max_jokers) if o.two_jokers_in_set else 1


# --- the candidate sets -----------------------------------------------------


@dataclass(frozen=True)
class _Catalogue:
    """Every candidate set once, laid out in order with each joker at the place of its tile."""

    S: np.ndarray  # (n, 53) copies of each face in each set
    size: np.ndarray
    value: np.ndarray  # the judge's value of the layout
    face: np.ndarray  # face value of the number tiles only
    layout: tuple[tuple[Tile, ...], ...]  # natural order, JOKER at its place
    meanings: tuple[tuple[frozenset, ...], ...]  # what each joker of the layout stands for (the judge's reading)
    index: dict  # (sorted natural indices, jokers) -> rows with those tiles
    keys: frozenset  # each layout as a tuple of tile indices


def _judged(shown: Sequence[Tile], one_high: bool) -> tuple[int, tuple[frozenset, ...]]:
    """Value and joker meanings of a layout as the judge reads it (box and joker limits do not matter here)."""
    if JOKER not in shown:  # a valid set of number tiles is worth their numbers ('1' counts 1, high or low)
        return sum(t.number for t in shown), ()
    verdict = analyse_set(shown, _CATALOGUE_RULES[one_high])
    return verdict.value or 0, tuple(verdict.joker_meanings())


_CATALOGUE_RULES = {flag: RuleOptions(one_high=flag, tile_set="xp") for flag in (False, True)}


@lru_cache(maxsize=8)
def _catalogue(one_high: bool, jokers_per_set: int) -> _Catalogue:
    shown_sets: dict[tuple[int, ...], tuple[Tile, ...]] = {}

    def add(meant: tuple[Tile, ...], group: bool) -> None:
        for k in range(min(jokers_per_set, len(meant) - 1) + 1):
            for spots in combinations(range(len(meant)), k):
                shown = tuple(JOKER if i in spots else t for i, t in enumerate(meant))
                # a group's jokers may stand for any missing colour: one layout per choice of tiles
                key = tuple(sorted(t.index for t in shown)) if group else tuple(t.index for t in shown)
                shown_sets.setdefault(key, shown)

    top = 14 if one_high else 13
    for colour in Color:
        for length in range(3, 6):
            for start in range(1, top - length + 2):
                add(tuple(Tile(colour, 1 if n == 14 else n) for n in range(start, start + length)), False)
    for number in range(1, 14):
        for size in (3, 4):
            for colours in combinations(Color, size):
                add(tuple(Tile(c, number) for c in colours), True)

    layouts = list(shown_sets.values())
    S = np.array([_counts(s) for s in layouts], dtype=np.int64)
    judged = [_judged(s, one_high) for s in layouts]
    value = np.array([v for v, _ in judged], dtype=np.int64)
    face = np.array([sum(t.number or 0 for t in s) for s in layouts], dtype=np.int64)
    index: dict = {}
    for j, s in enumerate(layouts):
        index.setdefault((tuple(sorted(t.index for t in s if not t.is_joker)), s.count(JOKER)), []).append(j)
    for a in (S, value, face):
        a.setflags(write=False)
    keys = frozenset(tuple(t.index for t in s) for s in layouts)
    return _Catalogue(S, S.sum(1), value, face, tuple(layouts), tuple(m for _, m in judged), index, keys)


def _natural(tiles: Sequence[Tile], o: RuleOptions) -> list[Tile]:
    """A valid set in natural order: runs ascending, groups by colour, jokers in their place."""
    pairs = _pairs(tiles, o)
    return list(tiles) if pairs is None else [shown for shown, _ in pairs]


def _reading(s: Sequence[Tile], o: RuleOptions) -> tuple[Tile, ...] | None:
    """What each tile of a valid set means, as the judge reads it (its first reading)."""
    verdict = analyse_set(list(s), o)
    return verdict.readings[0] if verdict.readings else None


def _place(meant: Tile, reading: Sequence[Tile]) -> int:
    """Where a tile goes in natural order: by number in a run ('1' after 13 is high), by colour in a group."""
    if len({t.color for t in reading}) == 1:
        numbers = {t.number for t in reading}
        high = 13 in numbers and 2 not in numbers
        return 14 if meant.number == 1 and high else meant.number
    return int(meant.color)


# --- the integer program ----------------------------------------------------


class _Model:
    """The candidate columns that fit the tiles at hand, their rows, and the HiGHS calls.

    ``reward`` is the secondary objective: a column that holds a whole set of
    the layout to keep (``keep``) earns that set's size.  Block columns
    (``blocks``) are the grown forms of table sets that may only grow; the
    blocks' "exactly one form" rows sit in ``eq_rows``.
    """

    def __init__(self, cat: _Catalogue, avail: np.ndarray, low: np.ndarray) -> None:
        self.cat, self.avail, self.low = cat, avail, low
        idx = np.flatnonzero((cat.S <= avail).all(axis=1))
        self.cat_rows = len(idx)  # the first columns come from the catalogue, the rest are appended
        self.S = cat.S[idx]
        self.size = cat.size[idx]
        self.value = cat.value[idx]
        self.face = cat.face[idx]
        self.layouts = [cat.layout[j] for j in idx]
        self.meanings = [cat.meanings[j] for j in idx]
        self.reward = np.zeros(len(idx), dtype=np.int64)
        self.rows: list[tuple[str, float, float]] = []
        self.extra_rows: list[tuple[np.ndarray, float, float]] = []  # dense coefficient rows over columns
        self.block_of = np.full(len(idx), -1, dtype=np.int64)  # the block a column is a form of (-1: none)

    @property
    def n(self) -> int:
        return len(self.size)

    def _append(self, shown_list: list[list[Tile]], o: RuleOptions, reward: list[int], block: int = -1) -> None:
        if not shown_list:
            return
        judged = [_judged(s, o.one_high) for s in shown_list]
        pad = np.zeros(len(shown_list))
        self.extra_rows = [(np.append(r, pad), a, b) for r, a, b in self.extra_rows]
        self.S = np.vstack([self.S, _count_rows(shown_list)])
        self.size = np.append(self.size, [len(s) for s in shown_list])
        self.value = np.append(self.value, [v for v, _ in judged])
        self.face = np.append(self.face, [sum(t.number or 0 for t in s) for s in shown_list])
        self.reward = np.append(self.reward, reward)
        self.layouts += [tuple(s) for s in shown_list]
        self.meanings += [m for _, m in judged]
        self.block_of = np.append(self.block_of, [block] * len(shown_list))

    def blocks(self, table: Sequence[Sequence[Tile]], o: RuleOptions) -> None:
        """Table sets that may only grow: each becomes exactly one of its grown forms.

        Without manipulation every table set is a block, and then no other
        column may hold table tiles: the rows on each face already see to it,
        since every table tile lies in its block's form.
        """
        if o.manipulation and o.manipulate_joker_sets:
            return
        n_blocks = 0
        added_jokers: dict[int, int] = {}  # column -> jokers added to a block's set (not its own)
        for s in table:
            if o.manipulation and JOKER not in s:
                continue
            pairs = _pairs(s, o)
            if pairs is None:  # jokers only: it stays as it is
                grown = [[(t, t) for t in s]]
            else:
                grown = [g for g in _forms(pairs, o, self.avail) if (_counts(t for t, _ in g) <= self.avail).all()]
            own = s.count(JOKER)
            start = self.n
            self._append([[t for t, _ in g] for g in grown], o, [len(s)] * len(grown), block=n_blocks)
            for k, g in enumerate(grown):
                # counted low where a joker is both freed and added (a relaxation: never cuts a legal move)
                added_jokers[start + k] = max(0, sum(t.is_joker for t, _ in g) - own)
            row = (self.block_of == n_blocks).astype(float)
            self.extra_rows.append((row, 1.0, 1.0))
            n_blocks += 1
        if o.retrieved_joker != "any_set" and any(added_jokers.values()):
            # a freed joker goes to a new set, so the jokers that extend table sets come from the rack
            row = np.zeros(self.n)
            row[list(added_jokers)] = list(added_jokers.values())
            rack_jokers = float(self.avail[JOKER_INDEX] - self.low[JOKER_INDEX])
            self.extra_rows.append((row, -np.inf, rack_jokers))
        if not o.manipulation:
            # the catalogue's columns are new sets: rack tiles (and freed jokers) only
            free = self.avail - self.low
            new = (self.block_of < 0) & (self.S[:, :JOKER_INDEX] <= free[None, :JOKER_INDEX]).all(axis=1)
            keep = (self.block_of >= 0) | new
            self._select(keep)

    def _select(self, keep: np.ndarray) -> None:
        idx = np.flatnonzero(keep)
        self.cat_rows = int((idx < self.cat_rows).sum())
        self.S, self.size, self.value = self.S[idx], self.size[idx], self.value[idx]
        self.face, self.reward, self.block_of = self.face[idx], self.reward[idx], self.block_of[idx]
        self.layouts = [self.layouts[j] for j in idx]
        self.meanings = [self.meanings[j] for j in idx]
        self.extra_rows = [(r[idx], a, b) for r, a, b in self.extra_rows]

    def keep(self, table: Sequence[Sequence[Tile]], o: RuleOptions, extend: bool = True) -> None:
        """Reward columns holding a whole set of ``table``; its own layout (and, when ``extend``,
        with one or two tiles added) becomes a column where the catalogue lacks it."""
        extra: dict[tuple, tuple[list[Tile], int]] = {}
        appended = {tuple(t.index for t in lay) for lay in self.layouts[self.cat_rows:]}
        distinct = list({tuple(sorted(s)): s for s in table}.values())
        counts = _count_rows(distinct)
        fits = (counts <= self.avail).all(axis=1)
        distinct, counts = [s for s, f in zip(distinct, fits) if f], counts[fits]
        if distinct:
            holds = _holds(self.S, counts) & (self.block_of < 0)[:, None]
            self.reward = np.maximum(self.reward, (holds * np.array([len(s) for s in distinct])).max(axis=1))
        for s in distinct:
            # the catalogue holds every run of 3-5 and group with jokers as the rules allow, so a
            # set can only fall outside it, or grow out of it, from 4 tiles or 2 jokers up
            extend_here = extend and (len(s) >= 4 or s.count(JOKER) >= 2)
            full_group = len(s) == 4 and len({t.number for t in s if not t.is_joker}) == 1
            if (not extend_here or full_group) and len(s) <= 5 and s.count(JOKER) <= 1:
                continue  # in the catalogue as it lies, and nothing to add
            pairs = _pairs(s, o)
            grown = [] if pairs is None else [pairs, *(_extensions(pairs, o, self.avail) if extend_here else ())]
            for shown in [list(s)] if pairs is None else [[t for t, _ in g] for g in grown]:
                key = tuple(t.index for t in shown)
                if key not in self.cat.keys and key not in appended and len(s) > extra.get(key, ((), 0))[1]:
                    extra[key] = (shown, len(s))
        columns = list(extra.values())
        if columns:
            need = _count_rows([shown for shown, _ in columns])
            fit = (need <= self.avail).all(axis=1)
            if not o.manipulation:
                free = self.avail - self.low
                fit &= (need[:, :JOKER_INDEX] <= free[:JOKER_INDEX]).all(axis=1)
            columns = [c for c, f in zip(columns, fit) if f]
        self._append([shown for shown, _ in columns], o, [r for _, r in columns])

    def joker_rows(self, table: Sequence[Sequence[Tile]], o: RuleOptions) -> None:
        """A table joker keeps standing for its tile unless that tile is put on the table.

        For each distinct reading M of table jokers (c of them): the jokers laid
        standing for a tile of M, plus the tiles of M supplied (from the rack,
        or anywhere on the table where the rules allow that), reach c.  The
        judge asks more (one supplied tile per freed joker, kept jokers matched
        one to one); this row is what it implies, so it never cuts a legal move.
        """
        need: Counter = Counter()
        for s in table:
            if JOKER in s:
                need.update(analyse_set(s, o).joker_meanings())
        if o.retrieved_joker != "any_set" and need:
            # a joker in a set holding a whole table set's tiles, standing for no tile a table joker
            # stood for, is not a table joker kept; a freed one may not go there: it comes from the rack
            old = [c for c in (_counts(t for t in s if not t.is_joker) for s in table) if c.any()]
            holds = np.zeros(self.n, dtype=bool)
            for c in old:
                holds |= (self.S[:, :JOKER_INDEX] >= c[None, :JOKER_INDEX]).all(axis=1)
            stood = frozenset().union(*need)
            foreign = np.array([sum(not (m & stood) for m in ms) for ms in self.meanings], dtype=float)
            row = np.where(holds, foreign, 0.0)
            if row.any():
                self.extra_rows.append((row, -np.inf, float(self.avail[JOKER_INDEX] - self.low[JOKER_INDEX])))
        if o.joker_freed_without_its_tile:
            return  # a joker may change what it stands for without its tile: no row is implied
        for m, c in need.items():
            faces = sorted(t.index for t in m)
            laid = np.array([sum(bool(a & m) for a in ms) for ms in self.meanings], dtype=float)
            supplied = self.S[:, faces].sum(axis=1).astype(float)
            lower = c + (0 if o.joker_replacement_from_table else float(self.low[faces].sum()))
            self.extra_rows.append((laid + supplied, lower, np.inf))

    def add_row(self, measure: str, lower: float = -np.inf, upper: float = np.inf) -> None:
        """A bound on one of the column measures ("size" or "value") summed over the sets laid."""
        self.rows.append((measure, lower, upper))

    def search(self, primary: str | None, third: str | None, third_max: int):
        """Optimal layouts, best first: each next one after the previous is cut off.

        ``primary`` and ``third`` name column measures ("size", "value", "face");
        with no primary objective the search is mostly for any feasible layout.
        """
        if self.n == 0:
            return
        zero = np.zeros(self.n, dtype=np.int64)
        w2 = third_max + 1
        w1 = (int(self.avail.sum()) + 1) * w2  # the reward never exceeds the tiles laid
        cost = w1 * (getattr(self, primary) if primary else zero) + w2 * self.reward
        cost = cost + (getattr(self, third) if third else zero)

        safe = np.maximum(self.S, 1)
        ub = np.where(self.S > 0, self.avail[None, :] // safe, np.iinfo(np.int64).max).min(axis=1)
        ub = np.where(self.block_of >= 0, np.minimum(ub, 1), ub)
        faces = np.flatnonzero(self.avail)
        blocks = [self.S[:, faces].T]
        lo = [self.low[faces].astype(float)]
        hi = [self.avail[faces].astype(float)]
        for measure, a, b in self.rows:
            blocks.append(getattr(self, measure)[None, :])
            lo.append(np.array([a], float))
            hi.append(np.array([b], float))
        for row, a, b in self.extra_rows:
            blocks.append(row[None, :])
            lo.append(np.array([a], float))
            hi.append(np.array([b], float))
        A = np.vstack(blocks).astype(float)
        row_lo, row_hi = np.concatenate(lo), np.concatenate(hi)
        cost = np.asarray(cost, float)

        # columns count the copies laid; an optimum the judge rejects is cut off
        # alone (no-good cut) and the program solved again
        h = Program(cost, A, row_lo, row_hi, primary is None, ub.astype(float), primary=w1 if primary else 0)
        while True:
            x = h.run()
            if x is None:
                return
            yield self._layout(Counter({j: int(x[j]) for j in np.flatnonzero(x)}))
            h.cut(x)

    def _layout(self, chosen: Counter) -> list[list[Tile]]:
        return [list(self.layouts[j]) for j in sorted(chosen) for _ in range(chosen[j])]


def _in_table_order(sets: list[list[Tile]], table: Sequence[Sequence[Tile]]) -> tuple[list[list[Tile]], int]:
    """Sets that hold a whole table set first, where that set lay; then the new ones. Also: how many."""
    if not sets:
        return [], 0
    holds = _holds(_count_rows(sets), _count_rows(table))
    free = np.ones(len(sets), dtype=bool)
    first = []
    for k in range(len(table)):
        fits = np.flatnonzero(free & holds[:, k])
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
    """The set's value as rules.sets counts it."""
    if not any(t.is_joker for t in shown):
        return sum(t.number for t in shown)
    return analyse_set(shown, o).value or 0


def _ends(pairs: list[tuple[Tile, Tile]], o: RuleOptions) -> tuple[list[Tile], list[Tile]]:
    """The tiles that could go before and after a set, nearest first, at most two a side (a group:
    its missing colours after)."""
    meant = [m for _, m in pairs]
    numbers = {m.number for m in meant}
    if len(numbers) > 1:  # a run, in order ('1' after 13 is high, as _place says)
        high = 13 in numbers and 2 not in numbers
        colour, numbers = int(meant[0].color), [14 if m.number == 1 and high else m.number for m in meant]
        top = 14 if o.one_high and numbers[0] > 1 else 13
        low = [ALL_FACES[colour * 13 + n - 1] for n in range(numbers[0] - 1, max(0, numbers[0] - 3), -1)]
        high = [ALL_FACES[colour * 13 + (0 if n == 14 else n - 1)] for n in range(numbers[-1] + 1, min(top, numbers[-1] + 2) + 1)]
        return low, high
    have = {m.color for m in meant}
    return [], [Tile(c, meant[0].number) for c in Color if c not in have]


def _extensions(base: list[tuple[Tile, Tile]], o: RuleOptions, avail: np.ndarray) -> list[list[tuple[Tile, Tile]]]:
    """The set with one or two tiles added: at a run's ends, or a group's missing colours."""
    return [g for g in _grow(base, o, avail, most=2) if len(g) > len(base)]


def _grow(base: list[tuple[Tile, Tile]], o: RuleOptions, avail: np.ndarray, most: int = 4):
    """Every form of the set with up to two tiles added at each end (a group: its missing
    colours), at most ``most`` in all, each added place a tile or a joker standing for it, that
    the tiles ``avail`` can make.  Built from what each tile means, so every result is a valid
    set by construction."""
    low, high = _ends(base, o)
    is_group = len({m.number for _, m in base}) == 1
    jokers_allowed = min(_jokers_per_set(o), int(avail[JOKER_INDEX]))
    have_jokers = sum(shown.is_joker for shown, _ in base)
    out = []
    if is_group:
        return _grow_group(base, o, avail, most, jokers_allowed - have_jokers)
    left = (avail - _counts(t for t, _ in base)).tolist()  # what the tiles at hand add to the set
    if min(left) < 0:
        return out
    more_jokers = min(jokers_allowed - have_jokers, left[JOKER_INDEX])
    for a in range(len(low) + 1):
        for b in range(len(high) + 1):
            if len(base) + a + b > 13 or a + b > most:
                continue
            before, after = low[:a][::-1], high[:b]
            added = before + after
            # each added place holds its tile or, where jokers are left, a joker; the run's tiles
            # are all different, so one of each added number tile at hand suffices
            for as_joker in product((False, True), repeat=a + b) if more_jokers > 0 else [(False,) * (a + b)]:
                if sum(as_joker) > more_jokers or any(left[t.index] < 1 for t, j in zip(added, as_joker) if not j):
                    continue
                shown = [JOKER if j else t for t, j in zip(added, as_joker)]
                out.append([*zip(shown[:a], before), *base, *zip(shown[a:], after)])
    return out


def _grow_group(base, o: RuleOptions, avail: np.ndarray, most: int, more_jokers: int):
    """A group with tiles of colours its number tiles lack added, and jokers; the jokers then stand
    for whichever colours are left (a joker that stood for K5 may stand for O5 once K5 is added)."""
    naturals = [t for t, _ in base if not t.is_joker]
    jokers = len(base) - len(naturals)
    missing = [Tile(c, naturals[0].number) for c in Color if c not in {t.color for t in naturals}]
    out = []
    for k in range(len(missing) + 1):
        for tiles in combinations(missing, k):
            for extra in range(max(0, more_jokers) + 1):
                size = len(base) + k + extra
                if k + extra == 0 or k + extra > most or size > 4 or k + jokers + extra > len(missing):
                    continue
                shown = [*naturals, *tiles, *[JOKER] * (jokers + extra)]
                if (_counts(shown) <= avail).all():
                    out.append(_pairs(shown, o))
    return [base, *out] if (_counts(t for t, _ in base) <= avail).all() else out


def _forms(pairs: list[tuple[Tile, Tile]], o: RuleOptions, avail: np.ndarray) -> list[list[tuple[Tile, Tile]]]:
    """A block's forms: the set grown at its ends, and with jokers replaced by their tiles (freeing them)."""
    bases = [pairs]
    spots = [i for i, (t, _) in enumerate(pairs) if t.is_joker]
    meant = [m for _, m in pairs]
    is_group = len({m.number for m in meant}) == 1
    for k in range(1, len(spots) + 1):
        for chosen in combinations(spots, k):
            if is_group:
                # a group's joker is freed by any missing colour; with both needed, by both
                missing = [Tile(c, meant[0].number) for c in Color if c not in {t.color for t, _ in pairs if not t.is_joker}]
                if o.group_joker_needs_both_colors and len(pairs) == 3 and len(spots) == 1:
                    naturals = [p for p in pairs if not p[0].is_joker]
                    bases.append(sorted([*naturals, *((t, t) for t in missing)], key=lambda p: int(p[1].color)))
                    continue
                keep = [p for i, p in enumerate(pairs) if i not in chosen]
                for fill in combinations(missing, k):
                    bases.append(sorted([*keep, *((t, t) for t in fill)], key=lambda p: int(p[1].color)))
            else:
                bases.append([(m, m) if i in chosen else (t, m) for i, (t, m) in enumerate(pairs)])
    freeable = o.joker_freed_without_its_tile
    if freeable:
        # the set without its joker(s), to be kept valid by the tiles added to it
        bases += [[p for i, p in enumerate(pairs) if i not in chosen]
                  for k in range(1, len(spots) + 1) for chosen in combinations(spots, k)]
    out, seen = [], set()
    for b in bases:
        if len(b) < 2:
            continue
        for g in _grow(b, o, avail):
            key = tuple(t.index for t, _ in g)
            if key not in seen and (not freeable or (len(g) >= 3 and analyse_set([t for t, _ in g], o).valid)):
                seen.add(key)
                out.append(g)
    return out


__all__ = ["OBJECTIVES", "MAX_CUTS", "Solution", "SolverError", "arrange", "solve", "suggest_rearrangement",
           "tile_box"]
