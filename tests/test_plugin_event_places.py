"""An engine's event by a seat that is not one of the game's, or with a card that is not the
deck's, is its fault and never written (issue 52, item 3). war wrote them: a Slap War engine
whose slap named seat 2 of a 2-seat game, or laid card 60 of a 52-card deck, made a dataset
that `war validate` called good (it plays the same engine again), whose replay could show no
such seat or card. The conformance kit found it in the plugin's own tests only; now generation
refuses it on both paths (the arrays' and the Event path's), naming the event.
"""

from __future__ import annotations

import pytest
from test_plugin_engine_checks import engine  # noqa: F401  (the fixture: Slap War's engine replaced for a test)

from pipeline.engines.event import wrong_places
from pipeline.engines.game import play_game
from pipeline.errors import PluginError
from pipeline.jobs.generate import Plan, generate
from pipeline.log.array_recorder import ArrayRecorder, Unrepresentable
from pipeline.model.rules import build_rules


def _slap_engine(extra):
    """Slap War's engine, with `extra(game, battle, seat)` called after every collect and slap."""
    def play(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        class Extra(SlapGame):
            __slots__ = ()

            def collect(self, seat, cards, battle, kind="collect"):
                super().collect(seat, cards, battle, kind)
                extra(self, battle, seat)

        return Extra(rules, deal, chance, rec, chooser).play()
    return play


CASES = {
    "a seat past the game's": (lambda g, b, s: g.emit(b, "slap", 2, ()), "'slap' event by seat 2, not a seat of this 2-seat game"),
    "a negative seat": (lambda g, b, s: g.emit(b, "slap", -1, ()), "'slap' event by seat -1, not a seat"),
    "a card past the deck's": (lambda g, b, s: g.emit(b, "slap", s, (60,)), "'slap' event with card 60, not a card of this 52-card deck"),
    "seats naming one past the game's": (lambda g, b, s: g.emit(b, "war", None, (), (0, 5), (), 1),
                                         "'war' event naming seat 5, not a seat of this 2-seat game"),
    # between two seats or cards (hostile-l 1: the arrays wrote seat 0.5 as 0 and card 3.7 as 3)
    "a seat between two": (lambda g, b, s: g.emit(b, "slap", 0.5, ()), "'slap' event by seat 0.5, not a seat"),
    "a card between two": (lambda g, b, s: g.emit(b, "slap", s, (3.7,)), "'slap' event with card 3.7, not a card"),
    "seats naming one between two": (lambda g, b, s: g.emit(b, "war", None, (), (0, 0.5), (), 1),
                                     "'war' event naming seat 0.5, not a seat"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_event_out_of_the_game_is_the_plugin_s_error_and_nothing_is_written(engine, tmp_path, case):
    extra, said = CASES[case]
    engine(_slap_engine(extra))
    rules = build_rules("slap", {})
    with pytest.raises(PluginError, match=said) as caught:
        play_game(rules, 5)
    assert "the error is the plugin's (war_slap)" in str(caught.value)
    out = tmp_path / "d"
    with pytest.raises(PluginError, match=said):
        generate(out, [Plan(rules, 4)], seed=3, shard_size=4)
    assert not (out / "manifest.json").exists()


def test_the_same_engine_within_the_game_writes_its_games(engine, tmp_path):
    """The premise: the wrapper alone (an event of a seat of the game, a card of the deck) is
    written and valid, so it is the place of the event that is refused above."""
    engine(_slap_engine(lambda g, b, s: g.emit(b, "slap", s, (g.piles[s][-1],))))
    out = tmp_path / "d"
    generate(out, [Plan(build_rules("slap", {}), 4)], seed=3, shard_size=4)
    assert (out / "manifest.json").exists()


def test_a_seat_or_card_given_as_a_float_of_its_value_is_written_as_that_int(engine, tmp_path):
    """1.0 is seat 1 and 30.0 card 30, as the Event path reads them (each is in its range):
    the dataset is the same bytes as the engine's that gives ints."""
    written = []
    for as_given in (int, float):
        engine(_slap_engine(lambda g, b, s, f=as_given: g.emit(b, "slap", f(s), (f(g.piles[s][-1]),))))
        out = tmp_path / as_given.__name__
        generate(out, [Plan(build_rules("slap", {}), 4)], seed=3, shard_size=4)
        written.append(sorted((p.relative_to(out).as_posix(), p.read_bytes())
                              for p in out.rglob("*.parquet")))
    assert written[0] == written[1] and written[0]


def test_the_arrays_give_up_on_a_place_the_game_has_not():
    """The arrays' path hands such an event to the Event path (which names it), whichever way
    it came: an event's seat, a run's seats or takers, a war's seats, a card."""
    def lost(write) -> bool:
        rec = ArrayRecorder(2, None, 52)
        rec.begin()
        try:
            write(rec)
            rec.arrays()
        except Unrepresentable:
            return True
        return False

    assert not lost(lambda r: (r.emit(1, "play", 1, (51,)), r.duels(2, (0, 1), [1, 2, 2, 1], [0])))
    assert lost(lambda r: r.emit(1, "play", 2, (3,)))
    assert lost(lambda r: r.emit(1, "decision", 7, (), (7,), (7,), None, "slap"))
    assert lost(lambda r: r.emit(1, "play", 0, (52,)))
    assert lost(lambda r: r.duels(2, (0, 3), [1, 2, 2, 1], [0]))
    assert lost(lambda r: r.duels(2, (0, 1), [1, 2, 2, 1], [4]))
    assert lost(lambda r: r.emit(1, "war", None, (), (0, 2), (), 1))


def test_wrong_places_names_the_first_event_out_of_the_game():
    ok = (1, "play", 0, (3,), (), (), None, None)
    assert wrong_places([ok, (1, "end", None, (), (), (), 1, "win")], 2, 52) is None
    seq, what = wrong_places([ok, (2, "play", 1, (99,), (), (), None, None)], 2, 52)
    assert seq == 1 and "card 99" in what and "(event 1, battle 2)" in what
    seq, what = wrong_places([ok, ok, (3, "war", None, (), ([0],), (), 1, None)], 2, 52)
    assert seq == 2 and "not numbers" in what


def _miscounting(**changed):
    """Slap War's engine whose Summary then says other wars than its events (as an engine with
    wars of its own that counted them its own way would)."""
    def play(rules, deal, chance, rec, chooser):
        from war_slap.engine import SlapGame

        summary = SlapGame(rules, deal, chance, rec, chooser).play()
        for name, change in changed.items():
            setattr(summary, name, change(getattr(summary, name)))
        return summary
    return play


@pytest.mark.parametrize("changed", [{"wars": lambda n: n + 1}, {"war_battles": lambda n: n + 1},
                                     {"max_war_depth": lambda n: n + 1}, {"first_battle_war": lambda b: not b}],
                         ids=["wars", "war_battles", "max_war_depth", "first_battle_war"])
def test_a_summary_whose_wars_its_events_do_not_say_is_the_plugin_s_error(engine, tmp_path, changed):
    """The games table's wars, war_battles, max_war_depth and first_battle_war are the engine's
    Summary; a query of the events counts the same from the `war` events. An engine whose two
    disagreed was written, and the games table and the events then answered the same question
    differently (hostile-j's note: "a summary's wars not held to the log")."""
    engine(_miscounting(**changed))
    rules = build_rules("slap", {})
    policies = ("slap:never", "slap:never")  # every pair a war: games with wars
    with pytest.raises(PluginError, match="returned a Summary of .* wars in .* battles.*where its war events say"):
        play_game(rules, 3, policies=policies)
    out = tmp_path / "d"
    with pytest.raises(PluginError, match="where its war events say"):
        generate(out, [Plan(rules, 4, policies=policies)], seed=3, shard_size=4)
    assert not (out / "manifest.json").exists()
    engine(_miscounting())  # the premise: the same engine, its summary left as it is, is written
    generate(out, [Plan(rules, 4, policies=policies)], seed=3, shard_size=4)
    assert (out / "manifest.json").exists()
