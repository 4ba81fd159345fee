# cython: language_level=3
"""The chunk mesher (seed: "Meshing bitfields", "Mesher", "Gathering",
"Scanning", "Triangle", "Minimality").

A chunk is meshed from a (34, 34, 34) padded array: ``padded[1:33]^3`` is
the chunk, the one-voxel border its halo (neighbour voxels, 0 beyond the
grid).  Plane conventions: for axis ``a`` the in-plane axes are
``u = (a + 1) % 3`` and ``v = (a + 2) % 3``, so ``(a, u, v)`` is right-handed
and a counter-clockwise (u, v) polygon has its normal towards +a.  Layer ``L``
of axis ``a`` is the plane ``a = L`` between voxel layers ``L - 1`` and ``L``.

Pipeline per chunk (all C, without the GIL):

1. gathering walk over the compact octree stream (``compact_walk_bricks_c``:
   uniform cells, and each last-level branch as one 2x2x2 brick): the
   Material planes hold the material just below the visited cell;
   differences set Parity bits;
2. scanning walk: leaves seed negative faces over empty, empty cells seed
   positive faces over solid; every unclaimed seed is FILLED (its region:
   4-connected cells of the layer whose Parity bit is set, not across walls,
   i.e. Parity transitions of the perpendicular axes in the slabs above and
   below), WOVEN (triangulated with vertices exactly at the boundary points
   of the vertex set S, see ``_is_vertex`` in vertices.pxd: a lone cell
   and a domino (two cells linked only to each other) directly, from the
   links, a region within 4 x 4 cells from a table, weave_table.pyx, a
   rectangle with no point of S inside two opposite sides (a strip one
   cell wide among them) directly, any other region by tracing its boundary,
   trace.pyx, and weaving the cycles, weave.pyx) and CLAIMED;
3. welding into a 33^3 index table.

Dense input takes the layer scan instead of steps 1 and 2 (the seed: the
tree walk is "an optimized alternative to querying the tree for materials
during a layer-by-layer Parity scan"; with the voxels at hand, querying is
a row compare).  Per axis and layer, solid masks of the two voxel slabs
(``voxel_rows.pxd``) give the face cells, 32 per row, and the links of a
layer with faces come from voxel rows (Parity of the layer, walls of the
two slabs).  A row's lone cells (face cells linked to no neighbour) are
woven at once, a mask at a time, with no branch per cell on being lone;
every other unclaimed face cell is filled, woven and claimed as above.
The regions, hence the triangles, are the same.

Any triangulation of a region whose vertices are exactly its boundary
points in S, with no extra vertex, has B - 2*chi triangles (DESIGN.md,
guarantee 3); the weavers are such triangulations (see weave.pyx and
weave_table.pyx).
"""
import threading

import numpy as np

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memset, memcpy
from cpython.buffer cimport PyBUF_SIMPLE, PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.pythread cimport (
    NOWAIT_LOCK, WAIT_LOCK, PyThread_acquire_lock, PyThread_allocate_lock, PyThread_free_lock,
    PyThread_get_thread_ident, PyThread_release_lock, PyThread_type_lock)

from reticulate_core.chunk_state cimport (
    ERR_MEMORY, ERR_NONE, ERR_OUTPUT, ERR_WEAVE, MAX_POSITIONS, MAX_TRIANGLES, P, PP, PPP, TRIANGLE_ROOM, WELD_INDEXES,
    State, fill_window_keys, frame_key, ret_clz32, ret_ctz32, ret_now, ret_popcount32, set_frame)
from reticulate_core.halo cimport fill_block, uniform_block
from reticulate_core.morton cimport spread2, compact2, compact3
from reticulate_core.octree cimport (
    MAX_COMPACT_NODES, compact_from_dense_c, compact_walk_bricks_c,
    CompactOctree)
from reticulate_core.vertices cimport _emitted, _put, _straight_in_s_masked, _weld_at, _weld_window, fill_solid_turns
from reticulate_core.voxel_rows cimport (
    copy_chunk, differ32, ensure_slab_rows, ret_any_nonzero64, ret_row_kernel, solid_masks, start_rows,
    voxel_row)
from reticulate_core.pieces cimport weave_run_pieces
from reticulate_core.trace cimport trace_region
from reticulate_core.weave cimport weave_cycle, weave_partitioned, weave_rectangle
from reticulate_core.weave_table cimport weave_from_table
from reticulate_core.weld cimport seam_key

from reticulate_core.mesh import Mesh
from reticulate_core.octree import Fixed8Octree

# strides of (layer, u, v) of each axis frame in the padded array
cdef int PAD_STRIDE[3][3]
for _a in range(3):
    for _k in range(3):
        PAD_STRIDE[_a][_k] = (PP, P, 1)[(_a + _k) % 3]

# ---------------------------------------------------------------- helpers

cdef inline const uint16_t* _slab(State* st, int a, int layer) noexcept nogil:
    """Address of voxel (layer, u=0, v=0) of axis a's frame; step u by
    PAD_STRIDE[a][1] and v by PAD_STRIDE[a][2] (layer in -1..32)."""
    return st.pad + (layer + 1) * PAD_STRIDE[a][0] + PAD_STRIDE[a][1] + PAD_STRIDE[a][2]


cdef inline uint32_t _close_row(uint32_t r, uint32_t h) noexcept nogil:
    """Cells of a row connected to the cells r through links h (bit u: u~u+1;
    bit 31 is never set): r itself at once when no link touches it, else
    upwards by one carry (adding a seed bit to a run of links carries it
    through the run to the cell after its last link) and downwards by
    doubling steps."""
    cdef uint32_t h1 = h, h2, h4, h8, h16
    if ((r | (r >> 1)) & h) == 0:
        return r
    h2 = h1 & (h1 >> 1)
    h4 = h2 & (h2 >> 2)
    h8 = h4 & (h4 >> 4)
    h16 = h8 & (h8 >> 8)
    r |= (h + (r & h)) ^ h
    r |= (r >> 1) & h1
    r |= (r >> 2) & h2
    r |= (r >> 4) & h4
    r |= (r >> 8) & h8
    r |= (r >> 16) & h16
    return r


# ---------------------------------------------------------------- parity walls

cdef bint _uniform_slab(const uint16_t* slab, int su, int sv) noexcept nogil:
    """Whether the 32x32 voxels slab[u * su + v * sv] are all equal."""
    cdef int u, v
    cdef uint16_t m = slab[0]
    for v in range(32):
        for u in range(32):
            if slab[u * su + v * sv] != m:
                return False
    return True


cdef void _halo_walls(State* st, int a, int side) noexcept nogil:
    """Walls of the halo slab (voxel layer -1 if side == 0, else 32) on axis a."""
    cdef const uint16_t* slab = _slab(st, a, -1 if side == 0 else 32)
    cdef const uint16_t* row
    cdef int su = PAD_STRIDE[a][1], sv = PAD_STRIDE[a][2]
    cdef int u, v
    cdef uint32_t wu, wv
    cdef uint16_t m
    st.halo_walls_ready[a][side] = True
    if st.halo_empty or _uniform_slab(slab, su, sv):
        memset(st.halo_wu[a][side], 0, sizeof(st.halo_wu[a][side]))
        memset(st.halo_wv[a][side], 0, sizeof(st.halo_wv[a][side]))
        return
    for v in range(32):
        wu = 0
        wv = 0
        row = slab + v * sv
        for u in range(32):
            m = row[u * su]
            if u < 31 and m != row[(u + 1) * su]:
                wu |= (<uint32_t>1) << u
            if v < 31 and m != row[u * su + sv]:
                wv |= (<uint32_t>1) << u
        st.halo_wu[a][side][v] = wu
        st.halo_wv[a][side][v] = wv


cdef inline void _add_slab_walls(State* st, int a, int slab, uint32_t* wu, uint32_t* wv) noexcept nogil:
    """OR the walls of voxel slab ``slab`` (-1..32) of axis a's frame into
    wu and wv: bit u of wu[v]: voxels (slab, u, v) and (slab, u + 1, v)
    differ; of wv[v]: (slab, u, v) and (slab, u, v + 1) differ (wv[31] none)."""
    cdef int b = (a + 1) % 3, c = (a + 2) % 3, v, side
    cdef const uint64_t* col
    if slab < 0 or slab > 31:
        side = 0 if slab < 0 else 1
        for v in range(32):
            wu[v] |= st.halo_wu[a][side][v]
            wv[v] |= st.halo_wv[a][side][v]
        return
    # axis b's plane coordinates are (v, slab): its layer u + 1 holds the u|u+1 transition
    col = &st.pcol[b][32 * slab]
    for v in range(32):
        wu[v] |= (<uint32_t>(col[v] >> 1)) & 0x7FFFFFFF
    # axis c's plane coordinates are (slab, u): its layer v + 1 holds the v|v+1 transition
    for v in range(31):
        wv[v] |= st.pcolt[c][v + 1][slab]


cdef void _layer_links(State* st, int a, int L) noexcept nogil:
    """Fill links of layer L of axis a: both cells faces, no wall between
    them in the slabs below and above the layer."""
    cdef uint32_t wu[32]
    cdef uint32_t wv[32]
    cdef uint32_t* rows = st.prow[a][L]
    cdef int v
    if L == 0 and not st.halo_walls_ready[a][0]:
        _halo_walls(st, a, 0)
    if L == 32 and not st.halo_walls_ready[a][1]:
        _halo_walls(st, a, 1)
    memset(wu, 0, sizeof(wu))
    memset(wv, 0, sizeof(wv))
    _add_slab_walls(st, a, L - 1, wu, wv)
    _add_slab_walls(st, a, L, wu, wv)
    for v in range(31):
        st.hlink[a][L][v] = rows[v] & (rows[v] >> 1) & ~wu[v]
        st.vlink[a][L][v] = rows[v] & rows[v + 1] & ~wv[v]
    st.hlink[a][L][31] = rows[31] & (rows[31] >> 1) & ~wu[31]
    st.vlink[a][L][31] = 0
    st.links_ready[a][L] = True


cdef void _row_slab_walls(State* st, int a, int slab, uint32_t rows) noexcept nogil:
    """Walls of rows ``rows`` (bit v) of voxel slab ``slab`` (-1..32) of axis
    a's frame from its voxel rows, as _add_slab_walls reads them from Parity;
    rows already done are kept."""
    cdef uint32_t* wu = st.slab_wu[a][slab + 1]
    cdef uint32_t* wv = st.slab_wv[a][slab + 1]
    cdef const uint16_t* row
    cdef int v
    rows &= ~st.slab_wall_rows[a][slab + 1]
    if rows == 0:
        return
    st.slab_wall_rows[a][slab + 1] |= rows
    ensure_slab_rows(st, a, slab)
    while rows:
        v = ret_ctz32(rows)
        rows &= rows - 1
        row = voxel_row(st, a, slab, v)
        wu[v] = differ32(row, row + 1) & 0x7FFFFFFF
        wv[v] = differ32(row, voxel_row(st, a, slab, v + 1)) if v < 31 else 0


cdef void _row_links(State* st, int a, int L) noexcept nogil:
    """Fill links of layer L of axis a for the layer scan: as _layer_links,
    between face cells (a region holds face cells only, all with the same
    voxels below and above), the walls of the two slabs compared in the
    rows where two face cells meet."""
    cdef const uint32_t* below = st.solid[a][L]
    cdef const uint32_t* above = st.solid[a][L + 1]
    cdef uint32_t faces[33]
    cdef uint32_t meet = 0
    cdef uint32_t* wu0 = st.slab_wu[a][L]
    cdef uint32_t* wv0 = st.slab_wv[a][L]
    cdef uint32_t* wu1 = st.slab_wu[a][L + 1]
    cdef uint32_t* wv1 = st.slab_wv[a][L + 1]
    cdef int v
    for v in range(32):
        faces[v] = below[v] ^ above[v]
    faces[32] = 0
    if st.one_material:
        # voxels are that material or empty: two face cells have the same
        # voxels below and above iff their voxels below are both solid or both empty
        for v in range(31):
            st.hlink[a][L][v] = faces[v] & (faces[v] >> 1) & ~(below[v] ^ (below[v] >> 1))
            st.vlink[a][L][v] = faces[v] & faces[v + 1] & ~(below[v] ^ below[v + 1])
        st.hlink[a][L][31] = faces[31] & (faces[31] >> 1) & ~(below[31] ^ (below[31] >> 1))
        st.vlink[a][L][31] = 0
        st.links_ready[a][L] = True
        return
    for v in range(32):
        if (faces[v] & (faces[v] >> 1)) | (faces[v] & faces[v + 1]):
            meet |= (<uint32_t>1) << v
    _row_slab_walls(st, a, L - 1, meet)
    _row_slab_walls(st, a, L, meet)
    for v in range(32):
        # rows outside meet have no two face cells side by side: their links are 0
        st.hlink[a][L][v] = faces[v] & (faces[v] >> 1) & ~(wu0[v] | wu1[v])
        st.vlink[a][L][v] = faces[v] & faces[v + 1] & ~(wv0[v] | wv1[v])
    st.links_ready[a][L] = True


# ---------------------------------------------------------------- fill

cdef void _fill(State* st, int a, int L, int u0, int v0) noexcept nogil:
    """Region of seed cell (u0, v0) into st.region (rows v, bits u), which
    is all 0 outside rows rv0..rv1; the layer's links are ready."""
    cdef uint32_t dirty, rows, add
    cdef int v
    cdef uint32_t* R = st.region
    cdef uint32_t* hl = st.hlink[a][L]
    cdef uint32_t* vl = st.vlink[a][L]
    R[v0] = _close_row((<uint32_t>1) << u0, hl[v0])
    dirty = rows = (<uint32_t>1) << v0
    while dirty:
        v = ret_ctz32(dirty)
        dirty &= dirty - 1
        if v > 0:
            add = R[v] & vl[v - 1] & ~R[v - 1]
            if add:
                R[v - 1] = _close_row(R[v - 1] | add, hl[v - 1])
                dirty |= (<uint32_t>1) << (v - 1)
                rows |= (<uint32_t>1) << (v - 1)
        if v < 31:
            add = R[v] & vl[v] & ~R[v + 1]
            if add:
                R[v + 1] = _close_row(R[v + 1] | add, hl[v + 1])
                dirty |= (<uint32_t>1) << (v + 1)
                rows |= (<uint32_t>1) << (v + 1)
    st.rv0 = ret_ctz32(rows)
    st.rv1 = 31 - ret_clz32(rows)


cdef inline void _region(State* st, int a, int L, int u, int v, int positive, uint16_t material) noexcept nogil:
    """Seed cell (u, v): skip it when claimed, else fill-weave-claim its region."""
    if (st.claims[a][L][v] >> u) & 1:
        if st.metrics:
            st.seeds += 1
            st.seeds_claimed += 1
        return
    _new_region(st, a, L, u, v, positive, material)


cdef inline uint32_t _linked(State* st, int a, int L, int v) noexcept nogil:
    """Cells of row v of layer L linked to a neighbour (the links are ready):
    the others, if faces, are lone cells, regions of one cell."""
    return (st.hlink[a][L][v] | (st.hlink[a][L][v] << 1) | st.vlink[a][L][v]
            | (st.vlink[a][L][v - 1] if v > 0 else 0))


cdef inline void _lone_cell(State* st, int a, int u, int v, int positive, uint16_t material) noexcept nogil:
    """Weave a lone cell of the current layer (set_frame): its four corners
    are turns, and nothing else, so two triangles."""
    cdef int key = frame_key(st, u, v)
    cdef int i0 = _weld_at(st, key, u, v), i1 = _weld_at(st, key + st.key_u, u + 1, v)
    cdef int i2 = _weld_at(st, key + st.key_u + st.key_v, u + 1, v + 1)
    cdef int i3 = _weld_at(st, key + st.key_v, u, v + 1)
    cdef int32_t* out = st.triangles + 3 * st.n_triangles
    cdef int flip = 0 if positive else 1
    # written out as _put would: its array of vertices costs the terrain 0.4%
    out[0] = i0
    out[1 + flip] = i1
    out[2 - flip] = i2
    out[3] = i0
    out[4 + flip] = i2
    out[5 - flip] = i3
    _emitted(st, 2, a, positive, material)


cdef inline void _new_region(State* st, int a, int L, int u, int v, int positive, uint16_t material) noexcept nogil:
    """Fill-weave-claim from an unclaimed seed cell of the double walk; a
    lone cell right here, any other region by _fill_weave_claim."""
    cdef uint32_t bit = (<uint32_t>1) << u
    if st.metrics:
        st.seeds += 1
        st.regions += 1
    if st.n_triangles > MAX_TRIANGLES:
        st.error = ERR_OUTPUT       # never: see MAX_TRIANGLES; keeps the buffers safe
        st.claims[a][L][v] |= bit
        return
    if not st.links_ready[a][L]:
        _layer_links(st, a, L)
    if st.frame_a != a or st.frame_L != L:
        set_frame(st, a, L)
    if (_linked(st, a, L, v) & bit) == 0:
        _lone_cell(st, a, u, v, positive, material)
        st.claims[a][L][v] |= bit
        return
    _fill_weave_claim(st, a, L, u, v, positive, material)


cdef inline int _cell_links(State* st, int a, int L, int u, int v) noexcept nogil:
    """Number of the links of cell (u, v) of layer L (0..4; the links are ready)."""
    cdef const uint32_t* hl = st.hlink[a][L]
    cdef const uint32_t* vl = st.vlink[a][L]
    return <int>(((hl[v] >> u) & 1) + (((hl[v] << 1) >> u) & 1) + ((vl[v] >> u) & 1)
                 + (((vl[v - 1] >> u) & 1) if v > 0 else 0))


# a domino's boundary points p0..p5 (_weave_domino) as window points
# u + 8 v from its lower left corner: two cells of a row, then of a column
cdef int DOMINO_POINTS[2][6]
DOMINO_POINTS[0][:] = [0, 1, 2, 10, 9, 8]
DOMINO_POINTS[1][:] = [1, 9, 17, 16, 8, 0]


cdef bint _weave_domino(State* st, int a, int L, int u, int v, int positive, uint16_t material) noexcept nogil:
    """Weave and claim the region of seed cell (u, v) when it is two cells,
    linked to each other and to nothing else; else False, nothing done.

    Counter-clockwise from the end of a short side, its boundary is p0, p1,
    p2 along a long side, p3, p4, p5 along the other (p0 p2 p3 p5 the
    turns, p1 and p4 the sides' midpoints, nodes when in S): n nodes, n - 2
    triangles, none degenerate and no lattice point inside a diagonal."""
    cdef int pu, pv, u0, v0, k, key0
    cdef const int* at
    cdef const int* window_key = st.window_key[a]
    cdef int node[6]
    cdef bint mid_a, mid_b
    cdef int32_t* out
    cdef int flip
    if _cell_links(st, a, L, u, v) != 1:
        return False
    if (st.hlink[a][L][v] >> u) & 1:
        pu, pv = u + 1, v
    elif u > 0 and (st.hlink[a][L][v] >> (u - 1)) & 1:
        pu, pv = u - 1, v
    elif (st.vlink[a][L][v] >> u) & 1:
        pu, pv = u, v + 1
    else:
        pu, pv = u, v - 1
    if _cell_links(st, a, L, pu, pv) != 1:
        return False
    u0 = min(u, pu)
    v0 = min(v, pv)
    if pv == v:
        # cells u0, u0 + 1 of row v0: the long sides are row lines v0 and v0 + 1
        at = DOMINO_POINTS[0]
        mid_a = _straight_in_s_masked(st, u0 + 1, v0, 0)
        mid_b = _straight_in_s_masked(st, u0 + 1, v0 + 1, 2)
        st.claims[a][L][v0] |= (<uint32_t>3) << u0
    else:
        # rows v0, v0 + 1 of column u0: the long sides are column lines u0 + 1 and u0
        at = DOMINO_POINTS[1]
        mid_a = _straight_in_s_masked(st, u0 + 1, v0 + 1, 1)
        mid_b = _straight_in_s_masked(st, u0, v0 + 1, 3)
        st.claims[a][L][v0] |= (<uint32_t>1) << u0
        st.claims[a][L][v0 + 1] |= (<uint32_t>1) << u0
    key0 = frame_key(st, u0, v0)
    for k in range(6):
        if (k != 1 or mid_a) and (k != 4 or mid_b):
            node[k] = _weld_window(st, key0, window_key, u0, v0, at[k])
    out = st.triangles + 3 * st.n_triangles
    flip = 0 if positive else 1
    if mid_a and mid_b:
        _put(out, node, flip, 0, 1, 4)
        _put(out + 3, node, flip, 0, 4, 5)
        _put(out + 6, node, flip, 1, 2, 3)
        _put(out + 9, node, flip, 1, 3, 4)
        _emitted(st, 4, a, positive, material)
    elif mid_a:
        _put(out, node, flip, 0, 1, 5)
        _put(out + 3, node, flip, 1, 2, 3)
        _put(out + 6, node, flip, 1, 3, 5)
        _emitted(st, 3, a, positive, material)
    elif mid_b:
        _put(out, node, flip, 0, 2, 4)
        _put(out + 3, node, flip, 2, 3, 4)
        _put(out + 6, node, flip, 0, 4, 5)
        _emitted(st, 3, a, positive, material)
    else:
        _put(out, node, flip, 0, 2, 3)
        _put(out + 3, node, flip, 0, 3, 5)
        _emitted(st, 2, a, positive, material)
    return True


cdef void _fill_weave_claim(State* st, int a, int L, int u, int v, int positive, uint16_t material) noexcept nogil:
    """Fill, weave and claim the region of seed cell (u, v), which is linked
    to a neighbour (the layer's links and frame are ready).  st.region is
    all 0 before and after."""
    cdef int r, err
    if _weave_domino(st, a, L, u, v, positive, material):
        return
    _fill(st, a, L, u, v)
    err = ERR_NONE
    if not (weave_from_table(st, a, positive, material) or weave_rectangle(st, a, positive, material)
            or weave_run_pieces(st, a, positive, material)):
        err = trace_region(st)
        if err == ERR_NONE and not (
                (st.n_cycles == 1 and weave_cycle(st, 0, a, positive, material))
                or weave_partitioned(st, a, positive, material)):
            err = ERR_WEAVE
    if err != ERR_NONE and st.error == ERR_NONE:
        st.error = err
    for r in range(st.rv0, st.rv1 + 1):
        st.claims[a][L][r] |= st.region[r]
        st.region[r] = 0


# ---------------------------------------------------------------- walks

cdef uint64_t LANES = 0x0001000100010001ULL      # one in each 16-bit lane
cdef uint32_t SPREAD_U[32]
cdef uint32_t SPREAD_V[32]
cdef uint8_t DECODE_U[1024]
cdef uint8_t DECODE_V[1024]
for _i in range(32):
    SPREAD_U[_i] = spread2(_i)
    SPREAD_V[_i] = spread2(_i) << 1
for _i in range(1024):
    DECODE_U[_i] = compact2(_i)
    DECODE_V[_i] = compact2(_i >> 1)


cdef inline void _cell_origin(uint32_t code, int depth, int* o) noexcept nogil:
    cdef int shift = 5 - depth
    o[0] = compact3(code) << shift
    o[1] = compact3(code >> 1) << shift
    o[2] = compact3(code >> 2) << shift


cdef inline void _parity_quad(State* st, int a, int L, int u0, int v0, uint32_t lanes) noexcept nogil:
    """Parity bits at layer L of axis a for the cells of a 2x2 footprint
    (u0, v0 even) set in lanes (bit k: cell (u0 + k & 1, v0 + k >> 1))."""
    cdef uint64_t* col = &st.pcol[a][u0 + 32 * v0]
    st.prow[a][L][v0] |= (lanes & 3) << u0
    st.prow[a][L][v0 + 1] |= (lanes >> 2) << u0
    st.pcolt[a][L][u0] |= ((lanes & 1) | ((lanes >> 1) & 2)) << v0
    st.pcolt[a][L][u0 + 1] |= (((lanes >> 1) & 1) | ((lanes >> 2) & 2)) << v0
    col[0] |= (<uint64_t>(lanes & 1)) << L
    col[1] |= (<uint64_t>((lanes >> 1) & 1)) << L
    col[32] |= (<uint64_t>((lanes >> 2) & 1)) << L
    col[33] |= (<uint64_t>(lanes >> 3)) << L


cdef inline bint _has_zero_lane(uint64_t word) noexcept nogil:
    """Whether one of the four 16-bit lanes of word is 0."""
    return ((word - LANES) & ~word & (LANES << 15)) != 0


cdef void _parity_square(State* st, int a, int L, int u0, int v0, int s) noexcept nogil:
    """Parity bits at layer L of axis a for every cell of the s x s square at (u0, v0)."""
    cdef uint32_t run_u = <uint32_t>(((<uint64_t>1 << s) - 1) << u0)
    cdef uint32_t run_v = <uint32_t>(((<uint64_t>1 << s) - 1) << v0)
    cdef uint64_t bit = (<uint64_t>1) << L
    cdef uint64_t* col
    cdef int k, u
    for k in range(s):
        st.prow[a][L][v0 + k] |= run_u
        st.pcolt[a][L][u0 + k] |= run_v
        col = &st.pcol[a][u0 + 32 * (v0 + k)]
        for u in range(s):
            col[u] |= bit


cdef bint _differs_everywhere(const uint16_t* entries, int n, uint64_t fill) noexcept nogil:
    """Whether none of the n entries (a multiple of 4) equals the 16-bit lanes of fill."""
    cdef uint64_t word
    cdef int e
    for e in range(0, n, 4):
        memcpy(&word, &entries[e], 8)
        if _has_zero_lane(word ^ fill):
            return False
    return True


cdef inline uint32_t _lanes(bint b0, bint b1, bint b2, bint b3) noexcept nogil:
    """Bits 0..3 of four conditions, one per entry of a 4-entry word (a 2x2 footprint)."""
    return <uint32_t>b0 | (<uint32_t>b1) << 1 | (<uint32_t>b2) << 2 | (<uint32_t>b3) << 3


cdef bint _gather_square(State* st, int a, int a0, int u0, int v0, int s,
                         uint16_t material) noexcept nogil:
    """_gather_cell square-wise, when the plane differs from material all
    over the footprint; False (nothing done) otherwise."""
    cdef uint64_t fill = LANES * material
    cdef int e, start = SPREAD_U[u0] | SPREAD_V[v0]
    if not _differs_everywhere(&st.plane[a][start], s * s, fill):
        return False
    _parity_square(st, a, a0, u0, v0, s)
    for e in range(start, start + s * s, 4):
        memcpy(&st.plane[a][e], &fill, 8)
    return True


cdef inline void _gather_cell(State* st, int a, int a0, int u0, int v0, int s,
                              uint16_t material) noexcept nogil:
    """Gathering over the s x s footprint (s >= 2) of a uniform cell in axis
    a's plane: parity at layer a0 where the plane differs from material."""
    cdef uint16_t* pl = st.plane[a]
    cdef uint64_t word, fill = LANES * material
    cdef int e, start = SPREAD_U[u0] | SPREAD_V[v0]
    # the footprint of an aligned cell is a contiguous Morton range of aligned 4-entry words
    for e in range(start, start + s * s, 4):
        memcpy(&word, &pl[e], 8)
        if word != fill:
            _parity_quad(st, a, a0, DECODE_U[e], DECODE_V[e],
                         _lanes(pl[e] != material, pl[e + 1] != material,
                                pl[e + 2] != material, pl[e + 3] != material))
            memcpy(&pl[e], &fill, 8)


cdef void _gather_visit(void* ctx, int event, uint32_t code, int depth,
                        uint16_t material) noexcept nogil:
    """Gathering over a uniform cell (a leaf, or empty with material 0) of
    depth <= 4: voxels come in bricks."""
    cdef State* st = <State*>ctx
    cdef int o[3]
    cdef int a, s = 1 << (5 - depth)
    _cell_origin(code, depth, o)
    if s >= 16:
        # a large cell's footprint that differs everywhere is set square-wise
        for a in range(3):
            if not _gather_square(st, a, o[a], o[(a + 1) % 3], o[(a + 2) % 3], s, material):
                _gather_cell(st, a, o[a], o[(a + 1) % 3], o[(a + 2) % 3], s, material)
        return
    _gather_cell(st, 0, o[0], o[1], o[2], s, material)     # axis frames (x; y, z),
    _gather_cell(st, 1, o[1], o[2], o[0], s, material)     # (y; z, x)
    _gather_cell(st, 2, o[2], o[0], o[1], s, material)     # and (z; x, y)


cdef inline void _gather_quad(State* st, int a, int layer, int u0, int v0, const uint16_t* b,
                              int su, int sv, int up) noexcept nogil:
    """Gathering over a brick b along axis a.  Lane k is cell (u0 + k & 1,
    v0 + k >> 1) of layer ``layer``: its lower voxel is b[0], b[su], b[sv],
    b[su + sv] (su, sv, up: the octant strides along u, v and a), its upper
    voxel ``up`` further.  Lower voxels against the plane, upper against
    lower; the plane keeps the upper voxels."""
    cdef uint16_t* pl = &st.plane[a][SPREAD_U[u0] | SPREAD_V[v0]]
    cdef uint32_t lower = _lanes(pl[0] != b[0], pl[1] != b[su], pl[2] != b[sv], pl[3] != b[su + sv])
    cdef uint32_t upper = _lanes(b[0] != b[up], b[su] != b[su + up], b[sv] != b[sv + up],
                                 b[su + sv] != b[su + sv + up])
    pl[0] = b[up]
    pl[1] = b[su + up]
    pl[2] = b[sv + up]
    pl[3] = b[su + sv + up]
    if lower:
        _parity_quad(st, a, layer, u0, v0, lower)
    if upper:
        _parity_quad(st, a, layer + 1, u0, v0, upper)


cdef void _gather_brick(void* ctx, uint32_t code, const uint16_t* b) noexcept nogil:
    """Gathering over a brick, voxels b by octant (bit 0 x, 1 y, 2 z), one
    2x2 footprint per axis."""
    cdef State* st = <State*>ctx
    cdef int o[3]
    _cell_origin(code, 4, o)
    _gather_quad(st, 0, o[0], o[1], o[2], b, 2, 4, 1)     # u = y, v = z
    _gather_quad(st, 1, o[1], o[2], o[0], b, 4, 1, 2)     # u = z, v = x
    _gather_quad(st, 2, o[2], o[0], o[1], b, 1, 2, 4)     # u = x, v = y


cdef inline void _seed(State* st, int a, int L, int u, int v, uint16_t below, uint16_t above) noexcept nogil:
    """The face of cell (u, v) of layer L between voxels below and above,
    one solid and one empty: negative under a solid above, else positive."""
    if above != 0:
        _region(st, a, L, u, v, False, above)
    else:
        _region(st, a, L, u, v, True, below)


cdef inline void _scan_entry(State* st, int a, int a0, int e, uint16_t material) noexcept nogil:
    """Seed the face below plane entry e of axis a, if any; then store the material."""
    cdef uint16_t below = st.plane[a][e]
    if (below == 0) != (material == 0):
        _seed(st, a, a0, DECODE_U[e], DECODE_V[e], below, material)
    st.plane[a][e] = material


cdef inline bint _block_claimed(State* st, int a, int L, int e) noexcept nogil:
    """Whether the 2x2 cells of the aligned 4-entry word at plane entry e are all claimed."""
    cdef int u = DECODE_U[e], v = DECODE_V[e]
    return ((st.claims[a][L][v] >> u) & 3) == 3 and ((st.claims[a][L][v + 1] >> u) & 3) == 3


cdef void _count_claimed_seeds(State* st, uint64_t word, uint16_t material) noexcept nogil:
    """Metrics of a skipped claimed word: its seeds (lanes whose face is solid/empty)."""
    cdef int k
    cdef uint16_t below
    for k in range(4):
        below = <uint16_t>(word >> (16 * k))
        if (material != 0) == (below == 0):
            st.seeds += 1
            st.seeds_claimed += 1


cdef inline void _scan_cell(State* st, int a, int a0, int u0, int v0, int s,
                            uint16_t material) noexcept nogil:
    """Scanning over the s x s footprint (s >= 2) of a uniform cell in axis
    a's plane, one 4-entry word (2x2 cells) at a time: words without seeds
    (no 0 lane under a leaf, all lanes 0 under an empty cell) or with all
    cells claimed are set to the cell's material at once."""
    cdef uint16_t* pl = st.plane[a]
    cdef uint64_t word, fill = LANES * material
    cdef int e, k, start = SPREAD_U[u0] | SPREAD_V[v0]
    for e in range(start, start + s * s, 4):
        memcpy(&word, &pl[e], 8)
        if material != 0:
            if not _has_zero_lane(word):
                memcpy(&pl[e], &fill, 8)
                continue
        elif word == 0:
            continue
        if _block_claimed(st, a, a0, e):
            if st.metrics:
                _count_claimed_seeds(st, word, material)
            memcpy(&pl[e], &fill, 8)
            continue
        for k in range(e, e + 4):
            _scan_entry(st, a, a0, k, material)


cdef void _scan_visit(void* ctx, int event, uint32_t code, int depth,
                      uint16_t material) noexcept nogil:
    """Scanning over a uniform cell (depth <= 4): leaves seed negative faces
    over empty, empty cells positive faces over solid."""
    cdef State* st = <State*>ctx
    cdef int o[3]
    cdef int s = 1 << (5 - depth)
    _cell_origin(code, depth, o)
    _scan_cell(st, 0, o[0], o[1], o[2], s, material)
    _scan_cell(st, 1, o[1], o[2], o[0], s, material)
    _scan_cell(st, 2, o[2], o[0], o[1], s, material)


cdef inline void _scan_quad(State* st, int a, int layer, int u0, int v0, const uint16_t* b,
                            int su, int sv, int up) noexcept nogil:
    """Scanning over a brick b along axis a (lanes as in _gather_quad): a
    seed where a lower voxel and the plane below it, or an upper voxel and
    the lower, are one solid and one empty; the plane keeps the upper voxels."""
    cdef uint16_t* pl = &st.plane[a][SPREAD_U[u0] | SPREAD_V[v0]]
    cdef int lane[4]
    cdef int k
    cdef uint32_t seeds
    lane[0] = 0
    lane[1] = su
    lane[2] = sv
    lane[3] = su + sv
    seeds = _lanes((pl[0] == 0) != (b[0] == 0), (pl[1] == 0) != (b[su] == 0),
                   (pl[2] == 0) != (b[sv] == 0), (pl[3] == 0) != (b[su + sv] == 0))
    while seeds:
        k = ret_ctz32(seeds)
        seeds &= seeds - 1
        _seed(st, a, layer, u0 + (k & 1), v0 + (k >> 1), pl[k], b[lane[k]])
    seeds = _lanes((b[0] == 0) != (b[up] == 0), (b[su] == 0) != (b[su + up] == 0),
                   (b[sv] == 0) != (b[sv + up] == 0), (b[su + sv] == 0) != (b[su + sv + up] == 0))
    while seeds:
        k = ret_ctz32(seeds)
        seeds &= seeds - 1
        _seed(st, a, layer + 1, u0 + (k & 1), v0 + (k >> 1), b[lane[k]], b[lane[k] + up])
    for k in range(4):
        pl[k] = b[lane[k] + up]


cdef void _scan_brick(void* ctx, uint32_t code, const uint16_t* b) noexcept nogil:
    """Scanning over a brick (voxels b by octant, as in _gather_brick)."""
    cdef State* st = <State*>ctx
    cdef int o[3]
    _cell_origin(code, 4, o)
    _scan_quad(st, 0, o[0], o[1], o[2], b, 2, 4, 1)
    _scan_quad(st, 1, o[1], o[2], o[0], b, 4, 1, 2)
    _scan_quad(st, 2, o[2], o[0], o[1], b, 1, 2, 4)


cdef void _seed_planes(State* st) noexcept nogil:
    """Material planes = the halo layer -1 of each axis."""
    cdef int a, u, v, su, sv
    cdef const uint16_t* slab
    if st.halo_empty:
        memset(st.plane, 0, sizeof(st.plane))
        return
    for a in range(3):
        slab = _slab(st, a, -1)
        su = PAD_STRIDE[a][1]
        sv = PAD_STRIDE[a][2]
        for v in range(32):
            for u in range(32):
                st.plane[a][SPREAD_U[u] | SPREAD_V[v]] = slab[u * su + v * sv]


cdef void _start_chunk(State* st, bint layer_scan) noexcept nogil:
    """Clear the per-chunk state: no Parity, claims, links or output yet."""
    memset(st.claims, 0, sizeof(st.claims))
    memset(st.links_ready, 0, sizeof(st.links_ready))
    st.one_material = False     # until the layer scan's solid masks tell
    if layer_scan:
        memset(st.slab_wall_rows, 0, sizeof(st.slab_wall_rows))
    else:
        memset(st.pcol, 0, sizeof(st.pcol))
        memset(st.prow, 0, sizeof(st.prow))
        memset(st.pcolt, 0, sizeof(st.pcolt))
        memset(st.halo_walls_ready, 0, sizeof(st.halo_walls_ready))
    # every weld and S entry of earlier chunks is none now; when the tags
    # come round again (after 65,535 and 32,767 chunks), clear the tables
    st.weld_tag += WELD_INDEXES
    if st.weld_tag == 0:
        memset(st.weld, 0, sizeof(st.weld))
        st.weld_tag = WELD_INDEXES
    st.s_tag += 2
    if st.s_tag == 0:
        memset(st.in_s, 0, sizeof(st.in_s))
        st.s_tag = 2
    st.n_positions = 0
    st.n_triangles = 0
    st.error = ERR_NONE
    st.frame_a = -1             # no current layer yet
    st.regions = 0
    st.seeds = 0
    st.seeds_claimed = 0


cdef inline void _lone_cells(State* st, int a, int v, uint32_t cells, int positive,
                             const uint16_t* voxels, int su) noexcept nogil:
    """Weave the lone cells ``cells`` (bits u) of row v of the current
    layer, faces of the voxels voxels[u * su]."""
    cdef int u
    while cells:
        u = ret_ctz32(cells)
        cells &= cells - 1
        _lone_cell(st, a, u, v, positive, voxels[u * su])


cdef void _scan_layer(State* st, int a, int L) noexcept nogil:
    """Seed every unclaimed face cell of layer L of axis a, row by row: the
    voxels below (slab L - 1) and above (slab L), one solid and one empty.
    A row's lone cells (linked to no neighbour) are woven first, negative
    faces then positive, with no claim (no other region can reach them),
    then its other unclaimed cells are filled, woven and claimed."""
    cdef const uint32_t* solid_below = st.solid[a][L]
    cdef const uint32_t* solid_above = st.solid[a][L + 1]
    cdef const uint16_t* above = _slab(st, a, L)
    cdef const uint16_t* row_above
    cdef uint32_t faces, linked, lone, seeds
    cdef int v, u, started
    cdef int su = PAD_STRIDE[a][1], sv = PAD_STRIDE[a][2], down = PAD_STRIDE[a][0]
    cdef uint32_t any_face = 0
    cdef bint metrics = st.metrics     # read once: the weavers' stores may alias st
    for v in range(32):
        any_face |= solid_below[v] ^ solid_above[v]
    if any_face == 0:
        return                  # a layer with no faces, in one vector pass
    if st.n_triangles > MAX_TRIANGLES:
        st.error = ERR_OUTPUT   # never: see TRIANGLE_ROOM; keeps the buffers safe
        return
    if not st.links_ready[a][L]:
        _row_links(st, a, L)
    set_frame(st, a, L)
    for v in range(32):
        faces = solid_below[v] ^ solid_above[v]
        if faces == 0:
            continue
        row_above = above + v * sv
        linked = _linked(st, a, L, v)
        lone = faces & ~linked
        if lone:
            _lone_cells(st, a, v, lone & solid_above[v], False, row_above, su)
            _lone_cells(st, a, v, lone & ~solid_above[v], True, row_above - down, su)
        seeds = faces & linked & ~st.claims[a][L][v]
        started = 0
        while seeds:
            if st.n_triangles > MAX_TRIANGLES:
                st.error = ERR_OUTPUT
                return
            u = ret_ctz32(seeds)
            if (solid_above[v] >> u) & 1:
                _fill_weave_claim(st, a, L, u, v, False, row_above[u * su])
            else:
                _fill_weave_claim(st, a, L, u, v, True, row_above[u * su - down])
            started += 1
            seeds &= ~st.claims[a][L][v]
        if metrics:
            st.seeds += ret_popcount32(faces)
            st.regions += ret_popcount32(lone) + started
            st.seeds_claimed += ret_popcount32(faces & linked) - started


cdef void _mesh_rows(State* st) noexcept nogil:
    """Mesh st.pad by the layer-by-layer scan (no octree): solid masks give
    the seeds of each layer, voxel rows the fill links of the layers that
    regions need."""
    cdef int a, L
    cdef double t0 = 0
    _start_chunk(st, True)
    if st.metrics:
        t0 = ret_now()
    start_rows(st)
    solid_masks(st)
    if st.metrics:
        st.t_gather = ret_now() - t0
        t0 = ret_now()
    for a in range(3):
        for L in range(33 if st.emit_upper[a] else 32):
            _scan_layer(st, a, L)
    if st.metrics:
        st.t_scan = ret_now() - t0


cdef void _mesh_dense(State* st, const uint16_t[:, :, ::1] chunk) noexcept nogil:
    """Mesh st.pad, whose interior is chunk: by the layer scan, or by the
    double walk over the chunk's compact octree when st.walks."""
    if st.walks:
        _mesh_state(st, compact_from_dense_c(chunk, st.nodes))
    else:
        _mesh_rows(st)


cdef void _mesh_state(State* st, int n_nodes) noexcept nogil:
    """Mesh st.pad whose interior's compact stream is st.nodes[:n_nodes] by
    the double walk."""
    cdef int a, u, v, e, su, sv
    cdef const uint16_t* slab
    cdef uint16_t below, above
    cdef uint16_t* pl
    cdef const uint16_t* row
    cdef uint32_t lanes
    cdef uint64_t word
    cdef double t0 = 0
    _start_chunk(st, False)
    # gathering
    if st.metrics:
        t0 = ret_now()
    _seed_planes(st)
    memcpy(st.plane_halo, st.plane, sizeof(st.plane))
    compact_walk_bricks_c(st.nodes, n_nodes, _gather_visit, _gather_brick, st)
    for a in range(3):
        # layer 32: the plane against the upper halo slab, one 2x2 word at a time
        slab = _slab(st, a, 32)
        su = PAD_STRIDE[a][1]
        sv = PAD_STRIDE[a][2]
        pl = st.plane[a]
        if st.halo_empty and _differs_everywhere(pl, 1024, 0):
            _parity_square(st, a, 32, 0, 0, 32)
            continue
        for e in range(0, 1024, 4):
            u = DECODE_U[e]
            v = DECODE_V[e]
            if st.halo_empty:
                memcpy(&word, &pl[e], 8)
                if word == 0:
                    continue
                lanes = _lanes(pl[e] != 0, pl[e + 1] != 0, pl[e + 2] != 0, pl[e + 3] != 0)
            else:
                row = slab + u * su + v * sv
                lanes = _lanes(pl[e] != row[0], pl[e + 1] != row[su],
                               pl[e + 2] != row[sv], pl[e + 3] != row[su + sv])
            if lanes:
                _parity_quad(st, a, 32, u, v, lanes)
    if st.metrics:
        st.t_gather = ret_now() - t0
        t0 = ret_now()
    # scanning
    memcpy(st.plane, st.plane_halo, sizeof(st.plane))
    compact_walk_bricks_c(st.nodes, n_nodes, _scan_visit, _scan_brick, st)
    for a in range(3):
        if not st.emit_upper[a]:
            continue
        slab = _slab(st, a, 32)
        su = PAD_STRIDE[a][1]
        sv = PAD_STRIDE[a][2]
        for v in range(32):
            if st.claims[a][32][v] == <uint32_t>0xFFFFFFFF and not st.metrics:
                continue
            for u in range(32):
                below = st.plane[a][SPREAD_U[u] | SPREAD_V[v]]
                above = slab[u * su + v * sv]
                if (below == 0) != (above == 0):
                    _seed(st, a, 32, u, v, below, above)
    if st.metrics:
        st.t_scan = ret_now() - t0


cdef bint _any_nonzero(const uint16_t* voxels, int n) noexcept nogil:
    """Whether any of n voxels is non-zero (solid): read 2 KB (1024 voxels)
    at a time, stopping at the first part with one; then the rest, 64 bytes
    at a time, and its last few voxels one by one."""
    cdef int k, whole = n - n % 1024
    for k in range(0, whole, 1024):
        if ret_any_nonzero64(voxels + k, 32):
            return True
    if ret_any_nonzero64(voxels + whole, (n % 1024) // 32):
        return True
    for k in range(n - n % 32, n):
        if voxels[k]:
            return True
    return False


# ---------------------------------------------------------------- batches

# meshes of several chunks of one volume, appended in chunk order
cdef struct Batch:
    float* positions             # grid coordinates
    int64_t* keys                # seam_key of each vertex (-1 inside its chunk)
    int64_t n_vertices
    int64_t cap_vertices
    int32_t* triangles           # indices into this batch's positions
    uint16_t* materials
    uint8_t* faces
    int64_t n_triangles
    int64_t cap_triangles


cdef bint _grow(void** buffer, size_t item, int64_t cap) noexcept nogil:
    cdef void* grown = realloc(buffer[0], cap * item)
    if grown == NULL:
        return False
    buffer[0] = grown
    return True


cdef bint _append_chunk(Batch* out, State* st, const int64_t* origin, const int64_t* key_origin,
                        int64_t dy, int64_t dz) noexcept nogil:
    """Append st's mesh moved to the chunk's grid origin; False when out of memory."""
    cdef int64_t cap, base = out.n_vertices, first = out.n_triangles, i
    cdef const float* p
    cdef float* q
    if base + st.n_positions > out.cap_vertices:
        cap = max(2 * out.cap_vertices, base + st.n_positions)
        if not (_grow(<void**>&out.positions, 3 * sizeof(float), cap)
                and _grow(<void**>&out.keys, sizeof(int64_t), cap)):
            return False
        out.cap_vertices = cap
    if first + st.n_triangles > out.cap_triangles:
        cap = max(2 * out.cap_triangles, first + st.n_triangles)
        if not (_grow(<void**>&out.triangles, 3 * sizeof(int32_t), cap)
                and _grow(<void**>&out.materials, sizeof(uint16_t), cap)
                and _grow(<void**>&out.faces, sizeof(uint8_t), cap)):
            return False
        out.cap_triangles = cap
    for i in range(st.n_positions):
        p = st.positions + 3 * i
        q = out.positions + 3 * (base + i)
        q[0] = p[0] + origin[0]
        q[1] = p[1] + origin[1]
        q[2] = p[2] + origin[2]
        out.keys[base + i] = seam_key(p, key_origin[0], key_origin[1], key_origin[2], dy, dz)
    for i in range(3 * st.n_triangles):
        out.triangles[3 * first + i] = st.triangles[i] + <int32_t>base
    memcpy(out.materials + first, st.materials, st.n_triangles * sizeof(uint16_t))
    memcpy(out.faces + first, st.faces, st.n_triangles * sizeof(uint8_t))
    out.n_vertices += st.n_positions
    out.n_triangles += st.n_triangles
    return True


cdef void _free_batch(Batch* out) noexcept nogil:
    free(out.positions)
    free(out.keys)
    free(out.triangles)
    free(out.materials)
    free(out.faces)


# ---------------------------------------------------------------- Python API

# one batch call in progress: the state, the volume's shape and seam box, the output
cdef struct BatchRun:
    State* st
    int64_t last[3]              # the volume's last chunk coordinate per axis
    int64_t lo[3]                # seam box lower corner
    int64_t dy
    int64_t dz
    Batch out
    int64_t* rows                # per chunk with triangles: its row in coords,
    int64_t* n_vertices          # its vertex count
    int64_t* n_triangles         # and triangle count
    Py_ssize_t kept
    int error
    Py_ssize_t failed


def _int_triple(value, what):
    """``value`` as a tuple of three Python ints, else a clear error: the
    batch runs copy it into C arrays of three."""
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{what} must be three integers, got {value!r}") from None
    if len(items) != 3:
        raise ValueError(f"{what} must be three integers, got {len(items)} values: {value!r}")
    if not all(_integer(k) for k in items):
        raise TypeError(f"{what} must be three integers, got {value!r}")
    return tuple(int(k) for k in items)


def _batch_coords(coords, first, last):
    """(n, 3) int64 chunk coordinates, each within first..last per axis."""
    given = np.asarray(coords)
    if given.size == 0:
        given = np.empty((0, 3), np.int64)
    if given.ndim != 2 or given.shape[1] != 3:
        raise ValueError(f"chunk coordinates must have shape (n, 3), got {given.shape}")
    if given.dtype.kind not in "iu":
        raise TypeError(f"chunk coordinates must be integers, got dtype {given.dtype}")
    chunks = np.ascontiguousarray(given, dtype=np.int64)
    bad = ~np.all((chunks >= np.asarray(first, dtype=np.int64))
                  & (chunks <= np.asarray(last, dtype=np.int64)), axis=1)
    if bad.any():
        raise ValueError(f"chunk {tuple(int(k) for k in chunks[np.argmax(bad)])} is outside the "
                         f"volume's chunks {tuple(first)}..{tuple(last)}")
    return chunks


MAX_GRID_COORDINATE = 2**24
"""Grid coordinates of a batch's corners stay within +-2**24, which float32 positions hold exactly."""


def _check_seam_box(chunks, box_lo, dy, dz, extent=None):
    """ValueError unless the corners of the chunks ``chunks`` stay within
    +-MAX_GRID_COORDINATE and inside the seam box at ``box_lo`` with ``dy``,
    ``dz`` corners along y, z, whose keys (weld.seam_key) must fit an int64.
    The corners reach the volume's ``extent`` per axis at most; without it
    (padded blocks, whose voxels may end anywhere in their chunk) the box's
    far y and z sides are the caller's to get right."""
    if dy < 1 or dz < 1:
        raise ValueError(f"the seam box needs at least one corner along y and z, got dy={dy}, dz={dz}")
    if len(chunks) == 0:
        return
    low = [32 * int(c) for c in chunks.min(axis=0)]     # Python ints: no overflow
    high = [32 * int(c) + 32 for c in chunks.max(axis=0)]
    if extent is not None:
        high = [min(h, int(n)) for h, n in zip(high, extent)]
    if max(abs(k) for k in low + high + list(box_lo)) > MAX_GRID_COORDINATE:
        raise ValueError(f"chunk corners {low}..{high} or box_lo {list(box_lo)} reach beyond grid coordinate "
                         f"+-2**24, which float32 positions cannot hold exactly")
    relative_low = [a - b for a, b in zip(low, box_lo)]
    relative_high = [a - b for a, b in zip(high, box_lo)]
    far_sides = extent is not None and (relative_high[1] >= dy or relative_high[2] >= dz)
    if min(relative_low) < 0 or far_sides or (relative_high[0] + 1) * dy * dz >= 2**62:
        raise ValueError(f"chunk corners {low}..{high} are outside the seam box at {list(box_lo)} "
                         f"with dy={dy}, dz={dz} corners")


cdef void _start_run(BatchRun* run, State* st, tuple last, tuple box_lo, int64_t dy, int64_t dz):
    """Start a batch run; last and box_lo are _int_triple results."""
    memset(run, 0, sizeof(BatchRun))
    run.st = st
    run.last[0], run.last[1], run.last[2] = last
    run.lo[0], run.lo[1], run.lo[2] = box_lo
    run.dy = dy
    run.dz = dz
    st.halo_empty = False


cdef bint _mesh_run_chunk(BatchRun* run, const uint16_t[:, :, ::1] block, const int64_t* chunk,
                          Py_ssize_t row) noexcept nogil:
    """Mesh run.st.pad, the padded block of chunk ``chunk`` (row ``row`` of the
    batch), and append it; False (run.error set) on failure."""
    cdef State* st = run.st
    cdef int64_t origin[3]
    cdef int64_t key_origin[3]
    cdef int64_t cap
    cdef int a
    for a in range(3):
        origin[a] = 32 * chunk[a]
        key_origin[a] = origin[a] - run.lo[a]
        st.emit_upper[a] = chunk[a] == run.last[a]
    _mesh_dense(st, block[1:33, 1:33, 1:33])
    if st.error == ERR_NONE and st.n_triangles:
        if run.kept % 64 == 0:
            cap = run.kept + 64
            if not (_grow(<void**>&run.rows, sizeof(int64_t), cap)
                    and _grow(<void**>&run.n_vertices, sizeof(int64_t), cap)
                    and _grow(<void**>&run.n_triangles, sizeof(int64_t), cap)):
                st.error = ERR_MEMORY
        if st.error == ERR_NONE and not _append_chunk(&run.out, st, origin, key_origin, run.dy, run.dz):
            st.error = ERR_MEMORY
        if st.error == ERR_NONE:
            run.rows[run.kept] = row
            run.n_vertices[run.kept] = st.n_positions
            run.n_triangles[run.kept] = st.n_triangles
            run.kept += 1
    if st.error != ERR_NONE:
        run.error = st.error
        run.failed = row
        return False
    return True


cdef object _finish_run(BatchRun* run, const int64_t[:, ::1] chunks):
    """The batch's arrays (see Mesher.mesh_volume_batch); frees the run's buffers."""
    cdef Batch* out = &run.out
    try:
        if run.error == ERR_MEMORY:
            raise MemoryError(f"out of memory while meshing chunk {tuple(chunks[run.failed])}")
        if run.error != ERR_NONE:
            raise RuntimeError(f"mesher internal error {run.error} in chunk {tuple(chunks[run.failed])} "
                               "(please report the chunk)")
        rows = np.empty(run.kept, dtype=np.int64)
        n_vertices = np.empty(run.kept, dtype=np.int64)
        n_triangles = np.empty(run.kept, dtype=np.int64)
        positions, triangles, materials, faces = _mesh_arrays(
            out.positions, out.n_vertices, out.triangles, out.materials, out.faces, out.n_triangles)
        keys = np.empty(out.n_vertices, dtype=np.int64)
        if run.kept:
            _copy_out(rows, run.rows, run.kept * sizeof(int64_t))
            _copy_out(n_vertices, run.n_vertices, run.kept * sizeof(int64_t))
            _copy_out(n_triangles, run.n_triangles, run.kept * sizeof(int64_t))
        if out.n_vertices:
            _copy_out(keys, out.keys, out.n_vertices * sizeof(int64_t))
    finally:
        _free_batch(out)
        free(run.rows)
        free(run.n_vertices)
        free(run.n_triangles)
    return rows, n_vertices, n_triangles, positions, keys, triangles, materials, faces


cdef int _copy_out(array, const void* source, size_t nbytes) except -1:
    """Copy nbytes into the start of a C-contiguous numpy array (through
    the buffer protocol: no numpy C API, so no numpy ABI dependence)."""
    cdef Py_buffer target
    PyObject_GetBuffer(array, &target, PyBUF_SIMPLE | PyBUF_WRITABLE)
    memcpy(target.buf, source, nbytes)
    PyBuffer_Release(&target)
    return 0


# native byte order: shared descriptors, and np.empty called with them
# positionally (a few hundred nanoseconds less per mesh than by keywords)
_UINT8, _UINT16 = np.dtype(np.uint8), np.dtype(np.uint16)
_INT32, _FLOAT32 = np.dtype(np.int32), np.dtype(np.float32)
_empty = np.empty


cdef tuple _mesh_arrays(const float* positions, int64_t n_vertices, const int32_t* triangles,
                        const uint16_t* materials, const uint8_t* faces, int64_t n_triangles):
    """Numpy copies (positions, triangles, materials, faces) of a mesh in C buffers."""
    arrays = (_empty((n_vertices, 3), _FLOAT32), _empty((n_triangles, 3), _INT32),
              _empty(n_triangles, _UINT16), _empty(n_triangles, _UINT8))
    if n_vertices:
        _copy_out(arrays[0], positions, n_vertices * 3 * sizeof(float))
    if n_triangles:
        _copy_out(arrays[1], triangles, n_triangles * 3 * sizeof(int32_t))
        _copy_out(arrays[2], materials, n_triangles * sizeof(uint16_t))
        _copy_out(arrays[3], faces, n_triangles * sizeof(uint8_t))
    return arrays


_new_object = Mesh.__new__


cdef object _mesh_of(tuple arrays):
    """Mesh._wrap(*arrays) without its Python frame: the meshers' own
    arrays, in Mesh's dtypes and shapes, so no copy and no check."""
    mesh = _new_object(Mesh)
    mesh.positions, mesh.triangles, mesh.materials, mesh.faces = arrays
    return mesh


_CHUNK_SHAPE = (32, 32, 32)


cdef object _as_chunk(voxels):
    """A (32, 32, 32) uint16 array from an integer or bool array (validated)."""
    if type(voxels) is np.ndarray and voxels.dtype is _UINT16 and voxels.shape == _CHUNK_SHAPE:
        return voxels           # the common case, in three attribute reads
    arr = np.asarray(voxels)
    if arr.ndim != 3 or arr.shape != _CHUNK_SHAPE:
        raise ValueError(f"a chunk must have shape (32, 32, 32), got {arr.shape}")
    if arr.dtype == np.bool_:
        return arr.astype(np.uint16)
    if arr.dtype.kind not in "ui":
        raise TypeError(f"voxels must be an integer (or bool) array of material ids, got dtype {arr.dtype}")
    if arr.dtype != np.uint16:
        if arr.size and (arr.min() < 0 or arr.max() > 65535):
            raise ValueError(
                f"material ids must be in 0..65535, got values in {arr.min()}..{arr.max()}")
        arr = arr.astype(np.uint16)
    return arr


cdef bint _copy_interior(State* st, chunk, uint16_t[:, :, ::1] padded) except -1:
    """padded[1:33, 1:33, 1:33] = chunk, a (32, 32, 32) uint16 array (from
    _as_chunk or an octree's to_dense(); C-level, so nothing else gets here),
    and True, or False when the chunk has no solid voxel (then ``padded`` is
    left as it was; its halo always is).  A C-contiguous chunk is read
    through the buffer protocol: no memoryview object per call, and its
    solid rows are taken on the way (copy_chunk; the caller clears
    st.solid_z_copied when it does not mesh the chunk by the layer scan)."""
    cdef Py_buffer view
    cdef const uint16_t* voxels
    cdef bint solid
    PyObject_GetBuffer(chunk, &view, PyBUF_STRIDES)
    voxels = <const uint16_t*>view.buf
    if not (view.ndim == 3 and view.itemsize == 2 and view.shape[0] == 32 and view.shape[1] == 32
            and view.shape[2] == 32 and view.strides[0] == 2048 and view.strides[1] == 64
            and view.strides[2] == 2):
        PyBuffer_Release(&view)
        if not chunk.any():
            return False
        padded.base[1:33, 1:33, 1:33] = chunk
        return True
    with nogil:
        solid = _any_nonzero(voxels, 32 * 32 * 32)
        if solid:
            copy_chunk(st, voxels, &padded[1, 1, 1])
    PyBuffer_Release(&view)
    return solid


def _three_flags(value):
    """emit_upper as three bools: a sequence of three bools (or 0 / 1), else a clear error."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"emit_upper must be three flags, one per axis, got {value!r}")
    if len(value) != 3:
        raise ValueError(f"emit_upper needs one flag per axis, got {value!r}")
    if not all(isinstance(f, (bool, np.bool_)) or (isinstance(f, (int, np.integer)) and f in (0, 1)) for f in value):
        raise TypeError(f"emit_upper must be three flags (bools), got {value!r}")
    return tuple(bool(f) for f in value)


def _integer(value):
    """Whether value is an integer (a Python or numpy int, not a bool)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


cdef class Triangle:
    """One emitted triangle (seed: "Triangle").

    ``outward_vertices()`` are chunk-local corner coordinates (0..32),
    counter-clockwise seen from outside (the normal points from the solid
    voxel to the empty one); ``face()`` is ``2 * axis + 1`` when that normal
    points to +axis, else ``2 * axis`` (DESIGN.md's ``faces`` code).
    """
    cdef tuple _vertices
    cdef int _material
    cdef int _face

    def __init__(self, vertices, material, face):
        """Three (x, y, z) integer vertices, a material id 0..65535 and a face code 0..5."""
        points = tuple(tuple(p) for p in vertices)
        if len(points) != 3 or any(len(p) != 3 for p in points):
            raise ValueError("a Triangle has three (x, y, z) vertices")
        if not all(_integer(c) for p in points for c in p):
            raise TypeError(f"a Triangle's vertex coordinates are integers, got {points!r}")
        if not (_integer(material) and 0 <= material <= 65535):
            raise ValueError(f"a Triangle's material is an id in 0..65535, got {material!r}")
        if not (_integer(face) and 0 <= face <= 5):
            raise ValueError(f"a Triangle's face is a code in 0..5 (2 * axis + 1 when facing +axis), got {face!r}")
        self._vertices = tuple(tuple(int(c) for c in p) for p in points)
        self._material = int(material)
        self._face = int(face)

    def outward_vertices(self):
        return self._vertices

    def material(self):
        return self._material

    def face(self):
        return self._face

    @property
    def axis(self):
        return self._face >> 1

    @property
    def positive(self):
        return bool(self._face & 1)

    def __repr__(self):
        return f"Triangle({self._vertices}, material={self._material}, face={self._face})"


cdef class Mesher:
    """Reusable mesher state, one per thread: allocated once, about 1.9 MB
    of tables and 3.7 MB of buffers for the largest mesh a chunk can have,
    of which a chunk uses only the pages it touches.

    ``mesh(voxels)`` meshes a standalone chunk (outside empty);
    ``mesh_padded(padded, emit_upper)`` a chunk with its neighbours' halo;
    ``make_triangles(tree, to_material, on_triangle)`` is the seed's callback
    API.  With ``metrics=True`` each call records ``last_metrics``.

    An octree is meshed by the seed's double walk over it; a dense array by
    the layer-by-layer scan of its voxel rows (the seed's alternative to the
    walk, faster when the voxels are at hand), or by the double walk over
    its octree with ``walks=True``.  Both give the same triangles.
    """
    cdef State* st
    cdef uint16_t[:, :, ::1] _standalone     # (34, 34, 34) zero-halo buffer for mesh()
    cdef object _block           # (34, 34, 34) buffer for mesh_volume_batch()
    cdef PyThread_type_lock _lock    # one call at a time per Mesher (_enter, _leave)
    cdef unsigned long _owner        # the thread ident of the call in progress, 0 when none
    cdef readonly bint metrics
    cdef readonly bint walks
    cdef object _last_metrics

    def __cinit__(self, metrics=False, walks=False):
        # zeroed pages: every table starts empty, and untouched parts cost nothing
        self.st = <State*>calloc(1, sizeof(State))
        if self.st == NULL:
            raise MemoryError("cannot allocate the mesher state")
        self.st.positions = <float*>malloc(MAX_POSITIONS * 3 * sizeof(float))
        self.st.triangles = <int32_t*>malloc(TRIANGLE_ROOM * 3 * sizeof(int32_t))
        # three entries more: _emitted may write up to three past the last triangle
        self.st.materials = <uint16_t*>malloc((TRIANGLE_ROOM + 3) * sizeof(uint16_t))
        self.st.faces = <uint8_t*>malloc((TRIANGLE_ROOM + 3) * sizeof(uint8_t))
        if (self.st.positions == NULL or self.st.triangles == NULL
                or self.st.materials == NULL or self.st.faces == NULL):
            raise MemoryError("cannot allocate the mesher's output buffers")
        fill_solid_turns(self.st)
        fill_window_keys(self.st)
        self.st.metrics = bool(metrics)
        self.metrics = bool(metrics)
        self.st.walks = bool(walks)
        self.walks = bool(walks)
        self._standalone = np.zeros((P, P, P), dtype=np.uint16)
        self._block = np.zeros((P, P, P), dtype=np.uint16)
        self._lock = PyThread_allocate_lock()
        if self._lock == NULL:
            raise MemoryError("cannot allocate the mesher's lock")
        self._last_metrics = None

    def __dealloc__(self):
        if self._lock != NULL:
            PyThread_free_lock(self._lock)
        if self.st != NULL:
            free(self.st.positions)
            free(self.st.triangles)
            free(self.st.materials)
            free(self.st.faces)
            free(self.st)
            self.st = NULL

    cdef int _enter(self) except -1:
        """Take this Mesher for one call, the GIL released while another
        thread has it (that thread may need the GIL to finish its call).
        RuntimeError when this thread has it already: a finalizer or signal
        handler that runs during a call (Python code may run wherever the
        call allocates) and meshes with the same Mesher, which would wait
        for itself forever."""
        cdef unsigned long me = PyThread_get_thread_ident()
        if not PyThread_acquire_lock(self._lock, NOWAIT_LOCK):
            if self._owner == me:
                raise RuntimeError("this Mesher is already meshing on this thread (re-entered from a finalizer "
                                   "or signal handler during a call); use another Mesher there")
            with nogil:
                PyThread_acquire_lock(self._lock, WAIT_LOCK)
        self._owner = me
        return 0

    cdef void _leave(self):
        """Give this Mesher back after _enter."""
        self._owner = 0
        PyThread_release_lock(self._lock)

    cdef bint _busy_here(self):
        """Whether this thread is inside a call of this Mesher."""
        return self._owner == PyThread_get_thread_ident()

    @property
    def last_metrics(self):
        """Counters and walk times of the last chunk, or None without metrics.

        ``gather_seconds`` is the gathering walk (for the layer scan: its
        solid masks), ``scan_seconds`` the scanning walk (the layer scan,
        with the links it computes on the way)."""
        return self._last_metrics

    def mesh(self, voxels):
        """Mesh a standalone chunk: (32, 32, 32) array or Compact/Fixed8 octree."""
        return self._mesh_standalone(voxels)

    cdef object _mesh_standalone(self, voxels):
        """mesh(), with a C-level call from mesh_chunk."""
        nodes = None
        if type(voxels) is np.ndarray:
            dense = _as_chunk(voxels)   # the common case first: no octree type checks
        elif isinstance(voxels, CompactOctree):
            nodes = voxels.nodes
            dense = voxels.to_dense()
        elif isinstance(voxels, Fixed8Octree):
            tree = voxels.to_compact()
            nodes = tree.nodes
            dense = tree.to_dense()
        else:
            dense = _as_chunk(voxels)
        self._enter()
        try:
            if not _copy_interior(self.st, dense, self._standalone):
                if self.metrics:
                    self._last_metrics = dict(regions=0, seeds=0, seeds_claimed=0, triangles=0,
                                              gather_seconds=0.0, scan_seconds=0.0)
                return _mesh_of(_mesh_arrays(NULL, 0, NULL, NULL, NULL, 0))
            return self._run(self._standalone, (True, True, True), nodes, True)
        finally:
            self.st.solid_z_copied = False     # used by the layer scan's solid_masks, or by nothing
            self._leave()

    def mesh_padded(self, padded, emit_upper=(True, True, True)):
        """Mesh a chunk with its halo: (34, 34, 34) uint16, interior = chunk.

        Faces of layers 0..31 of every axis are emitted (including those whose
        solid voxel is in the halo), layer 32 of axis a only if emit_upper[a].
        Releases the GIL while meshing.
        """
        if not isinstance(padded, np.ndarray):
            raise TypeError(f"padded must be a numpy array, got {type(padded).__name__}")
        if padded.shape != (P, P, P):
            raise ValueError(f"padded must have shape (34, 34, 34), got {padded.shape}")
        if padded.dtype != np.uint16:
            raise TypeError(f"padded must have dtype uint16, got {padded.dtype}")
        flags = _three_flags(emit_upper)
        padded = np.ascontiguousarray(padded)
        self._enter()
        try:
            return self._run(padded, flags, None, False)
        finally:
            self._leave()

    def mesh_volume_batch(self, const uint16_t[:, :, :] volume, coords, box_lo,
                          int64_t dy, int64_t dz, bint skip_uniform=True):
        """Mesh chunks of a dense (X, Y, Z) uint16 volume in one GIL-free call.

        ``coords``: (n, 3) chunk coordinates.  Chunk c is meshed from its
        padded block (0 beyond the volume, as ``mesh_padded``) and emits
        layer 32 along axis a only when it is the volume's last chunk along
        a; chunks whose block holds one value are skipped (unless
        ``skip_uniform`` is False: they mesh to nothing anyway).  Returns the
        chunks with triangles, in the order of ``coords``, joined:
        ``(rows, n_vertices, n_triangles, positions, keys, triangles,
        materials, faces)``; ``rows`` index ``coords``, positions are grid
        coordinates, ``keys`` are ``weld.seam_key`` relative to the box
        corner ``box_lo`` with corner counts ``dy``, ``dz``, and triangles
        index the joined positions.
        """
        last = tuple((volume.shape[a] + 31) // 32 - 1 for a in range(3))
        box_lo = _int_triple(box_lo, "box_lo")
        given = _batch_coords(coords, (0, 0, 0), last)
        _check_seam_box(given, box_lo, dy, dz, extent=[volume.shape[a] for a in range(3)])
        cdef const int64_t[:, ::1] chunks = given
        cdef uint16_t[:, :, ::1] block = self._block
        cdef BatchRun run
        cdef Py_ssize_t i
        self._enter()
        try:
            _start_run(&run, self.st, last, box_lo, dy, dz)
            self.st.pad = &block[0, 0, 0]
            with nogil:
                for i in range(chunks.shape[0]):
                    fill_block(volume, 32 * chunks[i, 0], 32 * chunks[i, 1], 32 * chunks[i, 2], block)
                    if skip_uniform and uniform_block(self.st.pad, P * P * P):
                        continue
                    if not _mesh_run_chunk(&run, block, &chunks[i, 0], i):
                        break
            self.st.pad = NULL
        finally:
            self._leave()
        return _finish_run(&run, chunks)

    def mesh_blocks_batch(self, const uint16_t[:, :, :, ::1] blocks, coords, first_chunk,
                          last_chunk, box_lo, int64_t dy, int64_t dz):
        """Mesh padded blocks ((n, 34, 34, 34) uint16) of the chunks ``coords``
        of a volume whose chunks span ``first_chunk``..``last_chunk`` (per
        axis, inclusive), in one GIL-free call.

        Block i is chunk coords[i] with its halo (as for ``mesh_padded``);
        blocks holding one value are skipped.  Returns what
        ``mesh_volume_batch`` returns.
        """
        if blocks.shape[1] != P or blocks.shape[2] != P or blocks.shape[3] != P:
            raise ValueError(f"blocks must have shape (n, 34, 34, 34), got {tuple(blocks.shape[k] for k in range(4))}")
        last = _int_triple(last_chunk, "last_chunk")
        box_lo = _int_triple(box_lo, "box_lo")
        given = _batch_coords(coords, _int_triple(first_chunk, "first_chunk"), last)
        _check_seam_box(given, box_lo, dy, dz)
        cdef const int64_t[:, ::1] chunks = given
        if chunks.shape[0] != blocks.shape[0]:
            raise ValueError(f"{blocks.shape[0]} blocks for {chunks.shape[0]} chunks")
        cdef BatchRun run
        cdef Py_ssize_t i
        self._enter()
        try:
            _start_run(&run, self.st, last, box_lo, dy, dz)
            with nogil:
                for i in range(chunks.shape[0]):
                    self.st.pad = &blocks[i, 0, 0, 0]
                    if uniform_block(self.st.pad, P * P * P):
                        continue
                    if not _mesh_run_chunk(&run, blocks[i], &chunks[i, 0], i):
                        break
            self.st.pad = NULL
        finally:
            self._leave()
        return _finish_run(&run, chunks)

    cdef object _run(self, const uint16_t[:, :, ::1] pad, tuple flags, nodes, bint halo_empty):
        """Mesh the (34, 34, 34) block ``pad`` -> Mesh.  halo_empty: it is
        mesh()'s standalone block, whose chunk has a solid voxel (checked
        there), so only a block with a halo is scanned for being all empty."""
        cdef const uint32_t[::1] given
        cdef State* st = self.st
        cdef int n_nodes = 0
        cdef int a
        if nodes is not None:
            given = np.ascontiguousarray(nodes, dtype=np.uint32)
            if given.shape[0] > MAX_COMPACT_NODES:
                raise ValueError("compact stream longer than any 32^3 chunk's")
            n_nodes = given.shape[0]
            if n_nodes:
                memcpy(st.nodes, &given[0], n_nodes * sizeof(uint32_t))
        for a in range(3):
            st.emit_upper[a] = flags[a]
        st.pad = &pad[0, 0, 0]
        st.halo_empty = halo_empty
        with nogil:
            if not halo_empty and not _any_nonzero(st.pad, PPP):
                st.n_positions = 0
                st.n_triangles = 0
                st.error = ERR_NONE
                st.regions = st.seeds = st.seeds_claimed = 0
                st.t_gather = st.t_scan = 0
            elif nodes is None:
                _mesh_dense(st, pad[1:33, 1:33, 1:33])
            else:
                _mesh_state(st, n_nodes)
        st.pad = NULL
        if st.error != ERR_NONE:
            err = st.error
            raise RuntimeError(f"mesher internal error {err} (please report the chunk)")
        nt = st.n_triangles
        mesh = _mesh_of(_mesh_arrays(st.positions, st.n_positions, st.triangles, st.materials, st.faces, nt))
        if self.metrics:
            self._last_metrics = {
                "regions": st.regions,
                "seeds": st.seeds,
                "seeds_claimed": st.seeds_claimed,
                "triangles": nt,
                "gather_seconds": st.t_gather,
                "scan_seconds": st.t_scan,
            }
        return mesh

    def make_triangles(self, tree, to_material, on_triangle):
        """The seed's callback API over a standalone chunk.

        ``tree``: CompactOctree, Fixed8Octree or (32, 32, 32) array.
        ``to_material(value)`` is called once per distinct stored value
        (non-zero) and returns its material id (0..65535; 0 = empty);
        ``on_triangle(Triangle)`` is called once per triangle.
        """
        if isinstance(tree, CompactOctree):
            dense = tree.to_dense()
        elif isinstance(tree, Fixed8Octree):
            dense = tree.to_compact().to_dense()
        else:
            dense = _as_chunk(tree)
        values = np.unique(dense)
        lut = np.zeros(65536, dtype=np.uint16)
        for value in values:
            if value == 0:
                continue
            m = to_material(int(value))
            if not (_integer(m) and 0 <= m <= 65535):
                raise ValueError(f"to_material({int(value)}) returned {m!r}, not a material id in 0..65535")
            lut[value] = m
        mesh = self.mesh(lut[dense])
        cdef Triangle triangle
        points = [tuple(p) for p in mesh.positions.astype(np.int64).tolist()]
        for (i, j, k), material, face in zip(mesh.triangles.tolist(), mesh.materials.tolist(),
                                             mesh.faces.tolist()):
            triangle = Triangle.__new__(Triangle)
            triangle._vertices = (points[i], points[j], points[k])
            triangle._material = material
            triangle._face = face
            on_triangle(triangle)


_local = threading.local()


def row_kernel():
    """The voxel row kernels this build and CPU use: "avx2" (the solid masks
    with AVX2, the rest SSE2; RETICULATE_NO_AVX2 set in the environment at
    the first mesh turns it off), "sse2" or "portable" (plain C).  All give
    the same meshes."""
    return ("portable", "sse2", "avx2")[ret_row_kernel()]


def mesh_chunk(voxels):
    """Mesh one standalone (32, 32, 32) chunk (outside empty) -> Mesh.

    Uses one Mesher per thread, so it is safe to call from several threads,
    and a one-off Mesher when called again on a thread whose call is still
    in progress (from a finalizer or signal handler that runs during it).
    """
    cdef Mesher mesher = getattr(_local, "mesher", None)
    if mesher is None:
        mesher = _local.mesher = Mesher()
    elif mesher._busy_here():
        mesher = Mesher()
    return mesher._mesh_standalone(voxels)
