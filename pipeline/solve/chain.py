"""The game under shuffled pickup as a Markov chain on positions by rank (docs/solve.md).

A position is both piles as sequences of ranks (top first). It is stored as one sequence, pile 0
then pile 1, and the size of pile 0: its index is (size - 1) * M + the lexicographic rank of the
sequence among the M distinct sequences of the deck's ranks (a permutation of a multiset, as
model.all_deals numbers deals). Every index is a position and every position one index: the
ranking is a bijection, so the chain's arrays need no table of positions.

A battle is played as the table engine plays it (engines/table/reference.py): the cards it lays
follow from the position alone; only the order of the won cards under the winner's pile is
random, a uniform shuffle of the table, so in ranks every distinct order of the table's ranks is
equally likely (each is the same number of the shuffle's orders). A position either ends the game
in its battle (a win or a draw) or moves to one of D equally likely positions, D the number of
distinct orders of the table's ranks.

Seat swap: a position and its twin with the piles swapped have mirrored values (P(seat 0 wins)
of one is P(seat 1 wins) of the other; the battles and cards laid are the same), so only one of
each pair is a row: the one of smaller index (pile 0 the shorter, or at equal sizes the smaller
rank). A successor or a deal is then a code 2 * row + flip, flip 1 when it is the row's twin. A
symmetric position (both piles the same sequence) is its own twin, a row of its own whose
successors come in mirrored pairs, so its two chances are equal without being told.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, prange

from ..engines.compiled.deals import _multinomial as multinomial, sequence_rank, sequence_unrank
from ..engines.compiled.jit import njit

# What a position's battle does (`kind` of a row).
GOES_ON, WIN0, WIN1, DRAW = 0, 1, 2, 3


@njit(cache=True)
def seq_rank(seq, counts, m_all) -> int:
    """The lexicographic rank of `seq` among the distinct sequences of `counts`' multiset
    (`m_all` their number): the enumeration's own ranking (engines.compiled.deals)."""
    return sequence_rank(counts, m_all, seq)


@njit(cache=True)
def seq_unrank(rank, counts, m_all, out) -> None:
    """The sequence of lexicographic rank `rank` (seq_rank's inverse), written into `out`."""
    sequence_unrank(counts, m_all, rank, out)


@njit(cache=True)
def battle(s, k, down, single_up, lose, tcnt):
    """One battle from the position (`s`, pile 0 = s[:k], pile 1 = s[k:]), as the table engine
    plays it for 2 seats: the table's ranks counted into `tcnt`; the winner (-1: nobody, the
    table set aside), where each pile's rest starts (i0, i1) and the cards laid."""
    n = s.shape[0]
    tcnt[:] = 0
    i0, i1, e0, e1 = 0, k, k, n
    c0, c1 = s[i0], s[i1]
    i0 += 1
    i1 += 1
    tcnt[c0] += 1
    tcnt[c1] += 1
    laid = 2
    if c0 != c1:
        return (0 if c0 > c1 else 1), i0, i1, laid
    depth = 0
    while True:
        depth += 1
        d = 0 if (single_up and depth >= 2) else down
        h0, h1 = e0 - i0, e1 - i1
        r0, r1 = h0 > 0, h1 > 0
        if lose:  # a seat that cannot complete the war puts all it holds on the table (2.3)
            if r0 and h0 <= d:
                for j in range(i0, e0):
                    tcnt[s[j]] += 1
                laid += h0
                i0, r0 = e0, False
            if r1 and h1 <= d:
                for j in range(i1, e1):
                    tcnt[s[j]] += 1
                laid += h1
                i1, r1 = e1, False
        if not (r0 and r1):
            return (0 if r0 else 1 if r1 else -1), i0, i1, laid
        k0, k1 = min(d, h0 - 1), min(d, h1 - 1)
        for j in range(i0, i0 + k0 + 1):
            tcnt[s[j]] += 1
        for j in range(i1, i1 + k1 + 1):
            tcnt[s[j]] += 1
        u0, u1 = s[i0 + k0], s[i1 + k1]
        i0 += k0 + 1
        i1 += k1 + 1
        laid += k0 + k1 + 2
        if u0 != u1:
            return (0 if u0 > u1 else 1), i0, i1, laid


@njit(cache=True)
def _outcome(s, k, down, single_up, lose, tcnt):
    """The battle's kind (GOES_ON, WIN0, WIN1, DRAW), winner, pile rests and cards laid."""
    n = s.shape[0]
    w, i0, i1, laid = battle(s, k, down, single_up, lose, tcnt)
    if w < 0:
        return DRAW, w, i0, i1, laid
    if w == 0 and i1 == n:
        return WIN0, w, i0, i1, laid
    if w == 1 and i0 == k:
        return WIN1, w, i0, i1, laid
    return GOES_ON, w, i0, i1, laid


@njit(cache=True)
def _next_perm(a) -> bool:
    """The next distinct order of `a` in lexicographic order, in place; False after the last."""
    n = a.shape[0]
    i = n - 2
    while i >= 0 and a[i] >= a[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while a[j] <= a[i]:
        j -= 1
    a[i], a[j] = a[j], a[i]
    a[i + 1:] = a[i + 1:][::-1].copy()
    return True


@njit(cache=True)
def canonical(seq, k, counts, m_all, halve, twin) -> int:
    """The code 2 * index + flip of the position (`seq`, pile 0 = seq[:k]): its own index, flip
    0, or with `halve` its twin's (the piles swapped) when that index is smaller, flip 1. The
    twin of a shorter pile 0 has the longer one, so only equal piles need the twin ranked.
    `twin` is scratch."""
    n = seq.shape[0]
    own = (k - 1) * m_all + seq_rank(seq, counts, m_all)
    if not halve or 2 * k < n:
        return 2 * own
    for j in range(n - k):
        twin[j] = seq[k + j]
    for j in range(k):
        twin[n - k + j] = seq[j]
    other = (n - k - 1) * m_all + seq_rank(twin, counts, m_all)
    if other < own:
        return 2 * other + 1
    return 2 * own


@njit(cache=True)
def twin_index(x, counts, m_all, n) -> int:
    """The index of position x's twin, the piles swapped."""
    k = x // m_all + 1
    s = np.empty(n, np.int8)
    t = np.empty(n, np.int8)
    seq_unrank(x % m_all, counts, m_all, s)
    for j in range(n - k):
        t[j] = s[k + j]
    for j in range(k):
        t[n - k + j] = s[j]
    return (n - k - 1) * m_all + seq_rank(t, counts, m_all)


@njit(cache=True)
def _successors(s, k, w, i0, i1, tcnt, counts, m_all, out, t, halve) -> int:
    """Every position the battle can lead to (one per distinct order of the table's ranks under
    the winner's pile), their codes (canonical) written into `out`; how many. `t` is scratch."""
    n = s.shape[0]
    size = 0
    for r in range(tcnt.shape[0]):
        for _ in range(tcnt[r]):
            t[size] = r
            size += 1
    table = t[:size]
    rest0 = k - i0
    nxt = np.empty(n, np.int8)
    twin = np.empty(n, np.int8)
    count = 0
    while True:
        p = 0
        for j in range(i0, k):
            nxt[p] = s[j]
            p += 1
        if w == 0:
            for j in range(size):
                nxt[p] = table[j]
                p += 1
            k2 = rest0 + size
        for j in range(i1, n):
            nxt[p] = s[j]
            p += 1
        if w == 1:
            for j in range(size):
                nxt[p] = table[j]
                p += 1
            k2 = rest0
        out[count] = canonical(nxt, k2, counts, m_all, halve, twin)
        count += 1
        if not _next_perm(table):
            return count
    return count  # unreachable; numba wants every path to return


@njit(cache=True)
def deal_index(deal_seq, counts, m_all, halve=False) -> int:
    """The position a deal (the deck's ranks in order) starts: card i to seat i mod 2; its
    code 2 * index + flip (canonical)."""
    n = deal_seq.shape[0]
    s = np.empty(n, np.int8)
    twin = np.empty(n, np.int8)
    h = n // 2
    for i in range(h):
        s[i] = deal_seq[2 * i]
        s[h + i] = deal_seq[2 * i + 1]
    return canonical(s, h, counts, m_all, halve, twin)


@njit(cache=True)
def all_deal_positions(deck_counts, to_game, counts, m_all, n, halve):
    """The starting position of every deal, as a code 2 * index + flip: deal i is the sequence
    of the deck's rank indices of lexicographic rank i (as model.all_deals numbers them), each
    mapped to its rank in play (`to_game`: aces low moves the Ace)."""
    out = np.empty(m_all, np.int64)
    seq = np.empty(n, np.int8)
    for i in range(m_all):
        seq_unrank(i, deck_counts, m_all, seq)
        for j in range(n):
            seq[j] = to_game[seq[j]]
        out[i] = deal_index(seq, counts, m_all, halve)
    return out


# Work a call of machine code does before Python runs again: a slice of the search (successors
# looked at) or of the chain's rows (blocks a thread), so that a Ctrl-C or SIGTERM, which Python
# hears only between calls, stops `war solve` within about a second, not at the end of a
# search of a minute (2x5 with a card down: 60 s each for the search and the chain).
SEARCH_SLICE = 1 << 20
BLOCKS_A_THREAD = 8


def reachable(starts, counts, m_all, n, down, single_up, lose, most_succ, halve):
    """Which indices the deals reach (a search from every start's code), as a mask over all
    indices: with `halve`, only one of each pair of twins (chain's docstring); and how many, or
    -1 when a battle lays a table of more than `most_succ` orders. The search in slices
    (_search), Python running between them."""
    total = (n - 1) * m_all
    seen = np.zeros(total, np.bool_)
    # with halve, at most half the indices and the symmetric ones (at most m_all) are rows
    queue = np.empty(total // 2 + m_all if halve else total, np.int64)
    head, tail = 0, _search_starts(starts, seen, queue)
    while 0 <= head < tail:
        head, tail = _search(queue, head, tail, seen, counts, m_all, n, down, single_up, lose, most_succ, halve,
                             SEARCH_SLICE)
    return seen, tail


@njit(cache=True)
def _search_starts(starts, seen, queue) -> int:
    """The search's queue begun with every start's index, once each: its length."""
    tail = 0
    for code in starts:
        x = code >> 1
        if not seen[x]:
            seen[x] = True
            queue[tail] = x
            tail += 1
    return tail


@njit(cache=True)
def _search(queue, head, tail, seen, counts, m_all, n, down, single_up, lose, most_succ, halve, work):
    """The search from `head` of the queue, breadth first, until the queue is done or about
    `work` successors have been looked at: (head, tail) where it stopped; tail -1 when a battle
    lays a table of more than `most_succ` orders."""
    s = np.empty(n, np.int8)
    tcnt = np.zeros(counts.shape[0], np.int64)
    out = np.empty(most_succ, np.int64)
    t = np.empty(n, np.int8)
    done = 0
    while head < tail and done < work:
        x = queue[head]
        head += 1
        done += 1
        k = x // m_all + 1
        seq_unrank(x % m_all, counts, m_all, s)
        kind, w, i0, i1, laid = _outcome(s, k, down, single_up, lose, tcnt)
        if kind != GOES_ON:
            continue
        if multinomial(tcnt) > most_succ:
            return head, -1
        c = _successors(s, k, w, i0, i1, tcnt, counts, m_all, out, t, halve)
        done += c
        for j in range(c):
            y = out[j] >> 1
            if not seen[y]:
                seen[y] = True
                queue[tail] = y
                tail += 1
    return head, tail


def transitions(ids, compact, counts, m_all, n, down, single_up, lose, most_succ, halve, bounds):
    """The chain over the reached positions `ids` (compact[index] = row): each row's kind, cards
    laid, and successors as compressed rows (start[row] .. start[row + 1] in `succ`), each
    successor the code 2 * row + flip. Rows are independent: the blocks of rows `bounds` cuts
    are shared out among the threads (each with its own scratch), in two passes (how many
    successors, then which), each pass a few blocks a thread at a time, Python running between."""
    rows = ids.shape[0]
    blocks = bounds.shape[0] - 1
    step = BLOCKS_A_THREAD * get_num_threads()
    slices = [(first, min(first + step, blocks)) for first in range(0, blocks, step)]
    kind = np.empty(rows, np.int8)
    laid = np.empty(rows, np.int16)
    start = np.zeros(rows + 1, np.int64)
    for first, last in slices:
        _count_moves(ids, counts, m_all, n, down, single_up, lose, bounds, first, last, kind, laid, start)
    np.cumsum(start, out=start)
    succ = np.empty(start[rows], np.int32)
    for first, last in slices:
        _fill_moves(ids, compact, counts, m_all, n, down, single_up, lose, most_succ, halve, bounds, first, last,
                    kind, start, succ)
    return kind, laid, start, succ


@njit(cache=True, parallel=True)
def _count_moves(ids, counts, m_all, n, down, single_up, lose, bounds, first, last, kind, laid, start):
    """transitions' first pass over blocks first .. last - 1: each row's kind, cards laid, and
    how many successors (at start[row + 1])."""
    for block in prange(first, last):
        s = np.empty(n, np.int8)
        tcnt = np.zeros(counts.shape[0], np.int64)
        for row in range(bounds[block], bounds[block + 1]):
            x = ids[row]
            k = x // m_all + 1
            seq_unrank(x % m_all, counts, m_all, s)
            kd, w, i0, i1, ld = _outcome(s, k, down, single_up, lose, tcnt)
            kind[row], laid[row] = kd, ld
            start[row + 1] = multinomial(tcnt) if kd == GOES_ON else 0


@njit(cache=True, parallel=True)
def _fill_moves(ids, compact, counts, m_all, n, down, single_up, lose, most_succ, halve, bounds, first, last,
                kind, start, succ):
    """transitions' second pass over blocks first .. last - 1: each row's successors."""
    for block in prange(first, last):
        s = np.empty(n, np.int8)
        tcnt = np.zeros(counts.shape[0], np.int64)
        out = np.empty(most_succ, np.int64)
        t = np.empty(n, np.int8)
        for row in range(bounds[block], bounds[block + 1]):
            if kind[row] != GOES_ON:
                continue
            x = ids[row]
            k = x // m_all + 1
            seq_unrank(x % m_all, counts, m_all, s)
            kd, w, i0, i1, ld = _outcome(s, k, down, single_up, lose, tcnt)
            c = _successors(s, k, w, i0, i1, tcnt, counts, m_all, out, t, halve)
            for j in range(c):
                code = out[j]
                succ[start[row] + j] = 2 * compact[code >> 1] + (code & 1)


@njit(cache=True)
def reverse(start, succ, rows):
    """The predecessors of each row, as compressed rows (a counting sort of the edges; a
    successor's flip does not matter to who reaches whom)."""
    rstart = np.zeros(rows + 1, np.int64)
    for e in range(succ.shape[0]):
        rstart[(succ[e] >> 1) + 1] += 1
    for r in range(rows):
        rstart[r + 1] += rstart[r]
    fill = rstart[:-1].copy()
    pred = np.empty(succ.shape[0], np.int32)
    for r in range(rows):
        for e in range(start[r], start[r + 1]):
            y = succ[e] >> 1
            pred[fill[y]] = r
            fill[y] += 1
    return rstart, pred


@njit(cache=True)
def backward_closure(marked, rstart, pred):
    """Every row from which a marked row can be reached (the marked rows included)."""
    rows = marked.shape[0]
    seen = marked.copy()
    queue = np.empty(rows, np.int64)
    tail = 0
    for r in range(rows):
        if seen[r]:
            queue[tail] = r
            tail += 1
    head = 0
    while head < tail:
        y = queue[head]
        head += 1
        for e in range(rstart[y], rstart[y + 1]):
            x = pred[e]
            if not seen[x]:
                seen[x] = True
                queue[tail] = x
                tail += 1
    return seen


@njit(cache=True)
def symmetric(ids, counts, m_all, n):
    """Which positions are their own twin (both piles the same sequence of ranks)."""
    out = np.zeros(ids.shape[0], np.bool_)
    s = np.empty(n, np.int8)
    h = n // 2
    for r in range(ids.shape[0]):
        x = ids[r]
        if 2 * (x // m_all + 1) != n:
            continue
        seq_unrank(x % m_all, counts, m_all, s)
        same = True
        for j in range(h):
            if s[j] != s[h + j]:
                same = False
                break
        out[r] = same
    return out


@njit(cache=True)
def twin_indices(xs, counts, m_all, n):
    """twin_index of each of `xs`."""
    out = np.empty(xs.shape[0], np.int64)
    for i in range(xs.shape[0]):
        out[i] = twin_index(xs[i], counts, m_all, n)
    return out
