"""The package's layering (pyproject.toml's import-linter contracts): a lower layer that imports
a higher one, a reference engine that imports the compiled ones, or storage that imports an
engine or the log, fails here."""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import EXIT_STATUS_SUCCESS, lint_imports

ROOT = Path(__file__).resolve().parent.parent


def test_every_layer_contract_is_kept(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert status == EXIT_STATUS_SUCCESS, report
    assert "4 kept, 0 broken" in report
