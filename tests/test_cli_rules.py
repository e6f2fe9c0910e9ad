"""The check, score and turn subcommands: JSON shapes, exit codes 0/1/2, errors naming the token."""

import io
import json
import subprocess
import sys

import pytest

from cli import main


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


class TestCheck:
    def test_json_shape_and_all_valid(self, capsys):
        code, out, _ = run(capsys, "check", "--json", "R5 R6 J", "K7,B7,O7")
        assert code == 0
        doc = json.loads(out)
        assert list(doc) == ["sets"]
        assert doc["sets"][0] == {"tiles": ["R5", "R6", "J"], "valid": True, "kind": "run", "value": 18,
                                  "problem": None, "code": None, "concerns": []}
        assert doc["sets"][1]["kind"] == "group" and doc["sets"][1]["value"] == 21

    def test_some_invalid_exit_1(self, capsys):
        code, out, _ = run(capsys, "check", "--json", "R5 R6 J", "R12 R13 R1")
        assert code == 1
        bad = json.loads(out)["sets"][1]
        assert bad["valid"] is False and bad["kind"] is None and bad["value"] is None and bad["problem"]

    def test_rules_american_allows_one_high(self, capsys):
        assert run(capsys, "check", "--rules", "american", "R12 R13 R1")[0] == 0
        assert run(capsys, "check", "--rules", "international", "R13 R1 R2")[0] == 1

    def test_plain_text(self, capsys):
        code, out, _ = run(capsys, "check", "r1 r2 r3", "K5 K5 B5")
        assert code == 1 and "valid run, value 6" in out and "INVALID" in out

    @pytest.mark.parametrize("bad, token", [("R14", "R14"), ("R5 X3 R7", "X3"), ("R5,,Q1", "Q1")])
    def test_unusable_input_exit_2_names_token(self, capsys, bad, token):
        code, out, err = run(capsys, "check", "R1 R2 R3", bad)
        assert code == 2 and token in err and out == ""

    def test_unknown_rules_exit_2(self, capsys):
        code, _, err = run(capsys, "check", "--rules", "poker", "R1 R2 R3")
        assert code == 2 and "unknown rules 'poker'" in err

    @pytest.mark.parametrize("option, message", [
        ("colour_blind=yes", "not NAME=VALUE with a rule option name"),
        ("manipulation=maybe", "yes or no"),
        ("initial_meld=" + "9" * 5000, "whole number"),
        ("rounds=four", "rule option rounds is a whole number or players, not 'four'"),
        ("rounds=0", "bad value 0 for rule option rounds (allowed: a whole number from 1 to 100, 'players' or null)"),
        ("target_score=0", "bad value 0 for rule option target_score"),
    ])
    def test_bad_option_exit_2(self, capsys, option, message):
        code, _, err = run(capsys, "check", "--option", option, "R1 R2 R3")
        assert code == 2 and message in err

    def test_game_length_options(self, capsys):
        assert run(capsys, "check", "--option", "rounds=4", "--option", "target_score=off", "R1 R2 R3")[0] == 0
        assert run(capsys, "check", "--rules", "israeli", "--option", "rounds=off", "R1 R2 R3")[0] == 0
        assert run(capsys, "check", "--option", "rounds=players", "R1 R2 R3")[0] == 0
        code, _, err = run(capsys, "check", "--rules", "israeli", "--option", "target_score=300", "R1 R2 R3")
        assert code == 2 and "bad value 300 for rule option target_score with israeli scoring" in err

    def test_three_copies_of_a_set_exceed_the_box(self, capsys):
        # 004_* leaflet 'Contents': 106 tiles, two of each; XP: three of each
        code, out, _ = run(capsys, "check", "--json", "R1 R2 R3", "R1 R2 R3", "R1 R2 R3")
        sets = json.loads(out)["sets"]
        assert code == 1 and [s["valid"] for s in sets] == [True, True, False]
        assert sets[2]["code"] == "box_exceeded" and sets[2]["concerns"] == ["R1", "R2", "R3"]
        assert run(capsys, "check", "--rules", "xp", "R1 R2 R3", "R1 R2 R3", "R1 R2 R3")[0] == 0


class TestScore:
    def test_one_hand_from_stdin(self, capsys, monkeypatch):
        doc = {"rules": "sabra", "racks": {"Ann": [], "Bob": ["R5", "J"]}}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert code == 0 and json.loads(out) == {"winner": "Ann", "scores": {"Ann": 35, "Bob": -35}}

    def test_israeli_and_pool_empty(self, capsys, monkeypatch, tmp_path):
        f = tmp_path / "hand.json"
        f.write_text(json.dumps({"rules": "israeli", "racks": {"Ann": ["R1"], "Bob": ["R5", "J"]},
                                 "melded": {"Bob": False}, "pool_empty": True}))
        code, out, _ = run(capsys, "score", "--json", str(f))
        assert code == 0 and json.loads(out) == {"winner": None, "scores": {"Ann": 1, "Bob": 100}}

    def test_american_sums_to_zero(self, capsys, monkeypatch):
        doc = {"rules": "american", "racks": {"A": [], "B": ["R1"], "C": ["J", "K13"]}}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert json.loads(out)["scores"] == {"A": 44, "B": -1, "C": -43}

    @pytest.mark.parametrize(
        "rules, expected",
        [({"rules": "sabra", "options": {"joker_penalty": 25}}, 30),
         ({"rules": {"variant": "dutch_sabra"}}, 30),
         ({"rules": "sabra", "options": {"scoring": "israeli"}}, 35)],
    )
    def test_rules_as_options(self, capsys, monkeypatch, rules, expected):
        doc = {**rules, "racks": {"Ann": [], "Bob": ["R5", "J"]}}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert code == 0 and json.loads(out)["scores"]["Bob"] in (-expected, expected)
        if "israeli" in json.dumps(rules):
            assert json.loads(out)["scores"] == {"Ann": -100, "Bob": 35}

    def test_whole_game_sheet(self, capsys, monkeypatch):
        doc = {"rules": "sabra", "players": ["A", "B"],
               "hands": [{"racks": {"A": [], "B": ["R5"]}}, {"racks": {"A": ["K9"], "B": []}},
                         {"racks": {"A": [], "B": ["J"]}}]}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        sheet = json.loads(out)
        assert code == 0
        assert sheet["totals"] == {"A": 26, "B": -26} and sheet["games_won"] == {"A": 2, "B": 1}
        assert sheet["rounds"] == 1 and sheet["winner"] == "A" and len(sheet["hands"]) == 3
        assert "length" not in sheet  # open-ended: no length to report

    def test_whole_game_to_a_target_ranks_by_the_score_and_says_it_is_over(self, capsys, monkeypatch):
        """The command ignored ``rounds`` and ``target_score``: it named Ben, with more hands won, the winner
        of the game Ann ended by reaching the target, and never said whether the agreed length was played."""
        doc = {"rules": "sabra", "options": {"target_score": 40}, "players": ["Ann", "Ben"],
               "hands": [{"racks": {"Ann": ["K1"], "Ben": []}}, {"racks": {"Ann": ["K1"], "Ben": []}},
                         {"racks": {"Ann": [], "Ben": "K13 K12 K11 K10 O6"}}]}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        sheet = json.loads(out)
        assert code == 0 and sheet["winner"] == "Ann" and sheet["games_won"] == {"Ann": 1, "Ben": 2}
        assert sheet["length"] == {"rounds": None, "per_player": False, "target": 40, "hands": None, "played": 3,
                                   "complete": True}
        code, out, _ = run(capsys, "score", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert "length: first to 40; 3 hands played, complete: the game is over\nwinner: Ann" in out
        # a hand after the one that ended the game is refused: the page would not have dealt it
        doc["hands"].append({"racks": {"Ann": ["K2"], "Ben": []}})
        code, out, err = run(capsys, "score", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert code == 2 and out == "" and \
            "hand 4 comes after the game ended with hand 3: first to 40; leave the later hands out" in err

    def test_whole_israeli_game_plays_as_many_rounds_as_players(self, capsys, monkeypatch):
        hands = [{"racks": {"A": [], "B": ["R5"]}}, {"racks": {"A": ["R5"], "B": []}}, {"racks": {"A": [], "B": ["R5"]}}]
        doc = {"rules": "israeli", "hands": hands}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert code == 0 and json.loads(out)["length"] == {
            "rounds": 2, "per_player": True, "target": None, "hands": 4, "played": 3, "complete": False}
        code, out, _ = run(capsys, "score", "-", stdin=json.dumps(dict(doc, hands=hands + hands[:1])),
                           monkeypatch=monkeypatch)
        assert code == 0 and ("length: 2 rounds agreed (4 hands, one per player); 4 hands played, "
                              "complete: the game is over") in out
        code, _, err = run(capsys, "score", "-", stdin=json.dumps(dict(doc, hands=hands + hands)),
                           monkeypatch=monkeypatch)
        assert code == 2 and "hand 5 comes after the game ended with hand 4" in err
        doc = dict(doc, hands=hands + hands, options={"rounds": None})  # open-ended: every hand is scored
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert code == 0 and len(json.loads(out)["hands"]) == 6 and "length" not in json.loads(out)

    def test_international_closed_hand(self, capsys, monkeypatch):
        doc = {"rules": "international", "racks": {"A": [], "B": ["R5"], "C": ["K9"]},
               "melded": {"C": False}, "win": "closed",
               "hand": "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1"}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        res = json.loads(out)
        assert res["scores"] == {"A": 2400, "B": -5, "C": -2400}
        assert res["details"]["closed_hand"]["name"] == "Royal"

    def test_international_game_settlement(self, capsys, monkeypatch):
        doc = {"rules": "international", "hands": [
            {"racks": {"A": [], "B": ["R5"], "C": ["K9"]}, "melded": {"C": False}}]}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert json.loads(out)["settlement"]["net"] == {"A": 305, "B": -10, "C": -295}

    def test_israeli_game_final_scores(self, capsys, monkeypatch):
        doc = {"rules": "israeli", "hands": [{"racks": {"A": [], "B": ["R5"], "C": ["K9"]}}]}
        code, out, _ = run(capsys, "score", "--json", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        res = json.loads(out)
        assert sum(res["final"].values()) == 0 and res["winner"] == "A"

    def test_plain_text_output(self, capsys, monkeypatch):
        doc = {"racks": {"Ann": [], "Bob": ["R5", "J"]}}
        code, out, _ = run(capsys, "score", "-", stdin=json.dumps(doc), monkeypatch=monkeypatch)
        assert code == 0 and "winner: Ann" in out and "Bob: -35" in out

    @pytest.mark.parametrize(
        "text, words",
        [
            ('{"racks": {"Ann": [], "Bob": ["R15"]}}', "R15"),
            ('{"racks": {"Ann": [], "Bob": ["X3", "R5"]}}', "X3"),
            ("{not json", "not JSON"),
            ('{"rules": "poker", "racks": {"A": [], "B": []}}', "poker"),
            ('{"racks": {"Ann": ["R1"], "Bob": ["R5"]}}', "nobody went out"),
            ('{"racks": {"Ann": [], "Bob": ["R5"]}, "colour": 1}', "colour"),
            ('{"rules": {"game": "sabra", "joker_penalty": "x"}, "racks": {"A": [], "B": []}}', "joker_penalty"),
            ("[1, 2]", "object"),
            ('{"racks": {"Ann": [], "Bob": ["R5"]}, "pool_empty": "yes"}', "pool_empty"),
            ('{"racks": {"Ann": [], "Bob": ["R5"]}, "melded": {"Bob": "no"}}', "melded"),
            ('{"racks": {"Ann": [], "Bob": 5}}', "Bob"),
        ],
    )
    def test_unusable_input_exit_2(self, capsys, monkeypatch, text, words):
        code, out, err = run(capsys, "score", "--json", "-", stdin=text, monkeypatch=monkeypatch)
        assert code == 2 and words in err and out == ""

    def test_missing_file_exit_2(self, capsys, tmp_path):
        code, _, err = run(capsys, "score", str(tmp_path / "nope.json"))
        assert code == 2 and "nope.json" in err


class TestTurn:
    def test_legal_json(self, capsys):
        code, out, _ = run(capsys, "turn", "--before", "R1 R2 R3", "--after", "R1 R2 R3 R4, K5 B5 O5",
                           "--rack", "R4 K5 B5 O5 K1", "--json")
        assert code == 0
        assert json.loads(out) == {"legal": True, "problems": [], "issues": [], "placed": ["R4", "K5", "B5", "O5"]}

    def test_illegal_lists_problems(self, capsys):
        code, out, _ = run(capsys, "turn", "--before", "R1 R2 R3 | K5 B5 O5", "--after", "R1 R2 | K5 B5 O5 R5",
                           "--rack", "R5", "--json")
        doc = json.loads(out)
        assert code == 1 and doc["legal"] is False and len(doc["problems"]) == 2
        assert doc["placed"] == ["R5"]

    def test_initial_meld_flag_and_rules(self, capsys):
        argv = ["turn", "--after", "R6 R7 R8", "--rack", "R6 R7 R8 K1", "--not-melded"]
        assert run(capsys, *argv)[0] == 1
        assert run(capsys, *argv, "--rules", "american")[0] == 0

    def test_plain_text(self, capsys):
        code, out, _ = run(capsys, "turn", "--before", "R1 R2 R3", "--after", "R1 R2 R3", "--rack", "R4")
        assert code == 1 and "ILLEGAL" in out and "no tile was added" in out

    @pytest.mark.parametrize("flag, value", [("--before", "R1 R2 R14"), ("--after", "X3"), ("--rack", "R5 Z9")])
    def test_unusable_input_exit_2(self, capsys, flag, value):
        args = {"--before": "R1 R2 R3", "--after": "R1 R2 R3 R4", "--rack": "R4"}
        args[flag] = value
        code, out, err = run(capsys, "turn", *[x for kv in args.items() for x in kv])
        token = value.split()[-1]
        assert code == 2 and token in err and out == ""


def test_console_entry_point_runs_as_a_process():
    proc = subprocess.run([sys.executable, "-m", "cli", "check", "--json", "R14"], capture_output=True, text=True)
    assert proc.returncode == 2 and "R14" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "cli", "check", "R1 R2 R3"], capture_output=True, text=True)
    assert proc.returncode == 0
