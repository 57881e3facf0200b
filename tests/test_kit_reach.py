"""What the conformance kit (pipeline.testing) plays and checks, from a hostile pass of it
(hostile-j 2, 6, 7, 8): an engine whose piles are not what its events say passed check_tampers,
which started from a plain `war validate` (a regeneration, equal to itself); a policy other than
each decision's default was never played, so a broken `never` passed; a variant's own defaults
were played again where the option's were left out, and a range's maximum (eight seats) never;
and a correct family whose variants seat three failed, its deal tamper named at a later deal."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline import testing
from pipeline.errors import PluginError
from pipeline.engines import policies
from pipeline.model.families import registry
from pipeline.model.family import Variant
from test_plugin_engine_checks import engine  # noqa: F401  (the fixture: Slap War's engine replaced for a test)


def reversed_collect(rules, deal, chance, rec, chooser):
    """Slap War whose `collect` logs the table as taken and puts it under the pile reversed."""
    from war_slap.engine import SlapGame

    class Reversed(SlapGame):
        __slots__ = ()

        def collect(self, seat, cards, battle, kind="collect"):
            self.piles[seat].extend(reversed(cards))
            self.emit(battle, kind, seat, cards)

    return Reversed(rules, deal, chance, rec, chooser).play()


def test_check_tampers_replays_each_game_from_its_log(engine, tmp_path):
    engine(reversed_collect)
    with pytest.raises(AssertionError, match="expected seat 0.s top cards"):
        testing.check_tampers("slap", tmp_path)


def test_check_games_plays_every_policy_at_every_seat(monkeypatch):
    assert ("slap:never", "slap:never") in testing.seatings("slap", 2) and ("cautious",) * 3 in testing.seatings("slap", 3)
    real = policies.SeatPolicy.functions

    def functions(self, seat=None, seed=None):  # `never` slaps another seat's pair: not its own
        made = real(self, seat, seed)
        if ("slap", "never") in self.choices:
            made["slap"] = lambda view, rng: ((view.seat + 1) % 2,)
        return made

    monkeypatch.setattr(policies.SeatPolicy, "functions", functions)
    with pytest.raises(Exception, match="slap:never"):
        testing.check_games("slap", games=2, case_list=[("slap", {})])


def test_check_games_plays_a_policy_that_takes_a_parameter(monkeypatch):
    """hostile-k 2: `slap:high:N`, never played by the kit, could not play one game (a misspelt
    field of the view) and check_games passed. It is played at two values its maker takes."""
    assert ("slap:high:1",) * 2 in testing.seatings("slap", 2) and ("slap:high:3",) * 2 in testing.seatings("slap", 2)
    real = policies.SeatPolicy.functions

    def functions(self, seat=None, seed=None):
        made = real(self, seat, seed)
        if any(kind == "slap" and name.startswith("high:") for kind, name in self.choices):
            made["slap"] = lambda view, rng: (view.seat,) if view.rnk >= 3 else ()  # the misspelt field
        return made

    monkeypatch.setattr(policies.SeatPolicy, "functions", functions)
    with pytest.raises(Exception, match="slap:high:1"):
        testing.check_games("slap", games=2, case_list=[("slap", {})])


def test_a_parameter_is_tried_at_values_its_maker_takes():
    from pipeline.model.family import Policy

    def from_five(n):
        if n < 5:
            raise ValueError("a pile size from 5")
        return lambda view, rng: ()

    def never_made(n):
        raise ValueError("no value")

    assert testing.parameter_values(Policy("x", lambda n: (lambda v, r: ()), parameter="N")) == (1, 3)
    assert testing.parameter_values(Policy("x", from_five, parameter="N")) == (5, 6)
    assert testing.parameter_values(Policy("x", never_made, parameter="N")) == (1,)


def test_cases_vary_from_the_variants_own_defaults(monkeypatch):
    family = registry().families["slap"]
    three = Variant("slap", "Slap War", "README", "three seats", defaults={"players": 3, "war_down": 1})
    monkeypatch.setitem(registry().families, "slap", replace(family, variants=(three,)))
    said = [testing.case_id(c) for c in testing.cases("slap")]
    assert "slap-players=2" in said and "slap-players=8" in said and "slap-players=3" not in said, said
    assert "slap-war_down=3" in said and "slap-war_down=1" not in said and "slap-war_down=0" in said, said


def test_a_deal_tamper_takes_a_card_an_earlier_deal_gave():
    """Three seats: seat 1's deal given a card of seat 2's was named at seat 2's later deal,
    where the card is seen twice; a card seat 0 was dealt is named at seat 1's own."""
    from pipeline.engines.event import Event

    deals = [Event(0, "deal", seat, cards) for seat, cards in ((0, (5, 6)), (1, (0, 1)), (2, (2, 3)))]
    bad = testing._tampered(deals[1], 7, 3, [c for e in deals[:1] for c in e.cards])
    assert bad.cards[0] in (5, 6) and bad.cards[1:] == (1,)


def summarizing(**changed):
    """Slap War whose engine returns its game's Summary with `changed` fields."""
    def play(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        summary = SlapGame(rules, deal, chance, rec, chooser).play()
        for name, value in changed.items():
            setattr(summary, name, value)
        return summary
    return play


@pytest.mark.parametrize("changed", [{"outcome": "resign"}, {"winner": 5}, {"outcome": "draw"}],
                         ids=["unknown outcome", "no such seat", "a draw with a winner"])
def test_a_summary_no_game_can_have_is_the_plugins_error(engine, changed):
    """`outcome="resign", winner=5` in a two-seat game was written, and `war report` then failed
    with an internal IndexError (hostile-j 4)."""
    from pipeline.engines.game import play_game
    from pipeline.errors import PluginError
    from pipeline.model.rules import build_rules

    engine(summarizing(**changed))
    with pytest.raises(PluginError, match="returned a Summary"):
        play_game(build_rules("slap", {"win": "wars:1"}), 3, policies=("slap:never", "slap:never"))


def test_check_games_holds_the_end_and_every_event_to_the_game(engine):
    """A winner changed after play() (the end event says the other seat) and an event naming a
    seat the game has not passed generate, validate --deep and the kit (hostile-j 4, 5)."""
    def other_winner(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        summary = SlapGame(rules, deal, chance, rec, chooser).play()
        if summary.winner is not None:
            summary.winner = 1 - summary.winner
        return summary

    engine(other_winner)
    with pytest.raises(AssertionError, match="the end event's winner"):
        testing.check_games("slap", games=2, case_list=[("slap", {})])

    def third_seat(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        class Third(SlapGame):
            __slots__ = ()

            def collect(self, seat, cards, battle, kind="collect"):
                super().collect(seat, cards, battle, kind)
                self.emit(battle, "slap", 2, ())

        return Third(rules, deal, chance, rec, chooser).play()

    engine(third_seat)  # war refuses the event as it is made, before the kit looks at it
    with pytest.raises(PluginError, match="'slap' event by seat 2, not a seat of this 2-seat game"):
        testing.check_games("slap", games=1, case_list=[("slap", {})])


def test_check_golden_of_a_family_with_no_golden_folder_says_to_declare_one(monkeypatch):
    """With `golden=""` the kit told a plugin to write `tests/golden` of its own project, then
    read war's own tests/golden, where it never was (hostile-j 12)."""
    family = registry().families["slap"]
    monkeypatch.setitem(registry().families, "slap", replace(family, golden=""))
    with pytest.raises(AssertionError, match='declares no folder of golden playthroughs: give Family'):
        testing.check_golden("slap")


def test_check_games_finds_a_table_hook_that_reads_the_game(monkeypatch):
    """A `strength` that reads the deal (a trump of the last card dealt) is kept as a table at
    the first game of a rule set, so every game played game 0's trump and validate was good
    (hostile-j 9): regenerated from a rule set made again, a game plays its own."""
    from war_trump.engine import TrumpGame

    real = TrumpGame.strength

    def strength(self, card):  # the rule set's trump, then one more of the suit of seat 0's bottom card
        bonus = 100 if self.suit(card) is not None and self.suit(card) == self.suit(self.piles[0][-1]) else 0
        return real(self, card) + bonus

    monkeypatch.setattr(TrumpGame, "strength", strength)
    with pytest.raises(AssertionError, match="regenerates differently"):
        testing.check_games("trump", games=8, case_list=[("trump", {})])


def test_another_familys_profile_does_not_hide_this_variants_policy(monkeypatch):
    """Profiles of every family share one table: a plugin's profile `highest`, which says nothing
    of Arneson's decisions, made `-p '*=highest'` of Arneson War play its default `hand:random`
    instead of its policy `hand:highest` (hostile-k 3)."""
    monkeypatch.setitem(policies.PROFILES, "highest", {"slap": "always"})
    assert policies.parse_policy("highest", ("hand",)).choices == (("hand", "highest"),)
    assert policies.parse_policy("highest", ("slap",)).choices == (("slap", "always"),)
    assert policies.parse_policy("default", ("hand",)).choices == (("hand", "random"),)


def test_a_numpy_winner_is_a_seat(engine):
    """The summary check refused `winner=np.int64(1)` as "not one of the game's 2 seats" (hostile-k 1)."""
    import numpy as np

    from pipeline.engines.game import play_game
    from pipeline.model.rules import build_rules

    def numpy_winner(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        summary = SlapGame(rules, deal, chance, rec, chooser).play()
        if summary.winner is not None:
            summary.winner = np.int64(summary.winner)
        return summary

    engine(numpy_winner)
    assert play_game(build_rules("slap", {}), 3)[1].outcome in ("win", "capped")


def test_a_card_taken_from_where_it_is_not_is_the_kit_s_failure_naming_the_game(engine):
    """The ledger's own error escaped the kit as a bare LogMismatch, naming neither the case nor
    the game (hostile-j): a plugin's test then failed with "event 5: expected a card on the
    table" and no seed to play it again."""
    def from_the_pile(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        class Pile(SlapGame):
            __slots__ = ()

            def collect(self, seat, cards, battle, kind="collect"):
                super().collect(seat, cards, battle, kind)
                self.emit(battle, "slap", seat, (self.piles[seat][0],))  # a card of its pile, not the table's

        return Pile(rules, deal, chance, rec, chooser).play()

    engine(from_the_pile)
    with pytest.raises(AssertionError, match=r"slap, game 0 of seed \d+, seq \d+: the cards' places: "):
        testing.check_games("slap", games=1, case_list=[("slap", {})])
