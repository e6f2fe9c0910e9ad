"""How long a game is, and where a game stands in it.

004_* leaflet: "Each round is made up of multiple games. The number of players
determines the number of games in a round ... the players can determine the
numbers of rounds"; 000_* (Israeli): "A normal game consists of four rounds
(16 hands) for four players, and five rounds (20 hands) for five players", as
many rounds as players (``rounds="players"``); 003_*: "determine how many total points to reach
to signify the end of the game".  So a round is one hand per player, and the
options ``rounds`` and ``target_score`` say when the game ends by itself (both
None: open-ended, until the players finish it).  A game ends only when a hand
is scored: a hand in progress is never cut short.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from rules.game_state import Game, Status
from rules.options import ROUNDS_PER_PLAYER, RuleOptions

LENGTH = ("rounds", "target_score")  # the options that say how long a game is


@dataclass(frozen=True)
class Standing:
    """Where a game stands: the hand on the table (the last scored once finished) within its round."""

    hand: int
    round: int
    hand_in_round: int
    per_round: int  # hands in a round: one per player
    rounds: int | None  # agreed; None: open-ended
    target: int | None  # the total that ends the game; None: none
    per_player: bool = False  # the rounds agreed are as many as players

    @property
    def hands(self) -> int | None:
        """The hands the game is agreed to last; None when no number of rounds is agreed."""
        return None if self.rounds is None else self.rounds * self.per_round

    @property
    def last(self) -> bool:
        """This hand, once scored, ends the game by its rounds (it may be past them: a length shortened
        meanwhile still lets the hand in progress finish)."""
        return self.hands is not None and self.hand >= self.hands


def agreed_rounds(options: RuleOptions, players: int) -> int | None:
    """The rounds agreed for ``players`` players: option ``rounds``, as many as players for "players"."""
    return players if options.rounds == ROUNDS_PER_PLAYER else options.rounds


def standing(game: Game) -> Standing:
    """Where ``game`` stands under the length in force (changed lengths count at once: ``with_length``)."""
    per_round = len(game.seats)
    hand = len(game.hands) if game.status is Status.FINISHED else game.hand
    return Standing(hand=hand, round=(max(hand, 1) - 1) // per_round + 1,
                    hand_in_round=(max(hand, 1) - 1) % per_round + 1, per_round=per_round,
                    rounds=agreed_rounds(game.options, per_round), target=game.options.target_score,
                    per_player=game.options.rounds == ROUNDS_PER_PLAYER)


def over(game: Game) -> bool:
    """The agreed length is reached by the hands scored: the rounds are played, or a total reached the
    target (scores as the score sheet adds them)."""
    totals = [sum(h.scores[i] for h in game.hands) for i in range(len(game.seats))]
    return reached(game.options, len(game.seats), len(game.hands), totals)


def reached(options: RuleOptions, players: int, hands: int, totals: Sequence[int]) -> bool:
    """``hands`` scored hands leaving ``totals`` reach the length of ``options``: its rounds are played,
    or a total is at or above its target."""
    rounds = agreed_rounds(options, players)
    if rounds is not None and hands >= rounds * players:
        return True
    return options.target_score is not None and hands > 0 and max(totals) >= options.target_score


def ended_at(options: RuleOptions, scores: Sequence[Sequence[int]]) -> int | None:
    """The hand (1-based) that, once scored, ended a game played to the length of ``options`` from its
    start, each hand's ``scores`` in seat order; None while the length is not reached (or open-ended).
    A score sheet kept apart from a game (``rummikub-companion score``) says from it where the game ended."""
    totals: list[int] = []
    for n, hand in enumerate(scores, 1):
        totals = [t + s for t, s in zip(totals or [0] * len(hand), hand)]
        if reached(options, len(hand), n, totals):
            return n
    return None


def with_length(game: Game, options: RuleOptions) -> Game:
    """``game`` playing to the length of ``options`` at once, also in the tally that "Take back this hand"
    reopens: the length decides only whether another hand is dealt, so it need not wait for one."""
    length = {name: getattr(options, name) for name in LENGTH}
    undo = None if game.undo is None else with_length(game.undo, options)
    pending = None if game.pending is None else game.pending.replace(**length)
    return replace(game, options=game.options.replace(**length), pending=pending, undo=undo)
