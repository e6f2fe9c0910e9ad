"""Pure Rummikub game logic: tiles, sets, rule options, turns, scoring and the solver.

No I/O here: the camera, the model and the web page all sit on top of this.
"""

from rules.tiles import (
    ALL_FACES,
    JOKER,
    STANDARD,
    XP,
    Color,
    NotationError,
    RuleError,
    Tile,
    TileSet,
    format_table,
    format_tiles,
    parse_table,
    parse_tiles,
)
from rules.options import OPTION_DOCS, VARIANTS, RuleOptions, find_variant
from rules.sets import SetVerdict, analyse_set, is_valid_set, suggest_missing
from rules.turns import TurnVerdict, validate_turn
from rules.scoring import HandResult, ScoreSheet, rack_value, score_hand
from rules.international import HAND_TYPES, ClosedHand, classify_closed_hand, settlement

__all__ = [
    "ALL_FACES", "JOKER", "STANDARD", "XP", "Color", "NotationError", "RuleError",
    "Tile", "TileSet", "format_table", "format_tiles", "parse_table", "parse_tiles",
    "OPTION_DOCS", "VARIANTS", "RuleOptions", "find_variant",
    "SetVerdict", "analyse_set", "is_valid_set", "suggest_missing",
    "TurnVerdict", "validate_turn",
    "HandResult", "ScoreSheet", "rack_value", "score_hand",
    "HAND_TYPES", "ClosedHand", "classify_closed_hand", "settlement",
]
