"""The ``rummikub-companion`` command: one entry point, one module per subcommand.

Each ``cli/<name>.py`` module defines ``add_parser(subparsers)`` which registers
its subcommand and sets ``func`` (taking the parsed args, returning an exit code).
Modules are imported lazily by name so that ``check`` never loads onnxruntime.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

DISTRIBUTION = "rummikub-companion"  # [project] name in pyproject.toml

# subcommand -> module inside cli/
COMMANDS = {
    "check": "check",
    "score": "score",
    "turn": "turn",
    "solve": "solve",
    "read": "read",
    "eval": "evaluate",
    "serve": "serve",
    "calibrate": "calibrate",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rummikub-companion",
        description="Rummikub table companion: read tiles, judge sets and turns, keep score.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {installed_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        try:
            mod = importlib.import_module(f"cli.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"cli.{module}":
                continue  # subcommand not installed in this build
            raise
        mod.add_parser(sub)
    return parser


def installed_version() -> str:
    """The installed distribution's version (pyproject.toml's at install time); said plainly when run from source."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # whatever reads the output stopped early (``| head``): stop as quietly as a shell tool does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush would fail again
        return 141  # 128 + SIGPIPE (13), as a shell reports a tool stopped that way


if __name__ == "__main__":
    sys.exit(main())
