-- The tangent derivatives of the generated dynamics (world/tangent.lua,
-- cdiff's source transformation) against central differences of the
-- primal generated dynamics in tangent coordinates (q (+) d applied
-- exactly: quaternions turned by exp(d/2) on the right), on every world
-- of tests/lua/world_worlds.lua at random states (relative tolerance 1e-7
-- of each matrix's largest entry).  The gcc/clang/tcc builds at the strict
-- flags: tests/cli/world_tangent_cc.sh.
local T = dofile("tests/lua/world_tangent_support.lua")
local W = dofile("tests/lua/world_worlds.lua")
local S = T.S
local tangent = require("diagc.world.tangent")

local WORLDS = {
  { "cartpole", W.cartpole(1.3, 0.45, 0.8) },
  { "double_pendulum", W.double_pendulum(0.3) },
  { "free_body", W.free_body({ 0.3, -0.2, -W.G }) },
  { "ball_pendulum", W.ball_pendulum() },
  { "mixed_chain", W.mixed_chain() },
  { "branching_tree", W.branching_tree() },
  -- a ground and lone free bodies (the contact scenes' stack): their M y
  -- comes from the mass matrix's closed form
  { "lone_bodies", { gravity = { 0, 0, -W.G }, bodies = {
    W.body("ground", 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "fixed", parent = 0 }),
    W.body("box1", 1, { 0, 0, 0 }, { 0.2, 0.2, 0.2, 0, 0, 0 }, { type = "free", parent = 0 }),
    W.body("box2", 0.7, { 0.05, 0, -0.1 }, { 0.1, 0.2, 0.3, 0.01, 0, 0 }, { type = "free", parent = 0,
      xyz = { 0, 0, 1 }, rpy = { 0.3, 0, 0 } }),
  } } },
}

local function close(got, want, what)
  eq(#got, #want, what .. ": size")
  local scale = 0
  for _, x in ipairs(want) do scale = math.max(scale, math.abs(x)) end
  for i = 1, #want do
    local g, x = got[i], want[i]
    if not (math.abs(g - x) <= 1e-7 * math.max(scale, 1e-3)) then
      error(string.format("%s: entry %d: %.15g, central differences %.15g (largest entry %.3g)", what, i, g, x,
        scale), 0)
    end
  end
end

local function check_world(label, world, seed)
  local w = T.compile(world, "tg")
  local f = w.f
  local nv, nb = f.nv, f.nb
  local rnd = T.rng(seed)
  for trial = 1, 3 do
    local what = label .. " state " .. trial
    local q = T.random_q(world, f, rnd)
    local v, a, y = T.random(nv, rnd), T.random(nv, rnd), T.random(nv, rnd)
    local Wf = T.random(6 * nb, rnd)
    local function at(d) return T.retract(world, f, q, d) end
    -- kinematics
    local dX = T.call(w, "kinematics", { q }, { 12 * nb * nv })[1]
    close(dX, T.fd(function(d) return S.poses(w, at(d)) end, nv), what .. " d_kinematics")
    -- rnea: both Jacobians
    local r = T.call(w, "rnea", { q, v, a }, { nv * nv, nv * nv })
    close(r[1], T.fd(function(d) return T.tau(w, at(d), v, a) end, nv), what .. " d_rnea Dq")
    close(r[2], T.fd(function(d)
      local vv = {}
      for k = 1, nv do vv[k] = v[k] + d[k] end
      return T.tau(w, q, vv, a)
    end, nv), what .. " d_rnea Dv")
    -- M y
    close(T.call(w, "mvec", { q, y }, { nv * nv })[1], T.fd(function(d) return T.mvec(w, at(d), y) end, nv),
      what .. " d_mvec")
    -- body velocities and generalized forces
    close(T.call(w, "bvel", { q, y }, { 6 * nb * nv })[1], T.fd(function(d) return T.bvel(w, at(d), y) end, nv),
      what .. " d_bvel")
    close(T.call(w, "gforce", { q, Wf }, { nv * nv })[1], T.fd(function(d) return T.gforce(w, at(d), Wf) end, nv),
      what .. " d_gforce")
  end
  return w
end

for n, case in ipairs(WORLDS) do
  test("world.tangent." .. case[1], function() check_world(case[1], case[2], 100 + n) end)
end

-- the body velocity of the point Jacobians (what d_bvel is checked
-- against) is the twist of the poses: dR/ds R^T = [omega], dp/ds = v_o + omega x p,
-- along q(s) = q (+) s y
test("world.tangent.body_velocity_convention", function()
  for n, case in ipairs(WORLDS) do
    local world = case[2]
    local w = T.compile(world, "bv")
    local f = w.f
    local rnd = T.rng(7 + n)
    local q, y = T.random_q(world, f, rnd), T.random(f.nv, rnd)
    local V = T.bvel(w, q, y)
    local dX = T.fd(function(d)
      local sy = {}
      for k = 1, f.nv do sy[k] = d[1] * y[k] end
      return S.poses(w, T.retract(world, f, q, sy))
    end, 1)
    local X = S.poses(w, q)
    for b = 1, f.nb do
      local o = 12 * (b - 1)
      local R, dR = { unpack(X, o + 1, o + 9) }, { unpack(dX, o + 1, o + 9) }
      local p, dp = { X[o + 10], X[o + 11], X[o + 12] }, { dX[o + 10], dX[o + 11], dX[o + 12] }
      local function Wm(i, j) -- (dR R^T)[i][j]
        local s = 0
        for k = 1, 3 do s = s + dR[3 * (i - 1) + k] * R[3 * (j - 1) + k] end
        return s
      end
      local om = { Wm(3, 2), Wm(1, 3), Wm(2, 1) }
      local vo = S.cross(om, p)
      for e = 1, 3 do vo[e] = dp[e] - vo[e] end
      near({ V[6 * (b - 1) + 1], V[6 * (b - 1) + 2], V[6 * (b - 1) + 3] }, om, { rtol = 1e-6, atol = 1e-7 })
      near({ V[6 * (b - 1) + 4], V[6 * (b - 1) + 5], V[6 * (b - 1) + 6] }, vo, { rtol = 1e-6, atol = 1e-7 })
    end
  end
end)

test("world.tangent.deterministic_and_functions_alone", function()
  local world = W.mixed_chain()
  local a, b = tangent.emit(world, "dt"), tangent.emit(world, "dt")
  truthy(a == b, "same input, same bytes")
  local one = tangent.emit(world, "dt", { functions = { "gforce" } })
  truthy(one:find("dt_d_gforce", 1, true) and not one:find("dt_d_rnea", 1, true))
end)
