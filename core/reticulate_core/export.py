"""Write a Mesh as Wavefront OBJ (+ .mtl) or binary PLY.

OBJ: ``mtllib``, ``v x y z`` per vertex, then the triangles grouped by
material (in order of first use), each group opened by ``usemtl retic_<id>``;
``f a b c`` with 1-based indices.  The .mtl beside it has ``newmtl retic_<id>``
with ``Kd`` (and ``d`` when not opaque) from ``colours`` or a generated colour.

PLY: ``binary_little_endian 1.0``; vertex ``float x, y, z``; face
``list uchar int vertex_indices`` and ``ushort material``.

Both keep each triangle's vertex order (counter-clockwise seen from outside).
"""
from pathlib import Path

import numpy as np

_BLOCK = 1 << 16


def material_groups(mesh):
    """Triangle indices grouped by material, groups in order of first use, stable within."""
    materials = mesh.materials
    ids, first = np.unique(materials, return_index=True)
    ids = ids[np.argsort(first, kind="stable")]
    rank = np.empty(int(materials.max()) + 1 if len(materials) else 1, dtype=np.int64)
    rank[ids] = np.arange(len(ids))
    order = np.argsort(rank[materials], kind="stable")
    counts = np.bincount(rank[materials], minlength=len(ids))
    return ids, np.split(order, np.cumsum(counts)[:-1])


def default_colour(material):
    """A stable, well-spread RGBA colour (uint8) for a material id without a palette."""
    hue = (int(material) * 0.618033988749895) % 1.0
    rgb = np.clip(np.abs((hue * 6.0 + np.array([0.0, 4.0, 2.0])) % 6.0 - 3.0) - 1.0, 0.0, 1.0)
    return np.append(np.round((0.25 + 0.6 * rgb) * 255), 255).astype(np.uint8)


def _write_rows(handle, template, rows):
    for start in range(0, len(rows), _BLOCK):
        block = rows[start:start + _BLOCK]
        handle.write((template * len(block)) % tuple(block.ravel().tolist()))


def write_obj(path, mesh, colours=None):
    """Write ``path`` (.obj) and its .mtl beside it.

    ``colours``: optional (N, 4) uint8 RGBA table indexed by material id (a
    .vox palette); ids beyond it or without one get :func:`default_colour`.
    """
    path = Path(path)
    mtl_path = path.with_suffix(".mtl")
    ids, groups = material_groups(mesh)
    with open(path, "w", encoding="ascii", newline="\n") as handle:
        handle.write(f"# reticulate: {mesh.n_vertices} vertices, {mesh.n_triangles} triangles\n")
        handle.write(f"mtllib {mtl_path.name}\n")
        _write_rows(handle, "v %.9g %.9g %.9g\n", mesh.positions.astype(np.float64))
        for material, group in zip(ids, groups):
            handle.write(f"usemtl retic_{int(material)}\n")
            _write_rows(handle, "f %d %d %d\n", mesh.triangles[group].astype(np.int64) + 1)
    with open(mtl_path, "w", encoding="ascii", newline="\n") as handle:
        for material in ids:
            rgba = _colour(colours, material)
            red, green, blue, alpha = (rgba / 255.0).tolist()
            handle.write(f"newmtl retic_{int(material)}\nKd {red:.6f} {green:.6f} {blue:.6f}\n")
            if alpha < 1.0:
                handle.write(f"d {alpha:.6f}\n")
            handle.write("\n")
    return path, mtl_path


def _colour(colours, material):
    if colours is not None and int(material) < len(colours):
        return np.asarray(colours[int(material)], dtype=np.float64)
    return default_colour(material).astype(np.float64)


PLY_FACE = np.dtype([("n", "u1"), ("indices", "<i4", (3,)), ("material", "<u2")])


def write_ply(path, mesh):
    """Write ``path`` as binary little-endian PLY with a per-face ``material``."""
    faces = np.empty(mesh.n_triangles, dtype=PLY_FACE)
    faces["n"] = 3
    faces["indices"] = mesh.triangles
    faces["material"] = mesh.materials
    header = ("ply\nformat binary_little_endian 1.0\ncomment reticulate\n"
              f"element vertex {mesh.n_vertices}\n"
              "property float x\nproperty float y\nproperty float z\n"
              f"element face {mesh.n_triangles}\n"
              "property list uchar int vertex_indices\nproperty ushort material\nend_header\n")
    with open(path, "wb") as handle:
        handle.write(header.encode("ascii"))
        handle.write(mesh.positions.astype("<f4").tobytes())
        handle.write(faces.tobytes())
    return Path(path)


def write_mesh(path, mesh, colours=None):
    """Write by suffix: .obj (with .mtl) or .ply."""
    suffix = Path(path).suffix.lower()
    if suffix == ".obj":
        return write_obj(path, mesh, colours)
    if suffix == ".ply":
        return write_ply(path, mesh)
    raise ValueError(f"{path}: output must end in .obj or .ply, not {suffix or 'nothing'!r}")
