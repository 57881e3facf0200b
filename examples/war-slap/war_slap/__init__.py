"""Slap War, a family of War that war plays as a plugin: its declaration, everything war knows
of it (pipeline.plugin's Family). The rules are in this package's README.md.

war reads this module before it imports any engine, so it imports only the declaration's types
from pipeline.plugin, and names its engine and policies as "module:function".
"""

from pipeline.plugin import Decision, Family, Kind, Option, Policy, Variant

POLICIES = "war_slap.policies:"

FAMILY = Family(
    "slap", "war_slap.engine:play_slap",
    options=(
        "players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles",
        Option("slap_order", "after_winner", "Who may slap a pair first: the seat after the last battle's winner "
               "(`after_winner`), or seat 0 (`seat`); then each seat in turn (README 2).",
               choices=("after_winner", "seat")),
    ),
    variants=(
        Variant("slap", "Slap War", "war-slap's README.md",
                "Classic War, but a pair of best cards goes to the first seat that slaps it; unslapped, it is a war."),
    ),
    events=(
        "deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle", "decision",
        Kind("slap", "the seat slapped the pair first and takes the table, in the order it lies",
             "seat {seat} slaps the pair first and takes {n} cards: {cards}",
             source="table", target="gains", journey="slaps it up"),
        "out", "end",
    ),
    decisions=(
        Decision("slap", "seats", "seat {seat} [[seats?slaps the pair|lets the pair go]]", "slap the pair?",
                 (Policy("always", POLICIES + "always", "every pair"),
                  Policy("never", POLICIES + "never", "no pair: the game is Classic War"),
                  Policy("random", POLICIES + "random", "each pair with probability 1/2", randomized=True),
                  Policy("high", POLICIES + "high", "pairs of rank N or higher only",
                         parameter="a rank index, 0 for 2s .. 12 for Aces, e.g. slap:high:9 (Jacks or higher)")),
                 "always"),
    ),
    profiles={"greedy": {"slap": "always"}, "cautious": {"slap": "never"}, "random": {"slap": "random"}},
    queries="queries",
    report=(("slaps", {}),),
    golden="golden",
)
