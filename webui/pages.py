"""The HTML screens: the table (live), the score sheet, the settings form, a new game and earlier games.

The forms send JSON to the API (``static/forms.js``): every write goes through
one place, from the same origin.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template

from rules.game_state import Status
from rules.options import OPTION_DOCS, SCORING_NAMES, VARIANTS
from rules.scoring import METHODS
from webui.api import game_arg
from webui.labels import RULEBOOK_SHORT, RULEBOOKS, TABLE_CHOICES, option_fields, rulebook_of
from webui.shown_rules import demo_table, new_game_rules, shown_rules
from webui.views import rules_name, rules_words

bp = Blueprint("pages", __name__)


def books() -> list[dict]:
    """The rulebooks to pick, each with the length it sets (Israeli: as many rounds as players; "" for
    none) and whether its scoring ranks the totals only at the end, so it takes no target score: the
    forms apply both to the length shown (forms.js) before anything is sent."""
    return [{"name": v, "words": RULEBOOKS.get(v, v), "short": RULEBOOK_SHORT.get(v, RULEBOOKS.get(v, v)),
             "rounds": "" if o.rounds is None else o.rounds,
             "target": "" if o.target_score is None else o.target_score, "final": final_name(o.scoring)}
            for v, o in VARIANTS.items()]


def final_name(scoring: str) -> str:
    """The name of ``scoring`` when it ranks the totals only at the end (Israeli), so no target score can end
    its game; "" for the others."""
    return SCORING_NAMES[scoring] if METHODS[scoring].final_scores else ""


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
    game_id, game = c.game_of(game_arg())  # ?game=abc: 400 as the API answers, not the game on the table
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
    # the table's own choices (clock, length), filled in as Settings shows them: the game in play's, which a
    # rulebook picked on the form keeps; the "As set on Settings" line names the rules saved for new games
    # and leaves the clock to its own field, which the players may change here
    fields = [f for f in option_fields(new_game_rules(c)) if f["name"] in TABLE_CHOICES]
    return render_template("new.html", books=books(), final=final_name(s.options.scoring),
                           current=rules_words(s.options, clock=False), players=names, games=s.games(),
                           fields=fields, replaces=replaces_words(c))


def replaces_words(c) -> str | None:
    """The question "Start the game" asks while a game is in play: every phone may press it, and the game
    on the table leaves it (it is kept, to resume).  None with no game in play, a finished one, or the
    recorded demo's own game (nobody's: it is replaced without a word)."""
    g = c.session.open_game
    if g is None or demo_table(c):
        return None
    names = list(g.names)
    who = f"{', '.join(names[:-1])} and {names[-1]}"
    return (f"{who} are playing a game (hand {g.hand}). Start a new game in its place? That game is kept: "
            "resume it from Earlier games on this page.")


@bp.get("/settings")
def settings():
    """The rules a save changes: the game's in play (a resumed game's own, not those saved for new games
    since), else those for new games; the rulebook select names the book they are, if any."""
    c = companion()
    s = c.session
    # a finished game takes no more rules, nor does the demo's own: those set here are for the next game
    game = None if demo_table(c) else s.open_game
    shown = shown_rules(c)
    rulebook = rulebook_of(shown)
    return render_template("settings.html", fields=option_fields(shown), books=books(), rulebook=rulebook,
                           about=RULEBOOKS.get(rulebook, "") if rulebook else "",
                           final={m: final_name(m) for m in METHODS if final_name(m)},
                           hint=s.hint_enabled, in_game=game is not None,
                           pending=rules_words(game.pending) if game and game.pending else None,
                           waiting=game.hand if game and game.status is Status.DEALING else None,
                           docs=OPTION_DOCS)
