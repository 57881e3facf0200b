"""One game as a self-contained web page (`war replay DATASET GAME --format html`).

The page holds the game as data and draws one battle at a time, so a 10,000-battle game stays
responsive: each battle's events, and each seat's cards as a diff from the battle before
(`[drop from the top, drop from the bottom, cards added on top, cards added at the bottom]`),
with a full position every `KEYFRAME` battles to jump from. The page is templates/replay.html
with the style sheet, the script (static/replay_game.js, replay_view.js) and the data inlined; nothing is fetched.

The page's DOM says what it shows, for tests and automation: `document.body.dataset.battle` is
the battle shown (0 for the deal), and each seat's element `[data-seat=S]` has `data-cards`, the
cards the seat holds after that battle as labels separated by spaces, in the order of
`held_after` in `war replay --format json`: its pile top first, then its won pile top first,
then its hand by code. The log `#events` has a line `li[data-kind]` for each event of the
battle (at the deal, the deal's; at the last battle, the end too): its sentence, the one
model.event_kinds.sentence gives, filled by the script from the templates in the data.

Beside the table is the list of battles, as a chess viewer lists moves: a row
`[data-battle-item=N]` a battle (0, the deal), with `data-war` its war depth (0: none),
`data-decision` when a player decided, `data-lead=S` when seat S took the lead (`lead_changes`);
the battle shown has the class `current` and is scrolled into view. Only the rows in view are
laid out, so the page stays light for any game length. Keys `w`/`W` go to the next/previous war,
`l`/`L` to the next/previous lead change. The timeline's canvas `#timeline` has `data-ticks`,
the battle numbers written under it. *Download JSON* saves the game as `war replay --format
json` writes it, built from the page's data.
"""

from __future__ import annotations

import json

from ..errors import UsageError, brief
from ..jobs.lineage import source_line
from ..jobs.replay import GameReplay, dealt_aside, layout_of, replay_game
from ..model.event_kinds import BY_NAME, page_sentences, template
from ..model.variants import variant
from .pages import inline, render, static

KEYFRAME = 128
SCRIPTS = ("replay_game.js", "replay_view.js")  # in this order, in one function (templates/replay.html)


_LOOKUPS = 8  # cards of a pile looked up one by one before its new order is indexed whole


def _index(cards: list[int], card: int) -> int | None:
    try:
        return cards.index(card)
    except ValueError:
        return None


def _common_run(old: list[int], d: int, new: list[int], at: int) -> int:
    """How many cards from old[d] equal those from new[at] (old[d] == new[at]): whole slices
    compared first, then a binary search on the length."""
    most = min(len(old) - d, len(new) - at)
    if old[d:d + most] == new[at:at + most]:
        return most
    same, differ = 1, most
    while differ - same > 1:
        mid = (same + differ) // 2
        if old[d:d + mid] == new[at:at + mid]:
            same = mid
        else:
            differ = mid
    return same


def replay_page(dataset, game_id: int) -> str:
    """The page of game `game_id` of the dataset at `dataset` (a folder or a URI), as HTML text."""
    return render_page(replay_game(dataset, game_id))


def list_diff(old: list[int], new: list[int]):
    """`new` as a change of `old`: 0 when equal, else [d, e, top, bottom] with
    new = top + old[d:len(old) - e] + bottom, keeping the longest run of `old` that `new` keeps.
    A battle takes cards off the top and puts some under, so the run is found within the first
    few cards of `old`, and its length by comparing slices: linear in a pile's size, not
    quadratic (a 30,000-card deck's piles)."""
    if old == new:
        return 0
    where: dict[int, int] | None = None
    best = (0, 0, 0)  # (kept, d, position in new)
    d = 0
    while d < len(old) and len(old) - d > best[0]:
        if where is None and d >= _LOOKUPS:
            where = {c: i for i, c in enumerate(new)}
        at = where.get(old[d]) if where is not None else _index(new, old[d])
        if at is not None:
            kept = _common_run(old, d, new, at)
            if kept > best[0]:
                best = (kept, d, at)
        d += 1
    kept, d, at = best
    if not kept:
        return [len(old), 0, list(new), []]
    return [d, len(old) - d - kept, new[:at], new[at + kept:]]


def _event(ev) -> list:
    """An event as [kind, seat, cards, seats, options, value, note], trailing empties dropped."""
    row = [ev.kind, ev.seat, list(ev.cards), list(ev.seats), list(ev.options), ev.value, ev.note]
    while row and row[-1] in (None, [], ()):
        row.pop()
    return row


def page_data(rp: GameReplay) -> dict:
    """Everything the page shows, as JSON-ready data (see the module's docstring)."""
    deck, rules, rec = rp.deck, rp.entry.rules, rp.made or rp.record  # what the log makes of the game
    players = rules.players
    every = rules.options()
    first = rp.battles[0] if rp.battles else None
    deal_aside = dealt_aside(rp.deal)

    def position(piles, won, hands, aside, out) -> dict:
        return {"pile": [list(p) for p in piles], "won": [list(w) for w in won],
                "hand": [list(h) for h in hands], "aside": list(aside), "out": sorted(out)}

    if first is not None:
        start = position(first.piles_before, first.won_before, first.hands_before, deal_aside, ())
    else:
        piles = [[] for _ in range(players)]
        for ev in rp.deal:
            if ev.kind in BY_NAME and BY_NAME[ev.kind].deals:
                piles[ev.seat] = list(ev.cards)
        start = position(piles, [[] for _ in piles], [[] for _ in piles], deal_aside, ())
    keyframes = [start]
    diffs, battles = [], []
    counts = [[len(start["pile"][s]) + len(start["won"][s]) + len(start["hand"][s])] for s in range(players)]
    aside, out = deal_aside, ()
    for view in rp.battles:
        seats = [[list_diff(view.piles_before[s], view.piles_after[s]),
                  list_diff(view.won_before[s], view.won_after[s]),
                  list_diff(view.hands_before[s], view.hands_after[s])] for s in range(players)]
        change = {"s": seats}
        if list(view.aside_after) != list(aside):
            change["a"] = list(view.aside_after)
        if sorted(view.out_after) != sorted(out):
            change["o"] = sorted(view.out_after)
        aside, out = view.aside_after, view.out_after
        diffs.append(change)
        battles.append({"w": view.war_depth, "x": view.winner, "e": [_event(ev) for ev in view.events]})
        for s in range(players):
            counts[s].append(len(view.piles_after[s]) + len(view.won_after[s]) + len(view.hands_after[s]))
        if view.battle % KEYFRAME == 0:
            keyframes.append(position(view.piles_after, view.won_after, view.hands_after, view.aside_after,
                                      view.out_after))
    game = dict(rec)
    game["game_seed"] = str(game["game_seed"])  # a 64-bit seed does not fit a JavaScript number
    return {
        "game": game,
        "rule_set": rp.rule_set,
        "source": rp.source,  # as `war replay --format json` gives it: the download is that JSON
        "source_line": source_line(rp.source) if rp.source is not None else None,
        "title": variant(rules.variant).title,
        "options": {k: every[k] for k in variant(rules.variant).options},
        "rules": every,
        "policies": list(rp.entry.policies),
        "players": players,
        "layout": layout_of(rules),
        "labels": [deck.label(c) for c in range(deck.size)],
        "suits": [c % deck.suits if c < deck.ranks * deck.suits else -1 for c in range(deck.size)],
        "keyframe": KEYFRAME,
        "keyframes": keyframes,
        "diffs": diffs,
        "battles": battles,
        "counts": counts,
        "leads": lead_changes(counts),
        "deal": [_event(ev) for ev in rp.deal],
        "end": _event(rp.end),
        "disagreement": rp.disagreement(),
        "disagreements": list(rp.disagreements),
        "sentences": sentences(),
    }


def lead_changes(counts: list[list[int]]) -> list[list[int]]:
    """[battle, seat] for each battle after which a seat holds more cards than any other and
    did not before: the lead changes hands (or is first taken). A tie for the most cards
    leaves the lead where it was. `counts[s][b]`: seat s's cards after battle b (0: the deal)."""
    changes, leader = [], None
    for b in range(len(counts[0]) if counts else 0):
        held = [c[b] for c in counts]
        top = max(held)
        if held.count(top) == 1 and held.index(top) != leader:
            leader = held.index(top)
            if b:
                changes.append([b, leader])
    return changes


def sentences() -> dict:
    """What the page's script knows of the event kinds: the sentence templates it fills as
    model.event_kinds.sentence does, with what each kind does, which the script dispatches on
    (page_sentences), and, under `other`, the template of a kind it does not know."""
    return {**page_sentences(), "other": template("")}


def page_context(rp: GameReplay) -> dict:
    """What templates/replay.html (and a page that extends it) is rendered with: the title, the
    game's data as JSON and the script, both to inline."""
    data = json.dumps(page_data(rp), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("<", "\\u003c")  # only inside strings: nothing can close the script
    title = f"War replay · game {rp.record['game_id']} · {rp.rule_set}"
    return {"title": title, "data": inline(data, "script"), "script": inline("\n".join(static(name) for name in SCRIPTS), "script")}


def render_page(rp: GameReplay) -> str:
    """The page as one HTML text (templates/replay.html): style, script and data inline.
    `rp` is a game's replay (war.replay_game's); anything else (a dataset's path) is a UsageError."""
    if not isinstance(rp, GameReplay):
        raise UsageError(f"`rp` must be a game's replay, as war.replay_game(dataset, game_id) gives it, "
                         f"got {type(rp).__name__} {brief(rp)}", params=("rp",))
    return render("replay.html", **page_context(rp))
