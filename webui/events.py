"""Server-Sent Events: the page gets the whole state again whenever the table or the game changes."""

from __future__ import annotations

import json
import time

from flask import Blueprint, Response, current_app, request, stream_with_context

bp = Blueprint("events", __name__)

KEEPALIVE_S = 10.0  # a comment line now and then keeps proxies and phones from closing the stream
POLL_S = 0.1


@bp.get("/api/events")
def events():
    """``text/event-stream`` of ``state`` events (the JSON of GET /api/state).

    ``?once=1`` sends the current state and closes (handy for tests and curl).
    """
    companion = current_app.extensions["companion"]
    once = request.args.get("once") == "1"

    def stream():
        last = None
        quiet_since = time.monotonic()
        while True:
            version = companion.version()
            if version != last:
                last = version
                quiet_since = time.monotonic()
                yield f"event: state\ndata: {json.dumps(companion.state_json())}\n\n"
                if once:
                    return
            elif time.monotonic() - quiet_since > KEEPALIVE_S:
                quiet_since = time.monotonic()
                yield ": keepalive\n\n"
            # wake at once on a camera change; session changes are seen within POLL_S
            companion.live.wait_for_change(companion.table_state().version, POLL_S)

    return Response(
        stream_with_context(stream()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
