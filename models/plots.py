"""Pictures for the model card: training curves and the confusion matrix."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import numpy as np


def training_curves(run_dir: Path, out: Path) -> None:
    """One panel per stage from <stage>_loss.csv (step, loss, seconds)."""
    stages = [p for p in (run_dir / "detector_loss.csv", run_dir / "classifier_loss.csv") if p.exists()]
    fig, axes = plt.subplots(1, max(1, len(stages)), figsize=(5 * max(1, len(stages)), 3.2))
    axes = np.atleast_1d(axes)
    for ax, path in zip(axes, stages):
        rows = list(csv.DictReader(path.open()))
        steps = np.array([int(r["step"]) for r in rows])
        loss = np.array([float(r["loss"]) for r in rows])
        ax.plot(steps, loss, lw=0.6, alpha=0.4, color="tab:blue")
        if len(loss) >= 10:
            k = 10
            ax.plot(steps[k - 1:], np.convolve(loss, np.ones(k) / k, mode="valid"), color="tab:blue")
        minutes = float(rows[-1]["seconds"]) / 60 if rows else 0
        ax.set_title(f"{path.stem.replace('_loss', '')} ({minutes:.0f} min on this run)")
        ax.set_xlabel("step")
        ax.set_ylabel("training loss")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def confusion_matrix(matrix: np.ndarray, labels: list[str], out: Path, title: str) -> None:
    """Row-normalised confusion matrix (rows: true tile, columns: read as)."""
    m = matrix.astype(np.float64)
    norm = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(11, 10))
    ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=6)
    ax.set_yticks(range(len(labels)), labels, fontsize=6)
    ax.set_xlabel("read as")
    ax.set_ylabel("true tile")
    ax.set_title(title)
    for i, j in zip(*np.nonzero((m > 0) & (np.eye(len(m)) == 0))):
        ax.text(j, i, int(m[i, j]), ha="center", va="center", fontsize=5, color="red")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
