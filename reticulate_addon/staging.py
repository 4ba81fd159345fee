"""All-or-nothing creation of datablocks.

An operator builds every mesh, material and object unlinked first and links
the objects into a collection only at the very end.  ``Staging`` records
which datablocks existed before; if anything fails, every datablock created
since is removed again, so a failed run leaves ``bpy.data`` as it was.
"""
import bpy

_KINDS = ("objects", "meshes", "materials", "volumes", "collections", "images", "node_groups")


def _pointers():
    return {kind: {block.as_pointer() for block in getattr(bpy.data, kind)} for kind in _KINDS}


class Staging:
    def __init__(self):
        self._before = _pointers()

    def created(self):
        """Datablocks that did not exist when staging began."""
        new: list[bpy.types.ID] = []
        for kind in _KINDS:
            before = self._before[kind]
            new.extend(b for b in getattr(bpy.data, kind) if b.as_pointer() not in before)
        return new

    def discard(self):
        """Remove every datablock created since staging began."""
        new = self.created()
        if new:
            bpy.data.batch_remove(new)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.discard()
        return False


def target_collection(context, link_to_active):
    """The active collection, or the scene's master collection."""
    if link_to_active and context.view_layer is not None:
        return context.view_layer.active_layer_collection.collection
    return context.scene.collection


def link_objects(context, objects, collection, roots=None):
    """Link ``objects`` into ``collection`` and select ``roots`` (default:
    all); the last visible one becomes active (hidden ones cannot be selected)."""
    for ob in objects:
        collection.objects.link(ob)
    view_layer = context.view_layer
    if view_layer is None:
        return
    for ob in view_layer.objects:
        ob.select_set(False)
    visible = [ob for ob in (objects if roots is None else roots) if not ob.hide_viewport]
    for ob in visible:
        ob.select_set(True)
    if visible:
        view_layer.objects.active = visible[-1]
