"""Pictures for the model card: training curves and the confusion matrix."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import numpy as np


STAGES = ("detector", "classifier")


def read_loss_log(path: Path) -> tuple[np.ndarray, np.ndarray, float]:
    """(steps, losses, seconds trained) from a <stage>_loss.csv; its clock restarts at each resume."""
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    seconds, last = 0.0, 0.0
    for r in rows:
        now = float(r["seconds"])
        if now < last:  # resumed: the previous stretch ended at `last`
            seconds += last
        last = now
    return (np.array([int(r["step"]) for r in rows]), np.array([float(r["loss"]) for r in rows]),
            seconds + last)


def training_curves(run_dirs: list[Path], out: Path) -> None:
    """One panel per stage; the runs of a fine-tuning chain (oldest first) follow one another."""
    panels = [(stage, [d for d in run_dirs if (d / f"{stage}_loss.csv").exists()]) for stage in STAGES]
    panels = [(stage, dirs) for stage, dirs in panels if dirs]
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(5.5 * max(1, len(panels)), 3.4))
    axes = np.atleast_1d(axes)
    for ax, (stage, dirs) in zip(axes, panels):
        offset, seconds = 0, 0.0
        for run in dirs:
            steps, loss, took = read_loss_log(run / f"{stage}_loss.csv")
            if not len(steps):
                continue
            steps = steps + offset
            colour = f"C{run_dirs.index(run)}"  # one colour per run in every panel
            ax.plot(steps, loss, lw=0.6, alpha=0.35, color=colour)
            k = 10
            if len(loss) >= k:
                ax.plot(steps[k - 1:], np.convolve(loss, np.ones(k) / k, mode="valid"), color=colour,
                        label=f"{run.name} ({took / 60:.0f} min)")
            offset, seconds = int(steps[-1]), seconds + took
        ax.set_title(f"{stage}: {seconds / 60:.0f} min in all")
        ax.set_xlabel("step (runs one after another)")
        ax.set_ylabel("training loss")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
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
