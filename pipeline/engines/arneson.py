"""Arneson's War (RULES.md 7), by Erik Arneson: hands of three and a hidden choice.

Each player holds a hand of 3 drawn from its pile and plays the card it chooses; a war is 3
cards from the pile face down and a fourth chosen from the hand. The winner of a war takes the
face-down and fourth cards; the loser takes the two cards that caused it. Choices are asked of a
*chooser* and logged.
"""

from __future__ import annotations

from collections import deque

from ..model.deal import Deal, deck_of
from ..model.schema import RuleSet
from .event import Recorder
from .policies import HandView
from .summary import Summary

WAR_DOWN = 3


def play_arneson(rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser) -> Summary:
    n = 2
    rank = deck_of(rules).rank
    hand_size = rules.hand_size or 3
    single_up = rules.war_tiebreak == "single_up"
    lose = rules.shortfall == "lose"
    pickup = rules.pickup
    pooled = pickup == "pooled"
    wars_to_win = rules.wars_to_win
    emit = rec.emit

    piles = [deque(p) for p in deal.piles]
    won: list[list[int]] = [[], []]
    hands: list[list[int]] = [[], []]
    alive = [True, True]
    s = Summary(war_wins=[0, 0])
    for seat in range(n):
        emit(0, "deal", seat, deal.piles[seat])
    if deal.set_aside:
        emit(0, "set_aside", None, deal.set_aside)

    def holding(seat: int) -> int:
        return len(piles[seat]) + len(won[seat]) + len(hands[seat])

    def take(seat: int, battle: int) -> int | None:
        if not piles[seat]:
            if not won[seat]:
                return None
            cards = chance.order("reshuffle", seat, won[seat][:])
            won[seat] = []
            piles[seat].extend(cards)
            emit(battle, "reshuffle", seat, cards)
        return piles[seat].popleft()

    def refill(seat: int, battle: int) -> None:
        drawn: list[int] = []
        while len(hands[seat]) + len(drawn) < hand_size:
            if not piles[seat] and drawn:
                hands[seat].extend(drawn)
                emit(battle, "draw", seat, drawn)
                drawn = []
            c = take(seat, battle)
            if c is None:
                break
            drawn.append(c)
        if drawn:
            hands[seat].extend(drawn)
            emit(battle, "draw", seat, drawn)

    def choose(seat: int, battle: int, depth: int, tied_rank: int | None) -> int:
        options = tuple(sorted(hands[seat]))
        other = 1 - seat
        view = HandView(seat, options, tuple(rank[c] for c in options), depth > 0, tied_rank,
                        len(piles[seat]) + len(won[seat]), len(piles[other]) + len(won[other]),
                        len(hands[other]))
        c = chooser.choose("hand", seat, view, options)
        emit(battle, "decision", seat, (c,), (), options, depth, "hand")
        return c

    def order(seat: int, cards: list[int], mine: list[int]) -> list[int]:
        if pickup == "shuffled":
            return chance.order("collect", seat, cards)
        if pickup == "winner_first":
            return [c for c in cards if c in mine] + [c for c in cards if c not in mine]
        return cards

    def collect(seat: int, cards: list[int], mine: list[int], battle: int) -> None:
        cards = order(seat, cards, mine)
        if pooled:
            won[seat][:0] = cards
        else:
            piles[seat].extend(cards)
        emit(battle, "collect", seat, cards)

    for seat in range(n):
        refill(seat, 0)

    seen: dict | None = {} if pickup in ("table_order", "winner_first") and not chooser.randomized else None
    battle = 0
    while True:
        if battle >= rules.max_battles:
            s.outcome = "capped"
            break
        if seen is not None:
            key = (tuple(tuple(p) for p in piles), tuple(tuple(sorted(h)) for h in hands),
                   tuple(s.war_wins) if wars_to_win else ())
            first = seen.get(key)
            if first is not None:
                s.outcome, s.cycle_length = "cycle", battle - first
                break
            seen[key] = battle
        battle += 1

        played: list[list[int]] = [[], []]
        table: list[int] = []
        for seat in range(n):
            if len(hands[seat]) < hand_size:
                refill(seat, battle)
        up = [choose(seat, battle, 0, None) for seat in range(n)]
        for seat in range(n):
            hands[seat].remove(up[seat])
            table.append(up[seat])
            played[seat].append(up[seat])
            emit(battle, "play", seat, (up[seat],))
        for seat in range(n):
            refill(seat, battle)
        cause = list(table)

        depth = 0
        winner: int | None = None
        game_over = False
        while True:
            if rank[up[0]] != rank[up[1]]:
                winner = 0 if rank[up[0]] > rank[up[1]] else 1
                break
            depth += 1
            tied_rank = rank[up[0]]
            emit(battle, "war", None, (), (0, 1), (), depth)
            down = 0 if single_up and depth >= 2 else WAR_DOWN
            ready = []
            for seat in range(n):
                if lose and len(piles[seat]) + len(won[seat]) < down:
                    cards = list(piles[seat]) + won[seat] + sorted(hands[seat])
                    piles[seat].clear()
                    won[seat] = []
                    hands[seat] = []
                    table.extend(cards)
                    played[seat].extend(cards)
                    alive[seat] = False
                    emit(battle, "forfeit", seat, cards)
                    emit(battle, "out", seat)
                elif not hands[seat]:
                    emit(battle, "war_out", seat)
                    alive[seat] = False
                    emit(battle, "out", seat)
                else:
                    ready.append(seat)
            if len(ready) <= 1:
                winner = ready[0] if ready else None
                game_over = True
                break
            for seat in ready:
                cards: list[int] = []
                for _ in range(down):
                    if not piles[seat] and cards:
                        emit(battle, "down", seat, cards)
                        cards = []
                    c = take(seat, battle)
                    if c is None:
                        break
                    cards.append(c)
                    table.append(c)
                    played[seat].append(c)
                if cards:
                    emit(battle, "down", seat, cards)
            up = [choose(seat, battle, depth, tied_rank) for seat in range(n)]
            for seat in range(n):
                hands[seat].remove(up[seat])
                table.append(up[seat])
                played[seat].append(up[seat])
                emit(battle, "play", seat, (up[seat],))

        s.count_war(battle, depth)

        if winner is None:
            s.cards_set_aside += len(table)
            emit(battle, "set_aside", None, table)
        elif depth == 0 or game_over:
            collect(winner, table, played[winner], battle)
        else:
            loser = 1 - winner
            spoils = [c for c in table if c not in cause]
            collect(winner, spoils, played[winner], battle)
            collect(loser, cause, played[loser], battle)
        if depth and winner is not None and s.won_war(winner, None if game_over else wars_to_win):
            break
        if depth and not game_over:
            for seat in range(n):
                refill(seat, battle)
        if s.eliminate(battle, alive, holding, emit):
            break

    s.cards_set_aside += len(deal.set_aside)
    return s.end(battle, holding, n, emit, rec)
