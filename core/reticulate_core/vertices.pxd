# The vertices of the chunk mesher: membership of a lattice point in the
# vertex set S (DESIGN.md, guarantee 3), also for a straight boundary point
# of the current layer, welded output vertices and emitted triangles.
# Inline, so the walks, the trace and the weavers call them without a jump
# between modules.
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

from reticulate_core.chunk_state cimport P, PP, WELD_INDEXES, State, frame_key


cdef inline uint32_t _label(uint16_t below, uint16_t above, uint32_t tag) noexcept nogil:
    """Unit-face slot label: 0 none, else material << 3 | 4 if facing +axis | side tag."""
    if below == 0:
        return ((<uint32_t>above) << 3) | tag if above != 0 else 0
    if above == 0:
        return ((<uint32_t>below) << 3) | 4 | tag
    return 0


cdef inline bint _turns(uint32_t l0, uint32_t l1, uint32_t l2, uint32_t l3) noexcept nogil:
    """Some label of the cyclic quadrants l0..l3 occurs once, three times or twice diagonally."""
    if l0 != 0 and ((l0 != l3 and l0 != l1) or (l0 == l3 and l0 == l1 and l0 != l2)):
        return True
    if l1 != 0 and ((l1 != l0 and l1 != l2) or (l1 == l0 and l1 == l2 and l1 != l3)):
        return True
    if l2 != 0 and ((l2 != l1 and l2 != l3) or (l2 == l1 and l2 == l3 and l2 != l0)):
        return True
    if l3 != 0 and ((l3 != l2 and l3 != l0) or (l3 == l2 and l3 == l0 and l3 != l1)):
        return True
    return False


cdef inline bint _turns_around(uint16_t c000, uint16_t c001, uint16_t c010, uint16_t c011,
                               uint16_t c100, uint16_t c101, uint16_t c110, uint16_t c111,
                               uint32_t tx, uint32_t ty, uint32_t tz) noexcept nogil:
    """_is_vertex of a point whose voxels c<dx><dy><dz> are given, with the
    side tags tx, ty, tz (2 where the point is on a chunk border across x,
    y, z, else 0)."""
    # quadrants in cyclic order over (B, C) offsets (0,0) (1,0) (1,1) (0,1);
    # the side tag of a quadrant is (B offset if B is on a border) << 1 | (C offset ...)
    # plane x (B = y, C = z)
    if _turns(_label(c000, c100, 0),
              _label(c010, c110, ty),
              _label(c011, c111, ty | (tz >> 1)),
              _label(c001, c101, tz >> 1)):
        return True
    # plane y (B = z, C = x)
    if _turns(_label(c000, c010, 0),
              _label(c001, c011, tz),
              _label(c101, c111, tz | (tx >> 1)),
              _label(c100, c110, tx >> 1)):
        return True
    # plane z (B = x, C = y)
    return _turns(_label(c000, c001, 0),
                  _label(c100, c101, tx),
                  _label(c110, c111, tx | (ty >> 1)),
                  _label(c010, c011, ty >> 1))


cdef inline bint _is_vertex(State* st, int px, int py, int pz) noexcept nogil:
    """Whether lattice point p belongs to S (DESIGN.md guarantee 3).

    For each axis plane through p the four unit-face slots around p are
    labelled none / (+axis, material below) / (-axis, material above);
    labels on the two sides of a chunk border line (in-plane coordinate 0 or
    32) are told apart.  Some region turns at p iff some label occurs once,
    three times, or twice diagonally.  Only the 2x2x2 voxels around p (halo
    included) are read, so neighbouring chunks agree on seam points.
    """
    cdef const uint16_t* b = st.pad + (px * P + py) * P + pz
    # c<dx><dy><dz>: voxel (px - 1 + dx, py - 1 + dy, pz - 1 + dz)
    return _turns_around(b[0], b[1], b[P], b[P + 1], b[PP], b[PP + 1], b[PP + P], b[PP + P + 1],
                         2 if (px == 0 or px == 32) else 0, 2 if (py == 0 or py == 32) else 0,
                         2 if (pz == 0 or pz == 32) else 0)


cdef inline bint _extruded(const uint16_t* b, int sk, int s1, int s2) noexcept nogil:
    """Whether the 2x2x2 voxels around a lattice point p, from b (voxel
    p - (1, 1, 1)) with strides sk along axis k and s1, s2 across, are the
    same on both sides along k, p not on a chunk border across k.  Then no
    plane through p has a turn there (plane k has no faces, the other two
    have their quadrant labels in equal pairs), so p is not in S."""
    return (b[0] == b[sk] and b[s1] == b[s1 + sk] and b[s2] == b[s2 + sk]
            and b[s1 + s2] == b[s1 + s2 + sk])


cdef inline bint _straight_in_s(State* st, int pu, int pv, int d) noexcept nogil:
    """Whether the point (pu, pv) of the current layer, where the boundary
    goes straight on in direction d, is in S (then it is a node); S tests
    are cached per chunk."""
    cdef int c[3]
    cdef int key
    cdef const uint16_t* b = st.pad + st.pad0 + pu * st.pad_u + pv * st.pad_v
    # a straight point is inside a run of edges along its step, so never on
    # the chunk's border across it: _extruded applies
    if d & 1 == 0:
        if _extruded(b, st.pad_u, st.pad_a, st.pad_v):
            return False
    elif _extruded(b, st.pad_v, st.pad_a, st.pad_u):
        return False
    key = frame_key(st, pu, pv)
    cdef unsigned int known = st.in_s[key] ^ st.s_tag     # 0 or 1 when tested in this chunk
    if known > 1:
        c[st.frame_a] = st.frame_L
        c[st.axis_u] = pu
        c[st.axis_v] = pv
        known = 1 if _is_vertex(st, c[0], c[1], c[2]) else 0
        st.in_s[key] = st.s_tag | known
    return known


cdef inline void fill_solid_turns(State* st) noexcept nogil:
    """st.solid_turns[a][pattern]: _is_vertex of a point off the chunk's
    borders, in a chunk of one material, whose 2x2x2 voxels (L - 1 + dl,
    u - 1 + du, v - 1 + dv) in axis a's frame are solid where bit
    4 dl + 2 dv + du of pattern is set."""
    cdef int a, pattern, dl, du, dv, k
    cdef int at[3]
    cdef uint16_t c[8]          # c[4 dx + 2 dy + dz]
    for a in range(3):
        for pattern in range(256):
            for k in range(8):
                dl, dv, du = k >> 2, (k >> 1) & 1, k & 1
                at[a] = dl
                at[(a + 1) % 3] = du
                at[(a + 2) % 3] = dv
                c[4 * at[0] + 2 * at[1] + at[2]] = (pattern >> k) & 1
            st.solid_turns[a][pattern] = _turns_around(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], 0, 0, 0)


cdef inline bint _straight_in_s_masked(State* st, int pu, int pv, int d) noexcept nogil:
    """_straight_in_s, from the solid masks of the layer's two slabs and
    st.solid_turns when the point is off the chunk's borders in a chunk of
    one material (the layer scan): no voxel compare, no cache, no branch on
    the voxels.  For the weavers of small regions and the sweep trace of
    pieces, where most straight points of a rough chunk are tested.  The
    boundary trace and the rectangles keep _straight_in_s: with this path
    inside it, the compiler stops inlining it there, which costs the
    terrain more than the masks save.  Only in the layer's own frame: the
    masks are not transposed with the frame, so pieces._weave_columns
    turns frame_masked off while it weaves transposed."""
    if st.frame_masked and 0 < pu < 32 and 0 < pv < 32:
        return _solid_turns_at(st.frame_turns, st.frame_below, st.frame_above, pu - 1, pv - 1)
    return _straight_in_s(st, pu, pv, d)


cdef inline bint _solid_turns_at(const uint8_t* turns, const uint32_t* below, const uint32_t* above,
                                 int x, int y) noexcept nogil:
    """turns (st.solid_turns[a]) of the point whose 2x2 voxels in the slabs
    below and above are bits x, x + 1 of rows y, y + 1 of their solid masks."""
    return turns[((below[y] >> x) & 3) | (((below[y + 1] >> x) & 3) << 2)
                 | (((above[y] >> x) & 3) << 4) | (((above[y + 1] >> x) & 3) << 6)]


cdef inline int _weld(State* st, int u, int v) noexcept nogil:
    """Index of the vertex at plane point (u, v) of the current layer (set_frame)."""
    return _weld_at(st, frame_key(st, u, v), u, v)


cdef inline int _weld_window(State* st, int key0, const int* window_key, int u0, int v0, int p) noexcept nogil:
    """_weld of window point p (u0 + (p & 7), v0 + (p >> 3)) of the current
    layer, whose corner (u0, v0) has the key key0 and window_key the
    layer's axis's st.window_key."""
    return _weld_at(st, key0 + window_key[p], u0 + (p & 7), v0 + (p >> 3))


cdef inline int _weld_at(State* st, int key, int u, int v) noexcept nogil:
    """_weld of plane point (u, v), whose weld table entry is key."""
    cdef uint32_t entry = st.weld[key] ^ st.weld_tag
    cdef int idx
    cdef float* p
    if entry < WELD_INDEXES:
        return <int>entry
    idx = st.n_positions
    p = st.positions + 3 * idx
    p[st.frame_a] = st.frame_L
    p[st.axis_u] = u
    p[st.axis_v] = v
    st.n_positions += 1
    st.weld[key] = st.weld_tag | <uint32_t>idx
    return idx


cdef inline uint8_t _face(int a, int positive) noexcept nogil:
    """The face code of a triangle: 2 * axis, + 1 when it faces +axis."""
    return 2 * a + (1 if positive else 0)


cdef inline void _emit(State* st, int a, int positive, uint16_t material,
                int i0, int i1, int i2) noexcept nogil:
    """One triangle of welded vertices, counter-clockwise in (u, v); flipped for negative faces."""
    cdef int t = st.n_triangles
    st.triangles[3 * t] = i0
    if positive:
        st.triangles[3 * t + 1] = i1
        st.triangles[3 * t + 2] = i2
    else:
        st.triangles[3 * t + 1] = i2
        st.triangles[3 * t + 2] = i1
    st.materials[t] = material
    st.faces[t] = _face(a, positive)
    st.n_triangles += 1


cdef inline void _put(int32_t* out, const int* vertex, int flip, int p, int q, int r) noexcept nogil:
    """Triangle (p, q, r) of points as their vertices vertex[p], ... into
    out[0:3]; (p, r, q) when flip.  _emitted counts such triangles."""
    out[0] = vertex[p]
    out[1 + flip] = vertex[q]
    out[2 - flip] = vertex[r]


cdef inline void _emitted(State* st, int n, int a, int positive, uint16_t material) noexcept nogil:
    """Count the n triangles written at st.triangles[3 * st.n_triangles:]
    as emitted, with their material and face: four at a time, so up to
    three past them too (the buffers have room for them)."""
    cdef uint16_t* materials = st.materials + st.n_triangles
    cdef uint8_t* faces = st.faces + st.n_triangles
    cdef uint64_t four_materials = 0x0001000100010001ULL * material
    cdef uint32_t four_faces = 0x01010101U * _face(a, positive)
    cdef int t
    for t in range(0, n, 4):
        memcpy(materials + t, &four_materials, 8)
        memcpy(faces + t, &four_faces, 4)
    st.n_triangles += n
