"""Fixtures the test modules share, and the example family installed for the whole session."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE = EXAMPLES / "war-slap"


def install_example() -> None:
    """examples/war-slap and examples/war-trump installed as `pip install` would install them,
    before anything reads war's registry: each package on the path and its entry point (the one
    its pyproject.toml declares) in a dist-info folder beside it, for this process and
    (PYTHONPATH) the war processes tests start (pipeline.testing.install, the kit's). Nothing of
    war changes; a session where one is installed already (`pip install -e examples/war-slap`)
    uses that."""
    from pipeline import testing

    for name in ("war-slap", "war-trump"):
        testing.install(EXAMPLES / name)


install_example()


def repeatable_hypothesis() -> None:
    """Hypothesis draws the same examples every run, so a run of main fails or passes as the
    last did; `HYPOTHESIS_PROFILE=explore` draws new ones (the way a falsifying case is found,
    then kept as an @example)."""
    from hypothesis import settings

    settings.register_profile("repeatable", derandomize=True)
    settings.register_profile("explore", derandomize=False)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


repeatable_hypothesis()


def own_report_cache() -> None:
    """The reports `war serve` keeps (present/report_cache.py), the events' columnar copies
    (jobs/query/event_copies.py) and the sessions' plans (jobs/query/plan.py) in folders of the
    session's, for this process and the war processes tests start: no test reads or writes the
    user's (the compiled engines stay in war's cache). A test that needs one of its own sets
    WAR_REPORT_CACHE, WAR_EVENT_CACHE or WAR_PLAN_CACHE."""
    for variable, prefix in (("WAR_REPORT_CACHE", "war-reports-"), ("WAR_EVENT_CACHE", "war-events-"),
                             ("WAR_PLAN_CACHE", "war-plans-")):
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


def python_s_own_ctrl_c_from_the_start() -> None:
    """Python's own Ctrl-C handler in this process (each xdist worker imports this file) when it
    started with SIGINT ignored: a shell without job control starts a command put in the
    background (`pytest ... &`, `nohup ... &`) with SIGINT ignored, and Python then keeps it so.
    Every test would start with it ignored, and every war process a test starts would inherit
    it, so the tests that stop one with Ctrl-C would fail in such a run."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


python_s_own_ctrl_c_from_the_start()


@pytest.fixture(autouse=True)
def _python_s_own_ctrl_c(request):
    """Each test ends with Python's own Ctrl-C handler in place, as a new process starts with it.
    A test that leaves another (SIGINT ignored, or a library's handler) would make every later
    Ctrl-C test in its worker fail, far from the cause: the handler is put back and the test
    that left it is named in a warning."""
    import signal
    import threading
    import warnings

    yield
    if threading.current_thread() is threading.main_thread():
        left = signal.getsignal(signal.SIGINT)
        if left is not signal.default_int_handler:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            warnings.warn(f"{request.node.nodeid} left SIGINT's handler as {left!r}; Python's own put back")
