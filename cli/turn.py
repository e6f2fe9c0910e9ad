"""``rummikub-companion turn``: was a turn legal?  Table before, table after, the rack before.

Exit status: 0 legal, 1 illegal (every problem listed), 2 unusable input.
"""

from __future__ import annotations

import json
import sys

from cli.rules_args import add_rules_arguments, rules_from
from rules.tiles import format_tiles, parse_table, parse_tiles
from rules.turns import validate_turn


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "turn",
        help="check that a turn left the table legal",
        description='SETS: sets separated by commas or "|", e.g. "R1 R2 R3, K5 B5 O5" '
        '(with "|" present, commas may also separate tiles). TILES: tile codes.',
    )
    p.add_argument("--before", default="", metavar="SETS", help="the table before the turn (may be empty)")
    p.add_argument("--after", required=True, metavar="SETS", help="the table after the turn")
    p.add_argument("--rack", required=True, metavar="TILES", help="the player's rack before the turn")
    p.add_argument("--after-draw", action="store_true",
                   help="--rack is the whole rack after this turn's draw (American family): "
                        "one tile must be left for the discard")
    p.add_argument("--not-melded", action="store_true",
                   help="the player has not made the initial meld yet (this turn must be it)")
    add_rules_arguments(p)
    p.add_argument("--json", action="store_true", help='print {"legal", "problems", "placed"} as JSON')
    p.set_defaults(func=run)


def run(args) -> int:
    try:
        options = rules_from(args)
        before = parse_table(args.before)
        after = parse_table(args.after)
        rack = parse_tiles(args.rack)
    except ValueError as exc:  # NotationError included
        print(f"rummikub-companion turn: {exc}", file=sys.stderr)
        return 2
    verdict = validate_turn(before, after, rack, has_melded=not args.not_melded, options=options,
                            rack_is_whole=args.after_draw)
    if args.json:
        print(json.dumps(verdict.to_dict()))
    else:
        print(f"{'legal' if verdict.legal else 'ILLEGAL'}; placed from the rack: "
              f"{format_tiles(verdict.placed) or 'nothing'}")
        for p in verdict.problems:
            print(f"- {p}")
    return 0 if verdict.legal else 1
