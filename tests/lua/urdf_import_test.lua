-- URDF import of what real robot files contain (world/urdf.lua,
-- world/urdf_read.lua, world/urdf_pairs.lua): small URDFs written here,
-- each checked against values worked out by hand; the planar joint's
-- dynamics against its closed form.  The robots of examples/robots are
-- checked against DART by tests/cli/urdf_dart.sh.
local load = require("diagc.spec.load")
local check = require("diagc.world.check")
local S = dofile("tests/lua/world_support.lua")

local TOL = { rtol = 0, atol = 1e-12 }
local DIR = os.tmpname()
os.remove(DIR)
assert(os.execute("mkdir -p " .. DIR) == 0 or true)

local function write(name, text)
  local f = assert(io.open(DIR .. "/" .. name, "w"))
  f:write(text)
  f:close()
end

local function world_of(args)
  local loc = { file = DIR .. "/here.lua", line = 3 }
  return { _kind = "world", name = "W", loc = { file = DIR .. "/here.lua", line = 1 }, settings = {},
    items = { { _item = "urdf", loc = loc, args = args } } }
end

local function by_name(C)
  local t = {}
  for _, b in ipairs(C.bodies) do t[b.name] = b end
  return t
end

local function raises(args, pattern)
  local ok, e = pcall(check.check, world_of(args))
  assert(not ok, "expected an error matching " .. pattern)
  local msg = require("diagc.errors").format(e)
  assert(msg:find(pattern), "got: " .. msg)
end

local INERTIAL = [[<inertial><mass value="%s"/><inertia ixx="0.1" iyy="0.2" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial>]]
local function inertial(m) return string.format(INERTIAL, m) end

-- A1's pattern: a massless root link fixed to the trunk; a sphere on it
write("quad.urdf", [[<?xml version="1.0"?>
<robot name="quad">
  <material name="grey"><color rgba="0.2 0.2 0.2 1"/></material>
  <link name="base">
    <visual><geometry><box size="0.001 0.001 0.001"/></geometry></visual>
    <collision><origin xyz="0 0 0.05"/><geometry><sphere radius="0.01"/></geometry></collision>
  </link>
  <joint name="floating_base" type="fixed">
    <origin xyz="0.1 0 0" rpy="0 0 0.5"/>
    <parent link="base"/><child link="trunk"/>
  </joint>
  <link name="trunk">]] .. inertial(2) .. [[
    <collision><geometry><box size="0.4 0.2 0.1"/></geometry></collision>
    <collision><origin xyz="0.2 0 0"/><geometry><sphere radius="0"/></geometry></collision>
  </link>
  <joint name="hip" type="revolute">
    <origin xyz="0.2 0 0"/><parent link="trunk"/><child link="leg"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="5"/>
  </joint>
  <link name="leg">]] .. inertial(1) .. [[
    <collision><origin xyz="0 0 -0.1"/><geometry><cylinder radius="0.02" length="0.2"/></geometry></collision>
    <collision><geometry><cylinder radius="0.05" length="0.04"/></geometry></collision>
  </link>
  <joint name="knee" type="continuous">
    <parent link="leg"/><child link="shin"/><origin xyz="0 0 -0.2"/>
    <mimic joint="hip" multiplier="-2" offset="0.1"/>
  </joint>
  <link name="shin">]] .. inertial(0.5) .. [[</link>
  <transmission name="t"><type>x</type></transmission>
  <gazebo reference="leg"><mu1>0.2</mu1></gazebo>
  <gazebo><plugin name="p" filename="x.so"/></gazebo>
</robot>
]])

group("urdf_import", function()
  test("massless_root_merged_on_a_free_base", function()
    local C = check.check(world_of({ "quad.urdf", base = "free", xyz = { 0, 0, 1 } }))
    local B = by_name(C)
    eq(B.base, nil) -- merged
    eq({ B.trunk.joint.type, B.trunk.joint.parent }, { "free", 0 })
    -- the free joint sits where the fixed joint put the trunk: (0, 0, 1) o (0.1, 0, 0; yaw 0.5)
    near(B.trunk.joint.xyz, { 0.1, 0, 1 }, TOL)
    near(B.trunk.joint.rpy, { 0, 0, 0.5 }, TOL)
    -- base's sphere, at (0, 0, 0.05) in base, is in the trunk frame at
    -- R(-0.5) ((0, 0, 0.05) - (0.1, 0, 0))
    local s = B.trunk.shapes[3]
    eq(s.type, "sphere")
    near(s.xyz, { -0.1 * math.cos(0.5), 0.1 * math.sin(0.5), 0.05 }, TOL)
    near(s.rpy, { 0, 0, -0.5 }, TOL)
    eq(C.nq, 7 + 2)
    eq(C.robots[1].notes.merged_root, "base")
  end)

  test("point_spheres_and_cylinders", function()
    local C = check.check(world_of({ "quad.urdf", base = "free" }))
    local B = by_name(C)
    eq({ B.trunk.shapes[2].type, B.trunk.shapes[2].size }, { "sphere", { 0, 0, 0 } }) -- radius 0: a point
    -- r 0.02, L 0.2: the capsule of the same extent, segment 0.16
    eq(B.leg.shapes[1].type, "capsule")
    near(B.leg.shapes[1].size, { 0.02, 0.08, 0 }, TOL)
    -- r 0.05, L 0.04 (shorter than its diameter): the inscribed capsule, radius 0.02, no segment
    near(B.leg.shapes[2].size, { 0.02, 0, 0 }, TOL)
    eq(C.robots[1].notes.flat_cylinders, 1)
  end)

  test("skipped_elements_counted_and_mimic_read", function()
    local C = check.check(world_of({ "quad.urdf", base = "free" }))
    local r = C.robots[1]
    eq(r.skipped, { material = 1, transmission = 1, gazebo = 2, visual = 1 })
    eq(r.mimics, { { joint = "knee", of = "hip" } })
    -- the mimic joint keeps its dof, coupled to its leader's by a row of the step (world/couplings.lua)
    eq(by_name(C).shin.joint.type, "revolute")
    eq(C.nv, 6 + 2)
    local m = by_name(C).shin.joint.mimic
    eq({ m.leader, m.multiplier, m.offset, m.body }, { "leg", -2, 0.1, by_name(C).leg.index })
  end)

  test("joints_and_dofs_in_order", function()
    local C = check.check(world_of({ "quad.urdf", base = "free" }))
    local got = {}
    for _, j in ipairs(C.robots[1].joints) do got[#got + 1] = { j.name, j.type, j.body, j.nq, j.nv } end
    eq(got, { { "(root base)", "floating", "trunk", 7, 6 }, { "hip", "revolute", "leg", 1, 1 },
      { "knee", "continuous", "shin", 1, 1 } })
  end)

  test("initial_pose_by_joint_name", function()
    local C = check.check(world_of({ "quad.urdf", q = { hip = 0.3, knee = -0.6 } }))
    eq(C.q_init, { 0.3, -0.6 })
    raises({ "quad.urdf", q = { hipp = 1 } }, "here.lua:3: urdf q: hipp is not a joint of 'quad.urdf'; did you mean 'hip'%?")
    raises({ "quad.urdf", q = { floating_base = 1 } }, "joint 'floating_base' is fixed and has no position")
    raises({ "quad.urdf", q = { hip = { 1, 2 } } }, "urdf q.hip: a revolute joint takes a number")
  end)

  test("collisions_false_reads_no_shapes", function()
    local C = check.check(world_of({ "quad.urdf", collisions = false }))
    eq(#C.shapes, 0)
    eq(C.robots[1].skipped.collision, 5)
  end)

  test("adjacent_and_overlapping_pairs_excluded", function()
    -- trunk-leg and leg-shin are adjacent; trunk's box and leg's disc
    -- (at the hip, inside the box's end) overlap, but they are adjacent
    -- already; base and trunk merged: no pair
    local C = check.check(world_of({ "quad.urdf", base = "free" }))
    local got = {}
    for _, e in ipairs(C.excluded) do got[#got + 1] = e.a .. " " .. e.b .. " " .. e.reason end
    eq(got, { "trunk leg adjacent", "leg shin adjacent" })
  end)
end)

-- two arms on one base whose hands overlap at the start; an SRDF
write("two.urdf", [[<robot name="two">
  <link name="base">]] .. inertial(1) .. [[</link>
  <joint name="a" type="revolute"><parent link="base"/><child link="arm_a"/><origin xyz="0.1 0 0"/><axis xyz="0 0 1"/></joint>
  <link name="arm_a">]] .. inertial(1) .. [[<collision><origin xyz="0 0.3 0"/><geometry><sphere radius="0.06"/></geometry></collision></link>
  <joint name="b" type="revolute"><parent link="base"/><child link="arm_b"/><origin xyz="-0.1 0 0"/><axis xyz="0 0 1"/></joint>
  <link name="arm_b">]] .. inertial(1) .. [[<collision><origin xyz="0 0.3 0"/><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <joint name="c" type="revolute"><parent link="base"/><child link="arm_c"/><origin xyz="0 0 -1"/><axis xyz="0 0 1"/></joint>
  <link name="arm_c">]] .. inertial(1) .. [[<collision><geometry><capsule radius="0.01" length="0.1"/></geometry></collision></link>
</robot>]])
write("two.srdf", [[<robot name="two">
  <disable_collisions link1="arm_a" link2="arm_c" reason="Never"/>
</robot>]])
write("bad.srdf", [[<robot name="two">
  <disable_collisions link1="arm_a" link2="arm_x" reason="Never"/>
</robot>]])

group("urdf_pairs", function()
  test("overlap_at_the_initial_pose", function()
    -- sphere at (0.1, 0.3, 0) radius 0.06 and box centred at (-0.1, 0.3, 0),
    -- half extent 0.05: 0.2 - 0.05 > 0.06 apart; turned by q they meet
    local C = check.check(world_of({ "two.urdf" }))
    eq(#C.excluded, 3) -- the three adjacent pairs
    eq(#C.pairs, 3)
    -- b turned so its box comes within the sphere: the box centre at
    -- (-0.1 - 0.3 sin(qb), 0.3 cos(qb)); with qb = -0.6 it is at
    -- (0.069, 0.248), 0.055 from the sphere's centre
    C = check.check(world_of({ "two.urdf", q = { b = -0.6 } }))
    local last = C.excluded[#C.excluded]
    eq({ last.a, last.b, last.reason }, { "arm_a", "arm_b", "overlap" })
    eq(#C.pairs, 2)
  end)

  test("srdf_disable_collisions", function()
    local C = check.check(world_of({ "two.urdf", srdf = "two.srdf" }))
    local last = C.excluded[#C.excluded]
    eq({ last.a, last.b, last.reason }, { "arm_a", "arm_c", "srdf" })
    eq(#C.pairs, 2)
    raises({ "two.urdf", srdf = "bad.srdf" }, "bad.srdf:2: <disable_collisions>: 'arm_x' is not a link of 'two.urdf'")
    raises({ "two.urdf", srdf = "none.srdf" }, "here.lua:3: cannot read SRDF file")
  end)
end)

-- a planar joint (normal z) carrying a body of mass m, inertia izz at its origin
write("planar.urdf", [[<robot name="p">
  <link name="world"/>
  <joint name="slide" type="planar"><parent link="world"/><child link="puck"/><axis xyz="0 0 1"/></joint>
  <link name="puck"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.2" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="f" type="floating"><parent link="world"/><child link="float"/><origin xyz="0 0 2"/></joint>
  <link name="float">]] .. inertial(1) .. [[</link>
</robot>]])

group("urdf_joints", function()
  test("planar_joint_dynamics", function()
    local C = check.check(world_of({ "planar.urdf", q = { slide = { 0.1, 0.2, 0.3 } } }))
    local B = by_name(C)
    eq({ B.puck_planar_x.joint.type, B.puck_planar_y.joint.type, B.puck.joint.type },
      { "prismatic", "prismatic", "revolute" })
    near(B.puck.joint.axis, { 0, 0, 1 }, TOL)
    eq(B.puck_planar_x.mass, 0)
    eq({ B.float.joint.type, B.float.nq }, { "free", 7 }) -- a floating joint from the world link
    near(B.float.joint.xyz, { 0, 0, 2 }, TOL)
    eq({ C.q_init[1], C.q_init[2], C.q_init[3] }, { 0.1, 0.2, 0.3 })
    -- M = diag(m, m, izz) for the planar dofs (the centre of mass at the origin)
    local w = S.compile(C, "planar")
    local q = { 0.1, 0.2, 0.3, 0, 0, 0, 1, 0, 0, 0 }
    local M = S.mass(w, q)
    near({ M[1][1], M[1][2], M[1][3], M[2][2], M[2][3], M[3][3] }, { 2, 0, 0, 2, 0, 0.3 }, TOL)
    -- gravity along -z: no force in the plane
    near({ unpack(S.bias(w, q, { 0.5, -0.2, 0.7, 0, 0, 0, 0, 0, 0 }), 1, 3) }, { 0, 0, 0 }, TOL)
    raises({ "planar.urdf", actuated = { "slide" } }, "joint 'slide' is planar; a planar joint cannot be actuated")
  end)
end)

-- a link on a hinge about y with its centre of mass l along x: V = -m g l sin q,
-- so the effort that holds it is dV/dq = -m g l cos q
write("hinge.urdf", [[<robot name="h">
  <link name="base"/>
  <joint name="hinge" type="continuous"><parent link="base"/><child link="bar"/><axis xyz="0 1 0"/></joint>
  <link name="bar"><inertial><origin xyz="0.4 0 0"/><mass value="1.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>]])
write("hinge.lua", [[
local W = world "W" { gradients = false, urdf { "hinge.urdf", actuated = "all", q = { hinge = 0.3 } } }
return diagram "hinge" { system { "w", W }, fix_input { "w.effort", value = { 0.0 } } }
]])

group("urdf_world_outputs", function()
  test("gravity_effort_holds_a_link", function()
    local m = diagc.jit(DIR .. "/hinge.lua")
    local sim = m:simulator()
    local g = sim.context:eval("w.gravity_effort")
    near(g, -1.5 * 9.81 * 0.4 * math.cos(0.3), { rtol = 1e-14, atol = 1e-14 })
    -- holding it with that effort: it stays put
    sim.context:set("w.effort", g)
    sim:advance_to(0.5)
    near(sim.context:get("w.pos"), 0.3, { atol = 1e-12 })
  end)
end)

-- a chain whose first and third links overlap for good: with check_lcp the
-- step's unsolvable LCP fails the run, naming the pair and the time; the
-- same links imported from a URDF are left out at import (overlap) and run
write("chain.lua", [[
local W = world "W" { gradients = false, check_lcp = true,
  body { "a", mass = 1, inertia = { 0.01, 0.01, 0.01 }, joint = { "revolute", axis = { 0, 1, 0 } },
    shapes = { { "sphere", radius = 0.1, xyz = { 0.3, 0, 0 } } } },
  body { "b", mass = 1, inertia = { 0.01, 0.01, 0.01 }, joint = { "revolute", parent = "a", axis = { 0, 1, 0 } } },
  body { "c", mass = 1, inertia = { 0.01, 0.01, 0.01 }, joint = { "revolute", parent = "b", axis = { 0, 1, 0 } },
    shapes = { { "sphere", radius = 0.1, xyz = { 0.35, 0, 0 } } } },
}
return diagram "chain" { system { "w", W } }
]])
write("chain.urdf", [[<robot name="chain">
  <link name="root"/>
  <joint name="ja" type="revolute"><parent link="root"/><child link="a"/><axis xyz="0 1 0"/></joint>
  <link name="a">]] .. inertial(1) .. [[<collision><origin xyz="0.3 0 0"/><geometry><sphere radius="0.1"/></geometry></collision></link>
  <joint name="jb" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/></joint>
  <link name="b">]] .. inertial(1) .. [[</link>
  <joint name="jc" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 1 0"/></joint>
  <link name="c">]] .. inertial(1) .. [[<collision><origin xyz="0.35 0 0"/><geometry><sphere radius="0.1"/></geometry></collision></link>
</robot>]])
write("chain_urdf.lua", [[
local W = world "W" { gradients = false, check_lcp = true, urdf { "chain.urdf" } }
return diagram "chain_urdf" { system { "w", W } }
]])

write("chain_free.lua", [[
local W = world "W" { gradients = false,
  body { "a", mass = 1, inertia = { 0.01, 0.01, 0.01 }, joint = { "revolute", axis = { 0, 1, 0 }, actuated = true },
    shapes = { { "sphere", radius = 0.1, xyz = { 0.3, 0, 0 } } } },
  body { "b", mass = 1, inertia = { 0.01, 0.01, 0.01 }, joint = { "revolute", parent = "a", axis = { 0, 1, 0 } } },
  body { "c", mass = 1, inertia = { 0.01, 0.01, 0.01 }, joint = { "revolute", parent = "b", axis = { 0, 1, 0 } },
    shapes = { { "sphere", radius = 0.1, xyz = { 0.35, 0, 0 } } } },
}
return diagram "chain_free" { system { "w", W }, fix_input { "w.effort", value = { 0.0 } } }
]])

group("world_lcp_report", function()
  test("blow_up_after_unsolved_lcp_says_so", function()
    -- without check_lcp the unsolved steps go on (residual 1); an effort
    -- that overflows the velocity then stops the run, and the message says
    -- the LCP before was unsolved
    local sim = diagc.jit(DIR .. "/chain_free.lua"):simulator()
    sim:advance_to(0.01)
    local info = sim.context:get("w.info")
    near(info[3], 1, { atol = 1e-12 })
    -- and every one of them is counted: ten 1 ms steps left inexact
    eq(info[#info], 10)
    sim.context:set("w.effort", 1e308)
    local rc, why = sim:try_advance_to(0.1)
    assert(rc < 0, "the run should fail")
    assert(why:find("the velocity after the smooth dynamics is not finite", 1, true), why)
    assert(why:find("the step before left its contact LCP unsolved (residual 1): set check_lcp = true", 1, true), why)
  end)

  test("unsolvable_lcp_names_pair_and_time", function()
    local sim = diagc.jit(DIR .. "/chain.lua"):simulator()
    local rc, why = sim:try_advance_to(0.1)
    assert(rc < 0, "the run should fail")
    assert(why:find("discrete update event 'w.step' failed at t = 0: contact: an LCP failed its complementarity "
      .. "check: the contact of bodies 'a' (sphere) and 'c' (sphere)", 1, true), why)
    assert(why:find("exclude = { {\"a\", \"c\"} }", 1, true), why)
  end)

  test("urdf_overlap_left_out_runs", function()
    local m = diagc.jit(DIR .. "/chain_urdf.lua")
    local sim = m:simulator()
    sim:advance_to(0.1)
    local last = m.gen.flat.leaves[1].type.world.excluded
    eq({ last[#last].a, last[#last].b, last[#last].reason }, { "a", "c", "overlap" })
  end)
end)

-- Drake's collision filter groups: a group ignoring itself, and one ignoring another
write("groups.urdf", [[<robot name="g" xmlns:drake="http://drake.mit.edu">
  <link name="root"/>
  <joint name="j1" type="revolute"><parent link="root"/><child link="l1"/><axis xyz="0 0 1"/></joint>
  <link name="l1">]] .. inertial(1) .. [[<collision><origin xyz="1 0 0"/><geometry><sphere radius="0.1"/></geometry></collision></link>
  <joint name="j2" type="revolute"><parent link="root"/><child link="l2"/><axis xyz="0 0 1"/></joint>
  <link name="l2">]] .. inertial(1) .. [[<collision><origin xyz="-1 0 0"/><geometry><sphere radius="0.1"/></geometry></collision></link>
  <joint name="j3" type="revolute"><parent link="root"/><child link="l3"/><axis xyz="0 0 1"/></joint>
  <link name="l3">]] .. inertial(1) .. [[<collision><origin xyz="0 1 0"/><geometry><sphere radius="0.1"/></geometry></collision></link>
  <joint name="j4" type="revolute"><parent link="root"/><child link="l4"/><axis xyz="0 0 1"/></joint>
  <link name="l4">]] .. inertial(1) .. [[<collision><origin xyz="0 -1 0"/><geometry><sphere radius="0.1"/></geometry></collision></link>
  <drake:collision_filter_group name="left">
    <drake:member link="l1"/><drake:member link="l2"/>
    <drake:ignored_collision_filter_group name="left"/>
  </drake:collision_filter_group>
  <drake:collision_filter_group name="right">
    <drake:member link="l3"/>
    <drake:ignored_collision_filter_group name="other"/>
  </drake:collision_filter_group>
  <drake:collision_filter_group name="other">
    <drake:member link="l4"/>
  </drake:collision_filter_group>
</robot>]])

group("urdf_filter_groups", function()
  test("drake_collision_filter_groups", function()
    local C = check.check(world_of({ "groups.urdf" }))
    local got = {}
    for _, e in ipairs(C.excluded) do
      if e.reason == "filter group" then got[#got + 1] = e.a .. " " .. e.b end
    end
    eq(got, { "l1 l2", "l3 l4" })
    eq(#C.pairs, 6 - 2) -- the four links' six pairs, less the two filtered
    eq(C.robots[1].skipped["drake:collision_filter_group"], nil) -- read, not skipped
  end)
end)

group("urdf_info", function()
  test("diagc_info_lists_joints_notes_and_excluded_pairs", function()
    write("quad.lua", [[
local W = world "W" { gradients = false, urdf { "quad.urdf", base = "free", xyz = { 0, 0, 1 } } }
return diagram "quad" { system { "w", W } }
]])
    local info = require("diagc.cli.info")
    local gen = require("diagc.compile").compile(DIR .. "/quad.lua", {})
    local d = info.describe(gen)
    local r = d.worlds[1].robots[1]
    local got = {}
    for _, j in ipairs(r.joints) do got[#got + 1] = { j.name, j.type, j.body, j.q, j.v, j.nq, j.nv } end
    eq(got, { { "(root base)", "floating", "trunk", 0, 0, 7, 6 }, { "hip", "revolute", "leg", 7, 6, 1, 1 },
      { "knee", "continuous", "shin", 8, 7, 1, 1 } })
    eq(r.notes[1], "skipped (nothing a world simulates): 2 <gazebo>, 1 <material>, 1 <transmission>, 1 <visual>")
    eq(r.notes[2], "massless root link 'base' merged into the link it is fixed to")
    -- the mimic coupling is enforced (world/couplings.lua) and listed with the world's joint rows
    eq(d.worlds[1].mimics[1], { body = "shin", leader = "leg", multiplier = -2, offset = 0.1 })
    eq(#d.worlds[1].excluded, 2)
    local text = info.text(d)
    assert(text:find("    excluded pairs (2):\n      trunk leg  (adjacent)\n      leg shin  (adjacent)\n", 1, true), text)
    assert(text:find("      hip                        revolute   body leg                  q[7] v[6]", 1, true), text)
  end)
end)
