"""Arneson's War (docs/rules.md section 7), the family `arneson`: hands of three, and each
player's hidden choice of the card it plays. Its declaration (model.family.Family), data the
registry reads first; the folder holds its reference engine (reference.py), its hand policies
(policies.py), its consolation query (queries/) and its compiled engine (compiled.py, hands.py).
"""

from ...model.family import ANY, Decision, Family, Option, Policy, Report, Variant, Warm
from ...model.kind import Kind

POLICIES = "pipeline.engines.arneson.policies:"

FAMILY = Family(
    "arneson", "pipeline.engines.arneson.reference:play_arneson", hands=True,
    options=("jokers", "war_tiebreak", "shortfall", "pickup", "ranks", "suits", "win", "max_battles", "deal",
             Option("hand_size", 0, "Cards in hand (Arneson's War: 3).", choices=(0, 3),
                    said={3: "hands of 3"})),
    variants=(
        Variant("arneson", "Arneson's War", "docs/rules.md 7",
                "Hands of three: each player chooses the card it plays; the war's loser takes the cause.",
                defaults={"hand_size": 3},
                options=("jokers", "war_tiebreak", "shortfall", "pickup", "ranks", "suits", "win", "max_battles",
                         "deal"),
                fixed_players=2),
    ),
    events=("deal", "set_aside",
            Kind("draw", "cards taken from the pile into the hand", "seat {seat} draws {cards} into its hand",
                 source="pile", target="hand", journey="draws it into its hand", detail=True),
            "decision", "play", "war", "down", "forfeit", "war_out", "collect", "reshuffle", "out", "end"),
    decisions=(
        Decision("hand", "card", "seat {seat} chooses {card} as [[value?its fourth card|its card]], from hand {options}",
                 "[[value?its fourth card|its card]], from its hand",
                 (Policy("random", POLICIES + "hand_random", "any, at random", randomized=True),
                  Policy("highest", POLICIES + "hand_highest", "the highest rank"),
                  Policy("lowest", POLICIES + "hand_lowest", "the lowest rank"),
                  Policy("save_high", POLICIES + "hand_save_high", "the lowest in a battle, the highest in a war")),
                 "random", war_depth=True),
    ),
    profiles={"greedy": {"hand": "highest"}, "cautious": {"hand": "save_high"}, "random": {"hand": "random"}},
    compiled="pipeline.engines.arneson.compiled",
    # war_down and ace_value: Arneson's War's wars are always of 3 cards down, and both engines ignore them
    compiled_options={"players": (2,), "jokers": ANY, "war_down": ANY, "ace_value": ANY,
                      "war_tiebreak": ("repeat", "single_up"), "shortfall": ("last_card_up", "lose"),
                      "pickup": ANY,
                      "ranks": ANY, "suits": ANY, "win": ANY, "max_battles": ANY, "hand_size": (0, 3),
                      "deal": ANY},
    charts="pipeline.engines.arneson.charts:charts",
    warm=(Warm(True, "arneson", {"ranks": "5", "suits": "2"}, 6.4, "Arneson's War's engine"),),
    queries="queries",
    report=(Report("arneson_consolation", shows="Arneson's consolation cards"),),
)
