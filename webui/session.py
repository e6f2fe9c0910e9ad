"""The game at the table: players, turns, the turn clock, rack tally and score sheet.

:class:`GameSession` is the bookkeeping only.  It never looks at the camera
itself: every action is given the table as it lies now (the live pipeline's
stable sets) and, where a snapshot is taken, the picture.  That keeps it
testable with tables written in tile notation and a fake clock.  Every change
is written through to the :class:`~webui.db.Store` at once.

Flows (seed 004): in Sabra a turn is "meld or draw"; the player ends it with
the big button, the space bar or by saying "pass".  In the American and
International games a turn is draw (pool, the previous player's discard, or
the face-up trump tile) -> meld -> discard; the International starting player
holds a 15th tile and so skips the first draw.
"""

from __future__ import annotations

import base64
import threading
import time
from collections import Counter
from typing import Callable

from rules.options import OPTION_DOCS, RuleOptions, find_variant
from rules.scoring import ScoreSheet, score_hand
from rules.solver import solve, suggest_rearrangement
from rules.tiles import STANDARD, XP, NotationError, Tile, format_table, format_tiles, parse_table, parse_tiles
from rules.turns import validate_turn

SABRA_FLOW = ("play",)
DRAW_DISCARD_FLOW = ("draw", "meld")
DRAW_SOURCES = ("pool", "discard", "trump")
RACK_SIZE = 14


class SessionError(ValueError):
    """An action that makes no sense now (no game, wrong phase, unknown player ...)."""


def _sets_equal(a: list[list[Tile]], b: list[list[Tile]]) -> bool:
    """Same sets in any order (a set's own tile order matters only as a multiset)."""
    return Counter(tuple(sorted(s)) for s in a) == Counter(tuple(sorted(s)) for s in b)


def _tiles_added(before: list[list[Tile]], after: list[list[Tile]]) -> list[Tile]:
    """Tiles on the table now that were not there at the start of the turn."""
    added = Counter(t for s in after for t in s) - Counter(t for s in before for t in s)
    return sorted(added.elements())


def _saved_options(d: dict) -> RuleOptions:
    """Rules saved by an older version: options it knew but this one does not are dropped."""
    return RuleOptions.from_dict({k: v for k, v in d.items() if k in OPTION_DOCS})


def _flow(options: RuleOptions) -> tuple[str, ...]:
    return SABRA_FLOW if options.game == "sabra" else DRAW_DISCARD_FLOW


def player_limits(options: RuleOptions) -> tuple[int, int]:
    """2-4 players with the standard box, 5-6 only with the XP set (seed 004 contents)."""
    return (2, 6) if options.tile_set == "xp" else (2, 4)


def box_size(options: RuleOptions) -> int:
    return (XP if options.tile_set == "xp" else STANDARD).size


class GameSession:
    """One game, hand after hand, as the players live it; state is a JSON document."""

    def __init__(self, store, options: RuleOptions | None = None, now: Callable[[], float] = time.time):
        self.store = store
        self.now = now
        self._lock = threading.RLock()
        self.version = 0  # bumped on every change; the page's event stream watches it
        self.game_id: int | None = None
        self.state: dict | None = None
        self.snapshot_jpeg: bytes | None = None
        saved = store.get_setting("options")
        self.options = options or (_saved_options(saved) if saved else find_variant("sabra"))
        self.hint_enabled = bool(store.get_setting("hint", False))
        self._sheet = None
        self._hint_cache: dict = {}
        self._restore()

    # persistence ------------------------------------------------------------
    def _restore(self) -> None:
        latest = self.store.latest_game()
        if latest is None:
            return
        self.game_id, options, self.state = latest
        self.options = _saved_options(options)
        self._sheet = self._sheet_from_state()
        snap = self.store.get_setting(f"snapshot:{self.game_id}")
        self.snapshot_jpeg = base64.b64decode(snap) if snap else None

    def _sheet_from_state(self):
        return ScoreSheet.from_dict(self.state["sheet"])

    def _save(self) -> None:
        self.state["sheet"] = self._sheet.to_dict()
        self.store.save_game(self.game_id, self.state)
        self._bump()

    def _bump(self) -> None:
        with self._lock:
            self.version += 1

    # settings ---------------------------------------------------------------
    def set_options(self, options: RuleOptions) -> None:
        """New rules apply to the game in progress (the clock, scoring of later hands ...)."""
        with self._lock:
            if self.state is not None and self.state["status"] != "over":
                low, high = player_limits(options)
                if not low <= len(self.state["players"]) <= high:
                    raise SessionError(
                        f"{len(self.state['players'])} players cannot play with the {options.tile_set} tile set"
                    )
            self.options = options
            self.store.set_setting("options", options.to_dict())
            if self.state is not None:
                self.store.save_game(self.game_id, self.state, options.to_dict())
            self._hint_cache.clear()
            self._bump()

    def set_hint(self, enabled: bool) -> None:
        with self._lock:
            self.hint_enabled = bool(enabled)
            self.store.set_setting("hint", self.hint_enabled)
            self._bump()

    # game start -------------------------------------------------------------
    def start_game(
        self, names: list[str], *, first: int = 0, trump: str | None = None,
        table: list[list[Tile]] | None = None, picture: bytes | None = None,
        options: RuleOptions | None = None,
    ) -> None:
        """Seat the players (listed clockwise round the table) and start the first hand."""
        with self._lock:
            if options is not None:
                self.options = options
                self.store.set_setting("options", options.to_dict())
            opts = self.options
            names = [str(n).strip() for n in names]
            low, high = player_limits(opts)
            if not low <= len(names) <= high:
                extra = " (5-6 players need the XP tile set)" if len(names) in (5, 6) else ""
                raise SessionError(f"{len(names)} players: this tile set is for {low}-{high}{extra}")
            if any(not n for n in names):
                raise SessionError("every player needs a name")
            if len(set(n.lower() for n in names)) != len(names):
                raise SessionError(f"player names must differ: {', '.join(names)}")
            if not 0 <= int(first) < len(names):
                raise SessionError(f"first player {first} is not a seat (0-{len(names) - 1})")
            trump_tile = None
            if trump:
                trump_tile = Tile.parse(trump)
            self._sheet = ScoreSheet(names, opts)
            self.state = {
                "status": "playing",
                "players": [
                    {"name": n, "has_melded": False, "rack_count": RACK_SIZE, "penalties": 0,
                     "last_discard": None, "rack": None}
                    for n in names
                ],
                "hand": 1,
                "starter": int(first),
                "trump": trump_tile.code if trump_tile else None,
                "pool": 0,
                "turn": None,
                "last_verdict": None,
                "restore": None,
                "tally": None,
                "sheet": self._sheet.to_dict(),
            }
            self._deal()
            self.game_id = self.store.create_game(names, opts.to_dict(), self.state)
            self._start_turn(int(first), table or [], picture, number=1)
            self._save()

    def _deal(self) -> None:
        """Rack sizes and pool count for a new hand (seed 004: 14 each; International starter 15)."""
        players = self.state["players"]
        pool = box_size(self.options) - RACK_SIZE * len(players)
        for p in players:
            p.update(has_melded=False, rack_count=RACK_SIZE, last_discard=None, rack=None)
        if self.options.game in ("american", "international"):
            pool -= 1  # the face-up trump tile
        if self.options.game == "international":
            players[self.state["starter"]]["rack_count"] += 1  # the odd 15th tile
            pool -= 1
        self.state["pool"] = max(pool, 0)

    def _start_turn(self, seat: int, table: list[list[Tile]], picture: bytes | None, number: int) -> None:
        flow = _flow(self.options)
        phase = flow[0]
        if self.options.game == "international" and number == 1:
            phase = "meld"  # the starting player holds 15 tiles and does not draw first
        self.state["turn"] = {
            "number": number,
            "player": seat,
            "started_at": self.now(),
            "table_before": format_table(table),
            "phase": phase,
            "drew": None,
            "attempt": None,
        }
        self.snapshot_jpeg = picture
        if self.game_id is not None:
            self.store.set_setting(
                f"snapshot:{self.game_id}", base64.b64encode(picture).decode() if picture else None
            )
        self._hint_cache.clear()

    # queries ----------------------------------------------------------------
    @property
    def has_game(self) -> bool:
        return self.state is not None

    def _require(self, status: str = "playing") -> dict:
        if self.state is None:
            raise SessionError("no game yet: start one first")
        if self.state["status"] != status:
            raise SessionError(f"not possible now: the game is in '{self.state['status']}', not '{status}'")
        return self.state

    def player_index(self, name: str) -> int:
        for i, p in enumerate(self._require(self.state["status"] if self.state else "playing")["players"]):
            if p["name"] == name:
                return i
        raise SessionError(f"{name!r} is not playing")

    def next_seat(self, seat: int) -> int:
        n = len(self.state["players"])
        step = 1 if self.options.direction == "clockwise" else -1
        return (seat + step) % n

    @property
    def current_player(self) -> str | None:
        if self.state is None or self.state["turn"] is None:
            return None
        return self.state["players"][self.state["turn"]["player"]]["name"]

    def table_before(self) -> list[list[Tile]]:
        return parse_table(self.state["turn"]["table_before"]) if self.state else []

    def clock(self) -> dict:
        """The turn clock: limit and seconds left (None when the rules set no limit)."""
        limit = self.options.turn_time_limit
        if self.state is None or self.state["turn"] is None or self.state["status"] != "playing":
            return {"limit": limit, "elapsed": 0.0, "remaining": None, "running": False, "expired": False,
                    "started_at": None}
        elapsed = max(0.0, self.now() - self.state["turn"]["started_at"])
        remaining = None if not limit else max(0.0, limit - elapsed)
        return {
            "limit": limit,
            "elapsed": round(elapsed, 2),
            "remaining": None if remaining is None else round(remaining, 2),
            "running": True,
            "expired": remaining is not None and remaining <= 0,
            "started_at": self.state["turn"]["started_at"],
        }

    # turns ------------------------------------------------------------------
    def _rack_for(self, seat: int, added: list[Tile]) -> list[Tile]:
        """The rack the turn validator sees: the one the player entered, else the tiles that appeared."""
        rack = self.state["players"][seat].get("rack")
        return parse_tiles(rack) if rack else list(added)

    def judge(self, table: list[list[Tile]]) -> dict:
        """The verdict on the table now against the table at the start of the turn, in plain words."""
        with self._lock:
            state = self._require()
            seat = state["turn"]["player"]
            player = state["players"][seat]
            before = self.table_before()
            added = _tiles_added(before, table)
            if _sets_equal(before, table):
                return {"legal": True, "changed": False, "placed": [], "problems": [],
                        "summary": "table unchanged"}
            verdict = validate_turn(
                before, table, self._rack_for(seat, added), has_melded=player["has_melded"], options=self.options
            )
            placed = [t.code for t in verdict.placed] if verdict.placed is not None else [t.code for t in added]
            problems = list(verdict.problems)
            summary = ("legal: " + (f"placed {' '.join(placed)}" if placed else "table rearranged")) if verdict.legal \
                else "not legal: " + "; ".join(problems)
            return {"legal": bool(verdict.legal), "changed": True, "placed": placed, "problems": problems,
                    "summary": summary}

    def end_turn(
        self, table: list[list[Tile]], picture: bytes | None = None, *, action: str = "done",
        discard: str | None = None,
    ) -> dict:
        """The player says the turn is over (button, space bar or "pass").

        A legal table ends the turn; an illegal one is reported and the turn
        (and its clock) go on so that the player can fix it.  In the American
        and International games the turn ends with the discard.
        """
        with self._lock:
            state = self._require()
            turn = state["turn"]
            if turn["phase"] == "draw":
                raise SessionError("draw first: from the pool, the previous discard or the trump tile")
            discard_tile = None
            if _flow(self.options) == DRAW_DISCARD_FLOW and discard:
                discard_tile = Tile.parse(discard)
            verdict = self.judge(table)
            if not verdict["legal"]:
                turn["attempt"] = verdict
                state["last_verdict"] = dict(verdict, player=self.current_player, action=action)
                self._save()
                return state["last_verdict"]
            player = state["players"][turn["player"]]
            self._credit(player, verdict)
            if _flow(self.options) == SABRA_FLOW and not verdict["placed"]:
                self._draw(player, 1)  # no tile placed: the player draws one from the pool
                action = "pass" if action == "pass" else "draw"
                verdict = dict(verdict, summary="no tile placed: draws a tile from the pool")
            if discard_tile is not None:
                player["rack_count"] = max(0, player["rack_count"] - 1)
                player["last_discard"] = discard_tile.code
                action = "discard"
            return self._finish_turn(table, picture, action, verdict, penalty=0)

    @staticmethod
    def _credit(player: dict, verdict: dict) -> None:
        """A legal turn: the tiles placed leave the rack; placing any means the player has melded."""
        if not verdict["placed"]:
            return
        player["has_melded"] = True
        player["rack_count"] = max(0, player["rack_count"] - len(verdict["placed"]))
        if player.get("rack"):
            left = Counter(parse_tiles(player["rack"])) - Counter(parse_tiles(verdict["placed"]))
            player["rack"] = format_tiles(sorted(left.elements()))

    def _draw(self, player: dict, n: int) -> int:
        """Move up to n tiles from the pool to a rack; returns how many there were."""
        n = min(n, self.state["pool"])
        self.state["pool"] -= n
        player["rack_count"] += n
        return n

    def _finish_turn(self, table, picture, action: str, verdict: dict, penalty: int,
                     next_table: list[list[Tile]] | None = None) -> dict:
        state = self.state
        turn = state["turn"]
        seat = turn["player"]
        name = state["players"][seat]["name"]
        record = {
            "hand": state["hand"], "number": turn["number"], "player": name,
            "started_at": turn["started_at"], "ended_at": self.now(), "action": action,
            "legal": verdict["legal"], "problems": verdict["problems"], "placed": " ".join(verdict["placed"]),
            "penalty": penalty, "table_before": turn["table_before"], "table_after": format_table(table),
        }
        state["last_verdict"] = dict(verdict, player=name, action=action, penalty=penalty)
        self._start_turn(self.next_seat(seat), table if next_table is None else next_table, picture,
                         number=turn["number"] + 1)
        state["sheet"] = self._sheet.to_dict()
        self.store.log_turn(self.game_id, record, state)
        self._bump()
        return state["last_verdict"]

    def draw(self, source: str = "pool", tile: str | None = None) -> dict:
        """American/International: the draw that opens a turn."""
        with self._lock:
            state = self._require()
            turn = state["turn"]
            if _flow(self.options) != DRAW_DISCARD_FLOW:
                raise SessionError("in Sabra a draw ends the turn: press 'end turn' with the table unchanged")
            if turn["phase"] != "draw":
                raise SessionError("this turn has already drawn")
            if source not in DRAW_SOURCES:
                raise SessionError(f"draw source {source!r}: use one of {', '.join(DRAW_SOURCES)}")
            player = state["players"][turn["player"]]
            if source == "pool":
                if state["pool"] <= 0:
                    raise SessionError("the pool is empty: call the end of the hand")
                self._draw(player, 1)
            elif source == "discard":
                prev = state["players"][self._previous_seat(turn["player"])]
                if self.options.game == "american" and turn["number"] <= len(state["players"]):
                    # seed 004 (American): "From your next turn onwards, you may take the tile just discarded"
                    raise SessionError("the previous discard can be taken from your second turn on")
                if not prev["last_discard"]:
                    raise SessionError("there is no discard to take")
                tile = prev["last_discard"]
                prev["last_discard"] = None
                player["rack_count"] += 1
            else:
                if not state["trump"]:
                    raise SessionError("no trump tile was recorded")
                # seed 004: the trump may be drawn only to win at once (American);
                # International forbids it as the final draw; the players judge, we record.
                tile = state["trump"]
                state["trump"] = None
                player["rack_count"] += 1
            turn["phase"] = "meld"
            turn["drew"] = {"source": source, "tile": tile}
            self._save()
            return turn["drew"]

    def _previous_seat(self, seat: int) -> int:
        n = len(self.state["players"])
        step = 1 if self.options.direction == "clockwise" else -1
        return (seat - step) % n

    def tick(self, table: list[list[Tile]] | None = None, picture: bytes | None = None) -> dict | None:
        """Called often: when the clock runs out, end the turn by the time-limit rules (seed 004).

        Table unchanged: the player draws a tile.  Legal table with tiles
        placed: the turn stands.  Illegal table: the table goes back to the
        snapshot taken at the start of the turn, the player takes his tiles
        back and draws the penalty (3 tiles).
        """
        with self._lock:
            if self.state is None or self.state["status"] != "playing":
                return None
            clock = self.clock()
            if not clock["expired"]:
                return None
            table = table if table is not None else self.table_before()
            verdict = self.judge(table)
            turn = self.state["turn"]
            seat = turn["player"]
            player = self.state["players"][seat]
            if verdict["legal"]:
                self._credit(player, verdict)
                if not verdict["placed"] and turn["phase"] != "meld":
                    self._draw(player, 1)
                    verdict = dict(verdict, summary="time is up with no tile placed: draws a tile from the pool")
                return self._finish_turn(table, picture, "timeout", verdict, 0)
            before = self.table_before()
            penalty = self._draw(player, self.options.unfinished_turn_penalty)
            player["penalties"] += penalty
            self.state["restore"] = {
                "player": player["name"],
                "table": turn["table_before"],
                "sets": [[t.code for t in s] for s in before],
                "problems": verdict["problems"],
                "penalty": penalty,
                "has_picture": self.snapshot_jpeg is not None,
            }
            restore_picture = self.snapshot_jpeg
            verdict = dict(verdict, summary=f"time is up on an illegal table: put it back, "
                                            f"{player['name']} takes back his tiles and draws {penalty}")
            out = self._finish_turn(table, restore_picture, "timeout", verdict, penalty, next_table=before)
            return out

    def dismiss_restore(self) -> None:
        """The players have put the table back as the snapshot shows."""
        with self._lock:
            if self.state is not None and self.state.get("restore"):
                self.state["restore"] = None
                self._save()

    def check_restored(self, table: list[list[Tile]]) -> None:
        """Clear the restore banner by itself once the camera sees the snapshot's table again."""
        with self._lock:
            restore = self.state and self.state.get("restore")
            if restore and _sets_equal(parse_table(restore["table"]), table):
                self.state["restore"] = None
                self._save()

    def set_rack(self, name: str, codes: str | None) -> None:
        """A player's own rack (typed in), used for hints and by the turn validator."""
        with self._lock:
            seat = self.player_index(name)
            rack = parse_tiles(codes) if codes else []
            self.state["players"][seat]["rack"] = format_tiles(rack) if rack else None
            self._hint_cache.clear()
            self._save()

    # end of hand ------------------------------------------------------------
    def call_rummikub(self, table: list[list[Tile]], *, winner: str | None = None, pool_empty: bool = False) -> dict:
        """"Rummikub!" (or the pool ran out): open the rack tally."""
        with self._lock:
            state = self._require()
            if winner is None and not pool_empty:
                winner = self.current_player
            if winner is not None:
                self.player_index(winner)
            racks = {p["name"]: None for p in state["players"]}
            if winner is not None and not pool_empty:
                racks[winner] = ""
            state["status"] = "tally"
            state["tally"] = {
                "winner": None if pool_empty else winner,
                "pool_empty": bool(pool_empty),
                "table": format_table(table),
                "racks": racks,
                "read": {},
            }
            self._save()
            return state["tally"]

    def read_rack(self, name: str, table: list[list[Tile]]) -> str:
        """The tiles the camera sees beyond the final table: the player's rack laid out in view."""
        with self._lock:
            state = self._require("tally")
            self.player_index(name)
            end_table = parse_table(state["tally"]["table"])
            rack = _tiles_added(end_table, table)
            codes = format_tiles(rack)
            state["tally"]["racks"][name] = codes
            state["tally"]["read"][name] = codes
            self._save()
            return codes

    def confirm_tally(self, racks: dict[str, str], **extra) -> dict:
        """The players agree on every rack: score the hand and start the next one."""
        with self._lock:
            state = self._require("tally")
            names = [p["name"] for p in state["players"]]
            unknown = sorted(set(racks) - set(names))
            if unknown:
                raise SessionError(f"not playing: {', '.join(unknown)}")
            merged = dict(state["tally"]["racks"])
            merged.update({k: (v or "") for k, v in racks.items()})
            missing = [n for n in names if merged.get(n) is None]
            if missing:
                raise SessionError(f"rack not given for {', '.join(missing)}")
            parsed = {n: parse_tiles(merged[n]) for n in names}
            winner = state["tally"]["winner"]
            if winner and not state["tally"]["pool_empty"] and parsed[winner]:
                raise SessionError(f"{winner} went out, so his rack is empty, not {merged[winner]!r}")
            melded = {p["name"]: p["has_melded"] for p in state["players"]}
            tally = state["tally"]
            if tally["winner"]:
                melded[tally["winner"]] = True
            if tally["winner"] and not tally["pool_empty"]:
                extra.setdefault("winner", tally["winner"])
            if isinstance(extra.get("hand"), str):  # International closed hand, typed as codes
                extra["hand"] = parse_tiles(extra["hand"])
            try:
                result = score_hand(
                    parsed, method=self.options.scoring, melded=melded, pool_empty=tally["pool_empty"],
                    options=self.options, **extra,
                )
            except TypeError as exc:  # a detail the scoring method does not take
                raise SessionError(f"cannot score this hand: {exc}") from None
            self._sheet.add_hand(result)
            scores = {n: int(result.scores.get(n, 0)) for n in names}
            number = state["hand"]
            # next hand: the start passes on (seed 004, American: "The turn to start passes")
            state["hand"] = number + 1
            state["starter"] = self.next_seat(state["starter"])
            state["status"] = "playing"
            state["tally"] = None
            state["restore"] = None
            state["last_verdict"] = {"summary": f"hand {number} scored: " + ", ".join(
                f"{n} {s:+d}" for n, s in scores.items()), "legal": True, "problems": [], "placed": [],
                "player": result.winner, "action": "score"}
            self._deal()
            self._start_turn(state["starter"], [], None, number=1)
            state["sheet"] = self._sheet.to_dict()
            self.store.add_hand(self.game_id, number, result.winner, tally["pool_empty"],
                                {n: merged[n] for n in names}, scores, state)
            self._bump()
            return {"hand": number, "winner": result.winner, "scores": scores}

    def cancel_tally(self) -> None:
        """Back to play: "Rummikub!" was called by mistake."""
        with self._lock:
            state = self._require("tally")
            state["status"] = "playing"
            state["tally"] = None
            state["turn"]["started_at"] = self.now()
            self._save()

    # hints ------------------------------------------------------------------
    def hint(self, table: list[list[Tile]]) -> dict | None:
        """Best move for the current player's typed-in rack (rules.solver.solve), when hints are on."""
        if not self.hint_enabled or self.state is None or self.state["status"] != "playing":
            return None
        seat = self.state["turn"]["player"]
        player = self.state["players"][seat]
        if not player.get("rack"):
            return {"player": player["name"], "needs_rack": True}
        key = ("solve", format_table(table), player["rack"], player["has_melded"])
        if key not in self._hint_cache:
            initial = None if player["has_melded"] else self.options.initial_meld
            try:
                sol = solve(table, parse_tiles(player["rack"]), initial=initial, options=self.options)
            except ValueError as exc:
                self._hint_cache[key] = {"player": player["name"], "error": str(exc)}
            else:
                self._hint_cache[key] = {
                    "player": player["name"],
                    "count": sol.count if sol else 0,
                    "value": sol.value if sol else 0,
                    "placed": [t.code for t in sol.placed] if sol else [],
                    "sets": [[t.code for t in s] for s in sol.sets] if sol else [],
                }
        return self._hint_cache[key]

    def suggestion(self, table: list[list[Tile]]) -> list[list[str]] | None:
        """After an illegal turn: a legal arrangement of the tiles now on the table, if one exists."""
        if not self.hint_enabled or self.state is None:
            return None
        attempt = self.state["turn"]["attempt"] if self.state.get("turn") else None
        if not attempt or attempt.get("legal"):
            return None
        key = ("arrange", format_table(table), self.state["turn"]["table_before"])
        if key not in self._hint_cache:
            try:
                sets = suggest_rearrangement(self.table_before(), table, self.options)
            except ValueError:
                sets = None
            self._hint_cache[key] = [[t.code for t in s] for s in sets] if sets else None
        return self._hint_cache[key]

    # output -----------------------------------------------------------------
    def sheet_json(self) -> dict | None:
        if self._sheet is None:
            return None
        return sheet_view(self._sheet, self.store.hands(self.game_id) if self.game_id else [])

    def sheet_csv_rows(self) -> list[list]:
        if self._sheet is None:
            return []
        return [list(r) for r in self._sheet.to_rows()]

    def to_json(self) -> dict:
        """The game as the page and ``GET /api/state`` show it."""
        with self._lock:
            opts = self.options
            if self.state is None:
                return {"status": "none", "players": [], "clock": self.clock(), "game": opts.game,
                        "direction": opts.direction, "hint": self.hint_enabled}
            state = self.state
            turn = state["turn"] or {}
            current = turn.get("player")
            players = [
                {"name": p["name"], "seat": i, "current": i == current, "has_melded": p["has_melded"],
                 "rack_count": p["rack_count"], "penalties": p["penalties"], "last_discard": p["last_discard"],
                 "rack": p.get("rack")}
                for i, p in enumerate(state["players"])
            ]
            return {
                "id": self.game_id,
                "status": state["status"],
                "game": opts.game,
                "direction": opts.direction,
                "players": players,
                "current": self.current_player,
                "hand": state["hand"],
                "turn": {"number": turn.get("number"), "phase": turn.get("phase"), "drew": turn.get("drew"),
                         "table_before": turn.get("table_before"), "attempt": turn.get("attempt"),
                         "has_snapshot": self.snapshot_jpeg is not None},
                "clock": self.clock(),
                "pool": state["pool"],
                "trump": state["trump"],
                "last_verdict": state["last_verdict"],
                "restore": state["restore"],
                "tally": state["tally"],
                "hint": self.hint_enabled,
            }


def sheet_view(sheet, hands: list[dict]) -> dict:
    """The score sheet for the page: rules.scoring's summary, the CSV rows, and each hand's racks."""
    out = sheet.summary()
    out["method"] = sheet.method
    out["overall_winner"] = out.get("winner")
    out["rows"] = [list(r) for r in sheet.to_rows()]
    out["hands"] = [
        {"number": h["number"], "winner": h["winner"], "pool_empty": h["pool_empty"],
         "scores": h["scores"], "racks": h["racks"], "round": sheet.round_of(h["number"])}
        for h in hands
    ]
    return out


def parse_table_arg(value) -> list[list[Tile]]:
    """A table given in the API as notation text or as a list of lists of codes."""
    if isinstance(value, str):
        return parse_table(value)
    if isinstance(value, list) and all(isinstance(s, list) for s in value):
        return [parse_tiles([str(c) for c in s]) for s in value]
    raise NotationError("a table is notation text ('R1 R2 R3 | K5 B5 O5') or a list of lists of codes")
