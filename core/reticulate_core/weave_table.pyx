# cython: language_level=3
"""Weaving a small region from a table (seed: "Weave connected region").

Most regions of a noisy chunk fit a window of 3 x 3 cells.  A region's
cells in that window (its lowest row and lowest column at the window's
corner) are its shape, 9 bits.  For each shape of at least two cells whose
boundary is one simple cycle (145 of them: 4-connected, no hole, no pinch
point) the table holds the cycle's straight points and, for every subset
of them that S may hold, a triangulation of the polygon whose nodes are
the cycle's turns and the straight points in S.  The tables are built once
at import by ear clipping: each triangulation has n - 2 counter-clockwise
triangles for n nodes (B - 2 chi, DESIGN.md guarantee 3) and no node on a
triangle but its corners.  ``weave_from_table`` weaves a fitting region
with S tests of its straight points and one lookup, without a trace.
"""
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t

from reticulate_core.chunk_state cimport State, ret_ctz32, ret_step_u, ret_step_v
from reticulate_core.vertices cimport _emit, _straight_in_s, _weld

cdef enum:
    WINDOW = 3              # cells per side of the window
    SIDE = 4                # lattice points per side: point p = u + 4 v
    SHAPES = 512
    MAX_POINTS = 16         # boundary points of a shape's cycle
    VARIANTS = 4537         # sum over shapes of 2 ** (straight points)
    TRIANGLES = 37122       # sum over variants of (nodes - 2)
    NODES = TRIANGLES + 2 * VARIANTS

cdef int32_t SHAPE_FIRST[SHAPES]                  # its first variant, -1: not in the table
cdef uint8_t SHAPE_N_STRAIGHT[SHAPES]
cdef uint8_t SHAPE_STRAIGHT[SHAPES][MAX_POINTS]   # straight points, in cycle order
cdef uint8_t SHAPE_STRAIGHT_DIR[SHAPES][MAX_POINTS]  # the boundary's direction there
cdef int32_t VARIANT_FIRST[VARIANTS]              # its first triangle
cdef uint8_t VARIANT_COUNT[VARIANTS]              # its triangles, 0: no triangulation
cdef int32_t VARIANT_FIRST_NODE[VARIANTS]         # its first node; it has count + 2
cdef uint8_t NODE_POINTS[NODES]                   # lattice points, in cycle order
cdef uint8_t TRIANGLE_CORNERS[TRIANGLES][3]       # counter-clockwise, as indices of the variant's nodes


cdef inline bint _in_shape(int shape, int cu, int cv) noexcept nogil:
    return 0 <= cu < WINDOW and 0 <= cv < WINDOW and (shape >> (cu + WINDOW * cv)) & 1


cdef bint _canonical_connected(int shape) noexcept nogil:
    """At least two cells, 4-connected, touching the window's row 0 and column 0."""
    cdef int seen = 0, todo, c, cu, cv, k, nu, nv
    cdef int row0 = (1 << WINDOW) - 1
    cdef int col0 = 1 | (1 << WINDOW) | (1 << 2 * WINDOW)
    if (shape & (shape - 1)) == 0 or (shape & row0) == 0 or (shape & col0) == 0:
        return False
    todo = shape & -shape
    while todo:
        c = ret_ctz32(<uint32_t>todo)
        todo &= todo - 1
        seen |= 1 << c
        cu = c % WINDOW
        cv = c // WINDOW
        for k in range(4):
            nu = cu + ret_step_u(k)
            nv = cv + ret_step_v(k)
            if _in_shape(shape, nu, nv) and not (seen >> (nu + WINDOW * nv)) & 1:
                todo |= 1 << (nu + WINDOW * nv)
    return seen == shape


cdef int _boundary_cycle(int shape, int* points, int* dirs) noexcept nogil:
    """The shape's boundary as one counter-clockwise cycle (cells on its
    left) from its lowest point in order (v, u): points and the direction
    leaving each; its length, or -1 at a pinch point or a hole."""
    cdef int out[SIDE * SIDE]
    cdef int cu, cv, p, d, n = 0, n_out = 0, start = -1
    for p in range(SIDE * SIDE):
        out[p] = -1
    for cv in range(WINDOW):
        for cu in range(WINDOW):
            if not _in_shape(shape, cu, cv):
                continue
            # edges leaving the corners (u, v), (u+1, v), (u+1, v+1), (u, v+1)
            for d in range(4):
                if _in_shape(shape, cu + ret_step_v(d), cv - ret_step_u(d)):
                    continue        # the neighbour across edge d is in the shape
                p = (cu + (d == 1 or d == 2)) + SIDE * (cv + (d >= 2))
                if out[p] >= 0:
                    return -1       # two edges leave p: a pinch point
                out[p] = d
                n_out += 1
    for p in range(SIDE * SIDE):
        if out[p] >= 0:
            start = p
            break
    p = start
    while True:
        points[n] = p
        dirs[n] = out[p]
        n += 1
        p += ret_step_u(out[p]) + SIDE * ret_step_v(out[p])
        if p == start:
            break
    return n if n == n_out else -1


cdef inline int _cross(int o, int p, int q) noexcept nogil:
    """cross(p - o, q - o) of lattice points."""
    return ((p % SIDE - o % SIDE) * (q // SIDE - o // SIDE)
            - (p // SIDE - o // SIDE) * (q % SIDE - o % SIDE))


cdef int _ear_clip(const int* nodes, int n, uint8_t (*triangles)[3]) noexcept nogil:
    """Triangulate the counter-clockwise simple polygon nodes[0..n) by
    cutting ears: strictly convex corners whose closed triangle holds no
    other node; the triangles name their corners by index in nodes.
    Returns n - 2, or 0 when no ear is left to cut."""
    cdef int left[MAX_POINTS]
    cdef int m = n, t = 0, i, j, p, c, q, x
    cdef bint ear
    for i in range(n):
        left[i] = i
    while m >= 3:
        for i in range(m):
            p = left[(i + m - 1) % m]
            c = left[i]
            q = left[(i + 1) % m]
            if _cross(nodes[p], nodes[c], nodes[q]) <= 0:
                continue
            ear = True
            for j in range(m):
                x = left[j]
                if x != p and x != c and x != q and _cross(nodes[p], nodes[c], nodes[x]) >= 0 \
                        and _cross(nodes[c], nodes[q], nodes[x]) >= 0 and _cross(nodes[q], nodes[p], nodes[x]) >= 0:
                    ear = False
                    break
            if ear:
                break
        else:
            return 0
        triangles[t][0] = p
        triangles[t][1] = c
        triangles[t][2] = q
        t += 1
        for j in range(i, m - 1):
            left[j] = left[j + 1]
        m -= 1
    return t if m == 2 else 0


cdef int _build_tables() except -1:
    """Fill the tables: every shape, every subset of its straight points."""
    cdef int points[MAX_POINTS]
    cdef int dirs[MAX_POINTS]
    cdef int nodes[MAX_POINTS]
    cdef int shape, n, i, j, k, mask, m, count, n_variants = 0, n_triangles = 0, n_nodes = 0
    for shape in range(SHAPES):
        SHAPE_FIRST[shape] = -1
        SHAPE_N_STRAIGHT[shape] = 0
        if not _canonical_connected(shape):
            continue
        n = _boundary_cycle(shape, points, dirs)
        if n < 0:
            continue
        k = 0
        for i in range(n):
            if dirs[(i + n - 1) % n] == dirs[i]:
                SHAPE_STRAIGHT[shape][k] = points[i]
                SHAPE_STRAIGHT_DIR[shape][k] = dirs[i]
                k += 1
        SHAPE_N_STRAIGHT[shape] = k
        SHAPE_FIRST[shape] = n_variants
        for mask in range(1 << k):
            m = 0
            j = 0           # straight points passed
            for i in range(n):
                if dirs[(i + n - 1) % n] != dirs[i]:
                    nodes[m] = points[i]
                    m += 1
                else:
                    if (mask >> j) & 1:
                        nodes[m] = points[i]
                        m += 1
                    j += 1
            if n_variants == VARIANTS or n_triangles + m - 2 > TRIANGLES or n_nodes + m > NODES:
                raise RuntimeError("weave_table: the table sizes are too small")
            count = _ear_clip(nodes, m, &TRIANGLE_CORNERS[n_triangles])
            VARIANT_FIRST[n_variants] = n_triangles
            VARIANT_COUNT[n_variants] = count
            VARIANT_FIRST_NODE[n_variants] = n_nodes
            for i in range(m):
                NODE_POINTS[n_nodes + i] = nodes[i]
            n_variants += 1
            n_triangles += count
            n_nodes += m
    return 0


_build_tables()


def table_straight_points(int shape):
    """The straight points (u, v) of a shape's boundary (bit u + 3 v: the
    cell (u, v) of the window), bit j of a variant's mask standing for
    point j; None when the shape is not in the table."""
    if not 0 <= shape < SHAPES or SHAPE_FIRST[shape] < 0:
        return None
    return [(p % SIDE, p // SIDE) for p in SHAPE_STRAIGHT[shape][:SHAPE_N_STRAIGHT[shape]]]


def table_triangles(int shape, int mask):
    """The triangles ((u, v) x 3, counter-clockwise) the table weaves for a
    shape whose straight points of mask are in S; None when there are none."""
    points = table_straight_points(shape)
    if points is None or not 0 <= mask < (1 << len(points)):
        return None
    cdef int variant = SHAPE_FIRST[shape] + mask
    cdef const uint8_t* nodes = &NODE_POINTS[VARIANT_FIRST_NODE[variant]]
    return [tuple((nodes[j] % SIDE, nodes[j] // SIDE) for j in TRIANGLE_CORNERS[t][:3])
            for t in range(VARIANT_FIRST[variant], VARIANT_FIRST[variant] + VARIANT_COUNT[variant])] or None


cdef bint weave_from_table(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """Weave the filled region (st.region, rows rv0..rv1) when its shape is
    in the table; else False, having emitted and welded nothing."""
    cdef int v0 = st.rv0, rows = st.rv1 - st.rv0 + 1, u0, r, j, p, variant, t, shape = 0
    cdef uint32_t span = 0, mask = 0
    cdef int vertex[MAX_POINTS]         # the welded vertex of each node of the variant
    cdef const uint8_t* nodes
    cdef const uint8_t* corners
    if rows > WINDOW:
        return False
    for r in range(rows):
        span |= st.region[v0 + r]
    u0 = ret_ctz32(span)
    if (span >> u0) >> WINDOW:
        return False
    for r in range(rows):
        shape |= ((st.region[v0 + r] >> u0) & ((1 << WINDOW) - 1)) << (WINDOW * r)
    if SHAPE_FIRST[shape] < 0:
        return False
    for j in range(SHAPE_N_STRAIGHT[shape]):
        p = SHAPE_STRAIGHT[shape][j]
        if _straight_in_s(st, u0 + p % SIDE, v0 + p // SIDE, SHAPE_STRAIGHT_DIR[shape][j]):
            mask |= (<uint32_t>1) << j
    variant = SHAPE_FIRST[shape] + mask
    if VARIANT_COUNT[variant] == 0:
        return False
    nodes = &NODE_POINTS[VARIANT_FIRST_NODE[variant]]
    for j in range(VARIANT_COUNT[variant] + 2):
        vertex[j] = _weld(st, u0 + nodes[j] % SIDE, v0 + nodes[j] // SIDE)
    for t in range(VARIANT_FIRST[variant], VARIANT_FIRST[variant] + VARIANT_COUNT[variant]):
        corners = TRIANGLE_CORNERS[t]
        _emit(st, a, positive, material, vertex[corners[0]], vertex[corners[1]], vertex[corners[2]])
    return True
