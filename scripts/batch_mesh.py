"""Mesh voxel files headless, one output per input, with a summary table.

    blender -b -P scripts/batch_mesh.py -- INPUT... --out DIR [--format blend|glb|obj]
    python scripts/batch_mesh.py INPUT... --out DIR            (python with the bpy module)

Uses the Reticulate extension when it is installed and enabled, else the
add-on of this checkout (``reticulate_addon/``, with ``reticulate_core``
importable or built in place under ``core/``).  Exits non-zero if any input
failed; the other inputs are still processed.
"""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def addon_module():
    """The enabled Reticulate add-on module, enabling this checkout's if none is."""
    import addon_utils
    import bpy

    for name in bpy.context.preferences.addons.keys():
        if name == "reticulate_addon" or name.endswith(".reticulate"):
            return sys.modules[name]
    try:
        import reticulate_core  # noqa: F401
    except ImportError:
        sys.path.append(str(REPO / "core"))
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))

    def fail(error):
        raise error

    return addon_utils.enable("reticulate_addon", default_set=False, handle_error=fail)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    import bpy

    if not bpy.app.background:
        print("batch_mesh.py: run it headless (blender -b -P ... or plain python)", file=sys.stderr)
        return 2
    return addon_module().batch.run(argv)


if __name__ == "__main__":
    sys.exit(main())
