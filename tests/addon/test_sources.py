"""mesh_array, mesh_volume (file-backed and modifier-evaluated) and voxel_remesh on real inputs."""
import bpy
import numpy as np
import pytest
import reticulate_core as rc
from conftest import assert_materials_match, assert_watertight, mesh_arrays


def only_new_mesh_object(exclude=()):
    (ob,) = [ob for ob in bpy.context.scene.objects if ob.type == 'MESH' and ob.name not in exclude]
    return ob


def blob(seed=3, shape=(40, 33, 20), ids=(1, 2, 7)):
    """A random-ish solid with several ids and empty space around it."""
    rng = np.random.default_rng(seed)
    grid = np.zeros(shape, np.uint16)
    grid[2:-3, 4:-2, 1:-1] = rng.choice(np.array(ids, np.uint16), size=(shape[0] - 5, shape[1] - 6, shape[2] - 2))
    grid[rng.random(shape) < 0.2] = 0
    return grid


# -- numpy files --------------------------------------------------------------

def test_mesh_array_npy_ids(tmp_path):
    grid = blob()
    path = tmp_path / "blob.npy"
    np.save(path, grid)
    assert bpy.ops.reticulate.mesh_array(filepath=str(path), voxel_size=0.2) == {'FINISHED'}
    ob = only_new_mesh_object()
    assert ob.name == "blob"
    core = rc.mesh_grid(grid)
    world, tris, _, _ = mesh_arrays(ob)
    assert np.array_equal(tris, core.triangles)
    assert np.allclose(world, 0.2 * core.positions, atol=1e-5)
    assert_materials_match(ob, core.materials)
    assert_watertight(tris)


@pytest.mark.parametrize("order", ["ZYX", "YZX"])
def test_mesh_array_axis_order(tmp_path, order):
    grid = blob(shape=(12, 7, 5))
    stored = np.transpose(grid, ["xyz".index(axis) for axis in order.lower()])
    path = tmp_path / "stack.npy"
    np.save(path, stored)
    assert bpy.ops.reticulate.mesh_array(filepath=str(path), voxel_size=1.0, axis_order=order) == {'FINISHED'}
    world, tris, _, raw = mesh_arrays(only_new_mesh_object())
    core = rc.mesh_grid(grid)
    assert np.array_equal(tris, core.triangles) and np.array_equal(raw, core.materials)
    assert np.allclose(world, core.positions)


def test_mesh_array_float_npz_with_placement(tmp_path):
    rng = np.random.default_rng(5)
    values = rng.random((20, 10, 12)).astype(np.float32)
    path = tmp_path / "field.npz"
    np.savez(path, density=values, voxel_size=np.array([0.5]), origin=np.array([1.0, -2.0, 3.0]))
    bpy.ops.reticulate.mesh_array(filepath=str(path), threshold=0.7, voxel_size=2.0)
    ob = only_new_mesh_object()
    core = rc.mesh_grid((values > 0.7).astype(np.uint16))
    world, tris, _, raw = mesh_arrays(ob)
    assert len(tris) == core.n_triangles and set(raw.tolist()) == {1}
    assert np.allclose(world, 2.0 * (np.array([1.0, -2.0, 3.0]) + 0.5 * core.positions), atol=1e-5)
    assert np.allclose(ob.matrix_world.to_scale(), (1, 1, 1)), "voxel size is baked into the vertices"


def test_mesh_array_per_chunk(tmp_path):
    grid = blob(shape=(70, 40, 10))
    path = tmp_path / "wide.npy"
    np.save(path, grid)
    bpy.ops.reticulate.mesh_array(filepath=str(path), voxel_size=1.0, output_mode='CHUNK')
    objects = [ob for ob in bpy.data.objects if ob.type == 'MESH']
    assert sorted(ob.name for ob in objects) == sorted(f"wide_{x}_{y}_0" for x in range(3) for y in range(2))
    core = rc.mesh_grid(grid)
    assert sum(len(ob.data.polygons) for ob in objects) == core.n_triangles
    all_tris = np.concatenate([mesh_arrays(ob)[0][mesh_arrays(ob)[1]] for ob in objects])
    lows = all_tris.min(axis=1)
    for ob in objects:   # every chunk object's triangles lie inside its 32^3 box
        world, tris, _, _ = mesh_arrays(ob)
        origin = np.array(ob.matrix_world.translation)
        assert origin[0] % 32 == 0 and origin[1] % 32 == 0
        assert np.all(world[tris] >= origin - 1e-5) and np.all(world[tris] <= origin + 32 + 1e-5)
    assert len(lows) == core.n_triangles


# -- volumes ------------------------------------------------------------------

def write_vdb(path, array, grid_class, name, voxel_size, ijk):
    openvdb = rc.io.find_openvdb()
    grid = getattr(openvdb, grid_class)()
    grid.copyFromArray(array, ijk=ijk)
    grid.name = name
    grid.transform = openvdb.createLinearTransform(voxelSize=voxel_size)
    openvdb.write(str(path), grids=[grid])


def volume_object(path, matrix=None):
    volume = bpy.data.volumes.new("vol")
    volume.filepath = str(path)
    ob = bpy.data.objects.new("vol", volume)
    bpy.context.scene.collection.objects.link(ob)
    if matrix is not None:
        ob.matrix_world = matrix
    bpy.context.view_layer.objects.active = ob
    return ob


def test_mesh_volume_int_grid_placed_by_grid_and_object(tmp_path):
    from mathutils import Matrix
    grid = blob(shape=(12, 9, 7)).astype(np.int32)
    path = tmp_path / "ids.vdb"
    write_vdb(path, grid, "Int32Grid", "ids", 0.5, (3, 4, 5))
    matrix = Matrix.Translation((1.0, 2.0, -3.0)) @ Matrix.Rotation(0.5, 4, 'Z')
    volume_object(path, matrix)
    assert bpy.ops.reticulate.mesh_volume() == {'FINISHED'}
    ob = only_new_mesh_object()
    assert ob.name == "vol_mesh"
    # the vdb active box starts at the first non-zero voxel
    nonzero = np.argwhere(grid)
    low = nonzero.min(axis=0)
    cropped = grid[tuple(slice(a, b + 1) for a, b in zip(low, nonzero.max(axis=0)))].astype(np.uint16)
    core = rc.mesh_grid(cropped)
    world, tris, _, _ = mesh_arrays(ob)
    assert np.array_equal(tris, core.triangles)
    index_corners = core.positions + low + np.array([3, 4, 5]) - 0.5
    m = np.array(matrix)
    expected = (0.5 * index_corners) @ m[:3, :3].T + m[:3, 3]
    assert np.allclose(world, expected, atol=1e-4)
    assert_materials_match(ob, core.materials)
    assert_watertight(tris)


def sheared_parent(scale, child):
    """Parent ``child`` to a new empty scaled by ``scale``, the child turned
    about z: the child's world matrix then has shear."""
    from mathutils import Matrix
    parent = bpy.data.objects.new("parent", None)
    bpy.context.scene.collection.objects.link(parent)
    parent.scale = scale
    child.parent = parent
    child.matrix_basis = Matrix.Translation((0.5, -1.0, 2.0)) @ Matrix.Rotation(np.radians(35), 4, 'Z')
    bpy.context.view_layer.update()
    linear = np.array(child.matrix_world)[:3, :3]
    gram = linear.T @ linear
    assert abs(gram[0, 1]) > 0.1 * gram[0, 0], "the test needs a sheared world matrix"


def signed_volume(world, tris):
    """Enclosed volume, positive when the triangles wind counter-clockwise seen from outside."""
    a, b, c = (world[tris[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


@pytest.mark.parametrize("scale", [(3.0, 1.0, 1.0), (-3.0, 1.0, 0.5)])
def test_mesh_volume_under_a_sheared_parent_overlays_the_volume(tmp_path, scale):
    grid = np.zeros((9, 7, 6), np.int32)
    grid[2:7, 3:6, 1:5] = 2
    grid[2:4, 1:3, 1:3] = 5
    path = tmp_path / "ids.vdb"
    write_vdb(path, grid, "Int32Grid", "ids", 0.5, (0, 0, 0))
    ob = volume_object(path)
    sheared_parent(scale, ob)
    assert bpy.ops.reticulate.mesh_volume() == {'FINISHED'}
    world, tris, _, _ = mesh_arrays(only_new_mesh_object())
    nonzero = np.argwhere(grid)
    low = nonzero.min(axis=0)
    cropped = grid[tuple(slice(a, b + 1) for a, b in zip(low, nonzero.max(axis=0)))].astype(np.uint16)
    core = rc.mesh_grid(cropped)
    m = np.array(ob.matrix_world)
    expected = (0.5 * (core.positions + low - 0.5)) @ m[:3, :3].T + m[:3, 3]
    assert np.allclose(world, expected, atol=1e-4)
    assert_watertight(tris)
    assert signed_volume(world, tris) == pytest.approx(abs(np.linalg.det(m[:3, :3])) * 0.125 * np.count_nonzero(grid),
                                                       rel=1e-4)


def test_mesh_volume_float_grid_by_threshold_and_grid_name(tmp_path):
    openvdb = rc.io.find_openvdb()
    path = tmp_path / "two.vdb"
    a = openvdb.FloatGrid()
    a.copyFromArray(np.full((4, 4, 4), 0.9, np.float32))
    a.name = "first"
    b = openvdb.FloatGrid()
    values = np.zeros((10, 10, 10), np.float32)
    values[2:8, 2:8, 2:8] = 0.3
    values[4:6, 4:6, 4:6] = 0.8
    b.copyFromArray(values)
    b.name = "density"
    openvdb.write(str(path), grids=[a, b])
    volume_object(path)
    bpy.ops.reticulate.mesh_volume(grid_name="density", threshold=0.5)
    world, tris, _, _ = mesh_arrays(only_new_mesh_object())
    assert len(tris) == 12   # a 2x2x2 box
    # index space: voxel centres at integers, so voxels 4..5 span 3.5..5.5 whatever the active box
    assert np.allclose(world.min(axis=0), 3.5) and np.allclose(world.max(axis=0), 5.5)


def test_mesh_volume_of_a_level_set_is_the_solid_inside(tmp_path):
    openvdb = rc.io.find_openvdb()
    sphere = openvdb.createLevelSetSphere(radius=2.0, center=(0.0, 0.0, 0.0), voxelSize=0.25, halfWidth=3.0)
    path = tmp_path / "sphere.vdb"
    openvdb.write(str(path), grids=[sphere])
    volume_object(path)
    assert bpy.ops.reticulate.mesh_volume() == {'FINISHED'}
    world, tris, _, _ = mesh_arrays(only_new_mesh_object())
    assert_watertight(tris)
    # voxel centres on multiples of 0.25: the outermost inside ones at +-1.75 (+-2 is on the surface)
    assert np.allclose(world.min(axis=0), -1.875) and np.allclose(world.max(axis=0), 1.875)
    volume = float(np.einsum("ij,ij->i", world[tris[:, 0]], np.cross(world[tris[:, 1]], world[tris[:, 2]])).sum() / 6)
    assert volume == pytest.approx(4 / 3 * np.pi * 2.0 ** 3, rel=0.05)


def test_mesh_volume_whose_file_is_gone_meshes_the_loaded_grids(tmp_path):
    grid = np.zeros((6, 5, 4), np.int32)
    grid[1:4, 1:3, 1:3] = 2
    path = tmp_path / "gone.vdb"
    write_vdb(path, grid, "Int32Grid", "ids", 0.5, (0, 0, 0))
    ob = volume_object(path)
    assert ob.data.grids.load() and ob.data.grids[0].load()     # the voxels too, as a viewport draw does
    path.unlink()
    assert bpy.ops.reticulate.mesh_volume() == {'FINISHED'}
    _, tris, _, raw = mesh_arrays(only_new_mesh_object())
    assert len(tris) == 12 and set(raw) == {2}


@pytest.mark.parametrize("header_loaded", [False, True])
def test_mesh_volume_whose_file_is_gone_and_voxels_not_loaded_fails_cleanly(tmp_path, header_loaded):
    path = tmp_path / "gone.vdb"
    write_vdb(path, np.ones((2, 2, 2), np.int32), "Int32Grid", "ids", 0.5, (0, 0, 0))
    ob = volume_object(path)
    if header_loaded:
        assert ob.data.grids.load()       # the grid names only
    path.unlink()
    before = {kind: len(getattr(bpy.data, kind)) for kind in ("objects", "meshes", "materials")}
    with pytest.raises(RuntimeError, match="gone.vdb does not exist"):
        bpy.ops.reticulate.mesh_volume()
    assert {kind: len(getattr(bpy.data, kind)) for kind in before} == before
    assert ob.name in bpy.data.objects


def test_mesh_volume_from_mesh_to_volume_modifier():
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    ob = bpy.data.objects.new("m2v", bpy.data.volumes.new("m2v"))
    bpy.context.scene.collection.objects.link(ob)
    modifier = ob.modifiers.new("M2V", 'MESH_TO_VOLUME')
    modifier.object = cube
    modifier.resolution_mode = 'VOXEL_SIZE'
    modifier.voxel_size = 0.1
    bpy.context.view_layer.objects.active = ob
    assert len(ob.data.grids) == 0, "the original volume has no grids: only the evaluated one does"
    assert bpy.ops.reticulate.mesh_volume(threshold=0.5) == {'FINISHED'}
    result = only_new_mesh_object(exclude={cube.name})
    world, tris, _, _ = mesh_arrays(result)
    assert len(tris) == 12
    assert np.allclose(world.min(axis=0), -1.0, atol=0.11) and np.allclose(world.max(axis=0), 1.0, atol=0.11)
    assert_watertight(tris)


# -- voxel remesh -----------------------------------------------------------

def box(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    v = [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    f = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return v, f


def test_voxel_remesh_cube_keeps_transform():
    from mathutils import Matrix
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    cube.matrix_world = Matrix.Translation((3, 0, 1)) @ Matrix.Rotation(0.3, 4, 'X')
    assert bpy.ops.reticulate.voxel_remesh(voxel_size=0.25) == {'FINISHED'}
    ob = only_new_mesh_object(exclude={cube.name})
    assert ob.name == "Cube_remesh"
    assert len(ob.data.polygons) == 12
    assert ob.matrix_world == cube.matrix_world
    local = np.array([v.co for v in ob.data.vertices])
    assert np.allclose(local.min(axis=0), -1) and np.allclose(local.max(axis=0), 1)
    assert len(cube.data.polygons) == 6, "the source is left alone"
    assert_watertight(mesh_arrays(ob)[1])


@pytest.mark.parametrize("scale", [(3.0, 1.0, 1.0), (-3.0, 1.0, 0.5)])
def test_voxel_remesh_under_a_sheared_parent_overlays_the_source(scale):
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    sheared_parent(scale, cube)
    assert bpy.ops.reticulate.voxel_remesh(voxel_size=0.25) == {'FINISHED'}
    world, tris, _, _ = mesh_arrays(only_new_mesh_object(exclude={cube.name}))
    m = np.array(cube.matrix_world)
    local = (world - m[:3, 3]) @ np.linalg.inv(m[:3, :3]).T
    assert np.allclose(local.min(axis=0), -1, atol=1e-4) and np.allclose(local.max(axis=0), 1, atol=1e-4)
    assert len(tris) == 12
    assert_watertight(tris)
    assert signed_volume(world, tris) == pytest.approx(8 * abs(np.linalg.det(m[:3, :3])), rel=1e-4)


def test_voxel_remesh_keeps_source_materials_per_voxel():
    va, fa = box((0, 0, 0), (1, 1, 1))
    vb, fb = box((1, 0, 0), (2, 1, 1))
    me = bpy.data.meshes.new("two")
    me.from_pydata(va + vb, [], fa + [tuple(i + 8 for i in f) for f in fb])
    red, blue = bpy.data.materials.new("red"), bpy.data.materials.new("blue")
    me.materials.append(red)
    me.materials.append(blue)
    me.polygons.foreach_set("material_index", [0] * 6 + [1] * 6)
    source = bpy.data.objects.new("two", me)
    bpy.context.scene.collection.objects.link(source)
    bpy.context.view_layer.objects.active = source
    bpy.ops.reticulate.voxel_remesh(voxel_size=0.25)
    ob = only_new_mesh_object(exclude={"two"})
    expected = np.zeros((8, 4, 4), np.uint16)
    expected[:4], expected[4:] = 1, 2
    core = rc.mesh_grid(expected)
    _, tris, slot, raw = mesh_arrays(ob)
    assert len(tris) == core.n_triangles
    assert np.array_equal(np.sort(raw), np.sort(core.materials.astype(np.int32)))
    assert [s.material for s in ob.material_slots] == [red, blue]
    assert np.array_equal(slot, raw - 1)


@pytest.mark.parametrize("inside_out", [False, True])
def test_voxel_remesh_gives_each_face_its_material(inside_out):
    """A box whose six faces have six materials: every voxel takes the
    material of the nearest face, ties going -z, +z, -x, +x, -y, +y; with
    the faces' normals flipped too."""
    size = np.array([2, 1.5, 1])
    v, f = box((0, 0, 0), size)
    me = bpy.data.meshes.new("painted")
    me.from_pydata(v, [], [tuple(reversed(face)) for face in f] if inside_out else f)
    directions = [(2, -1), (2, 1), (0, -1), (0, 1), (1, -1), (1, 1)]   # (axis, sign), in tie order
    for index in range(6):
        me.materials.append(bpy.data.materials.new(f"face{index}"))
    slots = []
    for polygon in me.polygons:
        centre = np.array(polygon.center)
        axis = int(np.argmax(np.isclose(centre, 0) | np.isclose(centre, size)))
        slots.append(directions.index((axis, 1 if np.isclose(centre[axis], size[axis]) else -1)))
    me.polygons.foreach_set("material_index", slots)
    source = bpy.data.objects.new("painted", me)
    bpy.context.scene.collection.objects.link(source)
    bpy.context.view_layer.objects.active = source
    assert bpy.ops.reticulate.voxel_remesh(voxel_size=0.25) == {'FINISHED'}
    shape = (8, 6, 4)
    centre = [np.arange(n) + 0.5 for n in shape]
    distance = []
    for axis, sign in directions:
        d = centre[axis] if sign < 0 else shape[axis] - centre[axis]
        distance.append(np.broadcast_to(d.reshape([-1 if a == axis else 1 for a in range(3)]), shape))
    expected = (np.argmin(np.stack(distance), axis=0) + 1).astype(np.uint16)
    core = rc.mesh_grid(expected)
    ob = only_new_mesh_object(exclude={"painted"})
    world, tris, _, raw = mesh_arrays(ob)
    order = np.lexsort(np.round(world[tris].mean(axis=1), 4).T)
    want = np.lexsort(np.round(0.25 * core.positions[core.triangles].mean(axis=1), 4).T)
    assert len(tris) == core.n_triangles
    assert np.array_equal(raw[order], core.materials[want].astype(np.int32))


def test_voxel_remesh_colour_attribute_takes_the_source_colours():
    v, f = box((0, 0, 0), (1, 1, 1))
    me = bpy.data.meshes.new("green")
    me.from_pydata(v, [], f)
    green = bpy.data.materials.new("green")
    if green.node_tree is None:     # Blender 4.x: node trees are opt-in
        green.use_nodes = True
    green.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.1, 0.6, 0.2, 1.0)
    green.diffuse_color = (0.9, 0.1, 0.1, 1.0)          # the viewport colour; renders take the node's
    me.materials.append(green)
    source = bpy.data.objects.new("green", me)
    bpy.context.scene.collection.objects.link(source)
    bpy.context.view_layer.objects.active = source
    assert bpy.ops.reticulate.voxel_remesh(voxel_size=0.25, material_mode='ATTRIBUTE') == {'FINISHED'}
    ob = only_new_mesh_object(exclude={"green"})
    colors = np.empty(4 * len(ob.data.loops), np.float32)
    ob.data.color_attributes["reticulate_color"].data.foreach_get("color", colors)
    assert np.allclose(colors.reshape(-1, 4), (0.1, 0.6, 0.2, 1.0), atol=1e-6)


@pytest.mark.parametrize("voxel_size", [0.3, 0.17])
def test_voxel_remesh_sphere_is_watertight_and_close(voxel_size):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=1.0, segments=24, ring_count=12)
    sphere = bpy.context.active_object
    bpy.ops.reticulate.voxel_remesh(voxel_size=voxel_size)
    ob = only_new_mesh_object(exclude={sphere.name})
    world, tris, _, _ = mesh_arrays(ob)
    assert_watertight(tris)
    assert np.all(np.linalg.norm(world, axis=1) <= 1.0 + 2 * voxel_size)
    assert np.abs(world).max() >= 1.0 - 2 * voxel_size


def test_voxel_remesh_tolerates_a_hole():
    """A box without its top: parity along z alone would leave it empty, the x/y votes fill it."""
    v, f = box((0, 0, 0), (1, 1, 1))
    me = bpy.data.meshes.new("open")
    me.from_pydata(v, [], f[:5])
    source = bpy.data.objects.new("open", me)
    bpy.context.scene.collection.objects.link(source)
    bpy.context.view_layer.objects.active = source
    bpy.ops.reticulate.voxel_remesh(voxel_size=0.25)
    ob = only_new_mesh_object(exclude={"open"})
    world, tris, _, _ = mesh_arrays(ob)
    assert len(tris) == 12
    assert np.allclose(world.min(axis=0), 0) and np.allclose(world.max(axis=0), 1)


@pytest.mark.parametrize("make, voxel_size", [(lambda: bpy.ops.mesh.primitive_plane_add(), 0.25),
                                               (lambda: bpy.ops.mesh.primitive_cube_add(size=2.0), 5.0)])
def test_voxel_remesh_without_an_inside_fails_cleanly_and_says_why(make, voxel_size):
    make()
    before = {kind: len(getattr(bpy.data, kind)) for kind in ("objects", "meshes", "materials")}
    with pytest.raises(RuntimeError, match=f"no voxel inside it at voxel size {voxel_size:g}: only a closed mesh"):
        bpy.ops.reticulate.voxel_remesh(voxel_size=voxel_size)
    assert {kind: len(getattr(bpy.data, kind)) for kind in before} == before


@pytest.mark.parametrize("manifold", [False, True])
def test_mesh_array_manifold_option_splits_edge_contacts(tmp_path, manifold):
    import bmesh
    grid = np.zeros((6, 6, 6), np.uint16)
    grid[1, 1, 1] = grid[2, 2, 1] = 1        # two voxels touching along one edge
    grid[4, 4, 4] = grid[5, 5, 5] = 2        # and two touching at one corner
    path = tmp_path / "contacts.npy"
    np.save(path, grid)
    assert bpy.ops.reticulate.mesh_array(filepath=str(path), voxel_size=1.0, manifold=manifold) == {'FINISHED'}
    ob = only_new_mesh_object()
    world, tris, _, _ = mesh_arrays(ob)
    core = rc.mesh_grid(grid, manifold=manifold)
    assert np.array_equal(tris, core.triangles)
    assert_watertight(tris)
    bm = bmesh.new()
    bm.from_mesh(ob.data)
    try:
        assert all(e.is_manifold for e in bm.edges) == manifold
        assert all(v.is_manifold for v in bm.verts) == manifold
    finally:
        bm.free()
