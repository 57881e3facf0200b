"""Shuffling and dealing (docs/rules.md 1.4), and explicit deals given by a user."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import DealError
from .cards import Deck
from .inputs import lines as split_lines
from .inputs import KeyTwice, loads_json, not_regular
from .rng import Xoshiro256
from .schema import RuleSet


def deck_of(rules: RuleSet) -> Deck:
    return Deck(rules.ranks, rules.suits, rules.jokers)


@dataclass(frozen=True)
class Deal:
    """Each seat's pile (top first) and the cards set aside, out of play."""

    piles: tuple[tuple[int, ...], ...]
    set_aside: tuple[int, ...] = ()
    explicit: bool = False  # given, not shuffled: the game draws nothing for its deal
    enumerated: bool = False  # one of every deal of the deck (model.all_deals)

    @property
    def kind(self) -> str:
        """How the games table says the game was dealt: shuffle, explicit or all."""
        return "all" if self.enumerated else "explicit" if self.explicit else "shuffle"


DEALS = ("even", "first_short")  # the option `deal` (docs/rules.md 1.4)


def deal_plan(rules: RuleSet) -> tuple[int, int]:
    """How a deck in order (position 0 on top) is dealt: (cards dealt, the seat the deal begins
    at); card i goes to seat (i + start) mod n. `even`: floor(deck / n) cards each from seat 0,
    the rest set aside. `first_short`: every card, the deal begun at seat n - r (r = deck mod n)
    so that the last card reaches the last seat: the first n - r seats hold one card fewer than
    the last r. A deck that divides among the seats deals the same either way."""
    n = rules.players
    size = rules.ranks * rules.suits + rules.jokers
    if getattr(rules, "deal", "even") == "first_short":
        return size, -size % n
    return size // n * n, 0


def deal_deck(rules: RuleSet, deck) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """A deck in order (top first) dealt as the rule set deals (deal_plan): each seat's pile, top
    first, and the cards set aside."""
    dealt, start = deal_plan(rules)
    n = rules.players
    piles = tuple(tuple(deck[(s - start) % n:dealt:n]) for s in range(n))
    return piles, tuple(deck[dealt:])


def dealt_deck(rules: RuleSet, piles, set_aside) -> list:
    """The deck in order whose deal (deal_deck) gives these piles and cards set aside."""
    dealt, start = deal_plan(rules)
    n = rules.players
    return [piles[(k + start) % n][k // n] for k in range(dealt)] + list(set_aside)


def pile_sizes(rules: RuleSet) -> tuple[int, ...]:
    """How many cards each seat is dealt (deal_plan), and then how many are set aside."""
    dealt, start = deal_plan(rules)
    n = rules.players
    size = rules.ranks * rules.suits + rules.jokers
    return tuple(len(range((s - start) % n, dealt, n)) for s in range(n)) + (size - dealt,)


def shuffled_deal(rules: RuleSet, rng: Xoshiro256) -> Deal:
    """Shuffle the deck in ascending code order, then deal it (deal_deck): under `even` card i to
    seat i mod n until every seat has floor(deck / n) cards, the rest set aside."""
    deck = list(range(rules.ranks * rules.suits + rules.jokers))
    rng.shuffle(deck)
    piles, aside = deal_deck(rules, deck)
    return Deal(piles, aside)


def _codes(deck: Deck, cards: list) -> list[int]:
    """The cards' codes. Codes already (as war writes deals, and as each shard's worker reads
    them back) are taken as they are when every one is in the deck: parsing card by card cost
    most of an explicit-deals run."""
    if set(map(type, cards)) <= {int} and (not cards or 0 <= min(cards) and max(cards) < deck.size):
        return list(cards)
    return [deck.parse(c) for c in cards]


def _whole_deck(rules: RuleSet, piles: list[list], set_aside: list | None) -> Deal | None:
    """The deal, when it is the common case, checked in one pass: codes (ints, not bools), every
    code of the deck exactly once, no pile empty. None sends it to the checks that name what is
    wrong (or parse card labels)."""
    if set_aside is not None and not isinstance(set_aside, list):
        return None
    dealt = [c for p in piles for c in p]
    if set_aside:
        dealt += set_aside
    size = rules.ranks * rules.suits + rules.jokers
    if (len(dealt) != size or not all(piles) or set(map(type, dealt)) != {int}
            or sorted(dealt) != list(range(size))):
        return None
    return Deal(tuple(map(tuple, piles)), tuple(set_aside or ()), explicit=True)


def check_deal(rules: RuleSet, piles: list, set_aside: list | None = None, where: str = "deal") -> Deal:
    """An explicit deal, checked to be exactly the rule set's deck: one pile per seat, none
    empty, every card once. Cards may be declared set aside, out of play."""
    if not isinstance(piles, list) or not all(isinstance(p, list) for p in piles):
        raise DealError(f"{where}: `piles` must be a list of lists of cards")
    if len(piles) != rules.players:
        raise DealError(f"{where}: {len(piles)} piles for {rules.players} players")
    whole = _whole_deck(rules, piles, set_aside)
    if whole is not None:
        return whole
    deck = deck_of(rules)
    try:
        coded = [_codes(deck, p) for p in piles]
        aside = _codes(deck, set_aside or [])
    except DealError as err:
        raise DealError(f"{where}: {err}") from None
    except TypeError:
        raise DealError(f"{where}: `set_aside` must be a list of cards") from None
    for s, p in enumerate(coded):
        if not p:
            raise DealError(f"{where}: seat {s}'s pile is empty")
    dealt = [c for p in coded for c in p] + aside
    if len(dealt) == deck.size and len(set(dealt)) == deck.size:  # every code once (each is in the deck)
        return Deal(tuple(tuple(p) for p in coded), tuple(aside), explicit=True)
    seen: set[int] = set()
    for c in dealt:
        if c in seen:
            raise DealError(f"{where}: card {deck.label(c)} ({c}) appears twice")
        seen.add(c)
    missing = [c for c in range(deck.size) if c not in seen]
    if missing:
        shown = " ".join(deck.label(c) for c in missing[:6]) + (" ..." if len(missing) > 6 else "")
        raise DealError(f"{where}: not a whole deck of {deck.size}: {len(missing)} cards missing "
                        f"({shown}); list them under `set_aside` to leave them out of play")
    return Deal(tuple(tuple(p) for p in coded), tuple(aside), explicit=True)


def deal_lines(path: str | Path, what: str, wants: str = "", params: tuple[str, ...] = ()
               ) -> Iterator[tuple[str, dict]]:
    """Each line of a JSON Lines file of deals (`what` it is called in errors: "deals file") as
    (`FILE line N`, its object), blank lines passed over; a DealError naming the file or the line
    for a file that cannot be read, a line that is not JSON or not an object with `piles`
    (`wants` says what else such a line may be)."""
    path = Path(path)
    kind = not_regular(path)
    if kind is not None:
        raise DealError(f"{what} {str(path)!r} is {kind}, not a file", params=params)
    try:
        lines = split_lines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise DealError(f"cannot read {what} {str(path)!r}: {getattr(err, 'strerror', None) or err}",
                        params=params) from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            data = loads_json(line, unique=True)  # a key given twice is refused, as in a rule file
        except KeyTwice as err:
            raise DealError(f"{where}: {err}", params=params) from None
        except ValueError as err:
            raise DealError(f"{where}: not JSON: {err}", params=params) from None
        if not isinstance(data, dict) or "piles" not in data:
            raise DealError(f"{where}: wants an object with `piles`{wants}", params=params)
        yield where, data


def read_deals(path: str | Path, rules: RuleSet) -> list[Deal]:
    """JSON Lines, one deal a line: {"piles": [[card, ...], ...], "set_aside": [...]}."""
    deals = [check_deal(rules, data["piles"], data.get("set_aside"), where)
             for where, data in deal_lines(path, "deals file")]
    if not deals:
        raise DealError(f"deals file {str(path)!r} holds no deal")
    return deals


def deal_line(deal: Deal) -> str:
    return json.dumps({"piles": [list(p) for p in deal.piles], "set_aside": list(deal.set_aside)},
                      separators=(",", ":"))
