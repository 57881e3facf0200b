"""war serve keeps its report beside the dataset's journal, keyed by the manifest's checksum
(issue 46, item 8): a second start on the same data reads it instead of building it; a new
manifest (an append) gets its own, the old one removed; the kept report is war's own file, which
validation, --overwrite and outputs treat as such; a dataset the server cannot write to still
serves, building its report each start. bench/serve.py times a start of each kind."""

from __future__ import annotations

import pytest

import pipeline.present.report_cache as report_cache
import pipeline.present.site as site_module
from pipeline.errors import DatasetError
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.place import own
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules
from pipeline.present.serve import create_app
from pipeline.storage.dataset import REPORT_DIR
from pipeline.storage.files import check_output


@pytest.fixture
def root(tmp_path):
    out = tmp_path / "ds"
    generate(out, [Plan(build_rules("classic"), 60)], seed=4)
    return out


def _report(root) -> str:
    app = create_app(root, "ds")
    try:
        return app.state.site.now().report()
    finally:
        app.state.site.close()


def _kept(root) -> list:
    return sorted((root / REPORT_DIR).glob("report-*.html"))


def test_a_second_start_reads_the_kept_report(root, monkeypatch):
    first = _report(root)
    kept = _kept(root)
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == first
    digest = site_module.manifest_digest(root)
    assert kept[0].name == f"report-{report_cache.report_key(digest, 'ds')}.html"

    def no_build(*args, **kwargs):
        raise AssertionError("the report was built again")

    monkeypatch.setattr(site_module, "build_report_data", no_build)
    assert _report(root) == first
    assert _kept(root) == kept


def test_a_new_manifest_gets_its_own_report_and_the_old_one_goes(root):
    before = _report(root)
    old = _kept(root)
    generate(root, [Plan(build_rules("steal"), 20)], append=True)
    after = _report(root)
    assert after != before and "Steal War" in after
    assert len(_kept(root)) == 1 and _kept(root) != old
    # another name shown, or other code, is another key
    digest = site_module.manifest_digest(root)
    assert report_cache.report_key(digest, "ds") != report_cache.report_key(digest, "other")


def test_the_kept_report_is_wars_own_file(root, tmp_path):
    _report(root)
    rel = _kept(root)[0].relative_to(root).as_posix()
    assert own(rel) and not own(f"{REPORT_DIR}/notes.txt")
    assert validate(root).ok
    with pytest.raises(DatasetError, match="only war generate writes"):
        check_output(root / REPORT_DIR / "mine.csv")
    generate(root, [Plan(build_rules("classic"), 10)], overwrite=True)  # replaced with the rest
    assert not (root / REPORT_DIR).exists()


def test_a_dataset_it_cannot_write_to_still_serves(root, monkeypatch):
    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(report_cache, "atomic_write_bytes", refused)
    page = _report(root)
    assert "War report" in page and _kept(root) == []
