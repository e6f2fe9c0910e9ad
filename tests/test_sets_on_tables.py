"""Sets as players lay them: careless lines at every angle, touching sets, loose tiles, racks, any scale.

Layouts come from the renderer's own placement code (models/render/layout.py),
so the truth of which tiles form a set is known exactly.
"""

import numpy as np
import pytest

from models.render.backgrounds import background
from models.render.layout import Layout, careless_line, rack_layout
from models.render.scene import compose
from models.render.styles import EDITIONS
from rules.options import find_variant
from rules.tiles import parse_tiles
from vision.geometry import from_above, group_lines
from vision.reader import ReaderOptions, TableReader
from vision.types import TileDetections

SABRA = find_variant("sabra")
ASPECT = 0.75
SETS = ["R4 R5 R6 R7", "K9 B9 O9", "B10 B11 B12 B13", "O1 O2 O3", "K7 R7 B7 O7"]


def careless_table(degrees: float, seed: int, height: float = 60.0):
    """Five sets laid carelessly (gaps up to ~half a tile, staggered, turned), the table turned by ``degrees``."""
    rng = np.random.default_rng(seed)
    spots, truth = [], []
    a = np.radians(degrees)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    for k, codes in enumerate(SETS):
        start = np.array([800.0, 800.0]) + v * (k - 2) * 2.3 * height - u * 2 * height
        line = careless_line([t.index for t in parse_tiles(codes)], start, degrees, height, ASPECT, rng)
        truth.append(list(range(len(spots), len(spots) + len(line))))
        spots += line
    quads = np.array([s.quad(ASPECT) for s in spots])
    return quads, [s.index for s in spots], truth


def partition(sets) -> set[tuple[int, ...]]:
    return {tuple(sorted(s)) for s in sets}


@pytest.mark.parametrize("degrees", list(range(0, 360, 15)))
def test_careless_sets_at_every_angle_come_back_whole(degrees):
    for seed in range(3):
        quads, _, truth = careless_table(degrees, seed)
        assert partition(group_lines(quads)) == partition(truth), (degrees, seed)


@pytest.mark.parametrize("degrees", [0, 35, 90, 160, 250])
def test_careless_sets_under_perspective(degrees):
    import cv2

    quads, _, truth = careless_table(degrees, 7)
    src = np.float32([[0, 0], [1600, 0], [1600, 1600], [0, 1600]])
    dst = np.float32([[300, 0], [1300, 0], [1600, 1600], [0, 1600]])  # the far side a third narrower
    m = cv2.getPerspectiveTransform(src, dst)
    seen = cv2.perspectiveTransform(quads.reshape(-1, 1, 2).astype(np.float32), m).reshape(-1, 4, 2)
    assert partition(group_lines(seen)) == partition(truth)


class StandIn:
    def __init__(self, detections):
        self.detections = detections

    def detect(self, image):
        return self.detections


def read_line(codes: str, gaps: list[float], image=None, askew: dict[int, float] | None = None,
              degrees: float = 0.0):
    """One straight line of tiles with the given gaps (in tile widths) between them, read by the reader.

    ``askew``: tiles turned about their own centres by so many degrees; ``degrees``: the whole line turned.
    """
    tiles = parse_tiles(codes)
    w, h = 45.0, 60.0
    quads, x = [], 40.0
    for k, t in enumerate(tiles):
        quad = np.array([[x, 100], [x + w, 100], [x + w, 100 + h], [x, 100 + h]])
        if askew and k in askew:
            quad = turned(quad, askew[k], quad.mean(axis=0))
        quads.append(quad)
        x += w + (gaps[k] * w if k < len(gaps) else 0)
    quads = turned(np.array(quads), degrees, np.array([300.0, 300.0]))
    det = TileDetections(quads, [t.index for t in tiles], np.full(len(tiles), 0.99))
    reader = TableReader(StandIn(det), ReaderOptions(rules=SABRA))
    reading = reader.read_detections(det, image)
    return [(" ".join(reading.detections.codes[i] for i in s.indices), s.status) for s in reading.sets]


def turned(points: np.ndarray, degrees: float, centre: np.ndarray) -> np.ndarray:
    a = np.deg2rad(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return (points - centre) @ rot.T + centre


@pytest.mark.parametrize("degrees", [0, 90, 200])
@pytest.mark.parametrize("askew", [-40, 35, 45])
def test_a_tile_set_down_askew_at_the_end_of_its_set_stays_in_it(degrees, askew):
    # the K9 lies where the run's next tile would, a little apart, turned by hand or outlined off
    assert read_line("K6 K7 K8 K9", [0.05, 0.05, 0.3], askew={3: askew}, degrees=degrees) == [
        ("K6 K7 K8 K9", "valid")]
    assert read_line("R2 K2 O2 B2", [0.3, 0.05, 0.05], askew={0: askew}, degrees=degrees) == [
        ("R2 K2 O2 B2", "valid")]
    # a tile askew that does not fit the set is a loose tile beside it
    assert sorted(read_line("K6 K7 K8 R2", [0.05, 0.05, 0.3], askew={3: askew}, degrees=degrees)) == [
        ("K6 K7 K8", "valid"), ("R2", "invalid")]


@pytest.mark.parametrize("degrees", [0, 90, 200])
@pytest.mark.parametrize("askew", [-40, 35, 45])
def test_a_tile_set_down_askew_inside_a_run_does_not_cut_it_in_two(degrees, askew):
    # the R10 turned by hand parts R7 R8 R9 from R11 R12 R13 as lines; each piece is valid on its
    # own, but they lie no farther apart than tiles of one set: one run
    for gap in (0.05, 0.3):
        assert read_line("R7 R8 R9 R10 R11 R12 R13", [0.05, 0.05, gap, gap, 0.05, 0.05], askew={3: askew},
                         degrees=degrees) == [("R7 R8 R9 R10 R11 R12 R13", "valid")]
    # with table showing on both sides of the R10, two runs laid apart stay two sets
    assert sorted(read_line("R7 R8 R9 R10 R11 R12 R13", [0.05, 0.05, 0.9, 0.9, 0.05, 0.05], askew={3: askew},
                            degrees=degrees)) == [("R11 R12 R13", "valid"), ("R7 R8 R9 R10", "valid")]


def test_a_tile_askew_beside_a_set_but_off_its_line_is_not_joined_to_it():
    # the K9 is most of a tile height below the run's line and turned: not where the next tile would lie
    tiles = parse_tiles("K6 K7 K8 K9")
    quads = [np.array([[40 + k * 48, 100], [85 + k * 48, 100], [85 + k * 48, 160], [40 + k * 48, 160]], float)
             for k in range(3)]
    x, y = 40 + 3 * 48 + 14, 150
    k9 = np.array([[x, y], [x + 45, y], [x + 45, y + 60], [x, y + 60]], float)
    quads.append(turned(k9, 40, k9.mean(axis=0)))
    det = TileDetections(np.array(quads), [t.index for t in tiles], np.full(4, 0.99))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read_detections(det)
    assert sorted(" ".join(reading.detections.codes[i] for i in s.indices) for s in reading.sets) == ["K6 K7 K8", "K9"]


def test_two_valid_sets_pushed_together_are_told_apart_by_the_rules():
    assert read_line("K1 K2 K3 R7 B7 O7", [0.05] * 5) == [("K1 K2 K3", "valid"), ("R7 B7 O7", "valid")]


def test_a_loose_tile_a_little_apart_from_a_set_is_not_part_of_it():
    # gaps inside the set 0.1, then 0.5 before the loose tile: close enough to link, far enough to part
    assert read_line("R4 R5 R6 K9", [0.1, 0.1, 0.5]) == [("R4 R5 R6", "valid"), ("K9", "invalid")]


def test_an_invalid_line_is_not_cut_into_valid_looking_pieces_where_nothing_parts_them():
    # R4 R5 R6 R8: the R8 does not belong, but it touches the set: the line is shown invalid as laid
    assert read_line("R4 R5 R6 R8 K2", [0.05] * 4) == [("R4 R5 R6", "valid"), ("R8 K2", "invalid")]


def test_a_set_laid_with_one_wide_gap_is_joined_when_only_together_it_is_valid():
    assert read_line("R4 R5 R6 R7", [0.05, 0.9, 0.05]) == [("R4 R5 R6 R7", "valid")]
    # each half valid on its own: two sets
    assert read_line("R4 R5 R6 K9 B9 O9", [0.05, 0.05, 0.9, 0.05, 0.05]) == [
        ("R4 R5 R6", "valid"), ("K9 B9 O9", "valid")]


def test_a_tile_pushed_away_from_a_set_that_has_a_stray_tile_against_its_other_end_is_joined():
    # R10 pushed against K6 K7 K8, and the K9 of that run laid most of a tile apart
    assert read_line("R10 K6 K7 K8 K9", [0.05, 0.05, 0.05, 0.9]) == [("R10", "invalid"), ("K6 K7 K8 K9", "valid")]


def test_pieces_cut_from_a_line_are_valid_in_the_order_they_lie():
    # K7 pushed against the end of K8 K9 K10 (with R6 B6 after it) is not a fourth tile of that run
    assert read_line("K8 K9 K10 K7 R6 B6", [0.05] * 5) == [("K8 K9 K10", "valid"), ("K7 R6 B6", "invalid")]
    # ... nor is a K7 dropped a little past the K10 joined to it
    assert read_line("K8 K9 K10 K7", [0.05, 0.05, 0.9]) == [("K8 K9 K10", "valid"), ("K7", "invalid")]
    # in order it is one set, laid with a wide gap
    assert read_line("K7 K8 K9 K10", [0.9, 0.05, 0.05]) == [("K7 K8 K9 K10", "valid")]


@pytest.mark.parametrize("gaps, expected", [
    ([0.05, 0.05, 0.3, 0.05, 0.05, 0.05], [("R5 B5 O5", "valid"), ("K5 K6 K7 K8", "valid")]),
    ([0.05, 0.05, 0.05, 0.3, 0.05, 0.05], [("R5 B5 O5 K5", "valid"), ("K6 K7 K8", "valid")]),
])
def test_a_tile_where_two_sets_meet_goes_with_the_set_across_the_narrower_gap(gaps, expected):
    # K5 completes the group and starts the run: either cut makes two valid sets; the gap decides
    assert read_line("R5 B5 O5 K5 K6 K7 K8", gaps) == expected


def test_a_doubtful_tile_makes_an_invalid_set_unsure_not_invalid():
    tiles = parse_tiles("R4 R5 K9 R7 O1")
    quads = [[[40 + 48 * k, 100], [85 + 48 * k, 100], [85 + 48 * k, 160], [40 + 48 * k, 160]] for k in range(4)]
    quads.append([[400, 400], [445, 400], [445, 460], [400, 460]])
    # K9 doubtful (0.45: above the inference threshold, below the unsure one); O1 alone
    det = TileDetections(np.array(quads), [t.index for t in tiles], [0.99, 0.99, 0.45, 0.99, 0.99])
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read_detections(det)
    run = next(s for s in reading.sets if len(s.indices) == 4)
    assert run.status == "unsure" and not run.valid
    assert [reading.detections.codes[i] for i in run.doubtful] == ["K9"]
    assert run.to_json()["status"] == "unsure" and run.to_json()["doubtful"] == list(run.doubtful)
    lone = next(s for s in reading.sets if len(s.indices) == 1)
    assert lone.status == "invalid"  # a lone tile is not unsure: no reading of it makes a set


@pytest.mark.parametrize("score, shown", [(0.3, ("valid", "R8 R9 R10 R11 R12")), (0.45, ("unsure", "R6 R9 R10 R11 R12"))])
def test_a_doubtful_tile_at_the_end_of_a_run_is_judged_with_the_run_not_cut_off(score, shown):
    """An R8 read as R6, doubtfully, before R9 R10 R11 R12: cut off, it would be a loose R6 flagged
    beside a valid run; judged with the run it is inferred (below the inference threshold) or the
    run is shown unsure."""
    tiles = parse_tiles("R6 R9 R10 R11 R12")
    quads = [[[40 + 48 * k, 100], [85 + 48 * k, 100], [85 + 48 * k, 160], [40 + 48 * k, 160]] for k in range(5)]
    det = TileDetections(np.array(quads), [t.index for t in tiles], [score, 0.99, 0.99, 0.99, 0.99])
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read_detections(det)
    codes = reading.detections.codes
    assert [(s.status, " ".join(codes[i] for i in s.indices)) for s in reading.sets] == [shown]
    # read surely, the R6 is a stray tile beside the run, as laid
    det = TileDetections(np.array(quads), [t.index for t in tiles], np.full(5, 0.99))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read_detections(det)
    codes = reading.detections.codes
    assert [(s.status, " ".join(codes[i] for i in s.indices)) for s in reading.sets] == [
        ("invalid", "R6"), ("valid", "R9 R10 R11 R12")]


@pytest.mark.parametrize("degrees", [0, 30, 60, 90, 135])
@pytest.mark.parametrize("seen", [0.6, 0.45])
def test_careless_sets_photographed_from_a_seat_come_back_whole(degrees, seen):
    """The table foreshortened to ``seen`` of its depth (faces as wide as tall or wider): the sets
    are sought on the table as seen from above."""
    for seed in range(3):
        quads, _, truth = careless_table(degrees, seed)
        seen_quads = quads * np.array([1.0, seen])
        assert partition(group_lines(from_above(seen_quads))) == partition(truth), seed


def test_a_photo_from_above_is_left_as_it_is():
    quads, _, _ = careless_table(20, 3)
    assert np.allclose(from_above(quads), quads)


def rack_and_table(seed: int):
    """A dark two-row rack seen from the front and sets on the table below it, rendered."""
    rng = np.random.default_rng(seed)
    style = EDITIONS["classic"]
    size, height = (1000, 750), 48.0
    rows = [[t.index for t in parse_tiles(r)] for r in ("R1 K5 B9 J O13 O2", "K10 K11 B3 R7")]
    layout = rack_layout(rng, size, height, style.aspect, center=(500, 220), rows=rows, angle=0.0)
    layout.racks[0].color = (25, 25, 25)
    table = Layout()
    for k, codes in enumerate(("R4 R5 R6", "K9 B9 O9 R9")):
        start = np.array([250.0 + 330 * k, 560.0])
        table.spots += careless_line([t.index for t in parse_tiles(codes)], start, float(rng.normal(0, 8)),
                                     height, style.aspect, rng, 0.5)
        table.sets.append(list(range(len(table.spots) - len(codes.split()), len(table.spots))))
    layout.add(table)
    canvas = background(rng, *size, "wood")
    drawn = compose(rng, canvas, layout, style, tile_height=height, homography=np.eye(3), effects=0.2,
                    lift=(0.0, -0.08 * height), extras=False)
    return drawn, layout


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rack_rows_are_read_in_order_never_judged_and_totalled_apart_from_table_sets(seed):
    drawn, layout = rack_and_table(seed)
    det = TileDetections(drawn.quads, drawn.indices, np.full(len(drawn.indices), 0.99))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(drawn.image)
    codes = reading.detections.codes
    shown = [(s.group, " ".join(codes[i] for i in s.indices)) for s in reading.sets]
    assert ("rack", "R1 K5 B9 J O13 O2") in shown and ("rack", "K10 K11 B3 R7") in shown
    assert ("table", "R4 R5 R6") in shown and ("table", "K9 B9 O9 R9") in shown
    racks = [s for s in reading.sets if s.group == "rack"]
    assert all(s.verdict is None and s.status == "rack" and s.problem is None for s in racks)
    assert reading.rack_total == (1 + 5 + 9 + 30 + 13 + 2) + (10 + 11 + 3 + 7)
    assert {s.to_json()["group"] for s in reading.sets} == {"rack", "table"}


@pytest.mark.parametrize("degrees", [-30.0, 25.0])
def test_a_rack_photographed_with_the_phone_held_at_a_slant_is_still_a_rack(degrees):
    import cv2

    drawn, _ = rack_and_table(2)
    h, w = drawn.image.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    image = cv2.warpAffine(drawn.image, turn, (w, h), borderMode=cv2.BORDER_REPLICATE)
    quads = cv2.transform(drawn.quads.reshape(-1, 1, 2).astype(np.float64), turn).reshape(-1, 4, 2)
    det = TileDetections(quads.astype(np.float32), drawn.indices, np.full(len(drawn.indices), 0.99))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
    codes = reading.detections.codes
    shown = [(s.group, " ".join(codes[i] for i in s.indices)) for s in reading.sets]
    assert ("rack", "R1 K5 B9 J O13 O2") in shown and ("rack", "K10 K11 B3 R7") in shown
    assert ("table", "R4 R5 R6") in shown and ("table", "K9 B9 O9 R9") in shown


@pytest.mark.parametrize("turn", ["ROTATE_90_CLOCKWISE", "ROTATE_180", "ROTATE_90_COUNTERCLOCKWISE"])
def test_a_rack_in_a_photo_left_on_its_side_or_upside_down_is_still_a_rack_read_top_row_first(turn):
    """A photo whose orientation was lost (no EXIF, a phone held sideways) shows every tile turned
    alike: the rack is still told by its board, and its rows come top row first as its owner sees them."""
    import cv2

    drawn, _ = rack_and_table(2)
    h, w = drawn.image.shape[:2]
    image = cv2.rotate(drawn.image, getattr(cv2, turn))
    x, y = drawn.quads[..., 0], drawn.quads[..., 1]
    quads = {"ROTATE_90_CLOCKWISE": (h - 1 - y, x), "ROTATE_180": (w - 1 - x, h - 1 - y),
             "ROTATE_90_COUNTERCLOCKWISE": (y, w - 1 - x)}[turn]
    det = TileDetections(np.stack(quads, axis=-1).astype(np.float32), drawn.indices, np.full(len(drawn.indices), 0.99))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
    codes = reading.detections.codes
    racks = [" ".join(codes[i] for i in s.indices) for s in reading.sets if s.group == "rack"]
    assert racks == ["R1 K5 B9 J O13 O2", "K10 K11 B3 R7"]
    tables = {" ".join(codes[i] for i in s.indices) for s in reading.sets if s.group == "table"}
    assert tables == {"R4 R5 R6", "K9 B9 O9 R9"}


def test_sets_on_a_table_are_not_racks_without_a_board():
    drawn, layout = rack_and_table(4)
    keep = [k for k, (kind, members) in enumerate(layout.groups()) if kind == "set"]
    spots = [m for k in keep for m in layout.groups()[k][1]]
    det = TileDetections(drawn.quads[spots], [drawn.indices[m] for m in spots], np.full(len(spots), 0.99))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(drawn.image)
    assert {s.group for s in reading.sets} == {"table"}


def test_rendered_scenes_carry_the_sets_they_were_laid_in(tmp_path):
    from models.render.__main__ import main as render
    from vision.datasets import load_folder

    assert render(["--out", str(tmp_path / "messy"), "--count", "2", "--seed", "3", "--kind", "messy"]) == 0
    assert render(["--out", str(tmp_path / "rack"), "--count", "2", "--seed", "3", "--kind", "rack"]) == 0
    messy = load_folder(tmp_path / "messy")
    racks = load_folder(tmp_path / "rack")
    assert all(item.groups is not None for item in messy + racks)
    sets = [g for item in messy for g in item.groups]
    assert len(sets) >= 8 and all(g.kind == "set" and len(g.tiles) >= 2 for g in sets)  # dozens of sets
    assert any(g.kind == "rack" for item in racks for g in item.groups)
    for item in messy + racks:
        used = [t for g in item.groups for t in g.tiles]
        assert len(used) == len(set(used)) and all(0 <= t < len(item.quads) for t in used)


def test_the_drawing_frames_rack_rows_and_unsure_sets_in_their_own_colours():
    from vision.annotate import RACK, UNSURE, annotate

    drawn, _ = rack_and_table(1)
    det = TileDetections(drawn.quads, drawn.indices, np.full(len(drawn.indices), 0.99))
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(drawn.image)
    out = annotate(drawn.image, reading)
    assert np.all(out == np.array(RACK, np.uint8), axis=2).sum() > 200

    tiles = parse_tiles("R4 R5 K9 R7")
    quads = [[[40 + 48 * k, 100], [85 + 48 * k, 100], [85 + 48 * k, 160], [40 + 48 * k, 160]] for k in range(4)]
    det = TileDetections(np.array(quads), [t.index for t in tiles], [0.99, 0.99, 0.45, 0.99])
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read_detections(det)
    out = annotate(np.full((300, 300, 3), 90, np.uint8), reading)
    assert np.all(out == np.array(UNSURE, np.uint8), axis=2).sum() > 100


GREY = np.full((750, 1000, 3), 90, np.uint8)  # a photo of one even grey: no board to tell from the table
GREY.setflags(write=False)  # shared by the tests below


def found(quads, codes: list[str]) -> TileDetections:
    """Tiles found sure at these outlines, read as ``codes``."""
    return TileDetections(np.array(quads), [t.index for t in parse_tiles(" ".join(codes))], np.full(len(codes), 0.99))


def groups_shown(det: TileDetections, image: np.ndarray = GREY) -> set[tuple[str, str]]:
    """(group, its tiles in order) of every group the reader shows for these finds on ``image``."""
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
    return {(s.group, " ".join(reading.detections.codes[i] for i in s.indices)) for s in reading.sets}


def stacked_rows(rows: list[str], degrees: float = 0.0):
    """Rows of tiles edge to edge, stacked a rack's pitch apart (1.3 tile heights), turned by ``degrees``
    about the photo's centre, on a photo of one even grey: no board to tell from the table."""
    h, w = 48.0, 36.0
    quads, codes = [], []
    for r, row in enumerate(rows):
        for k, code in enumerate(row.split()):
            x, y = 300 + k * w * 1.03, 250 + r * 1.3 * h
            quads.append([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
            codes.append(code)
    return found(turned(np.array(quads), degrees, np.array([500.0, 375.0])), codes), GREY


@pytest.mark.parametrize("degrees", [0.0, 90.0])
def test_rows_of_tiles_in_no_set_stacked_as_a_rack_are_a_rack_without_a_board_to_see(degrees):
    det, image = stacked_rows(["R1 K5 B9 J O13 O2", "K10 K11 B3 R7 B7 O5"], degrees)
    assert groups_shown(det, image) == {("rack", "R1 K5 B9 J O13 O2"), ("rack", "K10 K11 B3 R7 B7 O5")}


def test_stacked_sets_and_a_lone_shuffled_row_stay_on_the_table():
    for rows in (["R1 R2 R3 R4 R5 R6", "K7 K8 K9 B9 O9 R9"],  # valid sets laid one above the other
                 ["R1 K5 B9 J O13 O2", "K7 K8 K9 B9 O9 R9"],  # one row in no set is not a rack alone
                 ["R1 K5 B9 J", "K10 K11 B3 R7"]):  # short rows: an invalid set, not a rack
        det, image = stacked_rows(rows)
        reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
        assert {s.group for s in reading.sets} == {"table"}, rows


def test_a_rack_tile_showing_only_the_top_of_its_face_stays_in_its_row():
    """Above a rack's ledge a face may show wider than tall; standing on the rack it is still upright."""
    det, image = stacked_rows(["R1 K5 B9 J O13 O2", "K10 K11 B3 R7 B7 O5"])
    k11 = det.codes.index("K11")
    (x0, y0), (x1, _) = det.quads[k11, :2]
    det.quads[k11] = [[x0 - 4.5, y0], [x1 + 4.5, y0], [x1 + 4.5, y0 + 36], [x0 - 4.5, y0 + 36]]  # 45 wide, 36 tall
    assert groups_shown(det, image) == {("rack", "R1 K5 B9 J O13 O2"), ("rack", "K10 K11 B3 R7 B7 O5")}


@pytest.mark.parametrize("askew", [25.0, 90.0])
def test_a_tile_set_down_askew_at_the_end_of_a_rack_row_stays_in_it(askew):
    det, image = stacked_rows(["R1 K5 B9 J O13 O2", "K10 K11 B3 R7 B7 O5"])
    o5 = det.codes.index("O5")
    det.quads[o5] = turned(det.quads[o5], askew, det.quads[o5].mean(axis=0))
    assert groups_shown(det, image) == {("rack", "R1 K5 B9 J O13 O2"), ("rack", "K10 K11 B3 R7 B7 O5")}


def test_the_last_two_tiles_of_a_rack_row_askew_and_a_little_off_its_line_stay_in_it():
    """Tiles pushed onto a rack in a hurry: each turned, raised a little, the last one more than STRAY
    widths past the row's end until the one before it is taken into the row."""
    det, image = stacked_rows(["R1 K5 B9 J O13 O2 K3 B12", "K10 K11 B3 R7 B7 O5 R13 O8"])
    h = 48.0
    for code, angle, shift in (("R13", 30.0, (8.0, -0.45 * h)), ("O8", -35.0, (15.0, -0.4 * h))):
        k = det.codes.index(code)
        det.quads[k] = turned(det.quads[k], angle, det.quads[k].mean(axis=0)) + np.array(shift)
    assert groups_shown(det, image) == {("rack", "R1 K5 B9 J O13 O2 K3 B12"), ("rack", "K10 K11 B3 R7 B7 O5 R13 O8")}


@pytest.mark.parametrize("where", ["O2", "O5", "R7"])
def test_a_rack_tile_outlined_as_a_small_diamond_inside_its_face_stays_in_its_row(where):
    """Where the model outlines a face turned 45 degrees, the square fits inside the upright face: it
    is smaller than its row's tiles, and reaches farther along the row than an upright one would."""
    det, image = stacked_rows(["R1 K5 B9 J O13 O2", "K10 K11 B3 R7 B7 O5"])
    k = det.codes.index(where)
    centre, side = det.quads[k].mean(axis=0), 28.0
    r = side / np.sqrt(2)
    det.quads[k] = centre + np.array([[0, -r], [r, 0], [0, r], [-r, 0]])
    assert groups_shown(det, image) == {("rack", "R1 K5 B9 J O13 O2"), ("rack", "K10 K11 B3 R7 B7 O5")}


def test_a_rack_row_cut_short_by_two_tiles_outlined_as_diamonds_is_still_a_rack_without_a_board():
    """With no board to see, a rack is told by its rows' length; a row's tiles outlined as diamonds
    lie askew to it, yet they count towards that length (a rendered three-row rack on a light table
    lost a row of six this way)."""
    det, image = stacked_rows(["R1 K5 B9 J O13 O2", "K10 K11 B3 R7 B7 O5"])
    for code in ("K10", "B3"):
        k = det.codes.index(code)
        centre, r = det.quads[k].mean(axis=0), 28.0 / np.sqrt(2)
        det.quads[k] = centre + np.array([[0, -r], [r, 0], [0, r], [-r, 0]])
    assert groups_shown(det, image) == {("rack", "R1 K5 B9 J O13 O2"), ("rack", "K10 K11 B3 R7 B7 O5")}


def test_a_set_in_line_beyond_a_rack_row_facing_the_other_player_is_not_on_the_rack():
    """The tiles of a rack all face its owner; a set on the table past the rack's end, laid for the
    player opposite, lines up with a row but is not in it."""
    det, image = stacked_rows(["R1 K5 B9 J O13 O2", "K10 K11 B3 R7 B7 O5"])
    w = 36.0
    last = det.quads[det.codes.index("O5")]
    quads = [last + (w * 1.03 * (4 + k), 0) for k in range(3)]
    quads = [q[[2, 3, 0, 1]] for q in quads]  # upside down: its top edge is the bottom one on the photo
    codes = ["R11", "R10", "R9"]  # read by the player opposite: R9 R10 R11 from their left
    det = found(np.concatenate([det.quads, np.array(quads)]), det.codes + codes)
    assert groups_shown(det, image) == {("rack", "R1 K5 B9 J O13 O2"), ("rack", "K10 K11 B3 R7 B7 O5"), ("table", "R9 R10 R11")}


def test_two_rack_rows_are_one_rack_either_way_round_when_a_ledge_hides_part_of_one():
    """The lower row's faces show 46 px of their 60 above the ledge: each row is the other's partner."""
    rows = ["R1 R7 O13 B11 R2 R12 K4 O5", "K8 O4 O12 R13 B2 R7 O12 B4"]
    quads, codes = [], []
    for r, (row, h, top) in enumerate(zip(rows, (60.0, 46.0), (300.0, 378.0))):
        for k, code in enumerate(row.split()):
            x = 200 + k * 45 * 1.03
            quads.append([[x, top], [x + 45, top], [x + 45, top + h], [x, top + h]])
            codes.append(code)
    assert groups_shown(found(quads, codes)) == {("rack", rows[0]), ("rack", rows[1])}


def test_the_rows_of_a_rack_seen_slanted_with_level_tiles_are_not_run_together():
    """A rack photographed a little from the side: each face level, each row rising 10 degrees, so the
    end of the lower row lies level with the start of the upper one."""
    rows = ["R1 K5 B9 J O13 O2 K3 B12", "K10 K11 B3 R7 B7 O5 R13 O8"]
    h, w = 48.0, 36.0
    quads, codes = [], []
    for r, row in enumerate(rows):
        for k, code in enumerate(row.split()):
            x = 200 + k * w * 1.03
            y = 300 + r * 1.3 * h - k * w * 1.03 * np.tan(np.radians(10))
            quads.append([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
            codes.append(code)
    assert groups_shown(found(quads, codes)) == {("rack", rows[0]), ("rack", rows[1])}


def test_a_short_row_under_the_far_end_of_a_slanted_rack_is_the_same_rack():
    """A rack photographed from its side: each face level, each row rising 15 degrees; the lower row
    holds fewer tiles, pushed to the far end, so the rows' middles lie at different heights."""
    rows = [("R1 K5 B9 J O13 O2 K3 B12", 0), ("K10 K11 B3 R7 B7 O5", 7)]
    h, w = 48.0, 36.0
    quads, codes = [], []
    for r, (row, start) in enumerate(rows):
        for k, code in enumerate(row.split(), start):
            x = 150 + k * w * 1.03
            y = 400 + r * 1.3 * h / np.cos(np.radians(15)) - k * w * 1.03 * np.tan(np.radians(15))
            quads.append([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
            codes.append(code)
    assert groups_shown(found(quads, codes)) == {("rack", rows[0][0]), ("rack", rows[1][0])}


def board_photo(rows: list[str]):
    """Rows of white faces on a dark band across a light table: what a rack's board looks like."""
    import cv2

    det, _ = stacked_rows(rows)
    image = np.full((750, 1000, 3), 200, np.uint8)
    top, bottom = det.quads[:, :, 1].min() - 15, det.quads[:, :, 1].max() + 15
    image[int(top):int(bottom), 250:850] = 40
    for quad in det.quads:
        cv2.fillPoly(image, [np.round(quad).astype(np.int32)], (235, 240, 240))
    return det, image


def test_a_lone_row_that_is_a_valid_set_is_a_set_whatever_lies_round_it():
    det, image = board_photo(["R5 R6 R7"])
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
    assert [(s.group, s.status) for s in reading.sets] == [("table", "valid")]
    det, image = board_photo(["R5 R6 R7", "K1 B9 O3 J K12"])  # beside another row: a rack's rows
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
    assert {s.group for s in reading.sets} == {"rack"}


@pytest.mark.parametrize("where", ["R6", "R7"])
def test_a_valid_set_with_a_tile_outlined_as_a_diamond_on_a_dark_band_is_a_set(where):
    """The diamond lies askew to the row, so the row seen on the band lacks it (R5 R7 R8 is in no
    set); with it, the row is a valid set laid on a dark patch of cloth, not a rack."""
    det, image = board_photo(["R5 R6 R7 R8"])
    k = det.codes.index(where)
    centre, r = det.quads[k].mean(axis=0), 28.0 / np.sqrt(2)
    det.quads[k] = centre + np.array([[0, -r], [r, 0], [0, r], [-r, 0]])
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
    codes = reading.detections.codes
    assert [(s.group, s.status, " ".join(codes[i] for i in s.indices)) for s in reading.sets] == [
        ("table", "valid", "R5 R6 R7 R8")]


def test_a_valid_set_on_a_dark_band_with_a_loose_tile_askew_past_its_end_stays_a_set():
    det, image = board_photo(["R5 R6 R7 K2"])
    k = det.codes.index("K2")
    det.quads[k] = turned(det.quads[k], 30.0, det.quads[k].mean(axis=0)) + np.array([8.0, 0.0])
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
    codes = reading.detections.codes
    assert sorted((s.group, s.status, " ".join(codes[i] for i in s.indices)) for s in reading.sets) == [
        ("table", "invalid", "K2"), ("table", "valid", "R5 R6 R7")]


def test_stacked_rows_that_are_all_valid_sets_are_sets_whatever_lies_round_them():
    """A rack whose every row could be laid down as it stands would be a winning hand; sets laid one
    above the other on a dark patch of cloth are far likelier."""
    det, image = board_photo(["B12 K12 R12 O12", "R9 R10 R11 R12"])
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(image)
    codes = reading.detections.codes
    shown = {(s.group, s.status, " ".join(codes[i] for i in s.indices)) for s in reading.sets}
    assert shown == {("table", "valid", "B12 K12 R12 O12"), ("table", "valid", "R9 R10 R11 R12")}
