"""``rummikub-companion serve``: the live table page on a local web server (waitress)."""

from __future__ import annotations

import argparse
import functools
import logging
import signal
import sys
from pathlib import Path

THREADS = 64  # each open page holds one for its event stream
SHUTDOWN_WAIT_S = 1.5  # requests in flight get this long to finish on Ctrl+C


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "serve",
        help="watch the table and serve the live page",
        description="Watch the table through a camera and serve the companion page "
        "(open http://HOST:PORT in a browser on the laptop, a phone or a tablet). "
        "On a network (--host other than 127.0.0.1) a table PIN is printed at start and shown "
        "on this computer's page: phones without it see the table read-only.",
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
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="another name browsers may use for this server (e.g. table.club.lan); repeatable")
    p.add_argument("--pin", default=None,
                   help="the table PIN for phones (4-12 digits; default: a new random one each start)")
    p.add_argument("--profile", default=None, metavar="PROFILE",
                   help="read with this tile profile (from 'rummikub-companion calibrate'); it is kept in the "
                        "data folder beside the database and used again at the next start")
    p.set_defaults(func=run)


def phone_urls(host: str, port: int) -> list[str]:
    """Where phones reach this server: the LAN address for 0.0.0.0, else the address given."""
    from webui.security import WILDCARD_HOSTS, lan_address

    if host.strip() in WILDCARD_HOSTS:
        import socket

        address = lan_address() or socket.gethostname()
    else:
        address = host
    if ":" in address:
        address = f"[{address}]"
    return [f"http://{address}:{port}"]


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


def database_problem(db: str) -> str | None:
    """Why ``db`` cannot hold the scores, or None: said at the start, not as a traceback once serving."""
    import contextlib
    import sqlite3

    path = Path(db)
    if path.is_dir():
        return "is a folder, not a database file"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create the folder {path.parent}: {exc.strerror or exc}"
    if path.is_file() and path.stat().st_size:  # an empty file becomes a new database
        try:
            with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
                conn.execute("PRAGMA schema_version")
        except sqlite3.Error as exc:
            return f"cannot be opened as a database ({exc})"
    return None


def run(args: argparse.Namespace) -> int:
    import sqlite3

    from waitress import create_server

    from webui import security
    from webui.app import create_app
    from webui.db import default_db_path
    from webui.dblock import DatabaseInUse, DatabaseLock
    from vision.capture import open_source

    def fail(message: str) -> int:
        print(f"rummikub-companion serve: {message}", file=sys.stderr)
        return 2

    if not 0 < args.port < 65536:
        return fail(f"--port {args.port} is not a port (1-65535)")
    if args.pin is not None and not (args.pin.isdigit() and 4 <= len(args.pin) <= 12):
        return fail("--pin takes 4 to 12 digits")
    if args.source is not None:
        try:
            open_source(args.source)  # only read as camera, URL, file or folder: nothing is opened yet
        except ValueError as exc:
            return fail(f"--source: {exc}")
    lan = not (args.host == "localhost" or security.is_loopback(args.host))
    pin = (args.pin or security.new_pin()) if lan else None
    if args.pin and not lan:
        print("rummikub-companion serve: --pin is not needed on 127.0.0.1 (only this computer can connect)",
              file=sys.stderr)
    urls = phone_urls(args.host, args.port) if lan else [f"http://{args.host}:{args.port}"]
    db = args.db or str(default_db_path())
    problem = database_problem(db)
    if problem:
        return fail(f"--db {db}: {problem}")
    try:
        profile = activate_profile(Path(db).parent, args.profile)
    except ValueError as exc:
        return fail(str(exc))
    if profile:
        print(f"reading tiles with the profile {profile}", flush=True)
    lock = DatabaseLock(db, owner=urls[0])
    try:
        lock.acquire()
    except DatabaseInUse as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"--db {db}: cannot create the lock file {lock.path}: {exc.strerror or exc}")
    app = server = None
    try:
        try:
            app = create_app({"DATABASE": db, "SOURCE": args.source, "LISTEN_HOST": args.host,
                              "ALLOWED_HOSTS": args.allow_host, "TABLE_PIN": pin, "PHONE_URLS": urls})
        except sqlite3.Error as exc:  # what database_problem could not foresee (a table of another program ...)
            return fail(f"--db {db}: {exc}")
        try:
            server = create_server(
                app, host=args.host, port=args.port, threads=THREADS, ident="rummikub-companion",
                # the app holds each write to its own limit; this is the largest of them (a photo to teach
                # the tiles) with room for the form around it; waitress keeps big bodies on disk, not in memory
                max_request_body_size=security.Limits().photo_bytes + 64 * 1024, max_request_header_size=32 * 1024,
                channel_timeout=120, connection_limit=200, clear_untrusted_proxy_headers=True,
            )
        except OSError as exc:
            return fail(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        # an open page's event stream never ends by itself: wait SHUTDOWN_WAIT_S for the
        # requests in flight, not waitress's 5 s, and do not list the streams left behind
        server.task_dispatcher.shutdown = functools.partial(server.task_dispatcher.shutdown,
                                                            timeout=SHUTDOWN_WAIT_S)
        logging.getLogger("waitress").setLevel(logging.ERROR)
        print(f"Rummikub companion on {urls[0]}/  (scores in {db})", flush=True)
        if pin:
            print(f"Table PIN: {pin}  (phones open {urls[0]}/pin; this computer's page shows a QR code)",
                  flush=True)
        _stop_on_signals()
        try:
            server.run()  # returns on Ctrl+C, once requests in flight are done
        except KeyboardInterrupt:
            pass
        return 0
    finally:
        if server is not None:
            server.close()
        if app is not None:
            companion = app.extensions["companion"]
            companion.stop()  # camera and turn clock
            companion.session.store.close()
        lock.release()
        if server is not None:
            print("Stopped: camera, turn clock and database closed.", flush=True)


def _stop_on_signals() -> None:
    """Ctrl+C (SIGINT) and ``kill`` (SIGTERM) both shut down cleanly.

    A program started in the background of a script inherits SIGINT ignored,
    and Python then leaves it ignored: ``kill -INT`` would not stop the
    server. It is taken back here, since stopping is what it asks for.
    """

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread (tests): Ctrl+C handling is the caller's
        pass
