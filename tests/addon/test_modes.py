"""Operators started in Edit Mode leave it first, and go back to it when they fail."""
import bmesh
import bpy
import numpy as np
import pytest
from conftest import data_snapshot, mesh_arrays, sample


@pytest.fixture
def cube_in_edit_mode():
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    bpy.ops.object.mode_set(mode='EDIT')
    assert cube.mode == 'EDIT'
    return cube


def test_import_from_edit_mode_ends_in_object_mode(cube_in_edit_mode):
    assert bpy.ops.reticulate.import_vox(filepath=str(sample("signpost.vox"))) == {'FINISHED'}
    assert cube_in_edit_mode.mode == 'OBJECT'
    assert bpy.context.mode == 'OBJECT'
    active = bpy.context.view_layer.objects.active
    assert active is not cube_in_edit_mode and active.type == 'MESH' and active.select_get()


def test_remesh_from_edit_mode_sees_the_edits(cube_in_edit_mode):
    edit = bmesh.from_edit_mesh(cube_in_edit_mode.data)
    bmesh.ops.translate(edit, verts=edit.verts, vec=(5.0, 0.0, 0.0))
    bmesh.update_edit_mesh(cube_in_edit_mode.data)
    assert bpy.ops.reticulate.voxel_remesh(voxel_size=0.25) == {'FINISHED'}
    assert cube_in_edit_mode.mode == 'OBJECT'
    result = bpy.data.objects["Cube_remesh"]
    world, tris, _, _ = mesh_arrays(result)
    assert len(tris) == 12
    assert np.allclose(world.min(axis=0), (4, -1, -1)) and np.allclose(world.max(axis=0), (6, 1, 1))


def test_failure_in_edit_mode_goes_back_to_it(cube_in_edit_mode, tmp_path):
    before = data_snapshot()
    with pytest.raises(RuntimeError, match="missing.vox"):
        bpy.ops.reticulate.import_vox(filepath=str(tmp_path / "missing.vox"))
    assert cube_in_edit_mode.mode == 'EDIT'
    assert bpy.context.view_layer.objects.active is cube_in_edit_mode
    assert data_snapshot() == before
