# tests/hostile/mesh.sh: collision meshes that cannot become a hull
# (world/mesh.lua, world/mesh_read.lua, world/hull.lua): a missing file, a
# directory, an empty or malformed file, non-finite vertices (text and
# binary formats), every vertex in one plane, a package:// that resolves
# nowhere (the message lists the search path), an unknown format, a
# malformed COLLADA file, and a spec's own mesh shape.  Each: one line at
# file:line (the URDF's <mesh>, or the mesh file's own line for text
# formats, with the spec line that imports it), exit 2, nothing written.

# m_bad NAME MESH-ATTRS EXPECTED-ERE [SETUP-COMMAND]
m_bad() {
  hcase "mesh.$1"
  cat >"$T/robot.urdf" <<EOF
<?xml version="1.0"?>
<robot name="r">
  <link name="base"/>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision>
      <geometry><mesh $2/></geometry>
    </collision>
  </link>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
  </joint>
</robot>
EOF
  cat >"$T/spec.lua" <<'EOF'
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  urdf { "robot.urdf", xyz = { 0, 0, 0.5 }, package_path = "pkgs" },
}
return diagram "d" { system { "w", W } }
EOF
  mkdir -p "$T/pkgs/meshes_pkg"
  if [ -n "${4:-}" ]; then (cd "$T" && eval "$4"); fi
  hrun --timeout 20 -- env -u ROS_PACKAGE_PATH -u AMENT_PREFIX_PATH "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.c" "$T/out.h"
  hdone
}

M_AT='\(imported at .*spec\.lua:3\)$'

m_bad missing 'filename="meshes/gone.stl"' \
  "robot\.urdf:7: link 'arm': cannot read mesh file '.*/meshes/gone\.stl': no such file $M_AT"
m_bad directory 'filename="dir.stl"' \
  "robot\.urdf:7: link 'arm': cannot read mesh file '.*/dir\.stl': it is a directory, not a file $M_AT" \
  'mkdir dir.stl'
m_bad empty 'filename="empty.obj"' \
  "robot\.urdf:7: link 'arm': mesh file '.*/empty\.obj' is empty $M_AT" \
  ': >empty.obj'
m_bad no_vertices 'filename="faces.obj"' \
  "robot\.urdf:7: link 'arm': mesh file '.*/faces\.obj' has no vertices $M_AT" \
  'printf "# only a comment\nf 1 2 3\n" >faces.obj'
m_bad unreadable_stl 'filename="junk.stl"' \
  "robot\.urdf:7: link 'arm': mesh file '.*/junk\.stl': the STL file is neither ASCII .* nor binary \(300 bytes, .*\) $M_AT" \
  'head -c 300 /dev/zero | tr "\0" "x" >junk.stl'
m_bad nan_obj 'filename="nan.obj"' \
  "nan\.obj:3: the vertex has a non-finite coordinate \(nan 0 0\); every vertex must be a finite number \(imported at .*robot\.urdf:7\)$" \
  'printf "v 0 0 0\nv 1 0 0\nv nan 0 0\nv 0 0 1\n" >nan.obj'
m_bad nan_stl_binary 'filename="nan.stl"' \
  "robot\.urdf:7: link 'arm': mesh file '.*/nan\.stl': triangle 0, vertex 1 has a non-finite coordinate .* $M_AT" \
  "printf 'header' | head -c 80 >nan.stl; head -c 74 /dev/zero >>nan.stl; printf '\001\000\000\000' | dd of=nan.stl bs=1 seek=80 conv=notrunc 2>/dev/null; printf '\000\000\300\177' | dd of=nan.stl bs=1 seek=108 conv=notrunc 2>/dev/null; truncate -s 134 nan.stl"
m_bad coplanar 'filename="flat.obj"' \
  "robot\.urdf:7: link 'arm': the convex hull of mesh '.*/flat\.obj' has no volume: its 5 vertices are all in one plane .*must enclose a volume $M_AT" \
  'printf "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0.5 0.5 0\nf 1 2 3\n" >flat.obj'
m_bad package_nowhere 'filename="package://no_such_pkg/meshes/a.stl"' \
  "robot\.urdf:7: link 'arm': package 'no_such_pkg' of mesh 'package://no_such_pkg/meshes/a\.stl' is in none of the package folders \(search path: .*/pkgs\); give its parent folder with --package-path DIR.* $M_AT"
m_bad unknown_format 'filename="part.ply"' \
  "robot\.urdf:7: link 'arm': mesh file '.*/part\.ply' has an unknown format \(extensions: \.stl, \.obj, \.dae, \.gltf, \.glb\) $M_AT" \
  ': >part.ply'
m_bad dae_malformed 'filename="bad.dae"' \
  "bad\.dae:4: malformed XML: .*\(imported at .*robot\.urdf:7\)$" \
  'printf "<?xml version=\"1.0\"?>\n<COLLADA>\n  <library_geometries>\n</COLLADA>\n" >bad.dae'
m_bad scale_bad 'filename="x.stl" scale="1 0 nan"' \
  "robot\.urdf:7: link 'arm': <mesh scale=\"1 0 nan\">: 'nan' is not a number $M_AT"
m_bad no_filename 'scale="1 1 1"' \
  "robot\.urdf:7: link 'arm': <mesh> needs a filename attribute $M_AT"

# the package path names the folders it tried, from --package-path too
hcase mesh.package_path_lists_cli_folders
cat >"$T/spec.lua" <<'EOF'
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "b", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" },
    shapes = { { "mesh", file = "package://gone/m.stl" } } },
}
return diagram "d" { system { "w", W } }
EOF
hrun --timeout 20 -- env -u AMENT_PREFIX_PATH ROS_PACKAGE_PATH=/ros/a:/ros/b "$DIAGC" --package-path /opt/p1:/opt/p2 \
  "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:3: body 'b': package 'gone' of mesh 'package://gone/m\.stl' is in none of the package folders \(search path: /opt/p1:/opt/p2:/ros/a:/ros/b\)"
expect_absent "$T/out.c" "$T/out.h"
hdone

# a spec's mesh shape: its file relative to the spec
hcase mesh.spec_shape_missing
cat >"$T/spec.lua" <<'EOF'
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "b", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" },
    shapes = { { "mesh", file = "parts/b.obj", scale = { 1, 2, 3 } } } },
}
return diagram "d" { system { "w", W } }
EOF
hrun --timeout 20 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:3: body 'b': cannot read mesh file '.*/parts/b\.obj': no such file$"
expect_absent "$T/out.c" "$T/out.h"
hdone
