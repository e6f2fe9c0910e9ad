"""Web safety: same-origin writes, the Host allow-list, headers, limits, the table PIN, fuzzing every route."""

from __future__ import annotations

import json
import os
import re
from io import BytesIO

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webui import security
from webui.app import create_app
from webui_fakes import FakeClock, FakeLive

EVIL = "http://evil.example"
LAN_PHONE = {"REMOTE_ADDR": "192.168.1.23"}


def make_app(tmp_path, **config):
    cfg = {"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": FakeLive("R1 R2 R3 | K7 B7 O7"),
           "TICKER": False, "NOW": FakeClock()}
    cfg.update(config)
    return create_app(cfg)


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path)
    yield app
    app.extensions["companion"].session.store.close()


@pytest.fixture
def client(app):
    return app.test_client()


def game_state(client):
    return client.get("/api/state").get_json()["game"]


def start(client):
    res = client.post("/api/game", json={"players": ["Ann", "Ben"]})
    assert res.status_code == 201, res.get_json()


# --- cross-site writes ------------------------------------------------------------------------

CROSS_SITE = [
    ("/new", {"data": {"players": "Eve\nMal", "rules": "sabra"}}),  # a form
    ("/settings", {"data": {"variant": "american"}}),
    ("/api/turn/end", {"data": {"x": "1"}}),  # form-encoded
    ("/api/pass", {"data": "{}", "content_type": "text/plain"}),
    ("/api/rummikub", {"data": {"winner": "Ann"}, "content_type": "multipart/form-data"}),
    ("/api/game", {"json": {"players": ["Eve", "Mal"]}}),  # JSON (a preflight would stop a browser too)
    ("/api/settings", {"json": {"rules": "american"}}),
]


@pytest.mark.parametrize("url, kwargs", CROSS_SITE)
@pytest.mark.parametrize("headers", [
    {"Origin": EVIL},
    {"Origin": "null"},  # a sandboxed frame or a no-referrer form
    {"Referer": EVIL + "/page.html"},
    {"Sec-Fetch-Site": "cross-site", "Origin": EVIL},
    {"Sec-Fetch-Site": "same-site", "Origin": "http://localhost:8000"},  # another port is another origin
])
def test_cross_site_writes_are_refused_and_change_nothing(client, url, kwargs, headers):
    start(client)
    before = client.get("/api/state").get_json()
    res = client.post(url, headers=headers, **kwargs)
    assert res.status_code == 403
    assert "another site" in res.get_data(as_text=True)
    after = client.get("/api/state").get_json()
    assert after["game"] == before["game"] and after["options"] == before["options"]


def test_the_page_s_own_writes_pass(client, tmp_path):
    own = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    res = client.post("/api/game", json={"players": ["Ann", "Ben"]}, headers=own)
    assert res.status_code == 201
    assert client.post("/api/pass", json={}, headers=own).status_code == 200
    assert client.post("/api/settings", json={"hint": True},
                       headers={"Referer": "http://localhost/settings"}).status_code == 200
    # a form of the page's own (no-referrer makes a browser send "Origin: null", but Sec-Fetch-Site says it)
    lan = make_app(tmp_path / "lan", TABLE_PIN="123456").test_client()
    lan.environ_base.update(LAN_PHONE)
    res = lan.post("/pin", data={"pin": "123456"}, headers={"Sec-Fetch-Site": "same-origin", "Origin": "null"})
    assert res.status_code == 302


def post_routes(app) -> list[str]:
    """Every route that takes POST, its arguments filled in (new routes are covered by themselves)."""
    return sorted({re.sub(r"<[^>]+>", "1", r.rule) for r in app.url_map.iter_rules() if "POST" in (r.methods or ())})


def test_every_write_route_refuses_another_site(app):
    client = app.test_client()
    start(client)
    before = client.get("/api/state").get_json()
    for url in post_routes(app):
        for kwargs in ({"data": {"a": "1"}}, {"data": "{}", "content_type": "text/plain"},
                       {"data": {"a": "1"}, "content_type": "multipart/form-data"}, {"json": {}}):
            res = client.post(url, headers={"Origin": EVIL}, **kwargs)
            assert res.status_code == 403, (url, kwargs)
    after = client.get("/api/state").get_json()
    assert after["game"] == before["game"] and after["options"] == before["options"]


@pytest.mark.parametrize("kwargs", [
    {"data": "{}", "content_type": "text/plain"},
    {"data": {"a": "1"}},
    {"data": {"a": "1"}, "content_type": "multipart/form-data"},
])
def test_api_writes_take_json_only(client, kwargs):
    res = client.post("/api/settings", **kwargs)
    assert res.status_code == 415 and "JSON" in res.get_json()["message"]
    # a browser always says where it comes from: even an empty write must be JSON then
    res = client.post("/api/pass", headers={"Sec-Fetch-Site": "same-origin"})
    assert res.status_code == 415


# --- Host allow-list and headers -----------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:5000", "127.0.0.1.nip.io", "192.168.1.23"])
def test_a_foreign_host_is_refused(client, host):
    res = client.get("/api/state", headers={"Host": host})
    assert res.status_code == 400 and "unknown Host" in res.get_json()["message"]
    assert client.get("/", headers={"Host": host}).status_code == 400


@pytest.mark.parametrize("host", ["localhost", "localhost:5000", "127.0.0.1:5000", "[::1]:5000", "LOCALHOST."])
def test_loopback_hosts_are_served(client, host):
    assert client.get("/api/state", headers={"Host": host}).status_code == 200


def test_hosts_from_the_listening_address_and_the_option(tmp_path):
    app = make_app(tmp_path, LISTEN_HOST="192.168.1.5", ALLOWED_HOSTS=["table.club.lan"])
    c = app.test_client()
    assert c.get("/", headers={"Host": "192.168.1.5:5000"}).status_code == 200
    assert c.get("/", headers={"Host": "table.club.lan"}).status_code == 200
    assert c.get("/", headers={"Host": "192.168.1.6"}).status_code == 400
    wildcard = security.allowed_hosts("0.0.0.0")
    loopback = {"localhost", "127.0.0.1", "::1"}
    assert loopback <= wildcard and len(wildcard) > len(loopback)  # this machine's own names too


def test_security_headers_on_every_response(client):
    for url in ["/", "/api/state", "/static/app.js", "/api/nothing", "/scores"]:
        res = client.get(url)
        csp = res.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert res.headers["X-Content-Type-Options"] == "nosniff"
        assert res.headers["Referrer-Policy"] == "no-referrer"


def test_pages_have_no_inline_script_or_style(client):
    start(client)
    for url in ["/", "/scores", "/settings", "/new"]:
        page = client.get(url).get_data(as_text=True)
        for tag in re.findall(r"<script\b[^>]*>(.*?)</script>", page, re.S):
            assert not tag.strip() or "application/json" in page  # only the JSON data block has content
        assert not re.search(r"<script(?![^>]*(src=|application/json))[^>]*>\s*\S", page)
        assert " style=" not in page and not re.search(r"\son[a-z]+=", page)


# --- limits ---------------------------------------------------------------------------------------

LIMITED = [
    ("/api/game", {"json": {"players": ["A" * 1_000_000, "Ben"]}}, 413),
    ("/api/game", {"json": {"players": ["A" * 41, "Ben"]}}, 400),
    ("/api/game", {"data": "[" * 10_000 + "]" * 10_000, "content_type": "application/json"}, 400),
    ("/api/game", {"data": "{\"a\":" * 5000 + "1" + "}" * 5000, "content_type": "application/json"}, 400),
    ("/api/settings", {"json": {"options": {"initial_meld": 10**30}}}, 400),
    ("/api/settings", {"json": {"options": {"turn_time_limit": 2**63}}}, 400),
    ("/api/game", {"json": {"players": ["Ann", "Ben"], "first": -10**20}}, 400),
    ("/api/game", {"data": b"x" * (10 * 1024 * 1024), "content_type": "application/json"}, 413),
    ("/settings", {"data": {"initial_meld": "9" * 23}}, 400),
    ("/settings", {"data": {"joker_penalty": "1000001"}}, 400),
    ("/api/settings", {"data": "[" * 100 + "]" * 100, "content_type": "application/merge-patch+json"}, 400),
    ("/new", {"data": {"players": "Ann\n" + "B" * 100}}, 400),
    # a photo file is taken only by a page that takes photos, and only up to a phone photo's size
    ("/settings", {"data": {"photo": (BytesIO(b"x" * 200_000), "a.jpg")}, "content_type": "multipart/form-data"}, 413),
    ("/teach", {"data": {"photo": (BytesIO(b"x" * 25 * 2**20), "a.jpg")}, "content_type": "multipart/form-data"}, 413),
]


@pytest.mark.parametrize("url, kwargs, status", LIMITED)
def test_hostile_bodies_get_a_4xx_with_a_message(client, url, kwargs, status):
    res = client.post(url, **kwargs)
    assert res.status_code == status
    text = res.get_data(as_text=True)
    assert re.search(r"too (long|large)|deeper|out of range", text), text[:300]
    assert len(text) < 2000  # the refusal does not echo the payload


@pytest.mark.parametrize("query, words", [
    ("limit=" + "9" * 23, "out of range"),
    ("x=" + "a" * 300, "too long"),
    ("&".join(f"k{i}=1" for i in range(50)), "too many"),
    ("x=" + "a" * 5000, "too long"),
])
def test_query_strings_are_limited(client, query, words):
    res = client.get("/api/turns?" + query)
    assert 400 <= res.status_code < 500 and words in res.get_json()["message"]


# --- the table PIN -----------------------------------------------------------------------------------


@pytest.fixture
def lan_app(tmp_path):
    app = make_app(tmp_path, TABLE_PIN="123456", LISTEN_HOST="0.0.0.0",
                   PHONE_URLS=["http://192.168.1.5:5000"], ALLOWED_HOSTS=["192.168.1.5"])
    yield app
    app.extensions["companion"].session.store.close()


def test_a_phone_without_the_pin_sees_the_table_read_only(lan_app):
    phone = lan_app.test_client()
    phone.environ_base.update(LAN_PHONE)
    host = lan_app.test_client()
    assert phone.get("/api/state").status_code == 200
    page = phone.get("/").get_data(as_text=True)
    assert 'id="read-only"' in page and "123456" not in page
    res = phone.post("/api/game", json={"players": ["Eve", "Mal"]})
    assert res.status_code == 403 and "PIN" in res.get_json()["message"]
    assert phone.post("/new", data={"players": "Eve\nMal"}).status_code == 403
    assert host.get("/api/state").get_json()["game"]["status"] == "none"
    # the host (the machine running the server) plays without a PIN and sees it, with a QR code
    page = host.get("/").get_data(as_text=True)
    assert "123456" in page and 'class="qr"' in page and "data:image/svg+xml" in page
    assert host.post("/api/game", json={"players": ["Ann", "Ben"]}).status_code == 201


def test_entering_the_pin_lets_a_phone_play(lan_app):
    phone = lan_app.test_client()
    phone.environ_base.update(LAN_PHONE)
    assert "Join" in phone.get("/pin").get_data(as_text=True)
    res = phone.post("/pin", data={"pin": "000000"})
    assert res.status_code == 403 and "not the table PIN" in res.get_data(as_text=True)
    res = phone.post("/pin", data={"pin": "123456"})
    assert res.status_code == 302
    assert "HttpOnly" in res.headers["Set-Cookie"] and "SameSite=Strict" in res.headers["Set-Cookie"]
    assert phone.post("/api/game", json={"players": ["Ann", "Ben"]}).status_code == 201
    assert 'id="read-only"' not in phone.get("/").get_data(as_text=True)
    # the QR code's link carries the PIN
    other = lan_app.test_client()
    other.environ_base.update({"REMOTE_ADDR": "192.168.1.40"})
    assert other.get("/pin?pin=123456").status_code == 302
    assert other.post("/api/pass", json={}).status_code == 200


def test_a_long_pin_is_a_pin_not_a_number(tmp_path):
    app = make_app(tmp_path, TABLE_PIN="123456789012")
    phone = app.test_client()
    phone.environ_base.update(LAN_PHONE)
    assert phone.post("/pin", data={"pin": "123456789012"}).status_code == 302
    assert phone.get("/pin?pin=999999999999").status_code == 403


def test_guessing_the_pin_is_slowed_down(lan_app):
    phone = lan_app.test_client()
    phone.environ_base.update(LAN_PHONE)
    codes = [phone.post("/pin", data={"pin": f"{i:06d}"}).status_code for i in range(12)]
    assert codes[:10] == [403] * 10 and codes[10:] == [429, 429]
    assert phone.post("/pin", data={"pin": "123456"}).status_code == 429  # even the right one, for a while


def test_a_forged_pass_cookie_is_no_pass(lan_app):
    phone = lan_app.test_client()
    phone.environ_base.update(LAN_PHONE)
    phone.set_cookie(security.PIN_COOKIE, "0" * 64)
    assert phone.post("/api/pass", json={}).status_code == 403


def test_without_a_pin_there_is_no_pin_page(client):
    assert client.get("/pin").status_code == 302
    assert 'id="table-pin"' not in client.get("/").get_data(as_text=True)


# --- fuzzing every route -------------------------------------------------------------------------------

json_leaf = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-(2**70), max_value=2**70)
             | st.floats(allow_nan=True) | st.text(max_size=12) | st.text(min_size=30, max_size=80)
             | st.sampled_from(["Ann", "Ben", "R5 R6 R7", "J", "K13", "sabra", "american", "pool", "0", "-1"]))
json_values = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
FIELDS = ["players", "rules", "options", "first", "trump", "discard", "source", "winner", "pool_empty", "player",
          "racks", "extra", "hint", "rack", "limit", "variant", "initial_meld", "turn_time_limit", "pin", "tile",
          "win", "hand", "joker_discard", "closed_hand", "self", "kwargs"]
payloads = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), json_values, max_size=5)


def routes(app) -> list[tuple[str, str, list[str]]]:
    """(method, rule, argument names) of every route the app has, so new ones are fuzzed too."""
    out = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            out.append((method, rule.rule, sorted(rule.arguments)))
    return out


def test_every_route_is_fuzzed(app):
    found = {rule for _, rule, _ in routes(app)}
    assert {"/", "/api/state", "/api/game", "/settings", "/pin", "/api/events"} <= found


@st.composite
def requests(draw, route_list):
    method, rule, args = draw(st.sampled_from(route_list))
    url = rule
    for name in args:
        url = re.sub(rf"<(?:[^>:]+:)?{name}>", draw(st.sampled_from(["app.js", "x", "..%2f", "a" * 300, "1"])), url)
    query = draw(st.dictionaries(st.sampled_from(["limit", "once", "pin", "v", "x"]),
                                 st.text(max_size=30) | st.sampled_from(["1", "9" * 25, "-1", ""]), max_size=3))
    kind = draw(st.sampled_from(["json", "raw-json", "form", "text", "multipart", "none"]))
    kwargs: dict = {"query_string": query}
    if kind == "json":
        kwargs["json"] = draw(payloads | json_values)
    elif kind == "raw-json":
        kwargs["data"] = draw(st.binary(max_size=60) | st.sampled_from(["[" * 40, "{\"a\":1", "1e999", "\"\\ud800\""]))
        kwargs["content_type"] = "application/json"
    elif kind == "form":
        kwargs["data"] = draw(st.dictionaries(st.sampled_from(FIELDS), st.text(max_size=40), max_size=5))
    elif kind == "text":
        kwargs["data"], kwargs["content_type"] = draw(st.text(max_size=40)), "text/plain"
    elif kind == "multipart":
        kwargs["data"] = draw(st.dictionaries(st.sampled_from(FIELDS), st.text(max_size=20), max_size=3))
        kwargs["content_type"] = "multipart/form-data"
    kwargs["headers"] = draw(st.sampled_from([{}, {"Origin": EVIL}, {"Sec-Fetch-Site": "same-origin"},
                                              {"Host": "evil.example"}]))
    return method, url, kwargs


def fuzz_one(client, method, url, kwargs):
    res = client.open(url, method=method, **kwargs)
    try:
        assert res.status_code < 500, (method, url, kwargs, res.get_data(as_text=True)[:300])
        if res.status_code >= 400 and url.startswith("/api/") and res.mimetype == "application/json":
            assert res.get_json()["message"], (method, url)
    finally:
        res.close()  # the event stream is never read to its (endless) end
    return res.status_code


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory):
    app = make_app(tmp_path_factory.mktemp("fuzz"))
    yield app
    app.extensions["companion"].session.store.close()


# valid moves that lead the game into each of its phases, so the fuzzed request meets them all
STEERING = [
    ("POST", "/api/game", {"json": {"players": ["Ann", "Ben", "Cid"]}}),
    ("POST", "/api/game", {"json": {"players": ["Ann", "Ben"], "rules": "american", "trump": "R7"}}),
    ("POST", "/api/game", {"json": {"players": ["Ann", "Ben"], "rules": "international"}}),
    ("POST", "/api/rummikub", {"json": {"winner": "Ann", "count_checked": True}}),
    ("POST", "/api/tally/read", {"json": {"player": "Ben"}}),
    ("POST", "/api/turn/draw", {"json": {"source": "pool"}}),
    ("POST", "/api/pass", {"json": {}}),
    ("POST", "/api/settings", {"json": {"hint": True}}),
]
FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "600"))  # FUZZ_EXAMPLES=20000 for a long run


def test_fuzz_every_route_never_crashes(fuzz_app):
    route_list = routes(fuzz_app)
    client = fuzz_app.test_client()
    sent = []

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(steer=st.lists(st.sampled_from(STEERING), max_size=2), req=requests(route_list))
    def run(steer, req):
        for method, url, kwargs in steer:
            client.open(url, method=method, **kwargs).close()
        sent.append(fuzz_one(client, *req))

    run()
    counts = {code: sent.count(code) for code in sorted(set(sent))}
    print(f"fuzzed {len(sent)} requests over {len(route_list)} routes; status counts {counts}")
    assert len(set(sent)) > 3  # the fuzz reached handlers, not only one refusal


def test_fuzz_limits_survive_a_json_round_trip():
    """A body at the depth limit parses; one more level is refused before parsing."""
    limit = security.Limits().json_depth
    ok = json.dumps(json.loads("[" * limit + "]" * limit)).encode()
    assert not security.json_depth_exceeds(ok, limit)
    assert security.json_depth_exceeds(b"[" * (limit + 1), limit)
    assert not security.json_depth_exceeds(b'"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\""', 2)


@pytest.mark.parametrize("extra", [{"racks": {}}, {"self": 1}])
def test_extra_tally_fields_cannot_collide_with_arguments(client, extra):
    start(client)
    client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"})
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "K9"}, "extra": extra})
    assert res.status_code == 400 and "extra" in res.get_json()["message"]
