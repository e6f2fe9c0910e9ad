"""Private keys to a player's hint: the hint shows that player's tiles, so only the tab that typed the rack
may see it, never the shared state every phone gets.

``POST /api/rack`` issues a random key for the rack typed; ``GET /api/hint`` answers the hint to whoever
sends it.  A key is kept in memory only (a restart ends every key: the phones type their racks again) and
stops working once the rack it came with is no longer the player's to use: that player's turn ends, a rack
is typed again (or cleared) for the player, the hand or the game changes.
"""

from __future__ import annotations

import hmac
import secrets
import threading

from rules.game_state import Game, Status

KEY_BYTES = 32  # 256 random bits: a key cannot be guessed in a game's time
MAX_KEY_CHARS = 100  # longer than any key issued: refused without comparing


class HintKeys:
    """The live keys (at most one per player) and when each ends (:meth:`follow`)."""

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}  # key -> player
        self._lock = threading.Lock()

    def issue(self, player: str) -> str:
        """A new key to ``player``'s hint; the key of a rack typed before for that player stops working."""
        key = secrets.token_urlsafe(KEY_BYTES)
        with self._lock:
            self._drop(player)
            self._keys[key] = player
        return key

    def drop(self, player: str) -> None:
        """``player``'s key stops working (the rack was cleared, the turn ended)."""
        with self._lock:
            self._drop(player)

    def _drop(self, player: str) -> None:
        for key in [k for k, p in self._keys.items() if p == player]:
            del self._keys[key]

    def clear(self) -> None:
        """Every key stops working: another game is on the table."""
        with self._lock:
            self._keys.clear()

    def holder(self, key: str) -> str | None:
        """The player whose live key ``key`` is, else None (compared in constant time, as the table PIN is)."""
        if not key or len(key) > MAX_KEY_CHARS:
            return None
        with self._lock:
            found = None
            for live, player in self._keys.items():
                if hmac.compare_digest(live.encode(), key.encode()):
                    found = player
            return found

    def held(self, player: str) -> bool:
        """Whether a tab holds a live key to ``player``'s hint (all the shared state says about it)."""
        with self._lock:
            return player in self._keys.values()

    def follow(self, old: Game | None, new: Game) -> None:
        """The game moved from ``old`` to ``new``: the key of the player whose turn ended stops working, every
        key once the hand changes (scored, taken back) or the game is finished."""
        if old is None:
            return
        if new.hand != old.hand or new.status is Status.FINISHED:
            self.clear()
        elif new.turn.number != old.turn.number:
            self.drop(old.current.name)
