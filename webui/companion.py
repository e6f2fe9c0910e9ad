"""Glue between the live table (camera -> vision) and the game session.

The :class:`Companion` is the one object the blueprints talk to: it reads the
newest stable table from the live pipeline, hands it to the session's
actions, runs the turn clock's ticker and builds the JSON the page and
``GET /api/state`` show.
"""

from __future__ import annotations

import threading
import time
import uuid
from types import SimpleNamespace

from rules.sets import analyse_set
from rules.tiles import Tile, format_table

from webui.session import GameSession


class UnavailableLive:
    """Stands in for the live table when the camera pipeline cannot start (reported on the page)."""

    def __init__(self, error: str) -> None:
        self.error = error
        self._state = SimpleNamespace(
            version=0, reading=None, tables=[], uncertain=[], stable=True, camera_ok=False,
            camera_error=error, annotated_jpeg=None, frame_jpeg=None, changed_at=0.0, fps=0.0,
        )

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def state(self):
        return self._state

    def wait_for_change(self, version: int, timeout: float):
        if version == self._state.version:
            time.sleep(min(timeout, 1.0))
        return self._state


def make_live(source: str | None, rules):
    """The real live table on ``source`` (None: sample_images/) read under ``rules``, or an UnavailableLive saying why not."""
    try:
        from vision.live import LiveTable
    except ImportError as exc:  # the vision extras are not installed in this build
        return UnavailableLive(f"camera pipeline not available: {exc}")
    try:
        # the tile model loads in the live table's own thread; a failure shows as camera_error
        return LiveTable(source, rules=rules)
    except Exception as exc:  # a camera or folder that cannot be opened is shown on the page
        return UnavailableLive(f"cannot open source {source!r}: {exc}")


def sets_json(table_state, options) -> list[dict]:
    """Each stable set: tile codes, verdict under the chosen rules, uncertain/inferred marks."""
    out = []
    reading = getattr(table_state, "reading", None)
    uncertain = set(int(i) for i in (getattr(table_state, "uncertain", None) or []))
    if reading is not None and getattr(reading, "sets", None) is not None:
        det = reading.detections
        codes = det.codes
        inferred = [bool(x) for x in det.inferred]
        scores = [float(x) for x in det.scores]
        for s in reading.sets:
            idx = [int(i) for i in s.indices]
            tiles = [Tile.parse(codes[i]) for i in idx]
            out.append(_set_entry(tiles, options, idx, [i in uncertain for i in idx],
                                  [inferred[i] for i in idx], [round(scores[i], 3) for i in idx]))
    else:
        for tiles in getattr(table_state, "tables", None) or []:
            out.append(_set_entry(list(tiles), options, None, [False] * len(tiles), [False] * len(tiles), None))
    return out


def _set_entry(tiles, options, indices, uncertain, inferred, scores) -> dict:
    verdict = analyse_set(tiles, options)
    return {
        "tiles": [t.code for t in tiles],
        "indices": indices,
        "valid": bool(verdict.valid),
        "kind": verdict.kind,
        "value": verdict.value,
        "problem": verdict.problem,
        "uncertain": uncertain,
        "inferred": inferred,
        "scores": scores,
    }


class Companion:
    """The live table and the game session, as the web app uses them."""

    def __init__(self, live, session: GameSession) -> None:
        self.live = live
        self.session = session
        # versions count from zero again after a restart: the page compares them only within one server run
        self.server_id = uuid.uuid4().hex[:12]
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()

    # the table now ------------------------------------------------------------
    def table_state(self):
        return self.live.state()

    def table_now(self, ts=None) -> list[list[Tile]]:
        """The latest stable table (the live pipeline never reports a half-moved one)."""
        ts = ts if ts is not None else self.table_state()
        return [list(s) for s in (ts.tables or [])]

    def settled_table(self, timeout: float = 1.5) -> list[list[Tile]]:
        """The table once hands are off it: waits up to ``timeout`` s while the camera sees movement."""
        deadline = time.monotonic() + timeout
        ts = self.table_state()
        while not getattr(ts, "stable", True) and time.monotonic() < deadline:
            time.sleep(0.1)  # "stable" flips without a version bump, so look again shortly
            ts = self.table_state()
        return [list(s) for s in (ts.tables or [])]

    def picture(self, ts=None) -> bytes | None:
        ts = ts if ts is not None else self.table_state()
        return getattr(ts, "annotated_jpeg", None) or getattr(ts, "frame_jpeg", None)

    # ticker -------------------------------------------------------------------
    def tick(self) -> None:
        """One step of the background clock: time-outs and the restore banner."""
        ts = self.table_state()
        if getattr(ts, "stable", True):
            self.session.check_restored(self.table_now(ts))
        self.session.tick(self.table_now(ts), self.picture(ts))

    def start(self, interval: float = 0.25) -> None:
        self.live.start()
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._run_ticker, args=(interval,),
                                            name="turn-clock", daemon=True)
            self._ticker.start()

    def stop(self) -> None:
        self._stop.set()
        self.live.stop()

    def _run_ticker(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.tick()
            except Exception:  # a bad frame must not stop the clock; the next tick retries
                pass

    # output -------------------------------------------------------------------
    def _preview(self, table) -> dict | None:
        """The verdict the turn would get now, so a player fixing an illegal table sees his progress."""
        if not self.session.has_game or self.session.state["status"] != "playing":
            return None
        try:
            return self.session.judge(table)
        except ValueError as exc:  # e.g. more copies of a tile than the box holds: say so
            return {"legal": False, "changed": True, "placed": [], "problems": [str(exc)],
                    "summary": f"not legal: {exc}"}

    def version(self, ts=None) -> str:
        ts = ts if ts is not None else self.table_state()
        return f"{getattr(ts, 'version', 0)}.{self.session.version}"

    def state_json(self) -> dict:
        ts = self.table_state()
        options = self.session.options
        table = self.table_now(ts)
        sets = sets_json(ts, options)
        return {
            "version": self.version(ts),
            "server": self.server_id,
            "camera": {
                "ok": bool(getattr(ts, "camera_ok", False)),
                "error": getattr(ts, "camera_error", None),
                "stable": bool(getattr(ts, "stable", True)),
                "fps": round(float(getattr(ts, "fps", 0.0) or 0.0), 1),
                "version": getattr(ts, "version", 0),
                "changed_at": getattr(ts, "changed_at", None),
                "has_picture": self.picture(ts) is not None,
            },
            "table": format_table(table),
            "sets": sets,
            "all_valid": all(s["valid"] for s in sets),
            "game": self.session.to_json(),
            "clock": self.session.clock(),
            "scores": self.session.sheet_json(),
            "options": options.to_dict(),
            "preview": self._preview(table),
            "hint": self.session.hint(table),
            "suggestion": self.session.suggestion(table),
        }
