"""war serve keeps its report (issue 46, item 8), since issue 50 (item 4) in war's own cache, per
user, keyed by exactly these data and this war: a second start on the same data reads it instead
of building it; a new manifest (an append) gets its own, the old one removed; a `.war-report/`
an older war left in a dataset is still war's own name, which validation, --overwrite and outputs
treat as such; a cache the server cannot write to still serves, building its report each start.
bench/serve.py times a start of each kind. tests/test_fault_corpus_lineage_report.py holds the
faults."""

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
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("WAR_REPORT_CACHE", str(tmp_path / "cache"))
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
    return sorted(report_cache.cache_folder().glob("report-*.html"))


def test_a_second_start_reads_the_kept_report(root, monkeypatch):
    first = _report(root)
    kept = _kept(root)
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == first
    digest = site_module.manifest_digest(root)
    assert kept[0].name == f"report-{report_cache.report_key(root, digest, 'ds')}.html"
    assert not (root / REPORT_DIR).exists()

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
    assert report_cache.report_key(root, digest, "ds") != report_cache.report_key(root, digest, "other")


def test_an_old_kept_report_is_wars_own_file(root, tmp_path):
    """The `.war-report/` folder an older war kept its report in, never read now."""
    (root / REPORT_DIR).mkdir()
    rel = f"{REPORT_DIR}/report-{'0' * 64}.html"
    (root / rel).write_text("<html></html>", encoding="utf-8")
    assert own(rel) and not own(f"{REPORT_DIR}/notes.txt")
    assert validate(root).ok
    with pytest.raises(DatasetError, match="only war generate writes"):
        check_output(root / REPORT_DIR / "mine.csv")
    generate(root, [Plan(build_rules("classic"), 10)], overwrite=True)  # replaced with the rest
    assert not (root / REPORT_DIR).exists()


def test_a_cache_it_cannot_write_to_still_serves(root, monkeypatch):
    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(report_cache, "atomic_write_bytes", refused)
    page = _report(root)
    assert "War report" in page and _kept(root) == []
