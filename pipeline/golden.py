"""Golden playthroughs: for every registered variant, a few seeded games as readable text,
checked in under tests/golden/ (or the folder its family's declaration names, beside it:
Family.golden) and compared by a test. Rewrite them with

    python -m pipeline.golden

after a deliberate change to the engine or to replay's text, and read the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .engines.game import policy_specs
from .jobs.replay import build_replay, render_text
from .log.shard import play_range
from .model.rules import build_rules
from .model.schema import RULES_ID_VERSION, RuleSetEntry
from .model.families import beside, registry
from .model.variants import VARIANTS

SEED = 2024
CANDIDATES = 200
GAMES = 3


def golden_text(variant: str) -> str:
    """The three shortest decided games among the first 200 of seed 2024, under the variant's
    default rules, rendered as `war replay` shows them."""
    rules = build_rules(variant)
    policies = policy_specs(rules)
    entry = RuleSetEntry(ordinal=0, rules_id=rules.rules_id, rules_id_version=RULES_ID_VERSION, rules=rules, seed=SEED,
                         policies=list(policies),
                         games=CANDIDATES, shard_size=CANDIDATES)
    ids, logs, records = play_range(rules, 0, SEED, 0, CANDIDATES, policies=policies)
    order = sorted(range(CANDIDATES), key=lambda i: (records[i]["outcome"] != "win", records[i]["battles"], i))
    parts = [f"# Golden playthroughs of {variant}: the {GAMES} shortest decided games among the first "
             f"{CANDIDATES} of seed {SEED}.\n# Regenerate with: python -m pipeline.golden\n"]
    for i in sorted(order[:GAMES]):
        parts.append(render_text(build_replay(entry, records[i], logs[i])) + "\n")
    return "\n".join(parts)


def golden_dir(variant: str | None = None) -> Path:
    """The folder of a variant's golden playthroughs: the one its family names beside its
    declaration, else (and for no variant) tests/golden of this checkout."""
    family = registry().family(variant) if variant is not None else None
    if family is not None and family.golden:
        return beside(family, family.golden)
    return Path(__file__).resolve().parent.parent / "tests" / "golden"


def write_all(folder: Path | None = None) -> list[Path]:
    """Every variant's golden file, into its folder (golden_dir), or all into `folder`."""
    written = []
    for name in VARIANTS:
        path = (folder or golden_dir(name)) / f"{name}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(golden_text(name), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print(f"wrote {path}")
