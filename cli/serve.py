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


def host_problem(host: str, port: int) -> str | None:
    """Why the server cannot listen on ``host``, or None: said before anything starts, not as waitress's
    traceback once the app, the camera and the database are up. Nothing is stripped: what is given is used."""
    import socket

    if not host.strip():
        return "--host is empty: give an address, such as 127.0.0.1 (this computer) or 0.0.0.0 (the network)"
    if host != host.strip():
        return f"--host {host!r} has spaces around it: give the address alone"
    if host == "*":
        return "--host '*' is no address: 0.0.0.0 listens on every address"
    try:
        socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, socket.IPPROTO_TCP,
                           socket.AI_PASSIVE)
    except (OSError, UnicodeError, ValueError) as exc:
        hint = " (an IPv6 address goes without brackets)" if host.startswith("[") else ""
        reason = getattr(exc, "strerror", None) or exc
        return f"cannot listen on {url_host(host)}:{port}: no such address or host name here ({reason}){hint}"
    return None


def url_host(host: str) -> str:
    """``host`` as written before ``:PORT`` in a URL: an IPv6 address in brackets (``[::1]``)."""
    return f"[{host}]" if ":" in host else host


def phone_urls(host: str, port: int) -> list[str]:
    """Where phones reach this server: the LAN address for 0.0.0.0, else the address given."""
    from webui.security import WILDCARD_HOSTS, lan_address

    if host.strip() in WILDCARD_HOSTS:
        import socket

        address = lan_address() or socket.gethostname()
    else:
        address = host
    return [f"http://{url_host(address)}:{port}"]


def chosen_profile(data_dir: Path, given: str | None):
    """The profile to read with: ``given``, else the one kept in the data folder, else None (the shipped
    reading). Only read here: nothing is installed before the start is sure (:func:`install_profile`).
    A kept one that cannot be read stops the start (ProfileError saying what to do): reading as shipped
    instead would quietly undo what the players taught."""
    from vision.profile import ACTIVE_NAME, ProfileError, TileProfile

    if given:
        try:
            return TileProfile.load(given)
        except ProfileError as exc:
            raise ProfileError(f"--profile {exc}") from None
    active = data_dir / ACTIVE_NAME
    if not active.exists():
        return None
    try:
        return TileProfile.load(active)
    except ProfileError as exc:
        raise ProfileError(
            f"the tile profile kept in the data folder cannot be used: {exc}. Delete that file (the tiles are "
            "then read as shipped), or start with --profile GOOD.npz to replace it, or make a new one with "
            "'rummikub-companion calibrate'") from None


def install_profile(data_dir: Path, profile, given: bool) -> Path | None:
    """Read with ``profile`` from now on; one ``given`` with --profile is kept in the data folder for the
    next start (``TileProfile.save`` never leaves the one kept there half replaced)."""
    from vision.profile import ACTIVE_NAME, set_default_profile

    if profile is None:
        return None
    active = data_dir / ACTIVE_NAME
    if given:
        profile.save(active)
    set_default_profile(profile)
    return active


def folder_problem(folder: Path) -> str | None:
    """Why nothing can be written in ``folder`` (a read-only file system, no permission), or None: SQLite
    says only "unable to open database file" there, which reads as a broken database."""
    import os

    if os.access(folder, os.W_OK | os.X_OK):
        return None
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs on Windows
        read_only = False
    where = "is on a read-only file system" if read_only else "is not writable for this user"
    return (f"the folder {folder} {where}: the game could not be saved there (nor the lock beside it); "
            "give a --db in a folder you can write to")


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
    unwritable = folder_problem(path.parent)
    if unwritable:
        return unwritable
    if path.is_file() and path.stat().st_size:  # an empty file becomes a new database
        try:
            with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
                conn.execute("PRAGMA schema_version")
        except sqlite3.Error as exc:
            return f"cannot be opened as a database ({exc})"
    return None


class AppToCome:
    """The WSGI app, handed to waitress before it is built: the port is taken first, so that a start
    refused for it has changed nothing (no requests are served before ``server.run()`` anyway)."""

    app = None

    def __call__(self, environ, start_response):
        return self.app(environ, start_response)


def listen(app, host: str, port: int):
    """The waitress server bound to ``host``:``port``, not serving yet (OSError: the port is taken ...)."""
    from waitress import create_server

    from webui import security

    server = create_server(
        app, host=host, port=port, threads=THREADS, ident="rummikub-companion",
        # the app holds each write to its own limit; this is the largest of them (a photo to teach
        # the tiles) with room for the form around it; waitress keeps big bodies on disk, not in memory
        max_request_body_size=security.Limits().photo_bytes + 64 * 1024, max_request_header_size=32 * 1024,
        channel_timeout=120, connection_limit=200, clear_untrusted_proxy_headers=True,
    )
    # an open page's event stream never ends by itself: wait SHUTDOWN_WAIT_S for the
    # requests in flight, not waitress's 5 s, and do not list the streams left behind
    server.task_dispatcher.shutdown = functools.partial(server.task_dispatcher.shutdown,
                                                        timeout=SHUTDOWN_WAIT_S)
    logging.getLogger("waitress").setLevel(logging.ERROR)
    return server


def run(args: argparse.Namespace) -> int:
    import sqlite3

    from webui import security
    from webui.app import create_app
    from webui.db import default_db_path
    from webui.dblock import DatabaseInUse, DatabaseLock
    from vision.capture import SourceError, UnreadableSource, VideoCaptureSource, open_source

    def fail(message: str) -> int:
        print(f"rummikub-companion serve: {message}", file=sys.stderr)
        return 2

    if not 0 < args.port < 65536:
        return fail(f"--port {args.port} is not a port (1-65535)")
    if args.pin is not None and not (args.pin.isdigit() and 4 <= len(args.pin) <= 12):
        return fail("--pin takes 4 to 12 digits")
    problem = host_problem(args.host, args.port)
    for name in args.allow_host:
        problem = problem or security.allow_host_problem(name)
    if problem:
        return fail(problem)
    if args.source is not None:
        try:
            source = open_source(args.source)  # read as camera, URL, file or folder: nothing is opened yet
            if isinstance(source, VideoCaptureSource) and not source.live:
                source.open()  # a video file is tried at once: a damaged one would never show a frame
                source.close()
        except (ValueError, UnreadableSource) as exc:
            return fail(f"--source: {exc}")
        except SourceError:  # gone meanwhile, or a passing fault: the page says it and tries again
            pass
    lan = not (args.host == "localhost" or security.is_loopback(args.host))
    pin = (args.pin or security.new_pin()) if lan else None
    if args.pin and not lan:
        print("rummikub-companion serve: --pin is not needed on 127.0.0.1 (only this computer can connect)",
              file=sys.stderr)
    urls = phone_urls(args.host, args.port) if lan else [f"http://{url_host(args.host)}:{args.port}"]
    db = args.db or str(default_db_path())
    problem = database_problem(db)
    if problem:
        return fail(f"--db {db}: {problem}")
    data_dir = Path(db).parent
    try:
        profile = chosen_profile(data_dir, args.profile)
    except ValueError as exc:
        return fail(str(exc))
    # a start refused below changes nothing: the database and the port are taken before anything is written
    lock = DatabaseLock(db, owner=urls[0])
    try:
        lock.acquire()
    except DatabaseInUse as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"--db {db}: cannot create the lock file {lock.path}: {exc.strerror or exc}")
    app = server = None
    wsgi = AppToCome()
    try:
        try:
            server = listen(wsgi, args.host, args.port)
        except OSError as exc:
            return fail(f"cannot listen on {url_host(args.host)}:{args.port}: {exc.strerror or exc}")
        try:
            active = install_profile(data_dir, profile, given=bool(args.profile))
        except OSError as exc:
            return fail(f"--profile {args.profile}: cannot keep it in {data_dir}: {exc.strerror or exc}")
        if active:
            print(f"reading tiles with the profile {active}", flush=True)
        try:
            app = wsgi.app = create_app({"DATABASE": db, "SOURCE": args.source, "LISTEN_HOST": args.host,
                                         "ALLOWED_HOSTS": args.allow_host, "TABLE_PIN": pin, "PHONE_URLS": urls})
        except sqlite3.Error as exc:  # what database_problem could not foresee (a table of another program ...)
            return fail(f"--db {db}: {exc}")
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
        if app is not None:
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
