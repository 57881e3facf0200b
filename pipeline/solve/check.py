"""`war validate` of a solution folder: its manifest and checksums, then its values against the
game itself.

The chain is built again from the manifest's rules (solver.build_chain: each position's battle
played as the engine plays it). With the positions stored (`--positions`), a sample of them
(every one with `deep`) is checked by its balance equation: its values are those of its battle,
an end's or the mean of its successors' stored values plus what the battle adds. The equations
have one solution, so values that satisfy them all are the solution: exact fractions must
satisfy them exactly, floats within their stated bounds. Every deal must hold its position's
values. Without the positions, the chain is solved again in floats and every deal compared with
it within both bounds. The deck's figures in the manifest must be the mean of its deals (exactly,
in fractions), and the distribution of battles a distribution. Each problem is one line that
names its file, deal or position and value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import DatasetError
from .folder import MANIFEST, QUANTILE_COLUMNS, QUANTILES, VIEWS, distribution_bound, read_manifest, rules_of, sha256

SAMPLE = 2000  # positions checked by their balance equations, unless `deep`
CHANCES = ("p_win0", "p_win1", "p_draw")
MEANS = ("mean_battles", "mean_laid")
NEEDED = ("deal", "position", *CHANCES, *MEANS, "never_ends", "may_not_end")
EXACT = ("exact_p_win0", "exact_p_win1", "exact_p_draw", "exact_mean_battles", "exact_mean_laid")
SHOWN = ("p_capped", "battles_q50", "battles_q90", "battles_q99", "never_ends")  # a deal's, its position's too


@dataclass
class SolutionReport:
    """What `war validate` found in a solution: `problems` (one line each), what was checked."""

    deals: int = 0
    positions: int = 0  # checked by their balance equations
    reached: int = 0  # positions stored
    exact: bool = False
    resolved: bool = False  # the chain was solved again (no positions stored)
    bound: float = 0.0  # the stated bound floats were held to (not an exact solution's: their own rounding)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        how = (f"{self.positions:,} of {self.reached:,} positions by their balance equations"
               + (" (exact fractions)" if self.exact else f" (floats, within their stated bound {self.bound:.2g})")) if not self.resolved else \
            "every deal against the chain solved again in floats (no positions stored: --positions)"
        verdict = "good" if self.ok else f"{len(self.problems):,} problem{'s' if len(self.problems) != 1 else ''}"
        return f"solution checked: {self.deals:,} deals, {how}: {verdict}"


def validate_solution(root, deep: bool = False, sample: int = SAMPLE) -> SolutionReport:
    """Check the solution at `root` (the module's docstring)."""
    import pyarrow.parquet as pq

    body = read_manifest(root)
    report = SolutionReport(exact=bool(body["exact"]), bound=float(body["bound"]))
    tables = {}
    for f in body["files"]:
        path = Path(root) / f["path"]
        if path.is_symlink() or not path.is_file():
            report.problems.append(f"{f['path']}: missing or not a plain file")
            continue
        if sha256(path) != f["sha256"]:
            report.problems.append(f"{f['path']}: its SHA-256 is not the one {MANIFEST} gives (changed since war solve "
                                   f"wrote it)")
        try:
            table = pq.read_table(path)
        except Exception as err:  # pyarrow's errors have no common base
            report.problems.append(f"{f['path']}: not readable as Parquet ({str(err).splitlines()[0][:120]})")
            continue
        if table.num_rows != f["rows"]:
            report.problems.append(f"{f['path']}: {table.num_rows:,} rows, {MANIFEST} says {f['rows']:,}")
        tables[f["path"].removesuffix(".parquet")] = table
    for view in ("deals", "positions"):
        if view in tables:
            needed = (*NEEDED[1:], "pile0", "pile1", "battles_bound") if view == "positions" else (*NEEDED, "battles_bound")
            missing = [c for c in needed if c not in tables[view].column_names]
            if missing:
                report.problems.append(f"{view}.parquet: no column {missing[0]}")
                tables.pop(view)
            elif not _fractions(view, tables[view], report, body):
                tables.pop(view)
    if "deals" not in tables:
        return report
    has = [c for c in EXACT if c in tables["deals"].column_names]
    if report.exact != bool(has):  # readers ask the exact columns by the manifest's word
        report.problems.append(f"{MANIFEST}: exact {str(report.exact).lower()}, but deals.parquet has "
                               f"{'no exact_* column' if not has else 'exact_* columns'}")
        return report
    deals = tables["deals"].to_pydict()
    report.deals = len(deals["deal"])
    wrong = next((i for i, d in enumerate(deals["deal"]) if d != i), None)
    if wrong is not None:  # a reader asks a deal by its number (solved_deal)
        report.problems.append(f"deals.parquet: row {wrong} holds deal {deals['deal'][wrong]}, not deal {wrong} "
                               f"(the deals are 0 .. {report.deals - 1:,} in order)")
    _deck(body, deals, report)
    if "distribution" in tables:
        _distribution(body, tables["distribution"].to_pydict(), report)
    from .solver import build_chain

    rules = rules_of(body)
    chain = build_chain(rules)
    if len(chain.deal_rows) != report.deals or body["deals"] != report.deals:
        report.problems.append(f"deals.parquet: {report.deals:,} deals; the rules' deck has {len(chain.deal_rows):,} "
                               f"({MANIFEST} says {body['deals']:,})")
        return report
    _manifest(body, rules, chain, report)
    starts = [_index(chain, r, f) for r, f in zip(chain.deal_rows.tolist(), chain.deal_flips.tolist())]
    for d, (stored, index) in enumerate(zip(deals["position"], starts)):
        if stored != index:
            report.problems.append(f"deal {d}: position {stored}, but the deal starts at position {index}")
            return report
    _dealt(chain, deals, report)
    _capped(rules, deals, report)
    if "positions" in tables:
        _balance(body, chain, deals, tables["positions"].to_pydict(), report, deep, sample)
    else:
        _resolve(body, chain, deals, report)
    return report


def _fractions(view: str, table, report: SolutionReport, body: dict | None = None) -> bool:
    """Whether every exact_* value of the view reads as a fraction (else one problem, and the
    view is not read further), each row's float is its fraction's value within the bound the
    manifest states (`bound` on a chance, the row's battles_bound, the deck's laid_bound), and
    each row's exact_p_draw is 1 less its two wins where its game surely ends (a finite exact
    E[battles]), none where it may not."""
    columns = {c: table.column(c).to_pylist() for c in EXACT if c in table.column_names}
    read = {}
    for name, texts in columns.items():
        values = []
        for i, text in enumerate(texts):
            try:
                values.append(None if text is None else Fraction(text))
            except (ValueError, ZeroDivisionError, TypeError):
                report.problems.append(f"{view}.parquet: row {i}'s {name} {text!r} is not a fraction")
                return False
        read[name] = values
    if body is not None and body.get("exact"):
        said = _floats_off(view, table, read, body)
        if said:
            report.problems.append(said)
    if not {"exact_p_win0", "exact_p_win1", "exact_p_draw", "exact_mean_battles"} <= set(read):
        return True
    for i, (w0, w1, draw, n) in enumerate(zip(read["exact_p_win0"], read["exact_p_win1"], read["exact_p_draw"],
                                              read["exact_mean_battles"])):
        want = None if n is None or w0 is None or w1 is None else 1 - w0 - w1
        if draw != want:
            report.problems.append(f"{view}.parquet: row {i}'s exact_p_draw {draw} is not 1 less its two wins ({want})")
            return True
    return True


def _floats_off(view: str, table, read: dict, body: dict) -> str | None:
    """The first float of the view that is not its exact fraction's value within the stated
    bound, said in a line (a solution marked exact writes the fractions' values; docs/solve.md,
    "Error bound"); None if none."""
    for name, fractions in read.items():
        column = name.removeprefix("exact_")
        if column not in table.column_names:
            continue
        floats = table.column(column).to_pylist()
        for i, (got, want) in enumerate(zip(floats, fractions)):
            if want is None or got is None:
                continue
            value = float(want)
            # a fraction written as a float is rounded once: its own rounding is the bound, not
            # one the manifest states (which an edit could raise with the values)
            slack = float(np.spacing(abs(value)))
            if not abs(got - value) <= slack:
                return (f"{view}.parquet: row {i}'s {column} {got!r} is not its exact fraction's value {value!r} "
                        f"(off by {abs(got - value):.3g}, bound {slack:.2g})")
    return None


def _manifest(body: dict, rules, chain, report: SolutionReport) -> None:
    """The manifest's figures of the chain (which the deck view shows) are the chain's."""
    from .figures import positions_reached

    for key, want in (("cards", chain.cards), ("positions", positions_reached(chain)),
                      ("moves", int(chain.succ.shape[0])), ("rules_label", rules.label)):
        if key in body and body[key] != want:
            report.problems.append(f"{MANIFEST}: {key} {body[key]!r}, but the rules' chain has {want!r}")


def _dealt(chain, deals: dict, report: SolutionReport) -> None:
    """Each deal's piles (pile0, pile1) and top_cards are those of the position it starts at."""
    top = len(chain.counts) - 1
    for d, (row, flip) in enumerate(zip(chain.deal_rows.tolist(), chain.deal_flips.tolist())):
        piles = chain.position(row, flip)
        said = (" ".join(map(str, piles[0])), " ".join(map(str, piles[1])))
        if (deals["pile0"][d], deals["pile1"][d]) != said:
            report.problems.append(f"deal {d}: piles {deals['pile0'][d]!r} | {deals['pile1'][d]!r}, but the deal "
                                   f"deals {said[0]!r} | {said[1]!r}")
            return
        held = sum(1 for r in piles[0] if r == top)
        if "top_cards" in deals and deals["top_cards"][d] != held:
            report.problems.append(f"deal {d}: top_cards {deals['top_cards'][d]!r}, but seat 0 is dealt {held} "
                                   f"of the top rank")
            return


def _capped(rules, deals: dict, report: SolutionReport) -> None:
    """Each deal's quantiles of N rise (q50 <= q90 <= q99, -1 for one past the sweeps), and its
    P(capped) = P(N > max_battles) lies on the side of each the quantiles say: over 1 - q where
    the q-quantile is past max_battles, at most 1 - q where it is not."""
    if not all(n in deals for n in QUANTILE_COLUMNS) or "p_capped" not in deals:
        return
    cap = rules.max_battles
    for d, capped in enumerate(deals["p_capped"]):
        qs = [deals[n][d] for n in QUANTILE_COLUMNS]
        unknown = next((i for i, q in enumerate(qs) if q == -1), len(qs))  # past the sweeps from here on
        if any(q is None or q < -1 for q in qs) or qs[:unknown] != sorted(qs[:unknown]) or \
                any(q != -1 for q in qs[unknown:]):
            report.problems.append(f"deal {d}: its quantiles of battles {qs} do not rise (-1: past the sweeps)")
            return
        for level, q in zip(QUANTILES, qs):
            if q < 0:
                continue
            past = q > cap  # P(N <= cap) < level
            if past != (capped > 1 - level) and abs(capped - (1 - level)) > 1e-9:
                report.problems.append(f"deal {d}: P(capped) {capped!r} with its {int(level * 100)}% quantile "
                                       f"at {q:,} battles and max_battles {cap:,}: P(N > {cap:,}) must be "
                                       f"{'over' if past else 'at most'} {1 - level:g}")
                return


def _index(chain, row: int, flip: bool) -> int:
    from .chain import twin_index

    index = int(chain.ids[row])
    return int(twin_index(index, chain.counts, chain.sequences, chain.cards)) if flip else index


def _values(table: dict, i: int, exact: bool) -> dict:
    """Row i's values: floats, and Fractions under exact_NAME where solved exactly."""
    out = {name: table[name][i] for name in (*CHANCES, *MEANS, "battles_bound", "may_not_end")}
    if exact:
        for name in ("p_win0", "p_win1", "mean_battles", "mean_laid"):
            text = table.get(f"exact_{name}", [None] * (i + 1))[i]
            out[f"exact_{name}"] = None if text is None else Fraction(text)
    return out


def _deck(body: dict, deals: dict, report: SolutionReport) -> None:
    """The manifest's deck figures are the mean of the deals' (floats closely, fractions exactly)."""
    deck, n = body["deck"], len(deals["deal"])
    for column, key in (("p_win0", "p_win0"), ("p_win1", "p_win1"), ("p_draw", "p_draw"),
                        ("mean_battles", "battles"), ("mean_laid", "laid"), ("p_capped", "over_cap")):
        if column not in deals or key not in deck:
            continue
        mean = float(np.mean(np.asarray(deals[column], np.float64)))
        if not np.isclose(mean, deck[key], rtol=1e-12, atol=1e-14) and not (np.isinf(mean) and np.isinf(deck[key])):
            report.problems.append(f"{MANIFEST}: the deck's {key} {deck[key]!r} is not the mean of the deals' "
                                   f"{column} ({mean!r})")
        exact = deck.get(f"exact_{key}")
        if report.exact and exact is not None and f"exact_{column}" in deals:
            values = deals[f"exact_{column}"]
            if all(v is not None for v in values) and sum(map(Fraction, values), Fraction(0)) / n != Fraction(exact):
                report.problems.append(f"{MANIFEST}: the deck's exact {key} is not the mean of the deals' "
                                       f"exact_{column}")


def _distribution(body: dict, dist: dict, report: SolutionReport) -> None:
    """The distribution of battles: t = 0 .. sweeps in order, rising to 1; the manifest's
    quantiles read from it."""
    from .figures import deck_quantiles

    cdf = np.asarray(dist["cdf"], np.float64)
    if list(dist["battles"]) != list(range(len(cdf))):
        report.problems.append("distribution.parquet: its battles are not 0, 1, 2 ... in order")
    elif len(cdf) != body["sweeps"] + 1:
        report.problems.append(f"distribution.parquet: {len(cdf):,} rows, but {MANIFEST} says {body['sweeps']:,} "
                               f"sweeps (t = 0 .. sweeps)")
    quantiles = {str(q): t for q, t in deck_quantiles(cdf).items()}
    if body.get("quantiles") != quantiles:
        report.problems.append(f"{MANIFEST}: quantiles {body.get('quantiles')!r} are not the distribution's "
                               f"{quantiles!r}")
    p = np.asarray(dist["p"], np.float64)
    slack = distribution_bound(body) + 1e-12
    if cdf.size and (np.any(np.diff(cdf) < -1e-15) or cdf.min() < 0 or cdf.max() > 1 + slack
                     or not np.allclose(np.cumsum(p), cdf, atol=1e-12)):
        report.problems.append("distribution.parquet: not a distribution (P(N <= t) must rise from 0 to 1, "
                               "the sum of P(N = t))")
    elif cdf.size and cdf[-1] < 1 - slack - max(body["deck"].get("over_cap", 0.0), 0.0) - 1e-9:
        report.problems.append(f"distribution.parquet: its mass ends at {cdf[-1]!r}, short of 1 by more than "
                               f"the bound")
    elif cdf.size:
        deck = body["deck"]
        # E[min(N, T)] is the sum of P(N > t) for t < T, and E[N] exceeds it by E[(N - T)+], within
        # the deck's bound on E[N]: mass moved between lengths moves the mean
        below = float(np.sum(1.0 - cdf[:-1]))
        if np.isfinite(deck["battles"]) and not abs(deck["battles"] - below) <= (
                deck["battles_bound"] + cdf.size * slack + 1e-9 * (1 + abs(deck["battles"]))):
            report.problems.append(f"distribution.parquet: its mean, {below!r} battles, is not the deck's "
                                   f"{deck['battles']!r} (within {deck['battles_bound']:.2g})")
        # P(capped) is P(N > max_battles), read at the cap, or past the sweeps at their end
        cap = rules_of(body).max_battles
        tail = 1.0 - float(cdf[min(cap, cdf.size - 1)])
        if not abs(deck["over_cap"] - tail) <= slack:
            report.problems.append(f"{MANIFEST}: the deck's P(capped) {deck['over_cap']!r} is not the "
                                   f"distribution's P(N > {min(cap, cdf.size - 1):,}), {tail!r} (max_battles "
                                   f"{cap:,})")


def _balance(body, chain, deals, positions, report, deep, sample) -> None:
    """Every deal holds its position's values, and a sample of the positions (every one with
    `deep`) satisfies its balance equation against its successors' stored values."""
    from .chain import DRAW, GOES_ON, WIN0, WIN1

    exact = report.exact
    where = {index: i for i, index in enumerate(positions["position"])}
    report.reached = len(where)
    for d, index in enumerate(deals["position"]):
        i = where.get(index)
        if i is None:
            report.problems.append(f"deal {d}: its position {index} is not in positions.parquet")
            continue
        mine, theirs = _values(deals, d, exact), _values(positions, i, exact)
        mine.update((c, deals[c][d]) for c in SHOWN if c in deals and c in positions)
        theirs.update((c, positions[c][i]) for c in SHOWN if c in deals and c in positions)
        for name, value in mine.items():
            if value != theirs[name] and not (value != value and theirs[name] != theirs[name]):
                report.problems.append(f"deal {d}: {name} {value} is not its position {index}'s ({theirs[name]})")
                break
    chosen = np.arange(report.reached)
    if not deep and report.reached > sample:
        chosen = np.sort(np.random.default_rng(0).choice(report.reached, sample, replace=False))
    report.positions = len(chosen)
    bound = body["bound"]
    for i in chosen.tolist():
        index = positions["position"][i]
        piles = [tuple(int(r) for r in str(positions[p][i]).split()) for p in ("pile0", "pile1")]
        try:
            if chain.index_of(*piles) != index:
                report.problems.append(f"position {index}: its piles {positions['pile0'][i]!r} | "
                                       f"{positions['pile1'][i]!r} are position {chain.index_of(*piles)}")
                continue
            row, flip = chain.locate(index)
        except Exception as err:  # a position the deals do not reach, or piles that are not the deck's
            report.problems.append(f"position {index}: {str(err).splitlines()[0]}")
            continue
        kind = int(chain.kind[row])
        if flip and kind in (WIN0, WIN1):
            kind = WIN1 if kind == WIN0 else WIN0
        laid = int(chain.laid[row])
        mine = _values(positions, i, exact)
        if kind != GOES_ON:
            truth = {"p_win0": Fraction(kind == WIN0), "p_win1": Fraction(kind == WIN1),
                     "mean_battles": Fraction(1), "mean_laid": Fraction(laid)}
            floats = {**{k: float(v) for k, v in truth.items()}, "p_draw": float(kind == DRAW)}
            slack = {k: bound + 1e-12 for k in floats}
        else:
            codes = chain.succ[chain.start[row]:chain.start[row + 1]].tolist()
            nexts = [where.get(_index(chain, c >> 1, bool((c & 1) ^ flip))) for c in codes]
            if any(j is None for j in nexts):
                report.problems.append(f"position {index}: a position its battle leads to is not in positions.parquet")
                continue
            theirs = [_values(positions, j, exact) for j in nexts]
            size = len(theirs)
            floats = {name: float(np.mean([t[name] for t in theirs])) for name in (*CHANCES, *MEANS)}
            floats["mean_battles"] += 1
            floats["mean_laid"] += laid
            most = max(t["battles_bound"] for t in theirs)
            slack = {**{k: 2 * bound + 1e-12 for k in CHANCES},
                     "mean_battles": mine["battles_bound"] + most + 1e-10 * (1 + abs(floats["mean_battles"])),
                     "mean_laid": (mine["battles_bound"] + most) * chain.cards + 1e-10 * (1 + abs(floats["mean_laid"]))}
            truth = None
            if exact and all(t["exact_p_win0"] is not None for t in theirs):
                truth = {name: sum((t[f"exact_{name}"] for t in theirs), Fraction(0)) / size
                         for name in ("p_win0", "p_win1")}
                if all(t["exact_mean_battles"] is not None for t in theirs):
                    truth["mean_battles"] = 1 + sum((t["exact_mean_battles"] for t in theirs), Fraction(0)) / size
                    truth["mean_laid"] = laid + sum((t["exact_mean_laid"] for t in theirs), Fraction(0)) / size
        said = _differs(index, mine, floats, slack, truth if exact else None) or \
            _quantiles_off(index, positions, i, [] if kind != GOES_ON else nexts)
        if said:
            report.problems.append(said)


def _quantiles_off(index, positions: dict, i: int, nexts: list) -> str | None:
    """The position's quantiles of N against its battle's: an end is N = 1; otherwise N is one
    battle more than a successor's, so each q-quantile lies between one past the least and one
    past the most of its successors' (any past the sweeps, -1, says nothing)."""
    for name in QUANTILE_COLUMNS:
        if name not in positions:
            continue
        got = positions[name][i]
        theirs = [positions[name][j] for j in nexts]
        if got == -1 or any(q == -1 for q in theirs):
            continue
        low, high = (1, 1) if not nexts else (1 + min(theirs), 1 + max(theirs))
        if not low <= got <= high:
            return (f"position {index}: {name} {got!r} is not what its battle gives (between {low} and {high}: one "
                    f"battle past its successors')" if nexts else f"position {index}: {name} {got!r}, but it ends "
                    f"the game in one battle")
    return None


def _differs(index, mine, floats, slack, truth) -> str | None:
    """The first value of a position off its balance equation, said in a line; None if none."""
    for name, want in floats.items():
        got = mine[name]
        if mine["may_not_end"] and name in MEANS:
            continue
        if not abs(got - want) <= slack[name]:
            return (f"position {index}: {name} {got!r} is not what its battle gives, {want!r} "
                    f"(off by {abs(got - want):.3g}, bound {slack[name]:.2g})")
    for name, want in (truth or {}).items():
        got = mine.get(f"exact_{name}")
        if got is not None and got != want:
            return f"position {index}: exact_{name} is not what its battle gives exactly (off by {float(got - want):.3g})"
    return None


def _resolve(body, chain, deals, report) -> None:
    """No positions stored: the chain solved again in floats, every deal's values compared with
    it within both bounds (and its exact fractions, read as floats, likewise)."""
    from .solver import solve

    report.resolved = True
    solution = solve(chain.rules, exact=False, chain=chain)
    again = {"p_win0": solution.deal_values("p_win0"), "p_win1": solution.deal_values("p_win1"),
             "p_draw": solution.deal_values("p_draw"), "mean_battles": solution.deal_values("battles"),
             "mean_laid": solution.deal_values("laid")}
    bounds = solution.at("battles_bound", chain.deal_rows, chain.deal_flips)
    laid_bounds = solution.at("laid_bound", chain.deal_rows, chain.deal_flips)
    for name in ("never_ends", "may_not_end"):
        truth = solution.at(name, chain.deal_rows, chain.deal_flips).tolist()
        wrong = next((d for d, (got, want) in enumerate(zip(deals[name], truth)) if got != want), None)
        if wrong is not None:
            report.problems.append(f"deal {wrong}: {name} {deals[name][wrong]}, but solved again {truth[wrong]}")
            return
    for j, name in enumerate(QUANTILE_COLUMNS):  # the least t with P(N <= t) >= q: the same at any tolerance that reaches it
        truth = solution.quantiles[chain.deal_rows, j].tolist()
        wrong = next((d for d, (got, want) in enumerate(zip(deals.get(name, truth), truth))
                      if got != want and want >= 0 and not (got == -1 and want > body["sweeps"])), None)
        # -1: past the sweeps, solved again (then nothing to compare) or stored (an early stop's)
        if wrong is not None:
            report.problems.append(f"deal {wrong}: {name} {deals[name][wrong]}, but solved again {truth[wrong]}")
            return
    capped = solution.at("over_cap", chain.deal_rows, chain.deal_flips).tolist()
    slack = distribution_bound(body) + solution.bound + 1e-12
    wrong = next((d for d, (got, want) in enumerate(zip(deals["p_capped"], capped)) if not abs(got - want) <= slack),
                 None) if "p_capped" in deals else None
    if wrong is not None:
        report.problems.append(f"deal {wrong}: p_capped {deals['p_capped'][wrong]!r} is not its value solved again, "
                               f"{capped[wrong]!r} (bound {slack:.2g})")
        return
    for d in range(len(deals["deal"])):
        slack = {**{k: body["bound"] + solution.bound + 1e-12 for k in CHANCES},
                 "mean_battles": deals["battles_bound"][d] + bounds[d] + 1e-10,
                 "mean_laid": body["deck"].get("laid_bound", laid_bounds[d]) + laid_bounds[d]
                 + 1e-9 * (1 + abs(again["mean_laid"][d]))}  # the stored deal's own bound: the deck's, their most
        for name, values in again.items():
            stored = deals[name][d]
            exact = deals.get(f"exact_{name}", [None] * len(deals["deal"]))[d] if report.exact else None
            for label, got in ((name, stored), (f"exact_{name}", None if exact is None else float(Fraction(exact)))):
                if got is None or (np.isinf(got) and np.isinf(values[d])):
                    continue
                if not abs(got - values[d]) <= slack[name]:
                    report.problems.append(f"deal {d}: {label} {got!r} is not its value solved again, {float(values[d])!r} "
                                           f"(off by {abs(got - values[d]):.3g}, bound {slack[name]:.2g})")
                    return


__all__ = ["validate_solution", "SolutionReport", "VIEWS", "DatasetError"]
