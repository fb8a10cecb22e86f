-- URDF import (world/urdf.lua): the checked worlds examples/urdf/arm3.urdf
-- and examples/urdf/tilted.urdf give (world/check.lua), against values
-- computed by hand; the host's XML parser (xml_parse, libexpat).  No code
-- generation: the world's dynamics are another stage.
local load = require("diagc.spec.load")
local check = require("diagc.world.check")
local urdf = require("diagc.world.urdf")
local host = require("diagc_host")

local EX = diagc.root .. "/examples/urdf"
local TOL = { rtol = 0, atol = 1e-14 }

-- a frozen world holding one urdf item declared in EX/here.lua
local function world_of(args, extra)
  local items = { { _item = "urdf", loc = { file = EX .. "/here.lua", line = 7 }, args = args } }
  for _, it in ipairs(extra or {}) do items[#items + 1] = it end
  return { _kind = "world", name = "W", loc = { file = EX .. "/here.lua", line = 1 }, items = items, settings = {} }
end

local function by_name(C)
  local t = {}
  for _, b in ipairs(C.bodies) do t[b.name] = b end
  return t
end

-- solid cylinder (axis z) and box inertias about the centre of mass
local function cylinder_I(m, r, L) return { m * (3 * r * r + L * L) / 12, m * (3 * r * r + L * L) / 12, m * r * r / 2, 0, 0, 0 } end
local function box_I(m, a, b, c) return { m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12, 0, 0, 0 } end

group("urdf", function()
  test("arm3_bodies_masses_inertias", function()
    local root = load.load(EX .. "/arm3.lua").root
    local C = check.check(root.items[1].args[2])
    local names = {}
    for i, b in ipairs(C.bodies) do names[i] = b.name end
    eq(names, { "ground", "base", "upper", "fore", "hand" })
    eq({ C.nb, C.nq, C.nv }, { 5, 3, 3 })
    local B = by_name(C)
    eq(B.base.mass, 2.0)
    near(B.base.com, { 0, 0, 0.05 }, TOL)
    eq(B.base.welded, true)
    near({ B.upper.mass, B.fore.mass, B.hand.mass }, { 1.2, 0.8, 0.5 }, TOL)
    near(B.upper.com, { 0, 0, 0.25 }, TOL)
    near(B.fore.com, { 0, 0, 0.2 }, TOL)
    near(B.hand.com, { 0, 0, 0.15 }, TOL)
    near(B.upper.inertia, cylinder_I(1.2, 0.04, 0.5), { rtol = 1e-12 })
    near(B.fore.inertia, box_I(0.8, 0.06, 0.06, 0.4), { rtol = 1e-12 })
    near(B.hand.inertia, cylinder_I(0.5, 0.03, 0.3), { rtol = 1e-12 })
    -- each body located at its <link> in the URDF
    eq(B.upper.loc, { file = EX .. "/arm3.urdf", line = 34, via = { file = EX .. "/arm3.lua", line = 8 } })
  end)

  test("arm3_joints", function()
    local C = check.check(load.load(EX .. "/arm3.lua").root.items[1].args[2])
    local B = by_name(C)
    local j = B.base.joint
    eq({ j.type, j.parent }, { "fixed", 0 })
    near(j.xyz, { 0, 0, 0.02 }, TOL) -- the urdf item's xyz places the root link
    local expect = { upper = { 2, { 0, 0, 0.1 }, 0.1 }, fore = { 3, { 0, 0, 0.5 }, 0.05 }, hand = { 4, { 0, 0, 0.4 }, 0 } }
    for name, e in pairs(expect) do
      local jj = B[name].joint
      eq({ jj.type, jj.parent, jj.actuated }, { "revolute", e[1], true }, name)
      near(jj.xyz, e[2], TOL)
      near(jj.rpy, { 0, 0, 0 }, TOL)
      near(jj.axis, { 0, 1, 0 }, TOL)
      eq(jj.damping, e[3], name)
    end
    eq(C.actuated, { { body = 3, dof = 0 }, { body = 4, dof = 1 }, { body = 5, dof = 2 } })
    eq(C.q_init, { 0, 0, 0 })
  end)

  test("arm3_shapes_and_pairs", function()
    local C = check.check(load.load(EX .. "/arm3.lua").root.items[1].args[2])
    local got = {}
    for i, s in ipairs(C.shapes) do got[i] = { s.body, s.type, s.friction } end
    eq(got, { { 1, "plane", 0.5 }, { 2, "box", 0.8 }, { 3, "capsule", 0.8 }, { 4, "box", 0.8 },
      { 5, "capsule", 0.8 }, { 5, "sphere", 0.8 } })
    near(C.shapes[2].size, { 0.1, 0.1, 0.05 }, TOL)   -- half extents of 0.2 x 0.2 x 0.1
    -- cylinder r 0.04, L 0.5 -> the capsule of the same extent: segment
    -- 0.5 - 2 * 0.04, half length 0.21
    near(C.shapes[3].size, { 0.04, 0.21, 0 }, TOL)
    near(C.shapes[4].size, { 0.03, 0.03, 0.2 }, TOL)
    near(C.shapes[5].size, { 0.03, 0.12, 0 }, TOL)
    near(C.shapes[6].size, { 0.04, 0, 0 }, TOL)
    near(C.shapes[3].xyz, { 0, 0, 0.25 }, TOL)
    near(C.shapes[6].xyz, { 0, 0, 0.3 }, TOL)
    -- plane x {upper, fore, hand x2}; base x {fore, hand x2}; upper x hand x2
    -- (parent-child pairs and the two welded bodies excluded)
    eq(#C.pairs, 9)
  end)

  test("tilted_frames", function()
    local C = check.check(world_of({ "tilted.urdf", xyz = { 0, 0, 0.5 }, rpy = { 0, 0, 0.25 },
      actuated = { "hinge" }, restitution = 0.2 }))
    local B = by_name(C)
    eq(B.world, nil) -- the link named world is the fixed frame
    -- world placement (0, 0, 0.5; yaw 0.25) o mount (1, 0, 0; yaw pi/2)
    local t = B.table.joint
    eq({ t.type, t.parent }, { "fixed", 0 })
    near(t.xyz, { math.cos(0.25), math.sin(0.25), 0.5 }, TOL)
    near(t.rpy, { 0, 0, 0.25 + math.pi / 2 }, TOL)
    eq(B.table.mass, 0) -- a fixed body without a mass has none
    local s = B.carriage.joint
    eq({ s.type, s.damping, s.actuated }, { "prismatic", 2.5, false })
    near(s.axis, { 1, 0, 0 }, TOL)
    -- inertial frame yawed by 90 degrees: diag(1, 2, 3) -> diag(2, 1, 3)
    near(B.carriage.inertia, { 2, 1, 3, 0, 0, 0 }, TOL)
    near(B.carriage.com, { 0.1, 0, 0 }, TOL)
    local h = B.flap.joint
    eq({ h.type, h.actuated }, { "revolute", true })
    near(h.rpy, { 0.3, -0.2, 0.5 }, TOL)
    near(h.axis, { 0, 0, 1 }, TOL) -- normalized
    eq(C.actuated, { { body = B.flap.index, dof = B.flap.v0 } })
    -- shapes keep their collision origin's rpy; cylinder -> capsule
    local caps = B.carriage.shapes[1]
    eq({ caps.type, caps.restitution }, { "capsule", 0.2 })
    near(caps.rpy, { math.pi / 2, 0, 0 }, TOL)
    near(caps.size, { 0.05, 0.05, 0 }, TOL) -- r 0.05, L 0.2: half length (0.2 - 0.1) / 2
    near(B.table.shapes[1].rpy, { 0, 0, 0.3 }, TOL)
    near(B.table.shapes[1].xyz, { 0, 0, -0.05 }, TOL)
  end)

  test("tilted_full_inertia_rotated", function()
    local C = check.check(world_of({ "tilted.urdf" }))
    local I = by_name(C).flap.inertia
    -- R = Rz(-1.1) Ry(0.7) Rx(0.4), built from the elementary rotations
    local function mul(A, B)
      local P = {}
      for i = 1, 3 do
        P[i] = {}
        for j = 1, 3 do
          local s = 0
          for k = 1, 3 do s = s + A[i][k] * B[k][j] end
          P[i][j] = s
        end
      end
      return P
    end
    local function T(A) return { { A[1][1], A[2][1], A[3][1] }, { A[1][2], A[2][2], A[3][2] }, { A[1][3], A[2][3], A[3][3] } } end
    local c, s = math.cos, math.sin
    local Rx = { { 1, 0, 0 }, { 0, c(0.4), -s(0.4) }, { 0, s(0.4), c(0.4) } }
    local Ry = { { c(0.7), 0, s(0.7) }, { 0, 1, 0 }, { -s(0.7), 0, c(0.7) } }
    local Rz = { { c(-1.1), -s(-1.1), 0 }, { s(-1.1), c(-1.1), 0 }, { 0, 0, 1 } }
    local R = mul(Rz, mul(Ry, Rx))
    local I0 = { { 0.3, 0.01, -0.02 }, { 0.01, 0.2, 0.03 }, { -0.02, 0.03, 0.25 } }
    local E = mul(mul(R, I0), T(R))
    near(I, { E[1][1], E[2][2], E[3][3], E[1][2], E[1][3], E[2][3] }, { atol = 1e-15 })
    -- a rotation keeps the trace
    near(I[1] + I[2] + I[3], 0.75, { rtol = 1e-14 })
    -- the centre of mass is the inertial origin, in the link frame
    near(by_name(C).flap.com, { 0.05, -0.02, 0.1 }, TOL)
  end)

  test("massless_fixed_link_merged", function()
    local C = check.check(world_of({ "tilted.urdf" }))
    local B = by_name(C)
    eq(B.tool, nil)
    local names = {}
    for i, b in ipairs(C.bodies) do names[i] = b.name end
    eq(names, { "table", "carriage", "flap", "finger" })
    -- tool frame in flap: (0, 0, 0.3), yaw pi/2; its sphere at (0.1, 0, 0) in tool
    local sphere = B.flap.shapes[2]
    eq({ #B.flap.shapes, sphere.type, sphere.size[1] }, { 2, "sphere", 0.02 })
    near(sphere.xyz, { 0, 0.1, 0.3 }, TOL)
    near(sphere.rpy, { 0, 0, math.pi / 2 }, TOL)
    -- finger's joint at (0.2, 0, 0) in tool -> (0, 0.2, 0.3) in flap
    local f = B.finger.joint
    eq(f.parent, B.flap.index)
    near(f.xyz, { 0, 0.2, 0.3 }, TOL)
    near(f.rpy, { 0, 0, math.pi / 2 }, TOL)
  end)

  test("free_base_and_prefix", function()
    local C = check.check(world_of({ "arm3.urdf", base = "free", xyz = { 1, 2, 3 }, prefix = "a_" }))
    local B = by_name(C)
    eq(B.a_base.joint.type, "free")
    near(B.a_base.joint.xyz, { 1, 2, 3 }, TOL)
    eq({ C.nq, C.nv, #C.actuated }, { 10, 9, 0 })
    eq(B.a_upper.joint.parent, B.a_base.index)
  end)

  test("two_copies_with_prefixes", function()
    local second = { _item = "urdf", loc = { file = EX .. "/here.lua", line = 8 },
      args = { "arm3.urdf", prefix = "b_", xyz = { 1, 0, 0 }, actuated = "all" } }
    local C = check.check(world_of({ "arm3.urdf", prefix = "a_", actuated = { "elbow" } }, { second }))
    eq(C.nb, 8)
    eq(#C.actuated, 4)
  end)

  test("short_form", function()
    -- urdf "file.urdf" is urdf { "file.urdf" }
    local it = diagc.dsl.urdf(EX .. "/arm3.urdf")
    eq(require("diagc.spec.dsl").record(it).args, { EX .. "/arm3.urdf" })
    local W = diagc.dsl.world "W" { it }
    local C = check.check(load.freeze(W))
    eq(C.nb, 4)
  end)

  test("bodies_are_body_items_located_in_the_urdf", function()
    local items = urdf.bodies({ _item = "urdf", loc = { file = EX .. "/here.lua", line = 3 }, args = { "arm3.urdf" } })
    eq(#items, 4)
    for _, it in ipairs(items) do
      eq(it._item, "body")
      eq(it.loc.file, EX .. "/arm3.urdf")
    end
    eq({ items[1].loc.line, items[2].loc.line, items[3].loc.line, items[4].loc.line }, { 9, 34, 55, 74 })
    eq(items[2].args.joint, { "revolute", name = "shoulder", parent = "base", xyz = { 0, 0, 0.1 }, rpy = { 0, 0, 0 },
      axis = { 0, 1, 0 }, damping = 0.1, limit = { -3.14, 3.14, effort = 50, velocity = 5 } })
  end)

  test("errors_point_into_the_urdf", function()
    local function err(args) return expect_error(function() check.check(world_of(args)) end) end
    eq(err({ "arm3.urdf", actuated = { "elbw" } }),
      EX .. "/here.lua:7: urdf actuated[0]: elbw is not a joint of 'arm3.urdf'; did you mean 'elbow'?")
    eq(err({ "tilted.urdf", base = "free" }),
      EX .. "/here.lua:7: the root link of 'tilted.urdf' is 'world', the fixed frame; base = \"free\" does not apply")
    eq(err({ "arm3.urdf", bse = "free" }), EX .. "/here.lua:7: urdf has no field 'bse'; did you mean 'base'?")
    eq(err({ "arm3.urdf", actuated = "some" }),
      EX .. "/here.lua:7: urdf actuated must be \"all\" or a list of joint names, got some")
    eq(err({ "arm3.urdf", actuated = { "shoulder", 3 } }),
      EX .. "/here.lua:7: urdf actuated[1]: 3 is not a joint of 'arm3.urdf'")
    eq(err({ "arm3.urdf", xyz = { 0, 0 } }), EX .. "/here.lua:7: urdf xyz must be a list of 3 numbers, got 2 values")
    eq(err({ "missing.urdf" }), EX .. "/here.lua:7: cannot read URDF file '" .. EX .. "/missing.urdf': no such file")
    eq(#check.check(world_of({ "arm3.urdf", actuated = {} })).actuated, 0)
    eq(err({ "arm3.urdf", base = "floating" }),
      EX .. "/here.lua:7: urdf base must be \"fixed\" (the default) or \"free\", got floating")
  end)
end)

group("xml_parse", function()
  test("tree", function()
    local t = host.xml_parse('<?xml version="1.0"?>\n<r a="1">\n  <c b="x &amp; y">t<d/>u</c>\n</r>', "f.xml")
    eq(t.tag, "r")
    eq(t.attrs, { a = "1" })
    eq({ t.line, t.col }, { 2, 1 })
    local c = t.children[1]
    eq({ c.tag, c.attrs.b, c.text, c.line, c.col, #c.children }, { "c", "x & y", "tu", 3, 3, 1 })
    eq(c.children[1].tag, "d")
  end)

  test("errors", function()
    local function e(text) return select(2, host.xml_parse(text, "f.xml")) end
    eq(e("<a>\n<b>\n</a>"), "f.xml:3:3: mismatched tag")
    eq(e(""), "f.xml:1:1: no element found")
    eq(e('<a x="1" x="2"/>'), "f.xml:1:10: duplicate attribute")
    eq(e(string.rep("<a>", 300)), "f.xml:1:772: elements are nested more than 256 deep")
    -- expat's amplification limit stops entity expansion bombs
    local ent = '<!DOCTYPE a [<!ENTITY x "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx">'
    local prev = "x"
    for k = 1, 6 do
      local name = "e" .. k
      ent = ent .. '<!ENTITY ' .. name .. ' "' .. string.rep("&" .. prev .. ";", 16) .. '">'
      prev = name
    end
    local msg = e(ent .. "]><a>&" .. prev .. ";</a>")
    truthy(msg and msg:find("amplification", 1, true), msg)
  end)
end)
