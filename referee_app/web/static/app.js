"use strict";
// The referee page: one match at a time, live over Server-Sent Events.
(() => {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  if (params.get("token")) {
    localStorage.setItem("referee-token", params.get("token"));
    params.delete("token");
    history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
  }
  const token = () => localStorage.getItem("referee-token") || "";
  let matchId = params.get("match") || null;
  let chosen = !!matchId;  // the user picked (or started) a match: never follow the featured one
  let source = null;
  let replaying = false;
  let summary = null;  // the match on show; every action names summary.match_id
  const fedSeqs = new Set();  // the seqs of the verdicts in the feed
  let shownId = null;  // the match whose summary was last shown
  let games = {};  // name -> what /api/games says (players, variant options, example moves)

  async function api(path, opts = {}) {
    const headers = Object.assign({ "Content-Type": "application/json" }, opts.headers || {});
    if (token()) headers["X-Referee-Token"] = token();
    const resp = await fetch(path, Object.assign({}, opts, { headers }));
    let data = null;
    try { data = await resp.json(); } catch (e) { data = { error: resp.statusText }; }
    if (!resp.ok) throw Object.assign(new Error(data.error || resp.statusText), { status: resp.status });
    return data;
  }
  const matchPath = (id, rest = "") => `/api/matches/${encodeURIComponent(id)}${rest}`;

  function esc(s) {
    return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }

  function setPill(el, text, cls) { el.textContent = text; el.className = "pill " + (cls || ""); }

  // -- players by their names, everywhere --------------------------------------------------------
  // The engines name seats their own way ("Player 2" from 1, "player 0" and "p0" from 0, a seat's
  // colour); the page writes the player's name instead, so one match never shows two namings.
  const DICE_SEATS = ["white", "blue", "green", "yellow"];
  function namingRules(s) {
    const seat = (k) => s.players[k];
    const colours = (list) => [new RegExp(`\\b(${list.join("|")})\\b`, "gi"), (m) => seat(list.indexOf(m.toLowerCase()))];
    switch (s.game) {
      case "highway-grid": return [[/\b[Pp]layer ([12])\b/g, (m, n) => seat(n - 1)]];
      case "railroad-ink": return [[/\b[Pp]layer (\d+)\b/g, (m, n) => seat(+n)], [/\bseat (\d+)\b/gi, (m, n) => seat(n - 1)],
        [/\bp(\d+)\b/g, (m, n) => seat(+n)]];
      case "highway-dice": return [colours(DICE_SEATS)];
      case "tokyo-highway": {
        const list = ((s.state || {}).rules || {}).colors || [];
        return list.length ? [colours(list.map((c) => String(c).toLowerCase()))] : [];
      }
      default: return [];
    }
  }
  function named(text, s = summary) {
    let out = String(text ?? "");
    if (!s || !s.players) return out;
    for (const [re, fn] of namingRules(s)) out = out.replace(re, (...m) => fn(...m) ?? m[0]);
    return out;
  }

  // -- sound and speech for the players who are not looking at the screen --------------------------
  const prefs = {
    get sound() { return localStorage.getItem("referee-sound") !== "off"; },  // on unless muted
    get speak() { return localStorage.getItem("referee-speak") === "on"; },   // off unless chosen
  };
  let audio = null;
  function audioContext() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!audio && Ctx) audio = new Ctx();
    if (audio && audio.state === "suspended" && audio.resume) audio.resume();
    return audio;
  }
  // browsers let a page make sound only after a gesture: open the audio on the first one
  for (const kind of ["pointerdown", "keydown"]) addEventListener(kind, () => { if (prefs.sound) audioContext(); }, { once: true });

  function buzz() {  // two falling tones: an illegal move
    const ctx = audioContext();
    if (!ctx) return;
    const t = ctx.currentTime;
    [[660, 0], [440, 0.18]].forEach(([hz, at]) => {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "square";
      osc.frequency.value = hz;
      gain.gain.setValueAtTime(0.0001, t + at);
      gain.gain.exponentialRampToValueAtTime(0.25, t + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + at + 0.16);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t + at);
      osc.stop(t + at + 0.17);
    });
  }

  function say(text) {
    if (!window.speechSynthesis || !window.SpeechSynthesisUtterance) return;
    const u = new SpeechSynthesisUtterance(text);
    u.lang = document.documentElement.lang || "en";
    window.speechSynthesis.speak(u);
  }

  function announce(ev, s) {  // a verdict that has just happened (not the history shown on load)
    const d = ev.data || {};
    const v = d.verdict || {};
    if (d.correction) { if (prefs.speak) say(named(v.reason, s)); return; }
    if (v.legal === false && prefs.sound) buzz();
    if (!prefs.speak) return;
    const who = s && d.player >= 0 ? s.players[d.player] || "" : "";
    const why = named(v.reason || d.notation, s);
    say((v.legal === false ? "Illegal. " : "") + (who && !why.includes(who) ? `${who}: ` : "") + why);
  }

  function renderPrefs() {
    if (!window.speechSynthesis) {  // some browsers (or systems) have no speech
      $("speak-toggle").disabled = true;
      $("speak-toggle").parentElement.title = "This browser cannot speak";
    }
    $("sound-toggle").setAttribute("aria-pressed", String(prefs.sound));
    $("sound-toggle").textContent = prefs.sound ? "Sound on" : "Sound off";
    $("speak-toggle").checked = prefs.speak;
  }
  $("sound-toggle").addEventListener("click", () => {
    localStorage.setItem("referee-sound", prefs.sound ? "off" : "on");
    if (prefs.sound) audioContext();
    renderPrefs();
  });
  $("speak-toggle").addEventListener("change", (e) => {
    localStorage.setItem("referee-speak", e.target.checked ? "on" : "off");
    if (!e.target.checked && window.speechSynthesis) window.speechSynthesis.cancel();
    renderPrefs();
  });

  // -- status, match list, the match on show ------------------------------------------------------
  async function loadStatus() {
    const st = await api("/api/status");
    const cam = st.camera || {};
    setPill($("camera-pill"), "camera: " + (cam.status || "none"),
      cam.status === "ok" ? "ok" : cam.status === "lost" ? "bad" : "");
    $("camera-pill").title = cam.message || "";
    return st;
  }

  async function loadGames() {
    const out = await api("/api/games");
    games = Object.fromEntries(out.games.map((g) => [g.name, g]));
    const sel = $("new-game");
    if (!sel.options.length) {
      for (const g of out.games) sel.add(new Option(g.title, g.name));
      renderNewMatchOptions();
    }
  }

  async function loadMatches(st) {
    const data = await api("/api/matches");
    const sel = $("match-select");
    sel.innerHTML = "";
    for (const m of data.matches) {
      const when = (m.started || "").slice(0, 16).replace("T", " ");
      const state = m.match_id.startsWith("demo-") ? " · recorded demo" : m.status === "finished" ? " · over" : "";
      sel.add(new Option(`${m.game} · ${(m.players || []).join(" v ")} · ${when}${state}`, m.match_id));
    }
    if (!matchId) matchId = (st && st.featured) || (data.matches[0] && data.matches[0].match_id) || null;
    if (matchId) sel.value = matchId;
  }

  function renderExtras(x) {
    const box = $("extras");
    box.innerHTML = "";
    for (const [k, v] of Object.entries(x || {})) {
      if (v === null || typeof v === "object") continue;
      const d = document.createElement("div");
      d.className = "stat";
      d.innerHTML = `<span class="muted small">${esc(named(k.replace(/_/g, " ")))}</span><br><b>${esc(v)}</b>`;
      box.appendChild(d);
    }
  }

  function outcomeText(s) {
    if (s.ended) return "Match ended";
    const o = s.outcome || {};
    if (o.draw) return "Draw";
    const names = (o.winners || []).map((w) => s.players[w] || `Seat ${w + 1}`);
    return names.length ? `${names.join(" and ")} ${names.length > 1 ? "win" : "wins"}` : "Game over";
  }

  function turnText(s) {
    if (s.terminal || s.ended) return outcomeText(s);
    if (s.chance) return s.to_move_name ? `${s.to_move_name} to roll` : "Waiting for the roll";
    return s.to_move_name ? `${s.to_move_name} to move` : "Waiting";
  }

  function examplePlaceholder(s) {
    const ex = (games[s.game] || {}).examples || {};
    let text = (s.chance && ex.roll) || (!s.history.length && ex.start) || ex.move || "";
    if (s.game === "railroad-ink") text += " (" + s.players.map((n, k) => `p${k} = ${n}`).join(", ") + ")";
    return text ? "e.g. " + text : "a move in the game's notation";
  }

  async function loadMatch() {
    if (!matchId) { $("turn-text").textContent = "No match yet: start one below."; return; }
    const id = matchId;
    const s = await api(matchPath(id));
    if (id !== matchId) return;  // the user moved to another match meanwhile: this answer is stale
    summary = s;
    if (shownId !== id) {  // the panels that act on the match on show (Teach my dice) follow it
      shownId = id;
      document.dispatchEvent(new CustomEvent("referee:match-shown", { detail: { matchId: id } }));
    }
    const over = s.terminal || s.ended;
    $("game-title").textContent = `${s.title} — ${s.players.join(" v ")}` +
      (s.terminal && s.outcome ? ` · ${named(s.outcome.reason)}` : "");
    $("turn-text").textContent = turnText(s);
    $("ended-note").hidden = !s.ended;
    $("ended-note").textContent = s.ended ? `Ended: ${s.ended}. The log is kept; it takes no more moves.` : "";
    renderExtras(s.extras);
    renderLatest();
    $("move-input").placeholder = examplePlaceholder(s);
    for (const b of ["move-input", "move-submit", "undo-btn", "hint-btn", "end-btn"]) $(b).disabled = !!over;
    $("export-jsonl").href = matchPath(id, "/export?format=jsonl");
    $("export-csv").href = matchPath(id, "/export?format=csv");
    $("live-card").hidden = !s.loop;
    if (!s.loop) $("live").removeAttribute("src");
    if (s.loop) {
      const want = `/video.mjpg?match=${encodeURIComponent(id)}`;
      if (!$("live").src.endsWith(want)) $("live").src = want;
      $("loop-status").textContent = s.loop.message || "";
    }
    renderCameras(s.loop ? s.loop.cameras || [] : []);
    $("board").dataset.game = s.game;
    if (!replaying) await loadBoard();
    $("replay-step").max = String(s.history.length * 2 + 2);
    if (!replaying) $("replay-step").value = $("replay-step").max;
    const feed = $("feed");
    if (!feed.dataset.loaded) {
      feed.dataset.loaded = "1";
      for (const h of s.history) addFeed({ kind: "verdict", data: h, id: h.seq });
    }
  }

  function renderLatest() {  // the latest verdict beside whose turn it is (first on a phone)
    const box = $("latest");
    const first = $("feed").querySelector("li");
    box.hidden = !first;
    if (!first) return;
    box.className = "latest " + first.className;
    box.innerHTML = first.innerHTML;
  }

  // the other cameras (2, 3 ...) as small pictures; camera 1 is the live view above them
  let bigCamera = null;
  let lastCameras = [];  // the latest list, for a thumbnail clicked between refreshes
  const pictureUrl = (c) => matchPath(matchId, `/cameras/${c.camera}.jpg?frame=${c.frame}`);
  function cameraNote(c) {
    const what = !c.has_picture ? "no picture" : c.annotated ? "what it read" : "plain frame";
    return `Camera ${c.camera} · ${what}${c.note ? " — " + c.note : ""}`;
  }

  function renderCameras(cams) {
    lastCameras = cams;
    if (window.refereeSetup) window.refereeSetup.showMatchCheck(cams);  // the set-up check (setup.js)
    const box = $("cameras");
    const others = cams.filter((c) => c.camera > 1);
    box.hidden = !others.length;
    for (const c of others) {
      let b = box.querySelector(`[data-camera="${c.camera}"]`);
      if (!b) {
        b = document.createElement("button");
        b.type = "button";
        b.className = "camera-thumb";
        b.dataset.camera = String(c.camera);
        b.innerHTML = `<img alt="Camera ${c.camera}"><span></span>`;
        b.addEventListener("click", () => { bigCamera = Number(b.dataset.camera); renderBig(lastCameras); $("camera-dialog").showModal(); });
        box.appendChild(b);
      }
      const img = b.querySelector("img");
      if (c.has_picture && img.getAttribute("src") !== pictureUrl(c)) img.src = pictureUrl(c);
      b.querySelector("span").textContent = cameraNote(c);
      b.title = `${c.source} — click to enlarge`;
    }
    for (const b of [...box.children]) {
      if (!others.some((c) => String(c.camera) === b.dataset.camera)) b.remove();
    }
    renderBig(cams);
  }

  function renderBig(cams) {
    const c = cams.find((x) => x.camera === bigCamera);
    if (!c) return;
    $("camera-dialog-title").textContent = `Camera ${c.camera}`;
    $("camera-big").alt = `Camera ${c.camera}: ${c.source}`;
    if (c.has_picture && $("camera-big").getAttribute("src") !== pictureUrl(c)) $("camera-big").src = pictureUrl(c);
    $("camera-dialog-note").textContent = `${cameraNote(c)} (${c.source})`;
  }
  $("camera-dialog-close").addEventListener("click", () => $("camera-dialog").close());
  $("camera-dialog").addEventListener("close", () => { bigCamera = null; });

  async function refreshCameras() {
    if (!matchId || !summary || !summary.loop || $("live-card").hidden) return;
    const out = await api(matchPath(matchId, "/cameras"));
    renderCameras(out.cameras || []);
  }

  function showSvg(svg) {
    const board = $("board");
    board.innerHTML = svg;
    if (summary && summary.game !== "highway-dice" && summary.game !== "tokyo-highway") {
      for (const t of board.querySelectorAll("svg text")) t.textContent = named(t.textContent);
    }
    legible();
  }

  // The boards are drawn at real size for print, where a 2.4 mm cell label reads well; on a screen
  // the whole board is a few hundred pixels wide. Small labels are enlarged (up to 3x) to about
  // 11 px as shown, so the dice board's cell names and the Tokyo legend can be read.
  const MIN_PX = 11;
  function legible() {
    const svg = $("board").querySelector("svg");
    if (!svg || !svg.viewBox || !svg.viewBox.baseVal || !svg.viewBox.baseVal.width) return;
    const shown = svg.getBoundingClientRect().width;
    if (!shown) return;
    const perUnit = shown / svg.viewBox.baseVal.width;
    for (const t of svg.querySelectorAll("text")) {
      if (!t.dataset.size) t.dataset.size = t.getAttribute("font-size") || "";
      const size = parseFloat(t.dataset.size);
      if (!size) continue;
      const want = Math.min(Math.max(size, MIN_PX / perUnit), size * 3);
      t.setAttribute("font-size", String(+want.toFixed(2)));
    }
  }
  addEventListener("resize", () => legible());

  async function loadBoard() {
    const id = matchId;
    const resp = await fetch(matchPath(id, "/board.svg"));
    if (resp.ok && id === matchId) showSvg(await resp.text());
  }
  $("board-zoom").addEventListener("click", () => {
    const zoomed = $("board").classList.toggle("zoomed");
    legible();
    $("board-zoom").textContent = zoomed ? "Fit" : "Zoom";
    $("board-zoom").setAttribute("aria-pressed", String(zoomed));
  });

  function addFeed(ev) {
    const li = document.createElement("li");
    const d = ev.data || {};
    if (ev.kind === "verdict" && !d.correction) fedSeqs.add(d.seq);
    if (ev.kind === "verdict") {
      const v = d.verdict || {};
      li.className = d.correction ? "note" : v.legal ? "legal" : "illegal";
      const who = summary && d.player >= 0 ? (summary.players[d.player] || "") : "";
      const move = named(d.notation || "");
      const what = who && !move.startsWith(who) ? `${who} ${move}` : move;
      li.innerHTML = `<span class="src">${esc(d.source === "vision" ? "camera" : d.source || "")}` +
        `${d.confidence && d.confidence < 1 ? " " + Math.round(d.confidence * 100) + "%" : ""}</span>` +
        `<div class="what">${d.correction ? "Correction " + esc(move) : (v.legal ? "✓ " : "✗ ") + esc(what)}</div>` +
        `<div>${esc(named(v.reason || ""))}</div><div class="rule">${esc(v.rule || "")}${v.consequence && v.consequence !== "none" ? " · " + esc(v.consequence.replace("_", " ")) : ""}</div>`;
    } else {
      li.className = "note";
      const text = d.message || d.ended || (d.outcome ? named(d.outcome.reason) : "");
      const title = ev.kind === "match-end" && d.ended ? "match ended" : ev.kind.replace(/-/g, " ");
      li.innerHTML = `<div class="what">${esc(title)}</div><div>${esc(text)}</div>`;
    }
    $("feed").prepend(li);
    renderLatest();
  }

  function clearFeed() { $("feed").innerHTML = ""; delete $("feed").dataset.loaded; fedSeqs.clear(); renderLatest(); }

  function connect() {
    if (source) source.close();
    if (!matchId) return;
    const id = matchId;
    // the history shown came with the summary: stream only what happens after it
    const after = summary && summary.match_id === id ? summary.last_event_id || 0 : 0;
    source = new EventSource(`${matchPath(id, "/events")}?last_id=${after}`);
    const handler = (kind) => (e) => {
      const ev = JSON.parse(e.data);
      if (id !== matchId || ev.match_id !== id) return;  // a stream of a match no longer on show
      if (kind === "match-start") {  // the match was started afresh (a recorded demo replays)
        clearFeed();
        loadMatch().catch(() => {});
        return;
      }
      if (kind === "verdict" || kind === "table-mismatch" || kind === "match-end" || kind === "camera") {
        // a verdict is shown once: the feed, not the latest summary, says which are on show (a summary
        // fetched after a move already holds it before the move's own event comes in)
        const shown = kind === "verdict" && !ev.data.correction && fedSeqs.has(ev.data.seq);
        if (!shown) {
          addFeed(ev);
          if (kind === "verdict") announce(ev, summary);
          if (kind === "match-end" && prefs.speak) {
            const d = ev.data || {};
            say(d.ended ? `Match ended: ${d.ended}` : named((d.outcome || {}).reason || "Game over"));
          }
        }
      }
      if (kind === "confirm-needed") showConfirm(ev.data);
      if (kind === "camera") loadStatus().catch(() => {});
      loadMatch().catch(() => {});
    };
    for (const k of ["verdict", "turn", "table-mismatch", "confirm-needed", "camera", "match-end", "roll", "match-start"]) {
      source.addEventListener(k, handler(k));
    }
    source.onerror = () => setPill($("camera-pill"), "reconnecting…", "bad");
    source.onopen = () => loadStatus().catch(() => {});
  }

  // -- actions: each names the match the user was looking at ---------------------------------------
  function shownMatch() {
    if (!summary || summary.match_id !== matchId) throw new Error("The page is still loading this match: try again.");
    return summary.match_id;
  }

  function showConfirm(d) {
    $("confirm-card").hidden = false;
    $("confirm-text").textContent = d.message || "The camera is not sure. Which move was it?";
    const box = $("confirm-buttons");
    box.innerHTML = "";
    const id = matchId;
    for (const c of d.candidates || []) {
      const b = document.createElement("button");
      b.textContent = `${c.notation} (${Math.round((c.confidence || 0) * 100)}%)`;
      b.onclick = async () => {
        try { await api(matchPath(id, "/confirm"), { method: "POST", body: JSON.stringify({ notation: c.notation }) }); $("confirm-card").hidden = true; }
        catch (e) { showResult(e.message, false); }
      };
      box.appendChild(b);
    }
  }

  function showResult(text, ok) {
    const r = $("move-result");
    r.textContent = text;
    r.className = "result " + (ok ? "ok" : "bad");
  }

  $("move-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const notation = $("move-input").value.trim();
    if (!notation) return;
    try {
      const id = shownMatch();
      const out = await api(matchPath(id, "/actions"), { method: "POST", body: JSON.stringify({ notation }) });
      if (id === matchId) showResult(`${out.verdict.legal ? "✓" : "✗"} ${named(out.verdict.reason)} [${out.verdict.rule}]`, out.verdict.legal);
      $("move-input").value = "";
    } catch (err) { showResult(err.message, false); }
  });

  $("undo-btn").addEventListener("click", async () => {
    try {
      const id = shownMatch();
      const last = summary.history[summary.history.length - 1];
      if (!last) return showResult("Nothing to withdraw.", false);
      // the seq pins the move shown: if the match moved on meanwhile the referee refuses
      await api(matchPath(id, "/corrections"), { method: "POST", body: JSON.stringify({ target: last.seq, reason: "withdrawn on the page" }) });
      showResult(`Withdrawn: ${named(last.notation)}`, true);
    } catch (err) { showResult(err.message, false); }
  });

  $("hint-btn").addEventListener("click", async () => {
    try {
      const id = shownMatch();
      const out = await api(matchPath(id, "/hint"));
      if (id === matchId) showResult(out.hint ? named(out.hint.text || JSON.stringify(out.hint)) : "No hint for this game here.", !!out.hint);
    } catch (err) { showResult(err.message, false); }
  });

  $("end-btn").addEventListener("click", async () => {
    try {
      const id = shownMatch();
      if (!confirm(`End ${summary.players.join(" v ")} now? The log is kept; the match takes no more moves.`)) return;
      await api(matchPath(id, "/end"), { method: "POST", body: JSON.stringify({ reason: "ended on the page" }) });
      showResult("The match is ended.", true);
      await loadMatches(); await loadMatch();
    } catch (err) { showResult(err.message, false); }
  });

  // -- new match: players and the game's variant options -------------------------------------------
  const DEFAULT_NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu"];
  const typedNames = () => $("new-players").value.split(",").map((s) => s.trim()).filter(Boolean);

  function renderNewMatchOptions() {
    const g = games[$("new-game").value];
    if (!g) return;
    const count = $("new-count");
    const want = Math.min(Math.max(typedNames().length, g.min_players), g.max_players);
    count.innerHTML = "";
    for (let n = g.min_players; n <= g.max_players; n++) count.add(new Option(String(n), String(n)));
    count.value = String(want);
    setNames(want);
    const box = $("new-variants");
    box.innerHTML = "";
    for (const v of g.variants || []) {
      const field = document.createElement("fieldset");
      field.className = "variant";
      field.dataset.name = v.name;
      field.dataset.kind = v.kind;
      field.title = v.help || "";
      let inner = `<legend>${esc(v.label)}</legend>`;
      if (v.kind === "set") inner += v.choices.map((c) => `<label><input type="checkbox" value="${esc(c)}"> ${esc(c)}</label>`).join(" ");
      if (v.kind === "bool") inner = `<label><input type="checkbox"${v.default ? " checked" : ""}> ${esc(v.label)}</label>`;
      if (v.kind === "seat") inner += `<select aria-label="${esc(v.label)}"></select>`;
      field.innerHTML = inner;
      box.appendChild(field);
    }
    renderSeatChoices();
  }

  function setNames(n) {
    const names = typedNames().slice(0, n);
    while (names.length < n) names.push(DEFAULT_NAMES.find((d) => !names.includes(d)) || `Player ${names.length + 1}`);
    $("new-players").value = names.join(", ");
  }

  function renderSeatChoices() {
    for (const sel of $("new-variants").querySelectorAll("[data-kind=seat] select")) {
      const keep = sel.value;
      sel.innerHTML = "";
      typedNames().forEach((name, k) => sel.add(new Option(name, String(k))));
      if (keep && Number(keep) < sel.options.length) sel.value = keep;
    }
  }

  function chosenVariant() {
    const out = {};
    for (const f of $("new-variants").querySelectorAll("fieldset.variant")) {
      const kind = f.dataset.kind;
      if (kind === "set") out[f.dataset.name] = [...f.querySelectorAll("input:checked")].map((i) => i.value);
      if (kind === "bool") out[f.dataset.name] = f.querySelector("input").checked;
      if (kind === "seat") out[f.dataset.name] = Number(f.querySelector("select").value || 0);
    }
    return out;
  }

  $("new-game").addEventListener("change", renderNewMatchOptions);
  $("new-count").addEventListener("change", () => { setNames(Number($("new-count").value)); renderSeatChoices(); });
  $("new-players").addEventListener("input", () => {
    const g = games[$("new-game").value];
    const n = typedNames().length;
    if (g && n >= g.min_players && n <= g.max_players) $("new-count").value = String(n);
    renderSeatChoices();
  });

  $("new-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const players = typedNames();
    const g = games[$("new-game").value];
    if (g && (players.length < g.min_players || players.length > g.max_players)) {
      return showResult(`${g.title.split(" (")[0]} takes ${g.min_players}–${g.max_players} players: name each, separated by commas.`, false);
    }
    try {
      const out = await api("/api/matches", { method: "POST", body: JSON.stringify({ game: $("new-game").value, players, variant: chosenVariant() }) });
      choose(out.match_id);
      await loadMatches(); await loadMatch(); connect();
      showResult(`Started: ${players.join(" v ")}.`, true);
    } catch (err) { showResult(err.message, false); }
  });

  function choose(id) {
    matchId = id;
    chosen = true;
    summary = null;
    replaying = false;
    clearFeed();
    const q = new URLSearchParams(location.search);
    q.set("match", id);  // a reload stays on this match too
    history.replaceState(null, "", location.pathname + "?" + q);
  }

  $("match-select").addEventListener("change", async (e) => {
    choose(e.target.value);
    await loadMatch(); connect();
  });

  async function showStep(n) {
    const id = matchId;
    const out = await api(`${matchPath(id, "/replay")}?step=${n}`);
    if (id !== matchId) return;
    replaying = true;
    $("replay-step").max = String(out.steps - 1);
    $("replay-step").value = String(out.step);
    showSvg(out.svg);
    const i = out.info || {};
    $("replay-info").textContent = `Step ${out.step} of ${out.steps - 1}: ` +
      (i.what === "action" ? `${named(i.notation)} — ${i.verdict.legal ? "legal" : "illegal"} (${i.verdict.rule})` : i.what === "correction" ? `correction of #${i.target}` : "start");
    $("board-caption").textContent = "(replay)";
  }
  $("replay-step").addEventListener("input", (e) => showStep(Number(e.target.value)).catch(() => {}));
  $("replay-prev").addEventListener("click", () => showStep(Math.max(0, Number($("replay-step").value) - 1)).catch(() => {}));
  $("replay-next").addEventListener("click", () => showStep(Number($("replay-step").value) + 1).catch(() => {}));
  $("replay-live").addEventListener("click", async () => {
    replaying = false; $("board-caption").textContent = ""; $("replay-info").textContent = "Showing the live position.";
    await loadBoard();
  });

  (async () => {
    setPill($("token-pill"), token() ? "referee" : "view only", token() ? "ok" : "");
    renderPrefs();
    try {
      const st = await loadStatus();
      await loadGames();
      await loadMatches(st);
      await loadMatch();
      connect();
    } catch (err) { $("turn-text").textContent = "Cannot reach the referee: " + err.message; }
    // follow the referee's featured match (a new camera match) until the user picks or starts one
    setInterval(async () => {
      try {
        const st = await loadStatus();
        if (!chosen && st.featured && st.featured !== matchId) {
          matchId = st.featured;
          summary = null;
          clearFeed();
          await loadMatches(st); await loadMatch(); connect();
        }
      } catch (e) { /* the stream's onerror already shows the state */ }
    }, 10000);
    // the other cameras' pictures follow the match (the live view of camera 1 is a stream)
    setInterval(() => refreshCameras().catch(() => {}), 1500);
  })();
})();
