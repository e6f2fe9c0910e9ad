"""Rule cases taken from the rule texts in ../shared/seeds/, each run as a user runs it: the installed
``rummikub-companion`` console script in a subprocess, its ``--json`` answer parsed.

Each case names its seed file and quotes the passage it comes from; ``test_passages_are_quoted_exactly``
checks every quotation against the seed text (when ../shared is present).  Where the texts disagree
the case names the rule option that picks a reading (``--option`` or a named variant).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = shutil.which("rummikub-companion", path=str(Path(sys.executable).parent)) or shutil.which(
    "rummikub-companion")
needs_script = pytest.mark.skipif(SCRIPT is None, reason="the console script is not installed (pip install -e .)")

LEAFLET = "004"  # the Lemada leaflet and the Official Book's games and variations (004_*)


def cli(argv: list[str], stdin: str | None = None) -> tuple[int, dict]:
    done = subprocess.run([SCRIPT, *argv], input=stdin, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def check(*sets: str, rules: str = "sabra", options: tuple[str, ...] = ()) -> list[str]:
    argv = ["check", "--json", "--rules", rules, *(a for o in options for a in ("--option", o)), *sets]
    return argv


def turn(before: str, after: str, rack: str, rules: str = "sabra", options: tuple[str, ...] = (),
         not_melded: bool = False, after_draw: bool = False) -> list[str]:
    argv = ["turn", "--json", "--rules", rules, "--before", before, "--after", after, "--rack", rack]
    argv += [a for o in options for a in ("--option", o)]
    return argv + (["--not-melded"] if not_melded else []) + (["--after-draw"] if after_draw else [])


# --- sets: (seed, passage, argv, exit code, per set: (valid, kind, value) or (False, problem code)) -------

SETS = [
    (LEAFLET, "A **group** is a set of either three or four tiles of the same number in different colors.",
     check("K5 B5 O5", "K9 B9 O9 R9"), 0, [(True, "group", 15), (True, "group", 36)]),
    (LEAFLET, "A **group** is a set of either three or four tiles of the same number in different colors.",
     check("K5 B5 K5"), 1, [(False, "group_repeats_colour")]),
    (LEAFLET, "groups**, consisting of three or four tiles of the same number",
     check("K5 B5 O5 R5 K5"), 1, [(False, None)]),
    (LEAFLET, "A **run** is a set of three or more consecutive numbers all in the same color.",
     check("B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13"), 0, [(True, "run", 91)]),
    (LEAFLET, "A **run** is a set of three or more consecutive numbers all in the same color.",
     check("R4 R5"), 1, [(False, "too_few_tiles")]),
    (LEAFLET, "A **run** is a set of three or more consecutive numbers all in the same color.",
     check("R4 R6 R7"), 1, [(False, "run_gap")]),
    (LEAFLET, "A **run** is a set of three or more consecutive numbers all in the same color.",
     check("R4 B5 R6"), 1, [(False, "mixed_set")]),
    (LEAFLET, "The number 1 is always played as the lowest number, it cannot follow the number 13.",
     check("R12 R13 R1"), 1, [(False, "one_always_low")]),
    ("003", "1 is always low and doesn’t follow 13 in a sequence.",
     check("R1 R2 R3", "K13 K1 K2"), 1, [(True, "run", 6), (False, "one_always_low")]),
    (LEAFLET, "So 1-2-3 and 12-13-1 are both valid runs, but 13-1-2 is not.",
     check("R1 R2 R3", "R12 R13 R1", rules="american"), 0, [(True, "run", 6), (True, "run", 26)]),
    (LEAFLET, "So 1-2-3 and 12-13-1 are both valid runs, but 13-1-2 is not.",
     check("R13 R1 R2", rules="american"), 1, [(False, "one_high_and_low")]),
    (LEAFLET, "So 1-2-3 and 12-13-1 are both valid runs, but 13-1-2 is not.",
     check("K13 J K2", rules="american"), 1, [(False, "one_high_and_low")]),  # the joker would be the '1'
    (LEAFLET, "in Sabra the '1' tiles are always low in runs: 1-2-3 is a valid run; 12-13-1 is not.",
     check("K13 J K2"), 1, [(False, "one_always_low")]),
    (LEAFLET, "'1' tiles can be used as high or low, but not both at once.",
     check("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1", rules="american"), 1, [(False, None)]),
    (LEAFLET, "The mechanism of play is the same as in American",
     check("O12 O13 O1", rules="international"), 0, [(True, "run", 26)]),
    (LEAFLET, "its number and color are that of the tile needed to complete the set",
     check("R5 J R7", "K8 J O8"), 0, [(True, "run", 18), (True, "group", 24)]),
    # the joker laid before K9 K10 stands for K8 (value 27, not 30 for K11)
    (LEAFLET, "If a joker is used, it counts as the number of the tile it represents.",
     check("J K9 K10"), 0, [(True, "run", 27)]),
    (LEAFLET, "If a joker is used, it counts as the number of the tile it represents.",
     check("J R5 R6 J"), 0, [(True, "run", 22)]),
    # laid after 13, where '1' may not follow 13, the joker can only be R11
    (LEAFLET, "If a joker is used, it counts as the number of the tile it represents.",
     check("R12 R13 J"), 0, [(True, "run", 36)]),
    (LEAFLET, "In American Rummikub® '1' tiles can be used as high or low",
     check("R12 R13 J", rules="american"), 0, [(True, "run", 26)]),  # the joker is R1, high: 1 point
    (LEAFLET, "the current edition of the online rules from Lemada Light Industries Ltd. does explicitly allow it",
     check("R5 J J"), 0, [(True, "run", 18)]),
    (LEAFLET, "Most rule sets do not explicitly state whether two jokers can be used in the same combination.",
     check("R5 J J", options=("two_jokers_in_set=no",)), 1, [(False, "two_jokers_in_set")]),
    # two jokers and a 13: a group of 13s (39) or R11-R13 (36); the player declares it, the value takes the higher
    (LEAFLET, "must clearly state whether it is meant to be a set of equal tiles or a sequence",
     check("J J R13"), 0, [(True, "group", 39)]),
    (LEAFLET, "There are two jokers in the game.",
     check("R5 J J", "J R7 R8"), 1, [(True, "run", 18), (False, "box_exceeded")]),
    (LEAFLET, "Contents: 106 tiles (8 sets of tiles 1-13 in four colours, and 2 joker tiles)",
     check("R1 R2 R3", "R1 R2 R3", "R1 R2 R3"), 1, [(True, "run", 6), (True, "run", 6), (False, "box_exceeded")]),
    (LEAFLET, "(12 sets of tiles 1-13 in four colours, and 4 joker tiles)",
     check("R1 R2 R3", "R1 R2 R3", "R1 R2 R3", rules="xp"), 0, [(True, "run", 6)] * 3),
]


@needs_script
@pytest.mark.parametrize("seed, passage, argv, code, expected", SETS, ids=[" ".join(c[2][5:]) for c in SETS])
def test_sets(seed, passage, argv, code, expected):
    got_code, doc = cli(argv)
    assert got_code == code, doc
    for s, want in zip(doc["sets"], expected):
        if want[0]:
            assert (s["valid"], s["kind"], s["value"]) == want, s
        else:
            assert not s["valid"] and (want[1] is None or s["code"] == want[1]), s


# --- turns: (seed, passage, argv, legal, problem codes that must be among the verdict's) -----------------

TURNS = [
    # the initial meld
    (LEAFLET, "each player must place tiles on the table in one or more sets that total at least 30 points",
     turn("", "R10 R11 R12", "R10 R11 R12 K1", not_melded=True), True, []),
    (LEAFLET, "each player must place tiles on the table in one or more sets that total at least 30 points",
     turn("", "R1 R2 R3 | K4 B4 O4", "R1 R2 R3 K4 B4 O4", not_melded=True), False, ["initial_meld_too_low"]),
    (LEAFLET, "for their initial meld, players may not use tiles already played on the table",
     turn("B1 B2 B3 B4", "B1 B2 B3 | B4 R4 O4 | R10 R11 R12", "R4 O4 R10 R11 R12", not_melded=True),
     False, ["initial_meld_uses_table"]),
    # B8 added to a table set does not count: 27 from the new run alone (the Dutch Sabra lets B8 be added)
    ("003", "these points are added from the tiles on the rack, not from tiles that may have already been placed",
     turn("B5 B6 B7", "B5 B6 B7 B8 | R8 R9 R10", "B8 R8 R9 R10", rules="dutch_sabra", not_melded=True),
     False, ["initial_meld_too_low"]),
    (LEAFLET, "On turns after a player has made his/her initial meld, that player can build onto other sets",
     turn("B5 B6 B7", "B5 B6 B7 B8 | R10 R11 R12", "B8 R10 R11 R12", not_melded=True),
     False, ["initial_meld_uses_table"]),
    (LEAFLET, "Manipulation on the same turn that you lay down your initial meld is, however, allowed",
     turn("B5 B6 B7", "B5 B6 B7 B8 | R10 R11 R12", "B8 R10 R11 R12", rules="dutch_sabra", not_melded=True),
     True, []),
    (LEAFLET, "A joker used in the initial meld scores the value of the tile it represents.",
     turn("", "K9 K10 J", "K9 K10 J R1", not_melded=True), True, []),
    (LEAFLET, "A joker used in the initial meld scores the value of the tile it represents.",
     turn("", "J K9 K10", "J K9 K10 R1", not_melded=True), False, ["initial_meld_too_low"]),
    (LEAFLET, "a total value of 21 points or more, counting number tiles at face value",
     turn("", "K7 B7 O7", "K7 B7 O7 R1 R9", rules="american", not_melded=True), True, []),
    (LEAFLET, "a total value of 21 points or more, counting number tiles at face value",
     turn("", "R5 R6 R7", "R5 R6 R7 K1 K9", rules="american", not_melded=True), False, ["initial_meld_too_low"]),
    (LEAFLET, "If you use jokers, they count as having the value of the tile they represent.",
     turn("", "R12 R13 R1", "R12 R13 R1 K5", rules="american", not_melded=True), True, []),
    (LEAFLET, "You need at least 50 points for your initial meld",
     turn("", "R10 R11 R12 R13", "R10 R11 R12 R13 K1", rules="international", not_melded=True),
     False, ["initial_meld_too_low"]),
    (LEAFLET, "You need at least 50 points for your initial meld",
     turn("", "R10 R11 R12 | K10 B10 O10", "R10 R11 R12 K10 B10 O10 K1", rules="international", not_melded=True),
     True, []),
    (LEAFLET, "This version is given in the 1987 edition of the Pressman rules",
     turn("", "R10 R11 R12 R13", "R10 R11 R12 R13 K1", rules="pressman_1987", not_melded=True),
     False, ["initial_meld_too_low"]),
    ("002", "a player who does not make the initial meld picks an additional tile",
     turn("", "R1 R2 R3", "R1 R2 R3", not_melded=True), False, ["initial_meld_too_low"]),
    # every turn
    (LEAFLET, "At the end of the player's turn at least one tile must have been added from hand",
     turn("R1 R2 R3 R4 R5 R6", "R1 R2 R3 | R4 R5 R6", "K9"), False, ["nothing_played"]),
    (LEAFLET, "only legitimate sets remain and no loose tiles are left over",
     turn("R1 R2 R3 R4", "R1 R2 R3 | R4 R5", "R5 K9"), False, ["invalid_set"]),
    # manipulation (Sabra)
    (LEAFLET, "Blue 4,5,6 are on the table. The player adds a blue 3.",
     turn("B4 B5 B6 | K8 R8 O8", "B3 B4 B5 B6 | K8 B8 O8 R8", "B3 B8"), True, []),
    (LEAFLET, "The player takes the blue 4 from the group of four on the table and lays the run",
     turn("K4 B4 O4 R4", "K4 O4 R4 | B3 B4 B5 B6", "B3 B5 B6"), True, []),
    (LEAFLET, "The player adds a blue 11 to the run and uses the 8's to form a new group.",
     turn("B8 B9 B10", "B9 B10 B11 | K8 B8 R8", "B11 K8 R8"), True, []),
    (LEAFLET, "The player splits the run and uses the red 6 to form two new runs.",
     turn("R4 R5 R6 R7 R8", "R4 R5 R6 | R6 R7 R8", "R6"), True, []),
    (LEAFLET, "The player places a blue 1 from the rack with the orange 1 from the run and the red 1 from the group",
     turn("O1 O2 O3 O4 | K1 R1 O1 B1", "O2 O3 O4 | K1 O1 B1 | B1 O1 R1", "B1"), True, []),
    ("002", "a player may add the yellow 5 to the end and remove the 1 for use elsewhere",
     turn("Y2 Y3 Y4", "Y3 Y4 Y5 | Y2 K2 B2", "Y5 K2 B2"), True, []),
    ("002", "the player may insert his own 8 to make two runs",
     turn("R5 R6 R7 R8 R9", "R5 R6 R7 R8 | R8 R9 R10", "R8 R10"), True, []),
    ("002", "the player may add the red 5 and remove any one of the other three for use elsewhere",
     turn("K5 B5 Y5", "B5 Y5 R5 | K5 K6 K7", "R5 K6 K7"), True, []),
    # manipulation is Sabra's alone
    (LEAFLET, "You may extend your own or other players' melded groups or runs by adding tiles to them.",
     turn("R1 R2 R3 | K7 B7 O7", "R1 R2 R3 R4 | K7 B7 O7 R7", "R4 R7 K9", rules="american"), True, []),
    (LEAFLET, "You may meld additional groups or runs from your hand, irrespective of value.",
     turn("R1 R2 R3", "R1 R2 R3 | K1 K2 K3", "K1 K2 K3 B9", rules="american"), True, []),
    (LEAFLET, "This version of [Manipulation Rummy](#) is the only game",
     turn("R1 R2 R3 R4", "R1 R2 R3 | R4 R5 R6", "R5 R6 K9", rules="american"), False, ["manipulation_not_allowed"]),
    (LEAFLET, "The mechanism of play is the same as in American",
     turn("K4 B4 O4 R4", "K4 O4 R4 | B3 B4 B5 B6", "B3 B5 B6 K9", rules="international"),
     False, ["manipulation_not_allowed"]),
    (LEAFLET, "Note that you are **not** allowed to draw a tile and then meld all your tiles",
     turn("R1 R2 R3", "R1 R2 R3 R4", "R4", rules="american", after_draw=True), False, ["last_tile_melded"]),
    (LEAFLET, "meld all the remaining tiles in his hand except for one, which is the final discard",
     turn("R1 R2 R3", "R1 R2 R3 R4", "R4 K9", rules="american", after_draw=True), True, []),
    # jokers
    (LEAFLET, "A player cannot retrieve a joker before s/he has played his/her initial meld.",
     turn("R5 J R7", "R5 R6 R7 | K10 K11 K12 J", "R6 K10 K11 K12", not_melded=True),
     False, ["joker_before_initial_meld"]),
    ("002", "A joker cannot be retrieved before the initial meld.",
     turn("R5 J R7", "R5 R6 R7 | K10 K11 K12 J", "R6 K10 K11 K12", rules="lemada_2014", not_melded=True),
     False, ["joker_before_initial_meld"]),
    (LEAFLET, "a player who retrieves a joker must play the joker on his/her current turn to make a new set",
     turn("R5 J R7", "R5 R6 R7", "R6"), False, ["joker_taken_back"]),
    (LEAFLET, "A joker released in this way cannot be taken into the player's hand for later use.",
     turn("R5 J R7", "R5 R6 R7", "R6", rules="lemada_2014"), False, ["joker_taken_back"]),
    (LEAFLET, "and must also use at least one tile from his/her rack on that turn",
     turn("K6 B6 J | R3 R4 R5 R6", "K6 B6 R6 | R3 R4 R5 J", "K9", options=("retrieved_joker=any_set",)),
     False, ["nothing_played"]),
    (LEAFLET, "In the case of a group of three tiles, the joker can be replaced by a tile of either of the missing colors.",
     turn("K5 B5 J", "K5 B5 O5 | R9 R10 J", "O5 R9 R10"), True, []),
    (LEAFLET, "tiles of **both** missing colours must be added to the set in order to retrieve the",
     turn("K5 B5 J", "K5 B5 O5 | R9 R10 J", "O5 R9 R10", rules="pressman_1980"),
     False, ["joker_group_needs_both_colours"]),
    (LEAFLET, "tiles of **both** missing colours must be added to the set in order to retrieve the",
     turn("K5 B5 J", "K5 B5 O5 R5 | R9 R10 J", "O5 R5 R9 R10", rules="pressman_1980"), True, []),
    (LEAFLET, "This tile can come from the table or from a player's rack.",
     turn("R5 J R7 | K6 B6 O6 R6", "R5 R6 R7 | K6 B6 O6 | K9 K10 J", "K9 K10"), True, []),
    (LEAFLET, "The tile used to replace the joker can be taken **from the table** or from the player's rack.",
     turn("R5 J R7 | K6 B6 O6 R6", "R5 R6 R7 | K6 B6 O6 | K9 K10 J", "K9 K10", rules="lemada_2014"), True, []),
    (LEAFLET, "a player who has **in hand** the tile which is represented by a joker on the table",
     turn("R5 J R7 | K6 B6 O6 R6", "R5 R6 R7 | K6 B6 O6 | K9 K10 J", "K9 K10", rules="official_book"),
     False, ["joker_not_replaced"]),
    (LEAFLET, "If you hold the tile represented by a melded joker, you may replace the joker by this tile",
     turn("R5 J R7", "R5 R6 R7 | B9 B10 J", "R6 B9 B10 K1", rules="american"), True, []),
    (LEAFLET, "provided that you immediately use the joker in a \"new\" meld of your own",
     turn("R5 J R7 | K1 K2 K3", "R5 R6 R7 | K1 K2 K3 J", "R6 B9", rules="american"),
     False, ["freed_joker_in_old_set"]),
    (LEAFLET, "The only way the joker can be made to represent a **different** tile is if the player supplies",
     turn("R5 R6 J", "J R5 R6 | R9 R10 R11", "R9 R10 R11"), False, ["joker_not_replaced"]),
    (LEAFLET, "replace it during his/her turn with any tiles that can keep the set legitimate",
     turn("K1 K2 J K4 K5 | R1 B1 O1 | R2 B2 O2", "K3 K4 K5 | R1 B1 O1 K1 | R2 B2 O2 K2 | R9 R10 J", "K3 R9 R10"),
     True, []),
    # sets holding a joker
    (LEAFLET, "Sets containing jokers can be split and manipulated like regular sets.",
     turn("R4 R5 R6 J", "R5 R6 J | K4 B4 R4", "K4 B4"), True, []),
    (LEAFLET, "nothing can be taken from it, nor can it be rearranged in any way while there is a joker in it",
     turn("R4 R5 R6 J", "R5 R6 J | K4 B4 R4", "K4 B4", rules="official_book"), False, ["joker_set_rearranged"]),
    (LEAFLET, "You can add a tile to a meld containing a Joker",
     turn("R5 R6 J", "R5 R6 J R8", "R8", rules="pressman_1987"), True, []),
    (LEAFLET, "if a run has a joker at one end the joker cannot be moved to the other end in order to add a tile",
     turn("R5 R6 J", "J R5 R6 R7", "R7", rules="official_book"), False, []),
    # the four readings of "a new meld" for a freed joker
    (LEAFLET, "The most liberal interpretation is that the joker can be reused in any meld.",
     turn("R5 J R7 | K1 K2 K3", "R5 R6 R7 | K1 K2 K3 J", "R6", rules="lemada_2014"), True, []),
    (LEAFLET, "the meld to which the joker is moved must be one that did not exist on the table before",
     turn("R5 J R7 | K1 K2 K3", "R5 R6 R7 | K1 K2 K3 J", "R6"), False, ["freed_joker_in_old_set"]),
    (LEAFLET, "The tiles for this new meld do not have to come from your hand",
     turn("R5 J R7 | K1 K2 K3 K4 K5", "R5 R6 R7 | K1 K2 K3 | K4 K5 J", "R6"), True, []),
    (LEAFLET, "must be used in the player's same turn with 2 or more tiles from his rack to make a new set",
     turn("R5 J R7 | K1 K2 K3 K4 K5", "R5 R6 R7 | K1 K2 K3 | K4 K5 J", "R6", rules="pressman_1987"),
     False, ["freed_joker_needs_rack_tiles"]),
    (LEAFLET, "you may substitute one blue 6 for the joker and make a new blue run of 6-joker-4-3",
     turn("K4 B4 O4 R4 | B8 B7 J", "K4 O4 R4 | B6 J B4 B3 | B8 B7 B6", "B6 B6 B3", rules="pressman_1987"),
     True, []),
    (LEAFLET, "the example play in version 3 above would not be allowed",
     turn("K4 B4 O4 R4 | B8 B7 J", "K4 O4 R4 | B6 J B4 B3 | B8 B7 B6", "B6 B6 B3",
          options=("retrieved_joker=new_set_only_joker_and_rack",)), False, ["freed_joker_not_own_set"]),
]


@needs_script
@pytest.mark.parametrize("seed, passage, argv, legal, codes", TURNS, ids=[f"{c[2][4]}-{c[2][6]}>{c[2][8]}" for c in TURNS])
def test_turns(seed, passage, argv, legal, codes):
    code, doc = cli(argv)
    assert (code == 0) == legal == doc["legal"], doc
    found = {i["code"] for i in doc["issues"]}
    assert set(codes) <= found, doc


# --- the solver under each game's rules: (seed, passage, argv, tiles placed, table afterwards or None) ------


def solve(table: str, rack: str, rules: str = "sabra", *extra: str) -> list[str]:
    return ["solve", "--json", "--rules", rules, "--table", table, "--rack", rack, *extra]


SOLVES = [
    (LEAFLET, "The player splits the run and uses the red 6 to form two new runs.",
     solve("R1 R2 R3 R4", "R3 R5 R6 K1"), 3, [["R1", "R2", "R3"], ["R3", "R4", "R5", "R6"]]),
    (LEAFLET, "You may extend your own or other players' melded groups or runs by adding tiles to them.",
     solve("R1 R2 R3 R4", "R3 R5 R6 K1", "american"), 2, [["R1", "R2", "R3", "R4", "R5", "R6"]]),
    (LEAFLET, "Note that you are **not** allowed to draw a tile and then meld all your tiles",
     solve("R1 R2 R3", "R4", "american"), 0, [["R1", "R2", "R3"]]),
    (LEAFLET, "A joker used in the initial meld scores the value of the tile it represents.",
     solve("", "J K9 K10 R1", "sabra", "--initial"), 3, [["K9", "K10", "J"]]),
    (LEAFLET, "for their initial meld, players may not use tiles already played on the table",
     solve("B1 B2 B3", "B4 R10 R11 R12", "sabra", "--initial"), 3, [["B1", "B2", "B3"], ["R10", "R11", "R12"]]),
    (LEAFLET, "If you hold the tile represented by a melded joker, you may replace the joker by this tile",
     solve("R5 J R7", "R6 B9 B10 K1", "american"), 3, [["R5", "R6", "R7"], ["B9", "B10", "J"]]),
    (LEAFLET, "The number 1 is always played as the lowest number, it cannot follow the number 13.",
     solve("R11 R12 R13", "R1 K9"), 0, [["R11", "R12", "R13"]]),
]


@needs_script
@pytest.mark.parametrize("seed, passage, argv, count, sets", SOLVES, ids=[f"{c[2][3]} {c[2][5]}+{c[2][7]}" for c in SOLVES])
def test_solver_follows_the_game(seed, passage, argv, count, sets):
    code, move = cli(argv)
    assert code == 0 and move["count"] == count, move
    assert sorted(move["sets"]) == sorted(sets), move


# --- scoring: (seed, passage, hand or game as JSON, expected result keys) ---------------------------------

SCORES = [
    (LEAFLET, "the winner of the game receives a positive score equal to the total of all the other players' points",
     {"rules": "sabra", "racks": {"A": [], "B": ["R5", "R6"], "C": ["K13"]}},
     {"winner": "A", "scores": {"A": 24, "B": -11, "C": -13}}),
    ("002", "Chris will now have a cumulative score of 20, John will have −6",
     {"rules": "sabra", "racks": {"Chris": [], "John": ["R6"], "Regina": ["K12"], "Faith": ["B2"]}},
     {"winner": "Chris", "scores": {"Chris": 20, "John": -6, "Regina": -12, "Faith": -2}}),
    (LEAFLET, "Note: the penalty for having a joker on a rack is 30 points.",
     {"rules": "sabra", "racks": {"A": [], "B": ["J", "R1"]}}, {"scores": {"A": 31, "B": -31}}),
    (LEAFLET, "Some count a joker remaining in a player's hand at the end of play as 25 points rather than 30.",
     {"rules": "dutch_sabra", "racks": {"A": [], "B": ["J", "R1"]}}, {"scores": {"A": 26, "B": -26}}),
    (LEAFLET, "As in Sabra, some players count a joker in a player's hand at the end as 25 points",
     {"rules": "american", "options": {"joker_penalty": 25}, "racks": {"A": [], "B": ["J"]}},
     {"scores": {"A": 25, "B": -25}}),
    (LEAFLET, "the player with the lowest value of tiles on his/her rack wins the round",
     {"rules": "sabra", "pool_empty": True, "racks": {"A": ["R2"], "B": ["R5", "R6"], "C": ["K13"]}},
     {"winner": "A", "scores": {"A": 20, "B": -9, "C": -11}}),
    # the texts disagree: 002_* lets the fewest tiles win, scored as if that player had gone out
    ("002", "If there is no winner, the player with the fewest tiles in their rack is the winner.",
     {"rules": "sabra", "options": {"pool_empty_winner": "fewest_tiles"}, "pool_empty": True,
      "racks": {"A": ["K13"], "B": ["R1", "R2"], "C": ["B3", "B4", "B5"]}},
     {"winner": "A", "scores": {"A": 15, "B": -3, "C": -12}}),
    ("002", "Scoring is carried out in the normal manner.",
     {"rules": "sabra", "options": {"pool_empty_winner": "fewest_tiles"}, "pool_empty": True,
      "racks": {"A": ["K13"], "B": ["R1"], "C": ["B3", "B4"]}},
     {"winner": None, "scores": {"A": 4, "B": 3, "C": -7}}),
    (LEAFLET, "A joker remaining in a player's hand counts 30 points, and '1' tiles count 1 point.",
     {"rules": "american", "racks": {"A": [], "B": ["R1", "J"], "C": ["K13"]}},
     {"winner": "A", "scores": {"A": 44, "B": -31, "C": -13}}),
    (LEAFLET, "I suggest that the same rule is used as in Sabra",
     {"rules": "american", "pool_empty": True, "racks": {"A": ["R2"], "B": ["R5", "R6"]}},
     {"winner": "A", "scores": {"A": 9, "B": -9}}),
    # International
    (LEAFLET, "The winner of an Open hand scores 100 points, or 200 if no other player has melded.",
     {"rules": "international", "racks": {"A": [], "B": ["R1", "R5", "K12"], "C": ["K9"]}, "melded": {"C": False}},
     {"winner": "A", "scores": {"A": 100, "B": -25, "C": -100}}),
    (LEAFLET, "The winner of an Open hand scores 100 points, or 200 if no other player has melded.",
     {"rules": "international", "racks": {"A": [], "B": ["R5"], "C": ["K9"]}, "melded": {"B": False, "C": False}},
     {"scores": {"A": 200, "B": -100, "C": -100}}),
    (LEAFLET, "The winner of a Foot scores 200.",
     {"rules": "international", "win": "foot", "racks": {"A": [], "B": ["R5"]}}, {"scores": {"A": 200, "B": -5}}),
    (LEAFLET, "tiles 2-9 as face value but tiles 10, 11, 12, 13 and 1 as 10 points each",
     {"rules": "international", "racks": {"A": [], "B": ["R1", "R9", "K10", "O13"]}},
     {"scores": {"A": 100, "B": -39}}),
    (LEAFLET, "but loses the same amount that the winner won if the hand ended in a Closed win",
     {"rules": "international", "racks": {"A": [], "B": ["R5"], "C": ["K9"]}, "melded": {"C": False},
      "hand": "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1"},
     {"scores": {"A": 2400, "B": -5, "C": -2400}}),
    (LEAFLET, "all scores for that hand are doubled",
     {"rules": "international", "racks": {"A": [], "B": ["R5"], "C": ["K9"]}, "melded": {"C": False},
      "joker_discard": True}, {"scores": {"A": 200, "B": -10, "C": -200}}),
    (LEAFLET, "you score an extra 50 points",
     {"rules": "international", "options": {"trump_bonus": 50}, "racks": {"A": [], "B": ["R5"]},
      "trump_holders": ["B"]}, {"scores": {"A": 100, "B": 45}}),
    (LEAFLET, "the play ends with no winner",
     {"rules": "international", "pool_empty": True, "racks": {"A": ["R5"], "B": ["K9"]}, "melded": {"B": False}},
     {"winner": None, "scores": {"A": -5, "B": -100}}),
    (LEAFLET, "Seven pairs. Seven pairs of identical tiles.",
     {"rules": "international", "racks": {"A": [], "B": ["R5"]},
      "hand": "R1 R1 K3 K3 B5 B5 O7 O7 R9 R9 K11 K11 B13 B13"}, {"scores": {"A": 1700, "B": -5}}),
    (LEAFLET, "When a hand belongs to several possible types, it counts only as the most valuable type.",
     {"rules": "international", "racks": {"A": [], "B": ["O5"]},
      "hand": "R1 R1 K2 K2 B3 B3 O4 O4 R5 R5 K6 K6 B7 B7"}, {"scores": {"A": 2000, "B": -5}}),
    (LEAFLET, "For hand types involving total value of tiles, 1's count as 1 point.",
     {"rules": "international", "racks": {"A": [], "B": ["R5"]},
      "hand": "K1 B1 O1 R1 R2 R3 R4 K2 K3 K4 K5 B2 B3 B4"}, {"scores": {"A": 1400, "B": -5}}),
    (LEAFLET, "Royal. A single 14-card run from 1 (low) to 1 (high).",
     {"rules": "international", "racks": {"A": [], "B": ["R5"]}, "hand_type": 24, "jokers": 1},
     {"scores": {"A": 2200, "B": -5}}),
    (LEAFLET, "Grand square. Eight tiles of the same number - the other six can be anything.",
     {"rules": "international", "racks": {"A": [], "B": ["R5"]},
      "hand": "K8 K8 B8 B8 O8 O8 R8 R8 R1 R2 R3 K4 K5 K6"}, {"scores": {"A": 1600, "B": -5}}),
    (LEAFLET, "Sticks. Four groups.",
     {"rules": "international", "racks": {"A": [], "B": ["R5"]},
      "hand": "K1 B1 O1 R1 K5 B5 O5 R5 K9 B9 O9 K13 B13 O13"}, {"scores": {"A": 1000, "B": -5}}),
    (LEAFLET, "Grand Blitz. 14 tiles in groups and/or runs in your original hand",
     {"rules": "international", "racks": {"A": [], "B": ["R5"]}, "original_hand": True,
      "hand": "K1 K2 K3 R7 R8 R9 B4 B5 B6 B7 O5 O6 O7 O8"}, {"scores": {"A": 2000, "B": -5}}),
    # Israeli minus scoring (000_*)
    ("000", "Besides the minus points given the winner of each hand, all other players receive plus points",
     {"rules": "israeli", "racks": {"A": [], "B": ["R5", "J"], "C": ["K9"]}, "melded": {"C": False}},
     {"winner": "A", "scores": {"A": -100, "B": 35, "C": 100}}),
    ("000", "he receives minus 200 points, instead of minus 100",
     {"rules": "israeli", "racks": {"A": [], "B": ["R5"], "C": ["K9"]}, "melded": {"B": False, "C": False}},
     {"scores": {"A": -200, "B": 100, "C": 100}}),
    ("000", "each player receives plus points for the tiles remaining on his rack if he is playing Open Rummy",
     {"rules": "israeli", "pool_empty": True, "racks": {"A": ["R1"], "B": ["R5", "J"]}, "melded": {"B": False}},
     {"winner": None, "scores": {"A": 1, "B": 100}}),
    # whole games
    (LEAFLET, "In the case of a tie, the player with the highest score is the winner.",
     {"rules": "sabra", "players": ["Player A", "Player B", "Player C", "Player D"], "hands": [
         {"winner": "Player A", "scores": {"Player A": 24, "Player B": -5, "Player C": -16, "Player D": -3}},
         {"winner": "Player C", "scores": {"Player A": -6, "Player B": -11, "Player C": 22, "Player D": -5}},
         {"winner": "Player D", "scores": {"Player A": -32, "Player B": -13, "Player C": -2, "Player D": 47}}]},
     {"totals": {"Player A": -14, "Player B": -29, "Player C": 4, "Player D": 39}, "winner": "Player D"}),
    (LEAFLET, "the player who has won the most games in all rounds combined is the winner",
     {"rules": "sabra", "players": ["A", "B"], "hands": [
         {"racks": {"A": [], "B": ["R1"]}}, {"racks": {"A": [], "B": ["R2"]}}, {"racks": {"A": ["K13", "J"], "B": []}}]},
     {"games_won": {"A": 2, "B": 1}, "totals": {"A": -40, "B": 40}, "winner": "A"}),
    ("000", "If they are added together they should total zero.",
     {"rules": "israeli", "players": ["A", "B", "C"], "hands": [
         {"racks": {"A": [], "B": ["R5", "J"], "C": ["K9"]}, "melded": {"C": False}}]},
     {"totals": {"A": -100, "B": 35, "C": 100}, "primary": {"A": 0, "B": 135, "C": 200},
      "final": {"A": 335, "B": -70, "C": -265}, "winner": "A"}),
]


@needs_script
@pytest.mark.parametrize("seed, passage, doc, expected", SCORES, ids=[c[1][:40] for c in SCORES])
def test_scores(seed, passage, doc, expected):
    code, got = cli(["score", "--json", "-"], stdin=json.dumps(doc))
    assert code == 0, got
    for key, want in expected.items():
        assert got[key] == want, (key, got)


SEED_FILES = {"000": "000_*", "002": "002_*", "003": "003_*", LEAFLET: "004_*"}


def _plain(text: str) -> str:
    """Spaces and typographic apostrophes made plain, so a quotation matches however it was typed."""
    return re.sub(r"\s+", " ", text).replace("’", "'")


@pytest.mark.shared
def test_passages_are_quoted_exactly(seeds_dir):
    texts = {seed: _plain(next(seeds_dir.glob(pattern)).read_text(encoding="utf-8"))
             for seed, pattern in SEED_FILES.items()}
    for seed, passage, *_ in [*SETS, *TURNS, *SOLVES, *SCORES]:
        assert _plain(passage) in texts[seed], (seed, passage)


@needs_script
@pytest.mark.parametrize("hand, rack", [
    ("K8 K8 K8 B8 B8 O8 O8 R8 R1 R2 R3 K4 K5 K6", ["R5"]),  # three K8
    ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1", ["R1", "R1"]),  # four R1 with the loser's rack
])
def test_closed_hand_and_racks_come_from_one_box(hand, rack):
    # 004_* 'Contents': "There are two tiles of each number and colour"
    doc = {"rules": "international", "racks": {"A": [], "B": rack}, "hand": hand}
    done = subprocess.run([SCRIPT, "score", "--json", "-"], input=json.dumps(doc), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "more copies than the box holds" in done.stderr and done.stdout == ""
