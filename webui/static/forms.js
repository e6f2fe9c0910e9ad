// Settings and new-game forms: sent as JSON to the API (the one way the page writes).
"use strict";

function formError(message) {
  const box = document.getElementById("form-error");
  box.textContent = message;
  box.hidden = !message;
}

function formBody(form) {
  const data = {};
  for (const input of form.elements) {
    if (!input.name) continue;
    const type = input.dataset.type;
    if (input.type === "checkbox") data[input.name] = input.checked;
    else if (type === "bool") data[input.name] = input.value === "true";
    else if (type === "int") data[input.name] = Number(input.value);
    else if (type === "int|None") data[input.name] = input.value.trim() === "" ? null : Number(input.value);
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
  if (form.id === "variant-form") return { rules: data.rules };
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
    // a New game form kept from before holds the Settings of then: fill it in again from the rules now
    if (form.id === "new-game") { window.location.reload(); return; }
    delete form.dataset.leaving;
    sending = false;
    buttons().forEach((b) => { b.disabled = false; });
  });
});

// send one form; true when the page moves on to the form's next page
async function submit(form) {
  formError("");
  const body = formBody(form);
  const inGame = form.dataset.inGame;
  const newGame = body.rules ? (form.querySelector("option:checked").dataset.game || null)
                             : (body.options && body.options.game);
  // a game keeps its scoring method (Sabra and American score alike): a switch it cannot take is not
  // asked about; the server saves those rules for new games and says so
  const alike = (a, b) => a === b || (["sabra", "american"].includes(a) && ["sabra", "american"].includes(b));
  const scoring = body.rules ? form.querySelector("option:checked").dataset.scoring : null;
  const kept = scoring && form.dataset.inScoring && !alike(scoring, form.dataset.inScoring);
  if (inGame && newGame && newGame !== inGame && !kept) {
    // the games as players know them ("American"), not their codes
    const names = JSON.parse(form.dataset.gameNames || "{}");
    const newName = (body.rules && form.querySelector("option:checked").dataset.gameName) || names[newGame] || newGame;
    if (!confirm(`The game on the table plays ${form.dataset.inGameName || inGame} rules. Switch to ${newName} from the next hand?`)) return false;
    body.confirm = true;
  }
  let reply;
  try { reply = await send(form.dataset.json, body); }
  catch (err) { formError("The companion is not answering: is the server running?"); return false; }
  if (!reply.res.ok) { formError(reply.data.message || `not saved (${reply.res.status})`); return false; }
  if (form.dataset.then) { form.dataset.leaving = "1"; window.location.href = form.dataset.then; return true; }
  const ok = document.getElementById("form-ok");
  ok.textContent = reply.data.message || (reply.data.applies === "from the next hand"
    ? "Saved: the game on the table takes these rules from its next hand." : "Saved.");
  ok.hidden = false;
  return false;
}

// a number option's named value ticked: the number box beside it is not what is sent, so it is greyed
document.querySelectorAll("input[data-named-for]").forEach((box) => box.addEventListener("change", () => {
  box.form.elements[box.dataset.namedFor].disabled = box.checked;
}));

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
