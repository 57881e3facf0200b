"""The server's page of one game (templates/game.html): the replay page, with breadcrumbs back to
the report and to the games list it was opened from, and, below it, the game's row of the games
table, its battles and its events as tables.

The tables come from the replay itself (the log, checked against the engine), which holds what
the `battles` and `events` views give for the game, so the page needs no pass over the dataset's
event views. A long game's tables show the first MAX_ROWS rows; the SQL that gives all of them
is linked, as CSV and JSON.
"""

from __future__ import annotations

from urllib.parse import quote

from ..jobs.replay import GameReplay, replay_game
from ..log.codec import TABLE_KINDS  # the kinds that lay cards on the table
from .pages import render
from .replay_page import page_context

MAX_ROWS = 1000
EVENT_COLUMNS = ("seq", "battle", "kind", "seat", "cards", "seats", "options", "value", "note")


def sql_link(sql: str, fmt: str | None = None) -> str:
    return "/sql?q=" + quote(sql, safe="") + (f"&format={fmt}" if fmt else "")


def battle_rows(rp: GameReplay) -> list[dict]:
    """A row per battle: its war depth, who took the table, how many cards were on it, and how
    many cards each seat holds after it."""
    rows = []
    for view in rp.battles:
        table = sum(len(ev.cards) for ev in view.events if ev.kind in TABLE_KINDS)
        held = [len(view.held_after(s)) for s in range(len(view.piles_after))]
        rows.append({"battle": view.battle, "war_depth": view.war_depth, "winner": view.winner,
                     "table_cards": table, "held": held})
    return rows


def event_rows(rp: GameReplay) -> list[dict]:
    """A row per event, as the `events` view has them (seq counts the game's events from 0),
    cards also as labels."""
    deck = rp.deck
    out = []
    logged = [(0, ev) for ev in rp.deal] + [(v.battle, ev) for v in rp.battles for ev in v.events]
    logged.append((len(rp.battles), rp.end))
    for seq, (battle, ev) in enumerate(logged):
        out.append({"seq": seq, "battle": battle, "kind": ev.kind, "seat": ev.seat, "cards": list(ev.cards),
                    "labels": " ".join(deck.label(c) for c in ev.cards), "seats": list(ev.seats),
                    "options": list(ev.options), "value": ev.value, "note": ev.note})
    return out


def game_page(root, game_id: int, crumbs: list[tuple[str, str]]) -> str:
    """The page of game `game_id` of the dataset at `root`; `crumbs` are the (href, text) links
    above it."""
    rp = replay_game(root, game_id)
    battles, events = battle_rows(rp), event_rows(rp)
    every = {
        "battles": f"SELECT * FROM battles WHERE game_id = {game_id} ORDER BY battle",
        "events": f"SELECT * FROM events WHERE game_id = {game_id} ORDER BY seq",
        "games": f"SELECT * FROM games WHERE game_id = {game_id}",
    }
    links = {name: {"sql": sql_link(sql), "csv": sql_link(sql, "csv"), "json": sql_link(sql, "json")}
             for name, sql in every.items()}
    return render("game.html", **page_context(rp), crumbs=crumbs, record=rp.record, label=rp.rule_set,
                  battles=battles[:MAX_ROWS], battle_count=len(battles), events=events[:MAX_ROWS],
                  event_count=len(events), event_columns=EVENT_COLUMNS, players=rp.entry.rules.players,
                  links=links)
