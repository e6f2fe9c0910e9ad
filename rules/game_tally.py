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
from rules.game_turns import (
    check_discard, check_rack, check_time_up, deal, ending_checks, judge, open_turn, require,
)
from rules.options import RuleOptions
from rules.international import hand_type as closed_type
from rules.scoring import WINS, HandResult, ScoreSheet, rack_value, score_hand
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
                            started_at=turn.clock.since, ended_at=now, action=action, verdict=verdict, penalty=0,
                            table_before=turn.table_before, table_after=table_of(table), discard=discard)
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


def read_rack(game: Game, name: str, table: Table) -> Game:
    """The tiles the camera sees beyond the final table: the player's rack laid out in view.  Kept as
    read even when the count says it cannot be right (the wrong number of tiles, a copy more than the
    box holds): it is questioned instead (:func:`rules.game_reads.read_doubts`), and the confirm asks."""
    require(game, Status.TALLY)
    rack = tiles_added(game.tally.table, table)
    if not rack:
        raise GameError(f"no tiles in view beyond the final table: lay {name}'s rack out by the table, "
                        "or type it")
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
        _no_meld_before(game, win_entered(game)["win"])
    return game


def melded_before(game: Game) -> bool:
    """International: had the player who went out made the first meld before the turn they went out in?
    The seat as that turn found it ("Rummikub!" leaves the seats so), as the players corrected it."""
    return _meld_on_record(game, game.seat_of(game.tally.winner))


def _meld_on_record(game: Game, i: int) -> bool:
    """Has seat ``i`` made the first meld: the players' correction in the tally, else what the game knows."""
    tally = game.tally
    corrected = tally.melded[i] if tally is not None and tally.melded else None
    return game.seats[i].has_melded if corrected is None else corrected


FOOT_CLOSED = {
    "foot": ("go out on foot", '"Foot: ... you meld 14 tiles at once and discard your 15th tile"'),
    "closed": ("win closed", '"Closed: This is a win in which you meld all 14 tiles at once"'),
}


def _no_meld_before(game: Game, win: str | None) -> None:
    """Refuse a Foot or Closed win from a player who had melded earlier this hand (004_* International):
    both meld the whole hand at once."""
    if win in FOOT_CLOSED and melded_before(game):
        what, rule = FOOT_CLOSED[win]
        who = game.tally.winner
        raise GameError(f"{who} melded earlier this hand, so cannot {what} (004_* International: {rule}); "
                        f"if {who} had not melded before going out, untick \"had melded before going out\" first")


def first_turn(game: Game) -> bool:
    """Did the player who went out do it on their first turn of the hand (Little Blitz, 004_*)?  Turns
    go round the seats in order from turn 1, so the first round's turns are each player's first."""
    tally = game.tally
    return (tally is not None and tally.winner is not None and tally.winner == game.current.name
            and game.turn.number <= len(game.seats))


def dealt_hand(game: Game) -> bool | None:
    """Were the 14 tiles melded the hand the winner was dealt (Grand Blitz, 004_*: "in your original
    hand (not available for first player)")?  Only on a first turn, never for the hand's starter; known
    when the tile drawn that turn is (the previous discard, the trump): it must be the final discard.
    None: drawn face down from the pool, only the players know."""
    if not first_turn(game) or game.turn.seat == game.starter:
        return False
    drew = game.turn.drew
    if drew is None:
        return False
    if drew.tile is None:
        return None
    return game.tally.discard is not None and drew.tile == game.tally.discard


def original_hand(game: Game) -> bool:
    """The 14 tiles melded were the hand dealt: as the game knows it (:func:`dealt_hand`), else as the
    players said (``Tally.original_hand``); not said, they were not (Little Blitz at most)."""
    known = dealt_hand(game)
    return bool(game.tally.original_hand) if known is None else known


def trump_holders(game: Game, hand=None) -> tuple[str, ...]:
    """International with a ``trump_bonus``: who holds the tile identical to the trump (004_*: "Some play
    that if you have the identical tile to the trump ... you score an extra 50 points"), as far as the
    count shows it: a rack entered holding it, or a Closed win's ``hand`` (None: the one entered) holding
    it beyond the trump itself when the winner drew the trump.  A twin melded earlier is not known."""
    o, tally = game.options, game.tally
    if not o.trump_bonus or game.trump is None or tally is None or not o.scoring_method.hand_details:
        return ()
    entered = win_entered(game)
    if hand is None:
        hand = entered.get("hand")
    holders = []
    for s, rack in zip(game.seats, tally.racks):
        if s.name == tally.winner:
            tiles = hand if entered.get("win") == "closed" and hand else ()
            twins = list(tiles).count(game.trump) - bool(tally.trump_drawn)
        else:
            twins = list(rack or ()).count(game.trump)
        if twins > 0:
            holders.append(s.name)
    return tuple(holders)


def has_melded(game: Game, name: str) -> bool:
    """Has ``name`` made the first meld, as the tally counts it: the players' correction, else what
    the game knows; the player who went out has."""
    i = game.seat_of(name)
    if game.tally is not None and name == game.tally.winner:
        return True
    return _meld_on_record(game, i)


WIN_DETAILS = ("win", "hand", "joker_discard", "original_hand")


def set_tally_win(game: Game, **details: Any) -> Game:
    """International: how the winner went out, as the players enter it: ``win`` ("open", "foot" or
    "closed"; None: not said, an Open win), ``hand`` (a Closed win's 14 tiles; None or empty: not given)
    and/or ``joker_discard`` (the final discard was a joker, doubling the hand; None: as the discard
    recorded with "Rummikub!" says) and/or ``original_hand`` (the 14 tiles were the hand dealt, Grand
    Blitz, where the game cannot know it: :func:`dealt_hand`; None: not said).

    Kept in the tally, as its racks are, so that the phone that confirms scores the win another phone
    entered.  A hand is refused in words unless its 14 tiles, which the box can hold, make one of the
    40 types (as :func:`closed_preview` judges it); with the others' racks it is checked at the confirm,
    as the racks are with each other.  A Foot or Closed win is refused for a winner who had melded earlier
    this hand (:func:`melded_before`).
    """
    require(game, Status.TALLY)
    tally = game.tally
    unknown = sorted(set(details) - set(WIN_DETAILS))
    if unknown:
        raise GameError(f"unknown win detail(s): {', '.join(unknown)} (say win, hand, joker_discard or "
                        "original_hand)")
    if not game.options.scoring_method.hand_details:
        raise GameError("the kind of win (open, foot or closed) is entered only in the International game")
    if tally.winner is None:
        raise GameError("nobody went out (the pool ran out), so there is no win to enter")
    win = details.get("win", tally.win)
    if win is not None and win not in WINS:
        raise GameError(f"unknown win {win!r} (open, foot or closed)")
    hand = details.get("hand", tally.hand)
    if hand is not None:
        if not isinstance(hand, (tuple, list)) or not all(isinstance(t, Tile) for t in hand):
            raise GameError(f"the closed hand: give its 14 tiles, not {hand!r}")
        hand = tuple(hand) or None
        if hand is not None:
            closed_preview(game, hand, False)  # refused in its words when it scores nothing
    joker = details.get("joker_discard", tally.joker_discard)
    if joker is not None and not isinstance(joker, bool):
        raise GameError(f"was the final discard a joker? say true or false, not {joker!r}")
    dealt = details.get("original_hand", tally.original_hand)
    if "original_hand" in details and dealt is not None:
        _say_dealt(game, dealt)
    game = replace(game, tally=replace(tally, win=win, hand=hand, joker_discard=joker, original_hand=dealt))
    _no_meld_before(game, win)
    return game


def _say_dealt(game: Game, dealt: Any) -> None:
    """The players may say the 14 tiles were (or were not) the hand dealt only where the game cannot
    know it (:func:`dealt_hand`)."""
    if not isinstance(dealt, bool):
        raise GameError(f"were the 14 tiles the hand dealt? say true or false, not {dealt!r}")
    known = dealt_hand(game)
    if known is None or known == dealt:
        return
    who = game.tally.winner
    if not first_turn(game):
        why = f"{who} did not go out on their first turn"
    elif game.turn.seat == game.starter:
        why = f"{who} started the hand (004_*: Grand Blitz is \"not available for first player\")"
    else:
        why = f"{who} drew {game.turn.drew.tile} this turn and discarded {game.tally.discard}"
    raise GameError(f"the 14 tiles melded cannot be the hand dealt (Grand Blitz): {why}")


def win_entered(game: Game) -> dict[str, Any]:
    """International, the win as the count holds it (:func:`set_tally_win`): ``win`` (Open unless the
    players said otherwise), ``hand`` (None: not given) and ``joker_discard`` (the players' say, else
    whether the final discard recorded was a joker); {} where there is no win to describe (another
    game, or the pool ran out), so that every phone and the confirm read the same win."""
    tally = game.tally
    if tally is None or tally.winner is None or not game.options.scoring_method.hand_details:
        return {}
    joker = tally.joker_discard
    if joker is None:
        joker = tally.discard is not None and tally.discard.is_joker
    return {"win": tally.win or "open", "hand": tally.hand, "joker_discard": joker}


def tally_points(rack, options: RuleOptions) -> int:
    """The tally's preview of what a typed rack costs; a rack the box cannot hold (``R5 J J J``
    from the 106-tile box) is refused as the confirm refuses it.  (``rack_value`` itself stays
    lenient: the camera totals what it reads, misreads included.)"""
    return rack_value(check_rack(rack, options), options)


def hand_facts(game: Game) -> dict[str, Any]:
    """International: what the game knows of the winner's turn that a Closed hand's type needs besides
    the tiles: ``first_turn`` (Little Blitz) and ``original_hand`` (Grand Blitz); {} where nobody went
    out or in another game."""
    if not win_entered(game):
        return {}
    return {"first_turn": first_turn(game), "original_hand": original_hand(game)}


def loser_preview(g: Game, name: str, tiles, melded: bool, win: str | None = None,
                  joker_discard: bool | None = None, hand=None) -> int | None:
    """The tally's preview of the score ``name`` enters with ``tiles`` left, as a player who did not
    go out and has ``melded`` or not, by the game's own scoring (``score_hand``); None when it
    depends on more than this rack (a Closed win's ``hand``, the winner's 14 tiles, not given: an
    empty one) or the win cannot be scored (a Foot or Closed win from a winner who had melded).
    ``win``, ``joker_discard`` and ``hand`` left None are the count's (:func:`win_entered`), so every
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


def closed_preview(g: Game, hand=None, joker_discard: bool | None = None) -> dict[str, Any]:
    """International, a Closed win, before Confirm: the best of the 40 types the winner's 14 tiles make
    (``type``, ``name``, ``jokers``, ``points``) and what the winner scores (``winner_score``), by the
    confirm's own scoring, so the players see the hand's value before they agree it.  A hand that is
    not 14 tiles, holds more than the box, or makes none of the types is refused in words, and so is a
    Closed win from a winner who had melded.  ``hand`` and ``joker_discard`` left None are the count's
    (:func:`win_entered`)."""
    tally = g.tally
    if not g.options.scoring_method.hand_details or tally is None or tally.winner is None:
        raise GameError("only the player who went out in an International game can win closed")
    entered = win_entered(g)
    hand = entered["hand"] if hand is None else hand
    if hand is None:
        raise GameError("the closed hand: not given yet (the winner's 14 tiles)")
    preview = win_preview(g, "closed", hand, joker_discard)
    return dict(preview["closed_hand"], winner_score=preview["winner_score"])


def win_preview(g: Game, win: str | None = None, hand=None, joker_discard: bool | None = None) -> dict[str, Any]:
    """International, before Confirm: what the player who went out scores by the confirm's own scoring,
    whatever the win: ``win``, ``points`` (the win's, before the joker discard doubles it), ``joker_discard``,
    ``trump_bonus`` (the twin's bonus, added after the doubling), ``winner_score``, and ``closed_hand``
    (``type``, ``name``, ``jokers``, ``points``) for a Closed win.  A win that cannot be scored is
    refused in words (a Foot or Closed win from a winner who had melded, the trump as the final draw of
    an Open win, a closed hand not given or that makes none of the 40 types).  Left None, ``win``,
    ``hand`` and ``joker_discard`` are the count's (:func:`win_entered`)."""
    tally = g.tally
    entered = win_entered(g)
    if not entered:
        raise GameError("only the player who went out in an International game has a win to preview")
    win = win or entered["win"]
    if win not in WINS:
        raise GameError(f"unknown win {win!r} (open, foot or closed)")
    joker_discard = entered["joker_discard"] if joker_discard is None else joker_discard
    _no_meld_before(g, win)
    _no_trump_open(g, win)
    extra: dict[str, Any] = {"win": win, "joker_discard": bool(joker_discard)}
    if win == "closed":
        hand = entered["hand"] if hand is None else hand
        if not hand:
            raise GameError("the closed hand: not given yet (the winner's 14 tiles)")
        extra["hand"] = list(hand)
    extra.update(hand_facts(g))
    holds = tally.winner in trump_holders(g, hand if win == "closed" else None)
    if holds:
        extra["trump_holders"] = [tally.winner]
    melded = {n: has_melded(g, n) for n in g.names}
    try:
        result = score_hand({n: [] for n in g.names}, melded=melded, options=g.options, winner=tally.winner,
                            **extra)
    except RuleError as exc:
        raise GameError(f"the closed hand: {exc}") from None
    score = int(result.scores[tally.winner])
    bonus = g.options.trump_bonus if holds else 0
    out = {"win": win, "points": (score - bonus) // (2 if joker_discard else 1), "joker_discard": bool(joker_discard),
           "trump_bonus": bonus, "winner_score": score}
    if win == "closed":
        out["closed_hand"] = result.details["closed_hand"]
    return out


def _no_trump_open(game: Game, win: str) -> None:
    if game.tally.trump_drawn and win == "open" and game.options.game == "international":
        raise GameError("the trump may not be the final draw of an Open win (004_* International): "
                        "only a Foot or Closed win may take it")


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


BLITZ = {39: ("first_turn", "on the winner's first turn"), 40: ("original_hand", "in the hand the winner was dealt")}


def _win(game: Game, extra: dict[str, Any]) -> Game:
    """International: the win scored is the one entered in the count (:func:`win_entered`).  A ``win``,
    ``hand``, ``joker_discard`` or ``original_hand`` given in ``extra`` (the confirming players', or an
    older client's) replaces the entered one and is entered in the count, as a rack given to the confirm
    is, so that taking the hand back shows what was scored; one that is None there (an empty hand) leaves
    the entered one.  A hand or ``hand_type`` given without a win is a Closed win; a Little or Grand
    Blitz ``hand_type`` only where the game knows the hand was one.  A Foot or Closed win is refused for
    a winner who had melded, the trump as the final draw of an Open win (004_* International).  The
    game's own knowledge (first turn, hand dealt, the trump's twin) is added; ``extra`` is completed in
    place for the scoring."""
    if not win_entered(game):
        return game  # another game, or nobody went out: score_hand judges any detail given
    given = {k: extra.pop(k) for k in WIN_DETAILS if k in extra}
    given = {k: v for k, v in given.items() if v is not None and not (k == "hand" and not v)}
    if ("hand" in given or extra.get("hand_type") is not None) and "win" not in given:
        given["win"] = "closed"
    game = set_tally_win(game, **given) if given else game
    details = win_entered(game)
    typed = extra.get("hand_type") is not None and "hand" not in given
    if details["win"] == "closed" and details["hand"] is None and not typed:
        raise GameError("a Closed win needs the closed hand: enter the winner's 14 tiles")
    if details["win"] != "closed" or typed:
        details.pop("hand")
    else:
        details["hand"] = list(details["hand"])
    _no_meld_before(game, details["win"])
    _no_trump_open(game, details["win"])
    facts = hand_facts(game)
    if typed and details["win"] == "closed":
        _blitz_typed(game, extra["hand_type"], facts)
    extra.update(details, **facts)
    return game


def _blitz_typed(game: Game, key, facts: dict[str, Any]) -> None:
    """A hand type sent as a number or name: Little and Grand Blitz are what the game knows of the turn,
    not the players' say."""
    try:
        number = closed_type(key).number
    except RuleError as exc:
        raise GameError(f"cannot score this hand: {exc}") from None
    if number in BLITZ and not facts[BLITZ[number][0]]:
        raise GameError(f"{closed_type(number).name} is 14 tiles in sets {BLITZ[number][1]} (004_*), and "
                        f"{game.tally.winner}'s was not: enter the closed hand's tiles instead")


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
    those entered (:func:`set_tally_win`), and one given here replaces the
    entered one as a rack given does (see :func:`_win`); what the game knows itself (a first turn,
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
    game = _win(game, extra)
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
