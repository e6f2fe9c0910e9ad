"""The camera's return after turns it did not see: when its table is taken, and when the players are asked.

Kept apart from :mod:`webui.companion` because it has a memory of its own: how long the camera's table
has held still in the turn on.  The camera reports itself back with its first picture, before its table
has been read again from new ones, so a table is taken only once it has held still ``CAMERA_BACK_S``;
one that disagrees with the game's record (:func:`rules.game_found.check_found`) waits for the players.
"""

from __future__ import annotations

from rules.game_found import check_found
from rules.game_state import Status
from vision.live import TableState
from webui.session import Conflict, GameSession, SessionError

# after turns no camera saw, how long the camera's table must hold still once it is back before it is
# taken as the turn's start: the live table re-reads it from new frames (motion gate, votes, an invalid
# set believed after 1.5 s) before it stops showing the table from before it went out
CAMERA_BACK_S = 3.0


def steady(ts: TableState) -> bool:
    """The camera works, has read the table and sees no hand over it."""
    return ts.camera_ok and ts.read and ts.stable


class FoundTable:
    """Follows the camera's table while the turn on waits for it (``Turn.unseen``)."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self._still: tuple | None = None  # ((table version, turn id), since when) while the camera sees it still

    def waiting(self) -> bool:
        """The turn on started after turns no camera saw: the table it started from is not known."""
        g = self.session.game
        return g is not None and g.status is Status.PLAYING and g.turn.unseen

    def watch(self, ts: TableState, picture: bytes | None) -> None:
        """The ticker's step: once the table has held still ``CAMERA_BACK_S`` it becomes the start of the
        turn on (session.take_found_table), unless it disagrees with the game's record."""
        if not steady(ts):
            self._still = None
            return
        key = (ts.version, self.session.turn_id())
        if self._still is None or self._still[0] != key:
            self._still = (key, self.session.now())  # a new table, or a new turn: hold still again from now
        if self._held_still(ts) and self.waiting():
            self.session.take_found_table(ts.tables, picture)

    def _held_still(self, ts: TableState) -> bool:
        still = self._still
        return (still is not None and still[0] == (ts.version, self.session.turn_id())
                and self.session.now() - still[1] >= CAMERA_BACK_S)

    def question(self, ts: TableState) -> dict | None:
        """The table has held still but disagrees with the game's record: what to ask the players, with the
        camera's table version their answer is for; None otherwise."""
        if not (steady(ts) and self.waiting() and self._held_still(ts)):
            return None
        check = check_found(self.session.game, ts.tables)
        if check is None or not check.doubts:
            return None
        return {"player": check.player, "found": [t.code for t in check.found], "said": check.said,
                "doubts": list(check.doubts), "question": check.question, "camera": ts.version}

    def take(self, ts: TableState, picture: bytes | None, *, turn: str | None = None,
             camera: int | None = None) -> None:
        """The players take the table the camera sees as where the turn on started, though it disagrees
        with the game's record (``POST /api/turn/found``); ``camera``: the table version they were asked
        about (a table changed since is refused: they look again)."""
        self.session.check_turn(turn)
        if not self.waiting():
            raise Conflict("the turn's table is known (the camera has found it already, or no turn waits for "
                           "it): nothing to take")
        if not steady(ts):
            raise SessionError("the camera does not see the table steady now: take it once it does")
        if camera is not None and camera != ts.version:
            raise Conflict("the table the camera sees has changed since the question: look at it again")
        self.session.take_found_table(ts.tables, picture, confirmed=True, turn=turn)
