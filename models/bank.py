"""A small bank of the classifier's features on its own training crops, for tile profiles.

    python -m models.bank [--models-dir models] [--per-class 30]

A profile fitted on one box's photos alone forgets what the rest of the
world's tiles look like: after one layout photo, small blurred tiles of any
kind drift to whatever face the new box showed least clearly. Fitting on the
new crops *and* on this bank of training crops (the real photos' training
split and rendered training scenes, augmented as in training, never the
held-out photos) keeps the old readings while learning the new box. The
bank is tied to the classifier file it was computed with.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from models.data import REJECT, classifier_sample, load_photos
from models.train import DEFAULT_REAL, ROOT
from vision.datasets import load_folder, split_holdout
from vision.model import TileModel

BANK_NAME = "classifier_bank.npz"


def write_bank(models_dir: Path, synthetic: Path, per_class: int = 30, seed: int = 0) -> Path:
    model = TileModel(models_dir, profile=None)
    rng = np.random.default_rng(seed)
    items = split_holdout(load_folder(DEFAULT_REAL))[0] if DEFAULT_REAL.exists() else []
    real = load_photos(items, 1024, real=True)
    scenes = load_folder(synthetic) if (synthetic / "data.yaml").exists() else []
    synth = load_photos([scenes[i] for i in rng.permutation(len(scenes))[:300]], 1024, real=False)
    photos = real + synth
    if not photos:
        raise SystemExit("no training photos to fill the bank from")
    counts = np.zeros(REJECT + 1, int)
    crops, labels = [], []
    for _ in range(per_class * (REJECT + 1) * 6):
        photo = photos[int(rng.integers(len(photos)))]
        crop, label, _flip = classifier_sample(photo, rng, model.crop_size, model.margin, reject_rate=0.1)
        if counts[label] < per_class:
            counts[label] += 1
            crops.append(crop)
            labels.append(label)
        if counts.min() >= per_class:
            break
    crops_arr = np.stack(crops)
    features = np.concatenate([model.read_crops_raw(crops_arr[i:i + 256])[2] for i in range(0, len(crops), 256)])
    out = models_dir / BANK_NAME
    np.savez_compressed(out, features=features.astype(np.float16), labels=np.array(labels, np.int16),
                        classifier=np.frombuffer(model.classifier_id.encode(), np.uint8))
    meta_path = models_dir / "model.json"
    meta = json.loads(meta_path.read_text())
    meta["classifier"]["feature_bank"] = BANK_NAME
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models-dir", default=str(ROOT / "models"))
    parser.add_argument("--synthetic-dir", default="runs/synthetic", help="rendered training scenes")
    parser.add_argument("--per-class", type=int, default=30)
    args = parser.parse_args(argv)
    out = write_bank(Path(args.models_dir), Path(args.synthetic_dir), args.per_class)
    print(f"wrote {out} ({out.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
