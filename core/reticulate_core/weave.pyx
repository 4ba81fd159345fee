# cython: language_level=3
"""Weaving one region (seed: "Weave connected region").

A region is triangulated with no vertex but its nodes, so it gets exactly
B - 2 chi triangles (DESIGN.md, guarantee 3).  ``weave_rectangle`` weaves
a rectangle with no node inside two opposite sides (a strip one cell wide
among them) straight from its row masks.  Any other region is traced
first (``trace.trace_runs_in_order`` for the pieces of single-run rows of
pieces.pyx, else ``trace.trace_region``) and its nodes woven:
``weave_monotone`` weaves one cycle monotone in sweep order (v, u)
(``weave_cycle`` tries the mirrored order (v, -u) too); ``weave_sweep``
weaves nodes already in sweep order, as ``trace_runs_in_order`` writes
them in the order ``run_orders`` finds (each row line by u or by -u, as
the runs' steps there need; cut along the row lines where they conflict);
``weave_partitioned`` first cuts any cycles into monotone pieces by a
sweep that also takes holes and pinch points.
"""
from libc.stdint cimport int32_t, int64_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from reticulate_core.chunk_state cimport POOL, State, region_rectangle
from reticulate_core.vertices cimport _emit, _emitted, _put, _straight_in_s, _weld


cdef inline int64_t _cross(int ox, int oy, int ax, int ay, int bx, int by) noexcept nogil:
    """cross(a - o, b - o)."""
    return <int64_t>(ax - ox) * (by - oy) - <int64_t>(ay - oy) * (bx - ox)


cdef inline bint _locally_inside(State* st, int w, int dx, int dy) noexcept nogil:
    """Direction (dx, dy) from node w points strictly into the polygon's wedge at w."""
    cdef int p = st.nprev[w], n = st.nnext[w]
    cdef int wu = st.nu[w], wv = st.nv[w]
    cdef int64_t turn = _cross(st.nu[p], st.nv[p], wu, wv, wu + (st.nu[n] - wu), wv + (st.nv[n] - wv))
    cdef int64_t c_nd = <int64_t>(st.nu[n] - wu) * dy - <int64_t>(st.nv[n] - wv) * dx
    cdef int64_t c_dp = <int64_t>dx * (st.nv[p] - wv) - <int64_t>dy * (st.nu[p] - wu)
    cdef int64_t c_pd, c_dn
    if turn > 0:
        return c_nd > 0 and c_dp > 0
    # reflex or straight: inside unless in the closed exterior wedge from p-w to n-w
    c_pd = -c_dp
    c_dn = -c_nd
    return not (c_pd >= 0 and c_dn >= 0)


cdef int _split(State* st, int a, int b) noexcept nogil:
    """Connect nodes a and b by a diagonal (earcut's splitPolygon).

    Afterwards a -> b -> ... is one cycle and the copy a2 -> (old a.next) ...
    -> copy b2 -> a2 the other (one cycle if a and b were on different
    cycles).  Returns a2, or -1 when the pool is full.
    """
    cdef int a2, b2, an, bp
    if st.n_nodes + 2 > POOL:
        return -1
    a2 = st.n_nodes
    b2 = st.n_nodes + 1
    st.n_nodes += 2
    st.nu[a2] = st.nu[a]
    st.nv[a2] = st.nv[a]
    st.nu[b2] = st.nu[b]
    st.nv[b2] = st.nv[b]
    st.nvert[a2] = st.nvert[a]
    st.nvert[b2] = st.nvert[b]
    st.nkey[a2] = st.nkey[a]
    st.nkey[b2] = st.nkey[b]
    st.norig[a2] = st.norig[a]
    st.norig[b2] = st.norig[b]
    an = st.nnext[a]
    bp = st.nprev[b]
    st.nnext[a] = b
    st.nprev[b] = a
    st.nnext[a2] = an
    st.nprev[an] = a2
    st.nnext[b2] = a2
    st.nprev[a2] = b2
    st.nnext[bp] = b2
    st.nprev[b2] = bp
    return a2


cdef inline bint _put_ccw(int32_t* out, int flip, const int* nu, const int* nv, const int* vert,
                          int p, int q, int r) noexcept nogil:
    """Nodes p, q, r of arrays nu, nv, vert as a triangle into out[0:3],
    counter-clockwise (clockwise when flip); False (out unchanged) when
    they are collinear.  _emitted counts such triangles."""
    cdef int64_t turn = _cross(nu[p], nv[p], nu[q], nv[q], nu[r], nv[r])
    if turn == 0:
        return False
    if turn < 0:
        q, r = r, q
    _put(out, vert, flip, p, q, r)
    return True


# sweep orders: bit y of mirror_rows set takes the points of row line v = y
# by -u, else by u; (v, u) is no row line mirrored, (v, -u) all of them
cdef uint64_t ALL_ROWS = ~(<uint64_t>0)


cdef inline void _sweep_copy(State* st, int m, int k) noexcept nogil:
    """Node k as node m in sweep order for weave_sweep."""
    st.sweep_u[m] = st.nu[k]
    st.sweep_v[m] = st.nv[k]
    st.sweep_vert[m] = st.nvert[k]


cdef inline int _sweep_key(State* st, int k, uint64_t mirror_rows) noexcept nogil:
    """Sweep key of node k: 64 v + u, or 64 v + 32 - u on a mirrored row line."""
    return st.nkey[k] + (32 - 2 * st.nu[k] if (mirror_rows >> st.nv[k]) & 1 else 0)


cdef bint weave_monotone(State* st, int low, int n, uint64_t mirror_rows,
                         int a, int positive, uint16_t material) noexcept nogil:
    """Weave the polygon bounded by the n-node cycle of node low, its lowest
    node and only local minimum in the sweep order of mirror_rows (by v,
    then by u or, on the row lines mirrored, by -u): the cycle is monotone
    in that order.  Such an order is a sweep by lines, each tilted a little
    on its row line, so the classic algorithm applies.

    The chain from low along nnext (0, the right side) and the chain along
    nprev (1, the left side) both rise.  Nodes are taken in sweep order,
    keeping a stack of reflex nodes of one chain: a node of the other chain
    sees the whole stack; a node of the same chain cuts off the convex
    corners below it (de Berg et al., "Triangulating a Monotone Polygon").
    Every node is a vertex and no other point, so the n nodes give n - 2
    triangles.  Returns False, having emitted nothing, when two nodes share
    a key (a pinch point repeats a position) or a triangle would be
    degenerate.
    """
    cdef int i, j, m, key_i, key_j
    # merge the two rising chains into sweep order
    _sweep_copy(st, 0, low)
    i = st.nnext[low]
    j = st.nprev[low]
    key_i = _sweep_key(st, i, mirror_rows)
    key_j = _sweep_key(st, j, mirror_rows)
    m = 1
    while i != j:
        if key_i < key_j:
            _sweep_copy(st, m, i)
            st.chain[m] = 0
            i = st.nnext[i]
            key_i = _sweep_key(st, i, mirror_rows)
        elif key_i > key_j:
            _sweep_copy(st, m, j)
            st.chain[m] = 1
            j = st.nprev[j]
            key_j = _sweep_key(st, j, mirror_rows)
        else:
            return False
        m += 1
    if m != n - 1:
        return False
    _sweep_copy(st, m, i)       # the highest node
    return weave_sweep(st, n, st.sweep_u, st.sweep_v, st.sweep_vert, a, positive, material)


cdef bint weave_sweep(State* st, int n, const int* nu, const int* nv, const int* vert,
                     int a, int positive, uint16_t material) noexcept nogil:
    """weave_monotone's triangles from its n nodes in sweep order, node m
    at (nu[m], nv[m]) with welded vertex vert[m], the lowest first and the
    highest last, each but those two of chain st.chain[m] (0: right, 1:
    left); False, having emitted nothing, when a triangle would be
    degenerate."""
    cdef int k, m, top, last
    cdef int32_t* first = st.triangles + 3 * st.n_triangles
    cdef int32_t* out = first
    cdef int flip = 0 if positive else 1
    cdef bint convex
    cdef int64_t turn
    st.reflex[0] = 0
    st.reflex[1] = 1
    top = 2
    for m in range(2, n - 1):
        if st.chain[m] != st.chain[st.reflex[top - 1]]:
            for k in range(top - 1):
                if not _put_ccw(out, flip, nu, nv, vert, m, st.reflex[k], st.reflex[k + 1]):
                    return False
                out += 3
            st.reflex[0] = m - 1
            st.reflex[1] = m
            top = 2
        else:
            top -= 1
            last = st.reflex[top]
            while top > 0:
                k = st.reflex[top - 1]
                turn = _cross(nu[k], nv[k], nu[last], nv[last], nu[m], nv[m])
                convex = turn > 0 if st.chain[m] == 0 else turn < 0
                if not convex:
                    break
                # (k, last, m) turns by `turn`, not 0: counter-clockwise is
                # (m, k, last) when it is positive, else (m, last, k)
                if turn > 0:
                    _put(out, vert, flip, m, k, last)
                else:
                    _put(out, vert, flip, m, last, k)
                out += 3
                top -= 1
                last = st.reflex[top]
            st.reflex[top] = last
            st.reflex[top + 1] = m
            top += 2
    m = n - 1
    for k in range(top - 1):
        if not _put_ccw(out, flip, nu, nv, vert, m, st.reflex[k], st.reflex[k + 1]):
            return False
        out += 3
    _emitted(st, <int>((out - first) // 3), a, positive, material)
    return True


cdef bint weave_cycle(State* st, int c, int a, int positive, uint16_t material) noexcept nogil:
    """weave_monotone on traced cycle c in sweep order (v, u) when it is
    monotone there, else in the mirrored order (v, -u) when it is monotone
    there (a cycle with a step up to the left has two minima in the first
    order and may have one in the second); False, emitting nothing, when
    neither order weaves it."""
    if st.cyc_minima[0][c] == 1 and weave_monotone(st, st.cyc_low[0][c], st.cyc_nodes[c], 0,
                                                   a, positive, material):
        return True
    return st.cyc_minima[1][c] == 1 and weave_monotone(st, st.cyc_low[1][c], st.cyc_nodes[c], ALL_ROWS,
                                                       a, positive, material)


# kinds of nodes in the upward sweep (keys rising; the region on the left of its edges)
cdef enum:
    START = 0       # both neighbours above, convex: a piece begins
    SPLIT = 1       # both neighbours above, reflex: an interval splits
    END = 2         # both neighbours below, convex: a piece ends
    MERGE = 3       # both neighbours below, reflex: two intervals merge
    DOWN = 4        # on a descending chain: the region lies to its right
    UP = 5          # on a rising chain: the region lies to its left


cdef inline int _sweep_rank(State* st, int k) noexcept nogil:
    """Node k's place in the upward sweep: its key, the two passes of a
    pinch point (same key) told apart as if each were moved a little into
    the cell it hugs: the pass with a neighbour below hugs the lower cell
    and comes first.  Moves that small change no other comparison."""
    cdef int v = st.nv[k]
    return 2 * st.nkey[k] + (0 if st.nv[st.nprev[k]] < v or st.nv[st.nnext[k]] < v else 1)


cdef void _sort_sweep(State* st, int n) noexcept nogil:
    """st.sweep[:n] = nodes 0..n-1 in rising _sweep_rank order, their ranks
    in st.nrank: bucketed by row v (ranks are v-major), each row kept sorted
    by insertion."""
    cdef int first[34]
    cdef int fill[33]
    cdef int i, j, v, rank
    memset(first, 0, sizeof(first))
    for i in range(n):
        first[st.nv[i] + 1] += 1
        st.nrank[i] = _sweep_rank(st, i)
    for v in range(33):
        first[v + 1] += first[v]
        fill[v] = first[v]
    for i in range(n):
        v = st.nv[i]
        rank = st.nrank[i]
        j = fill[v]
        fill[v] += 1
        while j > first[v] and st.nrank[st.sweep[j - 1]] > rank:
            st.sweep[j] = st.sweep[j - 1]
            j -= 1
        st.sweep[j] = i


cdef inline int _status_left_of(State* st, int n_status, int v) noexcept nogil:
    """Slot of the status edge directly left of node v, or -1.  Status edges
    cross the sweep line at v and are vertical there (a horizontal one would
    hold v inside it)."""
    cdef int i, k, best = -1, best_u = -1
    for i in range(n_status):
        k = st.status_edge[i]
        if st.nu[k] == st.nu[st.nnext[k]] and st.nu[k] < st.nu[v] and st.nu[k] > best_u:
            best_u = st.nu[k]
            best = i
    return best


cdef inline int _status_slot(State* st, int n_status, int tail) noexcept nogil:
    cdef int i
    for i in range(n_status):
        if st.status_edge[i] == tail:
            return i
    return -1


cdef inline int _copy_toward(State* st, int node, int n_nodes, int to) noexcept nogil:
    """The copy of original node `node` whose wedge holds the direction to node `to`, or -1."""
    cdef int k
    cdef int du = st.nu[to] - st.nu[node], dv = st.nv[to] - st.nv[node]
    if _locally_inside(st, node, du, dv):
        return node
    for k in range(st.n_nodes - 1, n_nodes - 1, -1):
        if st.norig[k] == node and _locally_inside(st, k, du, dv):
            return k
    return -1


cdef int _monotone_diagonals(State* st, int n) noexcept nogil:
    """Diagonals that cut the traced region into pieces monotone in sweep order
    (de Berg et al., "Partitioning a Polygon into Monotone Pieces", swept
    upwards, pinch points ordered by _sweep_rank) into st.diagonals as node
    pairs; their count, or -1 when two nodes share a rank or the status is
    inconsistent."""
    cdef int i, v, p, nx, slot, h, kind, n_status = 0, n_diag = 0
    cdef bint p_above, n_above
    _sort_sweep(st, n)
    for i in range(1, n):
        if st.nrank[st.sweep[i]] == st.nrank[st.sweep[i - 1]]:
            return -1
    for i in range(n):
        v = st.sweep[i]
        p = st.nprev[v]
        nx = st.nnext[v]
        p_above = st.nkey[p] > st.nkey[v]
        n_above = st.nkey[nx] > st.nkey[v]
        if p_above and n_above:
            st.nkind[v] = START if _cross(st.nu[p], st.nv[p], st.nu[v], st.nv[v],
                                          st.nu[nx], st.nv[nx]) > 0 else SPLIT
        elif not p_above and not n_above:
            st.nkind[v] = END if _cross(st.nu[p], st.nv[p], st.nu[v], st.nv[v],
                                        st.nu[nx], st.nv[nx]) > 0 else MERGE
        else:
            st.nkind[v] = DOWN if p_above else UP
    for i in range(n):
        v = st.sweep[i]
        p = st.nprev[v]
        kind = st.nkind[v]
        if kind == END or kind == MERGE or kind == DOWN:
            # the descending edge v -> next ends here
            slot = _status_slot(st, n_status, v)
            if slot < 0:
                return -1
            h = st.status_helper[slot]
            if st.nkind[h] == MERGE:
                st.diagonals[2 * n_diag] = v
                st.diagonals[2 * n_diag + 1] = h
                n_diag += 1
            n_status -= 1
            st.status_edge[slot] = st.status_edge[n_status]
            st.status_helper[slot] = st.status_helper[n_status]
        if kind == SPLIT or kind == MERGE or kind == UP:
            # the interval whose left edge is directly left of v
            slot = _status_left_of(st, n_status, v)
            if slot < 0:
                return -1
            h = st.status_helper[slot]
            if kind == SPLIT or st.nkind[h] == MERGE:
                st.diagonals[2 * n_diag] = v
                st.diagonals[2 * n_diag + 1] = h
                n_diag += 1
            st.status_helper[slot] = v
        if kind == START or kind == SPLIT or kind == DOWN:
            # the descending edge prev -> v starts here
            st.status_edge[n_status] = p
            st.status_helper[n_status] = v
            n_status += 1
    return n_diag


cdef bint _undo_partition(State* st, int n, int first_triangle) noexcept nogil:
    """Drop the pieces' triangles and the diagonals: the traced cycles are back.  False."""
    st.n_triangles = first_triangle
    st.n_nodes = n
    memcpy(st.nnext, st.traced_next, n * sizeof(int))
    memcpy(st.nprev, st.traced_prev, n * sizeof(int))
    return False


cdef inline int _lowest(State* st, int head, uint64_t mirror_rows, int* minima, int* count) noexcept nogil:
    """The lowest node of the cycle of node head in a sweep order, its
    number of local minima there into minima[0] and its number of nodes
    into count[0]; the cycle's nodes are marked in st.woven."""
    cdef int k = head, low = head, next_k, n_minima = 0, n = 0
    cdef int key_prev = _sweep_key(st, st.nprev[head], mirror_rows)
    cdef int key = _sweep_key(st, head, mirror_rows), key_low = key, key_next
    while True:
        st.woven[k] = 1
        n += 1
        next_k = st.nnext[k]
        key_next = _sweep_key(st, next_k, mirror_rows)
        if key < key_low:
            low = k
            key_low = key
        if key_prev > key and key_next > key:
            n_minima += 1
        key_prev = key
        key = key_next
        k = next_k
        if k == head:
            break
    minima[0] = n_minima
    count[0] = n
    return low


cdef bint _weave_pieces(State* st, int n, int first_triangle,
                        int a, int positive, uint16_t material) noexcept nogil:
    """Weave every cycle of the node pool, which holds the n traced nodes
    and the copies the cuts made, in a sweep order where it is monotone:
    (v, u), else (v, -u).  False, with the traced
    cycles back (_undo_partition), when a cycle is monotone in neither or
    does not weave."""
    cdef int head, low, count, minima
    cdef uint64_t order
    memset(st.woven, 0, st.n_nodes)
    for head in range(st.n_nodes):
        if st.woven[head]:
            continue
        order = 0
        low = _lowest(st, head, order, &minima, &count)
        if minima != 1:
            order = ALL_ROWS
            low = _lowest(st, head, order, &minima, &count)
        if minima != 1 or not weave_monotone(st, low, count, order, a, positive, material):
            return _undo_partition(st, n, first_triangle)
    return True


cdef inline int _orders(State* st, int y) noexcept nogil:
    """The ways (bit 0: by u, bit 1: by -u) of taking row line y's points
    in which the step there of the ends of a region of single-run rows (in
    st) adds no local minimum: ends moving right need u, ends moving left -u."""
    cdef int lo = st.run_lo[y] - st.run_lo[y - 1], hi = st.run_hi[y] - st.run_hi[y - 1]
    return (1 if lo >= 0 and hi >= 0 else 0) | (2 if lo <= 0 and hi <= 0 else 0)


cdef int run_orders(State* st, uint64_t* mirror_rows, int* cuts) noexcept nogil:
    """The sweep order of a region whose rows rv0..rv1 are single runs (in
    st): bit y of mirror_rows[0] set where row line y is taken by -u, as
    the steps of the runs' ends there need (_orders), into mirror_rows[0];
    the row lines where one end steps left and the other right, which no
    order suits, into cuts; their number."""
    cdef int y, orders, n_cuts = 0
    mirror_rows[0] = 0
    for y in range(st.rv0 + 1, st.rv1 + 1):
        orders = _orders(st, y)
        if orders == 2:
            mirror_rows[0] |= (<uint64_t>1) << y
        elif orders == 0:
            cuts[n_cuts] = y
            n_cuts += 1
    return n_cuts


cdef bint weave_partitioned(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """Weave the traced cycles (outer and holes) by cutting them into pieces
    monotone in sweep order (v, u) at the diagonals of an upward sweep, which
    takes any region, pinch points included, and weaving each piece.  Only
    nodes are vertices, so the region gets B - 2 chi triangles.  Returns
    False, having emitted nothing and restored the traced cycles, when the
    sweep's status is inconsistent or a piece does not weave: guards, never
    reached on the test corpora (the mesher then raises an internal error)."""
    cdef int n = st.n_nodes, first_triangle = st.n_triangles, n_diag, i, x, y, k
    for k in range(n):
        st.norig[k] = k
    n_diag = _monotone_diagonals(st, n)
    if n_diag < 0 or n + 2 * n_diag > POOL:
        return False
    memcpy(st.traced_next, st.nnext, n * sizeof(int))
    memcpy(st.traced_prev, st.nprev, n * sizeof(int))
    for i in range(n_diag):
        x = _copy_toward(st, st.diagonals[2 * i], n, st.diagonals[2 * i + 1])
        y = _copy_toward(st, st.diagonals[2 * i + 1], n, st.diagonals[2 * i])
        if x < 0 or y < 0:
            return _undo_partition(st, n, first_triangle)
        _split(st, x, y)
    return _weave_pieces(st, n, first_triangle, a, positive, material)


# ---------------------------------------------------------------- rectangles

cdef inline bint _side_point_in_s(State* st, int t, int fixed, int d) noexcept nogil:
    """Whether the straight point at coordinate t along a side in direction
    d (u for d = 0, 2; v for d = 1, 3), at coordinate ``fixed`` across, is in S."""
    return _straight_in_s(st, t, fixed, d) if d & 1 == 0 else _straight_in_s(st, fixed, t, d)


cdef int _side_nodes(State* st, int lo, int hi, int fixed, int d, int* at, int* vertex) noexcept nogil:
    """Nodes of a straight side of a rectangle, from coordinate lo to hi
    along it at coordinate ``fixed`` across (as in _side_point_in_s): both
    ends and the points between them in S.  Returns their number."""
    cdef int t, n = 0
    for t in range(lo, hi + 1):
        if t == lo or t == hi or _side_point_in_s(st, t, fixed, d):
            at[n] = t
            vertex[n] = _weld(st, t, fixed) if d & 1 == 0 else _weld(st, fixed, t)
            n += 1
    return n


cdef bint _side_in_s(State* st, int lo, int hi, int fixed, int d) noexcept nogil:
    """Whether a point strictly between lo and hi of a straight side (as in
    _side_nodes) is in S."""
    cdef int t
    for t in range(lo + 1, hi):
        if _side_point_in_s(st, t, fixed, d):
            return True
    return False


cdef inline bint _row_sides_clear(State* st, int lo, int hi) noexcept nogil:
    """No point of S inside the sides of rectangle lo..hi x rv0..rv1 + 1 on row lines."""
    return not _side_in_s(st, lo, hi, st.rv0, 0) and not _side_in_s(st, lo, hi, st.rv1 + 1, 2)


cdef inline bint _column_sides_clear(State* st, int lo, int hi) noexcept nogil:
    """No point of S inside the sides of rectangle lo..hi x rv0..rv1 + 1 on column lines."""
    return (not _side_in_s(st, st.rv0, st.rv1 + 1, hi, 1)
            and not _side_in_s(st, st.rv0, st.rv1 + 1, lo, 3))


cdef bint weave_rectangle(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """Weave a filled region that is a rectangle of cells with no point of
    S inside two opposite sides (a strip one cell wide always qualifies),
    without tracing it; False (nothing done) for any other region.

    Its nodes are its four corners and the points of the other two sides
    in S.  A zipper from the first corner steps along one of these sides or
    the other, taking the nearer next node: every triangle has two nodes on
    one side and one on the other, parallel lines, so none is degenerate,
    no two cross, and n nodes give n - 2 triangles.
    """
    cdef int lower_at[33]
    cdef int lower[33]
    cdef int upper_at[33]
    cdef int upper[33]
    cdef int m, n, i = 0, j = 0, lo, hi
    cdef bint along_rows
    if not region_rectangle(st, &lo, &hi):
        return False
    # the shorter pair of sides is tested first: a strip's has no inside
    if hi - lo > st.rv1 + 1 - st.rv0:
        along_rows = _column_sides_clear(st, lo, hi)
        if not along_rows and not _row_sides_clear(st, lo, hi):
            return False
    else:
        along_rows = not _row_sides_clear(st, lo, hi)
        if along_rows and not _column_sides_clear(st, lo, hi):
            return False
    if along_rows:
        # lower side row line rv0 going +u, upper side row line rv1 + 1
        m = _side_nodes(st, lo, hi, st.rv0, 0, lower_at, lower)
        n = _side_nodes(st, lo, hi, st.rv1 + 1, 2, upper_at, upper)
    else:
        # "lower" side column line hi going +v, "upper" side column line lo
        m = _side_nodes(st, st.rv0, st.rv1 + 1, hi, 1, lower_at, lower)
        n = _side_nodes(st, st.rv0, st.rv1 + 1, lo, 3, upper_at, upper)
    # (lower i, lower i + 1, upper j) and (lower i, upper j + 1, upper j) are counter-clockwise
    while i < m - 1 or j < n - 1:
        if j == n - 1 or (i < m - 1 and lower_at[i + 1] <= upper_at[j + 1]):
            _emit(st, a, positive, material, lower[i], lower[i + 1], upper[j])
            i += 1
        else:
            _emit(st, a, positive, material, lower[i], upper[j + 1], upper[j])
            j += 1
    return True
