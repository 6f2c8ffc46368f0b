// Loads a .glb with three.js's GLTFLoader under Node (no DOM) and prints, as JSON, every
// instanced node it made: its name, how many primitives (InstancedMeshes) it holds, the
// instance count, its world matrix and the instance matrices (16 floats each,
// column-major), plus the plain meshes and textures it loaded.
//
//   node instances.mjs scene.glb
import { readFileSync } from "node:fs";

// GLTFLoader reads `self.URL` to turn embedded images into blob URLs; Node has no `self`.
globalThis.self = globalThis;
const { GLTFLoader } = await import("three/addons/loaders/GLTFLoader.js");

const file = process.argv[2];
if (!file) {
  console.error("usage: node instances.mjs <file.glb>");
  process.exit(2);
}
const bytes = readFileSync(file);
const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

new GLTFLoader().parse(
  buffer,
  "",
  (gltf) => {
    gltf.scene.updateMatrixWorld(true);
    const nodes = new Map();
    let plainMeshes = 0;
    gltf.scene.traverse((object) => {
      if (object.isInstancedMesh) {
        // A node whose mesh has several primitives becomes a Group of InstancedMeshes.
        const node = object.parent && object.parent.isGroup && object.parent !== gltf.scene ? object.parent : object;
        const entry = nodes.get(node.uuid);
        if (entry) {
          entry.primitives += 1;
          entry.sameInstances &&= object.count === entry.count &&
            object.instanceMatrix.array.every((v, i) => v === entry.matrices[i]);
        } else {
          nodes.set(node.uuid, {
            name: node.name,
            primitives: 1,
            count: object.count,
            sameInstances: true,
            world: object.matrixWorld.elements,
            matrices: Array.from(object.instanceMatrix.array.slice(0, object.count * 16)),
          });
        }
      } else if (object.isMesh) {
        plainMeshes += 1;
      }
    });
    const textures = gltf.parser.json.textures ? gltf.parser.json.textures.length : 0;
    console.log(JSON.stringify({ nodes: [...nodes.values()], plainMeshes, textures }));
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
