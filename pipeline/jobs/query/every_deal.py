"""What a reader of a query about every deal should know: which rule sets of the dataset play every
deal of their deck (their shares are exact), which play only some (`--all-deals --games N`: the
first N deals in order, neither the deck nor a random sample of it) or deal from seeds or a file,
which play every deal but draw in their games (a pickup or a policy that draws: then a deal does
not decide its game, and one game a deal is a sample, not exact), and the command that plays every
deal of one of them. A named query whose header says `-- exact:` gets it as its Result's note.

`exact_every_deal` is the one place that says whether a rule set's shares over its deals are
exact: the counts view's `exact` column (counts_view.py), which every exact query reads, and the
report (present.report) ask it.
"""

from __future__ import annotations

from ...engines.game import chance_in_games
from ...model.all_deals import MAX_DEALS, deal_count, plays_every_deal
from ...model.pickups import PICKUP_ORDERS
from ...model.names import rule_set_names
from ...model.variants import variant
from ...model.plural import plural


def chance_in_deals(entry) -> str | None:
    """What makes the games of a rule set entry depend on their seeds besides their deals, in
    words (engines.game.chance_in_games, seated as the entry is); None when its deal alone
    decides each game."""
    drawn = chance_in_games(entry.rules, tuple(entry.policies))
    return None if drawn is None else drawn[0]


def exact_every_deal(entry) -> bool:
    """Whether the shares of a rule set entry over its deals are exact probabilities: it plays (or
    counts) every deal of its deck once, and its deal alone decides each game. Under a pickup or a
    policy that draws, its one game a deal is a sample of the deck's games, not exact."""
    return plays_every_deal(entry) and chance_in_deals(entry) is None


def every_deal_note(root, rule_sets, query: str, exact: str) -> str | None:
    """The note of named query `query`, whose header says `-- exact: {exact}` (`every deal`: it
    has rows only for rule sets that play every deal), over the dataset at `root` of the manifest
    entries `rule_sets`; None when every rule set of it plays every deal."""
    entries = sorted(rule_sets, key=lambda e: e.ordinal)
    names = rule_set_names(entries)
    full, partial, dealt, drawn = [], [], [], []
    for e in entries:
        count = deal_count(e.rules) if e.all_deals else None
        if count is not None and exact_every_deal(e):
            full.append(names[e.ordinal])
        elif count is not None and plays_every_deal(e):
            drawn.append(f"{names[e.ordinal]!r} plays every deal of its deck but {chance_in_deals(e)}, so a deal "
                         f"does not decide its game and its one game a deal is a sample, not exact"
                         + (": left out" if exact == "every deal" else ""))
        elif count is not None and e.log == "counts":
            first, stop = e.deal_range
            partial.append(f"{names[e.ordinal]!r} counts deals {first:,} .. {stop - 1:,} of its {count:,} (a slice: "
                           f"war combine joins it to the others)")
        elif count is not None:
            partial.append(f"{names[e.ordinal]!r} plays the first {e.games:,} of its {count:,} deals")
        else:
            dealt.append(names[e.ordinal])
    if not partial and not dealt and not drawn:
        return None
    every = exact == "every deal"
    decided = ", each deal deciding its game" if drawn else ""
    if full:
        said = (f"{query} counts only the rule sets that play every deal of their deck{decided} "
                f"({', '.join(map(repr, dict.fromkeys(full)))})" if every else
                f"the shares of {query} are exact only for the rule sets that play every deal of their deck{decided} "
                f"({', '.join(map(repr, dict.fromkeys(full)))})")
    else:
        said = (f"{query} has no rows: no rule set of {str(root)!r} plays every deal of its deck{decided}" if every
                else f"the shares of {query} are of the games played, not exact: no rule set of {str(root)!r} "
                f"plays every deal of its deck{decided}")
    parts = [said] + drawn + partial
    if dealt:
        shown = list(dict.fromkeys(dealt))
        listed = ", ".join(map(repr, shown[:4])) + (", ..." if len(shown) > 4 else "")
        parts.append(f"{listed} deals from seeds or a file" if len(shown) == 1 else
                     f"{plural(len(shown), 'rule set')} deal from seeds or a file ({listed})")
    first = next(e for e in entries if not exact_every_deal(e))
    return "; ".join(parts) + "; " + _how(first, names[first.ordinal])


def _how(entry, name: str) -> str:
    """How to play every deal of the rules of `entry` (named `name`), or why its deck cannot be."""
    rules = entry.rules
    count = deal_count(rules)
    sets = " ".join(f"--set {k}={v}" for k, v in rules.differences().items())
    drawn = chance_in_deals(entry)
    fixed = ", ".join(p.name for p in PICKUP_ORDERS if p.fixed)
    solve = (f"war solve -v {rules.variant} {sets + ' ' if sets else ''}gives the exact game of {name!r} under "
             f"shuffled pickup (2 seats); under a fixed pickup ({fixed}) and policies that do not draw "
             f"each deal decides its game and --all-deals is exact")
    if plays_every_deal(entry):  # it draws in its games: a fixed pickup, or war solve
        return solve
    command = f"war generate -v {rules.variant} {sets + ' ' if sets else ''}--all-deals --out NEW"
    if count <= MAX_DEALS:
        said = f"{command} plays every one of the {count:,} deals of the deck of {name!r} (no --games)"
        return said if drawn is None else f"{said}, but {drawn}, so even every deal is a sample: {solve}"
    said = f"the deck of {name!r} has {count:.2e} deals, more than the {MAX_DEALS:,} --all-deals plays"
    if rules.war_down == "by_rank" or variant(rules.variant).standard_deck:
        return f"{said}, and its rules need the standard deck"
    small = rules.model_copy(update={"ranks": 6, "suits": 2})
    return (f"{said}: a deck of fewer ranks and suits can be played whole (war generate -v {rules.variant} "
            f"--set ranks=6 --set suits=2 --all-deals --out NEW plays its {deal_count(small):,} deals)")
