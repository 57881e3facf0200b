"""A report and a home page for every kind of dataset (issue 51, item 2): the games table alone
(`--log games`), counts of every deal (`--log counts`, with and without `--keep`), a dataset
mixing rule sets with and without their log, and a plugin's (examples/war-slap, installed by
conftest.py). Each gets `war report` (exit 0) and `war serve`'s home page (200), and the page
says in one line what it left out and why: the sections that read what the dataset does not
store."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from servekit import raw_get, war_serve

SMALL_DECK = ["--set", "ranks=3", "--set", "suits=2", "--set", "pickup=natural", "--set", "war_down=0"]

# Each kind: how it is generated (one `war generate` a list), and what its line of what is left out says.
KINDS = {
    "games": ([["-v", "classic", "-v", "steal", "--games", "50", "--log", "games"]],
              ["stores no event log (<code>--log games</code>)", "steals", "deal_win_rate", "left out"]),
    "counts": ([[*SMALL_DECK, "--all-deals", "--log", "counts"]],
               ["stores counts of its deals (<code>--log counts</code>)", "no games rows", "exact results"]),
    "counts_keep": ([[*SMALL_DECK, "--all-deals", "--log", "counts", "--keep", "battles > 3"]],
                    ["stores counts of its deals (<code>--log counts</code>)", "games rows <code>--keep</code> chose",
                     "exact results"]),
    "mixed": ([["-v", "classic", "--games", "50"], ["--append", "-v", "steal", "--games", "50", "--log", "games"]],
              ["Rule set steal stores no event log", "steals", "have no rows of it"]),
    "plugin": ([["-v", "slap", "--games", "50", "--log", "games"]],
               ["stores no event log (<code>--log games</code>)", "slaps", "left out"]),
}


def war(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("every")
    out = {}
    for kind, (runs, _) in KINDS.items():
        root = base / kind
        for args in runs:
            done = war("generate", *args, "--seed", "5", "--out", str(root), "-q")
            assert done.returncode == 0, done.stderr
        out[kind] = root
    return out


def left_out(page: str) -> str:
    lines = re.findall(r'<p class="lead left-out"[^>]*>(.*?)</p>', page, re.S)
    assert len(lines) == 1, "the page says in one line what it left out"
    return html.unescape(lines[0]).replace("&#39;", "'")


@pytest.mark.parametrize("kind", list(KINDS))
def test_war_report_reports_every_kind_of_dataset(datasets, kind, tmp_path):
    out = tmp_path / "report.html"
    done = war("report", str(datasets[kind]), "--output", str(out), "-q")
    assert done.returncode == 0, done.stderr
    said = left_out(out.read_text(encoding="utf-8"))
    for words in KINDS[kind][1]:
        assert html.unescape(words) in said, (words, said)


@pytest.mark.parametrize("kind", list(KINDS))
def test_war_serve_home_page_is_the_report_of_every_kind(datasets, kind):
    with war_serve(datasets[kind], "-q") as (url, _):
        status, body = raw_get(url, "/")
        assert status == 200, body[:300]
        said = left_out(body.decode("utf-8"))
        assert html.unescape(KINDS[kind][1][0]) in said
