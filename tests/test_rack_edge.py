"""A rack row running past the photo's edge: its total may leave out tiles there, and the reader says so."""

from __future__ import annotations

import numpy as np
import pytest

from rules.options import find_variant
from vision.frame_edge import row_past_edge
from vision.reader import RACK_PAST_EDGE, ReaderOptions, TableReader
from vision.types import TileDetections

from test_reader import StandIn
from test_sets_on_tables import rack_and_table

W, H = 45, 60  # a tile's face, px
TABLE, BOARD, FACE = 200, 30, 235  # grey levels of the table, the rack's board and the tile faces


def rack_photo(first_x: float, board_from: float, n: int = 5, size=(300, 600)) -> tuple[np.ndarray, np.ndarray]:
    """A light table, a dark board from x = ``board_from`` rightwards, ``n`` light tiles on it from
    ``first_x``: (photo, quads in the order they lie)."""
    image = np.full((*size, 3), TABLE, np.uint8)
    image[100:200, max(0, int(board_from)):] = BOARD
    quads = np.array([[[x, 120], [x + W, 120], [x + W, 120 + H], [x, 120 + H]]
                      for x in first_x + np.arange(n) * (W + 3)], np.float32)
    for q in quads:
        x0, x1 = int(max(q[0, 0], 0)), int(q[1, 0])
        image[120:120 + H, x0:x1] = FACE
    return image, quads


@pytest.mark.parametrize("first_x, board_from, why", [
    (20, 0, "the board goes on to the photo's edge, 20 px past the first tile"),
    (-15, 0, "the first tile itself lies a third out of the photo"),
    (8, 0, "too near the edge to tell what lies past the tile"),
])
def test_a_rack_row_that_may_go_on_out_of_sight_is_past_the_edge(first_x, board_from, why):
    image, quads = rack_photo(first_x, board_from)
    assert row_past_edge(quads, image), why


@pytest.mark.parametrize("first_x, board_from, why", [
    (30, 10, "the board ends in sight: the table shows at the photo's edge"),
    (200, 150, "far from every edge"),
])
def test_a_rack_row_seen_to_end_is_not_past_the_edge(first_x, board_from, why):
    image, quads = rack_photo(first_x, board_from, n=4)
    assert not row_past_edge(quads, image), why


def test_the_edge_is_found_along_the_row_at_any_turn():
    """The same photos turned a quarter: the row runs down the photo into its top edge."""
    for (first_x, board_from), expected in (((20, 0), True), ((30, 10), False)):
        image, quads = rack_photo(first_x, board_from)
        turned = np.ascontiguousarray(np.transpose(image, (1, 0, 2)))
        assert row_past_edge(quads[:, :, ::-1], turned) is expected


def read_crop(drawn, x0: int, x1: int):
    """The reader on columns x0..x1 of a rendered photo, given the tiles wholly or partly inside."""
    image = np.ascontiguousarray(drawn.image[:, x0:x1])
    quads = drawn.quads - np.array([x0, 0.0])
    keep = [k for k, q in enumerate(quads) if q[:, 0].max() > 0 and q[:, 0].min() < x1 - x0]
    det = TileDetections(quads[keep], [drawn.indices[k] for k in keep], np.full(len(keep), 0.99))
    return TableReader(StandIn(det), ReaderOptions(rules=find_variant("sabra"))).read(image)


def rack_row_ends(drawn, layout) -> tuple[float, float, float]:
    """(left side of the rack rows' first tiles, right side of the top row's last, a tile's width), px."""
    racks = [members for kind, members in layout.groups() if kind == "rack"]
    q = drawn.quads
    left = min(float(q[m[0], :, 0].min()) for m in racks)
    right = float(q[racks[0][-1], :, 0].max())
    return left, right, float(np.median(q[:, 1, 0] - q[:, 0, 0]))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_reader_warns_when_a_photo_cuts_a_rack_short(seed):
    drawn, layout = rack_and_table(seed)
    left, right, width = rack_row_ends(drawn, layout)
    whole = read_crop(drawn, 0, drawn.image.shape[1])
    assert RACK_PAST_EDGE not in whole.warnings
    assert not any(s.past_edge for s in whole.sets if s.group == "rack")

    cut = read_crop(drawn, 0, int(right + 0.5 * width))  # the photo ends on the board, half a tile on
    assert RACK_PAST_EDGE in cut.warnings
    top = [s for s in cut.sets if s.group == "rack" and "R1" in [cut.detections.codes[i] for i in s.indices]]
    assert len(top) == 1 and top[0].past_edge and top[0].to_json()["past_edge"]
    run = [s for s in cut.sets if [cut.detections.codes[i] for i in s.indices] == ["R4", "R5", "R6"]]
    assert len(run) == 1 and run[0].status == "valid" and not run[0].past_edge

    beyond = read_crop(drawn, int(left - 0.9 * width), drawn.image.shape[1])  # the board's end and table in sight
    assert RACK_PAST_EDGE not in beyond.warnings


def test_the_warning_is_in_the_json_and_the_summary():
    drawn, layout = rack_and_table(1)
    _, right, width = rack_row_ends(drawn, layout)
    reading = read_crop(drawn, 0, int(right + 0.5 * width))
    assert RACK_PAST_EDGE in reading.to_json()["warnings"]
    from cli.read import summary
    assert f"WARNING: {RACK_PAST_EDGE}" in summary("x", reading)


def test_the_drawing_marks_a_rack_total_that_may_leave_out_tiles():
    from vision.annotate import _set_label

    drawn, layout = rack_and_table(2)
    _, right, width = rack_row_ends(drawn, layout)
    cut = read_crop(drawn, 0, int(right + 0.5 * width))
    labels = {_set_label(s) for s in cut.sets if s.group == "rack"}
    top = next(s for s in cut.sets if s.group == "rack" and s.past_edge)
    assert f"rack {top.value}+?" in labels
    whole = read_crop(drawn, 0, drawn.image.shape[1])
    assert all("?" not in _set_label(s) for s in whole.sets if s.group == "rack")
