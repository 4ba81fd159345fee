"""Sample data: deterministic, and each scenario has the shape it promises."""
import numpy as np
import pytest

from reticulate_core import scenario_chunk
from reticulate_core.samples import (SCENARIOS, noise_grid, sphere_shell_grid,
                                     terrain_grid)


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenarios_are_deterministic_uint16_chunks(name):
    chunk = scenario_chunk(name, seed=5)
    assert chunk.dtype == np.uint16 and chunk.shape == (32, 32, 32)
    np.testing.assert_array_equal(chunk, scenario_chunk(name, seed=5))


def test_seeds_change_only_the_random_scenarios():
    for name in ("terrain", "noise", "multi_terrain"):
        assert (scenario_chunk(name, seed=1) != scenario_chunk(name, seed=2)).any()
    for name in ("empty", "full", "sphere", "checkerboard"):
        np.testing.assert_array_equal(scenario_chunk(name, seed=1), scenario_chunk(name, seed=2))


def test_fixed_scenarios():
    assert not scenario_chunk("empty").any()
    assert (scenario_chunk("full") == 1).all()
    x, y, z = np.indices((32, 32, 32))
    np.testing.assert_array_equal(scenario_chunk("checkerboard"), (x + y + z) % 2 + 1)
    sphere = scenario_chunk("sphere")
    distance = np.sqrt((x + 0.5 - 16) ** 2 + (y + 0.5 - 16) ** 2 + (z + 0.5 - 16) ** 2)
    assert sphere[distance <= 13.5].all() and not sphere[distance > 14.5].any()
    assert abs(np.count_nonzero(sphere) - 4 / 3 * np.pi * 14 ** 3) < 0.02 * 11494


def column_heights(solid):
    """Heights of columns that are solid exactly below some z (else -1)."""
    heights = solid.sum(axis=2)
    prefix = np.arange(solid.shape[2])[None, None, :] < heights[:, :, None]
    return np.where((solid == prefix).all(axis=2), heights, -1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_terrain_is_a_smooth_heightmap(seed):
    terrain = scenario_chunk("terrain", seed)
    assert set(np.unique(terrain)) <= {0, 1}
    heights = column_heights(terrain > 0)
    assert (heights >= 0).all()
    assert 0.2 * 32 <= heights.min() < heights.max() <= 0.8 * 32
    # smooth: neighbouring columns differ by a few voxels at most
    assert np.abs(np.diff(heights, axis=0)).max() <= 4
    assert np.abs(np.diff(heights, axis=1)).max() <= 4


def test_multi_terrain_is_terrain_in_four_bands():
    terrain = scenario_chunk("terrain", seed=3)
    multi = scenario_chunk("multi_terrain", seed=3)
    np.testing.assert_array_equal(multi > 0, terrain > 0)
    z = np.broadcast_to(np.arange(32), multi.shape)
    np.testing.assert_array_equal(multi[multi > 0], 1 + z[multi > 0] // 8)
    assert set(np.unique(multi)) == {0, 1, 2, 3, 4}


def test_noise_is_half_full():
    noise = scenario_chunk("noise")
    assert set(np.unique(noise)) == {0, 1}
    assert abs(np.count_nonzero(noise) / 32768 - 0.5) < 0.02


def test_grids_of_any_shape():
    terrain = terrain_grid((70, 40, 50), materials=3, seed=1)
    assert terrain.shape == (70, 40, 50) and terrain.dtype == np.uint16
    assert set(np.unique(terrain)) <= {0, 1, 2, 3}
    assert (column_heights(terrain > 0) >= 0).all()
    np.testing.assert_array_equal(terrain, terrain_grid((70, 40, 50), materials=3, seed=1))
    shell = sphere_shell_grid((40, 40, 40), thickness=3)
    assert shell.dtype == np.uint16 and shell[20, 20, 20] == 0 and shell[20, 20, 1] == 1
    assert shell[0, 0, 0] == 0
    noise = noise_grid((64, 32, 16), density=0.25, seed=4)
    assert noise.shape == (64, 32, 16)
    assert abs(np.count_nonzero(noise) / noise.size - 0.25) < 0.02
    np.testing.assert_array_equal(noise, noise_grid((64, 32, 16), 0.25, seed=4))


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown scenario 'lava'"):
        scenario_chunk("lava")
    with pytest.raises(ValueError, match="three positive sizes"):
        terrain_grid((32, 32))
    with pytest.raises(ValueError, match="materials must be in 1..65535"):
        terrain_grid((8, 8, 8), materials=0)
    with pytest.raises(ValueError, match="thickness must be positive"):
        sphere_shell_grid((8, 8, 8), 0)
    with pytest.raises(ValueError, match=r"density must be in \[0, 1\]"):
        noise_grid((8, 8, 8), 1.5)
