"""Export the trained networks to ONNX, check each export, and write model.json.

model.json carries everything inference must agree on (class names, input
sizes, core ratio, crop margin), so vision/ reads it instead of repeating it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort
import torch

from rules.tiles import ALL_FACES


def _export(model: torch.nn.Module, example: torch.Tensor, path: Path, outputs: list[str],
            dynamic: dict) -> None:
    model.eval()
    torch.onnx.export(model, example, str(path), input_names=["image"], output_names=outputs,
                      dynamic_axes=dynamic, opset_version=17, dynamo=False)
    onnx.checker.check_model(onnx.load(str(path)))
    with torch.no_grad():
        expected = model(example)
    expected = expected if isinstance(expected, tuple) else (expected,)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = session.run(None, {"image": example.numpy()})
    for want, have in zip(expected, got):
        np.testing.assert_allclose(want.numpy(), have, rtol=1e-3, atol=1e-4)


def add_features_output(path: Path) -> None:
    """Expose the classifier's penultimate features (the input of its face layer) as output "features".

    A tile profile (``vision/profile.py``) fits its own face layer on these,
    so a box of tiles is learned without PyTorch. The other outputs stay as
    they were; a file that already has the output is left alone.
    """
    model = onnx.load(str(path))
    graph = model.graph
    if any(o.name == "features" for o in graph.output):
        return
    face = next(n for n in graph.node if n.op_type == "Gemm" and n.output[0] == "face")
    graph.node.append(onnx.helper.make_node("Identity", [face.input[0]], ["features"], name="features"))
    width = next(t for t in graph.initializer if t.name == face.input[1]).dims[1]
    graph.output.append(onnx.helper.make_tensor_value_info("features", onnx.TensorProto.FLOAT, ["tiles", width]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def write_face_layer(onnx_path: Path, out: Path) -> None:
    """Save the classifier's face layer (weight, bias) as .npz: where every tile profile starts."""
    graph = onnx.load(str(onnx_path)).graph
    face = next(n for n in graph.node if n.op_type == "Gemm" and n.output[0] == "face")
    weights = {t.name: onnx.numpy_helper.to_array(t) for t in graph.initializer}
    np.savez(out, weight=weights[face.input[1]].astype(np.float32), bias=weights[face.input[2]].astype(np.float32))


def export_all(detector, classifier, cfg) -> Path:
    out = Path(cfg.models_dir)
    out.mkdir(parents=True, exist_ok=True)
    _export(detector, torch.rand(1, 3, 256, 320), out / "detector.onnx", ["maps"],
            {"image": {0: "batch", 2: "height", 3: "width"}, "maps": {0: "batch", 2: "h4", 3: "w4"}})
    _export(classifier, torch.rand(4, 3, cfg.crop_h, cfg.crop_w), out / "classifier.onnx",
            ["face", "flip"], {"image": {0: "tiles"}, "face": {0: "tiles"}, "flip": {0: "tiles"}})
    add_features_output(out / "classifier.onnx")
    write_face_layer(out / "classifier.onnx", out / "classifier_face.npz")
    meta = {
        "classes": [t.code for t in ALL_FACES] + ["reject"],
        "detector": {"file": "detector.onnx", "base_side": cfg.base_side, "stride": cfg.stride,
                     "core_ratio": cfg.core_ratio, "multiple": 32,
                     "outputs": ["face", "core"]},
        "classifier": {"file": "classifier.onnx", "width": cfg.crop_w, "height": cfg.crop_h,
                       "margin": cfg.crop_margin, "outputs": ["face", "flip", "features"],
                       "face_layer": "classifier_face.npz"},
        "input": "RGB float32 in [0, 1], NCHW",
    }
    meta_path = out / "model.json"
    if meta_path.exists():  # the clutter gate reads no face: it stays with new face networks
        gate = json.loads(meta_path.read_text()).get("clutter")
        if gate and (out / gate["file"]).exists():
            meta["clutter"] = gate
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    sizes = sum((out / f).stat().st_size for f in ("detector.onnx", "classifier.onnx"))
    print(f"exported to {out} ({sizes / 1e6:.1f} MB), ONNX Runtime matches PyTorch")
    return out


def export_clutter(gate, out: Path, size: int, context: float) -> Path:
    """Write ``clutter.onnx`` (input: context crops N x 3 x size x size, output: the tile logit) and
    add it to ``out/model.json``."""
    path = out / "clutter.onnx"
    _export(gate, torch.rand(4, 3, size, size), path, ["tile"], {"image": {0: "finds"}, "tile": {0: "finds"}})
    meta_path = out / "model.json"
    meta = json.loads(meta_path.read_text())
    meta["clutter"] = {"file": path.name, "size": size, "context": context, "input": "RGB float32 in [0, 1], NCHW"}
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    print(f"exported the clutter gate to {path} ({path.stat().st_size / 1e6:.2f} MB), ONNX Runtime matches PyTorch")
    return path
