"""YOLO-format folders as labelling tools export them (vision/datasets.py)."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from rules.tiles import Tile
from vision.datasets import class_name_to_index, load_folder, read_class_names, split_holdout


@pytest.mark.parametrize("name, code", [
    ("red_5", "R5"), ("black_10", "K10"), ("Blue-13", "B13"), ("orange_1", "O1"),
    ("yellow_7", "O7"), ("joker", "J"), ("Joker_red", "J"), ("R12", "R12"), ("k3", "K3"),
    ("1_black", "K1"), ("10 Red", "R10"), ("13-blue", "B13"), ("k_5", "K5"), ("teal_4", "B4"), ("gold_9", "O9"),
    ("black_05", "K5"), ("j1", "J"), ("J 2", "J"),
])
def test_class_names_map_to_tiles(name, code):
    assert class_name_to_index(name) == Tile.parse(code).index


@pytest.mark.parametrize("name", ["hand", "red_14", "tile", "purple_3", "jack", "j3", "10"])
def test_other_class_names_are_not_tiles(name):
    assert class_name_to_index(name) is None


def make_folder(root: Path, names_yaml: str, labels: dict[str, str]) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text(names_yaml)
    for stem, text in labels.items():
        cv2.imwrite(str(root / "images" / f"{stem}.jpg"), np.zeros((100, 200, 3), np.uint8))
        (root / "labels" / f"{stem}.txt").write_text(text)
    return root


def test_a_folder_whose_class_names_hold_no_tile_is_refused_by_name(tmp_path):
    root = make_folder(tmp_path / "club", "names: ['tile', 'hand', 'uno_7']\nnc: 3\n", {"a": "0 0.5 0.5 0.1 0.2\n"})
    with pytest.raises(ValueError, match=r"none of its class names is a tile \(tile, hand, uno_7\)"):
        load_folder(root)


def test_class_names_like_tiles_but_not_tiles_are_named_and_their_labels_left_out(tmp_path, caplog):
    root = make_folder(tmp_path / "club", "names: ['5_red', 'red_14', 'hand']\nnc: 3\n",
                       {"a": "0 0.5 0.5 0.1 0.2\n1 0.2 0.2 0.1 0.2\n2 0.8 0.8 0.1 0.1\n"})
    with caplog.at_level("WARNING"):
        (item,) = load_folder(root)
    assert item.class_ids.tolist() == [Tile.parse("R5").index]
    assert "red_14" in caplog.text and "hand" not in caplog.text


def test_box_and_polygon_labels_become_pixel_quads(tmp_path):
    root = make_folder(tmp_path / "club", "names: ['red_5', 'joker', 'hand']\nnc: 3\n", {
        "a": "0 0.5 0.5 0.1 0.2\n",                              # box
        "b": "1 0.1 0.1 0.2 0.1 0.2 0.3 0.1 0.3\n2 0 0 1 1 1 0\n",  # polygon, and a non-tile class
    })
    items = {i.image_path.stem: i for i in load_folder(root)}
    a, b = items["a"], items["b"]
    assert a.class_ids.tolist() == [Tile.parse("R5").index]
    assert np.allclose(a.quads[0].min(axis=0), [90, 40]) and np.allclose(a.quads[0].max(axis=0), [110, 60])
    assert b.class_ids.tolist() == [52]
    assert np.allclose(b.quads[0], [[20, 10], [40, 10], [40, 30], [20, 30]])
    assert not a.ordered


def test_block_list_names_and_reading_order_flag(tmp_path):
    root = make_folder(tmp_path / "r", "# corners: reading-order\nnames:\n  - K1\n  - J\nnc: 2\n", {"x": "1 0 0 .1 0 .1 .1 0 .1\n"})
    assert read_class_names(root) == ["K1", "J"]
    [item] = load_folder(root)
    assert item.ordered and item.class_ids.tolist() == [52]


def test_missing_folder_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_folder(tmp_path / "nowhere")


def test_holdout_split_is_fixed_and_keeps_neighbouring_photos_together(shared_dir):
    items = load_folder(shared_dir / "datasets" / "rummikub-photos")
    train, held = split_holdout(items)
    train2, held2 = split_holdout(list(reversed(items)))
    assert sorted(i.image_path.name for i in held) == sorted(i.image_path.name for i in held2)
    assert 0.15 < len(held) / len(items) < 0.25
    assert not {i.image_path for i in held} & {i.image_path for i in train}


def test_sets_files_name_label_lines_and_unlisted_tiles_are_loose(tmp_path):
    root = make_folder(tmp_path / "s", "names: ['red_5', 'red_6', 'red_7', 'table', 'black_9']\nnc: 5\n", {
        # line 3 is not a tile: line numbers still count it
        "x": "0 .1 .1 .05 .1\n1 .2 .1 .05 .1\n2 .3 .1 .05 .1\n3 .5 .5 1 1\n4 .8 .8 .05 .1\n",
        "y": "0 .1 .1 .05 .1\n",
    })
    (root / "sets").mkdir()
    (root / "sets" / "x.txt").write_text("# a run and nothing else\nset 0 1 2  # R5 R6 R7\n")
    items = {i.image_path.stem: i for i in load_folder(root)}
    x, y = items["x"], items["y"]
    assert [(g.kind, g.tiles) for g in x.groups] == [("set", (0, 1, 2))]
    assert x.loose == [3]  # the K9 (label line 4) is the fourth tile
    assert y.groups is None and y.loose == []
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.txt").write_text("rack 4 0\n")
    [x2] = [i for i in load_folder(root, sets=elsewhere) if i.image_path.stem == "x"]
    assert [(g.kind, g.tiles) for g in x2.groups] == [("rack", (3, 0))]


@pytest.mark.parametrize("text, problem", [
    ("row 0 1\n", "unknown kind"), ("set 0 3\n", "line 3 is not a tile"), ("set 0 1\nrack 1\n", "in two groups"),
    ("set a b\n", "label line numbers"), ("set\n", "names no tile"),
])
def test_a_wrong_sets_file_is_named_with_its_line(tmp_path, text, problem):
    root = make_folder(tmp_path / "w", "names: ['red_5', 'red_6', 'red_7', 'table']\nnc: 4\n",
                      {"x": "0 .1 .1 .05 .1\n1 .2 .1 .05 .1\n2 .3 .1 .05 .1\n3 .5 .5 1 1\n"})
    (root / "sets").mkdir()
    (root / "sets" / "x.txt").write_text(text)
    with pytest.raises(ValueError, match=problem) as err:
        load_folder(root)
    assert "x.txt:" in str(err.value)


@pytest.mark.shared
def test_the_repositorys_set_labels_fit_the_real_photos(shared_dir):
    """Every sets file names a photo of the folder and tiles its labels hold."""
    sets = Path(__file__).resolve().parents[1] / "datasets" / "rummikub-photos-sets"
    items = load_folder(shared_dir / "datasets" / "rummikub-photos", sets=sets)
    labelled = {i.image_path.stem for i in items if i.groups is not None}
    assert labelled == {p.stem for p in sets.glob("*.txt")}
    train, held = split_holdout(items)
    # the photos tuned on and the photos reported are apart, and every held-out photo with tiles is labelled
    assert all(i.groups is not None for i in held if len(i.quads))
    assert any(i.groups is not None for i in train)
    racks = [g for i in held if i.groups for g in i.groups if g.kind == "rack"]
    assert len(racks) >= 6
