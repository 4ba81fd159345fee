"""Materials for material ids: one ``retic_<id>`` material per id, or one
material reading a colour attribute.

Colours come from the .vox palette where known (row i = colour of id i), else
from a fixed hue sequence so that neighbouring ids are easy to tell apart.
MagicaVoxel MATL properties (metal, glass, emit, roughness, ior, alpha) are
mapped onto the Principled BSDF inputs of Blender 4.x/5.x.
"""
import colorsys

import bpy
import numpy as np

COLOR_ATTRIBUTE = "reticulate_color"
SHARED_MATERIAL = "retic_palette"


def material_name(material_id):
    return f"retic_{int(material_id)}"


def fallback_rgba(material_id):
    """A stable, well-spread colour for an id without a palette colour."""
    hue = (int(material_id) * 0.618033988749895) % 1.0
    r, g, b = colorsys.hsv_to_rgb(hue, 0.55, 0.85)
    return (r, g, b, 1.0)


def srgb_to_linear(channel):
    """Palette bytes are sRGB; Blender colour inputs are scene-linear."""
    c = np.asarray(channel, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def palette_rgba(palette, material_id):
    """Linear RGBA floats of palette row ``material_id`` ((256, 4) uint8 sRGB)."""
    row = np.asarray(palette[int(material_id)], dtype=np.float64) / 255.0
    rgb = srgb_to_linear(row[:3])
    return (float(rgb[0]), float(rgb[1]), float(rgb[2]), float(row[3]))


def _principled_or_none(material):
    """The material's Principled BSDF node, None when it has no node tree or no such node."""
    tree = material.node_tree
    return next((node for node in tree.nodes if node.type == "BSDF_PRINCIPLED"), None) if tree else None


def _principled(material):
    node = _principled_or_none(material)
    if node is None:
        raise RuntimeError(f"material {material.name!r} has no Principled BSDF node")
    return node


def _number(props, key, default):
    try:
        return float(props.get(key, default))
    except (TypeError, ValueError):
        return default


def _set_input(node, name, value):
    socket = node.inputs.get(name)
    if socket is not None:
        socket.default_value = value


def apply_vox_material(material, props, rgba):
    """Map one MagicaVoxel MATL dict (keys with or without the leading ``_``) onto the Principled BSDF."""
    props = {str(key).lstrip("_"): value for key, value in props.items()}
    bsdf = _principled(material)
    kind = str(props.get("type", "diffuse")).lstrip("_")
    _set_input(bsdf, "Roughness", _number(props, "rough", 0.5))
    if kind == "metal":
        _set_input(bsdf, "Metallic", _number(props, "metal", 1.0))
        _set_input(bsdf, "Specular IOR Level", _number(props, "sp", 0.5))
    elif kind in ("glass", "blend"):
        _set_input(bsdf, "Transmission Weight", _number(props, "trans", _number(props, "alpha", 1.0)))
        # MagicaVoxel stores the index of refraction minus one.
        _set_input(bsdf, "IOR", 1.0 + _number(props, "ior", 0.5))
    elif kind == "emit":
        _set_input(bsdf, "Emission Color", rgba)
        # emit is the strength in 0..1, flux a power-of-ten boost (0..4).
        _set_input(bsdf, "Emission Strength", _number(props, "emit", 1.0) * 10.0 ** _number(props, "flux", 0.0))
    if kind not in ("glass", "blend") and "alpha" in props:
        _set_input(bsdf, "Alpha", 1.0 - _number(props, "alpha", 0.0))


def _new_material(name, rgba):
    material = bpy.data.materials.new(name)
    if material.node_tree is None:  # Blender 4.x: node trees are opt-in
        material.use_nodes = True
    _set_input(_principled(material), "Base Color", rgba)
    material.diffuse_color = rgba
    return material


def materials_for_ids(ids, *, palette=None, vox_materials=None, reuse_existing=False):
    """One material per id in ``ids`` (sorted, distinct), in the same order.

    ``reuse_existing``: take an existing material named ``retic_<id>`` instead
    of creating one (new materials get Blender's ``.001`` suffix on a clash).
    """
    result = []
    for material_id in ids:
        name = material_name(material_id)
        if reuse_existing and name in bpy.data.materials:
            result.append(bpy.data.materials[name])
            continue
        known = palette is not None and 0 < int(material_id) < len(palette)
        rgba = palette_rgba(palette, material_id) if known else fallback_rgba(material_id)
        material = _new_material(name, rgba)
        props = (vox_materials or {}).get(int(material_id))
        if props:
            apply_vox_material(material, props, rgba)
        result.append(material)
    return result


def color_attribute_material(reuse_existing=False):
    """One material whose base colour reads the ``reticulate_color`` attribute."""
    if reuse_existing and SHARED_MATERIAL in bpy.data.materials:
        return bpy.data.materials[SHARED_MATERIAL]
    material = _new_material(SHARED_MATERIAL, (0.8, 0.8, 0.8, 1.0))
    tree = material.node_tree
    attribute = tree.nodes.new("ShaderNodeAttribute")
    attribute.attribute_name = COLOR_ATTRIBUTE
    attribute.location = (-300, 300)
    tree.links.new(attribute.outputs["Color"], _principled(material).inputs["Base Color"])
    return material


def material_rgba(material):
    """The linear RGBA a material shows: its Principled BSDF's Base Color
    when nothing drives that input, else its viewport colour."""
    node = _principled_or_none(material)
    socket = node.inputs.get("Base Color") if node is not None else None
    if socket is not None and not socket.is_linked:
        return tuple(socket.default_value)
    return tuple(material.diffuse_color)


def id_colors(ids, palette=None):
    """(len(ids), 4) float32 linear RGBA per id, as ``materials_for_ids`` colours them."""
    colors = np.empty((len(ids), 4), dtype=np.float32)
    for row, material_id in enumerate(ids):
        known = palette is not None and 0 < int(material_id) < len(palette)
        colors[row] = palette_rgba(palette, material_id) if known else fallback_rgba(material_id)
    return colors
