"""The reader (vision/reader.py): model -> sets -> rules, inferred tiles, the JSON contract, bad files.

Tiles come from a stand-in model that returns fixed detections, so the whole
path after the networks is tested without a trained model.  The last test
reads sample_images/ with the shipped model.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from rules.options import find_variant
from rules.tiles import Tile, parse_table
from vision.annotate import annotate
from vision.images import load_image
from vision.reader import ReaderOptions, TableReader
from vision.types import TILE_CODES, TileDetections

SABRA = find_variant("sabra")

ROOT = Path(__file__).resolve().parents[1]
TILE_W, TILE_H = 45, 60


class StandIn:
    """A model that 'finds' the given detections in any image."""

    def __init__(self, detections: TileDetections):
        self.detections = detections
        self.calls = 0

    def detect(self, image):
        self.calls += 1
        return self.detections


def lay_out(table: str, scores: dict[int, float] | None = None, degrees: float = 0.0) -> TileDetections:
    """Tiles of ``"R1 R2 R3 | K7 B7 O7"`` laid edge to edge, one set per row, rotated as a whole."""
    quads, ids = [], []
    for row, tiles in enumerate(parse_table(table)):
        for k, tile in enumerate(tiles):
            x, y = 40 + k * (TILE_W + 3), 40 + row * (TILE_H * 2)
            quads.append([[x, y], [x + TILE_W, y], [x + TILE_W, y + TILE_H], [x, y + TILE_H]])
            ids.append(tile.index)
    quads = np.array(quads, dtype=np.float64)
    a = np.deg2rad(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    quads = (quads - 300) @ rot.T + 300
    s = np.full(len(ids), 0.99, np.float32)
    for i, v in (scores or {}).items():
        s[i] = v
    return TileDetections(quads, ids, s)


def read(table: str, scores=None, degrees=0.0, rules="sabra", shuffle_seed=None):
    det = lay_out(table, scores, degrees)
    if shuffle_seed is not None:
        det = det[np.random.default_rng(shuffle_seed).permutation(len(det))]
    reader = TableReader(StandIn(det), ReaderOptions(rules=find_variant(rules)))
    return reader.read(np.zeros((600, 600, 3), np.uint8))


def codes_by_set(reading) -> list[str]:
    return [" ".join(reading.detections.codes[i] for i in s.indices) for s in reading.sets]


@pytest.mark.parametrize("degrees", [0, 90, 180, 270, 20])
def test_sets_are_judged_in_reading_order_whatever_the_rotation(degrees):
    reading = read("R4 R5 R6 R7 | K9 B9 O9 | R13 K13", degrees=degrees, shuffle_seed=1)
    assert sorted(codes_by_set(reading)) == ["K9 B9 O9", "R13 K13", "R4 R5 R6 R7"]
    by_codes = {" ".join(reading.detections.codes[i] for i in s.indices): s for s in reading.sets}
    assert by_codes["R4 R5 R6 R7"].kind == "run" and by_codes["R4 R5 R6 R7"].value == 22
    assert by_codes["K9 B9 O9"].kind == "group" and by_codes["K9 B9 O9"].value == 27
    short = by_codes["R13 K13"]
    assert not short.valid and short.value == 0 and "at least 3 tiles" in short.problem


def test_tiles_are_listed_set_by_set_so_each_set_is_a_run_of_indices():
    reading = read("R4 R5 R6 | K9 B9 O9 R9", shuffle_seed=7)
    assert [s.indices for s in reading.sets] == [[0, 1, 2], [3, 4, 5, 6]]
    assert reading.detections.codes == "R4 R5 R6 K9 B9 O9 R9".split()


@pytest.mark.parametrize("table, joker, rules, total", [
    ("R4 R5 R6 | K9 B9 O9", False, "sabra", 15 + 27),
    ("R4 J R6 | K9 B9 O9", True, "sabra", 10 + 30 + 27),  # 004_*: a joker left on a rack costs 30
    ("R4 J R6", True, "dutch_sabra", 10 + 25),  # 004_* variations: some editions count 25
    ("R4 J R13 K1", True, "international", 4 + 30 + 10 + 10),  # 004_* International: 10-13 and 1 count 10
])
def test_rack_total_counts_every_tile_a_joker_by_the_rules(table, joker, rules, total):
    reading = read(table, rules=rules)
    assert reading.rack_total == total
    assert any(t.is_joker for t in reading.tiles) is joker


def test_json_output_has_exactly_the_agreed_shape():
    reading = read("R4 J R6 | K9 B9", scores={3: 0.8})
    out = reading.to_json(image="table.jpg")
    json.dumps(out)  # plain JSON types only
    assert list(out) == ["image", "tiles", "sets", "rack_total", "warnings"]
    assert out["image"] == "table.jpg" and out["rack_total"] == 4 + 30 + 6 + 9 + 9
    assert [t["code"] for t in out["tiles"]] == ["R4", "J", "R6", "K9", "B9"]
    for t in out["tiles"]:
        assert list(t) == ["code", "box", "quad", "score", "inferred"]
        assert len(t["box"]) == 4 and t["box"][0] < t["box"][2] and t["box"][1] < t["box"][3]
        assert np.array(t["quad"]).shape == (4, 2)
        assert isinstance(t["score"], float) and t["inferred"] is False
    assert out["tiles"][3]["score"] == pytest.approx(0.8)
    assert out["tiles"][0]["box"] == [40.0, 40.0, 85.0, 100.0]
    assert out["sets"] == [
        {"tiles": [0, 1, 2], "group": "table", "status": "valid", "valid": True, "kind": "run", "value": 15,
         "problem": None, "jokers": [["R5"]], "doubtful": [], "past_edge": False,
         "colours_doubted": False},
        {"tiles": [3, 4], "group": "table", "status": "invalid", "valid": False, "kind": None, "value": 0,
         "problem": "a set needs at least 3 tiles; this one has 2", "jokers": [], "doubtful": [], "past_edge": False,
         "colours_doubted": False},
    ]
    # the stand-in photo is all black: its colours cannot be trusted, and the reading says so
    assert any("colour" in w for w in out["warnings"]) and all(isinstance(w, str) for w in out["warnings"])


def test_a_joker_is_read_as_the_tile_it_stands_for():
    reading = read("R4 J R6")
    (s,) = reading.sets
    assert s.valid and s.value == 15
    assert s.verdict.joker_meanings() == [frozenset({Tile.parse("R5")})]


# -- inferred tiles -------------------------------------------------------------------------------


@pytest.mark.parametrize("table, doubtful, expected", [
    ("K5 K6 K9 K8", 2, "K7"),  # the example: K5 K6 ? K8
    ("K5 B5 R6", 2, "R5"),  # same colour as read wins over the other missing colours
    ("O10 O11 O13", 2, "O12"),
    ("K5 B5 O6", 2, "O5"),  # O5 or R5 would do; the model saw orange
])
def test_a_doubtful_tile_in_an_invalid_set_is_inferred_and_marked(table, doubtful, expected):
    reading = read(table, scores={doubtful: 0.2})
    d = reading.detections
    assert d.codes[doubtful] == expected and d.inferred[doubtful]
    assert reading.sets[0].valid
    # the model's own reading is kept, unchanged, and so is the verdict on it
    assert not reading.sets[0].as_read.valid and reading.sets[0].as_read.problem
    assert reading.model_detections.codes == table.split() and not reading.model_detections.inferred.any()
    assert reading.to_json()["tiles"][doubtful]["inferred"] is True
    assert sum(t["inferred"] for t in reading.to_json()["tiles"]) == 1


@pytest.mark.parametrize("table, scores", [
    ("K5 K6 K9 K8", {2: 0.95}),  # read with confidence: reported as read, the set stays invalid
    ("K5 K6 K9 K10", {1: 0.2, 2: 0.2}),  # two doubtful tiles: the rules cannot tell
    ("K5 K6 K7 K8", {2: 0.2}),  # already valid: nothing to infer
    ("K5 B5 K9", {2: 0.2}),  # O5 or R5: the reading shares nothing with either, so no guess
    ("K5 R9 O1", {1: 0.2}),  # no tile at all would make it a set
])
def test_nothing_is_inferred_without_a_single_clear_answer(table, scores):
    reading = read(table, scores=scores)
    assert not reading.detections.inferred.any()
    assert all(s.as_read is None for s in reading.sets)
    assert reading.detections.codes == table.split()


def test_inference_threshold_comes_from_the_options():
    det = lay_out("K5 K6 K9 K8", {2: 0.45})
    image = np.zeros((300, 300, 3), np.uint8)
    assert not TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image).detections.inferred.any()  # default: below 0.4
    strict = TableReader(StandIn(det), ReaderOptions(rules=SABRA, infer_below=0.5)).read(image)
    assert strict.detections.codes[2] == "K7" and strict.detections.inferred[2]


def in_colour(size: tuple[int, int]) -> np.ndarray:
    """A bright photo with a strip of red: its colours are trusted (no colour warning), so a set wrong
    by its colours stays invalid rather than unsure."""
    image = np.full((*size, 3), (215, 225, 232), np.uint8)
    image[:, : size[1] // 20] = (40, 40, 200)
    return image


def line_at(codes: str, start: tuple[float, float], step: tuple[float, float], size=(600, 800),
            turned: bool = False) -> list:
    """Read ``codes`` laid one tile per ``step`` from ``start`` (each tile's top left) in a photo of
    ``size`` (h, w), the tiles upright or ``turned`` a quarter: each set's (status, past_edge, codes)."""
    corners = ([[0, TILE_W], [0, 0], [TILE_H, 0], [TILE_H, TILE_W]] if turned  # a quarter turn: top edge on the left
               else [[0, 0], [TILE_W, 0], [TILE_W, TILE_H], [0, TILE_H]])
    quads = [[[x + cx, y + cy] for cx, cy in corners]
             for k in range(len(codes.split())) for x, y in [(start[0] + k * step[0], start[1] + k * step[1])]]
    det = TileDetections(np.array(quads, float), [Tile.parse(c).index for c in codes.split()],
                         np.full(len(codes.split()), 0.99, np.float32))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(in_colour(size))
    return [(s.status, s.past_edge, " ".join(reading.detections.codes[i] for i in s.indices)) for s in reading.sets]


STEP = TILE_W + 3


@pytest.mark.parametrize("codes, start, step", [
    ("O9 O10", (800 - 2 * STEP + 3, 100), (STEP, 0)),  # O11 would lie past the right edge
    ("O10 O9", (800 - 2 * STEP + 3, 100), (STEP, 0)),  # ... or O8
    ("R12 R13", (0, 200), (STEP, 0)),  # R11 past the left edge
    ("K7 B7", (300, 0), (0, STEP)),  # tiles turned a quarter, their line running up into the top edge
    ("K8 R8 O10", (800 - 2 * STEP - 20, 100), (STEP, 0)),  # O10 half out of the photo: maybe a misread O8
    ("O13", (800 - TILE_W, 300), (STEP, 0)),  # a lone tile against the right edge: two more may lie past it
    ("K2", (400, -TILE_H // 4), (STEP, 0)),  # a lone tile across the top edge (a row the photo cuts through)
])
def test_a_set_running_into_the_photos_edge_is_unsure_not_invalid(codes, start, step):
    """The camera cannot see past the photo's edge: a set cut there, that a tile in the next place
    would make valid, is unsure ("runs past the photo's edge"), not a false alarm."""
    [(status, past, read)] = line_at(codes, start, step, turned=step[0] == 0)
    assert (status, past, sorted(read.split())) == ("unsure", True, sorted(codes.split()))  # in the order it reads


@pytest.mark.parametrize("table, scores, status, doubtful", [
    ("R3 R4 J R6", {2: 0.09}, "unsure", ["J"]),  # a numeral under a finger read as a joker at 0.09
    ("R3 R4 J R6", {2: 0.3}, "valid", []),  # doubtful, but not so doubtful as to doubt a valid set
    ("K9 B9 O9", {0: 0.15}, "unsure", ["K9"]),
    ("K5 K6 K9 K8", {2: 0.1}, "valid", []),  # K9 inferred as K7 from its set: marked inferred, not doubted
])
def test_a_valid_set_is_unsure_when_a_tile_was_read_very_doubtfully(table, scores, status, doubtful):
    """A set valid as read stands on every tile's reading: one read at 0.09 (a hidden numeral, a
    blank read as a joker worth 30) may be no such tile, so the set is shown unsure with that tile
    named, neither valid nor a false alarm."""
    reading = read(table, scores=scores)
    [s] = reading.sets
    assert (s.status, [reading.detections.codes[i] for i in s.doubtful]) == (status, doubtful)
    assert s.to_json()["valid"] is (status == "valid") and s.value == (s.verdict.value if status == "valid" else 0)


def test_an_end_tile_the_edge_cuts_is_measured_whole_not_by_its_outline():
    """A tile across the photo's edge is outlined only where it shows, so its outline lies mostly
    inside the photo; half of it shows, and that half misread (K13 as K1) must leave the set
    unsure, not invalid, as a tile measured whole would."""
    x = 800 - 2 * STEP - TILE_W // 2  # the third tile's place: half of it past the right edge
    quads = [[[x + k * STEP, 100], [x + k * STEP + TILE_W, 100], [x + k * STEP + TILE_W, 100 + TILE_H],
              [x + k * STEP, 100 + TILE_H]] for k in range(2)]
    shown = x + 2 * STEP  # the cut tile's outline: its visible half and a few pixels past the edge
    quads.append([[shown, 100], [805, 100], [805, 100 + TILE_H], [shown, 100 + TILE_H]])
    det = TileDetections(np.array(quads, float), [Tile.parse(c).index for c in "K11 K12 K1".split()],
                         np.full(3, 0.99, np.float32))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(np.zeros((600, 800, 3), np.uint8))
    [s] = reading.sets
    assert (s.status, s.past_edge) == ("unsure", True)


@pytest.mark.parametrize("codes, start, step", [
    ("O9 O10", (300, 100), (STEP, 0)),  # in the middle of the photo: plainly too short
    ("O9 O10", (800 - 2 * STEP - 60, 100), (STEP, 0)),  # a tile's width short of the edge: O11 would show
    ("O9 O10", (800 - TILE_H, 200), (0, STEP)),  # at the right edge, but running down along it (turned tiles)
    ("K5 R6 K7", (800 - 3 * STEP + 3, 100), (STEP, 0)),  # wrong inside the photo: no tile past it helps
    ("R13 K1", (0, 100), (STEP, 0)),  # nothing comes before R13 K1 (no wrapping round)
    ("O9 O10 B11", (800 - 3 * STEP + 3, 100), (STEP, 0)),  # B11 cannot follow O10, whatever lies past it
    ("K8 R8 O10", (800 - 3 * STEP + 3, 100), (STEP, 0)),  # O10 wholly in sight: wrong whatever lies past it
    ("O13", (300, 100), (STEP, 0)),  # a lone tile in the middle of the photo
    ("O13", (800 - TILE_W - 20, 100), (STEP, 0)),  # clear of the edge: a neighbour there would show in part
])
def test_a_set_that_is_wrong_inside_the_photo_stays_invalid(codes, start, step):
    sets = line_at(codes, start, step, turned=step[0] == 0)
    assert all(status == "invalid" and not past for status, past, _ in sets), sets
    assert sorted(" ".join(c for _, _, c in sets).split()) == sorted(codes.split())  # turned tiles read upwards


def test_a_set_past_the_edge_says_so_in_the_json_and_the_summary():
    quads = [[[x, 100], [x + TILE_W, 100], [x + TILE_W, 100 + TILE_H], [x, 100 + TILE_H]] for x in (0, STEP)]
    det = TileDetections(np.array(quads, float), [Tile.parse("B12").index, Tile.parse("B13").index],
                         np.full(2, 0.99, np.float32))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(np.zeros((400, 400, 3), np.uint8))
    out = reading.to_json()["sets"]
    assert [(s["status"], s["past_edge"], s["valid"]) for s in out] == [("unsure", True, False)]
    from cli.read import summary
    assert "UNSURE: B12 B13  -- runs past the photo's edge; as seen: a set needs at least 3 tiles" in summary("x", reading)


def test_the_reader_rejects_what_is_not_a_colour_image():
    reader = TableReader(StandIn(TileDetections.empty()), ReaderOptions(rules=SABRA))
    for bad in (np.zeros((10, 10), np.uint8), np.zeros((0, 0, 3), np.uint8), None):
        with pytest.raises(ValueError, match="BGR colour image"):
            reader.read(bad)


def test_an_empty_table_reads_as_nothing():
    reading = TableReader(StandIn(TileDetections.empty()), ReaderOptions(rules=SABRA)).read(np.zeros((50, 50, 3), np.uint8))
    out = reading.to_json(image="x.png")
    assert {k: out[k] for k in ("image", "tiles", "sets", "rack_total")} == {
        "image": "x.png", "tiles": [], "sets": [], "rack_total": 0}


# -- drawing --------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(120, 160), (480, 640), (3024, 4032)])
def test_annotate_draws_on_a_copy_at_any_image_size(size):
    reading = read("R4 R5 R6 | K9 B9", scores={1: 0.3})
    image = np.full((*size, 3), 90, np.uint8)
    drawn = annotate(image, reading)
    assert drawn.shape == image.shape and drawn is not image
    assert (image == 90).all()  # the photo itself is untouched
    assert (drawn != 90).any()


def test_annotate_colours_valid_sets_green_and_invalid_sets_red():
    reading = read("R4 R5 R6 | K9 B9")
    drawn = annotate(np.zeros((600, 600, 3), np.uint8), reading)
    b, g, r = (drawn[..., k].astype(int) for k in range(3))
    green = (g > 150) & (r < 100)
    red = (r > 150) & (g < 100)
    rows_green = np.nonzero(green.any(axis=1))[0]
    rows_red = np.nonzero(red.any(axis=1))[0]
    assert rows_green.size and rows_red.size
    assert rows_green.mean() < rows_red.mean()  # the valid run lies above the invalid pair


def test_annotate_marks_an_inferred_tile():
    reading = read("K5 K6 K9 K8", scores={2: 0.2})
    plain = read("K5 K6 K7 K8")
    a = annotate(np.zeros((400, 400, 3), np.uint8), reading)
    b = annotate(np.zeros((400, 400, 3), np.uint8), plain)
    yellow = lambda im: ((im[..., 1] > 180) & (im[..., 2] > 180) & (im[..., 0] < 80)).sum()  # noqa: E731
    assert yellow(a) > 0 and yellow(b) == 0


# -- the shipped model on the shipped samples -----------------------------------------------------


def _samples() -> dict:
    """sample_images/expected.json: {image name: {"tiles": [codes], "sets": [[codes]], "quads": ...}}."""
    path = ROOT / "sample_images" / "expected.json"
    return json.loads(path.read_text()) if path.exists() else {}


@pytest.mark.skipif(not _samples(), reason="sample_images/expected.json not rendered yet")
def test_the_shipped_model_reads_the_sample_images_exactly():
    reader = TableReader.from_model_dir(None, ReaderOptions(rules=SABRA))
    for name, entry in _samples().items():
        reading = reader.read(load_image(ROOT / "sample_images" / name))
        assert sorted(reading.detections.codes) == sorted(entry["tiles"]), name
        assert sorted(codes_by_set(reading)) == sorted(map(" ".join, entry["sets"])), name
        assert not reading.detections.inferred.any(), f"{name}: a tile needed inferring"


@pytest.mark.skipif(not _samples(), reason="sample_images/expected.json not rendered yet")
def test_a_nearly_square_rack_tile_outline_given_sideways_is_read_upright():
    """A tile on a rack shows about a square of its face; its outline may come with the wrong side up."""
    from vision.model import TileModel

    entry = _samples()["rack.jpg"]
    image = load_image(ROOT / "sample_images" / "rack.jpg")
    model = TileModel.load(None, profile=None)
    k = entry["tiles"].index("K3")
    upright = np.array(entry["quads"][k], np.float32)
    top, left = upright[0], upright[3] - upright[0]
    square = upright.copy()  # the face cut as wide as tall, then given with its left edge first
    square[2:] = top + (upright[1] - upright[0])[None] * [[1], [0]] + left * np.linalg.norm(upright[1] - upright[0]) / np.linalg.norm(left)
    sideways = np.roll(square, 1, axis=0)[None]
    quads, probs, upside_down = model.classify_outlines(image, sideways)
    assert Tile.from_index(int(probs[0].argmax())).code == "K3"
    read_top = quads[0][1] - quads[0][0] if upside_down[0] < 0.5 else quads[0][3] - quads[0][2]
    assert float(read_top @ (upright[1] - upright[0])) > 0  # the top edge read runs along the tile's top


def _diamond_in(face: np.ndarray) -> np.ndarray:
    """An outline drawn inside a face as a diamond: a square turned 45 degrees, corners on its long axis."""
    from vision.crops import order_upright

    centre, width = face.mean(axis=0), float(np.linalg.norm(face[1] - face[0]))
    along, up = (face[1] - face[0]) / width, (face[0] - face[3]) / np.linalg.norm(face[0] - face[3])
    return order_upright(np.array([centre + up * width / 2, centre + along * width / 2,
                                   centre - up * width / 2, centre - along * width / 2], np.float32))


@pytest.mark.skipif(not _samples(), reason="sample_images/expected.json not rendered yet")
@pytest.mark.parametrize("code", ["K7", "O3", "K12"])
def test_an_outline_drawn_as_a_diamond_inside_a_face_is_read_laid_as_its_neighbours(code):
    """Cut along the diamond, a K7 reads K1 and an O3 reads O7; a K12 is cut to its middle and read as no tile."""
    from vision.model import TileModel

    entry = _samples()["valid_table.jpg"]
    image = load_image(ROOT / "sample_images" / "valid_table.jpg")
    k = entry["tiles"].index(code)
    faces = np.array(entry["quads"], np.float32)
    quads = faces.copy()
    quads[k] = _diamond_in(faces[k])
    model = TileModel.load(None, profile=None)
    read, probs, _ = model.classify_outlines(image, quads)
    assert Tile.from_index(int(probs[k].argmax())).code == code
    top, first = read[k][1] - read[k][0], faces[k][1] - faces[k][0]
    assert abs(float(top @ first)) / (np.linalg.norm(top) * np.linalg.norm(first)) > np.cos(np.deg2rad(5))
    assert np.linalg.norm(read[k].mean(axis=0) - faces[k].mean(axis=0)) < 0.1 * np.linalg.norm(first)


@pytest.mark.skipif(not _samples(), reason="sample_images/expected.json not rendered yet")
@pytest.mark.parametrize("code, misread", [("K3", "K10"), ("R3", "R10"), ("O6", "O10")])
def test_a_rack_tile_read_sideways_is_read_again_standing_as_its_row_stands(code, misread):
    """On a rack a 3 or a 6 read a quarter turn off comes out a 10; the row says which way is up."""
    from vision.model import TileModel

    entry = _samples()["rack.jpg"]
    image = load_image(ROOT / "sample_images" / "rack.jpg")
    k = entry["tiles"].index(code)
    quads = np.array(entry["quads"], np.float32)
    quads[k] = np.roll(quads[k], 1, axis=0)  # outlined a quarter turn off, read as the 10 that shows
    ids = np.array([Tile.parse(c).index for c in entry["tiles"]])
    ids[k] = Tile.parse(misread).index
    probs = np.zeros((len(ids), TILE_CODES), np.float32)
    probs[np.arange(len(ids)), ids] = 0.8
    found = TileDetections(quads, ids, np.full(len(ids), 0.8, np.float32), probs=probs)
    model = TileModel.load(None, profile=None)
    read = model._upright_on_racks(image, found)
    assert read.codes[k] == code
    assert read.codes[:k] + read.codes[k + 1:] == entry["tiles"][:k] + entry["tiles"][k + 1:]
    top, first = read.quads[k][1] - read.quads[k][0], np.array(entry["quads"][k])[1] - np.array(entry["quads"][k])[0]
    assert float(top @ first) > 0.9 * np.linalg.norm(top) * np.linalg.norm(first)  # standing, the right way up


@pytest.mark.skipif(not _samples(), reason="sample_images/expected.json not rendered yet")
def test_a_square_outline_read_surely_upright_is_not_read_again_turned():
    """The quarter-turn look is for doubtful square outlines only: a sure reading is not paid for twice."""
    from vision.model import SURE_UPRIGHT, TileModel

    entry = _samples()["rack.jpg"]
    image = load_image(ROOT / "sample_images" / "rack.jpg")
    model = TileModel.load(None, profile=None)
    upright = np.array(entry["quads"][entry["tiles"].index("K3")], np.float32)
    probs, upside_down = model.classify(image, upright[None])
    sure = probs[0, :-1].max() * (0.5 + abs(upside_down[0] - 0.5))
    assert sure >= SURE_UPRIGHT  # the upright crop reads K3 without doubt
    width = np.linalg.norm(upright[1] - upright[0])
    square = upright.copy()  # cut as wide as tall, still upright: a square outline read surely
    square[2:] = upright[:2][::-1] + (upright[3] - upright[0]) / np.linalg.norm(upright[3] - upright[0]) * width
    calls = []
    real = model.classify
    model.classify = lambda img, quads: calls.append(len(quads)) or real(img, quads)
    quads, probs, _ = model.classify_outlines(image, square[None])
    assert Tile.from_index(int(probs[0].argmax())).code == "K3"
    assert calls == [1]  # no second, turned reading
    calls.clear()  # the same outline given sideways reads doubtfully: then it is looked at turned
    model.classify_outlines(image, np.roll(square, 1, axis=0)[None])
    assert calls == [1, 1]


def test_an_outline_read_as_no_tile_sideways_is_a_tile_when_read_surely_turned_a_quarter():
    """A two-digit face read sideways comes out no tile; turned a quarter it is a tile if read surely so."""
    from vision.model import AGAIN_SURE, TileModel

    model = TileModel.load(None, profile=None)
    k11, k12 = Tile.parse("K11").index, Tile.parse("K12").index
    upright = np.array([[100, 100], [130, 100], [130, 140], [100, 140]], np.float32)
    quads = np.stack([np.roll(upright + [60 * i, 0], 1, axis=0) for i in range(3)])  # all given sideways
    quads[2] = np.roll(np.array([[220, 100], [250, 100], [250, 160], [220, 160]], np.float32), 1, axis=0)
    # ...the third twice as tall as wide: a strip, never a face on its side

    def classify(image, given):
        """Stands in for the network: a sideways crop reads no tile; upright, K11 surely, K12 not."""
        probs = np.zeros((len(given), TILE_CODES + 1), np.float32)
        for row, q in zip(probs, given):
            top = q[1] - q[0]
            if abs(top[0]) > abs(top[1]):  # upright: the first edge runs across
                sure = not 150 < q.mean(axis=0)[0] < 200  # the second tile reads doubtfully
                row[k11 if sure else k12] = AGAIN_SURE + 0.02 if sure else AGAIN_SURE - 0.1
                row[-1] = 1 - row.max()
            else:
                row[-1] = 0.9
                row[k11] = 0.1
        return probs, np.zeros(len(given), np.float32)

    model.classify = classify
    read, probs, _ = model.classify_outlines(np.zeros((300, 400, 3), np.uint8), quads)
    assert [Tile.from_index(int(p.argmax())).code if p.argmax() < TILE_CODES else "no tile" for p in probs] \
        == ["K11", "no tile", "no tile"]
    top = read[0][1] - read[0][0]
    assert abs(top[0]) > abs(top[1])  # kept turned upright: its top edge runs across
    assert np.array_equal(read[1:], quads[1:])  # the others keep the outline given


def test_a_photo_without_tiles_gets_no_warning_about_tile_colours():
    """An empty marble table has little colour of its own: with no tile found, no tile colour is in doubt."""
    grey = np.full((300, 400, 3), 128, np.uint8)
    assert TableReader(StandIn(TileDetections.empty()), ReaderOptions(rules=SABRA)).read(grey).warnings == []
    one = lay_out("R5")
    assert TableReader(StandIn(one), ReaderOptions(rules=SABRA)).read(grey).warnings  # a tile on it: warned


def test_a_tiny_photo_with_no_tile_says_why_nothing_was_found():
    tiny = np.full((30, 40, 3), 200, np.uint8)
    [warning] = TableReader(StandIn(TileDetections.empty()), ReaderOptions(rules=SABRA)).read(tiny).warnings
    assert "40x30 pixels" in warning and "too small" in warning
    big = np.full((300, 400, 3), 200, np.uint8)
    assert TableReader(StandIn(TileDetections.empty()), ReaderOptions(rules=SABRA)).read(big).warnings == []
