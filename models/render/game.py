"""The recorded demo game: one hand of Sabra between Ann and Ben, rendered frame by frame.

``python -m models.render.game [OUT]`` writes ``recorded_game.mp4`` (a small
video any video source plays, looping) and ``recorded_game.json`` (what the
players do and when: the frame after which each button is pressed, and the
verdict a player should see) into sample_images/.  The camera never moves;
between still tables a hand reaches in and tiles appear, move or go back.

The hand: Ann melds a run; Ben lays two tiles that are no set, is refused,
runs out of time and the table is put back; Ann adds to her run and melds a
group; Ben melds; Ann moves a tile from her run into a new group and calls
"Rummikub!"; Ben shows his rack to the camera for the tally.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

from models.render import camera
from models.render.backgrounds import background
from models.render.layout import Layout, line_of_tiles
from models.render.scene import compose
from models.render.styles import EDITIONS
from rules.tiles import parse_tiles

SIZE = (960, 720)
FPS = 5
TILE_HEIGHT = 82
OUT = Path(__file__).resolve().parents[2] / "sample_images"
NAME = "recorded_game"

# where each line of tiles starts (centre of its first tile), so a line keeps its place as it grows
# the turn clock the recording is paced for: Ben's refused turn (8 s) and 8 s of waiting run it out,
# while every other turn fits in it (Ann's longest: about 13 s from when the table is seen put back)
TURN_TIME_LIMIT = 16
# whose rack is laid out for the camera in the read_rack step
RACK_SHOWN_BY = "Ben"

SLOTS = {"a": (120, 130), "b": (560, 130), "c": (120, 330), "d": (560, 330), "rack": (200, 560)}

# (seconds of hands over the table, seconds still, the table as slot -> tiles, where the hand reaches,
#  the action pressed after the still part, the verdict or result expected)
STEPS = [
    (0.0, 4.0, {}, None, "start", None),
    (2.0, 6.0, {"a": "R10 R11 R12"}, "a", "end_turn", "LEGAL"),
    (2.0, 6.0, {"a": "R10 R11 R12", "c": "B4 B5"}, "c", "end_turn", "NOT LEGAL"),
    (0.0, 8.0, {"a": "R10 R11 R12", "c": "B4 B5"}, None, "time_out", "put the table back"),
    (3.0, 3.0, {"a": "R10 R11 R12"}, "c", "restored", None),
    (2.4, 6.0, {"a": "R10 R11 R12 R13", "b": "K9 B9 O9"}, "b", "end_turn", "LEGAL"),
    (2.0, 6.0, {"a": "R10 R11 R12 R13", "b": "K9 B9 O9", "d": "O11 O12 O13"}, "d", "end_turn", "LEGAL"),
    (2.4, 6.0, {"a": "R10 R11 R12", "b": "K9 B9 O9", "d": "O11 O12 O13", "c": "R13 K13 B13"}, "c",
     "rummikub", "LEGAL"),
    (2.0, 8.0, {"a": "R10 R11 R12", "b": "K9 B9 O9", "d": "O11 O12 O13", "c": "R13 K13 B13",
                "rack": "K2 K5 O8 J"}, "rack", "read_rack", "K2 K5 O8 J"),
    (2.0, 4.0, {}, "c", "confirm", {"Ann": 45, "Ben": -45}),
]


def _layout(table: dict[str, str], style) -> Layout:
    layout = Layout()
    for slot, codes in table.items():
        # one generator per slot: a line of tiles looks the same in every frame it is in
        rng = np.random.default_rng(sum(map(ord, slot)))
        first = len(layout.spots)
        tiles = [t.index for t in parse_tiles(codes)]
        layout.spots += line_of_tiles(tiles, SLOTS[slot], 0.0, TILE_HEIGHT, style.aspect, rng,
                                      gap=0.02 * TILE_HEIGHT, jitter=0.5)
        layout.sets.append(list(range(first, len(layout.spots))))
    return layout


def render_table(table: dict[str, str]) -> np.ndarray:
    """The still table: same background, light and camera in every frame."""
    rng = np.random.default_rng(7)
    style = EDITIONS["classic"]
    canvas = background(rng, *SIZE, "wood")
    homography = camera.random_homography(np.random.default_rng(11), SIZE, 0.25)
    drawn = compose(np.random.default_rng(13), canvas, _layout(table, style), style, tile_height=TILE_HEIGHT,
                    homography=homography, effects=0.2, lift=(0.0, 0.1 * TILE_HEIGHT), extras=False)
    return drawn.image


def draw_hand(image: np.ndarray, target: tuple[float, float], reach: float) -> np.ndarray:
    """A hand and arm from the near edge of the table towards ``target`` (reach 0..1 of the way)."""
    out = image.copy()
    W, H = SIZE
    base = np.array([target[0] * 0.6 + W * 0.2, H + 40.0])
    tip = base + (np.asarray(target, float) + (40, 40) - base) * reach
    skin = (120, 160, 215)
    d = (tip - base) / max(1.0, float(np.linalg.norm(tip - base)))
    cv2.line(out, tuple(int(v) for v in base), tuple(int(v) for v in tip), (90, 120, 170), 95, cv2.LINE_AA)
    cv2.ellipse(out, tuple(int(v) for v in tip), (62, 52), float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360,
                skin, -1, cv2.LINE_AA)
    for k in range(4):
        a = np.arctan2(d[1], d[0]) + (k - 1.5) * 0.28
        f = np.array([np.cos(a), np.sin(a)])
        cv2.line(out, tuple(int(v) for v in tip + f * 35), tuple(int(v) for v in tip + f * 95), skin, 20,
                 cv2.LINE_AA)
    return out


def frames_and_script() -> tuple[list[np.ndarray], dict]:
    """Every frame of the game and the script of what happens after which frame."""
    frames: list[np.ndarray] = []
    events = []
    previous = render_table({})
    cache: dict[str, np.ndarray] = {}
    for moving, still, table, slot, action, expect in STEPS:
        key = json.dumps(table, sort_keys=True)
        if key not in cache:
            cache[key] = render_table(table)
        now = cache[key]
        n_move = int(round(moving * FPS))
        for i in range(n_move):
            # the hand comes in over the old table, the tiles change under it, and it leaves
            t = (i + 0.5) / n_move
            reach = 0.2 + 0.8 * np.sin(np.pi * t)  # never the same twice: a hand does not hold still
            under = previous if t < 0.5 else now
            frames.append(draw_hand(under, SLOTS[slot], reach))
        frames += [now] * int(round(still * FPS))
        previous = now
        events.append({"after_frame": len(frames) - 1, "action": action, "expect": expect,
                       "table": " | ".join(table[s] for s in table)})
        if action == "read_rack":
            events[-1]["player"] = RACK_SHOWN_BY
    script = {"fps": FPS, "frames": len(frames), "players": ["Ann", "Ben"], "rules": "sabra",
              "turn_time_limit": TURN_TIME_LIMIT, "events": events}
    return frames, script


def write(out: Path) -> tuple[Path, Path]:
    frames, script = frames_and_script()
    out.mkdir(parents=True, exist_ok=True)
    video, timing = out / f"{NAME}.mp4", out / f"{NAME}.json"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), FPS, SIZE)
    if not writer.isOpened():
        raise RuntimeError("OpenCV cannot write MPEG-4 video here")
    for f in frames:
        writer.write(f)
    writer.release()
    timing.write_text(json.dumps(script, indent=1) + "\n")
    return video, timing


def main(argv: list[str] | None = None) -> int:
    out = Path((argv or sys.argv[1:] or [str(OUT)])[0])
    video, timing = write(out)
    print(f"wrote {video} ({video.stat().st_size // 1024} KiB) and {timing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
