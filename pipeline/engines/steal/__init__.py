"""The steal family: Steal War (docs/rules.md section 6), with draw and won piles, steals and
the winner's choice of the top card.

This module is the family's declaration (model.family.Family), read by the registry
(model.families) before any engine is imported; beside it:

- reference.py: the readable engine, the definition of the rules;
- policies.py: how its players decide;
- queries/: its named queries (`war query --list` lists them; the report runs those of `report`);
- compiled.py and turns.py: the compiled engine, event for event the same games for the
  built-in policies.
"""

from ...model.family import ANY, Decision, Family, Policy, Report, Variant, Warm
from ...model.kind import Kind

POLICIES = "pipeline.engines.steal.policies:"

FAMILY = Family(
    "steal", "pipeline.engines.steal.reference:play_steal", won_piles=True,
    # shortfall: Steal War's rules fix it (a seat that runs out of cards in a war loses at once, 6.6)
    options=("players", "jokers", "war_down", "war_tiebreak", "shortfall", "ranks", "suits", "win", "max_battles",
             "deal"),
    variants=(
        Variant("steal", "Steal War", "docs/rules.md 6",
                "Draw and won piles; steal opponents' won piles with a card of the same rank.",
                defaults={"jokers": 2, "shortfall": "lose"},
                options=("players", "jokers", "war_down", "war_tiebreak", "ranks", "suits", "win", "max_battles",
                         "deal"),
                # its rules (6.6) fix shortfall, and it collects as its rules say, not by pickup
                unsaid=("shortfall", "pickup")),
    ),
    events=("deal", "set_aside", "play", "down", "war", "collect", "reshuffle",
            Kind("steal", "the seat steals `seats`' won piles with its top card; cards = the bundle, top first",
                 "seat {seat} steals the won pile of seat {seats} with {card}: {n} cards on top of its won pile "
                 "({cards})", source="stolen", target="won", journey="steals it", journey_first="steals with it",
                 detail=True),
            "decision", "out", "end"),
    decisions=(
        Decision("steal", "seats",
                 "seat {seat} looks at {card}, could steal from seat {option_seats}: "
                 "[[seats?steals from seat {seats}|plays it instead]]", "steal?",
                 (Policy("always", POLICIES + "steal_always", "every pile it can"),
                  Policy("never", POLICIES + "steal_never", "none"),
                  Policy("random", POLICIES + "steal_random", "each pile with probability 1/2", randomized=True),
                  Policy("threshold", POLICIES + "steal_threshold", "the piles of N cards or more",
                         parameter="a pile size, e.g. steal:threshold:4")),
                 "always"),
        Decision("top", "card", "seat {seat} puts {card} on top of its won bundle (of {options})",
                 "the top card of its won bundle",
                 (Policy("as_played", POLICIES + "top_as_played", "the first card in table order"),
                  Policy("highest", POLICIES + "top_highest", "the highest rank"),
                  Policy("protect", POLICIES + "top_protect", "the rank hardest to match"),
                  Policy("random", POLICIES + "top_random", "any, at random", randomized=True)),
                 "as_played"),
    ),
    profiles={"greedy": {"steal": "always", "top": "highest"}, "cautious": {"steal": "never", "top": "protect"},
              "random": {"steal": "random", "top": "random"}},
    compiled="pipeline.engines.steal.compiled",
    # shortfall, pickup and ace_value: Steal War's rules fix them, and both engines ignore them
    compiled_options={"players": ANY, "jokers": ANY, "war_down": ANY, "ace_value": ANY,
                      "war_tiebreak": ("repeat", "single_up"), "shortfall": ANY, "pickup": ANY,
                      "ranks": ANY, "suits": ANY, "win": ANY, "max_battles": ANY, "deal": ANY},
    charts="pipeline.engines.steal.charts:charts",
    warm=(Warm(False, "steal", {"ranks": "5", "suits": "2"}, 4.4, "Steal War's engine"),),
    queries="queries",
    report=(Report("steals", {"per_seat": "true"}, shows="Steal War's steals"),),
)
