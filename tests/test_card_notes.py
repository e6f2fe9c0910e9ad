"""The model card is rewritten by ``python -m models.card``; what was written into it by hand survives."""

import string
from pathlib import Path

from models.card_text import CARD, NOTES, kept_notes

ROOT = Path(__file__).resolve().parents[1]


class Figure:
    """Stands for any measured figure, whatever its format."""

    def __format__(self, spec: str) -> str:
        return "FIGURE"


def written(notes: dict[str, str]) -> str:
    fields = {name for _, name, _, _ in string.Formatter().parse(CARD) if name}
    return CARD.format(**{name: Figure() for name in fields if not name.startswith("notes_")}, **notes)


def test_a_card_measured_again_keeps_every_hand_written_note_of_the_shipped_one():
    shipped = (ROOT / "models" / "README.md").read_text(encoding="utf-8")
    notes = kept_notes(shipped)
    assert set(notes) == {f"notes_{name}" for name in NOTES}
    assert all(f"<!-- /notes:{name} -->" in notes[f"notes_{name}"] for name in NOTES)
    again = written(notes)
    for block in notes.values():
        assert block in again
    assert kept_notes(again) == notes  # and the next one too


def test_a_card_without_notes_is_written_without_them():
    card = written(kept_notes(""))
    assert not any(f"<!-- notes:{name} -->" in card for name in NOTES)
    assert "\n\n\n" not in card  # no blank hole where a note would stand
