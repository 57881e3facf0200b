"""A report stopped before its page is written (Ctrl-C, SIGTERM, a failure) leaves no folder of
replay pages it made: nothing links to them, and the next `war report` of the same name was
refused for them as "the replay pages of an earlier report" (hostile-l 3)."""

from __future__ import annotations

import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules
from pipeline.present import report_page
from pipeline.present.report_page import write_report


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    out = tmp_path_factory.mktemp("interrupted") / "ds"
    generate(out, [Plan(build_rules("classic"), 60)], seed=8)
    return out


def test_a_stopped_report_takes_away_the_pages_folder_it_made(root, tmp_path, monkeypatch):
    real = report_page.render_report
    started = []

    def stopped(data, *args, **kwargs):  # the pages are being written by now: Ctrl-C here
        started.append((tmp_path / "report-games").is_dir())
        raise KeyboardInterrupt

    monkeypatch.setattr(report_page, "render_report", stopped)
    with pytest.raises(KeyboardInterrupt):
        write_report(root, tmp_path / "report.html")
    assert started == [True]  # the folder was made, and is gone
    assert not (tmp_path / "report-games").exists() and not (tmp_path / "report.html").exists()
    monkeypatch.setattr(report_page, "render_report", real)
    written = write_report(root, tmp_path / "report.html")  # not refused: nothing of the stopped one is left
    assert written[0].exists() and len(written) > 1


def test_a_stopped_report_leaves_an_earlier_report_s_pages(root, tmp_path, monkeypatch):
    """With `overwrite`, the folder is the earlier report's, which still links to its pages."""
    write_report(root, tmp_path / "report.html")
    before = sorted(p.name for p in (tmp_path / "report-games").iterdir())

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report_page, "render_report", stopped)
    with pytest.raises(KeyboardInterrupt):
        write_report(root, tmp_path / "report.html", overwrite=True)
    assert sorted(p.name for p in (tmp_path / "report-games").iterdir()) == before
