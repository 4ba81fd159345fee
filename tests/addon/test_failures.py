"""Bad input -> an ERROR report (RuntimeError for Python callers) and bpy.data exactly as before.

Undo cannot be exercised headless (``ed.undo`` needs a window: BLENDER_NOTES
§4); what makes a failed run undo-safe is checked directly instead: nothing
is created, renamed or removed.
"""
import bpy
import numpy as np
import pytest
from conftest import data_snapshot, sample


@pytest.fixture
def busy_scene():
    """A scene with things in it that a failing operator must not touch."""
    bpy.ops.mesh.primitive_cube_add()
    bpy.data.materials.new("retic_1")
    bpy.ops.reticulate.import_vox(filepath=str(sample("hierarchy.vox")))
    return data_snapshot()


def expect_failure(before, operator, match, **kwargs):
    with pytest.raises(RuntimeError, match=match):
        operator(**kwargs)
    assert data_snapshot() == before


def test_truncated_vox(busy_scene, tmp_path):
    path = tmp_path / "cut.vox"
    path.write_bytes(sample("rt_scenegraph.vox").read_bytes()[:700])
    expect_failure(busy_scene, bpy.ops.reticulate.import_vox, "cut.vox", filepath=str(path))


def test_not_a_vox_file(busy_scene, tmp_path):
    path = tmp_path / "text.vox"
    path.write_text("hello, not voxels")
    expect_failure(busy_scene, bpy.ops.reticulate.import_vox, "text.vox", filepath=str(path))


def test_missing_file(busy_scene, tmp_path):
    expect_failure(busy_scene, bpy.ops.reticulate.import_vox, "nowhere", filepath=str(tmp_path / "nowhere.vox"))
    expect_failure(busy_scene, bpy.ops.reticulate.mesh_array, "nowhere", filepath=str(tmp_path / "nowhere.npy"))


def test_no_filepath(busy_scene):
    expect_failure(busy_scene, bpy.ops.reticulate.import_vox, "no .vox file")


def test_bad_npy(busy_scene, tmp_path):
    path = tmp_path / "junk.npy"
    path.write_bytes(b"\x93NUMPY garbage")
    expect_failure(busy_scene, bpy.ops.reticulate.mesh_array, "junk.npy", filepath=str(path))


def test_nan_grid(busy_scene, tmp_path):
    values = np.ones((4, 4, 4), np.float32)
    values[1, 2, 3] = np.nan
    path = tmp_path / "nan.npy"
    np.save(path, values)
    expect_failure(busy_scene, bpy.ops.reticulate.mesh_array, "NaN", filepath=str(path), threshold=0.5)


def test_wrong_shape_and_dtype(busy_scene, tmp_path):
    np.save(tmp_path / "flat.npy", np.ones((4, 4), np.uint16))
    expect_failure(busy_scene, bpy.ops.reticulate.mesh_array, "3 dimensions", filepath=str(tmp_path / "flat.npy"))
    np.save(tmp_path / "complex.npy", np.ones((2, 2, 2), np.complex64))
    expect_failure(busy_scene, bpy.ops.reticulate.mesh_array, "dtype", filepath=str(tmp_path / "complex.npy"))


def test_empty_grid(busy_scene, tmp_path):
    np.save(tmp_path / "empty.npy", np.zeros((8, 8, 8), np.uint16))
    expect_failure(busy_scene, bpy.ops.reticulate.mesh_array, "no solid voxels", filepath=str(tmp_path / "empty.npy"))


def test_wrong_object_types(busy_scene):
    cube = bpy.data.objects["Cube"]
    bpy.context.view_layer.objects.active = cube
    expect_failure(busy_scene, bpy.ops.reticulate.mesh_volume, "not a Volume")
    light = bpy.data.objects.new("lamp", bpy.data.lights.new("lamp", 'POINT'))
    bpy.context.scene.collection.objects.link(light)
    bpy.context.view_layer.objects.active = light
    before = data_snapshot()
    expect_failure(before, bpy.ops.reticulate.voxel_remesh, "not a mesh")
    bpy.context.view_layer.objects.active = None
    expect_failure(before, bpy.ops.reticulate.voxel_remesh, "no active object")
    expect_failure(before, bpy.ops.reticulate.mesh_volume, "no active object")


def test_remesh_grid_too_large(busy_scene):
    bpy.context.view_layer.objects.active = bpy.data.objects["Cube"]
    expect_failure(busy_scene, bpy.ops.reticulate.voxel_remesh, "larger voxel size", voxel_size=0.0001)


def test_failure_midway_removes_what_was_built(busy_scene, addon, monkeypatch):
    """A failure after some meshes, materials and objects exist removes all of them."""
    real = addon.operator_base.build_mesh
    calls = []

    def build_then_fail(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise ValueError("simulated failure in the third mesh")
        return real(*args, **kwargs)

    monkeypatch.setattr(addon.operator_base, "build_mesh", build_then_fail)
    expect_failure(busy_scene, bpy.ops.reticulate.import_vox, "simulated failure",
                   filepath=str(sample("rt_scenegraph.vox")))
    assert len(calls) == 3


def test_successful_run_only_adds(busy_scene):
    bpy.ops.reticulate.import_vox(filepath=str(sample("signpost.vox")))
    after = data_snapshot()
    for kind, names in busy_scene.items():
        assert set(names) <= set(after[kind])
