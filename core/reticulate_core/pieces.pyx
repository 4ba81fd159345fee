# cython: language_level=3
"""Weaving a region as pieces whose rows are single runs (seed: "Weave
connected region").

A row of a region may hold several runs of cells.  Two runs of consecutive
rows that overlap each other and nothing else there chain into one piece;
every other overlap of a run with a run of the row below is a cut along
their row line, across the overlap.  Each piece, one run per row, is traced
from its runs' ends straight into a sweep order chosen per row line and
woven (``trace.trace_runs_in_order`` and ``weave.weave_sweep``), sub-piece
by sub-piece when it must be cut at row lines no order suits.

A cut runs along a row line between two points of the region's boundary,
and no point inside it is in S: the four cells around such a point are
faces of the region, one material facing one way, so nothing turns there.
Its ends are turns of the region, or straight points of a side (a run's
end in line with the end of the run across the cut), which must be in S:
``weave_run_pieces`` checks those first.  Every cut is then a diagonal
between nodes of the region, so the pieces have the region's nodes and
its cuts' ends, and B - 2 chi triangles in all (DESIGN.md, guarantee 3).
A region whose rows are single runs is one piece.

When a cut would end at a straight point that is not in S (a U whose outer
sides go on straight past its base), the region's columns are cut the same
way instead: the region is transposed and woven in the frame with u and v
swapped (``_weave_columns``).  When that fails too, the region is traced
whole and partitioned by a sweep (weave.pyx).
"""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

from reticulate_core.chunk_state cimport State, ret_clz32, ret_ctz32, single_run
from reticulate_core.trace cimport trace_runs_in_order
from reticulate_core.vertices cimport _face, _straight_in_s
from reticulate_core.voxel_rows cimport ret_transpose32
from reticulate_core.weave cimport run_orders, weave_sweep

cdef enum:
    MAX_RUNS = 16 * 32      # runs of a region: at most 16 per row of 32 cells


cdef inline bint _in(uint32_t row, int u) noexcept nogil:
    """Cell u (-1..32, outside the layer at either end) of a row is in the region."""
    return ((<uint64_t>row << 1) >> (u + 1)) & 1


cdef inline bint _end_is_node(State* st, uint32_t across, int end, int inside, int y) noexcept nogil:
    """Whether the end of a piece's run at lattice point (end, y) is a node
    of the region: a turn, unless the row `across`, on the other side of
    row line y, goes on straight past it (it holds the run's cell `inside`
    there, end or end - 1, and not the cell beyond); then only if the point
    is in S."""
    cdef int outside = 2 * end - 1 - inside
    if _in(across, inside) and not _in(across, outside):
        return _straight_in_s(st, end, y, 1)
    return True


cdef inline bint _single_runs(State* st) noexcept nogil:
    """Whether every row of the region is one run (then in st.run_lo, st.run_hi)."""
    cdef int v
    for v in range(st.rv0, st.rv1 + 1):
        if not single_run(st.region[v], &st.run_lo[v], &st.run_hi[v]):
            return False
    return True


cdef inline bint _weave_piece(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """Trace and weave the piece of single-run rows st.rv0..st.rv1 (runs in
    st) straight in sweep order, cut along the row lines no one order suits
    (weave.run_orders) into sub-pieces woven one by one; False, having
    emitted nothing, when one does not weave."""
    cdef int cuts[33]
    cdef uint64_t mirror_rows
    cdef int n_cuts = run_orders(st, &mirror_rows, cuts)
    cdef int first_triangle = st.n_triangles, v0 = st.rv0, t
    cuts[n_cuts] = st.rv1 + 1
    for t in range(n_cuts + 1):
        trace_runs_in_order(st, mirror_rows, v0, cuts[t] - 1)
        if not weave_sweep(st, st.n_nodes, st.nu, st.nv, st.nvert, a, positive, material):
            st.n_triangles = first_triangle
            return False
        v0 = cuts[t]
    return True


cdef bint _weave_cut_pieces(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """weave_run_pieces of a region with a row of more than one run."""
    cdef int lo[MAX_RUNS]
    cdef int hi[MAX_RUNS]
    cdef int row_of[MAX_RUNS]
    cdef int next_run[MAX_RUNS]     # the run of the same piece in the next row, or -1
    cdef int up[MAX_RUNS]           # runs of the next row overlapping the run
    cdef int down[MAX_RUNS]         # runs of the row below overlapping the run
    cdef int below[MAX_RUNS]        # the (last) run of the row below overlapping the run
    cdef int first_run[MAX_RUNS]    # each piece's lowest run
    cdef int v0 = st.rv0, v1 = st.rv1, first_triangle = st.n_triangles
    cdef int n_runs = 0, n_pieces = 0, start_below = 0, start, i, j, p, r, v, u0
    cdef uint32_t from_u0
    cdef uint64_t rest
    cdef bint ok = True
    # runs row by row, left to right; overlaps with the row below by two pointers
    for v in range(v0, v1 + 1):
        start = n_runs
        rest = st.region[v]
        while rest:
            u0 = ret_ctz32(<uint32_t>rest)
            from_u0 = <uint32_t>(rest >> u0)
            lo[n_runs] = u0
            hi[n_runs] = 32 if from_u0 == <uint32_t>0xFFFFFFFF else u0 + ret_ctz32(~from_u0)
            rest &= ~((<uint64_t>1 << hi[n_runs]) - 1)
            row_of[n_runs] = v
            next_run[n_runs] = -1
            up[n_runs] = 0
            down[n_runs] = 0
            n_runs += 1
        if v > v0:
            i = start_below
            j = start
            while i < start and j < n_runs:
                if lo[j] < hi[i] and lo[i] < hi[j]:
                    up[i] += 1
                    down[j] += 1
                    below[j] = i
                if hi[i] < hi[j]:
                    i += 1
                else:
                    j += 1
        start_below = start
    # pieces: a run continues the piece of the run below when each overlaps only the other
    for r in range(n_runs):
        if down[r] == 1 and up[below[r]] == 1:
            next_run[below[r]] = r
        else:
            first_run[n_pieces] = r
            n_pieces += 1
    # the ends of every piece's lowest and highest runs across a cut must be nodes
    for p in range(n_pieces):
        r = first_run[p]
        v = row_of[r]
        if v > v0 and not (_end_is_node(st, st.region[v - 1], lo[r], lo[r], v)
                           and _end_is_node(st, st.region[v - 1], hi[r], hi[r] - 1, v)):
            return False
        while next_run[r] >= 0:
            r = next_run[r]
        v = row_of[r]
        if v < v1 and not (_end_is_node(st, st.region[v + 1], lo[r], lo[r], v + 1)
                           and _end_is_node(st, st.region[v + 1], hi[r], hi[r] - 1, v + 1)):
            return False
    for p in range(n_pieces):
        r = first_run[p]
        st.rv0 = row_of[r]
        while True:
            st.run_lo[row_of[r]] = lo[r]
            st.run_hi[row_of[r]] = hi[r]
            if next_run[r] < 0:
                break
            r = next_run[r]
        st.rv1 = row_of[r]
        if not _weave_piece(st, a, positive, material):
            ok = False
            break
    st.rv0 = v0
    st.rv1 = v1
    if not ok:
        st.n_triangles = first_triangle
    return ok


cdef bint _weave_rows(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """weave_run_pieces by rows of the current frame."""
    if _single_runs(st):
        return _weave_piece(st, a, positive, material)
    return _weave_cut_pieces(st, a, positive, material)


cdef inline void _transpose_frame(State* st) noexcept nogil:
    """Swap the u and v of the current layer's frame (twice: no change)."""
    st.axis_u, st.axis_v = st.axis_v, st.axis_u
    st.key_u, st.key_v = st.key_v, st.key_u
    st.pad_u, st.pad_v = st.pad_v, st.pad_u


cdef bint _weave_columns(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """weave_run_pieces by the columns of the region: _weave_rows in the
    transposed frame, the region transposed.  Transposing mirrors the
    plane, so the weavers take the other winding; the triangles' face codes
    are then set back.  The frame, the region and its rows are as before
    afterwards."""
    cdef uint32_t rows[32]
    cdef uint32_t columns = 0
    cdef int v0 = st.rv0, v1 = st.rv1, first_triangle = st.n_triangles, t, v
    cdef uint8_t face = _face(a, positive)
    cdef bint woven, masked = st.frame_masked
    for v in range(v0, v1 + 1):
        columns |= st.region[v]
    memcpy(rows, st.region, sizeof(rows))
    ret_transpose32(rows, st.region)
    st.rv0 = ret_ctz32(columns)
    st.rv1 = 31 - ret_clz32(columns)
    _transpose_frame(st)
    st.frame_masked = False     # the layer's masks are not transposed
    woven = _weave_rows(st, a, not positive, material)
    st.frame_masked = masked
    _transpose_frame(st)
    memcpy(st.region, rows, sizeof(rows))
    st.rv0 = v0
    st.rv1 = v1
    if woven:
        for t in range(first_triangle, st.n_triangles):
            st.faces[t] = face
    return woven


cdef bint weave_run_pieces(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """Weave the region (st.region, rows rv0..rv1) as pieces of single-run
    rows cut along row lines (see the module), else as pieces of
    single-run columns cut along column lines.  False, having emitted
    nothing, when a cut ends at a point that is no node or a piece does not
    weave either way."""
    return _weave_rows(st, a, positive, material) or _weave_columns(st, a, positive, material)
