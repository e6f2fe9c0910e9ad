"""The JSON API (documented in docs/webui.md): the page uses exactly what any client gets."""

from __future__ import annotations

import csv
import io
import json
import time

from flask import Blueprint, Response, abort, current_app, jsonify, request

from rules.game_state import GameError, Status
from rules.game_tally import loser_preview, tally_points as rack_points
from rules.game_win import closed_preview, has_melded, win_entered, win_preview
from rules.tiles import format_tiles, parse_tiles
from rules.options import OPTION_DOCS, SCORING_NAMES, VARIANTS, RuleOptions, find_variant, variant_name
from rules.scoring import METHODS
from rules.game_turns import change_rules, same_scoring
from webui.session import DRAW_PRESS, END_PRESS, NEW_GAMES_ONLY, RUMMIKUB_PRESS
from webui.labels import changes, rulebook_of
from webui.views import change_words, preview_json, rules_words, verdict_json, win_words

bp = Blueprint("api", __name__, url_prefix="/api")


def companion():
    return current_app.extensions["companion"]


def body() -> dict:
    """The request's JSON object (an empty body counts as {}); anything else is a 400 saying what it is."""
    if not request.data:
        return {}
    try:
        data = json.loads(request.data)
    except ValueError as exc:  # also bytes that are not UTF-8
        abort(400, f"the request body is not valid JSON ({str(exc)[:120]}): send a JSON object")
    if not isinstance(data, dict):
        abort(400, f"the request body must be a JSON object, not {json_kind(data)}")
    return data


# what a JSON value is, in JSON's words rather than Python's (a list, not "list"; null, not "NoneType")
_JSON_WORDS = {dict: "an object", list: "a list", str: "text", bool: "true or false", int: "a whole number",
               float: "a number", type(None): "null"}


def json_kind(value) -> str:
    return _JSON_WORDS.get(type(value), type(value).__name__)


def known_fields(data: dict, *names: str) -> None:
    """A field the endpoint does not take is a 400 naming it, never ignored (a typo'd "hnit" saves nothing)."""
    unknown = sorted(set(data) - set(names))
    if unknown:
        abort(400, f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: "
                   f"this request takes {', '.join(map(repr, names))}")


def field(data: dict, name: str, kind, default=None, required: bool = False):
    """One field of a request body, type-checked; a wrong type is a 400 naming the field."""
    if name not in data or data[name] is None:
        if required:
            abort(400, f"missing field {name!r}")
        return default
    value = data[name]
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        kinds = (kind,) if isinstance(kind, type) else kind
        names = " or ".join(_JSON_WORDS.get(k, k.__name__) for k in kinds)
        abort(400, f"field {name!r} must be {names}, not {json_kind(value)}")
    return value


@bp.before_request
def people_take_over():
    """Any change a person asks for ends the recorded demo's driving: the game is theirs from now on."""
    if request.method == "POST":
        companion().take_over()


@bp.get("/state")
def state():
    return jsonify(companion().state_json())


@bp.post("/game")
def start_game():
    """Start a new game: players in seating order (clockwise), the rules, who starts.  With
    ``"table_checked": false`` (the page's New game sends it) tiles the camera still sees are asked about
    (400 with ``ask``), as at Start hand; otherwise, and once the players say so, the first turn starts
    from them."""
    data = body()
    players = field(data, "players", list, required=True)
    if not all(isinstance(p, str) for p in players):
        abort(400, "field 'players' must be a list of names")
    options = _options_from(data)
    c = companion()
    ts = c.read_state()  # the table the game starts from: not an empty one nobody has looked at yet
    # with no camera the table is only the last game's own (the demo's, taken over): a new game starts empty
    table = c.table_now(ts) if ts.camera_ok else ()
    c.session.start_game(
        players, first=field(data, "first", int, 0), trump=field(data, "trump", str),
        table=table, picture=c.picture(ts), options=options, once=True,
        table_checked=field(data, "table_checked", bool, True),
    )
    return jsonify(c.state_json()), 201


@bp.post("/game/finish")
def finish_game():
    """"Finish the game": the players stop; the sheet is final and names the winner.  The hand in
    progress is not scored; refused (400) while the racks are counted, 409 once finished."""
    body()  # nothing to send, but a body that is not a JSON object is still a 400
    c = companion()
    c.session.finish_game()
    return jsonify(c.state_json())


def _options_from(data: dict, base: RuleOptions | None = None) -> RuleOptions | None:
    """Rules from ``{"rules": "american", "options": {...}}`` (either may be left out); ``options`` alone
    change ``base`` (default: the rules for new games)."""
    name = field(data, "rules", str)
    overrides = field(data, "options", dict, {})
    if name is None and not overrides:
        return None
    base = find_variant(name) if name else (base or companion().session.options)
    scoring, target = overrides.get("scoring", base.scoring), overrides.get("target_score", base.target_score)
    if isinstance(target, int) and isinstance(scoring, str) and scoring in METHODS and METHODS[scoring].final_scores:
        # the rule's own refusal names the option and the rule text; players are told what to do on the form
        abort(400, f"{SCORING_NAMES[scoring]} scoring ranks the totals only at the end, so it cannot be played to "
                   f"a target score: clear Points that end the game ({target}), or choose rounds")
    return base.replace(**overrides) if overrides else base


def turn_field(data: dict, press: str | None = None) -> str | None:
    """Which turn a press is for (``game.turn.id`` of /api/state): a press for a turn that has
    already ended is refused with 409 ("Ann's turn already ended"); left out: whichever turn is on.
    ``press`` (a turn press: what pressing again does): one that comes a moment after a press ended
    the turn before is refused with 409 too, with or without ``turn`` (webui.session.PRESS_GUARD_S)."""
    turn = field(data, "turn", str)
    if turn is not None or press is not None:
        # at once, before waiting for the table to settle
        companion().session.check_turn(turn, press=press)
    return turn


def _end_turn(action: str):
    data = body()
    c = companion()
    discard = field(data, "discard", str)
    turn = turn_field(data, END_PRESS)
    player = c.session.current_player
    ts = c.read_state()  # just after a start: waits for the camera's first reading, else refused
    seen = c.sees_table(ts)  # else the table judged is the game's own: the log says the turn was not judged
    verdict = c.session.end_turn(c.turn_table(ts, settle=True), c.picture(ts), action=action, discard=discard,
                                 turn=turn, guard=True, seen=seen)
    state = c.state_json()
    # a refusal that rests only on sets whose verdict hangs on a doubtful tile reads UNSURE, as on the page
    return jsonify(verdict=preview_json(verdict, player, state["sets"]), state=state)


@bp.post("/turn/end")
def end_turn():
    """End the turn (big button / space bar); in American and International, with the discard."""
    return _end_turn("done")


@bp.post("/pass")
def pass_turn():
    """The spoken "pass": the same as ending the turn (with nothing placed, the player draws)."""
    return _end_turn("pass")


@bp.post("/turn/unseen")
def end_turn_unseen():
    """No camera sees the table: ``{"placed": 3, "tiles": "R7 R8 R9", "discard": "K1", "turn": "1.1.4"}``,
    what the turn placed, in the players' word (``tiles`` optional; ``discard``: American/International).
    Logged as not checked; refused (400) while a camera sees the table; ``turn`` as for /api/turn/end.  A
    first meld the game's record doubts (fewer than 3 tiles, named tiles worth too little, from a player it
    says has not melded) is refused with ``ask`` unless ``"count_checked": true``."""
    data = body()
    c = companion()
    turn = turn_field(data, END_PRESS)
    ts = c.read_state()  # a camera about to read the table judges the turn: the players' word does not
    c.session.end_turn_unseen(field(data, "placed", int), tiles=field(data, "tiles", str),
                              discard=field(data, "discard", str), camera=c.sees_table(ts),
                              turn=turn, guard=True, count_checked=field(data, "count_checked", bool, False))
    return jsonify(state=c.state_json())


@bp.post("/turn/found")
def take_found():
    """The camera is back after turns it did not see, and the table it sees disagrees with the game's record
    (``found_check`` in the state): ``{"turn": "1.1.4", "camera": 12}`` takes it anyway as where the turn on
    started (``camera``: the ``found_check.camera`` asked about; a table changed since is a 409)."""
    data = body()
    c = companion()
    c.take_found(turn=field(data, "turn", str), camera=field(data, "camera", int))
    return jsonify(state=c.state_json())


@bp.post("/turn/draw")
def draw():
    """American and International: the draw that opens a turn (pool, discard or trump)."""
    data = body()
    c = companion()
    turn = turn_field(data, DRAW_PRESS)
    c.session.draw(field(data, "source", str, "pool"), c.turn_table(c.read_state()), turn=turn, guard=True)
    state = c.state_json()
    return jsonify(drew=state["game"]["turn"]["drew"], state=state)


@bp.post("/turn/draw/undo")
def undo_draw():
    """American and International: take the turn's draw back (the wrong draw pressed); refused once
    tiles are placed on the table this turn.  The turn is at its draw again, its clock running on."""
    data = body()
    c = companion()
    turn = turn_field(data)
    c.session.undo_draw(c.turn_table(c.read_state()), turn=turn)
    return jsonify(state=c.state_json())


@bp.post("/turn/undo")
def undo_turn():
    """Undo last turn: ``{"turn": "1.1.5"}`` (the turn on, optional).  The turn before it, recorded on the
    players' word with no camera, is taken back (a wrong answer): the game is as it was before it ended,
    its log row marked taken back.  400 with the reason when the camera judged it or anything has happened
    since (``game.undo_turn`` is null then); 409 for a press meant for a turn no longer on."""
    data = body()
    c = companion()
    undone = c.session.undo_turn(turn=field(data, "turn", str))
    return jsonify(undone=undone, state=c.state_json())


@bp.get("/turn/check")
def check_turn():
    """The verdict the turn would get if it ended now (the page shows it as a preview)."""
    c = companion()
    if not c.session.has_game or c.session.game.status is not Status.PLAYING:
        abort(409, "no turn in progress")
    ts = c.table_state()
    if c.reading(ts):
        abort(409, "the camera has not read the table yet: no verdict until it has")
    return jsonify(verdict_json(c.session.judge(c.turn_table(ts)), c.session.current_player))


@bp.post("/rummikub")
def rummikub():
    """"Rummikub!" (or ``{"pool_empty": true}``): the turn is judged as "End turn" judges it, then the
    rack tally opens; on an illegal table it is refused (``verdict``) and the turn goes on."""
    data = body()
    c = companion()
    turn = turn_field(data, RUMMIKUB_PRESS)
    player = c.session.current_player
    ts = c.read_state()
    seen = c.sees_table(ts)
    verdict = c.session.call_rummikub(
        c.turn_table(ts, settle=True), winner=field(data, "winner", str),
        pool_empty=field(data, "pool_empty", bool, False),
        discard=field(data, "discard", str), turn=turn, guard=True,
        count_checked=field(data, "count_checked", bool, False), seen=seen,
    )
    state = c.state_json()
    return jsonify(tally=state["game"]["tally"], verdict=preview_json(verdict, player, state["sets"]) if verdict
                   else None, state=state)


@bp.post("/tally/read")
def tally_read():
    """Read a player's rack from the tiles laid in view of the camera beyond the final table, or standing
    on a rack turned to it; it is entered in the count as a typed one is (``turn``: as for /tally/rack).
    A reading the count questions (the wrong number of tiles, a copy more than the box holds) is kept,
    with the question in ``doubt`` (null: none), and the confirm asks it (rules.game_reads)."""
    data = body()
    c = companion()
    player = field(data, "player", str, required=True)
    c.read_state()
    ts = c.settled()
    codes = c.session.read_rack(player, c.table_now(ts), c.racks_now(ts), turn=field(data, "turn", str))
    state = c.state_json()
    return jsonify(player=player, rack=codes, doubt=state["game"]["tally"]["doubts"][player], state=state)


TALLY_ENTRY = {"rack": str, "melded": bool, "win": str, "hand": str, "joker_discard": bool, "original_hand": bool}


@bp.post("/tally/rack")
def tally_rack():
    """An entry in the count, kept in the game so that every phone shows it and any can confirm:
    ``{"player": "Ben", "rack": "R5 J"}`` (blank or null: not given yet) and/or ``"melded": true/false``
    (the players' correction; null: as the game knows); International, the win (no ``player`` needed):
    ``"win": "closed"``, ``"hand": "K1 K2 ..."`` (the closed hand's 14 tiles; blank: not given),
    ``"joker_discard": true/false`` (null: as the final discard says), ``"original_hand": true/false``
    (Grand Blitz, where the game cannot know it).  ``turn`` (``game.turn.id``): refused with 409 once the
    count it was typed for is over.  A rack of more tiles than the count says is refused with ``ask``
    unless ``"count_checked": true``.  Any other field is refused, named (nothing is silently ignored)."""
    data = body()
    unknown = sorted(set(data) - set(TALLY_ENTRY) - {"player", "turn", "count_checked"})
    if unknown:
        abort(400, f"unknown field(s) {', '.join(map(repr, unknown))}: send 'player' with 'rack' and/or 'melded', or "
                   "the International win: 'win', 'hand', 'joker_discard', 'original_hand' (the hand's type is "
                   "worked out from its tiles)")
    entry = {}
    for name, kind in TALLY_ENTRY.items():
        if name in data:
            entry[name] = field(data, name, kind)
    player = field(data, "player", str, required="rack" in entry or "melded" in entry)
    if not entry:
        abort(400, "send 'rack' (tile codes; blank: not given yet) or 'melded' (true or false), or the "
                   "International win: 'win', 'hand', 'joker_discard'")
    c = companion()
    c.session.enter_tally(player, turn=field(data, "turn", str),
                          count_checked=field(data, "count_checked", bool, False), **entry)
    state = c.state_json()
    tally = state["game"]["tally"]
    out = {k: tally[k] for k in ("win", "hand", "joker_discard", "original_hand")}
    if player is not None:
        out.update(player=player, rack=tally["racks"][player], melded=tally["melded"][player])
    return jsonify(**out, state=state)


@bp.post("/tally/confirm")
def tally_confirm():
    """Score the hand from the racks (and International win) entered in the count; ``{"racks": {name:
    "codes"}}`` replace the entered ones (a blank one leaves it), as a ``win``, ``hand`` or
    ``joker_discard`` in ``extra`` replaces the entered one (null or a blank hand leaves it); ``turn`` as
    for /tally/rack.  A rack another phone is typing and has not saved yet (/tally/typing; ``phone``: this
    one, whose own typing is in ``racks``) is refused with ``ask`` unless ``"typing_checked": true``."""
    data = body()
    racks = field(data, "racks", dict, {})
    if not all(isinstance(v, (str, type(None))) for v in racks.values()):
        abort(400, "field 'racks' maps each player to tile codes as text")
    extra = field(data, "extra", dict, {})
    # they would collide with confirm_tally's own arguments
    own = {"racks", "self", "turn", "count_checked", "phone", "typing_checked"}
    if own & set(extra):
        abort(400, f"field 'extra' may not hold {sorted(own & set(extra))}")
    melded = field(data, "melded", dict)
    if melded is not None:
        if not all(isinstance(v, bool) for v in melded.values()):
            abort(400, "field 'melded' maps each player to true (has melded) or false (has not)")
        extra["melded"] = melded
    c = companion()
    result = c.session.confirm_tally(racks, turn=field(data, "turn", str),
                                     count_checked=field(data, "count_checked", bool, False),
                                     phone=field(data, "phone", str),
                                     typing_checked=field(data, "typing_checked", bool, False), **extra)
    return jsonify(result=result, state=c.state_json())


@bp.post("/tally/typing")
def tally_typing():
    """A rack being typed on a phone and not saved yet: ``{"player": "Ben", "phone": "k3x9", "turn": "1.1.4"}``
    (``phone``: any id the page picks for itself; ``"typing": false``: no longer, the box is back to the rack
    saved).  While the mark lasts (webui.rack_typing.TYPING_S after the last, a save of that rack ends it), a
    confirm from another phone asks first; every phone shows it (``game.tally.typing``).  Answers
    ``typing``, the racks being typed now; 409 as /tally/rack once the count is over."""
    data = body()
    c = companion()
    typing = c.session.typing(field(data, "player", str, required=True), phone=field(data, "phone", str, required=True),
                              turn=field(data, "turn", str), on=field(data, "typing", bool, True))
    return jsonify(typing=typing)


FLAGS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def flag_arg(name: str) -> bool | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    if raw.lower() not in FLAGS:
        abort(400, f"{name} must be true or false, not {raw[:40]!r}")
    return FLAGS[raw.lower()]


@bp.get("/tally/points")
def tally_points():
    """What a typed rack costs under the rules in force (the tally's points preview): ``?rack=R5 K13 J``.

    With ``player`` (while the racks are counted) also the ``score`` that rack enters on the sheet for
    that player, who counts as having melded or not (``melded``: true/false, default as the count has
    it: the players' correction, else what the game knows): Israeli minus scoring counts a player who never melded at +100, International at -100.
    ``win``, ``joker_discard`` and ``hand``: the International details typed on the page, each by default
    the one entered in the count; a Closed win with a hand gives ``closed``: the hand's ``type``,
    ``name``, ``jokers``, ``points`` and the ``winner_score``, or the ``problem`` with the hand in words.
    International with a winner, whatever the win, also ``winner``: the ``win``, its ``points`` (before
    the joker discard doubles them), ``winner_score`` and ``words`` (the page's line), or the ``problem``.
    ``score`` is null where it depends on the other racks too (Sabra or American with the pool empty)
    or on a closed hand not given, or the win cannot be scored; ``trump_twin``: the rack holds the
    trump's twin (its bonus is in ``score``).
    """
    c = companion()
    rules = c.session.rules
    tiles = parse_tiles(request.args.get("rack", ""))
    # a rack the box cannot hold is refused here as the confirm refuses it (rules.game_tally.tally_points)
    out = {"tiles": len(tiles), "points": rack_points(tiles, rules)}
    name = request.args.get("player")
    g = c.session.game
    if g is None or g.status is not Status.TALLY or g.tally is None:
        return jsonify(out)
    entered = win_entered(g)  # what another phone entered counts unless this one typed otherwise
    win = request.args.get("win") or entered.get("win")
    joker_discard = flag_arg("joker_discard")  # None: the count's, as each preview reads it (win_entered)
    hand = None
    codes = request.args.get("hand", "").strip() or format_tiles(entered.get("hand") or ())
    if win == "closed" and codes:
        hand, out["closed"] = _closed(g, codes, joker_discard)
    if entered:
        out["winner"] = _winner(g, win, hand, codes, joker_discard)
    if name is None:
        return jsonify(out)
    melded = flag_arg("melded")
    melded = has_melded(g, name) if melded is None else melded
    out["melded"] = melded
    out["score"] = loser_preview(g, name, tiles, melded, win, joker_discard, hand=hand)
    if g.options.trump_bonus and g.options.scoring_method.hand_details:  # International, the twin's bonus agreed
        out["trump_twin"] = g.trump is not None and g.trump in tiles and name != g.tally.winner
    return jsonify(out)


def _winner(g, win: str, hand: tuple, codes: str, joker_discard: bool | None) -> dict:
    """What the player who went out scores under the win typed (rules.game_tally.win_preview), with the
    page's line for it (views.win_words), or why that win cannot be scored."""
    if win == "closed" and not codes:
        preview = {"win": win, "problem": "type the closed hand's 14 tiles to see what it scores"}
    elif win == "closed" and not hand:
        preview = {"win": win, "problem": _closed(g, codes, joker_discard)[1]["problem"]}
    else:
        try:
            preview = win_preview(g, win, hand or None, joker_discard)
        except GameError as exc:
            preview = {"win": win, "problem": str(exc)}
    return dict(preview, words=win_words(preview))


def _closed(g, codes: str, joker_discard: bool | None) -> tuple:
    """The closed hand typed on the page and its preview (rules.game_tally.closed_preview); a hand that
    scores nothing: no tiles (not the hand entered), and the problem in words."""
    try:
        hand = tuple(parse_tiles(codes))
    except ValueError as exc:
        return (), {"problem": f"the closed hand: {exc}"}
    try:
        return hand, closed_preview(g, hand, joker_discard)
    except GameError as exc:
        return (), {"problem": str(exc)}


@bp.post("/hand/start")
def hand_start():
    """The next hand is dealt ("Start hand"): its first turn's clock starts; ``trump``: the tile this hand
    turned face up (American and International).  Tiles the camera still sees on the table are asked about
    (400 with ``ask``) unless ``"table_checked": true``: then the first turn starts from them."""
    data = body()
    c = companion()
    turn = turn_field(data)
    ts = c.read_state()  # tiles still on the table are asked about (the last hand's): not before they are read
    c.session.start_hand(turn=turn, trump=field(data, "trump", str), table=c.table_now(ts), picture=c.picture(ts),
                         table_checked=field(data, "table_checked", bool, False))
    return jsonify(c.state_json())


@bp.post("/hand/trump")
def hand_trump():
    """The face-up trump tile of the hand in play, forgotten at Start hand or mistyped: ``{"trump": "R7"}``
    (American and International), while it still lies face up."""
    data = body()
    c = companion()
    c.session.set_trump(field(data, "trump", str, required=True))
    return jsonify(c.state_json())


@bp.post("/tally/undo")
def tally_undo():
    """Take back the last scored hand: its tally opens again."""
    c = companion()
    c.session.undo_hand()
    return jsonify(c.state_json())


@bp.post("/tally/cancel")
def tally_cancel():
    c = companion()
    c.session.cancel_tally()
    return jsonify(c.state_json())


@bp.post("/restore/dismiss")
def restore_dismiss():
    c = companion()
    c.session.dismiss_restore()
    return jsonify(c.state_json())


@bp.post("/rack")
def set_rack():
    """A player's own rack, typed in, for hints: ``{"player": name, "rack": "R5 R6 J", "turn": "1.1.4"}``.
    Answers ``hint_key``, the private key to that rack's hint (``GET /api/hint``), to this phone alone: the
    state every phone gets never shows the hint (null: the rack was cleared).  ``turn``, the turn the
    typing began in, is refused (409) once that turn has ended: the page's "Rack of ..." follows the turn,
    and a rack typed for Ann must not be saved as Ben's."""
    data = body()
    c = companion()
    player = field(data, "player", str, required=True)
    key = c.session.set_rack(player, field(data, "rack", str, ""), turn=field(data, "turn", str))
    return jsonify(player=player, hint_key=key, state=c.state_json())


HINT_KEY_HEADER = "X-Hint-Key"  # a header, not the query: kept out of the server's request log and history
STALE_KEY = ("this hint key opens no hint: a key works for the rack typed with it until that player's turn "
             "ends, the rack is typed again or the hand is over (and not after a restart of the server): "
             "type the rack again")


@bp.get("/hint")
def hint():
    """The hint for the rack this phone typed, sent with the key ``POST /api/rack`` answered in the
    ``X-Hint-Key`` header: ``{"player", "turn", "hint"}``, the hint on the table now during that player's
    turn (else null).  400 without a key, 403 for a key that is wrong or no longer works, 409 while hints are
    off.  Never cached: it shows a player's tiles."""
    key = request.headers.get(HINT_KEY_HEADER, "").strip()
    if not key:
        abort(400, f"send the key that POST /api/rack answered (hint_key) in the {HINT_KEY_HEADER} header")
    c = companion()
    player = c.session.hint_keys.holder(key)
    if player is None:
        abort(403, STALE_KEY)
    if not c.session.hint_enabled:
        abort(409, "hints are switched off: switch them on (Settings, or Hint on the table page)")
    res = jsonify(c.hint_for(player))
    res.headers["Cache-Control"] = "no-store"
    return res


@bp.get("/options")
def options():
    """The rules in force, every option's documentation, and the named variants."""
    docs = {
        name: {k: (list(v) if isinstance(v, tuple) else v) for k, v in doc.items()}
        for name, doc in OPTION_DOCS.items()
    }
    s = companion().session
    return jsonify(options=s.options.to_dict(), in_force=s.rules.to_dict(),
                   pending=s.game.pending.to_dict() if s.game and s.game.pending else None,
                   docs=docs, variants=sorted(VARIANTS), hint=s.hint_enabled)


@bp.post("/settings")
def settings():
    """Change the rules: ``{"rules": "dutch_sabra", "options": {...}, "hint": true}``.

    A game in progress takes new rules from its next hand (its length at once);
    switching it to another game (Sabra, American, International) needs
    ``"confirm": true``: the 409 carries ``ask``, the question in words with
    what would change and when.  ``message`` says what the save changed, and
    ``pending`` the rules waiting for the next hand, so that a page shows what
    was saved, not what it sent; ``form`` the rules the form shows now (the
    game's in play, else ``options``, those for new games) and ``rulebook`` the
    book they are, the table's clock and length aside (null: none exactly).
    """
    data = body()
    known_fields(data, "rules", "options", "hint", "confirm")
    c = companion()
    s = c.session
    options = _options_from(data, s.settings_rules)  # what the form shows: the game's rules in play
    applies = message = None
    if options is not None:
        game = s.open_game  # a finished game's rules are its own: these are for the next game
        # a game keeps its scoring method: a switch it cannot take is not asked about, only saved for new games
        if game is not None and options.game != game.options.game and same_scoring(options, game.options) \
                and not field(data, "confirm", bool, False):
            old, new = variant_name(game.options.game, game.options.scoring), variant_name(options.game, options.scoring)
            ask = (f"The game on the table plays {old} rules. Switch it to {new}? "
                   + change_words(game, change_rules(game, options)))
            return jsonify(error="Conflict", ask=ask, message=f"the game in progress plays {old} rules; switching "
                           f"to {new} applies from the next hand: send confirm"), 409
        before = s.options
        applies = s.set_options(options)
        if applies == NEW_GAMES_ONLY:
            message = (f"Saved for new games; the game on the table keeps {game.options.scoring.capitalize()} "
                       "scoring: a game keeps its scoring method on every hand.")
        elif game is not None and game.status is Status.DEALING:
            message = f"Saved: hand {game.hand} has not started, so it plays these rules."
        elif game is not None:
            message = "Saved. " + change_words(game, s.game)
        else:
            changed = changes(before, options)
            message = ("Saved for the next game: " + "; ".join(changed) + "." if changed
                       else "Saved: the rules for the next game stay as they were.")
    hint = field(data, "hint", bool)
    if hint is not None:
        s.set_hint(hint)
    game = s.open_game
    shown = s.settings_rules
    return jsonify(options=s.options.to_dict(), form=shown.to_dict(), rulebook=rulebook_of(shown),
                   hint=s.hint_enabled, applies=applies, message=message,
                   pending=rules_words(game.pending) if game is not None and game.pending else None)


@bp.get("/games")
def games():
    """Games to resume or browse, newest first."""
    return jsonify(companion().session.games())


@bp.post("/games/<int:game_id>/resume")
def resume(game_id: int):
    c = companion()
    c.session.resume(game_id)
    return jsonify(c.state_json())


def game_arg() -> int | None:
    """``?game=ID`` (an earlier game, as /api/games lists them); None: the game on the table.  One that is
    no number is refused (400), by the score sheet page too, never read as the game on the table."""
    raw = request.args.get("game")
    if raw is None:
        return None
    if not raw.isdigit():
        abort(400, f"game must be a game's number (as Earlier games and /api/games list them), not {raw[:40]!r}")
    return int(raw)


@bp.get("/scores")
def scores():
    """The score sheet of the game on the table, or of an earlier game (``?game=ID``)."""
    game_id = game_arg()
    sheet = companion().sheet_json(game_id)
    if sheet is None:
        abort(404, "no game yet" if game_id is None else f"there is no game {game_id}")
    return jsonify(sheet)


@bp.get("/scores.csv")
def scores_csv():
    """The score sheet as CSV (``?game=ID`` for an earlier game), the file named by game and date; UTF-8
    with a byte-order mark, so a spreadsheet shows the names' letters as typed."""
    c = companion()
    game_id = game_arg()
    if game_id is None:
        game_id = c.session.game_id
    rows = c.csv_rows(game_id) if game_id is not None else None
    if not rows:
        abort(404, "no game yet" if game_id is None else f"there is no game {game_id}")
    buf = io.StringIO()
    buf.write("\ufeff")  # UTF-8's byte-order mark: without it Excel reads the file as ANSI, garbling "Zoë"
    csv.writer(buf).writerows(rows)
    started = c.session.store.started_at(game_id)
    day = time.strftime("%Y-%m-%d", time.localtime(started)) if started else "undated"
    return Response(buf.getvalue().encode("utf-8"), mimetype="text/csv", headers={
        "Content-Disposition": f"attachment; filename=rummikub-game-{game_id}-{day}.csv"})


@bp.get("/turns")
def turns():
    """The turn log of the current game, oldest first (``?limit=N`` for the last N)."""
    c = companion()
    limit = request.args.get("limit")
    if limit is not None and not (limit.isdigit() and int(limit) >= 1):
        abort(400, f"limit must be a whole number, 1 or more, not {limit[:40]!r}")
    if c.session.game_id is None:
        return jsonify([])
    return jsonify(c.session.store.turns(c.session.game_id, int(limit) if limit else None))


@bp.get("/camera.jpg")
def camera():
    """The newest annotated camera picture."""
    picture = companion().picture()
    if picture is None:
        abort(404, "no picture from the camera yet")
    return Response(picture, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/snapshot.jpg")
def snapshot():
    """The picture taken at the start of the turn (to put the table back after a failed turn)."""
    picture = companion().session.snapshot_jpeg
    if picture is None:
        abort(404, "no snapshot for this turn")
    return Response(picture, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
