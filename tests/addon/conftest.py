"""Add-on tests against the real ``bpy`` module, headless.

The session builds the extension zip with ``scripts/build_extension.py``
(bundling the core wheel that ``RETICULATE_CORE_WHEEL`` names, as
``scripts/test.sh`` sets it to the one bootstrap just built, else building
one), installs it into a temporary Blender user folder with
``bpy.ops.extensions.package_install_files`` and enables it, so every test
runs the add-on exactly as users get it.  BLENDER_USER_RESOURCES must point at
the temporary folder before ``bpy`` is imported.
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

USER_RESOURCES = tempfile.mkdtemp(prefix="reticulate-blender-user-")
os.environ["BLENDER_USER_RESOURCES"] = USER_RESOURCES
atexit.register(shutil.rmtree, USER_RESOURCES, ignore_errors=True)

import bpy  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO.parent / "shared" / "samples" / "vox"
ADDON_MODULE = "bl_ext.user_default.reticulate"
ID_KINDS = ("objects", "meshes", "materials", "volumes", "collections", "images", "node_groups",
            "lights", "cameras")


@pytest.fixture(scope="session")
def extension_zip(tmp_path_factory):
    dist = tmp_path_factory.mktemp("dist")
    command = [sys.executable, str(REPO / "scripts" / "build_extension.py"), "--dist", str(dist)]
    if os.environ.get("RETICULATE_CORE_WHEEL"):
        command += ["--core-wheel", os.environ["RETICULATE_CORE_WHEEL"]]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    zips = sorted(dist.glob("reticulate-*.zip"))
    assert len(zips) == 1, zips
    return zips[0]


@pytest.fixture(scope="session")
def addon(extension_zip):
    """The installed and enabled add-on module."""
    extensions = bpy.utils.user_resource('EXTENSIONS')
    assert extensions.startswith(USER_RESOURCES), (
        f"bpy was imported before tests/addon/conftest.py set BLENDER_USER_RESOURCES; the add-on would be "
        f"installed into the real user folder {extensions}")
    result = bpy.ops.extensions.package_install_files(filepath=str(extension_zip), repo='user_default',
                                                      enable_on_install=True)
    assert result == {'FINISHED'}
    # a wrong-platform zip also returns FINISHED: the add-on list is the real check
    assert ADDON_MODULE in bpy.context.preferences.addons.keys()
    return sys.modules[ADDON_MODULE]


@pytest.fixture(autouse=True)
def empty_scene(addon):
    """Every test starts from an empty scene with the add-on enabled."""
    bpy.ops.wm.read_homefile(use_empty=True)
    assert ADDON_MODULE in bpy.context.preferences.addons.keys()
    yield


def sample(name):
    path = SAMPLES / name
    assert path.is_file(), f"sample {path} missing (the shared folder must sit beside the checkout)"
    return path


def data_snapshot():
    """Every datablock of the kinds operators create, by kind and name."""
    return {kind: sorted(block.name for block in getattr(bpy.data, kind)) for kind in ID_KINDS}


def data_pointers():
    return {kind: {block.as_pointer() for block in getattr(bpy.data, kind)} for kind in ID_KINDS}


def mesh_arrays(ob):
    """(world positions (V, 3), triangles (T, 3), material_index (T,), reticulate_material (T,))."""
    me = ob.data
    local = np.empty(3 * len(me.vertices), dtype=np.float64)
    me.vertices.foreach_get("co", local)
    local = local.reshape(-1, 3)
    matrix = np.array(ob.matrix_world)
    world = local @ matrix[:3, :3].T + matrix[:3, 3]
    sizes = np.empty(len(me.polygons), dtype=np.int32)
    me.polygons.foreach_get("loop_total", sizes)
    assert np.all(sizes == 3), "every polygon must be a triangle"
    corners = np.empty(len(me.loops), dtype=np.int32)
    me.loops.foreach_get("vertex_index", corners)
    slot = np.empty(len(me.polygons), dtype=np.int32)
    me.polygons.foreach_get("material_index", slot)
    raw = np.empty(len(me.polygons), dtype=np.int32)
    me.attributes["reticulate_material"].data.foreach_get("value", raw)
    return world, corners.reshape(-1, 3), slot, raw


def assert_watertight(triangles):
    """Every directed edge a->b is matched by as many b->a edges (closed, consistently oriented)."""
    tris = np.asarray(triangles, dtype=np.int64)
    a = tris.reshape(-1)
    b = np.roll(tris, -1, axis=1).reshape(-1)
    n = int(tris.max()) + 1
    forward = np.unique(a * n + b, return_counts=True)
    backward = np.unique(b * n + a, return_counts=True)
    assert np.array_equal(forward[0], backward[0]) and np.array_equal(forward[1], backward[1]), \
        "mesh has unmatched (boundary or flipped) edges"


def assert_even_edges(me):
    """bmesh's view: every edge of the Blender mesh borders an even, non-zero number of faces."""
    import bmesh
    bm = bmesh.new()
    try:
        bm.from_mesh(me)
        counts = np.array([len(edge.link_faces) for edge in bm.edges])
    finally:
        bm.free()
    assert len(counts) and np.all(counts % 2 == 0), "an edge borders an odd number of faces"


def assert_materials_match(ob, core_materials):
    """Slots = distinct ids in order; each polygon's slot and raw id equal the core's triangle ids."""
    _, _, slot, raw = mesh_arrays(ob)
    ids = np.unique(core_materials)
    assert [s.material.name.split(".")[0] for s in ob.material_slots] == [f"retic_{i}" for i in ids]
    assert np.array_equal(raw, np.asarray(core_materials, dtype=np.int32))
    assert np.array_equal(ids[slot], core_materials)
