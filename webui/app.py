"""The Flask application factory.

``create_app(test_config)`` builds the app around one :class:`Companion`
(live table + game session).  Config keys:

- ``DATABASE``: SQLite file (default: the user's data dir, see webui.db)
- ``SOURCE``: camera index, video file, stream URL or image folder (None: the recorded game)
- ``LIVE``: a ready live-table object (tests inject a fake; then SOURCE is unused)
- ``TICKER``: run the background turn clock (default True; tests call ``tick()`` themselves)
- ``NOW``: clock function for the session (tests pass a fake)
- ``LISTEN_HOST``, ``ALLOWED_HOSTS``, ``TABLE_PIN``, ``PHONE_URLS``, ``LIMITS``: see webui.security
"""

from __future__ import annotations

import time

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from webui import security
from webui.companion import Companion, make_live
from webui.db import Store, default_db_path
from webui.session import Conflict, GameSession, StorageError


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(
        DATABASE=str(default_db_path()),
        SOURCE=None,
        LIVE=None,
        TICKER=True,
        NOW=time.time,
        JSON_SORT_KEYS=False,
    )
    if test_config:
        app.config.update(test_config)
    security.init_app(app)  # host allow-list, same-origin writes, limits, PIN, headers

    store = Store(app.config["DATABASE"])
    session = GameSession(store, now=app.config["NOW"])
    live = app.config["LIVE"] or make_live(app.config["SOURCE"], session.rules)
    companion = Companion(live, session)
    if app.config["LIVE"] is None and app.config["SOURCE"] is None:
        companion.play_recorded_game()  # nobody at the table: the recording's players press the buttons
    app.extensions["companion"] = companion
    if app.config["TICKER"]:
        companion.start()

    from webui import api, events, pages, teach

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(events.bp)
    app.register_blueprint(teach.bp)  # "Teach your tiles": /teach
    _register_errors(app)
    return app


def _register_errors(app: Flask) -> None:
    """API errors are JSON with a message; bad input is a 4xx, never a 500."""

    def wants_json() -> bool:
        return request.path.startswith("/api/")

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if wants_json():
            return jsonify(error=exc.name, message=exc.description), exc.code
        return exc

    @app.errorhandler(StorageError)  # the write failed: nothing changed, and the page says so
    def storage_error(exc: StorageError):
        if wants_json():
            return jsonify(error="Not Saved", message=str(exc)), 503
        from flask import render_template

        return render_template("error.html", message=str(exc)), 503

    @app.errorhandler(Conflict)  # a press for a turn that has ended, a game just started: 409
    def conflict(exc: Conflict):
        if wants_json():
            return jsonify(error="Conflict", message=str(exc)), 409
        from flask import render_template

        return render_template("error.html", message=str(exc)), 409

    @app.errorhandler(ValueError)  # NotationError, RuleError, SessionError, bad options
    def value_error(exc: ValueError):
        if wants_json():
            # a refusal the page can ask about (rules.game_state.StillHolds: "Call Rummikub! anyway?")
            return jsonify(error="Bad Request", message=str(exc), **getattr(exc, "details", {})), 400
        from flask import render_template

        return render_template("error.html", message=str(exc)), 400
