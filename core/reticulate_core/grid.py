"""Whole-grid meshing: split a volume into 32^3 chunks, mesh them in parallel
with seeded neighbours and weld the seams (DESIGN.md, "mesh_grid keeps 1-4
across chunk seams").

A volume is either a dense (X, Y, Z) integer array, or a sparse dict
``{(cx, cy, cz): chunk}`` mapping chunk coordinates to (32, 32, 32) arrays or
octrees (``CompactOctree`` / ``Fixed8Octree``).  A sparse volume spans the box
of its keys (chunks inside the box that are not in the dict are empty) and is
never densified at once: each chunk is meshed from its 27-neighbourhood.
Voxel (x, y, z) of chunk c sits at grid coordinates 32 * c + (x, y, z).

Each chunk is meshed by ``Mesher.mesh_padded`` from a (34, 34, 34) padded
block (the chunk plus one voxel of halo, 0 beyond the grid); a chunk emits the
faces of its layers 0..31 and, when it is the last chunk along an axis, layer
32 too.  Chunks whose padded block holds one value have no faces and are
skipped.  Chunks are processed and concatenated in chunk order (C order of
the chunk index: x slowest, z fastest), so the output does not depend on the
number of workers.
"""
import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .halo import fill_padded, is_uniform
from .manifold import split_nonmanifold
from .mesh import Mesh
from .mesher import Mesher
from .weld import prepare_chunk

CHUNK = 32
PADDED = CHUNK + 2
_MAX_ID = 65535


def mesh_grid(volume, *, workers=None, progress=None, manifold=False):
    """Mesh a whole volume into one welded Mesh in grid coordinates.

    ``workers``: number of threads (default ``os.cpu_count()``).
    ``progress(done, total)``: called from the calling thread with the number
    of chunks finished so far, in order.
    ``manifold=True`` additionally splits non-manifold contacts so that every
    edge is used by exactly two triangles (see ``manifold.split_nonmanifold``);
    positions then repeat exactly at the split points.
    """
    source = _source(volume)
    seams = _SeamKeys(source.corner_lo, source.corner_hi)
    parts = [part for _, part in _mesh_all(source, workers, progress, seams.prepare)]
    mesh = _weld(parts)
    if manifold:
        mesh = split_nonmanifold(mesh)
    return mesh


def mesh_chunks(volume, *, workers=None, progress=None):
    """Yield ``(chunk_coords, Mesh)`` for every chunk that has triangles, in chunk order.

    Each Mesh is in chunk-local coordinates (0..32): add the chunk's origin
    ``32 * numpy.array(chunk_coords)`` to get grid coordinates.  Meshes of
    neighbouring chunks agree on their shared seam vertices.  Chunks are
    meshed ahead in parallel while the caller consumes them.
    """
    source = _source(volume)
    yield from _mesh_all(source, workers, progress, lambda coords, mesh: mesh)


# ---------------------------------------------------------------- sources


def _source(volume):
    if isinstance(volume, dict):
        return _SparseSource(volume)
    return _DenseSource(volume)


def _as_voxels(array, what):
    """``array`` as a uint16 array (no copy when it already is), validated."""
    array = np.asarray(array)
    if array.dtype == np.bool_:
        return array.astype(np.uint16)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{what} must hold integer material ids (or bool), got dtype {array.dtype}")
    if array.dtype == np.uint16 and array.dtype.isnative:
        return array
    if array.size:
        low, high = int(array.min()), int(array.max())
        if low < 0 or high > _MAX_ID:
            raise ValueError(f"{what} holds values in {low}..{high}; material ids must be in 0..{_MAX_ID}")
    return array.astype(np.uint16)


class _DenseSource:
    """Chunks of a dense (X, Y, Z) array; the grid ends at the array's bounds."""

    def __init__(self, volume):
        array = np.asarray(volume)
        if array.ndim != 3:
            raise ValueError(f"volume must be a 3-D (X, Y, Z) array, got {array.ndim} dimensions "
                             f"(shape {array.shape})")
        if array.size == 0:
            raise ValueError(f"volume is empty (shape {array.shape})")
        self.volume = _as_voxels(array, "volume")
        self.n_chunks = tuple(-(-n // CHUNK) for n in array.shape)
        self.corner_lo = (0, 0, 0)
        self.corner_hi = tuple(array.shape)

    def coords(self):
        return [tuple(int(i) for i in c) for c in np.ndindex(*self.n_chunks)]

    def emit_upper(self, c):
        return tuple(c[a] == self.n_chunks[a] - 1 for a in range(3))

    def fill(self, c, block):
        return fill_padded(self.volume, c[0], c[1], c[2], block)

    def done_before(self, c):
        """Called once every chunk before ``c`` is finished (dense: nothing to free)."""


class _SparseSource:
    """Chunks of a dict {(cx, cy, cz): chunk}; dense copies live only near the work front."""

    def __init__(self, chunks):
        if not chunks:
            raise ValueError("sparse volume has no chunks")
        self.chunks = {}
        for key, chunk in chunks.items():
            try:
                coords = tuple(int(k) for k in key)
            except (TypeError, ValueError):
                raise ValueError(f"sparse volume keys must be (cx, cy, cz) integer tuples, got {key!r}") from None
            if len(coords) != 3 or any(k != c for k, c in zip(key, coords)):
                raise ValueError(f"sparse volume keys must be (cx, cy, cz) integer tuples, got {key!r}")
            if coords in self.chunks:
                raise ValueError(f"sparse volume has chunk {coords} twice")
            if not _is_octree(chunk):
                shape = np.shape(chunk)
                if shape != (CHUNK, CHUNK, CHUNK):
                    raise ValueError(f"chunk {coords} must have shape (32, 32, 32), got {shape}")
            self.chunks[coords] = chunk
        keys = np.array(sorted(self.chunks), dtype=np.int64)
        self.lo = keys.min(axis=0)
        self.hi = keys.max(axis=0)
        self.corner_lo = tuple(int(k) * CHUNK for k in self.lo)
        self.corner_hi = tuple((int(k) + 1) * CHUNK for k in self.hi)
        self._dense = {}
        self._lock = threading.Lock()

    def coords(self):
        # a missing chunk can still have faces: layer-0 faces of a solid lower face-neighbour
        todo = set(self.chunks)
        for c in self.chunks:
            for a in range(3):
                if c[a] < self.hi[a]:
                    todo.add(c[:a] + (c[a] + 1,) + c[a + 1:])
        return sorted(todo)

    def emit_upper(self, c):
        return tuple(c[a] == self.hi[a] for a in range(3))

    def _chunk(self, c):
        """Dense uint16 copy of chunk c (None when absent), converted once while in use."""
        with self._lock:
            if c in self._dense:
                return self._dense[c]
        chunk = self.chunks.get(c)
        if chunk is not None:
            if _is_octree(chunk):
                chunk = chunk.to_dense()
            chunk = np.ascontiguousarray(_as_voxels(chunk, f"chunk {c}"))
            if chunk.shape != (CHUNK, CHUNK, CHUNK):
                raise ValueError(f"chunk {c} must have shape (32, 32, 32), got {chunk.shape}")
        with self._lock:
            self._dense[c] = chunk
        return chunk

    def fill(self, c, block):
        block.fill(0)
        parts = ((slice(CHUNK - 1, CHUNK), slice(0, 1)),
                 (slice(0, CHUNK), slice(1, CHUNK + 1)),
                 (slice(0, 1), slice(CHUNK + 1, PADDED)))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    chunk = self._chunk((c[0] + dx, c[1] + dy, c[2] + dz))
                    if chunk is None:
                        continue
                    (sx, bx), (sy, by), (sz, bz) = parts[dx + 1], parts[dy + 1], parts[dz + 1]
                    block[bx, by, bz] = chunk[sx, sy, sz]
        return is_uniform(block)

    def done_before(self, c):
        """Forget dense copies no chunk from ``c`` on will read (x more than one slab behind)."""
        with self._lock:
            for key in [k for k in self._dense if k[0] < c[0] - 1]:
                del self._dense[key]


def _is_octree(chunk):
    return hasattr(chunk, "to_dense") and not isinstance(chunk, np.ndarray)


# ---------------------------------------------------------------- meshing


def _mesh_all(source, workers, progress, finish):
    """Yield (chunk_coords, finish(chunk_coords, Mesh)) for the chunks with triangles, in order.

    The Mesh is in chunk coordinates; ``finish`` runs in the worker thread.
    """
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    workers = int(workers)
    coords = source.coords()
    total = len(coords)
    size = max(1, min(16, total // (8 * workers)))
    batches = [coords[i:i + size] for i in range(0, total, size)]
    local = threading.local()

    def run(batch):
        state = getattr(local, "state", None)
        if state is None:
            state = local.state = (Mesher(), np.empty((PADDED, PADDED, PADDED), np.uint16))
        mesher, block = state
        out = []
        for c in batch:
            if not source.fill(c, block):
                mesh = mesher.mesh_padded(block, source.emit_upper(c))
                if mesh.n_triangles:
                    out.append((c, finish(c, mesh)))
        return out

    done = 0
    if progress is not None:
        progress(0, total)
    if workers == 1:
        for batch in batches:
            results = run(batch)
            done += len(batch)
            if done < total:
                source.done_before(coords[done])
            if progress is not None:
                progress(done, total)
            yield from results
        return

    pending = deque()
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reticulate")
    try:
        queued = iter(batches)
        for batch in queued:
            pending.append((len(batch), executor.submit(run, batch)))
            if len(pending) >= 2 * workers:
                break
        while pending:
            count, future = pending.popleft()
            results = future.result()
            done += count
            for batch in queued:
                pending.append((len(batch), executor.submit(run, batch)))
                break
            if pending:
                # every batch before the oldest unfinished one is done
                source.done_before(coords[done])
            if progress is not None:
                progress(done, total)
            yield from results
    finally:
        for _, future in pending:
            future.cancel()
        executor.shutdown(wait=True)


# ---------------------------------------------------------------- welding


class _SeamKeys:
    """Prepares chunk meshes for :func:`_weld`: grid positions, seam vertices and their keys.

    Inside a chunk vertices are already unique, so only vertices on a chunk
    border (a local coordinate of 0 or 32) can coincide with another chunk's;
    each gets a key that numbers its grid corner within the volume's box.
    """

    def __init__(self, corner_lo, corner_hi):
        self.lo = [int(n) for n in corner_lo]
        spans = [int(hi) - lo + 1 for lo, hi in zip(self.lo, corner_hi)]
        if spans[0] * spans[1] * spans[2] >= 2**62:
            raise ValueError(f"volume spans {[n - 1 for n in spans]} voxels: too large to number its corners")
        if max(abs(n) for n in list(corner_lo) + list(corner_hi)) > 2**24:
            raise ValueError("volume reaches beyond grid coordinate +-2**24, which float32 "
                             "positions cannot hold exactly")
        self.dy, self.dz = spans[1], spans[2]

    def prepare(self, coords, mesh):
        origin = [int(c) * CHUNK for c in coords]
        positions, seam, keys = prepare_chunk(mesh.positions, *origin, *self.lo, self.dy, self.dz)
        return _Part(positions, seam, keys, mesh)


class _Part:
    __slots__ = ("positions", "seam", "keys", "triangles", "materials", "faces")

    def __init__(self, positions, seam, keys, mesh):
        self.positions, self.seam, self.keys = positions, seam, keys
        self.triangles, self.materials, self.faces = mesh.triangles, mesh.materials, mesh.faces


def _weld(parts):
    """Concatenate prepared chunk meshes (in chunk order) and merge equal seam vertices.

    Result order: the interior vertices of all chunks in chunk order, then the
    distinct seam vertices sorted by key (x, then y, then z).  ``parts`` is
    consumed: each kind of array is dropped from the parts as soon as it is
    joined, so the parts and the result are never held in full at once.
    """
    if not parts:
        return Mesh.empty()
    n_vertices = np.array([len(p.positions) for p in parts], dtype=np.int64)
    n_triangles = np.array([len(p.triangles) for p in parts], dtype=np.int64)
    n_all = int(n_vertices.sum())

    def take_all(name):
        joined = np.concatenate([getattr(p, name) for p in parts])
        for p in parts:
            setattr(p, name, None)
        return joined

    # triangles first (the largest arrays): the parts shrink before the rest is joined
    triangles = take_all("triangles")
    vertex_start = (np.cumsum(n_vertices) - n_vertices).astype(np.int32)
    triangles += np.repeat(vertex_start, n_triangles)[:, None]
    materials, faces = take_all("materials"), take_all("faces")
    positions, seam, keys = take_all("positions"), take_all("seam"), take_all("keys")
    parts.clear()

    seam_index = np.flatnonzero(seam)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    del keys
    interior = ~seam
    n_interior = n_all - seam_index.size
    remap = np.empty(n_all, dtype=np.int32)
    remap[interior] = np.arange(n_interior, dtype=np.int32)
    remap[seam_index] = n_interior + inverse.astype(np.int32)
    block = 1 << 18
    for start in range(0, len(triangles), block):
        triangles[start:start + block] = np.take(remap, triangles[start:start + block])
    welded = np.concatenate((np.compress(interior, positions, axis=0), positions[seam_index[first]]))
    return Mesh(welded, triangles, materials, faces)
