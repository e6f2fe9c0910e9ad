"""Web safety for a page left running on a club's network.

``init_app(app)`` hooks into every route the app has (or gets later), so new
pages and API calls are covered without listing them:

- a Host allow-list (loopback names, the addresses the server listens on, and
  names given with ``--allow-host``): a page elsewhere that rebinds its DNS
  name to this machine gets a 400, not the game;
- state-changing requests only from the page's own origin: ``Sec-Fetch-Site``
  (sent by browsers, whatever the referrer policy), else ``Origin``, else
  ``Referer``; a cross-site form, text/plain, multipart or JSON write is a 403
  and changes nothing.  API writes must carry JSON;
- limits on what a request may hold: body size, JSON depth, string length,
  integer size, query parameters; each refusal is a 4xx naming the limit;
- with a table PIN (``TABLE_PIN``, set by ``serve`` on a LAN): a device that
  has not entered it sees the table read-only; the machine running the server
  (a loopback client) is the host and needs no PIN;
- security headers on every response (CSP without inline script,
  frame-ancestors 'none', nosniff, no-referrer).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, redirect, render_template, request, url_for

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::"})
PIN_COOKIE = "table_pass"


@dataclass(frozen=True)
class Limits:
    """What one request may hold; every number is a refusal with a message, never a crash."""

    body_bytes: int = 64 * 1024
    photo_bytes: int = 24 * 1024 * 1024  # a phone photo sent to a page that takes one (``takes_photo``)
    json_depth: int = 16
    string_chars: int = 2000  # tile codes of a whole rack fit many times over
    name_chars: int = 40  # a player's name
    abs_int: int = 1_000_000  # in a write: bigger than any clock, meld or penalty; far from SQLite's 2**63
    query_abs_int: int = 10**15  # in a query (a limit, a version, a time in ms), still within 2**63
    query_bytes: int = 2048
    query_params: int = 20
    query_value_chars: int = 200


NAME_FIELDS = frozenset({"players", "player", "winner"})  # JSON fields and form fields holding names
NOT_NUMBERS = frozenset({"pin"})  # digits that are no quantity

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


# --- hosts ------------------------------------------------------------------------


def host_name(host_header: str) -> str:
    """``Host`` without its port, lower case: ``[::1]:5000`` -> ``::1``."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


_HOST_LABEL = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?", re.IGNORECASE | re.ASCII)


def is_host_name(name: str) -> bool:
    """A DNS name as a browser sends it in ``Host``: letters, digits, hyphens, dots between; not all numbers
    (that would be an IPv4 address, and not a valid one)."""
    labels = (name[:-1] if name.endswith(".") else name).split(".")
    if not name or len(name) > 253 or not all(_HOST_LABEL.fullmatch(label) for label in labels):
        return False
    return not all(label.isdigit() for label in labels)


def _is_address(text: str, version: int | None = None) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return version is None or address.version == version


def allow_host_problem(value: str) -> str | None:
    """Why ``--allow-host VALUE`` is no name a browser could send in ``Host`` (a host name or address, with
    or without ``:PORT``), or None: a URL or a typo would be added to the allow-list silently, unused."""
    host, port = value, None
    if value.startswith("["):  # [IPv6] or [IPv6]:PORT
        host, bracket, rest = value[1:].partition("]")
        ok = bool(bracket) and _is_address(host, 6) and (rest == "" or rest.startswith(":"))
        port = rest[1:] if rest else None
    elif value.count(":") > 1:  # a bare IPv6 address
        ok = _is_address(value, 6)
    else:
        host, colon, port = value.partition(":")
        port = port if colon else None
        ok = _is_address(host, 4) or is_host_name(host)
    if ok and (port is None or (port.isascii() and port.isdigit() and 0 < int(port) < 65536)):
        return None
    return (f"--allow-host {value!r} is not a host name or address: give it as a browser's address bar shows it, "
            "without http:// or a path (table.club.lan, 192.168.1.20 or table.club.lan:5000)")


def local_addresses() -> set[str]:
    """This machine's names and addresses, as phones on the LAN may reach it."""
    hostname = socket.gethostname().lower()
    names = {hostname, hostname + ".local"}
    try:  # (the .local name is not looked up: an mDNS query may take seconds)
        for info in socket.getaddrinfo(hostname, None):
            names.add(str(info[4][0]).split("%")[0])
    except OSError:
        pass
    lan = lan_address()
    if lan:
        names.add(lan)
    return names


def lan_address() -> str | None:
    """The address this machine uses on its network (no packet is sent), or None offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))
            return s.getsockname()[0]
        except OSError:
            return None


def allowed_hosts(listen_host: str | None, extra=()) -> frozenset[str]:
    """Loopback names, the listening address (every local one for 0.0.0.0), and ``extra``."""
    names = set(LOOPBACK_NAMES)
    listen = (listen_host or "").strip().lower()
    if listen in WILDCARD_HOSTS:
        if listen_host is not None:
            names |= local_addresses()
    else:
        names.add(host_name(listen))
    names |= {host_name(h) for h in extra if h and h.strip()}
    return frozenset(names)


def is_loopback(address: str | None) -> bool:
    try:
        return ipaddress.ip_address((address or "").split("%")[0]).is_loopback
    except ValueError:
        return False


# --- request limits -------------------------------------------------------------------


def json_depth_exceeds(data: bytes, limit: int) -> bool:
    """True when brackets nest deeper than ``limit`` (scanned before parsing: no recursion)."""
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def check_value(value, limits: Limits, where: str, name_field: bool = False) -> None:
    """Walk parsed JSON: every string, name and integer within limits (400 naming the field)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if abs(value) > limits.abs_int:
            abort(400, f"{where}: the number {value} is out of range (at most {limits.abs_int:,})")
    elif isinstance(value, float):
        if value != value or abs(value) > limits.abs_int:
            abort(400, f"{where}: the number is out of range (at most {limits.abs_int:,})")
    elif isinstance(value, str):
        check_text(value, limits, where, name_field)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            # the players typed on New game are named as the players know them ("player 2"), not by index
            at = f"player {i + 1}" if where == "players" else f"{where}[{i}]"
            check_value(item, limits, at, name_field)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text(key, limits, f"{where} key", name_field=where == "racks")
            check_value(item, limits, f"{where}.{key[:40]}" if where else key[:40], key in NAME_FIELDS and not where)


def check_text(text: str, limits: Limits, where: str, name_field: bool = False, number: int | None = None) -> None:
    """A text within its length; with ``number``, one that is a whole number must be within it too."""
    cap = limits.name_chars if name_field else limits.string_chars
    if len(text) > cap:
        what = "a name" if name_field else "a text"
        abort(400, f"{where}: {what} of {len(text):,} characters is too long (at most {cap})")
    digits = text.strip().lstrip("+-")
    if number and digits.isdigit() and (len(digits) > len(str(number)) or int(digits) > number):
        abort(400, f"{where}: the number {text.strip()[:30]} is out of range (at most {number:,})")


def check_query(limits: Limits) -> None:
    if len(request.query_string) > limits.query_bytes:
        abort(414, f"the query string is too long (at most {limits.query_bytes} bytes)")
    args = request.args
    if len(args) > limits.query_params:
        abort(400, f"too many query parameters (at most {limits.query_params})")
    for key, value in args.items(multi=True):
        if len(value) > limits.query_value_chars:
            abort(400, f"query parameter {key[:40]!r} is too long (at most {limits.query_value_chars} characters)")
        check_text(value, limits, f"query parameter {key[:40]!r}",
                   number=None if key in NOT_NUMBERS else limits.query_abs_int)


def takes_photo(view):
    """Mark a view whose form may carry a photo file: its multipart body may hold ``Limits.photo_bytes``
    (every other write stays within ``body_bytes``; the photo is decoded with ``vision.images``' checks)."""
    view.takes_photo = True
    return view


def check_body(limits: Limits, api: bool, most: int | None = None) -> None:
    """Content type, size, JSON depth and values of a write's body (at most ``most`` bytes, default
    ``limits.body_bytes``)."""
    most = limits.body_bytes if most is None else most
    length = request.content_length
    if length is not None and length > most:
        abort(413, f"the request body is too large ({length:,} bytes; at most {most:,})")
    mimetype = request.mimetype
    browser = "Origin" in request.headers or "Sec-Fetch-Site" in request.headers
    if api and (mimetype or browser) and not request.is_json:
        abort(415, f"API writes take a JSON body (Content-Type: application/json), not {mimetype or 'none'}")
    if request.is_json:
        data = request.get_data(cache=True)
        if len(data) > limits.body_bytes:
            abort(413, f"the request body is too large (at most {limits.body_bytes:,} bytes)")
        if json_depth_exceeds(data, limits.json_depth):
            abort(400, f"the JSON body nests deeper than {limits.json_depth} levels")
        parsed = request.get_json(silent=True)
        if parsed is not None:
            check_value(parsed, limits, "")
    elif request.form:
        for key, value in request.form.items(multi=True):
            check_text(key, limits, "form field name")
            if key in NAME_FIELDS:  # one name a line (or comma-separated)
                for name in value.replace(",", "\n").splitlines():
                    check_text(name.strip(), limits, f"form field {key!r}", name_field=True)
            check_text(value, limits, f"form field {key[:40]!r}", number=None if key in NOT_NUMBERS else limits.abs_int)


# --- same origin -------------------------------------------------------------------------


def origin_of(url: str) -> str | None:
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}".lower()


def cross_site_reason() -> str | None:
    """Why this write does not come from the page itself, or None when it does (or is no browser's)."""
    own = origin_of(request.host_url)
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return None if fetch_site == "same-origin" else f"Sec-Fetch-Site is {fetch_site}"
    origin = request.headers.get("Origin")
    if origin is not None:
        return None if origin.lower() == own else f"Origin {origin[:100]} is not {own}"
    referer = request.headers.get("Referer")
    if referer is not None:
        return None if origin_of(referer) == own else "the Referer is another site"
    return None  # no browser sends a write without these: curl, scripts, tests


# --- the table PIN ---------------------------------------------------------------------------


@dataclass
class PinGate:
    """The table PIN: who has entered it (a signed cookie) and how often it was guessed wrong."""

    pin: str
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    max_failures: int = 10
    window_s: float = 60.0
    _failures: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def token(self) -> str:
        return hmac.new(self.secret, b"table pin ok", hashlib.sha256).hexdigest()

    def has_pass(self) -> bool:
        return hmac.compare_digest(request.cookies.get(PIN_COOKIE, ""), self.token)

    def try_pin(self, guess: str, client: str) -> bool | None:
        """True/False for a right/wrong PIN, None while this client must wait after many wrong ones."""
        now = time.monotonic()
        with self._lock:
            if len(self._failures) > 1000:
                self._failures.clear()
            count, since = self._failures.get(client, (0, now))
            if now - since > self.window_s:
                count, since = 0, now
            if count >= self.max_failures:
                return None
            if hmac.compare_digest(guess.strip().encode(), self.pin.encode()):
                self._failures.pop(client, None)
                return True
            self._failures[client] = (count + 1, since)
            return False


def new_pin() -> str:
    return f"{secrets.randbelow(10**6):06d}"


def qr_svg_data_uri(text: str) -> str:
    import segno

    return segno.make(text, error="m").svg_data_uri(scale=5, dark="#000", light="#fff")


bp = Blueprint("security", __name__)


def gate() -> PinGate | None:
    return current_app.extensions.get("pin_gate")


def is_host_client() -> bool:
    return is_loopback(request.remote_addr)


def can_write() -> bool:
    g = gate()
    return g is None or is_host_client() or g.has_pass()


@bp.route("/pin", methods=["GET", "POST"])
def pin_page():
    """Enter the table PIN (the QR code on the host's page opens this with the PIN filled in)."""
    g = gate()
    if g is None:
        return redirect(url_for("pages.table") if "pages.table" in current_app.view_functions else "/")
    guess = request.form.get("pin") if request.method == "POST" else request.args.get("pin")
    error, status = None, 200
    if guess is not None:
        verdict = g.try_pin(guess, request.remote_addr or "?")
        if verdict:
            res = redirect("/")
            res.set_cookie(PIN_COOKIE, g.token, httponly=True, samesite="Strict", max_age=24 * 3600)
            return res
        if verdict is None:
            error, status = f"Too many wrong PINs: wait a minute (at most {g.max_failures} a minute).", 429
        else:
            error, status = "That is not the table PIN.", 403
    return render_template("pin.html", error=error, has_pass=g.has_pass()), status


# --- wiring ----------------------------------------------------------------------------------


def init_app(app: Flask) -> None:
    """Install the checks and headers on ``app`` (config: LISTEN_HOST, ALLOWED_HOSTS, TABLE_PIN, LIMITS)."""
    limits: Limits = app.config.get("LIMITS") or Limits()
    app.config["MAX_CONTENT_LENGTH"] = limits.body_bytes
    hosts = allowed_hosts(app.config.get("LISTEN_HOST"), app.config.get("ALLOWED_HOSTS") or ())
    app.extensions["allowed_hosts"] = hosts
    pin = app.config.get("TABLE_PIN")
    if pin:
        app.extensions["pin_gate"] = PinGate(str(pin))
    app.register_blueprint(bp)

    @app.before_request
    def guard():
        name = host_name(request.host)
        if name not in hosts:
            abort(400, f"unknown Host {name[:100]!r}: this server answers to {', '.join(sorted(hosts))} "
                       "(start it with --allow-host NAME to add one)")
        check_query(limits)
        if request.method in SAFE_METHODS:
            return None
        reason = cross_site_reason()
        if reason:
            abort(403, f"refused a write from another site ({reason}): use the page itself")
        if request.endpoint != "security.pin_page" and not can_write():
            abort(403, "this device sees the table read-only: enter the table PIN at /pin")
        most = None
        if request.mimetype == "multipart/form-data" and getattr(
                app.view_functions.get(request.endpoint), "takes_photo", False):
            most = request.max_content_length = limits.photo_bytes
        check_body(limits, api=request.path.startswith("/api/"), most=most)
        return None

    @app.after_request
    def headers(response):
        for key, value in HEADERS.items():
            response.headers.setdefault(key, value)
        return response

    @app.context_processor
    def access():
        g = app.extensions.get("pin_gate")
        if g is None:
            return {"table_access": None}
        host = is_host_client()
        info = {"read_only": not (host or g.has_pass()), "host": host}
        if host:
            info["pin"] = g.pin
            info["urls"] = app.config.get("PHONE_URLS") or []
            info["qr"] = qr_svg_data_uri(f"{info['urls'][0]}/pin?pin={g.pin}") if info["urls"] else None
        return {"table_access": info}
