"""Training samples made on the fly from labelled photos (real, rendered or a club's own).

Every labelled image is loaded once, shrunk so its long side is at most
``max_side``; each call then cuts a fresh augmented sample, so a few hundred
photos give an endless stream without writing crops to disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from rules.tiles import JOKER_INDEX
from vision.crops import order_upright, rotate_half_turn, shrink_quad, warp_crop
from vision.datasets import LabelledImage

REJECT = 53  # classifier class for "not a readable tile face"


@dataclass(frozen=True)
class Lighting:
    """Harsher photos than the shipped recipe shows, as shares of the samples (0: never, so the
    recipe's samples stay as they were): ``overexposed`` exposed 1.35-2.2 times, white faces
    clipped (a dark table makes the camera do that); ``shaken`` blurred 5-11 px along one
    direction (the phone moved). ``pale_ceiling`` (0: none) holds an overexposed sample's mean
    grey at most that high: a camera overexposes the faces on a dark table, while a pale table
    already fills its range, and clipping it white teaches outlines no photo shows."""

    overexposed: float = 0.0
    shaken: float = 0.0
    pale_ceiling: float = 0.0


@dataclass
class Photo:
    image: np.ndarray  # BGR uint8
    quads: np.ndarray  # (N, 4, 2) pixels, reading order when `ordered`
    class_ids: np.ndarray
    ordered: bool
    real: bool
    # outlines (K, 4, 2) in pixels where the segmenter sees a tile and none lies (models.negatives)
    negatives: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 2), np.float32))


def mined(photos: list[Photo]) -> list[Photo]:
    """The photos with outlines where no tile lies (``Photo.negatives``), in their order."""
    return [p for p in photos if len(p.negatives)]


def load_photos(items: list[LabelledImage], max_side: int, real: bool,
                negatives: dict[str, np.ndarray] | None = None) -> list[Photo]:
    """``negatives``: image stem -> outlines as fractions of the width and height (models.negatives)."""
    photos = []
    for item in items:
        image = item.load()
        scale = min(1.0, max_side / max(image.shape[:2]))
        if scale < 1.0:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        quads = item.quads * scale
        if not item.ordered:
            quads = np.array([order_upright(q) for q in quads], dtype=np.float32).reshape(-1, 4, 2)
        photo = Photo(image, quads, item.class_ids, item.ordered, real)
        if negatives and item.image_path.stem in negatives:
            photo.negatives = negatives[item.image_path.stem] * [image.shape[1], image.shape[0]]
        photos.append(photo)
    return photos


# ---------------------------------------------------------------- photometric

def jitter_colors(image: np.ndarray, rng: np.random.Generator, strength: float = 1.0,
                  lighting: Lighting = Lighting()) -> np.ndarray:
    """Lighting and camera changes that keep tile colours recognisable (no big hue shifts)."""
    gains = 1 + rng.uniform(-0.12, 0.12, 3) * strength  # white balance
    # overexposed, the edges between touching white faces fade into one white strip
    over = lighting.overexposed > 0 and rng.random() < lighting.overexposed
    exposure = rng.uniform(1.35, 2.2) if over else rng.uniform(0.6, 1.35)
    contrast = rng.uniform(0.7, 1.3)
    channels = cv2.mean(image)[:3]
    if over and lighting.pale_ceiling > 0:
        grey = float(np.dot(channels, gains)) / 3
        exposure = min(exposure, max(1.0, lighting.pale_ceiling / max(grey, 1.0)))
    # white balance, exposure and contrast are one affine map per channel: a lookup table
    slope = gains * exposure
    mean = float(np.dot(channels, slope)) / 3
    levels = np.arange(256, dtype=np.float32)[:, None] * (slope * contrast) + mean * (1 - contrast)
    img = cv2.LUT(image, np.clip(levels, 0, 255).astype(np.uint8).reshape(256, 1, 3))
    if rng.random() < 0.3:  # a soft lighting gradient
        h, w = img.shape[:2]
        gx, gy = rng.uniform(-0.4, 0.4, 2)
        ramp = 1 + gx * (np.arange(w, dtype=np.float32)[None, :] / w - 0.5) \
            + gy * (np.arange(h, dtype=np.float32)[:, None] / h - 0.5)
        img = cv2.multiply(img, cv2.merge([ramp] * 3), dtype=cv2.CV_8U)
    if rng.random() < 0.25:
        noise = np.empty(img.shape, np.int16)
        cv2.setRNGSeed(int(rng.integers(2**31)))  # the same sample on a resumed run
        cv2.randn(noise, (0, 0, 0), (rng.uniform(2, 10),) * 3)  # a scalar would noise only channel 0
        img = cv2.add(img, noise, dtype=cv2.CV_8U)
    if rng.random() < 0.2:
        k = int(rng.choice([3, 5]))
        img = cv2.GaussianBlur(img, (k, k), 0)
    if lighting.shaken > 0 and rng.random() < lighting.shaken:  # the phone moved: a blur along one direction
        length = int(rng.integers(5, 12))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1.0  # a line through the middle, turned, then made to sum to one
        turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, turn, (length, length))
        img = cv2.filter2D(img, -1, kernel / max(float(kernel.sum()), 1e-6))
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 90))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


# ------------------------------------------------------------------ detector

def detector_sample(photo: Photo, rng: np.random.Generator, size: int, base_side: int,
                    core_ratio: float, stride: int, lighting: Lighting = Lighting()) -> tuple[np.ndarray, np.ndarray]:
    """One augmented crop (size x size, BGR) and its targets (2, size/stride, size/stride)."""
    image, quads = photo.image, photo.quads
    h, w = image.shape[:2]
    # the photo is seen at the inference scale (long side = base_side), then zoomed a little;
    # quarter turns are part of the same warp (turning the whole photo first costs more than the rest)
    scale = base_side / max(h, w) * float(np.exp(rng.uniform(np.log(0.55), np.log(1.5))))
    angle = 90.0 * int(rng.integers(4)) + (rng.uniform(-180, 180) if rng.random() < 0.3 else 0.0)
    center = np.array([w / 2, h / 2])
    m = cv2.getRotationMatrix2D(tuple(center), angle, scale)
    # pick a crop window in the transformed frame, biased towards tiles
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    tcorners = corners @ m[:, :2].T + m[:, 2]
    lo, hi = tcorners.min(axis=0), tcorners.max(axis=0)
    if len(quads) and rng.random() < 0.8:
        q = quads[rng.integers(len(quads))].mean(axis=0)
        focus = m[:, :2] @ q + m[:, 2] + rng.uniform(-size / 2, size / 2, 2)
    else:
        focus = rng.uniform(lo, np.maximum(lo + 1, hi))
    m[:, 2] += size / 2 - focus
    crop = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(int(v) for v in rng.integers(0, 255, 3)))
    crop = jitter_colors(crop, rng, lighting=lighting)
    # rasterise at full resolution and average down, so the target is not
    # dilated by the coarse grid (fillPoly at 1/stride would grow every core)
    full = np.zeros((2, size, size), dtype=np.uint8)
    shift = 2  # fillPoly sub-pixel bits
    for q in quads:
        tq = q @ m[:, :2].T + m[:, 2]
        for channel, poly in ((0, tq), (1, shrink_quad(tq, core_ratio))):
            pts = np.round((poly - 0.5) * (1 << shift)).astype(np.int32)
            cv2.fillPoly(full[channel], [pts], 255, lineType=cv2.LINE_AA, shift=shift)
    small = [cv2.resize(c, (size // stride, size // stride), interpolation=cv2.INTER_AREA) for c in full]
    target = (np.stack(small) >= 128).astype(np.uint8)
    return crop, target


# ---------------------------------------------------------------- classifier

def classifier_sample(photo: Photo, rng: np.random.Generator, crop_size: tuple[int, int],
                      margin: float, reject_rate: float, lighting: Lighting = Lighting(),
                      negative: bool = False, sideways: bool = False) -> tuple[np.ndarray, int, int]:
    """One straightened crop with (class, upside_down); class REJECT for non-tiles.

    ``negative``: cut it at one of the photo's mined negatives (``Photo.negatives``).
    ``sideways``: cut it at a tile's outline turned a quarter, as no tile. The reader takes an
    outline's long side for the face's height, so a foreshortened face comes out sideways, where a
    3 looks like a 10; taught as no tile, that reading loses to the one turned back upright.

    upside_down is -1 (unknown) for photos whose labels do not give the reading
    direction: their tiles are still shown both ways up, but teach no orientation.
    """
    w, h = crop_size
    if negative:
        quad, label = photo.negatives[int(rng.integers(len(photo.negatives)))].copy(), REJECT
    elif sideways and len(faces := np.nonzero(photo.class_ids != JOKER_INDEX)[0]):
        # a joker's face (a smiling mask) is still a joker turned a quarter: faces are the others
        quad = np.roll(photo.quads[int(rng.choice(faces))], int(rng.choice([-1, 1])), axis=0)
        label = REJECT
    elif len(photo.quads) == 0 or rng.random() < reject_rate:
        quad, label = _reject_quad(photo, rng), REJECT
    else:
        i = int(rng.integers(len(photo.quads)))
        quad, label = photo.quads[i].copy(), int(photo.class_ids[i])
    # detector outlines are off as on real photos (measured on the training
    # split: median 3 degrees, 10 % beyond 15; centres off by 5-15 % of the
    # width; areas 1.0-1.6 times the face): turn, move and grow the outline,
    # then move each corner by a few % of the tile size
    side = np.linalg.norm(quad[1] - quad[0]) + 1e-3
    center = quad.mean(axis=0)
    a = np.deg2rad(np.clip(rng.normal(0, 9), -28, 28))
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    shift = rng.normal(0, 0.06 * side, 2)
    quad = center + shift + ((quad - center) @ turn.T) * rng.uniform(0.92, 1.3)
    quad = quad + rng.normal(0, 0.035 * side, quad.shape)
    flip = int(rng.random() < 0.5)
    if flip:
        quad = rotate_half_turn(quad)
    # low-resolution tiles (down to 16 px tall) half of the time: warp small,
    # then scale up to the model size
    tile_h = float(np.exp(rng.uniform(np.log(16), np.log(h)))) if rng.random() < 0.5 else h
    small = (max(6, int(round(w * tile_h / h))), max(8, int(round(tile_h))))
    if small[1] < h:
        crop = warp_crop(photo.image, quad, small, margin)
        crop = cv2.resize(crop, (w, h), interpolation=cv2.INTER_LINEAR)
    else:
        crop = warp_crop(photo.image, quad, (w, h), margin)
    crop = jitter_colors(crop, rng, strength=0.8, lighting=lighting)
    return crop, label, flip if photo.ordered else -1


def _reject_quad(photo: Photo, rng: np.random.Generator) -> np.ndarray:
    """A tile-shaped outline that is not one tile: background, a half of two tiles, a sliver."""
    h, w = photo.image.shape[:2]
    if len(photo.quads) and rng.random() < 0.6:
        q = photo.quads[int(rng.integers(len(photo.quads)))]
        across = q[1] - q[0]
        down = q[3] - q[0]
        choice = rng.random()
        if choice < 0.5:  # straddling two neighbours
            return q + across * rng.choice([-1, 1]) * rng.uniform(0.45, 0.6)
        if choice < 0.8:  # off vertically
            return q + down * rng.choice([-1, 1]) * rng.uniform(0.5, 0.8)
        return q + (across + down) * rng.uniform(0.55, 0.8)
    tile_h = rng.uniform(20, max(21, min(h, w) / 4))
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    a = rng.uniform(0, 2 * np.pi)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    base = np.array([[-0.37, -0.5], [0.37, -0.5], [0.37, 0.5], [-0.37, 0.5]]) * tile_h
    return (base @ rot.T + [cx, cy]).astype(np.float32)


def to_tensor_layout(images: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 HWC list -> float32 NCHW RGB in [0, 1]: the same call that makes vision/'s model input."""
    return cv2.dnn.blobFromImages(images, 1 / 255.0, swapRB=True)
