"""mesh_grid's input handling: dtypes, layouts, bad volumes, workers, progress."""
import threading

import numpy as np
import pytest

import reticulate_core as rc


def _volume():
    rng = np.random.default_rng(11)
    return (rng.random((40, 35, 33)) < 0.4).astype(np.uint16) * rng.integers(1, 4, (40, 35, 33)).astype(np.uint16)


def _assert_same(a, b):
    for name in ("positions", "triangles", "materials", "faces"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_contract_types():
    mesh = rc.mesh_grid(_volume())
    assert mesh.positions.dtype == np.float32 and mesh.positions.shape[1] == 3
    assert mesh.triangles.dtype == np.int32 and mesh.triangles.shape[1] == 3
    assert mesh.materials.dtype == np.uint16 and mesh.faces.dtype == np.uint8
    assert len(np.unique(mesh.positions, axis=0)) == len(mesh.positions)
    assert np.array_equal(mesh.positions, np.round(mesh.positions))
    assert set(np.unique(mesh.materials)) == {1, 2, 3}


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.int64, np.uint32, ">u2"])
def test_other_integer_dtypes(dtype):
    volume = _volume()
    _assert_same(rc.mesh_grid(volume.astype(dtype)), rc.mesh_grid(volume))


def test_bool_is_material_one():
    volume = _volume()
    _assert_same(rc.mesh_grid(volume != 0), rc.mesh_grid((volume != 0).astype(np.uint16)))


def test_strided_and_read_only_views():
    big = np.zeros((80, 70, 66), np.uint16)
    big[::2, ::2, ::2] = _volume()
    view = big[::2, ::2, ::2]
    assert not view.flags.c_contiguous
    _assert_same(rc.mesh_grid(view), rc.mesh_grid(_volume()))
    transposed = np.ascontiguousarray(_volume().transpose(2, 1, 0)).transpose(2, 1, 0)
    transposed.flags.writeable = False
    _assert_same(rc.mesh_grid(transposed), rc.mesh_grid(_volume()))


def test_nested_lists_are_accepted():
    volume = _volume()[:5, :4, :3]
    _assert_same(rc.mesh_grid(volume.tolist()), rc.mesh_grid(volume))


@pytest.mark.parametrize("volume, error, match", [
    (np.zeros((4, 4), np.uint16), ValueError, "3-D"),
    (np.zeros((2, 2, 2, 2), np.uint16), ValueError, "3-D"),
    (np.zeros((0, 4, 4), np.uint16), ValueError, "empty"),
    (np.zeros((4, 4, 4), np.float32), TypeError, "integer"),
    (np.full((4, 4, 4), -1, np.int8), ValueError, "0..65535"),
    (np.full((4, 4, 4), 70000, np.int32), ValueError, "0..65535"),
    (np.array([[["a"]]]), TypeError, "integer"),
])
def test_bad_volumes(volume, error, match):
    with pytest.raises(error, match=match):
        rc.mesh_grid(volume)


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True])
def test_bad_workers(workers):
    with pytest.raises(ValueError, match="workers"):
        rc.mesh_grid(_volume(), workers=workers)


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_progress_counts_chunks_in_order_on_the_calling_thread(workers):
    calls = []
    volume = np.ones((100, 64, 40), np.uint16)
    rc.mesh_grid(volume, workers=workers,
                 progress=lambda done, total: calls.append((done, total, threading.get_ident())))
    total = 4 * 2 * 2
    assert calls[0][:2] == (0, total) and calls[-1][:2] == (total, total)
    done = [c[0] for c in calls]
    assert done == sorted(done) and all(c[1] == total for c in calls)
    assert {c[2] for c in calls} == {threading.get_ident()}


def _pool_threads():
    return [t for t in threading.enumerate() if t.name.startswith("reticulate")]


def test_threads_left_between_calls_are_one_pools_whatever_the_workers():
    volume = _volume()
    expected = rc.mesh_grid(volume, workers=1)
    for workers in range(2, 12):
        _assert_same(rc.mesh_grid(volume, workers=workers), expected)
        assert len(_pool_threads()) <= workers
    # a call while another holds the kept pool gets a pool of its own, gone after it
    stream = rc.mesh_chunks(volume, workers=3)
    next(stream)
    _assert_same(rc.mesh_grid(volume, workers=5), expected)
    stream.close()
    assert len(_pool_threads()) <= 3


def test_error_in_progress_propagates_and_stops():
    def fail(done, total):
        if done:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        rc.mesh_grid(np.ones((200, 64, 64), np.uint16), workers=2, progress=fail)


def test_exported_names():
    from reticulate_core import grid
    assert rc.mesh_grid is grid.mesh_grid and rc.mesh_chunks is grid.mesh_chunks
