-- The looped form of the dynamics (world/looped.lua) and of their tangent
-- derivatives (world/tangent_looped.lua) against the unrolled form
-- (world/kinematics.lua ... energy.lua, and cdiff's derivatives of them:
-- an independent derivation), forced with the world's `dynamics` setting,
-- on every world of tests/lua/world_worlds.lua (revolute, prismatic,
-- fixed, ball and free joints, a branching tree) and lone free bodies, at
-- random states, to 1e-12 relative (of each result's largest entry, at
-- least 1); the step Jacobians of a 30-body chain (looped by default)
-- against central differences of the whole step; chains, trees and a
-- pile of free bodies of 7 to 200 bodies generating, compiling and
-- stepping with gradients on.
local T = dofile("tests/lua/world_tangent_support.lua")
local W = dofile("tests/lua/world_worlds.lua")
local S = T.S
local dsl = diagc.dsl

local function with(world, mode)
  local w = {}
  for k, v in pairs(world) do w[k] = v end
  w.settings = { dynamics = mode }
  return w
end

local WORLDS = {
  { "cartpole", W.cartpole(1.3, 0.45, 0.8) },
  { "double_pendulum", W.double_pendulum(0.3) },
  { "free_body", W.free_body({ 0.3, -0.2, -W.G }) },
  { "ball_pendulum", W.ball_pendulum() },
  { "mixed_chain", W.mixed_chain() },
  { "branching_tree", W.branching_tree() },
  -- a floating base with legs (a free joint on the world carrying a tree):
  -- its linear columns of d_rnea and d_mvec are exact zeros in the looped
  -- form (tangent_looped.lua's slide), cdiff's sums of the unrolled code
  { "floating_tree", { gravity = { 0.3, -0.2, -W.G }, bodies = {
    W.body("base", 2, { 0.02, -0.01, 0.03 }, { 0.3, 0.2, 0.25, 0.01, 0, 0.02 },
      { type = "free", parent = 0, xyz = { 0.1, 0, 0.8 }, rpy = { 0.2, -0.1, 0.3 }, damping = 0.2 }),
    W.body("thigh", 0.7, { 0, 0, -0.15 }, { 0.02, 0.03, 0.01, 0, 0, 0 },
      { type = "revolute", parent = 1, axis = { 0, 1, 0 }, xyz = { 0.1, 0.05, -0.05 } }),
    W.body("shin", 0.4, { 0.01, 0, -0.12 }, { 0.01, 0.012, 0.004, 0, 0.001, 0 },
      { type = "ball", parent = 2, xyz = { 0, 0, -0.3 }, rpy = { 0.1, 0, 0 } }),
    W.body("arm", 0.5, { 0, 0.1, 0 }, { 0.01, 0.005, 0.01, 0, 0, 0 },
      { type = "prismatic", parent = 1, axis = { 0.6, 0, 0.8 }, xyz = { -0.1, 0, 0.1 } }),
  } } },
  { "lone_bodies", { gravity = { 0, 0, -W.G }, bodies = {
    W.body("ground", 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "fixed", parent = 0 }),
    W.body("box1", 1, { 0, 0, 0 }, { 0.2, 0.2, 0.2, 0, 0, 0 }, { type = "free", parent = 0 }),
    W.body("box2", 0.7, { 0.05, 0, -0.1 }, { 0.1, 0.2, 0.3, 0.01, 0, 0 }, { type = "free", parent = 0,
      xyz = { 0, 0, 1 }, rpy = { 0.3, 0, 0 }, damping = 0.3 }),
  } } },
}

local function same(what, got, want)
  eq(#got, #want, what .. ": size")
  local scale = 1
  for i = 1, #want do scale = math.max(scale, math.abs(want[i]), math.abs(got[i])) end
  for i = 1, #want do
    if not (math.abs(got[i] - want[i]) <= 1e-12 * scale) then
      error(string.format("%s: entry %d: looped %.17g, unrolled %.17g", what, i, got[i], want[i]), 0)
    end
  end
end

local function flat(M)
  local out = {}
  for _, row in ipairs(M) do for _, x in ipairs(row) do out[#out + 1] = x end end
  return out
end

test("world_looped.dynamics_match_unrolled", function()
  for _, e in ipairs(WORLDS) do
    local label, world = e[1], e[2]
    local u, l = S.compile(with(world, "unrolled"), "u"), S.compile(with(world, "looped"), "l")
    truthy(not require("diagc.world.dynamics").emit(with(world, "unrolled"), "x"):find("x_tree"), label)
    local f = u.f
    local rnd = T.rng(11)
    for trial = 1, 3 do
      local what = label .. " state " .. trial
      local q = T.random_q(world, f, rnd)
      local v, tau = T.random(f.nv, rnd), T.random(f.nv, rnd)
      local qa = S.arr(f.nq, q)
      same(what .. " poses", S.poses(l, q), S.poses(u, q))
      same(what .. " mass matrix", flat(S.mass(l, q)), flat(S.mass(u, q)))
      same(what .. " bias", S.bias(l, q, v), S.bias(u, q, v))
      same(what .. " energy", { S.energy(l, q, v) }, { S.energy(u, q, v) })
      -- factor and solve: forward dynamics
      local au, al = S.arr(f.nv), S.arr(f.nv)
      u.fn.accel(qa, S.arr(f.nv, v), S.arr(f.nv, tau), au)
      l.fn.accel(qa, S.arr(f.nv, v), S.arr(f.nv, tau), al)
      same(what .. " accel", S.list(al, f.nv), S.list(au, f.nv))
      -- the solve over each subtree, packed
      for id = 0, f.ntrees - 1 do
        local n = #f.tree_dofs[id]
        local Mu, Ml, X = S.arr(f.nm), S.arr(f.nm), S.arr(12 * f.nb)
        u.fn.kinematics(qa, X)
        u.fn.mass_matrix(qa, X, Mu)
        l.fn.mass_matrix(qa, X, Ml)
        u.fn.factor(Mu)
        l.fn.factor(Ml)
        local b = T.random(n, rnd)
        local xu, xl = S.arr(n, b), S.arr(n, b)
        u.fn.solve_tree(Mu, id, xu)
        l.fn.solve_tree(Ml, id, xl)
        same(what .. " solve_tree " .. id, S.list(xl, n), S.list(xu, n))
        -- three rows at once (a contact's), some with zeros off a chain:
        -- each equals its own solve_tree, the gap between rows untouched
        local rows3 = {}
        for r = 1, 3 do
          for k = 1, n do rows3[#rows3 + 1] = (k + r) % 3 == 0 and 0 or b[k] * r end
          rows3[#rows3 + 1] = 7.25
        end
        for _, form in ipairs({ { u, Mu }, { l, Ml } }) do
          local x3 = S.arr(3 * (n + 1), rows3)
          form[1].fn.solve_tree3(form[2], id, x3, n + 1)
          for r = 0, 2 do
            local one = S.arr(n, { unpack(rows3, r * (n + 1) + 1, r * (n + 1) + n) })
            form[1].fn.solve_tree(form[2], id, one)
            local got = {}
            for k = 0, n do got[k + 1] = x3[r * (n + 1) + k] end
            local want = S.list(one, n)
            want[n + 1] = 7.25
            same(what .. " solve_tree3 " .. id .. " row " .. r, got, want)
          end
        end
      end
      -- many columns at once (row stride ld > ncol): each column bit for bit
      -- its own solve, the gap column untouched
      if f.nv > 0 then
        local Xq = S.arr(12 * f.nb)
        u.fn.kinematics(qa, Xq)
        for _, form in ipairs({ u, l }) do
          local Mf = S.arr(f.nm)
          form.fn.mass_matrix(qa, Xq, Mf)
          form.fn.factor(Mf)
          local ncol, ld = 3, 4
          local cols = {}
          for i = 0, f.nv - 1 do
            for c = 0, ld - 1 do cols[i * ld + c + 1] = c == ld - 1 and 7.25 or (i + c) % 4 == 0 and 0 or rnd() - 0.5 end
          end
          local Xc = S.arr(f.nv * ld, cols)
          form.fn.solve_cols(Mf, Xc, ncol, ld)
          for c = 0, ld - 1 do
            local one = S.arr(f.nv)
            for i = 0, f.nv - 1 do one[i] = cols[i * ld + c + 1] end
            if c < ncol then form.fn.solve(Mf, one) end
            for i = 0, f.nv - 1 do
              if Xc[i * ld + c] ~= one[i] then
                error(string.format("%s solve_cols column %d row %d: %.17g, solve %.17g", what, c, i, Xc[i * ld + c], one[i]), 0)
              end
            end
          end
        end
      end
      local X = S.arr(12 * f.nb)
      u.fn.kinematics(qa, X)
      for b = 0, f.nb do
        local p = S.arr(3, T.random(3, rnd))
        local Ju, Jl = S.arr(3 * f.nv), S.arr(3 * f.nv)
        u.fn.point_jacobian(b, qa, X, p, Ju)
        l.fn.point_jacobian(b, qa, X, p, Jl)
        same(what .. " point_jacobian " .. b, S.list(Jl, 3 * f.nv), S.list(Ju, 3 * f.nv))
        u.fn.point_jacobian_tree(b, qa, X, p, Ju)
        l.fn.point_jacobian_tree(b, qa, X, p, Jl)
        same(what .. " point_jacobian_tree " .. b, S.list(Jl, 3 * f.nv), S.list(Ju, 3 * f.nv))
      end
    end
  end
end)

test("world_looped.tangents_match_cdiff", function()
  for _, e in ipairs(WORLDS) do
    local label, world = e[1], e[2]
    local u, l = T.compile(with(world, "unrolled"), "tu"), T.compile(with(world, "looped"), "tl")
    truthy(l.text:find("looped") and not u.text:find("looped"), label)
    local f = u.f
    local nv, nb = f.nv, f.nb
    local rnd = T.rng(5)
    for trial = 1, 3 do
      local what = label .. " state " .. trial
      local q = T.random_q(world, f, rnd)
      local v, a, y = T.random(nv, rnd), T.random(nv, rnd), T.random(nv, rnd)
      local Wf = T.random(6 * nb, rnd)
      local function both(name, args, sizes)
        local ru, rl = T.call(u, name, args, sizes), T.call(l, name, args, sizes)
        for k = 1, #sizes do same(what .. " d_" .. name .. " " .. k, rl[k], ru[k]) end
      end
      both("kinematics", { q }, { 12 * nb * nv })
      both("rnea", { q, v, a }, { nv * nv, nv * nv })
      both("mvec", { q, y }, { nv * nv })
      both("bvel", { q, y }, { 6 * nb * nv })
      both("gforce", { q, Wf }, { nv * nv })
    end
  end
end)

-- the looped tangents' body Jacobians, written from the motion columns
-- (d_bjac), against each body's spatial Jacobian from the generated point
-- Jacobians (world_tangent_support.lua)
test("world_looped.body_jacobians_from_motion_columns", function()
  for _, e in ipairs(WORLDS) do
    local label, world = e[1], e[2]
    local l = T.compile(with(world, "looped"), "tb", true)
    local f = l.f
    local nv, nb = f.nv, f.nb
    local rnd = T.rng(7)
    for trial = 1, 3 do
      local q = T.random_q(world, f, rnd)
      local X = S.arr(12 * nb)
      l.fn.kinematics(S.arr(f.nq, q), X)
      local Jb = S.arr(6 * nb * nv)
      l.d.bjac(X, Jb)
      for i = 0, nb - 1 do
        local got = {}
        for k = 0, 6 * nv - 1 do got[k + 1] = Jb[6 * i * nv + k] end
        same(string.format("%s state %d body %d", label, trial, i + 1), got, T.body_jacobian(l, q, i + 1))
      end
    end
  end
end)

-- specs: a chain of n revolute links alternating y/x axes; a binary tree
-- of n revolute bodies; n free boxes on a plane
local function chain_world(n, settings)
  local items = { time_step = 1e-3 }
  for k, v in pairs(settings or {}) do items[k] = v end
  for i = 1, n do
    items[#items + 1] = dsl.body { "l" .. i, mass = 1, com = { 0, 0, -0.1 }, inertia = { 0.01, 0.01, 0.001 },
      joint = { "revolute", parent = i > 1 and ("l" .. (i - 1)) or nil, axis = i % 2 == 1 and { 0, 1, 0 } or { 1, 0, 0 },
        xyz = { 0, 0, i == 1 and 0 or -0.2 }, q = { 0.1 }, v = { 0.05 * (i % 3) }, damping = 0.01 } }
  end
  return dsl.world "w" (items)
end

local function tree_world(n)
  local items = { time_step = 1e-3 }
  for i = 1, n do
    items[#items + 1] = dsl.body { "b" .. i, mass = 0.5, com = { 0.02, 0, -0.05 }, inertia = { 0.004, 0.005, 0.002 },
      joint = { "revolute", parent = i > 1 and ("b" .. math.floor(i / 2)) or nil, axis = i % 2 == 1 and { 0, 1, 0 }
        or { 1, 0, 0 }, xyz = { i % 2 == 1 and 0.05 or -0.05, 0, -0.1 }, q = { 0.2 } } }
  end
  return dsl.world "w" (items)
end

-- n free boxes resting apart on a plane (their pairs excluded: each box
-- has one candidate pair, with the ground; all pairs of 100 boxes would
-- give 5050 friction columns, past the derivative code's limit)
local function pile_world(n)
  local exclude = {}
  for i = 1, n do
    for j = i + 1, n do exclude[#exclude + 1] = { "c" .. i, "c" .. j } end
  end
  local items = { time_step = 1e-3, exclude = exclude, dsl.body { "ground", joint = { "fixed" },
    shapes = { { "plane" } } } }
  for i = 1, n do
    local x, y = (i - 1) % 10, math.floor((i - 1) / 10)
    items[#items + 1] = dsl.body { "c" .. i, mass = 1, inertia = { 0.0067, 0.0067, 0.0067 },
      joint = { "free", q = { 0.3 * x, 0.3 * y, 0.1 - 5e-5, 1, 0, 0, 0 } }, shapes = { { "box", size = { 0.2, 0.2, 0.2 } } } }
  end
  return dsl.world "w" (items)
end

local function model(w) return diagc.jit(dsl.diagram "d" { dsl.system { "w", w } }) end

-- the largest error over the reference's columns (NaN columns: kinks, skipped)
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

test("world_looped.chain_30_step_jacobians_fd", function()
  local c = model(chain_world(30)):context()
  local J = c:step_jacobians("w")
  local F = c:step_jacobians("w", { jacobian = "fd" })
  eq(#F.fd_kinks, 0)
  eq(J.status, 0)
  -- 1e-7: the reference's own error on a long chain (its fixed 1e-6
  -- stencil's truncation); on a 15-body chain the unrolled (cdiff) and
  -- looped Jacobians agree to 1e-12 and both sit 5e-9 from it, here 6e-8
  local e = max_error(J.T, F.T)
  assert(e <= 1e-7, string.format("|model - fd| = %.3g", e))
end)

-- each world: generated (auto: looped), compiled in-process, 20 steps and
-- the step's Jacobians, all finite
local function runs(label, w, steps)
  local m = model(w)
  local sim = m:simulator()
  sim:advance_to(steps * 1e-3)
  local q, v = sim.context:get("w.pos"), sim.context:get("w.vel")
  for i = 1, #q do truthy(q[i] == q[i] and math.abs(q[i]) < 1e6, label .. " q finite") end
  for i = 1, #v do truthy(v[i] == v[i] and math.abs(v[i]) < 1e6, label .. " v finite") end
  local J = sim.context:step_jacobians("w")
  eq(J.status, 0)
  for _, row in ipairs(J.T) do
    for _, x in ipairs(row) do truthy(x == x, label .. " Jacobian finite") end
  end
end

test("world_looped.scale_chains_and_trees", function()
  for _, n in ipairs({ 7, 15, 30, 60, 200 }) do
    runs("chain " .. n, chain_world(n), 20)
    runs("tree " .. n, tree_world(n), 20)
  end
end)

test("world_looped.scale_100_free_boxes", function()
  runs("100 boxes", pile_world(100), 5)
end)

test("world_looped.caching_on_off_bit_identical", function()
  local m = model(tree_world(30))
  local a, b = m:simulator(), m:simulator()
  b.context:set_caching(false)
  a:advance_to(0.05)
  b:advance_to(0.05)
  eq(a.context:get("w.pos"), b.context:get("w.pos"))
  eq(a.context:get("w.vel"), b.context:get("w.vel"))
  eq(a.context:step_jacobians("w").T, b.context:step_jacobians("w").T)
end)

-- the auto thresholds (world/size.lua; docs/world.md §6): a chain of N
-- measures N (N + 1) / 2; tangents loop above 10, the dynamics above 120
test("world_looped.auto_thresholds", function()
  local size = require("diagc.world.size")
  local function chain(n, mode)
    local bodies = {}
    for i = 1, n do bodies[i] = W.body("b" .. i, 1, { 0, 0, 0 }, { 1, 1, 1, 0, 0, 0 }, { type = "revolute", parent = i - 1 }) end
    return { bodies = bodies, settings = mode and { dynamics = mode } or nil }
  end
  local function modes(w)
    local f = require("diagc.world.dynamics").facts(w)
    return { size.mode(w, f), size.mode(w, f, "tangents") }
  end
  eq(modes(chain(4)), { "unrolled", "unrolled" })
  eq(modes(chain(5)), { "unrolled", "looped" })
  eq(modes(chain(15)), { "unrolled", "looped" })
  eq(modes(chain(16)), { "looped", "looped" })
  eq(modes(chain(40, "unrolled")), { "unrolled", "unrolled" })
  eq(modes(chain(2, "looped")), { "looped", "looped" })
  -- lone free bodies count 6 each: two are looped in their tangents
  eq(size.loop_units(W.free_body({ 0, 0, -W.G })), 6)
end)

-- unrolled dynamics with looped tangents (the auto form of a 7-link chain)
test("world_looped.mixed_forms_step_jacobians_fd", function()
  local c = model(chain_world(7)):context()
  local J = c:step_jacobians("w")
  local F = c:step_jacobians("w", { jacobian = "fd" })
  eq(#F.fd_kinks, 0)
  local e = max_error(J.T, F.T)
  assert(e <= 1e-8, string.format("|model - fd| = %.3g", e))
end)
