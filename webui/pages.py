"""The HTML screens: the table (live), the score sheet, the settings form, a new game and earlier games.

The forms send JSON to the API (``static/forms.js``): every write goes through
one place, from the same origin.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template, request

from rules.options import GAME_NAMES, OPTION_DOCS, VARIANTS, variant_name
from webui.labels import RULEBOOKS, option_fields
from webui.views import rules_name, rules_words

bp = Blueprint("pages", __name__)
NEW_GAME_FIELDS = ("turn_time_limit", "rounds", "target_score")  # the options the New game form shows


def companion():
    return current_app.extensions["companion"]


@bp.get("/")
def table():
    c = companion()
    return render_template("table.html", state=c.state_json(), demo_players=c.demo_players)


@bp.get("/scores")
def scores():
    """The score sheet of the game on the table, or of an earlier game (``?game=ID``)."""
    c = companion()
    session = c.session
    game_id, game = c.game_of(request.args.get("game", type=int))
    if game_id is not None and game is None:
        abort(404, f"there is no game {game_id}")
    sheet = c.sheet_json(game_id) if game is not None else None
    turns = session.store.turns(game_id, limit=30) if game_id else []
    current = game_id == session.game_id
    # "Finish the game" is offered for the game on the table while it goes on; it names the hand it drops
    finish = {"hand": game.hand, "status": game.status.value} if current and session.open_game else None
    return render_template("scores.html", sheet=sheet, game_id=game_id, current=current,
                           players=list(game.names) if game else [], turns=list(reversed(turns)),
                           rules=rules_name(game.options) if game else None, finish=finish)


@bp.get("/new")
def new_game():
    c = companion()
    s = c.session
    names = list(s.game.names) if s.game else c.demo_players
    # the table's own choices, filled in from Settings: a rulebook picked on the form keeps them; the
    # "As set on Settings" line leaves the clock to its own field, which the players may change here
    fields = [f for f in option_fields(s.options) if f["name"] in NEW_GAME_FIELDS]
    return render_template("new.html", variants=[(v, RULEBOOKS.get(v, v)) for v in VARIANTS],
                           current=rules_words(s.options, clock=False), players=names, games=s.games(),
                           fields=fields)


@bp.get("/settings")
def settings():
    s = companion().session
    game = s.open_game  # a finished game takes no more rules: those set here are for the next game
    return render_template("settings.html", fields=option_fields(s.options), variants=list(VARIANTS),
                           books=RULEBOOKS, hint=s.hint_enabled, in_game=game.options.game if game else None,
                           # the question before a switch names the games as players know them ("American")
                           in_game_name=variant_name(game.options.game) if game else None, game_names=GAME_NAMES,
                           in_scoring=game.options.scoring if game else None,
                           scorings={v: o.scoring for v, o in VARIANTS.items()},
                           pending=rules_words(game.pending) if game and game.pending else None,
                           docs=OPTION_DOCS)
