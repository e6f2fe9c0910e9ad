"""``rummikub-companion --version``: the installed distribution's version, or plainly none from source."""

from importlib.metadata import PackageNotFoundError

import pytest

import cli
from cli import main


def version_said(capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    return capsys.readouterr().out.strip()


def test_version_is_the_installed_distributions(capsys, monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "version", lambda name: {"rummikub-companion": "1.2.3"}[name])
    assert version_said(capsys) == "rummikub-companion 1.2.3"


def test_version_from_source_that_was_never_installed_says_so(capsys, monkeypatch):
    import importlib.metadata

    def missing(name):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert version_said(capsys) == "rummikub-companion unknown (not installed)"


def test_the_distribution_named_is_the_one_pyproject_declares():
    import tomllib
    from pathlib import Path

    pyproject = Path(cli.__file__).resolve().parents[1] / "pyproject.toml"
    assert tomllib.loads(pyproject.read_text())["project"]["name"] == cli.DISTRIBUTION
