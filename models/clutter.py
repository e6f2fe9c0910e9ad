"""Train the clutter gate (``vision/clutter.py``) and export it next to the other networks.

    python -m models.negatives                  # first: where the segmenter takes clutter for tiles
    python -m models.clutter [--steps 3000] [--models-dir models] [--synthetic-dir runs/synthetic]

Positives are the labelled tiles of the rendered training scenes and of the
real photos' training split; negatives are the mined outlines where no tile
lies (``models.negatives``). Each sample is a context crop (the tile and
what lies around it), jittered as the segmenter's outlines are, turned a
random quarter (the gate must not care which way a tile faces) and recoloured
as in training. The gate reads no face, so it fits every classifier; the
export adds ``clutter`` to model.json.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from models.data import jitter_colors, mined, to_tensor_layout
from models.export import export_clutter
from models.nets import ClutterGate
from models.train import FAST_LAYOUT, ROOT, Config, Stage, load_data
from vision.crops import context_crop

SIZE = 48      # crop side in pixels
CONTEXT = 2.4  # the crop spans this many of the tile's long side
BATCH = 64
NEGATIVE = 24  # crops per batch cut at mined negatives


def _jitter(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An outline off as the segmenter draws it: turned, moved, grown."""
    side = float(np.linalg.norm(quad[1] - quad[0])) + 1e-3
    centre = quad.mean(axis=0)
    a = np.deg2rad(rng.normal(0, 8))
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return (centre + rng.normal(0, 0.06 * side, 2) + ((quad - centre) @ turn.T) * rng.uniform(0.9, 1.25)
            ).astype(np.float32)


def sample(real, synth, with_negatives, rng: np.random.Generator, negative: bool) -> np.ndarray:
    if negative:
        photo = with_negatives[int(rng.integers(len(with_negatives)))]
        quad = photo.negatives[int(rng.integers(len(photo.negatives)))]
    else:
        pool = real if real and rng.random() < 0.3 else synth
        photo = pool[int(rng.integers(len(pool)))]
        while not len(photo.quads):
            photo = synth[int(rng.integers(len(synth)))]
        quad = photo.quads[int(rng.integers(len(photo.quads)))]
    crop = context_crop(photo.image, _jitter(np.asarray(quad, np.float32), rng), SIZE, CONTEXT)
    crop = np.ascontiguousarray(np.rot90(crop, int(rng.integers(4))))
    return jitter_colors(crop, rng, strength=0.8)


def train(cfg: Config, steps: int, lr: float) -> ClutterGate:
    real, synth = load_data(cfg)
    with_negatives = mined(synth)
    if not with_negatives:
        raise SystemExit("no mined negatives: give --negatives (made by 'python -m models.negatives')")
    model = ClutterGate().to(memory_format=FAST_LAYOUT)

    def batch(rng):
        crops = [sample(real, synth, with_negatives, rng, k < NEGATIVE) for k in range(BATCH)]
        x = torch.from_numpy(to_tensor_layout(crops)).contiguous(memory_format=FAST_LAYOUT)
        y = torch.tensor([0.0] * NEGATIVE + [1.0] * (BATCH - NEGATIVE))
        return x, y

    def loss(x, y):
        total = F.binary_cross_entropy_with_logits(model(x), y)
        return total, {"loss": f"{total.item():.3f}"}

    model.to(cfg.device)
    Stage("clutter", model, lr, steps, cfg).run(batch, loss)
    return model.cpu().to(memory_format=torch.contiguous_format).eval()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--run-dir", default="runs/clutter")
    parser.add_argument("--models-dir", default=str(ROOT / "models"))
    parser.add_argument("--synthetic-dir", default="runs/synthetic")
    parser.add_argument("--negatives", default="", help="default: negatives.npz in the synthetic folder")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.time()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    negatives = args.negatives or str(Path(args.synthetic_dir) / "negatives.npz")
    cfg = Config(run_dir=args.run_dir, models_dir=args.models_dir, synthetic_dir=args.synthetic_dir,
                 negatives=negatives, threads=args.threads, seed=args.seed)
    Path(cfg.run_dir).mkdir(parents=True, exist_ok=True)
    gate = train(cfg, args.steps, args.lr)
    export_clutter(gate, Path(args.models_dir), SIZE, CONTEXT)
    print(f"done in {(time.time() - started) / 60:.1f} min")


if __name__ == "__main__":
    main()
