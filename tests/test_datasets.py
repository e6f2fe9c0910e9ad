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
])
def test_class_names_map_to_tiles(name, code):
    assert class_name_to_index(name) == Tile.parse(code).index


@pytest.mark.parametrize("name", ["hand", "red_14", "tile", "purple_3"])
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
