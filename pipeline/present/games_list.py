"""What the games list page shows beside its rows: each facet's values with their counts, each a
link to the list with that value chosen or cleared (`facets`, from games_sql.facet_sql's rows,
and `total_of`, the games that pass the whole filter), and the numbered pages around the one
shown (`pager`, `last_page`; `next_page` for an export). The list's filter is
games_filter.GameFilter, read from a request by games_request and answered by games_sql."""

from __future__ import annotations

from dataclasses import dataclass

from .games_columns import OUTCOMES, value_text
from .games_filter import FACETS, GameFilter
from .report import RuleSetInfo

PAGES_AROUND = 2  # numbered pages linked on each side of the one shown


@dataclass
class FacetValue:
    value: str
    text: str
    games: int
    selected: bool
    href: str                # the list with this value chosen (or, chosen, cleared)
    also: str | None = None  # the list with this value added to those chosen (any of them)


@dataclass
class Facet:
    """A facet as the page shows it: its column, its values, how many values it has, and the
    list without it (a facet asked for) or None (one always shown)."""

    column: str
    values: list[FacetValue]
    count: int
    remove: str | None

    @property
    def cut(self) -> bool:
        """Whether it shows only its values of most games."""
        return self.count > len([v for v in self.values if v.games])


def facets(f: GameFilter, rows: list[dict], infos: list[RuleSetInfo], players: int) -> list[Facet]:
    """Each facet's values with their counts (facet_sql's rows): variant, rule set, outcome and
    winner in the dataset's order, every other facet's of most games first; each a link to the
    list with that value chosen, or, for a value chosen, with it cleared."""
    known = {
        "variant": [(v, v) for v in dict.fromkeys(r.variant for r in infos)],
        "rule_set": [(r.name, r.name) for r in infos],
        "outcome": [(o, o) for o in OUTCOMES],
        "winner": [(str(s), f"seat {s}") for s in range(players)],
    }
    out = []
    for column in f.faceted:
        mine = [r for r in rows if r["facet"] == column]
        counts = {r["value"]: r["games"] for r in mine}
        chosen = {value_text(c.value): c for c in f.chosen(column)}
        if column in known:
            listed = known[column] + [(v, v) for v in counts if v not in dict(known[column])]
        else:
            listed = [(r["value"], r["value"]) for r in sorted(mine, key=lambda r: r["rank"])]
            listed += [(v, v) for v in chosen if v not in counts]
        shown = []
        for value, text in listed:
            n = counts.get(value, 0)
            selected = value in chosen
            if not (n or selected):
                continue
            if selected:
                href = "/games?" + f.without(chosen[value]).query()
                also = None
            else:
                href = "/games?" + f.choosing(column, value).query()
                also = "/games?" + f.choosing(column, value, also=True).query() if chosen else None
            shown.append(FacetValue(value, text, n, selected, href, also))
        count = mine[0]["n_values"] if mine else 0
        remove = None if column in FACETS else "/games?" + f.query(facets=tuple(x for x in f.facets if x != column))
        out.append(Facet(column, shown, count, remove))
    return out


def total_of(rows: list[dict]) -> int:
    """How many games pass the whole filter (facet_sql's total row)."""
    return next((r["games"] for r in rows if r["facet"] == ""), 0)


@dataclass
class PageLink:
    """A link of the pager: a page's number and address (None for a gap, `…`), and whether it is
    the page shown."""

    number: int | None
    href: str | None
    current: bool = False


def pager(f: GameFilter, total: int) -> list[PageLink]:
    """The numbered pages of a list of `total` games: the first, the last, and PAGES_AROUND on
    each side of the one shown, a gap (`…`) where pages are left out."""
    last = last_page(f, total)
    wanted = sorted({1, last, *range(max(1, f.number - PAGES_AROUND), min(last, f.number + PAGES_AROUND) + 1)})
    out: list[PageLink] = []
    for n in wanted:
        if out and out[-1].number is not None and n - out[-1].number > 1:
            out.append(PageLink(None, None))
        out.append(PageLink(n, "/games?" + f.query(page=None if n == 1 else n), n == f.number))
    return out


def last_page(f: GameFilter, total: int) -> int:
    return max(1, -(-total // f.size))


def next_page(f: GameFilter, total: int, path: str = "/games.json") -> str | None:
    """The address of the page after this one of an export, None on the last (or unpaged)."""
    if not f.paged or f.number * f.size >= total:
        return None
    return f"{path}?" + f.query(page=f.number + 1, per_page=f.size)
