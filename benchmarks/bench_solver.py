"""Benchmark: rules.solver against the PyPI package ``rummikub-solver`` on the same random deals.

Two sizes (about 30 table tiles + 14 rack, and about 70 + 20), most tiles
objective, standard 106-tile box.  Prints, per size, whether both solvers find
the same number of tiles, and the median time of each.  ``rummikub-solver``
is a benchmark-only dependency (``pip install rummikub-solver``); without it
only our times are printed.

One known difference: ``rummikub-solver`` leaves out, on purpose, sets where
a joker ends a run of 4-5 or fills a group of 4, so on deals with jokers it
can place fewer tiles.  Deals are therefore counted in two groups, without
and with jokers; only the first must match exactly, and on the second ours
must never place fewer.

    python benchmarks/bench_solver.py [--deals 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.options import RuleOptions  # noqa: E402
from rules.sets import clear_cache, is_valid_set  # noqa: E402
from rules.solver import solve  # noqa: E402
from rules.tiles import JOKER, STANDARD, Color, Tile  # noqa: E402

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


def ours(table, rack) -> tuple[int, float]:
    clear_cache()  # no help from set verdicts cached by an earlier call
    t0 = time.perf_counter()
    sol = solve(table, rack, options=RuleOptions())
    dt = time.perf_counter() - t0
    if sol is not None:
        assert all(is_valid_set(s, RuleOptions()) for s in sol.sets), "illegal set in our answer"
    return (sol.count if sol else 0), dt


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
            ms_a = 1000 * statistics.median(x[1] for x in a)
            line = f"table ~{tiles:.0f} + rack {rack_n}, {'with' if jokers else 'no'} jokers: ours {ms_a:.1f} ms"
            if theirs is not None:
                ms_b = 1000 * statistics.median(y[1] for y in b)
                same = sum(x[0] == y[0] for x, y in zip(a, b))
                fewer = sum(x[0] < y[0] for x, y in zip(a, b))
                line += (f", rummikub-solver {ms_b:.1f} ms (medians), ratio {ms_a / ms_b:.2f}; "
                         f"same count {same}/{len(deals)}, ours fewer {fewer}")
                ok &= fewer == 0 and (jokers or same == len(deals))
            print(line, flush=True)
    if theirs is not None:
        print("counts check:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
