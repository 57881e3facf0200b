"""Fixtures the test modules share, and the example family installed for the whole session."""

import atexit
import os
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "war-slap"


def install_example() -> None:
    """examples/war-slap installed as `pip install` would install it, before anything reads
    war's registry: its package on the path and its entry point (the one its pyproject.toml
    declares) in a dist-info folder beside it, for this process and (PYTHONPATH) the war
    processes tests start. Nothing of war changes; a session where it is installed already
    (`pip install -e examples/war-slap`) uses that."""
    from importlib.metadata import entry_points

    if any(ep.name == "slap" for ep in entry_points(group="war.families")):
        return
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site = Path(tempfile.mkdtemp(prefix="war-slap-site-"))
    atexit.register(shutil.rmtree, site, True)
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
                                   encoding="utf-8")
    groups = project["entry-points"]
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items()) + "\n"
        for group, points in groups.items()), encoding="utf-8")
    sys.path[:0] = [str(EXAMPLE), str(site)]
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXAMPLE), str(site), os.environ.get("PYTHONPATH")]))


install_example()


def own_report_cache() -> None:
    """The reports `war serve` keeps (present/report_cache.py) and the events' columnar copies
    (jobs/query/event_copies.py) in folders of the session's, for this process and the war
    processes tests start: no test reads or writes the user's (the compiled engines stay in
    war's cache). A test that needs one of its own sets WAR_REPORT_CACHE or WAR_EVENT_CACHE."""
    for variable, prefix in (("WAR_REPORT_CACHE", "war-reports-"), ("WAR_EVENT_CACHE", "war-events-")):
        folder = tempfile.mkdtemp(prefix=prefix)
        atexit.register(shutil.rmtree, folder, True)
        os.environ[variable] = folder


own_report_cache()

from browser import chromium  # noqa: E402

# A dataset written before rule set ids were versioned, of schema version 4 (fixtures/README.md).
OLD_DATASET = Path(__file__).parent / "fixtures" / "dataset-rules-id-1"


@pytest.fixture(scope="module")
def browser():
    """One Chromium for a test module's tabs; skipped on a machine without it."""
    with chromium() as b:
        yield b


@pytest.fixture
def old_dataset(tmp_path) -> Path:
    """A copy of OLD_DATASET to change."""
    root = tmp_path / "old"
    shutil.copytree(OLD_DATASET, root)
    return root
