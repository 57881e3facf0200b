"""What a solution says about its deck, as figures and as the lines `war solve` prints."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def deck_quantiles(cdf, qs=(0.5, 0.9, 0.99, 0.999)) -> dict[float, int | None]:
    """The least t with the deck's P(N <= t) >= q, each q (None past the sweeps)."""
    out = {}
    for q in qs:
        hit = np.flatnonzero(cdf >= q - 1e-12)
        out[q] = int(hit[0]) if hit.size else None
    return out


def top_cards(solution) -> np.ndarray:
    """Each deal's count of the deck's top rank in seat 0's pile."""
    chain = solution.chain
    top = len(chain.counts) - 1
    out = np.empty(len(chain.deal_rows), np.int64)
    for d, (row, flip) in enumerate(zip(chain.deal_rows.tolist(), chain.deal_flips.tolist())):
        out[d] = sum(1 for r in chain.position(row, flip)[0] if r == top)
    return out


def by_top_cards(solution) -> list[dict]:
    """The deals by how many cards of the top rank seat 0 holds: their share and seat 0's mean
    chances and battles (exact Fractions where solved exactly)."""
    held = top_cards(solution)
    rows, flips = solution.chain.deal_rows, solution.chain.deal_flips
    out = []
    for k in sorted(set(held.tolist())):
        pick, flip = rows[held == k], flips[held == k]
        entry = {"top_cards": k, "deals": int(pick.size), "share": Fraction(int(pick.size), len(rows))}
        for name in ("p_win0", "p_win1", "p_draw", "battles"):
            entry[name] = float(np.mean(solution.at(name, pick, flip)))
        if solution.exact is not None:
            exact = solution.exact_at("p_win0", pick, flip)
            if all(v is not None for v in exact):
                entry["exact_p_win0"] = sum(exact, Fraction(0)) / int(pick.size)
        out.append(entry)
    return out


def positions_reached(chain) -> int:
    """The positions the deals reach: each row and its twin, a symmetric position once."""
    if not chain.halved:
        return chain.rows
    return 2 * chain.rows - int(np.count_nonzero(symmetric_rows(chain)))


def symmetric_rows(chain) -> np.ndarray:
    """Which rows are their own twin: equal piles, the same ranks in the same order."""
    from .chain import symmetric

    return symmetric(chain.ids, chain.counts, chain.sequences, chain.cards)


def _fraction(value) -> str:
    """A Fraction in full when short, else its size."""
    if value is None:
        return "(none: the game may never end)"
    text = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    if len(text) <= 60:
        return text
    return f"(a fraction of {len(str(value.numerator))}/{len(str(value.denominator))} digits)"


def lines(solution) -> list[str]:
    """The deck's exact figures, as `war solve` prints them."""
    chain, deck = solution.chain, solution.deck()
    rules = chain.rules
    full = (chain.cards - 1) * chain.sequences
    out = [f"{rules.label}: {chain.cards} cards, {len(chain.deal_rows):,} deals, "
           f"{positions_reached(chain):,} positions reached of {full:,} (both piles held), "
           f"{chain.rows:,} up to the seat swap, {int(chain.succ.shape[0]):,} moves"]
    exact = solution.exact is not None
    for name, label in (("p_win0", "P(seat 0 wins)"), ("p_win1", "P(seat 1 wins)"), ("p_draw", "P(draw)"),
                        ("battles", "E[battles]"), ("laid", "E[cards laid]")):
        text = f"  {label:<16}{deck[name]:.15g}"
        if exact:
            value = _exact_draw(deck) if name == "p_draw" else deck[f"exact_{name}"]
            text += f"   exact {_fraction(value)}"
        out.append(text)
    q = deck_quantiles(solution.cdf)
    out.append("  battles quantiles " + ", ".join(f"{int(k * 1000) / 10:g}%: {v if v is not None else '>' + str(solution.sweeps)}"
                                                 for k, v in q.items()))
    if solution.sweeps >= rules.max_battles:
        out.append(f"  P(capped)       {deck['over_cap']:.3g}  (the engine stops a game at max_battles={rules.max_battles:,}; "
                   "the figures above are the game without the cap)")
    else:  # the sweeps stopped short of the cap: what is left is P(N > sweeps), a bound on P(N > cap)
        out.append(f"  P(capped)       <= {deck['over_cap']:.3g}  (a bound: the sweeps stopped at {solution.sweeps:,} "
                   f"battles, before the engine's cap, max_battles={rules.max_battles:,}; the figures above are the "
                   "game without the cap)")
    if solution.figures:  # the floats printed are the fractions' values: only their rounding is left
        out.append(f"  error bound     the figures above are their exact fractions' values, rounded "
                   f"({solution.chances_bound:.2g} on each probability, {deck['battles_bound']:.2g} on E[battles], "
                   f"{deck['laid_bound']:.2g} on E[cards laid]); {solution.bound:.2g} on P(capped) and the "
                   f"distribution of battles ({solution.sweeps:,} sweeps)")
    else:
        out.append(f"  error bound     {solution.bound:.2g} on each probability, {deck['battles_bound']:.2g} on "
                   f"E[battles], {deck['laid_bound']:.2g} on E[cards laid] ({solution.sweeps:,} sweeps)"
                   + ("; the fractions are exact" if exact else ""))
    never, may = int(solution.never_ends.sum()), int(solution.may_not_end.sum())
    if may:
        out.append(f"  {never:,} positions never end (closed classes), {may:,} may not end (E infinite there)")
    else:
        out.append("  every position ends with probability 1 (no closed class without an end)")
    seconds = solution.seconds
    out.append("  CPU seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in seconds.items()))
    return out


def _exact_draw(deck) -> Fraction | None:
    """The deck's exact P(draw): P(end) = 1 less the two wins (None when the game may not end)."""
    w0, w1 = deck.get("exact_p_win0"), deck.get("exact_p_win1")
    if w0 is None or w1 is None or deck.get("exact_battles") is None:
        return None
    return 1 - w0 - w1
