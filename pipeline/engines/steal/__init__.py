"""The steal family: Steal War (docs/rules.md section 6), with draw and won piles, steals and
the winner's choice of the top card.

- reference.py: the readable engine, the definition of the rules;
- compiled.py: the compiled engine, event for event the same games for the built-in policies.
"""

from ..family import ANY, Family, Warm
from .reference import play_steal

FAMILY = Family(
    "steal", play_steal, won_piles=True, decisions=("steal", "top"),
    events=("deal", "set_aside", "play", "down", "war", "collect", "reshuffle", "steal", "decision", "out", "end"),
    compiled="steal.compiled",
    # shortfall, pickup and ace_value: Steal War's rules fix them, and both engines ignore them
    compiled_options={"players": ANY, "jokers": ANY, "war_down": ANY, "ace_value": ANY,
                      "war_tiebreak": ("repeat", "single_up"), "shortfall": ANY, "pickup": ANY,
                      "ranks": ANY, "suits": ANY, "win": ANY, "max_battles": ANY},
    warm=(Warm(False, "steal", {"ranks": "5", "suits": "2"}, 16.0),),
)
