"""Measure the exported model and write its card, models/README.md.

    python -m models.card [--run-dir runs/train]

Figures come from photos the model never trained on: the held-out split of
the real photos, and scenes rendered with a seed the training never used
(other tile editions, rotations, racks, clutter).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from models.card_text import CARD, kept_notes
from models.onnx_import import onnx_model_dir
from models.plots import STAGES, confusion_matrix, read_loss_log, training_curves
from models.train import DEFAULT_REAL, ROOT, Config
from rules.options import find_variant
from models.render.styles import EDITIONS, UNKNOWN_EDITION
from rules.tiles import ALL_FACES
from vision.datasets import LabelledImage, load_folder, split_holdout
from vision.evaluation import evaluate
from vision.reader import ReaderOptions, TableReader

TEST_SEED = 987_654  # rendered test scenes: a seed the training never uses (it uses --seed, 0 by default)
EDITION_SEED = 31_337  # per-edition test scenes: another unused seed
UNKNOWN_SEED = 5_151   # the unknown edition's scenes, rows photos and layout photo


def rendered_test_set(folder: Path, count: int) -> Path:
    if not (folder / "data.yaml").exists() or len(list((folder / "images").glob("*.jpg"))) < count:
        subprocess.run([sys.executable, "-m", "models.render", "--out", str(folder), "--count", str(count),
                        "--seed", str(TEST_SEED)], check=True, cwd=ROOT)
    return folder


def edition_sets(root: Path, count: int) -> dict[str, Path]:
    """``count`` scenes of each edition (``--edition``), seed EDITION_SEED."""
    out = {}
    for name in EDITIONS:
        folder = root / name
        if not (folder / "data.yaml").exists() or len(list((folder / "images").glob("*.jpg"))) < count:
            subprocess.run([sys.executable, "-m", "models.render", "--out", str(folder), "--count", str(count),
                            "--seed", str(EDITION_SEED), "--edition", name], check=True, cwd=ROOT)
        out[name] = folder
    return out


def unknown_edition(reader: TableReader, root: Path, scenes: int, rows: int) -> dict:
    """The edition training never saw: its scenes and rows photos read before and after a profile
    calibrated on one rendered layout photo of it (all three from UNKNOWN_SEED, unused elsewhere)."""
    from models.render.calibration import layout_photo, write_rows_photos
    from vision.calibration import LAYOUT, calibrate, place_typed

    scene_dir = root / "scenes"
    if not (scene_dir / "data.yaml").exists() or len(list((scene_dir / "images").glob("*.jpg"))) < scenes:
        subprocess.run([sys.executable, "-m", "models.render", "--out", str(scene_dir), "--count", str(scenes),
                        "--seed", str(UNKNOWN_SEED), "--edition", UNKNOWN_EDITION], check=True, cwd=ROOT)
    rows_dir = root / "rows"
    if not (rows_dir / "data.yaml").exists():
        write_rows_photos(rows_dir, rows, UNKNOWN_SEED, UNKNOWN_EDITION)
    model = reader.model
    model.set_profile(None)
    layout = layout_photo(np.random.default_rng(UNKNOWN_SEED), UNKNOWN_EDITION)
    started = time.perf_counter()
    place = place_typed(model, layout.image, [list(r) for r in LAYOUT], "layout")
    profile, _reports = calibrate(model, [place])
    seconds = time.perf_counter() - started
    results = {"placed": len(place.indices), "calibrate_seconds": round(seconds, 1)}
    for name, folder in (("scenes", scene_dir), ("rows", rows_dir)):
        items = load_folder(folder)
        model.set_profile(None)
        results[f"{name}_before"] = evaluate(reader, items)
        model.set_profile(profile)
        results[f"{name}_after"] = evaluate(reader, items)
    model.set_profile(None)
    return results


def rotate_photo_90(image: np.ndarray, quads: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Rotate image and quads by k quarter turns counter-clockwise."""
    for _ in range(k % 4):
        h, w = image.shape[:2]
        image = np.ascontiguousarray(np.rot90(image))
        x, y = quads[..., 0].copy(), quads[..., 1].copy()
        quads = np.stack([y, w - 1 - x], axis=-1)
    return image, quads


def turned_photos(items: list[LabelledImage], quarter_turns: int, folder: Path) -> list[LabelledImage]:
    """The held-out photos turned by quarter turns (counter-clockwise), labels turned with them.

    Written as PNG (lossless), so the only change from the originals is the turn.
    """
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for item in items:
        image, quads = rotate_photo_90(item.load(), item.quads, quarter_turns)
        path = folder / f"{item.image_path.stem}.png"
        cv2.imwrite(str(path), image)
        out.append(LabelledImage(path, quads.astype(np.float32), item.class_ids, item.ordered))
    return out


def run_chain(run_dir: Path) -> list[tuple[Path, dict]]:
    """(run folder, its settings) for this run and each run it was fine-tuned from, newest first."""
    import torch

    chain = []
    while run_dir and (run_dir / "detector.pt").exists() and len(chain) < 20:
        config = torch.load(run_dir / "detector.pt", map_location="cpu", weights_only=False)["config"]
        chain.append((run_dir, config))
        run_dir = Path(config["init_from"]) if config.get("init_from") else None
    return chain


def training_minutes(run_dir: Path) -> float:
    """Minutes the run's stages trained, from their loss logs."""
    logs = [run_dir / f"{stage}_loss.csv" for stage in STAGES]
    return sum(read_loss_log(log)[2] for log in logs if log.exists()) / 60


def command_line(config: dict) -> str:
    """The training command that gives these settings (those that differ from the defaults)."""
    defaults = dataclasses.asdict(Config())
    words = ["python -m models.train"]
    for key, value in config.items():
        if key in defaults and value != defaults[key] and key not in ("models_dir", "real"):
            words.append(f"--{key.replace('_', '-')} {' '.join(value) if isinstance(value, list) else value}")
    return " ".join(words)


def made_by(runs: list[tuple[Path, dict]]) -> str:
    text = "This model was made by " + ", then ".join(f"`{command_line(c)}`" for _, c in reversed(runs)) + "."
    first = runs[-1][1].get("init_from") if runs else ""
    if first and onnx_model_dir(first):
        text += (" That run started from the networks shipped before it and trained the segmenter only "
                 "(`--cls-steps 0`) on one GPU, on 3,000 scenes rendered there with the 13 TTF fonts of the "
                 "2-core machine, 12% of its samples overexposed (held at a mean grey of at most 230) and 10% "
                 "blurred; its segmenter is shipped. The segmenter it started from was made by `python -m "
                 "models.train --run-dir runs/ft14 --init-from models --synthetic-dir runs/synth_fix "
                 "--synthetic-count 1600 --det-steps 2400 --det-lr 0.0007 --cls-steps 0` (19 minutes on a 2-core "
                 "CPU, on scenes of the renderer that no longer mirrors the table past its edge), itself from "
                 "`python -m models.train --run-dir runs/ft13 --init-from models --synthetic-dir runs/synth_ed "
                 "--synthetic-count 1600 --det-steps 4000 --det-lr 0.001 --cls-steps 0` (53 minutes, from the "
                 "segmenter before it). "
                 "The classifier is the one shipped before, from `python -m models.train --run-dir runs/ft "
                 "--init-from models --synthetic-dir runs/synth_ed --det-steps 1200 --det-lr 0.001 "
                 "--cls-steps 1600 --cls-lr 0.001` (1,600 classifier steps from the first shipped networks, "
                 "themselves one from-scratch run of `python -m models.train`, 49 minutes of training steps).")
    return text


def meta_files(models_dir: Path) -> dict[str, str]:
    """The network files model.json names (the int8 ones when shipped)."""
    meta = json.loads((models_dir / "model.json").read_text())
    return {k: meta[k]["file"] for k in ("detector", "classifier", "clutter") if k in meta}


def row(name: str, e) -> str:
    d = e.to_dict()
    return (f"| {name} | {d['photos']} | {d['tiles']} | {d['precision']:.3f} | {d['recall']:.3f} | "
            f"{d['accuracy']:.3f} | **{d['f1']:.3f}** | {d['exact_photos']}/{d['photos']} | {d['ms_per_photo']:.0f} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-dir", default="runs/train", help="training run (checkpoints, loss logs)")
    parser.add_argument("--models-dir", default=str(ROOT / "models"))
    parser.add_argument("--real", default=str(DEFAULT_REAL))
    parser.add_argument("--rendered-test", default="runs/rendered_test")
    parser.add_argument("--rendered-count", type=int, default=150)
    parser.add_argument("--edition-count", type=int, default=20, help="test scenes per edition")
    parser.add_argument("--unknown-count", type=int, default=60, help="scenes of the unknown edition")
    parser.add_argument("--unknown-rows", type=int, default=40, help="rows photos of the unknown edition")
    args = parser.parse_args(argv)
    models_dir, run_dir = Path(args.models_dir), Path(args.run_dir)

    # the labelled photos are tables of the standard box, judged as Sabra sets
    reader = TableReader.from_model_dir(models_dir, ReaderOptions(rules=find_variant("sabra")))
    _, held = split_holdout(load_folder(args.real))
    real = evaluate(reader, held)
    turned = {k: evaluate(reader, turned_photos(held, k, Path(args.rendered_test).parent / f"held_out_turned_{k}"))
              for k in (1, 2)}
    rendered = evaluate(reader, load_folder(rendered_test_set(Path(args.rendered_test), args.rendered_count)))
    test_root = Path(args.rendered_test).parent
    editions = {name: evaluate(reader, load_folder(folder))
                for name, folder in edition_sets(test_root / "editions", args.edition_count).items()}
    unknown = unknown_edition(reader, test_root / "unknown_edition", args.unknown_count, args.unknown_rows)

    labels = [t.code for t in ALL_FACES] + ["none"]
    confusion_matrix(real.confusion(), labels, models_dir / "confusion_real.png",
                     f"held-out real photos: {len(held)} photos, end-to-end F1 {real.f1:.3f}")
    confusion_matrix(rendered.confusion(), labels, models_dir / "confusion_rendered.png",
                     f"rendered test scenes (unseen seed): F1 {rendered.f1:.3f}")
    runs = run_chain(run_dir)  # this run, then the run it was fine-tuned from, ...
    training_curves([path for path, _ in reversed(runs)] or [run_dir], models_dir / "curves.png")
    config = runs[0][1] if runs else {}
    minutes = sum(training_minutes(path) for path, _ in runs)
    files = meta_files(models_dir)
    sizes = {f: (models_dir / name).stat().st_size / 1e6 for f, name in files.items()}
    figures = {"held_out_real": real.to_dict(), "held_out_real_turned_90": turned[1].to_dict(),
               "held_out_real_turned_180": turned[2].to_dict(), "rendered_test": rendered.to_dict(),
               "mistakes_real": real.mistakes(12), "mistakes_rendered": rendered.mistakes(12),
               "training_minutes": round(minutes, 1), "onnx_mb": round(sum(sizes.values()), 2),
               "editions": {name: e.to_dict() for name, e in editions.items()},
               "unknown_edition": {k: v.to_dict() if hasattr(v, "to_dict") else v for k, v in unknown.items()},
               "files": files,
               "config": config, "measured": time.strftime("%Y-%m-%d")}
    (models_dir / "metrics.json").write_text(json.dumps(figures, indent=2) + "\n")
    card = models_dir / "README.md"
    notes = kept_notes(card.read_text(encoding="utf-8") if card.exists() else "")
    card.write_text(CARD.format(
        **notes,
        real_row=row("held-out real photos", real),
        turned_rows="\n".join(row(f"the same, turned {90 * k}°", e) for k, e in turned.items()),
        rendered_row=row("rendered test scenes", rendered),
        rendered_sets=f"{rendered.groups.sets_exact} and {rendered.groups.false_alarms}",
        edition_rows="\n".join(row(f"`{name}`" + (" (never trained on)" if name == UNKNOWN_EDITION else ""), e)
                               for name, e in editions.items()),
        unknown_rows="\n".join([
            row(f"{UNKNOWN_EDITION} scenes, shipped reading", unknown["scenes_before"]),
            row(f"{UNKNOWN_EDITION} scenes, after one layout photo", unknown["scenes_after"]),
            row(f"{UNKNOWN_EDITION} tiles in rows, shipped reading", unknown["rows_before"]),
            row(f"{UNKNOWN_EDITION} tiles in rows, after one layout photo", unknown["rows_after"])]),
        unknown=UNKNOWN_EDITION, calibrate_seconds=unknown["calibrate_seconds"], placed=unknown["placed"],
        edition_count=args.edition_count, files=", ".join(f"`{f}`" for f in files.values()),
        held=len(held), mistakes_real=", ".join(f"{a}→{b} ×{n}" for a, b, n in real.mistakes(12)) or "none",
        mistakes_rendered=", ".join(f"{a}→{b} ×{n}" for a, b, n in rendered.mistakes(12)) or "none",
        made_by=made_by(runs),
        minutes=minutes, where="one GPU" if config.get("device", "cpu") != "cpu" else "a 2-core CPU",
        mb=sum(sizes.values()), det_mb=sizes["detector"], cls_mb=sizes["classifier"],
        gate_mb=sizes.get("clutter", 0.0),
        config="\n".join(f"| `{k}` | `{v}` |" for k, v in config.items() if k not in ("run_dir", "models_dir", "real")),
    ))
    for name in ("held_out_real", "held_out_real_turned_90", "held_out_real_turned_180", "rendered_test"):
        print(name, figures[name])


if __name__ == "__main__":
    main()
