"""The face a plugin family is written against (docs/plugins.md): everything a package that adds
a family of War imports from war, from this one module, and nothing else of war's is promised.

    from pipeline.plugin import Decision, Family, Kind, Option, Policy, Report, Variant   # the declaration
    from pipeline.plugin import TableGame                                        # the engine
    from pipeline.plugin import testing                                          # its tests (the kit)

The declaration's types (model.family, model.kind) are imported with this module, which is
cheap: war reads a declaration before it imports any engine. `TableGame` and `testing` load on
first use (PEP 562), so a declaration module that imports only the types above loads no engine.

`TableGame` is Classic War's game (engines/table/reference.py); an engine subclasses it and
overrides the hooks of the rules it changes, each called at its step of a battle (`strength` and
`decides` are asked once per card or pair of cards of the rule set's deck and kept as tables,
`tie` only at a tie and `position` only while positions are kept: a game that overrides no
other hook plays on Classic War's own loops; a hook called every battle sends its games to the
loop that calls it):

| hook | the rule it says | by default |
|---|---|---|
| `strength(card) -> int` | how strong a card is when cards meet (asked once per card) | its rank |
| `decides(card, other) -> str or None` | the event logged when `card`, best, beats `other` (asked once per pair) | none |
| `best(battle, seats) -> list[int]` | which seats' face-up cards (`up[seat]`) are best | the strongest |
| `tie(battle, tied, best) -> (seat, kind) or None` | a seat that takes a tied table at once, as it lies | none |
| `wars(battle, tied, best) -> (winner, depth)` | how a tie for the best card is settled | wars |
| `war_size(depth, card) -> int` | what each seat in a war lays face down | `war_down` |
| `collector(battle, winner, depth) -> int or None` | who takes the table (None: set aside) | the winner |
| `pick_up(seat, battle) -> list[int]` | the order the table is taken in | `pickup` |
| `collect(seat, cards, battle, kind)` | where taken cards go, and the event that says so | `collect` |
| `game_over(battle) -> bool` | an end of the rule's own (set `summary.outcome` first) | never |
| `position() -> tuple` | what must come back for the game to be a cycle | piles as strengths |

What a hook calls: `emit(battle, kind, seat, cards, seats, options, value, note)` (one event;
kinds the family declares), `decide(battle, decision, seat, view, options)` (a seat's policy
chooses, logged as a `decision` event; the choice), `holding(seat)` (cards the seat holds),
`suit(card)` (its suit index, None for a Joker), `chance.order(kind, seat, cards)` (a random
order: never draw randomness yourself).

What a hook reads, and leaves as it is: `rules` (the rule set, every option an attribute), `n`
(seats), `deck` (ranks, suits, jokers, label), `rank` (each card code's rank index as the game
orders ranks), `strengths` (each card code's strength), `piles` (each seat's pile, top first),
`won` (won piles under pickup=pooled), `alive`, `table` (this battle's cards in table order),
`played` (them by seat), `up` (each contender's face-up card), `step` (0, then the war's depth),
`taker` (the seat that took the last table, None before any), `summary`, `chooser` (None unless the engine passes one). Anything else of the class is its own,
free to change without notice.

An engine is the function the declaration names, `play(rules, deal, chance, rec, chooser) ->
Summary`: `return MyGame(rules, deal, chance, rec, chooser).play()`.

tests/test_plugin_face.py holds every name and signature of this face to tests/plugin_face.txt:
a change to them is a change of the face, said in docs/plugins.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .model.family import Decision, Family, Option, Policy, Report, Variant
from .model.kind import Kind

if TYPE_CHECKING:  # loaded on first use, below
    from . import testing
    from .engines.table.reference import TableGame

__all__ = ["Decision", "Family", "Kind", "Option", "Policy", "Report", "TableGame", "Variant", "testing",
           "HOOKS", "CALLS", "STATE"]

# The hooks a plugin's game overrides, what it calls, and what it reads (the docstring's tables).
HOOKS = ("strength", "decides", "best", "tie", "wars", "war_size", "collector", "pick_up", "collect", "game_over", "position")
CALLS = ("emit", "decide", "holding", "suit", "play")
STATE = ("rules", "n", "deck", "rank", "strengths", "piles", "won", "alive", "table", "played", "up", "step",
         "taker", "summary", "chooser", "chance")

_LAZY = {"TableGame": ("pipeline.engines.table.reference", "TableGame"), "testing": ("pipeline.testing", None)}


def __getattr__(name: str):
    """The engine's base class and the kit, imported on first use (not with the declaration)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'pipeline.plugin' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = importlib.import_module(module)
    value = getattr(value, attribute) if attribute else value
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
