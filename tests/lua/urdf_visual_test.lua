-- A URDF's <visual>s kept for the viewer (world/urdf_visual.lua,
-- world/urdf.lua, cli/page_visual.lua, world/mesh_tris.lua): origin,
-- scale and colour read by hand from the file written here, a merged
-- link's visual re-expressed in its body's frame, a malformed <visual>
-- and a missing mesh noted, never an error; the packed triangles against
-- IEEE 754 bytes written out independently (Python's struct.pack).
local check = require("diagc.world.check")
local page_visual = require("diagc.cli.page_visual")
local pack = require("diagc.cli.pack")

local TOL = { rtol = 0, atol = 1e-12 }
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR .. "/meshes")

local function write(name, text)
  local f = assert(io.open(DIR .. "/" .. name, "w"))
  f:write(text)
  f:close()
end

local INERTIAL = [[<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>]]

-- a unit square in z = 0 as one quad face (two triangles as a fan)
write("meshes/square.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n")
-- a COLLADA triangle whose material is red (its effect's diffuse)
write("meshes/tri.dae", [[<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="0.5"/></asset>
  <library_effects><effect id="red-fx"><profile_COMMON><technique sid="c"><lambert>
    <diffuse><color>1 0 0 1</color></diffuse></lambert></technique></profile_COMMON></effect></library_effects>
  <library_materials><material id="red"><instance_effect url="#red-fx"/></material></library_materials>
  <library_geometries><geometry id="g"><mesh>
    <source id="p"><float_array id="pa" count="9">0 0 0 2 0 0 0 2 0</float_array>
      <technique_common><accessor source="#pa" count="3" stride="3"/></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles material="m" count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node><translate>0 0 1</translate>
    <instance_geometry url="#g"><bind_material><technique_common>
      <instance_material symbol="m" target="#red"/></technique_common></bind_material></instance_geometry>
  </node></visual_scene></library_visual_scenes>
</COLLADA>
]])

write("arm.urdf", [[<?xml version="1.0"?>
<robot name="arm">
  <material name="blue"><color rgba="0 0 0.8 1"/></material>
  <link name="base">]] .. INERTIAL .. [[
    <visual><origin xyz="0.1 0.2 0.3" rpy="0 0 0.5"/><geometry><box size="0.4 0.2 0.1"/></geometry>
      <material name="blue"/></visual>
    <visual><origin xyz="0 0 1"/><geometry><mesh filename="meshes/square.obj" scale="2 3 4"/></geometry>
      <material name="inline"><color rgba="0.1 0.2 0.3 0.5"/></material></visual>
    <visual><origin xyz="x 0 0"/><geometry><sphere radius="1"/></geometry></visual>
    <visual><geometry><cylinder radius="0.05" length="0.3"/></geometry></visual>
    <collision><geometry><box size="0.4 0.2 0.1"/></geometry></collision>
  </link>
  <joint name="tool_joint" type="fixed">
    <origin xyz="0 0 0.5" rpy="0 0 1.5707963267948966"/><parent link="base"/><child link="tool"/>
  </joint>
  <link name="tool">
    <visual><origin xyz="1 0 0"/><geometry><mesh filename="meshes/tri.dae"/></geometry></visual>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="gone"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1"/></joint>
  <link name="gone">]] .. INERTIAL .. [[
    <visual><geometry><mesh filename="meshes/missing.stl"/></geometry></visual>
  </link>
</robot>
]])

-- the malformed sphere's <visual> in arm.urdf (a long string drops the
-- newline right after its opening [[, so <link name="base"> and the first
-- <visual> share line 4)
local LINE_SPHERE = 8

local function world()
  local loc = { file = DIR .. "/here.lua", line = 3 }
  return check.check({ _kind = "world", name = "W", loc = { file = DIR .. "/here.lua", line = 1 }, settings = {},
    items = { { _item = "urdf", loc = loc, args = { "arm.urdf", base = "fixed" } } } })
end

group("urdf_visual", function()
  test("read_by_hand", function()
    local C = world() -- a malformed <visual> and a missing mesh are no error here
    local base, gone = C.bodies[1], C.bodies[2]
    eq({ base.name, gone.name }, { "base", "gone" })
    local v = base.visuals
    eq(#v, 4) -- box, square, cylinder, the tool's triangle (the sphere's origin is malformed)
    eq({ v[1].type, v[1].size }, { "box", { 0.4, 0.2, 0.1 } })
    near(v[1].xyz, { 0.1, 0.2, 0.3 }, TOL)
    near(v[1].rpy, { 0, 0, 0.5 }, TOL)
    eq(v[1].rgba, { 0, 0, 0.8, 1 }) -- the named top-level material
    eq({ v[2].type, v[2].filename, v[2].scale, v[2].rgba }, { "mesh", "meshes/square.obj", { 2, 3, 4 }, { 0.1, 0.2, 0.3, 0.5 } })
    eq({ v[3].type, v[3].radius, v[3].length, v[3].rgba }, { "cylinder", 0.05, 0.3, nil })
    -- the massless tool, merged into base: (1, 0, 0) turned by pi/2 about z, above by 0.5
    eq({ v[4].type, v[4].link }, { "mesh", "tool" })
    near(v[4].xyz, { 0, 1, 0.5 }, TOL)
    near(v[4].rpy, { 0, 0, math.pi / 2 }, TOL)
    eq(#C.robots[1].links[1].visuals, 3)
    -- the sphere's: one note, at its line, never an error
    local vn = C.robots[1].visual_notes
    eq(#vn, 1)
    eq(vn[1].line, LINE_SPHERE)
    assert(vn[1].what:find("link 'base': <visual> left out: <origin xyz> holds 'x', not a number", 1, true), vn[1].what)
    eq(C.robots[1].skipped.visual, 6) -- still counted as skipped by the simulation
  end)

  test("page_meshes_packed_and_missing_noted", function()
    local C = world()
    local visuals, meshes, notes, triangles = page_visual.describe(C)
    -- base: the square (2 triangles) and the red triangle; gone: its mesh is missing
    eq(#meshes, 2)
    eq(triangles, 3)
    eq({ meshes[1].file, meshes[1].triangles, meshes[1].vertices }, { "square.obj", 2, 4 })
    -- struct.pack('<12f', 0,0,0, 1,0,0, 1,1,0, 0,1,0) and '<6I', 0,1,2, 0,2,3 in base64
    eq(meshes[1].positions, "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAACAPwAAgD8AAAAAAAAAAAAAgD8AAAAA")
    eq(meshes[1].indices, "AAAAAAEAAAACAAAAAAAAAAIAAAADAAAA")
    -- the triangle: <unit meter="0.5">, its node's translate (0, 0, 1): '<9f', 0,0,0.5, 1,0,0.5, 0,1,0.5
    eq(meshes[2].positions, "AAAAAAAAAAAAAAA/AACAPwAAAAAAAAA/AAAAAAAAgD8AAAA/")
    eq(meshes[2].groups[1].rgba, { 1, 0, 0, 1 })
    eq(#visuals[1], 4)
    eq({ visuals[1][2].mesh, visuals[1][4].mesh }, { 0, 1 })
    eq(visuals[1][2].scale, { 2, 3, 4 })
    eq(visuals[2], nil) -- gone: drawn with its collision shapes
    eq(#notes, 2)
    assert(notes[1]:find("arm.urdf:" .. LINE_SPHERE .. ": link 'base': <visual> left out", 1, true), notes[1])
    assert(notes[2]:find("link 'gone': cannot read mesh file '.*missing.stl'.*; body 'gone' is drawn with its "
      .. "collision shapes"), notes[2])
  end)

  test("cap_counted", function()
    local C = world()
    local saved = page_visual.MAX_TRIANGLES
    page_visual.MAX_TRIANGLES = 2
    local visuals, meshes, notes, triangles = page_visual.describe(C)
    page_visual.MAX_TRIANGLES = saved
    eq({ #meshes, triangles, visuals[1] }, { 0, 0, nil })
    assert(notes[2]:find("the visual meshes of body 'base' %(3 triangles%) would take the page over its cap of 2 "
      .. "triangles; it is drawn with its collision shapes"), notes[2])
  end)

  test("pack_f32_u32", function()
    -- struct.pack('<2f', 1, -2.5) and '<2I', 1, 4000000000
    eq(pack.f32({ 1, -2.5 }, 2), "AACAPwAAIMA=")
    eq(pack.u32({ 1, 4000000000 }, 2), "AQAAAAAoa+4=")
  end)
end)
