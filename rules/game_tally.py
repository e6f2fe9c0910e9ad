"""Pure transitions at the end of a hand: "Rummikub!", the pool running out, the rack
tally, scoring, undoing the last scored hand, dealing the next one, finishing the game (by the
players, or by itself when the hand scored ends the agreed length).

"Rummikub!" ends the caller's turn, so it is judged as ending a turn is, and
logged.  Only the player who went out has an empty rack; every other rack must
be given (typed, or read from the tiles laid in view of the camera) before a
hand is scored.  Scores come from :func:`rules.scoring.score_hand` with the
game's rule options; the start passes on to the next player (seed 004), and
the next hand waits for its start (:mod:`rules.game_deal`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from rules.game_state import (
    Action, CountDoubt, DrawSource, Game, GameError, LastTurn, PoolLeft, ScoredHand, Status, StillHolds, Step,
    Table, Tally,
    TurnRecord, Verdict,
    table_of, tiles_added,
)
from rules.game_length import over
from rules.game_reads import check_reads
from rules.game_win import (
    FOOT_CLOSED, has_melded, hand_facts, melded_before, no_meld_before, trump_holders, win_entered, win_scored,
)
from rules.game_turns import (
    check_discard, check_rack, check_time_up, deal, ending_checks, judge, open_turn, require,
)
from rules.options import RuleOptions
from rules.scoring import HandResult, ScoreSheet, rack_value, score_hand
from rules.tiles import RuleError, Tile


def call_rummikub(game: Game, table: Table, now: float, *, winner: str | None = None,
                  pool_empty: bool = False, discard: Tile | None = None, count_checked: bool = False
                  ) -> tuple[Game, TurnRecord | None, Verdict]:
    """"Rummikub!" (the current player unless another is named) or the pool ran out: count the racks.

    The call ends the current turn, so it is judged as "End turn" is: refused
    while a table is put back or before the draw, without the final discard in
    the American and International games, and on an illegal table (the turn
    goes on, the record is None, the verdict says why).  Accepted, it returns the
    record of the turn it ended (None when the turn had done nothing and was not
    the winner's).  The seats stay as the turn found them and the clock stops
    with the time it had left, for "Back to the game".

    A winner who by the seat's rack count still holds tiles after this turn's
    placing (and, in the American and International games, the final discard)
    is refused (:class:`~rules.game_state.StillHolds`) unless ``count_checked``:
    the players say the count is wrong (a meld the camera missed, no camera).
    So is the pool running out while by the game's count tiles are still in it
    (:class:`~rules.game_state.PoolLeft`): a press meant for Rummikub! or for
    another game, asked about as the winner's count is.
    """
    game = require(game)
    if pool_empty:
        winner = None
    elif winner is None:
        winner = game.current.name
    else:
        game.seat_of(winner)
    turn = game.turn
    winning = winner == game.current.name
    # the winner's turn ends here; so does a turn that drew the pool's last tile (004_* International)
    ends_turn = winning or (pool_empty and turn.step is Step.MELD)
    if ends_turn or game.restore is not None:
        ending_checks(game, discard, winning=winning)
    check_time_up(game, table)
    verdict = judge(game, table)
    if not verdict.legal:
        return replace(game, turn=replace(turn, attempt=verdict)), None, verdict
    if winner is not None and not count_checked:
        held = _held_after(game, winner, verdict, winning)
        if held > 0:
            raise StillHolds(winner, held)
    if pool_empty and game.pool > 0 and not count_checked:
        raise PoolLeft(game.pool)
    if ends_turn and discard is not None and game.options.flow.draw_then_discard:
        check_discard(game, discard, table_of(table))  # the final discard too is a tile of the box
    record = None
    if ends_turn or verdict.changed:
        action = Action.RUMMIKUB if winning else Action.DISCARD if discard is not None else Action.DONE
        record = TurnRecord(hand=game.hand, number=turn.number, player=game.current.name,
                            started_at=turn.clock.began, ended_at=now, action=action, verdict=verdict, penalty=0,
                            table_before=turn.table_before, table_after=table_of(table), discard=discard,
                            drew=turn.drew)
    racks = tuple(() if s.name == winner else None for s in game.seats)
    trump = winning and turn.drew is not None and turn.drew.source is DrawSource.TRUMP
    tally = Tally(winner=winner, pool_empty=bool(pool_empty), table=table_of(table), racks=racks,
                  read=tuple(False for _ in game.seats), discard=discard if winning else None, trump_drawn=trump,
                  melded=tuple(None for _ in game.seats))
    turn = replace(turn, clock=turn.clock.pause(now), attempt=None)
    return replace(game, status=Status.TALLY, tally=tally, turn=turn), record, verdict


def _held_after(game: Game, winner: str, verdict: Verdict, winning: bool) -> int:
    """The tiles ``winner`` holds by the count once this turn is over: the current player less what the
    turn placed and the final discard (American, International); another player as the count stands."""
    held = game.seats[game.seat_of(winner)].rack_count
    if winning:
        held -= len(verdict.placed) + bool(game.options.flow.draw_then_discard)
    return held


def cancel_tally(game: Game, now: float) -> Game:
    """Back to the game: "Rummikub!" was called by mistake; the clock goes on with the time left (it stays
    stopped while a table is put back, and once time is up)."""
    require(game, Status.TALLY)
    stopped = game.restore is not None or game.turn.time_up is not None
    clock = game.turn.clock if stopped else game.turn.clock.resume(now)
    return replace(game, status=Status.PLAYING, tally=None, turn=replace(game.turn, clock=clock))


def _with_rack(game: Game, name: str, rack: tuple[Tile, ...] | None, read: bool) -> Game:
    """The rack entered for ``name``; a typed one the box cannot hold is refused, a read one is kept and
    questioned (:mod:`rules.game_reads`): the players see what the camera read, to correct it."""
    tally = game.tally
    i = game.seat_of(name)
    if name == tally.winner:
        if rack:
            raise GameError(f"{name} went out, so that rack is empty")
        rack = ()  # cleared or not: the rack of the player who went out stays empty
    elif rack and not read:
        rack = check_rack(rack, game.options)
    racks = tuple(rack if j == i else r for j, r in enumerate(tally.racks))
    reads = tuple(read if j == i else r for j, r in enumerate(tally.read))
    return replace(game, tally=replace(tally, racks=racks, read=reads))


def read_rack(game: Game, name: str, table: Table, racks: Table = ()) -> Game:
    """The tiles the camera sees beyond the final table: the player's rack laid out in view, or standing
    on its rack turned to the camera (``racks``: the rack rows in view, which the table leaves out).
    Kept as read even when the count says it cannot be right (the wrong number of tiles, a copy more
    than the box holds): it is questioned instead (:func:`rules.game_reads.read_doubts`), and the
    confirm asks."""
    require(game, Status.TALLY)
    rack = tiles_added(game.tally.table, tuple(table) + tuple(racks))
    if not rack:
        raise GameError(f"no tiles in view beyond the final table: lay {name}'s rack out by the table or "
                        "turn it to the camera, or type it")
    return _with_rack(game, name, rack, True)


def laid_out(final: Table, groups) -> list[bool]:
    """While racks are counted: which groups (tile sequences, in any order) are not sets of the
    final table, so are racks laid out to be read; they are totalled, never judged as melds."""
    sets = {tuple(sorted(s)) for s in final}
    return [tuple(sorted(g)) not in sets for g in groups]


def set_tally_rack(game: Game, name: str, rack: tuple[Tile, ...] | None, *, count_checked: bool = False) -> Game:
    """A rack typed by the players (None: not given yet); one the box cannot hold is refused.

    It is kept in the tally, not on the phone that typed it: at a club table each player types their
    own rack, and any phone then reviews and confirms them all.  A rack of more tiles than the player
    holds by the game's count (42 typed where the count says 14) is refused with a question
    (:class:`~rules.game_state.CountDoubt`) unless ``count_checked``: the count may be wrong (no camera),
    the typing more likely is.
    """
    require(game, Status.TALLY)
    held = game.seats[game.seat_of(name)].rack_count
    if rack and not count_checked and name != game.tally.winner and len(rack) > held:
        typed = f"{len(rack)} tiles typed for {name}'s rack"
        raise CountDoubt(f"{typed}, but by the count {name} holds {held}: check the rack "
                         "(or, if the count is wrong, save it anyway)",
                         f"By the count {name} holds {held} tiles, but {len(rack)} were typed. Save the rack anyway?")
    return _with_rack(game, name, rack, False)


def set_tally_melded(game: Game, name: str, melded: bool | None) -> Game:
    """The players correct whether ``name`` has made the first meld, for this hand's score (the camera
    may have missed a meld; it matters to Israeli and International scoring); None: as the game knows.

    Kept in the tally, as its racks are, so that the phone that confirms counts what another corrected.
    International: the winner's entry says whether they had melded before the turn they went out in
    (only a player who had not can win on foot or closed, 004_*); elsewhere the winner has melded.
    """
    require(game, Status.TALLY)
    tally = game.tally
    i = game.seat_of(name)
    if melded is not None and not isinstance(melded, bool):
        raise GameError(f"has {name} melded? say true or false, not {melded!r}")
    intl = game.options.scoring_method.hand_details
    if name == tally.winner and melded is False and not intl:
        raise GameError(f"{name} went out, so has melded")
    now = tally.melded or tuple(None for _ in game.seats)
    game = replace(game, tally=replace(tally, melded=tuple(melded if j == i else m for j, m in enumerate(now))))
    if name == tally.winner and intl:
        no_meld_before(game, win_entered(game)["win"])
    return game


def tally_points(rack, options: RuleOptions) -> int:
    """The tally's preview of what a typed rack costs; a rack the box cannot hold (``R5 J J J``
    from the 106-tile box) is refused as the confirm refuses it.  (``rack_value`` itself stays
    lenient: the camera totals what it reads, misreads included.)"""
    return rack_value(check_rack(rack, options), options)


def loser_preview(g: Game, name: str, tiles, melded: bool, win: str | None = None,
                  joker_discard: bool | None = None, hand=None) -> int | None:
    """The tally's preview of the score ``name`` enters with ``tiles`` left, as a player who did not
    go out and has ``melded`` or not, by the game's own scoring (``score_hand``); None when it
    depends on more than this rack (a Closed win's ``hand``, the winner's 14 tiles, not given: an
    empty one) or the win cannot be scored (a Foot or Closed win from a winner who had melded).
    ``win``, ``joker_discard`` and ``hand`` left None are the count's (:func:`rules.game_win.win_entered`), so every
    phone previews the win another phone entered.  A rack holding the trump's twin gets its bonus."""
    entered = win_entered(g)
    win = win or entered.get("win")
    joker_discard = entered.get("joker_discard", False) if joker_discard is None else joker_discard
    hand = entered.get("hand") if hand is None else hand
    o = g.options
    winner = g.tally.winner
    if winner == name:
        return None
    if winner is None and not o.scoring_method.final_scores and not o.scoring_method.hand_details:
        return None  # Sabra and American, pool empty: it depends on the lowest rack
    extra: dict = {}
    if o.scoring_method.hand_details:  # International
        if winner is not None and win in FOOT_CLOSED and melded_before(g):
            return None  # refused at the confirm
        if win == "closed" and not melded:
            if not hand:
                return None  # pays the closed hand's points
            facts = hand_facts(g)
            extra = {"win": "closed", "hand": list(hand), "joker_discard": joker_discard,
                     "first_turn": facts.get("first_turn", False), "original_hand": facts.get("original_hand", False)}
        else:
            extra = {"win": win if win in ("open", "foot") else "open", "joker_discard": joker_discard}
        if o.trump_bonus and g.trump is not None and g.trump in tiles:
            extra["trump_holders"] = [name]
    out = winner if winner is not None else ("" if name != "" else " ")  # the pool ran out: a stand-in winner
    try:
        result = score_hand({out: [], name: list(tiles)}, melded={out: True, name: melded}, options=o,
                            winner=out, **extra)
    except (ValueError, TypeError):
        return None
    return int(result.scores[name])


def _melded(game: Game, override: Mapping[str, bool] | None) -> dict[str, bool]:
    """Who has melded, for scoring: the game's knowledge, corrected by the players in the tally
    (the camera may have missed a meld), then by ``override``; the player who went out has melded."""
    melded = {name: has_melded(game, name) for name in game.names}
    for name, value in (override or {}).items():
        game.seat_of(name)
        if not isinstance(value, bool):
            raise GameError(f"has {name} melded? say true or false, not {value!r}")
        if name == game.tally.winner and not value:
            raise GameError(f"{name} went out, so has melded")
        melded[name] = value
    if game.tally.winner:
        melded[game.tally.winner] = True
    return melded


def _missing(game: Game) -> list[str]:
    return [s.name for s, r in zip(game.seats, game.tally.racks) if r is None or (not r and s.name != game.tally.winner)]


def confirm_tally(game: Game, now: float, racks: Mapping[str, tuple[Tile, ...] | None] | None = None,
                  *, melded: Mapping[str, bool] | None = None, count_checked: bool = False, **extra: Any) -> Game:
    """The players agree on every rack: score the hand and deal the next one (it waits for its start),
    or, when that hand ends the agreed length (``rules.game_length``), finish the game.

    The racks are those entered in the tally (:func:`set_tally_rack`, :func:`read_rack`).
    A rack given in ``racks`` replaces the entered one (it is what the confirming
    players see; more tiles than the count says are asked about as :func:`set_tally_rack`
    asks, unless ``count_checked``); None or an empty rack there leaves the entered one as it is, so
    a client that has not seen a rack entered on another phone does not erase it.
    A rack neither entered nor given is refused; only the player who went out
    has an empty rack.  Racks that together hold more than the box are refused naming whose; a rack
    read by the camera that the count questions (:func:`rules.game_reads.check_reads`: the wrong number
    of tiles, a copy more than the box holds) is asked about unless ``count_checked``.
    ``melded`` corrects, for this hand's score, whether a
    player has melded (Israeli and International scoring), over the corrections
    entered in the tally (:func:`set_tally_melded`).  ``extra`` are the
    International hand details of :func:`rules.scoring.score_hand` (win kind,
    closed hand ...); the win, the closed hand and the joker discard default to
    those entered (:func:`rules.game_win.set_tally_win`), and one given here replaces the
    entered one as a rack given does (see :func:`rules.game_win.win_scored`); what the game knows itself (a first turn,
    the hand dealt, who holds the trump's twin) is not the players' to send.
    The scored hand keeps how it was won (:class:`~rules.game_state.ScoredHand`).
    """
    require(game, Status.TALLY)
    known = sorted({"first_turn", "trump_holders"} & set(extra))
    if known and game.options.scoring_method.hand_details:
        raise GameError(f"{', '.join(known)}: the game knows it (from the turn and the racks entered), "
                        "the players do not send it")
    for name, rack in (racks or {}).items():
        game.seat_of(name)
        if rack:
            game = set_tally_rack(game, name, tuple(rack), count_checked=count_checked)
    tally = game.tally
    blank = _missing(game)
    if blank:
        who = f"only {tally.winner}, who went out, has an empty rack" if tally.winner else \
            "nobody went out, so every rack holds tiles"
        raise GameError(f"rack not given for {', '.join(blank)}: type the tiles left on it "
                        f"or read it from the camera ({who})")
    names = game.names
    parsed = {n: list(r) for n, r in zip(names, tally.racks)}
    melded = _melded(game, melded)
    game = win_scored(game, extra)
    if tally.winner:
        extra.setdefault("winner", tally.winner)
    o = game.options
    if o.scoring_method.hand_details and o.trump_bonus:
        extra["trump_holders"] = list(trump_holders(game))
    _box_holds(game, parsed, extra.get("hand"))
    if not count_checked:
        check_reads(game)
    try:
        result = score_hand(parsed, melded=melded, pool_empty=tally.pool_empty, options=o, **extra)
    except (TypeError, RuleError) as exc:
        raise GameError(f"cannot score this hand: {exc}") from None
    scored = _scored(game, result, extra)
    agreed = replace(game, undo=None, turn_back=None)  # a scored hand's turns are not taken back one by one
    nxt = new_hand(replace(game, hands=game.hands + (scored,)), now)
    if over(nxt):  # the agreed last hand, or the target reached: as "Finish the game" now, but undoable
        nxt = finish_game(nxt, now)
    return replace(nxt, undo=agreed)


def _box_holds(game: Game, racks: dict[str, list[Tile]], hand) -> None:
    """The racks (and a Closed win's hand) come out of one box: more copies than it holds are refused
    naming whose racks hold them, so the players know which to look at again."""
    where = {n: r for n, r in racks.items() if r}
    if hand:
        where[f"{game.tally.winner}'s closed hand"] = list(hand)
    box = game.options.box
    excess = box.excess(t for r in where.values() for t in r)
    if not excess:
        return
    whose = [f"{n} x {t} ({', '.join(f'{who} {r.count(t)}' for who, r in where.items() if t in r)})"
             for t, n in excess.items()]
    raise GameError(f"cannot score this hand: more copies than the box holds: {', '.join(whose)}: the {box.name} "
                    f"box holds {box.copies} of each number tile and {box.jokers} jokers; correct those racks")


def _scored(game: Game, result: HandResult, extra: dict[str, Any]) -> ScoredHand:
    """The hand as the sheet keeps it: scores and racks, and how it was won (the final discard, the win,
    the closed hand's type, the doubling, the trump's twin)."""
    tally, details = game.tally, result.details
    closed = details.get("closed_hand") or {}
    holders = tuple(extra.get("trump_holders") or ())
    return ScoredHand(number=game.hand, winner=result.winner, pool_empty=tally.pool_empty,
                      racks=tuple(tuple(r) for r in tally.racks),
                      scores=tuple(int(result.scores.get(n, 0)) for n in game.names), method=result.method,
                      discard=tally.discard, win=details.get("win"),
                      hand=tuple(extra["hand"]) if extra.get("hand") else None,
                      closed_type=closed.get("type"), closed_jokers=int(closed.get("jokers", 0)),
                      joker_discard=bool(details.get("joker_discard")), trump_holders=holders,
                      trump_bonus=game.options.trump_bonus if holders else 0)


def new_hand(game: Game, now: float) -> Game:
    """Deal the next hand: the start passes on, rules chosen meanwhile apply, penalties start again.

    The hand waits (DEALING, its first clock paused) while the players collect,
    shuffle and deal: :func:`rules.game_deal.start_hand` starts it, and says
    which trump it turned (the last one is shuffled in: none is known until then).
    """
    options = game.pending or game.options
    starter = game.step_from(game.starter)
    seats, pool = deal(options, game.names, starter)
    last = game.hands[-1] if game.hands else None
    summary = LastTurn(
        player=last.winner if last else None, action="score", verdict=Verdict(legal=True, changed=False),
        note=(f"hand {last.number} scored: " + ", ".join(f"{n} {s:+d}" for n, s in zip(game.names, last.scores)))
        if last else "",
    )
    return replace(game, options=options, pending=None, seats=seats, pool=pool, status=Status.DEALING,
                   hand=game.hand + 1, starter=starter, trump=None, trump_up=options.flow.trump, dead=0, discards=(),
                   turn=open_turn(options, starter, 1, (), now, paused=True), last=summary, restore=None,
                   tally=None, turn_back=None)


def undo_last_hand(game: Game, now: float) -> Game:
    """Take back the last scored hand: its tally opens again as the players left it.  A game that ended
    by itself with that hand (its agreed length) goes on again; one the players finished does not.

    Rules chosen since (while the next hand was dealt) stay chosen, for the next hand: the hand dealt is
    taken back, not what the players agreed meanwhile."""
    if game is None:
        raise GameError("no game yet: start one first")
    if game.undo is None:
        if game.status is Status.FINISHED:
            raise GameError("the game is finished: start a new one")
        raise GameError("there is no scored hand to take back (only until the next hand's first turn ends)")
    back = game.undo
    chosen = game.pending or game.options  # the next hand's rules as the players left them
    return replace(back, pending=None if chosen == back.options else chosen,
                   turn=replace(back.turn, clock=back.turn.clock.pause(now)))


def score_sheet(game: Game) -> ScoreSheet:
    """The score sheet of the hands scored so far, by the game's scoring method."""
    sheet = ScoreSheet(list(game.names), game.options)
    for h in game.hands:
        sheet.add_hand(HandResult(winner=h.winner, scores=dict(zip(game.names, h.scores)), method=h.method))
    return sheet


def finish_game(game: Game, now: float) -> Game:
    """The players stop: the game is over and its sheet final (004_*: "until they have played the number
    of games/rounds they agreed to play"; the winner is the sheet's, e.g. most games won).

    Between hands or during one (that hand is not scored); a tally being counted
    must be confirmed or cancelled first.  Nothing can be played or taken back after (unlike the
    game's end by its agreed length, whose last hand :func:`confirm_tally` leaves undoable).
    """
    if game is None:
        raise GameError("no game yet: start one first")
    if game.status is Status.FINISHED:
        raise GameError("the game is finished already")
    if game.status is Status.TALLY:
        raise GameError("the racks are being counted: confirm the hand (or go back to the game) first")
    turn = replace(game.turn, clock=game.turn.clock.pause(now))
    return replace(game, status=Status.FINISHED, turn=turn, restore=None, undo=None, turn_back=None)
