"""Scene settings of the N-panel (``scene.reticulate``) and the shared option lists."""
import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty

SOURCE_ITEMS = [
    ('VOLUME', "Volume Object", "Mesh the active Volume object (float grids by threshold, integer grids as ids)"),
    ('VOX', "MagicaVoxel File", "Import a .vox file"),
    ('ARRAY', "NumPy File", "Mesh a .npy or .npz voxel array"),
    ('MESH', "Mesh Object", "Voxelize the active mesh object and remesh it with blocks"),
]

SOURCE_OPERATORS = {
    'VOLUME': "reticulate.mesh_volume",
    'VOX': "reticulate.import_vox",
    'ARRAY': "reticulate.mesh_array",
    'MESH': "reticulate.voxel_remesh",
}

MANIFOLD_DESCRIPTION = ("Split edge- and corner-only contacts so that every edge has two faces "
                        "(3D printing, booleans)")
HIDDEN_DESCRIPTION = "Import hidden models too, as hidden objects (One Object output leaves them out)"

AXIS_ORDER_ITEMS = [(order.upper(), " ".join(order.upper()), f"The file's array is indexed [{', '.join(order)}]")
                    for order in ("xyz", "zyx", "xzy", "yxz", "yzx", "zxy")]
AXIS_ORDER_DESCRIPTION = ".npy / .npz: the order of the array's axes (Z Y X for image stacks)"

OUTPUT_ITEMS = [
    ('OBJECT', "One Object", "One mesh object for the whole source"),
    ('MODEL', "One per Model", "One object per .vox model (other sources: one object)"),
    ('CHUNK', "One per Chunk", "One object per 32x32x32 chunk"),
]

MATERIAL_MODE_ITEMS = [
    ('SLOTS', "One per Colour", "One material per palette colour / material id"),
    ('ATTRIBUTE', "Colour Attribute", "One material reading the reticulate_color attribute"),
]


class ReticulateSettings(bpy.types.PropertyGroup):
    source: EnumProperty(name="Source", items=SOURCE_ITEMS, default='VOX')
    filepath: StringProperty(name="File", subtype='FILE_PATH',
                             description="The .vox, .npy or .npz file to mesh")
    grid_name: StringProperty(name="Grid",
                              description="Volume grid / .npz array to mesh (empty: the first grid, "
                                          "the only array)")
    axis_order: EnumProperty(name="Axis Order", items=AXIS_ORDER_ITEMS, default='XYZ',
                             description=AXIS_ORDER_DESCRIPTION)
    threshold: FloatProperty(name="Threshold", default=0.5,
                             description="Float grids: voxels with a value above this are solid "
                                         "(level sets: inside their surface)")
    voxel_size: FloatProperty(name="Voxel Size", default=0.1, min=1e-4, soft_max=10.0,
                              unit='LENGTH', description="Edge length of one voxel")
    vox_scale: FloatProperty(name="Voxel Size", default=0.1, min=1e-4, soft_max=10.0,
                             unit='LENGTH', description="Edge length of one imported voxel")
    output_mode: EnumProperty(name="Output", items=OUTPUT_ITEMS, default='MODEL')
    material_mode: EnumProperty(name="Materials", items=MATERIAL_MODE_ITEMS,
                                default='SLOTS')
    reuse_materials: BoolProperty(name="Reuse Materials", default=False,
                                  description="Use existing materials named retic_<id> instead of new ones")
    link_to_active: BoolProperty(name="Active Collection", default=True,
                                 description="Link new objects into the active collection "
                                             "(off: the scene collection)")
    manifold: BoolProperty(name="Manifold", default=False,
                           description=MANIFOLD_DESCRIPTION)
    hierarchy_empties: BoolProperty(name="Hierarchy Empty", default=False,
                                    description="Parent all models to one empty named after the file")
    center_origins: BoolProperty(name="Centre Origins", default=True,
                                 description="Put each object's origin at the centre of its model")
    include_hidden: BoolProperty(name="Hidden Models", default=True, description=HIDDEN_DESCRIPTION)

    last_source: StringProperty(name="Last Source")
    last_triangles: IntProperty(name="Triangles")
    last_vertices: IntProperty(name="Vertices")
    last_materials: IntProperty(name="Materials")
    last_objects: IntProperty(name="Objects")
    last_seconds: FloatProperty(name="Seconds", precision=3)


def settings_of(scene) -> ReticulateSettings:
    """The Reticulate settings of ``scene`` (``scene.reticulate``)."""
    return getattr(scene, "reticulate")


def register():
    pointer = bpy.props.PointerProperty(type=ReticulateSettings)  # type: ignore[func-returns-value]
    setattr(bpy.types.Scene, "reticulate", pointer)


def unregister():
    delattr(bpy.types.Scene, "reticulate")
