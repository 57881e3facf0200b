"""Card codes, ranks and labels (README.md, "The dataset": card codes).

code = suits x rank index + suit index; Jokers follow the suited cards and share
one rank above all others. Before the shuffle the deck lies in ascending code order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..errors import DealError, brief

STANDARD_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
SUIT_LETTERS = ("C", "D", "H", "S")


@dataclass(frozen=True)
class Deck:
    ranks: int = 13
    suits: int = 4
    jokers: int = 0

    @property
    def size(self) -> int:
        return self.ranks * self.suits + self.jokers

    @cached_property
    def rank(self) -> tuple[int, ...]:
        """Rank index of every code; both Jokers share rank index `ranks`."""
        s = self.suits
        return tuple(c // s for c in range(self.ranks * s)) + (self.ranks,) * self.jokers

    def cards(self) -> list[int]:
        return list(range(self.size))

    def rank_label(self, r: int) -> str:
        if r == self.ranks:
            return "JK"
        return STANDARD_RANKS[r] if self.ranks == 13 else str(r + 1)

    def label(self, code: int) -> str:
        n = self.ranks * self.suits
        if not 0 <= code < self.size:
            raise DealError(f"card code {code} is not in a deck of {self.size} cards")
        if code >= n:
            return f"JK{code - n + 1}"
        r, s = divmod(code, self.suits)
        suit = SUIT_SYMBOLS[s] if self.suits <= 4 else f"/{s + 1}"
        return self.rank_label(r) + suit

    @cached_property
    def _by_label(self) -> dict[str, int]:
        table: dict[str, int] = {}
        for code in range(self.size):
            label = self.label(code)
            table[label.upper()] = code
            if self.suits <= 4 and code < self.ranks * self.suits:
                table[label[:-1].upper() + SUIT_LETTERS[code % self.suits]] = code
        return table

    def parse(self, card: int | str) -> int:
        """A card given as a code or a label (`10♥`, `10H`, `qs`, `JK1`)."""
        if isinstance(card, bool):
            raise DealError(f"not a card: {brief(card)}")
        if isinstance(card, int):
            if not 0 <= card < self.size:
                raise DealError(f"card code {brief(card)} is not in a deck of {self.size} cards")
            return card
        if isinstance(card, str):
            text = card.strip()
            if text.isdigit() and len(text) <= 9 and text not in self._by_label:
                return self.parse(int(text))
            code = self._by_label.get(text.upper())
            if code is not None:
                return code
        raise DealError(f"not a card of this deck: {brief(card)}")
