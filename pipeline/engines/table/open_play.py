"""The table family's fast path (its declaration's `fast`): two seats in open play, compiled on
their own, for the rule sets its `fast_options` name. Its entry points are those engines.choice
says a fast path has; generation (log.batches), the counts of an enumeration (log.counts) and the
record search (jobs.searcher) find them through the declaration, as they would a plugin's:

- open_duel.py: the games (play_arrays), and what the options do not say (fits);
- open_counts.py: every deal of a deck counted, one deal of each class where the pickup treats
  the seats alike;
- open_search.py and unplay.py: a searcher's rounds, deals given a longer past.
"""

from __future__ import annotations

from ...model.all_deals import seats_alike
from ...model.schema import RuleSet
from .open_counts import count_deals, count_rows, keep_deals
from .open_duel import SYMMETRIC, extra_card, fits, play_arrays
from .open_search import search_round, warm_search

__all__ = ["TITLE", "count_deals", "count_rows", "counts_classes", "fits", "keep_deals", "play_arrays", "search_round",
           "searches", "warm_search"]

TITLE = "open duel"  # how a search names the engine it ran on (jobs.search.Found.engine)


def counts_classes(rules: RuleSet) -> bool:
    """Whether count_deals counts a range of deals by classes (a deal and the deal with the seats'
    piles swapped), rather than each deal of the range once: where the pickup treats the seats
    alike and they hold as many cards."""
    return rules.pickup in SYMMETRIC and seats_alike(rules)


def searches(rules: RuleSet) -> bool:
    """Whether its search kernel plays this search's deals: the seats dealt as many cards (its
    polish takes battles back to deals of two equal piles)."""
    return not extra_card(rules)
