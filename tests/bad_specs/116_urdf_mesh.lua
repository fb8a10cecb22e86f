-- expect: diagc: DIR/urdf/mesh.urdf:6: link 'b': cannot read mesh file 'DIR/urdf/meshes/b.stl': no such file (imported at FILE:4)
-- A collision mesh that is not there is an error at the <mesh> element's line.
local W = world "w" {
  urdf { "urdf/mesh.urdf" },
}
return diagram "top" { system { "w", W } }
