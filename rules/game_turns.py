"""Pure transitions of a hand in play: start, draw, end turn, time-out, the table put back.

Each function takes a :class:`~rules.game_state.Game` (and ``now`` where the
clock matters) and returns a new one, or raises
:class:`~rules.game_state.GameError` saying why the move is not allowed.
Turn-ending moves also return the :class:`~rules.game_state.TurnRecord` for
the turn log.  Rules quoted from seed 004.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Iterable

from rules.game_clock import TurnClock
from rules.game_deal import NOT_STARTED, TableNotClear
from rules.game_length import with_length
from rules.game_state import (
    RACK_SIZE, Action, CountDoubt, Drawn, DrawSource, Game, GameError, LastTurn, Restore, Seat, Status, Step,
    Table, TimeUp, Turn, TurnRecord, Verdict, replace_seat, same_table, table_of, table_tiles, tiles_added,
)
from rules.names import clean_name, same_name_key
from rules.options import RuleOptions
from rules.problems import Problem
from rules.tiles import RuleError, Tile, format_tiles, tile_count
from rules.solver import Solution, solve, suggest_rearrangement
from rules.turns import validate_turn


def check_players(names: list[str], options: RuleOptions) -> tuple[str, ...]:
    """Names cleaned (rules.names: invisible characters out, one encoding, single spaces), each distinct
    letter case aside and not blank; as many as the box allows."""
    typed = [str(n) for n in names]
    names = [clean_name(n) for n in typed]
    low, high = options.box.players
    if not low <= len(names) <= high:
        extra = " (5-6 players need the XP tile set)" if len(names) in (5, 6) else ""
        raise GameError(f"{len(names)} player{'' if len(names) == 1 else 's'}: this tile set is for "
                        f"{low}-{high} players{extra}")
    for i, (n, t) in enumerate(zip(names, typed), 1):
        if not n:
            hidden = " (it holds only characters that do not show, such as a zero-width space)" if t.strip() else ""
            raise GameError(f"player {i} has no name{hidden}: every player needs a name")
    seen: dict[str, int] = {}
    for i, n in enumerate(names, 1):
        first = seen.setdefault(same_name_key(n), i)
        if first != i:
            raise GameError(f"player names must differ: players {first} and {i} are both {n} "
                            "(characters that do not show and letter case do not tell names apart)")
    return tuple(names)


def _first_step(options: RuleOptions, number: int) -> Step:
    if not options.flow.draw_then_discard:
        return Step.PLAY
    if options.flow.starter_extra_tile and number == 1:
        return Step.MELD  # the starter holds a 15th tile and does not draw first
    return Step.DRAW


def open_turn(options: RuleOptions, seat: int, number: int, table: Table, now: float, *, paused: bool = False) -> Turn:
    return Turn(number=number, seat=seat, step=_first_step(options, number), table_before=table,
                clock=TurnClock.start(options.turn_time_limit, now, paused=paused))


def deal(options: RuleOptions, names: tuple[str, ...], starter: int) -> tuple[tuple[Seat, ...], int]:
    """Seats and pool for a new hand: 14 tiles each, the International starter 15, one trump face up."""
    seats = tuple(Seat(name=n) for n in names)
    pool = options.box.size - RACK_SIZE * len(seats)
    if options.flow.trump:
        pool -= 1  # the face-up trump tile
    if options.flow.starter_extra_tile:
        seats = replace_seat(seats, starter, replace(seats[starter], rack_count=RACK_SIZE + 1))
        pool -= 1
    return seats, pool


def start_game(names: list[str], options: RuleOptions, now: float, *, first: int = 0,
               trump: Tile | None = None, table: Table = (), table_checked: bool = True) -> Game:
    """Seat the players (clockwise round the table) and start the first hand.  ``table``: what the camera
    sees; with ``table_checked`` False tiles there are asked about (:class:`~rules.game_deal.TableNotClear`)
    as at Start hand, else they are the table the first turn starts from."""
    names_ = check_players(names, options)
    if not 0 <= first < len(names_):
        raise GameError(f"first player {first} is not a seat (0-{len(names_) - 1})")
    table = table_of(table)
    if table and not table_checked:
        raise TableNotClear(len(table_tiles(table)), "game")
    seats, pool = deal(options, names_, first)
    if not options.flow.trump:
        trump = None  # Sabra has no trump tile
    return Game(options=options, seats=seats, status=Status.PLAYING, hand=1, starter=first, trump=trump,
                pool=pool, turn=open_turn(options, first, 1, table, now), trump_up=options.flow.trump)


def require(game: Game | None, status: Status = Status.PLAYING) -> Game:
    if game is None:
        raise GameError("no game yet: start one first")
    if game.status is Status.DEALING and status is Status.PLAYING:
        raise GameError(NOT_STARTED)
    if game.status is Status.FINISHED:
        raise GameError("the game is finished: start a new one")
    if game.status is not status:
        raise GameError(f"not possible now: the game is in its {game.status.value}, not {status.value}")
    return game


# --- judging -----------------------------------------------------------------------

def judge(game: Game, table: Table) -> Verdict:
    """The table now against the table the turn started from, under the game's rules."""
    before = game.turn.table_before
    if same_table(before, table):
        return Verdict(legal=True, changed=False)
    seat = game.current
    added = tiles_added(before, table)
    rack = list(seat.rack) if seat.rack else list(added)
    v = validate_turn([list(s) for s in before], [list(s) for s in table], rack,
                      has_melded=seat.has_melded, options=game.options, rack_is_whole=seat.rack is not None)
    placed = tuple(v.placed) if v.placed is not None else added
    problems = tuple(v.issues)
    if len(placed) > seat.rack_count:
        problems += (Problem("not_on_rack", placed,
                             f"{len(placed)} tiles placed, but {seat.name} holds only {seat.rack_count}"),)
    return Verdict(legal=not problems, changed=True, placed=placed, problems=problems)


def best_move(game: Game, table: Table) -> Solution | None:
    """The most the current player's typed rack can add to ``table`` (the first meld's minimum until melded)."""
    seat = game.current
    if seat.rack is None:
        raise GameError(f"{seat.name}'s rack is not known: type it first")
    initial = None if seat.has_melded else game.options.initial_meld
    return solve([list(s) for s in table], list(seat.rack), initial=initial, options=game.options)


def legal_layout(game: Game, table: Table) -> Table | None:
    """After a refused turn: a legal layout of the tiles now on the table, if there is one."""
    sets = suggest_rearrangement([list(s) for s in game.turn.table_before], [list(s) for s in table], game.options)
    return table_of(sets) if sets else None


# --- moves ---------------------------------------------------------------------------

def _take_from_pool(game: Game, seat: int, n: int) -> tuple[Game, int]:
    n = max(0, min(n, game.pool))
    s = game.seats[seat]
    return replace(game, pool=game.pool - n,
                   seats=replace_seat(game.seats, seat, replace(s, rack_count=s.rack_count + n))), n


def _placed(seat: Seat, placed: tuple[Tile, ...], count: int | None = None) -> Seat:
    """A legal turn: the tiles placed leave the rack; placing any means the player has melded.

    ``count``: more tiles placed than named (a turn no camera saw): a typed rack no longer says what the
    player holds, so it is forgotten rather than kept wrong.
    """
    n = len(placed) if count is None else count
    if not n:
        return seat
    rack = seat.rack
    if rack is not None:
        rack = None if n > len(placed) else tuple(sorted((Counter(rack) - Counter(placed)).elements()))
    return replace(seat, has_melded=True, rack_count=max(0, seat.rack_count - n), rack=rack)


def _next_turn(game: Game, table: Table, now: float, action: Action, verdict: Verdict, penalty: int,
               *, note: str = "", restore: Restore | None = None, discard: Tile | None = None,
               unchecked: int = 0, unseen: bool = False, back: Game | None = None) -> tuple[Game, TurnRecord]:
    """Log the turn, hand the table to the next player; the clock waits while a table is put back.
    ``discard`` (American/International) is kept in the last turn's line, which names the tile;
    ``unchecked``: the tiles the players said a turn no camera saw placed; ``unseen``: tiles may have
    been placed that no camera saw, so the next turn's table is not known (nor is it after an unseen turn);
    ``back``: the game before a turn ended on the players' word (:func:`kept_for_undo`), else None."""
    turn = game.turn
    name = game.current.name
    record = TurnRecord(hand=game.hand, number=turn.number, player=name, started_at=turn.clock.began,
                        ended_at=now, action=action, verdict=verdict, penalty=penalty,
                        table_before=turn.table_before, table_after=table, unchecked=unchecked, drew=turn.drew)
    nxt = open_turn(game.options, game.step_from(turn.seat), turn.number + 1,
                restore.table if restore else table, now, paused=restore is not None)
    if unseen or turn.unseen:  # the tiles said placed since a camera last saw the table, for its return
        said = None if turn.unseen and turn.said is None else (turn.said if turn.unseen else 0) + unchecked
        named = (turn.said_tiles if turn.unseen else ()) + (verdict.placed if unchecked else ())
        nxt = replace(nxt, unseen=True, said=said, said_tiles=tuple(sorted(named)))
    last = LastTurn(player=name, action=action.value, verdict=verdict, penalty=penalty, note=note, discard=discard,
                    unchecked=unchecked)
    return replace(game, turn=nxt, last=last, restore=restore, undo=None, turn_back=back), record


def kept_for_undo(game: Game, now: float) -> Game:
    """The game as a turn found it when it ends on the players' word, for :func:`rules.game_undo.undo_turn`:
    its clock stopped at the end (the turn goes on with the time it had left), a refused End turn's
    verdict dropped (it judged a table since answered for), and no older turn kept with it (one level)."""
    turn = game.turn
    return replace(game, turn_back=None, turn=replace(turn, clock=turn.clock.pause(now), attempt=None))


DRAWN_FROM = {DrawSource.POOL: "drawn from the pool", DrawSource.DISCARD: "taken the previous discard",
              DrawSource.TRUMP: "taken the trump"}


def draw(game: Game, source: DrawSource, table: Table | None = None) -> Game:
    """American/International: the draw that opens a turn (pool, previous discard or trump).

    A draw from another source than the turn's own replaces it: the first goes
    back as :func:`undo_draw` puts it, refused as it refuses (``table``: the
    table now); a wrong button was pressed, or the trump, which may be taken
    only to win at once, is put back (seed 004).  The same source again is
    refused (a second press).  Refused while the next hand waits for its start
    (see :mod:`rules.game_deal`).
    """
    game = require(game)
    if not game.options.flow.draw_then_discard:
        raise GameError("in Sabra a draw ends the turn: press 'End turn' with the table unchanged")
    _draw_settled(game)
    drew = game.turn.drew
    if drew is not None and drew.source is source:
        raise GameError(f"this turn has {DRAWN_FROM[source]} already")
    if drew is not None:
        game = undo_draw(game, table)
    turn = game.turn
    if turn.step is not Step.DRAW:
        raise GameError("this turn has already drawn")
    seat = turn.seat
    if source is DrawSource.POOL:
        if game.pool <= 0:
            raise GameError("the pool is empty: press Pool empty to end the hand")
        game, _ = _take_from_pool(game, seat, 1)
        tile = None
    elif source is DrawSource.DISCARD:
        refused = discard_refused(game)
        if refused:
            raise GameError(refused)
        prev_i = game.step_from(seat, -1)
        prev = game.seats[prev_i]
        tile = prev.discard
        seats = replace_seat(game.seats, prev_i, replace(prev, discard=None))
        me = seats[seat]
        pile = tuple(sorted((Counter(game.discards) - Counter([tile])).elements()))
        game = replace(game, discards=pile,
                       seats=replace_seat(seats, seat, replace(me, rack_count=me.rack_count + 1)))
    else:
        refused = trump_refused(game)
        if refused:
            raise GameError(refused)
        if game.trump is None:  # the draw would put a tile nobody named in the rack and in the hand's record
            raise GameError("which tile is the trump? It was not entered: type it in Set trump (below the "
                            "turn buttons), then take it")
        # seed 004: the trump may be taken only to win at once: the turn can end only with "Rummikub!"
        tile = game.trump
        me = game.seats[seat]
        game = replace(game, trump_up=False,
                       seats=replace_seat(game.seats, seat, replace(me, rack_count=me.rack_count + 1)))
    return replace(game, turn=replace(turn, step=Step.MELD, drew=Drawn(source, tile)))


def discard_refused(game: Game) -> str | None:
    """Why the turn now cannot take the previous player's discard, or None: the page offers "Took the
    discard" only when it can, and :func:`draw` refuses it with these words."""
    taken = game.options.flow.discard_taken
    if taken == "never":
        return "this game has no discards to take"
    if taken == "after_meld" and not game.current.has_melded:
        # seed 004 (American), once the initial meld is laid: "From your next turn onwards, you may take the
        # tile just discarded" (the draw opens a turn: a player melded by then melded on an earlier turn)
        return (f"{game.current.name} may take the previous discard from the turn after the initial meld; "
                "draw from the pool")
    if game.seats[game.step_from(game.turn.seat, -1)].discard is None:
        return "there is no discard to take"
    return None


def trump_refused(game: Game) -> str | None:
    """Why the turn now cannot take the face-up trump, or None: the page offers "Took the trump" only when
    it can.  It may be taken only to win at once (004_*); in International not as the final draw of an
    Open win, the only win left to a player who melded earlier this hand (Foot and Closed meld the whole
    hand at once), so such a player is refused it at the draw, not at the count."""
    if not game.trump_up:
        return "the trump tile has been taken already"
    me = game.current
    if game.options.game == "international" and me.has_melded:
        return (f"{me.name} has melded this hand, so can win only Open, and the trump may not be the final draw "
                "of an Open win (International rules): draw from the pool or take the discard")
    return None


def undo_draw(game: Game, table: Table | None = None) -> Game:
    """American/International: take the turn's draw back (the wrong draw was pressed).

    The tile goes back where it came from: to the pool, to the previous
    player's discard, or face up as the trump; the turn is at its draw again,
    its clock as it was.  Possible only while the draw is all the turn has
    done: once tiles have been placed on the table this turn (``table``, the
    table now, when known) the drawn tile may be among them, and the rules'
    order is draw, meld, discard, so those tiles go back to the rack first.
    """
    game = require(game)
    if not game.options.flow.draw_then_discard:
        raise GameError("in Sabra a turn has no draw to take back: a draw ends the turn")
    _draw_settled(game)
    turn = game.turn
    if turn.drew is None:
        raise GameError("the starter's first turn has no draw to take back: the 15th tile was dealt"
                        if turn.step is Step.MELD else "nothing has been drawn this turn")
    placed = tiles_added(turn.table_before, table) if table is not None else ()
    if placed:
        raise GameError(f"{format_tiles(placed)} placed on the table this turn: take them back to the rack "
                        "first, then take the draw back")
    seat = turn.seat
    me = game.seats[seat]
    game = replace(game, seats=replace_seat(game.seats, seat, replace(me, rack_count=me.rack_count - 1)))
    if turn.drew.source is DrawSource.POOL:
        game = replace(game, pool=game.pool + 1)
    elif turn.drew.source is DrawSource.DISCARD:
        prev_i = game.step_from(seat, -1)
        game = replace(game, discards=tuple(sorted(game.discards + (turn.drew.tile,))), seats=replace_seat(
            game.seats, prev_i, replace(game.seats[prev_i], discard=turn.drew.tile)))
    else:
        game = replace(game, trump_up=True)
    return replace(game, turn=replace(turn, step=Step.DRAW, drew=None, attempt=None))


POOL_EMPTY_AFTER_TIME = "time is up and the pool is empty: press Pool empty to end the hand"


def _draw_settled(game: Game) -> None:
    """Once time is up the turn's draw is what the clock left (:func:`time_out`): it is not changed."""
    if game.turn.time_up is None:
        return
    if game.turn.step is Step.DRAW:
        raise GameError(POOL_EMPTY_AFTER_TIME)
    raise GameError("time is up: the draw stands; discard a tile to end the turn")


def check_time_up(game: Game, table: Table) -> None:
    """After the clock ran out no tile may be placed: refuse a table holding tiles beyond the one the
    clock found (when a camera saw it)."""
    found = game.turn.time_up.table if game.turn.time_up is not None else None
    late = tiles_added(found, table) if found is not None else ()
    if late:
        raise GameError(f"time is up: {format_tiles(late)} placed after the clock ran out: take them back "
                        "to the rack, then end the turn")


def ending_checks(game: Game, discard: Tile | None, *, winning: bool = False) -> None:
    """What ends a turn besides a legal table (seed 004, American and International).

    A turn starts with a draw and ends with a discard, the winner's too ("meld
    all the remaining tiles in his hand except for one, which is the final
    discard"); the trump may be drawn only "if the player who draws it can
    thereby win the game", so only "Rummikub!" ends a turn that took it.
    """
    if game.restore is not None:
        raise GameError("put the table back first (as the picture shows), then play on")
    turn = game.turn
    if turn.step is Step.DRAW:
        raise GameError(POOL_EMPTY_AFTER_TIME if turn.time_up is not None
                        else "draw first: from the pool, the previous discard or the trump tile")
    if not game.options.flow.draw_then_discard:
        return
    if discard is None:
        raise GameError("discard a tile to end the turn: in this game every turn, the winner's too, "
                        "ends with a discard")
    if not winning and turn.drew is not None and turn.drew.source is DrawSource.TRUMP:
        raise GameError("the trump may be taken only to win at once: call Rummikub!, or put it back "
                        "(take the draw back, or draw from the pool or the discards)")


def end_turn(game: Game, table: Table, now: float, *, action: Action = Action.DONE,
             discard: Tile | None = None, seen: bool = True) -> tuple[Game, TurnRecord | None, Verdict]:
    """The player says the turn is over (button, space bar, "pass").

    A legal table ends the turn; an illegal one is refused and the turn (and
    its clock) go on so that the player can fix it (the record is None).  In
    Sabra a turn that placed nothing draws a tile; in the American and
    International games the turn ends with a discard (refused without one).
    Refused while the next hand waits for its start (the table is still the scored hand's).
    A turn whose time is up (:func:`time_out`) ends the same way, logged as a time-out; tiles placed
    after the clock ran out are refused.  ``seen`` False: no camera saw ``table`` (the game's own), so
    the turn ends on the players' word ("Drew a tile") and can be taken back (:func:`kept_for_undo`).
    """
    game = require(game)
    start = game
    ending_checks(game, discard)
    check_time_up(game, table)
    turn = game.turn
    verdict = judge(game, table)
    if not verdict.legal:
        return replace(game, turn=replace(turn, attempt=verdict)), None, verdict
    seat_i = turn.seat
    seats = replace_seat(game.seats, seat_i, _placed(game.seats[seat_i], verdict.placed))
    game = replace(game, seats=seats)
    note = ""
    if not game.options.flow.draw_then_discard and not verdict.placed:
        game, n = _take_from_pool(game, seat_i, 1)
        action = Action.PASS if action is Action.PASS else Action.DRAW
        note = "nothing placed: draws a tile" if n else "nothing placed; the pool is empty"
    if game.options.flow.draw_then_discard and discard is not None:
        game = _discarded(game, seat_i, discard, table)
        action = Action.DISCARD
    else:
        discard = None  # Sabra has no discards
    if turn.time_up is not None:
        action, note = Action.TIMEOUT, _time_up_words(turn.time_up, verdict.placed, note)
    new, record = _next_turn(game, table_of(table), now, action, verdict, 0, note=note, discard=discard,
                             back=None if seen else kept_for_undo(start, now))
    return new, record, verdict


def _time_up_words(time_up: TimeUp, placed: tuple[Tile, ...], drew: str = "") -> str:
    """The last turn's line for a turn ended after its time was up: it says so, and what the clock did."""
    head = "time is up" + (f" ({time_up.note})" if time_up.note else "")
    if drew:
        return f"time is up with {drew}"
    return f"{head}: placed {format_tiles(placed)}" if placed else head


def _discarded(game: Game, seat_i: int, discard: Tile, table: Table) -> Game:
    """American/International: the turn's discard leaves the rack; the older discard stays in the pile."""
    me = game.seats[seat_i]
    if me.rack_count <= 0:
        raise GameError(f"{me.name} has no tile left to discard")
    check_discard(game, discard, table)
    pile = tuple(sorted(game.discards + (discard,)))
    return replace(game, dead=game.dead + (me.discard is not None), discards=pile,
                   seats=replace_seat(game.seats, seat_i, replace(me, rack_count=me.rack_count - 1, discard=discard)))


def check_discard(game: Game, discard: Tile, table: Table) -> None:
    """Refuse a discard the box cannot hold beside the tiles the game knows lie face up this hand: the
    discard piles, the table (``table``, after the turn's melds) and the face-up trump.  Typed racks are
    not counted: a rack typed for hints is not updated by draws, so it can hold a tile no longer there."""
    box = game.options.box
    seen = {"in the discard piles": Counter(game.discards)[discard],
            "on the table": Counter(table_tiles(table))[discard],
            "as the trump": int(game.trump_up and game.trump == discard)}
    if sum(seen.values()) < box.count(discard):
        return
    copies = f"{box.jokers} jokers" if discard.is_joker else f"{box.copies} of each tile"
    where = ", ".join(f"{n} {w}" for w, n in seen.items() if n)
    raise GameError(f"{discard} cannot be discarded: the {box.name} box holds {copies}, and "
                    f"{sum(seen.values())} lie face up already ({where}): type the tile discarded again")


UNCHECKED = "not checked: no camera saw the table"


def end_turn_unseen(game: Game, now: float, placed: int | None = None, *, tiles: Iterable[Tile] = (),
                    discard: Tile | None = None, camera: bool = False,
                    count_checked: bool = False) -> tuple[Game, TurnRecord]:
    """A turn no camera saw: the players say it placed ``placed`` tiles (``tiles``: which, if they name them).

    Without a camera the table never changes, so :func:`end_turn` takes every Sabra turn for a draw:
    racks only grow, nobody ever melds, and the tally's and Rummikub!'s counts go wrong.  The players'
    word is recorded, not checked: the tiles leave the rack (a typed rack loses the tiles named, and is
    forgotten when they are not), the player has melded, and the turn is logged as
    ``Action.UNCHECKED``; the table the game knows stays as the turn found it, and the next turn's is
    unseen until a camera finds the real one (:func:`rules.game_found.table_found`).  A turn that drew is
    still :func:`end_turn`.  American and International: the draw was pressed already, so the turn
    placed tiles and ends with its discard as every turn there does (the analogue of End turn).

    Refused while a camera sees the table (``camera``: its judgement stands), for no tile placed, for more
    tiles than the rack holds (less the discard), for a count that empties the rack (that is
    Rummikub!), for tiles named that are not on a typed rack, and wherever End turn is refused.
    A player the game knows has not melded is asked about (:func:`_first_meld_said`) unless
    ``count_checked``; a first meld given as a count alone is noted as not checkable.  The game before
    the turn is kept (:func:`kept_for_undo`): a wrong answer can be taken back.
    """
    game = require(game)
    start = game
    if camera:
        raise GameError("a camera sees the table: End turn judges what it sees (saying what a turn placed is "
                        "for a table no camera sees)")
    ending_checks(game, discard)
    seat_i = game.turn.seat
    me = game.seats[seat_i]
    tiles = tuple(tiles)
    count = _said_placed(game, me, placed, tiles)
    if not me.has_melded and not count_checked:
        _first_meld_said(game, me, count, tiles, discard)
    game = replace(game, seats=replace_seat(game.seats, seat_i, _placed(me, tiles, count)))
    if not game.options.flow.draw_then_discard:
        discard = None  # Sabra has no discards
    else:
        game = _discarded(game, seat_i, discard, game.turn.table_before)
    # accepted, not judged: the action and the note say so wherever the turn is shown
    verdict = Verdict(legal=True, changed=True, placed=tiles)
    what = format_tiles(tiles) if tiles else tile_count(count)
    first = "" if me.has_melded or tiles or count_checked else \
        f"; a count cannot show a first meld's {game.options.initial_meld} points"
    note = f"placed {what} ({UNCHECKED}{first})"
    if game.turn.time_up is not None:  # the players answered the question the clock's expiry asked
        note = f"{_time_up_words(game.turn.time_up, ())}: {note}"
    return _next_turn(game, game.turn.table_before, now, Action.UNCHECKED, verdict, 0,
                      note=note, discard=discard, unchecked=count, unseen=True, back=kept_for_undo(start, now))


def _first_meld_said(game: Game, me: Seat, count: int, tiles: tuple[Tile, ...], discard: Tile | None) -> None:
    """A first meld is sets of 3 or more of the player's own tiles worth ``initial_meld`` (004_*): fewer
    tiles cannot be one, nor named tiles whose sets are worth less.  The game's "has not melded" may be
    wrong (no camera saw an earlier meld), so this is a question (:class:`CountDoubt`), not a refusal."""
    need = game.options.initial_meld
    ask = (f"By the game's record {me.name} has not melded yet, and this is no first meld of {need} points. "
           f"Record the turn anyway ({me.name} had melded before)?")
    why = None
    if count < 3:
        why = f"{tile_count(count)} cannot be one"
    elif tiles:
        rack = list(tiles) + ([discard] if discard is not None and game.options.flow.draw_then_discard else [])
        try:
            if solve([], rack, initial=need, options=game.options) is None:
                best = solve([], rack, initial=0, objective="value", options=game.options)
                worth = best.value if best is not None else 0
                why = f"{format_tiles(tiles)} make sets worth {worth} point{'s' if worth != 1 else ''} at most"
        except (RuleError, ValueError):
            return  # tiles the solver cannot take: left to the players' word
    if why:
        raise CountDoubt(f"{me.name} has not melded yet by the game's record, and a first meld is sets of 3 or "
                         f"more tiles worth {need} points: {why}; if {me.name} had melded before, record the "
                         "turn anyway", ask)


def _said_placed(game: Game, me: Seat, placed: int | None, tiles: tuple[Tile, ...]) -> int:
    """How many tiles an unseen turn placed, as the players say; refused where the count cannot be."""
    if placed is None:
        placed = len(tiles)
    if tiles and len(tiles) != placed:
        raise GameError(f"{placed} tiles said to be placed, but {len(tiles)} named: {format_tiles(tiles)}")
    keep = int(game.options.flow.draw_then_discard)  # the discard that ends the turn
    if placed < 1:
        raise GameError("no tile placed: End turn with the discard alone" if keep
                        else "no tile placed: that is a draw (Drew a tile)")
    held = f"{me.name} holds {tile_count(me.rack_count)}"
    if placed > me.rack_count - keep:
        raise GameError(f"{held}{' and keeps one to discard' if keep else ''}: "
                        f"{placed} cannot have been placed")
    if placed == me.rack_count - keep:
        raise GameError(f"{held}: placing {placed}{' and discarding one' if keep else ''} empties the rack, "
                        "so that is Rummikub!: call it instead")
    if me.rack is not None:
        missing = Counter(tiles) - Counter(me.rack)
        if missing:
            raise GameError(f"not on {me.name}'s typed rack: {format_tiles(sorted(missing.elements()))}")
    else:
        try:
            game.options.box.check_counts(tiles)
        except RuleError as exc:
            raise GameError(f"the tiles placed: {exc}") from None
    return placed


def time_out(game: Game, table: Table, now: float, *, seen: bool = True
             ) -> tuple[Game, TurnRecord | None] | None:
    """When the clock has run out, end the turn by the time-limit rules (seed 004), or, where the clock
    cannot know how the turn ends, stop it and let the players finish the turn.

    Seed 004: "Players who go over the time limit must draw a tile from the
    pool, ending their turns"; an unfinished table goes back, the player takes
    his tiles back and draws 3 tiles, and "This ends the turn".  So a seen
    Sabra turn ends here: table unchanged, the player draws a tile; legal with
    tiles placed, the turn stands; illegal, it goes back (:class:`Restore`) and
    the next player's clock waits until the table is back.

    Where that cannot be decided the turn waits (``Turn.time_up``, the clock
    stopped, the record None) until the players finish it: ``seen`` False, no
    camera sees ``table``, so nobody knows whether tiles were laid, and End
    turn's question (:func:`end_turn`, :func:`end_turn_unseen`) says; in the
    American and International games every turn ends with a discard, which
    only the player can make.  There the draw is settled first: a trump taken
    goes back face up (it may be taken only to win at once) and, like a turn
    that had not drawn, the player draws from the pool; an illegal table, or
    tiles placed after taking the trump, go back with the penalty, which ends
    the turn as in Sabra.  None when time is not up, or is up already.
    """
    if game is None or game.status is not Status.PLAYING or game.turn.time_up is not None \
            or not game.turn.clock.expired(now):
        return None
    turn = game.turn
    draws = game.options.flow.draw_then_discard
    if seen:
        verdict = judge(game, table)
        took_trump = turn.drew is not None and turn.drew.source is DrawSource.TRUMP
        if not verdict.legal or (took_trump and verdict.changed):
            return _unfinished(game, table, now, verdict, took_trump)
        if not draws:
            return _out_of_time(game, table, now, verdict)
    note = ""
    if draws:
        game, note = _draw_owed(game)
    waits = TimeUp(table=table_of(table) if seen else None, note=note)
    clock = game.turn.clock.pause(now)
    return replace(game, turn=replace(game.turn, clock=clock, time_up=waits, attempt=None)), None


def _out_of_time(game: Game, table: Table, now: float, verdict: Verdict) -> tuple[Game, TurnRecord]:
    """Sabra, seen: a legal table ends the turn, its tiles placed; nothing placed, the player draws."""
    seat_i = game.turn.seat
    game = replace(game, seats=replace_seat(game.seats, seat_i, _placed(game.seats[seat_i], verdict.placed)))
    note = f"time is up: placed {format_tiles(verdict.placed)}"
    if not verdict.placed:
        game, n = _take_from_pool(game, seat_i, 1)
        note = "time is up with nothing placed: " + ("draws a tile" if n else "the pool is empty")
    return _next_turn(game, table_of(table), now, Action.TIMEOUT, verdict, 0, note=note)


def _unfinished(game: Game, table: Table, now: float, verdict: Verdict, took_trump: bool
                ) -> tuple[Game, TurnRecord]:
    """Time is up on a turn that could not be completed: the table goes back to how the turn found it,
    the player takes back the tiles played (a trump taken goes back face up) and draws the penalty, which ends
    the turn; the next player's clock waits until the table is back."""
    if took_trump:
        game = undo_draw(game)
    seat_i = game.turn.seat
    game, penalty = _take_from_pool(game, seat_i, game.options.unfinished_turn_penalty)
    me = game.seats[seat_i]
    game = replace(game, seats=replace_seat(game.seats, seat_i, replace(me, penalties=me.penalties + penalty)))
    restore = Restore(player=me.name, table=game.turn.table_before, problems=verdict.problems, penalty=penalty)
    why = "with the trump taken, which may be taken only to win at once" if verdict.legal else "on an illegal table"
    back = "takes back the tiles played and draws" if verdict.placed else "draws"  # nothing played: none to take
    note = f"time is up {why}: put it back; {me.name} {back} {penalty}"
    return _next_turn(game, table_of(table), now, Action.TIMEOUT, verdict, penalty, note=note, restore=restore)


def _draw_owed(game: Game) -> tuple[Game, str]:
    """American and International, time up: the draw the turn owes (seed 004: "must draw a tile from the
    pool"), and in words what it did.  A trump taken goes back face up, as the turn will not win."""
    said = []
    if game.turn.drew is not None and game.turn.drew.source is DrawSource.TRUMP:
        game = undo_draw(game)
        said.append("the trump went back face up")
    if game.turn.step is Step.DRAW:
        if game.pool > 0:
            game = draw(game, DrawSource.POOL)
            said.append("a tile was drawn from the pool" + (" instead" if said else ""))
        else:
            said.append("the pool is empty")
    return game, " and ".join(said)


def table_restored(game: Game, now: float, table: Table | None = None) -> Game:
    """The table is back as it was (the players say so, or ``table`` matches): the clock runs again."""
    if game.restore is None or (table is not None and not same_table(game.restore.table, table)):
        return game
    return replace(game, restore=None, turn=replace(game.turn, clock=game.turn.clock.resume(now)))


def check_rack(rack, options: RuleOptions) -> tuple[Tile, ...]:
    """A rack the box can hold, else the refusal the tally's confirm gives for it."""
    rack = tuple(rack)
    try:
        options.box.check_counts(rack)
    except RuleError as exc:
        raise GameError(f"cannot score this hand: {exc}") from None
    return rack


def set_rack(game: Game, name: str, rack: tuple[Tile, ...] | None) -> Game:
    """A player's own rack, typed in for hints and the turn check (None or empty: forget it).

    A rack the box cannot hold (three R5 from the 106-tile box) is refused.
    """
    i = game.seat_of(name)
    rack = check_rack(rack, game.options) if rack else None
    return replace(game, seats=replace_seat(game.seats, i, replace(game.seats[i], rack=rack)))


def same_scoring(a: RuleOptions, b: RuleOptions) -> bool:
    """Two options score every hand and rank the sheet alike (Sabra and American do, 004_*)."""
    return replace(a.scoring_method, name="") == replace(b.scoring_method, name="")


def change_rules(game: Game, options: RuleOptions) -> Game:
    """New rules for a game in progress: they apply from the next hand, except its length, which counts
    at once (it decides only whether another hand is dealt; see :mod:`rules.game_length`).  A hand dealt
    but not started (Start hand) is that next hand: nobody has played by the old rules, so it takes the
    new ones at once, dealt again by them (the box, the International starter's 15th tile, the clock).

    The scoring method is the game's for good: the score sheet totals and ranks
    every hand by one method (Israeli final scores over hands scored the Sabra
    way mean nothing), so a change of it is refused; start a new game instead.
    """
    low, high = options.box.players
    if not low <= len(game.seats) <= high:
        raise GameError(f"{len(game.seats)} players cannot play with the {options.tile_set} tile set")
    if not same_scoring(options, game.options):
        raise GameError(f"this game is scored by {game.options.scoring} scoring; a game keeps its scoring "
                        f"method on every hand, so {options.scoring} scoring needs a new game")
    game = with_length(game, options)
    if game.status is Status.DEALING:
        return _dealt_by(game, options)
    return replace(game, pending=None if options == game.options else options)


def _dealt_by(game: Game, options: RuleOptions) -> Game:
    """The hand waiting for its start, dealt by ``options``: what it holds then is only the deal (the
    scored hand it follows, kept for "Take back this hand", and its line stay as they are)."""
    seats, pool = deal(options, game.names, game.starter)
    seats = tuple(replace(s, rack=old.rack) for s, old in zip(seats, game.seats))  # typed for hints meanwhile
    turn = open_turn(options, game.starter, 1, (), game.turn.clock.since, paused=True)
    return replace(game, options=options, pending=None, seats=seats, pool=pool, trump_up=options.flow.trump,
                   turn=turn)
