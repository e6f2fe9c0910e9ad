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
  if (form.id === "new-game") {
    const body = { players: data.players.split(/[\n,]/).map((n) => n.trim()).filter(Boolean),
                   first: Number(data.first || 0) };
    if (data.rules) body.rules = data.rules;
    if (data.trump.trim()) body.trump = data.trump.trim();
    return body;
  }
  if (form.id === "variant-form") return { rules: data.rules };
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
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    formError("");
    const body = formBody(form);
    const inGame = form.dataset.inGame;
    const newGame = body.rules ? (form.querySelector("option:checked").dataset.game || null)
                               : (body.options && body.options.game);
    if (inGame && newGame && newGame !== inGame) {
      if (!confirm(`The game on the table plays ${inGame} rules. Switch to ${newGame} from the next hand?`)) return;
      body.confirm = true;
    }
    let reply;
    try { reply = await send(form.dataset.json, body); }
    catch (err) { formError("The companion is not answering: is the server running?"); return; }
    if (!reply.res.ok) { formError(reply.data.message || `not saved (${reply.res.status})`); return; }
    if (form.dataset.then) { window.location.href = form.dataset.then; return; }
    const ok = document.getElementById("form-ok");
    ok.textContent = reply.data.applies === "from the next hand"
      ? "Saved: the game on the table takes these rules from its next hand." : "Saved.";
    ok.hidden = false;
  });
});

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

document.querySelectorAll("time[data-ts]").forEach((t) => {
  t.textContent = new Date(Number(t.dataset.ts) * 1000).toLocaleString();
});

document.querySelectorAll("[data-resume]").forEach((b) => b.addEventListener("click", async () => {
  const { res, data } = await send(`/api/games/${b.dataset.resume}/resume`, {});
  if (res.ok) window.location.href = "/"; else formError(data.message || "could not resume");
}));
