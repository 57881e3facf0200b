"""The fault corpus, round four (issue 50, items 4, 5 and 18): the report `war serve` keeps, and
where a game comes from.

4. The kept report lived in the dataset's folder (`.war-report/`) and was served as found: an
   edited one (an inline script in it) was served, from a copy of the dataset too, and reading a
   dataset wrote into it. It is now kept in war's own cache, per user (WAR_REPORT_CACHE here, a
   folder of the test's), keyed by exactly these data and this war, its bytes checked on read:
   anything else is built again, and the dataset's folder is left byte for byte as it was.
5. A `--from` copy's `from` could be edited and re-signed: validation said good. The seed says
   which game a copy is (and its deal index which deal): validation holds the lineage to it.
18. `war replay` of a game kept by `--keep` said "Copied from game None ... (war generate --from)".
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import pipeline.present.report_cache as report_cache
import pipeline.present.site as site_module
from pipeline.errors import WarError
from faultkit import sign, tree, war
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.materialize import materialize
from pipeline.jobs.query import run
from pipeline.jobs.replay import as_json, render_text, replay_game
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules
from pipeline.present.serve import create_app

MARK = "<script>window.tampered=1</script>"


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch) -> Path:
    """The report cache of this test alone."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("WAR_REPORT_CACHE", str(folder))
    return folder


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lr") / "ds"
    generate(out, [Plan(build_rules("classic"), 50)], seed=7, shard_size=25)
    return out


@pytest.fixture
def root(made, tmp_path) -> Path:
    """A private copy of the small dataset."""
    copy = tmp_path / "ds"
    shutil.copytree(made, copy)
    return copy


def _report(root, name: str = "ds") -> str:
    app = create_app(root, name)
    try:
        return app.state.site.now().report()
    finally:
        app.state.site.close()


def _no_build(monkeypatch) -> None:
    def no_build(*args, **kwargs):
        raise AssertionError("the report was built again")

    monkeypatch.setattr(site_module, "build_report_data", no_build)


def _built(monkeypatch) -> list:
    """A list that gains an item each time the report is built."""
    calls = []
    real = site_module.build_report_data

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(site_module, "build_report_data", counted)
    return calls


def _cached(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*.html"))


# ----------------------------------------------------------------------------- 4. the kept report


def test_serving_writes_nothing_into_the_dataset(root, cache):
    """Reading a dataset (serve, its report, a query) leaves its folder byte for byte as it was,
    no file added: a dataset on read-only media, or shared, serves the same."""
    before = tree(root)
    page = _report(root)
    run(root, sql="SELECT count(*) FROM games")
    assert "War report" in page
    assert tree(root) == before  # every file, hidden ones too: none changed, none added
    assert not (root / ".war-report").exists()
    assert len(_cached(cache)) == 1  # kept in the user's cache instead


def test_a_second_start_reads_the_report_from_the_users_cache(root, cache, monkeypatch):
    first = _report(root)
    assert [p.read_text(encoding="utf-8") for p in _cached(cache)] == [first]
    _no_build(monkeypatch)
    assert _report(root) == first


def test_a_report_left_in_the_dataset_folder_is_never_served(root, cache):
    """A kept report an older war left in the folder (or anyone's, under the name it had) is
    ignored: not served, and the dataset still validates (it is war's old file)."""
    digest = site_module.manifest_digest(root)
    old_key = hashlib.sha256("\0".join((digest, "ds", report_cache.code_stamp())).encode()).hexdigest()
    (root / ".war-report").mkdir()
    planted = root / ".war-report" / f"report-{old_key}.html"
    planted.write_text(f"<html><body>{MARK}War report</body></html>", encoding="utf-8")
    page = _report(root)
    assert MARK not in page and "War report" in page
    assert planted.read_text(encoding="utf-8").count(MARK) == 1  # left as it was
    assert validate(root).ok


def test_an_edited_cache_entry_is_built_again(root, cache, monkeypatch):
    first = _report(root)
    [kept] = _cached(cache)
    kept.write_text(first.replace("</body>", f"{MARK}</body>"), encoding="utf-8")
    calls = _built(monkeypatch)
    again = _report(root)
    assert MARK not in again and calls == [1]
    assert [p.read_text(encoding="utf-8") for p in _cached(cache)] == [again]  # the entry is whole again
    kept.write_bytes(b"\xff\xfe cut short")
    assert _report(root) == again and calls == [1, 1]


def test_a_copy_of_the_dataset_gets_its_own_report(root, tmp_path, cache, monkeypatch):
    """A copy (the same manifest, another folder) is other data as far as the cache knows: it
    never reads the report of the folder it was copied from."""
    _report(root)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    calls = _built(monkeypatch)
    _report(copy, "ds")
    assert calls == [1]


def test_changed_data_is_not_served_the_report_of_the_data_before(root, cache, monkeypatch):
    """A data file changed under the same manifest (not re-signed, which is a new manifest): not
    served the kept report of the data before, but built again, and the changed file, whose
    bytes are not its manifest's, refused by the reader."""
    _report(root)
    calls = _built(monkeypatch)
    part = sorted((root / "games").rglob("*.parquet"))[0]
    pq.write_table(pq.read_table(part), part, compression="gzip")  # other bytes, its manifest as it was
    with pytest.raises(WarError, match="SHA-256 differs"):
        _report(root)
    assert calls == [1]


def test_a_cache_it_cannot_write_to_still_serves(root, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("WAR_REPORT_CACHE", str(blocker / "cache"))
    before = tree(root)
    assert "War report" in _report(root)
    assert tree(root) == before


def test_the_cache_folder_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv("WAR_REPORT_CACHE")
    monkeypatch.delenv("WAR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert report_cache.cache_folder() == tmp_path / "xdg" / "war" / "reports"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert report_cache.cache_folder() == tmp_path / "home" / ".cache" / "war" / "reports"
    monkeypatch.setenv("WAR_CACHE_DIR", str(tmp_path / "mine"))
    assert report_cache.cache_folder() == tmp_path / "mine" / "reports"


# ----------------------------------------------------------------------------- 5. lineage


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """Seeded Classic War (50 games) and every deal of a 6-card deck, its log not stored."""
    out = tmp_path_factory.mktemp("lr") / "src"
    every = build_rules("classic", {"ranks": "3", "suits": "2", "pickup": "winner_first"})
    generate(out, [Plan(build_rules("classic"), 50)] + make_plans([every], all_deals=True, log="games"), seed=11)
    return out


@pytest.fixture(scope="module")
def copied(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lr") / "copy"
    materialize(source, "game_id % 3 = 1", out)
    return out


def _lines(root: Path, ordinal: int = 0) -> list[dict]:
    return [json.loads(line) for line in (root / "seeds" / f"rule_set-{ordinal}.jsonl").read_text().splitlines()]


def _edit_lines(root: Path, ordinal: int, edit) -> None:
    path = root / "seeds" / f"rule_set-{ordinal}.jsonl"
    lines = _lines(root, ordinal)
    edit(lines)
    path.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines), encoding="utf-8")
    sign(root)


def test_a_copy_validates_and_so_does_a_copy_of_a_copy(copied, tmp_path):
    """A copy of a copy names a game of the copy, which its seed cannot say: it is held to the
    copy's own seed for that game, and taken as said once the copy is gone."""
    assert validate(copied).ok
    between = tmp_path / "between"
    shutil.copytree(copied, between)
    again = tmp_path / "again"
    materialize(between, "game_id % 2 = 0", again)
    assert any(x["from"] % 1_000_000_000 != 0 for x in _lines(again))  # not the source's own numbers
    report = validate(again)
    assert report.ok, [str(p) for p in report.problems]
    shutil.rmtree(between)
    assert validate(again).ok


@pytest.mark.parametrize("ordinal", [0, 1], ids=["seeded", "every-deal"])
def test_an_edited_and_resigned_source_game_is_named_by_validate(copied, tmp_path, monkeypatch, capsys, ordinal):
    root = tmp_path / "copy"
    shutil.copytree(copied, root)
    lines = _lines(root, ordinal)
    wrong = lines[1]["from"]  # another game of the source, which this one is not

    def edit(lines):
        lines[0]["from"] = wrong

    _edit_lines(root, ordinal, edit)
    gid = ordinal * 1_000_000_000
    text = render_text(replay_game(root, gid))
    assert f"Copied from game {wrong} " in text  # what the line says, which validation refutes
    report = validate(root)
    bad = [p for p in report.problems if p.game_id == gid]
    assert bad and "seed" in bad[0].message and str(wrong) in bad[0].message, [str(p) for p in report.problems]
    code, out, err = war(monkeypatch, capsys, "validate", root)
    assert code == 1 and f"game {gid}" in out + err


def test_an_edited_deal_index_is_named_by_validate(copied, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(copied, root)

    def edit(lines):
        lines[2]["deal_index"] = lines[3]["deal_index"]

    _edit_lines(root, 1, edit)
    report = validate(root)
    bad = [p for p in report.problems if p.game_id == 1_000_000_002]
    assert bad and "deal_index" in bad[0].message, [str(p) for p in report.problems]


def test_a_copy_of_a_copy_edited_is_named_while_its_source_is_there(copied, tmp_path):
    again = tmp_path / "again"
    materialize(copied, "game_id % 2 = 0", again)
    lines = _lines(again)
    assert len(lines) >= 3

    def edit(lines):
        lines[2]["from"] = lines[1]["from"] - 1  # a smaller game of the copy: one its seed cannot rule out

    _edit_lines(again, 0, edit)
    report = validate(again)
    assert [p.game_id for p in report.problems if "seed" in p.message] == [2], [str(p) for p in report.problems]


# ----------------------------------------------------------------------------- 18. a kept game


def test_replay_of_a_kept_game_does_not_say_it_was_copied(tmp_path, monkeypatch, capsys):
    root = tmp_path / "kept"
    rules = build_rules("classic", {"ranks": "3", "suits": "2", "pickup": "winner_first"})
    generate(root, make_plans([rules], all_deals=True, log="counts", keep="outcome = 'win' AND battles >= 3"))
    [row] = run(root, sql="SELECT game_id, deal_index FROM games ORDER BY game_id LIMIT 1").to_pylist()
    rp = replay_game(root, row["game_id"])
    text = render_text(rp)
    assert "Copied" not in text and "None" not in text and "--from" not in text
    assert "Kept by --keep \"outcome = 'win' AND battles >= 3\"" in text
    assert f"deal {row['deal_index']} of every deal of its deck" in text
    assert as_json(rp)["source"] == {"keep": "outcome = 'win' AND battles >= 3", "deal_index": row["deal_index"]}
    code, out, err = war(monkeypatch, capsys, "replay", root, row["game_id"])
    assert code == 0 and "Copied" not in out and "Kept by --keep" in out
    assert validate(root).ok
