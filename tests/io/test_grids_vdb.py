"""load_grid on .vdb files written with the openvdb module that bpy bundles."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reticulate_core.io import OpenVDBUnavailable, find_openvdb, load_grid, load_grid_with_info
from reticulate_core.io import vdb as vdb_module

CORE = Path(__file__).resolve().parents[2] / "core"


@pytest.fixture(scope="module")
def openvdb():
    try:
        return find_openvdb()
    except OpenVDBUnavailable as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def vdb_file(openvdb, tmp_path_factory):
    density = np.zeros((6, 5, 4), np.float32)
    density[1, 1, 1], density[4, 3, 2], density[2, 2, 2] = 0.9, 0.7, 0.2
    fog = openvdb.FloatGrid()
    fog.copyFromArray(density, ijk=(-3, 10, 7))
    fog.name = "density"
    fog.transform = openvdb.createLinearTransform(voxelSize=0.25)
    ids = np.zeros((3, 3, 3), np.int32)
    ids[0, 0, 0], ids[2, 1, 0] = 5, 40000
    labels = openvdb.Int32Grid()
    labels.copyFromArray(ids, ijk=(0, 0, 0))
    labels.name = "labels"
    path = tmp_path_factory.mktemp("vdb") / "two.vdb"
    openvdb.write(str(path), grids=[fog, labels])
    return path


def test_float_grid_by_threshold(vdb_file):
    info = load_grid_with_info(vdb_file, threshold=0.5)
    assert info.grid_name == "density"
    # active box of density: from index (-3+1, 10+1, 7+1) to (-3+4, 10+3, 7+2)
    assert np.array_equal(info.index_origin, [-2, 11, 8])
    assert info.voxels.shape == (4, 3, 2) and info.voxels.dtype == np.uint16
    assert sorted(map(tuple, np.argwhere(info.voxels))) == [(0, 0, 0), (3, 2, 1)]
    assert np.allclose(info.voxel_size, 0.25)


@pytest.mark.parametrize("threshold", [None, 0.5])
def test_level_set_is_solid_inside_its_surface(openvdb, tmp_path, threshold):
    sphere = openvdb.createLevelSetSphere(radius=5.0, center=(1.0, 0.0, -2.0), voxelSize=0.5, halfWidth=3.0)
    sphere.name = "surface"
    path = tmp_path / "sphere.vdb"
    openvdb.write(str(path), grids=[sphere])
    info = load_grid_with_info(path, threshold=threshold)
    centres = (np.indices(info.voxels.shape).reshape(3, -1).T + 0.5) @ info.transform[:3, :3].T + info.transform[:3, 3]
    inside = np.linalg.norm(centres - [1.0, 0.0, -2.0], axis=1) < 5.0
    assert inside.sum() > 3000
    assert np.array_equal(info.voxels.reshape(-1) == 1, inside)
    assert set(np.unique(info.voxels)) == {0, 1}


def test_float_grid_transform_puts_voxel_centres_on_vdb_indices(vdb_file, openvdb):
    info = load_grid_with_info(vdb_file, threshold=0.1)
    grid = openvdb.read(str(vdb_file), "density")
    for voxel in [(0, 0, 0), (3, 2, 1), (1, 1, 1)]:
        centre = info.transform @ np.append(np.array(voxel) + 0.5, 1)
        expected = grid.transform.indexToWorld(tuple(int(v) for v in info.index_origin + voxel))
        assert np.allclose(centre[:3], expected)


def test_float_grid_needs_threshold(vdb_file):
    with pytest.raises(ValueError, match="threshold"):
        load_grid(vdb_file)


def test_int_grid_by_name_gives_ids(vdb_file):
    grid = load_grid(vdb_file, grid="labels")
    assert grid.dtype == np.uint16
    assert grid.shape == (3, 2, 1)
    assert grid[0, 0, 0] == 5 and grid[2, 1, 0] == 40000 and np.count_nonzero(grid) == 2


def test_missing_grid_name(vdb_file):
    with pytest.raises(ValueError, match=r"no grid named 'nope'.*\['density', 'labels'\]"):
        load_grid(vdb_file, grid="nope")


def test_vdb_size_limit(vdb_file):
    with pytest.raises(ValueError, match="above the limit of 5"):
        load_grid(vdb_file, threshold=0.5, max_voxels=5)


def test_vdb_axis_order_must_be_xyz(vdb_file):
    with pytest.raises(ValueError, match="axis_order must be 'xyz'"):
        load_grid(vdb_file, threshold=0.5, axis_order="zyx")


def test_not_a_vdb(tmp_path, openvdb):
    path = tmp_path / "fake.vdb"
    path.write_bytes(b"not an openvdb file at all")
    with pytest.raises(ValueError, match="not a readable OpenVDB file"):
        load_grid(path, threshold=0.5)


def test_clear_error_when_openvdb_cannot_be_found(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "openvdb", None)  # makes `import openvdb` fail
    monkeypatch.setattr(vdb_module, "bundled_site_packages", lambda: [tmp_path])
    with pytest.raises(OpenVDBUnavailable, match="needs the 'openvdb' Python module") as caught:
        load_grid(tmp_path / "any.vdb", threshold=0.5)
    assert isinstance(caught.value, ImportError)
    assert "bpy" in str(caught.value) and str(tmp_path) in str(caught.value)


def test_finder_uses_the_bpy_bundle_in_a_fresh_interpreter(openvdb):
    """A plain interpreter cannot `import openvdb`; find_openvdb gets it from bpy's folder."""
    script = ("import importlib.util, sys\n"
              "assert importlib.util.find_spec('openvdb') is None\n"
              "from reticulate_core.io import find_openvdb\n"
              "print(find_openvdb().__file__)\n")
    env = dict(os.environ, PYTHONPATH=str(CORE))
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "site-packages" in result.stdout and "bpy" in result.stdout


def test_file_damaged_after_its_header_is_a_value_error_naming_it(openvdb, tmp_path):
    grid = openvdb.FloatGrid()
    grid.copyFromArray(np.random.default_rng(0).random((40, 40, 40)).astype(np.float32))
    grid.name = "density"
    path = tmp_path / "whole.vdb"
    openvdb.write(str(path), grids=[grid])
    cut = tmp_path / "cut.vdb"
    cut.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
    assert [g.name for g in openvdb.readAllGridMetadata(str(cut))] == ["density"], "the header must survive the cut"
    with pytest.raises(ValueError, match="cut.vdb: grid 'density' cannot be read, the file is damaged"):
        load_grid(cut, threshold=0.5)
