"""The arneson family: Arneson's War (docs/rules.md section 7), hands of three and a hidden
choice of the card played.

- reference.py: the readable engine, the definition of the rules;
- compiled.py: the compiled engine, event for event the same games for the built-in policies.
"""

from ..family import ANY, Family, Warm
from .reference import play_arneson

FAMILY = Family(
    "arneson", play_arneson, hands=True, decisions=("hand",),
    events=("deal", "set_aside", "draw", "decision", "play", "war", "down", "forfeit", "war_out", "collect",
            "reshuffle", "out", "end"),
    compiled="arneson.compiled",
    # war_down and ace_value: Arneson's War's wars are always of 3 cards down, and both engines ignore them
    compiled_options={"players": (2,), "jokers": ANY, "war_down": ANY, "ace_value": ANY,
                      "war_tiebreak": ("repeat", "single_up"), "shortfall": ("last_card_up", "lose"),
                      "pickup": ("shuffled", "table_order", "winner_first", "pooled", "natural", "sorted"),
                      "ranks": ANY, "suits": ANY, "win": ANY, "max_battles": ANY, "hand_size": (0, 3)},
    warm=(Warm(True, "arneson", {"ranks": "5", "suits": "2"}, 21.0),),
)
