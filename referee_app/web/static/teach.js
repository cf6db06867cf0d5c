"use strict";
// Teach my dice (issue 21): take a frame from a camera or upload a photo, see the dice the reader found
// with their values, correct each value (or mark "not a die"), box a die it missed with a click, repeat
// for a few photos, then save a profile the server names and keeps. Teaching changes what the referee
// reads, so it needs the token.
(() => {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const token = () => localStorage.getItem("referee-token") || "";
  let maxPhotos = 6;
  const photos = [];  // [{photo, width, height, source, dice, url}] in the order they were taken
  let saved = null;  // the last saved profile's answer

  async function call(path, opts = {}) {
    const headers = Object.assign({}, opts.headers || {});
    if (token()) headers["X-Referee-Token"] = token();
    const resp = await fetch(path, Object.assign({ cache: "no-store" }, opts, { headers }));
    let data = null;
    try { data = await resp.json(); } catch (e) { data = { error: resp.statusText }; }
    if (!resp.ok) {
      let text = data.error || resp.statusText;
      if (resp.status === 429) text += " (busy: try again in a moment)";
      if (resp.status === 403) text = "This page may not teach: open the address printed where the referee was started (it carries the token).";
      throw Object.assign(new Error(text), { status: resp.status });
    }
    return data;
  }
  function say(text, ok) {
    const box = $("teach-message");
    box.textContent = text;
    box.className = "result " + (ok === undefined ? "" : ok ? "ok" : "bad");
  }

  // -- photos --------------------------------------------------------------------------------------
  function valueSelect(k, value) {
    const opts = [1, 2, 3, 4, 5, 6, 0].map((v) => `<option value="${v}"${v === value ? " selected" : ""}>${v || "not a die"}</option>`);
    return `<select class="teach-value" data-die="${k}" aria-label="Die ${k + 1}'s value">${opts.join("")}</select>`;
  }

  function addedSelect(k, value) {
    const opts = [["", "value?"], ...[1, 2, 3, 4, 5, 6].map((v) => [String(v), String(v)]), ["remove", "remove"]]
      .map(([v, t]) => `<option value="${v}"${v === String(value || "") ? " selected" : ""}>${t}</option>`);
    return `<select class="teach-added" data-added="${k}" aria-label="Added die ${k + 1}'s value">${opts.join("")}</select>`;
  }
  function boxStyle(p, box) {
    const [x1, y1, x2, y2] = box;
    return `left:${(100 * x1 / p.width).toFixed(2)}%;top:${(100 * y1 / p.height).toFixed(2)}%;` +
      `width:${(100 * (x2 - x1) / p.width).toFixed(2)}%;height:${(100 * (y2 - y1) / p.height).toFixed(2)}%`;
  }
  // a die the reader missed: a click on it boxes it, as large as the dice found on the same photo
  function addDie(p, img, e) {
    const rect = img.getBoundingClientRect();
    const x = (e.clientX - rect.left) * p.width / rect.width, y = (e.clientY - rect.top) * p.height / rect.height;
    const sides = p.dice.map((d) => Math.max(d.box[2] - d.box[0], d.box[3] - d.box[1])).sort((a, b) => a - b);
    const side = Math.max(8, Math.min(sides.length ? sides[sides.length >> 1] : p.width / 20, Math.min(p.width, p.height) / 2));
    const x1 = Math.min(Math.max(0, x - side / 2), p.width - side), y1 = Math.min(Math.max(0, y - side / 2), p.height - side);
    const inside = (b) => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];
    if (p.dice.some((d, k) => p.values[k] && inside(d.box)) || p.added.some((d) => inside(d.box))) {
      say("That die is boxed already: correct its value in the list below.", false);
      return;
    }
    const r1 = (v) => Math.round(v * 10) / 10;
    p.added.push({ box: [r1(x1), r1(y1), r1(x1 + side), r1(y1 + side)], value: 0 });
    render();
    say(`Boxed a die the reader missed (+${p.added.length}): choose its value in the list.`, true);
  }

  // the die itself, enlarged beside its menu: a square around its box, cut from the photo by CSS
  const THUMB = 48;
  function thumb(p, d) {
    const [x1, y1, x2, y2] = d.box;
    const side = 1.25 * Math.max(x2 - x1, y2 - y1, 1), k = THUMB / side;
    const left = (x1 + x2) / 2 - side / 2, top = (y1 + y2) / 2 - side / 2;
    const style = `background-image:url('${p.url}');background-size:${(p.width * k).toFixed(1)}px ${(p.height * k).toFixed(1)}px;` +
      `background-position:${(-left * k).toFixed(1)}px ${(-top * k).toFixed(1)}px`;
    return `<span class="teach-thumb" aria-hidden="true" style="${style}"></span>`;
  }

  function render() {
    const list = $("teach-photos");
    list.innerHTML = photos.map((p, n) => {
      const boxes = p.dice.map((d, k) => `<span class="teach-box" data-die="${k}" style="${boxStyle(p, d.box)}">` +
        `<b>${k + 1}</b></span>`).join("") + p.added.map((d, k) => `<span class="teach-box added" data-added="${k}" style="${boxStyle(p, d.box)}">` +
        `<b>+${k + 1}</b></span>`).join("");
      const rows = p.dice.map((d, k) => `<li>${thumb(p, d)}<label>Die ${k + 1} <span class="muted small">read ${d.value}` +
        ` (${Math.round(100 * d.confidence)} % sure)</span> ${valueSelect(k, p.values[k])}</label></li>`).join("") +
        p.added.map((d, k) => `<li>${thumb(p, d)}<label>Added die +${k + 1} ${addedSelect(k, d.value)}</label></li>`).join("");
      return `<div class="teach-photo" data-photo="${esc(p.photo)}">
        <div class="row gap"><b>Photo ${n + 1}</b><span class="muted small">${esc(p.source)} · ${p.dice.length} dice found</span>
          <button type="button" class="secondary small-button teach-drop" data-n="${n}">Remove</button></div>
        <div class="teach-picture"><img src="${esc(p.url)}" alt="Photo ${n + 1} with the dice found">${boxes}</div>
        <ol class="teach-dice">${rows}</ol></div>`;
    }).join("");
    for (const b of list.querySelectorAll(".teach-drop")) {
      b.addEventListener("click", () => {
        const [gone] = photos.splice(Number(b.dataset.n), 1);
        if (gone.url) URL.revokeObjectURL(gone.url);
        render();
      });
    }
    for (const pic of list.querySelectorAll(".teach-picture img")) {
      const card = pic.closest(".teach-photo");
      pic.addEventListener("click", (e) => addDie(photos.find((x) => x.photo === card.dataset.photo), pic, e));
    }
    for (const sel of list.querySelectorAll(".teach-added")) {
      const card = sel.closest(".teach-photo");
      const p = photos.find((x) => x.photo === card.dataset.photo);
      sel.addEventListener("change", () => {
        const k = Number(sel.dataset.added);
        if (sel.value === "remove") { p.added.splice(k, 1); render(); return; }
        p.added[k].value = Number(sel.value);
      });
    }
    for (const sel of list.querySelectorAll(".teach-value")) {
      const card = sel.closest(".teach-photo");
      const p = photos.find((x) => x.photo === card.dataset.photo);
      const mark = () => {
        p.values[Number(sel.dataset.die)] = Number(sel.value);  // the player's word, kept across redraws
        card.querySelector(`.teach-box[data-die="${sel.dataset.die}"]`).classList.toggle("not-die", sel.value === "0");
      };
      sel.addEventListener("change", mark);
      mark();
    }
    $("teach-count").textContent = `${photos.length} of ${maxPhotos} photos` +
      (photos.length && photos.length < 3 ? " (3 are usually enough)" : "");
    $("teach-save").disabled = !photos.length;
    for (const id of ["teach-take", "teach-upload"]) $(id).disabled = photos.length >= maxPhotos;
  }

  async function added(p) {
    maxPhotos = p.max_photos || maxPhotos;
    // the server keeps the photo: the page shows its copy, so a camera frame looks as it was read
    const resp = await fetch(`/api/teach/photos/${encodeURIComponent(p.photo)}.jpg`, { cache: "no-store" });
    p.url = resp.ok ? URL.createObjectURL(await resp.blob()) : "";
    p.values = p.dice.map((d) => d.value);
    p.added = [];  // dice the player boxed
    photos.push(p);
    render();
    say(`${p.dice.length} dice found on photo ${photos.length}: check each value and correct the wrong ones.`, true);
  }

  async function take() {
    const n = $("teach-camera").value;
    if (n === "") { say("No camera is listed: upload a photo instead.", false); return; }
    const which = n === "match" ? { match: $("match-select").value } : { camera: Number(n) };
    say(`Taking a photo with ${n === "match" ? "this match's camera" : "camera " + n}…`);
    $("teach-take").disabled = true;
    try {
      await added(await call("/api/teach/photos", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(which) }));
    } finally { render(); }
  }

  async function upload(file) {
    if (!file) return;
    say(`Reading ${file.name}…`);
    const kind = /png$/i.test(file.type) ? "image/png" : "image/jpeg";
    await added(await call("/api/teach/photos", { method: "POST", headers: { "Content-Type": kind }, body: file }));
  }

  // the camera the match on show watches first (the referee holds it: it cannot be opened twice), then
  // the cameras on this machine. The list is built aside and put in whole, so a refresh the page
  // starts while another is under way cannot leave a half list behind.
  async function findCameras() {
    const sel = $("teach-camera");
    const was = sel.value;
    const found = [];
    const match = $("match-select").value;
    if (match) {
      try {
        await call(`/api/matches/${encodeURIComponent(match)}/cameras`);
        found.push(new Option("This match's camera", "match"));
      } catch (e) { /* no camera watches this match */ }
    }
    try {
      const out = await busyRetry(() => call("/api/setup/cameras"));
      for (const c of out.cameras || []) found.push(new Option(`Camera ${c.index}`, String(c.index)));
    } catch (e) { /* no camera list: uploading still works */ }
    sel.replaceChildren(...found);
    if (found.some((o) => o.value === was)) sel.value = was;
    $("teach-take").hidden = !found.length;
    sel.hidden = !found.length;
  }

  // the referee answers one camera set-up request at a time: the set-up panel (or another tab) may
  // hold it for a moment, so a 429 is tried again a few times before the list goes without cameras
  async function busyRetry(fn, tries = 4) {
    for (let i = 1; ; i++) {
      try { return await fn(); } catch (e) {
        if (e.status !== 429 || i >= tries) throw e;
        await new Promise((ok) => setTimeout(ok, 500 * i));
      }
    }
  }

  // -- the profile ---------------------------------------------------------------------------------
  async function save() {
    const symbols = {};
    for (const box of document.querySelectorAll("#teach-symbols input:checked")) symbols[box.value] = true;
    const open = photos.findIndex((p) => p.added.some((d) => !d.value));
    if (open >= 0) {
      say(`Photo ${open + 1}: choose the value of each die you boxed (or remove it), then save.`, false);
      return;
    }
    const body = { name: $("teach-name").value, replace: $("teach-replace").checked, symbols,
      photos: photos.map((p) => ({ photo: p.photo, values: p.values,
        added: p.added.map((d) => ({ box: d.box, value: d.value })) })) };
    say("Teaching the referee your dice…");
    $("teach-save").disabled = true;
    try {
      saved = await call("/api/teach/profiles", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body) });
    } finally { $("teach-save").disabled = !photos.length; }
    const faces = Object.entries(saved.dice_per_value).map(([v, n]) => `${v}: ${n}`).join(", ");
    const marked = Object.keys(saved.symbols || {});
    say(`Saved the profile “${saved.name}” (dice per value ${faces}` +
      (marked.length ? `; faces with a symbol: ${marked.join(", ")}` : "") + ").", true);
    const untaught = saved.untaught.length ? `<p>Values never shown on these photos (${saved.untaught.join(", ")}) keep the default reading.</p>` : "";
    const box = $("teach-result");
    box.hidden = false;
    const live = [...$("teach-camera").options].some((o) => o.value === "match");
    box.innerHTML = `${untaught}<p>The referee reads with it once you ` + (live ? `either press <b>Use in this match</b>
      (the camera of the match on show takes it from its next frame, until the referee restarts) or ` : "") +
      `restart it with:</p><code class="teach-cmd">${esc(saved.serve)}</code>`;
    await listProfiles(saved.name);
  }

  // the saved profiles (kept across restarts), any of which the match on show can take up
  async function listProfiles(choose) {
    const sel = $("teach-saved");
    let names = [];
    try { names = (await call("/api/teach/profiles")).profiles || []; } catch (e) { /* none listed */ }
    const keep = choose || sel.value;
    sel.innerHTML = "";
    for (const n of names) sel.add(new Option(n, n));
    if (names.includes(keep)) sel.value = keep;
    const live = [...$("teach-camera").options].some((o) => o.value === "match");  // a camera watches the match
    $("teach-use-row").hidden = !live || !names.length;
  }

  async function use() {
    const match = $("match-select").value, name = $("teach-saved").value;
    if (!name || !match) return;
    const out = await call(`/api/matches/${encodeURIComponent(match)}/dice-profile`, { method: "POST",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ profile: name }) });
    say(`Match ${out.match_id} reads the dice with “${out.profile}” now: ${out.note}.`, true);
  }

  const guarded = (fn) => (...a) => fn(...a).catch((e) => say(e.message, false));
  async function openPanel() {
    const dialog = $("teach-dialog");
    if (!dialog.open) dialog.showModal();
    render();
    if (!token()) say("This page may not teach: open the address printed where the referee was started (it carries the token).", false);
    await sources();
  }
  // refreshes run one after another: opening the panel and the page learning its match at once
  // would otherwise send two camera-list requests and the referee would refuse the second
  let chain = Promise.resolve();
  function sources() {
    const next = chain.then(async () => { await findCameras(); await listProfiles(); });
    chain = next.catch(() => {});
    return next;
  }
  // the page may learn which match is on show after the panel opened (a slow first load) or the
  // user may pick another: the match's camera and the profiles it can take up follow it
  document.addEventListener("referee:match-shown", () => { if ($("teach-dialog").open) sources().catch(() => {}); });
  $("teach-symbols").insertAdjacentHTML("beforeend", [1, 2, 3, 4, 5, 6].map((v) =>
    `<label class="small"><input type="checkbox" value="${v}" aria-label="Face ${v} shows a symbol"> ${v}</label>`).join(" "));
  $("teach-btn").addEventListener("click", guarded(openPanel));
  $("teach-take").addEventListener("click", guarded(take));
  $("teach-upload").addEventListener("click", () => $("teach-file").click());
  $("teach-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    e.target.value = "";  // the same file may be chosen again
    guarded(upload)(file);
  });
  $("teach-save").addEventListener("click", guarded(save));
  $("teach-use").addEventListener("click", guarded(use));
  $("teach-close").addEventListener("click", () => $("teach-dialog").close());
})();
