"""One card's journey through a replayed game (`war replay --follow CARD`): where the deal put
it, and after each battle that moved it, what happened to it and where it ended up. Each event
kind says what it does to a card (model.kind: `journey`), so a family's own kinds are followed
with no change here."""

from __future__ import annotations

from ..errors import DealError, UsageError
from ..model.event_kinds import KINDS
from .replay import GameReplay, dealt_aside, header_lines, select

CARD_FORMS = ("a label: rank 2-10, J, Q, K or A, then a suit ♣ ♦ ♥ ♠ or its letter C D H S "
              "(10♥, 10H, TH, QS, as), JK1 or JK2 for a Joker, or a card code")

# what an event does to one card, by event kind, and to its first card (`KIND:first`) where that differs
_MOVES = {k.name: k.journey for k in KINDS if k.journey}
_MOVES.update({f"{k.name}:first": k.journey_first for k in KINDS if k.journey_first})


def parse_card(rp: GameReplay, card: str | int) -> int:
    """A card of this game's deck from a label (`10♥`, `10H`, `QS`) or a code; otherwise an error
    that lists the forms."""
    deck = rp.deck
    if isinstance(card, str) and deck.ranks == 13 and card.strip()[:1] in ("T", "t"):
        card = "10" + card.strip()[1:]  # TH, the one-letter ten of card notation
    try:
        return deck.parse(card)
    except DealError:
        shown = f"{deck.label(0)}..{deck.label(deck.size - 1)}" if deck.ranks != 13 or deck.suits != 4 else ""
        extra = f" (this game's deck: {deck.size} cards, {shown})" if shown else ""
        raise UsageError(f"`follow`: {card!r} is not a card of this game's deck; give {CARD_FORMS}{extra}",
                         params=("follow",)) from None


def place_of(view_piles, view_won, view_hands, aside, card: int) -> dict:
    """Where a card is between battles: `pile`, `won` or `hand` of a seat (position 1 = top, of
    how many), or `aside`."""
    for area, lists in (("pile", view_piles), ("won", view_won), ("hand", view_hands)):
        for seat, cards in enumerate(lists):
            if card in cards:
                return {"place": area, "seat": seat, "position": cards.index(card) + 1, "of": len(cards)}
    if card in aside:
        return {"place": "aside"}
    return {"place": "nowhere"}


def follow(rp: GameReplay, card: int, battle: int | None = None, battles: tuple[int, int | None] | None = None,
           wars: bool = False) -> dict:
    """One card's journey: where the deal put it, then after each battle that moved it (among
    those `select` shows), what happened to it and where it ended up."""
    deal_aside = tuple(dealt_aside(rp.deal))
    first = rp.battles[0] if rp.battles else None
    start = (place_of(first.piles_before, first.won_before, first.hands_before, deal_aside, card)
             if first else {"place": "aside" if card in deal_aside else "nowhere"})
    shown = select(rp, battle, battles, wars)
    journey = {"card": card, "label": rp.deck.label(card), "dealt": start}
    if (battle is not None or battles is not None) and shown and shown[0].battle > 1:
        view = shown[0]
        aside = rp.battles[view.battle - 2].aside_after
        journey["before"] = {"battle": view.battle,
                             **place_of(view.piles_before, view.won_before, view.hands_before, aside, card)}
    moves = []
    for view in shown:
        actions = [{"kind": f"{ev.kind}:first" if f"{ev.kind}:first" in _MOVES and ev.cards[0] == card else ev.kind,
                    "seat": ev.seat} for ev in view.events if ev.kind in _MOVES and card in ev.cards]
        if actions:
            after = place_of(view.piles_after, view.won_after, view.hands_after, view.aside_after, card)
            moves.append({"battle": view.battle, "war_depth": view.war_depth, "actions": actions, **after})
    return {**journey, "moves": moves}


def _where(place: dict) -> str:
    if place["place"] == "aside":
        return "set aside"
    if place["place"] == "nowhere":
        return "nowhere"
    if place["place"] == "hand":
        return f"seat {place['seat']}'s hand"
    area = {"pile": "pile", "won": "won pile"}[place["place"]]
    return f"seat {place['seat']}'s {area}, {place['position']} of {place['of']} from the top"


def render_follow(rp: GameReplay, journey: dict, ranged: bool = False) -> str:
    lines = header_lines(rp)
    lines.append(f"Following {journey['label']} (code {journey['card']}): dealt to {_where(journey['dealt'])}"
                 if journey["dealt"]["place"] != "aside" else
                 f"Following {journey['label']} (code {journey['card']}): set aside at the deal")
    if "before" in journey:
        lines.append(f"Before battle {journey['before']['battle']}: {_where(journey['before'])}")
    for move in journey["moves"]:
        did = ", ".join(f"seat {a['seat']} {_MOVES[a['kind']]}" if a["seat"] is not None else _MOVES[a["kind"]]
                        for a in move["actions"])
        war = f" (war, depth {move['war_depth']})" if move["war_depth"] else ""
        lines.append(f"Battle {move['battle']}{war}: {did} → {_where(move)}")
    moved = len(journey["moves"])
    lines.append(f"{journey['label']} moved in {moved} battle{'s' * (moved != 1)}"
                 + (" of those shown." if ranged else "."))
    return "\n".join(lines)
