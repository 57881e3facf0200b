"""The table family: Classic War, Multiplayer War, War with Jokers and Război (docs/rules.md
sections 2-5). Every seat plays its top card and the highest takes the table.

- reference.py: the readable engine, the definition of the rules;
- battle.py and compiled.py: the compiled engine, event for event the same games.
"""

from ..family import ANY, Family, Warm
from .reference import play_table

FAMILY = Family(
    "table", play_table,
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle",
            "out", "end"),
    compiled="table.compiled",
    compiled_options={"players": ANY, "jokers": ANY, "war_down": ANY, "ace_value": ANY,
                      "war_tiebreak": ("repeat", "single_up"), "shortfall": ("last_card_up", "lose"),
                      "pickup": ("shuffled", "table_order", "winner_first", "pooled", "natural", "sorted"),
                      "ranks": ANY, "suits": ANY, "win": ANY, "max_battles": ANY},
    warm=(Warm(False, "classic", {"ranks": "5", "suits": "2"}, 10.0),
          Warm(True, "classic", {"ranks": "5", "suits": "2", "pickup": "winner_first"}, 13.0)),
)
