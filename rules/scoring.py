"""Scoring one hand and keeping the score sheet of a whole game.

Four methods: Sabra and American (the winner takes what the losers hold, so a
hand sums to zero), International (points for the kind of win and the 40 closed
hands, see :mod:`rules.international`) and the Israeli minus scoring of 000_*
(good hands score low; primary and final scores at the end sum to zero).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from rules.international import classify_closed_hand, hand_type, international_tile_value, settlement
from rules.options import RuleOptions, require
from rules.tiles import RuleError, Tile

WINS = ("open", "foot", "closed")


@dataclass
class HandResult:
    """One hand: who won (None when nobody did) and each player's score."""

    winner: str | None
    scores: dict[str, int]
    method: str = "sabra"
    rack_values: dict[str, int] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "scores": dict(self.scores),
            "method": self.method,
            "rack_values": dict(self.rack_values),
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "HandResult":
        try:
            scores = {str(k): int(v) for k, v in d["scores"].items()}
        except (KeyError, AttributeError, TypeError, ValueError):
            raise ValueError("a hand needs 'scores': an object of player -> integer") from None
        return cls(
            winner=d.get("winner"),
            scores=scores,
            method=d.get("method", "sabra"),
            rack_values={str(k): int(v) for k, v in (d.get("rack_values") or {}).items()},
            details=dict(d.get("details") or {}),
        )


def tile_value(tile: Tile, options: RuleOptions) -> int:
    """What a tile left on a rack costs under the options' scoring."""
    o = require(options, "tile_value")
    return o.scoring_method.tile_value(tile, o)


def _face_value(tile: Tile, o: RuleOptions) -> int:
    return o.joker_penalty if tile.is_joker else tile.number


def _international_value(tile: Tile, o: RuleOptions) -> int:
    return international_tile_value(tile, o.joker_penalty)


def rack_value(tiles: Iterable[Tile], options: RuleOptions) -> int:
    """Total of a rack: face values, a joker ``joker_penalty`` (International: 10 for 10-13 and 1)."""
    return sum(tile_value(t, options) for t in tiles)


def _options(method: str | None, options: RuleOptions, where: str) -> RuleOptions:
    options = require(options, where)
    if method and method != options.scoring:
        return options.replace(scoring=method)
    return options


def score_hand(
    racks: dict[str, list[Tile]],
    *,
    method: str | None = None,
    melded: dict[str, bool] | None = None,
    pool_empty: bool = False,
    options: RuleOptions,
    **extra: Any,
) -> HandResult:
    """Score one hand from what is left on each rack.

    ``method``, when given, overrides the options' scoring method.  A
    player with an empty rack went out.  ``melded`` (default: everybody) matters
    for the Israeli and International methods.  International takes extra
    keywords: ``win`` ("open", "foot", "closed"), ``winner``, ``hand`` (the 14
    tiles of a closed hand) or ``hand_type`` (its number or name),
    ``first_turn``, ``original_hand``, ``joker_discard`` (doubles the hand),
    ``trump_holders`` (players holding the trump's twin, paid ``trump_bonus``).
    """
    o = _options(method, options, "score_hand")
    scorer = o.scoring_method
    if len(racks) < 2:
        raise RuleError("a hand needs at least two players")
    melded = {p: True for p in racks} | dict(melded or {})
    unknown = sorted(set(melded) - set(racks))
    if unknown:
        raise RuleError(f"'melded' names players without a rack: {', '.join(unknown)}")
    values = {p: rack_value(r, o) for p, r in racks.items()}
    out = [p for p, r in racks.items() if not r]
    named = extra.pop("winner", None)
    if named is not None:
        if named not in racks:
            raise RuleError(f"the winner {named!r} has no rack in this hand")
        out = [named]
    if len(out) > 1:
        raise RuleError(f"only one player can go out, but {', '.join(out)} have empty racks")
    o.box.check_counts(t for r in racks.values() for t in r)
    res = scorer.hand(racks, values, out[0] if out else None, melded, pool_empty, o, extra)
    method = res.method = scorer.name
    res.rack_values = values
    for key in ("trump", "discard"):
        if key in extra:
            res.details[key] = str(extra.pop(key))
    if extra:
        raise RuleError(f"unknown hand detail(s) for {method} scoring: {', '.join(sorted(extra))}")
    return res


def _sabra(racks, values: dict[str, int], winner: str | None, melded, pool_empty: bool, o, extra) -> HandResult:
    """Sabra and American: the winner takes what the losers hold (004_*); the pool run dry: the lowest
    rack wins (or the fewest tiles, option ``pool_empty_winner``), several such share the pot."""
    if winner is not None:
        scores = {p: -v for p, v in values.items()}
        scores[winner] = sum(v for p, v in values.items() if p != winner)
        return HandResult(winner, scores)
    if not pool_empty:
        raise RuleError("nobody went out (no empty rack); set pool_empty when the pool ran out")
    if o.pool_empty_winner == "fewest_tiles":  # 002_*: scored as if the fewest tiles had gone out
        fewest = min(len(r) for r in racks.values())
        best = [p for p, r in racks.items() if len(r) == fewest]
        scores = {p: (0 if p in best else -v) for p, v in values.items()}
    else:  # 004_*: each loses the difference to the lowest rack
        low = min(values.values())
        best = [p for p, v in values.items() if v == low]
        scores = {p: low - v for p, v in values.items()}
    pot = -sum(scores.values())
    share, extra = divmod(pot, len(best))
    for i, p in enumerate(best):
        scores[p] = share + (1 if i < extra else 0)
    return HandResult(best[0] if len(best) == 1 else None, scores, details={"pool_empty": True})


def _israeli(racks, values, winner, melded, pool_empty, o, extra) -> HandResult:
    """000_*: minus scoring, -100 (-200 alone) for the winner, rack or 100 for the others."""
    if winner is None and not pool_empty:
        raise RuleError("nobody went out (no empty rack); set pool_empty when the pool ran out")
    scores = {p: (v if melded[p] else 100) for p, v in values.items()}
    if winner is not None:
        alone = not any(melded[p] for p in values if p != winner)
        scores[winner] = -200 if alone else -100
    return HandResult(winner, scores, details={"pool_empty": winner is None})


def _international(racks, values, winner, melded, pool_empty, o, extra) -> HandResult:
    """004_* International: points for the kind of win and closed hand; losers pay their racks or 100."""
    taken = dict(extra)
    extra.clear()  # every detail is this method's to read
    extra = taken
    win = extra.pop("win", None)
    hand = extra.pop("hand", None)
    htype = extra.pop("hand_type", None)
    first_turn = bool(extra.pop("first_turn", False))
    original = bool(extra.pop("original_hand", False))
    joker_discard = bool(extra.pop("joker_discard", False))
    jokers = int(extra.pop("jokers", 0))
    holders = list(extra.pop("trump_holders", []) or [])
    bonus = int(extra.pop("trump_bonus", o.trump_bonus))
    details: dict[str, Any] = {}
    for key in ("trump", "discard"):
        if key in extra:
            details[key] = str(extra.pop(key))
    if extra:
        raise RuleError(f"unknown hand detail(s) for international scoring: {', '.join(sorted(extra))}")
    if winner is None:
        if win is not None:
            raise RuleError(f"a {win} win needs a winner (an empty rack or 'winner')")
        if not pool_empty:
            raise RuleError("nobody went out (no empty rack); set pool_empty when the pool ran out")
    elif win is None:
        win = "closed" if (hand is not None or htype is not None) else "open"
    if win is not None and win not in WINS:
        raise RuleError(f"unknown win {win!r} (open, foot or closed)")
    won = 0
    if win == "open":
        others_melded = any(melded[p] for p in racks if p != winner)
        won = 100 if others_melded else 200
    elif win == "foot":
        won = 200
    elif win == "closed":
        if hand is not None:
            # the winner's 14 tiles and the others' racks come out of one box (004_* 'Contents')
            o.box.check_counts([*hand, *(t for p, r in racks.items() if p != winner for t in r)])
            found = classify_closed_hand(hand, first_turn=first_turn, original_hand=original)
            if found is None:
                raise RuleError("the closed hand's 14 tiles make none of the 40 hand types")
            won = found.points
            details["closed_hand"] = found.to_dict()
        elif htype is not None:
            kind = hand_type(htype)
            if not 0 <= jokers <= 2:
                raise RuleError(f"a closed hand holds 0, 1 or 2 jokers, not {jokers}")
            won = kind.points[jokers]
            details["closed_hand"] = {"type": kind.number, "name": kind.name, "jokers": jokers, "points": won}
        else:
            raise RuleError("a closed win needs 'hand' (14 tiles) or 'hand_type'")
    scores: dict[str, int] = {}
    for p in racks:
        if p == winner:
            scores[p] = won
        elif melded[p]:
            scores[p] = -values[p]
        else:
            scores[p] = -(won if win == "closed" else 100)
    if joker_discard:
        scores = {p: 2 * s for p, s in scores.items()}
    for p in holders:
        if p not in scores:
            raise RuleError(f"trump holder {p!r} has no rack in this hand")
        scores[p] += bonus
    details.update(win=win, joker_discard=joker_discard)
    return HandResult(winner, scores, details=details)


class ScoreSheet:
    """The running score sheet: one row per hand, totals, games won, rounds, the overall winner."""

    def __init__(self, players: Sequence[str], options: RuleOptions, method: str | None = None):
        players = [str(p) for p in players]
        if len(players) < 2 or len(set(players)) != len(players):
            raise RuleError("a score sheet needs two or more players with different names")
        self.players = players
        self.options = _options(method, options, "ScoreSheet")
        self.method = self.options.scoring
        self.scorer = self.options.scoring_method
        self.hands: list[HandResult] = []

    def add_hand(self, result: HandResult) -> HandResult:
        strangers = sorted(set(result.scores) - set(self.players))
        if strangers:
            raise RuleError(f"players not on this score sheet: {', '.join(strangers)}")
        if result.winner is not None and result.winner not in self.players:
            raise RuleError(f"the winner {result.winner!r} is not on this score sheet")
        self.hands.append(result)
        return result

    def score(self, racks: dict[str, list[Tile]], **kw: Any) -> HandResult:
        """Score a hand with the sheet's rules and add it."""
        return self.add_hand(score_hand(racks, options=self.options, **kw))

    @property
    def totals(self) -> dict[str, int]:
        return {p: sum(h.scores.get(p, 0) for h in self.hands) for p in self.players}

    @property
    def games_won(self) -> dict[str, int]:
        return {p: sum(h.winner == p for h in self.hands) for p in self.players}

    @property
    def games_per_round(self) -> int:
        """As many games in a round as there are players (004_* 'Set-up')."""
        return len(self.players)

    @property
    def rounds(self) -> int:
        """Rounds completed so far."""
        return len(self.hands) // self.games_per_round

    def round_of(self, hand_number: int) -> int:
        """The round (1-based) that hand ``hand_number`` (1-based) belongs to."""
        return (hand_number - 1) // self.games_per_round + 1

    def israeli_scores(self) -> tuple[dict[str, int], dict[str, int]]:
        """000_*: primary = total + a number making all non-negative; final = sum(primary) - n * primary."""
        totals = self.totals
        lift = max(0, -min(totals.values()))
        primary = {p: t + lift for p, t in totals.items()}
        pot = sum(primary.values())
        final = {p: pot - len(self.players) * v for p, v in primary.items()}
        return primary, final

    def ranking(self) -> dict[str, tuple]:
        """Each player's place key, the higher the better: the scoring method's winning rule, but the
        total in a game played to a target score (``target_score``, 003_*: "Whichever player has the
        highest score at the end of the game wins"), lest the player who reached it lose on hands won."""
        if self.options.target_score is not None:
            return _by_total(self)
        return self.scorer.ranking(self)

    @property
    def overall_winner(self) -> str | None:
        """Sabra/American: most games won, ties by score; International: top score;
        Israeli: top final score; played to a target score: top score.  None while nobody is ahead."""
        if not self.hands:
            return None
        key = self.ranking()
        best = max(key.values())
        top = [p for p in self.players if key[p] == best]
        return top[0] if len(top) == 1 else None

    def settlement(self, rate: int = 1):
        """International: the payments between each pair of players (see rules.international)."""
        return settlement(self.totals, rate)

    def to_rows(self) -> list[list[Any]]:
        """CSV rows: a header, one row per game, a total row (numbers, not text)."""
        rows: list[list[Any]] = [["", *self.players]]
        for i, h in enumerate(self.hands, 1):
            rows.append([f"Game {i}", *(h.scores.get(p, 0) for p in self.players)])
        totals = self.totals
        rows.append(["Total", *(totals[p] for p in self.players)])
        return rows

    def to_text(self, total_label: str = "Total Round's") -> str:
        """Tab-separated like the sample score table of the rule leaflet ('+ 24', '- 5')."""
        lines = []
        for row in self.to_rows():
            label = total_label if row[0] == "Total" else row[0]
            cells = [c if isinstance(c, str) else _signed(c) for c in row[1:]]
            lines.append("\t".join([label, *cells]))
        return "\n".join(lines)

    def summary(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "players": list(self.players),
            "rules": self.method,
            "hands": [{"winner": h.winner, "scores": dict(h.scores)} for h in self.hands],
            "totals": self.totals,
            "games_won": self.games_won,
            "games_per_round": self.games_per_round,
            "rounds": self.rounds,
            "winner": self.overall_winner,
        }
        if self.scorer.final_scores:
            d["primary"], d["final"] = self.israeli_scores()
        if self.scorer.settles:
            pays, net = self.settlement()
            d["settlement"] = {
                "payments": [{"from": p.payer, "to": p.payee, "amount": int(p.amount)} for p in pays],
                "net": {k: int(v) for k, v in net.items()},
            }
        return d

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "method": self.method,
            "options": self.options.to_dict(),
            "hands": [h.to_dict() for h in self.hands],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ScoreSheet":
        try:
            players = d["players"]
        except (KeyError, TypeError):
            raise ValueError("a score sheet needs 'players'") from None
        if not d.get("options"):
            raise ValueError("a score sheet needs 'options': the rules it was kept under")
        sheet = cls(players, RuleOptions.from_dict(d["options"]), d.get("method"))
        for h in d.get("hands", []):
            sheet.add_hand(HandResult.from_dict(h))
        return sheet


def _by_games_won(sheet: ScoreSheet) -> dict[str, tuple]:
    """004_* leaflet 'Winning': most games won, ties broken by score."""
    won, totals = sheet.games_won, sheet.totals
    return {p: (won[p], totals[p]) for p in sheet.players}


def _by_total(sheet: ScoreSheet) -> dict[str, tuple]:
    return {p: (t,) for p, t in sheet.totals.items()}


def _by_final(sheet: ScoreSheet) -> dict[str, tuple]:
    final = sheet.israeli_scores()[1]
    return {p: (final[p],) for p in sheet.players}


@dataclass(frozen=True)
class ScoringMethod:
    """One way of scoring: what a rack tile costs, how a hand is scored, who wins the game."""

    name: str
    tile_value: Callable[[Tile, RuleOptions], int]
    hand: Callable[..., HandResult]
    ranking: Callable[[ScoreSheet], dict[str, tuple]]
    final_scores: bool = False  # Israeli primary and final scores at the end (000_*)
    settles: bool = False  # International: players pay each other the differences
    hand_details: bool = False  # International: a hand's result names the win and the closed hand


METHODS: dict[str, ScoringMethod] = {
    m.name: m for m in (
        ScoringMethod("sabra", _face_value, _sabra, _by_games_won),
        ScoringMethod("american", _face_value, _sabra, _by_games_won),
        ScoringMethod("international", _international_value, _international, _by_total, settles=True,
                      hand_details=True),
        ScoringMethod("israeli", _face_value, _israeli, _by_final, final_scores=True),
    )
}


def _signed(n: int) -> str:
    if n > 0:
        return f"+ {n}"
    if n < 0:
        return f"- {-n}"
    return "0"


__all__ = ["HandResult", "ScoreSheet", "ScoringMethod", "score_hand", "rack_value", "tile_value", "METHODS"]
