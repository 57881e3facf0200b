"""One game, start to end: from a seed (generation, regeneration) or from its log (replay).

Each variant's engine family is looked up here; a family is a function
`play(rules, deal, chance, recorder) -> Summary`.
"""

from __future__ import annotations

from .deal import Deal, check_deal, shuffled_deal
from .engine import (CheckingRecorder, EventTuple, LogChance, RandomChance, Recorder, Summary,
                     describe, play_table)
from .errors import DealError, LogMismatch
from .rng import Xoshiro256
from .schema import RuleSet
from .variants import variant

FAMILIES = {"table": play_table}


def family(rules: RuleSet):
    return FAMILIES[variant(rules.variant).family]


def play_game(rules: RuleSet, seed: int, deal: Deal | None = None,
              recorder: Recorder | None = None) -> tuple[list[EventTuple], Summary, Deal]:
    """Play the game of `seed` (or of an explicit deal, shuffling later orders with `seed`)."""
    rng = Xoshiro256(seed)
    if deal is None:
        deal = shuffled_deal(rules, rng)
    rec = recorder if recorder is not None else Recorder()
    summary = family(rules)(rules, deal, RandomChance(rng), rec)
    return rec.events, summary, deal


def deal_from_log(rules: RuleSet, log: list[EventTuple]) -> Deal:
    """The deal that a log starts with, checked to be a deal of the rule set's deck."""
    n = rules.players
    for seat in range(n):
        ev = log[seat] if seat < len(log) else None
        if ev is None or ev[1] != "deal" or ev[2] != seat or ev[0] != 0:
            raise LogMismatch(seat, f"(deal seat={seat} battle=0 ...)", describe(ev))
    piles = [list(log[seat][3]) for seat in range(n)]
    aside: list[int] = []
    if n < len(log) and log[n][1] == "set_aside" and log[n][0] == 0:
        aside = list(log[n][3])
    try:
        return check_deal(rules, piles, aside, "logged deal")
    except DealError as err:
        raise LogMismatch(_first_bad_deal_event(rules, log), "a deal of the whole deck",
                          str(err).removeprefix("logged deal: ")) from None


def _first_bad_deal_event(rules: RuleSet, log: list[EventTuple]) -> int:
    """The seq of the deal event holding the first card that is repeated or not in the deck."""
    size = rules.ranks * rules.suits + rules.jokers
    seen: set[int] = set()
    seq = 0
    for seq, ev in enumerate(log):
        if ev[0] != 0 or ev[1] not in ("deal", "set_aside"):
            return max(seq - 1, 0)
        for c in ev[3]:
            if c in seen or not 0 <= c < size:
                return seq
            seen.add(c)
    return seq


def replay_log(rules: RuleSet, log: list[EventTuple], recorder: CheckingRecorder | None = None) -> Summary:
    """Rebuild a game from its log alone, checking every event against the rules."""
    deal = deal_from_log(rules, log)
    rec = recorder if recorder is not None else CheckingRecorder(log)
    return family(rules)(rules, deal, LogChance(rec), rec)
