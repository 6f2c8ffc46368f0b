# Imports a .glb with Blender's own glTF importer (PyPI `bpy`) and prints, as JSON, how
# many mesh objects it made in the scene and how many in its "Orphan Nodes" collection
# (nodes no scene names: the coarser MSFT_lod levels). With EXT_mesh_gpu_instancing,
# Blender 4.0+ makes one object per instance of each node.
#
#   python blender_instances.py scene.glb
import json
import sys

import bpy

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=sys.argv[-1])
meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
orphans = [o for o in meshes if any(c.name.startswith("Orphan") for c in o.users_collection)]
print(json.dumps({
    "blender": bpy.app.version_string,
    "scene_mesh_objects": len(meshes) - len(orphans),
    "orphan_mesh_objects": len(orphans),
}))
