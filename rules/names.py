"""Players' names as the table tells them apart.

A name pasted from a chat or typed on a phone may carry characters nobody sees (a zero-width space, a
joiner, a byte-order mark, a bidi control) or another encoding of the same letters ("Zoë" as Z o e +
combining diaeresis).  Compared as typed, "Ann" and "Ann<U+200B>" were two players both shown as "Ann",
so names are cleaned before they are compared, stored and shown.
"""

from __future__ import annotations

import unicodedata

# letters that draw as blank space although Unicode files them as letters or symbols
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")


def clean_name(name: str) -> str:
    """``name`` in NFC with invisible and format characters (Unicode Cf, controls, blank-looking fillers)
    removed and every run of spaces (any kind, line breaks too) made one space, trimmed; "" when nothing
    visible is left."""
    out = []
    for ch in unicodedata.normalize("NFC", str(name)):
        category = unicodedata.category(ch)
        if ch.isspace() or category in ("Zs", "Zl", "Zp"):
            out.append(" ")
        elif category not in ("Cc", "Cf", "Cs") and ch not in BLANK_LOOKING:
            out.append(ch)
    return unicodedata.normalize("NFC", " ".join("".join(out).split()))


def same_name_key(name: str) -> str:
    """What two names must differ in: the cleaned name, letter case aside ("ann" is Ann)."""
    return clean_name(name).casefold()
