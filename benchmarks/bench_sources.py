"""How often a dead network camera is called again: two local HTTP "cameras" that never send a frame.

``silent``: answers 200 with a motion-JPEG header, then sends nothing;
``empty``: answers 200 and closes at once.  Each is watched through the real
OpenCV path (``open_source(url)`` in a :class:`CaptureThread`) for
``--seconds``; the figure is how many connections it received (before
backing off, such a stream was reconnected hundreds of times a second).

    python benchmarks/bench_sources.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import http.server
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.capture import CaptureThread, open_source  # noqa: E402


def camera(silent: bool):
    """A local HTTP server counting its connections."""
    calls = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            calls.append(time.monotonic())
            self.send_response(200)
            self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
            self.end_headers()
            if silent:
                time.sleep(10)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, calls


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20)
    args = ap.parse_args()
    for name, silent in (("silent", True), ("empty", False)):
        server, calls = camera(silent)
        capture = CaptureThread(open_source(f"http://127.0.0.1:{server.server_address[1]}/stream.mjpg")).start()
        time.sleep(args.seconds)
        capture.stop()
        server.shutdown()
        print(f"{name:6s} stream, {args.seconds:.0f} s: {len(calls)} connections "
              f"({len(calls) / args.seconds:.2f} a second); page shows: {capture.camera_error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
