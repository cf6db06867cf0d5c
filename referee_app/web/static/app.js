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
  let chosen = !!matchId;  // the user picked a match: do not follow the featured one
  let source = null;
  let replaying = false;
  let summary = null;

  async function api(path, opts = {}) {
    const headers = Object.assign({ "Content-Type": "application/json" }, opts.headers || {});
    if (token()) headers["X-Referee-Token"] = token();
    const resp = await fetch(path, Object.assign({}, opts, { headers }));
    let data = null;
    try { data = await resp.json(); } catch (e) { data = { error: resp.statusText }; }
    if (!resp.ok) throw Object.assign(new Error(data.error || resp.statusText), { status: resp.status });
    return data;
  }

  function esc(s) {
    return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }

  function setPill(el, text, cls) { el.textContent = text; el.className = "pill " + (cls || ""); }

  async function loadStatus() {
    const st = await api("/api/status");
    const cam = st.camera || {};
    setPill($("camera-pill"), "camera: " + (cam.status || "none"),
      cam.status === "ok" ? "ok" : cam.status === "lost" ? "bad" : "");
    $("camera-pill").title = cam.message || "";
    const sel = $("new-game");
    if (!sel.options.length) {
      for (const g of st.games) sel.add(new Option(g.title, g.name));
    }
    return st;
  }

  async function loadMatches(st) {
    const data = await api("/api/matches");
    const sel = $("match-select");
    sel.innerHTML = "";
    for (const m of data.matches) {
      const label = `${m.game} · ${(m.players || []).join(" v ")} · ${(m.started || "").slice(0, 16).replace("T", " ")}`;
      sel.add(new Option(label, m.match_id));
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
      d.innerHTML = `<span class="muted small">${esc(k.replace(/_/g, " "))}</span><br><b>${esc(v)}</b>`;
      box.appendChild(d);
    }
  }

  function outcomeText(s) {
    const o = s.outcome || {};
    if (o.draw) return "Draw";
    const names = (o.winners || []).map((w) => s.players[w] || `Seat ${w + 1}`);
    return names.length ? `${names.join(" and ")} wins` : "Game over";
  }

  function turnText(s) {
    if (s.terminal) return outcomeText(s);
    if (s.chance) return s.to_move_name ? `${s.to_move_name} to roll` : "Waiting for the roll";
    return s.to_move_name ? `${s.to_move_name} to move` : "Waiting";
  }

  async function loadMatch() {
    if (!matchId) { $("turn-text").textContent = "No match yet: start one below."; return; }
    summary = await api(`/api/matches/${encodeURIComponent(matchId)}`);
    $("game-title").textContent = `${summary.title} — ${summary.players.join(" v ")}` +
      (summary.terminal && summary.outcome ? ` · ${summary.outcome.reason}` : "");
    $("turn-text").textContent = turnText(summary);
    renderExtras(summary.extras);
    $("export-jsonl").href = `/api/matches/${matchId}/export?format=jsonl`;
    $("export-csv").href = `/api/matches/${matchId}/export?format=csv`;
    $("live-card").hidden = !summary.loop;
    if (!summary.loop) $("live").removeAttribute("src");
    if (summary.loop) {
      const want = `/video.mjpg?match=${encodeURIComponent(matchId)}`;
      if (!$("live").src.endsWith(want)) $("live").src = want;
      $("loop-status").textContent = summary.loop.message || "";
    }
    renderCameras(summary.loop ? summary.loop.cameras || [] : []);
    if (!replaying) await loadBoard();
    const steps = summary.history.length;
    $("replay-step").max = String(steps * 2 + 2);
    if (!replaying) $("replay-step").value = $("replay-step").max;
    const feed = $("feed");
    if (!feed.dataset.loaded) {
      feed.dataset.loaded = "1";
      for (const h of summary.history) addFeed({ kind: "verdict", data: h, id: h.seq });
    }
  }

  // the other cameras (2, 3 ...) as small pictures; camera 1 is the live view above them
  let bigCamera = null;
  let lastCameras = [];  // the latest list, for a thumbnail clicked between refreshes
  const pictureUrl = (c) => `/api/matches/${encodeURIComponent(matchId)}/cameras/${c.camera}.jpg?frame=${c.frame}`;
  function cameraNote(c) {
    const what = !c.has_picture ? "no picture" : c.annotated ? "what it read" : "plain frame";
    return `Camera ${c.camera} · ${what}${c.note ? " — " + c.note : ""}`;
  }

  function renderCameras(cams) {
    lastCameras = cams;
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
    const out = await api(`/api/matches/${encodeURIComponent(matchId)}/cameras`);
    renderCameras(out.cameras || []);
  }

  async function loadBoard() {
    const resp = await fetch(`/api/matches/${encodeURIComponent(matchId)}/board.svg`);
    if (resp.ok) $("board").innerHTML = await resp.text();
  }

  function addFeed(ev) {
    const li = document.createElement("li");
    const d = ev.data || {};
    if (ev.kind === "verdict") {
      const v = d.verdict || {};
      li.className = d.correction ? "note" : v.legal ? "legal" : "illegal";
      const who = summary && d.player >= 0 ? (summary.players[d.player] || "") : "";
      li.innerHTML = `<span class="src">${esc(d.source === "vision" ? "camera" : d.source || "")}` +
        `${d.confidence && d.confidence < 1 ? " " + Math.round(d.confidence * 100) + "%" : ""}</span>` +
        `<div class="what">${d.correction ? "Correction" : (v.legal ? "✓ " : "✗ ") + esc(who)} ${esc(d.notation || "")}</div>` +
        `<div>${esc(v.reason || "")}</div><div class="rule">${esc(v.rule || "")}${v.consequence && v.consequence !== "none" ? " · " + esc(v.consequence.replace("_", " ")) : ""}</div>`;
    } else {
      li.className = "note";
      const text = d.message || (d.outcome ? d.outcome.reason : "");
      li.innerHTML = `<div class="what">${esc(ev.kind.replace(/-/g, " "))}</div><div>${esc(text)}</div>`;
    }
    $("feed").prepend(li);
  }

  function connect() {
    if (source) source.close();
    if (!matchId) return;
    // the history shown came with the summary: stream only what happens after it
    const after = summary && summary.match_id === matchId ? summary.last_event_id || 0 : 0;
    source = new EventSource(`/api/matches/${encodeURIComponent(matchId)}/events?last_id=${after}`);
    const handler = (kind) => (e) => {
      const ev = JSON.parse(e.data);
      if (kind === "verdict" || kind === "table-mismatch" || kind === "match-end" || kind === "camera") {
        if (!(kind === "verdict" && summary && summary.history.some((h) => h.seq === ev.data.seq && !ev.data.correction))) addFeed(ev);
      }
      if (kind === "confirm-needed") showConfirm(ev.data);
      if (kind === "camera") loadStatus();
      loadMatch().catch(() => {});
    };
    for (const k of ["verdict", "turn", "table-mismatch", "confirm-needed", "camera", "match-end", "roll"]) {
      source.addEventListener(k, handler(k));
    }
    source.onerror = () => setPill($("camera-pill"), "reconnecting…", "bad");
    source.onopen = () => loadStatus().catch(() => {});
  }

  function showConfirm(d) {
    $("confirm-card").hidden = false;
    $("confirm-text").textContent = d.message || "The camera is not sure. Which move was it?";
    const box = $("confirm-buttons");
    box.innerHTML = "";
    for (const c of d.candidates || []) {
      const b = document.createElement("button");
      b.textContent = `${c.notation} (${Math.round((c.confidence || 0) * 100)}%)`;
      b.onclick = async () => {
        try { await api(`/api/matches/${matchId}/confirm`, { method: "POST", body: JSON.stringify({ notation: c.notation }) }); $("confirm-card").hidden = true; }
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
      const out = await api(`/api/matches/${encodeURIComponent(matchId)}/actions`, { method: "POST", body: JSON.stringify({ notation }) });
      showResult(`${out.verdict.legal ? "✓" : "✗"} ${out.verdict.reason} [${out.verdict.rule}]`, out.verdict.legal);
      $("move-input").value = "";
    } catch (err) { showResult(err.message, false); }
  });

  $("undo-btn").addEventListener("click", async () => {
    const last = summary && summary.history[summary.history.length - 1];
    if (!last) return showResult("Nothing to withdraw.", false);
    try {
      await api(`/api/matches/${matchId}/corrections`, { method: "POST", body: JSON.stringify({ target: last.seq, reason: "withdrawn on the page" }) });
      showResult(`Withdrawn: ${last.notation}`, true);
    } catch (err) { showResult(err.message, false); }
  });

  $("hint-btn").addEventListener("click", async () => {
    try {
      const out = await api(`/api/matches/${matchId}/hint`);
      showResult(out.hint ? (out.hint.text || JSON.stringify(out.hint)) : "No hint for this game here.", !!out.hint);
    } catch (err) { showResult(err.message, false); }
  });

  $("new-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const players = $("new-players").value.split(",").map((s) => s.trim()).filter(Boolean);
    try {
      const out = await api("/api/matches", { method: "POST", body: JSON.stringify({ game: $("new-game").value, players }) });
      matchId = out.match_id;
      $("feed").innerHTML = ""; delete $("feed").dataset.loaded;
      await loadMatches(); await loadMatch(); connect();
    } catch (err) { showResult(err.message, false); }
  });

  $("match-select").addEventListener("change", async (e) => {
    matchId = e.target.value;
    chosen = true;
    $("feed").innerHTML = ""; delete $("feed").dataset.loaded;
    replaying = false;
    await loadMatch(); connect();
  });

  async function showStep(n) {
    const out = await api(`/api/matches/${encodeURIComponent(matchId)}/replay?step=${n}`);
    replaying = true;
    $("replay-step").max = String(out.steps - 1);
    $("replay-step").value = String(out.step);
    $("board").innerHTML = out.svg;
    const i = out.info || {};
    $("replay-info").textContent = `Step ${out.step} of ${out.steps - 1}: ` +
      (i.what === "action" ? `${i.notation} — ${i.verdict.legal ? "legal" : "illegal"} (${i.verdict.rule})` : i.what === "correction" ? `correction of #${i.target}` : "start");
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
    try {
      const st = await loadStatus();
      await loadMatches(st);
      await loadMatch();
      connect();
    } catch (err) { $("turn-text").textContent = "Cannot reach the referee: " + err.message; }
    // follow the referee's featured match (a new camera match, a replayed recording) until the
    // user picks one
    setInterval(async () => {
      try {
        const st = await loadStatus();
        if (!chosen && st.featured && st.featured !== matchId) {
          matchId = st.featured;
          $("feed").innerHTML = ""; delete $("feed").dataset.loaded;
          await loadMatches(st); await loadMatch(); connect();
        }
      } catch (e) { /* the stream's onerror already shows the state */ }
    }, 10000);
    // the other cameras' pictures follow the match (the live view of camera 1 is a stream)
    setInterval(() => refreshCameras().catch(() => {}), 1500);
  })();
})();
