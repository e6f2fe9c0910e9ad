"""Tile editions: what differs between real Rummikub sets (face colour, inks, fonts, marks, jokers).

An edition is a named starting point; ``random_style`` jitters it so no two
rendered tables share exactly the same inks and plastic.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

FONT_DIRS = (Path(__file__).resolve().parents[1] / "fonts", Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))

# Bold faces first: real tiles use heavy numerals.  Missing files are skipped.
FONT_FILES = (
    "DejaVuSans-Bold.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSerif-Bold.ttf",
    "DejaVuSerifCondensed-Bold.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSans.ttf",
    "LiberationSans-Bold.ttf", "LiberationSansNarrow-Bold.ttf", "LiberationSerif-Bold.ttf",
    "LiberationMono-Bold.ttf", "FreeSansBold.ttf", "FreeSerifBold.ttf", "FreeMonoBold.ttf",
    # thin numerals of old wooden-box sets
    "LiberationSans-Regular.ttf", "DejaVuSansCondensed.ttf", "LiberationSansNarrow-Regular.ttf",
)

# Hershey fonts stand in when no TTF file (or no Pillow) is available.
HERSHEY = ("hershey:simplex", "hershey:duplex", "hershey:triplex", "hershey:complex")


@lru_cache(maxsize=1)
def available_fonts() -> tuple[str, ...]:
    """Paths of the TTF fonts found on this machine (empty without Pillow), else Hershey names."""
    try:
        import PIL.ImageFont  # noqa: F401
    except ImportError:
        return HERSHEY
    found = []
    for name in FONT_FILES:
        for root in FONT_DIRS:
            hits = sorted(root.rglob(name)) if root.is_dir() else []
            if hits:
                found.append(str(hits[0]))
                break
    return tuple(found) or HERSHEY


# Ink colours, BGR.  Several shades per colour: editions and print runs differ.
BLACKS = ((25, 25, 25), (40, 38, 35), (55, 50, 45), (15, 15, 20), (60, 60, 60))
BLUES_CLASSIC = ((175, 85, 15), (190, 100, 25), (160, 70, 20), (200, 120, 40))
BLUES_TEAL = ((150, 130, 0), (140, 140, 20), (160, 120, 10))
ORANGES = ((20, 140, 245), (30, 120, 240), (10, 160, 250), (40, 130, 225), (0, 110, 235))
REDS = ((40, 30, 210), (50, 40, 190), (30, 20, 225), (60, 30, 170), (70, 50, 200))

FACES_IVORY = ((203, 229, 240), (196, 223, 236), (210, 233, 243), (190, 217, 230))
FACES_WHITE = ((245, 246, 246), (238, 240, 240), (250, 250, 248))
FACE_CREAM = (178, 222, 242)  # the unknown edition's yellowish plastic

JOKER_DESIGNS = ("smiley", "smiley_red", "smiley_colour", "jester", "filled", "letter", "sun", "sun_red",
                 "grin", "grin_red", "star", "star_red", "mask", "crown")
# a box holds two jokers: editions with a pair print one face in black and the other in red
JOKER_RED_TWIN = {"smiley": "smiley_red", "sun": "sun_red", "grin": "grin_red", "star": "star_red"}
# "none": 6 and 9 are underlined instead; "edge": a small logo on the bottom edge; "xp": the XP sets' mark
MARKS = ("ring", "logo", "frame", "dot", "bar", "none", "edge", "xp")

# Kept out of training entirely (edition, its font and its joker), so rendered
# scenes of it measure how the model and calibration cope with a box never seen.
UNKNOWN_EDITION = "heirloom"


@dataclass(frozen=True)
class Style:
    """Everything that decides how one tile face looks."""

    name: str
    face: tuple[int, int, int]          # plastic colour, BGR
    inks: tuple[tuple[int, int, int], ...]  # black, blue, orange, red (BGR)
    font: str                           # TTF path or "hershey:..."
    numeral_height: float = 0.42        # numeral cap height / face height
    numeral_width: float = 1.0          # horizontal stretch of the numeral
    numeral_y: float = 0.40             # numeral centre / face height
    weight: float = 0.0                 # stroke thickening (+) or thinning (-) / numeral height
    recess: bool = True                 # lighter disc behind the numeral (classic tiles)
    mark: str = "logo"                  # small mark below the numeral: tells 6 from 9
    underline_69: bool = False          # some editions underline 6 and 9
    joker: str = "smiley"
    joker_pair: bool = False            # one joker black, the other red (JOKER_RED_TWIN)
    rounded: float = 0.0                # rounding of the numeral's corners / numeral height (modern tiles)
    aspect: float = 0.74                # face width / height
    rim: float = 0.06                   # bevel width / face height
    corner: float = 0.10                # corner radius / face height
    back: tuple[int, int, int] = (200, 226, 236)  # face-down side colour

    @property
    def key(self) -> tuple:
        return (self.name, self.face, self.inks, self.font, self.numeral_height, self.numeral_width,
                self.numeral_y, self.weight, self.recess, self.mark, self.underline_69, self.joker, self.joker_pair,
                self.rounded, self.aspect, self.rim, self.corner)


def _font(*names: str) -> str:
    fonts = available_fonts()
    for name in names:
        for path in fonts:
            if path.endswith(name):
                return path
    return fonts[0]


def _editions() -> dict[str, Style]:
    classic_inks = (BLACKS[0], BLUES_CLASSIC[0], ORANGES[0], REDS[0])
    return {
        "classic": Style("classic", FACES_IVORY[0], classic_inks, _font("DejaVuSans-Bold.ttf"),
                         numeral_height=0.34, numeral_y=0.38, mark="logo", joker="smiley"),
        "classic_white": Style("classic_white", FACES_WHITE[0], classic_inks, _font("LiberationSans-Bold.ttf"),
                               numeral_height=0.38, recess=False, mark="ring", joker="smiley_red"),
        "teal": Style("teal", FACES_IVORY[2], (BLACKS[1], BLUES_TEAL[0], ORANGES[2], REDS[2]),
                      _font("FreeSansBold.ttf"), numeral_height=0.38, mark="dot", underline_69=True,
                      joker="smiley_colour"),
        "travel": Style("travel", FACES_WHITE[1], (BLACKS[3], BLUES_CLASSIC[2], ORANGES[1], REDS[1]),
                        _font("LiberationSansNarrow-Bold.ttf"), numeral_height=0.44, recess=False,
                        mark="bar", joker="jester", aspect=0.70),
        "serif": Style("serif", FACES_IVORY[1], (BLACKS[2], BLUES_CLASSIC[1], ORANGES[3], REDS[3]),
                       _font("DejaVuSerif-Bold.ttf"), numeral_height=0.38, mark="ring", underline_69=True,
                       joker="filled"),
        "compact": Style("compact", FACES_IVORY[3], (BLACKS[4], BLUES_CLASSIC[3], ORANGES[0], REDS[0]),
                         _font("LiberationSans-Bold.ttf"), numeral_height=0.28, numeral_y=0.36, mark="frame",
                         joker="sun", aspect=0.72),
        "large_print": Style("large_print", FACES_WHITE[2], (BLACKS[0], BLUES_TEAL[1], ORANGES[4], REDS[4]),
                             _font("DejaVuSansCondensed-Bold.ttf"), numeral_height=0.50, numeral_y=0.42,
                             recess=False, mark="none", underline_69=True, joker="letter"),
        # today's shop edition: white, heavy rounded numerals filling two thirds of the face, no disc
        "modern": Style("modern", FACES_WHITE[2], (BLACKS[3], BLUES_CLASSIC[0], ORANGES[2], REDS[2]),
                        _font("DejaVuSans-Bold.ttf"), numeral_height=0.62, numeral_width=1.05, numeral_y=0.45,
                        weight=0.015, rounded=0.05, recess=False, mark="edge", underline_69=True, joker="grin",
                        joker_pair=True, aspect=0.72, corner=0.12),
        # old wooden-box sets: ivory tiles, teal blue, thin numerals
        "wooden": Style("wooden", FACES_IVORY[0], (BLACKS[1], BLUES_TEAL[2], ORANGES[3], REDS[3]),
                        _font("LiberationSans-Regular.ttf"), numeral_height=0.40, numeral_y=0.40, weight=-0.01,
                        recess=False, mark="dot", underline_69=True, joker="smiley", joker_pair=True,
                        aspect=0.70, rim=0.04, corner=0.06),
        "wooden_narrow": Style("wooden_narrow", FACES_IVORY[3], (BLACKS[2], BLUES_TEAL[1], ORANGES[0], REDS[1]),
                               _font("LiberationSansNarrow-Regular.ttf"), numeral_height=0.44, recess=True,
                               mark="none", underline_69=True, joker="star", joker_pair=True, aspect=0.68,
                               corner=0.05),
        "xp": Style("xp", FACES_IVORY[2], classic_inks, _font("DejaVuSansCondensed-Bold.ttf"), numeral_height=0.40,
                    numeral_y=0.39, mark="xp", joker="sun", joker_pair=True, aspect=0.73),
        "travel_mini": Style("travel_mini", FACES_WHITE[0], (BLACKS[0], BLUES_CLASSIC[3], ORANGES[4], REDS[4]),
                             _font("DejaVuSansCondensed.ttf"), numeral_height=0.46, recess=False, mark="bar",
                             joker="mask", aspect=0.66, corner=0.08),
        UNKNOWN_EDITION: Style(UNKNOWN_EDITION, FACE_CREAM, ((30, 20, 10), (120, 60, 0), (0, 100, 220),
                                                              (20, 20, 160)),
                               # a serif no trained edition prints with, whichever of them this machine has
                               _font("LiberationSerif-Bold.ttf", "DejaVuSerifCondensed-Bold.ttf", "FreeSerifBold.ttf"),
                               numeral_height=0.46, numeral_y=0.41,
                               recess=False, mark="frame", underline_69=True, joker="crown", aspect=0.76),
    }


EDITIONS: dict[str, Style] = _editions()
# editions, fonts and jokers random scenes draw from: all but the unknown edition's
TRAINING_EDITIONS = tuple(name for name in EDITIONS if name != UNKNOWN_EDITION)
# today's edition is what most players own: drawn three times as often as any other
EDITION_WEIGHTS = np.array([3.0 if name == "modern" else 1.0 for name in TRAINING_EDITIONS]) / (
    len(TRAINING_EDITIONS) + 2.0)
TRAINING_JOKERS = tuple(j for j in JOKER_DESIGNS if j != EDITIONS[UNKNOWN_EDITION].joker)


def training_fonts() -> tuple[str, ...]:
    held = EDITIONS[UNKNOWN_EDITION].font
    return tuple(f for f in available_fonts() if f != held) or available_fonts()


def _near(rng: np.random.Generator, color: tuple[int, int, int], spread: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + rng.normal(0, spread), 0, 255)) for c in color)


def random_style(rng: np.random.Generator, edition: str | None = None) -> Style:
    """An edition (random unless named) with its inks, font, plastic and proportions jittered.

    A random edition is never the unknown one, and a jittered training style
    never borrows its font or joker.
    """
    unknown = edition == UNKNOWN_EDITION
    if edition is None:
        edition = str(rng.choice(TRAINING_EDITIONS, p=EDITION_WEIGHTS))
    if edition not in EDITIONS:
        raise ValueError(f"{edition!r} is not an edition (one of {', '.join(EDITIONS)})")
    base = EDITIONS[edition]
    pools = (BLACKS, BLUES_TEAL if rng.random() < 0.3 else BLUES_CLASSIC, ORANGES, REDS)
    inks = tuple(_near(rng, p[rng.integers(len(p))], 8) for p in pools)
    white = 0.85 if base.face in FACES_WHITE else 0.2
    faces = (FACE_CREAM,) if unknown else FACES_WHITE if rng.random() < white else FACES_IVORY
    shade = rng.normal(0, 5)  # plastic varies in brightness far more than in hue
    face = tuple(int(np.clip(c + shade + rng.normal(0, 1.5), 0, 255)) for c in faces[rng.integers(len(faces))])
    fonts = available_fonts() if unknown else training_fonts()
    jokers = TRAINING_JOKERS if not unknown else (base.joker,)
    return replace(
        base,
        face=face,
        back=tuple(int(c * rng.uniform(0.88, 1.0)) for c in face),  # backs are the same plastic
        inks=inks,
        font=base.font if unknown or rng.random() < 0.5 else str(fonts[rng.integers(len(fonts))]),
        numeral_height=float(np.clip(base.numeral_height * rng.uniform(0.85, 1.15), 0.26, 0.68)),
        numeral_width=float(base.numeral_width * rng.uniform(0.85, 1.15)),
        numeral_y=float(base.numeral_y + rng.uniform(-0.03, 0.03)),
        weight=float(base.weight + rng.choice([0.0, 0.0, rng.uniform(-0.02, -0.01), rng.uniform(0.015, 0.05)])),
        rounded=float(base.rounded * rng.uniform(0.5, 1.5) if base.rounded else
                      (rng.uniform(0.02, 0.06) if rng.random() < 0.15 else 0.0)),
        recess=base.recess if rng.random() < 0.8 else not base.recess,
        mark=base.mark if rng.random() < 0.6 else str(rng.choice(MARKS)),
        underline_69=base.underline_69 if rng.random() < 0.8 else not base.underline_69,
        joker=base.joker if rng.random() < 0.5 else str(rng.choice(jokers)),
        joker_pair=base.joker_pair if rng.random() < 0.7 else not base.joker_pair,
        aspect=float(base.aspect * rng.uniform(0.94, 1.06)),
        rim=float(rng.uniform(0.03, 0.08)),
        corner=float(rng.uniform(0.04, 0.14)),
    )
