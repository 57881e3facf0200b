"""Trump War installed as pip would install it, when it is not (war's kit does it), before
anything reads war's registry of families."""

from pathlib import Path

from pipeline.plugin import testing

testing.install(Path(__file__).resolve().parent.parent)
