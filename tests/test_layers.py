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


def test_a_familys_declaration_imports_only_the_model():
    """A family's declaration is data, read by the registry before any engine is imported
    (model.families): each built-in family's `__init__.py` imports only from pipeline.model
    (and its own policies), naming its engines as "module:function"."""
    import ast

    from pipeline.model.families import BUILT_IN

    for ref in BUILT_IN:
        module = ref.partition(":")[0]
        path = ROOT / (module.replace(".", "/") + "/__init__.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                absolute = node.level == 0
                name = node.module or ""
                # relative: `...model.x` climbs to pipeline (3 dots from pipeline/engines/<family>/)
                assert (absolute and name.startswith("pipeline.model")) or (node.level == 3 and name.startswith("model")), \
                    f"{path.relative_to(ROOT)} imports {'.' * node.level}{name}"
            elif isinstance(node, ast.Import):
                raise AssertionError(f"{path.relative_to(ROOT)} imports {', '.join(a.name for a in node.names)}")
