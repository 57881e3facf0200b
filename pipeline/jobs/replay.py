"""Replaying one game from its log, battle by battle, for a person debugging it (text) or a
program (JSON), or following one card through it.

The log is first checked against the engine (every event must be what the rules make of the
one before); then a ledger walks it to give the piles before and after every battle.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

from ..engines.event import Event
from ..engines.families import family_of
from ..engines.game import play_game, replay_log
from ..errors import DatasetError, GameNotFound, LogMismatch, UsageError, brief
from ..log.ledger import Ledger, ledger_for
from ..log.tables import differing_columns, game_log, game_record
from ..model.cards import Deck
from ..model.deal import Deal, deck_of
from ..model.kind import Kind
from ..model.event_kinds import BY_NAME, sentence
from ..model.names import rule_set_names
from .lineage import source_line, source_of
from ..model.schema import GAME_ID_STRIDE, RuleSetEntry
from ..model.variants import variant
from ..model.plural import plural
from ..storage.dataset import Dataset
from ..storage.files import read_rows_of


@dataclass
class BattleView:
    """One battle: its events and every seat's cards before and after it. A battle's `*_before`
    lists are the previous battle's `*_after` (the same objects), so a game costs one snapshot a
    battle."""

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
    out_before: frozenset[int] = frozenset()
    out_after: frozenset[int] = frozenset()
    aside_after: tuple[int, ...] = ()

    def held_after(self, seat: int) -> list[int]:
        """The cards `seat` holds after the battle: its pile top first, then its won pile top
        first, then its hand (sorted by code); the order `held_after` in JSON and the replay
        page's `data-cards` give."""
        return [*self.piles_after[seat], *self.won_after[seat], *self.hands_after[seat]]


@dataclass
class GameReplay:
    entry: RuleSetEntry
    record: dict
    deal: list[Event]
    battles: list[BattleView]
    end: Event
    disagreements: list[str] = field(default_factory=list)
    rule_set: str = ""  # the rule set's name (model.names.rule_set_names); its label when alone
    source: dict | None = None  # a game taken from another dataset (`--from`): where (source_of)
    made: dict | None = None  # the games row the log makes (log_record): what the headline says

    def __post_init__(self) -> None:
        self.rule_set = self.rule_set or self.entry.label

    @property
    def deck(self) -> Deck:
        return deck_of(self.entry.rules)

    def view(self, battle: int) -> BattleView:
        """Battle `battle` (1-based); GameNotFound outside the game."""
        if not 1 <= battle <= len(self.battles):
            raise GameNotFound(f"game {self.record['game_id']} has battles 1..{len(self.battles)}, "
                               f"not {battle}", params=("battle",))
        return self.battles[battle - 1]

    def disagreement(self) -> str | None:
        """One line saying where the games row disagrees with the log, or None when they agree."""
        if not self.disagreements:
            return None
        return (f"game {self.record['game_id']}: the games row disagrees with its log: "
                + "; ".join(self.disagreements))


def load_game(ds: Dataset, game_id: int) -> tuple[RuleSetEntry, dict, list[Event]]:
    """A game's rule set, record and log, reading only the row groups that hold it. A game whose
    log was not stored (`--log games`) is played again from its seed and deal: its log is the
    regenerated one, which build_replay checks against its games row as it checks a stored one."""
    entry, games_file, events_file = ds.locate(game_id)
    for listed in (games_file, events_file):  # a shard's files are small: hashed, as a query's set-up hashes them
        if listed is not None:
            ds.check_file(listed)
    rows = read_rows_of(ds.root / games_file.path, "game_id", game_id).to_pylist()
    if events_file is None:
        if not rows:
            raise GameNotFound(f"game {game_id} is listed in the manifest but missing from {games_file.path}")
        index = game_id - entry.ordinal * GAME_ID_STRIDE
        log = play_game(entry.rules, ds.game_seed(entry, index), ds.deal(entry, index), policies=entry.policies)[0]
        return entry, rows[0], log
    events = read_rows_of(ds.root / events_file.path, "game_id", game_id, order="seq")
    if not rows or events.num_rows == 0:
        raise GameNotFound(f"game {game_id} is listed in the manifest but missing from {games_file.path}"
                           if not rows else f"game {game_id} has no events in {events_file.path}")
    try:
        return entry, rows[0], game_log(events)
    except DatasetError as err:
        raise DatasetError(f"game {game_id} in {events_file.path}: {err}") from None


def replay_game(root, game_id: int) -> GameReplay:
    """Game `game_id` of the dataset at `root` (a folder or a URI) rebuilt from its log, checked
    against the engine event by event (LogMismatch if it breaks the rules): its record (a dict
    of the games row), its deal, every battle's events and piles, and `disagreements`, where the
    games row differs from what the log makes of the game. The dataset is opened once.
    GameNotFound when it holds no such game; UsageError for a `game_id` that is not an integer
    (any integral number is one: a numpy integer from a DataFrame's column too)."""
    game_id = game_id_of(game_id)
    ds = Dataset.open(root)
    entry, record, log = load_game(ds, game_id)
    rp = build_replay(entry, record, log, seed=ds.game_seed(entry, game_id - entry.ordinal * GAME_ID_STRIDE))
    rp.rule_set = rule_set_names(ds.manifest.rule_sets)[entry.ordinal]
    rp.source = source_of(ds, entry, game_id)
    return rp


def game_id_of(game_id) -> int:
    """`game_id` as a Python int: any integral number (operator.index: an int, a numpy integer),
    never a bool, a float or a string, which UsageError refuses naming `game_id`."""
    if not isinstance(game_id, bool):
        try:
            return operator.index(game_id)
        except TypeError:
            pass
    raise UsageError(f"`game_id` must be an integer, got {brief(game_id)}", params=("game_id",))


def build_replay(entry: RuleSetEntry, record: dict, log: list[Event], seed: int | None = None) -> GameReplay:
    """Check a log against the engine, then walk it battle by battle, in one pass: the work is
    linear in the game's events. `seed`: the game's seed as its dataset gives it, which the games
    row is held to (None: the row's own)."""
    try:
        summary = replay_log(entry.rules, log, policies=entry.policies)
    except LogMismatch as err:
        raise err.at_game(record["game_id"]) from None
    rules = entry.rules
    ledger = ledger_for(rules)
    deal: list[Event] = []
    battles: list[BattleView] = []
    current: BattleView | None = None
    out: frozenset[int] = frozenset()
    for ev in log:
        kind = BY_NAME.get(ev.kind, _SAYS_NOTHING)
        if kind.role == "ends_game":
            break
        if ev.battle == 0:
            deal.append(ev)
        else:
            if current is None or current.battle != ev.battle:
                if current is not None:
                    _close(current, ledger, out)
                    current = BattleView(ev.battle, current.piles_after, current.won_after,
                                         current.hands_after, out_before=out)
                else:
                    current = BattleView(ev.battle, [list(p) for p in ledger.piles],
                                         [list(w) for w in ledger.won], [sorted(h) for h in ledger.hands])
                battles.append(current)
            current.events.append(ev)
            if kind.collects:
                current.winner = ev.seat
            elif kind.role == "starts_war":
                current.war_depth = ev.value
            elif kind.role == "leaves_game":
                out = out | {ev.seat}
        ledger.apply(ev)
    if current is not None:
        _close(current, ledger, out)
    made = log_record(entry, record, summary, log, seed)
    return GameReplay(entry, record, deal, battles, log[-1], record_disagreements(record, made), made=made)


_SAYS_NOTHING = Kind("", "", "")  # what replay knows of a kind no family declares: nothing


def dealt_aside(deal: list[Event]) -> list[int]:
    """The cards the deal set aside: those of its events whose kind puts them aside (model.kind:
    target `aside`, the deck's leftovers). Any other event of battle 0 moves cards to a seat,
    not out of play (Arneson's War's first draw, from the pile into the hand)."""
    return [c for ev in deal if BY_NAME.get(ev.kind, _SAYS_NOTHING).sets_aside for c in ev.cards]


def _close(view: BattleView, ledger: Ledger, out: frozenset[int]) -> None:
    view.piles_after = [list(p) for p in ledger.piles]
    view.won_after = [list(w) for w in ledger.won]
    view.hands_after = [sorted(h) for h in ledger.hands]
    view.out_after = out
    view.aside_after = tuple(ledger.aside)


def log_record(entry: RuleSetEntry, record: dict, summary, log, seed: int | None = None) -> dict:
    """The games row the replayed log makes of the game, with what the dataset says of it: its
    `seed` (None: the row's) and how it was dealt. (A game of a dataset that stores no log is
    played from the dataset's seed and deal, whatever its row says: a row naming another seed
    showed as the game's seed.)"""
    index = record["game_id"] - entry.ordinal * GAME_ID_STRIDE
    kind = "explicit" if entry.deals else "all" if entry.all_deals else "shuffle"
    return game_record(record["game_id"], index, record.get("game_seed") if seed is None else seed, entry.rules,
                       entry.policies, Deal((), explicit=kind != "shuffle", enumerated=kind == "all"),
                       summary, log, entry.rules_id)


def record_disagreements(record: dict, made: dict) -> list[str]:
    """Each column of the games row that differs from what the log (or the dataset) makes of it
    (`made`, log_record's), as `column: the row says X, the log says Y`. A row of an older schema
    is held to the columns it has."""
    return [f"{name}: the row says {record[name]!r}, the {'dataset' if name in ('game_seed', 'deal') else 'log'} "
            f"says {made[name]!r}" for name in differing_columns(made, record)]


def select(rp: GameReplay, battle: int | None = None, battles: tuple[int, int | None] | None = None,
           wars: bool = False) -> list[BattleView]:
    """The battles to show: one (`battle`), a range (`battles` = (first, last), last None for the
    end, clipped to the game), or all; with `wars`, only those with a war. Slices, never a scan."""
    n = len(rp.battles)
    if battle is not None and battles is not None:
        raise UsageError("give `battle` or `battles`, not both", params=("battle", "battles"))
    if battle is not None:
        shown = [rp.view(battle)]
    elif battles is not None:
        first, last = battles
        if first < 1 or (last is not None and last < first):
            shown = f"{first}-{'' if last is None else last}"
            raise UsageError(f"`battles` must be a range A-B with 1 <= A <= B, not {shown}", params=("battles",))
        if first > n:
            raise GameNotFound(f"game {rp.record['game_id']} has battles 1..{n}; `battles` starts at {first}",
                               params=("battles",))
        shown = rp.battles[first - 1:n if last is None else min(last, n)]
    else:
        shown = rp.battles
    return [b for b in shown if b.war_depth] if wars else list(shown)


def parse_range(text: str) -> tuple[int, int | None]:
    """`A-B`, `A-` (to the end) or `N` (one battle) as (first, last)."""
    first, dash, last = text.strip().partition("-")
    try:
        a = int(first)
        b = (int(last) if last.strip() else None) if dash else a
    except ValueError:
        raise UsageError(f"`battles` must be a range such as 100-200, 100- or 100, not {text!r}",
                         params=("battles",)) from None
    return a, b


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
    """The sentence a person reads of one event (model.event_kinds.sentence)."""
    return sentence(ev, deck.label)


def header_lines(rp: GameReplay) -> list[str]:
    """The game's headline: what its log makes of it (a games row that says otherwise is named on
    stderr, GameReplay.disagreement), its rules and policies."""
    rules, rec = rp.entry.rules, rp.made or rp.record
    who = f", seat {rec['winner']}" if rec["winner"] is not None else ""
    named = rp.rule_set if rp.rule_set.split(" ")[0] == rules.variant else f"{rp.rule_set} ({rules.variant})"
    lines = [f"Game {rec['game_id']} · {named} · rules {rec['rules_id']} · seed {rec['game_seed']}",
             f"Outcome: {rec['outcome']}{who} after {plural(rec['battles'], 'battle', grouped=False)} "
             f"({plural(rec['wars'], 'war', grouped=False)}, deepest {rec['max_war_depth']})"]
    every = rules.options()
    options = {k: every[k] for k in variant(rules.variant).options}
    lines.append("Rules: " + ", ".join(f"{k}={v}" for k, v in options.items()))
    if rec.get("policies"):
        lines.append("Policies: " + " | ".join(f"seat {i}: {p}" for i, p in enumerate(rec["policies"])))
    if rp.source is not None:
        lines.append(source_line(rp.source))
    return lines


def render_text(rp: GameReplay, battle: int | None = None, battles: tuple[int, int | None] | None = None,
                wars: bool = False) -> str:
    """The game as text: the deal, then each battle shown (see `select`); one battle alone is
    shown with every pile in full. Each battle costs the same whatever else is shown."""
    deck, layout = rp.deck, layout_of(rp.entry.rules)
    shown = select(rp, battle, battles, wars)
    full = battle is not None
    lines = header_lines(rp)
    if battle is None and battles is None:
        lines.append("Deal:")
        for ev in rp.deal:
            lines.append("  " + _deal_line(deck, ev))
    if not shown:
        lines.append("No battle with a war" + (" in this range." if battles is not None else "."))
    for view in shown:
        _battle_lines(lines, deck, layout, view, full)
    n = len(rp.battles)
    last = battle if battle is not None else (battles[1] if battles is not None else None)
    if last is None or last >= n:
        end = rp.end
        result = f"seat {end.seat} wins" if end.note == "win" else end.note
        lines.append(f"End after {plural(end.value, 'battle', grouped=False)}: {result}")
    return "\n".join(lines)


def _deal_line(deck: Deck, ev: Event) -> str:
    """One event of the deal (battle 0), by what its kind does (model.kind): cards dealt to a
    seat, cards set aside out of play, or any other move (a draw into the hand) as its sentence."""
    kind = BY_NAME.get(ev.kind, _SAYS_NOTHING)
    if kind.sets_aside:
        return f"set aside ({len(ev.cards)}): {_labels(deck, ev.cards)}"
    if kind.deals or kind.at_deal:
        return f"seat {ev.seat} ({len(ev.cards)}): {_labels(deck, ev.cards)}"
    return describe_event(deck, ev)


def _battle_lines(lines: list[str], deck: Deck, layout: str, view: BattleView, full: bool) -> None:
    before = _state(deck, layout, view.piles_before, view.won_before, view.hands_before, view.out_before)
    lines.append(f"Battle {view.battle} · piles {before}")
    if full:
        _pile_lines(lines, deck, layout, "pile (top first)", view.piles_before, view.won_before, view.hands_before)
    after = _state(deck, layout, view.piles_after, view.won_after, view.hands_after, view.out_after)
    kinds = [BY_NAME.get(ev.kind, _SAYS_NOTHING) for ev in view.events]
    if not full and view.war_depth == 0 and all(_plain(k) for k in kinds) and kinds[-1].collects:
        plays = ", ".join(f"seat {ev.seat} {_labels(deck, ev.cards)}" for ev, k in zip(view.events, kinds) if k.puts)
        took = " ".join(deck.label(c) for c in view.events[-1].cards)
        lines[-1] += f" · {plays} → seat {view.winner} takes {took} · piles {after}"
        return
    in_war = False
    for ev, kind in zip(view.events, kinds):
        in_war = in_war or kind.role == "starts_war"
        lines.append(("    " if is_detail(kind, in_war) else "  ") + describe_event(deck, ev))
    lines.append(f"  → piles {after}")
    if full:
        _pile_lines(lines, deck, layout, "pile after", view.piles_after, view.won_after, view.hands_after)


def _plain(kind: Kind) -> bool:
    """A step of a plain battle, which one line tells: a card laid face up, or the table collected."""
    return kind.collects or (kind.puts and kind.face == "up" and not kind.detail)


def is_detail(kind: Kind, in_war: bool) -> bool:
    """Whether an event is a detail of its battle, shown under it: its kind says so, or it lays a
    card face up within a war (model.kind.Kind.detail)."""
    return kind.detail or (in_war and kind.puts and kind.face == "up")


def _pile_lines(lines: list[str], deck: Deck, layout: str, name: str, piles, won, hands) -> None:
    """Every seat's pile in full (and its won pile or hand, in the variants that have them)."""
    for seat, pile in enumerate(piles):
        extra = f" · won pile {_labels(deck, won[seat])}" if layout == "won" else ""
        extra += f" · hand {_labels(deck, hands[seat])}" if layout == "hands" else ""
        lines.append(f"  seat {seat} {name}: {_labels(deck, pile)}{extra}")


def event_json(deck: Deck, ev: Event) -> dict:
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


def battle_json(deck: Deck, layout: str, b: BattleView) -> dict:
    """One battle for a program; `held_after` is each seat's cards after it as labels
    (BattleView.held_after: pile, then won pile, then hand)."""
    return {
        "battle": b.battle, "war_depth": b.war_depth, "winner": b.winner,
        "piles_before": b.piles_before, "piles_after": b.piles_after,
        **({"won_before": b.won_before, "won_after": b.won_after} if layout == "won" else {}),
        **({"hands_before": b.hands_before, "hands_after": b.hands_after} if layout == "hands" else {}),
        "held_after": [[deck.label(c) for c in b.held_after(seat)] for seat in range(len(b.piles_after))],
        "out_after": sorted(b.out_after),
        "events": [event_json(deck, ev) for ev in b.events],
    }


def as_json(rp: GameReplay, battle: int | None = None, battles: tuple[int, int | None] | None = None,
            wars: bool = False) -> dict:
    deck, layout = rp.deck, layout_of(rp.entry.rules)
    shown = select(rp, battle, battles, wars)
    return {
        "game": rp.record,
        "rule_set": rp.rule_set,
        "source": rp.source,
        "rules": rp.entry.rules.options(),
        "policies": list(rp.entry.policies),
        "disagreements": rp.disagreements,
        "deal": [event_json(deck, ev) for ev in rp.deal],
        "battles": [battle_json(deck, layout, b) for b in shown],
        "end": event_json(deck, rp.end),
    }
