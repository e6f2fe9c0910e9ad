"""Sets on the table: is this row of tiles a group or a run, and what do its jokers stand for?

A set is judged as a multiset: tiles laid a little out of order by a hand or
read slightly out of order by the camera are still the same set.  A joker
stands for the tile of its place: in a run laid in ascending order (the usual
way, left to right) its place says which tile it is, failing that in
descending order, and only a set laid in no order is read at its most
valuable.  The set's value follows that reading (``J K9 K10`` is K8 K9 K10,
27; ``J R5 R6 J`` is R4-R7, 22).  Only where the order leaves a real choice
(``J J R13``: a group of 13s or R11 R12 R13) does the value take the most
valuable reading.

Every verdict is cached: the same set is judged again on every camera frame
and by the turn validator, so repeated sets cost a dictionary lookup.  A run
is found by sliding a window over 1-13 (1-14 with '1' high), never by trying
what each joker might be.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations
from typing import Sequence

from rules.options import RuleOptions, require
from rules.problems import Problem
from rules.tiles import ALL_FACES, JOKER, Color, Tile

HIGH_ONE = 14  # a '1' played after 13 (American and International)
_COLOURS = tuple(Color)  # iterating the enum class itself is slow
# _FACES[colour][number] is the shared Tile (number 14 is the high '1'): no Tile is built per call
_FACES = {c: [None] + [ALL_FACES[int(c) * 13 + k - 1] for k in range(1, 14)] + [ALL_FACES[int(c) * 13]]
          for c in Color}


@dataclass(frozen=True)
class SetVerdict:
    """What a set is: valid or not (and why), run or group, its value and its joker readings."""

    tiles: tuple[Tile, ...]
    valid: bool
    kind: str | None  # "run" | "group" | None
    value: int | None  # a joker counts as the tile its place says; the highest only where that leaves a choice
    issue: Problem | None
    readings: tuple[tuple[Tile, ...], ...]  # each: the whole set, jokers replaced, same order
    kinds: tuple[str, ...] = ()  # kind of each reading
    ranks: tuple[int, ...] = ()  # 0 group or ascending run as laid, 1 descending run as laid, 2 not as laid

    @property
    def problem(self) -> str | None:
        """The plain words of :attr:`issue`."""
        return None if self.issue is None else self.issue.message

    @property
    def ambiguous(self) -> bool:
        return len(self.readings) > 1

    def laid_readings(self) -> list[tuple[Tile, ...]]:
        """The readings the order of the tiles allows (best order first); all of them if none does."""
        if not self.ranks:
            return list(self.readings)
        best = min(self.ranks)
        return [r for r, k in zip(self.readings, self.ranks) if k == best]

    def joker_meanings(self) -> list[frozenset[Tile]]:
        """For each joker (in order of place) the tiles it may stand for.

        Readings that respect the order the tiles were laid in win over the
        others: a joker laid after R5 R6 stands for R7, not R4.
        """
        spots = [i for i, t in enumerate(self.tiles) if t.is_joker]
        use = self.laid_readings()
        return [frozenset(r[i] for r in use) for i in spots]

    def to_dict(self) -> dict:
        return {
            "tiles": [t.code for t in self.tiles],
            "valid": self.valid,
            "kind": self.kind,
            "value": self.value,
            "problem": self.problem,
            "code": None if self.issue is None else self.issue.code,
            "concerns": [] if self.issue is None else [t.code for t in self.issue.tiles],
        }


def analyse_set(tiles: Sequence[Tile], options: RuleOptions) -> SetVerdict:
    """Judge one set under the rules ``options``."""
    o = require(options, "analyse_set")
    return _analyse(tuple(tiles), o.one_high, o.max_jokers, o.two_jokers_in_set)


def analyse_sets(sets: Sequence[Sequence[Tile]], options: RuleOptions) -> list[SetVerdict]:
    """Judge sets that lie on one table together: each as :func:`analyse_set`, and a set
    that takes more copies of a tile than the box holds (with the sets before it) is not valid."""
    o = require(options, "analyse_sets")
    box, seen, out = o.box, Counter(), []
    for s in sets:
        v = analyse_set(s, o)
        seen.update(s)
        over = {t: n for t, n in seen.items() if n > box.count(t) and t in s}
        if over:
            v = replace(v, valid=False, kind=None, value=None, readings=(), kinds=(), ranks=(), issue=Problem(
                "box_exceeded", tuple(sorted(over)),
                f"the table holds {box.describe_excess(dict(sorted(over.items())))}"))
        out.append(v)
    return out


def is_valid_set(tiles: Sequence[Tile], options: RuleOptions) -> bool:
    return analyse_set(tiles, options).valid


def set_value(tiles: Sequence[Tile], options: RuleOptions) -> int | None:
    return analyse_set(tiles, options).value


def suggest_missing(tiles: Sequence[Tile | None], options: RuleOptions) -> list[Tile]:
    """For a set with one unreadable place (``None``), every tile that would make it valid.

    Number tiles come first in index order, then the joker when a joker would do.
    """
    holes = [i for i, t in enumerate(tiles) if t is None]
    if len(holes) != 1:
        raise ValueError(f"suggest_missing needs exactly one unknown tile (None), got {len(holes)}")
    i = holes[0]
    out = []
    for face in ALL_FACES:
        trial = list(tiles)
        trial[i] = face
        if analyse_set(trial, options).valid:
            out.append(face)
    return out


def colours_in_doubt(tiles: Sequence[Tile], options: RuleOptions) -> tuple[int, ...]:
    """For a set invalid as read from a photo whose colours cannot be trusted (grey-scale, very dark, a
    strong colour cast): the places of the tiles whose colour, read otherwise, would make it valid;
    empty when no colours would (its numbers alone rule it out).

    The numbers are read from the shapes and stand; only the colours are in question.  Two recolourings
    cover every valid set: a group's tiles all in different colours (the tiles that share a colour are
    in doubt), a run's all in one (the tiles not of the colour most of them show are in doubt).
    """
    if analyse_set(tiles, options).valid:
        return ()
    places = [i for i, t in enumerate(tiles) if not t.is_joker]
    if not places:
        return ()
    shown = Counter(tiles[i].color for i in places)
    doubt: set[int] = set()
    shared = [i for i in places if shown[tiles[i].color] > 1]
    free = iter([c for c in Color if c not in shown] + [c for c in Color if shown[c] == 1])
    as_group = list(tiles)
    for i in shared[1:]:  # the first keeps its colour, the rest take free ones
        colour = next(free, None)
        if colour is None:
            break
        as_group[i] = Tile(colour, tiles[i].number)
    if shared and analyse_set(as_group, options).valid:
        doubt.update(shared)
    most = shown.most_common(1)[0][0]
    as_run = [Tile(most, t.number) if not t.is_joker else t for t in tiles]
    if analyse_set(as_run, options).valid:
        doubt.update(i for i in places if tiles[i].color != most)
    return tuple(sorted(doubt))


def clear_cache() -> None:
    """Forget cached verdicts (for benchmarks that want a cold start)."""
    _analyse.cache_clear()


def _colour(c: Color) -> str:
    return c.name.lower()


@lru_cache(maxsize=1 << 16)
def _analyse(tiles: tuple[Tile, ...], one_high: bool, max_jokers: int, two_jokers: bool) -> SetVerdict:
    n = len(tiles)
    spots: list[int] = []
    naturals: list[Tile] = []
    for i, t in enumerate(tiles):
        if t.__class__ is not Tile:
            raise TypeError(f"a set holds tiles, not {t!r}")
        if t.color is None:
            spots.append(i)
        else:
            naturals.append(t)
    k = len(spots)

    def bad(code: str, message: str, concerns=None) -> SetVerdict:
        return SetVerdict(tiles, False, None, None, Problem(code, tuple(tiles if concerns is None else concerns),
                                                             message), ())

    if n < 3:
        return bad("too_few_tiles", f"a set needs at least 3 tiles; this one has {n}")
    if k > max_jokers:
        return bad("too_many_jokers", f"{k} jokers, but the box holds only {max_jokers}", (JOKER,) * k)
    if k > 1 and not two_jokers:
        return bad("two_jokers_in_set", "two jokers in one set are not allowed under these rules", (JOKER,) * k)
    if not naturals:
        return _all_jokers(tiles)

    found: list[tuple[tuple[Tile, ...], str, int, int]] = []  # reading, kind, value, rank of its order
    numbers = {t.number for t in naturals}
    colours = {t.color for t in naturals}
    if len(numbers) == 1 and n <= 4 and len(colours) == len(naturals):
        x = naturals[0].number
        missing = [c for c in _COLOURS if c not in colours]
        for combo in combinations(missing, k):
            r = list(tiles)
            for i, c in zip(spots, combo):
                r[i] = _FACES[c][x]
            found.append((tuple(r), "group", x * n, 0))
    if len(colours) == 1 and n <= 13:
        found.extend(_runs(tiles, naturals, spots, one_high))

    if not found:
        code, message, concerns = _why_not(tiles, naturals, k, one_high)
        return bad(code, message, concerns)
    found.sort(key=lambda f: (f[3], -f[2]))
    best = found[0]  # the order the tiles lie in first; among equally good orders, the most valuable
    return SetVerdict(
        tiles=tiles,
        valid=True,
        kind=best[1],
        value=best[2],
        issue=None,
        readings=tuple(f[0] for f in found),
        kinds=tuple(f[1] for f in found),
        ranks=tuple(f[3] for f in found),
    )


def _runs(tiles, naturals, spots, one_high):
    """Every window of consecutive numbers that the naturals fit, jokers filling the rest."""
    n = len(tiles)
    colour = naturals[0].color
    faces = _FACES[colour]
    nums = [t.number for t in naturals]
    if len(set(nums)) != len(nums):
        return []
    top = HIGH_ONE if one_high else 13
    mappings = [nums]
    if one_high and 1 in nums:
        mappings.append([HIGH_ONE if x == 1 else x for x in nums])
    nat_places = [i for i, t in enumerate(tiles) if not t.is_joker]
    out = []
    for mapped in mappings:
        lo, hi = min(mapped), max(mapped)
        for s in range(max(1, hi - n + 1), min(lo, top - n + 1) + 1):
            e = s + n - 1
            if s == 1 and e == HIGH_ONE:
                continue  # '1' low and high at once
            up = all(m == s + i for m, i in zip(mapped, nat_places))
            down = not up and all(m == e - i for m, i in zip(mapped, nat_places))
            if up:
                fill = [s + i for i in spots]
            elif down:
                fill = [e - i for i in spots]
            else:
                fill = sorted(set(range(s, e + 1)).difference(mapped))
            r = list(tiles)
            for i, num in zip(spots, fill):
                r[i] = faces[num]
            value = (s + e) * n // 2 - (13 if e == HIGH_ONE else 0)
            out.append((tuple(r), "run", value, 0 if up else 1 if down else 2))
    return out


def _all_jokers(tiles: tuple[Tile, ...]) -> SetVerdict:
    """Only jokers (possible with the XP box): valid, but what it is must be declared at the table."""
    n = len(tiles)
    group = 13 * n if n <= 4 else 0
    run = sum(range(14 - n, 14))
    return SetVerdict(tiles, True, None, max(group, run), None, ())


def _why_not(tiles, naturals, k, one_high) -> tuple[str, str, tuple[Tile, ...]]:
    """The plainest true reason a set is not valid: code, words, the tiles concerned."""
    n = len(tiles)
    numbers = sorted({t.number for t in naturals})
    colours = {t.color for t in naturals}
    dup = sorted(t for t in set(naturals) if naturals.count(t) > 1)
    if len(numbers) == 1 and len(colours) < len(naturals):
        again = [_colour(c) for c in Color if sum(t.color == c for t in naturals) > 1]
        twice = tuple(t for t in naturals if sum(u.color == t.color for u in naturals) > 1)
        return "group_repeats_colour", (
            f"a group needs different colours, but {' and '.join(again)} "
            f"appear{'s' if len(again) == 1 else ''} more than once ({', '.join(map(str, dup))})"
        ), twice
    if len(numbers) == 1:
        return "group_too_long", f"a group has at most 4 tiles; this one has {n}", tuple(tiles)
    if len(colours) > 1:
        return "mixed_set", (
            "neither a group (the numbers differ: "
            f"{', '.join(map(str, numbers))}) nor a run (the colours differ: "
            f"{', '.join(_colour(c) for c in Color if c in colours)})"
        ), tuple(naturals)
    colour = _colour(naturals[0].color)
    if dup:
        return "run_repeats_number", (
            f"a run needs different numbers, but {', '.join(map(str, dup))} "
            f"appear{'s' if len(dup) == 1 else ''} more than once"
        ), tuple(t for t in naturals if t in dup)
    if n > 13:
        return "run_too_long", f"a run has at most 13 tiles; this one has {n}", tuple(tiles)
    fits_high = False
    if 1 in numbers and len(numbers) > 1:
        high = sorted(HIGH_ONE if x == 1 else x for x in numbers)
        fits_high = (high[-1] - high[0] + 1) - len(numbers) <= k
        if fits_high and not one_high:
            return "one_always_low", "'1' is always low under these rules: it cannot follow 13", \
                tuple(t for t in naturals if t.number == 1)
    # 13-1-2 (or 13 J 2, 12 13 J 2 ...): a run only if it went round the corner
    corner = sorted(x + 13 if x <= 3 else x for x in numbers)
    if not fits_high and numbers[-1] >= 11 and numbers[0] <= 3 and corner[-1] - corner[0] + 1 - len(numbers) <= k:
        ends = tuple(t for t in naturals if t.number in (1, 2, 3, 11, 12, 13))
        if not one_high:
            return "one_always_low", "'1' is always low under these rules: it cannot follow 13", ends
        return "one_high_and_low", "a '1' may be high or low but not both: 13-1-2 is not a run", ends
    gaps = numbers[-1] - numbers[0] + 1 - len(numbers)
    return "run_gap", (
        f"the {colour} {numbers[0]}-{numbers[-1]} run is not consecutive: "
        f"{gaps} missing tile{'s' if gaps != 1 else ''}, {k} joker{'s' if k != 1 else ''} to fill"
    ), tuple(naturals)


__all__ = [
    "SetVerdict", "analyse_set", "analyse_sets", "is_valid_set", "set_value", "suggest_missing", "colours_in_doubt",
    "clear_cache", "JOKER",
]
