"""``rummikub-companion solve``: the best move from a table and a rack.

    rummikub-companion solve --table "R1 R2 R3, K5 B5 O5" --rack "R4 J K9" --json

Exit 0 with the move (count 0 and the table unchanged when no rack tile can
be played), exit 2 with a message naming the problem on unusable input.
"""

from __future__ import annotations

import argparse
import json
import sys

from cli.rules_args import add_rules_arguments, rules_from
from rules.solver import OBJECTIVES, Solution, solve
from rules.tiles import NotationError, RuleError, format_table, format_tiles, parse_table, parse_tiles


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "solve",
        help="the most tiles (or points) a rack can put on a table",
        description="Find the best move: the most rack tiles (or points) that can be laid, "
        "with the whole table rearranged as little as possible.",
    )
    p.add_argument("--table", default="", help='table sets, e.g. "R1 R2 R3, K5 B5 O5" (| or , between sets)')
    p.add_argument("--rack", required=True, help='rack tiles, e.g. "R4 J K9"')
    p.add_argument("--objective", choices=OBJECTIVES, default="tiles", help="most tiles (default) or most points")
    p.add_argument(
        "--initial", nargs="?", type=int, const=-1, default=None, metavar="N",
        help="initial meld: new sets from the rack only, worth at least N (default: the rules' threshold)",
    )
    add_rules_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON: count, value, placed, sets")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        options = rules_from(args)
        table = parse_table(args.table)
        rack = parse_tiles(args.rack)
        initial = options.initial_meld if args.initial == -1 else args.initial
        solution = solve(table, rack, objective=args.objective, initial=initial, options=options)
    except (NotationError, RuleError, ValueError) as exc:
        print(f"rummikub-companion solve: {exc}", file=sys.stderr)
        return 2
    if solution is None:  # nothing can be played: the table stays as it is
        solution = Solution(count=0, value=0, placed=[], sets=[list(s) for s in table])
    if args.json:
        print(json.dumps(solution.to_dict()))
    elif solution.count == 0 and only_by_melding_all(table, rack, args.objective, initial, options):
        print(f"No move: the only moves meld every rack tile ({format_tiles(rack)}), and under these rules one "
              "must be left for the discard (a player may not draw and then meld all tiles).")
    elif solution.count == 0:
        print("No move: no rack tile can be played" + (f" in an initial meld of {initial}+" if initial else "") + ".")
    else:
        print(f"Play {solution.count} tile{'s' if solution.count != 1 else ''} "
              f"({solution.value} point{'s' if solution.value != 1 else ''}): {format_tiles(solution.placed)}")
        print(f"Table: {format_table(solution.sets)}")
    return 0


def only_by_melding_all(table, rack, objective: str, initial: int | None, options) -> bool:
    """Whether a move exists once the tile kept for the discard (American family) is set aside.

    The solver finds nothing there when every legal move melds the whole rack;
    saying "no rack tile can be played" would hide that reason.
    """
    if not options.flow.draw_then_discard:
        return False
    return solve(table, rack, objective=objective, initial=initial,
                 options=options.replace(game="sabra")) is not None  # the game only sets the turn's flow
