-- testing/rollout.lua: reverse mode through a world's trajectory for
-- `diagc test` (issue #18; docs/world.md "Gradients"): N steps of the world
-- leaf's update from the context's state, each step's Jacobians kept (its
-- grad entry, 2 nv x ncol), then vector-Jacobian products backwards
-- (backpropagation through time).  The trajectory's Jacobian (2 nv N
-- columns) is never formed: a VJP costs one pass of 2 nv x ncol products
-- per step.
--
-- rollout(ctx, world, opts) -> traj | nil, message
--   opts.steps   N: a whole number from 1 to M.max_steps(world), so that
--                the Jacobians kept stay within M.MAX_ENTRIES numbers
--   opts.effort  nil, a list of N effort vectors, or function(k, q, v) ->
--                effort (k = 1..N); needs the world's effort input fixed
--                (fix_input) so the context can set it
--   Every step's state and effort must be finite (an error names the
--   element: step_jacobians.check_finite), as must the final state.
--   traj.q[k], traj.v[k]  the state before step k (k = 1..N + 1)
--   traj.T[k]             step k's Jacobians (rows q', v'; columns dq, dv,
--                         effort, mu: testing/step_jacobians.lua)
--   traj.kinks            steps whose Jacobians report a kink
--   traj:vjp(lq, lv) -> {q = , v = (gradients at the start, tangent
--     coordinates), effort = {[k] = ...}, mu = {per candidate pair}}
--     for the cotangent (lq, lv) of the final state: nv finite numbers
--     each (tangent coordinates)
local sj = require("diagc.testing.step_jacobians")
local gradc = require("diagc.world.grad")
local optcheck = require("diagc.cli.optcheck")

local M = {}

-- the most Jacobian entries a rollout keeps (steps x 2 nv x columns),
-- about 80 MB of numbers
M.MAX_ENTRIES = 1e7

-- the Jacobian entries of one step of world leaf `leaf`, and the most steps
function M.max_steps(leaf)
  local G = gradc.sizes(leaf.type.world)
  local per = 2 * G.nv * G.ncol
  return math.max(1, math.floor(M.MAX_ENTRIES / per)), per
end

local function options(leaf, opts)
  local max, per = M.max_steps(leaf)
  local spec = { { "steps", range = { integer = true, min = 1, max = max } },
    { "effort", check = function(v)
      if type(v) ~= "table" and type(v) ~= "function" then
        return "effort must be a list of effort vectors (one per step) or a function(k, q, v), got "
          .. optcheck.show(v)
      end
    end } }
  local why = optcheck.options("rollout", opts, spec)
  if why and type(opts.steps) == "number" and opts.steps > max then
    why = why .. string.format(" (world %s keeps %d Jacobian entries per step, at most %s in all; "
      .. "split the trajectory into several rollouts)", leaf.path, per, optcheck.show(M.MAX_ENTRIES))
  end
  if why then return why end
  if opts.steps == nil then
    return string.format("rollout: give steps = N (a whole number from 1 to %d)", max)
  end
  if type(opts.effort) == "table" and #opts.effort ~= opts.steps then
    return string.format("rollout: effort has %d entr%s for steps = %d; give one effort vector per step, "
      .. "or a function(k, q, v)", #opts.effort, #opts.effort == 1 and "y" or "ies", opts.steps)
  end
  return nil
end

-- step k's effort, checked: a list of nu finite numbers, or nil, why
local function effort_at(opts, k, q, v, nu, eff)
  local u, what
  if type(opts.effort) == "function" then
    u, what = opts.effort(k, q, v), string.format("effort(%d, q, v)", k)
  else
    u, what = opts.effort[k], string.format("effort[%d]", k)
  end
  local why = optcheck.vector(what, u, nu, string.format("the world's effort input %s has %d element%s",
    eff, nu, nu == 1 and "" or "s"))
  if why then return nil, "rollout: " .. why end
  return u
end

local Traj = {}
Traj.__index = Traj

local function list(x)
  if type(x) == "number" then return { x } end
  return x
end

function M.rollout(ctx, world, opts)
  local leaf, msg = sj.find_world(ctx.model, world)
  if not leaf then return nil, "rollout: " .. msg end
  local why = options(leaf, opts)
  if why then return nil, why end
  local n = opts.steps
  local path = leaf.path
  local eff = path .. ".effort"
  local nu = #leaf.type.world.actuated
  if opts.effort and nu == 0 then
    return nil, "rollout: world " .. path .. " has no actuated joint, so no effort input; leave effort out"
  end
  if opts.effort and not ctx.model.sources[eff] then
    return nil, "rollout: the world's effort input is connected: fix it (fix_input) to drive it from a rollout"
  end
  local traj = setmetatable({ q = {}, v = {}, T = {}, kinks = {}, nv = leaf.type.world.nv, leaf = leaf }, Traj)
  for k = 1, n do
    local q, v = list(ctx:get(path .. ".pos")), list(ctx:get(path .. ".vel"))
    traj.q[k], traj.v[k] = q, v
    if opts.effort then
      local u, err = effort_at(opts, k, q, v, nu, eff)
      if not u then return nil, err end
      ctx:set(eff, u)
    end
    local bad = sj.check_finite(ctx, leaf)
    if bad then return nil, string.format("rollout: at step %d, %s; the step needs a finite state and effort", k, bad) end
    local J, err = sj.read_T(ctx, leaf)
    if not J then return nil, "rollout: " .. err end
    if J.status ~= 0 then return nil, string.format("rollout: step %d failed with status %d", k, J.status) end
    traj.T[k], traj.nu, traj.np = J.T, J.nu, J.np
    if J.kinks > 0 then traj.kinks[#traj.kinks + 1] = k end
    local s = sj.next_state(ctx, leaf)
    ctx:set(path .. ".pos", s.q)
    ctx:set(path .. ".vel", s.v)
    ctx:set(path .. ".info", s.info)
    if s.imp then ctx:set(path .. ".imp", s.imp) end
  end
  traj.q[n + 1], traj.v[n + 1] = list(ctx:get(path .. ".pos")), list(ctx:get(path .. ".vel"))
  for _, g in ipairs({ { "pos", traj.q[n + 1] }, { "vel", traj.v[n + 1] } }) do
    for i, x in ipairs(g[2]) do
      if x ~= x or x == math.huge or x == -math.huge then
        return nil, string.format("rollout: after step %d, %s.%s[%d] is %s", n, path, g[1], i - 1,
          x ~= x and "NaN" or tostring(x))
      end
    end
  end
  return traj
end

-- lam^T T: the cotangent of step k's columns
local function pull(T, lam, ncol)
  local g = {}
  for c = 1, ncol do
    local s = 0
    for i = 1, #lam do s = s + lam[i] * T[i][c] end
    g[c] = s
  end
  return g
end

-- why (lq, lv) is not a cotangent of the final state, or nil
function Traj:check_cotangent(lq, lv)
  local nv = self.nv
  local nq = self.leaf.type.world.nq
  local fix = string.format("the cotangent of the final %%s has nv = %d numbers (tangent coordinates%s)", nv,
    nq ~= nv and string.format("; q itself has %d", nq) or "")
  return optcheck.vector("lq", lq, nv, fix:format("q")) or optcheck.vector("lv", lv, nv, fix:format("v"))
end

function Traj:vjp(lq, lv)
  local why = self:check_cotangent(lq, lv)
  if why then require("diagc.testing.usage").raise("vjp: %s", why) end
  local nv, nu, np = self.nv, self.nu, self.np
  if type(lq) == "number" then lq = { lq } end
  if type(lv) == "number" then lv = { lv } end
  local lam = {}
  for i = 1, nv do lam[i], lam[nv + i] = lq[i], lv[i] end
  local r = { effort = {}, mu = {} }
  for j = 1, np do r.mu[j] = 0 end
  for k = #self.T, 1, -1 do
    local g = pull(self.T[k], lam, 2 * nv + nu + np)
    r.effort[k] = { unpack(g, 2 * nv + 1, 2 * nv + nu) }
    for j = 1, np do r.mu[j] = r.mu[j] + g[2 * nv + nu + j] end
    lam = { unpack(g, 1, 2 * nv) }
  end
  r.q, r.v = { unpack(lam, 1, nv) }, { unpack(lam, nv + 1, 2 * nv) }
  return r
end

return M
