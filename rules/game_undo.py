"""Undo last turn: take back a turn recorded on the players' word, when the word was wrong.

With no camera, End turn asks what the turn did ("Drew a tile", "Played 3
tiles", the discard).  A wrong answer, or the wrong player's turn ended, would
leave rack counts, the pool, who has melded, the discards, whose turn it is and
the clock wrong for the rest of the hand.  Such a turn keeps the game as it
found it (``Game.turn_back``, :func:`rules.game_turns.kept_for_undo`), and
:func:`undo_turn` brings it back while nothing has happened since.  A turn the
camera judged keeps none: what the camera saw stands.
"""

from __future__ import annotations

from dataclasses import replace

from rules.game_state import Action, Game, GameError, Status


def turn_back_refusal(game: Game | None) -> str | None:
    """Why the last turn cannot be taken back now, in the players' words; None when it can."""
    if game is None:
        return "no game yet: start one first"
    if game.status is Status.FINISHED:
        return "the game is finished: start a new one"
    if game.status is Status.TALLY:
        return "the racks are being counted: a turn can be taken back only in play (press Back to the game first)"
    if game.status is Status.DEALING:
        return f"hand {game.hand} is dealt and has not started: no turn of it has ended"
    last, back = game.last, game.turn_back
    if last is None or last.action == "score":
        return "no turn has ended yet this hand"
    if back is None:
        if last.action == Action.UNCHECKED.value:
            return f"{last.player}'s turn can no longer be taken back"
        return (f"the camera saw {last.player}'s turn and the rules judged it: what it saw stands (Undo last turn "
                "is for a turn recorded on the players' word, with no camera)")
    why = _since(game, back)
    return f"{last.player}'s turn can no longer be taken back: {why}" if why else None


def _since(game: Game, back: Game) -> str | None:
    """What has happened since the turn ended, if anything: then the turn stands."""
    turn, name = game.turn, game.current.name
    if (game.hand, turn.number) != (back.hand, back.turn.number + 1):
        return "the game has moved on since"
    if turn.time_up is not None:
        return f"{name}'s time has run out since"
    if turn.drew is not None:
        return f"{name} has drawn since (take the draw back first with Undo draw)"
    if turn.found is not None:
        return "the camera has found the table since: the table it sees stands"
    return None


def undo_turn(game: Game | None, now: float) -> Game:
    """The game as it was before the last turn ended on the players' word: that player's turn again.

    The turn goes on with the time it had left when it ended (as after Back to
    the game); a clock that had run out stays stopped, so End turn asks again.
    What the players changed since that no turn changes stays: the rules (a
    length changed in Settings, rules for the next hand), the trump tile said,
    and the racks typed by the other players.  Refused, saying why
    (:func:`turn_back_refusal`), once anything else has happened since.
    """
    why = turn_back_refusal(game)
    if why:
        raise GameError(why)
    back = game.turn_back
    undone = back.turn.seat
    seats = tuple(b if i == undone else replace(b, rack=typed.rack)
                  for i, (b, typed) in enumerate(zip(back.seats, game.seats)))
    clock = back.turn.clock if back.turn.time_up is not None else back.turn.clock.resume(now)
    return replace(back, seats=seats, options=game.options, pending=game.pending, trump=game.trump,
                   turn=replace(back.turn, clock=clock))
