"""The shipped recorded game, fed frame by frame through the real live table and tile model."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from rules.options import find_variant
from vision.capture import FolderSource
from vision.live import LiveTable, live_reader

ROOT = Path(__file__).resolve().parents[1]
SABRA = find_variant("sabra")


class RecordedGame:
    """``play_to(frame)`` processes the video up to that frame, timed as the video plays it.

    Past the last frame the video starts again, as the looping source plays it; frames keep counting.
    """

    def __init__(self) -> None:
        self.script = json.loads((ROOT / "sample_images" / "recorded_game.json").read_text())
        self.cap = cv2.VideoCapture(str(ROOT / "sample_images" / "recorded_game.mp4"))
        self.live = LiveTable(FolderSource(ROOT / "sample_images"), live_reader(SABRA), rules=SABRA)
        self.frame = -1

    def play_to(self, frame: int) -> None:
        while self.frame < frame:
            ok, image = self.cap.read()
            if not ok and (self.frame + 1) % self.script["frames"] == 0:
                self.cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self.cap.read()
            assert ok, f"the recording ends before frame {frame}"
            self.frame += 1  # numbered as a camera numbers them: 1 is the video's first frame
            self.live.process(image, index=self.frame + 1, now=self.frame / self.script["fps"])
