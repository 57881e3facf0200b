"""Replaying one game from its log, battle by battle, for a person debugging it.

The log is first checked against the engine (every event must be what the rules make of the
one before); then a ledger walks it to give the piles before and after every battle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow.compute as pc

from ..engines.event import Event
from ..engines.families import family_of
from ..engines.game import replay_log
from ..errors import DatasetError, GameNotFound, LogMismatch
from ..log.ledger import Ledger, ledger_for
from ..log.tables import game_log
from ..model.cards import Deck
from ..model.deal import deck_of
from ..model.schema import RuleSetEntry
from ..model.variants import variant
from ..storage.dataset import Dataset
from ..storage.files import read_parquet


@dataclass
class BattleView:
    battle: int
    piles_before: list[list[int]]
    won_before: list[list[int]]
    hands_before: list[list[int]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    piles_after: list[list[int]] = field(default_factory=list)
    won_after: list[list[int]] = field(default_factory=list)
    hands_after: list[list[int]] = field(default_factory=list)
    winner: int | None = None
    war_depth: int = 0


@dataclass
class GameReplay:
    entry: RuleSetEntry
    record: dict
    deal: list[Event]
    battles: list[BattleView]
    end: Event

    @property
    def deck(self) -> Deck:
        return deck_of(self.entry.rules)


def load_game(root, game_id: int) -> tuple[RuleSetEntry, dict, list[Event]]:
    """A game's rule set, record and log, reading only the row groups that hold it."""
    ds = Dataset.open(root)
    entry, games_file, events_file = ds.locate(game_id)
    rows = read_parquet(ds.root / games_file.path, filters=pc.field("game_id") == game_id).to_pylist()
    events = read_parquet(ds.root / events_file.path, filters=pc.field("game_id") == game_id)
    if not rows or events.num_rows == 0:
        raise GameNotFound(f"game {game_id} is listed in the manifest but missing from {games_file.path}"
                           if not rows else f"game {game_id} has no events in {events_file.path}")
    events = events.sort_by("seq")
    try:
        return entry, rows[0], game_log(events)
    except DatasetError as err:
        raise DatasetError(f"game {game_id} in {events_file.path}: {err}") from None


def replay_game(root, game_id: int) -> GameReplay:
    entry, record, log = load_game(root, game_id)
    return build_replay(entry, record, log)


def build_replay(entry: RuleSetEntry, record: dict, log: list[Event]) -> GameReplay:
    """Check a log against the engine, then walk it battle by battle."""
    try:
        replay_log(entry.rules, log, policies=entry.policies)
    except LogMismatch as err:
        raise err.at_game(record["game_id"]) from None
    rules = entry.rules
    ledger = ledger_for(rules)
    deal: list[Event] = []
    battles: list[BattleView] = []
    current: BattleView | None = None
    for ev in log:
        if ev.kind == "end":
            break
        if ev.battle == 0:
            deal.append(ev)
        else:
            if current is None or current.battle != ev.battle:
                if current is not None:
                    _close(current, ledger)
                current = BattleView(ev.battle, [list(p) for p in ledger.piles], [list(w) for w in ledger.won],
                                     [sorted(h) for h in ledger.hands])
                battles.append(current)
            current.events.append(ev)
            if ev.kind == "collect":
                current.winner = ev.seat
            elif ev.kind == "war":
                current.war_depth = ev.value
        ledger.apply(ev)
    if current is not None:
        _close(current, ledger)
    return GameReplay(entry, record, deal, battles, log[-1])


def _close(view: BattleView, ledger: Ledger) -> None:
    view.piles_after = [list(p) for p in ledger.piles]
    view.won_after = [list(w) for w in ledger.won]
    view.hands_after = [sorted(h) for h in ledger.hands]


# -- presentation -------------------------------------------------------------------------------

def _labels(deck: Deck, cards) -> str:
    return " ".join(deck.label(c) for c in cards) if cards else "-"


def layout_of(rules) -> str:
    """How to show a seat's cards: `plain` piles, `won` (a draw and a won pile), or `hands`."""
    family = family_of(rules)
    if family.hands:
        return "hands"
    return "won" if family.has_won_piles(rules) else "plain"


def _state(deck: Deck, layout: str, piles, won, hands, out=frozenset()) -> str:
    """Every seat's holding: pile sizes, plus the won pile (size and visible top) or the hand."""
    def one(seat: int) -> str:
        if seat in out:
            return "out"
        if layout == "won":
            top = f" ({deck.label(won[seat][0])} on top)" if won[seat] else ""
            return f"{len(piles[seat])}+{len(won[seat])}{top}"
        if layout == "hands":
            return f"{len(piles[seat])} + hand {_labels(deck, hands[seat])}"
        return str(len(piles[seat]))
    return " | ".join(one(seat) for seat in range(len(piles)))


def describe_event(deck: Deck, ev: Event) -> str:
    kind, seat, cards = ev.kind, ev.seat, ev.cards
    if kind == "play":
        return f"seat {seat} plays {_labels(deck, cards)}"
    if kind == "down":
        return f"seat {seat} puts {len(cards)} down: {_labels(deck, cards)}"
    if kind == "war":
        name = {1: "WAR", 2: "DOUBLE WAR", 3: "TRIPLE WAR"}.get(ev.value, f"WAR x{ev.value}")
        return f"{name} (depth {ev.value}) between seats {', '.join(map(str, ev.seats))}"
    if kind == "war_out":
        return f"seat {seat} has no card left to add: out of this war"
    if kind == "forfeit":
        return f"seat {seat} cannot complete the war: its {len(cards)} cards go on the table ({_labels(deck, cards)})"
    if kind == "collect":
        return f"seat {seat} takes {len(cards)} cards, in this order: {_labels(deck, cards)}"
    if kind == "set_aside":
        return f"everyone in the war ran out: {len(cards)} table cards set aside ({_labels(deck, cards)})"
    if kind == "reshuffle":
        return f"seat {seat} reshuffles its won pile into its pile: {_labels(deck, cards)}"
    if kind == "draw":
        return f"seat {seat} draws {_labels(deck, cards)} into its hand"
    if kind == "steal":
        return (f"seat {seat} steals the won pile of seat {', '.join(map(str, ev.seats))} with "
                f"{deck.label(cards[0])}: {len(cards)} cards on top of its won pile ({_labels(deck, cards)})")
    if kind == "decision" and ev.note == "steal":
        did = f"steals from seat {', '.join(map(str, ev.seats))}" if ev.seats else "plays it instead"
        return (f"seat {seat} looks at {deck.label(cards[0])}, could steal from seat "
                f"{', '.join(map(str, ev.options))}: {did}")
    if kind == "decision" and ev.note == "top":
        return f"seat {seat} puts {deck.label(cards[0])} on top of its won bundle (of {_labels(deck, ev.options)})"
    if kind == "decision" and ev.note == "hand":
        what = "its fourth card" if ev.value else "its card"
        return f"seat {seat} chooses {deck.label(cards[0])} as {what}, from hand {_labels(deck, ev.options)}"
    if kind == "out":
        return f"seat {seat} is out of the game"
    return f"{kind} seat={seat} cards={_labels(deck, cards)}"


def render_text(rp: GameReplay, battle: int | None = None) -> str:
    deck, rules, rec = rp.deck, rp.entry.rules, rp.record
    layout = layout_of(rules)
    lines = []
    who = f", seat {rec['winner']}" if rec["winner"] is not None else ""
    lines.append(f"Game {rec['game_id']} · {rules.variant} · rules {rec['rules_id']} · seed {rec['game_seed']}")
    lines.append(f"Outcome: {rec['outcome']}{who} after {rec['battles']} battles "
                 f"({rec['wars']} wars, deepest {rec['max_war_depth']})")
    every = rules.model_dump()
    options = {k: every[k] for k in variant(rules.variant).options}
    lines.append("Rules: " + ", ".join(f"{k}={v}" for k, v in options.items()))
    if rec.get("policies"):
        lines.append("Policies: " + " | ".join(f"seat {i}: {p}" for i, p in enumerate(rec["policies"])))
    if battle is None:
        lines.append("Deal:")
        for ev in rp.deal:
            who = f"seat {ev.seat}" if ev.kind == "deal" else "set aside"
            lines.append(f"  {who} ({len(ev.cards)}): {_labels(deck, ev.cards)}")
        shown = rp.battles
    else:
        shown = [b for b in rp.battles if b.battle == battle]
        if not shown:
            raise GameNotFound(f"game {rec['game_id']} has battles 1..{len(rp.battles)}, not {battle}")
    out: set[int] = set()
    for view in rp.battles:
        if view not in shown:
            out.update(ev.seat for ev in view.events if ev.kind == "out")
            continue
        before = _state(deck, layout, view.piles_before, view.won_before, view.hands_before, out)
        lines.append(f"Battle {view.battle} · piles {before}")
        if battle is not None:
            for seat, pile in enumerate(view.piles_before):
                extra = f" · won pile {_labels(deck, view.won_before[seat])}" if layout == "won" else ""
                extra += f" · hand {_labels(deck, view.hands_before[seat])}" if layout == "hands" else ""
                lines.append(f"  seat {seat} pile (top first): {_labels(deck, pile)}{extra}")
        out.update(ev.seat for ev in view.events if ev.kind == "out")
        after = _state(deck, layout, view.piles_after, view.won_after, view.hands_after, out)
        if battle is None and view.war_depth == 0 and all(ev.kind in ("play", "collect") for ev in view.events):
            plays = ", ".join(f"seat {ev.seat} {_labels(deck, ev.cards)}"
                              for ev in view.events if ev.kind == "play")
            took = " ".join(deck.label(c) for c in view.events[-1].cards)
            lines[-1] += f" · {plays} → seat {view.winner} takes {took} · piles {after}"
            continue
        in_war = False
        for ev in view.events:
            in_war = in_war or ev.kind == "war"
            deeper = ev.kind in ("down", "decision", "steal", "draw", "reshuffle") or \
                (ev.kind == "play" and in_war)
            lines.append(("    " if deeper else "  ") + describe_event(deck, ev))
        lines.append(f"  → piles {after}")
        if battle is not None:
            for seat, pile in enumerate(view.piles_after):
                extra = f" · won pile {_labels(deck, view.won_after[seat])}" if layout == "won" else ""
                extra += f" · hand {_labels(deck, view.hands_after[seat])}" if layout == "hands" else ""
                lines.append(f"  seat {seat} pile after: {_labels(deck, pile)}{extra}")
    if battle is None or battle == len(rp.battles):
        end = rp.end
        result = f"seat {end.seat} wins" if end.note == "win" else end.note
        lines.append(f"End after {end.value} battles: {result}")
    return "\n".join(lines)


def as_json(rp: GameReplay, battle: int | None = None) -> dict:
    deck = rp.deck
    layout = layout_of(rp.entry.rules)

    def event(ev: Event) -> dict:
        out = {"kind": ev.kind}
        if ev.seat is not None:
            out["seat"] = ev.seat
        if ev.cards:
            out["cards"] = list(ev.cards)
            out["labels"] = [deck.label(c) for c in ev.cards]
        if ev.seats:
            out["seats"] = list(ev.seats)
        if ev.options:
            out["options"] = list(ev.options)
        if ev.value is not None:
            out["value"] = ev.value
        if ev.note is not None:
            out["note"] = ev.note
        return out

    shown = rp.battles if battle is None else [b for b in rp.battles if b.battle == battle]
    if battle is not None and not shown:
        raise GameNotFound(f"game {rp.record['game_id']} has battles 1..{len(rp.battles)}, not {battle}")
    return {
        "game": rp.record,
        "rules": rp.entry.rules.model_dump(mode="json"),
        "policies": list(rp.entry.policies),
        "deal": [event(ev) for ev in rp.deal],
        "battles": [{
            "battle": b.battle, "war_depth": b.war_depth, "winner": b.winner,
            "piles_before": b.piles_before, "piles_after": b.piles_after,
            **({"won_before": b.won_before, "won_after": b.won_after} if layout == "won" else {}),
            **({"hands_before": b.hands_before, "hands_after": b.hands_after} if layout == "hands" else {}),
            "events": [event(ev) for ev in b.events],
        } for b in shown],
        "end": event(rp.end),
    }
