"""``rummikub-companion read``: JSON Lines in order, text summary, drawings, bad files and exit codes.

The tile model is replaced by a stand-in that 'finds' a run of red tiles, one
tile per 50 grey levels of the photo, so each test photo has its own reading.
"""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from cli import main
from vision import reader as reader_module
from vision.types import TileDetections

ROOT = Path(__file__).resolve().parents[1]


class Brightness:
    """Reads R1..Rn where n is the photo's mean grey level / 50; the last tile is doubtful."""

    loads = 0

    def detect(self, image):
        n = int(round(float(image.mean()) / 50))
        quads = [[[10 + 40 * k, 10], [45 + 40 * k, 10], [45 + 40 * k, 60], [10 + 40 * k, 60]] for k in range(n)]
        scores = [0.99] * n
        return TileDetections(np.array(quads, dtype=np.float32).reshape(-1, 4, 2), list(range(26 + 13, 26 + 13 + n)),
                              scores)


@pytest.fixture
def stand_in(monkeypatch):
    def load(cls, path=None, options=None):
        Brightness.loads += 1
        return cls(Brightness(), options)

    Brightness.loads = 0
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir", classmethod(load))
    return Brightness


def photo(folder: Path, name: str, grey: int) -> str:
    path = folder / name
    cv2.imwrite(str(path), np.full((80, 300, 3), grey, np.uint8))
    return str(path)


def test_json_lines_one_object_per_photo_in_order_and_the_model_loaded_once(tmp_path, stand_in, capsys):
    paths = [photo(tmp_path, "a.png", 150), photo(tmp_path, "b.png", 100), photo(tmp_path, "c.png", 200)]
    assert main(["read", "--json", *paths]) == 0
    lines = capsys.readouterr().out.splitlines()
    objects = [json.loads(line) for line in lines]
    assert [o["image"] for o in objects] == paths
    assert [[t["code"] for t in o["tiles"]] for o in objects] == [
        ["R1", "R2", "R3"], ["R1", "R2"], ["R1", "R2", "R3", "R4"]]
    assert objects[0]["sets"] == [{"tiles": [0, 1, 2], "group": "table", "status": "valid", "valid": True,
                                   "kind": "run", "value": 6, "problem": None, "jokers": [], "doubtful": [],
                                   "past_edge": False, "colours_doubted": False}]
    assert objects[1]["sets"][0]["valid"] is False and objects[1]["rack_total"] == 3
    assert stand_in.loads == 1


@pytest.mark.parametrize("content", [b"", b"\x89PNG\r\n\x1a\n broken", b"not a picture at all", None])
def test_a_bad_file_is_named_on_stderr_the_rest_are_still_read_and_the_exit_code_is_1(
        tmp_path, stand_in, capsys, content):
    good1, good2 = photo(tmp_path, "a.png", 150), photo(tmp_path, "c.png", 100)
    bad = tmp_path / "bad.jpg"
    if content is not None:
        bad.write_bytes(content)
    assert main(["read", "--json", good1, str(bad), good2]) == 1
    captured = capsys.readouterr()
    objects = [json.loads(line) for line in captured.out.splitlines()]
    assert [o["image"] for o in objects] == [good1, str(bad), good2]  # one line per photo, in order
    assert ["error" in o for o in objects] == [False, True, False]
    assert str(bad) in objects[1]["error"] and list(objects[1]) == ["image", "error"]
    assert str(bad) in captured.err
    assert good1 not in captured.err



def test_a_video_is_named_as_one_with_the_command_that_plays_it(tmp_path, stand_in, capsys):
    video = str(ROOT / "sample_images" / "recorded_game.mp4")
    good = photo(tmp_path, "a.png", 150)
    assert main(["read", "--json", video, good]) == 1
    captured = capsys.readouterr()
    failed, read = (json.loads(line) for line in captured.out.splitlines())
    said = f"{video}: a video, not a photo (rummikub-companion serve --source {video} plays videos)"
    assert failed == {"image": video, "error": said} and "error" not in read
    assert said in captured.err and "corrupt" not in captured.err

def test_text_summary_lists_sets_values_and_problems(tmp_path, stand_in, capsys):
    assert main(["read", photo(tmp_path, "a.png", 150), photo(tmp_path, "b.png", 100)]) == 0
    out = capsys.readouterr().out
    assert "a.png: 3 tiles, 1 set (0 invalid)\n" in out
    assert "run 6: R1 R2 R3" in out
    assert "INVALID: R1 R2  -- a set needs at least 3 tiles" in out



def test_the_summary_gives_a_rack_total_only_for_a_photo_with_rack_rows():
    """With no rack, ``rack_total`` is what the table's tiles would cost: no rack's total to print."""
    from cli.read import summary
    from vision.reader import SetReading, TableReading

    tiles = TileDetections(np.zeros((3, 4, 2), np.float32), [0, 1, 2], [0.9] * 3)  # K1 K2 K3
    table = TableReading(tiles, [SetReading([0, 1, 2], None)], 6, tiles)
    assert summary("t.jpg", table).splitlines()[0] == "t.jpg: 3 tiles, 1 set (1 invalid)"
    rack = TableReading(tiles, [SetReading([0, 1, 2], None, group="rack", rack_value=6)], 6, tiles)
    assert summary("r.jpg", rack).splitlines()[0] == "r.jpg: 3 tiles, 0 sets (0 invalid), 1 rack row, rack total 6"

def test_annotate_one_photo_to_a_file(tmp_path, stand_in):
    out = tmp_path / "drawn.png"
    assert main(["read", "--annotate", str(out), photo(tmp_path, "a.png", 150)]) == 0
    drawn = cv2.imread(str(out))
    assert drawn.shape == (80, 300, 3) and (drawn != 150).any()


def test_annotate_several_photos_into_a_folder(tmp_path, stand_in, capsys):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    paths = [photo(tmp_path / "x", "t.png", 150), photo(tmp_path / "y", "t.png", 100)]
    assert main(["read", "--json", "--annotate", str(tmp_path / "out"), *paths]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["t-2.read.jpg", "t.read.jpg"]


def test_annotate_several_photos_into_an_existing_file_is_a_usage_error(tmp_path, stand_in, capsys):
    (tmp_path / "out.png").write_bytes(b"x")
    paths = [photo(tmp_path, "a.png", 150), photo(tmp_path, "b.png", 100)]
    assert main(["read", "--annotate", str(tmp_path / "out.png"), *paths]) == 2
    assert "several photos need a folder" in capsys.readouterr().err



@pytest.mark.parametrize("out, photos, words", [
    ("two.png", 2, "several photos need a folder, not a .png file: name one without an image suffix"),
    ("x.txt", 1, "cannot draw into a .txt file: name a file ending .bmp, .jpeg, .jpg, .png"),
])
def test_annotate_refuses_a_name_that_is_neither_the_drawing_nor_a_folder(tmp_path, stand_in, capsys,
                                                                          out, photos, words):
    paths = [photo(tmp_path, f"{k}.png", 150) for k in range(photos)]
    assert main(["read", "--annotate", str(tmp_path / out), *paths]) == 2
    captured = capsys.readouterr()
    assert f"--annotate {tmp_path / out}: {words}" in captured.err and captured.out == ""
    assert not (tmp_path / out).exists() and stand_in.loads == 0  # nothing made, nothing read


@pytest.mark.parametrize("out, photos", [("xnosuf", 1), ("drawn.png/", 1), ("out.d", 2)])
def test_annotate_into_a_name_taken_as_a_folder_says_where_the_drawings_went(tmp_path, stand_in, capsys,
                                                                             out, photos):
    paths = [photo(tmp_path, f"{k}.png", 150) for k in range(photos)]
    assert main(["read", "--annotate", str(tmp_path) + "/" + out, *paths]) == 0
    folder = tmp_path / out.rstrip("/")
    assert sorted(p.name for p in folder.iterdir()) == [f"{k}.read.jpg" for k in range(photos)]
    err = capsys.readouterr().err
    assert f"{photos} drawing{'s' * (photos > 1)} written to the folder {tmp_path}/{out}" in err



def test_annotate_never_writes_over_a_photo_it_reads(tmp_path, stand_in, capsys, monkeypatch):
    mine = photo(tmp_path, "mine.jpg", 150)
    before = Path(mine).read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["read", "--annotate", "./mine.jpg", "mine.jpg"]) == 2  # the same file by another name
    captured = capsys.readouterr()
    assert "--annotate ./mine.jpg: the drawing of mine.jpg would be written over the photo mine.jpg" in captured.err
    assert captured.out == "" and Path(mine).read_bytes() == before


def test_annotate_into_a_folder_never_writes_over_a_photo_it_reads(tmp_path, stand_in, capsys):
    (tmp_path / "out").mkdir()
    drawn_before = photo(tmp_path / "out", "a.read.jpg", 100)  # a drawing kept from before, read again
    before = Path(drawn_before).read_bytes()
    assert main(["read", "--annotate", str(tmp_path / "out"), photo(tmp_path, "a.png", 150), drawn_before]) == 2
    assert f"would be written over the photo {drawn_before}" in capsys.readouterr().err
    assert Path(drawn_before).read_bytes() == before

def test_annotate_refuses_a_file_named_without_an_image_suffix(tmp_path, stand_in, capsys):
    (tmp_path / "notes").write_text("mine")
    assert main(["read", "--annotate", str(tmp_path / "notes"), photo(tmp_path, "a.png", 150)]) == 2
    assert "notes: is a file, not a folder to draw into (a drawing's file ends .bmp" in capsys.readouterr().err
    assert (tmp_path / "notes").read_text() == "mine"


PROC = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc here")


@pytest.mark.parametrize("out, photos, said", [
    ("FILE/d", 2, "could not write the drawings to FILE/d: FILE is a file, not a folder"),
    ("FILE/x.png", 1, "could not write the drawing to FILE/x.png: FILE is a file, not a folder"),
    pytest.param("/proc/d", 2, "could not write the drawings to /proc/d: cannot make the folder /proc/d (",
                 marks=PROC),
    pytest.param("/proc/x.png", 1, "could not write the drawing to /proc/x.png: ", marks=PROC),
])
def test_drawings_that_cannot_be_written_cost_only_the_drawings(tmp_path, stand_in, capsys, out, photos, said):
    """The photos are still read and printed; what kept the drawings out is said in one line, exit 1."""
    file = tmp_path / "a1.png"
    file.write_bytes(b"mine")
    out, said = out.replace("FILE", str(file)), said.replace("FILE", str(file))
    paths = [photo(tmp_path, f"{k}.png", 150) for k in range(photos)]
    assert main(["read", "--annotate", out, *paths]) == 1
    captured = capsys.readouterr()
    assert [line.split(":")[0] for line in captured.out.splitlines() if not line.startswith(" ")] == paths
    (line,) = captured.err.splitlines()
    assert line.startswith(f"rummikub-companion read: {said}")
    assert file.read_bytes() == b"mine"

def test_text_summary_says_what_was_inferred_and_what_the_model_read(tmp_path, stand_in, capsys, monkeypatch):
    quads = np.array([[[40 * k, 0], [35 + 40 * k, 0], [35 + 40 * k, 50], [40 * k, 50]] for k in range(4)], np.float32)
    ids = [4, 5, 8, 7]  # K5 K6 K9 K8
    monkeypatch.setattr(Brightness, "detect", lambda self, image: TileDetections(quads, ids, [0.9, 0.9, 0.2, 0.9]))
    assert main(["read", photo(tmp_path, "a.png", 150)]) == 0
    out = capsys.readouterr().out
    assert "run 26: K5 K6 K7? K8" in out
    assert "as read: the black 5-9 run is not consecutive" in out
    assert "K7? inferred from its set; the model read K9 (score 0.20)" in out


def test_rules_choose_the_joker_penalty(tmp_path, stand_in, capsys, monkeypatch):
    monkeypatch.setattr(Brightness, "detect", lambda self, image: TileDetections(
        np.array([[[0, 0], [30, 0], [30, 40], [0, 40]]], np.float32), [52], [0.9]))
    path = photo(tmp_path, "a.png", 150)
    assert main(["read", "--json", "--rules", "dutch_sabra", path]) == 0
    assert json.loads(capsys.readouterr().out)["rack_total"] == 25


@pytest.mark.parametrize("argv", [["read"], ["read", "--rules", "no-such-game", "x.png"], ["read", "--bogus", "x.png"]])
def test_usage_errors_exit_with_2(argv, stand_in, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    assert capsys.readouterr().err


def test_a_missing_model_is_a_clear_error(tmp_path, capsys):
    path = photo(tmp_path, "a.png", 150)
    assert main(["read", "--model", str(tmp_path / "nowhere"), path]) == 1
    err = capsys.readouterr().err
    assert "cannot load the tile model" in err and "nowhere" in err


def test_the_installed_command_reads_a_sample_photo_and_reports_a_corrupt_one(tmp_path):
    sample = ROOT / "sample_images" / "joker.jpg"
    bad = tmp_path / "corrupt.jpg"
    bad.write_bytes(sample.read_bytes()[:200])
    done = subprocess.run([sys.executable, "-m", "cli", "read", "--json", str(sample), str(bad)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 1
    good, failed = (json.loads(line) for line in done.stdout.splitlines())
    assert good["image"] == str(sample) and "error" not in good
    assert failed["image"] == str(bad) and str(bad) in failed["error"]
    assert str(bad) in done.stderr


def test_output_cut_short_by_the_reader_stops_quietly_with_the_drawings_made(tmp_path):
    """``read ... --annotate DIR | head -1``: no traceback, the shell's exit status for a closed
    pipe, and the first photo's drawing written before its line was refused."""
    photos = [str(ROOT / "sample_images" / name) for name in ("joker.jpg", "rack.jpg")]
    drawn = tmp_path / "drawn"
    run = subprocess.Popen([sys.executable, "-m", "cli", "read", "--annotate", str(drawn), *photos],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    run.stdout.close()  # nobody will read a line: the first print meets a closed pipe
    err = run.stderr.read().decode()
    assert run.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert [p.name for p in drawn.iterdir()] == ["joker.read.jpg"]


def test_read_takes_rule_options_as_check_and_turn_do(tmp_path, stand_in, capsys):
    """``--option NAME=VALUE`` overrides one rule option (README); a bad one is a usage error naming it."""
    path = photo(tmp_path, "a.png", 150)  # the stand-in reads R1 R2 R3 here
    assert main(["read", "--json", "--option", "scoring=international", path]) == 0
    assert json.loads(capsys.readouterr().out)["rack_total"] == 10 + 2 + 3  # a 1 counts 10 when scored so
    assert main(["read", "--option", "no_such_option=1", path]) == 2
    assert "no_such_option" in capsys.readouterr().err


def test_eval_takes_rules_and_rule_options(tmp_path, capsys):
    assert main(["eval", str(tmp_path), "--option", "no_such_option=1"]) == 2
    assert "no_such_option" in capsys.readouterr().err
