"""``reticulate.voxel_remesh``: the active mesh object -> a blocky minimal mesh.

The evaluated mesh (modifiers applied) is voxelized in the object's local
space at ``voxel_size`` (see ``voxelize.py``); voxel ids are the source's
material slot + 1, so the new object reuses the source's materials slot by
slot.  The result is a new object ``<source>_remesh`` with the source's
transform (its 3x3 part baked into the vertices where it has shear, see
``operator_base.mesh_object``); the source is left untouched.
"""
import bpy
import numpy as np
from bpy.props import FloatProperty

from .operator_base import ActiveObjectSource, MaterialChoice, Outcome, ReticulateOperator, grid_objects
from .voxelize import voxelize


def evaluated_triangles(context, ob):
    """(vertices (V, 3), triangles (T, 3), slot index (T,)) of ``ob``'s evaluated mesh, local space."""
    evaluated = ob.evaluated_get(context.evaluated_depsgraph_get())
    me = evaluated.to_mesh()
    try:
        me.calc_loop_triangles()
        vertices = np.empty(3 * len(me.vertices), dtype=np.float64)
        me.vertices.foreach_get("co", vertices)
        corner_vertex = np.empty(len(me.loops), dtype=np.int32)
        me.loops.foreach_get("vertex_index", corner_vertex)
        loops = np.empty(3 * len(me.loop_triangles), dtype=np.int32)
        me.loop_triangles.foreach_get("loops", loops)
        slots = np.empty(len(me.loop_triangles), dtype=np.int32)
        me.loop_triangles.foreach_get("material_index", slots)
    finally:
        evaluated.to_mesh_clear()
    return vertices.reshape(-1, 3), corner_vertex[loops].reshape(-1, 3), slots


class RETICULATE_OT_voxel_remesh(ActiveObjectSource, ReticulateOperator, bpy.types.Operator):
    """Voxelize the active mesh object and build its minimal blocky mesh as a new object"""

    bl_idname = "reticulate.voxel_remesh"
    bl_label = "Voxel Remesh (Reticulate)"
    bl_options = {'REGISTER', 'UNDO'}

    voxel_size: FloatProperty(name="Voxel Size", default=0.1, min=1e-4, soft_max=10.0, unit='LENGTH')

    source_hint = "select a mesh object to remesh"

    def build(self, context, progress):
        source = self.active_source(context)
        vertices, triangles, slots = evaluated_triangles(context, source)
        n_slots = len(source.material_slots)
        if n_slots:
            slots = np.clip(slots, 0, n_slots - 1)
        grid, origin = voxelize(vertices, triangles, self.voxel_size, (slots + 1).astype(np.uint16))
        if not grid.any():
            raise ValueError(f"{source.name!r} has no voxel inside it at voxel size {self.voxel_size:g}: "
                             f"only a closed mesh has an inside, and a thin one needs smaller voxels")
        known = {i + 1: slot.material for i, slot in enumerate(source.material_slots)
                 if slot.material is not None}
        core = self.mesh_voxels(grid, progress)
        outcome = Outcome()
        choice = MaterialChoice(self.material_mode, self.reuse_materials, known=known)
        grid_objects(outcome, f"{source.name}_remesh", core, choice, np.array(source.matrix_world),
                     self.output_mode, scale=self.voxel_size, offset=origin)
        return outcome
