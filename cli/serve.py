"""``rummikub-companion serve``: the live table page on a local web server."""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "serve",
        help="watch the table and serve the live page",
        description="Watch the table through a camera and serve the companion page "
        "(open http://HOST:PORT in a browser on the laptop, a phone or a tablet).",
    )
    p.add_argument("--source", default=None,
                   help="camera index (0), video file, stream URL or folder of images "
                        "(default: a recorded game shipped with the program, played in a loop)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones on the same network in)")
    p.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    p.add_argument("--db", default=None,
                   help="SQLite file for players, games and scores "
                        "(default: ~/.local/share/rummikub-companion/companion.sqlite3)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from webui.app import create_app
    from webui.db import default_db_path

    if not 0 < args.port < 65536:
        print(f"rummikub-companion serve: --port {args.port} is not a port (1-65535)", file=sys.stderr)
        return 2
    db = args.db or str(default_db_path())
    app = create_app({"DATABASE": db, "SOURCE": args.source})
    print(f"Rummikub companion on http://{args.host}:{args.port}/  (scores in {db})", flush=True)
    try:
        app.run(host=args.host, port=args.port, threaded=True, use_reloader=False)
    finally:
        app.extensions["companion"].stop()
    return 0
