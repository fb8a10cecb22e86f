// world_shapes.js: a body's collision shapes as three.js meshes in the body
// frame (cli/page_world.lua gives them as the runtime collides them: sizes
// as half extents, radius and half length; a mesh as its convex hull), and
// the marker of a body without shapes: a ball at its centre of mass (of the
// volume 1000 kg/m³ would give its mass) on a rod from the body's origin.
// Lambert's diffuse shading (and an unlit ground): what the scene shows
// without the physically based materials' cost per pixel, which a
// software renderer pays on every pixel of every frame (docs/viewer.md,
// "Frame rate").
import * as THREE from "three";
import { rpyRot } from "./world_pose.js";

const GROUND = 0xb0bec5;

// a colour per body, well apart around the hue circle
function colour(i) {
  return new THREE.Color().setHSL(((i * 0.61803398875) % 1 + 1) % 1, 0.55, 0.55);
}

// the hull's polygons as triangle fans, flat-shaded
function hullGeometry(hull) {
  const V = hull.vertices, pos = [];
  for (const f of hull.faces) {
    for (let k = 1; k + 1 < f.length; k++) {
      for (const id of [f[0], f[k], f[k + 1]]) pos.push(V[3 * id], V[3 * id + 1], V[3 * id + 2]);
    }
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(pos, 3));
  g.computeVertexNormals();
  return g;
}

function geometryOf(s) {
  const [a, b, c] = s.size;
  switch (s.type) {
    case "box": return new THREE.BoxGeometry(2 * a, 2 * b, 2 * c);
    case "sphere": return new THREE.SphereGeometry(a > 0 ? a : 0.01, 32, 16);
    // three's capsule lies along y; the world's along the shape's z
    case "capsule": return new THREE.CapsuleGeometry(a, 2 * b, 8, 24).rotateX(Math.PI / 2);
    case "hull": return hullGeometry(s.hull);
    case "plane": return new THREE.PlaneGeometry(1, 1); // scaled to the scene by world.js
    default: return null;
  }
}

// the shape's pose in the body frame (xyz, rpy)
function placed(mesh, s) {
  const R = rpyRot(s.rpy[0], s.rpy[1], s.rpy[2], new Float64Array(9));
  mesh.matrixAutoUpdate = false;
  mesh.matrix.set(R[0], R[1], R[2], s.xyz[0], R[3], R[4], R[5], s.xyz[1], R[6], R[7], R[8], s.xyz[2], 0, 0, 0, 1);
  return mesh;
}

export function shapeMeshes(b, i) {
  const out = [];
  for (const s of b.shapes) {
    const geo = geometryOf(s);
    if (!geo) continue;
    if (s.type === "plane") {
      const m = new THREE.Mesh(geo, new THREE.MeshBasicMaterial({ color: GROUND, transparent: true, opacity: 0.25,
        side: THREE.DoubleSide, depthWrite: false }));
      m.userData.plane = true;
      // scaled in its own plane only: a child of the placed frame
      const frame = placed(new THREE.Group(), s);
      m.position.z = -1e-4; // under the grid
      frame.add(m);
      out.push(frame);
      continue;
    }
    const mat = new THREE.MeshLambertMaterial({ color: colour(i), flatShading: s.type === "hull" || s.type === "box" });
    const m = placed(new THREE.Mesh(geo, mat), s);
    m.userData.shape = s.type;
    out.push(m);
    if (s.type !== "sphere" || s.size[0] > 0) {
      const edges = new THREE.LineSegments(new THREE.EdgesGeometry(geo, 30),
        new THREE.LineBasicMaterial({ color: 0x37474f, transparent: true, opacity: 0.35 }));
      out.push(placed(edges, s));
    }
  }
  return out;
}

export function markerMeshes(b, i) {
  if (!(b.mass > 0)) return [];
  const r = Math.cbrt((3 * b.mass) / (4 * Math.PI * 1000));
  const mat = new THREE.MeshLambertMaterial({ color: colour(i) });
  const ball = new THREE.Mesh(new THREE.SphereGeometry(r, 24, 12), mat);
  ball.position.set(b.com[0], b.com[1], b.com[2]);
  ball.userData.shape = "marker";
  const out = [ball];
  const len = Math.hypot(b.com[0], b.com[1], b.com[2]);
  if (len > 1e-9) {
    const rod = new THREE.Mesh(new THREE.CylinderGeometry(r / 4, r / 4, len, 12),
      new THREE.MeshLambertMaterial({ color: 0x607d8b }));
    // along y by default: turned onto the direction of the centre of mass
    rod.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0),
      new THREE.Vector3(b.com[0], b.com[1], b.com[2]).normalize());
    rod.position.set(b.com[0] / 2, b.com[1] / 2, b.com[2] / 2);
    out.push(rod);
  }
  return out;
}
