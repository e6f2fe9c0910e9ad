"""The state of a game at the table, as immutable values.

A :class:`Game` is everything the companion knows about one game: the seats
(names, rack sizes, who has melded), the pool, the turn in progress and its
clock, the table the turn started from, the tally of a finished hand and the
hands scored so far.  It is never changed in place: the transitions in
:mod:`rules.game_turns` and :mod:`rules.game_tally` return a new one, so a
caller can store the new state first and show it only once it is stored.

What a box holds and how a turn runs are the rule options' answers
(``options.box``, ``options.flow``, seed 004): 14 tiles each (the
International starter 15); Sabra turns are "meld or draw", American and
International turns are draw -> meld -> discard around a face-up trump tile.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from rules.game_clock import TurnClock
from rules.options import RuleOptions
from rules.problems import Problem
from rules.tiles import Tile, tile_count

Set_ = tuple[Tile, ...]
Table = tuple[Set_, ...]
RACK_SIZE = 14


class GameError(ValueError):
    """A move that the game does not allow now, in plain words for the players."""


class StillHolds(GameError):
    """"Rummikub!" from a player who, by the companion's count, still holds tiles (the count can be wrong:
    a meld the camera missed, no camera at all; the players may say so and call it anyway)."""

    def __init__(self, player: str, tiles: int) -> None:
        self.player, self.tiles = player, tiles
        super().__init__(f"by the count {player} still holds {tile_count(tiles)}: "
                         "if the count is wrong, call Rummikub! anyway")

    @property
    def details(self) -> dict:
        """What a client needs to ask the players (webui: ``still_holds`` beside the message)."""
        return {"still_holds": {"player": self.player, "tiles": self.tiles}}


class PoolLeft(GameError):
    """"Pool empty" while, by the companion's count, tiles are still in the pool (the count can be wrong:
    draws nobody pressed; the players may say so and call it anyway)."""

    def __init__(self, tiles: int) -> None:
        self.tiles = tiles
        super().__init__(f"by the count {tiles} tile{'s are' if tiles != 1 else ' is'} still in the pool: "
                         "if the count is wrong, call Pool empty anyway")

    @property
    def details(self) -> dict:
        """What a client needs to ask the players (webui: ``pool_left`` beside the message)."""
        return {"pool_left": {"tiles": self.tiles}}


class CountDoubt(GameError):
    """An entry the game's own count says cannot be (more tiles on a rack than the player holds, a first
    meld too small), where the count itself may be wrong (no camera, a meld it missed): refused with a
    question, and accepted when the players say the count is wrong (``count_checked``)."""

    def __init__(self, message: str, question: str) -> None:
        self.question = question
        super().__init__(message)

    @property
    def details(self) -> dict:
        """What a client needs to ask the players: the question, and what to send again with."""
        return {"ask": {"question": self.question, "send": {"count_checked": True}}}


class Status(str, enum.Enum):
    PLAYING = "playing"
    TALLY = "tally"  # a hand ended: the racks are being counted
    DEALING = "dealing"  # the next hand is dealt: its clock waits until the hand is started
    FINISHED = "finished"  # the players closed the game


class Step(str, enum.Enum):
    PLAY = "play"  # Sabra: meld or draw
    DRAW = "draw"  # American/International: the draw that opens a turn
    MELD = "meld"  # ... then meld, then discard


class Action(str, enum.Enum):
    DONE = "done"
    PASS = "pass"
    DRAW = "draw"
    DISCARD = "discard"
    TIMEOUT = "timeout"
    RUMMIKUB = "rummikub"  # the winner's last turn, ended by calling "Rummikub!"
    UNCHECKED = "unchecked"  # no camera saw the table: the players said what the turn placed
    # not a turn: the camera came back after turns it did not see, and the table it found became the
    # start of the turn on (rules.game_found.table_found); logged so the log says where the table came from
    TABLE_FOUND = "table_found"


# turn-log actions whose table no rule judged: their records are neither legal nor illegal
NOT_JUDGED = frozenset({Action.UNCHECKED, Action.TABLE_FOUND})


class DrawSource(str, enum.Enum):
    POOL = "pool"
    DISCARD = "discard"
    TRUMP = "trump"


def table_of(sets: Iterable[Iterable[Tile]]) -> Table:
    return tuple(tuple(s) for s in sets if len(tuple(s)))


def table_tiles(table: Table) -> list[Tile]:
    return [t for s in table for t in s]


def same_table(a: Table, b: Table) -> bool:
    """Same sets in any order (a set's own tile order does not matter)."""
    return Counter(tuple(sorted(s)) for s in a) == Counter(tuple(sorted(s)) for s in b)


def tiles_added(before: Table, after: Table) -> tuple[Tile, ...]:
    """Tiles on the table ``after`` that were not there ``before``."""
    added = Counter(table_tiles(after)) - Counter(table_tiles(before))
    return tuple(sorted(added.elements()))


# --- the values ------------------------------------------------------------------

@dataclass(frozen=True)
class Seat:
    """One player: rack size, whether the initial meld is done, penalties drawn this hand."""

    name: str
    rack_count: int = RACK_SIZE
    has_melded: bool = False
    penalties: int = 0
    discard: Tile | None = None  # American/International: the tile this player discarded last
    rack: tuple[Tile, ...] | None = None  # typed in by the player (for hints); None: unknown


@dataclass(frozen=True)
class Verdict:
    """The judgement of a turn's table: legal or not, the rack tiles placed, and why not."""

    legal: bool
    changed: bool
    placed: tuple[Tile, ...] = ()
    problems: tuple[Problem, ...] = ()  # one per kind and place, with a stable code and its tiles


@dataclass(frozen=True)
class Drawn:
    source: DrawSource
    tile: Tile | None  # None: a tile from the pool (face down)


@dataclass(frozen=True)
class TimeUp:
    """The clock ran out on a turn it cannot end by itself, so the players finish it.

    With no camera nobody knows what the turn did: End turn's question says it.
    In the American and International games every turn ends with a discard,
    which only the player can make.  The clock stays stopped meanwhile.
    """

    table: Table | None  # the table as the clock found it (no tile may be placed after); None: no camera saw it
    note: str = ""  # what the clock's expiry did to the turn's draw ("a tile was drawn from the pool")


@dataclass(frozen=True)
class Turn:
    """The turn in progress: whose, which step, the table it started from, its clock."""

    number: int  # 1-based within the hand
    seat: int
    step: Step
    table_before: Table
    clock: TurnClock
    drew: Drawn | None = None
    attempt: Verdict | None = None  # the verdict of an "end turn" that was refused
    # the table the turn started from is not the real one: tiles may have been placed since in turns no
    # camera saw, so nothing on the table can be judged until a camera finds it (game_found.table_found)
    unseen: bool = False
    # the camera came back during this turn and its table was taken as the turn's start: the tiles it
    # found beyond the table the game knew (None: the turn started from a table the game knew)
    found: tuple[Tile, ...] | None = None
    time_up: TimeUp | None = None  # the clock ran out and the turn waits for the players to finish it
    # while ``unseen``: how many tiles the players said were placed since a camera last saw the table (None:
    # not known, a game saved before they were counted) and those they named, so the table a camera finds
    # on its return is checked against them (game_found.check_found)
    said: int | None = 0
    said_tiles: tuple[Tile, ...] = ()


@dataclass(frozen=True)
class TurnRecord:
    """One finished turn, for the turn log."""

    hand: int
    number: int
    player: str
    started_at: float
    ended_at: float
    action: Action
    verdict: Verdict
    penalty: int
    table_before: Table
    table_after: Table
    unchecked: int = 0  # Action.UNCHECKED: how many tiles the players said the turn placed
    discard: Tile | None = None  # the tile the turn ended with (the winner's final discard included)
    drew: Drawn | None = None  # American/International: where the turn's draw came from (a dispute settled later)


@dataclass(frozen=True)
class Restore:
    """After a time-out on an illegal table: the table goes back to how the turn found it."""

    player: str
    table: Table
    problems: tuple[Problem, ...]
    penalty: int


@dataclass(frozen=True)
class Tally:
    """A hand is over: the final table and the racks as the players agree them."""

    winner: str | None  # None when the pool ran out
    pool_empty: bool
    table: Table
    racks: tuple[tuple[Tile, ...] | None, ...]  # per seat; None: not given yet
    read: tuple[bool, ...]  # per seat: the rack was read by the camera
    discard: Tile | None = None  # American/International: the winner's final discard
    trump_drawn: bool = False  # the winner's last draw was the trump (not for an International Open win)
    # per seat: has the player made the first meld, as the players corrected it (the camera may have missed
    # a meld); None: as the game knows it.  Kept with the racks so every phone at the table sees it
    melded: tuple[bool | None, ...] = ()
    # International, the win as the players entered it, kept here for the same reason: any phone confirms
    win: str | None = None  # "open", "foot" or "closed"; None: not said (an Open win)
    hand: tuple[Tile, ...] | None = None  # a Closed win's 14 tiles
    joker_discard: bool | None = None  # the final discard was a joker (doubles); None: as ``discard`` says
    # the 14 tiles melded were the hand dealt (Grand Blitz), as the players say where the game cannot know
    # (the tile drawn on the winner's first turn came face down from the pool); None: not said
    original_hand: bool | None = None


@dataclass(frozen=True)
class ScoredHand:
    """One scored hand: the racks, each player's score, who won, and how (so the sheet can say it)."""

    number: int
    winner: str | None
    pool_empty: bool
    racks: tuple[tuple[Tile, ...], ...]  # per seat
    scores: tuple[int, ...]  # per seat
    method: str
    discard: Tile | None = None  # American/International: the winner's final discard
    win: str | None = None  # International: "open", "foot" or "closed"
    hand: tuple[Tile, ...] | None = None  # a Closed win's 14 tiles, when given
    closed_type: int | None = None  # a Closed win's hand type (rules.international.HAND_TYPES, 1-40)
    closed_jokers: int = 0  # ... and the jokers in it (its points depend on them)
    joker_discard: bool = False  # the final discard was a joker: the hand counted double
    trump_holders: tuple[str, ...] = ()  # players paid the trump's twin bonus
    trump_bonus: int = 0  # ... that much each


@dataclass(frozen=True)
class LastTurn:
    """What the previous turn came to, shown small until the next turn changes the table."""

    player: str | None
    action: str
    verdict: Verdict
    penalty: int = 0
    note: str = ""
    discard: Tile | None = None  # American/International: the tile the turn ended with, for "discarded R7"
    unchecked: int = 0  # Action.UNCHECKED: how many tiles the players said the turn placed


@dataclass(frozen=True)
class Game:
    """One game, hand after hand.  ``undo`` is the tally the last scored hand came from, ``turn_back``
    the game before the last turn recorded on the players' word."""

    options: RuleOptions
    seats: tuple[Seat, ...]
    status: Status
    hand: int
    starter: int
    trump: Tile | None  # the face-up trump tile, when the players said which it is
    pool: int
    turn: Turn
    last: LastTurn | None = None
    restore: Restore | None = None
    tally: Tally | None = None
    hands: tuple[ScoredHand, ...] = ()
    trump_up: bool = False  # American/International: the trump still lies face up
    dead: int = 0  # discards nobody took, in the discard pile
    # every tile lying in the discard piles this hand (each player's last discard and those under it), in
    # sorted order, so a discard the box cannot hold is refused; a game saved before they were kept has none
    discards: tuple[Tile, ...] = ()
    pending: RuleOptions | None = None  # rules chosen mid-hand: they apply from the next hand
    undo: "Game | None" = field(default=None, repr=False)
    # the game as it was before the last turn ended on the players' word (no camera saw it), kept so that a
    # wrong answer can be taken back (rules.game_undo); None after a turn the camera judged
    turn_back: "Game | None" = field(default=None, repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats)

    @property
    def current(self) -> Seat:
        return self.seats[self.turn.seat]

    def seat_of(self, name: str) -> int:
        for i, s in enumerate(self.seats):
            if s.name == name:
                return i
        raise GameError(f"{name!r} is not playing")

    def step_from(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` turns after ``seat`` in the direction of play."""
        sign = 1 if self.options.direction == "clockwise" else -1
        return (seat + sign * steps) % len(self.seats)

    def tiles_out(self, table: Table) -> int:
        """Tiles accounted for: racks, pool, table, the face-up trump and the discards."""
        return (sum(s.rack_count for s in self.seats) + self.pool + len(table_tiles(table))
                + self.trump_up + sum(s.discard is not None for s in self.seats) + self.dead)


def replace_seat(seats: Sequence[Seat], index: int, seat: Seat) -> tuple[Seat, ...]:
    return tuple(seat if i == index else s for i, s in enumerate(seats))
