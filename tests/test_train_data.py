"""The training recipe's data step (needs the train extra: torch; CI skips it)."""

from __future__ import annotations

import subprocess

import pytest

pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from models import train  # noqa: E402


def _fake_folder(folder, n):
    (folder / "images").mkdir(parents=True)
    for i in range(n):
        (folder / "images" / f"{i:06d}.jpg").write_bytes(b"")
    (folder / "data.yaml").write_text("names: []\n")


@pytest.mark.parametrize("have, want, expected", [(0, 5, (0, 5)), (3, 5, (3, 2)), (5, 5, None), (7, 5, None)])
def test_rendered_scenes_are_only_added_where_the_folder_lacks_them(tmp_path, monkeypatch, have, want, expected):
    folder = tmp_path / "synthetic"
    if have:
        _fake_folder(folder, have)
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: calls.append(cmd))
    cfg = train.Config(synthetic_dir=str(folder), synthetic_count=want, real=[])
    assert train.ensure_synthetic(cfg) == folder
    if expected is None:
        assert calls == []
    else:
        (cmd,) = calls
        start, count = (int(cmd[cmd.index(flag) + 1]) for flag in ("--start", "--count"))
        assert (start, count) == expected and "models.render" in cmd
