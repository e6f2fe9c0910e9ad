"""Bad command-line input is refused at the start, with exit 2 and a message naming it, never a traceback.

Each command runs in-process through ``cli.main``; whatever would do the real
work (the web server, the tile model) is replaced by something that fails the
test if it is reached, so a check made too late shows up as a failure, not a hang.
"""

import io
import json
import sys
from pathlib import Path

import pytest

from cli import main
from test_evaluation import LabelReader, write_folder
from vision import reader as reader_module
from vision.datasets import load_folder


class Reached(Exception):
    """The command went on to work it should not have started."""


def never(*args, **kwargs):
    raise Reached("the command went on instead of refusing its input")


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def refused(capsys, *argv):
    """An argparse error: exit 2 and its message."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err
    return err


# -- serve ------------------------------------------------------------------------------------------

@pytest.fixture
def no_server(monkeypatch):
    """Neither the port nor the app is taken: a check that passes shows up as Reached."""
    import cli.serve
    import webui.app

    monkeypatch.setattr(cli.serve, "listen", never)
    monkeypatch.setattr(webui.app, "create_app", never)


def test_serve_refuses_a_source_that_is_no_camera_url_file_or_folder(tmp_path, capsys, no_server):
    code, _, err = run(capsys, "serve", "--source", str(tmp_path / "nonexist.mp4"), "--db", str(tmp_path / "c.db"))
    assert code == 2 and "--source" in err and "nonexist.mp4" in err and "not a camera number" in err


def test_serve_refuses_a_damaged_video_in_its_own_words(tmp_path, capfd, no_server):
    bad = tmp_path / "game.mp4"
    bad.write_bytes(b"not a video" * 1000)
    code = main(["serve", "--source", str(bad), "--db", str(tmp_path / "c.db")])
    err = capfd.readouterr().err
    assert code == 2 and err == (f"rummikub-companion serve: --source: {bad} cannot be read as a video (damaged, "
                                 "or not a video this build of OpenCV decodes)\n")
    assert not (tmp_path / "c.db").exists()  # a refused start changes nothing


@pytest.mark.parametrize("source", ["0", "rtsp://camera.local/stream", "FOLDER"])
def test_serve_takes_a_camera_a_url_and_a_folder(tmp_path, capsys, no_server, source):
    with pytest.raises(Reached):
        main(["serve", "--source", str(tmp_path) if source == "FOLDER" else source, "--db", str(tmp_path / "c.db")])


def _bad_db(tmp_path: Path, kind: str) -> tuple[str, str]:
    """A --db that cannot hold the scores, and the words its message must hold."""
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n")
    return {
        "folder": (str(tmp_path), "is a folder"),
        "text file": (str(notes), "file is not a database"),
        "under a file": (str(notes / "db.sqlite3"), "cannot create the folder"),
        "under /proc": ("/proc/x/db.sqlite3", "cannot create the folder /proc/x"),
    }[kind]


@pytest.mark.parametrize("kind", ["folder", "text file", "under a file",
                                  pytest.param("under /proc", marks=pytest.mark.skipif(
                                      not Path("/proc/self").is_dir(), reason="no /proc here"))])
def test_serve_refuses_a_database_it_cannot_use(tmp_path, capsys, no_server, kind):
    db, words = _bad_db(tmp_path, kind)
    code, _, err = run(capsys, "serve", "--db", db, "--source", str(tmp_path))
    assert code == 2 and f"--db {db}: " in err and words in err


# -- calibrate --------------------------------------------------------------------------------------

@pytest.fixture
def no_model(monkeypatch):
    from vision.model import TileModel

    monkeypatch.setattr(TileModel, "load", classmethod(never))


@pytest.mark.parametrize("kind", ["folder", "under a file", pytest.param("under /proc", marks=pytest.mark.skipif(
    not Path("/proc/self").is_dir(), reason="no /proc here"))])
def test_calibrate_refuses_an_out_it_cannot_write_before_learning(tmp_path, capsys, no_model, kind):
    notes = tmp_path / "notes.txt"
    notes.write_text("x")
    out, words = {"folder": (str(tmp_path), "is a folder"),
                  "under a file": (str(notes / "box.npz"), "cannot create the folder"),
                  "under /proc": ("/proc/x.npz", "cannot write there")}[kind]
    code, _, err = run(capsys, "calibrate", "--out", out, "--layout", str(tmp_path / "layout.jpg"))
    assert code == 2 and f"--out {out}: " in err and words in err


@pytest.mark.parametrize("name, given", [("mine2.jpg", "--photo"), ("layout.npz", "--layout"),
                                         ("mine2.jpg", "--labels")])
def test_calibrate_refuses_an_out_that_is_one_of_its_inputs(tmp_path, capsys, no_model, name, given):
    photo = tmp_path / name
    photo.write_bytes(b"\xff\xd8\xff the user's photo")
    (tmp_path / "sub").mkdir()
    out = str(tmp_path / "sub" / ".." / name)  # the same file, spelled otherwise
    inputs = {"--photo": ["--photo", str(photo), "--tiles", "R1 R2 R3"], "--layout": ["--layout", str(photo)],
              "--labels": ["--labels", str(photo)]}[given]
    code, _, err = run(capsys, "calibrate", "--out", out, *inputs)
    assert code == 2 and f"--out {out}: is also given as {given}, which the profile would replace" in err
    assert photo.read_bytes() == b"\xff\xd8\xff the user's photo"


def test_calibrate_refuses_an_out_not_ending_in_npz(tmp_path, capsys, no_model):
    out = tmp_path / "new" / "mine2.jpg"
    code, _, err = run(capsys, "calibrate", "--out", str(out), "--layout", str(tmp_path / "layout.jpg"))
    assert code == 2 and f"--out {out}: the profile file must end in .npz (for example mine2.npz)" in err
    assert not (tmp_path / "new").exists()  # refused before its folder is made
    with pytest.raises(Reached):  # any case of .npz goes on to learn
        main(["calibrate", "--out", str(tmp_path / "box.NPZ"), "--layout", str(tmp_path / "layout.jpg")])


def test_calibrate_says_when_the_profile_cannot_be_saved(tmp_path, capsys, monkeypatch):
    import vision.calibration
    from vision.model import TileModel

    class Profile:
        info: dict = {}

        def save(self, path):
            raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(TileModel, "load", classmethod(lambda cls, path=None: object()))
    monkeypatch.setattr(vision.calibration, "calibrate", lambda model, places: (Profile(), []))
    out = tmp_path / "box.npz"
    code, _, err = run(capsys, "calibrate", "--out", str(out), "--layout", str(tmp_path / "layout.jpg"))
    assert code == 1 and f"--out {out}: cannot write the profile: Permission denied" in err
    assert not out.exists()  # the check made up front leaves nothing behind


# -- eval -------------------------------------------------------------------------------------------

@pytest.fixture
def folder(tmp_path):
    write_folder(tmp_path / "photos")
    return tmp_path / "photos"


def label_reader(monkeypatch, folder):
    items = load_folder(folder)
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir",
                        classmethod(lambda cls, path=None, options=None: LabelReader(items)))


def test_eval_refuses_a_confusion_file_it_cannot_write_before_evaluating(folder, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir", classmethod(never))
    csv = tmp_path / "nope" / "c.csv"
    code, out, err = run(capsys, "eval", "--confusion", str(csv), str(folder))
    assert code == 2 and out == "" and f"--confusion {csv}: " in err and "no such folder" in err


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_eval_draws_its_counter_only_on_a_terminal(folder, capsys, monkeypatch):
    label_reader(monkeypatch, folder)
    code, _, err = run(capsys, "eval", str(folder))
    assert code == 0 and "\r" not in err and "1/2" not in err  # a log file gets no counter

    label_reader(monkeypatch, folder)
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert main(["eval", str(folder)]) == 0
    assert f"\r{folder}: 2/2\n" in sys.stderr.getvalue()


def test_eval_json_gives_no_set_rate_without_sets(folder, capsys, monkeypatch):
    """0 sets read exactly of 0 is no score, not a perfect one (the rate comes from vision/evaluation.py)."""
    label_reader(monkeypatch, folder)
    code, out, _ = run(capsys, "eval", "--json", str(folder))
    d = json.loads(out)
    assert code == 0 and d["sets"] == 0 and d["sets_exact_rate"] is None



@pytest.mark.parametrize("value", ["0", "-5", "2", "1.01", "nan", "inf", "half"])
def test_eval_refuses_an_iou_outside_0_to_1(folder, capsys, monkeypatch, value):
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir", classmethod(never))
    err = refused(capsys, "eval", "--iou", value, str(folder))
    assert f"--iou: '{value}' is not an overlap above 0 and at most 1" in err


@pytest.mark.parametrize("value", ["-1", "2.5", "many"])
def test_eval_refuses_a_mistakes_count_below_0(folder, capsys, monkeypatch, value):
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir", classmethod(never))
    err = refused(capsys, "eval", "--mistakes", value, str(folder))
    assert f"--mistakes: '{value}' is not a count (0 or more)" in err


def test_eval_takes_an_iou_of_1_and_0_mistakes():
    from cli import build_parser

    args = build_parser().parse_args(["eval", "--iou", "1", "--mistakes", "0", "d"])
    assert args.iou == 1.0 and args.mistakes == 0


@pytest.mark.parametrize("split, part", [([], "photo"), (["--holdout"], "held-out photo"),
                                         (["--train-split"], "photo outside the held-out part")])
def test_eval_only_sets_without_set_labels_says_so_instead_of_a_perfect_score(folder, capsys, monkeypatch,
                                                                              split, part):
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir", classmethod(never))
    code, out, err = run(capsys, "eval", "--only-sets", *split, str(folder))
    assert code == 1 and out == ""
    assert f"{folder}: no {part} has set labels (looked in {folder / 'sets'})" in err


def test_eval_warns_when_no_label_in_the_sets_folder_names_a_photo(folder, tmp_path, capsys, monkeypatch):
    sets = tmp_path / "labels-of-another-folder"
    sets.mkdir()
    (sets / "z.txt").write_text("set 0 1 2\n")
    label_reader(monkeypatch, folder)
    code, out, err = run(capsys, "eval", "--sets", str(sets), str(folder))
    assert code == 0 and "F1" in out and "false alarms" not in out
    assert f"warning: no set label in {sets} is named after a photo" in err

    label_reader(monkeypatch, folder)
    (sets / "a.txt").write_text("set 0 1 2\n")
    code, out, err = run(capsys, "eval", "--sets", str(sets), str(folder))
    assert code == 0 and "false alarms" in out and "warning" not in err

# -- check and solve --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["R1 R2 R3 | K5 B5 O5", "R1 R2 R3, K5 B5 O5", "R1,R2,R3 | K5 B5 O5"])
def test_check_splits_sets_on_comma_and_bar_as_turn_and_solve_do(capsys, text):
    code, out, err = run(capsys, "check", "--json", text)
    assert code == 0 and err == ""
    assert [s["tiles"] for s in json.loads(out)["sets"]] == [["R1", "R2", "R3"], ["K5", "B5", "O5"]]


def test_check_still_reads_commas_between_single_tiles_as_one_set(capsys):
    code, out, _ = run(capsys, "check", "--json", "K7,B7,O7", "R1 R2 R3 | R1 R2 R3 | R1 R2 R3")
    sets = json.loads(out)["sets"]
    assert code == 1 and [s["tiles"] for s in sets][0] == ["K7", "B7", "O7"] and len(sets) == 4
    assert sets[3]["code"] == "box_exceeded"  # the sets of one argument lie on the table together too


def test_check_names_a_bad_token_in_a_set_after_a_bar(capsys):
    code, out, err = run(capsys, "check", "R1 R2 R3 | K5 X5 O5")
    assert code == 2 and out == "" and "'X5' is not a tile" in err


def test_solve_says_the_rack_cannot_all_be_melded_under_american_rules(capsys):
    code, out, _ = run(capsys, "solve", "--rack", "R1 R2 R3", "--rules", "american")
    assert code == 0 and "no rack tile can be played" not in out
    assert "every rack tile (R1 R2 R3)" in out and "discard" in out
    code, out, _ = run(capsys, "solve", "--rack", "R1 K5 O9", "--rules", "american")
    assert code == 0 and "No move: no rack tile can be played." in out


# -- read -------------------------------------------------------------------------------------------

@pytest.fixture
def no_reader(monkeypatch):
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir", classmethod(never))


@pytest.mark.parametrize("name", ["x.gif", "x.HEIC"])
def test_read_refuses_to_draw_an_image_type_it_cannot_write(tmp_path, capsys, no_reader, name):
    out = tmp_path / name
    err = refused(capsys, "read", "--annotate", str(out), str(tmp_path / "a.png"))
    assert "--annotate" in err and Path(name).suffix in err and ".jpg" in err and ".png" in err
    assert not out.exists()  # no folder made of that name


def test_read_refuses_an_empty_annotate_path(tmp_path, capsys, no_reader):
    err = refused(capsys, "read", "--annotate", "", str(tmp_path / "a.png"))
    assert "--annotate" in err and "empty" in err


@pytest.mark.parametrize("value", ["-1", "2", "nan", "inf", "half"])
def test_read_refuses_an_infer_below_outside_0_to_1(tmp_path, capsys, no_reader, value):
    err = refused(capsys, "read", "--infer-below", value, str(tmp_path / "a.png"))
    assert f"--infer-below: '{value}' is not a score from 0 to 1" in err


def test_read_takes_infer_below_0_and_1():
    from cli import build_parser

    for value in ("0", "1", "0.4"):
        assert build_parser().parse_args(["read", "--infer-below", value, "a.png"]).infer_below == float(value)
