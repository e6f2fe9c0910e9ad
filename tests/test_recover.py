"""Tiles the outlines missed (vision/recover.py): places over uncovered tile face, outlines two tiles wide."""

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision.recover import beside_places, in_holes, uncovered_places, wide_outlines

ROOT = Path(__file__).resolve().parents[1]
W, H = 30.0, 40.0  # a tile face, pixels


def row(n: int, degrees: float, centre=(200.0, 150.0), step: float = 1.04 * W) -> np.ndarray:
    """``n`` tiles side by side along a line turned ``degrees``: quads TL, TR, BR, BL."""
    a = np.deg2rad(degrees)
    x, up = np.array([np.cos(a), np.sin(a)]), np.array([np.sin(a), -np.cos(a)])
    quads = []
    for k in range(n):
        c = np.array(centre) + x * (k - (n - 1) / 2) * step
        quads.append([c - x * W / 2 + up * H / 2, c + x * W / 2 + up * H / 2,
                      c + x * W / 2 - up * H / 2, c - x * W / 2 - up * H / 2])
    return np.array(quads, np.float32)


def face_map(quads: np.ndarray, shape=(300, 400)) -> np.ndarray:
    """What the detector's face output looks like over these tiles: about 1 on each face, soft edges."""
    face = np.zeros(shape, np.float32)
    cv2.fillPoly(face, [np.round(q).astype(np.int32) for q in quads], 0.95)
    return cv2.GaussianBlur(face, (5, 5), 1.0)


@settings(max_examples=30, deadline=None)
@given(st.floats(0, 360), st.integers(4, 6), st.data())
def test_a_tile_missing_from_a_line_gets_a_place_where_it_lies(degrees, n, data):
    quads = row(n, degrees)
    missing = data.draw(st.integers(0, n - 1))
    found = np.delete(quads, missing, axis=0)
    places = uncovered_places(face_map(quads), 1.0, found)
    assert len(places) == 1
    place = places[0]
    assert np.linalg.norm(place.mean(axis=0) - quads[missing].mean(axis=0)) < 0.25 * W
    # laid the way its neighbours lie: its width along the line
    sides = sorted(np.linalg.norm(place - np.roll(place, 1, axis=0), axis=1))
    assert sides[0] == pytest.approx(W, rel=0.1) and sides[-1] == pytest.approx(H, rel=0.1)


@pytest.mark.parametrize("degrees", [0, 30, 90, 150])
def test_two_tiles_missing_side_by_side_get_two_places(degrees):
    quads = row(6, degrees)
    found = quads[[0, 1, 4, 5]]
    places = uncovered_places(face_map(quads), 1.0, found)
    centres = sorted(map(tuple, np.round([p.mean(axis=0) for p in places])))
    truth = sorted(map(tuple, np.round(quads[[2, 3]].mean(axis=1))))
    assert len(places) == 2
    assert np.abs(np.array(centres) - np.array(truth)).max() < 0.3 * W


def test_no_place_where_every_face_is_covered_or_only_a_fringe_shows():
    quads = row(5, 20)
    assert uncovered_places(face_map(quads), 1.0, quads) == []
    # outlines drawn a little small leave a fringe of face round each tile: no tile there
    shrunk = quads.mean(axis=1, keepdims=True) + (quads - quads.mean(axis=1, keepdims=True)) * 0.85
    assert uncovered_places(face_map(quads), 1.0, shrunk) == []
    # no face at all (table between tiles): nothing
    assert uncovered_places(np.zeros((300, 400), np.float32), 1.0, quads[[0, 4]]) == []


def test_places_come_back_in_image_pixels_when_the_detector_looked_at_the_photo_smaller():
    quads = row(5, 10) * 2  # tiles 60 x 80 in the photo; the detector saw it at half size
    places = uncovered_places(face_map(quads * 0.5), 0.5, quads[[0, 1, 3, 4]])
    assert len(places) == 1
    assert np.linalg.norm(places[0].mean(axis=0) - quads[2].mean(axis=0)) < 0.5 * W


@pytest.mark.parametrize("degrees", [0, 60, 180, 250])
def test_a_faint_last_tile_of_a_set_gets_a_place_and_bare_table_beside_a_tile_none(degrees):
    quads = row(5, degrees)
    faint = face_map(quads[:4]) + 0.4 * face_map(quads[4:])  # the detector barely saw the last tile
    places = uncovered_places(faint, 1.0, quads[:4])
    assert places == []  # too faint to count as face
    places = beside_places(faint, 1.0, quads[:4], (300, 400))
    assert len(places) == 1
    assert np.linalg.norm(places[0].mean(axis=0) - quads[4].mean(axis=0)) < 0.15 * W
    # already looked at: not offered twice
    assert beside_places(faint, 1.0, quads[:4], (300, 400), taken=places) == []
    # nothing beside the set's other end, nor beside a tile alone on bare table
    assert beside_places(face_map(quads[:4]), 1.0, quads[:4], (300, 400)) == []
    # a place past the photo's edge is never offered
    edge = quads[4].mean(axis=0)
    clipped = (int(edge[1]) if abs(edge[1] - 150) > 1 else 300, int(edge[0]) if abs(edge[0] - 200) > 1 else 400)
    assert beside_places(faint, 1.0, quads[:4], clipped) == []


@pytest.mark.parametrize("degrees", [0, 35, 90])
def test_an_outline_two_tiles_wide_is_offered_as_two_tiles(degrees):
    quads = row(6, degrees)
    merged = np.array([quads[2][0], quads[3][1], quads[3][2], quads[2][3]], np.float32)  # tiles 2 and 3 as one
    outlines = np.concatenate([quads[[0, 1]], merged[None], quads[[4, 5]]])
    wide, halves = wide_outlines(outlines)
    assert wide == [2]
    centres = np.array([h.mean(axis=0) for h in halves])
    truth = quads[[2, 3]].mean(axis=1)
    assert min(np.abs(centres - truth).max(), np.abs(centres[::-1] - truth).max()) < 0.2 * W
    # ordinary tiles, turned any way, are never offered
    assert wide_outlines(row(6, degrees))[0] == []


def test_an_outline_two_far_tiles_wide_is_offered_where_near_tiles_are_bigger():
    """A photo taken at a slant: the far row's tiles are half the size of the near rows', so a pair of
    far tiles outlined as one is two of the tiles round it wide, though hardly wider than a near tile."""
    near = np.concatenate([row(6, 0, centre=(200.0, 200.0)), row(6, 0, centre=(200.0, 245.0))])
    far = np.array([200.0, 100.0]) + (row(6, 0, centre=(200.0, 100.0)) - np.array([200.0, 100.0])) * 0.55
    merged = np.array([far[2][0], far[3][1], far[3][2], far[2][3]], np.float32)
    outlines = np.concatenate([near, far[[0, 1]], merged[None], far[[4, 5]]])
    wide, _ = wide_outlines(outlines)
    assert wide == [len(near) + 2]


def test_a_two_digit_tile_cut_into_its_two_digits_stays_one_tile():
    from rules.tiles import Tile
    from vision.model import _digits_of

    def digits(whole, a, b):
        return _digits_of(*(Tile.parse(c).index for c in (whole, a, b)))

    assert digits("O13", "O1", "O3") and digits("R11", "R1", "R1") and digits("B12", "B2", "B1")
    assert not digits("O13", "O1", "O2") and not digits("O12", "O1", "R2") and not digits("K8", "K1", "K8")
    assert not digits("J", "K1", "K3") and not digits("K10", "K1", "K10")


@pytest.fixture(scope="module")
def model():
    from vision.model import TileModel

    return TileModel.load(None)


def test_a_detection_removed_from_a_photo_is_found_again_and_read_the_same(model):
    image = cv2.imread(str(ROOT / "sample_images" / "valid_table.jpg"))
    look = model._look(image)
    found = model._read_outlines(image, look.quads, look.scores)
    assert len(found) >= 15
    back = 0
    for k in range(len(found)):
        rest = found[np.delete(np.arange(len(found)), k)]
        again = model._recover(image, rest, look)
        assert len(again) <= len(found)  # never more tiles than are there
        if len(again) == len(found):
            new = again[len(rest):]
            assert new.codes == [found.codes[k]]
            assert np.linalg.norm(new.centers[0] - found.centers[k]) < 0.3 * np.linalg.norm(
                found.quads[k][1] - found.quads[k][0])
            back += 1
    assert back >= 0.8 * len(found)


@pytest.mark.parametrize("name", ["valid_table.jpg", "invalid_table.jpg", "rack.jpg", "turned_table.jpg"])
def test_nothing_is_added_to_photos_where_every_tile_was_found(model, name):
    image = cv2.imread(str(ROOT / "sample_images" / name))
    look = model._look(image)
    found = model._read_outlines(image, look.quads, look.scores)
    assert len(model._recover(image, found, look)) == len(found)


def test_two_touching_tiles_outlined_as_one_are_read_as_two(model):
    from vision.geometry import link_neighbours

    image = cv2.imread(str(ROOT / "sample_images" / "valid_table.jpg"))
    look = model._look(image)
    found = model._read_outlines(image, look.quads, look.scores)
    split = 0
    pairs = link_neighbours(found.quads)
    for i, j in pairs:
        a, b = found.quads[i], found.quads[j]
        hull = cv2.boxPoints(cv2.minAreaRect(np.concatenate([a, b]).astype(np.float32)))
        merged = found[[k for k in range(len(found)) if k not in (i, j)]]
        merged.quads = np.concatenate([merged.quads, hull[None].astype(np.float32)])
        merged.class_ids = np.append(merged.class_ids, found.class_ids[i])
        merged.scores = np.append(merged.scores, np.float32(0.9))
        merged.inferred = np.append(merged.inferred, False)
        again = model._recover(image, merged, look)
        assert len(again) in (len(merged), len(found))  # the wide outline kept, or two tiles for it
        if len(again) == len(found):
            assert sorted(again.codes) == sorted(found.codes)
            split += 1
    assert split >= 0.7 * len(pairs)


def test_no_place_on_a_tile_lying_across_the_step_beside_another():
    upright = row(1, 0, centre=(200.0, 150.0))[0]
    # a tile on its side whose long side covers the place one step right of the upright tile,
    # its middle 0.65 of its width away from there (along its height)
    step = 1.04 * W
    lying = row(1, 90, centre=(200.0 + step + 0.65 * W, 150.0))[0]
    quads = np.stack([upright, lying])
    places = beside_places(face_map(quads), 1.0, quads, (300, 400))
    place_centres = [p.mean(axis=0) for p in places]
    assert all(np.linalg.norm(c - np.array([200.0 + step, 150.0])) > 0.5 * W for c in place_centres)


def turned_about(quad: np.ndarray, degrees: float, scale: float = 1.0, shift=(0.0, 0.0)) -> np.ndarray:
    """``quad`` turned and scaled about its centre, then moved by ``shift``."""
    a = np.deg2rad(degrees)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    c = quad.mean(axis=0)
    return ((quad - c) @ turn.T * scale + c + np.asarray(shift)).astype(np.float32)


@pytest.mark.parametrize("degrees", [0, 35, 90, 200])
def test_an_outline_askew_in_a_gap_one_tile_wide_is_a_hole_laid_as_its_neighbours_lie(degrees):
    quads = row(3, degrees)
    found = quads[[0, 2]]
    drawn = turned_about(quads[1], 25, 0.9, shift=(3.0, -2.0))  # drawn round what shows of it
    picked, laid = in_holes(np.stack([drawn, turned_about(drawn, -10, 0.95)]), found)
    assert picked == [0]  # one tile, however many outlines show bits of it
    # the neighbours' size and axes, midway between them: corner for corner the tile that lies there
    assert np.abs(laid[0] - quads[1]).max() < 0.05 * W


def test_no_hole_past_a_lines_end_beside_it_where_two_tiles_fit_or_for_a_bigger_thing():
    quads = row(4, 20)
    assert in_holes(quads[3][None], quads[:2])[0] == []  # past the end: one neighbour only
    assert in_holes(quads[1][None], quads[[0, 3]])[0] == []  # a gap two tiles wide
    assert in_holes(turned_about(quads[1], 0, 2.0)[None], quads[[0, 2]])[0] == []  # a coaster, not a tile
    a = np.deg2rad(20)
    beside = turned_about(quads[1], 0, shift=np.array([np.sin(a), -np.cos(a)]) * 1.2 * H)
    assert in_holes(beside[None], quads[[0, 2]])[0] == []  # above the line, not in it


def finger_over(image: np.ndarray, quad: np.ndarray, share: float) -> np.ndarray:
    """``image`` with a finger laid across a tile's foot, up to ``share`` of its height."""
    out = image.copy()
    tl, tr, br, bl = quad
    across = (br - bl) * 0.1
    tip_l, tip_r = bl + (tl - bl) * share, br + (tr - br) * share
    cv2.fillConvexPoly(out, np.round([bl - across, br + across, tip_r + across, tip_l - across]).astype(np.int32),
                       (90, 120, 190))
    return out


def test_a_tile_half_covered_in_a_run_is_read_in_its_set_not_cut_out_of_it(model, monkeypatch):
    from rules.options import RuleOptions
    from vision import model as model_module
    from vision.reader import ReaderOptions, TableReader

    image = cv2.imread(str(ROOT / "sample_images" / "valid_table.jpg"))
    shown = model.detect(image)
    covered = finger_over(image, shown.quads[shown.codes.index("R4")], 0.5)
    reader = TableReader(model, ReaderOptions(RuleOptions()))

    def run_of_reds(reading):
        return [[reading.detections.codes[i] for i in s.indices] + [s.status] for s in reading.sets
                if any(reading.detections.codes[i] in ("R3", "R6") for i in s.indices)]

    assert run_of_reds(reader.read(covered)) == [["R3", "R4", "R5", "R6", "valid"]]
    monkeypatch.setattr(model_module, "HOLE_REJECT", 0.0)  # holes left empty: the run is cut in two
    assert run_of_reds(reader.read(covered)) == [["R3", "invalid"], ["R5", "R6", "invalid"]]
