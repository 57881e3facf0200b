"""Shared test helpers: cards by label, hand-built deals, the events as the engines log them
(pipeline.engines.event.Event), the rule sets and games of the rule tests (Classic War's
hand-built deals, scripted decisions for Steal War and Arneson's War), the option grid that the
conformance and compiled-engine suites sweep, reading a dataset's games, and running a script in
a fresh process with its own numba cache."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pyarrow.parquet as pq

from pipeline.engines.arneson.reference import play_arneson
from pipeline.engines.chance import RandomChance
from pipeline.engines.event import Event, Recorder
from pipeline.engines.game import play_game, replay_log
from pipeline.engines.steal.reference import play_steal
from pipeline.model.cards import Deck
from pipeline.storage.dataset import Dataset
from pipeline.model.deal import check_deal, deck_of
from pipeline.model.pickups import PICKUP_ORDERS
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules

# The standard deck with its two Jokers: code = 4 x rank index + suit index (C D H S), Jokers 52
# and 53 ("JK1", "JK2"). The 52 suited cards have the same codes without Jokers.
DECK54 = Deck(13, 4, 2)


def code(card) -> int:
    """A card code from a label ("10H", "JK1"), or a code given as is."""
    return card if isinstance(card, int) else DECK54.parse(card)


def cs(*cards) -> tuple[int, ...]:
    return tuple(code(x) for x in cards)


def card(rank: int, suit: int = 0) -> int:
    """A standard deck's code: rank index (0 = 2 .. 12 = A, 13 = Joker) x 4 + suit."""
    return 4 * rank + suit


def label(card: int) -> str:
    """The inverse of `code` in ASCII letters ("10H", "JK1")."""
    return DECK54.label(card).translate(str.maketrans("♣♦♥♠", "CDHS"))


def suit_run(suit: str, *ranks: str) -> list[str]:
    """The labels of `ranks` in one suit: suit_run("C", "2", "3") == ["2C", "3C"]."""
    return [r + suit for r in ranks]


def deal(rule_set, *piles):
    """An explicit deal of `piles` (top card first); every other card of the deck is set aside."""
    used = {code(x) for p in piles for x in p}
    rest = [c for c in range(deck_of(rule_set).size) if c not in used]
    return check_deal(rule_set, [[code(x) for x in p] for p in piles], rest)


def body(events):
    """The events after the deal (battle 1 onwards)."""
    return [e for e in events if e.battle > 0]


def check_summary(summary, **expected):
    got = {name: getattr(summary, name) for name in expected}
    assert got == expected


def fisher_yates(rng: Xoshiro256, cards) -> list[int]:
    """docs/rules.md (Randomness): for i from len-1 down to 1, j = bounded(i+1), swap i and j."""
    cards = [code(x) for x in cards]
    for i in range(len(cards) - 1, 0, -1):
        j = rng.bounded(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def DEAL(seat, *cards):
    return Event(0, "deal", seat, cs(*cards))


def PLAY(b, seat, card):
    return Event(b, "play", seat, cs(card))


def DOWN(b, seat, *cards):
    return Event(b, "down", seat, cs(*cards))


def WAR(b, seats, depth):
    return Event(b, "war", seats=tuple(seats), value=depth)


def WAR_OUT(b, seat):
    return Event(b, "war_out", seat)


def FORFEIT(b, seat, *cards):
    return Event(b, "forfeit", seat, cs(*cards))


def COLLECT(b, seat, *cards):
    return Event(b, "collect", seat, cs(*cards))


def SET_ASIDE(b, *cards):
    return Event(b, "set_aside", cards=cs(*cards))


def RESHUFFLE(b, seat, cards):
    return Event(b, "reshuffle", seat, cs(*cards))


def DRAW(b, seat, *cards):
    return Event(b, "draw", seat, cs(*cards))


def OUT(b, seat):
    return Event(b, "out", seat)


def END(b, winner, outcome):
    return Event(b, "end", winner, value=b, note=outcome)


def STEAL_DECISION(b, seat, card, chosen, options):
    """Ruling 12: cards = the looked-at card, seats = the chosen seats, options = the eligible."""
    return Event(b, "decision", seat, cs(card), seats=tuple(chosen), options=tuple(options), note="steal")


def STOLEN(b, seat, bundle, seats):
    """Ruling 12: the bundle put on top of the stealer's won pile, top first."""
    return Event(b, "steal", seat, cs(*bundle), seats=tuple(seats))


def TOP(b, seat, chosen, *options):
    """Ruling 14: cards = the chosen top card, options = the table cards in table order."""
    return Event(b, "decision", seat, cs(chosen), options=cs(*options), note="top")


def HAND(b, seat, depth, chosen, *options):
    """Ruling 15: cards = the chosen card, options = the hand sorted by code, value = war depth."""
    return Event(b, "decision", seat, cs(chosen), options=cs(*options), value=depth, note="hand")


# ---------------------------------------------------------------------------------------------
# The rule tests' rule sets and games (rules sections 1 to 5): hand-built deals, whose logs must
# replay to an equal summary, and seeded deals against the shuffle of rules 1.4.


def classic_rules(**options):
    """Classic War, fixed `table_order` pickup unless a test says otherwise."""
    return build_rules("classic", {"pickup": "table_order", **options})


def multiplayer_rules(**options):
    """Multiplayer War (defaults: 3 players, war_down 1), fixed `table_order` pickup."""
    return build_rules("multiplayer", {"pickup": "table_order", **options})


def razboi_rules(**options):
    """Război, fixed `table_order` pickup unless a test says otherwise."""
    return build_rules("razboi", {"pickup": "table_order", **options})


def play(rule_set, piles, seed: int = 0):
    """Play a hand-built deal; check that its log replays to an equal summary."""
    events, summary, _ = play_game(rule_set, seed, deal(rule_set, *piles))
    assert replay_log(rule_set, events) == summary
    return events, summary


def play_seed(rule_set, seed: int):
    """Play the game of a seed (shuffled deal); check that its log replays to an equal summary."""
    events, summary, dealt = play_game(rule_set, seed)
    assert replay_log(rule_set, events) == summary
    return events, summary, dealt


def expected_deal(seed: int, size: int, players: int):
    """rules 1.4 by hand: shuffle codes 0..size-1, card i to seat i mod n until each seat has
    floor(size / n); the rest set aside."""
    deck = fisher_yates(Xoshiro256(seed), range(size))
    each = size // players
    piles = [[] for _ in range(players)]
    for i in range(each * players):
        piles[i % players].append(deck[i])
    return [tuple(p) for p in piles], tuple(deck[each * players:])


def deal_events(events, players):
    """The deal's events: each seat's pile, and the set-aside cards (or None if not logged)."""
    for seat in range(players):
        assert (events[seat].battle, events[seat].kind, events[seat].seat) == (0, "deal", seat)
    piles = [events[seat].cards for seat in range(players)]
    after = events[players]
    aside = after.cards if after.kind == "set_aside" and after.battle == 0 else None
    return piles, aside


# Classic War's hand-built deals (top card first), shared by its rule tests and the tests that
# replay each of them.

BATTLE = (["KS", "2C"], ["5H", "3D"])
WAR1 = (["7C", "2C", "3C", "4C", "KC"], ["7D", "2D", "3D", "4D", "5D"])
NOT_TIED = (["9C", "2C", "3C", "4C", "5C", "6C"], ["8D", "6D"], ["9H", "2H", "3H", "4H", "KH"])
LOW_TIE = (["AC", "2C"], ["5D"], ["5H"])
THREE_WAY = (["7C", "2C", "3C", "4C", "KC", "5C", "6C", "8C", "AC"],
             ["7D", "2D", "3D", "4D", "KD", "5D", "6D", "8D", "9D"],
             ["7H", "2H", "3H", "4H", "5H", "6H"])
DOUBLE = (["7C", "2C", "3C", "4C", "JC", "5C", "6C", "8C", "AC"],
          ["7D", "2D", "3D", "4D", "JD", "5D", "6D", "8D", "9D"])
SHORT3 = (["7C", "2C", "3C", "KC"], ["7D", "2D", "3D", "4D", "5D"])
SHORT1 = (["7C", "2C"], ["7D", "2D", "3D", "4D", "5D"])
LOSE3 = (["7C", "2C", "3C"], ["7D", "2D", "3D", "4D", "5D", "6D"], ["7H", "2H", "3H", "4H", "9H"])
NO_CARD3 = (["7C"], ["7D", "2D", "3D", "4D", "5D", "6D"], ["7H", "2H", "3H", "4H", "9H"])
ONE_LEFT = (["9C"], ["9D", "2C", "3C", "4C", "5C"])
ALL_OUT = (["5C", "7C"], ["5D", "7D"])
ALL_OUT4 = (["9C"], ["9D"], ["5H", "6H"], ["4S", "3S"])
ORDER = (["7C", "2C", "3C", "4C", "5C", "AS"], ["7D", "2D", "3D", "4D", "9D"])
POOLED = (["KS", "QS", "2C"], ["5H", "4H", "3D"])
POOLED_WAR = (["KS", "QS", "7C"], ["2D", "3D", "7D", "4D", "5D", "6D", "8D"])
SINGLE = (["7C", "2C", "3C", "4C", "JC", "5C", "AC"], ["7D", "2D", "3D", "4D", "JD", "5D", "9D"])
ELIM3 = (["KC", "QC", "2C"], ["3D"], ["5H", "4H"])
CYCLE = (["3C"], ["2C", "2D", "6D"])
WARS2 = (["7C", "2C", "3C", "4C", "JC", "5C", "6C", "8C", "AC", "9C", "10C", "QC", "KC", "AS"],
         ["7D", "2D", "3D", "4D", "JD", "5D", "6D", "8D", "9D", "9H", "10D", "QD", "KD", "2S", "3S",
          "4S"])


# ---------------------------------------------------------------------------------------------
# Steal War and Arneson's War (rules 6 and 7) on hand-built deals with scripted decisions: every
# decision is answered by `Script`, so each game is exact; the engines are run directly
# (`play_steal`, `play_arneson`) with a `Recorder` and the game's generator, and every game is
# replayed from its log, which reads the decisions from the log.


def steal_rules(**options):
    return build_rules("steal", options)


def arneson_rules(**options):
    """Arneson's War with a fixed `table_order` pickup unless a test says otherwise."""
    return build_rules("arneson", {"pickup": "table_order", **options})


class Script:
    """A chooser with pre-set answers: one queue per (kind, seat), in the order asked. Each answer
    carries the options the engine must offer; the offered options are asserted."""

    randomized = False

    def __init__(self, answers):
        """`answers`: (kind, seat, offered options, answer) tuples, or a dict
        {(kind, seat): [(offered options, answer), ...]}."""
        self.queues: dict[tuple[str, int], list] = {}
        if isinstance(answers, dict):
            for key, queue in answers.items():
                self.queues[key] = [(tuple(o), a) for o, a in queue]
        else:
            for kind, seat, offered, answer in answers:
                self.queues.setdefault((kind, seat), []).append((tuple(offered), answer))
        self.asked: list[tuple[str, int, tuple, object]] = []  # (kind, seat, options, view)

    def choose(self, kind, seat, view, options):
        queue = self.queues.get((kind, seat))
        assert queue, f"unscripted {kind} decision for seat {seat} among {list(options)}"
        offered, answer = queue.pop(0)
        assert tuple(options) == offered, (
            f"{kind} decision of seat {seat}: offered {list(options)}, expected {list(offered)}")
        self.asked.append((kind, seat, tuple(options), view))
        return answer

    def finished(self) -> None:
        left = {key: queue for key, queue in self.queues.items() if queue}
        assert not left, f"scripted answers never asked for: {left}"

    def views(self, kind, seat):
        return [view for k, s, _, view in self.asked if (k, s) == (kind, seat)]


def steal(seat, options, chosen):
    """A steal answer: `options` the seats offered (in order), `chosen` the seats taken."""
    return ("steal", seat, tuple(options), tuple(chosen))


def top(seat, chosen, *options):
    """A top-card answer: `options` the won cards offered, in table order."""
    return ("top", seat, cs(*options), code(chosen))


def hand(seat, chosen, *options):
    """A hand-card answer: `options` the hand, sorted by code."""
    return ("hand", seat, cs(*options), code(chosen))


def check_decisions_logged(events, script) -> None:
    """rules 6.8 / 7.5: every decision asked of the chooser is logged, in order, with the options
    it had, and nothing else is logged as a decision."""
    logged = [(e.note, e.seat, e.options) for e in events if e.kind == "decision"]
    assert logged == [(kind, seat, options) for kind, seat, options, _ in script.asked]


def run_steal(rule_set, piles, script, seed: int = 0):
    """Play a hand-built Steal War deal with scripted decisions; check the log replays."""
    rec = Recorder()
    chance = RandomChance(Xoshiro256(seed))
    summary = play_steal(rule_set, deal(rule_set, *piles), chance, rec, script)
    script.finished()
    check_decisions_logged(rec.events, script)
    assert replay_log(rule_set, rec.events, policies=("default",) * rule_set.players) == summary
    return rec.events, summary


def run_arneson(rule_set, piles, script, seed: int = 0):
    """Play a hand-built Arneson deal with scripted decisions; check the log replays. The replay's
    policies are not randomized, like the script, so cycle detection is the same (ruling 18)."""
    rec = Recorder()
    chance = RandomChance(Xoshiro256(seed))
    summary = play_arneson(rule_set, deal(rule_set, *piles), chance, rec, script)
    script.finished()
    check_decisions_logged(rec.events, script)
    assert replay_log(rule_set, rec.events, policies=("hand:highest", "hand:highest")) == summary
    return rec.events, summary


def after_deal(events, players: int):
    """The events after the deal events and the set-aside event of a hand-built deal."""
    assert [e.kind for e in events[:players + 1]] == ["deal"] * players + ["set_aside"]
    return events[players + 1:]


def tampered(events, index: int, **fields):
    """A copy of the log with event `index` changed (fields: cards, seats, options)."""
    log = list(events)
    log[index] = log[index]._replace(**{name: tuple(value) for name, value in fields.items()})
    return log


def decision_index(events, note: str, nth: int = 0) -> int:
    return [i for i, e in enumerate(events) if e.kind == "decision" and e.note == note][nth]


# One value or more of every option that a variant may take, swept by the conformance suite
# (every registered variant) and the compiled-engine suite (the table family).
OPTION_GRID = {
    "pickup": [p.name for p in PICKUP_ORDERS if p.name != "shuffled"],  # every order but the default
    "war_tiebreak": ["single_up"],
    "shortfall": ["lose"],
    "win": ["wars:3"],
    "jokers": ["2"],
    "players": ["3", "4"],
    "war_down": ["0", "2"],
    "ranks": ["6"],
    "max_battles": ["60"],
    "aces": ["low"],
    "deal": ["first_short"],
}


def event_dict(game_id: int, seq: int, ev: Event) -> dict:
    """An event as a row of the `events` view: game_id, seq and the event's fields, lists as lists."""
    return {"game_id": game_id, "seq": seq,
            **{k: list(v) if isinstance(v, tuple) else v for k, v in ev._asdict().items()}}


def file_events(path) -> list[dict]:
    """Every event of one events file, one dict per event (event_dict), decoded with
    pipeline.log.tables, not with the SQL view."""
    from pipeline.log.tables import game_logs

    return [event_dict(gid, i, ev)
            for gid, log in game_logs(pq.read_table(path)).items() for i, ev in enumerate(log)]


def dataset_events(root) -> list[dict]:
    """Every event of a dataset (see file_events), in manifest order."""
    ds = Dataset.open(root)
    return [e for f in ds.files("events") for e in file_events(ds.root / f.path)]


def encoded(events: list[dict]) -> list[dict]:
    """One game's event dicts, in list order (their seq is ignored), as rows of an events file."""
    from pipeline.log import codec

    if not events:
        return []
    log = [Event(**{k: tuple(e[k]) if isinstance(e[k], list) else e[k] for k in Event._fields}) for e in events]
    return [{"game_id": events[0]["game_id"], **r._asdict()} for r in codec.encode(log)]


def rewrite_game_events(path, gid: int, edit) -> None:
    """Rewrite one events file with game `gid`'s events replaced by edit(its event dicts),
    encoded as the writer would (same schema and metadata)."""
    import pyarrow as pa

    table = pq.read_table(path)
    rows = table.to_pylist()
    mine = [i for i, r in enumerate(rows) if r["game_id"] == gid]
    events = [e for e in file_events(path) if e["game_id"] == gid]
    rows[mine[0]:mine[-1] + 1] = encoded(edit(events))
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path, compression="zstd")


def games_rows(root) -> list[dict]:
    """Every row of a dataset's games files, in manifest order."""
    ds = Dataset.open(root)
    return [row for f in ds.files("games") for row in pq.read_table(ds.root / f.path).to_pylist()]


def quantile_cont(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (DuckDB quantile_cont, numpy's default)."""
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def war_process(*args, **kw):
    """`war ARGS` in a new process (for kill -9 and for a second writer), its output as text."""
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-m", "pipeline.cli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def digests(root) -> dict[str, str]:
    """Every file under a folder by relative path: its SHA-256."""
    import hashlib

    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def run_fresh(tmp_path, script: str, *args: str) -> dict:
    """Run `script` in a fresh Python (numba caches a function of a file only, and loads its
    cache once a process), with numba's cache in tmp_path/cache and tmp_path importable; the
    JSON it prints."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)
