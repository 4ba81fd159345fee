"""The built zip is a valid extension that installs and registers everything."""
import shutil
import subprocess
import sys
import zipfile

import bpy
from conftest import REPO


def test_zip_holds_manifest_addon_and_compiled_wheel(extension_zip):
    assert extension_zip.name.startswith("reticulate-0.1.0-linux-x64")
    with zipfile.ZipFile(extension_zip) as archive:
        names = archive.namelist()
        manifest = archive.read("blender_manifest.toml").decode()
    assert "__init__.py" in names and "mesh_build.py" in names
    wheels = [n for n in names if n.startswith("wheels/") and n.endswith(".whl")]
    assert len(wheels) == 1 and "linux_x86_64" in wheels[0]
    assert f'wheels = ["./{wheels[0]}"]' in manifest
    with zipfile.ZipFile(extension_zip) as archive, archive.open(wheels[0]) as wheel_file:
        with zipfile.ZipFile(wheel_file) as wheel:
            assert any(n.startswith("reticulate_core/") and n.endswith(".so") for n in wheel.namelist())
            assert not [n for n in wheel.namelist() if n.endswith(".c")]     # Cython's output stays out


def test_zip_is_small(extension_zip):
    """Compiled without debug info and without Cython's C files the zip is about 1.1 MB (7 MB with them)."""
    assert extension_zip.stat().st_size < 2_000_000


def test_build_script_fails_on_invalid_manifest(tmp_path):
    """A manifest blender_ext.py rejects makes the build exit non-zero with its message."""
    manifest = (REPO / "blender_manifest.toml").read_text()
    bad = tmp_path / "blender_manifest.toml"
    bad.write_text(manifest.replace('tagline = "Smallest exact watertight meshes of voxel data"',
                                    'tagline = "Ends with a full stop."'))
    assert bad.read_text() != manifest
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "build_extension.py"),
                           "--dist", str(tmp_path / "dist"), "--manifest", str(bad)],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert "tagline" in done.stderr
    assert not list((tmp_path / "dist").glob("*.zip"))


def test_build_script_rejects_a_core_wheel_that_is_not_one(tmp_path):
    """--core-wheel must name a compiled reticulate_core wheel; otherwise exit 1 and no zip."""
    for name in ("missing.whl", "reticulate_core-0.1.0-py3-none-any.whl", "reticulate_core.zip"):
        fake = tmp_path / name
        if name != "missing.whl":
            fake.write_bytes(b"PK")
        done = subprocess.run([sys.executable, str(REPO / "scripts" / "build_extension.py"),
                               "--dist", str(tmp_path / "dist"), "--core-wheel", str(fake)],
                              capture_output=True, text=True)
        assert done.returncode == 1, name
        assert name in done.stderr
        assert not list((tmp_path / "dist").glob("*.zip"))


def test_clean_core_copy_leaves_out_build_outputs(tmp_path):
    """The copy both core builds start from has every source and no build output."""
    source = tmp_path / "core"
    sources = ["setup.py", "pkg/__init__.py", "pkg/kernel.pyx", "pkg/kernel.pxd", "pkg/rows.h"]
    outputs = ["build/lib/pkg/kernel.so", "pkg/kernel.c", "pkg/kernel.cpython-311-x86_64-linux-gnu.so",
               "pkg/__pycache__/x.cpython-311.pyc", "pkg.egg-info/PKG-INFO", "stray.pyc"]
    for name in sources + outputs:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(name)
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from core_source import clean_core_copy
    finally:
        sys.path.pop(0)
    clean_core_copy(tmp_path / "copy", source)
    copied = sorted(str(p.relative_to(tmp_path / "copy")) for p in (tmp_path / "copy").rglob("*") if p.is_file())
    assert copied == sorted(sources)
    assert (tmp_path / "copy" / "pkg" / "kernel.pyx").read_text() == "pkg/kernel.pyx"


def test_clean_core_copy_of_the_repository_core(tmp_path):
    """``core_source.py TARGET`` copies the repository's core/ with all its sources."""
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "core_source.py"), str(tmp_path / "core")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    wanted = {p.relative_to(REPO / "core") for p in (REPO / "core").rglob("*")
              if p.suffix in (".py", ".pyx", ".pxd", ".toml") and "build" not in p.parts
              and "__pycache__" not in p.parts}
    got = {p.relative_to(tmp_path / "core") for p in (tmp_path / "core").rglob("*")}
    assert wanted and wanted <= got
    assert not [p for p in got if p.suffix in (".so", ".c", ".pyc") or p.name == "build"]
    bad = subprocess.run([sys.executable, str(REPO / "scripts" / "core_source.py")], capture_output=True, text=True)
    assert bad.returncode != 0 and "usage" in bad.stderr


def test_registers_operators_panel_menu_and_settings(addon):
    for name in ("mesh_volume", "import_vox", "mesh_array", "voxel_remesh"):
        assert hasattr(bpy.ops.reticulate, name)
        assert {'REGISTER', 'UNDO'} <= set(getattr(bpy.types, f"RETICULATE_OT_{name}").bl_options)
    assert hasattr(bpy.types, "RETICULATE_PT_main")
    assert bpy.types.RETICULATE_PT_main.bl_category == "Reticulate"
    assert addon.ops_import_vox.menu_import in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()
    assert bpy.context.scene.reticulate.source == 'VOX'


def test_cli_command_runs_the_batch_code(addon, capsys):
    assert addon._cli_handles, "register_cli_command exists in bpy 5.0 and must be used"
    assert addon.batch.cli(["--help"]) == 0
    assert "--out" in capsys.readouterr().out


def test_cli_command_meshes_in_process(addon, tmp_path):
    """``blender -c reticulate`` calls batch.cli with the arguments after the id (no binary here)."""
    from conftest import sample
    out = tmp_path / "cli"
    assert addon.batch.cli([str(sample("rt_torture.vox")), "--out", str(out), "--format", "obj"]) == 0
    assert (out / "rt_torture.obj").is_file()
    assert addon.batch.cli([str(tmp_path / "missing.vox"), "--out", str(out)]) == 1


def test_repository_manifest_validates(tmp_path):
    """The committed manifest, unchanged, beside the add-on package is a valid extension source."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from build_extension import find_blender_ext
    finally:
        sys.path.pop(0)
    source = tmp_path / "reticulate"
    shutil.copytree(REPO / "reticulate_addon", source, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(REPO / "blender_manifest.toml", source / "blender_manifest.toml")
    done = subprocess.run([sys.executable, find_blender_ext(), "validate", str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_bundled_wheel_alone_provides_a_working_core(addon):
    """The core unpacked from the zip's wheel is importable and works (its compiled modules load)."""
    from conftest import USER_RESOURCES
    site = next((REPO / USER_RESOURCES).glob("extensions/.local/lib/python3*/site-packages"))
    assert (site / "reticulate_core").is_dir()
    code = f"""
import sys
sys.path.insert(0, {str(site)!r})
import numpy as np
import reticulate_core as rc
assert rc.__file__.startswith({str(site)!r}), rc.__file__
grid = np.zeros((40, 3, 3), np.uint16)
grid[1:39, 1, 1] = 2
mesh = rc.mesh_grid(grid)
# a 38-voxel bar across the x = 32 chunk seam: regions are cut at seams, so each of
# the 4 long sides is 2 rectangles (16 triangles), plus 2 triangles per end
assert mesh.n_triangles == 20 and set(mesh.materials.tolist()) == {{2}}, mesh
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=site)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
