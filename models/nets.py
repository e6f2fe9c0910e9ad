"""The two small networks: a tile-outline segmenter and a tile-face classifier.

Both are plain convolution stacks sized for a laptop CPU: the segmenter runs
once per photo at about 1 GMAC, the classifier about 15 MMAC per tile.
"""

from __future__ import annotations

import torch
from torch import nn
import torch.nn.functional as F


def conv_bn(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class TileSegmenter(nn.Module):
    """Predicts, at 1/4 resolution, two maps: the tile face and its shrunken core.

    Cores of tiles laid edge to edge stay apart, so each connected core is one
    tile; its rotated rectangle, scaled back up, is the tile's outline (the
    same idea as shrink-map text detectors).
    """

    def __init__(self, width: int = 24):
        super().__init__()
        w = width
        self.stem = nn.Sequential(conv_bn(3, 16, 2), conv_bn(16, w, 2), conv_bn(w, w))      # 1/4
        self.down8 = nn.Sequential(conv_bn(w, 2 * w, 2), conv_bn(2 * w, 2 * w))             # 1/8
        self.down16 = nn.Sequential(conv_bn(2 * w, 4 * w, 2), conv_bn(4 * w, 4 * w), conv_bn(4 * w, 4 * w))  # 1/16
        self.down32 = nn.Sequential(conv_bn(4 * w, 5 * w, 2), conv_bn(5 * w, 5 * w))         # 1/32
        d = 32
        self.lat32 = nn.Conv2d(5 * w, d, 1)
        self.lat16 = nn.Conv2d(4 * w, d, 1)
        self.lat8 = nn.Conv2d(2 * w, d, 1)
        self.lat4 = nn.Conv2d(w, d, 1)
        self.smooth16 = conv_bn(d, d)
        self.smooth8 = conv_bn(d, d)
        self.smooth4 = nn.Sequential(conv_bn(d, 16), nn.Conv2d(16, 2, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c4 = self.stem(x)
        c8 = self.down8(c4)
        c16 = self.down16(c8)
        c32 = self.down32(c16)
        p = self.lat32(c32)
        p = self.smooth16(self.lat16(c16) + F.interpolate(p, size=c16.shape[-2:], mode="nearest"))
        p = self.smooth8(self.lat8(c8) + F.interpolate(p, size=c8.shape[-2:], mode="nearest"))
        p = self.lat4(c4) + F.interpolate(p, size=c4.shape[-2:], mode="nearest")
        return self.smooth4(p)  # logits: [face, core]


class TileClassifier(nn.Module):
    """Reads a straightened crop: 53 faces + 'not a readable tile', and whether it is upside down."""

    def __init__(self, num_classes: int = 54):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, 24), conv_bn(24, 32, 2), conv_bn(32, 32),
            conv_bn(32, 64, 2), conv_bn(64, 64),
            conv_bn(64, 128, 2), conv_bn(128, 128),
        )
        self.dropout = nn.Dropout(0.2)
        self.face = nn.Linear(128, num_classes)
        self.flip = nn.Linear(128, 2)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x).mean(dim=(2, 3))
        f = self.dropout(f)
        return self.face(f), self.flip(f)


class ClutterGate(nn.Module):
    """Looks at a tile and its surroundings (``vision.crops.context_crop``): the logit that it is a tile."""

    def __init__(self):
        super().__init__()
        widths = [3, 24, 48, 64, 96]
        self.features = nn.Sequential(*[
            nn.Sequential(nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True),
                          nn.MaxPool2d(2))
            for a, b in zip(widths, widths[1:])])
        self.tile = nn.Linear(widths[-1], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.tile(self.features(x).mean(dim=(2, 3))).squeeze(1)
