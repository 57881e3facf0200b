"""The pickup orders (option `pickup`, docs/rules.md 2.4), each declared once, for every family
that takes the option: its name and words, its order as the reference engines take a table
(a function, the readable definition) and as the compiled engines take it (a sort key over
what each card on the table is, read as data). model.families makes the option from this list;
every engine, the cycle rule (ruling 7) and the compiled engines' codes read it. A new order is
one more `Pickup` here (docs/plugins.md, "A new pickup order").

Two orders are not a fixed order of the table, and each engine plays them itself: `shuffled`
(the table shuffled with the game's generator) and `pooled` (the table, as it lies, onto a won
pile). Every other order is fixed, so a position can repeat for certain (ruling 7).

A key is read left to right, each term ascending (+1) or descending (-1), and ends with
`position`, so that two cards never tie. What a term reads of a card on the table:

- `position`: its place in the cards taken, in table order;
- `taker`: 1 for a card of the seat taking them, else 0;
- `owner`: the seat that laid it;
- `step`: the step it was laid at (0 the battle, then each war's depth);
- `face_up`: 1 face up, 0 face down;
- `rank`: its rank as the game orders ranks;
- `up_rank`: its rank when face up, else 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

TERMS = ("position", "taker", "owner", "step", "face_up", "rank", "up_rank")
LAID_TERMS = ("step", "face_up", "up_rank")   # read from a game's `laid` (step, face up) by card
OWNER_TERMS = ("taker", "owner")              # read from a game's `played` (each seat's cards)
KEY_BITS = 62                                 # a packed key (the compiled engines') fits an int64


def as_laid(cards: list[int], seat: int, game) -> list[int]:
    """table_order's (and pooled's): the cards as they lie."""
    return cards


def winner_first(by_seat, winner: int) -> list:
    """winner_first's pickup order (docs/rules.md 2.4) of a table laid out as each seat's cards in
    the order they lie (`by_seat[seat]`): the winner's, then every other seat's in seat order.
    log.codec spells a take in this order `@w`."""
    return by_seat[winner] + [c for seat, cards in enumerate(by_seat) if seat != winner for c in cards]


def taker_first(cards: list[int], seat: int, game) -> list[int]:
    """winner_first's: the taking seat's cards, then each other seat's in seat order, each seat's
    in table order (`game.played`: each seat's cards as they lie)."""
    by_seat = game.played
    if len(cards) != len(game.table):  # a part of the table (Arneson's War's spoils and cause)
        kept = set(cards)
        by_seat = [[c for c in mine if c in kept] for mine in by_seat]
    return winner_first(by_seat, seat)


def natural(cards, laid: dict, rank) -> list:
    """natural's pickup order (docs/rules.md 2.4) of `cards` (in table order), `laid[card]` its
    (step, face up) on the table: the stack people gather, step by step (the battle, then each
    war), each step's face-down cards in table order, then its face-up cards lowest rank first
    (equal ranks in table order); the winner puts the stack under its pile reversed, the last
    card laid first."""
    stack = sorted(range(len(cards)), key=lambda i: (laid[cards[i]][0], laid[cards[i]][1],
                                                     rank[cards[i]] if laid[cards[i]][1] else 0, i))
    return [cards[i] for i in reversed(stack)]


def by_rank(cards, rank) -> list:
    """sorted's pickup order (docs/rules.md 2.4) of `cards` (in table order): highest rank
    first, equal ranks in table order."""
    return sorted(cards, key=lambda c: -rank[c])


def gathered(cards: list[int], seat: int, game) -> list[int]:
    """natural's, from the game's `laid` and `rank`."""
    return natural(cards, game.laid, game.rank)


def highest_first(cards: list[int], seat: int, game) -> list[int]:
    """sorted's, from the game's `rank`."""
    return by_rank(cards, game.rank)


@dataclass(frozen=True)
class Pickup:
    """One pickup order. `order(cards, seat, game)`: `cards` (a table, or part of it, in table
    order) as `seat` takes them, reading of the game `played`, `laid`, `rank` and `table` (the
    reference engines); `key`: the same order as a sort key (the module's docstring; the
    compiled engines). `drawn`: the engine shuffles (no order, no key); `won_pile`: the cards
    go onto a won pile, in `order`."""

    name: str
    said: str                                   # a rule set's words for it (model.words)
    order: Callable | None = None
    key: tuple[tuple[str, int], ...] = ()
    drawn: bool = False
    won_pile: bool = False

    @property
    def fixed(self) -> bool:
        """A position can repeat for certain (ruling 7): nothing is drawn."""
        return not self.drawn and not self.won_pile

    @property
    def reads_laid(self) -> bool:
        return any(term in LAID_TERMS for term, _ in self.key)

    @property
    def reads_owners(self) -> bool:
        return any(term in OWNER_TERMS for term, _ in self.key)

    @property
    def as_laid(self) -> bool:
        """The key is table order alone: the cards are taken as they lie."""
        return self.key == (("position", 1),)

    def sort_key(self, position: int, taker: bool, owner: int, step: int, face_up: bool, rank: int) -> tuple:
        """The key of one card, in Python (what the compiled engines pack into an int64)."""
        values = {"position": position, "taker": int(taker), "owner": owner, "step": step,
                  "face_up": int(face_up), "rank": rank, "up_rank": rank if face_up else 0}
        return tuple(sign * values[term] for term, sign in self.key)

    def duel_in_seat_order(self, winner: int) -> bool:
        """Whether a duel's two cards (one each, face up, the winner's the higher rank) go under
        the winner's pile first seat's first, when `winner` (0 or 1) takes them; a fixed order
        only."""
        keys = [self.sort_key(i, i == winner, i, 0, True, int(i == winner)) for i in range(2)]
        return keys[0] < keys[1]

    def problems(self) -> list[str]:
        out = []
        if self.fixed:
            if self.order is None or not self.key:
                out.append(f"pickup {self.name!r}: a fixed order has an order and a key")
            elif self.key[-1][0] != "position":
                out.append(f"pickup {self.name!r}: its key ends with position (no two cards tie)")
            unknown = [term for term, sign in self.key if term not in TERMS or sign not in (1, -1)]
            if unknown:
                out.append(f"pickup {self.name!r}: terms {unknown} (known: {', '.join(TERMS)}, each +1 or -1)")
        return out


def radices(key: Sequence[tuple[str, int]], deck_size: int, players: int) -> list[int]:
    """How many values each term of a key takes on a deck of `deck_size` cards (a bound)."""
    by_term = {"position": deck_size + 1, "taker": 2, "owner": players, "step": deck_size + 1, "face_up": 2,
               "rank": deck_size + 1, "up_rank": deck_size + 1}
    return [by_term[term] for term, _ in key]


# The orders, in the option's order (the compiled engines code them by position: model.schema.PICKUPS).
PICKUP_ORDERS: tuple[Pickup, ...] = (
    Pickup("shuffled", "won cards shuffled", drawn=True),
    Pickup("table_order", "won cards in table order", as_laid, (("position", 1),)),
    Pickup("winner_first", "winner's cards first", taker_first, (("taker", -1), ("owner", 1), ("position", 1))),
    Pickup("pooled", "won cards pooled and shuffled", as_laid, (("position", 1),), won_pile=True),
    Pickup("natural", "won cards gathered as one stack (natural)", gathered,
           (("step", -1), ("face_up", -1), ("up_rank", -1), ("position", -1))),
    Pickup("sorted", "won cards highest first (sorted)", highest_first, (("rank", -1), ("position", 1))),
)
PICKUPS_BY_NAME: dict[str, Pickup] = {p.name: p for p in PICKUP_ORDERS}
FIXED_PICKUPS: tuple[str, ...] = tuple(p.name for p in PICKUP_ORDERS if p.fixed)


def _check() -> None:
    from .family import MAX_DECK

    for pickup in PICKUP_ORDERS:
        wrong = pickup.problems()
        if not wrong:
            size = 1
            for radix in radices(pickup.key, MAX_DECK, 8):
                size *= radix
            if size >= 1 << KEY_BITS:
                wrong = [f"pickup {pickup.name!r}: its key does not fit {KEY_BITS} bits on the largest deck"]
        if wrong:
            raise ValueError("; ".join(wrong))


_check()
