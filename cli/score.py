"""``rummikub-companion score``: score a hand, or a whole game, from JSON.

One hand: ``{"rules": "sabra", "racks": {"Ann": [], "Bob": ["R5", "J"]},
"melded": {"Bob": false}, "pool_empty": false}`` -> ``{"winner": ..., "scores": ...}``.
A whole game: ``{"rules": ..., "players": [...], "hands": [<hand>, ...]}`` -> the
score sheet (totals, games won, rounds, winner; Israeli primary and final
scores; International settlement) and, when the rules agree a length (options
``rounds``, ``target_score``), whether the hands complete it; the winner is
ranked as the page ranks it (by the total in a game played to a target).  See docs/rules.md for every key.
Exit status: 0 scored, 2 unusable input (stderr says what is wrong).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rules.game_length import agreed_rounds, ended_at
from rules.options import ROUNDS_PER_PLAYER, RuleOptions, find_variant
from rules.scoring import HandResult, ScoreSheet, score_hand
from rules.tiles import NotationError, RuleError, Tile, parse_tiles

HAND_KEYS = {"racks", "melded", "pool_empty", "win", "winner", "hand", "hand_type", "jokers", "first_turn",
             "original_hand", "joker_discard", "trump", "trump_holders", "trump_bonus", "discard"}


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "score",
        help="score a hand or a whole game from JSON",
        description="Read a hand (racks left at the end) or a whole game (\"hands\": [...]) as JSON "
        "from FILE or - (stdin) and print the scores; for a whole game also whether the length its rules "
        "agree (options rounds, target_score) is played, and the winner as the page ranks them.",
    )
    p.add_argument("file", metavar="FILE|-", help="JSON file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def _tiles(value: Any, where: str) -> list[Tile]:
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        try:
            return parse_tiles(value)
        except NotationError as exc:
            raise NotationError(f"{where}: {exc}") from None
    raise ValueError(f"{where} must be a list of tile codes, not {json.dumps(value)}")


def options_from(doc: dict) -> RuleOptions:
    """``"rules"``: a variant name or an object of options; ``"options"``: overrides."""
    rules = doc.get("rules", "sabra")
    extra = doc.get("options") or {}
    if not isinstance(extra, dict):
        raise ValueError("'options' must be an object of rule options")
    if isinstance(rules, dict):
        base = RuleOptions.from_dict(rules)
        return base.replace(**extra) if extra else base
    if not isinstance(rules, str):
        raise ValueError(f"'rules' must be a name or an object, not {json.dumps(rules)}")
    return find_variant(rules, **extra)


def hand_from(doc: dict, options: RuleOptions, where: str = "hand") -> HandResult:
    if not isinstance(doc, dict):
        raise ValueError(f"{where} must be an object")
    if "racks" not in doc and "scores" in doc:
        return HandResult.from_dict(doc)  # a hand already scored
    unknown = sorted(set(doc) - HAND_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}")
    racks_in = doc.get("racks")
    if not isinstance(racks_in, dict) or not racks_in:
        raise ValueError(f"{where} needs 'racks': an object of player -> tile codes")
    racks = {str(p): _tiles(t, f"{where} rack of {p}") for p, t in racks_in.items()}
    melded = doc.get("melded") or {}
    if not isinstance(melded, dict) or not all(isinstance(v, bool) for v in melded.values()):
        raise ValueError(f"{where}: 'melded' must be an object of player -> true/false")
    for key in ("pool_empty", "first_turn", "original_hand", "joker_discard"):
        if key in doc and not isinstance(doc[key], bool):
            raise ValueError(f"{where}: '{key}' must be true or false, not {json.dumps(doc[key])}")
    kw: dict[str, Any] = {k: doc[k] for k in doc if k not in ("racks", "melded", "pool_empty")}
    if "hand" in kw:
        kw["hand"] = _tiles(kw["hand"], f"{where} closed hand")
    return score_hand(racks, melded=melded, pool_empty=bool(doc.get("pool_empty", False)), options=options, **kw)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


MAX_INPUT = 1 << 20  # bytes: a whole game's JSON is a few kilobytes
MAX_DEPTH = 20  # nesting of arrays and objects: a game document is four deep


def read_document(source: str) -> Any:
    """The JSON document in file ``source`` (``-``: standard input), or ValueError saying why not.

    Refused with a message, never a traceback: unreadable files, bytes that
    are not UTF-8, more than 1 MiB, nesting deeper than 20, numbers too long
    to be a score, and text that is not JSON.
    """
    name = "standard input" if source == "-" else source
    try:
        if source == "-":
            stream = getattr(sys.stdin, "buffer", None)  # a text stream without bytes (in tests): encode it
            raw = stream.read(MAX_INPUT + 1) if stream is not None else sys.stdin.read(MAX_INPUT + 1).encode()
        else:
            with open(source, "rb") as f:
                raw = f.read(MAX_INPUT + 1)
    except OSError as exc:
        raise ValueError(f"cannot read {name}: {exc.strerror}") from None
    if len(raw) > MAX_INPUT:
        raise ValueError(f"{name} is larger than {MAX_INPUT // 1024} KiB; a game's scores are far smaller")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name} is not UTF-8 text (byte {exc.start}: {raw[exc.start:exc.start + 1]!r})") from None
    depth = _depth(text)
    if depth > MAX_DEPTH:
        raise ValueError(f"{name} nests arrays/objects {depth} deep; at most {MAX_DEPTH} are read")
    try:
        return json.loads(text, parse_int=_small_int, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name} is not JSON: {exc}") from None


def _depth(text: str) -> int:
    """How deeply brackets nest, outside strings (counted before parsing, which recurses)."""
    depth = most = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            most = max(most, depth)
        elif ch in "]}":
            depth -= 1
    return most


def _small_int(digits: str) -> int:
    if len(digits.lstrip("-")) > 9:
        raise ValueError(f"the number {digits[:12]}{'...' if len(digits) > 12 else ''} "
                         f"({len(digits)} digits) is too large for a score")
    return int(digits)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def run(args) -> int:
    try:
        doc = read_document(args.file)
    except ValueError as exc:
        print(f"rummikub-companion score: {exc}", file=sys.stderr)
        return 2
    try:
        if not isinstance(doc, dict):
            raise ValueError("the input must be a JSON object")
        options = options_from(doc)
        if "hands" in doc:
            out, text_out = _game(doc, options)
        else:
            hand_doc = {k: v for k, v in doc.items() if k not in ("rules", "options")}
            res = hand_from(hand_doc, options)
            out = {"winner": res.winner, "scores": res.scores}
            if options.scoring_method.hand_details:
                out["details"] = res.details
            lines = [f"winner: {res.winner or 'nobody'}"]
            lines += [f"{p}: {_signed(s)}" for p, s in res.scores.items()]
            text_out = "\n".join(lines)
    except (NotationError, RuleError, ValueError, TypeError, OverflowError) as exc:
        print(f"rummikub-companion score: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(out) if args.json else text_out)
    return 0


def _game(doc: dict, options: RuleOptions) -> tuple[dict, str]:
    hands = doc["hands"]
    if not isinstance(hands, list):
        raise ValueError("'hands' must be a list of hands")
    players = doc.get("players")
    if players is None:
        if not hands or not isinstance(hands[0], dict):
            raise ValueError("give 'players' or at least one hand")
        players = list(hands[0].get("racks") or hands[0].get("scores") or [])
    sheet = ScoreSheet(players, options=options)
    for i, h in enumerate(hands, 1):
        sheet.add_hand(hand_from(h, options, f"hand {i}"))
    summary = sheet.summary()
    length, length_words = _length(sheet)
    if length is not None:
        summary["length"] = length
    lines = [sheet.to_text(total_label="Total"),
             "games won: " + ", ".join(f"{p} {n}" for p, n in summary["games_won"].items()),
             f"rounds completed: {summary['rounds']}",
             *length_words,
             f"winner: {summary['winner'] or 'nobody yet'}"]
    if "final" in summary:
        lines.append("final: " + ", ".join(f"{p} {_signed(v)}" for p, v in summary["final"].items()))
    if "settlement" in summary:
        lines += [f"{p['from']} pays {p['to']} {p['amount']}" for p in summary["settlement"]["payments"]]
    return summary, "\n".join(lines)


def _length(sheet: ScoreSheet) -> tuple[dict | None, list[str]]:
    """The game's agreed length (options ``rounds``, ``target_score``) as the page counts it: whether the
    hands given complete it, in numbers and in a line; (None, []) for an open-ended game.  A hand given
    after the one that ended the game is refused: the page would not have dealt it."""
    o, players, n = sheet.options, sheet.players, len(sheet.hands)
    rounds = agreed_rounds(o, len(players))
    if rounds is None and o.target_score is None:
        return None, []
    end = ended_at(o, [[h.scores.get(p, 0) for p in players] for h in sheet.hands])
    agreed = []
    if rounds is not None:
        each = ", one per player" if o.rounds == ROUNDS_PER_PLAYER else ""
        agreed.append(f"{rounds} round{'' if rounds == 1 else 's'} agreed ({rounds * len(players)} hands{each})")
    if o.target_score is not None:
        agreed.append(f"first to {o.target_score}")
    if end is not None and end < n:
        raise ValueError(f"hand {end + 1} comes after the game ended with hand {end}: {' · '.join(agreed)}; "
                         "leave the later hands out, or agree another length in \"options\" "
                         "(\"rounds\", \"target_score\"; null: open-ended)")
    length = {"rounds": rounds, "per_player": o.rounds == ROUNDS_PER_PLAYER, "target": o.target_score,
              "hands": None if rounds is None else rounds * len(players), "played": n, "complete": end is not None}
    state = "complete: the game is over" if end is not None else "not complete: the game goes on"
    return length, [f"length: {' · '.join(agreed)}; {n} hand{'' if n == 1 else 's'} played, {state}"]
