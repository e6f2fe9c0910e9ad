"""Hard negatives: places in rendered training scenes that the segmenter outlines where no tile lies.

    python -m models.negatives [--synthetic-dir runs/synthetic] [--seed 0] [--models-dir models]

Random "not a tile" crops (``models.data``) rarely land on what the reader
really takes for a tile: the digit cells of a score pad, keyboard keys,
word-game letter tiles, dominoes, dice. This asks the segmenter where it
sees tiles in each rendered training scene, renders the scene again to know
every tile the renderer drew (face up, face down, hidden or not), and keeps
the outlines that overlap no face-up tile: those are what the classifier
should learn to call "not a readable tile" (``python -m models.train
--negatives FILE --negative-share S``). Outlines of partly covered face-up
tiles are never kept, so the classifier is not taught to drop a tile a hand
half hides. Only rendered scenes are mined: real photos' labels miss tiles.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from models.render.scene import SIZES, render_drawn
from vision.evaluation import quad_iou
from vision.images import load_image
from vision.model import TileModel

NAME = "negatives.npz"
APART = 0.1  # an outline overlapping a face-up tile by more than this is not a negative


def no_tile_here(outlines: np.ndarray, faces: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Which outlines lie clear of every face-up tile and inside the photo (W, H)."""
    keep = np.zeros(len(outlines), bool)
    w, h = size
    for k, quad in enumerate(outlines):
        if quad.min() < 2 or quad[:, 0].max() > w - 2 or quad[:, 1].max() > h - 2:
            continue  # cut by the edge: maybe a tile the renderer left unlabelled there
        centre = quad.mean(axis=0)
        inside = any(cv2.pointPolygonTest(f.astype(np.float32), tuple(map(float, centre)), False) >= 0 for f in faces)
        keep[k] = not inside and all(quad_iou(quad, f) <= APART for f in faces)
    return keep


def _mine(job: tuple[str, int, int, str]) -> tuple[str, np.ndarray]:
    folder, seed, index, models_dir = job
    cv2.setNumThreads(1)
    model = _model(models_dir)
    path = Path(folder) / "images" / f"{index:06d}.jpg"
    image = load_image(path)
    rng = np.random.default_rng([seed, index])  # as models.render drew scene `index`
    size = SIZES[rng.integers(len(SIZES))]
    drawn = render_drawn(rng, size, None)
    labelled = len((Path(folder) / "labels" / f"{path.stem}.txt").read_text().splitlines())
    if drawn.image.shape != image.shape or labelled != len(drawn.labels):
        raise SystemExit(f"{path}: not scene {index} of seed {seed} as rendered with every kind and edition "
                         f"(rendered {drawn.image.shape[:2]} with {len(drawn.labels)} tiles)")
    faces = np.array([q for q, i in zip(drawn.quads, drawn.indices) if i is not None], np.float32).reshape(-1, 4, 2)
    outlines = np.concatenate([model.find_outlines(image)[0], model.detect(image).quads]).reshape(-1, 4, 2)
    kept = outlines[no_tile_here(outlines, faces, (image.shape[1], image.shape[0]))]
    return path.stem, (kept / [image.shape[1], image.shape[0]]).astype(np.float32)


_models: dict[str, TileModel] = {}


def _model(models_dir: str) -> TileModel:
    if models_dir not in _models:
        _models[models_dir] = TileModel(models_dir, threads=1, profile=None)
    return _models[models_dir]


def write_negatives(folder: Path, seed: int, models_dir: Path, workers: int = 2) -> Path:
    """Mine every scene of ``folder`` (rendered with ``seed``); write ``folder/negatives.npz``."""
    from tqdm import tqdm  # the train extra's; the rest of this module needs none of it

    count = len(list((folder / "images").glob("*.jpg")))
    jobs = [(str(folder), seed, i, str(models_dir)) for i in range(count)]
    stems, quads = [], []
    with ProcessPoolExecutor(workers) as pool:
        for stem, found in tqdm(pool.map(_mine, jobs, chunksize=8), total=count, desc="mining"):
            stems += [stem] * len(found)
            quads.append(found)
    out = folder / NAME
    np.savez_compressed(out, stems=np.array(stems), quads=np.concatenate(quads).reshape(-1, 4, 2))
    print(f"{len(stems)} outlines where no tile lies, in {len(set(stems))} of {count} scenes -> {out}")
    return out


def load_negatives(path: str | Path) -> dict[str, np.ndarray]:
    """Image stem -> outlines (K, 4, 2) as fractions of the image's width and height."""
    with np.load(path, allow_pickle=False) as data:
        stems, quads = data["stems"], data["quads"]
    out: dict[str, list] = {}
    for stem, quad in zip(stems, quads):
        out.setdefault(str(stem), []).append(quad)
    return {k: np.array(v, np.float32) for k, v in out.items()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthetic-dir", type=Path, default=Path("runs/synthetic"))
    parser.add_argument("--seed", type=int, default=0, help="the seed the scenes were rendered with")
    parser.add_argument("--models-dir", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    write_negatives(args.synthetic_dir, args.seed, args.models_dir, args.workers)


if __name__ == "__main__":
    main()
