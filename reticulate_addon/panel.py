"""The N-panel: View3D > Sidebar > "Reticulate".

Shows the source, its settings, the last result and one button that runs
the operator of the chosen source with the panel's settings.
"""
import bpy

from .properties import SOURCE_OPERATORS, settings_of

_BUTTON_TEXT = {
    'VOLUME': "Mesh Volume",
    'VOX': "Import .vox",
    'ARRAY': "Mesh Array File",
    'MESH': "Voxel Remesh",
}
_WANTED_TYPE = {'VOLUME': 'VOLUME', 'MESH': 'MESH'}


def _operator_settings(settings):
    """The operator properties the button passes for the chosen source."""
    common = {
        "output_mode": settings.output_mode,
        "material_mode": settings.material_mode,
        "reuse_materials": settings.reuse_materials,
        "link_to_active": settings.link_to_active,
        "manifold": settings.manifold,
    }
    per_source = {
        'VOLUME': {"grid_name": settings.grid_name, "threshold": settings.threshold},
        'VOX': {"filepath": settings.filepath, "voxel_size": settings.vox_scale,
                "hierarchy_empties": settings.hierarchy_empties, "center_origins": settings.center_origins,
                "include_hidden": settings.include_hidden},
        'ARRAY': {"filepath": settings.filepath, "grid_name": settings.grid_name, "axis_order": settings.axis_order,
                  "threshold": settings.threshold, "voxel_size": settings.voxel_size},
        'MESH': {"voxel_size": settings.voxel_size},
    }
    return {**common, **per_source[settings.source]}


class RETICULATE_PT_main(bpy.types.Panel):
    bl_idname = "RETICULATE_PT_main"
    bl_label = "Reticulate"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "Reticulate"

    def draw(self, context):
        layout = self.layout
        assert layout is not None
        settings = settings_of(context.scene)
        source = settings.source
        layout.prop(settings, "source")

        box = layout.box()
        wanted = _WANTED_TYPE.get(source)
        if wanted is not None:
            ob = context.active_object
            if ob is None or ob.type != wanted:
                box.label(text=f"Select a {wanted.lower()} object", icon='ERROR')
            else:
                box.label(text=ob.name, icon='OBJECT_DATA')
        else:
            box.prop(settings, "filepath")
        if source == 'VOLUME':
            box.prop(settings, "grid_name")
            box.prop(settings, "threshold")
        elif source == 'ARRAY':
            box.prop(settings, "grid_name", text="Array")
            box.prop(settings, "axis_order")
            box.prop(settings, "threshold")
            box.prop(settings, "voxel_size")
        elif source == 'MESH':
            box.prop(settings, "voxel_size")
        else:
            box.prop(settings, "vox_scale")
            box.prop(settings, "hierarchy_empties")
            box.prop(settings, "center_origins")
            box.prop(settings, "include_hidden")

        column = layout.column(heading="Output")
        column.prop(settings, "output_mode")
        column.prop(settings, "material_mode")
        column.prop(settings, "reuse_materials")
        column.prop(settings, "link_to_active")
        column.prop(settings, "manifold")

        op = layout.operator(SOURCE_OPERATORS[source], text=_BUTTON_TEXT[source], icon='MESH_CUBE')
        for name, value in _operator_settings(settings).items():
            setattr(op, name, value)

        if settings.last_source:
            result = layout.box()
            result.label(text=f"Last: {settings.last_source}")
            grid = result.grid_flow(columns=2, even_columns=True)
            grid.label(text="Triangles")
            grid.label(text=f"{settings.last_triangles:,}")
            grid.label(text="Vertices")
            grid.label(text=f"{settings.last_vertices:,}")
            grid.label(text="Materials")
            grid.label(text=str(settings.last_materials))
            grid.label(text="Objects")
            grid.label(text=str(settings.last_objects))
            grid.label(text="Seconds")
            grid.label(text=f"{settings.last_seconds:.3f}")
