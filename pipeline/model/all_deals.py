"""Every deal of a rule set's deck, each exactly once, numbered (docs/rules.md 8, "Every deal").

Suits never decide a game, so two decks that differ only by suits are one deal: a deal is a
sequence of ranks, the deck's order after a shuffle (position 0 on top), dealt as the rules deal
a shuffled deck (1.4, model.deal.deal_deck: card i to seat i mod n, the rest set aside; under
`deal = first_short` every card, the deal begun so that the last seats hold one card more). Deal `i` is the sequence of
lexicographic rank `i` among every distinct sequence of the deck's ranks (a permutation of a
multiset: rank r appears as often as the deck holds cards of it), computed from `i` alone
(`ranks_of`), so a shard of deals needs nothing but its first index. The k-th card of rank r in
the sequence is the k-th card of that rank in code order. Each sequence is equally likely under a
fair shuffle, so a share of the deals is an exact probability.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

from ..errors import RulesError
from .deal import Deal, deal_deck, dealt_deck, deck_of, pile_sizes
from .schema import RuleSet

MAX_DEALS = 10**10  # an enumeration this war plays at most
MOST_COUNTED_DEALS = 10**13  # an enumeration `--log counts` plays at most (no row a deal)


def rank_counts(rules: RuleSet) -> tuple[int, ...]:
    """How many cards the deck holds of each rank index (the Jokers share the top one)."""
    rank = deck_of(rules).rank
    counts = [0] * (max(rank) + 1)
    for r in rank:
        counts[r] += 1
    return tuple(counts)


def first_codes(rules: RuleSet) -> tuple[int, ...]:
    """The lowest card code of each rank index."""
    firsts: dict[int, int] = {}
    for code, r in enumerate(deck_of(rules).rank):
        firsts.setdefault(r, code)
    return tuple(firsts[r] for r in range(len(firsts)))


def multinomial(counts) -> int:
    """The number of distinct sequences of a multiset with these counts."""
    total = factorial(sum(counts))
    for c in counts:
        total //= factorial(c)
    return total


def deal_count(rules: RuleSet) -> int:
    return multinomial(rank_counts(rules))


def check_enumerable(rules: RuleSet, most: int = MAX_DEALS) -> int:
    """The number of deals, refused (with the count) when over `most` (MAX_DEALS: a row a deal;
    counts alone go further, MOST_COUNTED_DEALS)."""
    count = deal_count(rules)
    too_many = too_many_deals(rules, most, count)
    if too_many is not None:
        hint = "" if most > MAX_DEALS else " (`log` counts counts up to 10^13 deals without a row each)"
        raise RulesError(f"{too_many}: play a smaller deck (ranks and suits in `options`) or seeded games{hint}",
                         params=("all_deals", "options"))
    return count


def too_many_deals(rules: RuleSet, most: int = MAX_DEALS, count: int | None = None) -> str | None:
    """Why every deal of the deck is more than war enumerates (`most`), in the words
    check_enumerable refuses `--all-deals` with, or None when it is not: also what a reader says
    of a manifest whose rule set claims every deal of such a deck (storage.dataset)."""
    count = deal_count(rules) if count is None else count
    if count <= most:
        return None
    return f"every deal of a {deck_of(rules).size}-card deck is {_said(count)} deals, more than {most:,}"


def _said(count: int) -> str:
    """A count of deals as a message says it: in full up to 60 digits, else by its power of ten
    (a deck of 32,000 cards has a count of over 100,000 digits, past what Python prints)."""
    power = int(count.bit_length() * 0.30102999566398120)  # times log10(2): the power of ten, or one more
    if count < 10 ** power:
        power -= 1
    return f"{count:,}" if power < 60 else f"about 10^{power:,}"


def deals_played(entry) -> int:
    """How many deals of its deck a rule set entry (model.schema.RuleSetEntry) of `--all-deals`
    plays: its games, or under `--log counts` the deals it counts."""
    return entry.deal_range[1] - entry.deal_range[0] if entry.log == "counts" else entry.games


def plays_every_deal(entry) -> bool:
    """Whether a rule set entry plays (or counts) every deal of its deck once: its shares are then
    exact probabilities. A counts rule set's deals are a range, from the first deal to the last."""
    if not entry.all_deals:
        return False
    count = deal_count(entry.rules)
    if entry.log == "counts":
        return list(entry.deal_range) == [0, count]
    return entry.games == count


def ranks_of(counts, index: int) -> list[int]:
    """The rank sequence of lexicographic rank `index` among the sequences of these counts."""
    counts = list(counts)
    left = sum(counts)
    total = multinomial(counts)
    if not 0 <= index < total:
        raise ValueError(f"deal {index} of {total}")
    out = []
    for _ in range(left):
        for r, c in enumerate(counts):
            if not c:
                continue
            block = total * c // left  # sequences starting with rank r
            if index < block:
                out.append(r)
                counts[r] -= 1
                total = block
                break
            index -= block
        left -= 1
    return out


def index_of(counts, ranks) -> int:
    """The lexicographic rank of a rank sequence among the sequences of these counts."""
    counts = list(counts)
    left = sum(counts)
    total = multinomial(counts)
    index = 0
    for rank in ranks:  # every sequence that has a lower rank here comes first
        index += sum(total * counts[r] // left for r in range(rank))
        total, left = total * counts[rank] // left, left - 1
        counts[rank] -= 1
    return index


def deck_order(rules: RuleSet, ranks) -> list[int]:
    """The deck, top first, of a rank sequence: each rank's cards in code order."""
    nxt = list(first_codes(rules))
    deck = []
    for r in ranks:
        deck.append(nxt[r])
        nxt[r] += 1
    return deck


def enumerated_deal(rules: RuleSet, index: int) -> Deal:
    """Deal number `index` of the rule set's enumeration, dealt as a shuffled deck is (1.4)."""
    piles, aside = deal_deck(rules, deck_order(rules, ranks_of(rank_counts(rules), index)))
    return Deal(piles, aside, explicit=True, enumerated=True)


def deal_index(rules: RuleSet, deal: Deal) -> int:
    """The number of a deal in the enumeration (its deck's rank sequence)."""
    rank = deck_of(rules).rank
    deck = dealt_deck(rules, deal.piles, deal.set_aside)
    return index_of(rank_counts(rules), [rank[c] for c in deck])


def seats_alike(rules: RuleSet) -> bool:
    """Whether a two-seat deal's piles can be swapped and still be a deal of the enumeration: the
    seats hold as many cards (never under `deal = first_short` with an odd deck), so that a deal
    and its swap are a class (engines.compiled.deals.first_of_class)."""
    sizes = pile_sizes(rules)
    return rules.players == 2 and sizes[0] == sizes[1]


@dataclass(frozen=True)
class AllDeals:
    """Deals start..stop-1 of a rule set's enumeration, as a sequence of model.deal.Deal (what
    the reference engine plays), which the compiled engine reads as arrays made in one compiled
    pass (engines.compiled.deals)."""

    rules: RuleSet
    start: int
    stop: int

    def __len__(self) -> int:
        return max(self.stop - self.start, 0)

    def __getitem__(self, item):
        if isinstance(item, slice):
            first, last, step = item.indices(len(self))
            if step != 1:
                raise ValueError("deals are sliced in order")
            return AllDeals(self.rules, self.start + first, self.start + max(first, last))
        if not 0 <= item < len(self):
            raise IndexError(item)
        return enumerated_deal(self.rules, self.start + item)

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def deal_kind(deals) -> str:
    """How a range of games is dealt, as the games table says (model.deal.Deal.kind): shuffled
    (no deals), explicit deals, or every deal of the deck."""
    if deals is None:
        return "shuffle"
    return "all" if isinstance(deals, AllDeals) else "explicit"
