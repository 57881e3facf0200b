"""What a reader of a query about every deal should know: which rule sets of the dataset play every
deal of their deck (their shares are exact), which play only some (`--all-deals --games N`: the
first N deals in order, neither the deck nor a random sample of it) or deal from seeds or a file,
and the command that plays every deal of one of them. A named query whose header says `-- exact:`
gets it as its Result's note.
"""

from __future__ import annotations

from ...model.all_deals import MAX_DEALS, deal_count, plays_every_deal
from ...model.names import rule_set_names
from ...model.variants import variant
from ...model.plural import plural


def every_deal_note(root, rule_sets, query: str, exact: str) -> str | None:
    """The note of named query `query`, whose header says `-- exact: {exact}` (`every deal`: it
    has rows only for rule sets that play every deal), over the dataset at `root` of the manifest
    entries `rule_sets`; None when every rule set of it plays every deal."""
    entries = sorted(rule_sets, key=lambda e: e.ordinal)
    names = rule_set_names(entries)
    full, partial, dealt = [], [], []
    for e in entries:
        count = deal_count(e.rules) if e.all_deals else None
        if count is not None and plays_every_deal(e):
            full.append(names[e.ordinal])
        elif count is not None and e.log == "counts":
            first, stop = e.deal_range
            partial.append(f"{names[e.ordinal]!r} counts deals {first:,} .. {stop - 1:,} of its {count:,} (a slice: "
                           f"war combine joins it to the others)")
        elif count is not None:
            partial.append(f"{names[e.ordinal]!r} plays the first {e.games:,} of its {count:,} deals")
        else:
            dealt.append(names[e.ordinal])
    if not partial and not dealt:
        return None
    every = exact == "every deal"
    if full:
        said = (f"{query} counts only the rule sets that play every deal of their deck "
                f"({', '.join(map(repr, dict.fromkeys(full)))})" if every else
                f"the shares of {query} are exact only for the rule sets that play every deal of their deck "
                f"({', '.join(map(repr, dict.fromkeys(full)))})")
    else:
        said = (f"{query} has no rows: no rule set of {str(root)!r} plays every deal of its deck" if every else
                f"the shares of {query} are of the games played, not exact: no rule set of {str(root)!r} plays "
                f"every deal of its deck")
    parts = [said] + partial
    if dealt:
        shown = list(dict.fromkeys(dealt))
        listed = ", ".join(map(repr, shown[:4])) + (", ..." if len(shown) > 4 else "")
        parts.append(f"{listed} deals from seeds or a file" if len(shown) == 1 else
                     f"{plural(len(shown), 'rule set')} deal from seeds or a file ({listed})")
    first = next(e for e in entries if not plays_every_deal(e))
    return "; ".join(parts) + "; " + _how(first, names[first.ordinal])


def _how(entry, name: str) -> str:
    """How to play every deal of the rules of `entry` (named `name`), or why its deck cannot be."""
    rules = entry.rules
    count = deal_count(rules)
    sets = " ".join(f"--set {k}={v}" for k, v in rules.differences().items())
    command = f"war generate -v {rules.variant} {sets + ' ' if sets else ''}--all-deals --out NEW"
    if count <= MAX_DEALS:
        return f"{command} plays every one of the {count:,} deals of the deck of {name!r} (no --games)"
    said = f"the deck of {name!r} has {count:.2e} deals, more than the {MAX_DEALS:,} --all-deals plays"
    if rules.war_down == "by_rank" or variant(rules.variant).standard_deck:
        return f"{said}, and its rules need the standard deck"
    small = rules.model_copy(update={"ranks": 6, "suits": 2})
    return (f"{said}: a deck of fewer ranks and suits can be played whole (war generate -v {rules.variant} "
            f"--set ranks=6 --set suits=2 --all-deals --out NEW plays its {deal_count(small):,} deals)")
