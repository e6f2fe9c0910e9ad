"""Rule options: every point where the rule texts disagree, named once.

The defaults of each game come from the current official rules quoted in the
seed text 004_* (the Lemada leaflet for Sabra, Hertzano's 1978 Official Book
for the American and International games).  House rules and older editions
are reachable by name through :data:`VARIANTS` or as overrides.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from rules.tiles import STANDARD, XP, TileSet

if TYPE_CHECKING:
    from rules.scoring import ScoringMethod

GAMES = ("sabra", "american", "international")
RETRIEVED_JOKER = ("any_set", "new_set", "new_set_with_two_rack_tiles", "new_set_only_joker_and_rack")
DIRECTIONS = ("clockwise", "counterclockwise")
TILE_SETS = ("standard", "xp")
SCORINGS = ("sabra", "american", "international", "israeli")
POOL_EMPTY_WINNERS = ("lowest_value", "fewest_tiles")
ROUNDS_PER_PLAYER = "players"  # option rounds: as many rounds as players (000_* Israeli)


@dataclass(frozen=True)
class RuleOptions:
    """One complete, validated choice of rules (frozen, hashable, cheap to compare)."""

    game: str = "sabra"
    manipulation: bool = True
    initial_meld: int = 30
    joker_penalty: int = 30
    one_high: bool = False
    retrieved_joker: str = "new_set"
    manipulate_joker_sets: bool = True
    group_joker_needs_both_colors: bool = False
    joker_replacement_from_table: bool = True
    joker_freed_without_its_tile: bool = False
    manipulate_on_initial_meld: bool = False
    direction: str = "clockwise"
    turn_time_limit: int | None = 60
    unfinished_turn_penalty: int = 3
    tile_set: str = "standard"
    scoring: str = "sabra"
    two_jokers_in_set: bool = True
    trump_bonus: int = 0
    pool_empty_winner: str = "lowest_value"
    rounds: int | str | None = None  # a number, or ROUNDS_PER_PLAYER
    target_score: int | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            _check(f.name, getattr(self, f.name))
        if self.target_score is not None and self.scoring_method.final_scores:
            raise ValueError(f"bad value {self.target_score!r} for rule option target_score with {self.scoring} "
                             "scoring: minus scores are ranked only once the game is over (000_*), so no total "
                             "marks its end; set rounds instead, or null")

    @property
    def box(self) -> TileSet:
        """The box played with: copies of each tile, jokers, players (106 tiles or the 160-tile XP set)."""
        return _BOXES[self.tile_set]

    @property
    def max_jokers(self) -> int:
        """Jokers in the box: 2 in the 106-tile set, 4 in the XP set."""
        return self.box.jokers

    @property
    def flow(self) -> "Flow":
        """How turns and hands run in this game (draw/discard, trump, who may take discards, ...)."""
        return _FLOWS[self.game]

    @property
    def scoring_method(self) -> "ScoringMethod":
        """How a hand is scored and who wins the game (rules.scoring.METHODS)."""
        from rules.scoring import METHODS  # scoring builds on options, not the other way round

        return METHODS[self.scoring]

    def replace(self, **changes: Any) -> "RuleOptions":
        unknown = sorted(set(changes) - set(OPTION_DOCS))
        if unknown:
            raise ValueError(f"unknown rule option(s): {', '.join(unknown)}")
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RuleOptions":
        """Options from a mapping; ``"variant"`` (or ``"rules"``) picks the base, the rest override it."""
        if not isinstance(d, dict):
            raise ValueError(f"rule options must be an object, not {type(d).__name__}")
        d = dict(d)
        base = d.pop("variant", None) or d.pop("rules", None)
        if base is None:
            base = d.get("game", "sabra")
        return find_variant(base, **d)

    def describe(self) -> list[str]:
        """One plain line per option: its value and what it means."""
        return [f"{name} = {getattr(self, name)!r}: {doc['summary']}" for name, doc in OPTION_DOCS.items()]


@dataclass(frozen=True)
class Flow:
    """The course of a turn and a hand in one game, as its rule text tells it (004_*).

    Sabra: a turn melds or draws one tile.  American and International: draw,
    optionally meld, discard one tile face up; a player may never meld the
    last tile (one must be left to discard); a face-up "trump" tile lies aside.
    """

    draw_then_discard: bool  # a turn is draw, meld, discard (American family) instead of meld or draw
    trump: bool  # one tile lies face up as the "trump"
    starter_extra_tile: bool  # International: the starter is dealt the odd 15th tile and melds first
    # when a player may take the previous player's discard instead of drawing: "never", "after_meld" (from
    # the turn after the player's initial meld) or "always"
    discard_taken: str


_FLOWS: dict[str, Flow] = {
    # 004_* Sabra / leaflet: "either drawing one tile from the pool or melding"
    "sabra": Flow(draw_then_discard=False, trump=False, starter_extra_tile=False, discard_taken="never"),
    # 004_* American: draw, meld, discard; among the options "after you have laid down your initial meld":
    # "from your next turn onwards, you may take the tile just discarded"
    "american": Flow(draw_then_discard=True, trump=True, starter_extra_tile=False, discard_taken="after_meld"),
    # 004_* International: 15 tiles to the starter; "always permitted to draw the previous player's discard"
    "international": Flow(draw_then_discard=True, trump=True, starter_extra_tile=True, discard_taken="always"),
}
_BOXES: dict[str, TileSet] = {"standard": STANDARD, "xp": XP}


def _check(name: str, value: Any) -> None:
    """Raise ValueError naming the option and the bad value."""
    doc = OPTION_DOCS[name]
    kind = doc["type"]
    named = doc.get("named", {})
    ok: bool
    if isinstance(value, str) and value in named:
        ok = True
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind.startswith("int"):
        low, high = doc["range"]
        ok = (value is None and kind == "int|None") or (
            isinstance(value, int) and not isinstance(value, bool) and low <= value <= high)
    else:
        ok = value in doc["values"]
    if not ok:
        allowed = doc.get("values") or (f"a whole number from {doc['range'][0]} to {doc['range'][1]}"
                                        + "".join(f", {w!r}" for w in named)
                                        + (" or null" if kind == "int|None" else ""))
        raise ValueError(f"bad value {value!r} for rule option {name} (allowed: {allowed})")


# name -> summary, type, values, default per game, seed source.  The README's and
# docs/rules.md's options table is written from this.
OPTION_DOCS: dict[str, dict[str, Any]] = {
    "game": dict(
        summary="which game: Sabra (the one in today's boxes), American or International",
        type="str", values=GAMES,
        source="004_* 'Introduction' (Official Rummikub Book, 1978: three games)",
    ),
    "manipulation": dict(
        summary="after the initial meld the table may be rearranged (manipulation rummy); False: only "
                "new sets from the rack, tiles added to table sets, and a melded joker replaced by its tile",
        type="bool", values=(True, False),
        source="004_* Sabra: 'This version of Manipulation Rummy'; American: 'meld additional groups or runs "
               "from your hand ... extend ... replace the joker'; International: 'mechanism of play is the same'",
    ),
    "initial_meld": dict(
        summary="points the first meld must reach from rack tiles alone (joker = tile it stands for)",
        type="int", values=None, range=(0, 200),
        source="004_* leaflet (30); 'Variations': 50 in Pressman 1987; American: 21; International: 50",
    ),
    "joker_penalty": dict(
        summary="points a joker left on a rack costs at the end of a hand",
        type="int", values=None, range=(0, 100),
        source="004_* leaflet (30); 'Variations': 25 in the Dutch Official Book, 6th ed. 1985",
    ),
    "one_high": dict(
        summary="'1' may be high or low (12-13-1 valid) but never both (13-1-2 invalid); False: always low",
        type="bool", values=(True, False),
        source="004_* leaflet and Sabra: always low; American and International (Official Book): high or low",
    ),
    "retrieved_joker": dict(
        summary="how a joker taken back from the table must be re-used this turn: any_set; new_set "
                "(a set that was not on the table); new_set_with_two_rack_tiles; new_set_only_joker_and_rack",
        type="str", values=RETRIEVED_JOKER,
        source="004_* 'Variations' interpretations 1-4 (Goliath 1994/Pressman 1980/Lemada today; "
               "Lemada 1999 and the leaflet; Spear 1988 and Pressman 1987/1998; strictest reading)",
    ),
    "manipulate_joker_sets": dict(
        summary="sets holding a joker may be split and rearranged like any set, the joker keeping "
                "the tile it stands for; False: only tiles may be added to them",
        type="bool", values=(True, False),
        source="004_* 'Variations': yes in Goliath 1994, Pressman 1998, Lemada 1999 and online, Dutch Sabra; "
               "no in the Official Book and Pressman 1987",
    ),
    "group_joker_needs_both_colors": dict(
        summary="a joker in a 3-tile group is freed only when both missing colours are supplied",
        type="bool", values=(True, False),
        source="004_* 'Variations': Official Book option and Pressman 1980; the leaflet: either colour",
    ),
    "joker_replacement_from_table": dict(
        summary="the tile that frees a joker may come from the table, not only from the rack",
        type="bool", values=(True, False),
        source="004_* leaflet and 'Variations': Lemada 2014 online rules; Official Book: from hand",
    ),
    "joker_freed_without_its_tile": dict(
        summary="a table joker may be freed by rearranging its set so the set stays valid without it "
                "(or is taken apart into other valid sets), no tile put in its place; False: only by "
                "supplying the tile it stands for",
        type="bool", values=(True, False),
        source="004_* leaflet 'The Joker': 'replace it ... with any tiles that can keep the set legitimate', "
               "way 4: 'moves the black 1 to the group of ones ... and frees the joker'; 'Variations': "
               "'The only way the joker can be made to represent a different tile is if the player supplies "
               "... the tile that the joker originally represented'",
    ),
    "manipulate_on_initial_meld": dict(
        summary="on the turn of the initial meld the player may also add to and rearrange table sets",
        type="bool", values=(True, False),
        source="004_* 'Variations': yes in Spears 1988 and Dutch Sabra; no in the Dutch Spelregelboek, "
               "Lemada 1999 and the leaflet ('on turns after ... initial meld')",
    ),
    "direction": dict(
        summary="direction of play",
        type="str", values=DIRECTIONS,
        source="004_* leaflet: clockwise; 'Variations': the Official Book plays counter-clockwise (American too)",
    ),
    "turn_time_limit": dict(
        summary="seconds per turn, or null for no limit",
        type="int|None", values=None, range=(5, 3600),
        source="004_* leaflet: 1 minute (Lemada); Sabra text: e.g. two minutes; American: none",
    ),
    "unfinished_turn_penalty": dict(
        summary="tiles drawn by a player whose time ran out with the table left invalid",
        type="int", values=None, range=(0, 10),
        source="004_* leaflet 'Incomplete Runs' and Sabra text: draw 3 tiles",
    ),
    "tile_set": dict(
        summary="the box: standard 106 tiles (2 jokers) or XP 160 tiles for 5-6 players (4 jokers)",
        type="str", values=TILE_SETS,
        source="004_* leaflet 'Contents' (106 tiles; Rummikub XP 160 tiles)",
    ),
    "scoring": dict(
        summary="how a hand is scored: sabra, american, international or israeli (minus scoring)",
        type="str", values=SCORINGS,
        source="004_* 'Scoring' of each game; 000_* Israeli minus scoring",
    ),
    "two_jokers_in_set": dict(
        summary="both jokers may sit in one set",
        type="bool", values=(True, False),
        source="004_* 'Variations': not forbidden anywhere, explicitly allowed by Lemada online rules",
    ),
    "trump_bonus": dict(
        summary="International: extra points for holding the tile identical to the trump (0 = off)",
        type="int", values=None, range=(0, 500),
        source="004_* International: 'some play ... you score an extra 50 points'",
    ),
    "pool_empty_winner": dict(
        summary="Sabra and American scoring, pool used up with nobody out: the lowest rack value wins and "
                "each other player loses the difference (lowest_value); or the fewest tiles win and the "
                "hand is scored as if that player had gone out (fewest_tiles)",
        type="str", values=POOL_EMPTY_WINNERS,
        source="004_* leaflet 'Scoring': 'the player with the lowest value of tiles on his/her rack wins'; "
               "002_*: 'the player with the fewest tiles in their rack is the winner. Scoring is carried out "
               "in the normal manner'",
    ),
    "rounds": dict(
        summary="how long a game is: this many rounds of one hand per player, after which the game ends "
                "by itself; 'players': as many rounds as players; null: open-ended, until the players finish it",
        type="int|None", values=None, range=(1, 100), named={ROUNDS_PER_PLAYER: "as many rounds as players"},
        source="004_* leaflet: 'with four players a round is made up of four games', 'the players can "
               "determine the numbers of rounds' (none given: open-ended); 000_* Israeli: 'A normal game "
               "consists of four rounds (16 hands) for four players, and five rounds (20 hands) for five'",
    ),
    "target_score": dict(
        summary="a scored hand leaving a player's total at or above this ends the game; null: none (Israeli: none)",
        type="int|None", values=None, range=(1, 100000),
        source="003_*: 'determine how many total points to reach to signify the end of the game'",
    ),
}

_SABRA = RuleOptions()
_AMERICAN = RuleOptions(
    game="american", manipulation=False, initial_meld=21, one_high=True, retrieved_joker="new_set",
    manipulate_joker_sets=False, joker_replacement_from_table=False,
    direction="counterclockwise", turn_time_limit=None, scoring="american",
)
_INTERNATIONAL = replace(_AMERICAN, game="international", initial_meld=50, scoring="international")

VARIANTS: dict[str, RuleOptions] = {
    # the three games of the Official Book, defaults from the current rules
    "sabra": _SABRA,
    "american": _AMERICAN,
    "international": _INTERNATIONAL,
    # Israeli minus scoring (000_*) is played with the Open-Rummy game of the American family;
    # "four rounds (16 hands) for four players, and five rounds (20 hands) for five": one per player
    "israeli": replace(_AMERICAN, scoring="israeli", rounds=ROUNDS_PER_PLAYER),
    # documented editions and house rules (004_* 'Variations')
    "official_book": replace(
        _SABRA, retrieved_joker="new_set", manipulate_joker_sets=False,
        joker_replacement_from_table=False, direction="counterclockwise", turn_time_limit=120,
    ),
    "dutch_sabra": replace(_SABRA, joker_penalty=25, manipulate_joker_sets=True,
                           manipulate_on_initial_meld=True, joker_replacement_from_table=False),
    "pressman_1987": replace(
        _SABRA, initial_meld=50, retrieved_joker="new_set_with_two_rack_tiles",
        manipulate_joker_sets=False, joker_replacement_from_table=False,
        manipulate_on_initial_meld=True, turn_time_limit=None,
    ),
    "pressman_1980": replace(_SABRA, retrieved_joker="any_set", group_joker_needs_both_colors=True,
                             joker_replacement_from_table=False, turn_time_limit=None),
    "lemada_2014": replace(_SABRA, retrieved_joker="any_set", manipulate_joker_sets=True,
                           joker_replacement_from_table=True),
    "house_50": replace(_SABRA, initial_meld=50),
    "xp": replace(_SABRA, tile_set="xp"),
}


def require(options: Any, where: str) -> RuleOptions:
    """``options`` itself, or a TypeError: every judgement names the rules in force, none is assumed."""
    if not isinstance(options, RuleOptions):
        raise TypeError(f"{where} needs the rules in force (a RuleOptions, e.g. find_variant('sabra')), "
                        f"not {options!r}")
    return options


def find_variant(name: str, **overrides: Any) -> RuleOptions:
    """The named variant (case-insensitive, '-' or '_'), with options overridden by keyword."""
    if isinstance(name, RuleOptions):
        base = name
    else:
        key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
        if key not in VARIANTS:
            raise ValueError(f"unknown rules {name!r} (known: {', '.join(VARIANTS)})")
        base = VARIANTS[key]
    return base.replace(**overrides) if overrides else base


def parse_override(text: str) -> tuple[str, Any]:
    """``"joker_penalty=25"`` -> ``("joker_penalty", 25)``: one option as written on a command line.

    Booleans are yes/no (or true/false), numbers are whole numbers, ``none``
    or ``off`` clears an option that may be off (``turn_time_limit``), and a
    number option may take a named value (``rounds=players``).
    """
    name, sep, raw = str(text).partition("=")
    name, raw = name.strip().replace("-", "_"), raw.strip()
    if not sep or name not in OPTION_DOCS:
        raise ValueError(f"{text!r} is not NAME=VALUE with a rule option name (known: {', '.join(OPTION_DOCS)})")
    kind = OPTION_DOCS[name]["type"]
    word = raw.lower()
    if kind == "bool":
        if word not in ("yes", "no", "true", "false"):
            raise ValueError(f"rule option {name} is yes or no, not {raw!r}")
        return name, word in ("yes", "true")
    if kind == "int|None" and word in ("none", "off", "null"):
        return name, None
    named = OPTION_DOCS[name].get("named", {})
    if word in named:
        return name, word
    if kind.startswith("int"):
        if not raw.isdigit() or len(raw) > 6:
            also = "".join(f" or {w}" for w in named)
            raise ValueError(f"rule option {name} is a whole number{also}, not {raw!r}")
        return name, int(raw)
    return name, raw


def default_for(game: str, name: str) -> Any:
    """The default of option ``name`` in game ``game`` (for documentation tables)."""
    return getattr(find_variant(game), name)


# the names players know the games and scoring methods by (the page, the score sheet, Earlier games)
GAME_NAMES = {"sabra": "Sabra", "american": "American", "international": "International"}
SCORING_NAMES = {"sabra": "Sabra", "american": "American", "international": "International", "israeli": "Israeli"}


def variant_name(game: str | None, scoring: str | None = None) -> str:
    """The name players know the rules by: the turn flow (``game``) and, when it is not the game's own,
    the scoring: Israeli minus scoring with the American game is "Israeli"."""
    name = GAME_NAMES.get(game or "", str(game or "").capitalize())
    if scoring is None or scoring == game or (game, scoring) == ("sabra", "american") \
            or (game, scoring) == ("american", "sabra"):  # the same scoring by two names
        return name
    if scoring == "israeli":
        return "Israeli" if game == "american" else f"{name} with Israeli minus scoring"
    return f"{name}, {SCORING_NAMES.get(scoring, scoring)} scoring"
