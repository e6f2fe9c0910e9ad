"""The model card's text: its template, and the notes written into it by hand that a card measured
again keeps.  Apart from ``models.card``, which needs the training extra, so the text can be
checked without it."""

from __future__ import annotations

import re

NOTES = ("reader", "profiles")  # hand-written sections of the card, each between <!-- notes:NAME --> markers


def kept_notes(card: str) -> dict[str, str]:
    """The card's hand-written notes (``notes_NAME``: the marked block with its markers and the
    blank line after it, or "" when the card has none), so a card measured again keeps what was
    measured by hand since: changes to the reader tried on the same scenes, the profiles' pitfalls."""
    notes = {}
    for name in NOTES:
        found = re.search(rf"<!-- notes:{name} -->\n.*?<!-- /notes:{name} -->\n", card, re.S)
        notes[f"notes_{name}"] = found.group(0) + "\n" if found else ""
    return notes


CARD = """# Tile model card

Three small networks run with onnxruntime on the CPU (`vision/model.py`); the
files in use are {files}:

1. **Segmenter** ({det_mb:.1f} MB): a convolutional encoder
   (strides 2-32) with a feature-pyramid decoder. The photo is scaled so its long
   side is 768 px; the network predicts, at 1/4 resolution, the tile face and its
   *core* (the face shrunk to half size about its centre). Cores of tiles laid
   edge to edge mostly stay apart, so each connected core is one tile; its
   rotated rectangle, doubled, is the tile outline. Where neighbouring cores
   still touch, the region is cut at the dips of its core probability into one
   tile each. Big photos whose tiles come out tiny are looked at again closer
   up, and the outlines of small tiles (under 50 px tall at 768, as first outlined) are drawn
   again from a closer look.
2. **Classifier** ({cls_mb:.1f} MB): each outline is
   straightened to a 32x48 crop (long side vertical, 8 % margin) and read into
   one of 54 classes: the 53 faces (K/B/O/R 1-13, joker) or *not a readable
   tile* (face-down tiles, clutter, half of two tiles). A second output says
   whether the crop is upside down, so the reading order of every tile, and
   6 versus 9, are known at any rotation. A crop of a photo read with less
   than 90 % confidence (about one in five) is read again turned half a turn
   and the two readings are averaged; the live camera view reads each crop
   once and votes over frames instead. An outline up to twice as long as
   wide (a tile on a rack whose foot the ledge hides, a tile foreshortened by
   a low camera until it is wider than tall) is also read turned a quarter
   when its first reading is not sure, and the surer reading (face and
   orientation; by a clear margin for an oblong outline) decides which side
   is its top. A third output, `features`, is the
   128-number summary of the crop that the face layer reads: a *tile profile*
   (below) fits its own face layer on it.
3. **Clutter gate** ({gate_mb:.1f} MB, `models/clutter.py`): the classifier's tight
   crop shows a score pad's digit cell, a keyboard key or a word-game tile
   much as it shows a tile. The gate looks at each tile read with its
   surroundings (a 48x48 crop 2.4 times the tile's long side across, turned
   with it) and gives the chance that it is a tile; a find it gives under 10 %
   is dropped unless a find beside it is a tile to it at least 50 % surely, so
   a set's doubted tile stays and a grid of cells goes as a whole, and a
   tile a quarter of the photo tall or more (a close-up) always stays
   (`vision/clutter.py`). It is trained on the rendered scenes' tiles and the
   outlines the segmenter drew where no tile lies (`models/negatives.py`), and
   reads no face, so it fits any classifier and any tile profile.

`model.json` holds the class names, input sizes and constants that inference
must share with training. Total size: {mb:.1f} MB. `classifier_face.npz` is
the shipped face layer and `classifier_bank.npz` the classifier's features of
1,620 of its training crops (30 per class), both for tile profiles.

## Data

- **Real photos**: "Rummikub" by Jonas Buehler, Roboflow Universe project
  `rummikub-nvypk-8cwem` (re-export of `rummikub-nvypk`), licensed
  [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/): 179 photos,
  1,790 labelled tiles, one classic edition. A fixed split
  (`vision.datasets.split_holdout`: every fifth block of four consecutive
  photos of each series) keeps {held} photos aside; they are never trained on.
- **Rendered scenes** (`python -m models.render`, [docs/renderer.md](../docs/renderer.md)):
  twelve training editions (classic ivory, today's white edition with heavy
  rounded numerals, wooden-box ivory with teal blue and thin numerals, XP,
  travel, ...) with their jokers in black and red, one more edition kept out
  of training; sets, loose and face-down tiles at any rotation, racks of two
  and three rows seen from the front and 20-60 degrees from the side,
  wood/white/cloth/pattern backgrounds, lighting gradients, shadows, glare,
  blur, perspective, noise, JPEG, hands, keyboards, paper with digits.
- Any number of extra YOLO-format folders (`--extra DIR`) join the training
  set, so a club can fine-tune to its own tiles.

## Results

End-to-end: a tile counts when it is found (IoU ≥ 0.5 with the labelled face)
*and* read right; F1 over all tiles. `ms` is the median per photo, whole
reader (sets included), on a 2-core machine (shared with
other work while measured, so times vary).

| test set | photos | tiles | precision | recall | accuracy | F1 | photos exact | ms |
|---|---|---|---|---|---|---|---|---|
{real_row}
{turned_rows}
{rendered_row}

All rows were measured by `python -m models.card` with the reader as shipped (set rebuilding,
racks, the colour check); `rummikub-companion eval ../shared/datasets/rummikub-photos --holdout
--sets datasets/rummikub-photos-sets` gives the same held-out row and scores the photos as
players see them: 47 of 48 table sets read exactly (97.9%), 0 of 32 valid sets shown split or
invalid and 1 shown unsure (O9 O10, its O11 missed on the photo's edge), 0 of 16 invalid sets
shown valid, 7 of 7 rack rows and 4 of 4 rack totals right, 155 of 165 loose tiles read right (see
[docs/vision.md](../docs/vision.md)). The training split (tuned on): 47 of 48 sets, 0 of 39 false
alarms, 7 of 7 rack rows, 4 of 4 rack totals, tiles F1 0.996 over its 143 photos.

**The segmenter shipped since 2026-11-28** (see Recipe) was chosen between two fine-tunes of the one
shipped before, each 5,000 steps of 24 crops at `--det-lr 0.001` on 3,000 scenes, side by side on
one GPU (5 minutes of steps each): A as it was, B also with harsher photos (`--overexposed 0.12
--shaken 0.1 --overexposed-ceiling 230`). Limits written down before either was measured: on the
six rendered tuning folders (mixed 4243 and 4246, heirloom 4244, modern 4247, racks 4243 and 4251)
together no more than 2 fewer sets exact and 2 more false alarms, no fewer rack rows or rack totals,
each folder's tile F1 and precision within 0.006; the real training split as taken as good; the
tests passing; of two that pass, the one with more sets exact, then fewer false alarms.

| tuning figure | shipped before | A | B |
|---|---|---|---|
| six folders: sets exact, false alarms | 837, 17 | 837, 18 | 837, 17 |
| six folders: rack rows, rack totals | 327, 114 | 329, 117 | 339, 118 |
| real training split as taken: sets, false alarms | 47, 0 | 47, 0 | 47, 0 |
| tests failing | 0 | 5 | 3 |

B was chosen. Of its three failing tests two were the tests' own premises, mended in the tests: the
calibration test's layout photo is read right whole (its joker of a design never trained on too), so
nothing is left to learn from it, and the test now takes a layout photo with a face still misread;
a table photo given as the layout is refused as before, with other counts of tiles found and placed,
and the test now checks the refusal rather than the counts. The third was the reader's: the wooden
edition's O1 O2 O3 O4 O5 from a low camera read O1 O10 | O10 O4 O5, two neighbouring faces read
sideways; such a pair is now read again turned, as one such face was (`vision.model._odd_turns`),
which changes no tuning figure of either segmenter. Report only, measured after the choice (the
held-out photos once both candidates had failed tests, before B's were mended), against the
segmenter shipped before with the same reader:

| report-only figure | shipped before | B (shipped) |
|---|---|---|
| held-out real: tile F1, sets exact, false alarms, loose tiles | 0.996, 46 of 48, 0 of 32, 146 of 165 | 0.997, 47 of 48, 0 of 32, 155 of 165 |
| the same turned 90° / 180° (`models.card`): tile F1 | 0.993 / 0.996 | 0.991 / 0.993 |
| test scenes 987654: tile F1, sets of 396, false alarms of 276, rack rows of 106, totals of 49 | 0.980, 361, 8, 96, 39 | 0.975, 362, 6, 92, 38 |
| messy tables 4245: tile F1, sets of 304, false alarms of 219 | 0.977, 267, 14 | 0.972, 260, 17 |
| messy tables 4260: tile F1, sets of 477, false alarms of 330 | 0.989, 407, 14 | 0.982, 393, 22 |
| heirloom 5151 scenes and rows: tile F1, sets of 147, false alarms of 95 | 0.989, 127, 9 | 0.992, 127, 9 |

The real training split's warped views (`benchmarks/bench_views.py`, tuning data), all 20 views
together: 934 instead of 923 sets exact and 6 instead of 14 false alarms; overexposed x1.5 + 30, 45
instead of 36 of 48 sets and 1 instead of 8 false alarms; seen at 60% of the depth 46 instead of 43;
but the scene at 45% of its size in the frame at tile F1 0.985 instead of 1.000 (sets the same). So
this segmenter reads real photos as well or better and overexposed ones far better. Rendered
messy tables (dozens of sets at mixed angles, a kind of scene training never drew) read worse in
4245 and 4260 (14 fewer of 477 sets exact and 8 more false alarms in 4260), but better in a messy
folder five times their size made afterwards for the run below (4270, 100 scenes, 1,526 sets:
1,255 instead of 1,236 sets exact, 88 instead of 93 of 1,087 valid sets shown split or invalid):
the seeds spread about as much as the segmenters differ.

A third fine-tune, not shipped: C, from B, 4,000 more steps with 600 messy tables (seed 0) added to
the 3,000 scenes, on one GPU (3.5 minutes of steps). Limits written down before it was measured,
against B: the six folders together no more than 2 fewer sets exact and 2 more false alarms, 3
fewer rack rows and 2 fewer rack totals, each folder's tile F1 and precision within 0.006; messy
4270 more sets exact and no more false alarms; the real training split as good. It failed most of
them: the six folders 823 sets exact (837), 22 false alarms (17), 111 rack totals (118), heirloom
tile F1 0.960 (0.975); messy 4270 1,226 sets exact and 117 false alarms (1,255 and 88).

{notes_reader}Most frequent mistakes (true→read; `-` is no tile):
- real: {mistakes_real}
- rendered: {mistakes_rendered}

![confusion matrix on the held-out real photos](confusion_real.png)
![confusion matrix on rendered test scenes](confusion_rendered.png)
![training curves](curves.png)

The turned rows are the same held-out photos turned a quarter and a half
turn (lossless PNG), so tiles lie sideways and upside down: the reading must
not depend on the camera's side of the table.

The rendered test scenes use a seed the training never saw but come from the
same renderer, so they measure other editions and layouts only as well as the
renderer imitates them. There are no real photos of other editions to
measure on.

### Per edition

{edition_count} rendered scenes of each edition (`python -m models.render
--edition NAME --seed 31337`, a seed training never uses; every kind of
scene, tiles 20-300 px tall):

| edition | photos | tiles | precision | recall | accuracy | F1 | photos exact | ms |
|---|---|---|---|---|---|---|---|---|
{edition_rows}

### The unknown edition and tile profiles

`{unknown}` is rendered but never trained on (nor its font or joker). A
profile was calibrated on one rendered layout photo of it
(`rummikub-companion calibrate --layout`; {placed} of 54 tiles placed in
{calibrate_seconds:.1f} s for the figures here, 8-55 s while the machine was busy) and the same
photos read again with it (figures of this version's reading and calibration). "Scenes" are
the renderer's every kind of scene (racks, clutter, tiles down to 20 px);
"tiles in rows" are photos of random tiles laid in upright rows, as a player
photographs them to type them in (`models/render/calibration.py`). All from
seed 5151, used nowhere else.

| test set | photos | tiles | precision | recall | accuracy | F1 | photos exact | ms |
|---|---|---|---|---|---|---|---|---|
{unknown_rows}

A profile refits only the classifier's last layer, on its fixed features:
it can teach the reader a new look of numerals and jokers, not find tiles
the segmenter misses or read crops too blurred for the features to tell
apart. On the rows photos the reading is already right before calibrating.
On the scenes, most of what was misread was read sideways: the renderer's
camera foreshortens tiles until their outlines are as wide as tall or
wider, and the reader took the long side for the face's height. Since
outlines up to 2:1 whose reading is unsure are also read turned a quarter
(`TileModel.classify_outlines`, see [docs/vision.md](../docs/vision.md)),
these scenes read at F1 0.953 instead of 0.867 (accuracy 0.977 instead of
0.889), the rows photos at 0.995 instead of 0.991, and the trained editions
at 0.930-0.963 instead of 0.857-0.943. What is left is mostly finds where no
tile lies and misread small tiles (of 20 validation scenes of this edition,
seed 4244: 372 tiles read right, 17 misread, 4 missed and 17 finds where no
tile is labelled, such as word-game letter tiles), which a face layer cannot learn from a layout photo, so the
scenes' 0.98 is still not reached with or without a profile. It would take
a segmenter that tells tiles from look-alike clutter and a classifier that
reads small tiles better, for every edition. Fitting more than the face layer
from one photo was tried on validation scenes (with the segmenter shipped
before) and gained nothing measurable: a colour-plus-number update of the face
layer (so a learned red 5 also moves the other 5s), moving the box's features
onto the training crops' mean, and a stronger pull all read the faces of
other photos within ±0.01 of the shipped layer (heirloom layout photo: 0.848
of the validation faces read right, 0.840-0.854 after; a three-row rack of
the `modern` edition typed with `--photo --tiles`: 0.778 and 0.751 on two
validation sets before, 0.715-0.783 after). With the shipped models, that
rack's profile (26 of 26 tiles placed, 19 -> 20 of its 20 faces read right)
reads 35 other rendered `modern` photos at F1 0.839 against 0.843 without
it: a profile helps a box the classifier reads badly (calibrate prints each
tile's confidence before and after), not an edition it was trained on.

{notes_profiles}### int8

`python -m models.quantize` writes statically quantised copies (QDQ, int8
per-channel weights; the first convolution and the output layers stay
float). With this segmenter and classifier the networks take 0.84-0.90x
the time (two runs of `--compare train`; a whole 1000x750 read in
`benchmarks/bench_read.py`: 51.4 against 54.6 ms median) and change 2 of
1,444 codes of the real training split. The
int8 segmenter no longer loses tiles of other editions as the one before did
(`wooden` recall 0.958 -> 0.830 then): on the rendered `wooden`, `xp` and
`modern` scenes, F1 0.910, 0.915 and 0.842 against 0.910, 0.910 and
0.855 in float (measured before outlines were also read turned a quarter).
The float files stay in use: the gain is about 3 ms a photo, `modern` lost
0.013, and a tile profile fits one classifier file, so a switch would have
every box's profile made again. `python -m models.quantize
--compare train|held` repeats the comparison.

## Recipe

`python -m models.train` (PyTorch, on the CPU or with `--device cuda` a GPU;
resumable; progress bars) renders the scenes if missing, trains the segmenter
then the classifier, and exports both with `models/export.py` (ONNX checker,
onnxruntime compared with PyTorch, the `features` output added). `--init-from models` starts from the shipped ONNX
networks (`models/onnx_import.py` turns them back into PyTorch). `python -m
models.quantize` writes the int8 files and points `model.json` at them,
`python -m models.bank` the feature bank, `python -m models.negatives` the
outlines where no tile lies in the rendered scenes, `python -m models.clutter`
the clutter gate from them (3,000 steps, 5 minutes; its entry in `model.json`
stays when the other two are exported again), and `python -m models.card`
measures and rewrites this card (keeping the notes written by hand between `<!-- notes:NAME -->` markers). {made_by} The last run's training
steps took {minutes:.0f} minutes on {where}; rendering the scenes,
loading the photos and the export add a few minutes (the command prints the
whole time when it ends).
Settings of the last run:

| setting | value |
|---|---|
{config}
"""
