# cython: language_level=3
"""Tracing one filled region (seed: "Weave connected region").

``trace_region`` walks the boundary of st.region into cycles of polygon
nodes: the points where the boundary turns and its points in S.
``trace_runs_in_order`` finds the nodes of a region whose rows are single
runs from the runs' ends, with no cell walk, straight in the sweep order of
the monotone weaver, piece by piece between the row lines where it must be
cut.  The weavers of weave.pyx triangulate them.
"""
from libc.stdint cimport uint32_t, uint64_t

from reticulate_core.chunk_state cimport (
    ERR_NONE, ERR_POOL, ERR_TRACE, MAX_CYCLES, POOL, State, ret_ctz32, ret_step_u, ret_step_v)
from reticulate_core.vertices cimport _straight_in_s, _straight_in_s_masked, _weld


cdef void _edge_masks(State* st) noexcept nogil:
    """st.edges for rows rv0..rv1 + 1 of the region (directions 0 +u, 1 +v, 2 -u, 3 -v).

    Edge +u leaves (u, v) below cell (u, v) when (u, v - 1) is outside; +v
    right of cell (u - 1, v) when (u, v) is outside; -u above cell
    (u - 1, v - 1) when (u - 1, v) is outside; -v left of cell (u, v - 1)
    when (u - 1, v - 1) is outside.
    """
    cdef int v
    cdef uint64_t here, below
    for v in range(st.rv0, st.rv1 + 2):
        here = st.region[v] if v <= st.rv1 else 0
        below = st.region[v - 1] if v > st.rv0 else 0
        st.edges[0][v] = here & ~below
        st.edges[1][v] = (here << 1) & ~here
        st.edges[2][v] = (below & ~here) << 1
        st.edges[3][v] = below & ~(below << 1)


cdef inline bint _has_edge(State* st, int u, int v, int d) noexcept nogil:
    """Boundary edge leaving lattice point (u, v) in direction d, region on its left."""
    return (st.edges[d][v] >> u) & 1


cdef inline void _append_node(State* st, int pu, int pv, int last) noexcept nogil:
    """Node st.n_nodes at (pu, pv), after node last on its cycle (none if -1); the pool has room."""
    cdef int k = st.n_nodes
    st.nu[k] = pu
    st.nv[k] = pv
    st.nkey[k] = 64 * pv + pu
    st.nvert[k] = _weld(st, pu, pv)
    if last >= 0:
        st.nnext[last] = k
        st.nprev[k] = last
    st.n_nodes += 1


cdef inline void _record_cycle(State* st, int first, int count,
                               int low, int minima, int mlow, int mminima) noexcept nogil:
    """Record the closed cycle from node first as cycle st.n_cycles (see State)."""
    cdef int c = st.n_cycles
    st.cyc_head[c] = first
    st.cyc_nodes[c] = count
    st.cyc_low[0][c] = low
    st.cyc_low[1][c] = mlow
    st.cyc_minima[0][c] = minima
    st.cyc_minima[1][c] = mminima
    st.n_cycles += 1


cdef void _close_cycle(State* st, int first, int last) noexcept nogil:
    """Link node last back to node first and record the cycle: its node
    count and, for the sweep order (v, u) (keys 64 v + u) and the mirrored
    one (v, -u) (keys 64 v + 32 - u), its lowest node and its number of
    local minima."""
    cdef int k = first, n, count = 0
    cdef int low = first, mlow = first, minima = 0, mminima = 0
    cdef int key_p, key_k, key_n, mkey_p, mkey_k, mkey_n
    st.nnext[last] = first
    st.nprev[first] = last
    key_p = st.nkey[last]
    mkey_p = key_p + 32 - 2 * st.nu[last]
    key_k = st.nkey[first]
    mkey_k = key_k + 32 - 2 * st.nu[first]
    while True:
        n = st.nnext[k]
        key_n = st.nkey[n]
        mkey_n = key_n + 32 - 2 * st.nu[n]
        if key_k < key_p and key_k < key_n:
            minima += 1
        if mkey_k < mkey_p and mkey_k < mkey_n:
            mminima += 1
        if key_k < st.nkey[low]:
            low = k
        if mkey_k < st.nkey[mlow] + 32 - 2 * st.nu[mlow]:
            mlow = k
        count += 1
        key_p = key_k
        key_k = key_n
        mkey_p = mkey_k
        mkey_k = mkey_n
        k = n
        if k == first:
            break
    _record_cycle(st, first, count, low, minima, mlow, mminima)


cdef inline void _sweep_node(State* st, int pu, int pv, int chain) noexcept nogil:
    """Node st.n_nodes at (pu, pv), next in sweep order, on chain `chain`; the pool has room."""
    cdef int k = st.n_nodes
    st.nu[k] = pu
    st.nv[k] = pv
    st.nvert[k] = _weld(st, pu, pv)
    st.chain[k] = chain
    st.n_nodes += 1


cdef inline void _sweep_span(State* st, int pu, int to, int pv, int chain) noexcept nogil:
    """The nodes of row line v = pv from corner (pu, pv) to corner (to, pv)
    (one node when to == pu), the straight points between them that are
    in S included, in that order, next in sweep order."""
    cdef int step
    _sweep_node(st, pu, pv, chain)
    if to == pu:
        return
    step = 1 if to > pu else -1
    pu += step
    while pu != to:
        if _straight_in_s_masked(st, pu, pv, 0):
            _sweep_node(st, pu, pv, chain)
        pu += step
    _sweep_node(st, to, pv, chain)


cdef inline void _sweep_step(State* st, int pu, int to, int pv, int d, int chain) noexcept nogil:
    """_sweep_span of the boundary along row line v = pv from (pu, pv) to
    (to, pv), or, when to == pu, the straight point (pu, pv) of a side in
    direction d if it is in S."""
    if to != pu:
        _sweep_span(st, pu, to, pv, chain)
    elif _straight_in_s_masked(st, pu, pv, d):
        _sweep_node(st, pu, pv, chain)


cdef inline void _sweep_cut_side(State* st, int y, int row, int chain) noexcept nogil:
    """The side on cut line y of the sub-piece holding row `row` (y: the
    one above, y - 1: the one below), by u: row's run along the line, its
    nodes the run's ends, the cut's ends (turns of the region) and the
    boundary's straight points in S between them; the cut's inside has no
    point of S (pieces.pyx)."""
    cdef int cut_lo = max(st.run_lo[y - 1], st.run_lo[y])
    cdef int cut_hi = min(st.run_hi[y - 1], st.run_hi[y])
    _sweep_span(st, st.run_lo[row], cut_lo, y, chain)
    _sweep_span(st, cut_hi, st.run_hi[row], y, chain)


cdef void trace_runs_in_order(State* st, uint64_t mirror_rows, int v0, int v1) noexcept nogil:
    """The nodes of the sub-piece of rows v0..v1 of a region whose rows
    rv0..rv1 are single runs (in st), between its cut lines (or its ends)
    v0 and v1 + 1 and with no conflicting row line between them
    (weave.run_orders), into the empty node pool straight in sweep order
    for weave.weave_sweep: by row line, each taken by u or, where
    mirror_rows has its bit, by -u.  The lower side comes first (its lower
    left corner lowest, the rest on the right chain 0), then each row
    line's step of the left ends (chain 1) and of the right ends (chain 0),
    then the upper side (chain 1, its upper right corner highest).  No
    links: where the left end steps right (by u) or left (by -u), so does
    the right end, so each chain's step is in order.  A cut, across the
    overlap of its two rows, joins two nodes of the region, so the
    sub-pieces' triangles are the region's."""
    cdef int y
    cdef int* lo = st.run_lo
    cdef int* hi = st.run_hi
    st.n_nodes = 0
    st.n_cycles = 0
    if v0 == st.rv0:
        _sweep_span(st, lo[v0], hi[v0], v0, 0)
    else:
        _sweep_cut_side(st, v0, v0, 0)
    for y in range(v0 + 1, v1 + 1):
        if (mirror_rows >> y) & 1:
            _sweep_step(st, hi[y - 1], hi[y], y, 1, 0)
            _sweep_step(st, lo[y - 1], lo[y], y, 3, 1)
        else:
            _sweep_step(st, lo[y - 1], lo[y], y, 3, 1)
            _sweep_step(st, hi[y - 1], hi[y], y, 1, 0)
    if v1 == st.rv1:
        _sweep_span(st, lo[v1], hi[v1], v1 + 1, 1)
    else:
        _sweep_cut_side(st, v1 + 1, v1, 1)


cdef int trace_region(State* st) noexcept nogil:
    """Boundary cycles of the region (in the current layer, set_frame) into
    the node pool; 0 on success.

    Cycles keep the region on their left (outer counter-clockwise, holes
    clockwise) and turn left first at pinch points, so every cycle hugs the
    cells it bounds and passes a pinch point once per cell corner.  A node
    is kept where the boundary turns or where the point is in S.
    """
    cdef int v, u, pu, pv, d, nd, first, last, steps
    cdef uint32_t todo, below
    st.n_nodes = 0
    st.n_cycles = 0
    _edge_masks(st)
    for v in range(st.rv0, st.rv1 + 1):
        st.visited[v] = 0
    for v in range(st.rv0, st.rv1 + 1):
        below = st.region[v - 1] if v > 0 else 0
        while True:
            todo = st.region[v] & ~below & ~st.visited[v]
            if todo == 0:
                break
            u = ret_ctz32(todo)
            if st.n_cycles == MAX_CYCLES:
                return ERR_POOL
            first = st.n_nodes
            last = -1
            pu = u
            pv = v
            d = 0
            st.visited[v] |= (<uint32_t>1) << u
            pu += 1
            steps = 0
            while True:
                steps += 1
                if steps > 4 * 33 * 33 + 8:
                    return ERR_TRACE
                if _has_edge(st, pu, pv, (d + 1) & 3):
                    nd = (d + 1) & 3
                elif _has_edge(st, pu, pv, d):
                    nd = d
                elif _has_edge(st, pu, pv, (d + 3) & 3):
                    nd = (d + 3) & 3
                else:
                    return ERR_TRACE
                if nd != d or _straight_in_s(st, pu, pv, d):
                    if st.n_nodes == POOL:
                        return ERR_POOL
                    _append_node(st, pu, pv, last)
                    last = st.n_nodes - 1
                if pu == u and pv == v and nd == 0:
                    break
                if nd == 0:
                    st.visited[pv] |= (<uint32_t>1) << pu
                pu += ret_step_u(nd)
                pv += ret_step_v(nd)
                d = nd
            if last < 0 or st.n_nodes - first < 4:
                return ERR_TRACE
            _close_cycle(st, first, last)
    return ERR_NONE
