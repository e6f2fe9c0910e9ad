"""Benchmark: rules.solver against the PyPI package ``rummikub-solver`` on the same random deals.

Two sizes (about 30 table tiles + 14 rack, and about 70 + 20), each without
and with jokers, most-tiles objective, standard 106-tile box, Sabra rules.
Prints per size the median time of each solver, their ratio (ours /
theirs; the aim is at most 0.5), and how many of our suggestions the turn
judge (``rules.turns.validate_turn``, same options) accepted.  The same
deals are then solved under the American rules (no manipulation) and the
Official Book's Sabra (joker sets fixed, joker replaced from the rack only),
each suggestion judged again.  ``rummikub-solver`` is a benchmark-only
dependency (``pip install rummikub-solver``); without it only our times are
printed.

Differences that make counts differ on deals with jokers:
``rummikub-solver`` knows no joker-retrieval rule (it moves a table joker
anywhere, as if it were a free tile), and it leaves out, on purpose, sets
where a joker ends a run of 4-5 or fills a group of 4.  So with jokers it may
place more tiles than a legal move can, or fewer; without jokers both must
find the same count.

    python benchmarks/bench_solver.py [--deals 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.options import find_variant  # noqa: E402
from rules.sets import clear_cache  # noqa: E402
from rules.solver import solve  # noqa: E402
from rules.tiles import JOKER, STANDARD, Color, Tile  # noqa: E402
from rules.turns import validate_turn  # noqa: E402

SABRA = find_variant("sabra")
OTHER_RULES = ("american", "official_book")

SIZES = ((30, 14), (70, 20))


def deal(rng: random.Random, table_tiles: int, rack_tiles: int, jokers: bool):
    """A table of random valid sets (about ``table_tiles`` tiles) and a rack drawn from the rest."""
    pool = [t for t in STANDARD.all_tiles() if jokers or not t.is_joker]
    table: list[list[Tile]] = []
    while sum(map(len, table)) < table_tiles:
        if rng.random() < 0.6:
            colour, length = rng.choice(list(Color)), rng.randint(3, 6)
            start = rng.randint(1, 14 - length)
            s = [Tile(colour, n) for n in range(start, start + length)]
        else:
            number = rng.randint(1, 13)
            s = [Tile(c, number) for c in rng.sample(list(Color), rng.randint(3, 4))]
        if jokers and rng.random() < 0.15:
            s[rng.randrange(len(s))] = JOKER
        if _take(pool, s):
            table.append(s)
    rng.shuffle(pool)
    return table, pool[:rack_tiles]


def _take(pool: list[Tile], s: list[Tile]) -> bool:
    left = list(pool)
    for t in s:
        if t not in left:
            return False
        left.remove(t)
    pool[:] = left
    return True


def ours(table, rack, options=SABRA) -> tuple[int, float]:
    clear_cache()  # no help from set verdicts cached by an earlier call
    t0 = time.perf_counter()
    sol = solve(table, rack, options=options)
    dt = time.perf_counter() - t0
    return (sol.count if sol else 0), dt


def judged(table, rack, options) -> bool:
    """Our suggestion (or no move) is one the turn judge accepts under the same options."""
    sol = solve(table, rack, options=options)
    return sol is None or validate_turn(table, sol.sets, rack, has_melded=True, options=options).legal


class Theirs:
    """``rummikub-solver`` with its default back end (HiGHS when highspy is installed)."""

    def __init__(self) -> None:
        import rummikub_solver as rs

        self.rs = rs
        self.rules = rs.RuleSet()  # Sabra: 13 numbers, 4 colours, 2 copies, 2 jokers
        self.backend = self.rules.backend

    def _id(self, t: Tile) -> int:
        return 53 if t.is_joker else int(t.color) * 13 + t.number

    def __call__(self, table, rack) -> tuple[int, float]:
        state = self.rules.new_game()
        state.add_table(*(self.rules.tiles[self._id(t) - 1] for s in table for t in s))
        state.add_rack(*(self.rules.tiles[self._id(t) - 1] for t in rack))
        state.initial = False
        t0 = time.perf_counter()
        sol = self.rules.solve(state, self.rs.SolverMode.TILE_COUNT)
        dt = time.perf_counter() - t0
        return (len(sol.tiles) if sol else 0), dt


def _best_of(fn, table, rack, repeat: int) -> tuple[int, float]:
    """Count and fastest time of ``repeat`` calls (the first call of all also warms caches)."""
    runs = [fn(table, rack) for _ in range(max(1, repeat))]
    return runs[0][0], min(t for _, t in runs)


def _load() -> str:
    """The machine's load (the times are wall clock: other work on the machine slows both solvers)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except (AttributeError, OSError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=30, help="deals per size and joker group")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="time each deal this often, keep the fastest")
    args = ap.parse_args(argv)

    try:
        theirs = Theirs()
        print(f"rummikub-solver back end: {theirs.backend}")
    except ImportError as exc:
        theirs = None
        print(f"rummikub-solver is not installed ({exc}); printing our times only")
    print(f"load average (1 min) at start: {_load()}")
    print("note: rummikub-solver knows no joker-retrieval rule (a table joker moves like a free tile); "
          "ours suggests only moves the turn judge accepts")

    ok = True
    for table_n, rack_n in SIZES:
        for jokers in (False, True):
            rng = random.Random(f"{args.seed}-{table_n}-{rack_n}-{jokers}")
            deals = [deal(rng, table_n, rack_n, jokers) for _ in range(args.deals)]
            tiles = statistics.mean(sum(map(len, t)) for t, _ in deals)
            a, b = [], []
            for table, rack in deals:  # alternate, so both meet the same machine load
                a.append(_best_of(ours, table, rack, args.repeat))
                if theirs is not None:
                    b.append(_best_of(theirs, table, rack, args.repeat))
            accepted = sum(judged(t, r, SABRA) for t, r in deals)
            ok &= accepted == len(deals)
            ms_a = 1000 * statistics.median(x[1] for x in a)
            line = f"table ~{tiles:.0f} + rack {rack_n}, {'with' if jokers else 'no'} jokers: ours {ms_a:.1f} ms"
            if theirs is not None:
                ms_b = 1000 * statistics.median(y[1] for y in b)
                same = sum(x[0] == y[0] for x, y in zip(a, b))
                fewer = sum(x[0] < y[0] for x, y in zip(a, b))
                line += (f", rummikub-solver {ms_b:.1f} ms (medians), ratio {ms_a / ms_b:.2f}; "
                         f"same count {same}/{len(deals)}, ours fewer {fewer}")
                ok &= jokers or same == len(deals)
            line += f"; judge accepted {accepted}/{len(deals)} of our suggestions"
            others = {name: sum(judged(t, r, find_variant(name)) for t, r in deals) for name in OTHER_RULES}
            ok &= all(n == len(deals) for n in others.values())
            line += "; " + ", ".join(f"{name} {n}/{len(deals)}" for name, n in others.items())
            print(line, flush=True)
    print(f"load average (1 min) at end: {_load()}")
    print("counts and judge check:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
