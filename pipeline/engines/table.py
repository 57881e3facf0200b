"""The reference engine for the table family: Classic, Multiplayer, Jokers and Război
(RULES.md sections 2-5), with every option of section 8.

The engine never draws randomness itself: it asks a *chance* for every random order (a pickup
shuffle, a reshuffle of a won pile). Generation passes a chance backed by the game's generator;
replay passes one that reads the orders from the log. The engine reports every step to a
*recorder*; replay and validation pass one that compares each step with the log as it goes.
"""

from __future__ import annotations

from collections import deque

from ..model.deal import Deal, deck_of
from ..model.schema import RuleSet
from .event import Recorder
from .summary import Summary


def war_values(rules: RuleSet) -> tuple[int, ...] | None:
    """Război: the value of each rank index (RULES 5.1), or None when war size is fixed."""
    if rules.war_down != "by_rank":
        return None
    values = [r + 2 for r in range(9)] + [10, 10, 10, rules.ace_value]
    return tuple(values) + (rules.ace_value + 1,)


def play_table(rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser=None) -> Summary:
    """Play one game of the table family to its end, reporting every step to `rec`."""
    n = rules.players
    rank = deck_of(rules).rank
    values = war_values(rules)
    fixed_down = rules.war_down if values is None else 0
    single_up = rules.war_tiebreak == "single_up"
    lose = rules.shortfall == "lose"
    pickup = rules.pickup
    pooled = pickup == "pooled"
    wars_to_win = rules.wars_to_win
    max_battles = rules.max_battles
    emit = rec.emit

    piles = [deque(p) for p in deal.piles]
    won = [[] for _ in range(n)]  # pooled won piles, top first
    alive = [True] * n
    s = Summary(war_wins=[0] * n)
    set_aside = len(deal.set_aside)

    for seat in range(n):
        emit(0, "deal", seat, deal.piles[seat])
    if deal.set_aside:
        emit(0, "set_aside", None, deal.set_aside)

    seen: dict | None = {} if pickup in ("table_order", "winner_first") else None

    def holding(seat: int) -> int:
        return len(piles[seat]) + len(won[seat])

    def draw(seat: int, battle: int) -> int:
        pile = piles[seat]
        if not pile:
            cards = chance.order("reshuffle", seat, won[seat][:])
            won[seat] = []
            pile.extend(cards)
            emit(battle, "reshuffle", seat, cards)
        return pile.popleft()

    battle = 0
    while True:
        if battle >= max_battles:
            s.outcome = "capped"
            break
        if seen is not None:
            key = (tuple(tuple(p) for p in piles), tuple(s.war_wins) if wars_to_win else ())
            first = seen.get(key)
            if first is not None:
                s.outcome = "cycle"
                s.cycle_length = battle - first
                break
            seen[key] = battle
        battle += 1

        table: list[int] = []
        played: list[list[int]] = [[] for _ in range(n)]
        up: dict[int, int] = {}
        contenders = [seat for seat in range(n) if alive[seat]]
        for seat in contenders:
            c = draw(seat, battle)
            table.append(c)
            played[seat].append(c)
            up[seat] = c
            emit(battle, "play", seat, (c,))

        depth = 0
        winner: int | None = None
        while True:
            best = max(rank[up[seat]] for seat in contenders)
            tied = [seat for seat in contenders if rank[up[seat]] == best]
            if len(tied) == 1:
                winner = tied[0]
                break
            depth += 1
            emit(battle, "war", None, (), tied, (), depth)
            if single_up and depth >= 2:
                down = 0
            elif values is not None:
                down = values[best] - 1
            else:
                down = fixed_down
            ready = []
            for seat in tied:
                have = holding(seat)
                if have == 0:
                    emit(battle, "war_out", seat)
                elif lose and have <= down:
                    cards = list(piles[seat]) + won[seat]
                    piles[seat].clear()
                    won[seat] = []
                    table.extend(cards)
                    played[seat].extend(cards)
                    alive[seat] = False
                    emit(battle, "forfeit", seat, cards)
                    emit(battle, "out", seat)
                else:
                    ready.append(seat)
            still = ready if len(ready) > 1 else []
            for seat in still:
                k = min(down, holding(seat) - 1)
                if k:
                    cards = []
                    for _ in range(k):
                        if not piles[seat] and cards:
                            emit(battle, "down", seat, cards)
                            cards = []
                        c = draw(seat, battle)
                        table.append(c)
                        played[seat].append(c)
                        cards.append(c)
                    emit(battle, "down", seat, cards)
                c = draw(seat, battle)
                table.append(c)
                played[seat].append(c)
                up[seat] = c
                emit(battle, "play", seat, (c,))
            if len(ready) <= 1:
                winner = ready[0] if ready else None
                break
            contenders = still

        s.count_war(battle, depth)
        if winner is None:
            set_aside += len(table)
            emit(battle, "set_aside", None, table)
        else:
            if pickup == "shuffled":
                order = chance.order("collect", winner, table)
            elif pickup == "winner_first":
                order = played[winner] + [c for seat in range(n) if seat != winner for c in played[seat]]
            else:
                order = table
            if pooled:
                won[winner][:0] = order
            else:
                piles[winner].extend(order)
            emit(battle, "collect", winner, order)
            if depth and s.won_war(winner, wars_to_win):
                break
        if s.eliminate(battle, alive, holding, emit):
            break

    s.cards_set_aside = set_aside
    return s.end(battle, holding, n, emit, rec)
