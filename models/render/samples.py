"""The demo scenes in sample_images/: fixed layouts of the classic edition with their expected readings.

``python -m models.render.samples [OUT]`` rewrites the JPEGs and expected.json
(default OUT: sample_images/).  Every tile in these scenes is fully visible.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

from models.render import camera
from models.render.backgrounds import background
from models.render.layout import Layout, line_of_tiles, rack_layout
from models.render.scene import compose
from models.render.styles import EDITIONS
from rules.tiles import Tile, parse_tiles

SIZE = (1000, 750)
OUT = Path(__file__).resolve().parents[2] / "sample_images"

# name: (seed, background, tile height, [(codes, (x, y) of the line's centre, angle)], rack rows)
SCENES = {
    "valid_table.jpg": (101, "wood", 84, [
        ("R3 R4 R5 R6", (270, 150), 0),
        ("K9 B9 O9", (730, 150), 0),
        ("B10 B11 J B13", (270, 370), 0),
        ("O1 O2 O3", (730, 370), 0),
        ("K7 R7 B7 O7", (270, 590), 0),
        ("K11 K12 K13", (730, 590), 0),
    ], None),
    "invalid_table.jpg": (202, "white", 88, [
        ("R5 R6 R8", (270, 150), 0),
        ("K7 B7 K7", (730, 150), 0),
        ("O3 O4", (270, 370), 0),
        ("B12 B13 O1", (730, 370), 0),
        ("K2 K3 K4", (270, 590), 0),
        ("R10 B10 O9 K10", (730, 590), 0),
    ], None),
    "rack.jpg": (303, "felt", 80, [], [
        "K1 K2 K3 B8 O8 R8 J B4 B5 B6 O12 O13",
        "R1 R2 R3 R4 K10 B10 O10 O5 O6 O7 K12",
    ]),
    "joker.jpg": (404, "cloth", 120, [
        ("R5 J R7", (500, 250), 0),
        ("K4 B4 J", (500, 520), 0),
    ], None),
    "turned_table.jpg": (505, "wood", 80, [
        ("O4 O5 O6 O7", (190, 380), 90),
        ("B8 K8 R8", (560, 580), 180),
        ("R11 R12 R13", (840, 360), 270),
        ("K1 K2 K3 K4", (520, 180), 0),
    ], None),
}


def render_sample(name: str) -> tuple[np.ndarray, dict]:
    """(image, expected entry) of one demo scene."""
    seed, bg, height, sets, rack_rows = SCENES[name]
    rng = np.random.default_rng(seed)
    style = EDITIONS["classic"]
    canvas = background(rng, *SIZE, bg)
    layout = Layout()
    for codes, centre, angle in sets:
        indices = [t.index for t in parse_tiles(codes)]
        step = height * (style.aspect + 0.02)
        a = np.radians(angle)
        start = np.asarray(centre) - (len(indices) - 1) / 2 * step * np.array([np.cos(a), np.sin(a)])
        first = len(layout.spots)
        layout.spots += line_of_tiles(indices, start, angle, height, style.aspect, rng, gap=0.02 * height,
                                      jitter=0.5)
        layout.sets.append(list(range(first, len(layout.spots))))
    if rack_rows:
        rows = [[t.index for t in parse_tiles(r)] for r in rack_rows]
        layout = rack_layout(rng, SIZE, height, style.aspect, center=(SIZE[0] / 2, SIZE[1] * 0.55), rows=rows,
                             angle=0.0)
    homography = camera.random_homography(rng, SIZE, 0.3)
    drawn = compose(rng, canvas, layout, style, tile_height=height, homography=homography, effects=0.25,
                    lift=(0.0, 0.1 * height), extras=False)
    missing = [k for k, ok in enumerate(drawn.labelled) if not ok]
    if missing:
        raise RuntimeError(f"{name}: tiles {missing} are not fully visible")
    entry = {
        "tiles": [code(i) for i in drawn.indices],
        "sets": [[code(drawn.indices[k]) for k in members] for members in layout.sets],
        "quads": [[[round(float(v), 1) for v in pt] for pt in q] for q in drawn.quads],
    }
    return drawn.image, entry


def code(index: int) -> str:
    return Tile.from_index(index).code


def main(argv: list[str] | None = None) -> int:
    out = Path((argv or sys.argv[1:] or [str(OUT)])[0])
    out.mkdir(parents=True, exist_ok=True)
    expected = {}
    for name in SCENES:
        image, entry = render_sample(name)
        cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        expected[name] = entry
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(f"wrote {len(SCENES)} scenes and expected.json to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
