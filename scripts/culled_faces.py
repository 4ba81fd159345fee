"""The plain baseline the benchmarks and the demo compare against.

``culled_face_mesh(volume)`` is a naive culled-face mesher in vectorised
numpy: two counter-clockwise triangles per solid/empty unit face of any
(X, Y, Z) grid (outside counts as empty), no merging and no welding.
"""
import numpy as np

import reticulate_core as rc

# unit-square corners in (u, v) and the two counter-clockwise triangles over them
_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]])
_QUAD_TRIANGLES = np.array([[0, 1, 2], [0, 2, 3]])


def culled_face_mesh(volume):
    """Two triangles per exposed unit face, as an ``rc.Mesh`` (positions repeat)."""
    padded = np.pad(volume, 1)
    positions, triangles, materials, faces = [], [], [], []
    n_vertices = 0
    for axis in range(3):
        u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
        moved = np.moveaxis(padded, (axis, u_axis, v_axis), (0, 1, 2))[:, 1:-1, 1:-1]
        lower, upper = moved[:-1], moved[1:]
        for positive, solid, empty in ((True, lower, upper), (False, upper, lower)):
            layer, u, v = np.nonzero((solid != 0) & (empty == 0))
            corners = np.empty((len(layer), 4, 3), np.float32)
            corners[:, :, axis] = layer[:, None]
            corners[:, :, u_axis] = u[:, None] + _SQUARE[:, 0]
            corners[:, :, v_axis] = v[:, None] + _SQUARE[:, 1]
            quads = _QUAD_TRIANGLES if positive else _QUAD_TRIANGLES[:, ::-1]
            index = n_vertices + 4 * np.arange(len(layer))[:, None, None] + quads[None]
            positions.append(corners.reshape(-1, 3))
            triangles.append(index.reshape(-1, 3))
            materials.append(np.repeat(solid[layer, u, v], 2))
            faces.append(np.full(2 * len(layer), 2 * axis + int(positive), np.uint8))
            n_vertices += 4 * len(layer)
    # final dtypes, wrapped unchecked like the core meshers' own output
    return rc.Mesh._wrap(np.concatenate(positions), np.concatenate(triangles).astype(np.int32),
                         np.concatenate(materials).astype(np.uint16, copy=False), np.concatenate(faces))
