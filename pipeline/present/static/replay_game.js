// The game of a replay page, from its data (pipeline/present/replay_page.py, page_data): each
// battle's events, and each seat's cards as a diff from the battle before, with a full position
// every `keyframe` battles; what a person reads of an event; the game as JSON. The page's script
// is this file then replay_view.js, inside one function (templates/replay.html).

const D = JSON.parse(document.getElementById("war-data").textContent);
const N = D.battles.length;
const K = D.keyframe;
const SEATS = D.players;

// -- positions -------------------------------------------------------------------------------
function patch(list, d) {
  if (d === 0) return list;
  const [drop, dropEnd, top, bottom] = d;
  return top.concat(list.slice(drop, list.length - dropEnd), bottom);
}
function step(st, change) {
  const next = { pile: st.pile.slice(), won: st.won.slice(), hand: st.hand.slice(), aside: st.aside, out: st.out };
  for (let s = 0; s < SEATS; s++) {
    const [p, w, h] = change.s[s];
    next.pile[s] = patch(st.pile[s], p);
    next.won[s] = patch(st.won[s], w);
    next.hand[s] = patch(st.hand[s], h);
  }
  if (change.a) next.aside = change.a;
  if (change.o) next.out = change.o;
  return next;
}
let cached = { b: 0, st: D.keyframes[0] };
function stateAt(b) {
  let from = cached;
  const k = Math.floor(b / K);
  if (!(b >= cached.b && b - cached.b <= K)) from = { b: k * K, st: D.keyframes[k] };
  let st = from.st;
  for (let i = from.b; i < b; i++) st = step(st, D.diffs[i]);
  cached = { b: b, st: st };
  return st;
}

// -- cards -----------------------------------------------------------------------------------
const label = (c) => D.labels[c];

// -- events ----------------------------------------------------------------------------------
// [kind, seat, cards, seats, options, value, note], as page_data writes them
function ev(e) {
  return { kind: e[0], seat: e[1] === undefined ? null : e[1], cards: e[2] || [], seats: e[3] || [],
    options: e[4] || [], value: e[5] === undefined ? null : e[5], note: e[6] === undefined ? null : e[6] };
}

// What a person reads of an event: its kind's template from D.sentences (the registry's
// page_sentences, pipeline/model/event_kinds.py), filled exactly as `sentence` there fills it
// (a missing value reads "None", as Python's str() writes it).
const S = D.sentences;
const own = (o, k) => k !== null && k !== undefined && Object.prototype.hasOwnProperty.call(o, k);
const str = (v) => (v === null || v === undefined ? "None" : String(v));
const warName = (d) => (own(S.wars, str(d)) ? S.wars[str(d)] : `WAR x${str(d)}`);
function template(e, battle) {
  if (!own(S.kinds, e.kind)) return S.other;
  const k = S.kinds[e.kind];
  if (own(k.notes, e.note)) return k.notes[e.note];
  if (battle === 0 && k.deal) return k.deal;
  return k.text;
}
// What the page knows a kind does (its role, whether it lays cards and how they lie, collects,
// sets aside, deals, is a detail, its mark): the script dispatches on these, never on a kind's name.
const NOTHING = { role: "", lays: false, face_up: false, collects: false, sets_aside: false, deals: false, detail: false, mark: "" };
const kindOf = (name) => (own(S.kinds, name) ? S.kinds[name] : NOTHING);
function fill(text, e) {
  const c = e.cards;
  const values = {
    kind: e.kind, seat: e.seat === null ? "" : String(e.seat), seat_number: str(e.seat),
    cards: c.length ? c.map(label).join(" ") : "-", n: String(c.length), card: c.length ? label(c[0]) : "-",
    seats: e.seats.join(", "), options: e.options.length ? e.options.map(label).join(" ") : "-",
    option_seats: e.options.join(", "), war: warName(e.value), value: str(e.value), note: str(e.note),
  };
  const present = { seat: e.seat !== null, cards: c.length > 0, seats: e.seats.length > 0,
    options: e.options.length > 0, value: !!e.value };
  return text
    .replace(/\[\[(\w+)\?([^|\]]*)\|([^\]]*)\]\]/g, (_, field, then, other) => (own(present, field) && present[field] ? then : other))
    .replace(/\{(\w+)\}/g, (whole, field) => (own(values, field) ? values[field] : whole));
}
const sentence = (e, battle) => fill(template(e, battle), e);

// -- the game as JSON, as `war replay --format json` gives it (pipeline/jobs/replay.py, as_json) -----
function eventJson(a) {
  const e = ev(a), out = { kind: e.kind };
  if (e.seat !== null) out.seat = e.seat;
  if (e.cards.length) { out.cards = e.cards; out.labels = e.cards.map(label); }
  if (e.seats.length) out.seats = e.seats;
  if (e.options.length) out.options = e.options;
  if (e.value !== null) out.value = e.value;
  if (e.note !== null) out.note = e.note;
  return out;
}
function gameJson() {
  const battles = [];
  let before = stateAt(0);
  for (let b = 1; b <= N; b++) {
    const st = stateAt(b), bt = D.battles[b - 1];
    const one = { battle: b, war_depth: bt.w, winner: bt.x === undefined ? null : bt.x,
      piles_before: before.pile, piles_after: st.pile };
    if (D.layout === "won") { one.won_before = before.won; one.won_after = st.won; }
    if (D.layout === "hands") { one.hands_before = before.hand; one.hands_after = st.hand; }
    one.held_after = st.pile.map((p, s) => p.concat(st.won[s], st.hand[s]).map(label));
    one.out_after = st.out.slice().sort((x, y) => x - y);
    one.events = bt.e.map(eventJson);
    battles.push(one);
    before = st;
  }
  const game = { game: D.game, rule_set: D.rule_set, source: D.source, rules: D.rules, policies: D.policies, disagreements: D.disagreements,
    deal: D.deal.map(eventJson), battles: battles, end: eventJson(D.end) };
  // the seed is a 64-bit integer: written as the page holds it, digits, not through a JavaScript number
  return JSON.stringify(game).replace(/"game_seed":"(\d+)"/, '"game_seed":$1');
}
