"""The voxel row kernels (voxel_rows.pxd): the solid masks are built with
AVX2 where the CPU has it, else with SSE2 (plain C in the checked build),
and every kernel gives the same meshes, byte for byte."""
import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from reticulate_core import mesh_chunk, mesh_grid
from reticulate_core.mesher import row_kernel


def mesh_digest():
    """SHA-256 of the meshes of random chunks (one to eight materials, some
    extruded, some with id 65535) and of grids, whose chunks have halos."""
    rng = np.random.default_rng(2026)
    digest = hashlib.sha256()
    meshes = []
    for i in range(120):
        density = rng.uniform(0.01, 0.99)
        ids = rng.integers(1, int(rng.integers(1, 9)) + 1, (32, 32, 32))
        chunk = np.where(rng.random((32, 32, 32)) < density, ids, 0).astype(np.uint16)
        if i % 3 == 0:
            chunk[:] = chunk[:, :, :1]
        if i % 5 == 0:
            chunk[chunk != 0] = 65535
        meshes.append(mesh_chunk(chunk))
    for i in range(3):
        ids = rng.integers(1, 2 + i, (70, 45, 66))
        meshes.append(mesh_grid(np.where(rng.random((70, 45, 66)) < 0.3 + 0.2 * i, ids, 0).astype(np.uint16)))
    for mesh in meshes:
        for array in (mesh.positions, mesh.triangles, mesh.materials, mesh.faces):
            digest.update(array.tobytes())
    return digest.hexdigest()


def cpu_has_avx2():
    """Whether /proc/cpuinfo lists AVX2; None where there is no such file."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return any(line.startswith("flags") and " avx2" in line for line in cpuinfo)
    except OSError:
        return None


def test_the_cpu_picks_the_kernel():
    avx2 = cpu_has_avx2()
    if avx2 is None:
        pytest.skip("no /proc/cpuinfo to tell what the CPU has")
    if row_kernel() == "portable":
        pytest.skip("the portable build has one kernel")
    assert row_kernel() == ("avx2" if avx2 else "sse2")


def test_sse2_and_avx2_give_the_same_meshes():
    if row_kernel() != "avx2":
        pytest.skip(f"only the {row_kernel()} kernel runs on this build and CPU")
    env = dict(os.environ, RETICULATE_NO_AVX2="1")
    other = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True,
                           check=True).stdout.split()
    assert other[0] == "sse2"
    assert other[1] == mesh_digest()


if __name__ == "__main__":
    print(row_kernel(), mesh_digest())
