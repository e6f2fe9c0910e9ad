"""Was a turn legal?  Compare the table before and after it with the player's rack.

Only the two pictures of the table are known, not the moves in between, so
every rule is checked on what changed: tiles that appeared (they must come from
the rack), tiles that vanished (never allowed), sets that changed, and jokers.
Jokers look alike, so a joker is followed by the tile it stands for: a joker
that stands for the same tile after the turn as before is the same joker; one
whose meaning changed was freed ("retrieved") and the rules on replacing and
re-using it apply.  Every broken rule is reported, in plain words.
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from dataclasses import dataclass, field
from typing import Sequence

from rules.options import RuleOptions, require
from rules.sets import SetVerdict, analyse_set
from rules.problems import Problem, plural, tile_list
from rules.tiles import ALL_FACES, JOKER, JOKER_INDEX, Tile, format_tiles



@dataclass
class TurnVerdict:
    """The judgement of one turn: legal or not, every problem (coded), and the rack tiles played."""

    legal: bool
    issues: list[Problem]
    placed: list[Tile]
    retrieved: list[frozenset[Tile]] = field(default_factory=list)  # what each freed joker stood for
    meld_value: int | None = None  # value of the initial meld, on that turn only

    @property
    def problems(self) -> list[str]:
        """The plain words of each problem."""
        return [p.message for p in self.issues]

    def to_dict(self) -> dict:
        return {"legal": self.legal, "problems": self.problems, "issues": [p.to_dict() for p in self.issues],
                "placed": [t.code for t in self.placed]}


@dataclass
class _Joker:
    set_index: int
    meanings: frozenset[Tile] | None  # None: in an invalid set, could be anything


def _names(tiles) -> str:
    return " or ".join(sorted(t.code for t in tiles)) or "an unknown tile"


def _joker_list(sets: list[tuple[Tile, ...]], verdicts: list[SetVerdict]) -> list[_Joker]:
    out = []
    for i, (s, v) in enumerate(zip(sets, verdicts)):
        if JOKER not in s:
            continue
        if v.valid and v.readings:
            out.extend(_Joker(i, m) for m in v.joker_meanings())
        else:
            out.extend(_Joker(i, None) for t in s if t.is_joker)
    return out


def _match(before: list[_Joker], after: list[_Joker]) -> dict[int, int]:
    """Largest pairing of before-jokers with after-jokers that keep their meaning (augmenting paths)."""
    def fits(b: _Joker, a: _Joker) -> bool:
        return b.meanings is None or a.meanings is None or bool(b.meanings & a.meanings)

    owner: dict[int, int] = {}  # after index -> before index

    def augment(bi: int, seen: set[int]) -> bool:
        for ai, a in enumerate(after):
            if ai in seen or not fits(before[bi], a):
                continue
            seen.add(ai)
            if ai not in owner or augment(owner[ai], seen):
                owner[ai] = bi
                return True
        return False

    for bi in range(len(before)):
        augment(bi, set())
    return {bi: ai for ai, bi in owner.items()}


def _counts(tiles) -> list[int]:
    out = [0] * (JOKER_INDEX + 1)
    for t in tiles:
        out[t.index] += 1
    return out


def _key(s: Sequence[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(s, key=lambda t: t.index))


def validate_turn(
    before: list[list[Tile]],
    after: list[list[Tile]],
    rack: list[Tile],
    *,
    has_melded: bool,
    options: RuleOptions,
    rack_is_whole: bool = False,
) -> TurnVerdict:
    """Judge the turn that turned table ``before`` into table ``after``, ``rack`` being the rack before it.

    In the American family a turn is draw, meld, discard, and one tile must be
    left for the discard (004_*: "not allowed to draw a tile and then meld all
    your tiles").  ``rack_is_whole=True`` says ``rack`` is the player's whole
    rack as it is when melding (after this turn's draw), so that rule is
    judged; otherwise (the rack before the draw, or only the tiles that
    appeared) the drawn tile may be the one discarded and the rule cannot be
    broken.
    """
    o = require(options, "validate_turn")
    before_sets = [tuple(s) for s in before if len(s)]
    after_sets = [tuple(s) for s in after if len(s)]
    problems: list[Problem] = []

    before_v = [analyse_set(s, o) for s in before_sets]
    after_v = [analyse_set(s, o) for s in after_sets]
    for i, (s, v) in enumerate(zip(after_sets, after_v), 1):
        if not v.valid:
            problems.append(Problem("invalid_set", s, f"set {i} ({format_tiles(s)}) is not valid: {v.problem}"))

    # counts per tile index (0-52): plain integer lists are much cheaper than Counters of Tiles
    n_before = _counts(t for s in before_sets for t in s)
    n_after = _counts(t for s in after_sets for t in s)
    n_rack = _counts(rack)
    vanished = [max(0, b - a) for b, a in zip(n_before, n_after)]
    added = [max(0, a - b) for b, a in zip(n_before, n_after)]
    gone = [ALL_FACES[i] for i in range(JOKER_INDEX) for _ in range(vanished[i])]
    if gone:
        problems.append(Problem("tile_taken_back", tuple(gone), (
            f"{tile_list(gone)} {plural(gone, 'was', 'were')} on the table before and "
            f"{plural(gone, 'is', 'are')} gone: tiles on the table may not be taken back to a rack")))
    if vanished[JOKER_INDEX]:
        problems.append(Problem("joker_taken_back", (JOKER,) * vanished[JOKER_INDEX], (
            "a joker left the table: a joker freed from a set must be played again the same turn "
            "and may not be kept on a rack")))
    strangers = [ALL_FACES[i] for i in range(JOKER_INDEX + 1) for _ in range(max(0, added[i] - n_rack[i]))]
    if strangers:
        problems.append(Problem("not_on_rack", tuple(strangers), (
            f"{tile_list(strangers)} {plural(strangers, 'was', 'were')} added to the table but "
            f"{plural(strangers, 'is', 'are')} not on the player's rack")))
    placed_n = [min(a, r) for a, r in zip(added, n_rack)]
    placed_count = Counter({ALL_FACES[i]: k for i, k in enumerate(placed_n) if k})
    placed: list[Tile] = []
    left = list(placed_n)
    for t in rack:
        if left[t.index]:
            left[t.index] -= 1
            placed.append(t)
    if not any(added):
        problems.append(Problem("nothing_played", (), (
            "no tile was added from the rack (a player who cannot or will not play draws a tile)")))
    if o.flow.draw_then_discard and rack_is_whole and rack and len(placed) == len(rack):
        problems.append(Problem("last_tile_melded", tuple(placed), (
            "every rack tile was melded: one tile must be left for the final discard "
            "(a player may not draw and then meld all tiles)")))
    box = o.box
    on_table = box.excess(ALL_FACES[i] for i, a in enumerate(n_after) for _ in range(a))
    over = box.excess(ALL_FACES[i] for i, (a, r, p) in enumerate(zip(n_after, n_rack, placed_n))
                      for _ in range(a + r - p))
    if on_table:
        problems.append(Problem("box_exceeded", tuple(on_table), (
            f"the table holds {box.describe_excess(on_table)}")))
    elif over:  # only with the tiles left on the rack: a verdict is read by every player, so none is named
        problems.append(Problem("box_exceeded", (), (
            f"the table and the player's rack hold more copies of a tile than the {box.name} box has: a tile "
            "is misread or the rack given is wrong (the rack's tiles are not named: they are its player's)")))

    # jokers, followed by what they stand for: of the ways to pair the jokers before with
    # those after (same meaning: the same joker; unpaired: freed), the one that breaks fewest rules
    jb = _joker_list(before_sets, before_v)
    ja = _joker_list(after_sets, after_v)
    best = None
    for kept in _pairings(jb, ja):
        found = _joker_problems(o, kept, jb, ja, before_sets, after_sets, before_v, n_after, placed_count,
                                has_melded)
        if best is None or (len(found[0]), len(found[1])) < (len(best[0]), len(best[1])):
            best = found
        if not best[0]:
            break  # a pairing that breaks no rule (the largest one comes first)
    joker_problems, freed = best
    problems.extend(joker_problems)
    retrieved = [b.meanings or frozenset() for b in freed]

    meld_value = None
    if not has_melded:
        meld_value = _initial_meld(o, before_sets, after_sets, after_v, placed_count, problems)

    return TurnVerdict(not problems, problems, placed, retrieved, meld_value)


def _pairings(before: list[_Joker], after: list[_Joker]):
    """Every pairing of before-jokers with distinct after-jokers that keep their meaning, largest
    first (a maximum matching leads, so one joker each is the usual case and costs little)."""
    def fits(b: _Joker, a: _Joker) -> bool:
        return b.meanings is None or a.meanings is None or bool(b.meanings & a.meanings)

    first = _match(before, after)
    yield first
    if len(before) <= 1 or not after:
        return

    def extend(i: int, used: frozenset, acc: dict):
        if i == len(before):
            yield dict(acc)
            return
        for ai, a in enumerate(after):
            if ai not in used and fits(before[i], a):
                acc[i] = ai
                yield from extend(i + 1, used | {ai}, acc)
                del acc[i]
        yield from extend(i + 1, used, acc)

    for kept in extend(0, frozenset(), {}):
        if kept != first:
            yield kept


def _joker_problems(o, kept, jb, ja, before_sets, after_sets, before_v, n_after, placed_count, has_melded):
    """The problems of one pairing of jokers (``kept``: before index -> after index), and the freed jokers."""
    problems: list[Problem] = []
    freed = [b for i, b in enumerate(jb) if i not in kept]
    matched_after = set(kept.values())
    landing = [a for i, a in enumerate(ja) if i not in matched_after]
    if freed and not has_melded:
        problems.append(Problem("joker_before_initial_meld", (JOKER,) * len(freed), (
            "a joker may not be taken from the table before the player's initial meld")))
    table_after = Counter({ALL_FACES[i]: k for i, k in enumerate(n_after) if k}) if freed else Counter()
    supply = Counter(placed_count) if not o.joker_replacement_from_table else Counter(table_after)
    source = "from the rack" if not o.joker_replacement_from_table else "on the table"
    for b in [] if o.joker_freed_without_its_tile else freed:
        meanings = b.meanings or frozenset()
        orig = before_sets[b.set_index]
        need_both = (
            o.group_joker_needs_both_colors and before_v[b.set_index].kind == "group"
            and len(orig) == 3 and orig.count(JOKER) == 1
        )
        if need_both:
            missing = [t for t in sorted(meanings) if supply[t] < 1]
            if missing:
                problems.append(Problem("joker_group_needs_both_colours", tuple(missing), (
                    f"the joker in the group {format_tiles(orig)} is freed only when both missing "
                    f"tiles are supplied {source}; {_names(missing)} {plural(missing, 'is', 'are')} missing")))
            for t in meanings:
                supply[t] -= 1
            continue
        got = next((t for t in sorted(meanings) if supply[t] > 0), None)
        if got is None:
            detail = ""
            if o.joker_replacement_from_table is False and any(table_after[t] for t in meanings):
                detail = " (the replacing tile must come from the rack under these rules)"
            problems.append(Problem("joker_not_replaced", (JOKER, *sorted(meanings)), (
                f"the joker that stood for {_names(meanings)} in {format_tiles(orig)} now stands for "
                f"another tile, but {_names(meanings)} was not put {source} in its place{detail}")))
        else:
            supply[got] -= 1
    _check_reuse(o, len(freed), landing, before_sets, after_sets, placed_count, problems)
    if has_melded or o.manipulate_on_initial_meld:
        _check_kept_whole(o, before_sets, after_sets, freed, problems)
    return problems, freed


def _check_kept_whole(o, before_sets, after_sets, freed, problems) -> None:
    """Sets that may only grow (all of them without manipulation; joker sets where those are
    fixed) must each lie inside a set of their own after the turn, a freed joker's place taken
    by the tile it stood for (004_*: "replace the joker by this tile"; "substitute the real tile
    for the joker"), or left empty where a joker may be freed without its tile."""
    if o.manipulation and o.manipulate_joker_sets:
        return
    freed_in: dict[int, list[frozenset]] = {}
    for b in freed:
        freed_in.setdefault(b.set_index, []).append(b.meanings or frozenset())
    blocks = [i for i, s in enumerate(before_sets) if not o.manipulation or JOKER in s]
    holds = [Counter(s) for s in after_sets]
    fits = []
    for i in blocks:
        base = Counter(before_sets[i])
        base[JOKER] -= len(freed_in.get(i, ()))
        if o.joker_freed_without_its_tile:
            choices = [()]
        elif (o.group_joker_needs_both_colors and len(before_sets[i]) == 3 and i in freed_in
              and len({t.number for t in before_sets[i] if not t.is_joker}) == 1):
            choices = [tuple(t for m in freed_in[i] for t in m)]
        else:
            choices = list(product(*(sorted(m) for m in freed_in.get(i, ()))))
        needs = [+(base + Counter(c)) for c in choices]
        fits.append([any(all(h[t] >= n for t, n in need.items()) for need in needs) for h in holds])
    owner: dict[int, int] = {}  # after set -> block (a maximum matching, augmenting paths)

    def augment(k: int, seen: set[int]) -> bool:
        for a, ok in enumerate(fits[k]):
            if ok and a not in seen:
                seen.add(a)
                if a not in owner or augment(owner[a], seen):
                    owner[a] = k
                    return True
        return False

    broken = [blocks[k] for k in range(len(blocks)) if not augment(k, set())]
    for i in broken:
        s = before_sets[i]
        if not o.manipulation:
            problems.append(Problem("manipulation_not_allowed", s, (
                f"the set {format_tiles(s)} was split or rearranged: in this game table sets may only be "
                "extended with rack tiles (and a melded joker replaced by its tile), not manipulated")))
        else:
            problems.append(Problem("joker_set_rearranged", s, (
                f"the set {format_tiles(s)} holds a joker: tiles may be added to it, "
                "but it may not be split or rearranged")))


def _check_reuse(o, n_freed, landing, before_sets, after_sets, placed_count, problems) -> None:
    """Each joker freed this turn must land in a set the rule ``retrieved_joker`` allows.

    Freed jokers and jokers played from the rack look alike, so the freed ones
    are given the best landing places; jokers from the rack take the rest.
    """
    if o.retrieved_joker == "any_set" or not n_freed:
        return
    verdicts = [_reuse_problem(o, after_sets[a.set_index], before_sets, placed_count) for a in landing]
    bad = [p for p in verdicts if p is not None]
    good = len(verdicts) - len(bad)
    problems.extend(bad[: max(0, n_freed - good)])


def _reuse_problem(o, s, before_sets, placed_count) -> Problem | None:
    """Why a freed joker may not land in after-set ``s`` (None: it may)."""
    rule = o.retrieved_joker
    have = Counter(s)
    existed = any(
        all(have[t] >= n for t, n in need.items())
        for need in (Counter(t for t in old if not t.is_joker) for old in before_sets)
        if need
    )
    label = format_tiles(s)
    if existed:
        return Problem("freed_joker_in_old_set", s, (
            f"the freed joker was put into {label}, which extends a set already on the table; "
            "it must be played in a new set"))
    if rule == "new_set":
        return None
    from_rack = Counter({t: min(n, placed_count[t]) for t, n in have.items() if not t.is_joker})
    n_rack = sum(from_rack.values())
    if n_rack < 2:
        return Problem("freed_joker_needs_rack_tiles", s, (
            f"the freed joker must be played in a new set with at least two tiles from the rack; "
            f"{label} has {n_rack}"))
    if rule == "new_set_only_joker_and_rack":
        core = [JOKER] + list(from_rack.elements())
        if not analyse_set(core, o).valid:
            return Problem("freed_joker_not_own_set", tuple(core), (
                f"the freed joker must first form a new set with rack tiles alone; "
                f"{format_tiles(core)} is not a set by itself"))
    return None


def _initial_meld(o, before_sets, after_sets, after_v, placed_count, problems) -> int:
    """Check the initial meld: new sets of rack tiles only, worth at least the threshold."""
    old = Counter(_key(s) for s in before_sets)
    new = Counter(_key(s) for s in after_sets)
    changed = old - new
    if changed and not o.manipulate_on_initial_meld:
        used = sorted(changed.elements())
        problems.append(Problem("initial_meld_uses_table", tuple(t for s in used for t in s), (
            "the initial meld must be new sets made of rack tiles only; the table sets "
            f"{', '.join(format_tiles(s) for s in used)} were used or changed")))
    fresh = new - old
    left = Counter(placed_count)
    value = 0
    verdict_of = {_key(s): v for s, v in zip(after_sets, after_v)}
    for key in sorted(fresh.elements()):
        need = Counter(key)
        v = verdict_of[key]
        if v.valid and all(left[t] >= n for t, n in need.items()):
            left -= need
            value += v.value or 0
    if value < o.initial_meld and any(placed_count.values()):
        problems.append(Problem("initial_meld_too_low", tuple(sorted(placed_count.elements())), (
            f"the initial meld is worth {value} points from rack tiles; it must reach {o.initial_meld}")))
    return value


__all__ = ["TurnVerdict", "validate_turn"]
