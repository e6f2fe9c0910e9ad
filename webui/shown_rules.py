"""The rules Settings shows, in one place, so that New game fills in the same clock and game length.

Settings shows the game in play's own rules (a resumed game's, the recorded demo's once taken over), which
may differ from those saved for new games: New game used to show the latter while saying "as set on
Settings" (Settings 16 s a turn, New game 60 s).
"""

from __future__ import annotations

from rules.options import RuleOptions


def demo_table(c) -> bool:
    """The recorded demo plays its own game: nobody's, so the forms treat the table as free."""
    demo = c.demo
    return demo is not None and demo.driving and demo.owns_table()


def shown_rules(c) -> RuleOptions:
    """What Settings shows (and "As set on Settings" on New game means): the rules of the game in play, those
    it plays from its next hand; with none in play (or the demo's own), the rules saved for new games."""
    s = c.session
    return s.options if demo_table(c) else s.settings_rules


def new_game_rules(c) -> RuleOptions:
    """The table's choices New game starts from: :func:`shown_rules`, except while the game in play is the
    demo's taken over by a person, which plays the demo's quick clock: then the rules saved for new games."""
    s = c.session
    return s.options if c.demo is not None and c.demo.adopted is not None else shown_rules(c)
