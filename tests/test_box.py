"""Printed numbers beside the table (a score sheet, a number chart) read as tiles are left out, with a warning."""

import numpy as np

from rules.options import find_variant
from rules.tiles import parse_tiles
from vision.box import printed_matter
from vision.reader import ReaderOptions, TableReader
from vision.types import TileDetections

SABRA = find_variant("sabra")


class StandIn:
    def __init__(self, detections):
        self.detections = detections

    def detect(self, image):
        return self.detections


def laid(rows: list[str], at=(100.0, 100.0), size=(36.0, 48.0), pitch=1.05) -> tuple[list, list[str]]:
    """Quads of finds in rows (``size`` w x h), cells edge to edge; each row one below the other."""
    w, h = size
    quads, codes = [], []
    for r, row in enumerate(rows):
        for k, code in enumerate(row.split()):
            x, y = at[0] + k * w * pitch, at[1] + r * h * pitch
            quads.append([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
            codes.append(code)
    return quads, codes


def detections(*parts) -> TileDetections:
    quads = [q for p in parts for q in p[0]]
    codes = [c for p in parts for c in p[1]]
    return TileDetections(np.array(quads), [t.index for t in parse_tiles(" ".join(codes))], np.full(len(codes), 0.9))


CHART = ["K7 K2 K3 K4 K5 K6 K7", "K6 K5 K8 K9 K8 K1 K2", "K8 K6 K2 K9 K1 K2 K7"]  # a printed chart, read in black


def test_a_printed_chart_of_numbers_beside_the_sets_is_left_out_with_a_warning():
    sets = laid(["R5 R6 R7", "K9 B9 O9"], at=(600.0, 400.0))
    det = detections(laid(CHART), sets)
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read_detections(det)
    codes = reading.detections.codes
    assert sorted(" ".join(codes[i] for i in s.indices) for s in reading.sets) == ["K9 B9 O9", "R5 R6 R7"]
    assert all(s.valid for s in reading.sets)
    [warning] = [w for w in reading.warnings if "printed" in w]
    assert "21 finds" in warning and "4 x K2" in warning and "holds 2 of each" in warning


def test_tiles_the_box_holds_are_kept_however_they_touch():
    # two black runs laid against each other: each tile at most twice
    runs = laid(["K1 K2 K3 K4 K5", "K1 K2 K3 K4 K5 K6"])
    keep, warnings = printed_matter(detections(runs), SABRA.box)
    assert keep.all() and warnings == []
    # one copy too many (a misread) is not enough to call a patch printed matter
    keep, _ = printed_matter(detections(laid(["K1 K2 K3 K4 K5", "K1 K2 K3 K4 K5", "K3"])), SABRA.box)
    assert keep.all()


def test_a_patch_of_many_colours_or_apart_tiles_is_not_printed_matter():
    mixed = laid(["K8 B8 O8 R8", "K8 B8 O8 R8", "K8 B8 O8 R8"])  # three groups of 8s: many colours
    assert printed_matter(detections(mixed), SABRA.box)[0].all()
    # the same codes as the chart, lying apart (loose tiles strewn over a table)
    apart = laid(CHART, pitch=3.0)
    assert printed_matter(detections(apart), SABRA.box)[0].all()


def test_the_xp_box_holds_three_of_each():
    chart = laid(["K1 K1 K1 K2 K2 K2"])
    xp = SABRA.replace(tile_set="xp")
    assert printed_matter(detections(chart), xp.box)[0].all()
    assert not printed_matter(detections(chart), SABRA.box)[0].any()


def test_a_grey_scale_photo_keeps_every_tile_though_all_read_black():
    """Without colours three runs laid against each other read K1-K6 three times: the colour warning
    says so, and not one of them is taken for printed matter."""
    runs = laid(["K1 K2 K3 K4 K5 K6"] * 3)
    det = detections(runs)
    grey = np.full((750, 1000, 3), 90, np.uint8)
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(grey)
    assert len(reading.detections) == 18
    assert [w for w in reading.warnings if "colour" in w] and not [w for w in reading.warnings if "printed" in w]
    # the same finds with no photo to check colours by: printed matter
    assert len(TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read_detections(det).detections) == 0


def test_a_group_of_four_read_in_one_colour_is_too_small_to_be_a_chart():
    keep, _ = printed_matter(detections(laid(["K7 K7 K7 K7"])), SABRA.box)
    assert keep.all()


def test_in_a_grey_scale_photo_a_set_invalid_only_by_its_colours_is_unsure_not_invalid():
    """K9 R9 B9 reads K9 K9 K9 without colours: flagged invalid, it would be a false alarm with full
    confidence; it is unsure, its tiles named.  A set its numbers rule out stays invalid."""
    det = detections(laid(["K9 K9 K9"]), laid(["K7 K7 K7 K7"], at=(100.0, 300.0)),
                     laid(["K3 K4 K9 K6"], at=(100.0, 500.0)))
    grey = np.full((750, 1000, 3), 90, np.uint8)
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(grey)
    codes = reading.detections.codes
    status = {" ".join(codes[i] for i in s.indices): s for s in reading.sets}
    assert {k: s.status for k, s in status.items()} == {"K9 K9 K9": "unsure", "K7 K7 K7 K7": "unsure",
                                                         "K3 K4 K9 K6": "invalid"}
    assert status["K9 K9 K9"].colours_doubted and len(status["K9 K9 K9"].doubtful) == 3
    assert status["K9 K9 K9"].to_json()["colours_doubted"] is True
    # the same finds in a photo whose colours are trusted (no photo to doubt): invalid
    plain = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read_detections(det)
    assert sorted(s.status for s in plain.sets) == ["invalid"] * 3
