-- bench/dynamics/worlds.lua: the benchmark worlds of bench/dynamics/run: a 7-dof
-- arm (revolute joints alternating about z and y, link offsets and tilted
-- origins), a floating-base tree of `n` bodies (a free base, then four
-- limbs of revolute joints) and n free boxes, returned as checked world
-- tables.
local M = {}

local function body(name, mass, com, inertia, joint)
  return { name = name, mass = mass, com = com, inertia = inertia, joint = joint }
end

function M.arm()
  local bodies = {}
  for i = 1, 7 do
    local axis = (i % 2 == 1) and { 0, 0, 1 } or { 0, 1, 0 }
    bodies[i] = body("link" .. i, 4 - 0.4 * i, { 0, 0.01 * i, 0.1 }, { 0.05, 0.05, 0.02, 0.001, 0, 0.002 },
      { type = "revolute", parent = i - 1, axis = axis, xyz = { 0, 0, i == 1 and 0.15 or 0.2 },
        rpy = { 0, 0, 0 }, damping = 0.1 })
  end
  return { gravity = { 0, 0, -9.81 }, bodies = bodies }
end

-- a free base and four limbs sharing n - 1 revolute bodies
function M.tree(n)
  local bodies = { body("base", 10, { 0, 0, 0 }, { 0.3, 0.4, 0.5, 0.01, 0, 0 }, { type = "free", parent = 0 }) }
  local ends = { 1, 1, 1, 1 }
  local offs = { { 0.2, 0.1, 0 }, { 0.2, -0.1, 0 }, { -0.2, 0.1, 0 }, { -0.2, -0.1, 0 } }
  local axes = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
  for i = 2, n do
    local limb = (i - 2) % 4 + 1
    local depth = math.floor((i - 2) / 4)
    local p = ends[limb]
    bodies[i] = body("b" .. i, 1.5, { 0, 0, -0.1 }, { 0.02, 0.02, 0.005, 0, 0, 0 },
      { type = "revolute", parent = p, axis = axes[depth % 4 + 1],
        xyz = depth == 0 and offs[limb] or { 0, 0, -0.25 }, rpy = { 0, 0, 0 } })
    ends[limb] = i
  end
  return { gravity = { 0, 0, -9.81 }, bodies = bodies }
end

-- n free bodies (boxes) side by side: n independent 6-dof trees
function M.boxes(n)
  local bodies = {}
  for i = 1, n do
    bodies[i] = body("box" .. i, 1.0, { 0, 0, 0 }, { 0.0167, 0.0167, 0.0167, 0, 0, 0 },
      { type = "free", parent = 0, xyz = { 0, 0, 0 }, rpy = { 0, 0, 0 } })
  end
  return { gravity = { 0, 0, -9.81 }, bodies = bodies }
end

return M
