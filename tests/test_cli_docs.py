"""README's command table and docs/vision.md's usage lines show every option each subcommand's --help shows,
in brackets exactly when --help has it optional."""

import argparse
import re
from pathlib import Path

import pytest

from cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
SUBCOMMANDS = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices


def options(name: str) -> list[tuple[str, bool]]:
    """(long option, required) for each option of a subcommand but --help."""
    return [(next(s for s in a.option_strings if s.startswith("--")), a.required)
            for a in SUBCOMMANDS[name]._actions if a.option_strings and a.dest != "help"]


def readme_usage(name: str) -> str:
    """The code span of the subcommand's row in README's command table."""
    row = next(line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith(f"| `{name}"))
    return row.split("`")[1]


def vision_usage(name: str) -> str:
    """The usage block under docs/vision.md's heading for the subcommand."""
    text = (ROOT / "docs" / "vision.md").read_text()
    return text.split(f"## `rummikub-companion {name}`", 1)[1].split("```")[1]


def shown_as_in_help(usage: str, option: str, required: bool) -> bool:
    whole = rf"{re.escape(option)}(?![\w-])"  # --after, not the start of --after-draw
    optional = re.search(rf"\[[^\]]*{whole}", usage) is not None
    return re.search(whole, usage) is not None and optional != required


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_readme_command_table_matches_help(name):
    usage = readme_usage(name)
    wrong = [o for o, required in options(name) if not shown_as_in_help(usage, o, required)]
    assert not wrong, f"README's {name} row: {wrong} missing, or bracketed unlike --help: {usage}"


@pytest.mark.parametrize("name", ["read", "eval"])
def test_vision_doc_usage_lines_match_help(name):
    usage = vision_usage(name)
    wrong = [o for o, required in options(name) if not shown_as_in_help(usage, o, required)]
    assert not wrong, f"docs/vision.md's {name} usage: {wrong} missing, or bracketed unlike --help: {usage}"


@pytest.mark.parametrize("name", ["check", "turn", "score"])
def test_rules_doc_headings_match_help(name):
    heading = next(line for line in (ROOT / "docs" / "rules.md").read_text().splitlines()
                   if line.startswith(f"### `rummikub-companion {name} "))
    wrong = [o for o, required in options(name) if not shown_as_in_help(heading, o, required)]
    assert not wrong, f"docs/rules.md's {name} heading: {wrong} missing, or bracketed unlike --help: {heading}"


def test_readme_names_the_version_option():
    assert "`rummikub-companion --version`" in (ROOT / "README.md").read_text()
