-- Collision meshes (world/mesh_read.lua, world/hull.lua, world/mesh.lua)
-- and their hulls in a world (runtime/src/collide_hull.c):
--   - the readers: the vertices of examples/mesh/demo_meshes (binary and
--     ASCII STL, OBJ, COLLADA with <unit> and a node transform), known by
--     construction;
--   - the quickhull against qhull's qconvex (Debian qhull-bin, installed by
--     scripts/install-deps.sh): volume and vertex set, for a cube with inner points, a
--     sphere cloud, a random cloud, a wedge and a sheared prism;
--     determinism; the vertex cap;
--   - package:// through package_path, --package-path; names relative to
--     the URDF;
--   - a hull box resting on a plane steps exactly as the primitive box
--     (impulses to 1e-9 at every step, trajectories of a tumbling drop);
--   - a hull dropped on a hull settles without drift (< 1e-6 m over 1 s),
--     so does a stack of three, and the UR5 forearm's hull on the ground;
--   - two UR5 meshes (tests/fixtures/meshes) against qconvex;
--   - the step Jacobians with a hull against guarded central differences
--     (1e-8, as world_grad_test.lua).
local dsl = diagc.dsl
local mesh = require("diagc.world.mesh")
local hull = require("diagc.world.hull")
local errors = require("diagc.errors")

local DIR = diagc.root .. "/examples/mesh"
local MESHES = DIR .. "/demo_meshes/meshes"
local dt = 1e-3

local function ctx(base, dirs)
  return { base = base or DIR, dirs = dirs, loc = { file = DIR .. "/here.urdf", line = 3 }, what = "link 'x'" }
end

-- the hull's vertices as a sorted list of "x y z" strings
local function vset(list)
  local out = {}
  for _, v in ipairs(list) do out[#out + 1] = string.format("%.12g %.12g %.12g", v[1], v[2], v[3]) end
  table.sort(out)
  return out
end

group("mesh_read", function()
  test("stl_binary_cube_scaled", function()
    local h = mesh.load("demo_meshes/meshes/cube.stl", { 0.4, 0.3, 0.2 }, ctx())
    local want = {}
    for k = 0, 7 do
      want[#want + 1] = { (k % 2 == 1) and 0.2 or -0.2, (math.floor(k / 2) % 2 == 1) and 0.15 or -0.15,
        k >= 4 and 0.1 or -0.1 }
    end
    -- the runtime's corner order: bit 0 +x, bit 1 +y, bit 2 +z
    eq(h.vertices, want)
    eq(#h.faces, 6)
    near(hull.volume(h), 0.4 * 0.3 * 0.2, { rtol = 1e-15 })
  end)

  test("stl_ascii_obj_dae", function()
    local a = mesh.load("demo_meshes/meshes/cube_ascii.stl", { 1, 1, 1 }, ctx())
    eq(#a.vertices, 8)
    near(hull.volume(a), 0.125, { rtol = 1e-15 })
    local w = mesh.load("demo_meshes/meshes/wedge.obj", { 1, 1, 1 }, ctx())
    eq(#w.vertices, 6)
    eq(#w.faces, 5)
    near(hull.volume(w), 0.5 * 0.4 * 0.3 * 0.6, { rtol = 1e-14 })
    -- octahedron of half diagonal 100 mm, moved up 50 mm by its node
    local o = mesh.load("demo_meshes/meshes/octahedron.dae", { 1, 1, 1 }, ctx())
    eq(vset(o.vertices), vset({ { 0.1, 0, 0.05 }, { -0.1, 0, 0.05 }, { 0, 0.1, 0.05 }, { 0, -0.1, 0.05 },
      { 0, 0, 0.15 }, { 0, 0, -0.05 } }))
    near(hull.volume(o), 4 / 3 * 0.1 ^ 3, { rtol = 1e-12 })
  end)

  test("package_paths_and_relative_names", function()
    -- package_path of the importer, then --package-path
    local h = mesh.load("package://demo_meshes/meshes/cube.stl", { 1, 1, 1 }, ctx("/nowhere", { DIR }))
    eq(#h.vertices, 8)
    mesh.package_path = { DIR .. "/demo_meshes" } -- a folder named as the package
    local h2 = mesh.load("package://demo_meshes/meshes/wedge.obj", { 1, 1, 1 }, ctx("/nowhere"))
    eq(#h2.vertices, 6)
    mesh.package_path = {}
    local ok, e = pcall(mesh.load, "package://nothing_here/a.stl", { 1, 1, 1 }, ctx("/nowhere", { DIR }))
    assert(not ok and errors.is(e), "an error")
    local msg = errors.format(e)
    assert(msg:find("here.urdf:3: link 'x': package 'nothing_here'", 1, true), msg)
    assert(msg:find("search path: " .. DIR, 1, true), msg)
  end)

  test("vertex_limit_of_a_file", function()
    local read = require("diagc.world.mesh_read")
    local keep = read.MAX_VERTICES
    read.MAX_VERTICES = 10
    local ok, e = pcall(mesh.load, "demo_meshes/meshes/cube_ascii.stl", { 1, 1, 1 }, ctx())
    read.MAX_VERTICES = keep
    assert(not ok and errors.is(e), "an error")
    local msg = errors.format(e)
    assert(msg:find("cube_ascii.stl:26: the mesh has more than 10 vertices", 1, true), msg)
  end)

  test("vertex_cap_simplifies", function()
    -- 2000 points on a sphere: the capped hull keeps 64 vertices, inside the full one
    local pts = {}
    local seed = 12345
    local function rnd()
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    end
    for _ = 1, 2000 do
      local z, t = 2 * rnd() - 1, 2 * math.pi * rnd()
      local r = math.sqrt(1 - z * z)
      pts[#pts + 1], pts[#pts + 2], pts[#pts + 3] = r * math.cos(t), r * math.sin(t), z
    end
    local h = hull.hull(pts, hull.MAX_VERTICES)
    eq(#h.vertices, hull.MAX_VERTICES)
    assert(h.dropped > 0 and h.outside > 0 and h.outside < 0.1, "dropped " .. h.dropped .. " outside " .. h.outside)
    local v = hull.volume(h)
    assert(v > 0.85 * 4 / 3 * math.pi and v < 4 / 3 * math.pi, "volume " .. v)
    -- deterministic: the same points, the same hull
    eq(hull.hull(pts, hull.MAX_VERTICES), h)
  end)
end)

-- qconvex's volume and extreme points of pts (flat list), or nil
local function qconvex(pts)
  local tmp = os.tmpname()
  local f = io.open(tmp, "w")
  f:write("3\n", #pts / 3, "\n")
  for i = 1, #pts, 3 do f:write(string.format("%.17g %.17g %.17g\n", pts[i], pts[i + 1], pts[i + 2])) end
  f:close()
  local p = io.popen("qconvex Fx FS < " .. tmp .. " 2>/dev/null")
  local out = p:read("*a")
  p:close()
  os.remove(tmp)
  local nums = {}
  for tok in out:gmatch("%S+") do nums[#nums + 1] = tonumber(tok) end
  if #nums < 4 then return nil end
  local n, idx = nums[1], {}
  for i = 1, n do idx[i] = nums[1 + i] end
  -- then FS: "0" (no integers), "2 area volume"
  return nums[#nums], idx
end

group("hull_vs_qconvex", function()
  local have = os.execute("command -v qconvex >/dev/null 2>&1")
  have = have == 0 or have == true
  local seed = 7
  local function rnd()
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  end
  local sets = {}
  -- a cube with points inside and on its faces
  local c = {}
  for k = 0, 7 do
    c[#c + 1], c[#c + 2], c[#c + 3] = (k % 2) - 0.5, (math.floor(k / 2) % 2) - 0.5, math.floor(k / 4) - 0.5
  end
  for _ = 1, 50 do c[#c + 1], c[#c + 2], c[#c + 3] = rnd() - 0.5, rnd() - 0.5, rnd() - 0.5 end
  for _ = 1, 20 do c[#c + 1], c[#c + 2], c[#c + 3] = rnd() - 0.5, 0.5, rnd() - 0.5 end
  sets.cube = c
  -- 40 points on a sphere (all extreme), 300 in a ball
  local s, b = {}, {}
  for _ = 1, 40 do
    local z, t = 2 * rnd() - 1, 2 * math.pi * rnd()
    local r = math.sqrt(1 - z * z)
    s[#s + 1], s[#s + 2], s[#s + 3] = 0.3 * r * math.cos(t), 0.3 * r * math.sin(t), 0.3 * z
  end
  for _ = 1, 300 do
    b[#b + 1], b[#b + 2], b[#b + 3] = rnd() - 0.5, 2 * rnd() - 1, 0.1 * rnd()
  end
  sets.sphere, sets.cloud = s, b
  -- a sheared hexagonal prism
  local p = {}
  for k = 0, 5 do
    local a = k * math.pi / 3
    p[#p + 1], p[#p + 2], p[#p + 3] = math.cos(a), math.sin(a), 0
    p[#p + 1], p[#p + 2], p[#p + 3] = math.cos(a) + 0.3, math.sin(a) - 0.2, 2
  end
  sets.prism = p
  for _, name in ipairs({ "cube", "sphere", "cloud", "prism" }) do
    test("qconvex_" .. name, function()
      assert(have, "qconvex is missing: install Debian's qhull-bin (scripts/install-deps.sh does)")
      local pts = sets[name]
      local h = hull.hull(pts, 1e9)
      local vol, idx = qconvex(pts)
      assert(vol, "qconvex gave no answer")
      near(hull.volume(h), vol, { rtol = 1e-9 })
      local want = {}
      for _, i in ipairs(idx) do want[#want + 1] = { pts[3 * i + 1], pts[3 * i + 2], pts[3 * i + 3] } end
      eq(vset(h.vertices), vset(want))
    end)
  end
end)

-- real meshes (tests/fixtures/meshes/NOTICE): the full hull against
-- qconvex's (volume to 1e-9; every vertex of ours is one of its extreme
-- points, each of its others within 1e-9 of the extent of our hull); the
-- faces convex (every vertex below each face's own plane within 1e-9 of
-- the extent)
group("hull_real_meshes", function()
  local read = require("diagc.world.mesh_read")
  local host = require("diagc_host")
  local FIX = diagc.root .. "/tests/fixtures/meshes/ur5/"
  for _, name in ipairs({ "forearm.stl", "base.dae" }) do
    test("ur5_" .. name:gsub("%.", "_"), function()
      local text = host.read_source(FIX .. name, 1e8)
      local pts = read.vertices(text, name:match("stl$") and "stl" or "dae",
        function(_, fmt, ...) error(string.format(fmt, ...)) end, host.xml_parse, name)
      local h = hull.hull(pts, 1e9)
      local vol, idx = qconvex(pts)
      assert(vol, "qconvex gave no answer")
      near(hull.volume(h), vol, { rtol = 1e-9 })
      local lo, hi = { 1e300, 1e300, 1e300 }, { -1e300, -1e300, -1e300 }
      for i = 1, #pts, 3 do
        for k = 1, 3 do lo[k], hi[k] = math.min(lo[k], pts[i + k - 1]), math.max(hi[k], pts[i + k - 1]) end
      end
      local tol = 1e-9 * math.sqrt((hi[1] - lo[1]) ^ 2 + (hi[2] - lo[2]) ^ 2 + (hi[3] - lo[3]) ^ 2)
      local theirs = {}
      for _, i in ipairs(idx) do theirs[string.format("%.17g %.17g %.17g", pts[3 * i + 1], pts[3 * i + 2], pts[3 * i + 3])] = i end
      local mine = {}
      for _, v in ipairs(h.vertices) do
        local k = string.format("%.17g %.17g %.17g", v[1], v[2], v[3])
        assert(theirs[k], "a vertex qconvex does not have: " .. k)
        mine[k] = true
      end
      for k, i in pairs(theirs) do
        if not mine[k] then
          local p, out = { pts[3 * i + 1], pts[3 * i + 2], pts[3 * i + 3] }, -1e300
          for _, f in ipairs(h.faces) do out = math.max(out, f.n[1] * p[1] + f.n[2] * p[2] + f.n[3] * p[3] - f.d) end
          assert(out <= tol, "qconvex's vertex " .. k .. " lies " .. out .. " outside")
        end
      end
      for _, f in ipairs(h.faces) do
        local a = h.vertices[f.verts[1]]
        local d0 = f.n[1] * a[1] + f.n[2] * a[2] + f.n[3] * a[3]
        for _, v in ipairs(h.vertices) do
          assert(f.n[1] * v[1] + f.n[2] * v[2] + f.n[3] * v[3] - d0 <= tol, "a face that is not convex")
        end
      end
    end)
  end
end)

-- ---------------------------------------------------------------------
-- worlds

local function box_inertia(m, a, b, c) return { m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12 } end

local CRATE = { 0.4, 0.3, 0.2 }

-- the crate as a primitive box or as the hull of cube.stl scaled
local function crate_shape(as_hull)
  if as_hull then return { "mesh", file = MESHES .. "/cube.stl", scale = CRATE } end
  return { "box", size = CRATE }
end

local function on_plane(as_hull, q, v)
  return diagc.jit(dsl.diagram "onplane" { dsl.system { "w", dsl.world "arena" {
    time_step = dt, friction = 0.6,
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
    dsl.body { "crate", mass = 2, inertia = box_inertia(2, CRATE[1], CRATE[2], CRATE[3]),
      joint = { "free", q = q, v = v }, shapes = { crate_shape(as_hull) } } } } })
end

group("world_mesh", function()
  for _, case in ipairs({ { "resting", { 0.1, -0.2, 0.1 - 1e-5, 1, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 } },
    { "tumbling", { 0, 0, 0.4, math.cos(0.3), math.sin(0.3) * 0.6, math.sin(0.3) * 0.8, 0 }, { 0.5, 0, 0, 1, 2, 0 } } }) do
    test("hull_box_on_plane_is_the_box_" .. case[1], function()
      local sims = { on_plane(false, case[2], case[3]):simulator(), on_plane(true, case[2], case[3]):simulator() }
      local worst_imp, worst_q, contacts = 0, 0, 0
      for k = 1, 1000 do
        for _, s in ipairs(sims) do s:advance_to((k - 0.5) * dt) end
        local a, b = sims[1].context:get("w.imp"), sims[2].context:get("w.imp")
        for i = 1, #a, 4 do
          eq(a[i], b[i]) -- the same contact keys (corner k = vertex k)
          if a[i] ~= 0 then contacts = contacts + 1 end
          for j = 1, 3 do worst_imp = math.max(worst_imp, math.abs(a[i + j] - b[i + j])) end
        end
        local qa, qb = sims[1].context:get("w.pos"), sims[2].context:get("w.pos")
        for i = 1, 7 do worst_q = math.max(worst_q, math.abs(qa[i] - qb[i])) end
      end
      assert(contacts > 1000, "the crate touches the ground: " .. contacts)
      assert(worst_imp <= 1e-9, "impulses differ by " .. worst_imp)
      assert(worst_q <= 1e-9, "positions differ by " .. worst_q)
    end)
  end

  test("hull_on_hull_settles", function()
    local m = diagc.jit(dsl.diagram "hh" { dsl.system { "w", dsl.world "arena" {
      time_step = dt, friction = 0.8,
      dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
      -- a 1 x 1 x 0.2 table of cube.stl, fixed, and the crate dropped on it, turned
      dsl.body { "table", joint = { "fixed", xyz = { 0, 0, 0.1 } },
        shapes = { { "mesh", file = MESHES .. "/cube.stl", scale = { 1, 1, 0.2 } } } },
      dsl.body { "crate", mass = 2, inertia = box_inertia(2, CRATE[1], CRATE[2], CRATE[3]),
        joint = { "free", q = { 0.1, 0.05, 0.35, math.cos(0.2), 0, 0, math.sin(0.2) } },
        shapes = { crate_shape(true) } } } } })
    local sim = m:simulator()
    sim:advance_to(1.0)
    local q1 = sim.context:get("w.pos")
    sim:advance_to(2.0)
    local q2 = sim.context:get("w.pos")
    near(q1[3], 0.3, { atol = 1e-3 }) -- on the table's top (0.2) plus half its height
    for i = 1, 3 do near(q2[i], q1[i], { atol = 1e-6 }) end
    local imp, n = sim.context:get("w.imp"), 0
    for i = 1, #imp, 4 do if imp[i] ~= 0 and imp[i + 1] > 0 then n = n + 1 end end
    assert(n >= 4, "a face patch of at least 4 points holds it: " .. n)
  end)

  test("hull_stack_stays_put", function()
    -- three crates (hulls) stacked on a hull table, each turned a little:
    -- after 1 s no crate moves more than 1e-6 m in the next second
    local items = {
      time_step = dt, friction = 0.8,
      dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
      dsl.body { "table", joint = { "fixed", xyz = { 0, 0, 0.1 } },
        shapes = { { "mesh", file = MESHES .. "/cube.stl", scale = { 1, 1, 0.2 } } } },
    }
    for i = 1, 3 do
      local a = 0.1 * i
      items[#items + 1] = dsl.body { "crate" .. i, mass = 2, inertia = box_inertia(2, CRATE[1], CRATE[2], CRATE[3]),
        joint = { "free", q = { 0.01 * i, -0.01 * i, 0.2 + 0.1 + 0.2 * (i - 1), math.cos(a / 2), 0, 0, math.sin(a / 2) } },
        shapes = { crate_shape(true) } }
    end
    local m = diagc.jit(dsl.diagram "stack" { dsl.system { "w", dsl.world "arena" (items) } })
    local sim = m:simulator()
    sim:advance_to(1.0)
    local q1 = sim.context:get("w.pos")
    sim:advance_to(2.0)
    local q2 = sim.context:get("w.pos")
    for i = 1, 3 do
      near(q1[7 * (i - 1) + 3], 0.3 + 0.2 * (i - 1), { atol = 1e-3 })
      for k = 1, 3 do near(q2[7 * (i - 1) + k], q1[7 * (i - 1) + k], { atol = 1e-6 }) end
    end
  end)

  test("ur5_forearm_hull_rests_on_the_ground", function()
    -- the UR5 forearm's collision mesh (3150 vertices: a 64-vertex hull)
    -- dropped lying down on the ground settles
    local m = diagc.jit(dsl.diagram "fa" { dsl.system { "w", dsl.world "arena" {
      time_step = dt, friction = 0.8,
      dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
      dsl.body { "forearm", mass = 1.2, com = { 0, 0, 0.2 }, inertia = { 0.02, 0.02, 0.002 },
        joint = { "free", q = { 0, 0, 0.1, math.cos(math.pi / 4), math.sin(math.pi / 4), 0, 0 } },
        shapes = { { "mesh", file = diagc.root .. "/tests/fixtures/meshes/ur5/forearm.stl" } } } } } })
    local sim = m:simulator()
    sim:advance_to(2.0)
    local q1 = sim.context:get("w.pos")
    sim:advance_to(3.0)
    local q2 = sim.context:get("w.pos")
    for i = 1, 3 do near(q2[i], q1[i], { atol = 1e-6 }) end
    for _, x in ipairs(q2) do assert(x == x, "NaN") end
  end)

  local function max_error(J, F)
    local e = 0
    for i = 1, #F do
      for j = 1, #F[i] do
        local r = F[i][j]
        if r == r then e = math.max(e, math.abs(J[i][j] - r) / math.max(1, math.abs(r))) end
      end
    end
    return e
  end

  for _, on in ipairs({ "plane", "hull" }) do
    test("step_jacobians_hull_on_" .. on, function()
      local floor = on == "plane" and { "plane" } or { "mesh", file = MESHES .. "/cube.stl", scale = { 1, 1, 0.2 } }
      local z = on == "plane" and 0 or 0.2
      local m = diagc.jit(dsl.diagram "g" { dsl.system { "w", dsl.world "arena" {
        time_step = dt, friction = 0.5,
        dsl.body { "floor", joint = { "fixed", xyz = { 0, 0, on == "plane" and 0 or 0.1 } }, shapes = { floor } },
        dsl.body { "crate", mass = 2, inertia = box_inertia(2, CRATE[1], CRATE[2], CRATE[3]),
          joint = { "free", q = { 0.05, 0, z + 0.1 - 5e-5, 1, 0, 0, 0 }, v = { 0.3, 0.1, -0.01, 0.2, 0, 0 } },
          shapes = { crate_shape(true) } } } } })
      local c = m:context()
      local J = c:step_jacobians("w")
      local F = c:step_jacobians("w", { jacobian = "fd" })
      eq(#F.fd_kinks, 0)
      eq(J.status, 0)
      assert(J.contacts >= 4, "the crate touches: " .. J.contacts)
      local e = max_error(J.T, F.T)
      assert(e <= 1e-8, string.format("|model - fd| = %.3g", e))
    end)
  end
end)
