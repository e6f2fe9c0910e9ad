"""Every ``--json`` command prints exactly one JSON document on stdout, run as a user runs it:
the installed ``rummikub-companion`` console script in a subprocess.

highspy prints a "Running HiGHS ..." banner on stdout when ``highspy.Highs()``
is created (1.16 and later, before any option can be set); ``solve`` must
still print pure JSON.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

SCRIPT = shutil.which("rummikub-companion", path=str(Path(sys.executable).parent)) or shutil.which(
    "rummikub-companion")
pytestmark = pytest.mark.skipif(SCRIPT is None, reason="the console script is not installed (pip install -e .)")

COMMANDS = [
    (["check", "--json", "R5 R6 J", "K7 B7 O7"], None, 0),
    (["check", "--json", "R1 R2 R3", "R1 R2 R3", "R1 R2 R3"], None, 1),
    (["turn", "--json", "--before", "R1 R2 R3", "--after", "R1 R2 R3 R4", "--rack", "R4 K1"], None, 0),
    (["solve", "--json", "--table", "R1 R2 R3, K5 B5 O5", "--rack", "R4 J K9"], None, 0),
    (["solve", "--json", "--rules", "american", "--table", "R5 J R7", "--rack", "R6 B9 B10 K1"], None, 0),
    (["solve", "--json", "--rack", "K10 K11 K12", "--initial"], None, 0),
    (["score", "--json", "-"], '{"rules": "sabra", "racks": {"Ann": [], "Bob": ["R5", "J"]}}', 0),
]


def run(argv, stdin=None):
    return subprocess.run([SCRIPT, *argv], input=stdin, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("argv, stdin, code", COMMANDS, ids=[" ".join(c[0][:2]) for c in COMMANDS])
def test_json_commands_print_one_document(argv, stdin, code):
    done = run(argv, stdin)
    assert done.returncode == code, done.stderr
    assert done.stdout.count("\n") == 1 and "HiGHS" not in done.stdout, (version("highspy"), done.stdout)
    json.loads(done.stdout)  # exactly one document: anything before or after it fails to parse


def test_solve_json_is_judged_legal_by_turn():
    """The move ``solve`` prints is one ``turn`` accepts under the same rules (American: no manipulation)."""
    table, rack = "R1 R2 R3 R4", "R3 R5 R6 K1"
    move = json.loads(run(["solve", "--json", "--rules", "american", "--table", table, "--rack", rack]).stdout)
    after = " | ".join(" ".join(s) for s in move["sets"])
    verdict = run(["turn", "--json", "--rules", "american", "--before", table, "--after", after, "--rack", rack])
    assert verdict.returncode == 0 and json.loads(verdict.stdout)["legal"], verdict.stdout
    assert move["count"] == 2  # R5 R6 extend the run; splitting it to take R3 is manipulation


@pytest.mark.parametrize("content, message", [
    (b"[" * 50_000 + b"]" * 50_000, "deep"),
    (b'{"racks": {"A": [], "B": ["R5\xff"]}}', "not UTF-8"),
    (b'{"hands": [{"winner": "A", "scores": {"A": ' + b"9" * 5000 + b', "B": 0}}]}', "5000 digits"),
    (json.dumps({"racks": {"A": [], "B": ["R5"] * 10_000}}).encode(), "10000 tiles"),
    (json.dumps({"racks": {"A": [], "B": "R5 R5 R5 R5 J J J"}}).encode(), "4 x R5, 3 x J"),
], ids=["nested", "not-utf8", "long-number", "10000-tiles", "impossible-rack"])
def test_score_refuses_bad_input_with_exit_2_and_no_traceback(tmp_path, content, message):
    path = tmp_path / "hand.json"
    path.write_bytes(content)
    done = run(["score", "--json", str(path)])
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""
