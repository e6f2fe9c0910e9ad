"""Finds far smaller than the tiles around them are left out; tiles shrinking with distance are not."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.options import find_variant
from rules.tiles import Tile
from vision.reader import ReaderOptions, TableReader
from vision.scale import out_of_scale
from vision.types import TileDetections

from test_reader import TILE_H, TILE_W, StandIn, lay_out


def boxes(corners: list[tuple[float, float]], w: float, h: float) -> np.ndarray:
    return np.array([[[x, y], [x + w, y], [x + w, y + h], [x, y + h]] for x, y in corners], np.float64)


def with_sheet(det: TileDetections, codes: list[str], at=(200.0, 110.0), size=(12.0, 16.0)) -> TileDetections:
    """``det`` and finds the size of handwritten numbers on a score sheet, in a row at ``at`` (between the sets)."""
    small = boxes([(at[0] + k * (size[0] + 4), at[1]) for k in range(len(codes))], *size)
    ids = [Tile.parse(c).index for c in codes]
    return TileDetections(np.concatenate([det.quads, small]), np.r_[det.class_ids, ids],
                          np.r_[det.scores, np.full(len(ids), 0.9, np.float32)])


def test_numbers_on_a_score_sheet_are_left_out_and_flag_nothing():
    table = lay_out("R1 R2 R3 R4 | K7 B7 O7 | B9 B10 B11 B12")
    det = with_sheet(table, ["B3", "B7", "B2", "B10", "B8"])
    flagged = out_of_scale(det.quads)
    assert flagged.tolist() == [False] * len(table) + [True] * 5
    reading = TableReader(StandIn(det), ReaderOptions(rules=find_variant("sabra"))).read(
        np.zeros((600, 800, 3), np.uint8))
    assert len(reading.detections) == len(table)
    assert [s.status for s in reading.sets] == ["valid"] * 3


def test_a_find_somewhat_smaller_than_the_rest_is_kept():
    table = lay_out("R1 R2 R3 R4 | K7 B7 O7")
    det = with_sheet(table, ["B5"], size=(TILE_W * 0.7, TILE_H * 0.7))
    assert not out_of_scale(det.quads).any()


def test_too_few_finds_are_never_compared():
    quads = np.concatenate([boxes([(0, 0), (50, 0)], TILE_W, TILE_H), boxes([(200, 0), (220, 0)], 10, 14)])
    assert not out_of_scale(quads).any()


def camera_view(tilt_deg: float, turn_deg: float, distance: float = 45.0) -> np.ndarray:
    """Quads of the tiles a phone camera (1000 x 750 px, 65 degrees across) sees of a table covered with
    tiles, ``distance`` cm from the point it looks at, tilted ``tilt_deg`` from straight down (near
    tiles large, far ones small) and turned ``turn_deg`` about its axis."""
    w, h, gap = 3.0, 4.0, 1.0  # a tile and the space between, cm
    xs = np.arange(-40, 40) * (w + gap)
    ys = np.arange(-40, 40) * (h + 2 * gap)
    corners = np.array([[[x, y], [x + w, y], [x + w, y + h], [x, y + h]] for y in ys for x in xs])
    t, a = np.deg2rad(tilt_deg), np.deg2rad(turn_deg)
    pts = corners.reshape(-1, 2)
    depth = distance + pts[:, 1] * np.sin(t)
    cam = np.c_[pts[:, 0], pts[:, 1] * np.cos(t)] @ np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]).T
    img = 785.0 * cam / np.maximum(depth, 1e-3)[:, None] + (500.0, 375.0)
    quads = img.reshape(-1, 4, 2)
    seen = (depth.reshape(-1, 4) > 0).all(1) & (quads >= 0).all((1, 2)) & (quads <= (1000, 750)).all((1, 2))
    return quads[seen]


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 60), st.floats(-180, 180))
def test_tiles_shrinking_with_distance_are_all_kept(tilt, turn):
    quads = camera_view(tilt, turn)
    assert not out_of_scale(quads).any()


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 45), st.floats(-180, 180))
def test_a_score_sheet_on_a_table_in_perspective_is_left_out(tilt, turn):
    quads = camera_view(tilt, turn)
    sheet = boxes([(480 + 16 * k, 360) for k in range(4)], 10, 14)  # the tiles there: 50-70 px
    flagged = out_of_scale(np.concatenate([quads, sheet]))
    assert not flagged[:len(quads)].any() and flagged[len(quads):].all()


def test_the_table_far_behind_a_rack_photographed_up_close_is_kept():
    rack = boxes([(60 + k * 62, 420 + row * 150) for row in range(2) for k in range(14)], 60, 140)
    table = boxes([(300 + k * 32, 80) for k in range(4)], 30, 40)  # a set 3 rack tiles beyond the rack
    quads = np.concatenate([rack, table])
    assert not out_of_scale(quads).any()
