"""The clutter gate's crop and verdict (vision/crops.py, vision/clutter.py), and the shipped gate on real tiles."""

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, strategies as st

from vision.clutter import BACKED, CLUTTER, kept_finds
from vision.crops import context_crop
from vision.model import ModelMissingError, TileModel, default_model_dir


def tile(centre, degrees=0.0, width=30.0, height=40.0):
    a = np.deg2rad(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-width, -height], [width, -height], [width, height], [-width, height]]) / 2
    return (local @ rot.T + centre).astype(np.float32)


@given(st.floats(-180, 180), st.floats(1.5, 3.5))
def test_context_crop_centres_the_tile_with_room_around_it(degrees, context):
    image = np.zeros((400, 400, 3), np.uint8)
    quad = tile((200, 200), degrees)
    cv2.fillConvexPoly(image, np.round(quad).astype(np.int32), (255, 255, 255))
    crop = context_crop(image, quad, 48, context)
    assert crop.shape == (48, 48, 3)
    white = crop[..., 0] > 128
    assert white[20:28, 20:28].all(), "the tile's middle is the crop's middle"
    assert not white[:3].any() and not white[-3:].any(), "table all round the tile"
    # the tile's long side spans 1/context of the crop
    rows = np.nonzero(white.any(axis=1))[0]
    assert abs((rows[-1] - rows[0] + 1) - 48 / context) <= 3


def test_a_lone_doubted_find_goes_but_one_beside_a_sure_tile_stays():
    quads = np.array([tile((100, 100)), tile((132, 100)), tile((400, 400))])
    chance = np.array([CLUTTER / 2, BACKED + 0.1, CLUTTER / 2])
    assert kept_finds(quads, chance).tolist() == [True, True, False]


def test_a_grid_of_doubted_cells_goes_as_a_whole():
    quads = np.array([tile((100 + 32 * i, 100 + 42 * j)) for i in range(4) for j in range(3)])
    chance = np.full(len(quads), CLUTTER / 2)
    chance[5] = BACKED - 0.01  # a cell the gate is unsure of backs nothing
    kept = kept_finds(quads, chance)
    assert kept.tolist() == [i == 5 for i in range(len(quads))]


def test_nothing_doubted_keeps_everything():
    assert kept_finds(np.array([tile((50, 50))]), np.array([CLUTTER])).tolist() == [True]
    assert kept_finds(np.zeros((0, 4, 2)), np.zeros(0)).tolist() == []


def test_model_json_naming_a_missing_gate_is_a_clear_error(tmp_path):
    shipped = default_model_dir()
    if "clutter" not in (shipped / "model.json").read_text():
        pytest.skip("the shipped model has no clutter gate")
    for name in ("model.json", "detector.onnx", "classifier.onnx", "classifier_face.npz"):
        shutil.copy(shipped / name, tmp_path / name)
    with pytest.raises(ModelMissingError, match="clutter gate"):
        TileModel(tmp_path)


def test_the_shipped_gate_sees_the_sample_photos_tiles_as_tiles():
    model = TileModel(default_model_dir())
    if model.clutter is None:
        pytest.skip("the shipped model has no clutter gate")
    for path in sorted((Path(__file__).resolve().parents[1] / "sample_images").glob("*.jpg")):
        image = cv2.imread(str(path))
        found = model._detect_as_shown(image)
        assert len(found) and (model.tile_chance(image, found.quads) >= CLUTTER).all(), path.name


def test_what_the_gate_calls_clutter_is_left_out_but_a_close_up_stays(monkeypatch):
    """The gate's verdict reaches the reading: a table whose every find the gate doubts (none
    backed by a sure one) reads empty, while a tile filling the photo is read all the same."""
    from models.render.tiles import render_tile
    from models.render.styles import EDITIONS
    from rules.tiles import Tile

    model = TileModel(default_model_dir())
    table = cv2.imread(str(Path(__file__).resolve().parents[1] / "sample_images" / "valid_table.jpg"))
    assert len(model.detect(table)) > 0
    monkeypatch.setattr(TileModel, "tile_chance", lambda self, image, quads: np.zeros(len(quads), np.float32))
    assert len(model.detect(table)) == 0
    face = render_tile(EDITIONS["classic"], Tile.parse("R6").index, 900)
    close_up = cv2.copyMakeBorder(face, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(60, 90, 130))
    assert [Tile.from_index(int(i)).code for i in model.detect(close_up).class_ids] == ["R6"]
