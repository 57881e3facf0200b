"""Trump War, a family of War that war plays as a plugin: its declaration, everything war knows
of it (pipeline.plugin's Family). The rules are in this package's README.md.

war reads this module before it imports any engine, so it imports only the declaration's types
from pipeline.plugin, and names its engine as "module:function".
"""

from pipeline.plugin import Family, Kind, Option, Variant

SUITS = ("clubs", "diamonds", "hearts", "spades")  # suit index 0 .. 3, as card codes count them


def _trump_in_deck(rules) -> str | None:
    if rules.trump != "none" and SUITS.index(rules.trump) >= rules.suits:
        return f"trump {rules.trump} is not a suit of a deck of {rules.suits} suits ({', '.join(SUITS[:rules.suits])})"
    return None


FAMILY = Family(
    "trump", "war_trump.engine:play_trump",
    options=(
        "players", "jokers", "war_down", "aces", "war_tiebreak", "shortfall", "pickup", "ranks", "suits", "win",
        "max_battles",
        Option("trump", "spades", "The trump suit, whose every card beats every card of the other suits "
               "(README 2); `none`: no trump, the game is Classic War's.",
               choices=("none",) + SUITS, check=_trump_in_deck),
    ),
    variants=(
        Variant("trump", "Trump War", "war-trump's README.md",
                "Classic War, but a card of the trump suit (spades) beats every card of the other suits."),
    ),
    events=(
        "deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle",
        Kind("trump", "the seat's face-up card, of the trump suit, beat a card of another suit that ranks as "
             "high or higher: the trump decided the step",
             "seat {seat}'s trump {card} decides it", detail=True),
        "out", "end",
    ),
    queries="queries",
    report=(("trumps", {}),),
    golden="golden",
)
