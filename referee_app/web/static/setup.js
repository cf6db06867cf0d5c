"use strict";
// Camera set-up (issue 23): the panel that lists the cameras, shows a preview of one and runs the
// camera check for a game; and (issue 20) the check a running match made of its camera, shown
// beside the live view. Looking needs no token: these routes change nothing.
(() => {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  let checkGames = [];  // games whose board the check knows (from /api/setup/cameras)
  let previewUrl = null;  // the object URL of the snapshot on show

  // a failed answer's own words (the routes answer JSON errors), with what a 429 means to a user
  async function failure(resp) {
    let text = resp.statusText;
    try { text = (await resp.json()).error || text; } catch (e) { /* not JSON: keep the status text */ }
    if (resp.status === 429) text += " (the referee is busy with another camera request: try again in a moment)";
    return Object.assign(new Error(text), { status: resp.status });
  }
  async function getJson(path) {
    const resp = await fetch(path, { cache: "no-store" });
    if (!resp.ok) throw await failure(resp);
    return resp.json();
  }
  function say(text, ok) {
    const box = $("setup-message");
    box.textContent = text;
    box.className = "result " + (ok === undefined ? "" : ok ? "ok" : "bad");
  }

  // -- the check's report, in words and figures ------------------------------------------------------
  const fixed = (x, n) => (typeof x === "number" ? x.toFixed(n) : "–");
  function figures(r) {
    const found = (r.markers_found || []).length, missing = (r.markers_missing || []).length;
    const rows = [["Markers found", `${found} of ${found + missing || 4}` +
      (missing ? ` (missing ${r.markers_missing.join(", ")})` : "")]];
    if (r.localised && typeof r.distance_mm === "number") {  // the Tokyo mat's check: the camera's pose
      rows.push(
        ["Camera height", `${(r.camera_height_mm / 10).toFixed(0)} cm`],
        ["Tilt", `${fixed(r.tilt_deg, 1)}° from straight down`],
        ["Distance to the mat", `${(r.distance_mm / 10).toFixed(0)} cm`],
        ["Cameras", String(r.cameras || 1)],
        ["Marker reprojection error", `${fixed(r.reprojection_error_px, 2)} px`],
      );
    } else if (r.localised) {
      const ppm = r.px_per_mm || {};
      const sharp = (r.sharpness || {}).edge_blur_mm;
      const thirds = Object.entries((r.exposure || {}).thirds || {});
      rows.push(
        ["Pixels per mm", `${fixed(ppm.min, 2)}–${fixed(ppm.max, 2)} (median ${fixed(ppm.median, 2)})`],
        ["Tilt", `${fixed(r.tilt_deg, 1)}° (board centre ${fixed(r.view_angle_deg, 1)}° from straight down)`],
        ["Camera height", typeof r.camera_height_mm === "number" ? `${(r.camera_height_mm / 10).toFixed(0)} cm` : "–"],
        ["Sharpness", sharp === null || sharp === undefined ? "edge blur not measured" : `edge blur ${fixed(sharp, 2)} mm`],
        ["Glare", thirds.map(([k, v]) => `${k} ${fixed(100 * v.glare, 1)} %`).join(", ") || "–"],
        ["Smallest die face", `${fixed(r.smallest_die_face_px, 0)} px`],
      );
    }
    return `<dl class="figures">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("")}</dl>`;
  }

  // the verdict box: green when the set-up is inside the envelope, amber with the reasons and what
  // to change when not; `brief` puts the figures behind a disclosure (beside the live view)
  function renderReport(box, r, brief) {
    const ok = !!r.inside_envelope;
    const unknown = r.localised && r.inside_envelope === null;  // Tokyo with two cameras: no measured verdict
    box.hidden = false;
    box.className = "setup-verdict " + (ok ? "ok" : unknown ? "" : "warn");
    box.dataset.inside = unknown ? "unknown" : String(ok);
    const reasons = r.reasons || [], advice = r.advice || [];
    const head = ok ? "✓ set-up OK" : (unknown ? "ⓘ no measured verdict" : "⚠ outside the envelope") + (brief && reasons.length
      ? `: ${reasons[0]}${advice.length ? "; " + advice[0] : ""}` : "");
    let html = `<div class="head">${esc(head)}</div>`;
    if (!brief && reasons.length) html += `<div>Because:</div><ul class="reasons">${reasons.map((x) => `<li>${esc(x)}</li>`).join("")}</ul>`;
    if (!brief && advice.length) html += `<div>What to change:</div><ul class="advice">${advice.map((x) => `<li>${esc(x)}</li>`).join("")}</ul>`;
    const source = r.source ? ` · ${esc(r.source)}` : "";
    html += brief ? `<details><summary class="small">Figures${source}</summary>${figures(r)}</details>`
      : figures(r) + `<div class="muted small">${esc(r.game || "")}${source}</div>`;
    box.innerHTML = html;
  }

  // -- the panel -------------------------------------------------------------------------------------
  function fillGames() {
    const sel = $("setup-game");
    const want = sel.value || $("new-game").value;
    sel.innerHTML = "";
    for (const g of checkGames) sel.add(new Option(g, g));
    if (checkGames.includes(want)) sel.value = want;
  }

  async function findCameras() {
    const sel = $("setup-camera");
    const keep = sel.value;
    say("Looking for cameras…");
    const out = await getJson("/api/setup/cameras");
    checkGames = out.games || checkGames;
    fillGames();
    sel.innerHTML = "";
    for (const c of out.cameras || []) sel.add(new Option(`Camera ${c.index} (${c.width}×${c.height})`, String(c.index)));
    if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
    const none = !sel.options.length;
    for (const b of ["setup-refresh", "setup-check"]) $(b).disabled = none;
    if (none) {
      $("setup-preview").hidden = true;
      say("No camera answered on this machine. Connect one (or close the program using it) and press Find cameras.", false);
      return;
    }
    say(`${sel.options.length} camera${sel.options.length > 1 ? "s" : ""} found.`, true);
    await preview();
  }

  async function preview() {
    const n = $("setup-camera").value;
    if (!n) return;
    const resp = await fetch(`/api/setup/cameras/${encodeURIComponent(n)}/preview.jpg`, { cache: "no-store" });
    if (!resp.ok) throw await failure(resp);
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = URL.createObjectURL(await resp.blob());
    const img = $("setup-preview");
    img.src = previewUrl;
    img.hidden = false;
    img.alt = `Preview of camera ${n}`;
  }

  async function check() {
    const n = $("setup-camera").value, game = $("setup-game").value;
    if (!n) return;
    $("setup-check").disabled = true;
    say(`Checking camera ${n} for ${game}…`);
    try {
      const r = await getJson(`/api/setup/cameras/${encodeURIComponent(n)}/check?game=${encodeURIComponent(game)}`);
      renderReport($("setup-verdict"), r, false);
      if (r.localised && r.inside_envelope === null) say("No measured verdict for this set-up: see why.");
      else say(r.inside_envelope ? "This set-up can referee." : "This set-up is outside what the referee can read: see what to change.", !!r.inside_envelope);
    } finally { $("setup-check").disabled = false; }
  }

  const guarded = (fn) => () => fn().catch((e) => say(e.message, false));
  // the referee answers one camera request at a time (a second gets a 429): the panel's own requests
  // (a preview after choosing a camera, then Check at once) go one after another
  let chain = Promise.resolve();
  const queued = (fn) => () => { const p = chain.then(() => fn()); chain = p.catch(() => {}); return p; };
  async function openPanel() {
    const dialog = $("setup-dialog");
    if (!dialog.open) dialog.showModal();
    await findCameras();
  }
  $("setup-btn").addEventListener("click", guarded(queued(openPanel)));
  $("new-setup").addEventListener("click", guarded(queued(openPanel)));
  $("setup-find").addEventListener("click", guarded(queued(findCameras)));
  $("setup-refresh").addEventListener("click", guarded(queued(preview)));
  $("setup-check").addEventListener("click", guarded(queued(check)));
  $("setup-camera").addEventListener("change", () => { $("setup-verdict").hidden = true; guarded(queued(preview))(); });
  $("setup-game").addEventListener("change", () => { $("setup-verdict").hidden = true; });
  $("setup-close").addEventListener("click", () => $("setup-dialog").close());

  // -- the running match's own check, beside the live view ------------------------------------------
  function showMatchCheck(cams) {
    const box = $("match-check");
    const first = (cams || []).find((c) => c.camera === 1);
    const state = first && first.check;
    if (!state) { box.hidden = true; delete box.dataset.key; return; }
    const key = JSON.stringify(state);
    if (box.dataset.key === key && !box.hidden) return;  // unchanged: keep the figures open or shut
    box.dataset.key = key;
    if (state.report && (state.state === "done" || state.state === "running")) {
      renderReport(box, state.report, true);
      box.dataset.state = state.state;
      return;
    }
    box.hidden = false;
    box.className = "setup-verdict" + (state.state === "error" ? " warn" : "");
    box.dataset.state = state.state;
    delete box.dataset.inside;
    const words = { waiting: "Set-up check: waiting for the first frame", running: "Set-up check: checking the camera…",
      unavailable: "Set-up check: not available", error: "Set-up check failed" }[state.state] || "Set-up check";
    box.innerHTML = `<div class="head">${esc(words)}</div><div class="muted small">${esc(state.message || "")}</div>`;
  }

  window.refereeSetup = { showMatchCheck };
})();
