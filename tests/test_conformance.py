"""One conformance suite for every registered variant, over a grid of options.

A variant joins by being registered in pipeline.variants: random games are checked for
invariants at every step (every card in exactly one place), termination, replay from the log
alone, regeneration from the seed (the conformance kit's checks, pipeline.testing, which a
plugin runs in its own pytest), and a round trip through a dataset on disk.
"""

import pytest

from pipeline import testing
from pipeline.engines.families import FAMILIES
from pipeline.engines.game import play_game, replay_log
from pipeline.jobs.generate import Plan, generate
from pipeline.golden import golden_dir, golden_text, regenerate_command
from pipeline.jobs.replay import load_game
from pipeline.model.families import registry
from pipeline.storage.dataset import Dataset
from pipeline.model.rng import game_seed
from pipeline.model.rules import build_rules
from pipeline.jobs.validate import validate
from pipeline.model.variants import VARIANTS
from rulekit import OPTION_GRID

GAMES = 20


def grid():
    """The built-in families' variants over OPTION_GRID (the values rulekit holds the compiled
    engines to); an outside family's over the kit's cases, every option its declaration gives at
    each of its values, its own options too."""
    built_in = registry().built_in
    for name, spec in VARIANTS.items():
        if spec.family not in built_in:
            continue
        yield name, {}
        for option, values in OPTION_GRID.items():
            if option in spec.options:
                for value in values:
                    yield name, {option: value}
    for family in registry().families:
        if family not in built_in:
            yield from testing.cases(family)


CASES = list(grid())
case_id = testing.case_id


def test_every_variant_has_its_defaults_in_the_grid():
    assert {name for name, options in CASES if not options} == set(VARIANTS)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_random_games_keep_every_card_and_replay(case):
    """The kit's check (pipeline.testing.check_games): every card in one place, a proper end,
    replay from the log and regeneration from the seed; a combination the declarations refuse
    is skipped."""
    if testing.playable(case) is None:
        pytest.skip("not a playable combination")
    testing.check_games(registry().variants[case[0]].family, GAMES, seed=99, case_list=[case])


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


@pytest.mark.parametrize("family", list(registry().families))
def test_the_kit_holds_every_family(family, tmp_path):
    """The kit's dataset checks on every installed family, built-in ones too: a tamper of each
    kind its games log is named at its event, and a randomized policy's games are never cycles."""
    tampered = testing.check_tampers(family, tmp_path, games=8)
    assert {"deal", "play", "end"} <= set(tampered)
    testing.check_drawn_never_cycle(family, games=3)
