"""A tile profile: the classifier's face layer refitted to one box of tiles, in numpy.

The classifier ONNX file gives, besides its readings, the penultimate
features every reading is a linear function of. ``rummikub-companion
calibrate`` fits a new face layer on features of crops whose tiles are known
(a layout photo, typed photos, labelled folders), starting from and pulled
towards the shipped layer, so tiles it saw no example of keep their reading.
The result is a small ``.npz`` file; reading with it needs no PyTorch.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FORMAT = "rummikub-tile-profile/1"
ACTIVE_NAME = "tile_profile.npz"  # the active profile's file name in the server's data folder

_default: "TileProfile | None" = None


class ProfileError(ValueError):
    """A profile file that cannot be used: unreadable, or made for another classifier."""


def classifier_id(path: str | Path) -> str:
    """Short hash of a classifier file: a profile fits only the classifier it was made on."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


@dataclass
class TileProfile:
    """A face layer (classes x features) for one box of tiles, and what was learned."""

    weight: np.ndarray          # (C, F) float32
    bias: np.ndarray            # (C,) float32
    classifier: str             # classifier_id of the network whose features it reads
    info: dict = field(default_factory=dict)  # sources, tiles learned, confidence before and after

    def logits(self, features: np.ndarray) -> np.ndarray:
        return features @ self.weight.T + self.bias

    def probabilities(self, shipped_logits: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Face probabilities (N, C): which face from this profile, whether a face at all as shipped.

        The shipped layer's "not a readable tile" share was learned from every
        kind of clutter; a few photos of one box cannot teach that, only which
        face a tile shows, so the profile reads the face and leaves the rest.
        """
        shipped = softmax(shipped_logits)
        faces = softmax(self.logits(features)[:, :-1])
        out = np.concatenate([faces * (1 - shipped[:, -1:]), shipped[:, -1:]], axis=1)
        rejected = shipped.argmax(axis=1) == shipped.shape[1] - 1
        out[rejected] = shipped[rejected]  # what the shipped layer calls no tile stays no tile
        return out

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"format": FORMAT, "classifier": self.classifier, "info": self.info}
        with open(path, "wb") as f:  # a file object: numpy adds no .npz to the name
            np.savez_compressed(f, weight=self.weight.astype(np.float32), bias=self.bias.astype(np.float32),
                                meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
        return path

    @classmethod
    def load(cls, path: str | Path) -> "TileProfile":
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                weight, bias = data["weight"], data["bias"]
        except FileNotFoundError:
            raise ProfileError(f"{path}: no such profile file") from None
        except (OSError, ValueError, KeyError) as exc:
            raise ProfileError(f"{path}: not a tile profile ({exc})") from None
        if meta.get("format") != FORMAT:
            raise ProfileError(f"{path}: not a tile profile (format {meta.get('format')!r})")
        if weight.ndim != 2 or bias.shape != (weight.shape[0],):
            raise ProfileError(f"{path}: face layer of shape {weight.shape} and bias {bias.shape} do not fit")
        return cls(weight.astype(np.float32), bias.astype(np.float32), str(meta["classifier"]), meta.get("info", {}))


def softmax(x: np.ndarray) -> np.ndarray:
    """Row-wise probabilities from the classifier's scores (the reader and calibration share it)."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def balanced_weights(labels: np.ndarray, classes: int, total: float = 1.0) -> np.ndarray:
    """Per-sample weights summing to ``total`` with every class present weighing the same."""
    counts = np.bincount(labels, minlength=classes).astype(np.float64)
    w = 1.0 / counts[labels]
    return total * w / w.sum()


def fit_face_layer(features: np.ndarray, labels: np.ndarray, weight: np.ndarray, bias: np.ndarray,
                   pull: float = 1e-3, steps: int = 400, lr: float = 0.02,
                   sample_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression on ``features`` -> ``labels``, from ``(weight, bias)`` and pulled towards them.

    Loss: weighted cross-entropy (default: each class weighted equally, so 54
    layout tiles and 500 rejects count alike) + ``pull`` * squared distance to
    the starting layer. Full-batch Adam; a few thousand crops take a second.
    """
    x = np.asarray(features, np.float64)
    y = np.asarray(labels, np.int64)
    w0, b0 = np.asarray(weight, np.float64), np.asarray(bias, np.float64)
    classes = w0.shape[0]
    sample_w = balanced_weights(y, classes) if sample_weights is None else np.asarray(sample_weights, np.float64)
    onehot = np.eye(classes)[y]
    w, b = w0.copy(), b0.copy()
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    for t in range(1, steps + 1):
        p = softmax(x @ w.T + b)
        g = (p - onehot) * sample_w[:, None]
        grads = [g.T @ x + 2 * pull * (w - w0), g.sum(0) + 2 * pull * (b - b0)]
        for k, (param, grad) in enumerate(zip((w, b), grads)):
            m[k] = 0.9 * m[k] + 0.1 * grad
            v[k] = 0.999 * v[k] + 0.001 * grad * grad
            param -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    return w.astype(np.float32), b.astype(np.float32)


def set_default_profile(profile: TileProfile | str | Path | None) -> TileProfile | None:
    """The profile every tile model made from now on in this process reads with (None: the shipped layer).

    The server sets it once from its data folder, so the camera's reader,
    loaded later in its own thread, reads the box the players taught it.
    """
    global _default
    _default = profile if profile is None or isinstance(profile, TileProfile) else TileProfile.load(profile)
    return _default


def default_profile() -> TileProfile | None:
    return _default
