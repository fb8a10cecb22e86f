# tests/hostile/gltf.sh: glTF 2.0 mesh files diagc cannot read
# (world/mesh_gltf.lua, world/json_read.lua), as a URDF's visual mesh
# (diagc view: docs/viewer.md "Visual geometry") and as a collision mesh
# (diagc SPEC -o: docs/world.md "Meshes"): malformed JSON, JSON nested too
# deep, a number too large, a missing or short buffer, a malformed data:
# URI, an absolute buffer uri, an accessor or bufferView out of range, an
# unsupported componentType, an index past the vertices, a NaN vertex, a
# node tree with a cycle, a required extension (Draco), a .glb with a bad
# header or a chunk past its end.  Each: one line at the line of the URDF
# that names the mesh, naming the file and what in it is wrong, exit 2,
# nothing written, bounded time.

# a triangle, (0 0 0) (1 0 0) (0 1 0) as 9 little-endian floats, and the
# indices 0 1 2 as unsigned shorts (Python's struct.pack, base64)
G_TRI=AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA
G_NAN=AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAwH8AAAAA
G_IDX=AAABAAIA
G_IDX7=AAABAAcA

# g_json ACCESSOR0-EXTRA BUFFERS [NODES] [TOP-EXTRA]: a .gltf with one
# indexed triangle (accessor 0: positions, 1: indices)
g_json() {
  local acc0=${1:-} bufs=$2 nodes=${3:-'[{ "mesh": 0 }]'} top=${4:-}
  cat <<EOF
{ "asset": { "version": "2.0" }, $top
  "buffers": $bufs,
  "bufferViews": [ { "buffer": 0, "byteOffset": 0, "byteLength": 36 },
                   { "buffer": 1, "byteOffset": 0, "byteLength": 6 } ],
  "accessors": [ { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" $acc0 },
                 { "bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR" } ],
  "meshes": [ { "primitives": [ { "attributes": { "POSITION": 0 }, "indices": 1 } ] } ],
  "nodes": $nodes, "scenes": [ { "nodes": [0] } ], "scene": 0 }
EOF
}
G_BUFS='[ { "byteLength": 36, "uri": "data:application/octet-stream;base64,'$G_TRI'" },
  { "byteLength": 6, "uri": "data:application/octet-stream;base64,'$G_IDX'" } ]'

# g_bad NAME FILE EXPECTED-ERE SETUP-COMMAND: FILE (made by SETUP in $T)
# as the visual mesh of link 'arm' (robot.urdf:7), for diagc view
g_bad() {
  hcase "gltf.$1"
  cat >"$T/robot.urdf" <<EOF
<?xml version="1.0"?>
<robot name="r">
  <link name="base"/>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual>
      <geometry><mesh filename="$2"/></geometry>
    </visual>
    <collision><geometry><sphere radius="0.1"/></geometry></collision>
  </link>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
  </joint>
</robot>
EOF
  cat >"$T/spec.lua" <<'EOF'
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  urdf { "robot.urdf", xyz = { 0, 0, 0.5 } },
}
return diagram "d" { system { "w", W }, log { "w.position", period = 0.01 } }
EOF
  (cd "$T" && eval "$4")
  hrun --timeout 30 -- "$DIAGC" view "$T/spec.lua" --until 0.02 -o "$T/page.html"
  expect_exit 2
  expect_error "robot\.urdf:7: link 'arm': mesh file '[^']*/$2': $3 \(imported at .*spec\.lua:3\)$"
  expect_absent "$T/page.html"
  hdone
}

# diagc view checks for the viewer's bundle before it runs the model
if [ -f build/viewer/viewer.js ]; then
g_bad bad_json m.gltf "malformed JSON: line 2, column 3: expected ',' or '\}', found '\"'" \
  "printf '{ \"asset\": { \"version\": \"2.0\" }\n  \"buffers\": [] }\n' >m.gltf"
g_bad deep_json m.gltf "malformed JSON: line 1, column 71: arrays and objects nest deeper than 64" \
  "printf '{ \"a\": %s1%s }' \"\$(printf '[%.0s' \$(seq 70))\" \"\$(printf ']%.0s' \$(seq 70))\" >m.gltf"
g_bad huge_number m.gltf "malformed JSON: line 1, column 25: the number 1e999 is too large for a double" \
  "printf '{ \"asset\": { \"version\": 1e999 } }' >m.gltf"
g_bad old_version m.gltf "asset\.version is '1\.0'; diagc reads glTF 2\.0" \
  "printf '{ \"asset\": { \"version\": \"1.0\" } }' >m.gltf"
g_bad missing_buffer m.gltf "buffer 0: cannot read its file 'gone\.bin': no such file" \
  "g_json '' '[ { \"byteLength\": 36, \"uri\": \"gone.bin\" }, { \"byteLength\": 6, \"uri\": \"gone.bin\" } ]' >m.gltf"
g_bad short_buffer m.gltf "buffer 0 is 24 bytes, shorter than its byteLength 36" \
  "head -c 24 /dev/zero >short.bin; g_json '' '[ { \"byteLength\": 36, \"uri\": \"short.bin\" }, { \"byteLength\": 6, \"uri\": \"short.bin\" } ]' >m.gltf"
g_bad absolute_uri m.gltf "buffer 0: uri '/etc/passwd' must be a relative file name or a data: URI" \
  "g_json '' '[ { \"byteLength\": 36, \"uri\": \"/etc/passwd\" } ]' >m.gltf"
g_bad bad_base64 m.gltf "buffer 0: the data: URI is malformed: its base64 text holds '\*\*\*\*' at character 1" \
  "g_json '' '[ { \"byteLength\": 3, \"uri\": \"data:application/octet-stream;base64,****\" } ]' >m.gltf"
g_bad accessor_past_view m.gltf "accessor 0 \(POSITION of mesh 0, primitive 0\): 5 elements of 12 bytes every 12 from byte 0 need 60 bytes; bufferView 0 holds 36" \
  "g_json '' \"\$G_BUFS\" | sed 's/\"count\": 3, \"type\": \"VEC3\"/\"count\": 5, \"type\": \"VEC3\"/' >m.gltf"
g_bad no_such_accessor m.gltf "POSITION of mesh 0, primitive 0 names accessor 9, but the file has 2" \
  "g_json '' \"\$G_BUFS\" | sed 's/\"POSITION\": 0/\"POSITION\": 9/' >m.gltf"
g_bad view_past_buffer m.gltf "bufferView 0: bytes 8 to 44 are past the end of buffer 0 \(36 bytes\)" \
  "g_json '' \"\$G_BUFS\" | sed 's/\"byteOffset\": 0, \"byteLength\": 36/\"byteOffset\": 8, \"byteLength\": 36/' >m.gltf"
g_bad component_type m.gltf "accessor 0 \(POSITION of mesh 0, primitive 0\) has componentType 5122 \(short\), which diagc does not read here; it reads float \(5126\)" \
  "g_json '' \"\$G_BUFS\" | sed 's/\"componentType\": 5126/\"componentType\": 5122/' >m.gltf"
g_bad index_past_vertices m.gltf "accessor 1 \(indices of mesh 0, primitive 0\): index 7 of triangle 0 names vertex 7; POSITION has 3" \
  "g_json '' \"\$(printf '%s' \"\$G_BUFS\" | sed s/\$G_IDX/\$G_IDX7/)\" >m.gltf"
g_bad nan_vertex m.gltf "accessor 0 \(POSITION of mesh 0, primitive 0\): element 2 is \(0, nan, 0\), not finite" \
  "g_json '' \"\$(printf '%s' \"\$G_BUFS\" | sed s/\$G_TRI/\$G_NAN/)\" >m.gltf"
g_bad node_cycle m.gltf "node 0 is reached twice \(the nodes must form trees\)" \
  "g_json '' \"\$G_BUFS\" '[ { \"mesh\": 0, \"children\": [1] }, { \"children\": [0] } ]' >m.gltf"
g_bad draco m.gltf "the file requires the extension KHR_draco_mesh_compression, which diagc does not read; use a file without it.*" \
  "g_json '' \"\$G_BUFS\" '[ { \"mesh\": 0 } ]' '\"extensionsRequired\": [ \"KHR_draco_mesh_compression\" ],' >m.gltf"
g_bad glb_header m.glb "the \.glb header says 1000 bytes, the file has 20" \
  "printf 'glTF\002\000\000\000\350\003\000\000\000\000\000\000JSON' >m.glb"
g_bad glb_chunk_past_end m.glb "the \.glb chunk at byte 12 says 4096 bytes; the file ends 2 bytes after its header" \
  "printf 'glTF\002\000\000\000\026\000\000\000\000\020\000\000JSON{}' >m.glb"
else
  echo "skip hostile.gltf.visual: the viewer's bundle is not built (scripts/install-deps.sh, then make); the collision case runs"
fi

# the same reader for a collision mesh: its hull (diagc SPEC -o)
hcase gltf.collision_short_buffer
cat >"$T/robot.urdf" <<'EOF'
<?xml version="1.0"?>
<robot name="r">
  <link name="base"/>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision>
      <geometry><mesh filename="m.gltf"/></geometry>
    </collision>
  </link>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
  </joint>
</robot>
EOF
printf 'local W = world "w" {\n  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },\n  urdf { "robot.urdf" },\n}\nreturn diagram "d" { system { "w", W } }\n' >"$T/spec.lua"
(cd "$T" && head -c 30 /dev/zero >s.bin && g_json '' '[ { "byteLength": 36, "uri": "s.bin" }, { "byteLength": 6, "uri": "s.bin" } ]' >m.gltf)
hrun --timeout 20 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "robot\.urdf:7: link 'arm': mesh file '[^']*/m\.gltf': buffer 0 is 30 bytes, shorter than its byteLength 36 \(imported at .*spec\.lua:3\)$"
expect_absent "$T/out.c" "$T/out.h"
hdone
