"""``reticulate.mesh_volume``: the active Volume object -> one meshed object.

The grid is read with the core's ``load_grid`` from the volume's .vdb file,
or, when the object has modifiers or no file (e.g. Mesh to Volume) or its
file is gone, from the evaluated grids saved to a temporary .vdb first.
Float grids are solid above ``threshold`` (level sets: inside their
surface); integer grids are material ids.  The new object
``<volume>_mesh`` is placed by the grid transform times the volume object's
matrix (baked into the vertices where that has shear), so it overlays the
volume exactly.
"""
import tempfile
from pathlib import Path

import bpy
import numpy as np
import reticulate_core as rc
from bpy.props import FloatProperty, StringProperty

from .operator_base import ActiveObjectSource, MaterialChoice, Outcome, ReticulateOperator, grid_objects, split_scale


def volume_file(context, ob, temp_dir):
    """The .vdb file holding ``ob``'s grids as shown: its own file, or the
    evaluated grids saved (also when its file is gone but Blender still holds
    the grids it loaded)."""
    volume = ob.data
    has_modifiers = any(m.show_viewport or m.show_render for m in ob.modifiers)
    missing = None
    if not has_modifiers and volume.filepath and volume.packed_file is None:
        path = Path(bpy.path.abspath(volume.grids.frame_filepath or volume.filepath))
        if path.is_file():
            return path
        missing = path
    evaluated = ob.evaluated_get(context.evaluated_depsgraph_get())
    grids = evaluated.data.grids
    if missing is not None and not (len(grids) and all(grid.load() for grid in grids)):
        # load() is True only for a grid whose voxels Blender still holds
        raise ValueError(f"volume {ob.name!r}: its file {missing} does not exist")
    if len(grids) == 0:
        raise ValueError(f"volume {ob.name!r} has no grids to mesh")
    path = Path(temp_dir) / "evaluated.vdb"
    if not grids.save(str(path)):
        raise ValueError(f"volume {ob.name!r}: its evaluated grids could not be saved ({grids.error_message})")
    return path


class RETICULATE_OT_mesh_volume(ActiveObjectSource, ReticulateOperator, bpy.types.Operator):
    """Mesh the active Volume object: float grids by threshold, integer grids as material ids"""

    bl_idname = "reticulate.mesh_volume"
    bl_label = "Mesh Volume (Reticulate)"
    bl_options = {'REGISTER', 'UNDO'}

    grid_name: StringProperty(name="Grid", description="Grid to mesh (empty: the first grid)")
    threshold: FloatProperty(name="Threshold", default=0.5,
                             description="Float grids: values above this are solid (level sets: inside their surface)")

    source_type = 'VOLUME'
    source_noun = "a Volume"
    source_hint = "select a Volume object"

    def build(self, context, progress):
        ob = self.active_source(context)
        with tempfile.TemporaryDirectory(prefix="reticulate-") as temp_dir:
            path = volume_file(context, ob, temp_dir)
            loaded = rc.io.load_grid_with_info(path, self.threshold, grid=self.grid_name or None)
        core = self.mesh_voxels(loaded.voxels, progress)
        matrix, scale = split_scale(np.array(ob.matrix_world) @ loaded.transform)
        outcome = Outcome()
        choice = MaterialChoice(self.material_mode, self.reuse_materials)
        grid_objects(outcome, f"{ob.name}_mesh", core, choice, matrix, self.output_mode, scale=scale)
        return outcome
