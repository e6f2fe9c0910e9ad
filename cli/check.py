"""``rummikub-companion check``: judge sets written in tile notation.

The sets are judged as lying on one table together, so a set that needs
more copies of a tile than the box holds (with the sets before it) is not
valid.  Exit status: 0 every set valid, 1 some set invalid, 2 unusable input
(the message on stderr names the bad token).
"""

from __future__ import annotations

import json
import sys

from cli.rules_args import add_rules_arguments, rules_from
from rules.sets import analyse_sets
from rules.tiles import NotationError, Tile, format_tiles, parse_table, parse_tiles


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "check",
        help="judge sets written as tile codes",
        description="Judge each SET: a group or a run, its value, what is wrong with it. "
        'A SET is tile codes separated by spaces or commas, e.g. "R5 R6 J"; one argument may hold '
        'several sets separated by "," or "|", as in turn and solve: "R1 R2 R3, K5 B5 O5".',
    )
    p.add_argument("sets", nargs="+", metavar="SET",
                   help='one set, e.g. "R5 R6 J" or "K7,B7,O7", or several: "R1 R2 R3 | K5 B5 O5"')
    add_rules_arguments(p)
    p.add_argument("--json", action="store_true", help='print {"sets": [...]} as JSON')
    p.set_defaults(func=run)


def sets_of(text: str) -> list[list[Tile]]:
    """The sets of one argument, split on "," or "|" as ``turn`` and ``solve`` split them.

    Commas between single tiles only, without "|" ("K7,B7,O7"), write one set:
    a lone tile is never a set, and that is how ``check`` has always read them.
    """
    sets = parse_table(text)
    if "|" not in text and len(sets) > 1 and all(len(s) == 1 for s in sets):
        return [parse_tiles(text)]
    return sets


def run(args) -> int:
    try:
        options = rules_from(args)
    except ValueError as exc:
        print(f"rummikub-companion check: {exc}", file=sys.stderr)
        return 2
    parsed = []
    for i, text in enumerate(args.sets, 1):
        try:
            sets = sets_of(text)
        except NotationError as exc:
            print(f"rummikub-companion check: set {i}: {exc}", file=sys.stderr)
            return 2
        if not sets:
            print(f"rummikub-companion check: set {i} is empty", file=sys.stderr)
            return 2
        parsed.extend(sets)
    verdicts = analyse_sets(parsed, options)  # together: the box holds two of each tile (XP: three)
    if args.json:
        print(json.dumps({"sets": [v.to_dict() for v in verdicts]}))
    else:
        for v in verdicts:
            if v.valid:
                print(f"{format_tiles(v.tiles)}: valid {v.kind or 'set of jokers'}, value {v.value}")
            else:
                print(f"{format_tiles(v.tiles)}: INVALID: {v.problem}")
    return 0 if all(v.valid for v in verdicts) else 1
