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

__all__ = [
    "ALL_FACES", "JOKER", "STANDARD", "XP", "Color", "NotationError", "RuleError",
    "Tile", "TileSet", "format_table", "format_tiles", "parse_table", "parse_tiles",
]
