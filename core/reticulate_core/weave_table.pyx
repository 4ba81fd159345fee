# cython: language_level=3
"""Weaving a small region from a table (seed: "Weave connected region").

Most regions of a noisy chunk fit a window of 4 x 4 cells.  A region's
cells in that window (its lowest row and lowest column at the window's
corner) are its shape, 16 bits.  For each shape of at least two cells whose
boundary is one simple cycle (7,463 of them: 4-connected, no hole, no pinch
point) the table holds the cycle's turns, its straight points side by side
and a triangulation of the polygon of its turns, built once at import by
ear clipping: T - 2 counter-clockwise triangles for T turns, no boundary
point inside a triangle or on a diagonal, so the straight points lie on
the polygon's sides only.

``weave_from_table`` tests the straight points of a fitting region for S
and splits the triangles at those in S (``_split_at_s``): a triangle with
k points of S on its sides becomes k + 1 triangles fanned from corners off
those sides.  The n = T + (points in S) nodes are then the vertices and no
other point, and the region gets n - 2 triangles (B - 2 chi, DESIGN.md
guarantee 3), with no trace.
"""
from libc.stdint cimport int16_t, int32_t, uint8_t, uint16_t, uint32_t

from reticulate_core.chunk_state cimport WINDOW_POINTS, State, frame_key, ret_ctz32, ret_step_u, ret_step_v
from reticulate_core.vertices cimport _emitted, _put, _solid_turns_at, _straight_in_s_masked, _weld_window

cdef enum:
    WINDOW = 4              # cells per side of the window
    SIDE = 5                # lattice points per side
    ROW = 8                 # point p = u + 8 v: u = p & 7, v = p >> 3
    POINTS = WINDOW_POINTS  # ROW * SIDE, as chunk_state's window keys
    SHAPES = 1 << 16
    ENTRIES = 7463          # shapes in the table
    MAX_POINTS = 40         # boundary points of a shape's cycle
    MAX_TURNS = 20
    MAX_STRAIGHT = 16       # straight points of a shape (bits of a uint16 mask)
    MAX_SPLIT = MAX_TURNS - 2 + MAX_STRAIGHT    # triangles of a region

ctypedef struct TurnTriangle:
    uint16_t edge_straight[4]   # straight points on edge e (corner e -> e + 1); [3]: on any
    uint8_t corner[3]           # lattice points, counter-clockwise

ctypedef struct Entry:
    # one shape, its fields in the order weave_from_table reads them, so
    # that a small shape's entry takes a few adjacent cache lines
    uint8_t n_turns
    uint8_t n_straight
    uint8_t turn[MAX_TURNS]                 # lattice points, in cycle order
    uint8_t straight[MAX_STRAIGHT]          # lattice points, in cycle order
    TurnTriangle triangle[MAX_TURNS - 2]    # the triangles of the turns
    uint8_t straight_dir[MAX_STRAIGHT]      # the boundary's direction at each straight point

cdef int16_t SHAPE_ENTRY[SHAPES]                        # its entry, -1: not in the table
cdef Entry ENTRY[ENTRIES]


cdef inline bint _in_shape(int shape, int cu, int cv) noexcept nogil:
    return 0 <= cu < WINDOW and 0 <= cv < WINDOW and (shape >> (cu + WINDOW * cv)) & 1


cdef bint _canonical_connected(int shape) noexcept nogil:
    """At least two cells, 4-connected, touching the window's row 0 and column 0."""
    cdef int seen = 0, todo, c, cu, cv, k, nu, nv
    cdef int row0 = (1 << WINDOW) - 1, col0 = 0
    for cv in range(WINDOW):
        col0 |= 1 << (WINDOW * cv)
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
    cdef int out[POINTS]
    cdef int cu, cv, p, d, n = 0, n_out = 0, start = -1
    for p in range(POINTS):
        out[p] = -1
    for cv in range(WINDOW):
        for cu in range(WINDOW):
            if not _in_shape(shape, cu, cv):
                continue
            # edges leaving the corners (u, v), (u+1, v), (u+1, v+1), (u, v+1)
            for d in range(4):
                if _in_shape(shape, cu + ret_step_v(d), cv - ret_step_u(d)):
                    continue        # the neighbour across edge d is in the shape
                p = (cu + (d == 1 or d == 2)) + ROW * (cv + (d >= 2))
                if out[p] >= 0:
                    return -1       # two edges leave p: a pinch point
                out[p] = d
                n_out += 1
    for p in range(POINTS):
        if out[p] >= 0:
            start = p
            break
    p = start
    while True:
        points[n] = p
        dirs[n] = out[p]
        n += 1
        p += ret_step_u(out[p]) + ROW * ret_step_v(out[p])
        if p == start:
            break
    return n if n == n_out else -1


cdef inline int _cross(int o, int p, int q) noexcept nogil:
    """cross(p - o, q - o) of lattice points."""
    return (((p & 7) - (o & 7)) * ((q >> 3) - (o >> 3))
            - ((p >> 3) - (o >> 3)) * ((q & 7) - (o & 7)))


cdef int _ear_clip(const int* turns, int n, uint8_t (*triangles)[3]) noexcept nogil:
    """Triangulate the counter-clockwise simple polygon turns[0..n) by
    cutting ears: strictly convex corners whose closed triangle holds no
    other turn; the triangles name their corners by index in turns.  No
    straight point of the boundary lies on a diagonal q - p either: its
    side, axis-parallel, would cross into the triangle or run along the
    diagonal, and either way put a turn into the closed triangle.  Returns
    n - 2, or 0 when no ear is left to cut."""
    cdef int left[MAX_TURNS]
    cdef int m = n, t = 0, i, j, p, c, q, x
    cdef bint ear
    for i in range(n):
        left[i] = i
    while m >= 3:
        for i in range(m):
            p = left[(i + m - 1) % m]
            c = left[i]
            q = left[(i + 1) % m]
            if _cross(turns[p], turns[c], turns[q]) <= 0:
                continue
            ear = True
            for j in range(m):
                x = left[j]
                if x != p and x != c and x != q and _cross(turns[p], turns[c], turns[x]) >= 0 \
                        and _cross(turns[c], turns[q], turns[x]) >= 0 and _cross(turns[q], turns[p], turns[x]) >= 0:
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
    """Fill the tables: every shape of the window whose boundary is one simple cycle."""
    cdef int points[MAX_POINTS]
    cdef int dirs[MAX_POINTS]
    cdef int turns[MAX_TURNS]
    cdef uint16_t side_straight[MAX_TURNS]      # straight points on side k: turn k -> k + 1
    cdef uint8_t corners[MAX_TURNS - 2][3]      # as turn indices
    cdef TurnTriangle* triangle
    cdef int shape, n, i, e, k, t, count, entry = 0, n_turns, n_straight
    for shape in range(SHAPES):
        SHAPE_ENTRY[shape] = -1
        if not _canonical_connected(shape):
            continue
        n = _boundary_cycle(shape, points, dirs)
        if n < 0:
            continue
        if entry == ENTRIES:
            raise RuntimeError("weave_table: more simple shapes than ENTRIES")
        n_turns = 0
        n_straight = 0
        for i in range(n):
            # the cycle starts at its lowest point, a turn: straight points follow their side's turn
            if dirs[(i + n - 1) % n] != dirs[i]:
                if n_turns == MAX_TURNS:
                    raise RuntimeError("weave_table: more turns than MAX_TURNS")
                turns[n_turns] = points[i]
                ENTRY[entry].turn[n_turns] = points[i]
                side_straight[n_turns] = 0
                n_turns += 1
            else:
                if n_straight == MAX_STRAIGHT:
                    raise RuntimeError("weave_table: more straight points than MAX_STRAIGHT")
                ENTRY[entry].straight[n_straight] = points[i]
                ENTRY[entry].straight_dir[n_straight] = dirs[i]
                side_straight[n_turns - 1] |= 1 << n_straight
                n_straight += 1
        count = _ear_clip(turns, n_turns, corners)
        if count != n_turns - 2:
            raise RuntimeError("weave_table: a simple shape's turns could not be ear clipped")
        for t in range(count):
            triangle = &ENTRY[entry].triangle[t]
            triangle.edge_straight[3] = 0
            for e in range(3):
                k = corners[t][e]
                triangle.corner[e] = turns[k]
                # a side of the polygon joins turn k to turn k + 1; any other edge is a diagonal
                triangle.edge_straight[e] = \
                    side_straight[k] if corners[t][(e + 1) % 3] == (k + 1) % n_turns else 0
                triangle.edge_straight[3] |= triangle.edge_straight[e]
        ENTRY[entry].n_turns = n_turns
        ENTRY[entry].n_straight = n_straight
        SHAPE_ENTRY[shape] = entry
        entry += 1
    if entry != ENTRIES:
        raise RuntimeError("weave_table: fewer simple shapes than ENTRIES")
    return 0


_build_tables()


cdef inline int _fan_along(int32_t* out, int t, const int* vertex, int flip, const uint8_t* straight,
                           int apex, int* previous, uint32_t points) noexcept nogil:
    """Triangles (apex, previous, p) as t, t + 1, ... of out for the straight
    points p of points (bits, in order along an edge), previous moving on
    from previous[0] to each p in turn.  Returns the next free t."""
    cdef int j
    while points:
        j = ret_ctz32(points)
        points &= points - 1
        _put(out + 3 * t, vertex, flip, apex, previous[0], straight[j])
        previous[0] = straight[j]
        t += 1
    return t


cdef inline int _fan(int32_t* out, int t, const int* vertex, int flip, const uint8_t* straight,
                     int x, int y, int z, uint32_t xy, uint32_t yz) noexcept nogil:
    """Triangle (x, y, z), counter-clockwise, split at the straight points
    xy on its edge x - y and yz on y - z (bits, in order along the edges;
    none on z - x), as triangles t, t + 1, ... of out: fanned from z over
    x - y up to its last point w in S (w = x if none), then from w over
    y - z.  No corner is on the line of the edge it fans over, so none is
    degenerate.  Returns the next free t."""
    cdef int w = x, previous = y
    t = _fan_along(out, t, vertex, flip, straight, z, &w, xy)
    t = _fan_along(out, t, vertex, flip, straight, w, &previous, yz)
    _put(out + 3 * t, vertex, flip, w, previous, z)
    return t + 1


cdef int _split_at_s(int entry, uint32_t in_s, const int* vertex, int flip, int32_t* out) noexcept nogil:
    """The triangles of entry's shape when the straight points in_s (bits)
    are in S, counter-clockwise (clockwise when flip), as the vertices
    vertex[p] of their lattice points p into out; their number, T - 2 +
    (points in S).  A triangle of the turns has two sides of the polygon
    at most (T >= 4), so an edge without points is left to close each fan."""
    cdef const uint8_t* straight = ENTRY[entry].straight
    cdef const uint8_t* c
    cdef const uint16_t* edge
    cdef int t, n = 0
    cdef uint32_t ab, bc, ca
    for t in range(ENTRY[entry].n_turns - 2):
        c = ENTRY[entry].triangle[t].corner
        edge = ENTRY[entry].triangle[t].edge_straight
        if (edge[3] & in_s) == 0:
            _put(out + 3 * n, vertex, flip, c[0], c[1], c[2])
            n += 1
            continue
        ab = edge[0] & in_s
        bc = edge[1] & in_s
        ca = edge[2] & in_s
        if ca == 0:
            n = _fan(out, n, vertex, flip, straight, c[0], c[1], c[2], ab, bc)
        elif ab == 0:
            n = _fan(out, n, vertex, flip, straight, c[1], c[2], c[0], bc, ca)
        else:
            n = _fan(out, n, vertex, flip, straight, c[2], c[0], c[1], ca, ab)
    return n


def table_straight_points(int shape):
    """The straight points (u, v) of a shape's boundary (bit u + 4 v: the
    cell (u, v) of the window), bit j of a mask standing for point j; None
    when the shape is not in the table."""
    if not 0 <= shape < SHAPES or SHAPE_ENTRY[shape] < 0:
        return None
    cdef int entry = SHAPE_ENTRY[shape]
    return [(p & 7, p >> 3) for p in ENTRY[entry].straight[:ENTRY[entry].n_straight]]


def table_triangles(int shape, int mask):
    """The triangles ((u, v) x 3, counter-clockwise) the table weaves for a
    shape whose straight points of mask are in S; None when the shape is
    not in the table or mask names other points."""
    points = table_straight_points(shape)
    if points is None or not 0 <= mask < (1 << len(points)):
        return None
    cdef int identity[POINTS]
    cdef int32_t out[3 * MAX_SPLIT]
    cdef int p, n
    for p in range(POINTS):
        identity[p] = p
    n = _split_at_s(SHAPE_ENTRY[shape], mask, identity, 0, out)
    return [tuple((out[3 * t + k] & 7, out[3 * t + k] >> 3) for k in range(3)) for t in range(n)]


cdef bint weave_from_table(State* st, int a, int positive, uint16_t material) noexcept nogil:
    """Weave the filled region (st.region, rows rv0..rv1) when its shape is
    in the table; else False, having emitted and welded nothing."""
    cdef int v0 = st.rv0, rows = st.rv1 - st.rv0 + 1, u0, i, j, p, entry, shape
    cdef uint32_t span, in_s = 0
    cdef int vertex[POINTS]             # the welded vertex of each node, by lattice point
    cdef int x, y, key0
    cdef const int* window_key
    cdef const uint8_t* turns
    cdef const uint32_t* below
    cdef const uint32_t* above
    cdef const uint32_t* R = st.region + v0
    if rows > WINDOW:
        return False
    # the window's four rows, whatever the region's height: rows past rv1 are 0
    span = R[0] | R[1] | R[2] | R[3]
    u0 = ret_ctz32(span)
    if (span >> u0) >> WINDOW:
        return False
    shape = ((R[0] >> u0) | ((R[1] >> u0) << WINDOW) | ((R[2] >> u0) << (2 * WINDOW))
             | ((R[3] >> u0) << (3 * WINDOW)))
    entry = SHAPE_ENTRY[shape]
    if entry < 0:
        return False
    key0 = frame_key(st, u0, v0)
    window_key = st.window_key[a]
    for i in range(ENTRY[entry].n_turns):
        p = ENTRY[entry].turn[i]
        vertex[p] = _weld_window(st, key0, window_key, u0, v0, p)
    if st.frame_masked and 0 < u0 and u0 + WINDOW < 32 and 0 < v0 and v0 + WINDOW < 32:
        # _straight_in_s_masked with the window off the chunk's borders: rows
        # v0 - 1 .. v0 + WINDOW of the two slabs, from column u0 - 1 (a loop
        # of its own: one loop choosing per point costs the noise 0.9%)
        turns = st.frame_turns
        below = st.frame_below + v0 - 1
        above = st.frame_above + v0 - 1
        for j in range(ENTRY[entry].n_straight):
            p = ENTRY[entry].straight[j]
            x = u0 - 1 + (p & 7)
            y = p >> 3
            if _solid_turns_at(turns, below, above, x, y):
                in_s |= (<uint32_t>1) << j
                vertex[p] = _weld_window(st, key0, window_key, u0, v0, p)
    else:
        for j in range(ENTRY[entry].n_straight):
            p = ENTRY[entry].straight[j]
            if _straight_in_s_masked(st, u0 + (p & 7), v0 + (p >> 3), ENTRY[entry].straight_dir[j]):
                in_s |= (<uint32_t>1) << j
                vertex[p] = _weld_window(st, key0, window_key, u0, v0, p)
    _emitted(st, _split_at_s(entry, in_s, vertex, 0 if positive else 1,
                             st.triangles + 3 * st.n_triangles), a, positive, material)
    return True
