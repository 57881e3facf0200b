"""A rule set described in words for pages and messages (`2 players, 52 cards ...`): each
option's words are its declaration's (Option.said)."""

from __future__ import annotations

from .plural import plural


# The order a rule set's description says its options in, after its players and deck: the order
# it said them in before options declared their words; any other option after them, in the
# order the registry lists the options.
SAID_FIRST = ("aces", "hand_size", "war_down", "war_tiebreak", "shortfall", "pickup", "win", "max_battles")


def describe_rules(rules: dict) -> str:
    """A rule set's deck and play in words, from its options (RuleSet.options(), as JSON):
    `2 players, 12 cards (4 ranks × 3 suits), wars of 1 up and none down (open), won cards
    gathered as one stack (natural)`. What a variant's one-line summary says of its defaults,
    said of the rule set itself: the players and the deck, then what each of its options
    says of its value (model.family.Option.said), but those its variant leaves unsaid."""
    from .families import registry  # the registry's options say their own words (and use plural)

    reg = registry()
    variant = reg.variants.get(rules.get("variant"))
    unsaid = set(variant.unsaid) if variant is not None else set()
    deck = rules.get("ranks", 13) * rules.get("suits", 4) + rules.get("jokers", 0)
    parts = [plural(rules.get("players", 2), "player"),
             f"{plural(deck, 'card')} ({rules.get('ranks', 13)} ranks × {plural(rules.get('suits', 4), 'suit')}"
             + (f" and {rules['jokers']} Jokers)" if rules.get("jokers") else ")")]
    names = [n for n in SAID_FIRST if n in reg.options] + [n for n in reg.options if n not in SAID_FIRST]
    for name in names:
        if name in rules and name not in unsaid:
            words = reg.options[name].saying(rules[name])
            if words:
                parts.append(words)
    return ", ".join(parts)
