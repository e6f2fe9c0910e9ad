"""Test doubles for the web app: a live table set from tile notation, and a clock moved by hand."""

from __future__ import annotations

import threading
import time
import cv2
import numpy as np

from rules.tiles import parse_table
from vision.live import TableState


def jpeg(colour=(40, 110, 60), size=(120, 160)) -> bytes:
    image = np.zeros((*size, 3), np.uint8)
    image[:] = colour
    ok, buf = cv2.imencode(".jpg", image)
    assert ok
    return buf.tobytes()


class FakeLive:
    """Same shape as vision.live.LiveTable: ``state()``, ``wait_for_change()``, ``start()``, ``stop()``."""

    def __init__(self, table: str = "", camera_ok: bool = True, camera_error: str | None = None, **marks) -> None:
        self._cond = threading.Condition()
        self.version = 0
        self.camera_ok = camera_ok
        self.camera_error = camera_error
        self.started = False
        self.rules = None
        self.tables = []
        self.stable = True
        self.read = True  # False: the camera has not given its first steady reading (just started)
        self.fps = 12.5
        self.picture = jpeg()
        self.set_table(table, **marks)

    def set_table(self, notation: str, *, colour=(40, 110, 60), uncertain=(), inferred=(), status=None,
                  doubtful=(), warnings=(), past_edge=()) -> None:
        """Lay a new stable table (bumps the version, like a real change seen by the camera).

        ``uncertain``/``inferred``/``doubtful``: tile positions (in reading order over all groups) to mark;
        ``status``: each group's word (``vision.live.SET_STATUS``: "rack" makes it a rack row);
        ``warnings``: the photo's colour warnings;
        ``past_edge``: groups (by position) that run into the photo's edge.
        """
        with self._cond:
            self.tables = parse_table(notation) if notation.strip() else []
            self.uncertain = list(uncertain)
            self.inferred = set(inferred)
            self.status = status
            self.doubtful = set(doubtful)
            self.warnings = tuple(warnings)
            self.past_edge = set(past_edge)
            self.picture = jpeg(colour)
            self.version += 1
            self.changed_at = self.picture_at = time.time()
            self._cond.notify_all()

    def first_reading(self) -> None:
        """The camera's first steady reading since it started: the table laid is read (a version)."""
        with self._cond:
            self.read = True
            self.version += 1
            self._cond.notify_all()

    def start(self):
        self.started = True
        return self

    def follow_rules(self, rules) -> None:
        self.rules = rules

    def follow_count(self, final) -> None:
        self.counting = final

    def stop(self) -> None:
        self.started = False

    def state(self) -> TableState:
        """As vision.live.LiveTable reports it: no tile before the first reading; read only while the
        camera works (out, the tiles are its last reading)."""
        with self._cond:
            tables = self.tables if self.read else []
            n = sum(len(x) for x in tables)
            return TableState.from_sets(
                tables, scores=[0.4 if j in self.uncertain else 0.97 for j in range(n)],
                inferred=[j in self.inferred for j in range(n)],
                uncertain=[j in self.uncertain or j in self.inferred for j in range(n)],
                doubtful=[j in self.doubtful for j in range(n)], status=self.status if self.read else None,
                warnings=self.warnings,
                past_edge=[k in self.past_edge for k in range(len(tables))],
                version=self.version, stable=self.stable, camera_ok=self.camera_ok, camera_error=self.camera_error,
                annotated_jpeg=self.picture if self.read else None, frame_jpeg=self.picture,
                changed_at=self.changed_at, fps=self.fps, read=self.camera_ok and self.read, picture_at=self.picture_at,
            )

    def wait_for_change(self, version: int, timeout: float | None = None) -> TableState:
        with self._cond:
            self._cond.wait_for(lambda: self.version != version, timeout)
        return self.state()


class FakeClock:
    """``time.time`` stand-in that only moves when a test says so."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
