"""`war report`'s output checked as a user meets it (/work/runs/hostile-c.md 7, 8): a folder given
as the report is refused as a folder, before any replay page is written, and a dataset that is not
one is said before an old report.html in the way."""

from __future__ import annotations

import pytest

from pipeline.errors import DatasetError, ReportError
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.model.rules import build_rules
from pipeline.present.report_page import write_report

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep") / "ds"
    generate(out, [Plan(build_rules("classic"), 30)], seed=2)
    return out


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_folder_as_the_report_is_refused_as_one_and_nothing_is_written(root, tmp_path, overwrite):
    """It was refused as existing (advising --overwrite), then with --overwrite as a folder,
    after its replay pages were written beside it."""
    folder = tmp_path / "charts"
    folder.mkdir()
    with pytest.raises(ReportError, match="'.*charts' is a folder; give the report a file name"):
        write_report(root, folder, overwrite=overwrite)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["charts"]


def test_a_missing_dataset_is_said_before_an_old_report_in_the_way(root, tmp_path):
    page = tmp_path / "report.html"
    write_report(root, page)
    before = page.read_bytes()
    with pytest.raises(DatasetError, match="no dataset at"):
        write_report(tmp_path / "no-such", page)
    assert page.read_bytes() == before


def test_overwrite_leaves_no_page_of_an_earlier_report_beside_it(root, tmp_path):
    """`--overwrite` kept the earlier dataset's replay pages in the folder the README says to mail
    with the page; war's own page names go, anything else stays."""
    page = tmp_path / "shared.html"
    folder = tmp_path / "shared-games"
    folder.mkdir()
    (folder / "987654.html").write_text("an earlier report's page", encoding="utf-8")
    (folder / "notes.html").write_text("mine", encoding="utf-8")
    written = write_report(root, page, overwrite=True)
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted([p.name for p in written[1:]] + ["notes.html"]) and "987654.html" not in names


def test_a_report_named_with_a_hash_links_its_pages(root, tmp_path):
    """`run#2.html` linked `run#2-games/0.html`, which a browser reads as the page `run` and a
    fragment: the folder's name is percent-encoded in every link."""
    import re
    from urllib.parse import unquote

    page = tmp_path / "run#2.html"
    written = write_report(root, page)
    links = set(re.findall(r'href="([^"]*-games/[^"]*)"', page.read_text(encoding="utf-8")))
    assert links and all(link.startswith("run%232-games/") for link in links), links
    assert {tmp_path / unquote(link) for link in links} <= set(written[1:])


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_charts_of_a_dataset_of_counts_are_refused_in_one_line(tmp_path, monkeypatch, capsys, fmt):
    """A dataset of counts alone (`--log counts`) has no games rows for a chart: `--format svg`
    wrote "wrote 0 charts", exit 0, and an empty folder. It says why, writes nothing, exits non-zero."""
    from clikit import run_main as war

    counted = tmp_path / "counted"
    generate(counted, make_plans([build_rules("classic", {"ranks": 4, "suits": 2, "pickup": "natural", "war_down": 0})],
                                 all_deals=True, log="counts"), seed=0)
    folder = tmp_path / "charts"
    code, out, err = war(monkeypatch, capsys, "report", counted, "--format", fmt, "-o", folder, "-q")
    assert code != 0 and out == ""
    [line] = err.splitlines()
    assert line == (f"error: {str(counted)!r} has no charts to write: it stores counts of its deals (--log counts), "
                    "no games rows, and every chart draws a sample of games rows; the HTML report (--format html) "
                    "shows what its counts answer"), line
    assert not folder.exists()
