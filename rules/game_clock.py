"""The turn clock: a limit, the time spent, and whether it runs.

A value, not a timer: every question takes ``now``, so the game model stays
pure and tests move time by hand.  Pausing keeps the time already spent, so a
turn resumed after the table was put back (or after a mistaken "Rummikub!")
goes on with the time it had left.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class TurnClock:
    """Seconds allowed (None: no limit), seconds spent before ``since``, and running or not."""

    limit: int | None
    since: float  # when it last started running (or was paused)
    spent: float = 0.0  # seconds used before ``since``
    paused: bool = False
    # when the turn's clock was started: the turn log's start, which a pause (time up, the table put back)
    # must not move; None: a clock saved before it was kept (``since`` stands in)
    started: float | None = None

    @classmethod
    def start(cls, limit: int | None, now: float, *, paused: bool = False) -> "TurnClock":
        return cls(limit=limit, since=now, spent=0.0, paused=paused, started=now)

    @property
    def began(self) -> float:
        """When the turn began, for its log."""
        return self.since if self.started is None else self.started

    def elapsed(self, now: float) -> float:
        return self.spent if self.paused else self.spent + max(0.0, now - self.since)

    def remaining(self, now: float) -> float | None:
        return None if self.limit is None else max(0.0, self.limit - self.elapsed(now))

    def expired(self, now: float) -> bool:
        """Time is up (a paused clock never runs out)."""
        left = self.remaining(now)
        return left is not None and left <= 0 and not self.paused

    def pause(self, now: float) -> "TurnClock":
        if self.paused:
            return self
        return replace(self, spent=self.elapsed(now), since=now, paused=True)

    def resume(self, now: float) -> "TurnClock":
        if not self.paused:
            return self
        return replace(self, since=now, paused=False)
