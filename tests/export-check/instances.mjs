// Loads a .glb with three.js's GLTFLoader under Node (no DOM) and prints, as JSON, every
// instanced node it made: its name, how many primitives (InstancedMeshes) it holds, the
// instance count, its world matrix and the instance matrices (16 floats each,
// column-major), plus how many plain meshes it made and the size of every texture image
// its materials use.
//
//   node instances.mjs scene.glb
import { readFileSync } from "node:fs";

// GLTFLoader reads `self.URL` to turn embedded images into blob URLs; Node has no `self`.
globalThis.self = globalThis;
// Nor `createImageBitmap`, which GLTFLoader's image loader decodes textures with (Node's
// fetch reads the blob URLs): this one reads a PNG's size from its header, all a test
// needs of a texture.
globalThis.createImageBitmap = async (blob) => {
  const bytes = new DataView(await blob.arrayBuffer());
  if (bytes.getUint32(0) !== 0x89504e47) throw new Error("not a PNG");
  return { width: bytes.getUint32(16), height: bytes.getUint32(20), close() {} };
};
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
    const images = new Set();
    gltf.scene.traverse((object) => {
      if (object.isMesh && object.material.map) {
        images.add(object.material.map.image);
      }
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
    const sizes = [...images].map((i) => [i.width, i.height]);
    console.log(JSON.stringify({ nodes: [...nodes.values()], plainMeshes, images: sizes }));
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
