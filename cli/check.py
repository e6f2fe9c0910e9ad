"""``rummikub-companion check``: judge sets written in tile notation.

The sets are judged as lying on one table together, so a set that needs
more copies of a tile than the box holds (with the sets before it) is not
valid.  Exit status: 0 every set valid, 1 some set invalid, 2 unusable input
(the message on stderr names the bad token).
"""

from __future__ import annotations

import json
import sys

from rules.options import VARIANTS, find_variant
from rules.sets import analyse_sets
from rules.tiles import NotationError, format_tiles, parse_tiles


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "check",
        help="judge sets written as tile codes",
        description="Judge each SET: a group or a run, its value, what is wrong with it. "
        'A SET is tile codes separated by spaces or commas, e.g. "R5 R6 J".',
    )
    p.add_argument("sets", nargs="+", metavar="SET", help='one set, e.g. "R5 R6 J" or "K7,B7,O7"')
    p.add_argument("--rules", default="sabra", choices=list(VARIANTS), metavar="RULES",
                   help="sabra (default), american, international, or another variant in docs/rules.md")
    p.add_argument("--json", action="store_true", help='print {"sets": [...]} as JSON')
    p.set_defaults(func=run)


def run(args) -> int:
    options = find_variant(args.rules)
    parsed = []
    for i, text in enumerate(args.sets, 1):
        try:
            tiles = parse_tiles(text)
        except NotationError as exc:
            print(f"rummikub-companion check: set {i}: {exc}", file=sys.stderr)
            return 2
        if not tiles:
            print(f"rummikub-companion check: set {i} is empty", file=sys.stderr)
            return 2
        parsed.append(tiles)
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
