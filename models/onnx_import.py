"""Shipped ONNX networks back into the PyTorch nets of ``models/nets.py``, to fine-tune them.

The export folds each batch norm into the convolution before it, so the
ONNX file holds one weight and bias per convolution. Loading it back, each
batch norm is rebuilt so that in evaluation it computes exactly the exported
function, while its running statistics are those of real training batches:
training mode (batch statistics) then starts from nearly the same function
instead of from a different one.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn


def onnx_model_dir(path: str | Path) -> bool:
    """Whether ``path`` is a folder of exported networks (model.json and .onnx files)."""
    return (Path(path) / "model.json").exists()


def _pairs(model: nn.Module) -> list[tuple[nn.Conv2d, nn.BatchNorm2d | None]]:
    """Every convolution with the batch norm right after it (None: a plain convolution), in run order."""
    order: list[nn.Conv2d] = []
    hooks = [m.register_forward_hook(lambda mod, _i, _o: order.append(mod))
             for m in model.modules() if isinstance(m, nn.Conv2d)]
    was = model.training
    model.eval()
    with torch.no_grad():
        model(torch.zeros(1, 3, 64, 64))
    model.train(was)
    for h in hooks:
        h.remove()
    follows: dict[nn.Conv2d, nn.BatchNorm2d] = {}
    for seq in model.modules():
        if isinstance(seq, nn.Sequential):
            kids = list(seq)
            for a, b in zip(kids, kids[1:]):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    follows[a] = b
    return [(conv, follows.get(conv)) for conv in order]


def load_onnx_weights(model: nn.Module, onnx_path: str | Path) -> None:
    """Copy an exported network's weights into ``model`` (same architecture), batch norms as identity.

    The ONNX convolutions are matched to the model's in the order they run;
    fully connected layers are matched by name.
    """
    graph = onnx.load(str(onnx_path)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    pairs = _pairs(model)
    if len(convs) != len(pairs):
        raise ValueError(f"{onnx_path}: {len(convs)} convolutions, the network has {len(pairs)}")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, pairs):
            w = torch.from_numpy(weights[node.input[1]].copy())
            b = torch.from_numpy(weights[node.input[2]].copy()) if len(node.input) > 2 else torch.zeros(w.shape[0])
            if w.shape != conv.weight.shape:
                raise ValueError(f"{onnx_path}: {node.name} is {tuple(w.shape)}, expected {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            if bn is None:
                conv.bias.copy_(b)
            else:
                bn.weight.fill_(1.0)
                bn.bias.copy_(b)
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)  # sqrt(var + eps) = 1: the norm passes values through
        for name, module in model.named_modules():
            if isinstance(module, nn.Linear):
                module.weight.copy_(torch.from_numpy(weights[f"{name}.weight"].copy()))
                module.bias.copy_(torch.from_numpy(weights[f"{name}.bias"].copy()))


def refit_batchnorm(model: nn.Module, batches: list[torch.Tensor]) -> None:
    """Give each batch norm the statistics of ``batches`` without changing what the model computes.

    For a convolution output ``y`` with batch mean ``m`` and deviation ``s``,
    the norm ``(y - m) / s * s + (b + m)`` equals the imported ``y + b``.
    """
    pairs = [(c, bn) for c, bn in _pairs(model) if bn is not None]
    sums = {id(c): [0.0, 0.0, 0] for c, _ in pairs}

    def record(conv, _inputs, output):
        y = output.detach().transpose(0, 1).reshape(output.shape[1], -1).double()
        acc = sums[id(conv)]
        acc[0] = acc[0] + y.sum(1)
        acc[1] = acc[1] + (y * y).sum(1)
        acc[2] += y.shape[1]

    hooks = [c.register_forward_hook(record) for c, _ in pairs]
    model.eval()  # imported norms pass values through, so each convolution sees its true input
    with torch.no_grad():
        for x in batches:
            model(x)
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for conv, bn in pairs:
            total, squares, n = sums[id(conv)]
            mean = total / n
            var = (squares / n - mean * mean).clamp_min(1e-6)
            beta = bn.bias.double().clone()
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_((var - bn.eps).clamp_min(1e-8).float())
            bn.weight.copy_(var.sqrt().float())
            bn.bias.copy_((beta + mean).float())


def import_network(model: nn.Module, model_dir: str | Path, which: str, batches: list[torch.Tensor]) -> None:
    """Load ``which`` ("detector" or "classifier") from an exported folder into ``model``, norms refitted."""
    meta = json.loads((Path(model_dir) / "model.json").read_text())
    load_onnx_weights(model, Path(model_dir) / meta[which]["file"])
    refit_batchnorm(model, batches)


def max_difference(model: nn.Module, onnx_path: str | Path, x: torch.Tensor) -> float:
    """Largest difference between ``model`` (evaluation mode) and the ONNX file on input ``x``."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    got = session.run(None, {"image": x.numpy()})
    model.eval()
    with torch.no_grad():
        want = model(x)
    want = want if isinstance(want, tuple) else (want,)
    return max(float(np.abs(w.numpy() - g).max()) for w, g in zip(want, got))
