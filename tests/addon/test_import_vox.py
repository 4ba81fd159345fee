"""reticulate.import_vox on every sample file, checked against the core's own meshes."""
import bpy
import numpy as np
import pytest
import reticulate_core as rc
from conftest import (SAMPLES, assert_even_edges, assert_materials_match, assert_watertight, data_pointers,
                      mesh_arrays, sample)

SAMPLE_NAMES = sorted(p.name for p in SAMPLES.glob("*.vox"))
VOXEL = 0.25


def world_corners(model, positions):
    """Where the importer must put core voxel-corner positions of ``model``."""
    t = np.asarray(model.transform, dtype=np.float64)
    return VOXEL * (positions @ t[:3, :3].T + t[:3, 3])


def test_every_sample_is_found():
    assert len(SAMPLE_NAMES) >= 7


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_one_object_per_model_matches_core(name):
    path = sample(name)
    scene = rc.io.read_vox(path)
    before = data_pointers()
    assert bpy.ops.reticulate.import_vox(filepath=str(path), voxel_size=VOXEL, center_origins=True) == {'FINISHED'}
    # undo cannot run headless (BLENDER_NOTES §4): instead every datablock it made is new
    # and nothing that existed was touched -> one undo step restores the file
    after = data_pointers()
    assert all(before[kind] <= after[kind] for kind in before)
    objects = [ob for ob in bpy.context.scene.objects if ob.type == 'MESH']
    models = [m for m in scene.models if m.voxels.any()]
    assert len(objects) == len(models)
    stem = path.stem
    expected_names = sorted(m.name or f"{stem}_{m.model_id}" for m in models)
    assert sorted(ob.name.split(".")[0] for ob in objects) == expected_names
    cores = {}
    total = 0
    assert sorted(ob["reticulate_model"] for ob in objects) == [i for i, m in enumerate(scene.models) if m.voxels.any()]
    for ob in objects:
        model = scene.models[ob["reticulate_model"]]
        core = cores.setdefault(model.model_id, rc.mesh_grid(model.voxels))
        world, tris, _, _ = mesh_arrays(ob)
        assert len(tris) == core.n_triangles
        assert np.array_equal(tris, core.triangles)
        assert np.allclose(world, world_corners(model, core.positions.astype(np.float64)), atol=1e-4)
        assert_materials_match(ob, core.materials)
        assert_watertight(tris)
        assert_even_edges(ob.data)
        assert ob.hide_render == model.hidden
        total += core.n_triangles
    result = bpy.context.scene.reticulate
    assert result.last_triangles == total
    assert result.last_objects == len(models)
    assert result.last_materials == len(np.unique(np.concatenate([c.materials for c in cores.values()])))
    assert result.last_seconds > 0


def test_instances_share_one_mesh_datablock():
    path = sample("rt_scenegraph.vox")
    scene = rc.io.read_vox(path)
    counts = np.bincount([m.model_id for m in scene.models])
    assert counts.max() >= 2, "rt_scenegraph uses model 0 twice"
    bpy.ops.reticulate.import_vox(filepath=str(path))
    objects = [ob for ob in bpy.data.objects if ob.type == 'MESH']
    assert len(objects) == len(scene.models)
    assert len({ob.data.name for ob in objects}) == len(counts)
    assert len(bpy.data.meshes) == len(counts)
    shared = [ob for ob in objects if ob.data.users >= 2]
    assert len(shared) == counts.max()
    assert shared[0].matrix_world != shared[1].matrix_world


def test_matl_glass_and_emit_map_onto_principled():
    path = sample("rt_scenegraph.vox")
    scene = rc.io.read_vox(path)
    bpy.ops.reticulate.import_vox(filepath=str(path))
    kinds = {index: props.get("type") for index, props in scene.materials.items()}
    checked = 0
    for material in bpy.data.materials:
        material_id = int(material.name.split("_")[1].split(".")[0])
        bsdf = material.node_tree.nodes["Principled BSDF"]
        kind = kinds.get(material_id, "diffuse")
        if kind == "glass":
            assert bsdf.inputs["Transmission Weight"].default_value > 0
            checked += 1
        elif kind == "emit":
            assert bsdf.inputs["Emission Strength"].default_value > 0
            checked += 1
        else:
            assert bsdf.inputs["Transmission Weight"].default_value == 0
        rgba = scene.palette[material_id] / 255.0
        assert material.diffuse_color[3] == pytest.approx(rgba[3], abs=1e-6)
    assert checked >= 2


def test_palette_colours_are_the_files():
    path = sample("rt_palette255.vox")
    scene = rc.io.read_vox(path)
    bpy.ops.reticulate.import_vox(filepath=str(path))
    assert len(bpy.data.materials) == 255
    for material in bpy.data.materials:
        material_id = int(material.name.split("_")[1])
        srgb = scene.palette[material_id, :3] / 255.0
        linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
        assert np.allclose(material.diffuse_color[:3], linear, atol=1e-5)


def test_joined_into_one_object():
    path = sample("rt_scenegraph.vox")
    scene = rc.io.read_vox(path)
    bpy.ops.reticulate.import_vox(filepath=str(path), voxel_size=VOXEL, output_mode='OBJECT')
    objects = [ob for ob in bpy.data.objects if ob.type == 'MESH']
    assert [ob.name for ob in objects] == ["rt_scenegraph"]
    cores = [rc.mesh_grid(m.voxels) for m in scene.models]
    world, tris, _, raw = mesh_arrays(objects[0])
    assert len(tris) == sum(c.n_triangles for c in cores)
    expected = np.concatenate([world_corners(m, c.positions.astype(np.float64)) for m, c in zip(scene.models, cores)])
    assert np.allclose(world, expected, atol=1e-4)
    assert np.array_equal(raw, np.concatenate([c.materials for c in cores]))
    assert_watertight(tris)


def test_one_object_per_chunk_covers_the_model():
    path = sample("rt_palette255.vox")
    model = rc.io.read_vox(path).models[0]
    core = rc.mesh_grid(model.voxels)
    bpy.ops.reticulate.import_vox(filepath=str(path), voxel_size=VOXEL, output_mode='CHUNK',
                                  center_origins=False)
    objects = [ob for ob in bpy.data.objects if ob.type == 'MESH']
    assert len(objects) == 4   # 64 x 64 x 12 -> 2 x 2 x 1 chunks
    assert sum(len(ob.data.polygons) for ob in objects) == core.n_triangles
    tri_world = np.concatenate([mesh_arrays(ob)[0][mesh_arrays(ob)[1]] for ob in objects])
    want = world_corners(model, core.positions.astype(np.float64))[core.triangles]
    key = lambda t: np.lexsort(np.round(t.reshape(len(t), -1), 4).T)   # noqa: E731
    assert np.allclose(tri_world[key(tri_world)], want[key(want)], atol=1e-4)
    all_raw = np.concatenate([mesh_arrays(ob)[3] for ob in objects])
    assert np.array_equal(np.sort(all_raw), np.sort(core.materials.astype(np.int32)))


def test_colour_attribute_material_mode():
    path = sample("rt_torture.vox")
    bpy.ops.reticulate.import_vox(filepath=str(path), material_mode='ATTRIBUTE')
    (ob,) = [ob for ob in bpy.data.objects if ob.type == 'MESH']
    assert [s.material.name for s in ob.material_slots] == ["retic_palette"]
    assert "reticulate_color" in ob.data.color_attributes
    _, _, slot, raw = mesh_arrays(ob)
    assert not slot.any()
    assert len(np.unique(raw)) == 9
    colors = np.empty(4 * len(ob.data.loops), np.float32)
    ob.data.color_attributes["reticulate_color"].data.foreach_get("color", colors)
    srgb = rc.io.read_vox(path).palette[np.repeat(raw, 3), :3] / 255.0
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    assert np.allclose(colors.reshape(-1, 4)[:, :3], linear, atol=1e-5)


def test_hierarchy_empty_and_reused_materials():
    path = sample("hierarchy.vox")
    bpy.ops.reticulate.import_vox(filepath=str(path), hierarchy_empties=True)
    first = {m.name for m in bpy.data.materials}
    (root,) = [ob for ob in bpy.data.objects if ob.type == 'EMPTY']
    assert root.name == "hierarchy"
    assert all(ob.parent == root for ob in bpy.data.objects if ob.type == 'MESH')
    bpy.ops.reticulate.import_vox(filepath=str(path), reuse_materials=True)
    assert {m.name for m in bpy.data.materials} == first
    bpy.ops.reticulate.import_vox(filepath=str(path), reuse_materials=False)
    assert len(bpy.data.materials) == 2 * len(first)


def test_links_into_active_collection_or_scene_collection():
    child = bpy.data.collections.new("child")
    bpy.context.scene.collection.children.link(child)
    layer = bpy.context.view_layer.layer_collection.children["child"]
    bpy.context.view_layer.active_layer_collection = layer
    bpy.ops.reticulate.import_vox(filepath=str(sample("signpost.vox")))
    assert len(child.objects) == 1
    bpy.ops.reticulate.import_vox(filepath=str(sample("signpost.vox")), link_to_active=False)
    assert len(child.objects) == 1 and len(bpy.context.scene.collection.objects) == 1


@pytest.fixture
def hidden_last(tmp_path):
    """A .vox file of a visible model and, placed after it, a hidden one."""
    visible = np.zeros((4, 4, 4), np.uint8)
    visible[:2, :2, :2] = 3
    hidden = np.zeros((3, 3, 3), np.uint8)
    hidden[1:, 1:, 1:] = 5
    path = tmp_path / "hidden.vox"
    shifted = np.eye(4)
    shifted[0, 3] = 10
    rc.io.write_vox(path, [rc.io.VoxModel(visible, np.eye(4), name="vis"),
                           rc.io.VoxModel(hidden, shifted, model_id=1, name="hid", hidden=True)])
    return path


def test_hidden_model_is_a_hidden_object_and_not_active(hidden_last):
    assert bpy.ops.reticulate.import_vox(filepath=str(hidden_last)) == {'FINISHED'}
    vis, hid = bpy.data.objects["vis"], bpy.data.objects["hid"]
    assert hid.hide_viewport and hid.hide_render and not vis.hide_viewport
    assert bpy.context.view_layer.objects.active is vis and vis.select_get()
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.reticulate.import_vox(filepath=str(hidden_last), include_hidden=False)
    assert [ob.name for ob in bpy.data.objects] == ["vis"]


def test_joined_object_leaves_hidden_models_out(hidden_last):
    assert bpy.ops.reticulate.import_vox(filepath=str(hidden_last), output_mode='OBJECT') == {'FINISHED'}
    (ob,) = bpy.data.objects
    _, tris, _, raw = mesh_arrays(ob)
    assert len(tris) == 12 and set(raw) == {3}
    assert [s.material.name for s in ob.material_slots] == ["retic_3"]


def test_only_hidden_models_joined_is_a_clean_failure(tmp_path):
    path = tmp_path / "all_hidden.vox"
    rc.io.write_vox(path, [rc.io.VoxModel(np.ones((2, 2, 2), np.uint8), np.eye(4), hidden=True)])
    with pytest.raises(RuntimeError, match="no visible models"):
        bpy.ops.reticulate.import_vox(filepath=str(path), output_mode='OBJECT')
    assert len(bpy.data.objects) == 0 and len(bpy.data.materials) == 0
