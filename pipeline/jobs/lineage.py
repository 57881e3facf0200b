"""Where a game comes from, when it was taken from another dataset (`war generate --from`): the
dataset as given then (RuleSetEntry.source), the game's game_id there and its deal_index where it
had one, all kept in the rule set's seeds file (Dataset.lineage), which replay and the games
view read. A game kept by `--keep` (`--log counts`) has a seeds file too, with its deal_index
and no source game: it was played here, not copied.

The seed says which game a taken game is: game i of a dataset of master seed S has the seed
SplitMix64(S)'s output i + 1 (docs/rules.md, Randomness), and a copy keeps its source's master
seed, so its seed gives i back (seed_index), and the deal of every deal that game i plays is
deal i. Validation holds each line to it (lineage_problems).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import WarError
from ..model.rng import GOLDEN, MASK
from ..model.schema import GAME_ID_STRIDE, RuleSetEntry
from ..storage.dataset import Dataset
from ..storage.location import is_remote

if TYPE_CHECKING:
    from .validate_files import Problem

_GOLDEN_INVERSE = pow(GOLDEN, -1, 1 << 64)
_MIX_INVERSES = (pow(0xBF58476D1CE4E5B9, -1, 1 << 64), pow(0x94D049BB133111EB, -1, 1 << 64))


def source_of(ds: Dataset, entry: RuleSetEntry, game_id: int) -> dict | None:
    """Where game `game_id` of rule set `entry` comes from: {"dataset" (None in a manifest written
    before it was kept), "game_id", "deal_index" (or None)} for a game taken by `--from`;
    {"keep", "deal_index"} for a game kept by `--keep`; None for a game played here."""
    if entry.seeds is None:
        return None
    [(game, deal)] = ds.lineage(entry, [game_id - entry.ordinal * GAME_ID_STRIDE])
    if game is None:
        return {"keep": entry.keep, "deal_index": deal} if entry.keep is not None else None
    return {"dataset": entry.source, "game_id": game, "deal_index": deal}


def source_line(source: dict) -> str:
    """The source of a taken game in words: `Copied from game 17 of data/classic (war generate
    --from), deal 139059 of every deal of its deck`; of a kept one: `Kept by --keep "battles > 40"
    (war generate --log counts), deal 139059 of every deal of its deck`."""
    deal = f", deal {source['deal_index']} of every deal of its deck" if source.get("deal_index") is not None else ""
    if "keep" in source:
        return f"Kept by --keep \"{source['keep']}\" (war generate --log counts){deal}"
    where = f" of {source['dataset']}" if source.get("dataset") else " of the dataset it was taken from"
    return f"Copied from game {source['game_id']}{where} (war generate --from){deal}"


def _unmix(z: int) -> int:
    """The inverse of model.rng's _mix."""
    z ^= (z >> 31) ^ (z >> 62)
    z = (z * _MIX_INVERSES[1]) & MASK
    z ^= (z >> 27) ^ (z >> 54)
    z = (z * _MIX_INVERSES[0]) & MASK
    return z ^ (z >> 30) ^ (z >> 60)


def seed_index(master_seed: int, seed: int) -> int | None:
    """The i for which `seed` is game_seed(master_seed, i), the game index a seed names; None
    when it names no game a rule set can have."""
    i = ((_unmix(seed & MASK) - master_seed) * _GOLDEN_INVERSE - 1) & MASK
    return i if i < GAME_ID_STRIDE else None


def lineage_problems(ds: Dataset, entry: RuleSetEntry, seeds: list[int]) -> list[Problem]:
    """Each game of a rule set with a seeds file whose lineage its seed refutes, named: a
    deal_index that is not the deal its seed's game plays, a seed that is no game's of the master
    seed, or a source game (`from`) that is not the game its seed names. A source game earlier
    than that can be right only for a game its source had itself taken (a copy of a copy, or of
    a game kept by --keep): it is held to the source's own seed for it when the source can be
    read, and taken as said when it cannot, or when the source holds none of them as they were
    taken (rewritten since: the copy's games were blamed for its source's change)."""
    from .validate_files import Problem  # here: validate_files brings numba, which a replay does without

    try:
        pairs = ds.lineage(entry, range(entry.games))
    except WarError as err:
        return [Problem(entry.seeds, None, None, str(err))]
    master = ds.manifest.master_seed
    base = entry.ordinal * GAME_ID_STRIDE
    problems = []
    parent: list = []  # the source, opened once when a line needs it: [Dataset or None]
    refuted, agreed = [], 0  # lines its source holds to another seed, and lines it holds as said
    for n, ((game, deal), seed) in enumerate(zip(pairs, seeds)):
        if game is None and deal is None:
            continue
        i = seed_index(master, seed)
        said = f"from game {game}" if game is not None else f"deal_index {deal}"
        if i is None:
            why = f"{said}, but its seed {seed} is no game's of master seed {master}"
        elif deal is not None and deal != i:
            why = f"deal_index {deal}, but its seed is game {i}'s of master seed {master}, which plays deal {i}"
        elif game is None or game % GAME_ID_STRIDE == i:
            continue
        elif game % GAME_ID_STRIDE > i:
            why = f"from game {game} of {entry.source or 'its source'}, but its seed is game {i}'s of master seed {master}"
        elif not _source_agrees(entry, parent, game, seed):
            refuted.append(Problem(entry.seeds, base + n, None, (
                f"lineage (line {n + 1}): from game {game} of {entry.source}, but its seed is game {i}'s of master "
                f"seed {master}, and that source's game has another seed")))
            continue
        else:
            agreed += parent[0] is not None
            continue
        problems.append(Problem(entry.seeds, base + n, None, f"lineage (line {n + 1}): {why}"))
    # a source that holds none of the games as they were taken was rewritten since (`--overwrite`):
    # it says nothing of them, as a source that cannot be read says nothing; one that holds some of
    # them refutes the others
    return problems + (refuted if agreed else [])


def _source_agrees(entry: RuleSetEntry, parent: list, game: int, seed: int) -> bool:
    """Whether the source's game `game` has `seed`; True when the source cannot be read."""
    if not parent:
        opened = None
        if entry.source and not is_remote(entry.source):
            try:
                opened = Dataset.open(entry.source)
            except (WarError, OSError, ValueError):
                opened = None
        parent.append(opened)
    source = parent[0]
    if source is None:
        return True
    try:
        found, _, _ = source.locate(game)
        return source.game_seed(found, game - found.ordinal * GAME_ID_STRIDE) == seed
    except (WarError, OSError, ValueError):
        return False
