"""Fixtures shared by the whole test suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _pytest.runner import runtestprotocol

from stall_watch import StallWatch

SHARED = Path(__file__).resolve().parents[2] / "shared"

pytest_plugins = ["pytester"]  # tests/test_stall_watch.py runs a test session of its own


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ../shared folder beside the checkout (rule texts, photos); skips the test when absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not here (rule texts and photos live outside the repository)")
    return SHARED


@pytest.fixture(scope="session")
def seeds_dir(shared_dir: Path) -> Path:
    """The rule texts (004_* official rules and variations, 000_* Israeli scoring)."""
    path = shared_dir / "seeds"
    if not path.is_dir():
        pytest.skip(f"{path} is not here")
    return path


@pytest.fixture
def clock():
    """A clock the test moves by hand (``webui_fakes.FakeClock``)."""
    from webui_fakes import FakeClock

    return FakeClock()


@pytest.fixture
def app(tmp_path, live, clock):
    """The web app on a fresh database, its camera the module's ``live`` fixture, no ticker thread."""
    from webui.app import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live,
                      "TICKER": False, "NOW": clock})
    yield app
    app.extensions["companion"].session.store.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def no_camera(tmp_path, clock):
    """A client of the app whose camera cannot start (UnavailableLive), as ``serve --source 0`` with no
    webcam."""
    from webui.app import create_app
    from webui.companion import UnavailableLive

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "n.sqlite3"),
                      "LIVE": UnavailableLive("cannot open source '0': no such camera"), "TICKER": False,
                      "NOW": clock})
    yield app.test_client()
    app.extensions["companion"].session.store.close()


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


# a browser test running longer than this is taken for one Chromium stopped answering (the longest take
# under a minute); pytest-timeout's 300 s covers a run and its one rerun (below)
STALL_S = float(os.environ.get("BROWSER_STALL_S", 120))
STALLED = pytest.StashKey[bool]()


class Chromium:
    """A test module's headless Chromium, launched again when a stall watch ended the last one."""

    def __init__(self, playwright):
        self.playwright = playwright
        self.browser = None

    def get(self):
        if self.browser is None or not self.browser.is_connected():
            self.browser = self.playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        return self.browser

    def close(self) -> None:
        if self.browser is not None and self.browser.is_connected():
            self.browser.close()


@pytest.fixture(scope="module")
def chromium():
    """Headless Chromium (Debian's, driven by Playwright), one per test module; skips when either is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
    with sync_api.sync_playwright() as p:
        chromium = Chromium(p)
        yield chromium
        chromium.close()


@pytest.fixture
def browser(chromium, request):
    """The module's Chromium for one test: the pages it opened are closed after it.  Left open, a test's
    pages go on polling its stopped server (and reconnecting, and retrying unsaved racks) through every
    later test of the module, slowing them, or reach a later test's server that got the same port.
    A test Chromium stops answering is ended by a StallWatch, with what it waited for."""
    browser = chromium.get()
    with StallWatch(STALL_S, request.node.nodeid) as watch:
        yield browser
        if browser.is_connected():
            for context in browser.contexts:
                context.close()
    if watch.fired:
        request.node.stash[STALLED] = True
        pytest.fail(f"Chromium stopped answering for {STALL_S} s and was ended (its report is in the "
                    "captured stderr)", pytrace=False)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """A browser test whose Chromium stopped answering (ended by its StallWatch) runs once more, with a
    new Chromium; the first run's failure and the watch's report are printed all the same.  Any other
    failure stands, and a second stall fails the test."""
    if item.get_closest_marker("browser") is None:
        return None
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    reports = runtestprotocol(item, log=False, nextitem=nextitem)
    if item.stash.get(STALLED, False):
        item.stash[STALLED] = False
        terminal = item.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            terminal.write_sep("-", f"{item.nodeid}: Chromium stopped answering; run once more")
            for report in reports:
                if report.failed:
                    terminal.write_line(report.longreprtext)
                    terminal.write_line(report.capstderr)
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
