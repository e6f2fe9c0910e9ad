"""How many 40-set tables per second the set judge and the turn validator handle.

    python benchmarks/bench_rules.py [--tables 200] [--seconds 1.0]

A table is 40 valid runs and groups (some with jokers) dealt from the 160-tile
XP box, so that 40 sets fit in one box.  "cold" clears the verdict cache before
every table (a table never seen before); "warm" is the live camera case, where
the same sets come back frame after frame.  The turn case compares a 40-set
table before and after a move that splits a run and adds a rack tile.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from rules.options import find_variant
from rules.sets import analyse_set, clear_cache
from rules.tiles import JOKER, XP, Color, Tile
from rules.turns import validate_turn

OPTIONS = find_variant("xp")


def deal_table(rng: random.Random, n_sets: int = 40) -> list[list[Tile]]:
    """40 valid sets that one XP box can hold, about one in ten with a joker."""
    box = Counter(XP.all_tiles())
    table: list[list[Tile]] = []
    misses = 0
    while len(table) < n_sets:
        if misses > 500:  # the box ran short of what is left to draw: deal again
            box, table, misses = Counter(XP.all_tiles()), [], 0
        if rng.random() < 0.5:
            colour, start, length = rng.choice(list(Color)), rng.randint(1, 11), rng.randint(3, 4)
            s = [Tile(colour, n) for n in range(start, min(13, start + length - 1) + 1)]
        else:
            number = rng.randint(1, 13)
            s = [Tile(c, number) for c in rng.sample(list(Color), rng.randint(3, 4))]
        if rng.random() < 0.1 and box[JOKER]:
            s[rng.randrange(len(s))] = JOKER
        need = Counter(s)
        if all(box[t] >= k for t, k in need.items()) and analyse_set(s, OPTIONS).valid:
            box -= need
            table.append(s)
        else:
            misses += 1
    return table


def make_turn(rng: random.Random, table: list[list[Tile]]):
    """A move on ``table``: the rack adds the missing colour to a 3-tile group and lays a new run."""
    after = [list(s) for s in table]
    on_table = Counter(t for s in table for t in s)
    rack: list[Tile] = []
    for s in after:
        colours = {t.color for t in s}
        if len(s) == 3 and JOKER not in s and len({t.number for t in s}) == 1:
            missing = next(c for c in Color if c not in colours)
            tile = Tile(missing, s[0].number)
            if on_table[tile] < XP.copies:
                s.append(tile)
                rack.append(tile)
                on_table[tile] += 1
                break
    for _ in range(100):
        colour, start = rng.choice(list(Color)), rng.randint(1, 11)
        run = [Tile(colour, n) for n in range(start, start + 3)]
        if all(on_table[t] < XP.copies for t in run):
            after.append(run)
            rack.extend(run)
            on_table.update(run)
            break
    spare = next(t for t in XP.all_tiles() if not t.is_joker and on_table[t] < XP.copies)
    return table, after, rack + [spare]  # a tile that stays on the rack


def per_second(fn, seconds: float) -> tuple[float, float]:
    """Calls per second and milliseconds per call, timed over about ``seconds``."""
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        n += 1
    dt = time.perf_counter() - start
    return n / dt, 1000 * dt / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=200, help="different tables to cycle through")
    ap.add_argument("--seconds", type=float, default=1.0, help="time spent on each measurement")
    args = ap.parse_args()
    rng = random.Random(7)
    tables = [deal_table(rng) for _ in range(args.tables)]
    turns = [make_turn(rng, t) for t in tables]
    legal = sum(validate_turn(b, a, r, has_melded=True, options=OPTIONS).legal for b, a, r in turns)
    print(f"{len(tables)} tables of 40 sets, {sum(map(len, tables[0]))} tiles in the first; "
          f"{legal}/{len(turns)} benchmark turns legal")

    i = 0

    def judge_table(cold: bool):
        nonlocal i
        if cold:
            clear_cache()
        for s in tables[i % len(tables)]:
            analyse_set(s, OPTIONS)
        i += 1

    def judge_turn():
        nonlocal i
        b, a, r = turns[i % len(turns)]
        validate_turn(b, a, r, has_melded=True, options=OPTIONS)
        i += 1

    rows = [
        ("analyse_set, 40 sets, cold cache", lambda: judge_table(True)),
        ("analyse_set, 40 sets, warm cache", lambda: judge_table(False)),
        ("validate_turn, 40-set table", judge_turn),
    ]
    print(f"{'case':40s} {'tables/s':>10s} {'ms/table':>9s}")
    for name, fn in rows:
        rate, ms = per_second(fn, args.seconds)
        print(f"{name:40s} {rate:10.0f} {ms:9.3f}")


if __name__ == "__main__":
    main()
