"""The numbers of `war report`: the named queries it runs and their results, with what the page
needs to say which rule set each row is about. No HTML here (report_page.py draws it).

Every number the report shows is a row of one of these named queries, run through
`jobs.query.run` exactly as `war query DATASET NAME --param ...` runs it, so a reader can get
any figure again with SQL; the aggregation happens in DuckDB, never in a Python loop over games.
Queries about one variant or one kind of rule set run only when the dataset has one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa

from ..model.all_deals import deal_count, deals_played, plays_every_deal
from ..model.families import registry
from ..model.names import rule_set_names
from ..model.rules import build_rules
from ..model.words import describe_rules
from ..model.variants import VARIANTS
from ..storage.dataset import Dataset
from ..jobs.query import EVENT_VIEW_NAMES, connect, log_views_read, named_query, reads_log, run
from ..jobs.query.every_deal import chance_in_deals, exact_every_deal
from ..storage.location import is_remote


# Decided games below which a share (a deal bucket's win rate) swings too much to be joined to
# its neighbours on a chart or quoted in a finding.
FEW_GAMES = 100


@dataclass(frozen=True)
class RuleSetInfo:
    """One rule set of the dataset by its name (model.names.rule_set_names), the `rule_set` of
    every query's rows: its rules and, for rules played in several seatings (a tournament), one
    seating of them."""

    name: str               # `classic pickup=table_order`, `always vs never`
    rules_id: str
    variant: str
    rules: dict
    seatings: tuple[tuple[str, ...], ...]
    games: int
    all_deals: bool = False  # it plays every deal of its deck once and each deal decides its game: exact
    counted: bool = False  # it stores counts of its deals alone (`--log counts`): exact results only
    deals: int | None = None  # where it plays deals of `--all-deals`: how many its deck has (model.all_deals)
    drawn: str = ""  # it plays every deal, but this draws in its games: one game a deal, a sample, not exact
    chosen: str = ""  # its games were chosen, not drawn at random (how): no sample of its rules (comparisons.chosen)
    deal_range: tuple[int, int] | None = None  # a slice of its deck's deals it counts (`--deal-range`), [first, stop)

    @property
    def label(self) -> str:
        return self.name

    @property
    def partial(self) -> bool:
        """It plays only the first of its deck's deals (`--all-deals --games N`): its numbers are
        neither exact nor of a sample of the deck."""
        return self.deals is not None and not self.all_deals and not self.drawn

    @property
    def title(self) -> str:
        return VARIANTS[self.variant].title if self.variant in VARIANTS else self.variant

    @property
    def family(self) -> str | None:
        """The family that plays its variant (None for a variant of a family not installed)."""
        return VARIANTS[self.variant].family if self.variant in VARIANTS else None

    @property
    def described(self) -> str:
        """Its deck and play in words, from its own rules (model.words.describe_rules)."""
        return describe_rules(self.rules)

    @property
    def plays_defaults(self) -> bool:
        """Whether it plays its variant's default rules, which the variant's summary describes."""
        return self.variant in VARIANTS and self.rules == build_rules(self.variant).options()


def _has(test: Callable[[RuleSetInfo], bool]) -> Callable[[list[RuleSetInfo]], bool]:
    return lambda rule_sets: any(test(r) for r in rule_sets)


def _always(rule_sets: list[RuleSetInfo]) -> bool:
    return True


def _policy_pairs(r: RuleSetInfo) -> bool:
    return any(len(s) == 2 and s[0] != s[1] for s in r.seatings)


@dataclass(frozen=True)
class ReportQuery:
    name: str
    params: dict[str, str] = field(default_factory=dict)
    wanted: Callable[[list[RuleSetInfo]], bool] = _always


def report_queries(games_per_kind: int = 3) -> list[ReportQuery]:
    """The named queries the report runs, with the parameters it gives them."""
    return [
        ReportQuery("outcomes"),
        ReportQuery("game_length"),
        ReportQuery("median_interval"),
        ReportQuery("outcome_interval"),
        ReportQuery("length_distribution", {"bins_per_decade": "20"}),
        ReportQuery("seat_win_interval"),
        ReportQuery("rule_set_pairs", wanted=lambda rule_sets: sum(not r.counted for r in rule_sets) > 1),
        ReportQuery("wars_per_game"),
        ReportQuery("war_battles_distribution"),
        ReportQuery("deepest_war"),
        ReportQuery("first_battle_war_exact", {"by_rank": ",".join(by_rank_variants())}),
        ReportQuery("deal_win_rate", {"top_ranks": "1", "width": "4"}),
        ReportQuery("notable_games", {"limit": str(games_per_kind)}),
        ReportQuery("length_by_policy", wanted=_has(lambda r: any(r.seatings))),
        ReportQuery("policy_matchup", wanted=_has(_policy_pairs)),
        *family_queries(),
        *(ReportQuery(name, params, wanted=_has(lambda r: r.all_deals)) for name, params in EXACT_QUERIES),
    ]


def by_rank_variants() -> tuple[str, ...]:
    """The variants whose first battle is a war exactly when the top cards tie for the highest
    rank, so that war knows its chance (first_battle_war_exact's `exact`): those of war's own
    families (Registry.built_in), whose cards compare by rank and whose ties are wars (Arneson's
    hands the query leaves out itself, by hand_size). A family from another package may change
    how cards compare or what a tie does (its engine's hooks, which its declaration does not
    say), so its chance is not known and its share is not compared with one."""
    reg = registry()
    return tuple(name for name, v in reg.variants.items() if v.family in reg.built_in)


def family_queries() -> list[ReportQuery]:
    """The queries each family's declaration asks the report to run (Family.report, in the
    registry's order), each when the dataset has a rule set it is about (Report.when), or else
    one of that family."""
    return [ReportQuery(r.query, dict(r.params), wanted=_has(
                (lambda i, when=r.when: when(i.rules)) if r.when else (lambda i, f=family.name: i.family == f)))
            for family in registry().families.values() for r in family.reports]


# The queries of the exact results a section shows for its rule sets that play every deal.
EXACT_QUERIES = (("exact_outcomes", {}), ("records", {"limit": "5"}), ("cycle_periods", {}), ("cycles", {"limit": "10"}),
                 ("exact_length", {}), ("exact_cards_laid", {}))


@dataclass
class ReportData:
    """What `war report` shows: the dataset's rule sets and the result of each query it ran."""

    dataset: str
    master_seed: int
    engine_version: str
    rule_sets: list[RuleSetInfo]
    results: dict[str, pa.Table]
    params: dict[str, dict[str, str]]
    left_out: tuple[str, ...] = ()  # the queries not run: they read what the dataset does not store
    unlogged: tuple[str, ...] = ()  # the rule sets that store no event log (`--log games` or counts)
    kept: int = 0  # the games rows its rule sets stored as counts keep (`--keep`)

    @property
    def missing(self) -> list[str]:
        """What the report leaves out and why, a sentence each (none for a full log): the
        sections that read the event log of a dataset that stores none (`--log games`), those
        of games rows of rule sets stored as counts alone, the rule sets an event query has no
        rows of."""
        return missing_lines(self)

    @property
    def variants(self) -> list[str]:
        """The dataset's variants, in the order of docs/rules.md."""
        present = {r.variant for r in self.rule_sets}
        return [v for v in VARIANTS if v in present] + sorted(present - set(VARIANTS))

    def rule_sets_of(self, variant: str) -> list[RuleSetInfo]:
        return [r for r in self.rule_sets if r.variant == variant]

    def rule_set(self, name: str) -> RuleSetInfo:
        return next(r for r in self.rule_sets if r.name == name)

    def is_exact(self, name: str) -> bool:
        """Whether the rule set `name` plays every deal of its deck and each deal decides its game
        (RuleSetInfo.all_deals): its numbers are exact, fractions of every deal, said with no
        interval."""
        return name in self.exact_names

    @property
    def exact_names(self) -> frozenset[str]:
        return frozenset(r.name for r in self.rule_sets if r.all_deals)

    def rules_exact(self, rules_id: str) -> bool:
        """Whether every rule set of the rules `rules_id` (each seating of a tournament) plays
        every deal: a row over all of them (policy_matchup's) is exact."""
        mine = [r for r in self.rule_sets if r.rules_id == rules_id]
        return bool(mine) and all(r.all_deals for r in mine)

    def rows(self, name: str, variant: str | None = None) -> list[dict]:
        """The rows of query `name` (of one variant's rule sets), as the query returned them."""
        table = self.results.get(name)
        if table is None:
            return []
        rows = table.to_pylist()
        return rows if variant is None else [r for r in rows if r.get("variant") == variant]


def _chosen(entries) -> str:
    """How a rule set's games were chosen rather than drawn at random, from its manifest entries:
    taken from another dataset (`war generate --from`, by a condition), or played on explicit
    deals (`--deals`, a search's records); "" for games of random deals or of every deal."""
    for e in entries:
        if e.seeds is not None or e.source:
            return f"games taken from {e.source or 'another dataset'} (`war generate --from`)"
        if e.deals is not None and not e.all_deals:
            return "explicit deals (`--deals`)"
    return ""


def rule_sets(ds: Dataset) -> list[RuleSetInfo]:
    """The dataset's rule sets by name, in the order they were first generated."""
    names = rule_set_names(ds.manifest.rule_sets)
    grouped: dict[str, list] = {}
    for e in sorted(ds.manifest.rule_sets, key=lambda e: e.ordinal):
        grouped.setdefault(names[e.ordinal], []).append(e)
    out = []
    for name, entries in grouped.items():
        rules = entries[0].rules.options()
        seatings = tuple(dict.fromkeys(tuple(e.policies) for e in entries if e.policies))
        counted = all(e.log == "counts" for e in entries)
        deals = deal_count(entries[0].rules) if any(e.all_deals for e in entries) else None
        every = all(plays_every_deal(e) for e in entries)
        exact = every and all(exact_every_deal(e) for e in entries)  # jobs.query.every_deal: the one test
        drawn = "" if exact or not every else next(c for c in map(chance_in_deals, entries) if c)
        sliced = [e for e in entries if e.log == "counts" and e.all_deals and not plays_every_deal(e)]
        out.append(RuleSetInfo(name, entries[0].rules_id, rules["variant"], rules, seatings,
                               sum(_counted(ds, e) if e in sliced else deals_played(e) if e.all_deals else e.games
                                   for e in entries), exact, counted, deals, drawn, _chosen(entries),
                               tuple(sliced[0].deal_range) if len(entries) == 1 and sliced else None))
    return out


def _counted(ds: Dataset, entry) -> int:
    """The deals a slice of an enumeration counts (`--deal-range`): the classes (a deal and its
    seats' piles swapped) whose first deal is in its range, which its counts' rows sum; the
    range's width is the deal numbers walked, not the deals counted. Counts are read from local
    disk (a remote dataset's are not read at all: the width then)."""
    if is_remote(ds.root):
        return deals_played(entry)
    import pyarrow.parquet as pq  # lazy: a slice's counts only

    return sum(int(pq.read_table(str(ds.root / f.path), columns=["games"]).column("games").to_numpy().sum())
               for f in ds.files("counts") if f.rule_set == entry.ordinal)


class Steps:
    """The report's work counted for a progress bar, `report(advance, total)`: the queries, then
    the charts and the replay pages, each part added to the total as soon as it is known (the
    charts and pages depend on the queries' answers)."""

    def __init__(self, report: Callable[[int, int], None] | None = None):
        self.report = report or (lambda advance, total: None)
        self.total = 0

    def add(self, n: int) -> None:
        self.total += n
        self.report(0, self.total)

    def advance(self, n: int = 1) -> None:
        self.report(n, self.total)


def build_report_data(root, games_per_kind: int = 3, steps: Steps | None = None,
                      on_result: Callable[[str, object], None] | None = None) -> ReportData:
    """Run the report's named queries over the dataset at `root`, each a step of `steps`;
    `on_result(name, table)` hears of each as it comes, notable_games first (so that the replay
    pages of its games can be written while DuckDB answers the rest)."""
    steps = steps or Steps()
    ds = Dataset.open(root)
    infos = rule_sets(ds)
    results, params = {}, {}
    asked = [q for q in report_queries(games_per_kind) if q.wanted(infos)]
    wanted, left_out = plan_queries(asked, infos, any(e.log == "events" for e in ds.manifest.rule_sets))
    views = frozenset().union(*(log_views_read(named_query(q.name).sql) for q in wanted))
    events = bool(views & EVENT_VIEW_NAMES)  # needs_events of some query: each parsed once
    steps.add(len(wanted))
    # one session: the views its queries read set up once
    session = None if is_remote(ds.root) else connect(root, events=events, views=views)
    try:
        for q in sorted(wanted, key=lambda q: q.name != "notable_games"):  # otherwise in their order
            results[q.name] = run(root, name=q.name, params=q.params, session=session)
            params[q.name] = dict(q.params)
            steps.advance()
            if on_result is not None:
                on_result(q.name, results[q.name])
        results = {q.name: results[q.name] for q in wanted}  # in the report's order
        params = {q.name: params[q.name] for q in wanted}
    finally:
        if session is not None:
            session.close()
    name = getattr(ds.root, "name", "") or str(ds.root)
    names = rule_set_names(ds.manifest.rule_sets)
    unlogged = tuple(dict.fromkeys(names[e.ordinal] for e in ds.manifest.rule_sets if e.log != "events"))
    kept = sum(e.games for e in ds.manifest.rule_sets if e.log == "counts")
    return ReportData(name, ds.manifest.master_seed, ds.manifest.engine_version, infos, results, params,
                      tuple(left_out), unlogged, kept)


def plan_queries(asked: list[ReportQuery], infos: list[RuleSetInfo], logged: bool
                 ) -> tuple[list[ReportQuery], list[str]]:
    """The queries the report runs of those `asked`, chosen by what the dataset stores, and the
    names of those it leaves out: with counts alone (`--log counts`) only the exact queries (it
    has no games rows but those --keep chose, no sample); with no event log anywhere (`--log
    games`), none of those that read the event views (needs_events)."""
    exact = {name for name, _ in EXACT_QUERIES}
    counted = bool(infos) and all(r.counted for r in infos)
    wanted, left_out = [], []
    for q in asked:
        if (counted and q.name not in exact) or (not logged and reads_event_log(q.name)):
            left_out.append(q.name)
        else:
            wanted.append(q)
    return wanted, left_out


def reads_event_log(name: str) -> bool:
    """Whether the named query reads the event log (its rows, or the decoded events and battles)."""
    return reads_log(named_query(name).sql)


# What a query of war's own the report may leave out shows, in the words of the line that says so;
# a family's say theirs in its declaration (Report.shows), and a query with none is said by its
# name alone (shows()).
SHOWS = {"outcomes": "how games end", "game_length": "game length",
         "seat_win_interval": "seat advantage", "wars_per_game": "wars", "deal_win_rate": "what the deal decides",
         "notable_games": "the games worth a look", "policy_matchup": "the matchup matrix"}


def shows() -> dict[str, str]:
    """What each query the report may leave out shows: war's own (SHOWS), then each family's."""
    return {**SHOWS, **{r.query: r.shows for family in registry().families.values() for r in family.reports
                        if r.shows}}


def _shown(names: list[str]) -> str:
    said = shows()
    return ", ".join(f"{said[n]} ({n})" if n in said else n for n in names)


def missing_lines(data: ReportData) -> list[str]:
    """The sentences of ReportData.missing (plain text, a flag or an option between backquotes)."""
    lines = []
    exact = {name for name, _ in EXACT_QUERIES}
    counted = bool(data.rule_sets) and all(r.counted for r in data.rule_sets)
    if counted:  # the games rows --keep chose are a choice, not a sample: no chart draws them
        games, said = [n for n in data.left_out if n not in exact], shows()
        none_exact = not any(r.all_deals for r in data.rule_sets)  # each draws in its games (RuleSetInfo.drawn)
        kept = (f"the {data.kept:,} games rows `--keep` chose (a choice, not a sample: war serve's games list "
                "and war query show them)" if data.kept else "no games rows")
        lines.append(f"This dataset stores counts of its deals (`--log counts`), no event log and {kept}: "
                     + (f"{_shown([n for n in games if n in said] or games)} and every chart of games are left "
                        "out; " + ("its counts give no exact result either (below)" if none_exact else
                                   "its exact results, which the counts answer, are shown") if games else
                        "its counts give no exact result (below)" if none_exact else "only its exact results are shown"))
    elif not any(r.name not in data.unlogged for r in data.rule_sets):
        events = [n for n in data.left_out if n not in exact]
        lines.append("This dataset stores no event log (`--log games`): "
                     + (f"{_shown(events)} {'is' if len(events) == 1 else 'are'} left out: "
                        f"{'it reads' if len(events) == 1 else 'they read'} the event log" if events else
                        "no section of this report reads it; war query's event views answer nothing here"))
    elif data.unlogged:
        partial = [n for n in data.results if reads_event_log(n)]
        lines.append(f"Rule set{'s' if len(data.unlogged) > 1 else ''} {', '.join(data.unlogged)} "
                     f"store{'' if len(data.unlogged) > 1 else 's'} no event log (`--log games` or counts): "
                     + (f"{_shown(partial)} {'has' if len(partial) == 1 else 'have'} no rows of "
                        f"{'them' if len(data.unlogged) > 1 else 'it'}: {'it reads' if len(partial) == 1 else 'they read'} the event log"
                        if partial else "no section of this report reads it"))
    for info in data.rule_sets:
        if info.drawn:
            lines.append(f"{info.name} plays every deal of its deck once, but {info.drawn}: a deal does not decide "
                         "its game, so its numbers are a sample (one game a deal), not exact, and the exact results "
                         "leave it out" + (" (it stores counts alone, which no other section reads)" if info.counted
                                           else "") + "; `war solve` gives the exact game under shuffled pickup "
                         "for 2 seats")
    return lines
