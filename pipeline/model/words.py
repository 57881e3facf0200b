"""Counts said in words for messages and pages: `1 battle`, `2 battles`."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None, grouped: bool = True) -> str:
    """`1 game`, `2,000 games` (`many` for an irregular plural); `grouped=False` writes the
    number as the text around it does (a replay's battles are numbered `Battle 1024`)."""
    number = f"{n:,}" if grouped else str(n)
    return f"{number} {word if n == 1 else (many or word + 's')}"


PICKUP_WORDS = {"shuffled": "won cards shuffled", "table_order": "won cards in table order",
                "winner_first": "winner's cards first", "pooled": "won cards pooled and shuffled",
                "natural": "won cards gathered as one stack (natural)", "sorted": "won cards highest first (sorted)"}


def describe_rules(rules: dict) -> str:
    """A rule set's deck and play in words, from its options (a RuleSet dumped as JSON):
    `2 players, 12 cards (4 ranks × 3 suits), wars of 1 up and none down (open), won cards
    gathered as one stack (natural)`. What a variant's one-line summary says of its defaults,
    said of the rule set itself."""
    deck = rules.get("ranks", 13) * rules.get("suits", 4) + rules.get("jokers", 0)
    parts = [plural(rules.get("players", 2), "player"),
             f"{plural(deck, 'card')} ({rules.get('ranks', 13)} ranks × {plural(rules.get('suits', 4), 'suit')}"
             + (f" and {rules['jokers']} Jokers)" if rules.get("jokers") else ")")]
    if rules.get("aces") == "low":
        parts.append("Aces low")
    if rules.get("hand_size"):
        parts.append(f"hands of {rules['hand_size']}")
    down = rules.get("war_down", 3)
    if down == "by_rank":
        parts.append("wars sized by the tied rank")
    elif down == 0:
        parts.append("open wars: 1 up and none down")
    else:
        parts.append(f"wars of {down} down and 1 up")
    if rules.get("war_tiebreak") == "single_up":
        parts.append("a tied war settled by 1 card up")
    if rules.get("shortfall") == "lose" and rules.get("variant") != "steal":
        parts.append("a player short of a war loses")
    if rules.get("variant") not in ("steal",):
        parts.append(PICKUP_WORDS.get(rules.get("pickup", "shuffled"), f"pickup {rules.get('pickup')}"))
    win = rules.get("win", "all_cards")
    if win != "all_cards":
        parts.append(f"first to win {win.split(':')[1]} wars wins")
    if rules.get("max_battles", 10_000) != 10_000:
        parts.append(f"capped at {plural(rules['max_battles'], 'battle')}")
    return ", ".join(parts)
