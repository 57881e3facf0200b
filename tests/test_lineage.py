"""Games taken from another dataset (`war generate --from DATASET --where ...`) say where they come
from: the games view's `source_game_id` is each one's game there, `deal_index` and `piles` are the
source's where it had them (over any number of copies of copies), and `war replay` names the
source game and dataset, in text, JSON and the replay page."""

from __future__ import annotations

import hashlib
import json

import pytest

from clikit import ok
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.materialize import materialize, shown_source
from pipeline.jobs.query import run
from pipeline.jobs.replay import as_json, render_text, replay_game
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules
from pipeline.present.replay_page import page_data
from pipeline.storage.dataset import Dataset

COLUMNS = "game_seed, outcome, winner, battles, wars, final_cards"


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A rule set of every deal of a 6-card deck (its log not stored), and seeded Classic War."""
    out = tmp_path_factory.mktemp("lineage") / "src"
    every = build_rules("classic", {"ranks": "3", "suits": "2", "pickup": "winner_first"})
    generate(out, make_plans([every], all_deals=True, log="games") + [Plan(build_rules("classic"), 12)], seed=4)
    return out


@pytest.fixture(scope="module")
def copied(source, tmp_path_factory):
    out = tmp_path_factory.mktemp("lineage") / "copy"
    materialize(source, "battles >= 4 OR game_id % 3 = 0", out)
    return out


def _rows(root, sql):
    return run(root, sql=sql).to_pylist()


def test_each_copied_game_names_its_source_game_and_keeps_its_deal(source, copied):
    new = _rows(copied, f"SELECT game_id, source_game_id, deal_index, piles, {COLUMNS} FROM games ORDER BY game_id")
    assert new and all(r["source_game_id"] is not None for r in new)
    old = {r["game_id"]: r for r in _rows(source, f"SELECT game_id, deal_index, piles, {COLUMNS} FROM games")}
    for r in new:
        was = old[r["source_game_id"]]
        assert {k: r[k] for k in was if k != "game_id"} == {k: v for k, v in was.items() if k != "game_id"}
    every = [r for r in new if r["source_game_id"] < 1_000_000_000]
    seeded = [r for r in new if r["source_game_id"] >= 1_000_000_000]
    assert every and seeded
    assert all(r["deal_index"] is not None and r["piles"] for r in every)
    assert all(r["deal_index"] is None and r["piles"] is None for r in seeded)
    # the piles the view computes from deal_index are the deal the copy played
    dealt = _rows(copied, "SELECT game_id, list(cards ORDER BY seat) AS piles FROM events WHERE kind = 'deal' "
                          "GROUP BY game_id")
    played = {r["game_id"]: r["piles"] for r in dealt}
    assert all(played[r["game_id"]] == r["piles"] for r in every)
    assert validate(copied).ok


def test_a_copy_of_a_copy_keeps_the_deal_index(copied, tmp_path):
    again = tmp_path / "again"
    materialize(copied, "deal_index IS NOT NULL", again)
    rows = _rows(again, "SELECT source_game_id, deal_index, piles FROM games ORDER BY game_id")
    before = {r["game_id"]: r for r in _rows(copied, "SELECT game_id, deal_index, piles FROM games")}
    assert rows and all((r["deal_index"], r["piles"]) == (before[r["source_game_id"]]["deal_index"],
                                                          before[r["source_game_id"]]["piles"]) for r in rows)
    assert Dataset.open(again).manifest.rule_sets[0].source == str(copied)


def test_replay_says_where_a_copied_game_comes_from(source, copied):
    first = _rows(copied, "SELECT game_id, source_game_id, deal_index FROM games "
                          "WHERE deal_index IS NOT NULL ORDER BY game_id LIMIT 1")[0]
    rp = replay_game(copied, first["game_id"])
    said = f"Copied from game {first['source_game_id']} of {source} (war generate --from), " \
           f"deal {first['deal_index']} of every deal of its deck"
    assert said in render_text(rp).splitlines()[:5]
    assert as_json(rp)["source"] == {"dataset": str(source), "game_id": first["source_game_id"],
                                     "deal_index": first["deal_index"]}
    assert page_data(rp)["source_line"] == said and page_data(rp)["source"] == as_json(rp)["source"]
    text = ok("replay", copied, first["game_id"]).stdout
    assert said in text
    plain = replay_game(source, 1_000_000_000)
    assert plain.source is None and as_json(plain)["source"] is None
    assert not any(line.startswith("Copied from") for line in render_text(plain).splitlines())


def test_a_copy_written_before_lineage_was_kept_still_reads(copied, tmp_path):
    """Seeds files without deal_index and a manifest without `source`: the source game still
    shows, the deal index is not known."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(copied, old)
    for path in (old / "seeds").glob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        path.write_text("".join(json.dumps({"seed": x["seed"], "from": x["from"]}, separators=(",", ":")) + "\n"
                                for x in lines))
    manifest = json.loads((old / "manifest.json").read_text())
    for entry in manifest["rule_sets"]:
        entry.pop("source", None)
    for f in manifest["files"]:  # as that war wrote them: the manifest lists the seeds files it wrote
        if f["table"] == "seeds":
            f["sha256"] = hashlib.sha256((old / f["path"]).read_bytes()).hexdigest()
    (old / "manifest.json").write_text(json.dumps(manifest))
    rows = _rows(old, "SELECT source_game_id, deal_index FROM games")
    assert rows and all(r["source_game_id"] is not None and r["deal_index"] is None for r in rows)
    rp = replay_game(old, 0)
    assert rp.source["dataset"] is None
    assert "of the dataset it was taken from (war generate --from)" in render_text(rp)


def test_a_source_is_shown_without_credentials():
    assert shown_source("s3://key:secret@bucket/war/big?endpoint_override=x") == "s3://bucket/war/big"
    assert shown_source("data/classic") == "data/classic"


def test_a_seeds_file_of_another_copy_is_refused_by_the_games_view_and_replay(source, copied, tmp_path):
    """The seeds file is the copy's lineage: another copy's, put in its place, gave each game another
    source_game_id and the replay's "Copied from game N", while its seed stayed the game's."""
    import shutil

    mine, other = tmp_path / "mine", tmp_path / "other"
    shutil.copytree(copied, mine)
    materialize(source, "game_id % 2 = 0", other)
    name = Dataset.open(mine).files("seeds")[0].path
    assert (other / name).read_bytes() != (mine / name).read_bytes()
    shutil.copyfile(other / name, mine / name)
    with pytest.raises(Exception, match="seeds/.* is not the file its manifest lists"):
        run(mine, sql="SELECT game_id, source_game_id FROM games")
    first = _rows(copied, "SELECT min(game_id) AS g FROM games")[0]["g"]
    with pytest.raises(Exception, match="is not the file its manifest lists"):
        replay_game(mine, first)


def test_a_replay_of_a_shard_replaced_by_another_dataset_s_is_refused(tmp_path):
    """A games and events file copied over from another dataset: the replay showed the other
    dataset's game under this one's seed, blaming its games row."""
    import shutil

    mine, other = tmp_path / "mine", tmp_path / "other"
    generate(mine, [Plan(build_rules("classic"), 6)], seed=1)
    generate(other, [Plan(build_rules("classic"), 6)], seed=2)
    replay_game(mine, 0)
    for table in ("games", "events"):
        name = Dataset.open(mine).files(table)[0].path
        shutil.copyfile(other / name, mine / name)
    with pytest.raises(Exception, match="is not the file its manifest lists"):
        replay_game(mine, 0)
