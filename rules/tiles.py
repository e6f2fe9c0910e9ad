"""Tiles and their notation: the vocabulary every other part of the product speaks.

A tile is written as a colour letter and a number (``R5``, ``K13``) or ``J``
for a joker.  Letters: K black, B blue, O orange (Y accepted), R red; parsing
is case-insensitive and ``str(tile)`` always gives the canonical code.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator


class NotationError(ValueError):
    """Text that is not tile notation, e.g. ``"R14" is not a tile``."""


class RuleError(ValueError):
    """Tiles that are well written but break a rule (too many copies, ...)."""


class Color(enum.IntEnum):
    """The four tile colours, in the order of the 53-class index."""

    BLACK = 0
    BLUE = 1
    ORANGE = 2
    RED = 3

    @property
    def letter(self) -> str:
        return "KBOR"[self.value]

    @classmethod
    def from_letter(cls, letter: str) -> "Color":
        letter = letter.upper()
        if letter == "Y":  # yellow is how some editions name orange
            letter = "O"
        try:
            return cls("KBOR".index(letter))
        except ValueError:
            raise NotationError(f"{letter!r} is not a colour (use K, B, O/Y or R)") from None


NUMBERS = range(1, 14)
_CODE = re.compile(r"^\s*(?:(?P<j>[Jj])|(?P<c>[KkBbOoRrYy])(?P<n>\d{1,2}))\s*$")


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile face: a colour and number, or a joker (colour and number None)."""

    color: Color | None
    number: int | None
    # a dense integer 0-52, handy for arrays and model classes (K1..K13, B1.., O1.., R1..; 52 the joker),
    # worked out once: the solver and the judge read it for every tile they count
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self.color is None) != (self.number is None):
            raise NotationError("a tile has both a colour and a number, or neither (joker)")
        if self.number is not None and self.number not in NUMBERS:
            raise NotationError(f"{self.number} is not a tile number (1-13)")
        object.__setattr__(self, "index", JOKER_INDEX if self.color is None else int(self.color) * 13 + self.number - 1)

    @classmethod
    def parse(cls, code: str) -> "Tile":
        """``Tile.parse("r5") == Tile(Color.RED, 5)``; raises NotationError naming the code."""
        m = _CODE.match(code) if isinstance(code, str) else None
        if not m:
            raise NotationError(f"{code!r} is not a tile")
        if m["j"]:
            return JOKER
        n = int(m["n"])
        if n not in NUMBERS:
            raise NotationError(f"{code!r} is not a tile")
        return cls(Color.from_letter(m["c"]), n)

    @classmethod
    def from_index(cls, index: int) -> "Tile":
        """Inverse of :attr:`index`: 0-51 are K1..K13, B1.., O1.., R1..; 52 is the joker."""
        if index == JOKER_INDEX:
            return JOKER
        if not 0 <= index < JOKER_INDEX:
            raise NotationError(f"{index} is not a tile index (0-52)")
        return cls(Color(index // 13), index % 13 + 1)

    def __lt__(self, other: "Tile") -> bool:
        return self.index < other.index

    # equal faces have equal indices: compared and hashed by it (sets of tiles are cached and counted
    # everywhere, so this is on every hot path)
    def __eq__(self, other: object) -> bool:
        return self.index == other.index if isinstance(other, Tile) else NotImplemented

    def __hash__(self) -> int:
        return self.index

    @property
    def is_joker(self) -> bool:
        return self.color is None

    @property
    def code(self) -> str:
        return "J" if self.color is None else f"{self.color.letter}{self.number}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Tile.parse({self.code!r})"


JOKER_INDEX = 52
JOKER = Tile(None, None)
ALL_FACES: tuple[Tile, ...] = tuple(Tile.from_index(i) for i in range(53))


def parse_tiles(text: str | Iterable[str]) -> list[Tile]:
    """Tiles from ``"R5 R6 J"``, ``"R5,R6,J"``, ``"R5 R6 | J"`` (a rack typed as it stands) or a list of
    codes.  Every code that is no tile is named at once, so a long rack is mended in one go."""
    if isinstance(text, str):
        tokens = [t for t in re.split(r"[\s,|]+", text) if t]
    else:
        tokens = list(text)
    tiles, bad = [], []
    for token in tokens:
        try:
            tiles.append(Tile.parse(token))
        except NotationError:
            bad.append(repr(token))
    if len(bad) == 1:
        raise NotationError(f"{bad[0]} is not a tile")
    if bad:
        raise NotationError(f"{', '.join(bad[:-1])} and {bad[-1]} are not tiles")
    return tiles


def parse_table(text: str) -> list[list[Tile]]:
    """Sets from ``"R1 R2 R3 | K7 B7 O7 J"`` (``|`` or ``,`` between sets).

    With ``|`` present, commas inside a set separate tiles; otherwise commas
    separate sets, as in ``"R1 R2 R3, K5 B5 O5"``.
    """
    sep = "|" if "|" in text else ","
    parts = [p for p in (s.strip() for s in text.split(sep)) if p]
    return [parse_tiles(p) for p in parts]


def format_tiles(tiles: Iterable[Tile]) -> str:
    return " ".join(t.code for t in tiles)


def tile_count(n: int) -> str:
    """"1 tile", "3 tiles": a number of tiles in the players' words."""
    return f"{n} tile{'s' if n != 1 else ''}"


def format_table(sets: Iterable[Iterable[Tile]]) -> str:
    return " | ".join(format_tiles(s) for s in sets)


@dataclass(frozen=True)
class TileSet:
    """A box of tiles: how many copies of each face exist (106 or the 160 XP edition)."""

    name: str
    copies: int
    jokers: int
    players: tuple[int, int]  # fewest and most players the box is made for

    @property
    def size(self) -> int:
        return 52 * self.copies + self.jokers

    def count(self, tile: Tile) -> int:
        return self.jokers if tile.is_joker else self.copies

    def all_tiles(self) -> list[Tile]:
        tiles = [t for t in ALL_FACES[:JOKER_INDEX] for _ in range(self.copies)]
        return tiles + [JOKER] * self.jokers

    def excess(self, tiles: Iterable[Tile]) -> dict[Tile, int]:
        """Each face seen more often than the box holds, with how often it was seen."""
        return dict(sorted((t, n) for t, n in Counter(tiles).items() if n > self.count(t)))

    def describe_excess(self, excess: dict[Tile, int]) -> str:
        """``"3 x R1, 3 x J: the standard 106-tile box holds 2 of each number tile and 2 jokers"``."""
        return (f"{', '.join(f'{n} x {t}' for t, n in excess.items())}: the {self.name} box holds "
                f"{self.copies} of each number tile and {self.jokers} jokers")

    def check_counts(self, tiles: Iterable[Tile]) -> None:
        """Raise RuleError naming each face seen more often than the box holds, and the size limit."""
        tiles = list(tiles)
        if len(tiles) > self.size:
            raise RuleError(f"{len(tiles)} tiles, but the {self.name} box holds only {self.size}")
        too_many = self.excess(tiles)
        if too_many:
            raise RuleError(f"more copies than the box holds: {self.describe_excess(too_many)}")


STANDARD = TileSet("standard 106-tile", copies=2, jokers=2, players=(2, 4))
XP = TileSet("XP 160-tile", copies=3, jokers=4, players=(2, 6))


def iter_faces(include_joker: bool = True) -> Iterator[Tile]:
    yield from ALL_FACES if include_joker else ALL_FACES[:JOKER_INDEX]
