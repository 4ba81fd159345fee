"""What every Reticulate operator shares: redo options, all-or-nothing
execution, error reports, result statistics, and turning one core mesh into
one object or one object per chunk.

A subclass implements ``build(context, progress) -> Outcome`` creating
unlinked datablocks only.  ``execute`` first leaves Edit (or any other)
Mode for Object Mode and links the outcome's objects at the end; on any
exception it removes everything that was created, goes back to the mode it
left, reports an ERROR (a ``RuntimeError`` for Python callers) and returns
CANCELLED.
"""
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bpy
import numpy as np
import reticulate_core as rc
from bpy.props import BoolProperty, EnumProperty
from bpy_extras.io_utils import ImportHelper
from mathutils import Matrix

from . import materials as mats
from .mesh_build import CHUNK, Piece, build_mesh, distinct_ids, split_by_chunk
from .progress import Progress
from .properties import MANIFOLD_DESCRIPTION, MATERIAL_MODE_ITEMS, OUTPUT_ITEMS, settings_of
from .staging import Staging, link_objects, target_collection


class Outcome:
    """New unlinked objects of one run (parents before children) and their statistics."""

    def __init__(self):
        self.objects = []
        self.roots = []
        self.triangles = 0
        self.vertices = 0
        self.ids = set()

    def add_mesh_object(self, ob, piece, root=True):
        self.objects.append(ob)
        if root:
            self.roots.append(ob)
        self.triangles += piece.n_triangles
        self.vertices += len(piece.positions)
        self.ids.update(int(i) for i in np.unique(piece.materials))


class MaterialChoice:
    """How a run turns ids into materials; materials are made once per id and run."""

    def __init__(self, mode, reuse_existing, palette=None, vox_materials=None, known=None):
        """``known``: id -> an existing material to use for that id (e.g. the
        remeshed object's own), or whose colour to use in ``'ATTRIBUTE'`` mode."""
        self.mode = mode
        self.reuse_existing = reuse_existing
        self.palette = palette
        self.vox_materials = vox_materials
        self._by_id = dict(known or {})
        self._shared = None

    def slots(self, ids):
        """(slot_materials, colors) for a mesh whose sorted distinct ids are ``ids``."""
        if self.mode == 'ATTRIBUTE':
            if self._shared is None:
                self._shared = mats.color_attribute_material(self.reuse_existing)
            colors = mats.id_colors(ids, self.palette)
            for row, material_id in enumerate(ids):
                if int(material_id) in self._by_id:      # a known material: the colour it shows
                    colors[row] = mats.material_rgba(self._by_id[int(material_id)])
            return [self._shared], colors
        missing = [i for i in ids if int(i) not in self._by_id]
        made = mats.materials_for_ids(missing, palette=self.palette, vox_materials=self.vox_materials,
                                      reuse_existing=self.reuse_existing)
        self._by_id.update(zip((int(i) for i in missing), made))
        return [self._by_id[int(i)] for i in ids], None


def as_matrix(matrix):
    return Matrix(np.asarray(matrix, dtype=np.float64).tolist())


def mesh_data(name, piece, choice):
    """A new mesh datablock of ``piece`` with one material slot per distinct id."""
    ids = distinct_ids(piece)
    slot_materials, colors = choice.slots(ids)
    return build_mesh(name, piece, ids, slot_materials, colors=colors)


def holds_as_transform(matrix, tolerance=1e-5):
    """Whether an object's location, rotation and scale can hold the affine
    4x4 ``matrix``: its 3x3 part has orthogonal columns (no shear)."""
    linear = np.asarray(matrix, dtype=np.float64)[:3, :3]
    gram = linear.T @ linear
    shear = gram - np.diag(np.diag(gram))
    return bool(np.all(np.abs(shear) <= tolerance * np.max(np.diag(gram))))


def baked(piece, linear):
    """``piece`` with its positions mapped by the 3x3 matrix ``linear``; a
    mirroring one (negative determinant) also reverses the triangles, so they
    stay counter-clockwise from outside."""
    positions = (piece.positions.astype(np.float64) @ np.asarray(linear, dtype=np.float64).T).astype(np.float32)
    triangles = piece.triangles[:, ::-1] if np.linalg.det(linear) < 0 else piece.triangles
    return Piece(positions, np.ascontiguousarray(triangles), piece.materials)


def mesh_object(name, piece, choice, matrix):
    """A new unlinked object holding a new mesh of ``piece``, placed by ``matrix``.

    A sheared matrix (a rotated child of a non-uniformly scaled parent has
    one) does not fit an object's location, rotation and scale: then its
    3x3 part is baked into the vertices and the object keeps its translation.
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    if not holds_as_transform(matrix):
        piece = baked(piece, matrix[:3, :3])
        translation = np.eye(4)
        translation[:3, 3] = matrix[:3, 3]
        matrix = translation
    ob = bpy.data.objects.new(name, mesh_data(name, piece, choice))
    ob.matrix_world = as_matrix(matrix)
    return ob


def split_scale(transform):
    """(matrix, scale) with ``transform == matrix @ diag(scale)``: scale = the column lengths.

    Lets an object keep a unit-scale matrix while the voxel size is baked into
    its vertices.
    """
    transform = np.asarray(transform, dtype=np.float64)
    scale = np.linalg.norm(transform[:3, :3], axis=0)
    if not np.all(scale > 0) or not np.all(np.isfinite(transform)):
        raise ValueError(f"the grid transform is degenerate: {transform.tolist()}")
    matrix = transform.copy()
    matrix[:3, :3] /= scale
    return matrix, scale


def output_parts(core_mesh, output_mode, scale=1.0, offset=(0.0, 0.0, 0.0)):
    """``[(name suffix, Piece, local 4x4)]`` for one core mesh in voxel-corner coordinates.

    Vertex ``p`` lands at ``offset + scale * p`` (``scale``: a number or one
    per axis) once each piece's positions are mapped by its local matrix.
    ``'CHUNK'`` gives one part per 32^3 chunk, suffix ``_<cx>_<cy>_<cz>``,
    with its origin at the chunk's corner; otherwise one part, suffix "".
    """
    offset = np.asarray(offset, dtype=np.float64)
    if output_mode != 'CHUNK':
        return [("", Piece.from_core(core_mesh, scale=scale, offset=offset), np.eye(4))]
    parts = []
    for (cx, cy, cz), piece in split_by_chunk(core_mesh):
        local = np.eye(4)
        local[:3, 3] = offset + np.asarray(scale, dtype=np.float64) * CHUNK * np.array([cx, cy, cz], dtype=np.float64)
        scaled = Piece(piece.positions * np.asarray(scale, dtype=np.float32), piece.triangles, piece.materials)
        parts.append((f"_{cx}_{cy}_{cz}", scaled, local))
    return parts


def grid_objects(outcome, name, core_mesh, choice, matrix, output_mode, scale=1.0, offset=(0.0, 0.0, 0.0)):
    """New objects ``<name><suffix>`` for the :func:`output_parts` of one core mesh, under ``matrix``."""
    if core_mesh.n_triangles == 0:
        raise ValueError("the source has no solid voxels: nothing to mesh")
    matrix = np.asarray(matrix, dtype=np.float64)
    for suffix, piece, local in output_parts(core_mesh, output_mode, scale, offset):
        outcome.add_mesh_object(mesh_object(name + suffix, piece, choice, matrix @ local), piece)


def leave_to_object_mode(context):
    """Switch to Object Mode, as Blender's own importers do: new objects
    belong there, and leaving Edit Mode writes its edits into the mesh a
    remesh reads.  Returns (active object, its mode) to go back to if the
    run fails, or None when already in Object Mode."""
    view_layer = context.view_layer
    active = view_layer.objects.active if view_layer is not None else None
    # (the stubs type operators as classes, so poll() looks unbound to mypy)
    if active is None or active.mode == 'OBJECT' or not bpy.ops.object.mode_set.poll():  # type: ignore[call-arg]
        return None
    mode = active.mode
    bpy.ops.object.mode_set(mode='OBJECT')
    return active, mode


def return_to_mode(context, left):
    """Undo :func:`leave_to_object_mode` after a failed run (nothing was linked or selected)."""
    if left is None:
        return
    active, mode = left
    context.view_layer.objects.active = active
    if bpy.ops.object.mode_set.poll():  # type: ignore[call-arg]
        bpy.ops.object.mode_set(mode=mode)


class ReticulateOperator:
    """Mixin for the Reticulate operators (see the module docstring).

    Subclasses also derive from ``bpy.types.Operator`` and set
    ``bl_options = {'REGISTER', 'UNDO'}``.
    """

    if TYPE_CHECKING:
        bl_label: str

        def report(self, type: Any, message: str) -> None: ...

    output_mode: EnumProperty(name="Output", items=OUTPUT_ITEMS, default='MODEL')
    material_mode: EnumProperty(name="Materials", items=MATERIAL_MODE_ITEMS, default='SLOTS')
    reuse_materials: BoolProperty(name="Reuse Materials", default=False,
                                  description="Use existing materials named retic_<id> instead of new ones")
    link_to_active: BoolProperty(name="Active Collection", default=True,
                                 description="Link into the active collection (off: the scene collection)")
    manifold: BoolProperty(name="Manifold", default=False,
                           description=MANIFOLD_DESCRIPTION)

    def mesh_voxels(self, voxels, progress):
        """The core mesh of a voxel grid, manifold when asked."""
        return rc.mesh_grid(voxels, progress=progress, manifold=self.manifold)

    def build(self, context, progress):
        raise NotImplementedError

    def source_label(self, context):
        return self.bl_label

    def execute(self, context):
        start = time.perf_counter()
        left = leave_to_object_mode(context)
        try:
            label = self.source_label(context)
            with Staging(), Progress(context, self.bl_label) as progress:
                outcome = self.build(context, progress)
                if not outcome.objects:
                    raise ValueError("the source has no solid voxels: nothing to mesh")
                link_objects(context, outcome.objects, target_collection(context, self.link_to_active),
                             outcome.roots)
        except Exception as error:
            if not isinstance(error, (ValueError, TypeError, OSError, LookupError)):
                traceback.print_exc()
            return_to_mode(context, left)
            self.report({'ERROR'}, f"{self.bl_label} failed: {error}")
            return {'CANCELLED'}
        seconds = time.perf_counter() - start
        settings = settings_of(context.scene)
        settings.last_source = label
        settings.last_triangles = outcome.triangles
        settings.last_vertices = outcome.vertices
        settings.last_materials = len(outcome.ids)
        settings.last_objects = len([ob for ob in outcome.objects if ob.type == 'MESH'])
        settings.last_seconds = seconds
        self.report({'INFO'}, f"Reticulate: {label}: {outcome.triangles} triangles, {outcome.vertices} vertices, "
                              f"{len(outcome.ids)} materials, {len(outcome.objects)} objects in {seconds:.2f} s")
        return {'FINISHED'}


class FileSource(ImportHelper):
    """Mixin for operators whose source is the file ``self.filepath``.

    Put it first in the bases, before ``ReticulateOperator``: ``invoke``
    runs at once when a file is already chosen (the N-panel button) and
    opens the file browser otherwise.
    """

    if TYPE_CHECKING:
        filepath: str

        def execute(self, context: Any) -> Any: ...

    file_kind = "input"     # named in the error when no file is given

    def invoke(self, context, event):
        if self.filepath:
            return self.execute(context)
        return super().invoke(context, event)

    def source_label(self, context):
        return Path(self.filepath).name

    def source_path(self):
        """The chosen file as an absolute path; ValueError when none is chosen."""
        if not self.filepath:
            raise ValueError(f"no {self.file_kind} file given")
        return Path(bpy.path.abspath(self.filepath))


class ActiveObjectSource:
    """Mixin for operators whose source is the active object, of one type.

    Put it first in the bases, before ``ReticulateOperator``.
    """

    source_type = 'MESH'                  # the object type the operator needs
    source_noun = "a mesh"                # that type in the wrong-type error
    source_hint = "select a mesh object"  # what to do when nothing is active

    def source_label(self, context):
        ob = context.active_object
        return ob.name if ob is not None else "no active object"

    def active_source(self, context):
        """The active object; ValueError when none, TypeError when of another type."""
        ob = context.active_object
        if ob is None:
            raise ValueError(f"no active object: {self.source_hint}")
        if ob.type != self.source_type:
            raise TypeError(f"active object {ob.name!r} is a {ob.type}, not {self.source_noun}")
        return ob
