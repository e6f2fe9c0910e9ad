"""Scoring the reader on labelled photos (vision/evaluation.py) and ``rummikub-companion eval``."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cli import main
from rules.tiles import Tile
from vision import reader as reader_module
from vision.datasets import GroupLabel, LabelledImage, load_folder
from vision.evaluation import NONE, Evaluation, PhotoScore, evaluate, format_set_table, match_tiles, quad_iou, score_groups
from rules.options import find_variant
from vision.reader import ReaderOptions, TableReader
from vision.types import TileDetections

SQUARE = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)


@pytest.mark.parametrize("shift, iou", [((0, 0), 1.0), ((5, 0), 50 / 150), ((10, 0), 0.0), ((30, 30), 0.0)])
def test_quad_iou(shift, iou):
    assert quad_iou(SQUARE, SQUARE + np.array(shift, np.float32)) == pytest.approx(iou, abs=1e-6)


def test_quad_iou_of_a_turned_tile_is_polygon_overlap_not_box_overlap():
    c = SQUARE.mean(axis=0)
    a = np.deg2rad(45)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    diamond = (SQUARE - c) @ rot.T + c
    # the square and the same square turned 45 degrees share 82.8% of the square's area
    inter = 100 * (2 * np.sqrt(2) - 2)
    assert quad_iou(SQUARE, diamond) == pytest.approx(inter / (200 - inter), rel=1e-3)


def test_match_tiles_pairs_best_overlaps_once_each():
    truth = np.stack([SQUARE, SQUARE + 20])
    pred = np.stack([SQUARE + 1, SQUARE + [2, 0], SQUARE + 20, SQUARE + 100])
    assert sorted(match_tiles(pred, truth)) == [(0, 0), (2, 1)]
    assert match_tiles(pred[:0], truth) == []


# -- a labelled folder and a reader that gets some of it wrong -------------------------------------

NAMES = ["black_1", "red_5", "joker", "blue_12", "table"]  # data.yaml order; 'table' is not a tile


def tile_quad(x, y, w=30, h=40):
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def write_folder(root: Path) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text("names:\n" + "".join(f"- {n}\n" for n in NAMES))
    photos = {
        "a": [(0, 10, 10), (1, 45, 10), (2, 80, 10)],  # K1 R5 J
        "b": [(3, 10, 60), (1, 100, 60)],  # B12 R5
    }
    for name, tiles in photos.items():
        cv2.imwrite(str(root / "images" / f"{name}.png"), np.full((200, 200, 3), 128, np.uint8))
        lines = []
        for cls, x, y in tiles:
            pts = tile_quad(x, y) / 200
            lines.append(f"{cls} " + " ".join(f"{v:.5f}" for v in pts.reshape(-1)))
        lines.append("4 0.5 0.5 0.9 0.9")  # the table itself: not a tile, ignored
        (root / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")


class LabelReader:
    """Reads each photo as its labels say, except: in 'b' B12 is read as B11 and a ghost tile appears."""

    def __init__(self, items):
        self.items = items
        self.k = 0
        self.options = ReaderOptions(rules=find_variant("sabra"))

    def read(self, image):
        item = self.items[self.k]
        self.k += 1
        quads, ids = item.quads.copy(), item.class_ids.copy()
        if item.image_path.stem == "b":
            ids[ids == Tile.parse("B12").index] = Tile.parse("B11").index
            quads = np.concatenate([quads, tile_quad(150, 150)[None]])
            ids = np.append(ids, Tile.parse("O3").index)
        return TableReader(_Fixed(TileDetections(quads + 1.5, ids, np.ones(len(ids)))),
                           ReaderOptions(rules=find_variant("sabra"))).read(image)


class _Fixed:
    def __init__(self, det):
        self.det = det

    def detect(self, image):
        return self.det


@pytest.fixture
def folder(tmp_path):
    write_folder(tmp_path / "photos")
    return tmp_path / "photos"


def test_scores_count_found_read_right_and_exact_photos(folder):
    items = load_folder(folder)
    assert [len(i.quads) for i in items] == [3, 2]
    result = evaluate(LabelReader(items), items)
    # 5 labelled tiles, 6 found (one ghost), 5 matched, 4 read right
    assert result.precision == pytest.approx(5 / 6)
    assert result.recall == pytest.approx(1.0)
    assert result.accuracy == pytest.approx(4 / 5)
    assert result.f1 == pytest.approx(2 * 4 / (6 + 5))
    assert result.exact == 1
    assert result.ms_median >= 0
    d = result.to_dict()
    assert d["photos"] == 2 and d["tiles"] == 5 and d["found"] == 6 and d["exact_photos"] == 1


def test_confusion_matrix_counts_misreadings_missed_and_extra_tiles(folder):
    items = load_folder(folder)
    result = evaluate(LabelReader(items), items)
    m = result.confusion()
    assert m.shape == (54, 54)
    b12, b11, r5, o3 = (Tile.parse(c).index for c in ("B12", "B11", "R5", "O3"))
    assert m[b12, b11] == 1 and m[r5, r5] == 2 and m[NONE, o3] == 1
    assert m.sum() == 6  # 5 matched + 1 extra, nothing missed
    assert sorted(result.mistakes()) == [("-", "O3", 1), ("B12", "B11", 1)]


def test_a_missed_tile_lowers_recall_and_lands_in_the_missed_column():
    e = Evaluation([PhotoScore("x", truth=2, found=1, matched=1, read_right=1, ms=1.0, pairs=[(4, 4)], missed=[7])])
    assert e.recall == 0.5 and e.precision == 1.0 and e.exact == 0
    assert e.confusion()[7, NONE] == 1


def test_eval_command_prints_a_table_and_json(folder, monkeypatch, capsys):
    items = load_folder(folder)
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir",
                        classmethod(lambda cls, path=None, options=None: LabelReader(items)))
    assert main(["eval", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "prec" in out and "F1" in out and "1/2" in out
    assert "B12 -> B11 x1" in out

    monkeypatch.setattr(reader_module.TableReader, "from_model_dir",
                        classmethod(lambda cls, path=None, options=None: LabelReader(items)))
    csv = folder.parent / "confusion.csv"
    assert main(["eval", "--json", "--confusion", str(csv), str(folder)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    rows = [r.split(",") for r in csv.read_text().splitlines()]
    assert len(rows) == 55 and len(rows[0]) == 55 and rows[0][1] == "K1" and rows[-1][0] == "-"
    b12 = next(r for r in rows if r[0] == "B12")
    assert b12[rows[0].index("B11")] == "1"
    d = json.loads(line)
    assert d["folder"] == str(folder) and d["f1"] == pytest.approx(8 / 11, abs=1e-4) and d["exact_photos"] == 1


def test_eval_command_names_a_folder_that_is_not_a_dataset(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "missing")]) == 1
    assert "missing" in capsys.readouterr().err


# -- sets as players see them ------------------------------------------------------------------------

def line_quads(x: float, y: float, n: int, gap: float = 2.0) -> list[np.ndarray]:
    return [tile_quad(x + k * (30 + gap), y) for k in range(n)]


def set_item(codes: list[str], quads: list[np.ndarray], groups) -> LabelledImage:
    return LabelledImage(Path("t.jpg"), np.array(quads), np.array([Tile.parse(c).index for c in codes]), True, groups)


def reading_of(codes: list[str], quads: list[np.ndarray], image=None):
    det = TileDetections(np.array(quads) + 1.0, [Tile.parse(c).index for c in codes], np.full(len(codes), 0.99))
    return TableReader(_Fixed(det), ReaderOptions(rules=find_variant("sabra"))).read_detections(det, image)


def test_sets_read_exactly_false_alarms_misses_and_loose_tiles_are_counted():
    # laid: a valid run, a valid group, an invalid line, a loose tile
    codes = ["R4", "R5", "R6", "K9", "B9", "O9", "K1", "K5", "K8", "O2"]
    quads = line_quads(10, 10, 3) + line_quads(10, 80, 3) + line_quads(10, 150, 3) + [tile_quad(300, 300)]
    groups = [GroupLabel("set", (0, 1, 2)), GroupLabel("set", (3, 4, 5)), GroupLabel("set", (6, 7, 8))]
    item = set_item(codes, quads, groups)
    # read: the run as laid; the group's last tile seen far away (split: a false alarm);
    # the invalid line misread as K6 K7 K8 (shown valid: a miss)
    seen = list(quads)
    seen[5] = tile_quad(200, 80)
    read_codes = list(codes)
    read_codes[6:9] = ["K6", "K7", "K8"]
    reading = reading_of(read_codes, seen)
    pairs = match_tiles(reading.detections.quads, item.quads)
    c = score_groups(reading, item, pairs, find_variant("sabra"))
    assert (c.sets, c.sets_exact, c.valid_sets, c.false_alarms, c.invalid_sets, c.misses) == (3, 2, 2, 1, 1, 1)
    assert (c.loose, c.loose_right) == (1, 1)
    assert any("K9 B9 O9" in p for p in c.problems) and any("K1 K5 K8" in p for p in c.problems)


@pytest.mark.parametrize("photo_width, shown", [(220, "unsure"), (400, "false alarm")])
def test_a_set_with_a_missed_tile_is_judged_by_what_the_player_sees_of_it(photo_width, shown):
    """O9 O10 O11 laid, O11 not found: the set is never read exactly; the pair that was found is
    shown unsure when the photo's edge cuts the line there (not a false alarm), invalid otherwise."""
    codes, quads = ["O9", "O10", "O11"], line_quads(150, 30, 3)  # O11 at x 214-244
    item = set_item(codes, quads, [GroupLabel("set", (0, 1, 2))])
    reading = reading_of(codes[:2], quads[:2], np.zeros((100, photo_width, 3), np.uint8))
    c = score_groups(reading, item, match_tiles(reading.detections.quads, item.quads), find_variant("sabra"))
    assert (c.sets, c.sets_exact, c.valid_sets) == (1, 0, 1)
    assert (c.unsure, c.false_alarms) == ((1, 0) if shown == "unsure" else (0, 1))
    assert any("O9 O10 O11" in p for p in c.problems)


def test_a_set_with_a_missed_tile_and_the_rest_split_is_a_false_alarm():
    codes, quads = ["R4", "R5", "R6", "R7"], line_quads(10, 10, 4)
    item = set_item(codes, quads, [GroupLabel("set", (0, 1, 2, 3))])
    seen = [quads[0], quads[1], tile_quad(250, 10)]  # R6 missed, R7 seen far away
    reading = reading_of(["R4", "R5", "R7"], seen)
    c = score_groups(reading, item, match_tiles(reading.detections.quads, item.quads), find_variant("sabra"))
    assert (c.sets_exact, c.false_alarms, c.unsure) == (0, 1, 0)


def test_rack_rows_must_come_in_order_and_the_rack_total_must_match():
    codes = ["R1", "K5", "B9", "O13"]
    quads = line_quads(10, 10, 4)
    item = set_item(codes, quads, [GroupLabel("rack", (0, 1, 2, 3))])
    reading = reading_of(codes, quads)  # no photo: no rack found, a table line
    c = score_groups(reading, item, match_tiles(reading.detections.quads, item.quads), find_variant("sabra"))
    assert (c.rack_rows, c.rack_rows_exact, c.rack_photos) == (1, 0, 1)
    assert c.rack_totals_right == 1  # no rack seen: the total of all the tiles, here the same
    e = Evaluation([PhotoScore("t.jpg", 4, 4, 4, 4, 1.0, groups=c)])
    assert e.set_dict()["rack_rows_exact"] == 0 and "rack rows" in format_set_table([("f", e)])


def test_eval_reads_set_labels_beside_the_folder_and_prints_the_set_table(folder, monkeypatch, capsys):
    (folder / "sets").mkdir()
    (folder / "sets" / "a.txt").write_text("set 0 1 2\n")  # K1 R5 J laid together (invalid)
    items = load_folder(folder)
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir",
                        classmethod(lambda cls, path=None, options=None: LabelReader(items)))
    assert main(["eval", "--problems", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "false alarms" in out and "misses" in out and "rack totals" in out
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir",
                        classmethod(lambda cls, path=None, options=None: LabelReader(items)))
    assert main(["eval", "--json", "--only-sets", str(folder)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["photos"] == 1 and d["sets"] == 1 and d["invalid_sets"] == 1 and d["set_photos"] == 1


def test_a_rack_total_warned_past_the_edge_is_counted_apart_right_or_wrong():
    from dataclasses import replace

    codes = ["R1", "K5", "B9", "O13"]
    quads = line_quads(10, 10, 4)
    item = set_item(codes, quads, [GroupLabel("rack", (0, 1, 2, 3))])
    reading = reading_of(codes, quads)
    rack = [replace(s, group="rack", verdict=None, past_edge=True) for s in reading.sets]
    rules = find_variant("sabra")
    for total, right in ((28, 1), (15, 0)):  # the labelled total, then one a tile short
        warned = replace(reading, sets=rack, rack_total=total)
        c = score_groups(warned, item, match_tiles(warned.detections.quads, item.quads), rules)
        assert (c.rack_totals_right, c.rack_totals_warned, c.rack_totals_warned_right) == (right, 1, right)
        assert right or any("warned: a rack row runs past the photo's edge" in p for p in c.problems)
    c = score_groups(replace(reading, sets=[replace(s, past_edge=False) for s in rack]), item,
                     match_tiles(reading.detections.quads, item.quads), rules)
    assert (c.rack_totals_warned, c.rack_totals_warned_right) == (0, 0)
    e = Evaluation([PhotoScore("t.jpg", 4, 4, 4, 4, 1.0, groups=c)])
    assert e.set_dict()["rack_totals_warned"] == 0 and "warned" in format_set_table([("f", e)])


def test_a_set_shown_invalid_where_no_tile_is_labelled_is_a_phantom():
    codes, quads = ["R4", "R5", "R6"], line_quads(10, 10, 3)
    item = set_item(codes, quads, [GroupLabel("set", (0, 1, 2))])
    # read: the run, and three finds on a score sheet well below it, reading as no set
    reading = reading_of(codes + ["B3", "B9", "B1"], quads + line_quads(10, 200, 3))
    c = score_groups(reading, item, match_tiles(reading.detections.quads, item.quads), find_variant("sabra"))
    assert (c.sets_exact, c.false_alarms, c.phantoms) == (1, 0, 1)
    assert any("[B3 B9 B1] shown invalid where no tile is labelled" in p for p in c.problems)
    shown_valid = reading_of(codes + ["B3", "B4", "B5"], quads + line_quads(10, 200, 3))
    c = score_groups(shown_valid, item, match_tiles(shown_valid.detections.quads, item.quads), find_variant("sabra"))
    assert c.phantoms == 0  # a flag is what the players see; a valid-looking stray line is no alarm
    e = Evaluation([PhotoScore("t.jpg", 3, 6, 3, 3, 1.0, groups=c)])
    assert e.set_dict()["phantoms"] == 0 and "phantoms" in format_set_table([("f", e)])
