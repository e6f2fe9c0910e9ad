"""``rummikub-companion serve``: the live table page on a local web server."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


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
    p.add_argument("--profile", default=None, metavar="PROFILE",
                   help="read with this tile profile (from 'rummikub-companion calibrate'); it is kept in the "
                        "data folder beside the database and used again at the next start")
    p.set_defaults(func=run)


def activate_profile(data_dir: Path, given: str | None) -> Path | None:
    """Copy ``given`` into the data folder as the active profile; use the active one there, if any."""
    from vision.profile import ACTIVE_NAME, TileProfile, set_default_profile

    active = data_dir / ACTIVE_NAME
    if given:
        TileProfile.load(given).save(active)  # checked before it replaces the active one
    if not active.exists():
        return None
    set_default_profile(active)
    return active


def run(args: argparse.Namespace) -> int:
    from webui.app import create_app
    from webui.db import default_db_path

    if not 0 < args.port < 65536:
        print(f"rummikub-companion serve: --port {args.port} is not a port (1-65535)", file=sys.stderr)
        return 2
    db = args.db or str(default_db_path())
    try:
        profile = activate_profile(Path(db).parent, args.profile)
    except ValueError as exc:
        print(f"rummikub-companion serve: {exc}", file=sys.stderr)
        return 2
    if profile:
        print(f"reading tiles with the profile {profile}", flush=True)
    app = create_app({"DATABASE": db, "SOURCE": args.source})
    print(f"Rummikub companion on http://{args.host}:{args.port}/  (scores in {db})", flush=True)
    try:
        app.run(host=args.host, port=args.port, threaded=True, use_reloader=False)
    finally:
        app.extensions["companion"].stop()
    return 0
