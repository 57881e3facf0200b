"""Fixtures the test modules share."""

import pytest

from browser import chromium


@pytest.fixture(scope="module")
def browser():
    """One Chromium for a test module's tabs; skipped on a machine without it."""
    with chromium() as b:
        yield b
