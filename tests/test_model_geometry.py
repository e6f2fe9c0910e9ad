"""Crops and outlines shared by training and inference (vision/crops.py, vision/types.py)."""

import cv2
import numpy as np
import pytest
from hypothesis import given, strategies as st

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


# -- touching cores (vision/model.py) ------------------------------------------------------------

from vision.model import split_merged_core  # noqa: E402


def core_map(n_tiles, degrees, tile=(30, 40), ratio=0.5):
    """A core-probability map of ``n_tiles`` tiles edge to edge, turned by ``degrees``:
    certain cores joined by a less certain band, as a network draws neighbours that
    touch; and the rect of the one region above 0.5."""
    prob = np.zeros((300, 300), np.float32)
    w, h = tile
    span = (n_tiles - 1) * w
    band = ((150, 150), (span, h * ratio * 0.6), 0)
    cv2.fillPoly(prob, [np.round(cv2.boxPoints(band)).astype(np.int32)], 0.6)
    for k in range(n_tiles):
        core = ((150 + k * w - span / 2, 150), (w * ratio, h * ratio), 0)
        cv2.fillPoly(prob, [np.round(cv2.boxPoints(core)).astype(np.int32)], 1.0)
    prob = cv2.GaussianBlur(prob, (0, 0), 1.0)
    turn = cv2.getRotationMatrix2D((150, 150), degrees, 1.0)
    prob = cv2.warpAffine(prob, turn, (300, 300))
    mask = (prob > 0.5).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    assert len(contours) == 1  # the cores touch: one region
    return prob, cv2.minAreaRect(contours[0])


@pytest.mark.parametrize("degrees", [0, 30, 90, 135, 180])
@pytest.mark.parametrize("n_tiles", [1, 2, 3])
def test_touching_cores_are_cut_into_one_tile_each(n_tiles, degrees):
    prob, rect = core_map(n_tiles, degrees)
    tiles = split_merged_core(rect, 0.5, prob)
    assert len(tiles) == n_tiles
    a = np.deg2rad(-degrees)  # warpAffine turns counter-clockwise on screen
    along = np.array([np.cos(a), np.sin(a)])
    centres = sorted(np.array([c for c, _, _ in tiles]) @ along)
    # neighbours one tile width (30 px) apart, tiles about 30 x 40
    assert np.allclose(np.diff(centres), 30, atol=4)
    for _, size, _ in tiles:
        assert sorted(size) == pytest.approx([30, 40], abs=8)


def test_one_long_core_without_a_saddle_stays_one_tile():
    prob = np.zeros((200, 200), np.float32)
    cv2.rectangle(prob, (60, 90), (140, 110), 1.0, -1)
    prob = cv2.GaussianBlur(prob, (0, 0), 2)
    tiles = split_merged_core(((100, 100), (80, 20), 0), 0.5, prob)
    assert len(tiles) == 1


@pytest.mark.parametrize("degrees", [0, 35, 90])
def test_tile_size_is_read_from_the_short_side_of_outlines_even_when_tiles_run_together(degrees):
    """A first look at tiny tiles gives single outlines and rows of tiles run into one outline;
    the photo is looked at closer when the tiles are small, so a run of three 12 px tiles must not
    pass for one tile three widths tall."""
    from vision.model import FACE_ASPECT, _outline_heights

    single = order_upright(rotated(np.array([[0, 0], [9, 0], [9, 12], [0, 12]], np.float32), degrees))
    run = order_upright(rotated(np.array([[0, 0], [27, 0], [27, 12], [0, 12]], np.float32), degrees))
    heights = _outline_heights(np.stack([single, run]))
    assert heights[0] == pytest.approx(9 / FACE_ASPECT, rel=1e-3)  # a single face: its width tells its height
    assert heights[1] == pytest.approx(12 / FACE_ASPECT, rel=1e-3)  # the run: about one tile, not 27 px
    # a tile on a rack, its foot hidden: as wide as tall, its long side stands
    square = order_upright(rotated(np.array([[0, 0], [12, 0], [12, 11], [0, 11]], np.float32), degrees))
    assert _outline_heights(square[None])[0] == pytest.approx(12, rel=1e-3)
    assert _outline_heights(np.zeros((0, 4, 2), np.float32)).shape == (0,)


def box(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def test_a_closer_look_parts_run_together_outlines_and_adds_nothing_elsewhere():
    from vision.model import Outlines, _outlined_closer

    def outlines(*quads):
        return Outlines(np.stack(quads), np.linspace(0.6, 0.9, len(quads)).astype(np.float32),
                        np.zeros((4, 4), np.float32), 0.25)

    # first look: two tiles run together (loose enough to reach over the next tile's centre), that next
    # tile, and a tile the closer look does not find
    first = outlines(box(0, 0, 78, 40), box(58, 0, 90, 40), box(200, 0, 230, 40))
    # closer look: the two parted, the next tile (its centre at x=74, inside both first outlines), and
    # a find away from everything the first look found (printed digits)
    closer = outlines(box(1, 1, 29, 39), box(31, 1, 59, 39), box(61, 1, 87, 39), box(400, 0, 430, 40))
    got = _outlined_closer(first, closer)
    assert sorted(q[:, 0].min() for q in got.quads) == [1, 31, 61, 200]  # the tile at 200 kept as first seen
    assert got.face is closer.face and got.scale == closer.scale
    # a closer look that finds nothing where the first look did leaves the first look as it was
    assert _outlined_closer(first, outlines(box(400, 0, 430, 40))) is first
    assert _outlined_closer(first, Outlines(np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32),
                                            first.face, 0.5)) is first


from vision.model import SQUARE, _odd_turns  # noqa: E402


def row_of_tiles(turned: set[int], n: int = 6, size: float = 100.0) -> np.ndarray:
    """``n`` nearly square outlines side by side, in reading order; those in ``turned`` a quarter turn round
    (as a face read sideways is ordered)."""
    quads = []
    for k in range(n):
        x = k * size * 1.05
        q = np.array([[x, 0], [x + size, 0], [x + size, size * 1.1], [x, size * 1.1]], np.float32)
        quads.append(np.roll(q, 1, axis=0) if k in turned else q)
    return np.array(quads)


@pytest.mark.parametrize("turned, odd", [
    ({2}, [2]),          # one tile read sideways between upright ones
    ({2, 3}, [2, 3]),    # two side by side (a low camera's O2 O3 read as 10s between O1 and O4)
    ({0}, [0]),          # at the end of the line
    ({0, 1, 2}, []),     # three facing one way are no slip: a set laid that way
    ({3, 4, 5}, []),
    (set(), [])])
def test_square_outlines_read_across_the_line_they_lie_in_are_read_again(turned, odd):
    quads = row_of_tiles(turned)
    sides = np.linalg.norm(quads[:, [1, 3]] - quads[:, [0, 0]], axis=2)
    ratio = sides.max(axis=1) / sides.min(axis=1)
    assert (ratio < SQUARE).all()
    assert _odd_turns(quads, ratio, np.ones(len(quads), bool)).tolist() == odd
