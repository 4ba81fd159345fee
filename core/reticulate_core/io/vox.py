"""MagicaVoxel .vox reader (file versions 150 and 200, with the scene graph).

What a scene holds:

* ``VoxScene.palette``: (256, 4) uint8 RGBA; row ``i`` is the colour of palette
  index ``i`` (the file's RGBA entry ``k`` is row ``k + 1``; row 0 is unused).
  Files without an RGBA chunk get MagicaVoxel's default palette.
* ``VoxScene.models``: one :class:`VoxModel` per shape instance of the scene
  graph, in depth-first order; instances of one model share the same
  ``voxels`` array object. A file without a scene graph gives one model per
  SIZE/XYZI pair in file order, at the identity transform.
* ``VoxModel.voxels``: uint16 ``[x, y, z]``, 0 empty, else the palette index
  1..255.

Transform convention. A transform node holds a rotation ``R`` (a signed
permutation decoded from ``_r``) and an integer translation ``t`` (``_t``).
Down the tree the node affines compose as matrices, parent @ child. With the
composed ``R`` and ``t``, a model of size ``s`` turns about its grid corner
``s // 2`` (its middle rounded down to the grid: MagicaVoxel pivots on a grid
corner, never on a voxel centre), which lands on ``t``. Voxel ``v`` (integer
index) lands on the world voxel ``floor(R @ (v + 1/2 - s // 2)) + t``: one
voxel lower, along every world axis whose row of ``R`` is negative, than the
voxel-centre rule ``R @ (v - s // 2) + t``. ``VoxModel.transform`` is the 4x4
that maps voxel-corner coordinates ``p`` of ``voxels`` to world corners, so
that the unit cube of a voxel maps onto the unit cube of its world voxel:
``p -> R @ (p - s // 2) + t``.

Hostile input raises :class:`VoxFormatError` naming the file and byte offset;
nothing larger than ``max_voxels`` dense voxels is allocated.
"""
import struct
from dataclasses import dataclass

import numpy as np

from .errors import DEFAULT_MAX_VOXELS, VoxFormatError

SUPPORTED_VERSIONS = (150, 200)
MAX_AXIS = 2048
"""Largest SIZE accepted along one axis."""
MAX_NODE_VISITS = 1 << 18
"""Bound on the scene-graph expansion (shared subgraphs multiply visits)."""

_DEFAULT_PALETTE_ABGR = [
    0x00000000, 0xffffffff, 0xffccffff, 0xff99ffff, 0xff66ffff, 0xff33ffff, 0xff00ffff, 0xffffccff,
    0xffccccff, 0xff99ccff, 0xff66ccff, 0xff33ccff, 0xff00ccff, 0xffff99ff, 0xffcc99ff, 0xff9999ff,
    0xff6699ff, 0xff3399ff, 0xff0099ff, 0xffff66ff, 0xffcc66ff, 0xff9966ff, 0xff6666ff, 0xff3366ff,
    0xff0066ff, 0xffff33ff, 0xffcc33ff, 0xff9933ff, 0xff6633ff, 0xff3333ff, 0xff0033ff, 0xffff00ff,
    0xffcc00ff, 0xff9900ff, 0xff6600ff, 0xff3300ff, 0xff0000ff, 0xffffffcc, 0xffccffcc, 0xff99ffcc,
    0xff66ffcc, 0xff33ffcc, 0xff00ffcc, 0xffffcccc, 0xffcccccc, 0xff99cccc, 0xff66cccc, 0xff33cccc,
    0xff00cccc, 0xffff99cc, 0xffcc99cc, 0xff9999cc, 0xff6699cc, 0xff3399cc, 0xff0099cc, 0xffff66cc,
    0xffcc66cc, 0xff9966cc, 0xff6666cc, 0xff3366cc, 0xff0066cc, 0xffff33cc, 0xffcc33cc, 0xff9933cc,
    0xff6633cc, 0xff3333cc, 0xff0033cc, 0xffff00cc, 0xffcc00cc, 0xff9900cc, 0xff6600cc, 0xff3300cc,
    0xff0000cc, 0xffffff99, 0xffccff99, 0xff99ff99, 0xff66ff99, 0xff33ff99, 0xff00ff99, 0xffffcc99,
    0xffcccc99, 0xff99cc99, 0xff66cc99, 0xff33cc99, 0xff00cc99, 0xffff9999, 0xffcc9999, 0xff999999,
    0xff669999, 0xff339999, 0xff009999, 0xffff6699, 0xffcc6699, 0xff996699, 0xff666699, 0xff336699,
    0xff006699, 0xffff3399, 0xffcc3399, 0xff993399, 0xff663399, 0xff333399, 0xff003399, 0xffff0099,
    0xffcc0099, 0xff990099, 0xff660099, 0xff330099, 0xff000099, 0xffffff66, 0xffccff66, 0xff99ff66,
    0xff66ff66, 0xff33ff66, 0xff00ff66, 0xffffcc66, 0xffcccc66, 0xff99cc66, 0xff66cc66, 0xff33cc66,
    0xff00cc66, 0xffff9966, 0xffcc9966, 0xff999966, 0xff669966, 0xff339966, 0xff009966, 0xffff6666,
    0xffcc6666, 0xff996666, 0xff666666, 0xff336666, 0xff006666, 0xffff3366, 0xffcc3366, 0xff993366,
    0xff663366, 0xff333366, 0xff003366, 0xffff0066, 0xffcc0066, 0xff990066, 0xff660066, 0xff330066,
    0xff000066, 0xffffff33, 0xffccff33, 0xff99ff33, 0xff66ff33, 0xff33ff33, 0xff00ff33, 0xffffcc33,
    0xffcccc33, 0xff99cc33, 0xff66cc33, 0xff33cc33, 0xff00cc33, 0xffff9933, 0xffcc9933, 0xff999933,
    0xff669933, 0xff339933, 0xff009933, 0xffff6633, 0xffcc6633, 0xff996633, 0xff666633, 0xff336633,
    0xff006633, 0xffff3333, 0xffcc3333, 0xff993333, 0xff663333, 0xff333333, 0xff003333, 0xffff0033,
    0xffcc0033, 0xff990033, 0xff660033, 0xff330033, 0xff000033, 0xffffff00, 0xffccff00, 0xff99ff00,
    0xff66ff00, 0xff33ff00, 0xff00ff00, 0xffffcc00, 0xffcccc00, 0xff99cc00, 0xff66cc00, 0xff33cc00,
    0xff00cc00, 0xffff9900, 0xffcc9900, 0xff999900, 0xff669900, 0xff339900, 0xff009900, 0xffff6600,
    0xffcc6600, 0xff996600, 0xff666600, 0xff336600, 0xff006600, 0xffff3300, 0xffcc3300, 0xff993300,
    0xff663300, 0xff333300, 0xff003300, 0xffff0000, 0xffcc0000, 0xff990000, 0xff660000, 0xff330000,
    0xff0000ee, 0xff0000dd, 0xff0000bb, 0xff0000aa, 0xff000088, 0xff000077, 0xff000055, 0xff000044,
    0xff000022, 0xff000011, 0xff00ee00, 0xff00dd00, 0xff00bb00, 0xff00aa00, 0xff008800, 0xff007700,
    0xff005500, 0xff004400, 0xff002200, 0xff001100, 0xffee0000, 0xffdd0000, 0xffbb0000, 0xffaa0000,
    0xff880000, 0xff770000, 0xff550000, 0xff440000, 0xff220000, 0xff110000, 0xffeeeeee, 0xffdddddd,
    0xffbbbbbb, 0xffaaaaaa, 0xff888888, 0xff777777, 0xff555555, 0xff444444, 0xff222222, 0xff111111,
]
DEFAULT_PALETTE = np.array(_DEFAULT_PALETTE_ABGR, dtype="<u4").view(np.uint8).reshape(256, 4)
"""MagicaVoxel's palette for files without RGBA, indexed by palette index (row 0 unused)."""
DEFAULT_PALETTE.flags.writeable = False


@dataclass
class VoxModel:
    """One placed instance of a model: voxels, voxel-corner -> world transform, scene facts."""
    voxels: np.ndarray
    transform: np.ndarray
    model_id: int = 0
    name: str = ""
    layer: int = -1
    hidden: bool = False


@dataclass
class VoxLayer:
    layer_id: int
    name: str = ""
    hidden: bool = False


@dataclass
class VoxScene:
    """``materials``: palette index (1..255) -> MATL properties, keys without their leading
    underscore, numbers as float, ``type`` as "diffuse"/"metal"/"glass"/"emit"/"blend"/"media";
    ``layers``: layer id -> VoxLayer; ``version``: the file's version number."""
    models: list
    palette: np.ndarray
    materials: dict
    layers: dict
    version: int


def rotation_from_byte(value):
    """The signed permutation matrix packed in a ``_r`` byte; ValueError if none."""
    first, second = value & 3, (value >> 2) & 3
    if not 0 <= value <= 127 or first > 2 or second > 2 or first == second:
        raise ValueError(f"rotation byte {value} is not a valid signed permutation")
    rotation = np.zeros((3, 3), dtype=np.int64)
    for row, column in enumerate((first, second, 3 - first - second)):
        rotation[row, column] = -1 if value & (16 << row) else 1
    return rotation


def rotation_to_byte(rotation):
    """Pack a signed permutation matrix into a ``_r`` byte; ValueError for any other matrix."""
    rotation = np.asarray(rotation, dtype=np.float64)
    columns = np.argmax(np.abs(rotation), axis=1)
    signs = rotation[np.arange(3), columns]
    expected = np.zeros((3, 3))
    expected[np.arange(3), columns] = np.sign(signs)
    if sorted(columns) != [0, 1, 2] or not np.array_equal(rotation, expected):
        raise ValueError(f"rotation {rotation.tolist()} is not a signed permutation matrix")
    value = int(columns[0]) | int(columns[1]) << 2
    for row in range(3):
        if signs[row] < 0:
            value |= 16 << row
    return value


def corner_transform(rotation, translation, size):
    """4x4 voxel-corner -> world transform of a model of ``size`` under a node affine (R, t)."""
    pivot = np.asarray(size, dtype=np.int64) // 2
    transform = np.eye(4)
    transform[:3, :3] = rotation
    transform[:3, 3] = np.asarray(translation, dtype=np.float64) - np.asarray(rotation) @ pivot
    return transform


def node_affine(transform, size):
    """Inverse of :func:`corner_transform`: the (R, t) a node must hold to place ``size`` so."""
    transform = np.asarray(transform, dtype=np.float64)
    if transform.shape != (4, 4) or not np.array_equal(transform[3], [0, 0, 0, 1]):
        raise ValueError(f"a .vox transform must be a 4x4 affine matrix, got {transform.tolist()}")
    rotation = transform[:3, :3]
    rotation_to_byte(rotation)
    translation = transform[:3, 3] + rotation @ (np.asarray(size, dtype=np.int64) // 2)
    if not np.array_equal(translation, np.round(translation)):
        raise ValueError(f"a .vox transform must move voxels by whole voxels, got {transform.tolist()}")
    return rotation.astype(np.int64), np.round(translation).astype(np.int64)


def read_vox(path, *, max_voxels=DEFAULT_MAX_VOXELS):
    """Read a .vox file into a :class:`VoxScene` (a file without the magic is not read further)."""
    with open(path, "rb") as f:
        data = f.read(4)
        if data == b"VOX ":
            data += f.read()
    return read_vox_bytes(data, str(path), max_voxels=max_voxels)


def read_vox_bytes(data, name="<bytes>", *, max_voxels=DEFAULT_MAX_VOXELS):
    """Parse the bytes of a .vox file; ``name`` appears in error messages."""
    return _Parser(bytes(data), name, max_voxels).parse()


class _Cursor:
    """Bounds-checked little-endian reads inside ``[pos, end)`` of one chunk."""

    def __init__(self, parser, pos, end, chunk):
        self.parser, self.pos, self.end, self.chunk = parser, pos, end, chunk

    def take(self, count, what):
        if count < 0 or count > self.end - self.pos:
            raise self.parser.fail(self.pos, f"{self.chunk} chunk: {what} needs {count} bytes, "
                                             f"{self.end - self.pos} left in the chunk")
        start = self.pos
        self.pos += count
        return self.parser.data[start:self.pos]

    def int32(self, what):
        return struct.unpack("<i", self.take(4, what))[0]

    def count(self, what, item_bytes):
        """A non-negative int32 count whose items (at least ``item_bytes`` each) fit the chunk."""
        at = self.pos
        value = self.int32(what)
        if value < 0:
            raise self.parser.fail(at, f"{self.chunk} chunk: negative {what} {value}")
        if value * item_bytes > self.end - self.pos:
            raise self.parser.fail(at, f"{self.chunk} chunk: {what} {value} overruns the chunk "
                                       f"({self.end - self.pos} bytes left)")
        return value

    def string(self, what):
        return self.take(self.count(f"length of {what}", 1), what).decode("utf-8", "replace")

    def dict(self, what):
        entries = self.count(f"entry count of {what}", 8)
        return {self.string(f"key of {what}"): self.string(f"value of {what}") for _ in range(entries)}


@dataclass
class _Node:
    kind: str            # "nTRN", "nGRP" or "nSHP"
    offset: int
    attributes: dict
    children: list       # node ids (nTRN: one, nGRP: many, nSHP: none)
    rotation: np.ndarray = None
    translation: np.ndarray = None
    layer: int = -1
    model_id: int = -1


class _Parser:
    def __init__(self, data, name, max_voxels):
        self.data, self.name, self.max_voxels = data, name, max_voxels
        self.grids, self.palette, self.materials, self.layers, self.nodes = [], None, {}, {}, {}
        self.pending_size, self.allocated = None, 0

    def fail(self, offset, problem):
        return VoxFormatError(self.name, offset, problem)

    def parse(self):
        if len(self.data) < 8 or self.data[:4] != b"VOX ":
            raise self.fail(0, f"not a .vox file (magic {self.data[:4]!r}, expected b'VOX ')")
        version = struct.unpack_from("<i", self.data, 4)[0]
        if version not in SUPPORTED_VERSIONS:
            raise self.fail(4, f"unsupported .vox version {version} (supported: {SUPPORTED_VERSIONS})")
        chunk_id, offset, _, children, stop = next(self.chunks(8, len(self.data)), (None,) * 5)
        if chunk_id != b"MAIN":
            raise self.fail(8, f"expected the MAIN chunk, found {chunk_id!r}")
        for chunk_id, offset, content, children_start, _ in self.chunks(children, stop):
            handler = self.handlers.get(chunk_id)
            if handler is not None:
                handler(self, _Cursor(self, content, children_start, chunk_id.decode("latin-1")), offset)
        palette = DEFAULT_PALETTE.copy() if self.palette is None else self.palette
        return VoxScene(self.scene_models(), palette, self.materials, self.layers, version)

    def chunks(self, pos, end):
        """(id, offset, content start, children start, end) of each chunk in ``[pos, end)``."""
        while pos < end:
            if end - pos < 12:
                raise self.fail(pos, f"truncated chunk header ({end - pos} bytes left, 12 needed)")
            chunk_id = self.data[pos:pos + 4]
            content_bytes, children_bytes = struct.unpack_from("<ii", self.data, pos + 4)
            if content_bytes < 0 or children_bytes < 0:
                raise self.fail(pos, f"chunk {chunk_id!r} has a negative size "
                                     f"({content_bytes} content, {children_bytes} children)")
            stop = pos + 12 + content_bytes + children_bytes
            if stop > end:
                raise self.fail(pos, f"chunk {chunk_id!r} of {content_bytes} + {children_bytes} bytes "
                                     f"overruns its parent, which ends at byte {end}")
            yield chunk_id, pos, pos + 12, pos + 12 + content_bytes, stop
            pos = stop

    def read_pack(self, cursor, offset):
        cursor.count("model count", 0)

    def read_size(self, cursor, offset):
        size = tuple(cursor.int32("model size") for _ in range(3))
        if not all(1 <= axis <= MAX_AXIS for axis in size):
            raise self.fail(offset, f"model size {size} outside 1..{MAX_AXIS} per axis")
        count = size[0] * size[1] * size[2]
        if self.allocated + count > self.max_voxels:
            raise self.fail(offset, f"model size {size} would bring the dense voxels of the file to "
                                    f"{self.allocated + count}, above the limit of {self.max_voxels}")
        self.pending_size = size

    def read_xyzi(self, cursor, offset):
        if self.pending_size is None:
            raise self.fail(offset, "XYZI chunk without a SIZE chunk before it")
        size, self.pending_size = self.pending_size, None
        start = cursor.pos + 4
        count = cursor.count("voxel count", 4)
        voxels = np.frombuffer(cursor.take(4 * count, "voxels"), dtype=np.uint8).reshape(count, 4)
        outside = (voxels[:, :3] >= np.array(size)).any(axis=1)
        if outside.any():
            i = int(np.argmax(outside))
            raise self.fail(start + 4 * i, f"voxel {i} at {tuple(voxels[i, :3].tolist())} lies "
                                           f"outside the model size {size}")
        if count and not voxels[:, 3].all():
            i = int(np.argmin(voxels[:, 3]))
            raise self.fail(start + 4 * i, f"voxel {i} uses palette index 0, which means empty")
        grid = np.zeros(size, dtype=np.uint16)
        grid[voxels[:, 0], voxels[:, 1], voxels[:, 2]] = voxels[:, 3]
        self.allocated += grid.size
        self.grids.append(grid)

    def read_rgba(self, cursor, offset):
        entries = np.frombuffer(cursor.take(1024, "palette"), dtype=np.uint8).reshape(256, 4)
        self.palette = np.zeros((256, 4), dtype=np.uint8)
        self.palette[1:] = entries[:255]

    def read_matl(self, cursor, offset):
        index = cursor.int32("material id")
        if not 0 <= index <= 256:
            raise self.fail(offset, f"material id {index} outside 0..256")
        properties = {}
        for key, value in cursor.dict("material properties").items():
            key = key.lstrip("_")
            if key == "type":
                properties[key] = value.lstrip("_")
            else:
                try:
                    properties[key] = float(value)
                except ValueError:
                    properties[key] = value
        if 1 <= index <= 255:  # MagicaVoxel also writes ids 0 and 256, which no voxel can use
            self.materials[index] = properties

    def read_layr(self, cursor, offset):
        layer_id = cursor.int32("layer id")
        attributes = cursor.dict("layer attributes")
        self.layers[layer_id] = VoxLayer(layer_id, attributes.get("_name", ""),
                                         attributes.get("_hidden", "0") == "1")

    def add_node(self, node_id, node):
        if node_id in self.nodes:
            raise self.fail(node.offset, f"scene-graph node id {node_id} defined twice")
        self.nodes[node_id] = node

    def read_ntrn(self, cursor, offset):
        node_id = cursor.int32("node id")
        attributes = cursor.dict("node attributes")
        child = cursor.int32("child node id")
        cursor.int32("reserved id")
        layer = cursor.int32("layer id")
        frames = [cursor.dict("frame attributes") for _ in range(cursor.count("frame count", 4))]
        frame = next((f for f in frames if f.get("_f", "0") == "0"), frames[0] if frames else {})
        rotation, translation = self.frame_affine(frame, offset)
        self.add_node(node_id, _Node("nTRN", offset, attributes, [child], rotation, translation, layer))

    def frame_affine(self, frame, offset):
        try:
            rotation = rotation_from_byte(int(frame.get("_r", "4")))
        except ValueError:
            raise self.fail(offset, f"transform rotation _r={frame.get('_r')!r} is not a valid "
                                    f"signed permutation byte") from None
        try:
            translation = np.array([int(v) for v in frame.get("_t", "0 0 0").split()], dtype=np.int64)
        except (ValueError, OverflowError):
            translation = None
        if translation is None or translation.shape != (3,) or np.abs(translation).max() >= 1 << 31:
            raise self.fail(offset, f"transform translation _t={frame.get('_t')!r} is not three int32")
        return rotation, translation

    def read_ngrp(self, cursor, offset):
        node_id = cursor.int32("node id")
        attributes = cursor.dict("node attributes")
        children = [cursor.int32("child node id") for _ in range(cursor.count("child count", 4))]
        self.add_node(node_id, _Node("nGRP", offset, attributes, children))

    def read_nshp(self, cursor, offset):
        node_id = cursor.int32("node id")
        attributes = cursor.dict("node attributes")
        shapes = []
        for _ in range(cursor.count("model count", 8)):
            shapes.append((cursor.int32("model id"), cursor.dict("model attributes")))
        if not shapes:
            raise self.fail(offset, f"shape node {node_id} has no model")
        model_id = next((m for m, a in shapes if a.get("_f", "0") == "0"), shapes[0][0])
        self.add_node(node_id, _Node("nSHP", offset, attributes, [], model_id=model_id))

    handlers = {b"PACK": read_pack, b"SIZE": read_size, b"XYZI": read_xyzi, b"RGBA": read_rgba,
                b"MATL": read_matl, b"LAYR": read_layr, b"nTRN": read_ntrn, b"nGRP": read_ngrp,
                b"nSHP": read_nshp}

    def scene_models(self):
        if not self.nodes:
            return [VoxModel(grid, np.eye(4), i) for i, grid in enumerate(self.grids)]
        self.check_graph()
        models = []
        identity = np.eye(4, dtype=np.int64)
        stack = [(0, identity, False, -1, "")]
        while stack:
            node_id, affine, hidden, layer, name = stack.pop()
            node = self.nodes[node_id]
            hidden = hidden or node.attributes.get("_hidden", "0") == "1"
            if node.kind == "nTRN":
                local = np.eye(4, dtype=np.int64)
                local[:3, :3], local[:3, 3] = node.rotation, node.translation
                affine = affine @ local
                layer, name = node.layer, node.attributes.get("_name", "")
                hidden = hidden or (layer in self.layers and self.layers[layer].hidden)
            elif node.kind == "nSHP":
                grid = self.grids[node.model_id]
                models.append(VoxModel(grid, corner_transform(affine[:3, :3], affine[:3, 3], grid.shape),
                                       node.model_id, name, layer, hidden))
            stack.extend((child, affine, hidden, layer, name) for child in reversed(node.children))
        return models

    def check_graph(self):
        """Root 0 exists, references resolve, no cycle is reachable from the root, and the
        depth-first expansion (shared subgraphs count once per use) stays within bounds."""
        if 0 not in self.nodes:
            first = min(node.offset for node in self.nodes.values())
            raise self.fail(first, "scene graph has no root node 0")
        for node_id, node in self.nodes.items():
            for child in node.children:
                if child not in self.nodes:
                    raise self.fail(node.offset, f"node {node_id} refers to missing node {child}")
            if node.kind == "nSHP" and not 0 <= node.model_id < len(self.grids):
                raise self.fail(node.offset, f"shape node {node_id} refers to missing model "
                                             f"{node.model_id} (the file has {len(self.grids)})")
        state = {}  # node id -> 1 on the current path, 2 done
        visits = {}  # node id -> nodes visited when expanding it (capped past the limit)
        stack = [(0, iter(self.nodes[0].children))]
        state[0] = 1
        while stack:
            node_id, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node_id] = 2
                visits[node_id] = min(1 + sum(visits[c] for c in self.nodes[node_id].children),
                                      MAX_NODE_VISITS + 1)
                stack.pop()
            elif state.get(child) == 1:
                raise self.fail(self.nodes[node_id].offset,
                                f"scene graph cycle: node {node_id} leads back to node {child}")
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(self.nodes[child].children)))
        if visits[0] > MAX_NODE_VISITS:
            raise self.fail(self.nodes[0].offset, f"scene graph expands to more than "
                                                  f"{MAX_NODE_VISITS} node visits")
