"""The GIL-free chunk batch (Mesher.mesh_volume_batch) and the seam welder."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import reticulate_core as rc
from example_budget import examples
from reticulate_core.weld import SeamWelder


def _volume():
    rng = np.random.default_rng(5)
    return (rng.random((70, 40, 33)) < 0.4).astype(np.uint16) * rng.integers(1, 4, (70, 40, 33)).astype(np.uint16)


def test_batch_equals_padded_chunks_moved_to_their_origins():
    volume = _volume()
    coords = np.array(list(np.ndindex(3, 2, 2)))
    rows, n_vertices, n_triangles, positions, keys, triangles, materials, faces = \
        rc.Mesher().mesh_volume_batch(volume, coords, (0, 0, 0), 41, 34)
    by_chunk = dict(rc.mesh_chunks(volume, workers=1))
    assert [tuple(coords[r]) for r in rows] == list(by_chunk)
    v = t = 0
    for r, nv, nt in zip(rows, n_vertices, n_triangles):
        c = tuple(int(k) for k in coords[r])
        mesh = by_chunk[c]
        assert np.array_equal(positions[v:v + nv] - 32 * np.array(c), mesh.positions)
        assert np.array_equal(triangles[t:t + nt] - v, mesh.triangles)
        assert np.array_equal(materials[t:t + nt], mesh.materials)
        assert np.array_equal(faces[t:t + nt], mesh.faces)
        local = mesh.positions.astype(np.int64)
        on_seam = ((local == 0) | (local == 32)).any(axis=1)
        grid = positions[v:v + nv].astype(np.int64)
        expected = np.where(on_seam, (grid[:, 0] * 41 + grid[:, 1]) * 34 + grid[:, 2], -1)
        assert np.array_equal(keys[v:v + nv], expected)
        v += nv
        t += nt
    assert v == len(positions) and t == len(triangles)


@pytest.mark.parametrize("chunk", [(3, 0, 0), (0, 2, 0), (0, 0, 2), (-1, 0, 0)])
def test_batch_rejects_chunks_outside_the_volume(chunk):
    with pytest.raises(ValueError, match="outside the volume"):
        rc.Mesher().mesh_volume_batch(_volume(), [chunk], (0, 0, 0), 41, 34)


def _square(offset, keys):
    positions = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32) + offset
    return (positions, np.array(keys, np.int64), np.array([[0, 1, 2], [0, 2, 3]], np.int32),
            np.ones(2, np.uint16), np.full(2, 5, np.uint8))


def test_welder_merges_equal_keys_in_order_of_first_appearance():
    welder = SeamWelder()
    welder.add(*_square((0, 0, 0), [-1, 7, 8, -1]))
    welder.add(*_square((1, 0, 0), [7, -1, -1, 8]))
    mesh = welder.mesh()
    assert mesh.n_vertices == 6
    assert np.array_equal(mesh.positions[:4], _square((0, 0, 0), [0] * 4)[0])
    assert np.array_equal(mesh.positions[4:], [[2, 0, 0], [2, 1, 0]])
    assert mesh.triangles.tolist() == [[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 2]]
    assert welder.mesh().n_triangles == 0


def test_welder_rejects_bad_indices_and_changes_nothing():
    welder = SeamWelder()
    welder.add(*_square((0, 0, 0), [-1, 7, 8, -1]))
    positions, keys, triangles, materials, faces = _square((1, 0, 0), [7, -1, -1, 8])
    triangles[1, 2] = 4
    with pytest.raises(ValueError, match="outside the mesh's positions"):
        welder.add(positions, keys, triangles, materials, faces)
    with pytest.raises(ValueError, match="seam keys"):
        welder.add(positions, keys[:3], triangles, materials, faces)
    with pytest.raises(ValueError, match=r"shape \(t, 3\), got \(2, 2\)"):
        welder.add(positions, keys, np.ascontiguousarray(triangles[:, :2]), materials, faces)
    welder.add(*_square((1, 0, 0), [7, -1, -1, 8]))
    assert welder.mesh().n_vertices == 6


def test_blocks_batch_equals_volume_batch():
    volume = _volume()
    coords = np.array(list(np.ndindex(3, 2, 2)))
    padded = np.pad(volume, ((1, 60), (1, 60), (1, 60)))   # 0 beyond the volume
    blocks = np.stack([padded[32 * x:32 * x + 34, 32 * y:32 * y + 34, 32 * z:32 * z + 34]
                       for x, y, z in coords])
    mesher = rc.Mesher()
    from_volume = mesher.mesh_volume_batch(volume, coords, (0, 0, 0), 41, 34)
    from_blocks = mesher.mesh_blocks_batch(blocks, coords, (0, 0, 0), (2, 1, 1), (0, 0, 0), 41, 34)
    for a, b in zip(from_volume, from_blocks):
        assert np.array_equal(a, b)
    with pytest.raises(ValueError, match=r"shape \(n, 34, 34, 34\)"):
        mesher.mesh_blocks_batch(np.zeros((1, 34, 34, 33), np.uint16), coords[:1], (0, 0, 0), (2, 1, 1),
                                 (0, 0, 0), 41, 34)
    with pytest.raises(ValueError, match="2 blocks for 1 chunks"):
        mesher.mesh_blocks_batch(blocks[:2], coords[:1], (0, 0, 0), (2, 1, 1), (0, 0, 0), 41, 34)


def _batch_calls(volume, blocks, coords, box_lo=(0, 0, 0), first=(0, 0, 0), last=(2, 1, 1)):
    mesher = rc.Mesher()
    return (lambda: mesher.mesh_volume_batch(volume, coords, box_lo, 41, 34),
            lambda: mesher.mesh_blocks_batch(blocks, coords, first, last, box_lo, 41, 34))


@pytest.mark.parametrize("bad, error, message", [
    (dict(box_lo=(0,)), ValueError, "box_lo must be three integers, got 1 values"),
    (dict(box_lo=(0, 0, 0, 0)), ValueError, "box_lo must be three integers, got 4 values"),
    (dict(box_lo=(0, 0.5, 0)), TypeError, "box_lo must be three integers"),
    (dict(box_lo=7), TypeError, "box_lo must be three integers"),
    (dict(coords=[[0, 0]]), ValueError, r"coordinates must have shape \(n, 3\), got \(1, 2\)"),
    (dict(coords=[0, 0, 0]), ValueError, r"coordinates must have shape \(n, 3\), got \(3,\)"),
    (dict(coords=[[0.0, 0.0, 0.0]]), TypeError, "coordinates must be integers, got dtype float64"),
])
def test_batches_reject_malformed_corners_and_coordinates(bad, error, message):
    """Each batch copies its corners into C arrays of three: anything else is a
    clear error before any meshing, and the mesher meshes on afterwards."""
    volume = _volume()
    blocks = np.zeros((1, 34, 34, 34), np.uint16)
    args = dict(coords=[(0, 0, 0)]) | bad
    for call in _batch_calls(volume, blocks, **args):
        with pytest.raises(error, match=message):
            call()
    rows, *_ = rc.Mesher().mesh_volume_batch(volume, [(0, 0, 0)], (0, 0, 0), 41, 34)
    assert list(rows) == [0]


@pytest.mark.parametrize("first, last, message", [
    ((0, 0), (2, 1, 1), "first_chunk must be three integers, got 2 values"),
    ((0, 0, 0), (2,), "last_chunk must be three integers, got 1 values"),
    ((0, 0, 0), None, "last_chunk must be three integers, got None"),
])
def test_blocks_batch_rejects_malformed_chunk_ranges(first, last, message):
    blocks = np.zeros((1, 34, 34, 34), np.uint16)
    with pytest.raises((ValueError, TypeError), match=message):
        rc.Mesher().mesh_blocks_batch(blocks, [(0, 0, 0)], first, last, (0, 0, 0), 41, 34)


@pytest.mark.parametrize("box_lo, dy, dz, message", [
    ((2 ** 62, 0, 0), 41, 34, r"beyond grid coordinate \+-2\*\*24"),
    ((0, 0, 0), 0, 34, "at least one corner along y and z"),
    ((0, 0, 0), 41, -1, "at least one corner along y and z"),
    ((0, 0, 0), 20, 34, "outside the seam box"),      # the volume's chunk reaches y = 32
    ((1, 0, 0), 41, 34, "outside the seam box"),      # its corner x = 0 is below the box
])
def test_batches_reject_a_seam_box_their_keys_do_not_fit(box_lo, dy, dz, message):
    """Seam keys number the corners of the box from 0: corners outside it
    would take negative or overlapping keys and weld wrongly.  A block's
    voxels may end anywhere in its chunk: its batch checks all but the
    box's far y and z sides."""
    volume = _volume()
    mesher = rc.Mesher()
    with pytest.raises(ValueError, match=message):
        mesher.mesh_volume_batch(volume, [(0, 0, 0)], box_lo, dy, dz)
    blocks_call = lambda: mesher.mesh_blocks_batch(    # noqa: E731
        np.zeros((1, 34, 34, 34), np.uint16), [(0, 0, 0)], (0, 0, 0), (2, 1, 1), box_lo, dy, dz)
    if dy == 20:
        assert len(blocks_call()) == 8
    else:
        with pytest.raises(ValueError, match=message):
            blocks_call()


def test_volume_batch_rejects_chunks_beyond_float32_positions():
    from numpy.lib.stride_tricks import as_strided
    n = 2 ** 25 + 64
    stripes = (np.arange(n) % 2).astype(np.uint16)
    volume = as_strided(stripes, (n, 32, 32), (2, 0, 0))       # huge, in a few bytes
    with pytest.raises(ValueError, match=r"beyond grid coordinate \+-2\*\*24"):
        rc.Mesher().mesh_volume_batch(volume, [(n // 32 - 1, 0, 0)], (0, 0, 0), 33, 33)


def test_batches_take_no_chunks():
    volume = _volume()
    for call in _batch_calls(volume, np.zeros((0, 34, 34, 34), np.uint16), []):
        rows, n_vertices, n_triangles, positions, keys, triangles, materials, faces = call()
        assert len(rows) == len(positions) == len(triangles) == 0


_ANY_CORNER = st.one_of(
    st.lists(st.integers(-2 ** 70, 2 ** 70), max_size=5).map(tuple),
    st.lists(st.one_of(st.integers(-3, 3), st.floats(-3, 3), st.booleans(), st.none(), st.text(max_size=2)),
             max_size=4),
    st.integers(), st.none(), st.floats(allow_nan=True))
_ANY_COORDS = st.one_of(
    st.lists(st.lists(st.integers(-2 ** 40, 2 ** 40), max_size=4), max_size=3),
    st.lists(st.integers(-3, 3), max_size=6),
    st.lists(st.lists(st.floats(-3, 3), min_size=3, max_size=3), max_size=2),
    st.none(), st.integers())


@settings(max_examples=examples(300))
@given(_ANY_COORDS, _ANY_CORNER, _ANY_CORNER, _ANY_CORNER, st.integers(-2 ** 63, 2 ** 63 - 1))
def test_batches_take_any_arguments_without_crashing(coords, box_lo, first, last, dy):
    """Whatever the corner and coordinate arguments, a batch returns its
    eight arrays or raises a clear error: it never reads past them."""
    volume = _volume()
    blocks = np.zeros((len(coords) if isinstance(coords, list) else 1, 34, 34, 34), np.uint16)
    mesher = rc.Mesher()
    calls = (lambda: mesher.mesh_volume_batch(volume, coords, box_lo, dy, 34),
             lambda: mesher.mesh_blocks_batch(blocks, coords, first, last, box_lo, dy, 34))
    for call in calls:
        try:
            result = call()
        except (ValueError, TypeError, OverflowError):
            continue
        assert len(result) == 8
