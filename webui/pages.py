"""The HTML screens: the table (live), the score sheet, the settings form, a new game."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, url_for

from rules.options import OPTION_DOCS, VARIANTS, find_variant

bp = Blueprint("pages", __name__)


def companion():
    return current_app.extensions["companion"]


@bp.get("/")
def table():
    return render_template("table.html", state=companion().state_json())


@bp.get("/scores")
def scores():
    session = companion().session
    turns = session.store.turns(session.game_id, limit=30) if session.game_id else []
    return render_template("scores.html", sheet=session.sheet_json(), game=session.to_json(),
                           turns=list(reversed(turns)))


@bp.route("/new", methods=["GET", "POST"])
def new_game():
    c = companion()
    error = None
    if request.method == "POST":
        names = [n.strip() for n in request.form.get("players", "").replace(",", "\n").splitlines() if n.strip()]
        try:
            options = find_variant(request.form.get("rules") or "sabra")
            c.session.start_game(
                names, first=int(request.form.get("first") or 0), trump=request.form.get("trump") or None,
                table=c.table_now(), picture=c.picture(), options=options,
            )
        except ValueError as exc:
            error = str(exc)
        else:
            return redirect(url_for("pages.table"))
    current = c.session.options
    return render_template("new.html", variants=sorted(VARIANTS), error=error, current=current,
                           players=[p["name"] for p in (c.session.state or {}).get("players", [])])


def option_fields(options) -> list[dict]:
    """One form field per rule option, generated from OPTION_DOCS (so a new option shows up by itself)."""
    out = []
    for name, doc in OPTION_DOCS.items():
        value = getattr(options, name)
        if doc["type"] == "bool":
            widget, choices = "select", [("true", "yes"), ("false", "no")]
            value = "true" if value else "false"
        elif doc.get("values"):
            widget, choices = "select", [(v, v) for v in doc["values"]]
        else:
            widget, choices = "number", []
            value = "" if value is None else value
        out.append({"name": name, "summary": doc["summary"], "source": doc.get("source", ""),
                    "type": doc["type"], "widget": widget, "choices": choices, "value": value})
    return out


def options_from_form(form, base):
    """Read the settings form back into RuleOptions (validated there; errors name the option)."""
    changes = {}
    for name, doc in OPTION_DOCS.items():
        if name not in form:
            continue
        raw = form[name].strip()
        if doc["type"] == "bool":
            changes[name] = raw == "true"
        elif doc["type"] == "int":
            if not raw.lstrip("-").isdigit():
                raise ValueError(f"rule option {name} needs a whole number, not {raw!r}")
            changes[name] = int(raw)
        elif doc["type"] == "int|None":
            if raw and not raw.lstrip("-").isdigit():
                raise ValueError(f"rule option {name} needs a whole number or nothing, not {raw!r}")
            changes[name] = int(raw) if raw else None
        else:
            changes[name] = raw
    return base.replace(**changes)


@bp.route("/settings", methods=["GET", "POST"])
def settings():
    c = companion()
    error = saved = None
    if request.method == "POST":
        try:
            if request.form.get("variant"):
                options = find_variant(request.form["variant"])
            else:
                options = options_from_form(request.form, c.session.options)
            c.session.set_options(options)
            c.session.set_hint(request.form.get("hint") == "on")
            saved = "saved"
        except ValueError as exc:
            error = str(exc)
    return render_template("settings.html", fields=option_fields(c.session.options), variants=sorted(VARIANTS),
                           hint=c.session.hint_enabled, error=error, saved=saved,
                           current_game=c.session.options.game)
