# The working state of the chunk mesher (seed: "Meshing bitfields"): the
# Material planes, Parity, Claims, the current region and its polygon nodes,
# the weld and S tables and the output buffers of one chunk.  Shared by
# mesher.pyx (walks, parity walls, fill, claims), trace.pyx, weave.pyx and
# weave_table.pyx.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from reticulate_core.octree cimport MAX_COMPACT_NODES

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    #include <windows.h>
    static inline int ret_ctz32(unsigned int x) { unsigned long i; _BitScanForward(&i, x); return (int)i; }
    static inline int ret_clz32(unsigned int x) { unsigned long i; _BitScanReverse(&i, x); return 31 - (int)i; }
    static inline int ret_popcount32(unsigned int x) { return (int)__popcnt(x); }
    static double ret_now(void) {
        LARGE_INTEGER f, c;
        QueryPerformanceFrequency(&f);
        QueryPerformanceCounter(&c);
        return (double)c.QuadPart / (double)f.QuadPart;
    }
    #else
    #include <time.h>
    static inline int ret_ctz32(unsigned int x) { return __builtin_ctz(x); }
    static inline int ret_clz32(unsigned int x) { return __builtin_clz(x); }
    #if defined(__POPCNT__)
    static inline int ret_popcount32(unsigned int x) { return __builtin_popcount(x); }
    #else
    /* without the popcnt instruction __builtin_popcount is a libgcc call */
    static inline int ret_popcount32(unsigned int x) {
        x = x - ((x >> 1) & 0x55555555u);
        x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
        return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
    }
    #endif
    static double ret_now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec * 1e-9;
    }
    #endif
    /* the boundary's directions d in the layer's (u, v) plane: 0 +u, 1 +v, 2 -u, 3 -v */
    static inline int ret_step_u(int d) { static const int step[4] = {1, 0, -1, 0}; return step[d]; }
    static inline int ret_step_v(int d) { static const int step[4] = {0, 1, 0, -1}; return step[d]; }
    """
    int ret_step_u(int d) noexcept nogil    # u step of boundary direction d (trace, straight points, table)
    int ret_step_v(int d) noexcept nogil    # v step of boundary direction d
    int ret_ctz32(unsigned int x) noexcept nogil    # index of the lowest set bit, x != 0
    int ret_clz32(unsigned int x) noexcept nogil    # 31 - index of the highest set bit, x != 0
    int ret_popcount32(unsigned int x) noexcept nogil   # number of set bits
    double ret_now() noexcept nogil                 # monotonic seconds


cdef enum:
    P = 34              # padded edge
    PP = 34 * 34
    PPP = 34 * 34 * 34
    W = 33              # weld table edge (corner coordinates 0..32)
    # Bounds of one region (at most 32x32 cells): B <= 2 * 33 * 33 boundary
    # passes, at most 256 holes (they are 8-separated), T = B - 2 chi
    # triangles; the partition adds 2 nodes per diagonal (<= T + holes), so
    # nodes <= B + 2 (T + 2 holes) < 10000.
    POOL = 16384        # polygon nodes
    # Output bounds of one chunk: a vertex per corner point, and as every
    # triangle has lattice corners (area >= 1/2) and the triangles tile the
    # faces without overlap, at most 2 per unit face of the 3 x 33 layers.
    # The triangle buffers hold TRIANGLE_ROOM: POOL more, as a region starts
    # only below the bound (else ERR_OUTPUT) and emits at most POOL, and
    # 2 x 32 x 32 more, as the layer scan checks the bound once per layer,
    # not before each of its lone cells (two triangles each, at most one per
    # cell of the layer).
    MAX_POSITIONS = W * W * W
    WELD_INDEXES = 1 << 16          # the low half of a weld entry: MAX_POSITIONS fit
    MAX_TRIANGLES = 2 * 3 * W * 32 * 32
    TRIANGLE_ROOM = MAX_TRIANGLES + POOL + 2 * 32 * 32
    MAX_CYCLES = 1200   # boundary cycles (outer + holes)
    # a window of 5 x 5 lattice points from (u0, v0): point p = u + 8 v is
    # (u0 + (p & 7), v0 + (p >> 3)) (weave_table.pyx, the dominoes)
    WINDOW_POINTS = 8 * 5
    # error codes, raised after the nogil section (never expected: guards)
    ERR_NONE = 0
    ERR_MEMORY = 1
    ERR_POOL = 2
    ERR_TRACE = 3
    ERR_WEAVE = 4
    ERR_OUTPUT = 5


cdef struct State:
    const uint16_t* pad          # padded chunk, C order (34, 34, 34)
    bint halo_empty              # its halo is all 0 (a standalone chunk): no need to read it
    bint emit_upper[3]
    # Material planes, Morton-indexed (2D vuvu)
    uint16_t plane[3][1024]
    uint16_t plane_halo[3][1024] # the planes as seeded from the halo, for the second walk
    # Parity: per column (u + 32 v) one bit per layer 0..32
    uint64_t pcol[3][1024]
    # Parity per layer: rows v with bits u, and rows u with bits v
    uint32_t prow[3][33][32]
    uint32_t pcolt[3][33][32]
    # Claims per layer: rows v with bits u
    uint32_t claims[3][33][32]
    # walls of the halo slabs (-1 -> 0, 32 -> 1): across u (bits u: u|u+1), across v
    uint32_t halo_wu[3][2][32]
    uint32_t halo_wv[3][2][32]
    bint halo_walls_ready[3][2]
    # fill links per layer: bit u of hlink[v]: (u,v)~(u+1,v); of vlink[v]: (u,v)~(u,v+1)
    uint32_t hlink[3][33][32]
    uint32_t vlink[3][33][32]
    bint links_ready[3][33]
    # the layer scan (voxel_rows.pxd): seeds come from solid masks and links
    # from voxel rows, not from Parity; frames 0 and 2 read transposed
    # copies of the pad, built slab by slab; the walls of each voxel slab
    # -1..32 (index + 1) as in halo_wu / halo_wv, row by row as needed
    bint walks                   # mesh dense input by the double walk over its octree, not the layer scan
    uint32_t solid[3][34][32]    # [a][slab + 1][v] bit u: voxel (slab, u, v) solid
    bint one_material            # one material in the chunk and its face halo: links need no walls (layer scan only)
    uint16_t frame_voxels[2][PPP]
    bint slab_rows_ready[3][34]
    const uint16_t* row_base[3]
    int row_layer[3]
    int row_v[3]
    uint32_t slab_wu[3][34][32]
    uint32_t slab_wv[3][34][32]
    uint32_t slab_wall_rows[3][34]   # bit v: row v of the slab's walls is computed
    # the layer of the current region (set_frame): plane point (u, v) is
    # weld/S table entry key0 + u * key_u + v * key_v and lattice point
    # coordinate L on axis a, u on axis_u, v on axis_v; pad0 + u * pad_u +
    # v * pad_v indexes the padded voxel (L - 1, u - 1, v - 1), pad_a steps a
    int frame_a, frame_L, axis_u, axis_v
    int key0, key_u, key_v
    int pad0, pad_u, pad_v, pad_a
    # and its solid masks below and above and its axis's solid_turns, which
    # give S off the chunk's borders when frame_masked: one material (the
    # layer scan), the layer off the borders (vertices.pxd; own frame only)
    bint frame_masked
    const uint8_t* frame_turns
    const uint32_t* frame_below
    const uint32_t* frame_above
    # current region
    uint32_t region[32 + 3]      # rows 32.. always 0: a window of 4 rows can be read from any row
    uint32_t visited[32]
    uint64_t edges[4][33]        # bit u of edges[d][v]: boundary edge leaving point (u, v) in direction d
    int rv0, rv1
    # a region (or a piece of one, pieces.pyx) whose rows are single runs
    # (trace.trace_runs_in_order): row v is cells run_lo[v]..run_hi[v] - 1
    int run_lo[32]
    int run_hi[32]
    # polygon node pool
    int nu[POOL]
    int nv[POOL]
    int nprev[POOL]
    int nnext[POOL]
    int nvert[POOL]              # welded vertex index of each node
    int nkey[POOL]               # 64 v + u: sweep order (v, u) of each node
    int n_nodes
    int cyc_head[MAX_CYCLES]
    int cyc_nodes[MAX_CYCLES]
    # per sweep order (0: (v, u) keys, 1: mirrored (v, -u)) each cycle's
    # lowest node and its number of local minima (1: the cycle is monotone)
    int cyc_low[2][MAX_CYCLES]
    int cyc_minima[2][MAX_CYCLES]
    int n_cycles
    # monotone weaving: nodes in sweep order (by index for the partition's
    # sort; copied for weave.weave_sweep), their chain, the reflex stack
    int sweep[POOL]
    int sweep_u[POOL]
    int sweep_v[POOL]
    int sweep_vert[POOL]
    uint8_t chain[POOL]
    int reflex[POOL]
    # monotone partition: node kinds and ranks, the sweep status (edges by tail node,
    # their helpers), the diagonals found, each node's original, the cycles
    # as traced (to undo the partition) and the nodes already woven
    uint8_t nkind[POOL]
    int nrank[POOL]              # each node's _sweep_rank (weave.pyx)
    int status_edge[POOL]
    int status_helper[POOL]
    int diagonals[POOL]
    int norig[POOL]
    int traced_next[POOL]
    int traced_prev[POOL]
    uint8_t woven[POOL]
    # welding: weld[key] is weld_tag | the vertex index of a corner point
    # welded in this chunk; any other value (an earlier chunk's tag, or 0)
    # is none yet, so a new chunk only moves the tag on (_start_chunk)
    uint32_t weld[W * W * W]
    uint32_t weld_tag           # this chunk's generation (1..65535) << 16
    # S membership of the lattice points tested in this chunk: in_s[key] is
    # s_tag | 1 in S, s_tag not; any other value is not tested yet, so a
    # new chunk only moves the tag on (_start_chunk)
    uint16_t in_s[W * W * W]
    uint16_t s_tag              # this chunk's generation (1..32767) << 1
    # output, allocated with the state for MAX_POSITIONS and MAX_TRIANGLES
    float* positions
    int n_positions
    int32_t* triangles
    uint16_t* materials
    uint8_t* faces
    int n_triangles
    int error
    # metrics
    bint metrics
    long regions
    long seeds
    long seeds_claimed
    double t_gather
    double t_scan
    # S of a point off the chunk's borders by its 2x2x2 solid voxels (vertices.pxd)
    uint8_t solid_turns[3][256]
    # frame_key of window point p of a layer of axis a in its own frame
    # (set_frame, not transposed), less the window's (fill_window_keys): a
    # key by one load and one add
    int window_key[3][WINDOW_POINTS]
    # compact stream
    uint32_t nodes[MAX_COMPACT_NODES]
    # solid rows along z (solid_masks): [x][y] bit z: pad voxel (x, y, z + 1)
    # solid; the copy of a standalone chunk (empty halo) may fill them
    # (copy_chunk), for its own layer scan only (Mesher clears the flag)
    uint32_t solid_z[34][34]
    bint solid_z_copied          # solid_z and copied_one_material came with the standalone copy
    bint copied_one_material


cdef inline void set_frame(State* st, int a, int L) noexcept nogil:
    """Make layer L of axis a the current region's layer (see State)."""
    # strides of x, y, z: (1, W, W * W) in the 33^3 weld/S tables, x along
    # their cache lines: a z layer's points (z is up: floors and terrain
    # tops, most faces of usual voxel data) share lines, an x layer's each
    # take one; (PP, P, 1) in the pad
    st.frame_a = a
    st.frame_L = L
    st.frame_masked = st.one_material and 0 < L < 32
    st.frame_turns = st.solid_turns[a]
    st.frame_below = st.solid[a][L]
    st.frame_above = st.solid[a][L + 1]
    st.axis_u = (a + 1) % 3
    st.axis_v = (a + 2) % 3
    if a == 0:
        st.key0, st.key_u, st.key_v = L, W, W * W
        st.pad0, st.pad_u, st.pad_v, st.pad_a = L * PP, P, 1, PP
    elif a == 1:
        st.key0, st.key_u, st.key_v = L * W, W * W, 1
        st.pad0, st.pad_u, st.pad_v, st.pad_a = L * P, 1, PP, P
    else:
        st.key0, st.key_u, st.key_v = L * W * W, 1, W
        st.pad0, st.pad_u, st.pad_v, st.pad_a = L, PP, P, 1


cdef inline int frame_key(State* st, int u, int v) noexcept nogil:
    """Weld/S table entry of plane point (u, v) of the current layer."""
    return st.key0 + u * st.key_u + v * st.key_v


cdef inline void fill_window_keys(State* st) noexcept nogil:
    """st.window_key, from set_frame's strides; no current layer afterwards."""
    cdef int a, p
    for a in range(3):
        set_frame(st, a, 0)
        for p in range(WINDOW_POINTS):
            st.window_key[a][p] = frame_key(st, p & 7, p >> 3) - frame_key(st, 0, 0)
    st.frame_a = -1


cdef inline bint single_run(uint32_t row, int* u0, int* u1) noexcept nogil:
    """Whether a non-empty row of cells is one run: cells u0..u1 - 1 (then set)."""
    if row & (row + (row & (~row + 1))):
        return False
    u0[0] = ret_ctz32(row)
    u1[0] = u0[0] + ret_popcount32(row)
    return True


cdef inline bint region_rectangle(State* st, int* u0, int* u1) noexcept nogil:
    """Whether the current region is one rectangle of cells: columns
    u0..u1 - 1 of rows rv0..rv1 (then set; u0, u1 may change when not)."""
    cdef uint32_t row = st.region[st.rv0]
    cdef int v
    if not single_run(row, u0, u1):
        return False
    for v in range(st.rv0 + 1, st.rv1 + 1):
        if st.region[v] != row:
            return False
    return True
