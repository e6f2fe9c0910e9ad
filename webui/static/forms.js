// Settings and new-game forms: sent as JSON to the API (the one way the page writes).
"use strict";

function formError(message) {
  const box = document.getElementById("form-error");
  box.textContent = message;
  box.hidden = !message;
  if (message) box.scrollIntoView({ block: "nearest" });  // above the form: a phone is scrolled down to its button
}

// The game's length when a rulebook is picked.  The clock and the length are the table's choice, so a book
// picked keeps them; a book with a length of its own (Israeli: as many rounds as players) brings it when the
// table set none, and a book whose scoring ranks the totals only at the end (Israeli) takes no target score.

function lengthOf(form) {  // the length a form shows: rounds (a number, "players" or null) and the target
  const box = form.querySelector("input[data-named-for=rounds]");
  const rounds = form.elements.rounds, target = form.elements.target_score;
  return { rounds: box && box.checked ? box.value : (rounds.value.trim() === "" ? null : Number(rounds.value)),
           target: target.disabled || target.value.trim() === "" ? null : Number(target.value) };
}

function bookOf(option) {  // what a rulebook says of the length (webui.pages.books); "" data: none
  const value = (v) => (v === undefined || v === "" ? null : (/^\d+$/.test(v) ? Number(v) : v));
  return { rounds: value(option.dataset.rounds), target: value(option.dataset.target),
           final: option.dataset.final || "" };
}

function lengthWith(book, chosen) {  // the length a book picked leaves: the table's own, else the book's
  const target = book.final ? null : chosen.target;
  if (chosen.rounds !== null || target !== null) return { rounds: chosen.rounds, target };
  return { rounds: book.rounds, target: book.final ? null : book.target };
}

function showLength(form, length, final) {
  const box = form.querySelector("input[data-named-for=rounds]");
  const rounds = form.elements.rounds;
  const named = typeof length.rounds === "string";
  if (box) box.checked = named && box.value === length.rounds;
  rounds.value = length.rounds === null || named ? "" : length.rounds;
  rounds.disabled = named;
  form.elements.target_score.value = length.target === null ? "" : length.target;
  noTarget(form, final);
}

// a scoring that ranks the totals only at the end (``final``: its name) cannot be played to a target score:
// the field is cleared and greyed, and a note beside it says why (the server would refuse it)
function noTarget(form, final) {
  const target = form.elements.target_score;
  if (final && !target.disabled) target.dataset.was = target.value;
  else if (!final && target.disabled && target.value === "") target.value = target.dataset.was || "";
  if (final) target.value = "";
  target.disabled = Boolean(final);
  let note = form.querySelector(".target-note");
  if (!note) {
    note = document.createElement("p");
    note.className = "muted target-note";
    target.closest(".option").after(note);
  }
  note.hidden = !final;
  note.textContent = final ? `${final} scoring ranks the totals only at the end, so it cannot be played to a ` +
    "target score: the game lasts the rounds above (empty: until you press Finish)." : "";
}

function scoringFinal(form) {  // Settings: the name of the scoring chosen when it takes no target score
  return JSON.parse(form.dataset.finalScorings || "{}")[form.elements.scoring.value] || "";
}

function formBody(form) {
  const data = {};
  for (const input of form.elements) {
    if (!input.name) continue;
    const type = input.dataset.type;
    if (input.type === "checkbox") data[input.name] = input.checked;
    else if (type === "bool") data[input.name] = input.value === "true";
    else if (type === "int") data[input.name] = Number(input.value);
    else if (type === "int|None") data[input.name] = input.value.trim() === "" || input.disabled ? null : Number(input.value);
    else data[input.name] = input.value;
  }
  // a number option's named value ticked ("as many rounds as players") is sent instead of the number
  form.querySelectorAll("input[data-named-for]:checked").forEach((box) => { data[box.dataset.namedFor] = box.value; });
  if (form.id === "new-game") {
    // the clock and the length, filled in from Settings, are sent as shown: a rulebook picked here keeps them
    const { players, first, rules, trump, ...options } = data;
    const body = { players: players.split(/[\n,]/).map((n) => n.trim()).filter(Boolean),
                   first: Number(first || 0), options };
    if (rules) body.rules = rules;
    if (trump.trim()) body.trump = trump.trim();
    return body;
  }
  if (form.id === "variant-form") {
    // the clock and the length are the table's, not the rulebook's: sent as the rules form below shows them,
    // but for a length the book brings (none set below) or a target its scoring cannot take
    const below = document.getElementById("options-form");
    const picked = form.elements.rules.selectedOptions[0];
    const length = lengthWith(bookOf(picked), lengthOf(below));
    return { rules: data.rules, options: { turn_time_limit: formBody(below).options.turn_time_limit,
                                           rounds: length.rounds, target_score: length.target } };
  }
  if (form.id === "finish-game") return {};
  const { hint, ...options } = data;
  return { options, hint };
}

async function send(url, body) {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
                                 body: JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  return { res, data };
}

document.querySelectorAll("form[data-json]").forEach((form) => {
  let sending = false;  // one request at a time: a double click on "Start the game" starts one game
  const buttons = () => form.querySelectorAll("button[type=submit], button:not([type])");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (sending) return;
    sending = true;
    buttons().forEach((b) => { b.disabled = true; });
    try {
      await submit(form);
    } finally {  // once on its way to the next page, the buttons stay disabled
      if (!form.dataset.leaving) { sending = false; buttons().forEach((b) => { b.disabled = false; }); }
    }
  });
  window.addEventListener("pageshow", (e) => {  // back to this page from the browser's cache: usable again
    if (!e.persisted) return;
    // a New game or Settings form kept from before holds the rules of then (another phone may have saved
    // since): fill it in again from the rules now, so no stale field is sent
    if (form.id === "new-game" || form.id === "options-form") { window.location.reload(); return; }
    delete form.dataset.leaving;
    sending = false;
    buttons().forEach((b) => { b.disabled = false; });
  });
});

// send one form; true when the page moves on to the form's next page
async function submit(form) {
  formError("");
  const body = formBody(form);
  if (form.id === "variant-form" && !body.rules) {
    formError("Pick a rulebook to take its rules; the rules below stay as they are.");
    return false;
  }
  if (form.id === "new-game" && body.players.length === 1 && /\s/.test(body.players[0])) {
    // "Jo Kim Lou" on one line is one player's name: say how the form reads it, not "1 player"
    formError(`Only one player: "${body.players[0]}". Type one name per line (or put commas between them).`);
    return false;
  }
  // a new game in place of the one on the table: that game is kept, and the question says where
  if (form.dataset.confirm && !confirm(form.dataset.confirm)) return false;
  // a new game starts from an empty table: tiles the camera still sees are asked about, as at Start hand
  if (form.id === "new-game") body.table_checked = false;
  let reply;
  try {
    reply = await send(form.dataset.json, body);
    // another game for the game on the table: the server asks, saying what would change and when
    if (reply.res.status === 409 && reply.data.ask) {
      if (!confirm(reply.data.ask)) return false;
      reply = await send(form.dataset.json, { ...body, confirm: true });
    }
    if (reply.res.status === 400 && reply.data.ask && reply.data.ask.question) {  // tiles left on the table
      if (!confirm(reply.data.ask.question)) { formError(reply.data.message); return false; }
      reply = await send(form.dataset.json, { ...body, ...reply.data.ask.send });
    }
  } catch (err) { formError("The companion is not answering: is the server running?"); return false; }
  if (!reply.res.ok) { formError(reply.data.message || `not saved (${reply.res.status})`); return false; }
  if (form.dataset.then) { form.dataset.leaving = "1"; window.location.href = form.dataset.then; return true; }
  const ok = document.getElementById("form-ok");
  ok.textContent = reply.data.message || "Saved.";
  ok.hidden = false;
  if (reply.data.form) showSaved(reply.data);
  ok.scrollIntoView({ block: "nearest" });  // at the top of the page: a phone is scrolled down to "Save rules"
  return false;
}

// after a save, Settings shows the rules saved (a rulebook picked sets many; during a game, the game's): never
// what was sent, so a stale field cannot be saved again by the next "Save rules"; the rulebook select names
// the book they are, or "keep the rules below" for none exactly
function showSaved(saved) {
  const form = document.getElementById("options-form");
  for (const [name, value] of Object.entries(saved.form)) {
    const input = form.elements[name];
    if (!input) continue;
    const box = form.querySelector(`input[data-named-for="${name}"]`);
    const named = box !== null && typeof value === "string";
    if (box) box.checked = named && box.value === value;
    input.value = typeof value === "boolean" ? String(value) : (value === null || named ? "" : value);
    if (box) input.disabled = box.checked;
  }
  form.elements.target_score.disabled = false;
  noTarget(form, scoringFinal(form));
  const book = document.querySelector("#variant-form select[name=rules]");
  book.value = saved.rulebook || "";
  aboutBook(book);
  if (form.elements.hint) form.elements.hint.checked = saved.hint;
  const pending = document.getElementById("pending");
  pending.hidden = !saved.pending;
  pending.textContent = saved.pending ? `From the next hand: ${saved.pending}.` : "";
}

// a rulebook select names each book short (a select cannot wrap on a phone): the full name shows under it
function aboutBook(select) {
  const line = select.closest("label").querySelector("[data-book-about]");
  if (!line) return;
  const picked = select.selectedOptions[0];
  line.textContent = (picked && picked.dataset.about) || "";
  line.hidden = !line.textContent;
}
document.querySelectorAll("select[name=rules]").forEach((select) => {
  select.addEventListener("change", () => aboutBook(select));
  aboutBook(select);
});

// a number option's named value ticked: the number box beside it is not what is sent, so it is greyed
document.querySelectorAll("input[data-named-for]").forEach((box) => box.addEventListener("change", () => {
  box.form.elements[box.dataset.namedFor].disabled = box.checked;
}));

// New game: a rulebook picked shows the length it leaves (the table's own kept, else the book's), and the
// length the player sets is what later picks keep
const newGame = document.getElementById("new-game");
if (newGame) {
  let chosen = lengthOf(newGame);
  const pick = () => {
    const book = bookOf(newGame.elements.rules.selectedOptions[0]);
    showLength(newGame, lengthWith(book, chosen), book.final);
  };
  newGame.elements.rules.addEventListener("change", pick);
  newGame.querySelectorAll("input[name=rounds], input[name=target_score], input[data-named-for=rounds]")
    .forEach((input) => input.addEventListener(input.type === "checkbox" ? "change" : "input", () => {
      chosen = lengthOf(newGame);
    }));
  pick();  // "As set on Settings" may itself be Israeli scoring: no target score
}

// Settings: a scoring that takes no target score greys the target out as soon as it is chosen
const optionsForm = document.getElementById("options-form");
if (optionsForm && optionsForm.elements.scoring && optionsForm.elements.target_score) {
  optionsForm.elements.scoring.addEventListener("change", () => noTarget(optionsForm, scoringFinal(optionsForm)));
  noTarget(optionsForm, scoringFinal(optionsForm));
}

// who starts: one choice per name typed
const players = document.querySelector("#new-game textarea[name=players]");
const first = document.getElementById("first-player");
function seats() {
  const names = players.value.split(/[\n,]/).map((n) => n.trim()).filter(Boolean);
  const was = first.value;
  first.replaceChildren(...(names.length ? names : ["the first name"]).map((n, i) => {
    const o = document.createElement("option"); o.value = i; o.textContent = n; return o;
  }));
  if (was && Number(was) < names.length) first.value = was;
}
if (players && first) { players.addEventListener("input", seats); seats(); }

// "Keep playing": the confirmation of "Finish the game" folds away again
document.querySelectorAll("[data-close-details]").forEach((b) => b.addEventListener("click", () => {
  b.closest("details").open = false;
}));

document.querySelectorAll("time[data-ts]").forEach((t) => {
  t.textContent = new Date(Number(t.dataset.ts) * 1000).toLocaleString();
});

document.querySelectorAll("[data-resume]").forEach((b) => b.addEventListener("click", async () => {
  if (b.disabled) return;
  b.disabled = true;
  try {
    const { res, data } = await send(`/api/games/${b.dataset.resume}/resume`, {});
    if (res.ok) { window.location.href = "/"; return; }
    formError(data.message || "could not resume");
  } catch (err) { formError("The companion is not answering: is the server running?"); }
  b.disabled = false;
}));
