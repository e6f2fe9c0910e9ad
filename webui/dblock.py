"""One server per database file: an OS file lock beside the SQLite file.

Two servers writing one database would split the game silently (each keeps
its own game in memory).  The lock is held by an open file, so the operating
system frees it when the server dies in any way, kill -9 included: no stale
lock to clean up by hand.
"""

from __future__ import annotations

import os
from pathlib import Path


class DatabaseInUse(RuntimeError):
    """Another running server holds the database."""


class DatabaseLock:
    """``acquire()`` or :class:`DatabaseInUse` naming who holds it; ``release()`` on shutdown."""

    def __init__(self, database: str | Path, owner: str = "") -> None:
        self.database = Path(database)
        self.path = self.database.with_name(self.database.name + ".lock")
        self.owner = owner
        self._file = None

    def acquire(self) -> "DatabaseLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = open(self.path, "a+", encoding="utf-8")
        try:
            _lock(f)
        except OSError:
            f.seek(0)
            holder = f.read().strip() or "another process"
            f.close()
            raise DatabaseInUse(
                f"{self.database} is in use by another companion server ({holder}); "
                "stop that one, or give this one its own file with --db"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(f"pid {os.getpid()}{', ' + self.owner if self.owner else ''}\n")
        f.flush()
        self._file = f
        return self

    def release(self) -> None:
        if self._file is not None:
            try:
                self._file.seek(0)
                self._file.truncate()
                _unlock(self._file)
            finally:
                self._file.close()
                self._file = None

    def __enter__(self) -> "DatabaseLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


if os.name == "nt":
    import msvcrt

    def _lock(f) -> None:
        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)

    def _unlock(f) -> None:
        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(f) -> None:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(f) -> None:
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
