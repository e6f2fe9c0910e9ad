"""Racks being typed on a phone and not saved yet, so that Confirm on another phone asks first.

A rack typed on one phone is saved in the count a moment after the typing stops (the page's debounce);
until then it is only on that phone, and a Confirm pressed meanwhile elsewhere would score what the
count holds.  So the typing phone says so at its first key, and the confirm asks while a mark lasts.
Marks are not the game's (the count holds only what is saved): they live in memory, belong to the
count they were typed for, and lapse ``TYPING_S`` after the phone last said so, so that a phone put
away mid-word holds the table up no longer.  No game rule lives here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.game_state import Game, GameError
from rules.tiles import format_tiles

TYPING_S = 20.0  # a mark lasts this long after the phone's last word (the page renews it every few seconds)


class RackTyping(GameError):
    """Confirm while another phone types a rack not saved yet: refused with a question; the players may
    score without waiting (``typing_checked``)."""

    def __init__(self, game: Game, names: list[str]) -> None:
        self.names = names
        saved = {s.name: r for s, r in zip(game.seats, game.tally.racks)}
        so_far = ", ".join(_saved_so_far(n, saved[n]) for n in names)
        who = " and ".join(names)
        racks = f"{who}'s rack is" if len(names) == 1 else f"the racks of {who} are"
        self.question = (f"{racks[0].upper()}{racks[1:]} still being typed on another phone (saved so far: {so_far}). "
                         "Score the hand without waiting?")
        super().__init__(f"{racks} being typed on another phone and not saved yet (saved so far: {so_far}): "
                         "wait a moment for it, then confirm (or confirm without waiting)")

    @property
    def details(self) -> dict:
        # waiting_for: the page takes the refusal back once these racks are saved (their marks end)
        return {"ask": {"question": self.question, "send": {"typing_checked": True}}, "waiting_for": self.names}


def _saved_so_far(name: str, rack) -> str:
    """What the count holds of a rack being typed: never saved (None), saved empty, or its tiles."""
    if rack is None:
        return f"nothing for {name}"
    return f"{name} {format_tiles(rack)}" if rack else f"an empty rack for {name}"


@dataclass(frozen=True)
class _Mark:
    phone: str
    until: float


class TypingMarks:
    """Who is typing which rack, for one count at a time (named by its turn id)."""

    def __init__(self) -> None:
        self._count: str | None = None
        self._marks: dict[str, _Mark] = {}

    def mark(self, count: str, name: str, phone: str, now: float) -> None:
        if count != self._count:  # another count: the last one's marks are over with it
            self._count, self._marks = count, {}
        self._marks[name] = _Mark(phone, now + TYPING_S)

    def clear(self, name: str) -> None:
        """The rack is saved (from whichever phone), or the box is back to what the count holds."""
        self._marks.pop(name, None)

    def reset(self) -> None:
        """The count is over (confirmed, or left): its marks go with it, also for a count opened again."""
        self._count, self._marks = None, {}

    def active(self, count: str | None, now: float, besides: str | None = None) -> dict[str, float]:
        """Racks being typed for ``count``, with the seconds each mark has left; ``besides``: not the marks of
        that phone (a phone's Confirm sends what it typed itself)."""
        if count is None or count != self._count:
            return {}
        return {n: round(m.until - now, 1) for n, m in self._marks.items() if m.until > now and m.phone != besides}
