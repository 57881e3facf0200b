"""`war generate --from DATASET --where ... --out NEW` (jobs.materialize): the chosen games of a
dataset played again with their whole log, each keeping its seed and deal, so that the new
dataset's games and events are the source's, under new ids; it validates like any other."""

from __future__ import annotations

import json

import pytest

from pipeline.errors import DatasetError, QueryError, RulesError
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.materialize import materialize
from pipeline.jobs.query import run
from pipeline.jobs.request import GenerateArgs, generate_request
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

WHERE = "battles > 300 OR outcome <> 'win'"


def test_chosen_games_of_a_games_only_dataset_get_the_log_they_would_have_had(tmp_path):
    rules = build_rules("classic")
    generate(tmp_path / "g", [Plan(rules, 60, log="games")], seed=5, shard_size=25)
    generate(tmp_path / "full", [Plan(rules, 60)], seed=5, shard_size=25)
    materialize(tmp_path / "g", WHERE, tmp_path / "m", shard_size=7)
    chosen = run(tmp_path / "full", sql=f"SELECT game_id FROM games WHERE {WHERE} ORDER BY game_id").column(0)
    chosen = chosen.to_pylist()
    assert 0 < len(chosen) < 60
    columns = "game_seed, outcome, winner, battles, wars, final_cards, events"
    new = run(tmp_path / "m", sql=f"SELECT {columns} FROM games ORDER BY game_id")
    old = run(tmp_path / "full", sql=f"SELECT {columns} FROM games WHERE {WHERE} ORDER BY game_id")
    assert new.equals(old)
    for n, gid in enumerate(chosen[:5]):
        strip = "SELECT seq, battle, kind, seat, cards, seats, options, value, note FROM events WHERE game_id = {} ORDER BY seq"
        assert run(tmp_path / "m", sql=strip.format(n)).equals(run(tmp_path / "full", sql=strip.format(gid)))
    lines = [json.loads(line) for line in next((tmp_path / "m" / "seeds").glob("*.jsonl")).read_text().splitlines()]
    assert [line["from"] for line in lines] == chosen
    assert validate(tmp_path / "m").ok


def test_games_of_every_deal_keep_their_deals_and_are_explicit_there(tmp_path):
    rules = build_rules("classic", {"ranks": "3", "suits": "2", "pickup": "natural"})
    generate(tmp_path / "all", make_plans([rules], all_deals=True, log="games"), seed=2)
    materialize(tmp_path / "all", "deal_index IN (5, 17, 80)", tmp_path / "m")
    old = run(tmp_path / "all", sql="SELECT piles, battles FROM games WHERE deal_index IN (5, 17, 80) ORDER BY game_id")
    new = run(tmp_path / "m", sql="SELECT deal, battles FROM games ORDER BY game_id")
    assert new.column("deal").to_pylist() == ["explicit"] * 3
    assert new.column("battles").equals(old.column("battles"))
    events = run(tmp_path / "m", sql="SELECT cards FROM events WHERE kind = 'deal' ORDER BY game_id, seat")
    assert events.column(0).to_pylist() == [p for piles in old.column("piles").to_pylist() for p in piles]
    assert validate(tmp_path / "m").ok


def test_no_game_of_a_dataset_of_counts_says_it_stores_counts(tmp_path):
    """`--from` a counts dataset said 'no game matches --where true', as if none of its deals
    did: it stores no games rows (hostile pass E, 9)."""
    rules = build_rules("classic", {"ranks": "3", "suits": "2", "pickup": "natural", "war_down": "0"})
    generate(tmp_path / "c", [Plan(rules, 0, all_deals=True, log="counts")], seed=1)
    with pytest.raises(QueryError, match="its rule set stores counts of its deals, no games rows; `keep` CONDITION"):
        materialize(tmp_path / "c", "true", tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_a_choice_of_no_game_and_arguments_that_do_not_go_with_from_are_refused(tmp_path):
    generate(tmp_path / "g", [Plan(build_rules("classic"), 5, log="games")], seed=1)
    with pytest.raises(QueryError, match="no game of .* matches `where`"):
        materialize(tmp_path / "g", "battles < 0", tmp_path / "m")
    with pytest.raises(RulesError, match="give none of `games`"):
        generate_request(GenerateArgs(source=tmp_path / "g", where="true", games=3, out=tmp_path / "m"))
    with pytest.raises(RulesError, match="needs `where`"):
        generate_request(GenerateArgs(source=tmp_path / "g", out=tmp_path / "m"))
    with pytest.raises(QueryError):
        materialize(tmp_path / "g", "true); DROP TABLE games; (true", tmp_path / "m")


@pytest.fixture
def chain(tmp_path, monkeypatch):
    """L0 (2,000 games, the games table alone), L1 its games over 400 battles, L2 L1's over 800,
    made from inside `tmp_path` with relative names, as a user types them."""
    monkeypatch.chdir(tmp_path)
    generate("L0", [Plan(build_rules("classic"), 2000, log="games")], seed=9)
    materialize("L0", "battles > 400", "L1")
    materialize("L1", "battles > 800", "L2")
    return tmp_path


def test_a_copy_keeps_its_source_as_an_absolute_path(chain, monkeypatch):
    """`source` was 'L1' as typed, so validate from another folder holding an unrelated L1 called
    all 76 games bad, and replay named a folder nobody could find (hostile pass F, 1)."""
    [entry] = json.loads((chain / "L2" / "manifest.json").read_text())["rule_sets"]
    assert entry["source"] == str((chain / "L1").resolve())
    other = chain / "other"
    other.mkdir()
    monkeypatch.chdir(other)
    generate("L1", [Plan(build_rules("classic"), 500)], seed=9)
    assert validate(chain / "L2").ok


def test_a_copy_whose_source_was_rewritten_is_not_blamed_for_it(chain):
    """L1 rewritten with other games: every line of L2 was called bad, blamed on L2's own seeds
    file, where its source no longer holds the games as they were taken (hostile pass F, 2). A
    line the source still holds otherwise than the others stays a problem."""
    materialize("L0", "battles > 300", "L1", overwrite=True)
    assert validate(chain / "L2").ok


def test_the_copy_is_not_written_over_its_own_source(chain):
    """`--from L1 --out L1 --overwrite` replaced L1's games with the copy, which named itself as
    its source: every game bad for good (hostile pass F, 3)."""
    before = sorted((p.name, p.stat().st_size) for p in (chain / "L1").rglob("*") if p.is_file())
    for out in ("L1", str(chain / "L1"), "./L1/"):
        with pytest.raises(DatasetError, match="is the `from` dataset: the copy would replace the games it takes"):
            materialize("L1", "battles > 1000", out, overwrite=True)
        with pytest.raises(DatasetError, match="is the `from` dataset"):
            generate_request(GenerateArgs(source="L1", where="battles > 1000", out=out, overwrite=True))
    assert sorted((p.name, p.stat().st_size) for p in (chain / "L1").rglob("*") if p.is_file()) == before
