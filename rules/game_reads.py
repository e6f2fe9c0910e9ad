"""Racks read by the camera at the count, questioned against what the game knows.

A typed rack has been looked at by whoever typed it; a read one has not: the camera can miss a tile (a
hand over it, two tiles read as one) or misread one (R6 for R5).  So a read is kept as the camera gave
it (the players see it, and may keep it) but questioned when it cannot be right by the game's own
count: a number of tiles other than the player holds, more copies of a tile in view than the box
holds, or the very tiles read for another player (Read pressed again before the racks were changed).  The confirm asks the question again (:class:`~rules.game_state.CountDoubt`) until the rack is
read again or typed, or the players say the count is wrong (``count_checked``).
"""

from __future__ import annotations

from collections import Counter

from rules.game_state import CountDoubt, Game, table_tiles
from rules.tiles import tile_count

AGAIN = "read again or type the rack"


def _in_view(game: Game) -> dict[str, Counter]:
    """Every tile the count can see, by where it lies: the final table, each rack entered, the discard
    piles (the winner's final discard too) and the trump while it lies face up."""
    tally = game.tally
    where = {"on the table": Counter(table_tiles(tally.table))}
    for s, rack in zip(game.seats, tally.racks):
        if rack:
            where[f"on {s.name}'s rack"] = Counter(rack)
    face_up = list(game.discards) + ([tally.discard] if tally.discard is not None else [])
    if game.trump_up and game.trump is not None:
        face_up.append(game.trump)
    if face_up:
        where["face up (discards, trump)"] = Counter(face_up)
    return where


def read_doubt(game: Game, name: str) -> str | None:
    """The question a camera-read rack raises (None: not read, or nothing to question): "the camera read
    9 tiles; Ben should hold 11: read again or type the rack"."""
    tally = game.tally
    i = game.seat_of(name)
    if tally is None or not tally.read[i] or not tally.racks[i] or name == tally.winner:
        return None
    rack = tally.racks[i]
    doubts = []
    held = game.seats[i].rack_count
    if len(rack) != held:
        doubts.append(f"the camera read {tile_count(len(rack))}; {name} should hold {held}")
    for other, theirs, was_read in zip(game.seats, tally.racks, tally.read):
        if other.name != name and was_read and Counter(theirs) == Counter(rack):
            doubts.append(f"it read the very tiles it read for {other.name}'s rack (was {name}'s rack in view?)")
    box = game.options.box
    for tile, total, seen in _over_box(game, rack):
        doubts.append(f"the camera read a {_nth(total)} {tile} (the {box.name} box holds {box.count(tile)}: {seen})")
    return f"{'; '.join(doubts)}: {AGAIN}" if doubts else None


def _over_box(game: Game, tiles) -> list[tuple]:
    """(tile, copies in view, where they lie: "1 on the table, 2 on Ben's rack") for each of ``tiles`` of
    which the count sees more copies than the box holds (:func:`_in_view`)."""
    box, where = game.options.box, _in_view(game)
    out = []
    for tile in sorted(set(tiles)):
        seen = {w: c[tile] for w, c in where.items() if c[tile]}
        if sum(seen.values()) > box.count(tile):
            out.append((tile, sum(seen.values()), ", ".join(f"{n} {w}" for w, n in seen.items())))
    return out


def _nth(n: int) -> str:
    return {3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}.get(n, f"{n}th")


def read_doubts(game: Game) -> dict[str, str]:
    """Each camera-read rack in question, by player (every phone shows it under the rack)."""
    if game.tally is None:
        return {}
    out = {s.name: read_doubt(game, s.name) for s in game.seats}
    return {n: q for n, q in out.items() if q}


def typed_copies(game: Game) -> list[str]:
    """Tiles of the typed racks of which the count sees more copies than the box holds once the final
    table and the face-up tiles are counted in ("3 x K1: 1 on the table, 1 on Ann's rack, 1 on Dov's
    rack"): a typo (K1 for K11), or a tile of the table misread.  The racks alone holding too many are
    refused before this (``rules.game_tally``); read racks raise their own question (:func:`read_doubt`)."""
    tally = game.tally
    typed = [t for r, was_read in zip(tally.racks, tally.read) if r and not was_read for t in r]
    return [f"{total} x {tile} ({seen})" for tile, total, seen in _over_box(game, typed)]


def check_reads(game: Game) -> None:
    """The confirm's question for the camera-read racks in doubt, and for typed racks that with the table
    hold a copy more than the box: scored only once the players say the count is wrong
    (``count_checked``), as a typed rack of more tiles than the count says is saved."""
    doubts = read_doubts(game)
    if doubts:
        listed = "; ".join(f"{n}: {q.removesuffix(': ' + AGAIN)}" for n, q in doubts.items())
        racks = "racks" if len(doubts) > 1 else "rack"
        raise CountDoubt(f"the camera's reading is in doubt ({listed}): {AGAIN}, or, if it is right, "
                         "confirm anyway",
                         f"The camera's reading does not match the count ({listed}). Score the {racks} as read?")
    copies = typed_copies(game)
    if copies:
        listed = "; ".join(copies)
        box = game.options.box
        raise CountDoubt(f"more copies than the {box.name} box holds ({box.copies} of each number tile): "
                         f"{listed}: correct the rack typed wrong, or, if the table was misread, confirm anyway",
                         f"The racks typed, the table and the tiles face up hold more copies than the box "
                         f"({listed}). Score the hand anyway?")
