"""mesh_chunks: one chunk-local mesh per non-empty chunk, in chunk order, matching across seams."""
import numpy as np

import meshcheck
import reticulate_core as rc


def _volume():
    volume = np.zeros((70, 64, 40), np.uint16)
    volume[10:60, 5:50, 3:37] = 1
    volume[20:40, 20:40, 30:40] = 2
    volume[0, 63, 39] = 3
    return volume


def test_chunks_in_order_with_local_coordinates():
    chunks = list(rc.mesh_chunks(_volume(), workers=2))
    coords = [c for c, _ in chunks]
    assert coords == sorted(coords) and len(set(coords)) == len(coords)
    for c, mesh in chunks:
        assert mesh.n_triangles > 0
        assert mesh.positions.min() >= 0 and mesh.positions.max() <= 32
        assert all(0 <= k < n for k, n in zip(c, (3, 2, 2)))


def test_chunks_placed_at_their_origins_form_the_grid_mesh():
    volume = _volume()
    parts = list(rc.mesh_chunks(volume))
    offsets = np.cumsum([0] + [m.n_vertices for _, m in parts])
    placed = rc.Mesh(np.concatenate([m.positions + 32 * np.array(c) for c, m in parts]),
                     np.concatenate([m.triangles + o for (_, m), o in zip(parts, offsets)]),
                     np.concatenate([m.materials for _, m in parts]),
                     np.concatenate([m.faces for _, m in parts]))
    # seam vertices repeat across chunks, but by position the union is watertight and exact
    meshcheck.check_exact_cover(volume, placed)
    meshcheck.check_watertight(placed, allow_duplicate_positions=True)
    whole = rc.mesh_grid(volume)
    assert placed.n_triangles == whole.n_triangles
    assert np.array_equal(placed.materials, whole.materials)
    assert np.array_equal(np.unique(placed.positions, axis=0), np.unique(whole.positions, axis=0))


def test_stopping_early_is_clean():
    volume = np.ones((256, 64, 64), np.uint16)
    volume[::3, ::3, ::3] = 0
    stream = rc.mesh_chunks(volume, workers=2)
    first = next(stream)
    stream.close()
    assert first[0] == (0, 0, 0)


def test_sparse_chunks_keep_their_keys():
    block = np.zeros((32, 32, 32), np.uint16)
    block[3:5, 3:5, 3:5] = 7
    assert [c for c, _ in rc.mesh_chunks({(5, -1, 2): block, (9, 9, 9): block})] == [(5, -1, 2), (9, 9, 9)]
