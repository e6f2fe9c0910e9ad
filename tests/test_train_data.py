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


def _trained_weights(tmp_path, prefetch: int, steps: int, resume_at: int | None = None):
    import numpy as np
    import torch

    def batch(rng):
        x = torch.from_numpy(rng.normal(size=(4, 3)).astype(np.float32))
        return x, x.sum(dim=1, keepdim=True)

    def run(upto):
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        cfg = train.Config(run_dir=str(tmp_path / f"p{prefetch}"), prefetch=prefetch, checkpoint_every=2)
        (tmp_path / f"p{prefetch}").mkdir(exist_ok=True)
        stage = train.Stage("toy", model, 0.05, steps, cfg)
        stage.steps = upto  # stop early, as a killed run would (the schedule stays that of `steps`)
        stage.run(batch, lambda x, y: (((model(x) - y) ** 2).mean(), {}))
        return model

    if resume_at is not None:
        run(resume_at)
    return [p.detach().clone() for p in run(steps).parameters()]


def test_batches_cut_ahead_in_threads_train_the_same_weights_as_one_thread_and_resume(tmp_path):
    import torch

    one = _trained_weights(tmp_path, prefetch=1, steps=40)
    for got in (_trained_weights(tmp_path, prefetch=4, steps=40),
                _trained_weights(tmp_path, prefetch=3, steps=40, resume_at=14)):
        assert all(torch.equal(a, b) for a, b in zip(one, got))
