// world_visuals.js: a body's visual geometry (a URDF's <visual>s, from
// cli/page_visual.lua) as three.js meshes in the body frame: boxes (full
// extents, as URDF writes them), spheres, cylinders and capsules along
// their z, and meshes whose positions (float32) and triangle indices
// (uint32) come packed as base64, one copy per file (w.meshes), each in
// its groups' colours; a URDF material colour, when given, paints the
// whole visual.  Never collided: world.js shows these or the collision
// shapes (world_shapes.js), by the panel's toggle.
import * as THREE from "three";
import { rpyRot } from "./world_pose.js";

function bytes(b64) {
  const s = atob(b64), out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out.buffer;
}

// one BufferGeometry per mesh file, shared by every link that uses it
export function meshGeometries(w) {
  return (w.meshes || []).map((m) => {
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(new Float32Array(bytes(m.positions)), 3));
    g.setIndex(new THREE.BufferAttribute(new Uint32Array(bytes(m.indices)), 1));
    for (const gr of m.groups) g.addGroup(gr.start, gr.count, g.groups.length);
    g.userData = { file: m.file, triangles: m.triangles };
    return g;
  });
}

const GREY = [0.72, 0.74, 0.76, 1];

function material(rgba) {
  const c = rgba || GREY;
  // Lambert's diffuse shading, as the collision shapes (world_shapes.js)
  return new THREE.MeshLambertMaterial({ color: new THREE.Color(c[0], c[1], c[2]), flatShading: true,
    transparent: c[3] < 1, opacity: c[3], side: THREE.DoubleSide });
}

function primitive(v) {
  switch (v.type) {
    case "box": return new THREE.BoxGeometry(v.size[0], v.size[1], v.size[2]);
    case "sphere": return new THREE.SphereGeometry(v.radius, 32, 16);
    // three's cylinder and capsule lie along y; URDF's along z
    case "cylinder": return new THREE.CylinderGeometry(v.radius, v.radius, v.length, 32).rotateX(Math.PI / 2);
    case "capsule": return new THREE.CapsuleGeometry(v.radius, v.length, 8, 24).rotateX(Math.PI / 2);
    default: return null;
  }
}

// the visual's pose in the body frame (xyz, rpy), then its mesh scale
function placed(obj, v) {
  const R = rpyRot(v.rpy[0], v.rpy[1], v.rpy[2], new Float64Array(9));
  const [a, b, c] = v.scale || [1, 1, 1];
  obj.matrixAutoUpdate = false;
  obj.matrix.set(R[0] * a, R[1] * b, R[2] * c, v.xyz[0], R[3] * a, R[4] * b, R[5] * c, v.xyz[1],
    R[6] * a, R[7] * b, R[8] * c, v.xyz[2], 0, 0, 0, 1);
  return obj;
}

// the body's visuals as meshes (userData.triangles: what each draws)
export function visualMeshes(b, geos, w) {
  const out = [];
  for (const v of b.visuals || []) {
    let m;
    if (v.type === "mesh") {
      const geo = geos[v.mesh], src = w.meshes[v.mesh];
      // the URDF's colour for all of it, else each group's own (COLLADA's diffuse)
      const mats = src.groups.map((g) => material(v.rgba || g.rgba));
      m = new THREE.Mesh(geo, mats.length > 0 ? mats : material(v.rgba));
      m.userData.triangles = src.triangles;
    } else {
      const geo = primitive(v);
      if (!geo) continue;
      m = new THREE.Mesh(geo, material(v.rgba));
      m.userData.triangles = geo.index ? geo.index.count / 3 : geo.attributes.position.count / 3;
    }
    m.userData.visual = v.type;
    out.push(placed(m, v));
  }
  return out;
}
