"""The reference engine for the table family: Classic, Multiplayer, Jokers and Război
(docs/rules.md sections 2-5), with every option of section 8.

The engine never draws randomness itself: it asks a *chance* for every random order (a pickup
shuffle, a reshuffle of a won pile). Generation passes a chance backed by the game's generator;
replay passes one that reads the orders from the log. The engine reports every step to a
*recorder*; replay and validation pass one that compares each step with the log as it goes.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from ...model.deal import Deal, deck_of
from ...model.families import registry
from ...model.pickups import PICKUPS_BY_NAME
from ...model.schema import RuleSet
from ..chance import RandomChance, StreamChance
from ..event import Recorder
from ..play import Game
from ..policies import CHOOSES
from ..summary import Summary
from .ranks import ranks_of, war_values


# The pickups under which a battle of two cards takes them in an order `TableGame.duels` knows.
DUEL_PICKUPS = ("shuffled", "winner_first", "table_order")


# The hooks asked once per card or pair of cards of a rule set's deck and kept as tables, never
# called during a battle, and those called only where the loops that call no hook stop anyway (a
# tie for the best card; a position, which those loops keep only while it is TableGame's):
# overriding them keeps a game on those loops.
TABLED = ("strength", "decides")
ASIDE = TABLED + ("tie", "position")


# The hooks `TableGame.battles` calls at their step when the game's class overrides them, and
# otherwise does in line.
HOOKED = ("best", "collector", "pick_up", "collect", "game_over", "close_battle", "tie")


@lru_cache(maxsize=None)
def _plan(cls: type, pickup: str) -> tuple:
    """What `TableGame.battles` asks of a game's class and pickup before its first battle, once:
    (the HOOKED names the class overrides, whether its `holding` is Game's, whether it watches
    the battle (`_watches`), the pickup's order, whether the order reads how cards were laid,
    whether it reads who played them)."""
    order = PICKUPS_BY_NAME[pickup]
    overrides = frozenset(name for name in HOOKED if getattr(cls, name) is not getattr(TableGame, name))
    return (overrides, cls.holding is Game.holding, _watches(cls), order.order, order.reads_laid,
            order.reads_owners)


@lru_cache(maxsize=None)
def _watches(cls: type) -> bool:
    """Whether the game's class overrides a step of TableGame's or Game's other than those kept as
    tables or called aside (ASIDE) and `__init__`: its steps may then read any of
    the battle's state at any time (`played`, `up`), and may put seats out, so the battle loop
    keeps all of it as it goes."""
    for klass in cls.__mro__:
        if klass is TableGame:
            return False
        for name, value in vars(klass).items():
            if callable(value) and not name.startswith("__") and name not in ASIDE and hasattr(TableGame, name):
                return True
    return False


_LAST_TABLES: list = [(None, ())]  # the last rule set asked, and its tables, as one tuple


def _tables_of(rules: RuleSet) -> tuple:
    """(deck, ranks_of, war_values, a war's fixed cards down, single_up, shortfall=lose, its
    pickup) of the rule set, made once for the last rule set asked: every game of a shard asks
    for the same one. Kept as one tuple, read and replaced whole."""
    last = _LAST_TABLES[0]
    if last[0] is rules:
        return last[1]
    values = war_values(rules)
    tables = (deck_of(rules), ranks_of(rules), values, rules.war_down if values is None else 0,
              rules.war_tiebreak == "single_up", rules.shortfall == "lose", PICKUPS_BY_NAME[rules.pickup])
    _LAST_TABLES[0] = rules, tables
    return tables


_LAST_HOOKED: list = [(None, None, ())]  # the last class and rule set asked, and their tables, as one tuple


def _hook_tables(game: TableGame) -> tuple:
    """(strengths, decisive) of the game's class and rule set, its `strength` and `decides` asked
    once for the rule set's deck, not once a game: `strengths` each card's strength; `decisive`
    each card's {beaten card: kind of event} from `decides`, or () when no pair gives an event.
    Kept as one tuple, read and replaced whole (a game on another thread sees one or the other)."""
    cls, rules = type(game), game.rules
    last = _LAST_HOOKED[0]
    if last[0] is cls and last[1] is rules:
        return last[2]
    size = game.deck.size
    strengths = game.rank if cls.strength is TableGame.strength else tuple(game.strength(card) for card in range(size))
    decisive: tuple = ()
    if cls.decides is not TableGame.decides:
        decisive = tuple({other: kind for other in range(size) if strengths[other] < strengths[card]
                          for kind in (game.decides(card, other),) if kind is not None} for card in range(size))
        if not any(decisive):
            decisive = ()
    _LAST_HOOKED[0] = cls, rules, (strengths, decisive)
    return strengths, decisive


def play_table(rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser=None) -> Summary:
    """Play one game of the table family to its end, reporting every step to `rec`."""
    return TableGame(rules, deal, chance, rec).play()


class TableGame(Game):
    """A game of the table family: every seat still in plays its top card, and the best card
    takes the table.

    It is also the game a plugin's engine subclasses (pipeline.plugin, docs/plugins.md): each
    rule people change is one method, a *hook*, that the battle calls at its step, so a rule is
    written by overriding its hook alone:

    - how cards compare: `strength(card)` (asked once per card, then kept), `decides(card, other)`
      (the event a best card logs over another, asked once per pair, then kept),
      `best(battle, seats)`;
    - what happens on a tie for the best card: `tie(battle, tied, best)` (a seat that takes the
      table at once), `wars(battle, tied, best)`; what a war lays:
      `war_size(depth, card)`;
    - who collects the table and in what order: `collector(battle, winner, depth)`,
      `pick_up(seat, battle)`, `collect(seat, cards, battle)`;
    - when the game ends: `game_over(battle)`; what must come back for a cycle: `position()`.

    A hook reads the game through the attributes named in pipeline.plugin's docstring, reports
    through `emit` and asks a seat's policy through `decide`; anything else here is the engine's
    own, free to change."""

    __slots__ = ("rules", "deck", "strengths", "decisive", "values", "fixed_down", "single_up", "lose", "pickup",
                 "up", "chooser", "taker")

    def __init__(self, rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser=None) -> None:
        super().__init__(rules, deal, chance, rec)
        self.rules = rules
        self.deck, self.rank, self.values, self.fixed_down, self.single_up, self.lose, pickup = _tables_of(rules)
        self.chooser = chooser
        # strength(card) for every card (TableGame's own is the rank, so its table is `rank`), and
        # decides(card, other) for every pair of cards, kept for the rule set
        self.strengths, self.decisive = _hook_tables(self)
        self.pickup = rules.pickup
        self.up: dict[int, int] = {}  # each contender's card face up
        self.taker: int | None = None  # the seat that took the last table (collect), None before any
        if pickup.fixed:
            self.seen = {}

    # ------------------------------------------------------------------ the hooks

    def strength(self, card: int) -> int:
        """Hook: how strong `card` is when face-up cards meet; the strongest takes the table,
        equal strengths tie (2.1). Asked once per card code as the game starts (kept in
        `strengths`). Here its rank as the game orders ranks (`rank`: aces high or low, Jokers
        above all). Two cards of one strength must be alike to every other hook too: a position
        is kept as strengths."""
        return self.rank[card]

    def decides(self, card: int, other: int) -> str | None:
        """Hook: the kind of event logged when `card`, the one best face-up card of a step, beats
        `other`, another seat's face-up card of lower strength (a suit above another beating a higher rank); None
        for no event. Asked once per such pair of cards of the rule set's deck, before its first
        game's first battle, and kept (`decisive`), so it reads nothing but `rules`, `deck`,
        `rank` and `strengths`. The event is the best seat's, with its card, once a step: the
        kind of the first other seat, in seat order, whose card gives one. Here None: no event."""
        return None

    def best(self, battle: int, seats: list[int]) -> list[int]:
        """Hook: the seats among `seats` whose face-up card (`up[seat]`) is best, in seat order:
        one takes the table, more go to war. Here those of the greatest strength, one best card
        logging what `decides` says of the cards it beat. Override it for a comparison a
        strength cannot say (a 2 that beats only the Ace)."""
        strengths, up = self.strengths, self.up
        if len(seats) == 2:  # most battles: two seats' cards
            first, second = seats
            ours, theirs = strengths[up[first]], strengths[up[second]]
            tied = [first] if ours > theirs else [second] if theirs > ours else [first, second]
        else:
            ranked = [strengths[up[seat]] for seat in seats]
            top = max(ranked)
            tied = [seat for seat, strength in zip(seats, ranked) if strength == top]
        if self.decisive and len(tied) == 1:
            self.decided(battle, tied[0], up[tied[0]], [up[seat] for seat in seats])
        return tied

    def position(self) -> tuple:
        """Hook: what must come back for the game to be a cycle: every pile in order as
        strengths (play.Game.piles_by: as bytes where they fit), and the war wins under wars:N
        (2.6, ruling 7)."""
        return self.piles_by(self.strengths), tuple(self.summary.war_wins) if self.wars_to_win else ()

    def tie(self, battle: int, tied: list[int], best: int) -> tuple[int, str] | None:
        """Hook: the seats `tied` for the best card (of strength `best`) at a battle's first step,
        before any war: a seat that takes the table at once, as it lies (`table`), and the kind
        of event its take is logged as (`collect`: war's own; or a kind the family declares);
        None: the tie goes to `wars`. Here None. The seat's take is `collect`'s, and the battle
        is then over as any battle won without a war."""
        return None

    def wars(self, battle: int, tied: list[int], best: int) -> tuple[int | None, int]:
        """Hook: the seats `tied` for the best card (of strength `best`) settle it: wars among
        them until one card is best. The winner (None when nobody could go on) and how many
        wars it took. A seat short of cards lays fewer down, keeping its last card to play up
        (2.3)."""
        up = self.up
        depth = 0
        while len(tied) > 1:
            depth += 1
            self.step = depth
            self.emit(battle, "war", None, (), tied, (), depth)
            down = self.war_size(depth, up[tied[0]])
            ready = self.join_war(battle, tied, down)
            if len(ready) <= 1:
                return (ready[0] if ready else None), depth
            for seat in ready:
                k = min(down, self.holding(seat) - 1)
                if k:
                    self.played[seat].extend(self.lay_down(seat, k, battle))
                self.play_up(seat, battle)
            tied = self.best(battle, ready)
        return tied[0], depth

    def war_size(self, depth: int, card: int) -> int:
        """Hook: how many cards each seat in war number `depth` lays face down before its face-up
        card, `card` being one of the tied cards: fixed (`war_down`), or by the tied rank in
        Război (5.1); none after the first war under single_up (2.5)."""
        if self.single_up and depth >= 2:
            return 0
        if self.values is not None:
            return self.values[self.rank[card]] - 1
        return self.fixed_down

    def collector(self, battle: int, winner: int, depth: int) -> int | None:
        """Hook: the seat that takes the table the battle's `winner` won after `depth` wars (None:
        the table is set aside). Here the winner."""
        return winner

    def pick_up(self, seat: int, battle: int) -> list[int]:
        """Hook: the table in the order the collecting seat takes it (`pickup`, docs/rules.md
        2.4): shuffled, or in its order's (model.pickups)."""
        if self.pickup == "shuffled":
            return self.chance.order("collect", seat, self.table)
        return PICKUPS_BY_NAME[self.pickup].order(self.table, seat, self)

    def collect(self, seat: int, cards: list[int], battle: int, kind: str = "collect") -> None:
        """Hook: `cards`, the table in pick_up's order, join the seat's cards: under its pile, or
        on top of its won pile under pickup=pooled (ruling 5); logged as a `kind` event (a take
        of the table its family declares: from `table` to `gains`)."""
        if self.pooled:
            self.won[seat][:0] = cards
        else:
            self.piles[seat].extend(cards)
        self.emit(battle, kind, seat, cards)

    def game_over(self, battle: int) -> bool:
        """Hook: after a battle that left two or more seats in the game, whether the game ends
        by a rule of its own; before it says True it sets `summary.outcome` (`win`, with
        `summary.winner`, or `draw`). Here never: a game ends as 2.6 says."""
        return False

    # ------------------------------------------------------------------ what hooks call

    def suit(self, card: int) -> int | None:
        """The card's suit index (0 .. suits-1: C D H S in a standard deck), None for a Joker."""
        deck = self.deck
        return card % deck.suits if card < deck.ranks * deck.suits else None

    def decide(self, battle: int, decision: str, seat: int, view, options: tuple):
        """Ask the seat's policy for its choice at a decision of the family's (`decision`, its
        declared name), among `options`, showing it `view`, and log the choice as a `decision`
        event, as war reads it back (its cards or its seats, Decision.chooses). The choice."""
        chosen = self.chooser.choose(decision, seat, view, options)
        chooses = CHOOSES.get(decision) or registry().decisions[decision].chooses  # a decision read at import, or since
        # the recorder's one call, unless the game reports through an emit of its own (Recorder's, through it)
        record = self.rec.decision if self.emit == self.rec.emit else Recorder.decision.__get__(self)
        if chooses == "seats":
            record(battle, seat, decision, (), chosen, options)
        else:
            record(battle, seat, decision, (chosen,), (), options)
        return chosen

    def decided(self, battle: int, seat: int, card: int, cards) -> None:
        """The event `decides` gives when `card`, the seat's, is the one best of `cards` (the
        step's face-up cards, its own among them): the first other card's, in order, that gives
        one."""
        beaten = self.decisive[card]
        for other in cards:
            kind = beaten.get(other)
            if kind is not None:
                self.emit(battle, kind, seat, (card,))
                return

    # ------------------------------------------------------------------ the battle

    def battles(self) -> int:
        """Battles until the game is over (docs/rules.md 2.2-2.7): every seat still in plays its top card
        and the best card takes the table, a tie for it going to war; a war won may win the game
        under wars:N, then seats holding nothing are out. The loop is written out here rather than
        left to Game.battles, whose method call per battle would cost the reference speed. How
        many battles were played.

        A hook the game's class leaves as TableGame's is done here in line rather than called
        (`best`, `collector`, `pick_up`, `collect`, `close_battle`, `game_over`): the same steps
        in the same order, a method call less each. A hook a subclass overrides is called at its
        step, with the whole battle in view (`table`, `played`, `up`, `laid`); while no hook is
        overridden, nothing reads `played` and `up` but the wars and winner_first, so they are
        made only for those. The seats' cards played are reported in one call (`rec.plays`). A
        battle without a war, after which every seat still in holds a card in its pile, ends
        nobody's game (Summary.eliminate would find so): it is not asked."""
        cls = type(self)
        # which hooks the class overrides, and what its steps may read (`_plan`, once a class and pickup)
        overrides, known_holding, watching, order, natural_laid, reads_owners = _plan(cls, self.pickup)
        piles, won, alive, emit, strengths = self.piles, self.won, self.alive, self.emit, self.strengths
        s, wars_to_win, pooled, chance = self.summary, self.wars_to_win, self.pooled, self.chance
        pickup, decisive = self.pickup, self.decisive
        rec = self.rec
        # the pickup=shuffled two-seat game of a class that overrides no hook, in one loop (as below)
        if (not watching and known_holding and pickup == "shuffled" and self.n == 2 and not pooled
                and not natural_laid and self.seen is None and type(chance) in (StreamChance, RandomChance)
                and emit == rec.emit and hasattr(rec, "duels") and all(piles)):
            return self.two_seat_battles()
        best_hook, collector_hook, pick_up_hook, collect_hook, game_over_hook, close_hook, tie_hook = (
            getattr(self, name) if name in overrides else None for name in HOOKED)
        plays = rec.plays if emit == rec.emit and hasattr(rec, "plays") else Recorder.plays.__get__(self)
        seats = range(self.n)
        # a step the subclass overrides may read any of the battle's state, and change who is in
        moved = watching
        keep_played = watching or reads_owners
        # who is still in (and their piles), counted again after a battle that may have put a seat
        # out (a war, an elimination), or, while a hook watches, once fewer seats are in
        recount, contenders, in_piles, two, pair = True, [], [], False, False
        if not natural_laid:
            self.laid = {}  # written by wars only: nobody reads it but an order that reads how cards lie
        # position() in line, as Game.repeats asks it: every pile as bytes of strengths (piles_by),
        # where the class's position is TableGame's, wars:N is off and every strength fits a byte
        seen = self.seen
        keys = None
        if (seen is not None and not self.drawn and cls.position is TableGame.position and not wars_to_win
                and cls.piles_by is Game.piles_by):
            self.piles_by(strengths)
            keys = self.byte_values[1]
        popleft = deque.popleft
        # runs of plain two-seat battles (duels), where no step is the subclass's, the pickup puts
        # two cards in an order of its own and the chance is the generator's own (an order drawn
        # from it, not read from the log as events are reported, nor changed by a subclass)
        duelling = (not watching and known_holding and pickup in DUEL_PICKUPS and (seen is None or keys is not None)
                    and type(chance) in (StreamChance, RandomChance) and hasattr(rec, "duels") and emit == rec.emit)
        # the wars of a two-seat game in two_seat_wars, where no step is the subclass's and the
        # piles are all a seat holds (no won pile) and no order reads how the cards were laid
        quick_wars = not watching and known_holding and not pooled and not natural_laid
        if duelling and quick_wars and pickup == "shuffled" and self.n == 2 and all(piles):
            return self.two_seat_battles()
        kit = None  # two_seat_kit(), made at the game's first war played by two_seat_wars
        battle = 0
        while battle < self.max_battles:
            if duelling and two:
                battle, over = self.duels(battle, contenders, keys)
                if over:
                    return battle
                if battle >= self.max_battles:
                    break
            if keys is not None:
                key = tuple([bytes(pile).translate(keys) for pile in piles]), ()
                first = seen.get(key)
                if first is None:
                    seen[key] = battle
                else:
                    self._cycle(battle, first)
                    return battle
            elif self.seen is not None and self.repeats(battle):
                return battle
            battle += 1
            self.step = 0
            if recount or moved and alive.count(True) != len(contenders):
                contenders = [seat for seat in seats if alive[seat]]
                in_piles = [piles[seat] for seat in contenders]
                two = len(contenders) == 2
                pair = two and self.n == 2  # both seats of a two-seat game
                recount = False
            # every seat still in plays its top card (its won pile reshuffled first when its pile is empty)
            if all(in_piles):
                self.table = table = [*map(popleft, in_piles)]
                plays(battle, contenders, table)
                if keep_played:
                    self.played = [[table[0]], [table[1]]] if pair else self.by_seat(contenders, table)
                    self.up = dict(zip(contenders, table))
            else:
                self.table = table = []
                self.played = played = self.by_seat((), ())
                self.up = up = {}
                for seat, pile in zip(contenders, in_piles):
                    if not pile:
                        self.reshuffle(seat, battle)
                    c = pile.popleft()
                    table.append(c)
                    played[seat].append(c)
                    up[seat] = c
                    emit(battle, "play", seat, (c,))
            if natural_laid:
                self.laid = dict.fromkeys(table, (0, True))
            # the best card: the seat of the greatest strength, or the seats tied for it
            if best_hook is not None:
                tied = best_hook(battle, contenders)
                winner = tied[0] if len(tied) == 1 else None
            elif two:
                first_strength, second_strength = strengths[table[0]], strengths[table[1]]
                if first_strength != second_strength:
                    winner = contenders[0 if first_strength > second_strength else 1]
                else:
                    winner, tied = None, contenders[:]
            else:
                ranked = [*map(strengths.__getitem__, table)]
                top = max(ranked)
                if ranked.count(top) == 1:
                    winner = contenders[ranked.index(top)]
                else:
                    winner, tied = None, [seat for seat, strength in zip(contenders, ranked) if strength == top]
            if decisive and winner is not None and best_hook is None:  # the event `decides` gives, as `best` logs it
                self.decided(battle, winner, table[contenders.index(winner)], table)
            warred = winner is None
            if warred and tie_hook is not None:  # a seat may take the table at once (`tie`)
                if not keep_played:
                    self.played = self.by_seat(contenders, table)
                    self.up = dict(zip(contenders, table))
                claimed = tie_hook(battle, tied, strengths[self.up[tied[0]]])
                if claimed is not None:
                    seat, kind = claimed
                    (collect_hook or self.collect)(seat, list(self.table), battle, kind)
                    self.taker = seat
                    recount = True
                    if s.eliminate(battle, alive, self.holding, emit):
                        return battle
                    if game_over_hook is not None and game_over_hook(battle):
                        return battle
                    continue
            if warred:
                if quick_wars and pair:
                    if kit is None:
                        kit = self.two_seat_kit()
                    winner, depth = self.two_seat_wars(battle, table, kit)
                else:
                    if not keep_played:
                        self.played = self.by_seat(contenders, table)
                        self.up = dict(zip(contenders, table))
                    winner, depth = self.wars(battle, tied, strengths[self.up[tied[0]]])
            else:
                depth = 0
            if close_hook is not None:
                if close_hook(battle, winner, depth):
                    return battle
            else:
                # close_battle, in line
                if depth:
                    s.count_war(battle, depth)
                seat = winner if winner is None or collector_hook is None else collector_hook(battle, winner, depth)
                if seat is None:
                    self.set_aside(battle)
                else:
                    # pick_up, in line (the table read from the game, as TableGame.pick_up reads it)
                    if pick_up_hook is not None:
                        cards = pick_up_hook(seat, battle)
                    elif pickup == "shuffled":
                        cards = chance.order("collect", seat, self.table)
                    else:
                        cards = order(self.table, seat, self)
                    if collect_hook is not None:
                        collect_hook(seat, cards, battle)
                    else:  # collect, in line
                        if pooled:
                            won[seat][:0] = cards
                        else:
                            piles[seat].extend(cards)
                        emit(battle, "collect", seat, cards)
                    self.taker = seat
                if winner is not None and depth and s.won_war(winner, wars_to_win):
                    return battle
                # Summary.eliminate, asked unless plainly nobody is out: every seat that was in
                # still is and holds a card (a war's forfeit puts its seat out)
                if warred or watching or not known_holding or len(contenders) < 2 or not all(in_piles):
                    out = not known_holding or len(contenders) < 2
                    if not out:
                        for seat in contenders:
                            if not (alive[seat] and (piles[seat] or won[seat])):
                                out = True
                                break
                    if out:
                        recount = True
                        if s.eliminate(battle, alive, self.holding, emit):
                            return battle
            if game_over_hook is not None and game_over_hook(battle):
                return battle
        self.summary.outcome = "capped"
        return battle

    def two_seat_battles(self) -> int:
        """`battles` for a two-seat game under pickup=shuffled, where the game's class overrides no
        step but those of ASIDE, no seat keeps a won pile and the chance is the generator's own,
        step for step with the same draws and events: no position is kept (shuffled), each
        seat's cards are its pile, and both piles hold a card before every battle (a battle that
        empties one ends the game), so a battle is the two top cards. A duel (the two differ and
        the loser holds another card) is `shuffled_duels`' loop in line, its events reported a
        run at a time, with any event `decides` logs of its two cards (`noted`: a run goes on
        past it, as a plugin's noted events may decide one battle in several); any other battle is
        played here as `battles` plays it: a tie offered to `tie` (when the class has one)
        before two_seat_wars, a battle of two cards that is no duel (the loser's last card) in
        line. How many battles were played."""
        first, second = piles = self.piles
        strengths, draw, order, last = self.strengths, self.chance.draw, self.chance.order, self.max_battles
        take_first, take_second, put_first, put_second = first.popleft, second.popleft, first.extend, second.extend
        s, alive, wars_to_win, emit, rec = self.summary, self.alive, self.wars_to_win, self.emit, self.rec
        plays, report, decisive = rec.plays, rec.duels, self.decisive
        tie_hook = None if type(self).tie is TableGame.tie else self.tie
        kit = self.two_seat_kit()  # for two_seat_wars
        own_collect = type(self).collect is TableGame.collect  # a take of `tie`'s collected in line
        seats = [0, 1]
        cards: list[int] = []
        takers: list[int] = []
        noted: list[tuple[int, str]] = []  # (duel of the run, kind) where the taker's card logs an event of `decides`
        log, took, note = cards.extend, takers.append, noted.append
        start = battle = 0
        for battle in range(1, last + 1):  # battle number `battle`
            up, other = take_first(), take_second()
            up_strength, other_strength = strengths[up], strengths[other]
            if up_strength > other_strength and second:
                # a duel (shuffled_duels), with the event `decides` gives of its two cards (`decided`), if any
                if decisive and other in decisive[up]:
                    note((len(takers), decisive[up][other]))
                if draw() & 1:
                    put_first((up, other))
                    log((up, other, up, other))
                else:
                    put_first((other, up))
                    log((up, other, other, up))
                took(0)
                continue
            if other_strength > up_strength and first:
                if decisive and up in decisive[other]:
                    note((len(takers), decisive[other][up]))
                if draw() & 1:
                    put_second((up, other))
                    log((up, other, up, other))
                else:
                    put_second((other, up))
                    log((up, other, other, up))
                took(1)
                continue
            if takers:  # the run of duels before this battle (its cards and takers copied by `report`)
                report(start + 1, seats, cards, takers, noted)
                self.taker = takers[-1]
                cards.clear()
                takers.clear()
                if noted:  # kept by the recorder as it is
                    noted = []
                    note = noted.append
            self.table = table = [up, other]
            plays(battle, seats, table)
            if up_strength == other_strength:
                if tie_hook is not None:  # a seat may take the table at once
                    self.played, self.up = [[up], [other]], {0: up, 1: other}
                    claimed = tie_hook(battle, [0, 1], up_strength)
                    if claimed is not None:
                        self.taker, kind = claimed
                        if own_collect:  # TableGame.collect, in line: the table under the taker's pile
                            taken = self.table
                            piles[self.taker].extend(taken)
                            emit(battle, kind, self.taker, taken)
                        else:
                            self.collect(self.taker, list(self.table), battle, kind)
                        if not (first and second and alive[0] and alive[1]) and s.eliminate(
                                battle, alive, self.holding, emit):
                            return battle
                        start = battle
                        continue
                winner, depth = self.two_seat_wars(battle, table, kit)
                s.count_war(battle, depth)
            else:  # the loser's last card: a battle of the two cards
                winner = 0 if up_strength > other_strength else 1
                if decisive:  # `decided` of the two cards: the loser's gives the event, if any
                    kind = decisive[table[winner]].get(table[1 - winner])
                    if kind is not None:
                        emit(battle, kind, winner, (table[winner],))
                if not draw() & 1:  # chance.order of the two cards, as a duel draws it
                    table.reverse()
                piles[winner].extend(table)
                emit(battle, "collect", winner, table)
                self.taker = winner
                if not (first and second and alive[0] and alive[1]) and s.eliminate(battle, alive, self.holding, emit):
                    return battle
                start = battle
                continue
            if winner is None:
                self.set_aside(battle)
            else:
                taken = order("collect", winner, table)
                piles[winner].extend(taken)
                emit(battle, "collect", winner, taken)
                self.taker = winner
                if depth and s.won_war(winner, wars_to_win):
                    return battle
            if not (first and second and alive[0] and alive[1]) and s.eliminate(battle, alive, self.holding, emit):
                return battle
            start = battle
        if takers:
            report(start + 1, seats, cards, takers, noted)
        s.outcome = "capped"
        return battle

    def two_seat_kit(self) -> tuple:
        """What two_seat_wars reads of the game, the same at every war of it: made once a game by
        the loop that calls it, not read again at each of its wars."""
        first_pile, second_pile = self.piles
        emit, rec = self.emit, self.rec
        war_round = (rec.war_round if emit == rec.emit and hasattr(rec, "war_round")
                     else Recorder.war_round.__get__(self))
        return (first_pile, second_pile, first_pile.popleft, second_pile.popleft, emit, self.strengths, self.rank,
                self.values, self.single_up, self.fixed_down, self.lose, war_round)

    def two_seat_wars(self, battle: int, table: list[int], kit: tuple) -> tuple[int | None, int]:
        """`wars` for the two seats of a two-seat game (0 and 1, tied on the table's two cards),
        step for step with the same events, where the game's class overrides no step, no seat
        keeps a won pile and no pickup reads `laid`: each seat's cards are its pile, so a seat
        holding more than one card lays its war's cards and its face-up card from the pile with
        no reshuffle and no check. A round where a seat holds no card, or forfeits
        (shortfall=lose), is `join_war`'s. `played` is left as `wars` leaves it; `up` is not
        kept. `kit`: the game's `two_seat_kit()`. The winner (None when nobody could go on) and
        how many wars it took."""
        (first_pile, second_pile, take_first, take_second, emit, strengths, rank, values, single_up, fixed_down,
         lose, war_round) = kit
        first_up, second_up = table
        first_played, second_played = [first_up], [second_up]
        self.played = [first_played, second_played]
        tied = [0, 1]
        depth = 0
        while True:
            depth += 1
            self.step = depth
            # war_size, in line
            down = 0 if single_up and depth >= 2 else fixed_down if values is None else values[rank[first_up]] - 1
            first_holds, second_holds = len(first_pile), len(second_pile)
            if not first_holds or not second_holds or lose and (first_holds <= down or second_holds <= down):
                emit(battle, "war", None, (), tied, (), depth)
                self.up = {0: first_up, 1: second_up}
                ready = self.join_war(battle, tied, down)  # one seat at most is ready
                return (ready[0] if ready else None), depth
            # each seat's cards down (three, Classic War's, taken without a comprehension's call),
            # then its card up
            count = down if down < first_holds else first_holds - 1
            first_down = ([take_first(), take_first(), take_first()] if count == 3
                          else [take_first() for _ in range(count)] if count else ())
            first_up = take_first()
            count = down if down < second_holds else second_holds - 1
            second_down = ([take_second(), take_second(), take_second()] if count == 3
                           else [take_second() for _ in range(count)] if count else ())
            second_up = take_second()
            table += first_down
            table.append(first_up)
            table += second_down
            table.append(second_up)
            first_played += first_down
            first_played.append(first_up)
            second_played += second_down
            second_played.append(second_up)
            war_round(battle, depth, tied, first_down, first_up, second_down, second_up)
            first_strength, second_strength = strengths[first_up], strengths[second_up]
            if first_strength != second_strength:
                winner = 0 if first_strength > second_strength else 1
                if self.decisive:  # as `best` logs it
                    self.decided(battle, winner, (first_up, second_up)[winner], (first_up, second_up))
                return winner, depth

    def duels(self, battle: int, seats: list[int], keys) -> tuple[int, bool]:
        """Battles after battle `battle` between the two seats still in (`seats`), one after
        another, while each is a duel: both play their top card, the two differ in strength, and
        the loser holds another card. Each is the battle `battles` plays, with the same draws and
        events, without its steps for what does not happen in a duel (wars, reshuffles,
        eliminations, hooks: `battles` calls this only while the class overrides no step but
        those of ASIDE; a battle where `decides` logs an event ends the run), and
        their events are reported at once, when the run ends (`rec.duels`). Before each, the
        position is looked up as `battles` looks it up (`keys`: piles_by's table; None where no
        cycle is looked for). (The battles played by then, whether the game is over: a cycle.)"""
        if keys is None and self.pickup == "shuffled":
            return self.shuffled_duels(battle, seats), False
        first_seat, second_seat = seats
        first, second = self.piles[first_seat], self.piles[second_seat]
        piles, strengths, pickup, draw, seen = self.piles, self.strengths, self.pickup, self.chance.draw, self.seen
        decisive = self.decisive
        shuffled, winner_first = pickup == "shuffled", pickup == "winner_first"
        pair = len(piles) == 2  # the two seats are the game's: its position is their two piles
        cards: list[int] = []
        takers: list[int] = []
        start, last = battle, self.max_battles
        over = False
        while battle < last and first and second:
            up, other = first[0], second[0]
            up_strength, other_strength = strengths[up], strengths[other]
            if up_strength == other_strength:
                break  # a war
            taker, loser = (first_seat, second) if up_strength > other_strength else (second_seat, first)
            if len(loser) < 2:
                break  # the loser's last card: the battle puts it out
            if decisive and (other in decisive[up] or up in decisive[other]):
                break  # an event of `decides`
            if keys is not None:  # Game.repeats, as `battles` does it
                key = ((bytes(first).translate(keys), bytes(second).translate(keys)) if pair
                       else tuple([bytes(pile).translate(keys) for pile in piles])), ()
                seen_at = seen.get(key)
                if seen_at is not None:
                    self._cycle(battle, seen_at)
                    over = True
                    break
                seen[key] = battle
            battle += 1
            first.popleft()
            second.popleft()
            if shuffled:  # chance.order of the table: one draw, its low bit keeps the two cards (1) or swaps them
                taken = [up, other] if draw() & 1 else [other, up]
            elif winner_first:
                taken = [up, other] if taker == first_seat else [other, up]
            else:  # table_order
                taken = [up, other]
            piles[taker].extend(taken)
            cards += (up, other)
            cards += taken
            takers.append(taker)
        if takers:
            self.rec.duels(start + 1, seats, cards, takers)
            self.taker = takers[-1]
        return battle, over

    def shuffled_duels(self, battle: int, seats: list[int]) -> int:
        """`duels` under pickup=shuffled, where no position is kept: each duel's two cards are
        taken off the piles first and put back on top if the battle is not a duel (a war, or the
        loser's last card), the winner's branch taken once, the table's order drawn there. The
        battles played by then."""
        first_seat, second_seat = seats
        first, second = self.piles[first_seat], self.piles[second_seat]
        strengths, draw, last, decisive = self.strengths, self.chance.draw, self.max_battles, self.decisive
        take_first, take_second, put_first, put_second = first.popleft, second.popleft, first.extend, second.extend
        cards: list[int] = []
        takers: list[int] = []
        log, took = cards.extend, takers.append
        start = battle
        if first and second:  # and so they stay: a duel's loser holds another card, its winner gains one
            while battle < last:
                up, other = take_first(), take_second()
                up_strength, other_strength = strengths[up], strengths[other]
                if up_strength > other_strength and second and not (decisive and other in decisive[up]):
                    if draw() & 1:  # chance.order of the table: one draw, its low bit keeps the two cards (1) or swaps them
                        put_first((up, other))
                        log((up, other, up, other))
                    else:
                        put_first((other, up))
                        log((up, other, other, up))
                    took(first_seat)
                elif other_strength > up_strength and first and not (decisive and up in decisive[other]):
                    if draw() & 1:
                        put_second((up, other))
                        log((up, other, up, other))
                    else:
                        put_second((other, up))
                        log((up, other, other, up))
                    took(second_seat)
                else:  # a war, the loser's last card or an event of `decides`: back on the piles, for `battles`
                    first.appendleft(up)
                    second.appendleft(other)
                    break
                battle += 1
        if takers:
            self.rec.duels(start + 1, seats, cards, takers)
            self.taker = takers[-1]
        return battle

    def by_seat(self, seats: list[int], cards: list[int]) -> list[list[int]]:
        """`played` at a battle's first step: each seat's card of `cards`, played by `seats` in
        turn, and no card for a seat out of the game."""
        if len(seats) == self.n:  # every seat is in
            return [[card] for card in cards]
        played: list[list[int]] = [[] for _ in range(self.n)]
        for seat, card in zip(seats, cards):
            played[seat].append(card)
        return played

    def close_battle(self, battle: int, winner: int | None, depth: int) -> bool:
        """After the wars: the collector picks up the table (or it is set aside), a war won may
        win the game under wars:N before eliminations (ruling 6), then seats holding nothing are
        out. True when the game is over. (play.Game's, with the collector a hook.)"""
        s = self.summary
        if depth:
            s.count_war(battle, depth)
        seat = None if winner is None else self.collector(battle, winner, depth)
        if seat is None:
            self.set_aside(battle)
        else:
            self.collect(seat, self.pick_up(seat, battle), battle)
            self.taker = seat
        if winner is not None and depth and s.won_war(winner, self.wars_to_win):
            return True
        return s.eliminate(battle, self.alive, self.holding, self.emit)

    def play_up(self, seat: int, battle: int) -> None:
        """In a war, the seat plays its top card face up."""
        pile = self.piles[seat]
        if not pile:
            self.reshuffle(seat, battle)
        c = pile.popleft()
        self.table.append(c)
        self.played[seat].append(c)
        self.laid[c] = (self.step, True)
        self.up[seat] = c
        self.emit(battle, "play", seat, (c,))

    def join_war(self, battle: int, tied: list[int], down: int) -> list[int]:
        """The tied seats able to fight, settled before anyone lays a card down (ruling 1): a seat
        holding nothing is out of the war; under shortfall=lose, one holding no more than `down`
        cards forfeits."""
        ready = []
        for seat in tied:
            have = self.holding(seat)
            if have == 0:
                self.emit(battle, "war_out", seat)
            elif self.lose and have <= down:
                self.forfeit(seat, battle)
            else:
                ready.append(seat)
        return ready
