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
import os
import secrets
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FORMAT = "rummikub-tile-profile/1"
MAKER = "rummikub-companion calibrate"
ARRAYS = ("weight", "bias", "meta")  # what a profile archive holds
# the first bytes of files given as a profile by mistake, and what to call them
OTHER_FILES = ((b"\xff\xd8\xff", "a JPEG image"), (b"\x89PNG", "a PNG image"), (b"GIF8", "a GIF image"),
               (b"%PDF", "a PDF document"), (b"\x93NUMPY", "a single numpy array (.npy)"),
               (b"SQLite format 3", "an SQLite database"))
ACTIVE_NAME = "tile_profile.npz"  # the active profile's file name in the server's data folder

_default: "TileProfile | None" = None


class ProfileError(ValueError):
    """A profile file that cannot be used: unreadable, or made for another classifier."""


def not_a_profile(path: str | Path, reason: str) -> ProfileError:
    """The one way a file that is no usable profile is named: what it is, and what makes one."""
    return ProfileError(f"{path} is not a tile profile made by '{MAKER}' ({reason})")


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
        """Write the profile to ``path`` whole or not at all.

        It goes to a new file beside the target, flushed to disk, then takes
        the target's name in one step: a save cut short (a full disk, the
        power) leaves the profile there before it, never a truncated file that
        every later start would refuse.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"format": FORMAT, "classifier": self.classifier, "info": self.info}
        part = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
        try:
            # created as any new file is (umask), not private as a temporary file would be
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)  # O_BINARY: Windows
            with os.fdopen(os.open(part, flags, 0o666), "wb") as f:
                np.savez_compressed(f, weight=self.weight.astype(np.float32), bias=self.bias.astype(np.float32),
                                    meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
                f.flush()
                os.fsync(f.fileno())
            os.replace(part, path)
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def load(cls, path: str | Path) -> "TileProfile":
        """The profile in ``path``; ProfileError in plain words for any file that is none.

        A file cut short by an interrupted copy, a photo or a JSON file given
        by mistake: each is named as what it is, never with numpy's or
        zipfile's own words (numpy's suggest loading the file unsafely).
        """
        path = Path(path)
        weight, bias, meta = _read_arrays(path)
        fmt = meta.get("format")
        if fmt != FORMAT:
            raise not_a_profile(path, f"format {fmt!r}, not {FORMAT!r}" if fmt else "no format named in it")
        if not isinstance(meta.get("classifier"), str) or not isinstance(meta.get("info", {}), dict):
            raise not_a_profile(path, "its description is incomplete")
        _check_layer(path, weight, bias)
        return cls(weight.astype(np.float32), bias.astype(np.float32), meta["classifier"], meta.get("info", {}))


def _read_arrays(path: Path) -> tuple[np.ndarray, np.ndarray, dict]:
    """(weight, bias, description) from a profile archive; ProfileError naming what is wrong."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such profile file") from None
    except IsADirectoryError:
        raise not_a_profile(path, "a folder, not a file") from None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the profile file: {exc.strerror or exc}") from None
    if not head.startswith(b"PK"):
        raise not_a_profile(path, _what_file(head))
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = [name for name in ARRAYS if name not in data.files]
            arrays = [] if missing else [data[name] for name in ARRAYS]
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError):
        raise not_a_profile(path, "the archive is damaged or cut short, as by a copy or save that "
                                  "was interrupted") from None
    except ValueError:  # an array numpy cannot read safely (Python objects) or a damaged header
        raise not_a_profile(path, "an array in it is not plain numbers") from None
    if missing:
        raise not_a_profile(path, f"an archive without the profile's {', '.join(missing)} "
                                  f"array{'s' * (len(missing) > 1)}")
    weight, bias, meta = arrays
    try:
        described = json.loads(np.asarray(meta).tobytes().decode())
    except (ValueError, TypeError):
        described = None
    if not isinstance(described, dict):
        raise not_a_profile(path, "its description is not readable")
    return weight, bias, described


def _check_layer(path: Path, weight: np.ndarray, bias: np.ndarray) -> None:
    """A face layer the reader can use: numbers, (classes x features) and one bias per class, all finite."""
    numbers = all(np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer) for a in (weight, bias))
    if not numbers:
        raise not_a_profile(path, "an array in it is not plain numbers")
    if weight.ndim != 2 or weight.size == 0 or bias.shape != (weight.shape[0],):
        raise not_a_profile(path, f"a face layer of shape {weight.shape} with a bias of shape {bias.shape}: "
                                  "they do not fit")
    if not (np.isfinite(weight).all() and np.isfinite(bias).all()):
        raise not_a_profile(path, "numbers in its face layer that are not finite")


def _what_file(head: bytes) -> str:
    """What a file that is no .npz archive seems to be, from its first bytes."""
    if not head:
        return "an empty file"
    for magic, name in OTHER_FILES:
        if head.startswith(magic):
            return f"not a profile file: {name}"
    if head.lstrip()[:1] in (b"{", b"["):
        return "not a profile file: JSON"
    return "not a .npz archive"


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
