"""mesh_build on hand-written meshes (one unit voxel: 8 corners, 12 triangles)."""
import bpy
import numpy as np
import reticulate_core as rc
from conftest import assert_watertight, mesh_arrays

CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.float32)
# counter-clockwise seen from outside; corner index = 4x + 2y + z
VOXEL_TRIANGLES = np.array([
    (0, 1, 3), (0, 3, 2),   # x = 0, normal -x
    (4, 6, 7), (4, 7, 5),   # x = 1, normal +x
    (0, 4, 5), (0, 5, 1),   # y = 0, normal -y
    (2, 3, 7), (2, 7, 6),   # y = 1, normal +y
    (0, 2, 6), (0, 6, 4),   # z = 0, normal -z
    (1, 5, 7), (1, 7, 3),   # z = 1, normal +z
], dtype=np.int32)
FACES = np.repeat(np.arange(6, dtype=np.uint8), 2)   # 2 * axis + (normal points to +axis)


def voxel_mesh(offset=(0, 0, 0), materials=None):
    mats = np.full(12, 3, np.uint16) if materials is None else np.asarray(materials, np.uint16)
    return rc.Mesh(CORNERS + np.asarray(offset, np.float32), VOXEL_TRIANGLES, mats, FACES)


def outward(positions, triangles):
    """True per triangle when its right-hand normal points away from the shell's centre."""
    p = positions[triangles]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    return np.einsum("ij,ij->i", normal, p.mean(axis=1) - positions.mean(axis=0)) > 0


def test_hand_voxel_is_outward_and_faces_match_normals():
    assert outward(CORNERS, VOXEL_TRIANGLES).all()
    p = CORNERS[VOXEL_TRIANGLES]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    axis = np.abs(normal).argmax(axis=1)
    assert np.array_equal(FACES, 2 * axis + (normal[np.arange(12), axis] > 0))


def test_build_mesh_slots_attributes_and_flat_shading(addon):
    ids = [9, 9, 2, 2, 5, 5, 5, 5, 2, 2, 9, 9]
    piece = addon.mesh_build.Piece.from_core(voxel_mesh(materials=ids))
    slot_ids = addon.mesh_build.distinct_ids(piece)
    assert slot_ids.tolist() == [2, 5, 9]
    mats = addon.materials.materials_for_ids(slot_ids)
    me = addon.mesh_build.build_mesh("voxel", piece, slot_ids, mats)
    ob = bpy.data.objects.new("voxel", me)
    world, tris, slot, raw = mesh_arrays(ob)
    assert np.array_equal(world, CORNERS) and np.array_equal(tris, VOXEL_TRIANGLES)
    assert raw.tolist() == ids
    assert [m.name for m in me.materials] == ["retic_2", "retic_5", "retic_9"]
    assert slot_ids[slot].tolist() == ids
    assert not any(p.use_smooth for p in me.polygons)
    assert len(me.edges) == 18
    assert_watertight(tris)
    assert me.validate() is False   # nothing to fix


def test_build_mesh_rejects_ids_without_slot(addon):
    piece = addon.mesh_build.Piece.from_core(voxel_mesh())
    before = len(bpy.data.meshes)
    try:
        addon.mesh_build.build_mesh("bad", piece, np.array([4], np.uint16), [])
    except ValueError as error:
        assert "material" in str(error)
    else:
        raise AssertionError("ids without slots must be rejected")
    assert len(bpy.data.meshes) == before


def test_colour_attribute_mode(addon):
    piece = addon.mesh_build.Piece.from_core(voxel_mesh(materials=[1] * 6 + [2] * 6))
    colors = np.array([[1, 0, 0, 1], [0, 0, 1, 1]], np.float32)
    shared = addon.materials.color_attribute_material()
    me = addon.mesh_build.build_mesh("c", piece, np.array([1, 2], np.uint16), [shared], colors=colors)
    attribute = me.color_attributes["reticulate_color"]
    assert attribute.domain == 'CORNER'
    values = np.empty(4 * len(me.loops), np.float32)
    attribute.data.foreach_get("color", values)
    values = values.reshape(-1, 3, 4)
    assert np.array_equal(values[:6], np.broadcast_to(colors[0], (6, 3, 4)))
    assert np.array_equal(values[6:], np.broadcast_to(colors[1], (6, 3, 4)))
    assert [m.name for m in me.materials] == ["retic_palette"]
    nodes = shared.node_tree.nodes
    assert any(n.type == 'ATTRIBUTE' and n.attribute_name == "reticulate_color" for n in nodes)


def test_split_by_chunk_keeps_every_triangle_in_its_chunk(addon):
    far = voxel_mesh(offset=(40, 3, 70))
    both = rc.Mesh(np.concatenate([CORNERS, far.positions]),
                   np.concatenate([VOXEL_TRIANGLES, VOXEL_TRIANGLES + 8]),
                   np.concatenate([np.full(12, 1, np.uint16), np.full(12, 4, np.uint16)]),
                   np.concatenate([FACES, FACES]))
    pieces = addon.mesh_build.split_by_chunk(both)
    assert [key for key, _ in pieces] == [(0, 0, 0), (1, 0, 2)]
    (_, first), (_, second) = pieces
    assert np.array_equal(first.positions, CORNERS) and first.materials.tolist() == [1] * 12
    assert np.array_equal(second.positions, CORNERS + [8, 3, 6]) and second.materials.tolist() == [4] * 12
    assert np.array_equal(second.triangles, VOXEL_TRIANGLES)


def test_join_flips_winding_under_mirroring(addon):
    piece = addon.mesh_build.Piece.from_core(voxel_mesh())
    mirror = np.diag([-2.0, 1.0, 1.0, 1.0])
    shift = np.eye(4)
    shift[:3, 3] = [5, 0, 0]
    joined = addon.mesh_build.join([(piece, mirror), (piece, shift)])
    assert joined.n_triangles == 24
    assert outward(joined.positions[:8], joined.triangles[:12]).all()
    assert outward(joined.positions[8:], joined.triangles[12:] - 8).all()
    assert np.allclose(joined.positions[:8], CORNERS * [-2, 1, 1])


def test_build_mesh_rejects_indices_outside_the_positions(addon):
    """Blender accepts any corner vertex index and crashes later (on redraw or
    bmesh.from_mesh): build_mesh refuses such a piece and leaves no datablock."""
    good = addon.mesh_build.Piece.from_core(voxel_mesh())
    before = len(bpy.data.meshes)
    for bad_index in (8, -1):
        triangles = good.triangles.copy()
        triangles[5, 2] = bad_index
        piece = good._replace(triangles=triangles)
        try:
            addon.mesh_build.build_mesh("bad", piece, np.array([3], np.uint16), [None])
        except ValueError as error:
            assert "outside its 8 positions" in str(error)
        else:
            raise AssertionError(f"vertex index {bad_index} must be rejected")
        assert len(bpy.data.meshes) == before
