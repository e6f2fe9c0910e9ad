"""Crops and outlines shared by training and inference (vision/crops.py, vision/types.py)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rules.tiles import Tile
from vision.crops import order_upright, rotate_half_turn, shrink_quad, warp_crop
from vision.types import TileDetections

UPRIGHT = np.array([[10, 20], [40, 20], [40, 60], [10, 60]], dtype=np.float32)  # 30 wide, 40 tall


def rotated(quad, degrees, center=(100, 100)):
    a = np.deg2rad(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    c = quad.mean(axis=0)
    return (quad - c) @ rot.T + np.array(center)


@given(st.floats(-44, 44), st.integers(0, 3))
def test_order_upright_puts_a_short_edge_on_top_whatever_the_corner_order(degrees, start):
    quad = np.roll(rotated(UPRIGHT, degrees), start, axis=0)
    ordered = order_upright(quad)
    top = np.linalg.norm(ordered[1] - ordered[0])
    side = np.linalg.norm(ordered[3] - ordered[0])
    assert top < side
    # the top edge is the one nearer the top of the image
    assert ordered[:2, 1].mean() < ordered[2:, 1].mean()
    # clockwise on screen: TL -> TR goes right
    assert ordered[1, 0] > ordered[0, 0]


def test_order_upright_of_a_tile_lying_sideways_rotates_it_upright():
    sideways = rotated(UPRIGHT, 90)
    ordered = order_upright(sideways)
    assert np.linalg.norm(ordered[1] - ordered[0]) == pytest.approx(30, abs=1e-3)


def test_half_turn_swaps_corners_and_is_its_own_inverse():
    flipped = rotate_half_turn(UPRIGHT)
    assert np.allclose(flipped[0], UPRIGHT[2])
    assert np.allclose(rotate_half_turn(flipped), UPRIGHT)


def test_shrink_quad_keeps_the_centre_and_scales_the_sides():
    core = shrink_quad(UPRIGHT, 0.5)
    assert np.allclose(core.mean(axis=0), UPRIGHT.mean(axis=0))
    assert np.linalg.norm(core[1] - core[0]) == pytest.approx(15)


def test_warp_crop_straightens_the_face_into_the_requested_size():
    image = np.zeros((200, 200, 3), np.uint8)
    quad = rotated(UPRIGHT, 90, center=(100, 100)).astype(np.float32)
    # paint the top half of the (rotated) tile white: after straightening it is on top
    top_half = np.array([quad[0], quad[1], (quad[1] + quad[2]) / 2, (quad[0] + quad[3]) / 2])
    import cv2

    cv2.fillPoly(image, [np.round(top_half).astype(np.int32)], (255, 255, 255))
    crop = warp_crop(image, quad, (32, 48), margin=0.0)
    assert crop.shape == (48, 32, 3)
    assert crop[:20].mean() > 200 and crop[28:].mean() < 50


def test_detections_check_shapes_and_give_codes_and_boxes():
    det = TileDetections(np.stack([UPRIGHT, UPRIGHT + 50]), [Tile.parse("R5").index, 52], [0.9, 0.8])
    assert det.codes == ["R5", "J"]
    assert det.boxes.tolist() == [[10, 20, 40, 60], [60, 70, 90, 110]]
    assert det[1:].codes == ["J"] and len(det[np.array([True, False])]) == 1
    assert not det.inferred.any()
    with pytest.raises(ValueError, match="scores"):
        TileDetections(np.stack([UPRIGHT]), [1], [0.5, 0.6])
    assert len(TileDetections.empty()) == 0 and TileDetections.empty().boxes.shape == (0, 4)
