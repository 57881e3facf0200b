"""A solution as data: Parquet files and a manifest of its own, `solution.json`, written last
(docs/solve.md, "The dataset"). A folder without it is unfinished.

    deals.parquet         one row a deal (deal i of model.all_deals's numbering)
    positions.parquet     one row a reached position (with --positions)
    distribution.parquet  the deck's distribution of battles: P(N = t), P(N <= t)
    solution.json         the rules, the deck's figures (fractions in full), the files and their SHA-256

Every value is a column (float64, and the exact fraction as text where solved exactly), so the
named queries (queries/solved_*.sql) are plain SQL over the files, in DuckDB as the rest of war
asks its data; folder.py reads a solution for every reader.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import DatasetError, QueryError
from ..storage.files import atomic_write_bytes, check_parents, make_folder, write_parquet
from ..storage.layout import inside_dataset, inside_refused
from .folder import FORMAT, MANIFEST, QUANTILE_COLUMNS, VIEWS, read_manifest
from .figures import deck_quantiles, positions_reached, symmetric_rows, top_cards

# The names `war solve --from PATH --query NAME` takes: each the named query solved_NAME
# (queries/solved_*.sql), which `war query PATH solved_NAME` runs as well.
QUERIES = ("deck", "deal", "by_top_cards", "distribution")


# what a solution's writer leaves in its folder: its files, and (killed mid-write) their hidden
# temporary names (storage.location.temporary_name)
WRITING = ".war-solve-writing"  # a war solve's mark while it writes the folder, gone with its manifest
OWN = re.compile(r"^\.?(%s)(\.\d+\.tmp)?$" % "|".join(re.escape(n) for n in (
    MANIFEST, WRITING.lstrip("."), *(v + ".parquet" for v in VIEWS))))


def _unfinished(path: Path) -> bool:
    """Whether the folder holds only what a solution's writer writes, with its mark and without
    its manifest: a war solve stopped (Ctrl-C, killed) before it finished, whose folder
    --overwrite may replace. A folder of the user's that holds a deals.parquet has no mark."""
    return (path / WRITING).is_file() and all(OWN.match(entry.name) and (entry.is_file() or entry.is_symlink())
                                              for entry in path.iterdir())


def check_solution_out(out, overwrite: bool, held: bool = False) -> None:
    """Refuse an --out that holds something, unless overwriting a solution (or what a war solve
    stopped before it finished left there), or one another war solve is writing."""
    path = Path(out)
    if "://" in str(out):
        raise DatasetError("`out` of war solve is a local folder", params=("out",))
    if path.exists() and not path.is_dir():
        raise DatasetError(f"{out!r} is a file; give a folder", params=("out",))
    check_parents(out, "out")  # a folder of its path that is a file: said before the solve, not after it
    found = inside_dataset(out, "out")
    if found is not None:  # a later run of that dataset would remove it (its journal) or list it as a stray
        raise DatasetError(inside_refused(out, "out", found, "folder"), params=("out",))
    if path.is_dir() and any(path.iterdir()):
        if not held:  # the folder's lock, unless its caller holds it (write_solution)
            with _writing(path, out):
                pass
        finished = (path / MANIFEST).is_file()
        if not finished and not _unfinished(path):
            raise DatasetError(f"{out!r} holds something other than a solution; not replaced", params=("out",))
        if not overwrite:
            what = "a solution" if finished else "an unfinished solution (a war solve stopped before it finished)"
            raise DatasetError(f"{str(out)!r} is not empty: it holds {what}; give --overwrite to replace it", params=("out",))


@contextmanager
def _writing(path: Path, out):
    """Hold the folder's lock (a flock of the folder itself: no file of its own) for the block:
    a second war solve into the same folder is refused rather than mixing its files with the
    first's."""
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DatasetError(f"{str(out)!r} is being written by another war solve; wait for it, or choose another "
                               f"--out", params=("out",)) from None
        yield
    finally:
        os.close(fd)  # the flock ends with it


def _fractions(values) -> pa.Array:
    return pa.array([None if v is None else str(v) for v in values], pa.string())


def _value_columns(solution, rows: np.ndarray, flips: np.ndarray) -> dict:
    """The values of some rows, each of the row's twin where `flips` says (solver.Solution.at)."""
    def at(name):
        return solution.at(name, rows, flips)

    cols = {
        "p_win0": at("p_win0"), "p_win1": at("p_win1"), "p_draw": at("p_draw"),
        "mean_battles": at("battles"), "mean_laid": at("laid"), "p_capped": at("over_cap"),
        "battles_bound": at("battles_bound"),
    }
    for j, name in enumerate(QUANTILE_COLUMNS):
        cols[name] = pa.array(solution.quantiles[rows, j], pa.int64())
    cols["never_ends"] = solution.never_ends[rows]
    cols["may_not_end"] = solution.may_not_end[rows]
    if solution.exact is not None:
        for name in solution.exact:
            column = {"battles": "mean_battles", "laid": "mean_laid"}.get(name, name)
            cols[f"exact_{column}"] = _fractions(solution.exact_at(name, rows, flips))
        # P(draw) = 1 less the two wins where the game surely ends (its E[battles] is finite)
        ends = solution.exact_at("battles", rows, flips)
        cols["exact_p_draw"] = _fractions(None if n is None else 1 - w0 - w1 for n, w0, w1 in zip(
            ends, solution.exact_at("p_win0", rows, flips), solution.exact_at("p_win1", rows, flips)))
    return cols


def _indices(chain, rows, flips) -> np.ndarray:
    """The position index of each row, or of its twin where `flips` says."""
    from .chain import twin_indices

    index = chain.ids[rows]
    if np.any(flips):
        index = index.copy()
        index[flips] = twin_indices(index[flips], chain.counts, chain.sequences, chain.cards)
    return index


def _ranks(pile) -> str:
    return " ".join(map(str, pile))


def write_solution(out, solution, positions: bool = False, overwrite: bool = False) -> str:
    """Write the solution's dataset into the folder `out`; what was written, said in a few words."""
    check_solution_out(out, overwrite)
    root = Path(out)
    make_folder(root)
    with _writing(root, out):
        check_solution_out(out, overwrite, held=True)  # again, under the lock: a writer that finished meanwhile
        return _write(root, solution, positions)


def _write(root: Path, solution, positions: bool) -> str:
    manifest = root / MANIFEST
    if manifest.exists():
        manifest.unlink()  # unfinished from here until it is written again, last
    for entry in root.iterdir():  # a killed writer's temporary files (none of a live one: the lock)
        if entry.name.startswith(".") and OWN.match(entry.name) and entry.name != WRITING:
            entry.unlink(missing_ok=True)
    (root / WRITING).touch()  # the folder is war solve's until its manifest is written
    chain = solution.chain
    files = []
    deals = np.arange(len(chain.deal_rows), dtype=np.int64)
    rows, flips = chain.deal_rows.astype(np.int64), chain.deal_flips
    dealt = [chain.position(r, f) for r, f in zip(rows.tolist(), flips.tolist())]
    table = pa.table({"deal": deals, "position": _indices(chain, rows, flips), "top_cards": top_cards(solution),
                      "pile0": pa.array([_ranks(p[0]) for p in dealt]), "pile1": pa.array([_ranks(p[1]) for p in dealt]),
                      **_value_columns(solution, rows, flips)})
    files.append(("deals.parquet", write_parquet(table, root / "deals.parquet", sort_key=("deal",)), table.num_rows))
    if positions:  # every position reached: each row and its twin (a symmetric one once), by index
        every = np.arange(chain.rows, dtype=np.int64)
        twins = every[~symmetric_rows(chain)] if chain.halved else every[:0]
        rows = np.concatenate([every, twins])
        flips = np.concatenate([np.zeros(every.size, np.bool_), np.ones(twins.size, np.bool_)])
        index = _indices(chain, rows, flips)
        order = np.argsort(index, kind="stable")
        rows, flips, index = rows[order], flips[order], index[order]
        piles = [chain.position(r, f) for r, f in zip(rows.tolist(), flips.tolist())]
        table = pa.table({"position": index, "pile0": pa.array([_ranks(p[0]) for p in piles]),
                          "pile1": pa.array([_ranks(p[1]) for p in piles]), **_value_columns(solution, rows, flips)})
        files.append(("positions.parquet", write_parquet(table, root / "positions.parquet", sort_key=("position",)),
                      table.num_rows))
    elif (root / "positions.parquet").exists():
        (root / "positions.parquet").unlink()
    cdf = solution.cdf
    table = pa.table({"battles": np.arange(len(cdf), dtype=np.int64), "p": np.diff(cdf, prepend=0.0), "cdf": cdf})
    files.append(("distribution.parquet", write_parquet(table, root / "distribution.parquet", sort_key=("battles",)),
                  table.num_rows))
    deck = solution.deck()
    body = {
        "format": FORMAT, "rules": chain.rules.model_dump(mode="json"), "rules_label": chain.rules.label,
        "cards": chain.cards, "deals": len(chain.deal_rows), "positions": positions_reached(chain),
        "moves": int(chain.succ.shape[0]),
        # `bound` on each chance as written (a float's rounding where they are the fractions'
        # values), `distribution_bound` on what only the iteration gives: P(capped), the distribution
        "sweeps": solution.sweeps, "bound": solution.chances_bound, "distribution_bound": solution.bound,
        "exact": solution.exact is not None,
        "deck": {k: (str(v) if v is not None and not isinstance(v, float) else v) for k, v in deck.items()},
        "quantiles": {str(q): t for q, t in deck_quantiles(solution.cdf).items()},
        "files": [{"path": p, "sha256": h, "rows": n} for p, h, n in files],
    }
    atomic_write_bytes(manifest, (json.dumps(body, indent=1, sort_keys=True) + "\n").encode(), dataset=True)
    (root / WRITING).unlink(missing_ok=True)
    return ", ".join(f"{p} ({n:,} rows)" for p, _, n in files)


def solution_query(path, name: str, deal: int | None = None) -> pa.Table:
    """A named query of a solution, by its short name (QUERIES: `war solve --from PATH --query
    NAME`): the named query solved_NAME over the solution, as `war query PATH solved_NAME` runs
    it; a pyarrow Table."""
    from ..jobs.query import run

    body = read_manifest(path)
    if name not in QUERIES:
        raise QueryError(f"no query `{name}` of a solution: {', '.join(QUERIES)}", params=("query",))
    if name == "deal" and deal is None:
        raise QueryError("the query deal needs --deal I", params=("deal",))
    if name == "deal" and not 0 <= deal < body["deals"]:
        raise QueryError(f"deal {deal} is not a deal of this deck: its deals are 0 .. {body['deals'] - 1:,}",
                         params=("deal",))
    return run(path, name=f"solved_{name}", params={"deal": str(deal)} if name == "deal" else None)
