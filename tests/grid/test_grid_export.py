"""OBJ (+ .mtl) and binary PLY files parse back to the same triangles and materials."""
import struct

import numpy as np
import pytest

import reticulate_core as rc
from reticulate_core.export import write_mesh, write_obj, write_ply


def _mesh():
    volume = np.zeros((40, 36, 20), np.uint16)
    volume[2:30, 3:33, 1:9] = 3
    volume[10:20, 10:20, 9:15] = 1
    volume[35, 0, 0] = 65535
    return rc.mesh_grid(volume)


def read_obj(path):
    positions, triangles, materials, libraries = [], [], [], []
    current = None
    for line in path.read_text().splitlines():
        word, _, rest = line.partition(" ")
        if word == "v":
            positions.append([float(x) for x in rest.split()])
        elif word == "f":
            triangles.append([int(x.split("/")[0]) - 1 for x in rest.split()])
            materials.append(current)
        elif word == "usemtl":
            assert rest.startswith("retic_")
            current = int(rest[len("retic_"):])
        elif word == "mtllib":
            libraries.append(rest)
    return np.array(positions), np.array(triangles), np.array(materials), libraries


def read_mtl(path):
    colours, name = {}, None
    for line in path.read_text().splitlines():
        word, _, rest = line.partition(" ")
        if word == "newmtl":
            name = rest
            colours[name] = [1.0, 1.0, 1.0, 1.0]
        elif word == "Kd":
            colours[name][:3] = [float(x) for x in rest.split()]
        elif word == "d":
            colours[name][3] = float(rest)
    return colours


def read_ply(path):
    data = path.read_bytes()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode("ascii").splitlines()
    assert header[:2] == ["ply", "format binary_little_endian 1.0"]
    counts = {line.split()[1]: int(line.split()[2]) for line in header if line.startswith("element")}
    assert [line for line in header if line.startswith("property")] == [
        "property float x", "property float y", "property float z",
        "property list uchar int vertex_indices", "property ushort material"]
    offset = end
    positions = np.frombuffer(data, "<f4", counts["vertex"] * 3, offset).reshape(-1, 3)
    offset += positions.nbytes
    triangles, materials = [], []
    for _ in range(counts["face"]):
        n, = struct.unpack_from("<B", data, offset)
        triangles.append(struct.unpack_from(f"<{n}i", data, offset + 1))
        materials.append(struct.unpack_from("<H", data, offset + 1 + 4 * n)[0])
        offset += 1 + 4 * n + 2
    assert offset == len(data)
    return positions, np.array(triangles), np.array(materials)


def _as_sets(positions, triangles, materials):
    """Triangles by corner positions (rotation-normalised) with their materials: order-free."""
    corners = positions[triangles]
    result = set()
    for tri, material in zip(corners.tolist(), materials.tolist()):
        k = tri.index(min(tri))
        result.add((tuple(map(tuple, tri[k:] + tri[:k])), material))
    return result


def test_obj_round_trip(tmp_path):
    mesh = _mesh()
    palette = np.zeros((256, 4), np.uint8)
    palette[3] = (255, 0, 0, 255)
    palette[1] = (0, 128, 255, 128)
    obj, mtl = write_obj(tmp_path / "m.obj", mesh, palette)
    positions, triangles, materials, libraries = read_obj(obj)
    assert libraries == ["m.mtl"] and mtl == tmp_path / "m.mtl"
    assert np.array_equal(positions, mesh.positions)
    assert len(triangles) == mesh.n_triangles
    assert _as_sets(positions, triangles, materials) == _as_sets(mesh.positions, mesh.triangles, mesh.materials)
    # one usemtl per material
    assert obj.read_text().count("usemtl") == len(np.unique(mesh.materials))
    colours = read_mtl(mtl)
    assert set(colours) == {f"retic_{m}" for m in np.unique(mesh.materials)}
    assert colours["retic_3"] == [1.0, 0.0, 0.0, 1.0]
    assert colours["retic_1"] == pytest.approx([0.0, 128 / 255, 1.0, 128 / 255], abs=1e-6)
    assert colours["retic_65535"][3] == 1.0  # beyond the palette: a generated opaque colour


def test_ply_round_trip(tmp_path):
    mesh = _mesh()
    path = write_ply(tmp_path / "m.ply", mesh)
    positions, triangles, materials = read_ply(path)
    assert np.array_equal(positions, mesh.positions)
    assert np.array_equal(triangles, mesh.triangles)
    assert np.array_equal(materials, mesh.materials)


def test_empty_mesh_writes_valid_files(tmp_path):
    empty = rc.Mesh.empty()
    positions, triangles, _ = read_ply(write_ply(tmp_path / "e.ply", empty))
    assert len(positions) == 0 and len(triangles) == 0
    positions, triangles, _, _ = read_obj(write_obj(tmp_path / "e.obj", empty)[0])
    assert len(positions) == 0 and len(triangles) == 0


def test_write_mesh_by_suffix(tmp_path):
    mesh = _mesh()
    write_mesh(tmp_path / "a.PLY", mesh)
    assert (tmp_path / "a.PLY").read_bytes().startswith(b"ply\n")
    with pytest.raises(ValueError, match=r"\.obj or \.ply"):
        write_mesh(tmp_path / "a.stl", mesh)
