-- tests/lua/world_worlds.lua: the worlds of the world dynamics tests
-- (tests/lua/world_dynamics_test.lua, tests/cli/world_dynamics_cc.lua),
-- loaded with dofile: a cartpole, a double pendulum, a free body, a
-- ball-joint pendulum, a chain of every joint type and a branching 7-dof
-- tree, with their constants and states.

local G = 9.81

local function body(name, mass, com, inertia, joint)
  return { name = name, mass = mass, com = com, inertia = inertia, joint = joint }
end

local function cartpole(mc, mp, l)
  return { gravity = { 0, 0, -G }, bodies = {
    body("cart", mc, { 0, 0, 0 }, { 0.1, 0.2, 0.3, 0, 0, 0 }, { type = "prismatic", parent = 0, axis = { 1, 0, 0 } }),
    body("pole", mp, { 0, 0, l }, { 0, 0, 0, 0, 0, 0 }, { type = "revolute", parent = 1, axis = { 0, 1, 0 } }),
  } }
end

local function double_pendulum(damping)
  return { gravity = { 0, 0, -G }, bodies = {
    body("upper", 1.2, { 0.05, 0.01, -0.5 }, { 0.09, 0.1, 0.011, 0.001, -0.002, 0.003 },
      { type = "revolute", parent = 0, axis = { 0, 1, 0 }, xyz = { 0, 0, 2 }, damping = damping }),
    body("lower", 0.7, { 0, 0.02, -0.4 }, { 0.04, 0.05, 0.006, 0, 0.001, 0 },
      { type = "revolute", parent = 1, axis = { 0.6, 0.8, 0 }, xyz = { 0, 0.1, -1 }, rpy = { 0.1, -0.2, 0.3 },
        damping = damping }),
  } }
end

-- a free body with its centre of mass off the origin and a full inertia
local FREE_COM, FREE_I, FREE_M = { 0.1, -0.2, 0.3 }, { 0.3, 0.4, 0.5, 0.01, -0.02, 0.03 }, 2.5

local function free_body(g)
  return { gravity = g, bodies = {
    body("b", FREE_M, FREE_COM, FREE_I, { type = "free", parent = 0 }),
  } }
end

local function quat(axis, angle)
  local n = math.sqrt(axis[1] ^ 2 + axis[2] ^ 2 + axis[3] ^ 2)
  local s = math.sin(angle / 2) / n
  return { math.cos(angle / 2), axis[1] * s, axis[2] * s, axis[3] * s }
end

-- a ball-joint pendulum hanging from the world
local BALL_COM, BALL_I, BALL_M = { 0.05, 0.02, -0.9 }, { 0.2, 0.25, 0.05, 0.01, 0.02, -0.01 }, 1.7

local function ball_pendulum()
  return { gravity = { 0, 0, -G }, bodies = {
    body("bob", BALL_M, BALL_COM, BALL_I, { type = "ball", parent = 0, xyz = { 0, 0, 1 } }),
  } }
end

-- a chain mixing every joint type, under gravity: energy conserved
local function mixed_chain()
  return { gravity = { 0.5, -1, -G }, bodies = {
    body("a", 1.1, { 0.1, 0, -0.3 }, { 0.05, 0.06, 0.07, 0.001, 0, 0.002 },
      { type = "revolute", parent = 0, axis = { 0, 0.6, 0.8 }, xyz = { 0, 0, 1 }, rpy = { 0.2, 0, 0.1 } }),
    body("b", 0.8, { 0, 0.05, -0.2 }, { 0.03, 0.02, 0.04, 0, 0.001, 0 },
      { type = "prismatic", parent = 1, axis = { 1, 0, 0 }, xyz = { 0, 0, -0.6 }, rpy = { 0, 0.3, 0 } }),
    body("c", 0.6, { 0.02, -0.03, -0.25 }, { 0.02, 0.03, 0.01, 0.002, -0.001, 0.001 },
      { type = "ball", parent = 2, xyz = { 0.1, 0, -0.2 }, rpy = { -0.1, 0.2, 0.3 } }),
    body("d", 0.3, { 0, 0, 0 }, { 0.01, 0.01, 0.01, 0, 0, 0 },
      { type = "fixed", parent = 3, xyz = { 0, 0.1, -0.5 }, rpy = { 0.5, 0, 0 } }),
    body("e", 0.5, { 0.03, 0.01, -0.1 }, { 0.02, 0.015, 0.01, 0.001, 0, -0.001 },
      { type = "free", parent = 4, xyz = { 0.05, 0, -0.1 }, rpy = { 0, -0.4, 0.2 } }),
  } }
end

local MIXED_Q = { 0.4, 0.1, 0.9, 0.1, -0.3, 0.2, 0.05, -0.1, 0.2, 0.95, -0.1, 0.2, 0.1 }

local MIXED_V = { 0.7, -0.3, 1.1, -0.6, 0.9, 0.2, 0.1, -0.3, 0.5, -1.2, 0.8 }

local function unit_quats(q)
  for _, o in ipairs({ 3, 10 }) do
    local n = math.sqrt(q[o] ^ 2 + q[o + 1] ^ 2 + q[o + 2] ^ 2 + q[o + 3] ^ 2)
    for k = o, o + 3 do q[k] = q[k] / n end
  end
  return q
end

-- a 7-dof tree branching at the base: base -> (a1 -> a2 -> a3) and (b1 -> b2 -> b3)
local function branching_tree()
  local function rev(parent, axis, xyz, rpy) return { type = "revolute", parent = parent, axis = axis, xyz = xyz, rpy = rpy } end
  return { gravity = { 0, 0, -G }, bodies = {
    body("base", 2.0, { 0, 0, 0.1 }, { 0.1, 0.12, 0.08, 0.01, 0, 0 }, rev(0, { 0, 0, 1 }, { 0, 0, 0.2 })),
    body("a1", 1.0, { 0.2, 0, 0 }, { 0.02, 0.03, 0.04, 0, 0.001, 0 }, rev(1, { 0, 1, 0 }, { 0.1, 0.2, 0.3 }, { 0.1, 0, 0 })),
    body("b1", 0.9, { 0, 0.1, 0 }, { 0.03, 0.02, 0.05, 0, 0, 0.002 },
      { type = "prismatic", parent = 1, axis = { 0, 0, 1 }, xyz = { -0.1, 0, 0.3 } }),
    body("a2", 0.8, { 0.15, 0, 0 }, { 0.01, 0.02, 0.02, 0, 0, 0 }, rev(2, { 1, 0, 0 }, { 0.4, 0, 0 }, { 0, 0.2, 0 })),
    body("b2", 0.7, { 0, 0, -0.2 }, { 0.02, 0.02, 0.01, 0.001, 0, 0 }, rev(3, { 0.6, 0, 0.8 }, { 0, 0.3, 0 })),
    body("a3", 0.5, { 0.1, 0.02, 0 }, { 0.005, 0.006, 0.007, 0, 0, 0 }, rev(4, { 0, 0, 1 }, { 0.3, 0, 0 }, { 0, 0, 0.4 })),
    body("b3", 0.4, { 0, 0, -0.1 }, { 0.004, 0.005, 0.003, 0, 0, 0 }, rev(5, { 0, 1, 0 }, { 0, 0, -0.4 })),
  } }
end

return {
  G = G,
  body = body,
  cartpole = cartpole,
  double_pendulum = double_pendulum,
  FREE_COM = FREE_COM,
  FREE_I = FREE_I,
  FREE_M = FREE_M,
  free_body = free_body,
  quat = quat,
  BALL_COM = BALL_COM,
  BALL_I = BALL_I,
  BALL_M = BALL_M,
  ball_pendulum = ball_pendulum,
  mixed_chain = mixed_chain,
  MIXED_Q = MIXED_Q,
  MIXED_V = MIXED_V,
  unit_quats = unit_quats,
  branching_tree = branching_tree,
}
