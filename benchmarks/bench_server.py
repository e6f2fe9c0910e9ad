"""The server under stress, as a club table would run it: ``rummikub-companion serve`` on loopback.

``crash``: kill -9 the server while a writer ends turns and changes settings,
restart it, and check that every turn the server acknowledged (2xx) is in the
turn log; N rounds.  A turn press within ``PRESS_GUARD_S`` of the turn a press
ended is refused as a second press (webui.session), so the writer ends a turn
each time the guard allows and writes settings in between.

``load``: 30 pollers (GET /api/state, now and then the camera picture), 20
event streams and one writer (turns and settings) for 60 s; prints errors,
latency percentiles, and the server's memory and open files before, during
and after (clients gone), to show that nothing grows.

Both start their own server (a fresh database in a temporary folder, a tiny
still picture as the camera) on 127.0.0.1 only, and stop it at the end.

    python benchmarks/bench_server.py crash [--rounds 20]
    python benchmarks/bench_server.py load [--seconds 60]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np

from webui.session import PRESS_GUARD_S

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
JSON = {"Content-Type": "application/json"}
STARTED: list["Server"] = []


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    """``rummikub-companion serve`` in a subprocess on a free loopback port."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.db = work / "companion.sqlite3"
        self.source = work / "camera"
        if not self.source.exists():
            self.source.mkdir()
            cv2.imwrite(str(self.source / "table.png"), np.full((240, 320, 3), (40, 110, 60), np.uint8))
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> "Server":
        STARTED.append(self)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--host", HOST, "--port", str(self.port),
             "--db", str(self.db), "--source", str(self.source)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(self.work / "server.log", "ab"))
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self.proc.returncode}); see {self.work / 'server.log'}")
            try:
                status, _ = request("GET", self.port, "/api/state", timeout=2)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server did not answer within a minute")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()
            return -9

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def open_files(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))


def request(method: str, port: int, path: str, body=None, timeout: float = 10.0,
            conn: http.client.HTTPConnection | None = None) -> tuple[int, bytes]:
    own = conn is None
    conn = conn or http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers=JSON if data is not None else {})
        res = conn.getresponse()
        return res.status, res.read()
    finally:
        if own:
            conn.close()


class Writes:
    """One writer's requests: "pass" (a turn press) whenever the press guard allows since the last one
    acknowledged, a settings change (the hints, stored in the database too) in between."""

    def __init__(self) -> None:
        self.passed_at = -PRESS_GUARD_S
        self.n = 0

    def next(self) -> tuple[str, dict]:
        self.n += 1
        if time.monotonic() - self.passed_at > PRESS_GUARD_S + 0.05:
            return "/api/pass", {}
        return "/api/settings", {"hint": self.n % 4 == 1}

    def answered(self, path: str, status) -> None:
        if path == "/api/pass" and status == 200:
            self.passed_at = time.monotonic()


# --- kill -9 during writes --------------------------------------------------------------------


def crash(rounds: int) -> int:
    with tempfile.TemporaryDirectory(prefix="companion-crash-") as tmp:
        server = Server(Path(tmp)).start()
        status, body = request("POST", server.port, "/api/game", {"players": ["Ann", "Ben", "Cid"]})
        assert status == 201, body
        acknowledged = 0
        writes_acked = 0
        lost_rounds = 0
        for r in range(1, rounds + 1):
            acked_this_round = []
            stop = threading.Event()

            def writer():
                conn = http.client.HTTPConnection(HOST, server.port, timeout=5)
                while not stop.is_set():
                    path, payload = writes.next()
                    try:
                        status, _ = request("POST", server.port, path, payload, conn=conn)
                    except (OSError, http.client.HTTPException):
                        return  # the server died under us: that turn was never acknowledged
                    writes.answered(path, status)
                    if status == 200:
                        acked_this_round.append(path == "/api/pass")

            writes = Writes()
            thread = threading.Thread(target=writer)
            thread.start()
            time.sleep(random.uniform(0.3, 4 * PRESS_GUARD_S))
            server.kill()  # kill -9, mid-write as often as not
            stop.set()
            thread.join()
            acknowledged += sum(acked_this_round)
            writes_acked += len(acked_this_round)
            server.start()
            status, body = request("GET", server.port, "/api/turns")
            logged = len(json.loads(body)) if status == 200 else -1
            ok = logged >= acknowledged
            lost_rounds += not ok
            print(f"round {r:2d}: {sum(acked_this_round):3d} turns acknowledged "
                  f"({len(acked_this_round):3d} writes), {acknowledged:4d} in all; "
                  f"the log after restart holds {logged:4d}  {'ok' if ok else 'LOST'}", flush=True)
            acknowledged = max(acknowledged, logged)  # a turn written just before the kill counts from now on
        server.stop()
        print(f"{rounds} kill -9 rounds, {writes_acked} writes acknowledged: "
              f"{'nothing acknowledged was lost' if not lost_rounds else f'{lost_rounds} rounds lost turns'}")
        return 1 if lost_rounds else 0


# --- load ------------------------------------------------------------------------------------------


def load(seconds: float, pollers: int, streams: int) -> int:
    with tempfile.TemporaryDirectory(prefix="companion-load-") as tmp:
        server = Server(Path(tmp)).start()
        port = server.port
        request("POST", port, "/api/game", {"players": ["Ann", "Ben", "Cid", "Dan"]})
        base = server.open_files()
        warm = http.client.HTTPConnection(HOST, port, timeout=10)  # every kind of request once, then settle
        warm.request("GET", "/api/events")
        first = warm.getresponse()
        first.fp.readline()
        first.close()
        warm.close()
        request("GET", port, "/api/camera.jpg")
        settle = time.monotonic() + 30
        while time.monotonic() < settle and server.open_files() > base:
            time.sleep(0.5)
        before = (server.rss_mb(), server.open_files())
        stop = threading.Event()
        latencies: list[float] = []
        write_latencies: list[float] = []
        errors: list[str] = []
        events = [0] * streams
        lock = threading.Lock()

        def poller(k: int) -> None:
            conn = http.client.HTTPConnection(HOST, port, timeout=10)
            n = 0
            while not stop.is_set():
                path = "/api/camera.jpg" if n % 10 == 9 else "/api/state"
                t = time.perf_counter()
                try:
                    status, _ = request("GET", port, path, conn=conn)
                except (OSError, http.client.HTTPException) as exc:
                    status = repr(exc)
                    conn.close()
                    conn = http.client.HTTPConnection(HOST, port, timeout=10)
                with lock:
                    latencies.append(time.perf_counter() - t)
                    if status not in (200, 404):  # 404: no camera picture yet
                        errors.append(f"GET {path}: {status}")
                n += 1
                stop.wait(0.05)
            conn.close()

        def stream(k: int) -> None:
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=30)
                conn.request("GET", "/api/events")
                res = conn.getresponse()
                if res.status != 200:
                    errors.append(f"events: {res.status}")
                    return
                while not stop.is_set():
                    line = res.fp.readline()
                    if not line:
                        errors.append("events: the stream ended")
                        return
                    if line.startswith(b"event: state"):
                        events[k] += 1
                conn.close()
            except OSError as exc:
                if not stop.is_set():
                    errors.append(f"events: {exc!r}")

        def writer() -> None:
            conn = http.client.HTTPConnection(HOST, port, timeout=10)
            writes = Writes()
            while not stop.is_set():
                path, body = writes.next()
                t = time.perf_counter()
                try:
                    status, _ = request("POST", port, path, body, conn=conn)
                except (OSError, http.client.HTTPException) as exc:
                    status = repr(exc)
                writes.answered(path, status)
                with lock:
                    write_latencies.append(time.perf_counter() - t)
                    if status != 200:
                        errors.append(f"POST {path}: {status}")
                stop.wait(0.2)
            conn.close()

        threads = ([threading.Thread(target=poller, args=(k,)) for k in range(pollers)]
                   + [threading.Thread(target=stream, args=(k,)) for k in range(streams)]
                   + [threading.Thread(target=writer)])
        for th in threads:
            th.start()
        samples = []
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            time.sleep(min(10, seconds - (time.monotonic() - start)))
            samples.append((round(time.monotonic() - start), server.rss_mb(), server.open_files()))
        stop.set()
        for th in threads:
            th.join(40)
        # a closed event stream is noticed when a write to it fails: at the second keepalive (10 s each)
        end_wait = time.monotonic() + 40
        while server.open_files() > before[1] and time.monotonic() < end_wait:
            time.sleep(0.5)
        after = (server.rss_mb(), server.open_files())
        code = server.stop()

        def pct(values, q):
            return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000 if len(values) > 1 else float("nan")

        print(f"{seconds:.0f} s, {pollers} pollers, {streams} event streams, 1 writer on {HOST}:")
        print(f"  reads:  {len(latencies):6d}  p50 {pct(latencies, 50):6.1f} ms  p99 {pct(latencies, 99):6.1f} ms  "
              f"max {max(latencies) * 1000:6.1f} ms")
        print(f"  writes: {len(write_latencies):6d}  p50 {pct(write_latencies, 50):6.1f} ms  "
              f"p99 {pct(write_latencies, 99):6.1f} ms  max {max(write_latencies) * 1000:6.1f} ms")
        print(f"  events received: {sum(events)} (every stream got some: {all(events)})")
        print(f"  errors: {len(errors)}" + (f" (first: {errors[:3]})" if errors else ""))
        print(f"  server memory / open files: before {before[0]:.0f} MB / {before[1]}; "
              + "; ".join(f"{t} s {m:.0f} MB / {f}" for t, m, f in samples)
              + f"; after (clients gone) {after[0]:.0f} MB / {after[1]}")
        print(f"  server stopped with Ctrl+C: exit {code}")
        grew = after[1] > before[1] or (len(samples) > 2 and samples[-1][1] - samples[1][1] > 20)
        return 1 if errors or grew or code != 0 or not all(events) else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("crash", help="kill -9 during writes, N rounds")
    c.add_argument("--rounds", type=int, default=20)
    lo = sub.add_parser("load", help="pollers, event streams and a writer for a while")
    lo.add_argument("--seconds", type=float, default=60)
    lo.add_argument("--pollers", type=int, default=30)
    lo.add_argument("--streams", type=int, default=20)
    args = ap.parse_args()
    try:
        if args.what == "crash":
            return crash(args.rounds)
        return load(args.seconds, args.pollers, args.streams)
    finally:  # never leave a server behind, whatever went wrong
        for server in STARTED:
            if server.proc is not None and server.proc.poll() is None:
                server.kill()


if __name__ == "__main__":
    sys.exit(main())
