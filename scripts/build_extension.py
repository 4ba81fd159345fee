"""Build the Blender extension zip: dist/reticulate-<version>-<platform>.zip.

Steps: validate the manifest and the add-on package first (staged without a
wheel, so a bad manifest fails in seconds), build the reticulate_core wheel
for this interpreter and platform (``pip wheel --no-deps --no-build-isolation``
on a clean copy of ``core/``, so in-place development builds never leak into
the release; ``--core-wheel`` takes one built that same way by
``scripts/build_core.sh --wheel-dir``), lay out a staging folder (the add-on
package at the root, the wheel under ``wheels/``, and a manifest naming
exactly that wheel and this platform), then build and validate the zip with
Blender's own ``blender_ext.py`` found inside the installed ``bpy`` package.
Exits non-zero if any step fails.

Run it with the project's venv python: ``.venv/bin/python scripts/build_extension.py``.
"""
import argparse
import glob
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from core_source import clean_core_copy

REPO = Path(__file__).resolve().parent.parent
ADDON_DIR = REPO / "reticulate_addon"
MANIFEST = REPO / "blender_manifest.toml"


class BuildError(Exception):
    pass


def blender_platform():
    """This machine's platform in the manifest's spelling, e.g. ``linux-x64``."""
    system = {"Linux": "linux", "Darwin": "macos", "Windows": "windows"}.get(platform.system())
    machine = {"x86_64": "x64", "AMD64": "x64", "arm64": "arm64", "aarch64": "arm64"}.get(platform.machine())
    if system is None or machine is None:
        raise BuildError(f"unsupported platform {platform.system()} {platform.machine()}")
    return f"{system}-{machine}"


def find_blender_ext():
    """The path of blender_ext.py inside the installed bpy package (bpy is not imported)."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("the bpy package is not installed in this python; run scripts/bootstrap.sh")
    for location in spec.submodule_search_locations:
        found = sorted(glob.glob(os.path.join(location, "*", "scripts", "addons_core", "bl_pkg", "cli", "blender_ext.py")))
        if found:
            return found[-1]
    raise BuildError("blender_ext.py not found inside the bpy package")


def run(cmd, what):
    print("build_extension:", what, flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise BuildError(f"{what} failed (exit {done.returncode}):\n{done.stdout}")
    return done.stdout


def checked_core_wheel(wheel):
    """``wheel`` if it is a compiled reticulate_core wheel, else BuildError."""
    if not wheel.is_file() or not wheel.name.startswith("reticulate_core-") or wheel.suffix != ".whl":
        raise BuildError(f"{wheel} is not a reticulate_core wheel file")
    if list((REPO / "core" / "reticulate_core").glob("*.pyx")) and wheel.name.endswith("-none-any.whl"):
        raise BuildError(f"{wheel.name} has no compiled modules although the core has .pyx sources")
    return wheel


def build_core_wheel(out_dir):
    source = clean_core_copy(Path(out_dir).parent / "core-source")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--quiet", str(source), "-w", str(out_dir)], "building the reticulate_core wheel from a clean copy of core/")
    wheels = sorted(Path(out_dir).glob("reticulate_core-*.whl"))
    if len(wheels) != 1:
        raise BuildError(f"expected one reticulate_core wheel, found {[w.name for w in wheels]}")
    return checked_core_wheel(wheels[0])


def staged_manifest(text, wheel_name, platform_name):
    """The repository manifest with ``platforms`` and ``wheels`` set to this build
    (``wheels = []`` when ``wheel_name`` is None)."""
    wheels = f'["./wheels/{wheel_name}"]' if wheel_name else "[]"
    replacements = {
        "platforms": f'platforms = ["{platform_name}"]',
        "wheels": f"wheels = {wheels}",
    }
    for key, line in replacements.items():
        text, count = re.subn(rf"(?m)^{key}\s*=.*$", line, text)
        if count != 1:
            raise BuildError(f"blender_manifest.toml must have exactly one top-level '{key} = ...' line")
    return text


def lay_out(stage, wheel, platform_name, manifest_path):
    """The add-on package, ``wheel`` (if not None) under ``wheels/`` and the staged manifest."""
    shutil.copytree(ADDON_DIR, stage, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if wheel is not None:
        (stage / "wheels").mkdir()
        shutil.copy2(wheel, stage / "wheels" / wheel.name)
    manifest = staged_manifest(manifest_path.read_text(), wheel and wheel.name, platform_name)
    tomllib.loads(manifest)
    (stage / "blender_manifest.toml").write_text(manifest)


def build(dist_dir, manifest_path=MANIFEST, core_wheel=None):
    """Build and validate the zip in dist_dir; bundle core_wheel if given, else build one."""
    try:
        manifest = tomllib.loads(manifest_path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise BuildError(f"cannot read {manifest_path}: {error}") from None
    version = manifest["version"]
    platform_name = blender_platform()
    blender_ext = find_blender_ext()
    dist_dir.mkdir(parents=True, exist_ok=True)
    target = dist_dir / f"reticulate-{version}-{platform_name}.zip"
    with tempfile.TemporaryDirectory(prefix="reticulate-build-") as tmp:
        tmp = Path(tmp)
        lay_out(tmp / "precheck", None, platform_name, manifest_path)
        run([sys.executable, blender_ext, "validate", str(tmp / "precheck")],
            "validating the manifest and the add-on before building the core")
        wheel = checked_core_wheel(core_wheel) if core_wheel else build_core_wheel(tmp / "wheel")
        stage = tmp / "reticulate"
        lay_out(stage, wheel, platform_name, manifest_path)
        run([sys.executable, blender_ext, "validate", str(stage)], "validating the staged extension")
        zip_dir = tmp / "zip"
        zip_dir.mkdir()
        run([sys.executable, blender_ext, "build", "--source-dir", str(stage),
             "--output-dir", str(zip_dir)], "building the zip with blender_ext.py")
        built = sorted(zip_dir.glob("*.zip"))
        if len(built) != 1:
            raise BuildError(f"blender_ext.py build wrote {[b.name for b in built]}, expected one zip")
        target.unlink(missing_ok=True)
        shutil.move(str(built[0]), target)
    run([sys.executable, blender_ext, "validate", str(target)], f"validating {target.name}")
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=REPO / "dist", help="output folder (default: dist/)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST,
                        help="manifest to build from (default: blender_manifest.toml)")
    parser.add_argument("--core-wheel", type=Path,
                        help="bundle this reticulate_core wheel instead of building one")
    args = parser.parse_args(argv)
    try:
        target = build(args.dist, args.manifest, args.core_wheel)
    except BuildError as error:
        print(f"build_extension: error: {error}", file=sys.stderr)
        return 1
    print(f"build_extension: wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
