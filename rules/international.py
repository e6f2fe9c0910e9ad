"""International Rummikub: the 40 closed hands, their points, and the end-of-session settlement.

The table of hand types is data (number, name, description, points with 0, 1
or 2 jokers), copied in meaning from the seed text 004_* 'International
Rummikub'.  :func:`classify_closed_hand` finds the most valuable type any 14
tiles make: it lists every way to split them into groups and runs once, then
tests each type's condition on those splits; the hands that are not sets
(odd hands, pairs, waves, mosaic, grand square) have their own small checks.
'1' may be high (after 13) or low in a run, never both, except in the Royal
and the Mosaic which run from 1 (low) to 1 (high).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Iterator, Sequence

from rules.tiles import Color, RuleError, Tile

HIGH = 14  # a '1' used after 13


@dataclass(frozen=True)
class HandType:
    number: int
    name: str
    description: str
    points: tuple[int, int, int]  # with no joker, one joker, two jokers


@dataclass(frozen=True)
class Meld:
    """One set of a split: kind, colour (runs) and the numbers it covers (14 = high '1')."""

    kind: str  # "run" | "group"
    colour: Color | None
    numbers: tuple[int, ...]

    @property
    def value(self) -> int:
        return sum(1 if n == HIGH else n for n in self.numbers)


HAND_TYPES: tuple[HandType, ...] = tuple(
    HandType(i, name, desc, pts)
    for i, (name, desc, pts) in enumerate(
        [
            ("Basic", "14 tiles in groups and/or runs", (500, 400, 300)),
            ("Hand minor", "groups and/or runs with no tile higher than 9", (800, 700, 600)),
            ("Hand minor 51", "groups and/or runs, no tile higher than 9, total 51 or less", (1000, 900, 800)),
            ("Minor 51 groups", "groups only, total 51 or less", (1600, 1400, 1200)),
            ("Minor 51 runs", "runs only, total 51 or less", (1600, 1400, 1200)),
            ("Piccolo 41 odd", "any 14 tiles with total value 41 or less", (800, 700, 600)),
            ("Piccolo 41 sets", "groups and/or runs with total value 41 or less", (1400, 1200, 1000)),
            ("Piccolo 41 runs", "runs only with total value 41 or less", (1600, 1400, 1200)),
            ("Piccolo 41 groups", "groups only with total value 41 or less", (1600, 1400, 1200)),
            ("Grand odd", "any 14 tiles, none lower than 10 (1 counts high)", (700, 600, 500)),
            ("Grand sets", "groups and/or runs, no tile lower than 10 (1 counts high)", (1400, 1200, 1000)),
            ("Grand square", "eight tiles of the same number, the other six anything", (1600, 1400, 1200)),
            ("Four colours", "four runs of different colours", (900, 800, 700)),
            ("Four colours minor", "four runs of different colours, no tile higher than 9", (1000, 900, 800)),
            ("Four colours major", "four runs of different colours, no tile lower than 10 (1 high)", (1000, 900, 800)),
            ("Three colours", "three runs, each a different colour", (700, 600, 500)),
            ("Three colours minor", "three runs of different colours, no tile higher than 9", (900, 800, 700)),
            ("Three colours major", "three runs of different colours, no tile lower than 10 (1 high)", (900, 800, 700)),
            ("Two colours", "two, three or four runs using only two colours", (1000, 900, 800)),
            ("Two colours minor", "two to four runs in two colours, no tile higher than 9", (1400, 1200, 1000)),
            ("Two colours major", "two to four runs in two colours, no tile lower than 10 (1 high)", (1400, 1200, 1000)),
            ("Single colour odd", "any 14 tiles of one colour", (1600, 1400, 1200)),
            ("Single colour runs", "two, three or four runs of the same colour", (2000, 1800, 1600)),
            ("Royal", "a single 14-tile run from 1 (low) to 1 (high)", (2400, 2200, 2000)),
            ("Sticks", "four groups", (1000, 900, 800)),
            ("Sticks minor", "four groups, no tile higher than 9", (1400, 1200, 1000)),
            ("Sticks major", "four groups, no tile lower than 10 (1 high)", (1400, 1200, 1000)),
            ("Mosaic", "one mixed-colour run 1 (low) to 1 (high), no two neighbours of one colour", (1000, 900, 800)),
            ("Little wave", "two mixed-colour runs 1 to 7, no two neighbours of one colour", (1200, 1000, 900)),
            ("Big wave", "two mixed-colour runs 8 to 1 (high), no two neighbours of one colour", (1200, 1000, 900)),
            ("Little wave single colour", "two runs 1 to 7, both the same colour", (2600, 2400, 2200)),
            ("Big wave single colour", "two runs 8 to 1 (high), both the same colour", (2600, 2400, 2200)),
            ("Little wave two colours", "two runs 1 to 7, each in a different colour", (2200, 2000, 1800)),
            ("Big wave two colours", "two runs 8 to 1 (high), each in a different colour", (2200, 2000, 1800)),
            ("Seven pairs", "seven pairs of identical tiles", (1700, 1500, 1300)),
            ("Seven pairs minor", "seven pairs, no tile higher than 9", (2000, 1800, 1600)),
            ("Seven pairs major", "seven pairs, no tile lower than 10 (1 high)", (2000, 1800, 1600)),
            ("Seven pairs single colour", "seven pairs, all of one colour", (2200, 2000, 1800)),
            ("Little Blitz", "14 tiles in groups and/or runs on your first turn", (1600, 1400, 1200)),
            ("Grand Blitz", "14 tiles in groups and/or runs in your original hand (not the first player)",
             (2000, 1800, 1600)),
        ],
        start=1,
    )
)
BY_NAME = {h.name.lower(): h for h in HAND_TYPES}


@dataclass(frozen=True)
class ClosedHand:
    """The most valuable type a closed hand makes, and what it scores."""

    type: HandType
    jokers: int
    points: int
    melds: tuple[Meld, ...] = ()  # the split into sets, when the type is made of sets

    def to_dict(self) -> dict:
        return {"type": self.type.number, "name": self.type.name, "jokers": self.jokers, "points": self.points}


# ---------------------------------------------------------------- splits into sets

def _low(n: int) -> bool:  # "no tile higher than 9" (a low '1' is 1)
    return n <= 9


def _high(n: int) -> bool:  # "no tile lower than 10 (1 counts high)"
    return n >= 10 or n == 1


def splits(tiles: Sequence[Tile]) -> list[tuple[Meld, ...]]:
    """Every way to lay all ``tiles`` as groups and runs (jokers filling), without repeats.

    The search always places the lowest remaining tile first and remembers what
    each remainder (tiles left, jokers left) can become, so a hand is explored
    once per distinct remainder rather than once per path.
    """
    naturals = Counter(t for t in tiles if not t.is_joker)
    jokers = sum(t.is_joker for t in tiles)
    found = _split(naturals, jokers, {})
    return sorted(found, key=lambda s: [_meld_key(m) for m in s])


def _meld_key(m: Meld):
    return (m.kind, -1 if m.colour is None else int(m.colour), m.numbers)


def _split(naturals: Counter, jokers: int, memo: dict) -> frozenset:
    key = (tuple(sorted((t.index, n) for t, n in naturals.items() if n)), jokers)
    if key in memo:
        return memo[key]
    out: set[tuple[Meld, ...]] = set()
    if not +naturals:
        if jokers == 0:
            out.add(())
        # leftover jokers alone cannot make a set of 3 with the 106-tile box
    else:
        first = min(t for t in naturals if naturals[t])
        for meld, used, j in _melds_with(first, naturals, jokers):
            for rest in _split(naturals - used, jokers - j, memo):
                out.add(tuple(sorted(rest + (meld,), key=_meld_key)))
    memo[key] = frozenset(out)
    return memo[key]


def _melds_with(first: Tile, naturals: Counter, jokers: int) -> Iterator[tuple[Meld, Counter, int]]:
    """Every set that holds ``first``, from the remaining naturals and jokers."""
    x, c = first.number, first.color
    # groups of x: first plus 2-3 other colours or jokers
    others = [col for col in Color if col != c and naturals[Tile(col, x)]]
    for size in (3, 4):
        for j in range(0, min(jokers, size - 1) + 1):
            need = size - 1 - j
            if need > len(others):
                continue
            for pick in _combos(others, need):
                used = Counter({first: 1})
                for col in pick:
                    used[Tile(col, x)] += 1
                yield Meld("group", None, (x,) * size), used, j
    # runs of colour c through x (x=1 may sit low or high)
    places = [x] + ([HIGH] if x == 1 else [])
    for at in places:
        # below the lowest remaining tile of its colour only jokers fit (not so for a high '1')
        lowest = at - 12 if at == HIGH else max(at - 12, at - jokers)
        for s in range(max(1, lowest), at + 1):
            for e in range(max(at, s + 2), min(HIGH, s + 12) + 1):
                if s == 1 and e == HIGH:
                    continue
                yield from _fill_run(c, s, e, at, first, naturals, jokers)


def _fill_run(c, s, e, at, first, naturals, jokers):
    """Runs of colour c over s..e holding ``first`` at ``at``; other places natural or joker."""
    spots = [n for n in range(s, e + 1) if n != at]

    def rec(i: int, used: Counter, j: int):
        if i == len(spots):
            yield Meld("run", c, tuple(range(s, e + 1))), used, j
            return
        n = spots[i]
        tile = Tile(c, 1 if n == HIGH else n)
        if naturals[tile] - used[tile] > 0:
            u = used.copy()
            u[tile] += 1
            yield from rec(i + 1, u, j)
        if j < jokers:
            yield from rec(i + 1, used, j + 1)

    yield from rec(0, Counter({first: 1}), 0)


def _combos(items, k):
    from itertools import combinations

    return combinations(items, k)


# ---------------------------------------------------------------- conditions

def _numbers(split) -> list[int]:
    return [n for m in split for n in m.numbers]


def _runs_in(split, colours: Callable[[set], bool], count: Callable[[int], bool], cond=None) -> bool:
    if any(m.kind != "run" for m in split) or not count(len(split)):
        return False
    if cond and not all(cond(n) for n in _numbers(split)):
        return False
    return colours([m.colour for m in split])


def _distinct(cols) -> bool:
    return len(set(cols)) == len(cols)


def _total(split) -> int:
    return sum(m.value for m in split)


def _all(split, cond) -> bool:
    return all(cond(n) for n in _numbers(split))


_SPLIT_TESTS: dict[int, Callable[[tuple[Meld, ...]], bool]] = {
    1: lambda s: True,
    2: lambda s: _all(s, _low),
    3: lambda s: _all(s, _low) and _total(s) <= 51,
    4: lambda s: all(m.kind == "group" for m in s) and _total(s) <= 51,
    5: lambda s: all(m.kind == "run" for m in s) and _total(s) <= 51,
    7: lambda s: _total(s) <= 41,
    8: lambda s: all(m.kind == "run" for m in s) and _total(s) <= 41,
    9: lambda s: all(m.kind == "group" for m in s) and _total(s) <= 41,
    11: lambda s: _all(s, _high),
    13: lambda s: _runs_in(s, _distinct, lambda k: k == 4),
    14: lambda s: _runs_in(s, _distinct, lambda k: k == 4, _low),
    15: lambda s: _runs_in(s, _distinct, lambda k: k == 4, _high),
    16: lambda s: _runs_in(s, _distinct, lambda k: k == 3),
    17: lambda s: _runs_in(s, _distinct, lambda k: k == 3, _low),
    18: lambda s: _runs_in(s, _distinct, lambda k: k == 3, _high),
    19: lambda s: _runs_in(s, lambda c: len(set(c)) == 2, lambda k: 2 <= k <= 4),
    20: lambda s: _runs_in(s, lambda c: len(set(c)) == 2, lambda k: 2 <= k <= 4, _low),
    21: lambda s: _runs_in(s, lambda c: len(set(c)) == 2, lambda k: 2 <= k <= 4, _high),
    23: lambda s: _runs_in(s, lambda c: len(set(c)) == 1, lambda k: 2 <= k <= 4),
    25: lambda s: len(s) == 4 and all(m.kind == "group" for m in s),
    26: lambda s: len(s) == 4 and all(m.kind == "group" for m in s) and _all(s, _low),
    27: lambda s: len(s) == 4 and all(m.kind == "group" for m in s) and _all(s, _high),
}


def _odd_tests(naturals: list[Tile], jokers: int) -> set[int]:
    """Types 6, 10, 12, 22, 35-38: conditions on the tiles, not on a split."""
    ok = set()
    nums = [t.number for t in naturals]
    colours = {t.color for t in naturals}
    if sum(nums) + jokers <= 41:  # a joker may stand for a 1
        ok.add(6)
    if all(_high(n) for n in nums):
        ok.add(10)
    count = Counter(nums)
    if max(count.values(), default=0) + jokers >= 8:
        ok.add(12)
    if len(colours) <= 1:
        ok.add(22)
    same = Counter(naturals)
    singles = sum(n % 2 for n in same.values())
    if singles <= jokers and (jokers - singles) % 2 == 0:
        ok.add(35)
        if all(_low(n) for n in nums):
            ok.add(36)
        if all(_high(n) for n in nums):
            ok.add(37)
        if len(colours) <= 1:
            ok.add(38)
    return ok


def _rows_fit(naturals: list[Tile], jokers: int, rows: list[list[int]], rule: str) -> bool:
    """Can the tiles fill ``rows`` (each a list of numbers, 14 = high 1) under a colour rule?

    rule "mixed": no two neighbours in a row share a colour; "one": every row one
    colour, all rows the same; "two": each row one colour, rows different.
    """
    need = Counter(1 if n == HIGH else n for row in rows for n in row)
    have = Counter(t.number for t in naturals)
    if any(have[n] > need[n] for n in have) or sum(need.values()) - len(naturals) != jokers:
        return False
    pool = Counter(naturals)
    places = [(r, i) for r, row in enumerate(rows) for i in range(len(row))]
    chosen: dict[tuple[int, int], Color | None] = {}

    def ok_here(r: int, i: int, col: Color | None) -> bool:
        if col is None:
            return True  # a joker takes whatever colour suits
        if rule == "mixed":
            prev = chosen.get((r, i - 1))
            return prev is None or prev != col
        row_cols = {chosen[(r, k)] for k in range(i) if chosen.get((r, k)) is not None}
        if row_cols and col not in row_cols:
            return False
        other = {chosen[p] for p in chosen if p[0] != r and chosen[p] is not None}
        if rule == "one":
            return not other or col in other
        return col not in other  # "two"

    def rec(k: int, jokers_left: int) -> bool:
        if k == len(places):
            return True
        r, i = places[k]
        n = rows[r][i]
        n = 1 if n == HIGH else n
        for col in Color:
            t = Tile(col, n)
            if pool[t] and ok_here(r, i, col):
                pool[t] -= 1
                chosen[(r, i)] = col
                if rec(k + 1, jokers_left):
                    return True
                pool[t] += 1
                del chosen[(r, i)]
        if jokers_left:
            chosen[(r, i)] = None
            if rec(k + 1, jokers_left - 1):
                return True
            del chosen[(r, i)]
        return False

    return rec(0, jokers)


_LITTLE = list(range(1, 8))
_BIG = list(range(8, 15))
_ROW_TESTS = {
    24: ([list(range(1, 15))], "one"),
    28: ([list(range(1, 15))], "mixed"),
    29: ([_LITTLE, _LITTLE], "mixed"),
    30: ([_BIG, _BIG], "mixed"),
    31: ([_LITTLE, _LITTLE], "one"),
    32: ([_BIG, _BIG], "one"),
    33: ([_LITTLE, _LITTLE], "two"),
    34: ([_BIG, _BIG], "two"),
}


def matching_types(
    tiles: Sequence[Tile], *, first_turn: bool = False, original_hand: bool = False
) -> list[tuple[HandType, tuple[Meld, ...]]]:
    """Every hand type the 14 tiles make (with a split into sets where the type needs one)."""
    tiles = list(tiles)
    if len(tiles) != 14:
        raise RuleError(f"a closed hand has 14 tiles, not {len(tiles)}")
    jokers = sum(t.is_joker for t in tiles)
    if jokers > 2:
        raise RuleError(f"a closed hand may hold at most 2 jokers, not {jokers}")
    naturals = [t for t in tiles if not t.is_joker]
    found: dict[int, tuple[Meld, ...]] = {}
    all_splits = splits(tiles)
    for number, test in _SPLIT_TESTS.items():
        for s in all_splits:
            if test(s):
                found[number] = s
                break
    if all_splits:
        if first_turn:
            found[39] = all_splits[0]
        if original_hand:
            found[40] = all_splits[0]
    for number in _odd_tests(naturals, jokers):
        found[number] = ()
    for number, (rows, rule) in _ROW_TESTS.items():
        if _rows_fit(naturals, jokers, rows, rule):
            found[number] = ()
    return [(HAND_TYPES[n - 1], found[n]) for n in sorted(found)]


def classify_closed_hand(
    tiles: Sequence[Tile], *, first_turn: bool = False, original_hand: bool = False
) -> ClosedHand | None:
    """The most valuable of the 40 types the 14 tiles make, or None when they make none.

    Between types worth the same the later one in the table wins: it is the
    more particular (Sticks major over Grand sets, Piccolo 41 runs over Minor 51 runs).
    """
    jokers = sum(t.is_joker for t in tiles)
    best = None
    for ht, split in matching_types(tiles, first_turn=first_turn, original_hand=original_hand):
        pts = ht.points[jokers]
        if best is None or pts >= best.points:
            best = ClosedHand(ht, jokers, pts, split)
    return best


def hand_type(key: int | str) -> HandType:
    """A hand type by number (1-40) or name (case-insensitive)."""
    if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
        n = int(key)
        if not 1 <= n <= len(HAND_TYPES):
            raise RuleError(f"hand type {n} does not exist (1-{len(HAND_TYPES)})")
        return HAND_TYPES[n - 1]
    try:
        return BY_NAME[str(key).strip().lower()]
    except KeyError:
        raise RuleError(f"unknown closed hand type {key!r}") from None


# ---------------------------------------------------------------- settlement

@dataclass(frozen=True)
class Payment:
    payer: str
    payee: str
    amount: Fraction | int


def settlement(scores: dict[str, int], rate: Fraction | int = 1) -> tuple[list[Payment], dict[str, Fraction | int]]:
    """Each pair of players settles the difference of their scores times ``rate``.

    Returns the payments (one per pair with different scores, the lower score
    paying) and each player's net, which is ``rate * (n * score - sum of scores)``
    and sums to zero.
    """
    names = list(scores)
    pays: list[Payment] = []
    net: dict[str, Fraction | int] = {p: 0 for p in names}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            diff = (scores[a] - scores[b]) * rate
            if diff == 0:
                continue
            payer, payee = (b, a) if diff > 0 else (a, b)
            amount = abs(diff)
            pays.append(Payment(payer, payee, amount))
            net[payee] += amount
            net[payer] -= amount
    return pays, net


def international_tile_value(tile: Tile, joker: int = 30) -> int:
    """A loser's unmelded tile: 2-9 face value, 10-13 and 1 count 10 (a joker counts ``joker``)."""
    if tile.is_joker:
        return joker
    return 10 if tile.number >= 10 or tile.number == 1 else tile.number


def iter_types() -> Iterable[HandType]:
    return iter(HAND_TYPES)


__all__ = [
    "HAND_TYPES", "HandType", "ClosedHand", "Meld", "Payment", "classify_closed_hand", "matching_types",
    "splits", "settlement", "hand_type", "international_tile_value",
]
