# cython: language_level=3
"""Half-edge kernels of manifold splitting (see manifold.py), without the GIL.

Half-edge h = 3 t + k of a triangle mesh runs from triangles[t, k] to
triangles[t, (k + 1) % 3]; its corner is (t, k), at its start vertex.
"""
from libc.stdint cimport int32_t, int64_t

import numpy as np

cdef enum:
    OK = 0
    UNMATCHED = 1       # an edge whose half-edges are not 1 + 1 or 2 + 2 opposite ones


def match_half_edges(const int32_t[:, ::1] triangles, int64_t n_vertices):
    """Glue the half-edges of a closed mesh whose edges have two or four triangles.

    Returns ``(mate, quads)``: ``mate[h]`` is the half-edge b -> a glued to
    h = a -> b where the edge has two half-edges (-1 elsewhere); ``quads`` is
    (Q, 4) int64: per edge with four half-edges, its two a -> b half-edges
    then its two b -> a ones (a < b, each pair in increasing order), edges in
    the order of their first half-edge.  Raises ValueError when some edge
    has another make-up (the mesh is not a closed voxel surface).
    """
    cdef Py_ssize_t n_half = 3 * triangles.shape[0], h
    cdef int64_t v
    _check_triangles(triangles, n_vertices)
    mate_array = np.full(n_half, -1, dtype=np.int64)
    start_array = np.zeros(n_vertices + 1, dtype=np.int64)
    out_array = np.empty(n_half, dtype=np.int64)
    quads_array = np.empty((n_half // 4 + 1, 4), dtype=np.int64)
    cdef int64_t[::1] mate = mate_array
    cdef int64_t[::1] start = start_array       # out-going half-edges of v: out[start[v]:start[v + 1]]
    cdef int64_t[::1] out = out_array
    cdef int64_t[:, ::1] quads = quads_array
    cdef const int32_t* tri = &triangles[0, 0] if n_half else NULL
    cdef int64_t a, b, n_fwd, n_rev, n_quads = 0
    cdef int64_t fwd[3]
    cdef int64_t rev[3]
    cdef int status = OK
    with nogil:
        # out-going half-edges per vertex, in increasing order (a counting sort)
        for h in range(n_half):
            start[tri[h] + 1] += 1
        for v in range(n_vertices):
            start[v + 1] += start[v]
        for h in range(n_half):
            out[start[tri[h]]] = h
            start[tri[h]] += 1
        for v in range(n_vertices, 0, -1):
            start[v] = start[v - 1]
        start[0] = 0
        for h in range(n_half):
            a = tri[h]
            b = tri[h - h % 3 + (h % 3 + 1) % 3]
            if a > b:
                continue            # every edge is handled from its a -> b side, a < b
            n_fwd = _half_edges_between(out, start, tri, a, b, fwd)
            if fwd[0] != h:
                continue            # handled from the edge's first half-edge
            n_rev = _half_edges_between(out, start, tri, b, a, rev)
            if n_fwd != n_rev or n_fwd > 2:
                status = UNMATCHED
                break
            if n_fwd == 1:
                mate[fwd[0]] = rev[0]
                mate[rev[0]] = fwd[0]
            else:
                quads[n_quads, 0] = fwd[0]
                quads[n_quads, 1] = fwd[1]
                quads[n_quads, 2] = rev[0]
                quads[n_quads, 3] = rev[1]
                n_quads += 1
        if status == OK:
            # a b -> a half-edge (a < b) without any a -> b one was never reached
            for h in range(n_half):
                a = tri[h]
                b = tri[h - h % 3 + (h % 3 + 1) % 3]
                if a == b or (a > b and mate[h] < 0
                              and _half_edges_between(out, start, tri, b, a, fwd) != 2):
                    status = UNMATCHED
                    break
    if status != OK:
        raise ValueError("split_nonmanifold: the mesh is not a closed voxel surface "
                         "(an edge lacks its reverse edge or has more than four triangles)")
    return mate_array, quads_array[:n_quads].copy()


cdef int64_t _half_edges_between(const int64_t[::1] out, const int64_t[::1] start,
                                 const int32_t* tri, int64_t a, int64_t b,
                                 int64_t* found) noexcept nogil:
    """The number of half-edges a -> b; the first three (in increasing order) into found."""
    cdef int64_t i, e, count = 0
    for i in range(start[a], start[a + 1]):
        e = out[i]
        if tri[e - e % 3 + (e % 3 + 1) % 3] == b:
            if count < 3:
                found[count] = e
            count += 1
    return count


def _check_triangles(const int32_t[:, ::1] triangles, int64_t n_vertices):
    """The kernels read three corners per triangle, each a vertex index:
    (T, 3) only, every corner in 0..n_vertices - 1."""
    cdef Py_ssize_t t
    cdef int i
    if triangles.shape[1] != 3:
        raise ValueError(f"triangles must have shape (T, 3), "
                         f"got ({triangles.shape[0]}, {triangles.shape[1]})")
    for t in range(triangles.shape[0]):
        for i in range(3):
            if triangles[t, i] < 0 or triangles[t, i] >= n_vertices:
                raise ValueError(f"triangle {t} indexes vertex {triangles[t, i]}, "
                                 f"outside 0..{n_vertices - 1}")


def sheet_vertices(const int64_t[::1] mate, const int32_t[:, ::1] triangles, int64_t n_vertices):
    """New vertex of every corner (3T,) int32, and the source vertex of every new vertex.

    Following mates rotates around a vertex: corner h goes to the corner at
    the same vertex of the triangle of mate[h].  Each cycle of this rotation
    is one sheet.  Cycles are taken in the order of their smallest corner;
    a vertex's first sheet keeps its index, each further sheet gets the next
    index from n_vertices on.
    """
    cdef Py_ssize_t n_half = 3 * triangles.shape[0], h, c
    _check_triangles(triangles, n_vertices)
    if mate.shape[0] != n_half:
        raise ValueError(f"{mate.shape[0]} mates for {n_half} half-edges")
    if n_half and (np.min(mate) < -1 or np.max(mate) >= n_half):
        raise ValueError("sheet_vertices: mates must be half-edges or -1")
    corner_array = np.full(n_half, -1, dtype=np.int32)
    has_sheet_array = np.zeros(n_vertices, dtype=np.uint8)
    source_array = np.empty(n_vertices + n_half, dtype=np.int64)
    cdef int32_t[::1] corner = corner_array
    cdef unsigned char[::1] has_sheet = has_sheet_array
    cdef int64_t[::1] source = source_array
    cdef const int32_t* tri = &triangles[0, 0] if n_half else NULL
    cdef int64_t v, m, next_index = n_vertices, steps
    cdef int32_t index
    cdef bint broken = False
    with nogil:
        for v in range(n_vertices):
            source[v] = v
        for h in range(n_half):
            if corner[h] >= 0:
                continue
            v = tri[h]
            if not has_sheet[v]:
                has_sheet[v] = 1
                index = <int32_t>v
            else:
                index = <int32_t>next_index
                source[next_index] = v
                next_index += 1
            c = h
            steps = 0
            while corner[c] < 0:
                corner[c] = index
                m = mate[c]
                steps += 1
                if m < 0 or steps > n_half:
                    broken = True
                    break
                c = m - m % 3 + (m % 3 + 1) % 3
            if broken or c != h:
                broken = True
                break
    if broken:
        raise ValueError("sheet_vertices: mate is not an involution of opposite half-edges")
    return corner_array, source_array[:next_index].copy()
