"""Steal War (RULES.md 6), by Gary Philippy and Hayes Ruberti.

Each player has a face-down draw pile and a face-up won pile. Before playing, a player looks at
its top card and may steal the won piles of opponents whose top card has the same rank; the
winner of a battle chooses which won card lies on top of its bundle. Every decision is asked of
a *chooser* (the seat's policy when generating, the log when replaying) and logged.
"""

from __future__ import annotations

from collections import deque

from ..model.deal import Deal, deck_of
from ..model.schema import RuleSet
from .event import Recorder
from .policies import StealView, TopView
from .summary import Summary


def rank_copies(rank: tuple[int, ...]) -> tuple[int, ...]:
    copies = [0] * (max(rank) + 1)
    for r in rank:
        copies[r] += 1
    return tuple(copies)


def play_steal(rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser) -> Summary:
    n = rules.players
    rank = deck_of(rules).rank
    copies = rank_copies(rank)
    war_down = rules.war_down if isinstance(rules.war_down, int) else 3
    single_up = rules.war_tiebreak == "single_up"
    wars_to_win = rules.wars_to_win
    emit = rec.emit

    draw = [deque(p) for p in deal.piles]
    won: list[list[int]] = [[] for _ in range(n)]  # top first, face up
    alive = [True] * n
    s = Summary(war_wins=[0] * n)
    set_aside = len(deal.set_aside)
    for seat in range(n):
        emit(0, "deal", seat, deal.piles[seat])
    if deal.set_aside:
        emit(0, "set_aside", None, deal.set_aside)

    def holding(seat: int) -> int:
        return len(draw[seat]) + len(won[seat])

    def top(seat: int, battle: int) -> int | None:
        """The top card of the draw pile, reshuffling the won pile into it when empty (6.5)."""
        if not draw[seat]:
            if not won[seat]:
                return None
            cards = chance.order("reshuffle", seat, won[seat][:])
            won[seat] = []
            draw[seat].extend(cards)
            emit(battle, "reshuffle", seat, cards)
        return draw[seat][0]

    def look_and_play(seat: int, battle: int, in_war: bool) -> int | None:
        """Look at the top card, steal with it as long as the policy wants (6.2), then play."""
        while True:
            c = top(seat, battle)
            if c is None:
                return None
            others = [(seat + k) % n for k in range(1, n)]
            eligible = tuple((o, len(won[o])) for o in others if won[o] and rank[won[o][0]] == rank[c])
            if eligible:
                options = tuple(o for o, _ in eligible)
                view = StealView(seat, c, rank[c], eligible, holding(seat), in_war)
                chosen = chooser.choose("steal", seat, view, options)
                chosen = tuple(o for o in options if o in set(chosen))
                emit(battle, "decision", seat, (c,), chosen, options, None, "steal")
                if chosen:
                    draw[seat].popleft()
                    bundle = [c]
                    for o in chosen:
                        bundle.extend(won[o])
                        won[o] = []
                    won[seat][:0] = bundle
                    emit(battle, "steal", seat, bundle, chosen)
                    continue
            return draw[seat].popleft()

    first = -1
    battle = 0
    while True:
        if battle >= rules.max_battles:
            s.outcome = "capped"
            break
        battle += 1
        first = next((first + k) % n for k in range(1, n + 1) if alive[(first + k) % n])
        turn = [(first + k) % n for k in range(n)]

        table: list[int] = []
        up: dict[int, int] = {}
        contenders = []
        for seat in turn:
            if not alive[seat]:
                continue
            c = look_and_play(seat, battle, False)
            if c is None:
                alive[seat] = False
                emit(battle, "out", seat)
                continue
            table.append(c)
            up[seat] = c
            emit(battle, "play", seat, (c,))
            contenders.append(seat)

        depth = 0
        winner: int | None = None
        while contenders:
            best = max(rank[up[seat]] for seat in contenders)
            tied = [seat for seat in contenders if rank[up[seat]] == best]
            if len(tied) == 1:
                winner = tied[0]
                break
            depth += 1
            emit(battle, "war", None, (), sorted(tied), (), depth)
            down = 0 if single_up and depth >= 2 else war_down
            ready = []
            lone: int | None = None
            for seat in tied:
                cards: list[int] = []
                short = False
                for _ in range(down):
                    if not draw[seat] and cards:
                        emit(battle, "down", seat, cards)
                        cards = []
                    c = top(seat, battle)
                    if c is None:
                        short = True
                        break
                    cards.append(draw[seat].popleft())
                    table.append(cards[-1])
                if cards:
                    emit(battle, "down", seat, cards)
                c = None if short else look_and_play(seat, battle, True)
                if c is None:
                    alive[seat] = False
                    emit(battle, "out", seat)
                    left = [t for t in tied if alive[t]]
                    if len(left) == 1:
                        lone = left[0]
                        break
                    continue
                table.append(c)
                up[seat] = c
                emit(battle, "play", seat, (c,))
                ready.append(seat)
            if lone is not None:
                winner = lone
                break
            if len(ready) <= 1:
                winner = ready[0] if ready else None
                break
            contenders = ready

        s.count_war(battle, depth)
        if winner is None:
            set_aside += len(table)
            emit(battle, "set_aside", None, table)
        else:
            bundle = table
            if len(table) > 1:
                options = tuple(table)
                view = TopView(winner, options, tuple(rank[c] for c in options), copies,
                               tuple(won[o][0] if won[o] else None for o in range(n)))
                chosen = chooser.choose("top", winner, view, options)
                emit(battle, "decision", winner, (chosen,), (), options, None, "top")
                bundle = [chosen] + [c for c in table if c != chosen]
            won[winner][:0] = bundle
            emit(battle, "collect", winner, bundle)
            if depth and s.won_war(winner, wars_to_win):
                break
        if s.eliminate(battle, alive, holding, emit):
            break

    s.cards_set_aside = set_aside
    return s.end(battle, holding, n, emit, rec)
