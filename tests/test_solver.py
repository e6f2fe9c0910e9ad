"""The move solver: hand-checked moves from the rule texts, agreement with brute force, legal output."""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import lru_cache
from itertools import product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import main
from rules.options import RETRIEVED_JOKER, VARIANTS, find_variant
from rules.sets import analyse_set, is_valid_set
from rules.solver import arrange, solve, suggest_rearrangement
from rules.tiles import JOKER, Color, RuleError, Tile, parse_table, parse_tiles
from rules.turns import validate_turn

SABRA = find_variant("sabra")
AMERICAN = find_variant("american")
XP = find_variant("xp")


def table_of(text: str) -> list[list[Tile]]:
    return parse_table(text) if text else []


def check_legal(table, rack, sol, options=SABRA, initial=False):
    """Every set valid, every table tile still down, the rest from the rack, figures consistent."""
    after = Counter(t for s in sol.sets for t in s)
    before = Counter(t for s in table for t in s)
    assert all(is_valid_set(s, options) for s in sol.sets), sol.sets
    assert after - before == Counter(sol.placed) and not before - after
    assert not Counter(sol.placed) - Counter(rack)
    assert sol.count == len(sol.placed) >= 1
    values = sum(analyse_set(s, options).value for s in sol.sets)
    old = sum(analyse_set(s, options).value for s in table)
    assert sol.value == values - old
    if initial:  # the table sets lie exactly as they did
        assert Counter(map(tuple, map(sorted, table))) <= Counter(map(tuple, map(sorted, sol.sets)))
    judge = options.replace(initial_meld=min(options.initial_meld, sol.value)) if initial else options
    verdict = validate_turn(table, sol.sets, rack, has_melded=not initial, options=judge, rack_is_whole=True)
    assert verdict.legal, verdict.problems


# --- hand-checked moves -----------------------------------------------------

# (table, rack, options, tiles played, table afterwards or None when any layout will do)
MOVES = [
    # 004_* Manipulation: "Blue 4,5,6 are on the table. The player adds a blue 3. The blue 8 is
    # added to the group of 8's already on the table."
    ("B4 B5 B6, K8 R8 O8", "B3 B8", SABRA, 2, "B3 B4 B5 B6 | K8 B8 O8 R8"),
    # 004_* "takes the blue 4 from the group of four on the table and lays the run: blue 3,4,5,6"
    ("K4 B4 O4 R4", "B3 B5 B6", SABRA, 3, "K4 O4 R4 | B3 B4 B5 B6"),
    # 004_* "adds a blue 11 to the run and uses the 8's to form a new group"
    ("B8 B9 B10", "B11 K8 R8", SABRA, 3, "B9 B10 B11 | K8 B8 R8"),
    # 004_* "splits the run and uses the red 6 to form two new runs"
    ("R4 R5 R6 R7 R8", "R6", SABRA, 1, None),
    # 004_* "places a blue 1 from the rack with the orange 1 from the run and the red 1 from the group"
    ("O1 O2 O3 O4, K1 R1 O1 B1", "B1", SABRA, 1, None),
    # 004_* "4 ways to clear the joker", 1: replace the joker by the rack tiles, reuse it in a new set
    ("K5 B5 J", "O5 R5 K11 K12", SABRA, 4, "K5 B5 O5 R5 | K11 K12 J"),
    # 004_* Sets: "The number 1 is always played as the lowest number, it cannot follow the number 13."
    ("R11 R12 R13", "R1", SABRA, 0, None),
    # 004_* American (Official Book): '1' may follow 13 (K9 stays for the discard) ...
    ("R11 R12 R13", "R1 K9", AMERICAN, 1, "R11 R12 R13 R1"),
    # ... "not allowed to draw a tile and then meld all your tiles, leaving yourself with no discard"
    ("R11 R12 R13", "R1", AMERICAN, 0, None),
    # 004_* Sabra is "Manipulation Rummy": the run is split to take R3 ...
    ("R1 R2 R3 R4", "R3 R5 R6 K1", SABRA, 3, "R1 R2 R3 | R3 R4 R5 R6"),
    # ... American only extends table sets ("extend ... melded groups or runs by adding tiles")
    ("R1 R2 R3 R4", "R3 R5 R6 K1", AMERICAN, 2, "R1 R2 R3 R4 R5 R6"),
    # 004_* American: "replace the joker by this tile, provided that you immediately use the joker
    # in a 'new' meld of your own"
    ("R5 J R7", "R6 B9 B10 K1", AMERICAN, 3, "R5 R6 R7 | B9 B10 J"),
    # ... but never be high and low at once: 13-1-2 is no run
    ("", "R13 R1 R2", AMERICAN, 0, None),
    # the joker lies at its place: here it stands for R4
    ("R1 R2 R3", "R5 J", SABRA, 2, "R1 R2 R3 J R5"),
    # table sets stay as they lie where possible; the run takes the new tiles at its end
    ("R1 R2 R3, R4 R5 R6, K7 B7 O7", "R7 R8", SABRA, 2, "R1 R2 R3 | R4 R5 R6 R7 R8 | K7 B7 O7"),
    # 004_* Contents: the XP box holds three of each tile
    ("R5 R6 R7, R5 R6 R7", "R5 R6 R7", XP, 3, "R5 R6 R7 | R5 R6 R7 | R5 R6 R7"),
    ("K3 K4 K5", "K9 O2", SABRA, 0, None),
]


@pytest.mark.parametrize("table, rack, options, count, after", MOVES)
def test_hand_checked_moves(table, rack, options, count, after):
    table, rack = table_of(table), parse_tiles(rack)
    sol = solve(table, rack, options=options)
    if count == 0:
        assert sol is None
        return
    check_legal(table, rack, sol, options)
    assert sol.count == count
    if after is not None:  # each set in natural order; the sets in any order
        assert sorted(map(tuple, sol.sets)) == sorted(map(tuple, parse_table(after)))


# (rack, threshold, options, tiles played, points) -- 004_* Playing: "each player must place tiles
# on the table in one or more sets that total at least 30 points ... A joker used in the initial
# meld scores the value of the tile it represents."
INITIAL = [
    ("K10 K11 K12 O1", 30, SABRA, 3, 33),
    ("K9 K10 J", 30, SABRA, 3, 30),  # the joker reads as K11
    ("K9 K10 J", 31, SABRA, 0, 0),
    ("K10 K11 K12 O1", 50, SABRA, 0, 0),
    ("K7 B7 O7 R2 R3 R4 O9", 21, AMERICAN, 6, 30),  # American threshold 21; both sets go down, O9 is discarded
    ("R12 R13 R1 K5", 21, AMERICAN, 3, 26),  # '1' high: 12 + 13 + 1
]


@pytest.mark.parametrize("rack, threshold, options, count, value", INITIAL)
def test_initial_meld(rack, threshold, options, count, value):
    table = table_of("B1 B2 B3")
    sol = solve(table, parse_tiles(rack), initial=threshold, options=options)
    if count == 0:
        assert sol is None
        return
    check_legal(table, parse_tiles(rack), sol, options, initial=True)
    assert (sol.count, sol.value) == (count, value)
    assert sol.sets[0] == parse_tiles("B1 B2 B3")  # the table is not touched


def test_initial_meld_ignores_table_tiles():
    # B4 would fit the table run, but an initial meld may only lay new sets from the rack
    sol = solve(table_of("B1 B2 B3"), parse_tiles("B4 K10 K11 K12"), initial=30, options=SABRA)
    assert sol.placed == parse_tiles("K10 K11 K12")


def test_value_objective_prefers_points_and_counts_jokers_as_their_tile():
    table, rack = table_of("R11 R12 R13"), parse_tiles("J")
    sol = solve(table, rack, objective="value", options=SABRA)
    assert (sol.count, sol.value) == (1, 10)  # the joker can only be R10
    # one joker, two uses: four low tiles (R1 R2 J R4, 10 points) or three high ones (39 points)
    rack = parse_tiles("J R1 R2 R4 K13 B13")
    most = solve([], rack, objective="tiles", options=SABRA)
    assert (most.count, most.value, most.sets) == (4, 10, [parse_tiles("R1 R2 J R4")])
    best = solve([], rack, objective="value", options=SABRA)
    assert (best.count, best.value, sorted(best.placed)) == (3, 39, sorted(parse_tiles("J K13 B13")))


def test_most_tiles_breaks_ties_by_points():
    # K3 B3 O3 or K3 K4 K5: three tiles either way, so "tiles" then takes the one worth more
    sol = solve([], parse_tiles("K3 B3 O3 K4 K5"), objective="tiles", options=SABRA)
    assert (sol.count, sol.value) == (3, 12)


# --- input checks -------------------------------------------------------------


def test_invalid_table_set_is_named():
    with pytest.raises(RuleError, match=r"table set 2 \(K5 B5\)"):
        solve(table_of("R1 R2 R3, K5 B5"), parse_tiles("R4"), options=SABRA)


def test_too_many_copies():
    with pytest.raises(RuleError, match="3 x R1"):
        solve(table_of("R1 R2 R3, R1 R2 R3"), parse_tiles("R1"), options=SABRA)
    with pytest.raises(RuleError, match="3 x J"):
        solve([], [JOKER] * 3, options=SABRA)


def test_bad_arguments():
    with pytest.raises(ValueError, match="objective"):
        solve([], parse_tiles("R1"), objective="most", options=SABRA)
    with pytest.raises(ValueError, match="initial"):
        solve([], parse_tiles("R1"), initial=-5, options=SABRA)


def test_empty_rack_has_no_move():
    assert solve(table_of("R1 R2 R3"), [], options=SABRA) is None


# --- arrange and suggest_rearrangement ------------------------------------------


def test_arrange_finds_a_legal_layout_of_exactly_the_tiles():
    tiles = parse_tiles("R1 R2 R3 R4 R5 R6 K5 B5 O5 J")
    sets = arrange(tiles, SABRA)
    assert sets is not None and all(is_valid_set(s, SABRA) for s in sets)
    assert Counter(t for s in sets for t in s) == Counter(tiles)
    assert arrange(parse_tiles("R1 R2 K7"), SABRA) is None
    assert arrange([], SABRA) == []


def test_suggest_rearrangement_keeps_valid_sets_whole():
    before = table_of("R1 R2 R3, K7 B7 O7")
    after = table_of("R1 R2 R3 R5, K7 B7 O7 R7, R4 R6")  # illegal: R4 R6 is no set
    sets = suggest_rearrangement(before, after, SABRA)
    assert sets is not None and Counter(t for s in sets for t in s) == Counter(t for s in after for t in s)
    assert all(is_valid_set(s, SABRA) for s in sets)
    assert parse_tiles("K7 B7 O7 R7") in sets and parse_tiles("R1 R2 R3 R4 R5 R6") not in sets
    assert suggest_rearrangement(before, table_of("R1 R2 R3, K7 B7, O7 K9"), SABRA) is None


# --- brute force on small deals --------------------------------------------------

# few faces, so that small deals often hold a move
POOL_FACES = [Tile(c, n) for c in (Color.BLACK, Color.RED, Color.BLUE) for n in (1, 2, 3, 4, 12, 13)]


@lru_cache(maxsize=None)
def _partitions(tiles: tuple[Tile, ...], options) -> tuple[tuple[tuple[Tile, ...], ...], ...]:
    """Every way to lay exactly ``tiles`` as valid sets (each set as a sorted tuple)."""
    if not tiles:
        return ((),)
    first, rest = tiles[0], tiles[1:]
    out = set()
    for mask in range(1, 1 << len(rest)):
        if bin(mask).count("1") < 2:
            continue
        chosen = tuple(sorted([first] + [t for i, t in enumerate(rest) if mask >> i & 1], key=_key))
        if not analyse_set(chosen, options).valid:
            continue
        left = tuple(t for i, t in enumerate(rest) if not mask >> i & 1)
        for sub in _partitions(left, options):
            out.add(tuple(sorted((chosen, *sub))))
    return tuple(out)


def _key(t: Tile) -> int:
    return t.index


@lru_cache(maxsize=None)
def _layouts(s: tuple[Tile, ...], options) -> tuple[tuple[Tile, ...], ...]:
    """The set laid in order once for each thing its jokers may stand for (a joker sits at its tile's place)."""
    out = set()
    for reading in analyse_set(s, options).readings:
        colours = {t.color for t in reading}
        high = 13 in {t.number for t in reading} and 2 not in {t.number for t in reading}
        place = (lambda m: 14 if m.number == 1 and high else m.number) if len(colours) == 1 else (lambda m: m.color)
        out.add(tuple(t for t, _ in sorted(zip(s, reading), key=lambda p: place(p[1]))))
    return tuple(sorted(out, key=lambda lay: [t.index for t in lay]))


def brute_force(table, rack, objective, initial, options):
    """(count, value) of the best move the judge accepts, trying every subset of the rack, every
    way to lay the tiles as sets, and every reading of their jokers; None when there is none."""
    old = sum(analyse_set(s, options).value for s in table)
    base = [] if initial is not None else [t for s in table for t in s]
    judge = options if initial is None else options.replace(initial_meld=initial)
    best = None
    subsets = {tuple(sorted((t for i, t in enumerate(rack) if m >> i & 1), key=_key)) for m in range(1, 1 << len(rack))}
    for played in sorted(subsets, key=len, reverse=True):
        if objective == "tiles" and best is not None and len(played) < best[0]:
            break
        for part in _partitions(tuple(sorted([*base, *played], key=_key)), options):
            for laid in product(*(_layouts(s, options) for s in part)):
                after = [list(s) for s in laid]
                if initial is not None:
                    after = [*table, *after]
                if not validate_turn(table, after, rack, has_melded=initial is None, options=judge,
                                     rack_is_whole=True).legal:
                    continue
                value = sum(analyse_set(s, options).value for s in after) - old
                score = (len(played), value) if objective == "tiles" else (value, len(played))
                if best is None or score[0] > best[0]:
                    best = score
    if best is None:
        return None
    return best if objective == "tiles" else best[::-1]


@st.composite
def deals(draw):
    options = draw(st.sampled_from(list(VARIANTS.values())))
    if draw(st.booleans()):  # and every joker and manipulation option, in any combination
        options = options.replace(**draw(st.fixed_dictionaries({}, optional={
            "manipulation": st.booleans(),
            "retrieved_joker": st.sampled_from(RETRIEVED_JOKER),
            "manipulate_joker_sets": st.booleans(),
            "joker_replacement_from_table": st.booleans(),
            "joker_freed_without_its_tile": st.booleans(),
            "group_joker_needs_both_colors": st.booleans(),
            "two_jokers_in_set": st.booleans(),
            "one_high": st.booleans(),
        })))
    box = Counter({f: options.box.copies for f in POOL_FACES})
    box[JOKER] = 2
    table = []
    for _ in range(draw(st.integers(0, 2))):
        colour = draw(st.sampled_from([Color.BLACK, Color.RED, Color.BLUE]))
        if draw(st.booleans()):
            start = draw(st.sampled_from([1, 2, 11, 12]))
            s = [Tile(colour, (n - 1) % 13 + 1) for n in range(start, start + 3)]
        else:
            s = [Tile(c, draw(st.sampled_from([1, 3, 13]))) for c in (Color.BLACK, Color.RED, Color.BLUE)]
            s = [Tile(c, s[0].number) for c in (Color.BLACK, Color.RED, Color.BLUE)]
        if draw(st.booleans()) and box[JOKER]:
            s[draw(st.integers(0, 2))] = JOKER
        if is_valid_set(s, options) and all(box[t] >= n for t, n in Counter(s).items()):
            box.subtract(s)
            table.append(s)
    left = sorted(box.elements(), key=lambda t: t.index)
    # tiles that fit the table sets, and a set of the rack's own, turn up more often
    near = {Tile(t.color, n) for s in table for t in s if not t.is_joker for n in (1, 2, 3, 4, 12, 13)}
    near |= {Tile(c, t.number) for s in table for t in s if not t.is_joker for c in Color}
    likely = left + [t for t in left if t in near] * 3
    rack = draw(st.lists(st.sampled_from(likely), min_size=2, max_size=5)) if left else []
    if draw(st.booleans()):
        colour, start = draw(st.sampled_from(list(Color)[:2])), draw(st.sampled_from([1, 2, 12]))
        rack += [Tile(colour, (n - 1) % 13 + 1) for n in range(start, start + 3)][: 5 - len(rack) + 1]
    rack_ok = [t for t, n in Counter(rack).items() for _ in range(min(n, box[t]))]
    objective = draw(st.sampled_from(["tiles", "value"]))
    initial = draw(st.sampled_from([None, None, None, 0, 10, 25]))
    return table, rack_ok, objective, initial, options


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deals())
def test_agrees_with_brute_force(deal):
    table, rack, objective, initial, options = deal
    sol = solve(table, rack, objective=objective, initial=initial, options=options)
    expected = brute_force(table, rack, objective, initial, options)
    if expected is None:
        assert sol is None
        return
    assert sol is not None
    check_legal(table, rack, sol, options, initial=initial is not None)
    if objective == "tiles":
        assert sol.count == expected[0]
    else:
        assert sol.value == expected[1]
    if initial is not None:
        assert sol.value >= initial


def random_deal(rng: random.Random, options, joker_share: float):
    """About 30 table tiles in runs (a share of them holding a joker) and a rack of 14 from the rest."""
    box = options.box.all_tiles()
    rng.shuffle(box)
    table = []
    while sum(map(len, table)) < 30:
        colour, start, length = rng.choice(list(Color)), rng.randint(1, 9), rng.randint(3, 5)
        s = [Tile(colour, n) for n in range(start, start + length)]
        if rng.random() < joker_share:
            s[rng.randrange(length)] = JOKER
        if all(s.count(t) <= box.count(t) for t in s) and is_valid_set(s, options):
            for t in s:
                box.remove(t)
            table.append(s)
    return table, box[:14]


@pytest.mark.parametrize("seed", range(6))
def test_larger_random_deals_give_legal_tables(seed):
    table, rack = random_deal(random.Random(seed), SABRA, 0.0)
    for objective in ("tiles", "value"):
        sol = solve(table, rack, objective=objective, options=SABRA)
        if sol is not None:
            check_legal(table, rack, sol)
            assert sol.kept >= 1


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seed", range(3))
def test_every_variant_suggests_only_moves_the_judge_accepts(variant, seed):
    """Random tables with jokers (004_*: "Each joker can be used as any tile in a set"): whatever
    the rules, the move suggested is one validate_turn accepts under the same options."""
    options = find_variant(variant)
    table, rack = random_deal(random.Random(f"{variant}-{seed}"), options, 0.3)
    for objective in ("tiles", "value"):
        sol = solve(table, rack, objective=objective, options=options)
        if sol is not None:
            check_legal(table, rack, sol, options)


# --- command line ----------------------------------------------------------------


def test_cli_json(capsys):
    code = main(["solve", "--table", "R1 R2 R3, K5 B5 O5", "--rack", "R4 J K9", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["count"] == 2 and sorted(out["placed"]) == ["J", "R4"]
    assert ["R1", "R2", "R3", "R4"] in out["sets"] or ["R1", "R2", "R3", "R4", "J"] in out["sets"]
    assert set(out) == {"count", "value", "placed", "sets"}


def test_cli_no_move_keeps_the_table(capsys):
    code = main(["solve", "--table", "R1 R2 R3", "--rack", "K9 O7", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == {"count": 0, "value": 0, "placed": [], "sets": [["R1", "R2", "R3"]]}


def test_cli_initial_uses_the_rules_threshold(capsys):
    assert main(["solve", "--rack", "K10 K11 K12", "--initial", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 3  # 33 >= 30 (Sabra)
    assert main(["solve", "--rack", "K10 K11 K12", "--initial", "--rules", "international", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 0  # 33 < 50 (International)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--table", "R1 R2 R3", "--rack", "R14"], "'R14' is not a tile"),
        (["--table", "R1 R2 R3, R1 R2 R3", "--rack", "R1"], "3 x R1"),
        (["--table", "R1 R2 R3, K5 B5", "--rack", "R4"], "table set 2 (K5 B5)"),
        (["--rack", "R4", "--rules", "nonsense"], "unknown rules"),
    ],
)
def test_cli_unusable_input_exits_2(capsys, argv, message):
    assert main(["solve", *argv]) == 2
    assert message in capsys.readouterr().err


# Deals on which the comparison with brute force once failed: (table, rack, options, tiles played)
FOUND_BY_BRUTE_FORCE = [
    # a group's joker stands for the other missing colour once K1 is added (American: no manipulation)
    ("J R1 B1", "K1 K1", find_variant("american"), 1),
    # without manipulation the joker's tile takes the joker's place: K1 may not go to another set
    ("J K2 K3", "K1 B1 K4", find_variant("sabra", manipulation=False), 1),
    # a joker freed without its tile: the group keeps valid with K1 added, the joker makes J K12 K13
    ("K1 R1 B1 | J R1 B1", "K1 K12 K13",
     find_variant("sabra", manipulation=False, joker_freed_without_its_tile=True, two_jokers_in_set=False), 3),
    # rejected optima followed by later rounds of the integer (not the linear) program
    ("K1 R1 J | K1 R1 J", "K2 B1 B1", find_variant("pressman_1987"), 2),
]


@pytest.mark.parametrize("table, rack, options, count", FOUND_BY_BRUTE_FORCE)
def test_deals_found_by_brute_force(table, rack, options, count):
    table, rack = table_of(table), parse_tiles(rack)
    sol = solve(table, rack, options=options)
    assert sol is not None and sol.count == count == brute_force(table, rack, "tiles", None, options)[0]
    check_legal(table, rack, sol, options)


# --- rules.highs: the relaxation, the dive and the search stopped at the bound ------------------------


def _triangle(primary: int):
    """Maximise x1 + x2 + x3 (binary) with each pair at most 1: the relaxation's optimum is 1.5 (all halves)."""
    from rules.highs import Program

    A = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=float)
    return Program(np.ones(3), A, np.full(3, -np.inf), np.ones(3), False, np.ones(3), primary=primary)


@pytest.mark.parametrize("primary", [0, 1])
def test_program_finds_a_whole_optimum_from_a_fractional_relaxation(primary):
    # primary=1: the dive's whole solution reaches the bound floor(1.5) = 1; primary=0: the search proves it
    x = _triangle(primary).run()
    assert x is not None and x.sum() == 1 and set(x.tolist()) <= {0, 1}


def test_program_cuts_off_a_rejected_optimum():
    program = _triangle(1)
    seen = []
    for _ in range(3):
        x = program.run()
        seen.append(tuple(x.tolist()))
        program.cut(x)
    assert sorted(seen) == [(0, 0, 1), (0, 1, 0), (1, 0, 0)]  # each single column once, then...
    assert program.run().sum() == 0  # ... only the empty solution is left


def test_the_solver_still_solves_after_an_assignment_was_the_first_program_of_the_process():
    """HiGHS makes one scheduler per process, with the thread count of its first run; calibrate's
    assignment (rules.highs.assignment) runs first when a photo is taught before any move is solved."""
    import subprocess
    import sys

    code = ("import numpy as np\n"
            "from rules.highs import assignment\n"
            "from rules.options import find_variant\n"
            "from rules.solver import solve\n"
            "from rules.tiles import parse_table, parse_tiles\n"
            "assert assignment(np.array([[1.0, 2.0], [3.0, 1.0]])) == [(0, 1), (1, 0)]\n"
            "move = solve(parse_table('B4 B5 B6'), parse_tiles('B3 B7'), options=find_variant('sabra'))\n"
            "print(move.count)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split() == ["2"], done.stderr
