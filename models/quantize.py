"""Statically quantised int8 copies of the two networks, and model.json pointed at them.

    python -m models.quantize [--models-dir models] [--photos 40]

Activation ranges are calibrated on photos the model trains on (the real
photos' training split and rendered training scenes), never on the held-out
photos. Convolutions and the fully connected layers become int8 (QDQ,
per-channel weights); onnxruntime runs them with integer kernels. The float
files stay beside them: fine-tuning starts from those (``models/onnx_import.py``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

from models.train import DEFAULT_REAL, ROOT
from vision.crops import order_upright, warp_crop
from vision.datasets import load_folder, split_holdout


class Batches(CalibrationDataReader):
    def __init__(self, arrays: list[np.ndarray]):
        self.arrays = iter(arrays)

    def get_next(self):
        x = next(self.arrays, None)
        return None if x is None else {"image": x}


def calibration_photos(count: int, synthetic: Path | None) -> list:
    items = split_holdout(load_folder(DEFAULT_REAL))[0] if DEFAULT_REAL.exists() else []
    rng = np.random.default_rng(0)
    chosen = [items[i] for i in rng.permutation(len(items))[: count // 2]]
    if synthetic and (synthetic / "data.yaml").exists():
        scenes = load_folder(synthetic)
        chosen += [scenes[i] for i in rng.permutation(len(scenes))[: count - len(chosen)]]
    return chosen


def detector_inputs(photos, meta: dict) -> list[np.ndarray]:
    side, multiple = meta["detector"]["base_side"], meta["detector"].get("multiple", 32)
    out = []
    for item in photos:
        image = item.load()
        h, w = image.shape[:2]
        scale = side / max(h, w)
        sw, sh = round(w * scale), round(h * scale)
        small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        canvas = cv2.copyMakeBorder(small, 0, -(-sh // multiple) * multiple - sh, 0,
                                    -(-sw // multiple) * multiple - sw, cv2.BORDER_CONSTANT, value=0)
        out.append(cv2.dnn.blobFromImage(canvas, 1 / 255.0, swapRB=True))
    return out


def classifier_inputs(photos, meta: dict, batch: int = 64) -> list[np.ndarray]:
    cls = meta["classifier"]
    size, margin = (cls["width"], cls["height"]), cls["margin"]
    crops = []
    for item in photos:
        image = item.load()
        for quad in item.quads:
            crop = warp_crop(image, order_upright(quad), size, margin)
            crops += [crop, np.ascontiguousarray(crop[::-1, ::-1])]
    x = cv2.dnn.blobFromImages(crops, 1 / 255.0, swapRB=True)
    return [x[i:i + batch] for i in range(0, len(x), batch)]


def ends(path: Path) -> list[str]:
    """The first convolution and the output layers stay float: the photo's colours go in at full
    precision, and the logits that thresholds and softmax read come out at full precision."""
    graph = onnx.load(str(path)).graph
    layers = [n for n in graph.node if n.op_type in ("Conv", "Gemm")]
    outputs = {o.name for o in graph.output}
    last = [n.name for n in layers if set(n.output) & outputs]
    return [layers[0].name] + (last or [layers[-1].name])


def quantize(models_dir: Path, photos: int = 40, synthetic: Path | None = None) -> dict:
    """Write detector.int8.onnx and classifier.int8.onnx next to the float files; return their names."""
    meta = json.loads((models_dir / "model.json").read_text())
    float_files = {k: meta[k].get("float_file", meta[k]["file"]) for k in ("detector", "classifier")}
    chosen = calibration_photos(photos, synthetic)
    if not chosen:
        raise SystemExit("no calibration photos (the real photos' folder and the rendered scenes are missing)")
    made = {}
    for which, inputs in (("detector", detector_inputs(chosen, meta)), ("classifier", classifier_inputs(chosen, meta))):
        src = models_dir / float_files[which]
        dst = models_dir / src.name.replace(".onnx", ".int8.onnx")
        quantize_static(str(src), str(dst), Batches(inputs), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        op_types_to_quantize=["Conv", "Gemm"], nodes_to_exclude=ends(src))
        made[which] = dst.name
    return made


def use(models_dir: Path, files: dict | None) -> None:
    """Point model.json at the int8 files (``files``) or back at the float ones (None)."""
    meta_path = models_dir / "model.json"
    meta = json.loads(meta_path.read_text())
    for which in ("detector", "classifier"):
        float_file = meta[which].pop("float_file", meta[which]["file"])
        meta[which]["file"] = files[which] if files else float_file
        if files:
            meta[which]["float_file"] = float_file
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")


def compare(models_dir: Path, split: str = "train") -> dict:
    """Float against int8 on the real photos' ``split``: tiles found, codes changed, time per photo.

    Both readers see each photo in turn, so a busy machine slows them alike.
    """
    import tempfile
    import time

    from vision.model import TileModel

    meta = json.loads((models_dir / "model.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        float_dir = Path(tmp)
        for which in ("detector", "classifier"):
            name = meta[which].get("float_file", meta[which]["file"])
            (float_dir / name).symlink_to((models_dir / name).resolve())
            meta[which]["file"] = name
        if "clutter" in meta:  # the clutter gate stays float in both
            (float_dir / meta["clutter"]["file"]).symlink_to((models_dir / meta["clutter"]["file"]).resolve())
        (float_dir / "model.json").write_text(json.dumps(meta))
        floats, ints = TileModel(float_dir, profile=None), TileModel(models_dir, profile=None)
        train, held = split_holdout(load_folder(DEFAULT_REAL))
        times, changed, found = np.zeros(2), 0, np.zeros(2, int)
        for item in (train if split == "train" else held):
            image = item.load()
            read = []
            for k, model in enumerate((floats, ints)):
                started = time.perf_counter()
                read.append(model.detect(image))
                times[k] += time.perf_counter() - started
                found[k] += len(read[-1])
            a, b = read
            for centre, code in zip(a.quads.mean(axis=1), a.class_ids):
                nearest = np.linalg.norm(b.quads.mean(axis=1) - centre, axis=1) if len(b) else np.array([np.inf])
                changed += int(nearest.min() > 0.3 * np.linalg.norm(a.quads[0, 1] - a.quads[0, 0])
                               or b.class_ids[int(nearest.argmin())] != code)
    return {"photos": len(train if split == "train" else held), "tiles_float": int(found[0]),
            "tiles_int8": int(found[1]), "codes_changed": changed, "time_ratio": round(times[1] / times[0], 2)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models-dir", default=str(ROOT / "models"))
    parser.add_argument("--photos", type=int, default=40, help="calibration photos (half real, half rendered)")
    parser.add_argument("--synthetic-dir", default="runs/synthetic", help="rendered training scenes")
    parser.add_argument("--float", action="store_true", help="point model.json back at the float files")
    parser.add_argument("--compare", choices=("train", "held"), default=None,
                        help="only compare the float and int8 files on the real photos' training or held-out split")
    args = parser.parse_args(argv)
    models_dir = Path(args.models_dir)
    if args.compare:
        print(compare(models_dir, args.compare))
        return
    if args.float:
        use(models_dir, None)
        return
    made = quantize(models_dir, args.photos, Path(args.synthetic_dir))
    use(models_dir, made)
    print(f"wrote {', '.join(made.values())}; model.json now uses them")


if __name__ == "__main__":
    main()
