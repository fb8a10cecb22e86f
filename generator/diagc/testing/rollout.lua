-- testing/rollout.lua: reverse mode through a world's trajectory for
-- `diagc test` (issue #18; docs/world.md "Gradients"): N steps of the world
-- leaf's update from the context's state, each step's Jacobians kept (its
-- grad entry, 2 nv x ncol), then vector-Jacobian products backwards
-- (backpropagation through time).  The trajectory's Jacobian (2 nv N
-- columns) is never formed: a VJP costs one pass of 2 nv x ncol products
-- per step.
--
-- rollout(ctx, world, opts) -> traj | nil, message
--   opts.steps   N (>= 1)
--   opts.effort  nil, a list of N effort vectors, or function(k, q, v) ->
--                effort (k = 1..N); needs the world's effort input fixed
--                (fix_input) so the context can set it
--   traj.q[k], traj.v[k]  the state before step k (k = 1..N + 1)
--   traj.T[k]             step k's Jacobians (rows q', v'; columns dq, dv,
--                         effort, mu: testing/step_jacobians.lua)
--   traj.kinks            steps whose Jacobians report a kink
--   traj:vjp(lq, lv) -> {q = , v = (gradients at the start, tangent
--     coordinates), effort = {[k] = ...}, mu = {per candidate pair}}
--     for the cotangent (lq, lv) of the final state
local sj = require("diagc.testing.step_jacobians")

local M = {}

local Traj = {}
Traj.__index = Traj

local function list(x)
  if type(x) == "number" then return { x } end
  return x
end

function M.rollout(ctx, world, opts)
  local leaf, msg = sj.find_world(ctx.model, world)
  if not leaf then return nil, msg end
  local n = opts.steps
  if type(n) ~= "number" or n < 1 or n ~= math.floor(n) then return nil, "steps must be a positive integer" end
  local path = leaf.path
  local eff = path .. ".effort"
  if opts.effort and not ctx.model.sources[eff] then
    return nil, "the world's effort input is connected: fix it (fix_input) to drive it from a rollout"
  end
  local traj = setmetatable({ q = {}, v = {}, T = {}, kinks = {}, nv = leaf.type.world.nv, leaf = leaf }, Traj)
  for k = 1, n do
    local q, v = list(ctx:get(path .. ".pos")), list(ctx:get(path .. ".vel"))
    traj.q[k], traj.v[k] = q, v
    if opts.effort then
      local u = type(opts.effort) == "function" and opts.effort(k, q, v) or opts.effort[k]
      ctx:set(eff, u)
    end
    local J, err = sj.read_T(ctx, leaf)
    if not J then return nil, err end
    if J.status ~= 0 then return nil, string.format("step %d failed with status %d", k, J.status) end
    traj.T[k], traj.nu, traj.np = J.T, J.nu, J.np
    if J.kinks > 0 then traj.kinks[#traj.kinks + 1] = k end
    local s = sj.next_state(ctx, leaf)
    ctx:set(path .. ".pos", s.q)
    ctx:set(path .. ".vel", s.v)
    ctx:set(path .. ".info", s.info)
    if s.imp then ctx:set(path .. ".imp", s.imp) end
  end
  traj.q[n + 1], traj.v[n + 1] = list(ctx:get(path .. ".pos")), list(ctx:get(path .. ".vel"))
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

function Traj:vjp(lq, lv)
  local nv, nu, np = self.nv, self.nu, self.np
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
