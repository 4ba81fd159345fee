"""``python -m reticulate_core mesh|stats``: outputs, messages and exit codes, run as a real process."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import reticulate_core as rc

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "vox"


def run(*args, cwd=None):
    env = dict(os.environ)
    package_root = str(Path(rc.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    return subprocess.run([sys.executable, "-m", "reticulate_core", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def obj_counts(path):
    text = path.read_text().splitlines()
    vertices = [list(map(float, l.split()[1:])) for l in text if l.startswith("v ")]
    faces = [l for l in text if l.startswith("f ")]
    groups = [l.split()[1] for l in text if l.startswith("usemtl ")]
    return np.array(vertices), len(faces), groups


def read_obj_triangles(path):
    return np.array([[int(i) - 1 for i in l.split()[1:]] for l in path.read_text().splitlines()
                     if l.startswith("f ")])


@pytest.fixture
def grid_file(tmp_path):
    volume = np.zeros((40, 20, 10), np.uint16)
    volume[1:39, 1:19, 1:5] = 2
    volume[5:10, 5:10, 5:9] = 7
    path = tmp_path / "grid.npy"
    np.save(path, volume)
    return path, volume


def test_mesh_npy_to_obj(tmp_path, grid_file):
    path, volume = grid_file
    out = tmp_path / "out.obj"
    result = run("mesh", path, "-o", out, "--voxel-size", "0.5", "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    expected = rc.mesh_grid(volume)
    vertices, faces, groups = obj_counts(out)
    assert faces == expected.n_triangles and sorted(groups) == ["retic_2", "retic_7"]
    assert np.allclose(vertices, expected.positions * 0.5)
    assert (tmp_path / "out.mtl").is_file()
    assert f"{expected.n_triangles} triangles" in result.stdout


def test_mesh_manifold_ply(tmp_path):
    volume = np.zeros((4, 4, 4), np.uint8)
    volume[1, 1, 1] = volume[2, 2, 1] = 1
    np.save(tmp_path / "pair.npy", volume)
    out = tmp_path / "pair.ply"
    assert run("mesh", tmp_path / "pair.npy", "-o", out, "--manifold").returncode == 0
    header = out.read_bytes().split(b"end_header\n")[0].decode()
    plain = rc.mesh_grid(volume)
    assert f"element vertex {plain.n_vertices + 2}" in header
    assert f"element face {plain.n_triangles}" in header


def test_vox_scene_places_all_models(tmp_path):
    source = SAMPLES / "rt_scenegraph.vox"
    scene = rc.io.read_vox(source)
    out = tmp_path / "scene.obj"
    result = run("mesh", source, "-o", out)
    assert result.returncode == 0, result.stderr
    vertices, faces, groups = obj_counts(out)
    assert faces == sum(rc.mesh_grid(m.voxels).n_triangles for m in scene.models)
    # the vertices are each model's mesh moved by its transform
    expected = set()
    for model in scene.models:
        placed = rc.mesh_grid(model.voxels).positions @ model.transform[:3, :3].T + model.transform[:3, 3]
        expected |= set(map(tuple, np.round(placed, 6).tolist()))
    assert set(map(tuple, np.round(vertices, 6).tolist())) == expected
    # outward winding survives rotations and mirrors: the signed volume is the voxel count
    corners = vertices[read_obj_triangles(out)]
    volume = np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])).sum() / 6
    assert volume == pytest.approx(sum(np.count_nonzero(m.voxels) for m in scene.models))
    mtl = (tmp_path / "scene.mtl").read_text()
    for group in set(groups):
        index = int(group.split("_")[1])
        r, g, b = (scene.palette[index, :3] / 255.0).tolist()
        assert f"newmtl {group}\nKd {r:.6f} {g:.6f} {b:.6f}\n" in mtl


def test_several_inputs_into_a_directory(tmp_path, grid_file):
    path, _ = grid_file
    out = tmp_path / "meshes"
    out.mkdir()
    result = run("mesh", path, SAMPLES / "rt_torture.vox", "-o", out, "--format", "ply")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["grid.ply", "rt_torture.ply"]


def test_several_inputs_need_a_directory(tmp_path, grid_file):
    path, _ = grid_file
    result = run("mesh", path, path, "-o", tmp_path / "one.obj")
    assert result.returncode == 1
    assert "directory" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing.vox", "no such file"),
    (lambda d: (d / "a.txt").write_text("x") and d / "a.txt", "unsupported input format"),
    (lambda d: (d / "bad.vox").write_bytes(b"VOX \x96\x00\x00\x00MAIN") and d / "bad.vox", "bad.vox"),
    (lambda d: (d / "bad.npy").write_bytes(b"not numpy") and d / "bad.npy", "bad.npy"),
    (lambda d: np.save(d / "f.npy", np.zeros((3, 3, 3), np.float32)) or d / "f.npy", "f.npy"),
])
def test_errors_exit_1_without_traceback(tmp_path, make, message):
    source = make(tmp_path)
    for command in (["mesh", source, "-o", tmp_path / "x.obj"], ["stats", source]):
        result = run(*command)
        assert result.returncode == 1, result
        assert message in result.stderr
        assert "Traceback" not in result.stderr
        assert result.stderr.startswith("reticulate: error:")


def test_bad_output_suffix_and_voxel_size(tmp_path, grid_file):
    path, _ = grid_file
    result = run("mesh", path, "-o", tmp_path / "x.stl")
    assert result.returncode == 1 and ".obj or .ply" in result.stderr
    for size in ("0", "inf", "nan"):
        result = run("mesh", path, "-o", tmp_path / "x.obj", "--voxel-size", size)
        assert result.returncode == 1 and "voxel-size" in result.stderr
        assert not (tmp_path / "x.obj").exists()


def test_nan_threshold_is_refused(tmp_path, grid_file):
    path, _ = grid_file
    result = run("mesh", path, "-o", tmp_path / "x.obj", "--threshold", "nan")
    assert result.returncode == 1 and "threshold must be a number" in result.stderr
    assert not (tmp_path / "x.obj").exists()


def test_usage_error_exits_2():
    result = run("mesh")
    assert result.returncode == 2 and "usage" in result.stderr


def test_stats(tmp_path, grid_file):
    path, volume = grid_file
    result = run("stats", path)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines()[1:])
    assert lines["dimensions"] == "40 x 20 x 10"
    assert lines["voxels"] == f"{np.count_nonzero(volume)} solid of {volume.size}"
    assert lines["chunks"] == "2 non-empty / 2"   # x 0..31 and 32..39 both hold voxels
    assert int(lines["triangles"]) == rc.mesh_grid(volume).n_triangles
    assert lines["time"].endswith(" s")


def test_progress_bar_appears_after_one_second(monkeypatch, capsys):
    from reticulate_core import cli
    clock = [100.0]
    monkeypatch.setattr(cli.time, "perf_counter", lambda: clock[0])
    bar = cli._ProgressBar("big.npy")
    bar(1, 10)
    clock[0] += 0.9
    bar(2, 10)
    assert capsys.readouterr().err == ""
    clock[0] += 0.2
    bar(5, 10)
    bar(10, 10)
    bar.close()
    err = capsys.readouterr().err
    assert "big.npy" in err and "5/10 chunks" in err and "10/10 chunks" in err and err.endswith("\n")


def test_mirrored_vox_model_keeps_outward_winding(tmp_path):
    from reticulate_core.io.vox import corner_transform
    voxels = np.zeros((4, 3, 2), np.uint8)
    voxels[:3, :2, :] = 5
    voxels[3, 2, 1] = 9
    mirror = np.diag([-1.0, 1.0, 1.0])
    model = rc.io.VoxModel(voxels, corner_transform(mirror, (10, 0, 0), voxels.shape))
    source = tmp_path / "mirror.vox"
    rc.io.write_vox(source, [model])
    assert np.linalg.det(rc.io.read_vox(source).models[0].transform[:3, :3]) < 0
    out = tmp_path / "mirror.obj"
    assert run("mesh", source, "-o", out).returncode == 0
    vertices, _, _ = obj_counts(out)
    corners = vertices[read_obj_triangles(out)]
    volume = np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])).sum() / 6
    assert volume == pytest.approx(np.count_nonzero(voxels))
    # x -> -(x - 4 // 2) + 10: the box [0, 4] lands on [8, 12]
    assert vertices[:, 0].min() == 8 and vertices[:, 0].max() == 12
