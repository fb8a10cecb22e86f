-- expect: diagc: DIR/urdf/mesh.urdf:6: link 'b': mesh collision geometry is not supported; replace the <mesh> by primitives (<box>, <sphere>, <cylinder>) (imported at FILE:4)
-- Mesh collision geometry is refused at the <mesh> element's line.
local W = world "w" {
  urdf { "urdf/mesh.urdf" },
}
return diagram "top" { system { "w", W } }
