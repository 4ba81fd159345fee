"""MagicaVoxel .vox writer (version 200): SIZE/XYZI per model, nTRN/nGRP/nSHP scene graph, RGBA.

Models whose ``voxels`` are the same array object are written once and
instanced by several shape nodes. Transforms follow the convention of
:mod:`reticulate_core.io.vox`, so ``read_vox(write_vox(...))`` gives back the
same voxels, palette and transforms.
"""
import struct

import numpy as np

from .vox import DEFAULT_PALETTE, VoxLayer, VoxModel, VoxScene, node_affine, rotation_to_byte

MAX_WRITE_AXIS = 256
"""XYZI stores one byte per coordinate, so a written model is at most 256 per axis."""


def write_vox(path, scene_or_models, palette=None, *, groups=()):
    """Write a scene, or a sequence of :class:`VoxModel` / uint8-valued 3D arrays, to ``path``.

    ``palette``: (256, 4) RGBA rows indexed by palette index (default: the
    scene's, else MagicaVoxel's default). ``groups``: 4x4 node affines
    (signed permutation, integer translation) of nested groups that enclose
    every model, outermost first; each model's own node then holds what
    remains of its world transform, so the file has a nested scene graph.
    Each model's node carries its ``name``, ``hidden`` flag and ``layer`` (a
    model without a layer, -1, goes to layer 0); a scene's layers and
    materials are written as LAYR and MATL chunks.
    """
    materials, layers = {}, {}
    if isinstance(scene_or_models, VoxScene):
        materials, layers = scene_or_models.materials, scene_or_models.layers
        if palette is None:
            palette = scene_or_models.palette
        models = list(scene_or_models.models)
    else:
        models = [m if isinstance(m, VoxModel) else VoxModel(np.asarray(m), np.eye(4))
                  for m in scene_or_models]
    palette = _checked_palette(DEFAULT_PALETTE if palette is None else palette)
    chunks, model_ids = [], {}
    for model in models:
        if id(model.voxels) not in model_ids:
            model_ids[id(model.voxels)] = len(model_ids)
            chunks += _model_chunks(model.voxels)
    chunks += _scene_graph(models, model_ids, [_checked_group(g) for g in groups])
    for layer in sorted(layers.values(), key=lambda layer: layer.layer_id):
        chunks.append(_layer_chunk(layer))
    if not any(layer_id == 0 for layer_id in layers):
        chunks.append(_layer_chunk(VoxLayer(0)))
    chunks.append(_chunk(b"RGBA", np.concatenate([palette[1:], palette[:1]]).tobytes()))
    for index in sorted(materials):
        chunks.append(_chunk(b"MATL", struct.pack("<i", _int32(index, "material index"))
                             + _dict(_material_strings(materials[index]))))
    with open(path, "wb") as f:
        f.write(b"VOX " + struct.pack("<i", 200) + _chunk(b"MAIN", b"", b"".join(chunks)))


def _checked_palette(palette):
    palette = np.asarray(palette)
    if palette.shape != (256, 4) or palette.min() < 0 or palette.max() > 255:
        raise ValueError(f"palette must be (256, 4) RGBA values in 0..255, got shape {palette.shape}")
    return palette.astype(np.uint8)


def _checked_group(affine):
    affine = np.asarray(affine, dtype=np.float64)
    if affine.shape != (4, 4) or not np.array_equal(affine[3], [0, 0, 0, 1]) \
            or not np.array_equal(affine[:3, 3], np.round(affine[:3, 3])):
        raise ValueError(f"a group transform must be a 4x4 affine with integer translation, "
                         f"got {affine.tolist()}")
    rotation_to_byte(affine[:3, :3])
    return affine.astype(np.int64)


def _model_chunks(voxels):
    voxels = np.asarray(voxels)
    if voxels.ndim != 3 or not all(1 <= n <= MAX_WRITE_AXIS for n in voxels.shape):
        raise ValueError(f"a .vox model must be 3D with 1..{MAX_WRITE_AXIS} voxels per axis, "
                         f"got shape {voxels.shape}")
    if voxels.dtype.kind not in "biu" or voxels.max() > 255 or voxels.min() < 0:
        raise ValueError("a .vox model holds palette indices 0..255 (0 empty)")
    xyz = np.nonzero(voxels)
    xyzi = np.stack(xyz + (voxels[xyz],), axis=1).astype(np.uint8)
    return [_chunk(b"SIZE", struct.pack("<3i", *voxels.shape)),
            _chunk(b"XYZI", struct.pack("<i", len(xyzi)) + xyzi.tobytes())]


def _scene_graph(models, model_ids, groups):
    """Nodes 2k/2k+1: transform/group of nesting level k (level 0 is the identity root);
    the innermost group holds one transform/shape pair per model."""
    levels = [np.eye(4, dtype=np.int64)] + groups
    first_model_node = 2 * len(levels)
    chunks = []
    for k, affine in enumerate(levels):
        chunks.append(_transform_chunk(2 * k, {}, 2 * k + 1, 0, affine))
        if k + 1 < len(levels):
            children = [2 * k + 2]
        else:
            children = [first_model_node + 2 * i for i in range(len(models))]
        chunks.append(_chunk(b"nGRP", struct.pack("<i", 2 * k + 1) + _dict({})
                             + struct.pack(f"<i{len(children)}i", len(children), *children)))
    enclosing = np.linalg.multi_dot(levels + [np.eye(4, dtype=np.int64)])
    inverse = np.linalg.inv(enclosing).round().astype(np.int64)
    for i, model in enumerate(models):
        rotation, translation = node_affine(model.transform, np.shape(model.voxels))
        world = np.eye(4, dtype=np.int64)
        world[:3, :3], world[:3, 3] = rotation, translation
        attributes = {"_name": model.name} if model.name else {}
        if model.hidden:
            attributes["_hidden"] = "1"
        node_id = first_model_node + 2 * i
        chunks.append(_transform_chunk(node_id, attributes, node_id + 1, max(model.layer, 0),
                                       inverse @ world))
        chunks.append(_chunk(b"nSHP", struct.pack("<i", node_id + 1) + _dict({})
                             + struct.pack("<2i", 1, model_ids[id(model.voxels)]) + _dict({})))
    return chunks


def _int32(value, what):
    """``value`` as an int, ValueError unless it fits the int32 the format stores."""
    if not -2**31 <= int(value) < 2**31:
        raise ValueError(f"{what} {int(value)} does not fit the .vox format's int32")
    return int(value)


def _transform_chunk(node_id, attributes, child_id, layer_id, affine):
    frame = {"_t": " ".join(str(_int32(v, "a translation of")) for v in affine[:3, 3])}
    layer_id = _int32(layer_id, "layer id")
    rotation = rotation_to_byte(affine[:3, :3])
    if rotation != rotation_to_byte(np.eye(3)):
        frame["_r"] = str(rotation)
    return _chunk(b"nTRN", struct.pack("<i", node_id) + _dict(attributes)
                  + struct.pack("<4i", child_id, -1, layer_id, 1) + _dict(frame))


def _layer_chunk(layer):
    attributes = {"_name": layer.name} if layer.name else {}
    if layer.hidden:
        attributes["_hidden"] = "1"
    return _chunk(b"LAYR", struct.pack("<i", _int32(layer.layer_id, "layer id")) + _dict(attributes)
                  + struct.pack("<i", -1))


def _material_strings(properties):
    """MATL dictionary of a material as the reader returns it (keys without '_')."""
    strings = {}
    for key, value in properties.items():
        strings["_" + key] = "_" + str(value) if key == "type" else str(value)
    return strings


def _chunk(chunk_id, content, children=b""):
    return chunk_id + struct.pack("<2i", len(content), len(children)) + content + children


def _string(text):
    if not isinstance(text, str):
        raise TypeError(f"names and attributes of a .vox file are strings, got {text!r}")
    data = text.encode("utf-8")
    return struct.pack("<i", len(data)) + data


def _dict(entries):
    return struct.pack("<i", len(entries)) + b"".join(_string(k) + _string(v) for k, v in entries.items())
