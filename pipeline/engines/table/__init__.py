"""The table family: Classic War, Multiplayer War, War with Jokers and Război (docs/rules.md
sections 2-5). Every seat plays its top card and the highest takes the table.

This module is the family's declaration (model.family.Family), read by the registry
(model.families) before any engine is imported; beside it:

- reference.py: the readable engine, the definition of the rules;
- battle.py and compiled.py: the compiled engine, event for event the same games;
- open_play.py: the fast path of two seats in open play (open_duel.py, open_counts.py,
  open_search.py, unplay.py), games rows alone, for the rule sets `fast_options` names.
"""

from ...model.family import ANY, MAX_DECK, Family, Option, Report, Variant, Warm


def _by_rank_deck(rules) -> str | None:
    if rules.war_down == "by_rank" and (rules.ranks, rules.suits) != (13, 4):
        return "war size by rank needs the standard deck (ranks=13, suits=4)"
    return None


def _war_down_said(down) -> str:
    if down == "by_rank":
        return "wars sized by the tied rank"
    return "open wars: 1 up and none down" if down == 0 else f"wars of {down} down and 1 up"


def _wars_by_rank(rules) -> bool:
    return rules.get("war_down") == "by_rank"


def _with_jokers(rules) -> bool:
    return rules.get("jokers", 0) > 0


FAMILY = Family(
    "table", "pipeline.engines.table.reference:play_table",
    options=(
        "players", "jokers",
        Option("war_down", 3, "Cards face down in a war, or `by_rank` (Război, rules 5.1).",
               minimum=0, maximum=MAX_DECK, words=("by_rank",), check=_by_rank_deck, said=_war_down_said),
        Option("ace_value", 11, "The Ace's value when war size is by rank.", minimum=1, maximum=MAX_DECK),
        Option("aces", "high", "The Ace above the King (`high`) or below the 2 (`low`) (rules 2.8).",
               choices=("high", "low"), said={"low": "Aces low"}),
        Option("war_tiebreak", "repeat", "rules 2.5.", choices=("repeat", "single_up"),
               said={"single_up": "a tied war settled by 1 card up"}),
        Option("shortfall", "last_card_up", "rules 2.3.", choices=("last_card_up", "lose"),
               said={"lose": "a player short of a war loses"}),
        "pickup", "ranks", "suits", "win", "max_battles", "deal",
    ),
    variants=(
        Variant("classic", "Classic War", "docs/rules.md 2", "2 players, 52 cards, wars of 3 down and 1 up."),
        Variant("multiplayer", "Multiplayer War", "docs/rules.md 3",
                "3 players by default, up to 8; wars among those tied for the highest card, 1 down and 1 up.",
                defaults={"players": 3, "war_down": 1}),
        Variant("jokers", "War with Jokers", "docs/rules.md 4",
                "Classic War with 2 Jokers that beat every other card.", defaults={"jokers": 2}),
        Variant("razboi", "Război", "docs/rules.md 5",
                "The Romanian war: a war's size comes from the rank of the tied cards.",
                defaults={"war_down": "by_rank"},
                options=("players", "jokers", "war_down", "ace_value", "aces", "war_tiebreak", "shortfall", "pickup",
                         "win", "max_battles", "deal"),
                standard_deck=True),
    ),
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle",
            "out", "end"),
    compiled="pipeline.engines.table.compiled",
    compiled_options={"players": ANY, "jokers": ANY, "war_down": ANY, "ace_value": ANY, "aces": ("high", "low"),
                      "war_tiebreak": ("repeat", "single_up"), "shortfall": ("last_card_up", "lose"),
                      "pickup": ANY,
                      "ranks": ANY, "suits": ANY, "win": ANY, "max_battles": ANY, "deal": ANY},
    # Two seats in open play (no card down), a fixed pickup, won by every card, the Ace high: the
    # same ranks whatever the suits (docs/rules.md 2.6). With no card down, a war's tiebreak and a
    # shortfall play alike, and the Ace's war value is not read.
    fast="pipeline.engines.table.open_play",
    fast_options={"variant": ("classic", "jokers"), "players": (2,), "jokers": (0, 2), "war_down": (0,),
                  "ace_value": ANY, "aces": ("high",), "war_tiebreak": ("repeat", "single_up"),
                  "shortfall": ("last_card_up", "lose"), "pickup": ("table_order", "winner_first", "natural", "sorted"),
                  "ranks": ANY, "suits": ANY, "win": ("all_cards",), "max_battles": ANY, "deal": ("even", "first_short")},
    charts="pipeline.engines.table.charts:charts",
    # war's own queries (queries/), which its charts draw, for every rule set they are about
    report=(Report("razboi_war_sizes", shows="Război's war sizes", when=_wars_by_rank),
            Report("joker_wars", shows="how often a Joker decides a war", when=_with_jokers)),
    warm=(Warm(True, "classic", {"ranks": "5", "suits": "2", "pickup": "winner_first"}, 5.5,
               "the engine of Classic War and its kin (Multiplayer, Jokers, Război)"),),
)
