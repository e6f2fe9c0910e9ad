"""The International win at the count: what the game knows of the winner's hand, the win the players
enter, and what it is worth before Confirm.

004_* International scores how a player went out (Open, Foot or Closed; the last discard a joker; Little
and Grand Blitz), so the count needs what the game saw of the winner's turn (first turn, the tile drawn,
an earlier meld, the trump's twin) beside what the players say.  Kept in the tally as the racks are, so
every phone previews and confirms the same win (:mod:`rules.game_tally` scores it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.game_state import Game, GameError, Status
from rules.game_turns import require
from rules.international import hand_type as closed_type
from rules.scoring import WINS, score_hand
from rules.tiles import RuleError, Tile


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


def no_meld_before(game: Game, win: str | None) -> None:
    """Refuse a Foot or Closed win from a player who had melded earlier this hand (004_* International):
    both meld the whole hand at once."""
    if win in FOOT_CLOSED and melded_before(game):
        what, rule = FOOT_CLOSED[win]
        who = game.tally.winner
        raise GameError(f"{who} melded earlier this hand, so cannot {what} (International rules: {rule}); "
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
    no_meld_before(game, win)
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
        why = f"{who} started the hand (International rules: Grand Blitz is \"not available for first player\")"
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


def hand_facts(game: Game) -> dict[str, Any]:
    """International: what the game knows of the winner's turn that a Closed hand's type needs besides
    the tiles: ``first_turn`` (Little Blitz) and ``original_hand`` (Grand Blitz); {} where nobody went
    out or in another game."""
    if not win_entered(game):
        return {}
    return {"first_turn": first_turn(game), "original_hand": original_hand(game)}


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
    no_meld_before(g, win)
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
        raise GameError("the trump may not be the final draw of an Open win (International rules): "
                        "only a Foot or Closed win may take it")


BLITZ = {39: ("first_turn", "on the winner's first turn"), 40: ("original_hand", "in the hand the winner was dealt")}


def win_scored(game: Game, extra: dict[str, Any]) -> Game:
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
    no_meld_before(game, details["win"])
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
        raise GameError(f"{closed_type(number).name} is 14 tiles in sets {BLITZ[number][1]} (International rules), and "
                        f"{game.tally.winner}'s was not: enter the closed hand's tiles instead")
