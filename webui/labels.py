"""The rule options in the players' words, and the rulebook each named set of rules comes from."""

from __future__ import annotations

from rules.options import OPTION_DOCS, VARIANTS, RuleOptions
from rules.problems import CODES

RULEBOOKS = {
    "sabra": "Sabra: the rule leaflet in today's boxes",
    "american": "American: the Official Rummikub Book (1978)",
    "international": "International: the Official Rummikub Book (1978)",
    "israeli": "Israeli minus scoring (American game)",
    "official_book": "Sabra as in the Official Rummikub Book (1978)",
    "dutch_sabra": "Sabra, Dutch edition",
    "pressman_1987": "Sabra, Pressman edition 1987",
    "pressman_1980": "Sabra, Pressman edition 1980",
    "lemada_2014": "Sabra, Lemada's online rules (2014)",
    "house_50": "Sabra with a 50-point first meld (house rule)",
    "xp": "Sabra with the XP box (5-6 players)",
}
# the same books named short enough for a phone's select (the full words show under it: a select cannot wrap,
# and "Sabra: the rule leaflet in today's boxes" was cut to "...today's boxe")
RULEBOOK_SHORT = {
    "sabra": "Sabra (today's leaflet)",
    "american": "American (1978 book)",
    "international": "International (1978 book)",
    "israeli": "Israeli minus scoring",
    "official_book": "Sabra (1978 book)",
    "dutch_sabra": "Sabra, Dutch edition",
    "pressman_1987": "Sabra, Pressman 1987",
    "pressman_1980": "Sabra, Pressman 1980",
    "lemada_2014": "Sabra, Lemada 2014",
    "house_50": "Sabra, 50-point first meld",
    "xp": "Sabra, XP box (5-6 players)",
}
# the table's own choices, not a book's: a rulebook picked on Settings or New game keeps them
TABLE_CHOICES = ("turn_time_limit", "rounds", "target_score")


def rulebook_of(options: RuleOptions) -> str | None:
    """The rulebook ``options`` are, the table's clock and length aside; None for a mix of books and house
    rules.  Settings preselects it, so its select never names a book the table does not play."""
    return next((v for v, book in VARIANTS.items()
                 if all(getattr(book, n) == getattr(options, n) for n in OPTION_DOCS if n not in TABLE_CHOICES)),
                None)

# option -> (label, {value: words}); options under "more" sit in a folded section
WORDS: dict[str, tuple[str, dict]] = {
    "game": ("Game", {"sabra": "Sabra", "american": "American", "international": "International"}),
    "initial_meld": ("Points the first meld needs", {}),
    "manipulation": ("After the first meld the table may be rearranged", {True: "yes", False: "no: only new sets, "
                     "adding to sets, and a joker swapped for its tile"}),
    "turn_time_limit": ("Seconds per turn (empty: no clock)", {}),
    "direction": ("Play passes", {"clockwise": "to the left (clockwise)",
                                  "counterclockwise": "to the right (counter-clockwise)"}),
    "tile_set": ("Box", {"standard": "106 tiles, 2-4 players", "xp": "XP, 160 tiles, 5-6 players"}),
    "scoring": ("Scoring", {"sabra": "winner takes what the others hold", "american": "American (the same)",
                            "international": "International (points per kind of win)",
                            "israeli": "Israeli minus scoring"}),
    "joker_penalty": ("A joker left on a rack costs", {}),
    "unfinished_turn_penalty": ("Tiles drawn when time runs out on an unfinished table", {}),
    "one_high": ("A 1 may follow a 13 (12-13-1)", {True: "yes", False: "no"}),
    "retrieved_joker": ("A joker taken from the table must go into", {
        "any_set": "any set", "new_set": "a new set",
        "new_set_with_two_rack_tiles": "a new set with two tiles from the rack",
        "new_set_only_joker_and_rack": "a new set of the joker and rack tiles only"}),
    "manipulate_joker_sets": ("Sets holding a joker may be split and rearranged", {True: "yes", False: "no"}),
    "group_joker_needs_both_colors": ("A joker in a group of 3 is freed only with both missing colours",
                                      {True: "yes", False: "no"}),
    "joker_replacement_from_table": ("The tile that frees a joker may come from the table",
                                     {True: "yes", False: "no"}),
    "joker_freed_without_its_tile": ("A joker is freed when its set stays valid without it (no tile in its place)",
                                     {True: "yes", False: "no: only by its own tile"}),
    "manipulate_on_initial_meld": ("The first meld may also rearrange table sets", {True: "yes", False: "no"}),
    "two_jokers_in_set": ("Both jokers may sit in one set", {True: "yes", False: "no"}),
    "trump_bonus": ("International: points for holding the trump's twin (0: none)", {}),
    "pool_empty_winner": ("Pool used up, nobody out: who wins", {"lowest_value": "the lowest rack value",
                                                                  "fewest_tiles": "the fewest tiles"}),
    "rounds": ("Rounds in a game, one hand each (empty: until you press Finish)",
               {"players": "As many rounds as players (the Israeli rules)"}),
    "target_score": ("Points that end the game (empty: none)", {}),
}
MAIN = ("game", "manipulation", "initial_meld", "turn_time_limit", "direction", "tile_set", "scoring", "rounds",
        "target_score")


# a turn's fault (rules.problems' turn codes) when every set is valid, as what the turn is refused for
FAULTS = {
    "tile_taken_back": "tiles taken back from the table",
    "joker_taken_back": "a joker taken off the table",
    "not_on_rack": "tiles that were not on the player's rack",
    "nothing_played": "no tile played from the rack",
    "last_tile_melded": "leaving no tile to discard",
    "manipulation_not_allowed": "table sets rearranged where only adding to them is allowed",
    "joker_before_initial_meld": "a joker taken before the first meld",
    "joker_not_replaced": "a joker moved without its tile put in its place",
    "joker_group_needs_both_colours": "a group's joker freed without both missing colours",
    "joker_set_rearranged": "a set holding a joker rearranged",
    "freed_joker_in_old_set": "a freed joker put into a set already on the table",
    "freed_joker_needs_rack_tiles": "a freed joker played without two rack tiles",
    "freed_joker_not_own_set": "a freed joker not first laid in a set of rack tiles",
    "initial_meld_uses_table": "a first meld that uses the table's sets",
    "initial_meld_too_low": "a first meld short of its points",
    "box_exceeded": "more copies of a tile than the box holds",
}


def fault_words(code: str) -> str:
    """What a turn is refused for, in a phrase ("a first meld short of its points")."""
    return FAULTS.get(code) or CODES.get(code, code)


def option_fields(options: RuleOptions) -> list[dict]:
    """One form field per rule option, labelled in players' words (every option has words: tested)."""
    out = []
    for name, doc in OPTION_DOCS.items():
        label, choices = WORDS[name]
        value = getattr(options, name)
        named = None  # the named value chosen, when it is one
        if doc["type"] == "bool" or doc.get("values"):
            widget = "select"
            pairs = [(str(v).lower() if isinstance(v, bool) else v, choices.get(v, v)) for v in doc["values"]]
            value = str(value).lower() if isinstance(value, bool) else value
        else:  # a number; a named value ("players" rounds) is a box ticked beside it
            widget = "number"
            pairs = [(v, choices.get(v, words)) for v, words in doc.get("named", {}).items()]
            named = value if isinstance(value, str) else None
            value = "" if value is None or named else value
        low, high = doc.get("range", (None, None))
        out.append({"name": name, "label": label, "type": doc["type"], "widget": widget, "choices": pairs,
                    "value": value, "named": named, "main": name in MAIN, "min": low, "max": high})
    return out


NONE_WORDS = {"turn_time_limit": "no clock", "rounds": "until you press Finish", "target_score": "none"}


def value_words(name: str, value) -> str:
    """One option's value in the Settings form's words ("yes", "a new set", "no clock", "40")."""
    if value is None:
        return NONE_WORDS.get(name, "none")
    named = OPTION_DOCS[name].get("named", {})
    if isinstance(value, str) and value in named:  # "players" rounds: "as many rounds as players"
        return named[value]
    if isinstance(value, (bool, str)):  # never a number: 1 == True would find the word for yes
        return str(WORDS[name][1].get(value, value))
    return str(value)


def changes(old: RuleOptions, new: RuleOptions, names=None) -> list[str]:
    """What differs from ``old`` in ``new``, one line per option in the form's words:
    "A joker left on a rack costs: 25 (was 30)"; ``names``: only those options.  A confirmation and a
    "Saved" line say exactly what a change does, not just that something was saved."""
    out = []
    for name in OPTION_DOCS:
        if names is not None and name not in names:
            continue
        before, after = getattr(old, name), getattr(new, name)
        if before != after:
            label = WORDS[name][0].split(" (")[0]  # the form's hint ("empty: no clock") is no part of the name
            out.append(f"{label}: {value_words(name, after)} (was {value_words(name, before)})")
    return out
