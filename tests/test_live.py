"""The stable table: motion gating, voting, versioning, and the threaded LiveTable."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.options import find_variant
from rules.tiles import Tile, format_table, parse_table
from vision.capture import FolderSource, sample_images_dir
from vision.live import GROUP_KINDS, SET_STATUS, LiveTable, TableState, reading_state
from vision.stability import TableStabiliser, make_thumbnail, motion_fraction, reading_tables
from vision.types import TileDetections

# -- fake readings in tile notation ----------------------------------------------------

SABRA = find_variant("sabra")


@dataclass
class FakeSet:
    """Shaped like vision.reader.SetReading, without judging the set."""

    indices: list[int]
    valid: bool = True
    kind: str | None = "run"
    value: int = 0
    problem: str | None = None
    group: str = "table"
    doubtful: tuple[int, ...] = ()
    past_edge: bool = False

    @property
    def status(self) -> str:
        return "valid" if self.valid else "invalid"


@dataclass
class FakeReading:
    detections: TileDetections
    sets: list[FakeSet]
    warnings: list[str] = field(default_factory=list)


def reading(table: str, *, jitter: float = 0.0, scores: float = 0.95, drop: tuple[int, ...] = ()) -> FakeReading:
    """Sets in rows, tiles 50x70 px side by side: ``"R1 R2 R3 | K7 B7 O7"``."""
    quads, ids, sets = [], [], []
    for row, tiles in enumerate(parse_table(table)):
        members = []
        for col, tile in enumerate(tiles):
            if (row, col) in drop:
                continue
            x, y = 20 + 55 * col + jitter, 20 + 90 * row - jitter
            quads.append([[x, y], [x + 50, y], [x + 50, y + 70], [x, y + 70]])
            members.append(len(ids))
            ids.append(tile.index)
        sets.append(FakeSet(members))
    det = TileDetections(np.array(quads, float).reshape(-1, 4, 2), ids, np.full(len(ids), scores))
    return FakeReading(det, sets)


def thumb(value: int, *, noise: int = 0, seed: int = 0) -> np.ndarray:
    """A 96x54 grey 'picture' of a table; a different value is a different scene."""
    rng = np.random.default_rng(seed)
    img = np.full((54, 96), value, np.int16)
    img[10:40, 10 + value % 50 : 40 + value % 50] += 60
    if noise:
        img += rng.integers(-noise, noise + 1, img.shape).astype(np.int16)
    return np.clip(img, 0, 255).astype(np.uint8)


def feed(stab: TableStabiliser, frames, t0: float = 0.0, dt: float = 0.05):
    """frames: (thumbnail, reading or None) pairs at ``dt`` s apart; returns the views."""
    return [stab.update(th, rd, now=t0 + i * dt) for i, (th, rd) in enumerate(frames)]


TABLE_A = "R1 R2 R3 | K7 B7 O7"
TABLE_B = "R1 R2 R3 R4 | K7 B7 O7"  # R4 laid off
HAND = thumb(200, seed=9)


# -- motion ---------------------------------------------------------------------------


def test_motion_fraction_ignores_noise_and_global_brightness_but_sees_a_hand():
    a = thumb(80, noise=8, seed=1)
    assert motion_fraction(a, thumb(80, noise=8, seed=2)) == 0
    assert motion_fraction(a, np.clip(a.astype(int) + 30, 0, 255).astype(np.uint8)) == 0
    hand = a.copy()
    hand[20:50, 40:70] = 255
    assert motion_fraction(a, hand) > 0.1


def test_thumbnail_is_small_grey_and_keeps_the_aspect():
    t = make_thumbnail(np.zeros((720, 1280, 3), np.uint8))
    assert t.shape == (54, 96) and t.dtype == np.uint8


# -- the stabiliser ------------------------------------------------------------------------


def test_two_unanimous_still_frames_publish_the_table():
    stab = TableStabiliser(min_votes=3, quick_votes=2)
    views = feed(stab, [(thumb(80), reading(TABLE_A))] * 4)
    # frame 1 has nothing to compare with (moving); frames 2 and 3 are still, agree and vote
    assert [v.version for v in views] == [0, 0, 1, 1]
    assert [v.stable for v in views] == [False, True, True, True]
    assert format_table(views[-1].tables) == TABLE_A
    assert views[-1].uncertain == []


def test_frames_that_disagree_wait_for_min_votes():
    stab = TableStabiliser(min_votes=4, quick_votes=2)
    misread = "R1 R2 R3 | K7 B7 K7"
    views = feed(stab, [(thumb(80), reading(r)) for r in [TABLE_A, TABLE_A, misread, TABLE_A, TABLE_A]])
    assert [v.version for v in views] == [0, 0, 0, 0, 1]
    assert format_table(views[-1].tables) == TABLE_A


def test_readings_of_moving_frames_are_not_counted():
    stab = TableStabiliser(min_votes=2)
    # a hand moves on every frame: different thumbnails, readings offered each time
    views = feed(stab, [(thumb(80 + 20 * (i % 2)), reading(TABLE_B)) for i in range(10)])
    assert all(v.version == 0 and not v.stable for v in views)
    assert stab.votes == 0


def test_a_misread_in_a_minority_of_frames_is_outvoted_and_marked_uncertain_only_if_disputed():
    stab = TableStabiliser(min_votes=5, agreement_threshold=0.75)
    misread = "R1 R2 R8 | K7 B7 O7"  # R3 read as R8 once
    frames = [(thumb(80), reading(r)) for r in [TABLE_A, TABLE_A, misread, TABLE_A, misread, TABLE_A]]
    views = feed(stab, frames)
    assert views[-1].version == 1
    assert format_table(views[-1].tables) == TABLE_A  # the published reading agrees with the vote
    assert views[-1].uncertain == [2]  # 3 votes of 5 for R3: disputed


def test_low_scores_and_inferred_tiles_are_uncertain():
    r = reading(TABLE_A)
    r.detections.scores[4] = 0.3
    r.detections.inferred[0] = True
    stab = TableStabiliser(min_votes=2)
    views = feed(stab, [(thumb(80), r)] * 3)
    assert views[-1].version == 1 and views[-1].uncertain == [0, 4]


def test_version_bumps_only_when_the_table_really_changes():
    stab = TableStabiliser(min_votes=2)
    seq = (
        [(thumb(80), reading(TABLE_A))] * 4
        + [(HAND, None), (thumb(200, seed=10), None)]  # a hand passes over
        + [(thumb(81), reading(TABLE_A, jitter=4))] * 4  # same tiles, nudged, light changed
        + [(HAND, None)]
        + [(thumb(90), reading(TABLE_B))] * 4  # a tile was laid off
        + [(thumb(90, noise=5, seed=s), reading(TABLE_B, jitter=2)) for s in range(4)]  # noise only
    )
    views = feed(stab, seq)
    versions = [v.version for v in views]
    assert versions[3] == 1 and versions[9] == 1
    assert versions[-1] == 2 and len(set(versions)) == 3
    assert format_table(views[-1].tables) == TABLE_B
    bump = versions.index(2)
    assert views[bump].changed_at == pytest.approx(bump * 0.05)
    assert views[-1].changed_at == views[bump].changed_at


def test_a_table_change_without_visible_motion_still_resets_the_vote():
    stab = TableStabiliser(min_votes=3)
    other = "K1 K2 K3 | B9 B10 B11 B12 | O4 O5 O6"
    # the other tiles lie elsewhere (shifted by more than half a tile): nothing matches
    views = feed(stab, [(thumb(80), reading(TABLE_A))] * 4 + [(thumb(80), reading(other, jitter=30))] * 3)
    assert views[3].version == 1 and format_table(views[3].tables) == TABLE_A
    assert views[-1].version == 2 and format_table(views[-1].tables) == other


def test_tiles_lost_under_a_resting_hand_are_believed_only_after_drop_seconds():
    full = "R1 R2 R3 R4 R5 | K7 B7 O7"
    stab = TableStabiliser(min_votes=2, drop_seconds=1.0)
    covered = reading(full, drop=((0, 0), (0, 1), (0, 2), (0, 3)))
    seq = [(thumb(80), reading(full))] * 3 + [(HAND, None)] + [(thumb(120), covered)] * 30
    views = feed(stab, seq, dt=0.05)  # the covered window starts at frame 4 (t=0.2 s)
    versions = [v.version for v in views]
    assert versions[2] == 1
    assert set(versions[4:23]) == {1}  # under a second: still the full table
    assert versions[-1] == 2 and format_table(views[-1].tables) == "R5 | K7 B7 O7"


def test_a_held_back_loss_is_published_when_due_even_after_the_votes_are_done():
    full = "R1 R2 R3 R4 R5 | K7 B7 O7"
    stab = TableStabiliser(min_votes=2, max_votes=3, drop_seconds=1.0)
    covered = reading(full, drop=((0, 0), (0, 1), (0, 2), (0, 3)))
    frames = [(thumb(80), reading(full))] * 3 + [(HAND, None)]
    views = feed(stab, frames)
    for i in range(30):  # the live loop reads only while the stabiliser wants it
        views.append(stab.update(thumb(120), covered if stab.wants_reading else None, now=(4 + i) * 0.05))
    assert stab.votes == 3
    versions = [v.version for v in views]
    assert set(versions[3:23]) == {1} and versions[-1] == 2


def test_wants_reading_stops_after_max_votes_until_something_moves():
    stab = TableStabiliser(min_votes=2, max_votes=4)
    feed(stab, [(thumb(80), reading(TABLE_A))] * 5)
    assert stab.votes == 4 and not stab.wants_reading
    stab.update(HAND)
    assert stab.wants_reading


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([TABLE_A, TABLE_B, "K1 K2 K3", "J O5 O6"]), st.integers(4, 8), st.booleans()),
        min_size=1,
        max_size=6,
    )
)
def test_version_counts_the_real_changes_of_any_sequence(segments):
    """Segments of still frames separated by hand movement; a segment may repeat its table.

    The first frame after the hand differs from it, so it is not read: a
    segment of n frames gives n - 1 votes.  (Losing tiles is believed at
    once here; the resting-hand delay has its own test.)
    """
    stab = TableStabiliser(min_votes=3, drop_seconds=0)
    frames, expected, previous = [], 0, None
    for k, (table, length, misread_once) in enumerate(segments):
        frames.append((HAND, None))
        rds = [reading(table)] * length
        if misread_once:  # one frame reads the first tile as R13: outvoted by the rest
            bad = reading(table)
            bad.detections.class_ids[0] = 51
            rds[1] = bad
        frames += [(thumb(60 + 10 * k), r) for r in rds]
        expected += table != previous
        previous = table
    views = feed(stab, frames)
    assert views[-1].version == expected
    assert format_table(views[-1].tables) == segments[-1][0]


class OneMisreadPerFrame:
    """A stand-in tile model: frame k reads tile k % n as O13, the rest right."""

    def __init__(self, truth: FakeReading) -> None:
        self.truth = truth.detections
        self.k = 0

    def detect(self, image):
        ids = self.truth.class_ids.copy()
        ids[self.k % len(ids)] = Tile.parse("O13").index
        self.k += 1
        return TileDetections(self.truth.quads, ids, self.truth.scores)


def test_votes_fix_a_table_that_no_single_frame_read_right():
    reader_mod = pytest.importorskip("vision.reader")
    reader = reader_mod.TableReader(OneMisreadPerFrame(reading(TABLE_A)), reader_mod.ReaderOptions(rules=SABRA))
    image = np.zeros((400, 400, 3), np.uint8)
    stab = TableStabiliser(reader.read_detections, min_votes=6, max_votes=6)
    frames = [(thumb(80), reader.read(image)) for _ in range(7)]
    assert all(sorted(format_table([s]) for s in reading_tables(r)) != sorted(TABLE_A.split(" | ")) for _, r in frames)
    views = feed(stab, frames)
    assert [v.version for v in views] == [0] * 6 + [1]
    final = views[-1]
    assert sorted(format_table([s]) for s in final.tables) == sorted(TABLE_A.split(" | "))
    assert all(s.valid for s in final.reading.sets)
    assert final.uncertain == []  # each tile was read right in 5 of 6 frames


def test_a_tile_read_two_ways_is_voted_but_marked_uncertain():
    reader_mod = pytest.importorskip("vision.reader")
    misread = reading("R1 R2 R3 | K7 B7 O7")
    misread.detections.class_ids[5] = Tile.parse("R7").index
    # the first frame is not voted (nothing to compare it with): 3 votes O7, 2 votes R7
    per_frame = iter([reading(TABLE_A), misread, reading(TABLE_A), misread, reading(TABLE_A), reading(TABLE_A)])

    class Model:
        def detect(self, image):
            return next(per_frame).detections

    reader = reader_mod.TableReader(Model(), reader_mod.ReaderOptions(rules=SABRA))
    stab = TableStabiliser(reader.read_detections, min_votes=5, max_votes=5)
    image = np.zeros((400, 400, 3), np.uint8)
    views = feed(stab, [(thumb(80), reader.read(image)) for _ in range(6)])
    final = views[-1]
    assert final.version == 1 and sorted(format_table([s]) for s in final.tables) == sorted(TABLE_A.split(" | "))
    o7 = [i for i, t in enumerate(final.reading.detections.tiles) if t.code == "O7"]
    assert final.uncertain == o7


# -- LiveTable ------------------------------------------------------------------------------


class FakeReader:
    """Reads a picture by its brightness: each of the test images stands for a table."""

    def __init__(self, tables: dict[int, str]) -> None:
        self.tables = tables
        self.calls = 0

    def read(self, image):
        self.calls += 1
        key = int(round(float(image.mean()) / 10) * 10)
        return reading(self.tables.get(key, "K13"))


def write_images(folder: Path, values: list[int]) -> None:
    for i, v in enumerate(values):
        img = np.full((360, 640, 3), v, np.uint8)
        cv2.putText(img, str(i), (100, 200), cv2.FONT_HERSHEY_SIMPLEX, 4, (255, 255, 255), 8)
        img[:] = img - (img.mean() - v)  # keep the mean as the key
        cv2.imwrite(str(folder / f"{i:02d}.png"), img)


def test_state_has_exactly_the_agreed_fields():
    assert [f.name for f in fields(TableState)] == [
        "version", "tiles", "set_ids", "scores", "inferred", "uncertain", "doubtful", "set_status", "set_group",
        "set_past_edge", "warnings", "stable", "camera_ok", "camera_error", "annotated_jpeg", "frame_jpeg", "changed_at", "fps",
        "frame", "read", "picture_at",
    ]  # fmt: skip


def test_process_replays_a_slideshow_through_the_camera_path(tmp_path):
    write_images(tmp_path, [60, 120])
    reader = FakeReader({60: TABLE_A, 120: TABLE_B})
    live = LiveTable(FolderSource(tmp_path, seconds_per_image=0.5, fps=10, loop=False), reader)
    versions = [live.process(f.image, index=f.index).version for f in live.source.frames()]
    assert versions == [0, 0, 1, 1, 1] + [1, 1, 2, 2, 2]
    assert reader.calls == 8  # not on the two frames where the picture changed
    state = live.state()
    assert state.version == 2 and format_table(state.tables) == TABLE_B
    assert cv2.imdecode(np.frombuffer(state.frame_jpeg, np.uint8), cv2.IMREAD_COLOR).shape == (360, 640, 3)
    assert state.annotated_jpeg is not None and state.stable and state.camera_error is None


def test_the_camera_picture_is_re_encoded_at_most_every_preview_interval(tmp_path):
    write_images(tmp_path, [60, 120])
    frames = list(FolderSource(tmp_path, seconds_per_image=0.1, fps=10, loop=False).frames())
    for interval, same in [(60.0, True), (0.0, False)]:
        live = LiveTable(FolderSource(tmp_path), FakeReader({}), preview_interval=interval)
        live.process(frames[0].image, index=1)
        first = live.state().frame_jpeg
        live.process(frames[1].image, index=2)
        assert (live.state().frame_jpeg == first) is same


def test_the_first_picture_is_served_at_once_not_a_moment_later(tmp_path):
    """Asked for before any frame came, the picture was none, and that none was served as fresh for the
    preview interval after the first frame had come."""
    write_images(tmp_path, [60])
    live = LiveTable(FolderSource(tmp_path), FakeReader({}), preview_interval=60.0)
    assert live.state().frame_jpeg is None
    live.process(next(FolderSource(tmp_path).frames()).image, index=1)
    assert live.state().frame_jpeg is not None


def test_live_table_threads_publish_changes_and_wait_for_change_wakes(tmp_path):
    write_images(tmp_path, [60, 120])
    reader = FakeReader({60: TABLE_A, 120: TABLE_B})
    source = FolderSource(tmp_path, seconds_per_image=0.4, fps=25)
    with LiveTable(source, reader) as live:
        first = live.wait_for_change(0, timeout=5)
        assert first.version == 1 and first.camera_ok and first.frame_jpeg
        second = live.wait_for_change(first.version, timeout=5)
        assert second.version == 2 and second.tables != first.tables
        assert second.changed_at >= first.changed_at
        assert second.fps > 5
        t = time.monotonic()
        same = live.wait_for_change(live.state().version, timeout=0.05)
        assert time.monotonic() - t < 2 and same.version >= 2
    assert not live.capture.running


def test_a_missing_reader_keeps_the_camera_view_and_says_why(tmp_path, monkeypatch):
    write_images(tmp_path, [60])

    def no_model(rules):
        raise FileNotFoundError("models/detector.onnx not found")

    monkeypatch.setattr("vision.live.live_reader", no_model)
    with LiveTable(FolderSource(tmp_path, seconds_per_image=1, fps=20), rules=SABRA) as live:
        deadline = time.monotonic() + 5
        while live.state().frame_jpeg is None and time.monotonic() < deadline:
            time.sleep(0.02)
        state = live.state()
    # no tile can ever be read: the game goes on as with no camera (camera_ok False), the picture still shown
    assert state.frame_jpeg is not None and not state.camera_ok and not state.read
    assert "detector.onnx" in state.camera_error and state.version == 0 and state.tables == ()


def test_the_table_counts_as_read_only_from_the_first_steady_reading_and_while_the_camera_works(tmp_path):
    """A table not read yet is unknown, not empty (a restart must not judge a turn against it), and the
    last reading of a camera gone out is not the table now."""
    write_images(tmp_path, [60])
    live = LiveTable(FolderSource(tmp_path, seconds_per_image=1, fps=10, loop=False), FakeReader({60: TABLE_A}))
    assert not live.state().read and live.state().picture_at == 0.0
    frames = live.source.frames()
    before = time.time()
    for index in (1, 2):  # pictures, but no steady reading yet (the first is not voted)
        live.process(next(frames).image, index=index)
    state = live.state()
    assert state.camera_ok and not state.read and state.version == 0 and state.tables == ()
    assert state.picture_at >= before
    live.process(next(frames).image, index=3)
    state = live.state()
    assert state.read and state.version == 1 and format_table(state.tables) == TABLE_A
    live.capture.finished, live.capture.camera_ok = True, False  # the source has gone
    state = live.state()
    assert not state.camera_ok and not state.read and state.frame_jpeg is not None and state.picture_at > 0


class SlowToOpen(FolderSource):
    """A camera that takes its time to open (a webcam waking up, a stream connecting)."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.go = __import__("threading").Event()

    def open(self) -> None:
        self.go.wait(5)
        super().open()


def test_a_camera_still_opening_is_waited_for_not_taken_for_no_camera(tmp_path):
    write_images(tmp_path, [60])
    source = SlowToOpen(tmp_path, seconds_per_image=1, fps=20)
    with LiveTable(source, FakeReader({60: TABLE_A})) as live:
        time.sleep(0.2)
        state = live.state()
        assert state.camera_ok and state.camera_error is None and not state.read and state.tables == ()
        source.go.set()
        state = live.wait_for_change(0, timeout=5)
        assert state.read and format_table(state.tables) == TABLE_A


def test_live_table_with_the_reader_draws_the_voted_table(tmp_path):
    reader_mod = pytest.importorskip("vision.reader")
    write_images(tmp_path, [60])
    reader = reader_mod.TableReader(OneMisreadPerFrame(reading(TABLE_A)), reader_mod.ReaderOptions(rules=SABRA))
    live = LiveTable(FolderSource(tmp_path, seconds_per_image=1, fps=10, loop=False), reader)
    assert live.stabiliser.assemble == reader.read_detections
    for frame in live.source.frames():
        live.process(frame.image, index=frame.index)
    state = live.state()
    assert state.version == 1 and state.set_valid.all() and len(state.set_valid) == 2
    frame = cv2.imdecode(np.frombuffer(state.frame_jpeg, np.uint8), cv2.IMREAD_COLOR)
    drawn = cv2.imdecode(np.frombuffer(state.annotated_jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == frame.shape and np.abs(drawn.astype(int) - frame).mean() > 1


def sample_photos() -> list[Path]:
    folder = sample_images_dir()
    return sorted(p for p in folder.glob("*") if p.suffix.lower() in {".jpg", ".jpeg", ".png"}) if folder.is_dir() else []


@pytest.mark.skipif(not sample_photos(), reason="sample_images/ holds no photos yet")
def test_sample_images_replay_gives_one_version_per_photo():
    """The shipped photos through the slideshow path: each photo is one stable table."""
    photos = sample_photos()
    tables = ["K1 K2 K3", "R1 R2 R3 | K7 B7 O7"]

    class PerPhoto:  # a distinct table per photo, found by its pixels
        def __init__(self):
            self.seen: list[bytes] = []

        def read(self, image):
            key = make_thumbnail(image).tobytes()
            if key not in self.seen:
                self.seen.append(key)
            i = self.seen.index(key)
            return reading(tables[i % 2] + " | " + "O1 O2 O3 " + " ".join(f"B{1 + j}" for j in range(i % 10)))

    live = LiveTable(FolderSource(sample_images_dir(), seconds_per_image=0.4, fps=10, loop=False), PerPhoto())
    for frame in live.source.frames():
        live.process(frame.image, index=frame.index)
    assert live.state().version == len(photos)


@pytest.mark.skipif(not sample_photos(), reason="sample_images/ holds no photos yet")
def test_sample_images_replay_with_the_real_reader_matches_reading_each_photo():
    reader_mod = pytest.importorskip("vision.reader")
    reader = reader_mod.TableReader.from_model_dir(None, reader_mod.ReaderOptions(rules=SABRA))  # the shipped model
    photo = sample_photos()[0]
    live = LiveTable(FolderSource(photo, seconds_per_image=0.3, fps=10, loop=False), reader)
    for frame in live.source.frames():
        live.process(frame.image, index=frame.index)
    direct = reader.read(cv2.imread(str(photo)))
    state = live.state()
    assert state.version == 1
    assert format_table(state.groups) == format_table([[direct.detections.tiles[i] for i in s.indices] for s in direct.sets])
    assert [SET_STATUS[c] for c in state.set_status] == [s.status for s in direct.sets]
    assert state.warnings == tuple(direct.warnings)


def test_live_table_follows_the_game_rules():
    """The reader judges (and infers) by the rules the game plays, and follows a change."""
    reader_mod = pytest.importorskip("vision.reader")
    reader = reader_mod.TableReader(OneMisreadPerFrame(reading("R12 R13 R1")), reader_mod.ReaderOptions(rules=SABRA))
    live = LiveTable(FolderSource(sample_images_dir(), seconds_per_image=1, fps=10, loop=False), reader)
    assert reader.options.rules.game == "sabra"
    live.follow_rules(find_variant("american"))
    assert reader.options.rules == find_variant("american")
    image = np.zeros((400, 400, 3), np.uint8)
    for _ in range(8):
        live.process(image)
    assert live.state().set_valid.tolist() == [True]  # 12-13-1 wraps only under American rules
    assert live.state().tables == (tuple(Tile.parse(c) for c in ("R12", "R13", "R1")),)


def test_a_set_half_laid_is_held_back_while_a_finished_move_is_shown_at_once():
    """A player stops with R13 and B13 down and a hand over the K13 between them: no flash of
    two invalid sets; the finished set is shown at once, and a half set left lying is believed."""
    half = reading(TABLE_A + " | R13 B13")
    half.sets[-1].valid = False
    done = reading(TABLE_A + " | R13 K13 B13")
    start = [(thumb(80), reading(TABLE_A))] * 4 + [(HAND, None)]
    views = feed(TableStabiliser(), start + [(thumb(120), half)] * 10 + [(HAND, None)] + [(thumb(140), done)] * 4)
    assert views[3].version == 1
    assert all(v.tables == views[3].tables for v in views[4:16])  # half a second of the half-laid set
    assert views[-1].version == 2 and [format_table([t]) for t in views[-1].tables][-1] == "R13 K13 B13"
    left = feed(TableStabiliser(), start + [(thumb(120), half)] * 40)  # two seconds
    assert left[-1].version == 2 and left[-1].tables[-1] == [Tile.parse("R13"), Tile.parse("B13")]


def test_a_table_cleared_for_the_next_hand_is_believed_after_a_while():
    """All tiles gone (the hand is over): held back like a resting hand, then published."""
    stab = TableStabiliser()
    views = feed(stab, [(thumb(80), reading(TABLE_A))] * 4 + [(HAND, None)] + [(thumb(120), reading(""))] * 60)
    assert views[3].version == 1
    assert views[10].tables == views[3].tables  # not yet: it could be a hand over the tiles
    assert views[-1].version == 2 and views[-1].tables == []


def test_the_recorded_game_is_read_move_by_move():
    """Each still table of the shipped recorded game, as the live table publishes it with the real model."""
    from recorded_game import RecordedGame

    game = RecordedGame()
    versions = []
    for event in game.script["events"]:
        game.play_to(event["after_frame"])
        state = game.live.state()
        want = sorted(event["table"].split(" | ")) if event["table"] else []
        assert sorted(format_table([s]) for s in state.tables) == want, event
        assert state.stable and not state.uncertain.any()
        versions.append(state.version)
    assert versions == sorted(versions) and versions[-1] <= len(versions)  # one change per move, no flicker


class FixedModel:
    """A stand-in tile model that finds the same tiles in every frame."""

    def __init__(self, detections: TileDetections) -> None:
        self.detections = detections

    def detect(self, image):
        return self.detections


def grey_table_with_a_rack() -> tuple[np.ndarray, TileDetections]:
    """A grey-scale frame: the set K1 K2 K3 on a light table, a dark rack holding R5 J B9 B10 O2 below it."""
    image = np.full((720, 1280, 3), 200, np.uint8)
    cv2.rectangle(image, (60, 460), (1000, 600), (40, 40, 40), -1)  # the rack's board, darker than the table
    quads = [[[x, 100], [x + 50, 100], [x + 50, 170], [x, 170]] for x in (100, 155, 210)]
    quads += [[[x, 490], [x + 50, 490], [x + 50, 560], [x, 560]] for x in (100, 180, 260, 340, 420)]
    for q in quads:
        cv2.fillPoly(image, [np.array(q, np.int32)], (240, 240, 240))
    codes = [Tile.parse(c).index for c in "K1 K2 K3 R5 J B9 B10 O2".split()]
    return image, TileDetections(np.array(quads, np.float32), codes, np.full(len(codes), 0.95))


def test_the_voted_table_finds_racks_and_the_colour_warning_in_the_frame():
    """The vote re-reads the tiles in the frame itself: rack rows stay rack rows, and off the table."""
    reader_mod = pytest.importorskip("vision.reader")
    image, detections = grey_table_with_a_rack()
    reader = reader_mod.TableReader(FixedModel(detections), reader_mod.ReaderOptions(rules=SABRA))
    live = LiveTable(FolderSource(sample_images_dir(), seconds_per_image=1, fps=10, loop=False), reader)
    for k in range(4):
        live.process(image, index=k, now=k * 0.1)
    state = live.state()
    assert state.version == 1
    assert [GROUP_KINDS[c] for c in state.set_group] == ["rack", "table"]
    assert [SET_STATUS[c] for c in state.set_status] == ["rack", "valid"]
    assert format_table(state.racks) == "R5 J B9 B10 O2"  # in the order they stand
    assert format_table(state.tables) == "K1 K2 K3"  # what a turn is judged on: no rack tile
    assert state.set_valid.tolist() == [False, True]
    assert any("no colour" in w for w in state.warnings)


def test_an_unsure_set_keeps_its_doubtful_tile_in_the_state():
    reader_mod = pytest.importorskip("vision.reader")
    truth = reading("R5 R6 B8 R8")
    det = TileDetections(truth.detections.quads, truth.detections.class_ids, [0.95, 0.95, 0.45, 0.95])
    reader = reader_mod.TableReader(FixedModel(det), reader_mod.ReaderOptions(rules=SABRA))
    state = reading_state(reader.read_detections(det), [])
    assert [SET_STATUS[c] for c in state.set_status] == ["unsure"]
    assert state.doubtful.tolist() == [False, False, True, False] and not state.set_valid.any()


def test_a_set_cut_by_the_photos_edge_is_marked_in_the_state():
    reader_mod = pytest.importorskip("vision.reader")
    quads = [[[x, 50], [x + 40, 50], [x + 40, 104], [x, 104]] for x in (215, 258)]  # O11 would lie past x = 300
    det = TileDetections(np.array(quads, float), [Tile.parse("O9").index, Tile.parse("O10").index], [0.95, 0.95])
    reader = reader_mod.TableReader(FixedModel(det), reader_mod.ReaderOptions(rules=SABRA))
    state = reading_state(reader.read_detections(det, np.zeros((200, 300, 3), np.uint8)), [])
    assert [SET_STATUS[c] for c in state.set_status] == ["unsure"] and state.set_past_edge.tolist() == [True]
    assert not state.doubtful.any()
    moved = det[np.arange(2)]
    moved.quads[:, :, 0] -= 100  # the same pair in the middle of the photo: plainly too short
    state = reading_state(reader.read_detections(moved, np.zeros((200, 300, 3), np.uint8)), [])
    assert [SET_STATUS[c] for c in state.set_status] == ["invalid"] and state.set_past_edge.tolist() == [False]
    assert TableState.empty().set_past_edge.shape == (0,)


def test_while_racks_are_counted_the_picture_draws_laid_out_tiles_as_a_rack(tmp_path):
    """After "Rummikub!", a rack emptied onto the table beside the final table is drawn as a rack with
    its points, not as an invalid set; back in play it is judged again."""
    reader_mod = pytest.importorskip("vision.reader")
    from vision.live import as_counted

    write_images(tmp_path, [60])
    reader = reader_mod.TableReader(OneMisreadPerFrame(reading("R1 R2 R3 | B12 J O3")),
                                    reader_mod.ReaderOptions(rules=SABRA))
    live = LiveTable(FolderSource(tmp_path, seconds_per_image=1, fps=10, loop=False), reader)
    for frame in live.source.frames():
        live.process(frame.image, index=frame.index)
    view = live.stabiliser.view
    assert [s.status for s in view.reading.sets] == ["valid", "invalid"]
    final = parse_table("R1 R2 R3")
    counted = as_counted(view.reading, final, SABRA)
    assert [(s.status, s.value) for s in counted.sets] == [("valid", 6), ("rack", 12 + 30 + 3)]
    assert as_counted(view.reading, None, SABRA) is view.reading  # in play nothing changes
    live.follow_rules(SABRA)  # as the page does before it says the racks are being counted
    playing = live.state().annotated_jpeg
    live.follow_count(final)
    counting = live.state().annotated_jpeg
    assert counting != playing  # the picture is drawn again with the rack in the rack colour
    live.follow_count(None)
    assert live.state().annotated_jpeg == playing


def test_the_voted_table_keeps_what_the_classifier_weighed_for_the_context():
    """A doubtful R3 read as R4 in every frame: the vote passes each tile's mean probabilities on, so
    the voted table is read in the context of its run as every single frame was (R3 R4 R5 R6, valid)."""
    reader_mod = pytest.importorskip("vision.reader")
    from vision.types import TILE_CODES

    quads = np.array([[[x, 100], [x + 30, 100], [x + 30, 140], [x, 140]] for x in (100, 132, 164, 196)], np.float32)
    probs = np.zeros((4, TILE_CODES), np.float32)
    for k, (code, p) in enumerate([("R4", 0.45), ("R4", 0.98), ("R5", 0.98), ("R6", 0.93)]):
        probs[k, Tile.parse(code).index] = p
    probs[0, Tile.parse("R9").index] = 0.2

    class Model:
        def detect(self, image):
            ids = probs.argmax(axis=1)
            return TileDetections(quads, ids, probs[np.arange(4), ids], probs=probs)

    reader = reader_mod.TableReader(Model(), reader_mod.ReaderOptions(rules=SABRA))
    stab = TableStabiliser(reader.read_detections, min_votes=3, max_votes=3)
    image = np.zeros((400, 400, 3), np.uint8)
    final = feed(stab, [(thumb(80), reader.read(image)) for _ in range(4)])[-1]
    assert format_table(final.tables) == "R3 R4 R5 R6"
    assert [s.status for s in final.reading.sets] == ["valid"] and final.reading.detections.inferred[0]
