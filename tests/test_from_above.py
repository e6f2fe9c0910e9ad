"""A table photographed from a seat: its faces are squashed, and the photo is looked at again from above.

The geometry tests need no model; the rest run the shipped model on the
sample photos squashed as a low camera shows them.
"""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.model as model_mod
from models.render.layout import careless_line
from rules.options import find_variant
from rules.tiles import Tile, parse_tiles
from vision.geometry import (NARROWEST, STEEPEST_TILT, WIDEST, from_above, group_lines, projected, squash,
                             squashed_table, table_view, tilting)
from vision.reader import ReaderOptions, TableReader
from vision.types import TileDetections

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = json.loads((ROOT / "sample_images" / "expected.json").read_text())


def laid(aspect: float, degrees: list[float], seed: int = 0, height: float = 60.0) -> np.ndarray:
    """Three sets of a box whose faces are ``aspect`` wide for one high, each set turned by one of ``degrees``."""
    rng = np.random.default_rng(seed)
    quads = []
    for k, (codes, angle) in enumerate(zip(("R4 R5 R6 R7", "K9 B9 O9", "B10 B11 B12"), degrees)):
        start = np.array([300.0, 300.0 + 2.5 * height * k])
        spots = careless_line([t.index for t in parse_tiles(codes)], start, angle, height, aspect, rng, 0.3)
        quads += [s.quad(aspect) for s in spots]
    return np.array(quads)


@pytest.mark.parametrize("aspect", [0.64, 0.75, 0.82])
@pytest.mark.parametrize("degrees", [[0, 0, 0], [90, 90, 90], [0, 45, 90]])
def test_any_box_photographed_from_above_is_not_taken_for_a_squashed_table(aspect, degrees):
    assert squashed_table(laid(aspect, degrees)) is None


@pytest.mark.parametrize("aspect", [0.64, 0.75, 0.82])
@pytest.mark.parametrize("degrees", [[0, 0, 0], [90, 90, 90], [0, 45, 90]])
def test_a_table_seen_from_low_down_is_squashed_whatever_the_box(aspect, degrees):
    """Seen at 0.5 of its depth (a camera 30 degrees above the table), with tiles of any edition.
    Tiles all laid one way cannot say the box's shape: the lesser stretch (the widest box's) is
    undone, down to 2 x 0.64 / 0.85."""
    t = squashed_table(laid(aspect, degrees) * np.array([1.0, 0.5]))
    assert t is not None
    assert 1.45 <= squash(t) <= 2.4
    up = np.linalg.svd(t)[0][:, 0]  # the way it stretches most: the photo's depth
    assert abs(up[1]) > 0.95


def camera(shape: tuple[int, ...], elevation: float, distance: float, turn: float = 0.0) -> tuple[np.ndarray, tuple]:
    """(the 3x3 map, the photo's size) of a pinhole camera ``elevation`` degrees above a table shown
    from above in a photo of ``shape``, ``distance`` photo widths from its centre (also its focal
    length), the table turned ``turn`` degrees; scaled so the photo keeps about as many pixels."""
    h, w = shape[:2]
    tip, spin = np.radians(90 - elevation), np.radians(turn)
    turned = np.array([[np.cos(spin), -np.sin(spin), 0], [np.sin(spin), np.cos(spin), 0], [0, 0, 1]])
    tipped = np.array([[1, 0, 0], [0, np.cos(tip), -np.sin(tip)], [0, np.sin(tip), np.cos(tip)]])
    lens = np.diag([distance * w, distance * w, 1.0])
    view = lens @ np.column_stack([tipped[:, 0], tipped[:, 1], [0, 0, distance * w]]) @ turned @ np.array(
        [[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    rim = projected(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64), view)
    lo, hi = rim.min(axis=0), rim.max(axis=0)
    fit = np.sqrt(w * h / np.prod(hi - lo))
    view = np.array([[fit, 0, -lo[0] * fit], [0, fit, -lo[1] * fit], [0, 0, 1]]) @ view
    return view, (int(np.ceil((hi - lo)[0] * fit)), int(np.ceil((hi - lo)[1] * fit)))


def spread_of_sizes(quads: np.ndarray) -> float:
    """The largest face's side over the smallest's (square roots of their areas)."""
    x, y = quads[..., 0], quads[..., 1]
    side = np.sqrt(0.5 * np.abs((x * np.roll(y, -1, axis=1) - y * np.roll(x, -1, axis=1)).sum(axis=1)))
    return float(side.max() / side.min())


def scattered(seed: int = 0) -> np.ndarray:
    """Forty faces 0.75 wide for one high, laid at any angle over a 1000 x 750 table seen from above."""
    rng = np.random.default_rng(seed)
    face = np.array([[-15, -20], [15, -20], [15, 20], [-15, 20]], np.float64)
    quads = []
    for _ in range(40):
        a = rng.uniform(0, np.pi)
        quads.append(face @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]) + rng.uniform([60, 60], [940, 690]))
    return np.array(quads)


@pytest.mark.parametrize("elevation, distance, turn", [(35, 1.2, 0), (45, 0.8, 20), (40, 1.0, -35), (30, 1.5, 90),
                                                       (25, 2.0, 45)])
def test_a_table_under_perspective_is_shown_from_above_with_every_face_one_size_and_square(elevation, distance, turn):
    """Seen from a seat the near faces come out two or three times the size of the far ones, and
    askew: one linear stretch cannot even them, the map from :func:`table_view` does (up to the
    scatter of outlines half a pixel off)."""
    faces = scattered()
    view, size = camera((750, 1000), elevation, distance, turn)
    photo = projected(faces, view) + np.random.default_rng(1).normal(0, 0.5, faces.shape)  # outlines a pixel off
    assert spread_of_sizes(photo) > 1.7
    stretch = squashed_table(photo)
    assert stretch is not None
    above = projected(photo, table_view(photo, (size[1], size[0]), stretch))
    assert spread_of_sizes(above) < 1.15
    across, up = above[:, 1] - above[:, 0], above[:, 3] - above[:, 0]
    cosine = np.abs((across * up).sum(axis=1)) / np.linalg.norm(across, axis=1) / np.linalg.norm(up, axis=1)
    assert np.median(cosine) < 0.05 and np.quantile(cosine, 0.9) < 0.12  # corners within 3 (most 7) degrees of square
    aspect = np.median(np.linalg.norm(across, axis=1) / np.linalg.norm(up, axis=1))
    assert NARROWEST - 0.03 <= aspect <= WIDEST + 0.03
    only_stretched = projected(photo, np.block([[stretch, np.zeros((2, 1))], [np.zeros((1, 2)), np.ones((1, 1))]]))
    assert spread_of_sizes(only_stretched) > 1.7  # what the stretch alone leaves


def test_faces_of_one_size_show_no_perspective():
    assert tilting(scattered(), (750, 1000)) is None
    assert tilting(laid(0.75, [0, 45, 90]), (750, 1000)) is None


def test_faces_standing_on_a_rack_do_not_pass_for_a_table_seen_slanted():
    """A run laid sideways on a table seen from above, beside two rack rows whose faces show only
    their tops (wider than tall): fitted to every face, the map stretches the table and parts the
    run into lone tiles; fitted to the faces lying on the table, it leaves them as they are."""
    def face(cx, cy, w, h, sideways=False):
        """TL, TR, BR, BL of the upright face (sideways: its top to the left)."""
        x, y = (h / 2, w / 2) if sideways else (w / 2, h / 2)
        corners = [[-x, y], [-x, -y], [x, -y], [x, y]] if sideways else [[-x, -y], [x, -y], [x, y], [-x, y]]
        return [[cx + dx, cy + dy] for dx, dy in corners]

    run = [face(300, 100 + 47 * k, 45, 60, sideways=True) for k in range(6)]
    racks = [face(500 + 50 * k, 600 + 45 * r, 48, 34) for r in range(2) for k in range(14)]
    quads, lying = np.array(run + racks, float), np.arange(6)
    assert len(group_lines(from_above(quads)[lying])) == 6
    assert np.allclose(from_above(quads, lying)[lying], quads[lying])
    assert [sorted(line) for line in group_lines(from_above(quads, lying)[lying])] == [list(range(6))]


def test_a_perspective_is_undone_no_more_than_the_photo_can_bear():
    """A camera almost level with the table: the far corners would be enlarged without end; the
    map is weakened until they are enlarged STEEPEST_TILT times the near ones."""
    view, size = camera((750, 1000), 8, 0.6)
    tilt = tilting(projected(scattered(), view), (size[1], size[0]))
    corners = np.array([[0, 0, 1], [size[0], 0, 1], [size[0], size[1], 1], [0, size[1], 1]], np.float64) @ tilt[2]
    assert corners.min() > 0
    assert corners.max() / corners.min() == pytest.approx(STEEPEST_TILT)


@pytest.fixture(scope="module")
def reader():
    return TableReader.from_model_dir(None, ReaderOptions(rules=find_variant("sabra")))


def seen_from_a_seat(name: str, seen: float, degrees: float) -> np.ndarray:
    """A sample photo turned by ``degrees`` in the hand, then squashed to ``seen`` of its depth."""
    image = cv2.imread(str(ROOT / "sample_images" / name))
    h, w = image.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    image = cv2.warpAffine(image, turn, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(image, (w, round(h * seen)), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("name, seen, degrees", [("valid_table.jpg", 0.45, 0), ("invalid_table.jpg", 0.45, 0),
                                                 ("turned_table.jpg", 0.45, 30), ("turned_table.jpg", 0.55, 30)])
def test_a_table_photographed_from_low_down_reads_as_from_above(reader, monkeypatch, name, seen, degrees):
    """At 0.45 of its depth (about 27 degrees above the table) the faces are twice as wide as
    tall: read as shown, 11s read as 4s and sets fall apart; seen again from above, every tile
    and set is as laid."""
    looks = []
    shown = model_mod.TileModel._detect_as_shown
    monkeypatch.setattr(model_mod.TileModel, "_detect_as_shown", lambda self, image: looks.append(image.shape)
                        or shown(self, image))
    reading = reader.read(seen_from_a_seat(name, seen, degrees))
    assert len(looks) == 2  # as shown, then from above
    codes = reading.detections.codes
    assert sorted(codes) == sorted(EXPECTED[name]["tiles"])
    assert sorted(" ".join(codes[i] for i in s.indices) for s in reading.sets) == sorted(
        map(" ".join, EXPECTED[name]["sets"]))


@pytest.mark.parametrize("name, elevation, distance, turn", [("valid_table.jpg", 35, 1.2, 0),
                                                             ("turned_table.jpg", 40, 0.7, 0),
                                                             ("turned_table.jpg", 30, 1.0, 0)])
def test_a_table_photographed_in_perspective_reads_as_laid(reader, name, elevation, distance, turn):
    """A camera close to the table from a seat: the near sets come out twice the size of the far
    ones.  The turned table from 40 degrees at 0.7 photo widths splits a set when one stretch
    stands for the whole photo."""
    image = cv2.imread(str(ROOT / "sample_images" / name))
    view, size = camera(image.shape, elevation, distance, turn)
    reading = reader.read(cv2.warpPerspective(image, view, size, borderMode=cv2.BORDER_REPLICATE))
    codes = reading.detections.codes
    assert sorted(codes) == sorted(EXPECTED[name]["tiles"])
    assert sorted(" ".join(codes[i] for i in s.indices) for s in reading.sets) == sorted(
        map(" ".join, EXPECTED[name]["sets"]))


def test_a_photo_from_above_is_looked_at_once(reader, monkeypatch):
    looks = []
    shown = model_mod.TileModel._detect_as_shown
    monkeypatch.setattr(model_mod.TileModel, "_detect_as_shown", lambda self, image: looks.append(image.shape)
                        or shown(self, image))
    reader.read(cv2.imread(str(ROOT / "sample_images" / "valid_table.jpg")))
    assert len(looks) == 1


def two_looks(monkeypatch, image: np.ndarray, quads: np.ndarray, shown: TileDetections, above_ids, above_scores):
    """Make the model's first look return ``shown`` and its look from above (a stretch of 2 down the
    photo) the same outlines read as ``above_ids`` with ``above_scores``."""
    stretch = np.diag([1.0, 2.0, 1.0])
    _, back = model_mod._seen_from_above(image, stretch)
    flat_quads = projected(quads, np.linalg.inv(back))
    from_above = TileDetections(flat_quads.astype(np.float32), np.array(above_ids), np.array(above_scores, np.float32))
    looks = iter([shown, from_above])
    monkeypatch.setattr(model_mod.TileModel, "_detect_as_shown", lambda self, photo: next(looks))
    monkeypatch.setattr(model_mod, "squashed_table", lambda found: stretch[:2, :2])
    monkeypatch.setattr(model_mod, "table_view", lambda lying, shape, squashed: stretch)


def by_place(found: TileDetections) -> dict:
    return {tuple(np.round(q.mean(axis=0)).astype(int)): (int(c), float(s))
            for q, c, s in zip(found.quads, found.class_ids, found.scores)}


def test_tiles_on_a_rack_keep_the_photos_own_look_and_the_table_takes_the_look_from_above(reader, monkeypatch):
    """A dark rack above the table: the rack's tiles stand up to the camera, so the look from
    above (which stretches them) must not replace them; the table's tiles it does replace."""
    from test_sets_on_tables import rack_and_table

    drawn, _ = rack_and_table(1)
    n_rack = 10  # rack_and_table lays the two rack rows (6 + 4 tiles) first
    ids = np.array(drawn.indices)
    shown = TileDetections(drawn.quads.astype(np.float32), ids, np.full(len(ids), 0.9))
    misread = np.where(np.arange(len(ids)) < n_rack, 0, ids)  # the stretched rack reads as K1s
    two_looks(monkeypatch, drawn.image, drawn.quads, shown, misread, np.full(len(ids), 0.95))
    found = by_place(reader.model.detect(drawn.image))
    assert len(found) == len(ids)
    for k, q in enumerate(drawn.quads):
        code, score = found[tuple(np.round(q.mean(axis=0)).astype(int))]
        assert code == ids[k]
        assert score == pytest.approx(0.9 if k < n_rack else 0.95)  # the rack as shown, the table from above


def test_a_tile_read_surer_as_shown_keeps_that_reading(reader, monkeypatch):
    """Under perspective one stretch is right only on average: the tiles nearest the camera may
    read better as the photo shows them."""
    image = cv2.imread(str(ROOT / "sample_images" / "valid_table.jpg"))
    quads = np.array(EXPECTED["valid_table.jpg"]["quads"], np.float32)
    ids = np.array([Tile.parse(c).index for c in EXPECTED["valid_table.jpg"]["tiles"]])
    shown_scores = np.where(np.arange(len(ids)) == 0, 0.99, 0.6).astype(np.float32)
    shown = TileDetections(quads, ids, shown_scores)
    above_ids = ids.copy()
    above_ids[0] = Tile.parse("O3").index  # read surer as shown (0.99 against 0.8)
    above_ids[1] = Tile.parse("B4").index  # read surer from above (0.8 against 0.6)
    two_looks(monkeypatch, image, quads, shown, above_ids, np.full(len(ids), 0.8))
    found = by_place(reader.model.detect(image))
    assert len(found) == len(ids)
    codes = [Tile.from_index(found[tuple(np.round(q.mean(axis=0)).astype(int))][0]).code for q in quads]
    assert codes[0] == EXPECTED["valid_table.jpg"]["tiles"][0]
    assert codes[1] == "B4"
    assert codes[2:] == EXPECTED["valid_table.jpg"]["tiles"][2:]


def test_a_tile_the_look_from_above_loses_stays_when_read_surely_as_shown(reader, monkeypatch):
    """One stretch for the whole table can distort a set lying across it (or faces the detector
    outlines only roughly) past outlining: a tile the photo as shown read surely is not lost with it, while a find the
    photo read unsurely (a bit of clutter) is left to the look from above, which saw nothing there."""
    image = cv2.imread(str(ROOT / "sample_images" / "valid_table.jpg"))
    quads = np.array(EXPECTED["valid_table.jpg"]["quads"], np.float32)
    codes = EXPECTED["valid_table.jpg"]["tiles"]
    ids = np.array([Tile.parse(c).index for c in codes])
    assert len(ids) >= 10  # two lost of ten or more keeps the look from above (KEEP_FLAT)
    shown_scores = np.where(np.arange(len(ids)) == 1, 0.5, 0.9).astype(np.float32)
    shown = TileDetections(quads, ids, shown_scores)
    two_looks(monkeypatch, image, quads[2:], shown, ids[2:], np.full(len(ids) - 2, 0.95))
    found = by_place(reader.model.detect(image))
    assert len(found) == len(ids) - 1
    at = [tuple(np.round(q.mean(axis=0)).astype(int)) for q in quads]
    assert found[at[0]] == (ids[0], pytest.approx(0.9))  # lost from above, read surely as shown
    assert at[1] not in found  # lost from above, read unsurely as shown
    assert all(found[p] == (ids[k], pytest.approx(0.95)) for k, p in enumerate(at[2:], start=2))
