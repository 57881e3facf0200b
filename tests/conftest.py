"""Fixtures the test modules share."""

import shutil
from pathlib import Path

import pytest

from browser import chromium

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
