// The view of a replay page: the table, the list of battles, the timeline and the keys, one
// battle at a time. Only the battle shown is laid out, and of the list of battles only the rows
// in view. It reads the game through replay_game.js (D, stateAt, ev, sentence, fill, kindOf, label,
// gameJson), and knows each event by what its kind does (kindOf), never by the kind's name.

const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"];
const $ = (id) => document.getElementById(id);

// -- cards -----------------------------------------------------------------------------------
const esc = (t) => String(t).replace(/[&<>"]/g, (x) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[x]));
function face(c, extra) {
  const suit = D.suits[c];
  const cls = suit < 0 ? " joker" : (suit === 1 || suit === 2) ? " red" : "";
  return `<span class="card${cls}${extra || ""}" title="${esc(label(c))}">${esc(label(c))}</span>`;
}
let reveal = false;
function back(c, extra) {
  if (reveal) return face(c, " ghost" + (extra || ""));
  return `<span class="card down${extra || ""}" title="face down"></span>`;
}
function row(cards, shown) {
  if (!cards.length) return '<span class="empty">none</span>';
  return cards.map(shown).join("");
}
const seats = (list) => list.map((s) => `seat ${s}`).join(", ");
const count = (n, word) => `${n} ${n === 1 ? word : word + "s"}`;

// one line of the log: the event's sentence, its kind in data-kind
const line = (e, battle, cls) => `<li class="${cls}" data-kind="${esc(e.kind)}">${esc(sentence(e, battle))}</li>`;

// -- static parts ----------------------------------------------------------------------------
const G = D.game;
function outcomeText() {
  const end = ev(D.end);
  const tail = end.note === "win" ? `seat ${end.seat} wins` :
    end.note === "cycle" ? `a cycle${G.cycle_length ? ` (length ${G.cycle_length})` : ""}` :
    end.note === "capped" ? "capped (battle limit)" : end.note;
  return `${tail} after ${count(end.value, "battle")}`;
}
function setupStatic() {
  $("game-title").textContent = `Game ${G.game_id} · ${D.title}`;
  const opts = Object.entries(D.options).map(([k, v]) => `${k}=${v}`).join(", ");
  $("game-meta").innerHTML = `${esc(D.rule_set)} · rules ${esc(G.rules_id)} · seed ${esc(G.game_seed)} · ` +
    `${count(G.wars, "war")} in ${count(G.war_battles, "battle")}, deepest ${G.max_war_depth}<br>${esc(opts)}` +
    (D.policies.length ? `<br>policies: ${D.policies.map((p, s) => `seat ${s} ${esc(p)}`).join(" · ")}` : "") +
    (D.source_line ? `<br>${esc(D.source_line)}` : "");
  $("game-outcome").textContent = `Outcome: ${outcomeText()}`;
  if (D.disagreement) {
    $("warning").hidden = false;
    $("warning").textContent = `Warning: ${D.disagreement}`;
  }
  $("of-battles").textContent = `of ${N}`;
  $("jump-to").max = String(N);
  $("legend").innerHTML = Array.from({ length: SEATS }, (_, s) =>
    `<span><i style="background:${COLORS[s % COLORS.length]}"></i>seat ${s}</span>`).join("") +
    '<span><i style="background:#f59e0b;height:8px;width:3px"></i>war</span>';
  const seatsEl = $("seats");
  for (let s = 0; s < SEATS; s++) {
    const el = document.createElement("div");
    el.className = "seat";
    el.dataset.seat = String(s);
    el.style.setProperty("--seat", COLORS[s % COLORS.length]);
    seatsEl.appendChild(el);
  }
}

// -- one battle ------------------------------------------------------------------------------
function renderSeats(b, st) {
  const battle = b > 0 ? D.battles[b - 1] : null;
  const els = $("seats").children;
  for (let s = 0; s < SEATS; s++) {
    const el = els[s];
    const pile = st.pile[s], won = st.won[s], hand = st.hand[s];
    const held = pile.concat(won, hand);
    el.dataset.cards = held.map(label).join(" ");
    const out = st.out.indexOf(s) >= 0;
    el.classList.toggle("out", out);
    el.classList.toggle("won-battle", !!battle && battle.x === s);
    const tags = (out ? '<span class="tag out">out</span>' : "") +
      (battle && battle.x === s ? '<span class="tag">takes the table</span>' : "");
    const policy = D.policies[s] ? `<span class="policy">${esc(D.policies[s])}</span>` : "";
    let html = `<div class="seat-head"><span class="seat-name">Seat ${s}</span>` +
      `<span class="seat-count">${held.length} cards</span>${policy}${tags}</div>`;
    html += `<div class="area"><span class="area-name">${D.layout === "won" ? "Draw pile" : "Pile"} ${pile.length}<br><span class="muted">top first</span></span>` +
      `<div class="cards${reveal ? "" : " stack"}">${row(pile, (c) => back(c))}</div></div>`;
    if (D.layout === "won") {
      html += `<div class="area"><span class="area-name">Won pile ${won.length}<br><span class="muted">top first</span></span>` +
        `<div class="cards${reveal ? "" : " stack"}">` +
        (won.length ? face(won[0]) + won.slice(1).map((c) => back(c)).join("") : '<span class="empty">none</span>') +
        "</div></div>";
    }
    if (D.layout === "hands") {
      html += `<div class="area"><span class="area-name">Hand ${hand.length}</span>` +
        `<div class="cards">${row(hand, (c) => back(c))}</div></div>`;
    }
    el.innerHTML = html;
  }
}

function renderTable(b, st) {
  const tableEl = $("table"), collectsEl = $("collects"), decisionsEl = $("decisions"), asideEl = $("aside");
  const badge = $("war-badge");
  const evEl = $("events");
  if (b === 0) {
    $("battle-title").textContent = "The deal";
    badge.hidden = true;
    const deal = D.deal.map(ev);
    tableEl.innerHTML = deal.filter((e) => kindOf(e.kind).deals).map((e) =>
      `<div class="table-row" style="--seat:${COLORS[e.seat % COLORS.length]}"><span class="table-seat"><i></i>Seat ${e.seat}</span>` +
      `<span class="muted">dealt ${e.cards.length} cards</span></div>`).join("");
    collectsEl.innerHTML = "";
    decisionsEl.innerHTML = "";
    evEl.innerHTML = deal.map((e) => line(e, 0, "")).join("") + "<li>Press <kbd>&rarr;</kbd> for battle 1.</li>";
  } else {
    const battle = D.battles[b - 1];
    const events = battle.e.map(ev);
    $("battle-title").textContent = `Battle ${b}`;
    badge.hidden = !battle.w;
    badge.textContent = battle.w ? `${warName(battle.w)} · depth ${battle.w}` : "";
    const rows = Array.from({ length: SEATS }, () => []);
    const collects = [], decisions = [], log = [];
    let depth = 0;
    for (const e of events) {
      const k = kindOf(e.kind);
      const deep = k.detail || (depth > 0 && k.lays && k.face_up);
      if (k.lays && k.face_up) rows[e.seat].push(...e.cards.map((c) => face(c, " big")));
      else if (k.lays) rows[e.seat].push(...e.cards.map((c) => back(c, " mid")));
      else if (k.role === "starts_war") {
        depth = e.value;
        for (const s of e.seats) rows[s].push(`<span class="round" title="${esc(warName(e.value))}">${e.value > 1 ? `WAR ${e.value}` : "WAR"}</span>`);
      } else if (k.mark && e.seat !== null) rows[e.seat].push(`<span class="round">${esc(k.mark)}</span>`);
      else if (k.collects) collects.push(e);
      else if (k.role === "decides") decisions.push(e);
      const cls = k.role === "starts_war" ? "war-line" : "";
      log.push(line(e, b, `${deep ? "deep " : ""}${cls}`));
    }
    tableEl.innerHTML = rows.map((cards, s) => (cards.length ?
      `<div class="table-row" style="--seat:${COLORS[s % COLORS.length]}"><span class="table-seat"><i></i>Seat ${s}</span>` +
      `<span class="table-cards">${cards.join("")}</span></div>` : "")).join("") ||
      '<span class="empty">no card on the table</span>';
    collectsEl.innerHTML = collects.map((e) =>
      `<div class="collect"><b>Seat ${e.seat} collects ${e.cards.length} cards</b>, in the order they join its ` +
      `${D.layout === "won" ? "won pile (first on top)" : "pile (first goes under first)"}:` +
      `<div class="cards">${e.cards.map((c) => face(c)).join("")}</div></div>`).join("") +
      events.filter((e) => kindOf(e.kind).sets_aside).map((e) =>
        `<div class="collect"><b>Nobody is left in the war: ${e.cards.length} cards set aside</b>` +
        `<div class="cards">${e.cards.map((c) => face(c)).join("")}</div></div>`).join("");
    decisionsEl.innerHTML = decisions.map(renderDecision).join("");
    evEl.innerHTML = log.join("");
  }
  if (b === N) evEl.innerHTML += line(ev(D.end), b, "");
  asideEl.innerHTML = st.aside.length ?
    `<div class="muted">Set aside (out of play): ${st.aside.length}</div><div class="cards">${st.aside.map((c) => face(c)).join("")}</div>` : "";
  if (b === N) {
    asideEl.innerHTML += `<div class="end">${esc(outcomeText())}</div>`;
  }
}

// A decision, as its declaration says: what it chooses (seats, or a card among its options) and
// its heading, a template filled as a sentence is.
function renderDecision(e) {
  const d = own(S.decisions, e.note) ? S.decisions[e.note] : { title: str(e.note), chooses: "card" };
  if (d.chooses === "seats") {
    const chips = e.options.map((s) => `<span class="tag${e.seats.indexOf(s) >= 0 ? "" : " out"}">seat ${s}</span>`).join(" ");
    return `<div class="decision"><b>Seat ${e.seat} decides: ${esc(fill(d.title, e))}</b> ` +
      (e.cards.length ? `${face(e.cards[0])} ` : "") + `${esc(fill(template(e, current), e))} ${chips}</div>`;
  }
  const chosen = e.cards[0];
  return `<div class="decision"><b>Seat ${e.seat} chooses ${esc(fill(d.title, e))}</b>: ${esc(label(chosen))}` +
    `<div class="cards">${e.options.map((c) => face(c, c === chosen ? " chosen" : " option")).join("")}</div></div>`;
}

// -- timeline: the game drawn once on one canvas, the battle shown on a canvas above it ----------
const canvas = $("timeline");
const overlay = $("cursor");
const PAD = { l: 34, r: 10, t: 16, b: 30 };  // the bottom holds the war ticks, then battle numbers
let drawn = false;
function geometry() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  return { w: w, h: h, x: (b) => PAD.l + (N ? b / N : 0) * (w - PAD.l - PAD.r), total: D.labels.length,
    y: (c) => PAD.t + (1 - c / D.labels.length) * (h - PAD.t - PAD.b) };
}
function fit(c, g) {
  const ratio = window.devicePixelRatio || 1;
  c.width = Math.max(1, Math.round(g.w * ratio));
  c.height = Math.max(1, Math.round(g.h * ratio));
  const ctx = c.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  return ctx;
}
function drawBase() {
  const g = geometry();
  const ctx = fit(canvas, g);
  fit(overlay, g);
  ctx.font = "10px system-ui, sans-serif";
  ctx.fillStyle = "#6b7785";
  ctx.strokeStyle = "#e3e7ec";
  ctx.lineWidth = 1;
  for (const part of [0, 0.5, 1]) {
    const y = Math.round(g.y(part * g.total)) + 0.5;
    ctx.beginPath(); ctx.moveTo(PAD.l, y); ctx.lineTo(g.w - PAD.r, y); ctx.stroke();
    ctx.fillText(String(Math.round(part * g.total)), 4, y + 3);
  }
  // wars: one path of ticks under the plot, taller for deeper wars
  const warBase = g.h - 15;
  ctx.strokeStyle = "#f59e0b";
  ctx.beginPath();
  for (let b = 1; b <= N; b++) {
    const d = D.battles[b - 1].w;
    if (d) {
      const x = g.x(b);
      ctx.moveTo(x, warBase);
      ctx.lineTo(x, warBase - Math.min(10, 3 * d + 1));
    }
  }
  ctx.stroke();
  // battle numbers along the bottom, a round step about every 90 pixels
  ctx.fillStyle = "#6b7785";
  ctx.strokeStyle = "#c3cad3";
  ctx.lineWidth = 1;
  const step = roundStep(N / Math.max(1, (g.w - PAD.l - PAD.r) / 90));
  let right = -Infinity;
  const ticks = [];
  for (let b = 0; b <= N; b += step) {
    const text = String(b);
    const w = ctx.measureText(text).width;
    const x = Math.min(Math.max(g.x(b) - w / 2, PAD.l - w / 2), g.w - w - 1);
    if (x < right + 8) continue;
    right = x + w;
    ticks.push(b);
    ctx.beginPath(); ctx.moveTo(Math.round(g.x(b)) + 0.5, warBase + 1); ctx.lineTo(Math.round(g.x(b)) + 0.5, warBase + 4); ctx.stroke();
    ctx.fillText(text, x, g.h - 2);
  }
  canvas.dataset.ticks = ticks.join(" ");  // the battle numbers drawn, for tests
  ctx.lineWidth = 1.6;
  ctx.lineJoin = "round";
  for (let s = 0; s < SEATS; s++) {
    const counts = D.counts[s];
    ctx.strokeStyle = COLORS[s % COLORS.length];
    ctx.beginPath();
    // at most a few points a pixel: the path stays light for any game length
    const stride = Math.max(1, Math.floor(N / (g.w * 2)));
    ctx.moveTo(g.x(0), g.y(counts[0]));
    for (let b = stride; b <= N; b += stride) ctx.lineTo(g.x(b), g.y(counts[b]));
    ctx.lineTo(g.x(N), g.y(counts[N]));
    ctx.stroke();
  }
  drawn = true;
}
function roundStep(raw) {
  const power = Math.pow(10, Math.floor(Math.log10(Math.max(1, raw))));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}
function drawTimeline(b) {
  if (!drawn) drawBase();
  const g = geometry();
  const ctx = overlay.getContext("2d");
  ctx.clearRect(0, 0, g.w, g.h);
  const x = g.x(b);
  ctx.strokeStyle = "#111827";
  ctx.lineWidth = 1.5;
  ctx.beginPath(); ctx.moveTo(x, PAD.t - 2); ctx.lineTo(x, g.h - 14); ctx.stroke();
  for (let s = 0; s < SEATS; s++) {
    ctx.fillStyle = COLORS[s % COLORS.length];
    ctx.beginPath(); ctx.arc(x, g.y(D.counts[s][b]), 3.5, 0, 2 * Math.PI); ctx.fill();
  }
  ctx.fillStyle = "#111827";
  ctx.font = "bold 10px system-ui, sans-serif";
  const text = b === 0 ? "deal" : `battle ${b}`;
  const w = ctx.measureText(text).width;
  ctx.fillText(text, Math.min(Math.max(PAD.l, x - w / 2), g.w - PAD.r - w), 10);
}
function battleAtX(clientX) {
  const rect = overlay.getBoundingClientRect();
  const g = geometry();
  const f = (clientX - rect.left - PAD.l) / (g.w - PAD.l - PAD.r);
  return Math.max(0, Math.min(N, Math.round(f * N)));
}

// -- the list of battles: one row a battle, only the rows in view laid out ----------------------
const ROW = 22;  // px: a row's height (style.css, .battle-item)
const WARS = [], DECIDED = new Set(), LEADS = new Map(D.leads.map(([b, s]) => [b, s]));
D.battles.forEach((bt, i) => {
  if (bt.w) WARS.push(i + 1);
  if (bt.e.some((e) => kindOf(e[0]).role === "decides")) DECIDED.add(i + 1);
});
const LEAD_AT = D.leads.map(([b]) => b);
const list = $("battle-list"), items = $("battle-items");
let laid = "";
function itemHtml(b) {
  const cls = b === current ? " current" : "";
  if (b === 0) {
    return `<div class="battle-item${cls}" data-battle-item="0" role="option" aria-selected="${b === current}" style="top:0">` +
      '<span class="n">0</span><span class="who muted">the deal</span></div>';
  }
  const bt = D.battles[b - 1];
  const who = bt.x === null || bt.x === undefined ? '<span class="muted">nobody</span>' :
    `<i style="background:${COLORS[bt.x % COLORS.length]}"></i>seat ${bt.x}`;
  const war = bt.w ? `<span class="mark war" title="${esc(warName(bt.w))}">${bt.w > 1 ? `WAR \u00d7${bt.w}` : "WAR"}</span>` : "";
  const decided = DECIDED.has(b) ? '<span class="mark decision" title="a player decided">\u25C6</span>' : "";
  const lead = LEADS.has(b) ? `<span class="mark lead" title="seat ${LEADS.get(b)} takes the lead">\u25B2 ${LEADS.get(b)}</span>` : "";
  return `<div class="battle-item${cls}${bt.w ? " war" : ""}" data-battle-item="${b}" data-war="${bt.w || 0}"` +
    (DECIDED.has(b) ? " data-decision" : "") + (LEADS.has(b) ? ` data-lead="${LEADS.get(b)}"` : "") +
    ` role="option" aria-selected="${b === current}" style="top:${b * ROW}px">` +
    `<span class="n">${b}</span><span class="who">${who}</span>${war}${decided}${lead}</div>`;
}
function layList(force) {
  const top = list.scrollTop, height = list.clientHeight || 300;
  const first = Math.max(0, Math.floor(top / ROW) - 3), last = Math.min(N, Math.ceil((top + height) / ROW) + 3);
  const key = `${first}:${last}:${current}`;
  if (!force && key === laid) return;
  laid = key;
  let html = "";
  for (let b = first; b <= last; b++) html += itemHtml(b);
  items.innerHTML = html;
}
function listTo(b) {
  const height = list.clientHeight || 300;
  const y = b * ROW;
  if (y < list.scrollTop || y + ROW > list.scrollTop + height) list.scrollTop = Math.max(0, y - (height - ROW) / 2);
  layList(true);
}
// the first battle after `b` (or before it, `back`) in a sorted list of battles, or b itself
function nearest(sorted, b, back) {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (back ? sorted[mid] < b : sorted[mid] <= b) lo = mid + 1; else hi = mid;
  }
  if (back) return lo > 0 ? sorted[lo - 1] : b;
  return lo < sorted.length ? sorted[lo] : b;
}

// -- download --------------------------------------------------------------------------------
function download() {
  const url = URL.createObjectURL(new Blob([gameJson()], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = `war-game-${G.game_id}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// -- navigation ------------------------------------------------------------------------------
let current = -1;
function show(b) {
  b = Math.max(0, Math.min(N, Math.round(Number(b) || 0)));
  const st = stateAt(b);
  current = b;
  document.body.dataset.battle = String(b);
  renderSeats(b, st);
  renderTable(b, st);
  drawTimeline(b);
  listTo(b);
  if (document.activeElement !== $("jump-to")) $("jump-to").value = String(b);
  $("first").disabled = $("prev").disabled = b === 0;
  $("next").disabled = $("last").disabled = b === N;
  const hash = `#battle=${b}`;
  if (location.hash !== hash) {
    try { history.replaceState(null, "", hash); } catch (err) { location.hash = hash; }
  }
}
function fromHash() {
  const m = /battle=(\d+)/.exec(location.hash);
  return m ? Number(m[1]) : 0;
}

let playing = null;
function setPlaying(on) {
  if (on && current >= N) show(0);
  if (playing) cancelAnimationFrame(playing.frame);
  playing = null;
  const button = $("play");
  button.classList.toggle("playing", on);
  button.innerHTML = on ? "&#x25A0; Pause" : "&#x25B6; Play";
  if (!on) return;
  playing = { last: performance.now(), owed: 0, frame: 0 };
  const tick = (now) => {
    if (!playing) return;
    const speed = Number($("speed").value);
    playing.owed += (now - playing.last) * speed / 1000;
    playing.last = now;
    const steps = Math.floor(playing.owed);
    if (steps > 0) {
      playing.owed -= steps;
      show(Math.min(N, current + steps));
      if (current >= N) { setPlaying(false); return; }
    }
    playing.frame = requestAnimationFrame(tick);
  };
  playing.frame = requestAnimationFrame(tick);
}

function wire() {
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(current - 1));
  $("next").addEventListener("click", () => show(current + 1));
  $("last").addEventListener("click", () => show(N));
  $("play").addEventListener("click", () => setPlaying(!playing));
  $("jump").addEventListener("submit", (e) => { e.preventDefault(); show($("jump-to").value); $("jump-to").blur(); });
  $("reveal").addEventListener("change", (e) => { reveal = e.target.checked; show(current); });
  $("download").addEventListener("click", download);
  list.addEventListener("scroll", () => layList(false));
  list.addEventListener("click", (e) => {
    const item = e.target.closest("[data-battle-item]");
    if (item) show(Number(item.dataset.battleItem));
  });
  document.addEventListener("keydown", (e) => {
    const tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" && e.target.type !== "checkbox" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const by = e.shiftKey ? 10 : 1;
    if (e.key === "ArrowRight") show(current + by);
    else if (e.key === "ArrowLeft") show(current - by);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(N);
    else if (e.key === " " || e.key === "Spacebar") setPlaying(!playing);
    else if (e.key === "w") show(nearest(WARS, current, false));
    else if (e.key === "W") show(nearest(WARS, current, true));
    else if (e.key === "l") show(nearest(LEAD_AT, current, false));
    else if (e.key === "L") show(nearest(LEAD_AT, current, true));
    else return;
    e.preventDefault();
  });
  let dragging = false;
  overlay.addEventListener("pointerdown", (e) => { dragging = true; overlay.setPointerCapture(e.pointerId); show(battleAtX(e.clientX)); });
  overlay.addEventListener("pointermove", (e) => {
    const b = battleAtX(e.clientX);
    $("hover").textContent = b === 0 ? "the deal" : `battle ${b}: ` +
      Array.from({ length: SEATS }, (_, s) => `seat ${s} ${D.counts[s][b]}`).join(", ");
    if (dragging && b !== current) show(b);
  });
  overlay.addEventListener("pointerup", () => { dragging = false; });
  overlay.addEventListener("pointerleave", () => { $("hover").textContent = ""; });
  window.addEventListener("hashchange", () => { if (fromHash() !== current) show(fromHash()); });
  let resize = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resize);
    resize = setTimeout(() => { drawn = false; drawTimeline(current); }, 100);
  });
}

items.style.height = `${(N + 1) * ROW}px`;
setupStatic();
wire();
show(fromHash());
