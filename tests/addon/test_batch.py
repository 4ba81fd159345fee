"""scripts/batch_mesh.py as users run it: a subprocess of the venv's python with the bpy module."""
import os
import subprocess
import sys

import bpy
import numpy as np
import pytest
import reticulate_core as rc
from conftest import REPO, sample


def run_batch(tmp_path, *args):
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path / "user"))
    return subprocess.run([sys.executable, str(REPO / "scripts" / "batch_mesh.py"), *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300)


def summary_rows(stdout):
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("input "))
    return [line.split() for line in lines[start + 1:] if line and not line.endswith("failed")]


def test_blend_outputs_and_summary(tmp_path):
    inputs = [sample("rt_torture.vox"), sample("hierarchy.vox")]
    done = run_batch(tmp_path, *inputs, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    rows = summary_rows(done.stdout)
    assert [row[1] for row in rows] == ["ok", "ok"]
    assert "2 succeeded, 0 failed" in done.stdout
    for path in inputs:
        target = tmp_path / "out" / f"{path.stem}.blend"
        assert target.is_file()
    # the saved file holds the meshed objects of that input only
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "out" / "hierarchy.blend"))
    meshes = [ob for ob in bpy.data.objects if ob.type == 'MESH']
    assert len(meshes) == 4 and all(ob.name.startswith("hierarchy") for ob in meshes)
    assert int(rows[1][2]) == sum(len(ob.data.polygons) for ob in meshes)
    bpy.ops.wm.read_homefile(use_empty=True)


@pytest.mark.parametrize("fmt", ["obj", "glb"])
def test_other_formats_and_a_failing_input(tmp_path, fmt):
    bad = tmp_path / "broken.vox"
    bad.write_bytes(b"VOX \x96\x00\x00\x00MAIN")
    done = run_batch(tmp_path, bad, sample("signpost.vox"), "--out", tmp_path / "out", "--format", fmt)
    assert done.returncode == 1
    rows = summary_rows(done.stdout)
    assert [row[1] for row in rows] == ["FAILED", "ok"]
    assert "broken.vox" in done.stderr
    assert (tmp_path / "out" / f"signpost.{fmt}").stat().st_size > 1000
    assert not (tmp_path / "out" / f"broken.{fmt}").exists()
    if fmt == "obj":
        text = (tmp_path / "out" / "signpost.obj").read_text()
        assert text.count("\nf ") == int(rows[1][2])


def test_usage_errors(tmp_path):
    done = run_batch(tmp_path, sample("signpost.vox"))
    assert done.returncode == 2 and "--out" in done.stderr
    done = run_batch(tmp_path, tmp_path / "missing.npy", "--out", tmp_path / "out")
    assert done.returncode == 1 and "no such file" in done.stderr


def test_numpy_and_vdb_inputs(tmp_path):
    grid = np.zeros((10, 8, 6), np.int32)
    grid[2:7, 1:5, 1:4] = 3
    np.save(tmp_path / "ids.npy", grid.astype(np.uint16))
    openvdb = rc.io.find_openvdb()
    vdb_grid = openvdb.Int32Grid()
    vdb_grid.copyFromArray(grid)
    vdb_grid.name = "ids"
    openvdb.write(str(tmp_path / "ids_volume.vdb"), grids=[vdb_grid])
    done = run_batch(tmp_path, tmp_path / "ids.npy", tmp_path / "ids_volume.vdb", "--out", tmp_path / "out",
                     "--format", "obj")
    assert done.returncode == 0, done.stderr
    rows = summary_rows(done.stdout)
    assert [row[1] for row in rows] == ["ok", "ok"]
    assert int(rows[0][2]) == int(rows[1][2]) == 12   # one box each
    assert (tmp_path / "out" / "ids.obj").is_file() and (tmp_path / "out" / "ids_volume.obj").is_file()


def test_axis_order_of_numpy_inputs(tmp_path):
    grid = np.zeros((6, 4, 3), np.uint16)
    grid[1:5, 1:3, 0:2] = 4
    np.save(tmp_path / "stack.npy", grid.transpose(2, 1, 0))      # stored [z, y, x]
    done = run_batch(tmp_path, tmp_path / "stack.npy", "--out", tmp_path / "out", "--format", "obj",
                     "--voxel-size", "1", "--axis-order", "zyx")
    assert done.returncode == 0, done.stderr
    vertices = np.array([line.split()[1:] for line in (tmp_path / "out" / "stack.obj").read_text().splitlines()
                         if line.startswith("v ")], float)
    # the OBJ exporter writes Blender's z up as y up: (x, y, z) -> (x, z, -y)
    assert np.allclose(np.ptp(vertices, axis=0), (4, 2, 2))


def test_inputs_sharing_a_stem_get_their_suffix(tmp_path):
    grid = np.zeros((6, 5, 4), np.uint16)
    grid[1:4, 1:3, 1:3] = 2
    np.save(tmp_path / "two.npy", grid)
    np.savez(tmp_path / "TWO.npz", ids=grid[:3])
    done = run_batch(tmp_path, tmp_path / "two.npy", tmp_path / "TWO.npz", sample("signpost.vox"),
                     "--out", tmp_path / "out", "--format", "obj")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").glob("*.obj")) == ["TWO_npz.obj", "signpost.obj", "two_npy.obj"]
    assert [int(row[2]) for row in summary_rows(done.stdout)][:2] == [12, 12]


def test_inputs_that_would_write_one_file_are_refused_before_any_work(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "same.vox").write_bytes(sample("signpost.vox").read_bytes())
    done = run_batch(tmp_path, tmp_path / "a" / "same.vox", tmp_path / "b" / "same.vox", "--out", tmp_path / "out")
    assert done.returncode == 2
    assert "would both be written to" in done.stderr and "same_vox.blend" in done.stderr
    assert not (tmp_path / "out").exists()
