// The live table page: renders GET /api/state, kept fresh by Server-Sent Events.
"use strict";

const $ = (id) => document.getElementById(id);
var state = JSON.parse($("initial-state").textContent);
let clockBase = { remaining: null, at: performance.now(), running: false, limit: null };
let lastBeep = null;
let audio = null;
// the count's racks and "has melded" corrections are the server's (every phone shows them); this holds
// only what is typed here and not saved yet (the box is saved a moment after the typing stops, and when
// it loses the focus)
let tallyDraft = {};
const tallySaves = new Set();  // saves on their way: Confirm waits for them
// a rack typed here is saved SAVE_MS after the last key, and the count is told at the first key that it is
// being typed here (renewed every MARK_MS; it lapses by itself), so that Confirm on another phone asks
// first rather than scoring what the count holds (webui.typing)
const SAVE_MS = 800;
const MARK_MS = 5000;
const PHONE = Math.random().toString(36).slice(2, 10) + Date.now().toString(36).slice(-4);  // this page's id
const saveTimers = {};  // player: the save waiting for the typing to stop
let handTimer = null;  // ... and the closed hand's
const markedAt = {};  // player: when this page last said it types that rack
let typingUntil = {};  // player: until when another phone types that rack (performance.now() time)
let typingTimer = null;
// the count shown ({ id, hand }), to say what became of what was typed here when it closes elsewhere; and
// this page's own Confirm or Back to the game on its way (what was typed here goes with it, or was asked
// about), with what to say if it is refused
let counted = null;
let closing = false;
let heldNotice = null;
const meldedSaving = {};  // player: a "has melded" toggle on its way (a state sent before it leaves it be)
// International: the win entered in the count is the server's too; the closed hand typed here and not saved
// yet (null: none), and the win or joker choice on its way
let handDraft = null;
const winSaving = { win: 0, joker: 0, melded: 0, dealt: 0 };
// a rack or closed hand left while the server was down: sent again as soon as it answers (what it saves:
// how to send it), so the phones agree and the score does not depend on which one presses Confirm
const unsent = new Map();
let busy = false;  // a press is being answered: every button waits, so a double press is one press
let unseenFor = null;  // with no camera: the turn whose End turn asks what it did (the choice is open)
let timeUpAsked = null;  // with no camera: the turn whose time-out opened that question by itself

// ---------- helpers ----------
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

const COLOUR_WORDS = { K: "black", B: "blue", O: "orange", R: "red" };

// a tile as the table shows it; a screen reader hears its colour too ("red 10"), which the numeral alone
// does not give
function tileEl(code, opts = {}) {
  const colour = code === "J" ? "J" : code[0];
  // the colour's letter under the numeral too (the letter typed for it): red and orange, blue and black
  // differ by hue alone, which some players cannot see
  const t = el("span", { class: `tile c-${colour}`, title: code, role: "img", "data-c": code === "J" ? "" : colour });
  t.textContent = code === "J" ? "☺" : code.slice(1);
  const said = [code === "J" ? "joker" : `${COLOUR_WORDS[colour] || colour} ${code.slice(1)}`];
  if (opts.uncertain) { t.classList.add("uncertain"); t.title += " (uncertain reading)"; said.push("uncertain reading"); }
  if (opts.inferred) { t.classList.add("inferred"); t.title += " (inferred from the rules)"; said.push("inferred"); }
  if (opts.doubtful) { t.classList.add("doubtful"); t.title += " (the set's verdict hangs on this reading)"; said.push("doubtful"); }
  t.setAttribute("aria-label", said.join(", "));
  return t;
}

// a set's status: valid, invalid, unsure (hangs on a doubtful tile, or runs past the photo's edge)
// or rack (a rack row, never judged)
function setStatus(set) {
  return set.status || (set.valid === undefined ? null : set.valid ? "valid" : "invalid");
}

function setEl(set) {
  const doubtful = set.doubtful || [];
  const tiles = (set.tiles || set).map((code, i) =>
    tileEl(code, { uncertain: set.uncertain && set.uncertain[i], inferred: set.inferred && set.inferred[i],
                   doubtful: doubtful.includes(code) }));
  const status = setStatus(set);
  const box = el("div", { class: "set" + (status && status !== "valid" ? " " + status : "") });
  box.append(el("div", { class: "tiles" }, ...tiles));
  const meta = {
    valid: ["meta", () => `${set.kind || "set"} · ${set.value ?? ""}`],
    invalid: ["meta why", () => "✗ " + (set.problem || "not a valid set")],
    unsure: ["meta unsure", () => set.past_edge ? "? unsure: runs past the photo's edge"
                                               : `? unsure: check ${doubtful.join(" ")}`],
    rack: ["meta rack", () => `rack row · ${set.value} points`],
  }[status];
  if (meta) box.append(el("div", { class: meta[0], text: meta[1]() }));
  return box;
}

// "Rummikub!" from a player who by the companion's count still holds tiles is refused with
// `still_holds`, "Pool empty" with tiles in the pool by its count with `pool_left`; the count can be
// wrong (a missed meld, no camera, a draw nobody pressed), so the players may insist.
function countWrong(data) {
  const held = data.still_holds, left = data.pool_left;
  if (!held && !left) return null;
  const n = (held || left).tiles;
  const tiles = n === 1 ? "1 tile" : `${n} tiles`;
  // American and International: the winner goes out holding the final discard, typed in its box
  const out = held && ((state.game || {}).has_discards
    ? `if ${held.player} has laid every tile but the final discard` : `if ${held.player}'s rack is empty`);
  // with no camera the count cannot see the tiles laid to go out: every right finish lands here, so it is
  // not worded as an error
  const words = left
    ? `By the count, ${tiles} ${n === 1 ? "is" : "are"} still in the pool. Call Pool empty anyway?`
    : noCamera(state)
      ? `No camera sees the table, so the count knows only the tiles said to be placed, not those laid to go ` +
        `out: by it, ${held.player} still holds ${tiles}. Call Rummikub! ${out}.`
      : `By the count, ${held.player} still holds ${tiles}. Call Rummikub! anyway?`;
  return confirm(words) ? { count_checked: true } : null;
}

// a refusal that asks the players (`ask`: the count may be wrong): their yes sends the press again
function asked(data) {
  return data.ask && confirm(data.ask.question) ? data.ask.send : null;
}

// `retry(data)`, for a refusal the players may overrule: the fields to send again with, or null; `quiet`:
// a refusal is neither asked about nor said (a save on its own while typing: leaving the box says it)
async function post(url, payload = {}, retry = null, quiet = false) {
  let res;
  try {
    res = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
    });
  } catch (err) {
    offline(true);
    return null;
  }
  offline(false);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    if (quiet) return null;
    const again = (retry && retry(data)) || asked(data);
    if (again) return post(url, { ...payload, ...again });
    flash(data.message || `request failed (${res.status})`);
    waitingFor = data.waiting_for ? { names: data.waiting_for, message: data.message } : null;
    if (res.status === 409) poll();  // pressed for a turn already over: show the turn that is on
    return null;
  }
  const newState = data.state || (data.game ? data : null);
  if (newState) render(newState);
  return data;
}

function offline(down) {
  const was = document.body.classList.contains("offline");
  $("offline-banner").hidden = !down;
  document.body.classList.toggle("offline", down);
  if (!down && unsent.size) sendUnsent();
  // back: the points of racks typed while the server was away were never worked out (a box still said
  // "not given yet" over the rack it held)
  if (was && !down) document.querySelectorAll("#tally-rows textarea").forEach((input) => points(input));
}

function sendUnsent() {
  const again = [...unsent.values()];
  unsent.clear();  // a save that finds the server down again puts itself back
  again.forEach((send) => send());
}

// a refused action: said where the players look (the tally and the deal have their own line).  A refusal
// often comes with a new state (a 409 for a turn another phone ended), so it is kept out of what a state
// redraws: it stays REFUSAL_MS, until dismissed, or until the next press.
const REFUSAL_MS = 10000;
let refusalTimer = null;
const ownShownAt = {};  // the tally's or the deal's line: when it was last given a message

function flash(message) {
  const g = (state && state.game) || {};
  const own = { tally: "tally-error", dealing: "dealing-error" }[g.status];
  if (own) { $(own).textContent = message; $(own).hidden = false; ownShownAt[own] = performance.now(); return; }
  refuse(message);
}

// `stay`: until dismissed or the next press (what became of a rack typed here: it may need taking back)
function refuse(message, stay = false) {
  $("refusal-text").textContent = message;
  $("refusal").hidden = false;
  clearTimeout(refusalTimer);
  if (!stay) refusalTimer = setTimeout(clearRefusal, REFUSAL_MS);
}

function clearRefusal() {
  clearTimeout(refusalTimer);
  $("refusal").hidden = true;
}

// the tally's or the deal's line goes with its card; a message given there lately moves to the refusal line
// (a Confirm refused because another phone confirmed first: the count closes as the answer comes)
function closeOwn(id) {
  const line = $(id);
  if (!line.hidden && performance.now() - (ownShownAt[id] || -Infinity) < REFUSAL_MS) refuse(line.textContent);
  line.hidden = true;
}

// ---------- clock and sound ----------
function unlockAudio() {
  if (!audio) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx) audio = new Ctx();
  }
  if (audio && audio.state === "suspended") audio.resume();
}

function beep(freq = 880, ms = 120) {
  if (!audio) return;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.frequency.value = freq;
  gain.gain.setValueAtTime(0.25, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + ms / 1000);
  osc.connect(gain).connect(audio.destination);
  osc.start();
  osc.stop(audio.currentTime + ms / 1000);
}

function fmt(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

const NO_TIME = "—";

function drawClock() {
  const c = $("clock");
  const b = clockBase;
  const caption = $("clock-caption");
  c.classList.remove("warn", "danger", "idle");
  if (!b.running) {
    c.classList.add("idle");
    // a clock with no time to show reads a plain dash ("--:--" in the big digits looked like blocks)
    if (b.finished) { c.textContent = NO_TIME; caption.textContent = "game over"; }
    else if (b.dealing) { c.textContent = b.remaining != null ? fmt(b.remaining) : NO_TIME; caption.textContent = "waits for the start"; }
    else if (b.time_up) { c.textContent = fmt(0); caption.textContent = "time is up"; }
    else if (b.paused && b.remaining != null) { c.textContent = fmt(b.remaining); caption.textContent = "paused"; }
    else { c.textContent = NO_TIME; caption.textContent = "clock stopped"; }
    return;
  }
  const elapsed = (performance.now() - b.at) / 1000;
  if (b.remaining == null) {                      // no time limit: count up
    c.textContent = fmt(b.elapsed + elapsed);
    caption.textContent = "turn time (no limit)";
    return;
  }
  const left = b.remaining - elapsed;
  // a time-out that falls due before the camera has read the table waits for it (a start, a restart)
  caption.textContent = left <= 0 && b.reading ? "time is up: judged once the camera has read the table" :
    `left of ${fmt(b.limit)}`;
  c.textContent = fmt(left);
  const warnAt = Math.max(10, Math.round(b.limit * 0.25));
  if (left <= 5) c.classList.add("danger");
  else if (left <= warnAt) c.classList.add("warn");
  const whole = Math.ceil(left);
  if (left > 0 && whole <= 5 && whole !== lastBeep) { lastBeep = whole; beep(whole <= 1 ? 1320 : 880); }
  if (left <= 0 && lastBeep !== 0) { lastBeep = 0; beep(440, 600); }
}

// ---------- render ----------
// A state can arrive late (an event stream message sent before a button's reply):
// one older than the page's, in the table's, the game's or the camera's count, is dropped.
function isStale(s) {
  if (!state || !s.version || !state.version || s.server !== state.server) return false;
  const [table, game, camera = 0] = s.version.split(".").map(Number);
  const [shownTable, shownGame, shownCamera = 0] = state.version.split(".").map(Number);
  return table < shownTable || game < shownGame || camera < shownCamera;
}

function render(s) {
  if (isStale(s)) return;
  state = s;
  const g = s.game || {};
  $("no-game").hidden = g.status && g.status !== "none";
  const finished = g.status === "finished";
  const scored = s.scores ? s.scores.hands.length : 0;
  $("who-label").textContent = finished ? "Game over" : "Now playing";
  $("current-player").textContent = !finished ? g.current || "—" :
    g.winner ? `${g.winner} wins` : scored ? "A tie" : "No winner";
  // a long name (up to 40 characters) takes the clock's row on a tablet: the name goes above the clock
  document.querySelector(".turnbar").classList.toggle("long-name", $("current-player").textContent.length > 16);
  // where the game stands in its agreed length: "round 2 of 4 · hand 1 of 2", "hand 5 · first to 200"
  const length = g.length ? g.length.words : `hand ${g.hand}`;
  $("turn-info").textContent = g.status === "none" || !g.status ? "" : finished ?
    `${g.game_name} · finished after ${scored} hand${scored === 1 ? "" : "s"}` + (length ? ` · ${length}` : "") :
    `${g.game_name} · ${length} · turn ${g.turn.number}` +
    (g.turn.phase !== "play" ? ` · ${g.turn.phase_words}` : "") + (g.trump ? ` · trump ${g.trump}` : "") +
    (g.pending ? ` · next hand: ${g.pending}` : "") + (g.rules_changed ? ` · this hand: ${g.rules}` : "");  // only when not as the last hand
  $("storage-banner").hidden = !g.storage_error;
  $("storage-banner").textContent = g.storage_error || "";
  renderDemo(s.demo);

  clockBase = { ...s.clock, at: performance.now(), dealing: g.status === "dealing", finished,
                reading: !!(s.camera && s.camera.ok && s.camera.read === false) };
  if (!s.clock.running || (s.clock.remaining != null && s.clock.remaining > 5)) lastBeep = null;
  drawClock();

  renderButtons(g);
  renderDealt(s);
  renderUnseen(s);

  // camera
  const cam = s.camera;
  // no camera is a way to play, not a fault: said as a notice in players' words, with what the game does
  // instead; the source's own reason (a path, a file type) folds away under "details"
  const notice = cam.notice;  // while the camera works, only a picture it skipped (named)
  $("camera-banner").hidden = !notice;
  $("camera-text").textContent = notice ? notice.text : "";
  $("camera-details").hidden = !(notice && notice.details);
  $("camera-why").textContent = notice && notice.details ? notice.details : "";
  // just after a start the camera has not read the table yet: it is unknown, not empty, and nothing is judged
  const reading = cam.ok && cam.read === false;
  $("camera-status").textContent = !cam.ok ? "no camera" : reading ? "reading the table…" :
    !cam.stable ? "hands over the table…" : `steady · ${rate(cam.fps)}`;
  $("camera-status").className = "pill " + (cam.ok && cam.stable && !reading ? "ok" : "warn");
  // once the camera is out its last picture may stay, dimmed and said to be the last, with its time
  const last = !cam.ok && cam.has_picture;
  // the picture draws the racks laid out for a count as racks: its address changes with the count too, or
  // a phone keeps the count's picture after the hand is scored while the table stays as it was
  const drawn = `${cam.version}.${cam.read ? 1 : 0}${g.status === "tally" ? ".count" : ""}`;
  if (cam.has_picture) $("camera").src = `/api/camera.jpg?v=${encodeURIComponent(drawn)}`;
  $("camera").hidden = !cam.has_picture;
  $("camera").classList.toggle("stale", last);
  $("camera").alt = last ? "the camera's last picture" : "annotated camera view";
  $("picture-note").hidden = !last;
  $("picture-note").textContent = last ? `The last picture from the camera${clockTime(cam.picture_at)}: ` +
    "no camera sees the table now." : "";
  $("no-picture").hidden = cam.has_picture;
  $("no-picture").textContent = cam.ok ? "No picture from the camera yet." : "No camera picture.";

  // sets
  const empty = reading ? "The camera has not read the table yet: nothing on it is judged until it has." :
    cam.ok ? "No tiles on the table yet." : "No camera sees the table: its tiles are not shown here.";
  $("sets").replaceChildren(...(s.sets.length ? s.sets.map(setEl) : [el("p", { class: "muted", text: empty })]));
  const count = (st) => s.sets.filter((x) => setStatus(x) === st).length;
  const bad = count("invalid"), unsure = count("unsure"), onTable = s.sets.length - count("rack");
  $("table-status").textContent = !onTable ? "" :
    [bad && `${bad} invalid`, unsure && `${unsure} unsure`].filter(Boolean).join(" · ") || "all valid";
  $("table-status").className = "pill " + (bad ? "bad" : unsure ? "warn" : "ok");
  $("table-status").hidden = !onTable;
  const warnings = s.warnings || [];
  $("colour-banner").hidden = !warnings.length;
  $("colour-banner").textContent = warnings.length ? `⚠ ${warnings.join("; ")}` : "";

  renderVerdict(s);
  renderRestore(g);
  renderTally(g);
  renderFinished(s);
  renderPlayers(s);
  renderHint(s);
}

// how often the camera's pictures are processed, in words: "0 fps" would read as broken, and a camera
// still counted as working that has sent nothing for 2 s is just that
function rate(fps) {
  return fps >= 1 ? `${fps} fps` : fps > 0 ? "under 1 picture a second" : "no new picture lately";
}

// ", taken at 20:31:05" from a time.time() value (nothing when unknown)
function clockTime(at) {
  return at ? `, taken at ${new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })}` : "";
}

// which buttons work now (and none while a press is being answered).  While the next hand waits
// for its start no turn press works (the server refuses them: the table is still the scored
// hand's); only Start hand, Take back this hand and the links.
function renderButtons(g) {
  const dealing = g.status === "dealing";
  const playing = g.status === "playing";
  const drawPhase = playing && g.turn.phase === "draw";
  $("draw-controls").hidden = !drawPhase;
  $("discard-field").hidden = !(playing && g.turn.phase === "meld");
  const restoring = !!g.restore;
  // a draw that is all the turn has done can be taken back (the wrong draw button pressed)
  const drew = playing && g.turn.phase === "meld" ? g.turn.drew : null;
  $("drawn-controls").hidden = !drew;
  $("drawn-text").textContent = drew ? drawnWords(drew) : "";
  $("undo-draw").disabled = busy || !drew || restoring || g.turn.time_up;  // time is up: the draw stands
  // at the draw an empty pool ends the hand (the server asks when its count says tiles are left)
  for (const id of ["end-turn", "pass", "rummikub", "pool-empty"])
    $(id).disabled = busy || !playing || restoring || (drawPhase && id !== "rummikub" && id !== "pool-empty");
  document.querySelectorAll("#draw-controls button").forEach((b) => { b.disabled = busy || !drawPhase; });
  // only the draws the rules allow now: the previous discard (American: once the initial meld is laid), the trump
  // while it lies up (International: not to a player who melded earlier)
  $("draw-discard").hidden = !(drawPhase && g.turn.discard_open);
  $("draw-trump").hidden = !(drawPhase && g.turn.trump_open);
  document.querySelectorAll("#unseen button").forEach((b) => { b.disabled = busy; });
  $("dealing").hidden = !dealing;
  $("start-hand").disabled = busy || !dealing;
  $("hand-trump-field").hidden = !(dealing && g.has_trump);  // each American or International hand turns its own
  // a trump forgotten at Start hand (or mistyped) is said in play, while it lies face up
  const trumpOpen = playing && g.has_trump && g.trump_up;
  $("trump-control").hidden = !trumpOpen;
  if (trumpOpen) {
    $("trump-label").textContent = g.trump ? `Trump ${g.trump} (mistyped? correct it):` : "Trump tile not entered:";
    $("set-trump").textContent = g.trump ? "Correct trump" : "Set trump";
  }
  $("set-trump").disabled = busy || !trumpOpen;
  if (!dealing) closeOwn("dealing-error");
  if (dealing) {
    $("dealing-title").textContent = `Hand ${g.hand} is dealt`;
    $("dealing-who").textContent = g.current || "";
  }
}

// While the next hand waits for its start: tiles the camera still sees on the table are the last hand's, and
// a hand starts from an empty table (Start hand asks before it takes them as lying there)
function renderDealt(s) {
  const g = s.game || {};
  const cam = s.camera || {};
  const n = g.status === "dealing" && cam.ok && cam.read ?
    s.sets.filter((x) => x.group === "table").reduce((sum, x) => sum + x.tiles.length, 0) : 0;
  $("dealing-table").hidden = !n;
  $("dealing-table").textContent = n ? `Clear the table first: the camera still sees ${n} tile${n === 1 ? "" : "s"} ` +
    "on it, and a hand starts from an empty table." : "";
}

function drawnWords(drew) {
  const tile = drew.tile ? ` ${drew.tile}` : "";
  return { pool: "Drew from the pool", discard: `Took the discard${tile}`, trump: `Took the trump${tile}` }[drew.source];
}

// With no camera the table never changes, so End turn cannot see what a turn placed: it asks.  Sabra:
// drew a tile, or placed how many (which ones too, when the rack is typed, so they leave it); American
// and International (after the draw): only discarded, or placed how many, with the discard typed as ever.
// So it does after turns no camera saw, until the camera is back and has found the table.
function unseenTurn(s) { const g = s.game || {}; return g.status === "playing" && !!g.turn.unseen; }
function noCamera(s) { return !!(s.camera && !s.camera.ok) || unseenTurn(s); }

function renderUnseen(s) {
  const g = s.game || {};
  if (g.status === "playing" && g.turn.time_up && noCamera(s) && timeUpAsked !== g.turn.id) {
    timeUpAsked = g.turn.id;  // the clock ran out on a turn nobody saw: it asks by itself, once
    openUnseen(g, false);  // without taking the focus from whatever is being typed
  }
  const open = unseenFor !== null && g.status === "playing" && !g.restore && noCamera(s) &&
    g.turn.phase !== "draw" && g.turn.id === unseenFor;
  if (!open) unseenFor = null;
  $("unseen").hidden = !open;
  if (!open) return;
  const me = g.players.find((p) => p.current) || { rack_count: 14 };
  const meld = g.turn.phase === "meld";  // the turn ends with a discard
  $("unseen-who").textContent = g.current;
  $("unseen-why").textContent = (g.turn.time_up ? "Time is up. " : "") +
    (s.camera.ok ? "The camera is back but has not taken the table yet:" : "No camera sees the table:");
  $("unseen-drew").textContent = meld ? "Only discarded" : "Drew a tile";
  $("unseen-tiles-field").hidden = !me.rack_typed;
  // the most a turn can place without emptying the rack (that is Rummikub!)
  $("unseen-count").max = String(Math.max(1, me.rack_count - (meld ? 2 : 1)));
}

function openUnseen(g, focus = true) {
  if (unseenFor === g.turn.id) return;  // already asking (a second press of the space bar)
  unseenFor = g.turn.id;
  $("unseen-count").value = "1";
  $("unseen-tiles").value = "";
  renderUnseen(state);
  $("unseen").scrollIntoView({ block: "nearest" });
  // asked by a press: a screen reader reads the question, the keyboard goes on from it (no phone
  // keyboard opens: the question itself takes the focus, not its count box)
  if (focus) $("unseen").focus({ preventScroll: true });
}

function closeUnseen() {
  unseenFor = null;
  renderUnseen(state);
}

function stepCount(by) {
  const input = $("unseen-count");
  const n = (parseInt(input.value, 10) || 0) + by;
  input.value = String(Math.max(1, Math.min(n, Number(input.max) || n)));
}

function groupEl(g) {
  const li = el("li", {}, el("strong", { text: g.kind }));
  if (g.items.length) li.append(": " + g.items.join(" · "));
  return li;
}

// The big word is about the turn now being played: a refused "End turn" (followed live
// while the player repairs it) or, smaller, the table so far.  A new turn starts clean.
function renderDemo(demo) {
  $("demo-banner").hidden = !demo;
  if (!demo) return;
  $("demo-players").textContent = demo.players.join(" and ");
  const last = demo.last;
  $("demo-last").textContent = !last ? "" :
    "Last: " + [last.player, last.action].filter(Boolean).join(" ") + (last.result ? ` (${last.result})` : "") + ".";
}

function renderVerdict(s) {
  const g = s.game || {};
  const attempt = g.turn && g.turn.attempt;
  const preview = s.preview;
  const v = attempt ? (preview || attempt) : (preview && preview.changed ? preview : null);
  const box = $("verdict");
  box.hidden = !v || g.status !== "playing" || !!g.restore;  // while the table is put back, no turn is judged
  const last = g.last;
  // the scored hand's result and "Take back this hand" stay until the next hand starts, whatever lies on
  // the table meanwhile; in play, the line gives way to the turn's own verdict
  const showLast = !!last && (g.status === "dealing" ||
    (!(preview && preview.changed) && !attempt && g.status === "playing"));
  $("last-turn").hidden = !showLast;
  $("undo-hand").hidden = !(showLast && g.can_undo_hand);
  // a turn recorded on the players' word, while nothing has happened since (game.undo_turn, else null)
  $("undo-turn").hidden = !(showLast && g.status === "playing" && g.undo_turn);
  if (showLast) $("last-turn-text").replaceChildren(...lastWords(last));
  renderFound(s);
  if (box.hidden) return;
  box.className = "card verdict " + (v.legal ? "legal" : v.unsure ? "unsure" : "illegal") + (attempt ? "" : " preview");
  $("verdict-word").textContent = v.word || (v.legal ? "LEGAL" : "NOT LEGAL");
  let who = attempt ? `${g.current}: ` : `${g.current}, so far`;
  if (attempt && v.legal) who = `${g.current}: the table is legal now, end the turn`;
  else if (attempt && v.unsure) who += "look at the tile the camera doubts, or fix the table before time runs out";
  else if (attempt) who += "fix the table, or time runs out";
  else if (v.legal && v.placed.length) who += `: ${v.placed.join(" ")} placed`;
  $("verdict-who").textContent = who;
  $("verdict-groups").replaceChildren(...(v.legal ? [] : (v.groups || []).map(groupEl)));
  // a refusal with every set valid: no layout helps (it would be the table just refused), so say what is wrong
  const fine = attempt && !v.legal ? v.sets_fine : null;
  $("sets-fine").hidden = !fine;
  $("sets-fine").textContent = fine || "";
  const sug = fine ? null : s.suggestion;
  $("suggestion").hidden = !sug;
  if (sug) $("suggestion-sets").replaceChildren(...sug.map(setEl));
}

// After turns no camera saw, the camera's return: the table it finds is where the turn on started.
// Tiles the player laid before it came back cannot be told from the others: the page says so.  A table
// that disagrees with the game's record (more tiles than said, the discards in view) is asked about.
function renderFound(s) {
  const g = s.game || {};
  const t = g.status === "playing" ? g.turn : null;
  const waiting = !!(t && t.unseen && s.camera.ok);
  const found = t ? t.found : null;
  const ask = waiting ? s.found_check : null;
  $("table-found").hidden = !(waiting || found);
  $("take-found").hidden = !ask;
  $("take-found").disabled = busy || !ask;
  let words = "";
  if (ask) {
    words = ask.question;
  } else if (waiting) {
    words = "The camera is back. Turns before this one were played with no camera, so " +
      `once the table holds still, the table it sees is taken as where ${g.current}'s turn started.`;
  } else if (found) {
    const n = found.length;
    const tiles = n ? ` (${n} tile${n === 1 ? "" : "s"} placed while no camera saw: ${found.join(" ")})` : "";
    words = `The camera is back: the table it found is taken as where ${g.current}'s ` +
      `turn started${tiles}. Tiles ${g.current} placed before it came back cannot be told apart from those: ` +
      "they count as on the table already, not as this turn's.";
  }
  $("table-found-text").textContent = words;
}

// the previous turn in a line (text and, for the discard, its tile): "Last turn, Bo: discarded R7"
function lastWords(last) {
  if (last.action === "score") return [last.note];
  const v = last.verdict || {};
  const placed = v.placed && v.placed.length ? `placed ${v.placed.join(" ")}` : "";
  const what = last.note || placed;
  const head = `Last turn, ${last.player}: `;
  if (last.discard) {
    const tile = tileEl(last.discard);
    tile.setAttribute("aria-label", last.discard);
    return [head + (what ? `${what}, ` : "") + "discarded", tile];
  }
  return [head + (what || (last.action === "discard" ? "discarded" : "ended the turn"))];
}

function renderRestore(g) {
  const r = g.restore;
  $("restore").hidden = !r;
  if (!r) return;
  const empty = !r.sets.length;
  // the tiles played go back to the rack; a turn that played none (it only moved table tiles) just draws
  const back = r.placed && r.placed.length === 0 ? `draws ${r.penalty}` : `takes back the tiles played and draws ${r.penalty}`;
  $("restore-text").textContent =
    (r.table_legal
      ? `${r.player} ran out of time holding the trump, which may be taken only to win at once: it goes back ` +
        `face up, and ${r.player} ${back}. `
      : `${r.player} ran out of time with the table not legal: ${r.player} ${back}. `) +
    (empty ? "The table was empty when the turn began: every tile on it goes back to the racks."
           : "Lay the table out as it was:");
  const img = $("snapshot-img");
  img.hidden = !r.has_picture;
  if (r.has_picture) img.src = `/api/snapshot.jpg?hand=${g.hand}&turn=${g.turn.number}`;
  $("restore-sets").replaceChildren(...r.sets.map(setEl));
}

// The rack inputs are built once per tally and then only refreshed, so a
// state arriving while a player types neither steals the focus nor the text.
let tallyKey = null;

function renderTally(g) {
  const t = g.tally;
  $("tally").hidden = !t;
  // a finished game has no turns; a hand waiting for its deal has none yet (only Start hand)
  $("controls").hidden = !!t || g.status === "finished" || g.status === "dealing";
  if (!t) {
    const lost = overtaken(g);
    dropDrafts();
    tallyKey = counted = null;
    closeOwn("tally-error");
    if (lost) tellLost(lost);
    return;
  }
  // with no camera, Read could only answer "no tiles in view" (late, over the line of a box being typed in)
  const camera = !!(state.camera && state.camera.ok);
  $("tally-how-camera").hidden = !camera;
  $("tally-how-typed").hidden = camera;
  document.querySelectorAll("#tally-rows [data-action=read-rack]").forEach((b) => { b.hidden = !camera; });
  $("tally-intl").hidden = !(g.game === "international" && t.winner);
  const finalDiscard = t.discard ? ` (final discard ${t.discard})` : "";
  $("tally-title").textContent = t.pool_empty ? "The pool is empty: counting the racks" : `Rummikub! ${t.winner} went out${finalDiscard}: counting the racks`;
  $("tally-empty-rule").textContent = t.pool_empty ? "Nobody went out: every rack holds tiles." : "Only the player who went out has an empty rack.";
  const key = JSON.stringify([g.id, g.hand, t.winner, t.pool_empty, g.players.map((p) => p.name)]);
  if (key === tallyKey) {
    // what another phone entered shows here too, except in the box being typed in (or not saved yet)
    document.querySelectorAll("#tally-rows textarea").forEach((input) => {
      const name = input.dataset.player;
      const box = meldedBox(name);
      const melded = box && !meldedSaving[name] && box.checked !== meldedOf(g, name);
      if (melded) box.checked = !box.checked;
      if (!(name in tallyDraft) && document.activeElement !== input && input.value !== (t.racks[name] ?? "")) {
        input.value = t.racks[name] ?? "";
        points(input);
      } else if (melded) points(input);
      // saved here, then changed on another phone while this box keeps the focus: said under it, so that
      // leaving the box does not swap the rack without a word
      const elsewhere = !(name in tallyDraft) && document.activeElement === input &&
        !sameTiles(input.value, t.racks[name] ?? "");
      changedElsewhere(name, elsewhere ? (t.racks[name] || "cleared") : null);
    });
    if (syncWin(t)) { $("tally-error").hidden = true; winChanged(); }  // a refusal of the win changed is stale
    else if (winKey(t) !== previewed) closedPreview();  // a meld corrected, a rack with the trump's twin
    winnerLine(g);
    showDoubts(t);
    typingElsewhere(t);
    return;
  }
  if (tallyKey !== null) {  // another tally: what was typed was for the last one
    const lost = overtaken(g);
    dropDrafts();
    if (lost) tellLost(lost);
  }
  tallyKey = key;
  counted = { id: g.id, hand: g.hand };
  syncWin(t);
  closedPreview();
  const toggles = meldMatters(g);
  const rows = g.players.map((p, i) => {
    const winner = t.winner === p.name;
    if (winner) return el("div", { class: "tally-row winner" }, el("strong", { text: p.name }),
      el("span", { class: "points", "data-winner": p.name, text: winnerWords(g, p.name) }));
    const value = tallyDraft[p.name] ?? t.racks[p.name] ?? "";
    // a screen reader hears the rack's points, or what is wrong with it, and the camera's doubt with the box
    const input = el("textarea", { rows: "2", placeholder: "tiles left, e.g. R5 K13 J",
      "data-player": p.name, autocapitalize: "characters", "aria-label": `rack of ${p.name}`,
      "aria-describedby": `rack-points-${i} rack-doubt-${i}` });
    input.value = value;
    const total = el("span", { class: "points", "data-points": p.name, id: `rack-points-${i}` });
    input.addEventListener("input", () => {
      tallyDraft[p.name] = input.value;
      points(input);
      typingHere(p.name);
      clearTimeout(saveTimers[p.name]);
      saveTimers[p.name] = setTimeout(() => saveRack(input, true), SAVE_MS);
    });
    input.addEventListener("blur", () => { clearTimeout(saveTimers[p.name]); saveRack(input); });
    input.addEventListener("keydown", (e) => {  // Enter: done typing this rack (Shift+Enter: a new line)
      if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); input.blur(); }
    });
    const read = el("button", { class: "btn", "data-action": "read-rack", "data-player": p.name, text: "Read" });
    read.hidden = !camera;
    const meta = el("div", { class: "tally-meta" }, total,
      el("span", { class: "unsaved", "data-unsaved": p.name, role: "status", hidden: "" }),
      el("span", { class: "typing", "data-typing": p.name, role: "status", hidden: "",
                   text: "being typed on another phone…" }));
    if (toggles) {  // Israeli and International: a player who never melded is scored apart; the camera may have missed a meld
      const box = el("input", { type: "checkbox", "data-melded": p.name, "aria-label": `${p.name} has melded` });
      box.checked = meldedOf(g, p.name);
      box.addEventListener("change", () => saveMelded(box, input));
      meta.append(el("label", { class: "check melded" }, box, "has melded"));
    }
    const doubt = el("p", { class: "doubt", "data-doubt": p.name, role: "status", hidden: "", id: `rack-doubt-${i}` });
    const row = el("div", { class: "tally-row" }, el("strong", { text: p.name }), input, meta, read, doubt);
    setTimeout(() => points(input), 0);
    return row;
  });
  $("tally-rows").replaceChildren(...rows);
  winnerLine(g);
  showDoubts(t);
  typingElsewhere(t);
}

// a rack the camera read that the count questions (rules.game_reads: too few or too many tiles, a copy
// more than the box holds): the question under it, on every phone, until it is read again or typed
function showDoubts(t) {
  document.querySelectorAll("#tally-rows [data-doubt]").forEach((line) => {
    const q = (t.doubts || {})[line.dataset.doubt];
    line.hidden = !q;
    line.textContent = q ? `Camera reading in doubt: ${q}.` : "";
  });
}

// Israeli and International scoring count a player who never made the first meld apart (+100 / -100)
function meldMatters(g) {
  const scoring = g.scoring || (state.options && state.options.scoring);
  return scoring === "israeli" || scoring === "international";
}

// has this player melded, as the tally counts it (the toggle, else what the game knows)
function meldedNow(p) {
  const box = meldedBox(p.name);
  return box ? box.checked : p.has_melded;
}

function meldedBox(name) {
  return document.querySelector(`#tally-rows input[data-melded="${CSS.escape(name)}"]`);
}

// the server's word: the players' correction, else what the game knows
function meldedOf(g, name) {
  const corrected = g.tally && g.tally.melded ? g.tally.melded[name] : null;
  if (corrected != null) return corrected;
  const p = (g.players || []).find((x) => x.name === name);
  return !!(p && p.has_melded);
}

function tallyTurn() {
  const g = state.game || {};
  return g.turn ? { turn: g.turn.id } : {};
}

// a rack typed here is saved in the count, so every phone shows it and any can confirm; refused
// (not a tile, more than the box holds), it stays here as typed and the tally's line says why
// `quiet`: the save on its own a moment after the typing stops; refused (a half-typed code, more tiles
// than the count says), it stays here as typed and leaving the box says why (or asks)
async function saveRack(input, quiet = false) {
  const name = input.dataset.player;
  const key = `rack:${name}`;
  const t = (state.game || {}).tally;
  if (!(name in tallyDraft)) {  // saved while typing: once the box is left it shows the rack as the count has it
    if (!quiet && t && document.activeElement !== input && input.value !== (t.racks[name] ?? "")) {
      input.value = t.racks[name] ?? "";
      points(input);
    }
    if (!quiet) changedElsewhere(name, null);  // the box shows the rack as saved now
    return;
  }
  const text = tallyDraft[name];
  if (t && text.trim() === (t.racks[name] ?? "")) {
    delete tallyDraft[name];
    unsaved(key, null);
    notTyping(name);
    return;
  }
  if (!quiet) $("tally-error").hidden = true;
  const turn = tallyTurn();
  const job = told.then(() => post("/api/tally/rack", { player: name, rack: text, ...turn }, null, quiet));
  tallySaves.add(job);
  try {
    const r = await job;
    if (r) delete markedAt[name];  // the save ended the count's mark
    if (tallyDraft[name] !== text) {  // typed on meanwhile: the next save sends that, and the count is told
      if (r) typingHere(name);
      return;
    }
    if (!r) {
      if (!quiet || document.body.classList.contains("offline")) unsaved(key, () => saveRack(input));
      return;
    }
    delete tallyDraft[name];
    unsaved(key, null);
    if (document.activeElement !== input) { input.value = r.rack ?? ""; points(input); }
  } finally { tallySaves.delete(job); }
}

// the count is told this rack is being typed here (at the first key, then now and then), and that it is
// not any more when the box goes back to the rack saved; a word that does not arrive is no matter: the
// save follows, and a mark lapses by itself
function typingHere(name) {
  const t = (state.game || {}).tally;
  if (!t || (tallyDraft[name] ?? "").trim() === (t.racks[name] ?? "")) return;
  if (performance.now() - (markedAt[name] ?? -Infinity) < MARK_MS) return;
  markedAt[name] = performance.now();
  tell({ player: name });
}

function notTyping(name) {
  if (!(name in markedAt)) return;
  delete markedAt[name];
  tell({ player: name, typing: false });
}

// the last word sent: a save waits for it, so that a mark that arrives late cannot outlive the save
let told = Promise.resolve();

function tell(payload) {
  told = fetch("/api/tally/typing", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...payload, phone: PHONE, ...tallyTurn() }),
  }).catch(() => {});
}

// a rack another phone is typing and has not saved yet (the count's marks, each with the seconds it has
// left): said under it until it is saved or the mark lapses
function typingElsewhere(t) {
  const now = performance.now();
  typingUntil = Object.fromEntries(Object.entries(t.typing || {}).map(([n, left]) => [n, now + left * 1000]));
  showTyping();
  // a Confirm refused while racks were being typed elsewhere: once they are saved (their marks end), the
  // refusal ("wait a moment for it") no longer holds and goes
  if (waitingFor && !waitingFor.names.some((n) => n in (t.typing || {}))) {
    if ($("tally-error").textContent === waitingFor.message) $("tally-error").hidden = true;
    waitingFor = null;
  }
}

// the racks a refused Confirm waits for (RackTyping's `waiting_for`), with the refusal said: null when none
let waitingFor = null;

function showTyping() {
  clearTimeout(typingTimer);
  const now = performance.now();
  let next = Infinity;
  document.querySelectorAll("#tally-rows [data-typing]").forEach((line) => {
    const name = line.dataset.typing;
    const until = typingUntil[name] ?? 0;
    const elsewhere = until > now && !(name in markedAt);  // not this phone's own mark
    line.hidden = !elsewhere;
    if (elsewhere) next = Math.min(next, until);
  });
  if (next < Infinity) typingTimer = setTimeout(showTyping, next - now + 50);
}

// Confirmed (or left) on another phone while a rack typed here was not saved yet: said, with what the
// score used, never lost without a word; null when nothing typed here was lost
function overtaken(g) {
  if (!counted || counted.id !== g.id) return null;
  const typed = Object.entries(tallyDraft).filter(([, text]) => text.trim());
  const hand = (handDraft || "").trim();
  if (!typed.length && !hand) return null;
  const n = counted.hand;
  const was = (what) => `${andList(what)} ${what.length === 1 ? "was" : "were"} saved`;
  const scored = ((state.scores || {}).hands || []).find((h) => h.number === n);
  if (!scored) {  // Back to the game: the count is thrown away
    if (g.status !== "playing" || g.hand !== n) return null;
    const what = typed.map(([name, text]) => `your rack for ${name} (${text.trim()})`)
      .concat(hand ? [`your closed hand (${hand})`] : []);
    return `The count of hand ${n} was left on another phone (Back to the game) before ${was(what)}: ` +
      "what was typed here is not kept.";
  }
  const lost = typed.filter(([name, text]) => !sameTiles(text, scored.racks[name]));
  const details = scored.details || {};
  const handLost = !!hand && !sameTiles(hand, details.hand);
  if (!lost.length && !handLost) return null;
  const what = lost.map(([name]) => `your rack for ${name}`).concat(handLost ? ["your closed hand"] : []);
  const used = lost.map(([name, text]) => `${scored.racks[name] || "no tiles"} for ${name} (typed here: ${text.trim()})`)
    .concat(handLost ? [`${details.hand ? `the closed hand ${details.hand}` : `an ${details.win || "open"} win`} ` +
      `(typed here: ${hand})`] : []);
  const back = g.can_undo_hand ? ` If it is wrong, press ${g.status === "finished" ? "Take back the last hand" :
    "Take back this hand"} and correct it.` : "";
  return `Hand ${n} was confirmed on another phone before ${was(what)}; the score used ${andList(used)}.${back}`;
}

// the same tiles, in any order and case (the count's text is its codes, space-separated)
function sameTiles(typed, codes) {
  const norm = (text) => (text || "").toUpperCase().split(/[\s,|]+/).filter(Boolean).sort().join(" ");
  return norm(typed) === norm(codes);
}

// the line under a rack box that says another phone changed the rack saved from here (null: says nothing)
function changedElsewhere(name, rack) {
  const mark = document.querySelector(`#tally-rows [data-unsaved="${CSS.escape(name)}"]`);
  if (!mark || (rack === null && !mark.dataset.elsewhere)) return;
  mark.hidden = rack === null;
  mark.textContent = rack === null ? "" : `changed on another phone to ${rack}: leave the box to see it`;
  if (rack === null) delete mark.dataset.elsewhere; else mark.dataset.elsewhere = "1";
}

// said where the players look, until dismissed; held while this page's own Confirm or Back to the game is
// answered (what was typed went with it, or was asked about: said only if it was refused)
function tellLost(words) {
  if (closing) heldNotice = words;
  else refuse(words, true);
}

// this page's own press that closes the count: a count closed meanwhile on another phone is said after it
async function closeCount(url, payload) {
  closing = true;
  heldNotice = null;
  let r;
  try { r = await post(url, payload); } finally { closing = false; }
  if (!r && heldNotice) refuse(heldNotice, true);  // another phone closed it first
  heldNotice = null;
  return r;
}

// what is typed here and not saved says so on its line: refused (the tally's line says why), or the
// server down, when it is sent again once the server answers.  `again` null: saved (or no longer typed)
const UNSAVED = {
  down: "not saved: the companion is not answering; sent again when it answers",
  refused: "not saved: refused as typed",
};

function unsaved(key, again) {
  const mark = key === "hand" ? $("closed-hand-unsaved")
    : document.querySelector(`#tally-rows [data-unsaved="${CSS.escape(key.slice(5))}"]`);
  const down = !!again && document.body.classList.contains("offline");
  if (down) unsent.set(key, again); else unsent.delete(key);
  if (!mark) return;
  delete mark.dataset.elsewhere;
  mark.hidden = !again;
  mark.textContent = again ? UNSAVED[down ? "down" : "refused"] : "";
}

function dropDrafts() {
  tallyDraft = {};
  handDraft = null;
  unsent.clear();
  unsaved("hand", null);
  for (const name of Object.keys(saveTimers)) { clearTimeout(saveTimers[name]); delete saveTimers[name]; }
  clearTimeout(handTimer);
  for (const name of Object.keys(markedAt)) delete markedAt[name];  // the marks end with the count
}

async function saveMelded(box, input) {
  const name = box.dataset.melded;
  points(input);
  winnerLine(state.game || {});
  const job = post("/api/tally/rack", { player: name, melded: box.checked, ...tallyTurn() });
  tallySaves.add(job);
  meldedSaving[name] = (meldedSaving[name] || 0) + 1;
  try {
    const r = await job;
    if (!--meldedSaving[name] && (!r || box.checked !== meldedOf(state.game || {}, name))) {
      box.checked = meldedOf(state.game || {}, name);  // refused: back to what the count holds
      points(input);
      winnerLine(state.game || {});
    }
  } finally { tallySaves.delete(job); }
}

// International: the win entered on any phone shows here too, except in the closed hand's box while it
// is typed in (or not saved yet) and a choice on its way; true when something changed
function syncWin(t) {
  let changed = false;
  const win = t.win || "open";
  if (!winSaving.win && $("win").value !== win) { $("win").value = win; changed = true; }
  const joker = !!t.joker_discard;  // a joker recorded as the final discard, unless the players said otherwise
  if (!winSaving.joker && $("joker-discard").checked !== joker) { $("joker-discard").checked = joker; changed = true; }
  const box = $("closed-hand");
  if (handDraft === null && document.activeElement !== box && box.value !== (t.hand ?? "")) {
    box.value = t.hand ?? "";
    changed = true;
  }
  // the winner had melded before going out (no Foot or Closed win then); the hand dealt (Grand Blitz), asked
  // only where the game cannot know it
  if (!winSaving.melded && $("winner-melded").checked !== !!t.winner_melded) { $("winner-melded").checked = !!t.winner_melded; changed = true; }
  $("original-hand-field").hidden = !t.ask_original_hand;
  if (!winSaving.dealt && $("original-hand").checked !== !!t.original_hand) { $("original-hand").checked = !!t.original_hand; changed = true; }
  return changed;
}

// the win, the closed hand and the joker discard change what the hand scores: preview it again
function winChanged() {
  document.querySelectorAll("#tally-rows textarea").forEach(points);
  closedPreview();
  winnerLine(state.game || {});
}

// the win or the joker discard chosen here is saved in the count at once; refused, back to what it holds
async function saveWin(kind, payload) {
  $("tally-error").hidden = true;
  const job = post("/api/tally/rack", { ...payload, ...tallyTurn() });
  tallySaves.add(job);
  winSaving[kind] += 1;
  try {
    const r = await job;
    const t = (state.game || {}).tally;
    if (!--winSaving[kind] && !r && t && syncWin(t)) winChanged();
  } finally { tallySaves.delete(job); }
}

// the closed hand is saved as a rack is, when its box is left; refused (not 14 tiles, no hand type), it
// stays here as typed and the tally's line says why
// `quiet`: as for a rack, the save on its own a moment after the typing stops
async function saveHand(quiet = false) {
  const t = (state.game || {}).tally;
  if (handDraft === null) {  // nothing typed: the box shows what another phone entered meanwhile
    if (t && syncWin(t)) winChanged();
    return;
  }
  const text = handDraft;
  if (t && text.trim() === (t.hand ?? "")) { handDraft = null; unsaved("hand", null); return; }
  if (!quiet) $("tally-error").hidden = true;
  const job = post("/api/tally/rack", { hand: text, ...tallyTurn() }, null, quiet);
  tallySaves.add(job);
  try {
    const r = await job;
    if (handDraft !== text) return;  // typed on meanwhile: the next save sends that
    if (!r) {
      if (!quiet || document.body.classList.contains("offline")) unsaved("hand", () => saveHand());
      return;
    }
    handDraft = null;
    unsaved("hand", null);
    const box = $("closed-hand");
    if (document.activeElement !== box && box.value !== (r.hand ?? "")) { box.value = r.hand ?? ""; winChanged(); }
  } finally { tallySaves.delete(job); }
}

function winnerLine(g) {
  const t = g.tally;
  if (!t || !t.winner) return;
  const out = document.querySelector(`[data-winner="${CSS.escape(t.winner)}"]`);
  if (out) out.textContent = winnerWords(g, t.winner);
}

// what the player who went out scores, by the game's scoring (never "0 points": that is only the rack)
function winnerWords(g, name) {
  const scoring = g.scoring || (state.options && state.options.scoring);
  const othersMelded = g.players.some((p) => p.name !== name && meldedNow(p));
  if (scoring === "israeli")
    return othersMelded ? "went out: scores -100 (minus scoring: low is good)"
                        : "went out: scores -200, nobody else has melded (minus scoring: low is good)";
  if (scoring === "international") return closedWords || `went out ${$("win").value}: …`;  // the server's line, below
  return "went out: empty rack, scores the points left on the others' racks";
}

function signed(n) { return n > 0 ? `+${n}` : String(n); }

// International, any win: its points and what the winner scores (doubled, the trump's twin), or why it
// cannot be scored, in the server's words before Confirm (kept here, so a state arriving meanwhile redraws
// the line with it)
let closedWords = null;
let closedAsk = 0;
let previewed = null;  // the count's win and melds the line was asked for
function winKey(t) {
  return JSON.stringify([t.win, t.hand, t.joker_discard, t.winner_melded, t.original_hand, t.melded, t.trump_holders]);
}
function closedPreview() {
  const ask = ++closedAsk;
  closedWords = null;
  setTimeout(async () => {
    const g = state.game || {};
    const t = g.tally;
    if (ask !== closedAsk || !t || !t.winner || g.game !== "international") return;
    previewed = winKey(t);
    const win = $("win").value;
    const q = new URLSearchParams({ rack: "", win, joker_discard: $("joker-discard").checked ? "true" : "false" });
    if (win === "closed") q.set("hand", $("closed-hand").value.trim());
    try {
      const r = await fetch(`/api/tally/points?${q}`);
      const d = await r.json();
      if (ask !== closedAsk || !r.ok || !d.winner) return;
      closedWords = d.winner.words;
      winnerLine(state.game || {});
    } catch (err) { offline(true); }
  }, 150);
}

// points preview: the server scores the typed rack with the game's rules
const pointTimers = {};
function points(input) {
  const name = input.dataset.player;
  const out = document.querySelector(`[data-points="${CSS.escape(name)}"]`);
  if (!out) return;
  clearTimeout(pointTimers[name]);
  pointTimers[name] = setTimeout(async () => {
    const text = input.value.trim();
    if (!text) {
      out.textContent = "not given yet"; out.className = "points missing"; input.removeAttribute("aria-invalid");
      return;
    }
    const q = new URLSearchParams({ rack: text, player: name });
    const box = document.querySelector(`#tally-rows input[data-melded="${CSS.escape(name)}"]`);
    if (box) q.set("melded", box.checked ? "true" : "false");
    const g = state.game || {};
    if (g.game === "international") {
      q.set("win", $("win").value);
      q.set("joker_discard", $("joker-discard").checked ? "true" : "false");
      if ($("win").value === "closed" && $("closed-hand").value.trim()) q.set("hand", $("closed-hand").value);
    }
    try {
      const r = await fetch(`/api/tally/points?${q}`);
      const d = await r.json();
      if (!r.ok) { out.textContent = d.message; out.className = "points why"; input.setAttribute("aria-invalid", "true"); return; }
      // what the rack holds, and the score the sheet will get for it
      let text = `${d.tiles} tile${d.tiles === 1 ? "" : "s"} · ${d.points} point${d.points === 1 ? "" : "s"}`;
      if (d.score != null) text += ` → scores ${signed(d.score)}`;
      if (d.melded === false && meldMatters(g)) text += " (not melded)";
      if (d.trump_twin) text += " (holds the trump's twin)";
      // a row forgotten, a tile left out: the count's own number beside the tiles typed (not asked: a count
      // no camera saw may be the one that is wrong)
      const held = ((state.game || {}).players || []).find((p) => p.name === name);
      if (held && d.tiles !== held.rack_count) text += ` (by the count ${name} holds ${held.rack_count})`;
      out.textContent = text;
      out.className = "points";
      input.removeAttribute("aria-invalid");
    } catch (err) { offline(true); }
  }, 150);
}

// A finished game: its final standings (best first, by the game's winning rule) instead of the turn
function renderFinished(s) {
  const done = (s.game || {}).status === "finished" && !!s.scores;
  $("finished").hidden = !done;
  if (!done) return;
  // a game that ended by itself with its agreed last hand: that hand can still be taken back
  $("finished-undo").hidden = !s.game.can_undo_hand;
  const sheet = s.scores;
  const israeli = !!sheet.final;
  $("finished-result").textContent = sheet.result;
  const head = ["#", "Player", "Hands won", "Total"].concat(israeli ? ["Primary", "Final"] : []);  // as /scores
  $("standings-head").replaceChildren(...head.map((h, i) => el("th", i ? { text: h } : { text: h, title: "place" })));
  $("standings-rows").replaceChildren(...sheet.standings.map((r) => {
    const cells = [r.place, r.player, r.games_won, signed(r.total)].concat(israeli ? [r.primary, signed(r.final)] : []);
    return el("tr", { class: r.player === sheet.winner ? "winner" : "" },
      ...cells.map((c, i) => el(i === 1 ? "th" : "td", { text: String(c) })));
  }));
}

function renderPlayers(s) {
  const g = s.game || {};
  const totals = (s.scores && s.scores.totals) || {};
  // a finished game has no hand in play (the one the game state dealt is never played): names and totals only
  const over = g.status === "finished";
  const wentOut = g.tally ? g.tally.winner : null;  // by the count the winner still holds what no camera saw laid
  $("players-table").classList.toggle("over", over);
  $("players").replaceChildren(...(g.players || []).map((p) =>
    el("tr", { class: p.current && !over ? "current" : "" },
      el("td", { text: (p.current && !over ? "▶ " : "") + p.name }),
      el("td", { text: p.name === wentOut ? "went out" : String(p.rack_count) +
        (p.penalties ? ` (${p.penalties} penalty)` : "") + (p.discard ? ` · discarded ${p.discard}` : "") }),
      el("td", { text: totals[p.name] != null ? signed(totals[p.name]) : "" }),  // as the standings write it
      // last: the column a large text size pushes out of view first is the one least looked at
      el("td", { text: p.has_melded ? "yes" : "no" }))));
  $("pool-info").textContent = g.players && g.players.length && !over
    ? `Pool: ${g.pool} tiles · play goes ${g.direction === "clockwise" ? "to the left" : "to the right"}` : "";
}

// The hint names the current player's tiles, so the state every phone gets says only whose it is and whether
// a phone holds its key: the key POST /api/rack answered is kept in this tab alone (sessionStorage: gone
// with the tab) and opens GET /api/hint, asked again whenever the state changes.
const HINT_KEY = "hint-key";
let hintAsked = null;  // the state version and key whose hint is on its way or shown (null: none)

function hintKey() {
  try { return JSON.parse(sessionStorage.getItem(HINT_KEY)); } catch (err) { return null; }
}

function keepHintKey(mine) {
  if (mine) sessionStorage.setItem(HINT_KEY, JSON.stringify(mine));
  else sessionStorage.removeItem(HINT_KEY);
}

// whose rack the hint box is being typed for, and in which turn: the label follows the turn, the typing
// must not (a rack typed for Ann and saved after her turn ended would become Ben's)
let hintTyping = null;
$("hint-rack").addEventListener("input", () => {
  const g = (state && state.game) || {};
  $("hint-note").hidden = true;
  if (!$("hint-rack").value) hintTyping = null;
  else if (!hintTyping) hintTyping = { player: g.current, turn: g.turn && g.turn.id };
});

let hintTapped = null;  // the hint switch as tapped here, while its save is on its way

function renderHint(s) {
  const g = s.game || {};
  if (hintTyping && (hintTyping.player !== g.current || hintTyping.turn !== (g.turn && g.turn.id))) {
    $("hint-rack").value = "";  // typed for a turn that is over: kept by nobody, said so
    $("hint-note").textContent = `${hintTyping.player}'s turn ended before the rack was used, so it was not kept.`;
    $("hint-note").hidden = false;
    hintTyping = null;
  }
  const on = hintTapped ?? !!(s.game && s.game.hint);
  $("hint-card").hidden = (s.game || {}).status === "finished";  // no turn left to hint at
  $("hint-toggle").checked = on;
  $("hint-body").hidden = !on;
  $("hint-off").hidden = on;
  if (on) $("hint-player").textContent = (s.game && s.game.current) || "";
  const h = on ? s.hint : null;
  const mine = hintKey();
  if (h && mine && mine.player === h.player && !h.needs_rack) {
    const ask = `${s.version} ${mine.key}`;
    if (hintAsked !== ask) askHint(mine.key, ask);  // the hint already shown stays until it answers
    return;
  }
  hintAsked = null;  // an answer still on its way is for a state gone by
  if (!on) return;
  const out = $("hint-result");
  if (!h) { out.replaceChildren(); return; }
  if (h.needs_rack) {
    if (mine && mine.player === h.player) keepHintKey(null);  // its key ended (the turn, a restart)
    out.replaceChildren(el("p", { class: "muted", text: "Type the rack to get a hint." }));
    return;
  }
  out.replaceChildren(el("p", { class: "muted", text: `${h.player}'s hint shows only on the phone that typed the rack.` }));
}

// `ask`: the state version and key asked for; an answer is shown only while it is still the last asked
async function askHint(key, ask) {
  hintAsked = ask;
  let res;
  try {
    res = await fetch("/api/hint", { headers: { "X-Hint-Key": key }, cache: "no-store" });
  } catch (err) { offline(true); hintAsked = null; return; }
  const data = await res.json().catch(() => ({}));
  if (hintAsked !== ask) return;  // a newer state or key asked again, or the hint is no longer this tab's
  const out = $("hint-result");
  if (res.status === 403) {  // the key no longer works (the turn ended, the rack was typed again elsewhere)
    keepHintKey(null);
    renderHint(state);  // said as to any other phone
  } else if (!res.ok) out.replaceChildren(el("p", { class: "why", text: data.message || `hint failed (${res.status})` }));
  else showHint(data.hint);
}

function showHint(h) {
  const out = $("hint-result");
  if (!h) { out.replaceChildren(); return; }
  if (h.needs_rack) { out.replaceChildren(el("p", { class: "muted", text: "Type the rack to get a hint." })); return; }
  if (h.error) { out.replaceChildren(el("p", { class: "why", text: h.error })); return; }
  if (!h.count) { out.replaceChildren(el("p", { text: "No tile can be played: draw." })); return; }
  out.replaceChildren(el("p", {}, `Play ${h.count} tile${h.count === 1 ? "" : "s"} worth ${h.value}: `, ...h.placed.map((c) => tileEl(c))),
    el("div", { class: "sets compact" }, ...h.sets.map((x) => {
      const box = setEl(x.tiles);
      if (x.new) { box.classList.add("new"); box.append(el("div", { class: "meta", text: "new set" })); }
      return box;
    })));
}

// ---------- actions ----------
// One press at a time: while a press is answered every button is disabled, and the same button
// pressed again within a double tap's length after the answer is ignored.  Each turn's press also
// names its turn, so the server refuses a press for a turn that has already ended (another
// phone's, at the same moment).
const SETTLE_MS = 400;
let lastPress = { action: null, at: -Infinity };

function setBusy(on) {
  busy = on;
  document.body.classList.toggle("busy", on);
  document.querySelectorAll("button[data-action]").forEach((b) => { b.disabled = on; });
  if (!on) renderButtons(state.game || {});  // the state's own rules for which buttons work now
}

async function act(action, target, keyboard = false) {
  unlockAudio();
  if (busy || (action === lastPress.action && performance.now() - lastPress.at < SETTLE_MS)) return null;
  clearRefusal();  // the players have read it: this press has its own answer
  setBusy(true);
  try {
    return await press(action, target);
  } finally {
    lastPress = { action, at: performance.now() };
    setBusy(false);
    if (keyboard) keepFocus(target);
  }
}

// A button pressed from the keyboard is disabled while its press is on its way, which drops the focus.
// Give it back, so Tab goes on from there and a screen reader stays in place; where that button is gone
// (Rummikub! leaves play for the count, an answer closes the no-camera question), to the question, the
// heading of what the page shows now, or back to End turn.
function keepFocus(button) {
  const active = document.activeElement;
  if (active && active !== document.body && active !== document.documentElement) return;  // taken already
  const shown = (e) => e && e.isConnected && !e.disabled && e.getClientRects().length > 0;
  const to = [button, $("unseen"), $("tally-title"), $("dealing-title"), $("end-turn"),
    document.querySelector("h1")].find(shown);
  if (to) to.focus({ preventScroll: to !== button });
}

async function press(action, target) {
  const g = state.game || {};
  const turn = g.turn ? { turn: g.turn.id } : {};
  switch (action) {
    case "end":
      if (noCamera(state) && g.status === "playing") { openUnseen(g); return null; }  // what did the turn do?
      return discarding(post("/api/turn/end", { ...discardPayload(), ...turn }));
    case "unseen-drew": {  // Sabra: drew a tile; American, International: only the discard
      const r = await discarding(post("/api/turn/end", { ...discardPayload(), ...turn }));
      if (r) closeUnseen();
      return r;
    }
    case "unseen-played": {
      const payload = { placed: parseInt($("unseen-count").value, 10) || 0, ...turn };
      const tiles = $("unseen-tiles-field").hidden ? "" : $("unseen-tiles").value.trim();
      if (tiles) payload.tiles = tiles;
      const discard = $("discard").value.trim();
      if (discard) payload.discard = discard;
      const r = await discarding(post("/api/turn/unseen", payload));
      if (r) closeUnseen();
      return r;
    }
    case "unseen-back": closeUnseen(); return null;
    case "pass": return discarding(post("/api/pass", { ...discardPayload(), ...turn }));
    case "draw": return post("/api/turn/draw", { source: target.dataset.source, ...turn });
    case "undo-draw": return post("/api/turn/draw/undo", { ...turn });
    // American and International: the winner's final discard, typed in the discard box
    case "rummikub": return discarding(post("/api/rummikub", { ...discardPayload(), ...turn }, countWrong));
    case "pool-empty":
      return discarding(post("/api/rummikub", { pool_empty: true, ...discardPayload(), ...turn }, countWrong));
    case "read-rack": {
      $("tally-error").hidden = true;
      const r = await post("/api/tally/read", { player: target.dataset.player, ...turn });
      if (r) {
        delete tallyDraft[target.dataset.player];
        unsaved(`rack:${target.dataset.player}`, null);
        const input = document.querySelector(`#tally-rows textarea[data-player="${CSS.escape(target.dataset.player)}"]`);
        if (input) { input.value = r.rack; points(input); }  // the camera's reading replaces what was typed
      }
      return r;
    }
    case "confirm-tally": {
      await Promise.all([...tallySaves]);  // a rack typed just before the press is saved first
      $("tally-error").hidden = true;
      // the server scores the racks entered (from any phone); only what is typed here and not saved
      // yet goes with the press (a blank box: "not given", it leaves what was entered)
      const racks = {};
      for (const [name, text] of Object.entries(tallyDraft)) racks[name] = text.trim() || null;
      const payload = { racks, phone: PHONE, ...turn };  // this page's own typing goes with the press
      // the win is the count's (saved when chosen); a closed hand typed here and not saved goes with the press
      const closed = g.game === "international" && g.tally && g.tally.winner && $("win").value === "closed";
      if (closed && handDraft && handDraft.trim()) payload.extra = { hand: handDraft };
      const r = await closeCount("/api/tally/confirm", payload);
      if (r) { dropDrafts(); window.scrollTo({ top: 0 }); }
      return r;
    }
    case "cancel-tally": {  // the count is dropped with it: ask first when something was entered
      const lost = cancelWords(g);
      return lost && !confirm(lost) ? null : closeCount("/api/tally/cancel");
    }
    case "start-hand": {
      $("dealing-error").hidden = true;
      const trump = g.has_trump ? $("hand-trump").value.trim() : "";
      const r = await post("/api/hand/start", { ...turn, ...(trump ? { trump } : {}) });
      if (r) $("hand-trump").value = "";
      return r;
    }
    case "take-found": {  // the players say the table the camera sees is right, though it disagrees
      const ask = state.found_check;
      return ask ? post("/api/turn/found", { ...turn, camera: ask.camera }) : null;
    }
    case "undo-hand": return confirm(undoWords(state)) ? post("/api/tally/undo") : null;
    case "undo-turn": return g.undo_turn && confirm(undoTurnWords(g)) ? post("/api/turn/undo", { ...turn }) : null;
    case "set-trump": {
      const r = await post("/api/hand/trump", { trump: $("trump-code").value.trim() });
      if (r) $("trump-code").value = "";
      return r;
    }
    case "restored": return post("/api/restore/dismiss");
    case "save-rack": {
      const rack = $("hint-rack").value;
      const typed = hintTyping || { player: g.current, turn: g.turn && g.turn.id };
      $("hint-rack").value = "";  // typed for the hint, never shown back on the shared screen
      hintTyping = null;
      const r = await post("/api/rack", { player: typed.player, rack, ...(typed.turn ? { turn: typed.turn } : {}) });
      if (r) { keepHintKey(r.hint_key ? { key: r.hint_key, player: r.player } : null); renderHint(state); }
      else if (!$("hint-rack").value && g.turn && (state.game || {}).turn && state.game.turn.id === g.turn.id) {
        // refused (a code that is no tile): the rack comes back to be mended, not typed again
        $("hint-rack").value = rack;
        hintTyping = typed;
      }
      return r;
    }
  }
}

// Take back this hand / the last hand: one tap must not undo a scored hand and the play since, so it asks,
// saying what goes
function undoWords(s) {
  const g = s.game || {};
  const hands = (s.scores && s.scores.hands) || [];
  const n = hands.length ? hands[hands.length - 1].number : g.hand - 1;
  const head = `Take back hand ${n}? Its scores come off the sheet and its count opens again with the racks ` +
    "as confirmed";
  if (g.status === "finished") return `${head}: the game is no longer over.`;
  if (g.status === "playing")
    return `${head}: ${g.current}'s turn in progress, the first of hand ${g.hand}, is thrown away.`;
  return `${head}: hand ${g.hand}, dealt, is not played.`;
}

// Undo last turn: one tap must not take a turn back unasked, so it asks, saying which turn and what it recorded
function undoTurnWords(g) {
  const u = g.undo_turn;
  const said = lastWords(g.last).map((x) => (typeof x === "string" ? x : g.last.discard)).join(" ");
  return `Undo ${u.player}'s turn (turn ${u.number})? ${said}. It becomes ${u.player}'s turn again, as it was ` +
    `before it ended: the rack counts, the pool, ${g.has_discards ? "the discards, " : ""}who has melded and the ` +
    "clock go back with it. " +
    "The turn log keeps it, marked taken back.";
}

// Back to the game throws the count away (rules.game_tally.cancel_tally keeps nothing of it): what was
// entered in it, in words, or null when nothing was
function cancelWords(g) {
  const t = g.tally;
  if (!t) return null;
  const racks = g.players.map((p) => p.name).filter((name) => name !== t.winner &&
    ((t.racks[name] ?? "") !== "" || (tallyDraft[name] || "").trim()));
  const lost = [];
  if (racks.length) lost.push(`the rack${racks.length === 1 ? "" : "s"} entered for ${andList(racks)}`);
  if (Object.values(t.melded || {}).some((m) => m != null)) lost.push('the "has melded" corrections');
  if ((t.win && t.win !== "open") || t.hand || (handDraft || "").trim()) lost.push("the win entered");
  if (!lost.length) return null;
  return `Back to the game? This count is thrown away with ${andList(lost)}: when the hand ends again, ` +
    "they are entered again.";
}

function andList(items) {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

function discardPayload() {
  const d = $("discard").value.trim();
  return d ? { discard: d } : {};
}

// the discard typed goes with the press, and is cleared only once the press is taken: after a refusal
// ("Ann has no tile left to discard", an illegal table) the player fixes the table, not the discard
// (an End turn the rules refuse answers 200 with its verdict, NOT LEGAL)
async function discarding(press) {
  const r = await press;
  if (r && !(r.verdict && r.verdict.legal === false)) $("discard").value = "";
  return r;
}

document.addEventListener("click", (e) => {
  const step = e.target.closest("[data-step]");  // the count's - and +: no press of the game
  if (step) { e.preventDefault(); stepCount(Number(step.dataset.step)); return; }
  const b = e.target.closest("[data-action]");
  // a tap or click (detail: the clicks counted) leaves no focus, so the space bar ends the turn rather
  // than press the last button again; Enter or Space on a button reached with the keyboard keeps it
  if (b) {
    e.preventDefault();
    const keyboard = e.detail === 0;
    if (!keyboard) b.blur();
    act(b.dataset.action, b, keyboard);
  }
});

// the space bar ends the turn (or draws) while nothing has the focus (a tap leaves none: see above); a
// control reached with the keyboard keeps its own Space: Rummikub!, a checkbox, Undo are pressed, not End turn
document.addEventListener("keydown", (e) => {
  if (e.code !== "Space" && e.key !== " ") return;
  const focus = document.activeElement;
  if (focus && focus !== document.body && focus !== document.documentElement) return;
  const g = state.game || {};
  if (g.status !== "playing") return;
  e.preventDefault();
  act(g.turn.phase === "draw" ? "draw" : "end", { dataset: { source: "pool" } });
});

$("refusal-close").addEventListener("click", clearRefusal);

// Enter in the trump box sets it
$("trump-code").addEventListener("keydown", (e) => {
  if (e.key === "Enter") { e.preventDefault(); act("set-trump", $("set-trump")); }
});

// Enter in the no-camera question's count or tiles answers it: Played tiles
for (const id of ["unseen-count", "unseen-tiles"]) {
  $(id).addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); act("unseen-played", $("unseen-played"), true); }
  });
}

// tiles named for a turn no camera saw: the count follows them
$("unseen-tiles").addEventListener("input", () => {
  const named = $("unseen-tiles").value.split(/[\s,|]+/).filter(Boolean).length;
  if (named) $("unseen-count").value = String(named);
});

// the International win, the closed hand and the joker discard: previewed at once, saved in the count
$("win").addEventListener("change", () => { winChanged(); saveWin("win", { win: $("win").value }); });
$("joker-discard").addEventListener("change", () => {
  winChanged();
  saveWin("joker", { joker_discard: $("joker-discard").checked });
});
$("winner-melded").addEventListener("change", () => {
  const t = (state.game || {}).tally;
  if (t && t.winner) saveWin("melded", { player: t.winner, melded: $("winner-melded").checked });
});
$("original-hand").addEventListener("change", () => {
  winChanged();
  saveWin("dealt", { original_hand: $("original-hand").checked });
});
$("closed-hand").addEventListener("input", () => {
  handDraft = $("closed-hand").value;
  winChanged();
  clearTimeout(handTimer);
  handTimer = setTimeout(() => saveHand(true), SAVE_MS);
});
$("closed-hand").addEventListener("blur", () => { clearTimeout(handTimer); saveHand(); });
$("closed-hand").addEventListener("keydown", (e) => {  // Enter: done typing the hand
  if (e.key === "Enter") { e.preventDefault(); $("closed-hand").blur(); }
});

$("hint-toggle").addEventListener("change", async (e) => {
  hintTapped = e.target.checked;  // a state pushed before the save answers must not flip the switch back
  try {
    await post("/api/settings", { hint: hintTapped });
  } finally {
    hintTapped = null;
  }
  poll();
});

// ---------- live updates ----------
function connect() {
  if (!window.EventSource) { setInterval(poll, 1000); return; }
  const es = new EventSource("/api/events");
  es.addEventListener("state", (ev) => { offline(false); render(JSON.parse(ev.data)); });
  es.onerror = () => { $("camera-status").textContent = "reconnecting…"; poll(); };
}

async function poll() {
  try {
    const r = await fetch("/api/state", { cache: "no-store" });
    offline(false);
    if (r.ok) render(await r.json());
  } catch (err) { offline(true); }
}

// browsers allow sound only after a touch, a click or a key press on the page
document.addEventListener("pointerdown", unlockAudio);
document.addEventListener("keydown", unlockAudio);

render(state);
connect();
setInterval(drawClock, 200);
setInterval(() => { if (!$("offline-banner").hidden) poll(); }, 3000);
