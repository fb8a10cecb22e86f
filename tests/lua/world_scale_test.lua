-- The compiled world at scale (issue #26): stacks of 20 and 50 cubes and a
-- pile of 30 cubes dropped from a seeded random arrangement (the benchmark's
-- scene, bench/world/specs/pile.lua) come to rest: no cube's centre moves
-- more than 1e-6 m over the last second, none penetrates the ground or
-- another cube deeper than the allowed penetration (the runtime default
-- 1e-4 m) plus 1e-5 m, and no step drops a contact.  The expected values
-- are physical (rest, no penetration); the depth is measured here from the
-- poses by separating axes, not read from the step's contacts.
--
-- Each run takes under 30 s today, with the dense contact solve, on a
-- loaded 2-core machine (the times measured are with each test), so all
-- run by default.
local S = dofile("tests/lua/world_support.lua")
local a = 0.2
local ALLOWED, TOL = 1e-4, 1e-5

-- the rotation matrix (row-major) of the unit quaternion (w, x, y, z)
local function rotation(w, x, y, z)
  return { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) }
end

-- column i (0-based) of R: the cube's axis i in the world
local function axis(R, i) return { R[1 + i], R[4 + i], R[7 + i] } end

local function dot(u, v) return u[1] * v[1] + u[2] * v[2] + u[3] * v[3] end

-- the penetration depth of two cubes of half edge h (centres p, rotations
-- R): the least overlap over the 15 separating axes (both cubes' face
-- normals and the cross products of their edges, the face normals of the
-- Minkowski difference); 0 when an axis separates them
local function box_box_depth(pa, Ra, pb, Rb, h)
  local d = { pb[1] - pa[1], pb[2] - pa[2], pb[3] - pa[3] }
  if dot(d, d) > 12 * h * h then return 0 end
  local axes = {}
  for i = 0, 2 do axes[#axes + 1] = axis(Ra, i); axes[#axes + 1] = axis(Rb, i) end
  for i = 0, 2 do
    for j = 0, 2 do
      local u, v = axis(Ra, i), axis(Rb, j)
      local L = { u[2] * v[3] - u[3] * v[2], u[3] * v[1] - u[1] * v[3], u[1] * v[2] - u[2] * v[1] }
      local n = math.sqrt(dot(L, L))
      if n > 1e-9 then axes[#axes + 1] = { L[1] / n, L[2] / n, L[3] / n } end
    end
  end
  local best = math.huge
  for _, L in ipairs(axes) do
    local r = 0
    for i = 0, 2 do r = r + h * (math.abs(dot(axis(Ra, i), L)) + math.abs(dot(axis(Rb, i), L))) end
    best = math.min(best, r - math.abs(dot(d, L)))
  end
  return math.max(best, 0)
end

-- the deepest penetration of n cubes (free-joint q: centre, w x y z) into
-- the ground z = 0 or into one another
local function penetration(q, n)
  local h, worst, p, R = a / 2, 0, {}, {}
  for i = 1, n do
    local o = 7 * (i - 1)
    p[i] = { q[o + 1], q[o + 2], q[o + 3] }
    R[i] = rotation(q[o + 4], q[o + 5], q[o + 6], q[o + 7])
    worst = math.max(worst, h * (math.abs(R[i][7]) + math.abs(R[i][8]) + math.abs(R[i][9])) - p[i][3])
  end
  for i = 1, n do
    for j = i + 1, n do worst = math.max(worst, box_box_depth(p[i], R[i], p[j], R[j], h)) end
  end
  return worst
end

-- runs the model T seconds: the largest drift of a cube's centre over the
-- last second, the deepest penetration at the end, and step_info
local function settle(m, world, n, T)
  local sim = m:simulator()
  sim:advance_to(T - 1)
  local q1 = sim.context:get(world .. ".pos")
  sim:advance_to(T)
  local q = sim.context:get(world .. ".pos")
  local drift = 0
  for i = 0, n - 1 do
    local d2 = 0
    for k = 1, 3 do d2 = d2 + (q[7 * i + k] - q1[7 * i + k]) ^ 2 end
    drift = math.max(drift, math.sqrt(d2))
  end
  for _, x in ipairs(q) do assert(x == x, "NaN in the state") end
  return drift, penetration(q, n), sim.context:get(world .. ".info")
end

local function check_rest(m, world, n, T)
  local drift, pen, info = settle(m, world, n, T)
  near(drift, 0, { atol = 1e-6 })
  truthy(pen <= ALLOWED + TOL, string.format("deepest penetration %.3e m > %.1e m", pen, ALLOWED + TOL))
  -- info[7]: the steps so far that dropped contacts beyond max_contacts
  eq(info[7], 0, "steps that dropped contacts")
end

-- n cubes of 0.2 m and 1 kg stacked on the ground, friction 0.6
local function stack(n) return S.cube_stack(diagc, n, { max_contacts = 4 * n + 16 }, "w", "stack_" .. n) end

-- the measure itself, on poses whose depth is known by hand
test("world_scale.penetration_measure", function()
  local h, c, s = a / 2, math.cos(math.pi / 8), math.sin(math.pi / 8)
  local function pen(...) local q = { ... }; return penetration(q, #q / 7) end
  -- resting on the ground, sunk 3e-5, lifted
  near(pen(0, 0, h, 1, 0, 0, 0), 0, { atol = 1e-15 })
  near(pen(0, 0, h - 3e-5, 1, 0, 0, 0), 3e-5, { atol = 1e-15 })
  near(pen(0, 0, 1, 1, 0, 0, 0), 0, { atol = 1e-15 })
  -- turned 45 degrees about y: an edge down, sqrt 2 h below the centre
  near(pen(0, 0, 0.14, c, 0, s, 0), math.sqrt(2) * h - 0.14, { atol = 1e-15 })
  -- side by side: touching, overlapping by 2e-3, apart
  near(pen(0, 0, 1, 1, 0, 0, 0, a, 0, 1, 1, 0, 0, 0), 0, { atol = 1e-15 })
  near(pen(0, 0, 1, 1, 0, 0, 0, a - 2e-3, 0, 1, 1, 0, 0, 0), 2e-3, { atol = 1e-15 })
  near(pen(0, 0, 1, 1, 0, 0, 0, a + 1e-3, 0.05, 1, 1, 0, 0, 0), 0, { atol = 1e-15 })
  -- the second turned 45 degrees about z, a vertical edge into the first's
  -- face: overlap h + sqrt 2 h - d along x
  near(pen(0, 0, 1, 1, 0, 0, 0, 0.24, 0, 1, c, 0, 0, s), h + math.sqrt(2) * h - 0.24, { atol = 1e-15 })
  -- edge across edge: the lower turned 45 degrees about x (its top an edge
  -- along x, sqrt 2 h above its centre), the upper 45 degrees about y (its
  -- bottom an edge along y) d above it: depth 2 sqrt 2 h - d along z, the
  -- cross product of the two edges
  near(pen(0, 0, 1, c, s, 0, 0, 0, 0, 1.27, c, 0, s, 0), 2 * math.sqrt(2) * h - 0.27, { atol = 1e-15 })
end)

-- times measured with `diagc test` (the compile included) at a load
-- average of 2 on 2 cores, before the sparse solver: 2.6 s
test("world_scale.stack_20_rests", function()
  check_rest(stack(20), "w", 20, 2.0)
end)

-- 3 s with the sparse method (26 s with the dense one)
test("world_scale.stack_50_rests", function()
  check_rest(stack(50), "w", 50, 2.0)
end)

-- the benchmark's pile (its max_contacts included); it settles by 1.8 s
-- with the dense method and by 2.4 s with the sparse one (a pile's path is
-- chaotic: each step exact, the order of events differs), so 4 s
test("world_scale.pile_30_settles", function()
  check_rest(diagc.jit("../../bench/world/specs/pile.lua"), "world", 30, 4.0)
end)
