"""The ``--rules NAME`` and ``--option NAME=VALUE`` arguments that every judging command takes."""

from __future__ import annotations

import argparse

from rules.options import VARIANTS, RuleOptions, find_variant, parse_override


def add_rules_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", default="sabra", metavar="NAME",
                   help=f"rule set: {', '.join(VARIANTS)} (default sabra; see docs/rules.md)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="override one rule option, e.g. --option retrieved_joker=any_set (repeatable)")


def rules_from(args: argparse.Namespace) -> RuleOptions:
    """The rules the arguments name; ValueError (naming the bad name or value) otherwise."""
    return find_variant(args.rules, **dict(parse_override(o) for o in args.option))
