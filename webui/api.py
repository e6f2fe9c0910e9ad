"""The JSON API (documented in docs/webui.md): the page uses exactly what any client gets."""

from __future__ import annotations

import csv
import io

from flask import Blueprint, Response, abort, current_app, jsonify, request

from rules.game_state import Status
from rules.scoring import rack_value
from rules.tiles import parse_tiles
from rules.options import OPTION_DOCS, VARIANTS, RuleOptions, find_variant
from webui.views import preview_json, verdict_json

bp = Blueprint("api", __name__, url_prefix="/api")


def companion():
    return current_app.extensions["companion"]


def body() -> dict:
    """The request's JSON object (an empty body counts as {}); anything else is a 400."""
    if not request.data:
        return {}
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        abort(400, "the request body must be a JSON object")
    return data


def field(data: dict, name: str, kind, default=None, required: bool = False):
    """One field of a request body, type-checked; a wrong type is a 400 naming the field."""
    if name not in data or data[name] is None:
        if required:
            abort(400, f"missing field {name!r}")
        return default
    value = data[name]
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        abort(400, f"field {name!r} must be {names}, not {type(value).__name__}")
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
    """Start a new game: players in seating order (clockwise), the rules, who starts."""
    data = body()
    players = field(data, "players", list, required=True)
    if not all(isinstance(p, str) for p in players):
        abort(400, "field 'players' must be a list of names")
    options = _options_from(data)
    c = companion()
    c.session.start_game(
        players, first=field(data, "first", int, 0), trump=field(data, "trump", str),
        table=c.table_now(), picture=c.picture(), options=options,
    )
    return jsonify(c.state_json()), 201


def _options_from(data: dict) -> RuleOptions | None:
    """Rules from ``{"rules": "american", "options": {...}}`` (either may be left out)."""
    name = field(data, "rules", str)
    overrides = field(data, "options", dict, {})
    if name is None and not overrides:
        return None
    base = find_variant(name) if name else companion().session.options
    return base.replace(**overrides) if overrides else base


def _end_turn(action: str):
    data = body()
    c = companion()
    discard = field(data, "discard", str)
    player = c.session.current_player
    verdict = c.session.end_turn(c.settled_table(), c.picture(), action=action, discard=discard)
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


@bp.post("/turn/draw")
def draw():
    """American and International: the draw that opens a turn (pool, discard or trump)."""
    data = body()
    c = companion()
    c.session.draw(field(data, "source", str, "pool"))
    state = c.state_json()
    return jsonify(drew=state["game"]["turn"]["drew"], state=state)


@bp.get("/turn/check")
def check_turn():
    """The verdict the turn would get if it ended now (the page shows it as a preview)."""
    c = companion()
    if not c.session.has_game or c.session.game.status is not Status.PLAYING:
        abort(409, "no turn in progress")
    return jsonify(verdict_json(c.session.judge(c.table_now()), c.session.current_player))


@bp.post("/rummikub")
def rummikub():
    """"Rummikub!" (or ``{"pool_empty": true}``): open the rack tally."""
    data = body()
    c = companion()
    c.session.call_rummikub(
        c.settled_table(), winner=field(data, "winner", str), pool_empty=field(data, "pool_empty", bool, False),
    )
    state = c.state_json()
    return jsonify(tally=state["game"]["tally"], state=state)


@bp.post("/tally/read")
def tally_read():
    """Read a player's rack from the tiles laid in view of the camera."""
    data = body()
    c = companion()
    codes = c.session.read_rack(field(data, "player", str, required=True), c.settled_table())
    return jsonify(player=data["player"], rack=codes, state=c.state_json())


@bp.post("/tally/confirm")
def tally_confirm():
    """The players' agreed racks ``{"racks": {name: "codes"}}``: score the hand."""
    data = body()
    racks = field(data, "racks", dict, {})
    if not all(isinstance(v, (str, type(None))) for v in racks.values()):
        abort(400, "field 'racks' maps each player to tile codes as text")
    extra = field(data, "extra", dict, {})
    if {"racks", "self"} & set(extra):  # they would collide with confirm_tally's own arguments
        abort(400, f"field 'extra' may not hold {sorted({'racks', 'self'} & set(extra))}")
    c = companion()
    result = c.session.confirm_tally(racks, **extra)
    return jsonify(result=result, state=c.state_json())


@bp.get("/tally/points")
def tally_points():
    """What a typed rack costs under the rules in force (the tally's points preview): ``?rack=R5 K13 J``."""
    tiles = parse_tiles(request.args.get("rack", ""))
    return jsonify(tiles=len(tiles), points=rack_value(tiles, companion().session.rules))


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
    """A player's own rack, typed in, for hints: ``{"player": name, "rack": "R5 R6 J"}``."""
    data = body()
    c = companion()
    c.session.set_rack(field(data, "player", str, required=True), field(data, "rack", str, ""))
    return jsonify(c.state_json())


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

    A game in progress takes new rules from its next hand; switching it to
    another game (Sabra, American, International) needs ``"confirm": true``.
    """
    data = body()
    c = companion()
    options = _options_from(data)
    applies = None
    if options is not None:
        game = c.session.game
        if game is not None and options.game != game.options.game and not field(data, "confirm", bool, False):
            abort(409, f"the game in progress plays {game.options.game} rules; switching to {options.game} "
                       "applies from the next hand: send confirm")
        applies = c.session.set_options(options)
    hint = field(data, "hint", bool)
    if hint is not None:
        c.session.set_hint(hint)
    return jsonify(options=c.session.options.to_dict(), hint=c.session.hint_enabled, applies=applies)


@bp.get("/games")
def games():
    """Games to resume or browse, newest first."""
    return jsonify(companion().session.games())


@bp.post("/games/<int:game_id>/resume")
def resume(game_id: int):
    c = companion()
    c.session.resume(game_id)
    return jsonify(c.state_json())


@bp.get("/scores")
def scores():
    sheet = companion().sheet_json()
    if sheet is None:
        abort(404, "no game yet")
    return jsonify(sheet)


@bp.get("/scores.csv")
def scores_csv():
    """The score sheet as CSV (rules.scoring.ScoreSheet.to_rows)."""
    rows = companion().session.sheet_csv_rows()
    if not rows:
        abort(404, "no game yet")
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    return Response(buf.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=rummikub-scores.csv"})


@bp.get("/turns")
def turns():
    """The turn log of the current game, oldest first (``?limit=N`` for the last N)."""
    c = companion()
    limit = request.args.get("limit")
    if limit is not None and not limit.isdigit():
        abort(400, "limit must be a whole number")
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
