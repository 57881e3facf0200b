"""One conformance suite for every registered variant, over a grid of options.

A variant joins by being registered in pipeline.variants: random games are checked for
invariants at every step (every card in exactly one place), termination, replay from the log
alone, regeneration from the seed, and a round trip through a dataset on disk.
"""

import pytest

from pipeline.model.deal import deck_of
from pipeline.errors import RulesError
from pipeline.engines.families import FAMILIES, family_of
from pipeline.engines.game import play_game, replay_log
from pipeline.jobs.generate import Plan, generate
from pipeline.golden import golden_dir, golden_text, regenerate_command
from pipeline.log.ledger import ledger_for
from pipeline.jobs.replay import load_game
from pipeline.storage.dataset import Dataset
from pipeline.model.rng import game_seed
from pipeline.model.rules import build_rules
from pipeline.jobs.validate import validate
from pipeline.model.variants import VARIANTS
from rulekit import OPTION_GRID

GAMES = 20


def grid():
    for name, spec in VARIANTS.items():
        yield name, {}
        for option, values in OPTION_GRID.items():
            if option in spec.options:
                for value in values:
                    yield name, {option: value}


CASES = list(grid())


def case_id(case):
    name, options = case
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def test_every_variant_has_its_defaults_in_the_grid():
    assert {name for name, options in CASES if not options} == set(VARIANTS)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_games_keep_every_card_and_replay(case):
    name, options = case
    try:
        rules = build_rules(name, options)
    except RulesError as err:
        if not options:
            raise
        pytest.skip(f"not a playable combination: {err}")
    size = deck_of(rules).size
    for i in range(GAMES):
        seed = game_seed(99, i)
        events, summary, deal = play_game(rules, seed)
        ledger = ledger_for(rules)
        for seq, ev in enumerate(events):
            ledger.apply(ev)
            if ev.kind != "deal" and (i < 3 or ev.kind in ("collect", "set_aside", "end")):
                cards = ledger.places()
                assert sorted(cards) == list(range(size)), f"game {i} seq {seq}: a card lost or doubled"
        assert events[-1].kind == "end" and events[-1].note == summary.outcome
        assert summary.outcome in ("win", "draw", "capped", "cycle")
        assert 0 < summary.battles <= rules.max_battles
        assert (summary.winner is not None) == (summary.outcome == "win")
        held = sum(summary.final_cards) + summary.cards_set_aside
        assert held == size
        if summary.outcome == "win" and rules.wars_to_win is None:
            assert summary.final_cards[summary.winner] == size - summary.cards_set_aside
        assert {ev.kind for ev in events} <= set(family_of(rules).kind_names), "a kind its family's spec does not declare"
        assert replay_log(rules, events) == summary
        again, summary_again, _ = play_game(rules, seed)
        assert again == events and summary_again == summary


def test_every_event_kind_is_logged_by_a_family_that_declares_it():
    """The registry has no kind that no family logs, and a family declares only registered kinds."""
    from pipeline.model.event_kinds import NAMES

    declared = [kind for family in FAMILIES.values() for kind in family.kind_names]
    assert set(declared) == set(NAMES)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_dataset_round_trip(tmp_path, variant):
    """Generate, write, read back, replay from the file, regenerate: identical."""
    rules = build_rules(variant)
    generate(tmp_path / "d", [Plan(rules, 12)], seed=5, shard_size=5)
    ds = Dataset.open(tmp_path / "d")
    for game_id in (0, 7, 11):
        entry, record, log = load_game(ds, game_id)
        events, summary, _ = play_game(rules, game_seed(5, game_id))
        assert log == events
        assert replay_log(entry.rules, log) == summary
        assert record["battles"] == summary.battles and record["outcome"] == summary.outcome
    report = validate(tmp_path / "d")
    assert report.ok and report.good == 12


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_golden_playthrough(variant):
    """Fails when a variant has no golden file, or when its games changed: rerun
    the command its second line says (`make golden` for war's own) only for a deliberate change,
    and read the diff."""
    path = golden_dir(variant) / f"{variant}.txt"
    assert path.exists(), f"no golden playthrough for {variant}: run {regenerate_command(variant)}"
    assert golden_text(variant) == path.read_text(encoding="utf-8")


def test_no_golden_file_without_a_variant():
    """tests/golden holds the playthroughs of the variants whose family keeps none of its own."""
    assert {p.stem for p in golden_dir().glob("*.txt")} == {v for v in VARIANTS if golden_dir(v) == golden_dir()}
