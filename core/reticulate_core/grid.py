"""Whole-grid meshing: split a volume into 32^3 chunks, mesh them in parallel
with seeded neighbours and weld the seams (DESIGN.md, "mesh_grid keeps 1-4
across chunk seams").

A volume is either a dense (X, Y, Z) integer array, or a sparse dict
``{(cx, cy, cz): chunk}`` mapping chunk coordinates to (32, 32, 32) arrays or
octrees (``CompactOctree`` / ``Fixed8Octree``).  A sparse volume spans the box
of its keys (chunks inside the box that are not in the dict are empty) and is
never densified at once: each chunk is meshed from its 27-neighbourhood.
Voxel (x, y, z) of chunk c sits at grid coordinates 32 * c + (x, y, z).

Chunks are meshed in batches of consecutive chunks, each batch by one call
without the GIL (``Mesher.mesh_volume_batch`` for dense volumes): a chunk is
meshed from a (34, 34, 34) padded block (the chunk plus one voxel of halo, 0
beyond the grid), emits the faces of its layers 0..31 and, when it is the
last chunk along an axis, layer 32 too.  Chunks whose padded block holds one
value have no faces and are skipped.  Batches are welded in chunk order (C
order of the chunk index: x slowest, z fastest) as they arrive, so the
output does not depend on the number of workers.
"""
import itertools
import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager

import numpy as np

from .halo import fill_from_neighbours
from .manifold import split_nonmanifold
from .mesh import Mesh
from .mesher import MAX_GRID_COORDINATE, Mesher
from .weld import SeamWelder

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
    welder = SeamWelder()
    for batch in _mesh_all(source, workers, progress):
        welder.add(batch.positions, batch.keys, batch.triangles, batch.materials, batch.faces)
    mesh = welder.mesh()
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
    for batch in _mesh_all(_source(volume), workers, progress):
        yield from batch.chunk_meshes()


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
        self.seams = _SeamKeys((0, 0, 0), array.shape)

    def coords(self):
        return list(itertools.product(*(range(n) for n in self.n_chunks)))

    def mesh_batch(self, mesher, coords):
        """The _ChunkBatch of chunks ``coords``, meshed without the GIL."""
        rows, n_vertices, n_triangles, *arrays = mesher.mesh_volume_batch(
            self.volume, coords, self.seams.lo, self.seams.dy, self.seams.dz)
        return _ChunkBatch([coords[r] for r in rows], n_vertices, n_triangles, *arrays)

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
        self.seams = _SeamKeys([int(k) * CHUNK for k in self.lo], [(int(k) + 1) * CHUNK for k in self.hi])
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

    def mesh_batch(self, mesher, coords):
        """The _ChunkBatch of chunks ``coords``: blocks padded from their neighbours
        here, then meshed in one GIL-free call."""
        blocks = np.empty((len(coords), PADDED, PADDED, PADDED), np.uint16)
        meshed = []             # the chunks whose block is not uniform, packed in front
        near = {}               # the batch's chunks and their neighbours, each looked up once
        for c in coords:
            neighbours = []
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    for dz in (-1, 0, 1):
                        n = (c[0] + dx, c[1] + dy, c[2] + dz)
                        if n not in near:
                            near[n] = self._chunk(n)
                        neighbours.append(near[n])
            if not fill_from_neighbours(neighbours, blocks[len(meshed)]):
                meshed.append(c)
        rows, n_vertices, n_triangles, *arrays = mesher.mesh_blocks_batch(
            blocks[:len(meshed)], meshed, self.lo, self.hi, self.seams.lo, self.seams.dy, self.seams.dz)
        return _ChunkBatch([meshed[r] for r in rows], n_vertices, n_triangles, *arrays)

    def done_before(self, c):
        """Forget dense copies no chunk from ``c`` on will read (x more than one slab behind)."""
        with self._lock:
            for key in [k for k in self._dense if k[0] < c[0] - 1]:
                del self._dense[key]


def _is_octree(chunk):
    return hasattr(chunk, "to_dense") and not isinstance(chunk, np.ndarray)


# ---------------------------------------------------------------- meshing


def _mesh_all(source, workers, progress):
    """Yield the _ChunkBatch of every batch of consecutive chunks, in chunk order."""
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    workers = int(workers)
    coords = source.coords()
    total = len(coords)
    size = max(1, min(32, total // (4 * workers)))
    batches = [coords[i:i + size] for i in range(0, total, size)]
    local = threading.local()

    def run(batch):
        mesher = getattr(local, "mesher", None)
        if mesher is None:
            mesher = local.mesher = Mesher()
        return source.mesh_batch(mesher, batch)

    done = 0
    if progress is not None:
        progress(0, total)
    if workers == 1:
        for batch in batches:
            result = run(batch)
            done += len(batch)
            if done < total:
                source.done_before(coords[done])
            if progress is not None:
                progress(done, total)
            yield result
        return

    pending = deque()
    with _pool(workers) as executor:
        try:
            queued = iter(batches)
            for batch in queued:
                pending.append((len(batch), executor.submit(run, batch)))
                if len(pending) >= 2 * workers:
                    break
            while pending:
                count, future = pending.popleft()
                result = future.result()
                done += count
                for batch in queued:
                    pending.append((len(batch), executor.submit(run, batch)))
                    break
                if pending:
                    # every batch before the oldest unfinished one is done
                    source.done_before(coords[done])
                if progress is not None:
                    progress(done, total)
                yield result
        finally:
            # an early stop: drop the queued batches, let the running ones end
            wait([future for _, future in pending if not future.cancel()])


_pool_lock = threading.Lock()
_pool_kept = None       # (workers, the pool of that many threads), kept between calls
_pool_users = 0         # calls using the kept pool now


@contextmanager
def _pool(workers):
    """A pool of ``workers`` threads for one call.  One pool is kept between
    calls (its threads keep their Meshers); a call that wants another number
    of threads replaces it while no call uses it, else gets a pool of its
    own, shut down after the call.  So the threads left between calls are
    those of one pool, whatever numbers callers ask for."""
    global _pool_kept, _pool_users
    with _pool_lock:
        kept = _pool_users == 0 or _pool_kept[0] == workers
        if kept:
            if _pool_kept is None or _pool_kept[0] != workers:
                if _pool_kept is not None:
                    _pool_kept[1].shutdown(wait=True)   # idle: its threads only have to end
                _pool_kept = (workers, ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reticulate"))
            _pool_users += 1
            executor = _pool_kept[1]
        else:
            executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reticulate")
    try:
        yield executor
    finally:
        if kept:
            with _pool_lock:
                _pool_users -= 1
        else:
            executor.shutdown(wait=True)


class _ChunkBatch:
    """The meshes of some consecutive chunks, joined (see Mesher.mesh_volume_batch).

    ``positions`` are grid coordinates, chunk after chunk (``n_vertices[i]``
    of chunk ``coords[i]``, then the next); ``keys`` their seam keys (-1
    inside a chunk); ``triangles`` index the joined positions.
    """
    __slots__ = ("coords", "n_vertices", "n_triangles", "positions", "keys", "triangles",
                 "materials", "faces")

    def __init__(self, coords, n_vertices, n_triangles, positions, keys, triangles, materials, faces):
        self.coords, self.n_vertices, self.n_triangles = coords, n_vertices, n_triangles
        self.positions, self.keys, self.triangles = positions, keys, triangles
        self.materials, self.faces = materials, faces

    def chunk_meshes(self):
        """Yield ``(coords, Mesh)`` per chunk, the Mesh in chunk-local coordinates."""
        v = t = 0
        for c, nv, nt in zip(self.coords, self.n_vertices.tolist(), self.n_triangles.tolist()):
            origin = np.array([CHUNK * k for k in c], dtype=np.float32)
            yield c, Mesh._wrap(self.positions[v:v + nv] - origin, self.triangles[t:t + nt] - v,
                                self.materials[t:t + nt], self.faces[t:t + nt])
            v += nv
            t += nt


class _SeamKeys:
    """The box that seam keys number corners in (see weld.seam_key): its lower
    corner ``lo`` and its corner counts ``dy``, ``dz`` along y and z."""

    def __init__(self, corner_lo, corner_hi):
        self.lo = [int(n) for n in corner_lo]
        spans = [int(hi) - lo + 1 for lo, hi in zip(self.lo, corner_hi)]
        if spans[0] * spans[1] * spans[2] >= 2**62:
            raise ValueError(f"volume spans {[n - 1 for n in spans]} voxels: too large to number its corners")
        if max(abs(int(n)) for n in list(corner_lo) + list(corner_hi)) > MAX_GRID_COORDINATE:
            raise ValueError("volume reaches beyond grid coordinate +-2**24, which float32 "
                             "positions cannot hold exactly")
        self.dy, self.dz = spans[1], spans[2]
