"""The JSON the page and ``GET /api/state`` show, made from the typed game and table state.

Only presentation: the verdict in a big word plus one line per kind of problem,
the players' words for a game's phase, the sets on the table with their marks.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Iterable

from rules.game_length import LENGTH, standing
from rules.game_state import Action, Game, LastTurn, Status, Step, Verdict
from rules.options import OPTION_DOCS, SCORING_NAMES, RuleOptions, variant_name
from rules.problems import CODES, Problem
from rules.scoring import ScoreSheet, rack_value
from rules.sets import analyse_set
from rules.game_turns import best_move, discard_refused, legal_layout, trump_refused
from rules.game_undo import turn_back_refusal
from rules.game_reads import read_doubts
from rules.game_tally import laid_out, score_sheet
from rules.game_win import dealt_hand, first_turn, melded_before, original_hand, trump_holders, win_entered
from rules.tiles import format_table, format_tiles
from vision.live import GROUP_KINDS, SET_STATUS, TableState
from webui.labels import changes, fault_words

def problem_groups(problems: Iterable[Problem]) -> list[dict]:
    """One line per kind of problem (its code): ``{"code", "kind", "items"}`` in the order first seen.

    Broken sets are listed together with why each is broken; another kind
    seen once keeps its own words, seen more often it is named once with the
    tiles of each.
    """
    by_code: OrderedDict[str, list[Problem]] = OrderedDict()
    for p in problems:
        by_code.setdefault(p.code, []).append(p)
    out = []
    for code, found in by_code.items():
        if code == "invalid_set":
            items = [f"{format_tiles(p.tiles)} ({p.message.split(': ', 1)[-1]})" for p in found]
            out.append({"code": code, "kind": "Not a valid set", "items": items})
        elif len(found) == 1:
            out.append({"code": code, "kind": _capital(found[0].message), "items": []})
        else:
            out.append({"code": code, "kind": _capital(CODES[code]), "items": [format_tiles(p.tiles) for p in found]})
    return out


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def verdict_json(v: Verdict | None, player: str | None = None) -> dict | None:
    if v is None:
        return None
    return {"legal": v.legal, "changed": v.changed, "placed": [t.code for t in v.placed],
            "problems": [p.message for p in v.problems], "groups": problem_groups(v.problems),
            "word": "LEGAL" if v.legal else "NOT LEGAL", "player": player, "sets_fine": sets_fine(v)}


def sets_fine(v: Verdict) -> str | None:
    """A refusal with every set valid, in a line: laying the same tiles out again cannot help, so the page
    says what is wrong instead of offering a layout (the table just refused, shown back as "legal")."""
    if v.legal or not v.problems or any(p.code == "invalid_set" for p in v.problems):
        return None
    faults = list(dict.fromkeys(fault_words(p.code) for p in v.problems))
    return f"The sets are all valid: the turn is refused for {and_list(faults)}, not for how the tiles are laid out."


def and_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


HANGS_ON_SETS = {"invalid_set", "initial_meld_too_low"}  # problems an unsure set alone can cause
PAST_EDGE = "runs past the photo's edge, move the camera to see it all"


def preview_json(v: Verdict, player: str, sets: list[dict]) -> dict:
    """The verdict the turn would get now; a refusal that may rest only on unsure sets (their
    verdict hangs on a doubtful tile, see :func:`sets_json`) reads UNSURE and names the tiles.

    The rules still refuse such a turn; the page only says the camera may have
    misread a tile (or cannot see the end of a set the photo's edge cuts),
    so the players look before they argue.  An initial meld
    counts only valid sets, so one too low may be the unsure set's doing too.
    """
    out = verdict_json(v, player)
    unsure = {tuple(sorted(x["tiles"])): x for x in sets if x["status"] == "unsure"}
    keys = [tuple(sorted(t.code for t in p.tiles)) for p in v.problems if p.code == "invalid_set"]
    if v.legal or not keys or not all(k in unsure for k in keys) \
            or any(p.code not in HANGS_ON_SETS for p in v.problems):
        return out
    items = [f"{' '.join(unsure[k]['tiles'])}: " + (PAST_EDGE if unsure[k].get("past_edge") else
                                                   f"check {' '.join(unsure[k]['doubtful'])}") for k in keys]
    past = [bool(unsure[k].get("past_edge")) for k in keys]
    kind = ("A set may run past the photo's edge" if all(past) else
            "A tile may be misread or out of sight" if any(past) else "A tile may be misread")
    rest = [g for g in out["groups"] if g["code"] != "invalid_set"]
    return {**out, "word": "UNSURE", "unsure": True,
            "groups": [{"code": "unsure_set", "kind": kind, "items": items}] + rest}


GOES_ON = "The game goes on without it: End turn asks what each turn did, and the racks are typed at the count."
RETRYING = re.compile(r"[;,]?\s*retrying in [\d.]+ ?s\b")


def camera_notice(ok: bool, error: str | None, took_over: bool = False) -> dict | None:
    """The camera banner in players' words (``text``), the source's own reason (a file path, the image
    types a folder may hold) folded away in ``details``; None while the camera works.  ``took_over``: a
    person took over the recorded demo, and this server has no camera since.  The reason's "retrying in
    2.0 s" is dropped: the page shows it once and it never counts down.  While the camera works, a file it
    skipped (``error``: the source's warning) is said alone."""
    if ok:
        # a picture the slideshow skipped (corrupt, too large): named, as the show goes on without it
        warning = (error or "").strip().rstrip(".")
        return {"text": f"{_capital(warning)}; the pictures go on without it.", "details": None} if warning else None
    if took_over:
        return {"text": "No camera: the recorded demo game stopped when you took over, and this companion has "
                        "no camera of its own. The game goes on without one: End turn asks what each turn did, "
                        "and the racks are typed at the count.",
                "details": "It was started without a camera. To have one watch your table, start it again "
                           "with the camera named: rummikub-companion serve --source 0 (the first webcam)."}
    reason = RETRYING.sub("", error or "").strip().rstrip(".")
    if RETRYING.search(error or ""):
        head = ("The camera sends no pictures (it stopped, or never started). The companion keeps trying it, "
                "and this notice goes by itself once pictures come again.")
    elif reason.startswith("cannot open"):
        head = "No camera sees the table: the camera could not be opened."
    elif reason.endswith("has ended"):
        head = "No camera sees the table: the video it was showing has ended."
    else:
        head = "No camera sees the table."
    return {"text": f"{head} {GOES_ON}", "details": f"{_capital(reason)}." if reason else None}


PHASES = {Step.PLAY: "play or draw", Step.DRAW: "draw a tile", Step.MELD: "meld, then discard"}
# the turn's time is up and it waits for the players (rules.game_turns.time_out): what finishes it
TIME_UP = {Step.PLAY: "time is up: say what the turn did", Step.DRAW: "time is up: the pool is empty, press Pool empty",
           Step.MELD: "time is up: discard now"}


def rules_name(o: RuleOptions) -> str:
    return variant_name(o.game, o.scoring)


def win_json(game: Game) -> dict:
    """International, the win as entered in the count (rules.game_win.win_entered), for every phone,
    and what the game knows of it: ``winner_melded`` (the winner had melded before going out: no Foot or
    Closed win), ``first_turn`` (Little Blitz), ``original_hand`` (Grand Blitz, as known or said) and
    ``ask_original_hand`` (only the players know it), ``trump_holders`` (the trump's twin on a rack
    entered); all null where there is none to describe."""
    entered = win_entered(game)
    hand = entered.get("hand")
    known = {"winner_melded": None, "first_turn": None, "original_hand": None, "ask_original_hand": False}
    if entered:
        known = {"winner_melded": melded_before(game), "first_turn": first_turn(game),
                 "original_hand": original_hand(game), "ask_original_hand": dealt_hand(game) is None}
    holders = list(trump_holders(game)) if game.tally is not None and game.options.trump_bonus else []
    return {"win": entered.get("win"), "hand": None if hand is None else format_tiles(hand),
            "joker_discard": entered.get("joker_discard"), **known, "trump_holders": holders}


WIN_LINES = {"open": "went out open", "foot": "went out on foot", "closed": "went out closed"}


def win_words(preview: dict) -> str:
    """The tally's line for the player who went out (International), from rules.game_tally.win_preview:
    every win says its points, then what the winner scores after the joker discard's doubling and the
    trump's twin, the same way ("went out on foot: 200 points → scores +400 (doubled by the joker
    discard)"); or why the win cannot be scored."""
    line = WIN_LINES.get(preview.get("win"), "went out")
    if preview.get("problem"):
        return f"{line}: {preview['problem']}"
    closed = preview.get("closed_hand")
    if closed:
        jokers = closed["jokers"]
        with_jokers = f" with {jokers} joker{'s' if jokers > 1 else ''}" if jokers else ""
        what = f"{closed['name']}{with_jokers}, {closed['points']} points"
    else:
        alone = preview["win"] == "open" and preview["points"] == 200
        what = f"{preview['points']} points{', nobody else has melded' if alone else ''}"
    notes = (["doubled by the joker discard"] if preview.get("joker_discard") else []) + \
        ([f"+{preview['trump_bonus']} for the trump's twin"] if preview.get("trump_bonus") else [])
    score = preview["winner_score"]
    return f"{line}: {what} → scores {score:+d}" + (f" ({', '.join(notes)})" if notes else "")


def game_json(game: Game | None, game_id: int | None, *, hint: bool, clock: dict, storage_error: str | None,
              snapshot: bool, typing: dict | None = None) -> dict:
    """The game for the page: seats, turn, last turn, restore, tally; ``typing``: the count's racks being
    typed on a phone and not saved yet (webui.rack_typing), with the seconds each mark has left."""
    if game is None:
        return {"status": "none", "players": [], "hint": hint, "storage_error": storage_error}
    t = game.turn
    players = [{"name": s.name, "seat": i, "current": i == t.seat, "has_melded": s.has_melded,
                "rack_count": s.rack_count, "penalties": s.penalties,
                "discard": s.discard.code if s.discard else None, "rack_typed": s.rack is not None}
               for i, s in enumerate(game.seats)]
    last = game.last
    tally = game.tally
    doubts = read_doubts(game)
    return {
        "id": game_id,
        "status": game.status.value,
        "game": game.options.game,
        "game_name": rules_name(game.options),
        "scoring": game.options.scoring,
        "direction": game.options.direction,
        "players": players,
        "current": game.current.name,
        "hand": game.hand,
        "turn": {"id": f"{game_id}.{game.hand}.{t.number}", "number": t.number, "phase": t.step.value,
                 "phase_words": (TIME_UP if t.time_up else PHASES)[t.step], "time_up": t.time_up is not None,
                 "drew": None if t.drew is None else {"source": t.drew.source.value,
                                                       "tile": t.drew.tile.code if t.drew.tile else None},
                 # "Took the discard" is offered only when the rules let this turn take it (American: once the
                 # player's initial meld is laid; never with no discard lying there)
                 "discard_open": discard_refused(game) is None,
                 # "Took the trump" likewise: not once taken, nor to an International player who melded earlier
                 "trump_open": game.options.flow.trump and trump_refused(game) is None,
                 "attempt": verdict_json(t.attempt, game.current.name), "has_snapshot": snapshot,
                 "table_before": format_table(t.table_before),
                 # turns no camera saw came before: the table is the game's own until the camera finds it
                 "unseen": t.unseen,
                 # the camera came back this turn: the tiles it found beyond the table the game knew
                 "found": None if t.found is None else [x.code for x in t.found]},
        "clock": clock,
        "pool": game.pool,
        "trump": game.trump.code if game.trump else None,
        "trump_up": game.trump_up,
        "has_trump": game.options.flow.trump,  # a trump tile lies face up each hand (American, International)
        "has_discards": game.options.flow.draw_then_discard,  # each turn draws, then discards
        "last": None if last is None else {"player": last.player, "action": last.action, "note": last.note,
                                           "penalty": last.penalty, "verdict": last_verdict(last),
                                           "discard": last.discard.code if last.discard else None,
                                           "unchecked": last.unchecked},
        "restore": None if game.restore is None else {
            "player": game.restore.player, "penalty": game.restore.penalty,
            # a legal table goes back too when the trump was taken and the turn did not win in time
            "table_legal": not game.restore.problems,
            # the tiles the turn had played, which go back to the rack (none: the player only draws)
            "placed": [x.code for x in last.verdict.placed] if last and last.verdict
            and last.player == game.restore.player else [],
            "sets": [[x.code for x in s] for s in game.restore.table], "has_picture": snapshot},
        "tally": None if tally is None else {
            "winner": tally.winner, "pool_empty": tally.pool_empty,
            "racks": {s.name: (None if r is None else " ".join(x.code for x in r))
                      for s, r in zip(game.seats, tally.racks)},
            "read": {s.name: r for s, r in zip(game.seats, tally.read)},
            # a rack read by the camera that the count questions: the question (null: none), on every phone
            "doubts": {s.name: doubts.get(s.name) for s in game.seats},
            "typing": dict(typing or {}),
            # the players' "has melded" corrections (null: as players[].has_melded says)
            "melded": {s.name: (tally.melded[i] if tally.melded else None) for i, s in enumerate(game.seats)},
            # the winner's final discard (American and International), as recorded with Rummikub!
            "discard": tally.discard.code if tally.discard else None,
            **win_json(game)},
        "can_undo_hand": game.undo is not None,
        "undo_turn": undo_turn_json(game),
        "length": length_json(game),
        # once finished: the game's winner by its own winning rule (None for a tie or no hand scored)
        "winner": score_sheet(game).overall_winner if game.status is Status.FINISHED else None,
        "pending": None if game.pending is None else rules_words(game.pending),
        "rules": rules_words(game.options),  # the rules in words, for the hand waiting for its start
        "rules_changed": rules_changed(game),
        "hint": hint,
        "storage_error": storage_error,
    }


def rules_changed(game: Game) -> bool:
    """While the next hand waits for its start: its rules differ from those the scored hand played (new
    ones saved for it, on Settings or waiting from mid-hand), the length aside (it counts at once).  The
    header names the hand's rules only then: said at every deal, the same line read as news."""
    if game.status is not Status.DEALING or game.undo is None:
        return False
    before = game.undo.options
    return any(getattr(before, n) != getattr(game.options, n) for n in OPTION_DOCS if n not in LENGTH)


def undo_turn_json(game: Game) -> dict | None:
    """Undo last turn, only while it can be pressed (rules.game_undo): whose turn goes back, which one;
    None when it cannot (POST /api/turn/undo says why)."""
    if turn_back_refusal(game) is not None:
        return None
    return {"player": game.last.player, "hand": game.turn_back.hand, "number": game.turn_back.turn.number}


def last_verdict(last: LastTurn) -> dict | None:
    """The last turn's verdict; a turn no camera saw was accepted on the players' word, never judged, so
    its word is NOT CHECKED, not LEGAL."""
    out = verdict_json(last.verdict)
    if out is not None and last.action == Action.UNCHECKED.value:
        out["word"] = "NOT CHECKED"
    return out


def length_json(game: Game) -> dict:
    """Where the game stands in its agreed length (``rules.game_length``), with ``words`` for the page's
    header: "round 2 of 4 · hand 1 of 2", "hand 5 · first to 200"; once finished, the length agreed.
    ``per_player``: the rounds are as many as players (the Israeli rules), ``rounds`` counts them."""
    w = standing(game)
    finished = game.status is Status.FINISHED
    rounds = None if w.rounds is None else f"{w.rounds} round{'' if w.rounds == 1 else 's'}"
    agreed = f"{rounds} agreed" + (", one per player" if w.per_player else "")
    if rounds is None:
        words = [] if finished else [f"hand {w.hand}"]
    elif finished:
        words = [agreed]
    elif w.hand > w.hands:  # the length was shortened meanwhile: this hand still finishes
        words = [f"hand {w.hand}, past the {agreed}: the game ends when it is scored"]
    else:
        words = [f"round {w.round} of {w.rounds} · hand {w.hand_in_round} of {w.per_round}"
                 + (" · last hand" if w.last else "")]
    if w.target is not None:
        words.append(f"first to {w.target}")
    return {"rounds": w.rounds, "per_player": w.per_player, "target": w.target, "round": w.round,
            "hand_in_round": w.hand_in_round,
            "hands_per_round": w.per_round, "hands": w.hands, "last_hand": w.last and not finished,
            "words": " · ".join(words)}


def rules_words(o: RuleOptions, clock: bool = True) -> str:
    """A one-line name of the rules for players: "American rules, 21-point first meld, no clock"; without
    the ``clock`` where the clock is a field of its own beside it (New game), so the line cannot contradict it."""
    words = f"{rules_name(o)} rules, {o.initial_meld}-point first meld"
    if not clock:
        return words
    return f"{words}, {o.turn_time_limit} s a turn" if o.turn_time_limit else f"{words}, no clock"


def change_words(before: Game, after: Game) -> str:
    """What new rules do to the game on the table, and when: its length at once, the rest from its next
    hand ("From hand 2: A joker left on a rack costs: 25 (was 30)").  Settings says it after a save and
    asks it before a switch to another game: a rulebook picked there never changes the clock or the
    length unsaid."""
    parts = []
    now = changes(before.options, after.options, LENGTH)
    if now:
        parts.append("At once: " + "; ".join(now) + ".")
    later = changes(after.options, after.pending) if after.pending else []
    if later:
        parts.append(f"From hand {before.hand + 1}: " + "; ".join(later) + ".")
    elif before.pending is not None:
        parts.append(f"The change waiting for hand {before.hand + 1} is dropped: the game keeps the rules it plays.")
    return " ".join(parts) or "Nothing changes for the game on the table: it already plays these rules."


def sets_json(ts: TableState, options: RuleOptions, before=None, counting=None) -> list[dict]:
    """Each stable group in reading order: tiles, uncertain/inferred marks, and

    for a table set its verdict under the game's rules (``status`` valid,
    invalid, or unsure when the reader found the verdict hangs on a doubtful
    tile, named in ``doubtful``, or the set runs into the photo's
    edge and a tile past it would make it valid, ``past_edge``) and whether it is new this turn;
    for a rack row (``group`` rack, ``status`` rack) its total, never a verdict.

    ``counting`` is the final table while the racks are counted: a group that
    is not one of its sets is a rack laid out to be read (on a rack board or
    flat on the table), so it is totalled like a rack row, not judged.
    """
    known = {tuple(sorted(s)) for s in before} if before is not None else None
    laid = laid_out(counting, ts.groups) if counting is not None else [False] * len(ts.groups)
    out = []
    start = 0
    for k, tiles in enumerate(ts.groups):
        idx = range(start, start + len(tiles))
        start += len(tiles)
        marks = {"tiles": [t.code for t in tiles], "uncertain": [bool(ts.uncertain[i]) for i in idx],
                 "inferred": [bool(ts.inferred[i]) for i in idx],
                 "scores": [round(float(ts.scores[i]), 3) for i in idx],
                 "doubtful": [t.code for t, i in zip(tiles, idx) if ts.doubtful[i]]}
        if GROUP_KINDS[ts.set_group[k]] == "rack" or laid[k]:
            out.append({**marks, "group": "rack", "status": "rack", "valid": None, "kind": None, "past_edge": False,
                        "value": rack_value(list(tiles), options), "problem": None, "new": False})
            continue
        v = analyse_set(list(tiles), options)
        # the reader's doubt stands whatever the game's rules say, when it rests on a tile read so
        # doubtfully that even a set valid as read may be no set at all
        unsure = SET_STATUS[ts.set_status[k]] == "unsure" and (not v.valid or bool(marks["doubtful"]))
        out.append({**marks, "group": "table", "status": "unsure" if unsure else "valid" if v.valid else "invalid",
                    "past_edge": unsure and bool(ts.set_past_edge[k]),
                    "valid": bool(v.valid), "kind": v.kind, "value": v.value, "problem": v.problem,
                    "new": known is not None and tuple(sorted(tiles)) not in known})
    return out


def sheet_rows(sheet: ScoreSheet) -> list[list]:
    """A header, one row per hand ("Hand 1", as the page and docs/webui.md say; the leaflet's "Game 1"),
    a total row."""
    rows = [list(r) for r in sheet.to_rows()]
    for r in rows[1:-1]:
        if isinstance(r[0], str) and r[0].startswith("Game "):
            r[0] = "Hand " + r[0][len("Game "):]
    return rows


def hand_words(h: dict) -> str:
    """How a scored hand ended, in a line for the sheet's Hands and the CSV: who went out and how (the
    International win and closed hand), the final discard, the joker doubling, the trump's twin.
    ``h`` is a hand row (webui.session.hand_rows); one stored before hands kept this says who went out."""
    d = h.get("details") or {}
    if h["winner"] is None:
        words = "pool exhausted: nobody went out"
    elif h["pool_empty"]:
        words = f"pool exhausted: {h['winner']} held the least"
    else:
        words = f"{h['winner']} {WIN_LINES.get(d.get('win'), 'went out')}"
    closed = d.get("closed_hand")
    if closed:
        jokers = closed["jokers"]
        with_jokers = f" with {jokers} joker{'s' if jokers > 1 else ''}" if jokers else ""
        words += f": {closed['name']}{with_jokers}, {closed['points']} points"
    if d.get("discard"):
        words += f"; final discard {d['discard']}"
    if d.get("joker_discard"):
        words += "; doubled by the joker discard"
    if d.get("trump_holders"):
        words += f"; trump's twin: {', '.join(d['trump_holders'])} +{d['trump_bonus']}"
    return words


def csv_rows(sheet: ScoreSheet, finished: bool = False, hands: list[dict] | None = None) -> list[list]:
    """What the score sheet page shows, as CSV rows: the hands, the total, hands won, and for Israeli
    minus scoring the primary and final scores; a finished game also each player's final place and the
    result ("Ann wins").  With the ``hands`` rows (webui.session.hand_rows), each hand's row ends with
    how it ended (:func:`hand_words`).  Text a spreadsheet would run as a formula (a name starting with
    = + - @) gets a leading single quote."""
    rows = sheet_rows(sheet)
    if hands is not None:
        rows[0].append("How the hand ended")
        for row, h in zip(rows[1:-1], hands):
            row.append(hand_words(h))
    won = sheet.games_won
    rows.append(["Hands won", *(won[p] for p in sheet.players)])
    if sheet.scorer.final_scores:
        primary, final = sheet.israeli_scores()
        rows.append(["Israeli primary", *(primary[p] for p in sheet.players)])
        rows.append(["Israeli final", *(final[p] for p in sheet.players)])
    if finished:
        place = {r["player"]: r["place"] for r in standings(sheet)}
        rows.append(["Final place", *(place[p] for p in sheet.players)])
        rows.append(["Result", result_words(sheet)])
    return [[csv_cell(c) for c in r] for r in rows]


def standings(sheet: ScoreSheet) -> list[dict]:
    """The players best first by the game's winning rule (rules.scoring: Sabra and American most hands
    won, then the total; International, or any game played to a target score, the total; Israeli the
    final score), players level on it sharing a place: ``{"player", "place", "games_won", "total"}`` and,
    for Israeli scoring, ``primary`` and ``final``."""
    key = sheet.ranking()
    order = sorted(sheet.players, key=key.__getitem__, reverse=True)  # stable: seat order within a tie
    won, totals = sheet.games_won, sheet.totals
    israeli = sheet.israeli_scores() if sheet.scorer.final_scores else None
    out: list[dict] = []
    for i, p in enumerate(order):
        row = {"player": p, "place": out[-1]["place"] if i and key[p] == key[order[i - 1]] else i + 1,
               "games_won": won[p], "total": totals[p]}
        if israeli:
            row["primary"], row["final"] = israeli[0][p], israeli[1][p]
        out.append(row)
    return out


def result_words(sheet: ScoreSheet) -> str:
    """The game's result in a line: "Ann wins", "A tie between Ann and Ben", or no hand scored."""
    if not sheet.hands:
        return "No hand was scored: no winner"
    winner = sheet.overall_winner
    if winner is not None:
        return f"{winner} wins"
    top = [r["player"] for r in standings(sheet) if r["place"] == 1]
    return f"A tie between {', '.join(top[:-1])} and {top[-1]}"  # a tie has two players or more


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A CSV cell a spreadsheet shows as text: text starting like a formula gets a leading quote."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def sheet_view(sheet: ScoreSheet, hands: list[dict], finished: bool = False) -> dict:
    """The score sheet for the page: rules.scoring's summary, the CSV rows, each hand's racks, the
    standings (best first) and, once the game is ``finished``, its result in words."""
    out = sheet.summary()
    out["finished"] = finished
    out["standings"] = standings(sheet)
    out["result"] = result_words(sheet) if finished else None
    out["method"] = sheet.method
    out["method_name"] = SCORING_NAMES.get(sheet.method, sheet.method)
    out["low_wins"] = sheet.method == "israeli"  # minus scoring: the lower a hand's score, the better
    out["overall_winner"] = out.get("winner")
    out["rows"] = sheet_rows(sheet)
    out["hands"] = [
        {"number": h["number"], "winner": h["winner"], "pool_empty": h["pool_empty"],
         "scores": h["scores"], "racks": h["racks"], "round": sheet.round_of(h["number"]),
         "details": h.get("details") or {}, "how": hand_words(h)}
        for h in hands
    ]
    return out


class Hints:
    """The solver's best move for the current player's typed rack, cached per table and rack.

    The hint names the player's own tiles: it goes only to the phone holding the key of the rack typed
    (webui.hint_keys, ``GET /api/hint``); the state every phone gets carries :meth:`shared` alone.
    """

    def __init__(self) -> None:
        self._cache: dict = {}

    @staticmethod
    def shared(game: Game | None, held: bool) -> dict | None:
        """What every phone may know of the hint: whose turn it is for, and whether a phone holds the key
        to it (``needs_rack`` false); never a tile."""
        if game is None or game.status is not Status.PLAYING:
            return None
        return {"player": game.current.name, "needs_rack": not held}

    def hint(self, game: Game | None, table) -> dict | None:
        if game is None or game.status is not Status.PLAYING:
            return None
        seat = game.current
        if seat.rack is None:
            return {"player": seat.name, "needs_rack": True}
        key = ("solve", game.options, tuple(table), seat.rack, seat.has_melded)
        if key not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            try:
                sol = best_move(game, table)
            except ValueError as exc:
                self._cache[key] = {"player": seat.name, "error": str(exc)}
            else:
                old = {tuple(sorted(s)) for s in table}
                sets = [list(s) for s in sol.sets] if sol else []
                self._cache[key] = {
                    "player": seat.name, "count": sol.count if sol else 0, "value": sol.value if sol else 0,
                    "placed": [t.code for t in sol.placed] if sol else [],
                    "sets": [{"tiles": [t.code for t in s], "new": tuple(sorted(s)) not in old} for s in sets],
                }
        return self._cache[key]

    def suggestion(self, game: Game | None, table) -> list[list[str]] | None:
        """After a refused turn: a legal arrangement of the tiles now on the table, if one exists.  Made of
        the table's tiles alone (never the typed rack), so every phone may see it.  None when every set is
        valid already: the fault is not the layout (a first meld too low, tiles not on the rack), and the
        "layout" would be the very table just refused (the verdict's ``sets_fine`` says so)."""
        if game is None or game.status is not Status.PLAYING or game.turn.attempt is None:
            return None
        if all(analyse_set(list(s), game.options).valid for s in table):
            return None
        key = ("arrange", game.options, tuple(table), game.turn.table_before)
        if key not in self._cache:
            try:
                sets = legal_layout(game, table)
            except ValueError:
                sets = None
            self._cache[key] = [[t.code for t in s] for s in sets] if sets else None
        return self._cache[key]

