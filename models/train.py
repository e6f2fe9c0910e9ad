"""Train the tile segmenter and the tile classifier (on the CPU, or a GPU), then export them to ONNX.

    python -m models.train                       # everything, resumable
    python -m models.train --extra club_photos/  # also learn a club's own labelled tiles
    python -m models.train --init-from runs/train --run-dir runs/club --extra club_photos/ \
        --det-steps 500 --cls-steps 1000 --det-lr 1e-3 --cls-lr 1e-3   # fine-tune a trained model
    python -m models.train --init-from models --run-dir runs/tuned --models-dir runs/tuned/models ...
                                                 # fine-tune the shipped ONNX networks
    python -m models.train --device cuda --threads 16 --prefetch 3 ...
                                                 # the same recipe on a GPU (same batches, same ONNX files)
    python -m models.negatives && python -m models.train --negatives runs/synthetic/negatives.npz \
        --negative-share 0.03 ...                # also teach "no tile" where the segmenter sees clutter as tiles

Reads top to bottom: settings, data, the two training loops, export. Each
stage checkpoints every few hundred steps (settings included) and a rerun
resumes where it stopped. The real photos' held-out split is never trained on.
The defaults are the shipped model's recipe: 52 minutes on a 2-core CPU, rendering included.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import subprocess
import sys
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from models.data import (
    REJECT, Lighting, Photo, classifier_sample, detector_sample, load_photos, mined, to_tensor_layout,
)
from models.negatives import load_negatives
from models.nets import TileClassifier, TileSegmenter
from models.onnx_import import import_network, onnx_model_dir
from vision.datasets import load_folder, split_holdout

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REAL = ROOT.parent / "shared" / "datasets" / "rummikub-photos"


@dataclass
class Config:
    # where things go
    run_dir: str = "runs/train"            # checkpoints, loss logs
    models_dir: str = str(ROOT / "models")  # detector.onnx, classifier.onnx, model.json
    # data
    real: list[str] = field(default_factory=lambda: [str(DEFAULT_REAL)] if DEFAULT_REAL.exists() else [])
    extra: list[str] = field(default_factory=list)  # more YOLO folders, all used for training
    init_from: str = ""                    # a run folder or an exported models folder: fine-tune its networks
    synthetic_dir: str = "runs/synthetic"  # rendered scenes (made if missing)
    synthetic_count: int = 1200            # rendered scenes
    real_share: float = 0.35               # fraction of samples cut from real/extra photos
    max_side: int = 1024                   # photos are kept in memory at most this big
    # detector
    base_side: int = 768                   # inference: photo's long side is scaled to this
    det_size: int = 320                    # training crop side
    det_batch: int = 12
    det_steps: int = 3400
    det_lr: float = 3e-3
    core_ratio: float = 0.5                # core = face scaled by this about its centre
    stride: int = 4                        # output resolution of the segmenter
    # classifier
    crop_w: int = 32
    crop_h: int = 48
    crop_margin: float = 0.08
    cls_batch: int = 128
    cls_steps: int = 2800
    cls_lr: float = 3e-3
    reject_rate: float = 0.15
    negatives: str = ""                    # outlines where no tile lies in the rendered scenes (models.negatives)
    negative_share: float = 0.0            # share of the classifier's crops cut at those outlines
    sideways_share: float = 0.0            # share cut at a tile's outline turned a quarter, taught as no tile
    # harsher photos (models.data.Lighting; 0: as the shipped networks were trained)
    overexposed: float = 0.0
    shaken: float = 0.0
    overexposed_ceiling: float = 0.0       # overexposed samples' mean grey held at most this (0: not held)
    # run
    seed: int = 0
    threads: int = 2
    device: str = "cpu"                    # "cuda" trains on a GPU; the result is the same kind of ONNX file
    prefetch: int = 1                      # batches cut ahead in threads (more when the steps outrun one thread)
    checkpoint_every: int = 200


def parse_args(argv=None) -> Config:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Config):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        name = "--" + f.name.replace("_", "-")
        if isinstance(default, list):
            parser.add_argument(name, nargs="*", default=default)
        else:
            parser.add_argument(name, type=type(default), default=default)
    return Config(**vars(parser.parse_args(argv)))


# ---------------------------------------------------------------------- data

def ensure_synthetic(cfg: Config) -> Path:
    out = Path(cfg.synthetic_dir)
    have = len(list((out / "images").glob("*.jpg"))) if (out / "data.yaml").exists() else 0
    if have < cfg.synthetic_count:
        # scene i depends only on (seed, i): a folder is grown by rendering the scenes it lacks
        print(f"rendering scenes {have}-{cfg.synthetic_count - 1} into {out} ...", flush=True)
        subprocess.run([sys.executable, "-m", "models.render", "--out", str(out), "--start", str(have),
                        "--count", str(cfg.synthetic_count - have), "--seed", str(cfg.seed),
                        "--workers", str(cfg.threads)], check=True, cwd=ROOT)
    return out


def load_data(cfg: Config) -> tuple[list[Photo], list[Photo]]:
    """(real-or-extra photos, synthetic photos); the real held-out split is left out."""
    real_items = []
    for folder in cfg.real:
        train, _held = split_holdout(load_folder(folder))
        real_items += train
    for folder in cfg.extra:
        real_items += load_folder(folder)
    # a folder may hold more scenes than asked for (a longer run's): use the first ones
    synth_items = load_folder(ensure_synthetic(cfg))[:cfg.synthetic_count] if cfg.synthetic_count > 0 else []
    real = load_photos(real_items, cfg.max_side, real=True)
    negatives = load_negatives(cfg.negatives) if cfg.negatives else None
    synth = load_photos(synth_items, cfg.max_side, real=False, negatives=negatives)
    if negatives is not None:
        with_negatives = mined(synth)
        if not with_negatives:
            raise SystemExit(f"--negatives {cfg.negatives}: none of its scenes is in {cfg.synthetic_dir} "
                             "(mine them from that folder with 'python -m models.negatives')")
        print(f"{sum(len(p.negatives) for p in with_negatives)} outlines where no tile lies, "
              f"in {len(with_negatives)} scenes", flush=True)
    print(f"training on {len(real)} real/extra photos ({sum(len(p.quads) for p in real)} tiles) "
          f"and {len(synth)} rendered scenes ({sum(len(p.quads) for p in synth)} tiles)", flush=True)
    return real, synth


def pick(real: list[Photo], synth: list[Photo], cfg: Config, rng: np.random.Generator) -> Photo:
    use_real = real and (not synth or rng.random() < cfg.real_share)
    pool = real if use_real else synth
    return pool[int(rng.integers(len(pool)))]


# ------------------------------------------------------------------ training

class Stage:
    """One resumable training loop: model, optimiser, schedule, checkpoint, loss log."""

    def __init__(self, name: str, model: torch.nn.Module, lr: float, steps: int, cfg: Config):
        self.name, self.model, self.steps, self.cfg = name, model, steps, cfg
        self.step = 0
        self.opt = self.sched = None
        if steps > 0:  # with no steps the weights stay as they are (and are saved as this run's)
            self.opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
            self.sched = torch.optim.lr_scheduler.OneCycleLR(self.opt, max_lr=lr, total_steps=steps, pct_start=0.1)
        self.path = Path(cfg.run_dir) / f"{name}.pt"
        self.log_path = Path(cfg.run_dir) / f"{name}_loss.csv"
        if not self.path.exists() and cfg.init_from and not onnx_model_dir(cfg.init_from):
            start = Path(cfg.init_from) / f"{name}.pt"  # fine-tuning: start from another run's weights
            if not start.exists():
                raise SystemExit(f"--init-from: {start} does not exist (nor {cfg.init_from}/model.json)")
            model.load_state_dict(torch.load(start, map_location="cpu", weights_only=False)["model"])
        if self.path.exists():
            state = torch.load(self.path, map_location="cpu", weights_only=False)
            self.model.load_state_dict(state["model"])
            if self.opt and state["opt"]:
                self.opt.load_state_dict(state["opt"])
                self.sched.load_state_dict(state["sched"])
            self.step = state["step"]
            print(f"{name}: resuming at step {self.step}/{steps}", flush=True)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        torch.save({"model": self.model.state_dict(), "opt": self.opt.state_dict() if self.opt else None,
                    "sched": self.sched.state_dict() if self.sched else None, "step": self.step,
                    "config": dataclasses.asdict(self.cfg)}, tmp)
        os.replace(tmp, self.path)  # a kill mid-write never leaves a broken checkpoint

    def run(self, batch_fn, loss_fn) -> None:
        if self.steps <= 0 and not self.path.exists():
            self.save()
        if self.step >= self.steps:
            return
        self.model.train()
        new_log = not self.log_path.exists()

        def make(step):  # a step's batch depends only on (seed, step): resuming repeats no sample
            return batch_fn(np.random.default_rng([self.cfg.seed, step, len(self.name)]))

        # the next batches are cut in threads while this one trains (OpenCV and
        # numpy release the GIL), which hides most of the augmentation time
        device = torch.device(self.cfg.device)
        with open(self.log_path, "a", newline="") as log, ThreadPoolExecutor(self.cfg.prefetch) as pool, \
                tqdm(total=self.steps, initial=self.step, desc=self.name, dynamic_ncols=True) as bar:
            writer = csv.writer(log)
            if new_log:
                writer.writerow(["step", "loss", "seconds"])
            start = time.time()
            ahead = self.step + min(self.cfg.prefetch, self.steps - self.step)
            upcoming = deque(pool.submit(make, k) for k in range(self.step, ahead))
            while self.step < self.steps:
                batch = upcoming.popleft().result()
                if ahead < self.steps:
                    upcoming.append(pool.submit(make, ahead))
                    ahead += 1
                batch = [t.to(device, non_blocking=True) for t in batch]
                loss, shown = loss_fn(*batch)
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                self.opt.step()
                self.sched.step()
                self.step += 1
                bar.update(1)
                bar.set_postfix(shown)
                if self.step % 20 == 0:
                    writer.writerow([self.step, f"{loss.item():.4f}", f"{time.time() - start:.1f}"])
                if self.step % self.cfg.checkpoint_every == 0 or self.step == self.steps:
                    log.flush()
                    self.save()


def dice_bce(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits)
    inter = (p * target).sum(dim=(0, 2, 3))
    dice = 1 - (2 * inter + 1) / (p.sum(dim=(0, 2, 3)) + target.sum(dim=(0, 2, 3)) + 1)
    return bce + dice.mean()


# channels-last convolutions train about 15 % faster on the CPU (oneDNN's native layout)
FAST_LAYOUT = torch.channels_last


def warm_start(name: str, model: torch.nn.Module, batch_fn, cfg: Config) -> None:
    """With ``--init-from`` an exported models folder, start from its ONNX weights (new runs only)."""
    if not cfg.init_from or not onnx_model_dir(cfg.init_from) or (Path(cfg.run_dir) / f"{name}.pt").exists():
        return
    batches = [batch_fn(np.random.default_rng([cfg.seed, 999_999, k]))[0] for k in range(4)]
    import_network(model, cfg.init_from, name, batches)
    print(f"{name}: starting from {cfg.init_from} (ONNX weights, batch norms refitted on 4 batches)", flush=True)


def train_detector(cfg: Config, real, synth) -> TileSegmenter:
    model = TileSegmenter().to(memory_format=FAST_LAYOUT)
    lighting = Lighting(cfg.overexposed, cfg.shaken, cfg.overexposed_ceiling)
    def batch(rng):
        samples = [detector_sample(pick(real, synth, cfg, rng), rng, cfg.det_size, cfg.base_side,
                                   cfg.core_ratio, cfg.stride, lighting) for _ in range(cfg.det_batch)]
        x = torch.from_numpy(to_tensor_layout([s[0] for s in samples])).contiguous(memory_format=FAST_LAYOUT)
        y = torch.from_numpy(np.stack([s[1] for s in samples]).astype(np.float32))
        return x, y

    def loss(x, y):
        out = model(x)
        total = dice_bce(out[:, :1], y[:, :1]) + 2 * dice_bce(out[:, 1:], y[:, 1:])
        return total, {"loss": f"{total.item():.3f}"}

    warm_start("detector", model, batch, cfg)
    model.to(cfg.device)
    stage = Stage("detector", model, cfg.det_lr, cfg.det_steps, cfg)
    stage.run(batch, loss)
    return model.cpu().to(memory_format=torch.contiguous_format).eval()


def train_classifier(cfg: Config, real, synth) -> TileClassifier:
    model = TileClassifier(num_classes=REJECT + 1).to(memory_format=FAST_LAYOUT)
    lighting = Lighting(cfg.overexposed, cfg.shaken, cfg.overexposed_ceiling)
    negative = mined(synth) if cfg.negative_share > 0 else []

    def sample(rng):
        if negative and rng.random() < cfg.negative_share:  # never drawn at share 0: the recipe's samples stay
            return classifier_sample(negative[int(rng.integers(len(negative)))], rng, (cfg.crop_w, cfg.crop_h),
                                     cfg.crop_margin, cfg.reject_rate, lighting, negative=True)
        # drawn only at a share above 0, so the recipe's samples stay
        sideways = cfg.sideways_share > 0 and rng.random() < cfg.sideways_share
        return classifier_sample(pick(real, synth, cfg, rng), rng, (cfg.crop_w, cfg.crop_h),
                                 cfg.crop_margin, cfg.reject_rate, lighting, sideways=sideways)

    def batch(rng):
        samples = [sample(rng) for _ in range(cfg.cls_batch)]
        x = torch.from_numpy(to_tensor_layout([s[0] for s in samples])).contiguous(memory_format=FAST_LAYOUT)
        labels = torch.tensor([s[1] for s in samples])
        flips = torch.tensor([s[2] for s in samples])
        return x, labels, flips

    def loss(x, labels, flips):
        face, flip = model(x)
        # orientation means nothing for a non-tile crop, and is unknown for some photos
        is_tile = (labels != REJECT) & (flips >= 0)
        flip_loss = F.cross_entropy(flip[is_tile], flips[is_tile]) if is_tile.any() else face.sum() * 0
        total = F.cross_entropy(face, labels, label_smoothing=0.05) + 0.5 * flip_loss
        acc = (face.argmax(1) == labels).float().mean().item()
        return total, {"loss": f"{total.item():.3f}", "acc": f"{acc:.3f}"}

    warm_start("classifier", model, batch, cfg)
    model.to(cfg.device)
    stage = Stage("classifier", model, cfg.cls_lr, cfg.cls_steps, cfg)
    stage.run(batch, loss)
    return model.cpu().to(memory_format=torch.contiguous_format).eval()


def main(argv=None) -> None:
    cfg = parse_args(argv)
    started = time.time()
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    Path(cfg.run_dir).mkdir(parents=True, exist_ok=True)
    real, synth = load_data(cfg)
    if not real and not synth:
        raise SystemExit("no training data: give --real/--extra folders or allow rendering")
    detector = train_detector(cfg, real, synth)
    classifier = train_classifier(cfg, real, synth)
    from models.export import export_all

    export_all(detector, classifier, cfg)
    print(f"done in {(time.time() - started) / 60:.1f} min (this session: rendering, loading, the steps left, export)")


if __name__ == "__main__":
    main()
