-- world/lower.lua: a frozen world -> a frozen leaf (the form spec/load.lua
-- gives leaves), so every later stage sees an ordinary leaf system.
--
-- Stage contract: frozen world W (spec/load.lua, _kind = "world") ->
-- frozen leaf L (M.lower), checked by world/check.lua on the way:
--   L.items:
--     c_preamble      #include <diagc/world.h>, the dynamics generated for
--                     this tree (world/dynamics.lua) and the step
--                     (world/step.lua), all static inline
--     discrete_state  pos (nq: q), vel (nv: v), imp (4 per contact of
--                     max_contacts: the last step's contacts [1 + slot, n,
--                     t1, t2] in increasing slot order, then zeros: the
--                     warm start, world/step.lua)
--                     and info (of the last step: contacts, 1 if the LCP
--                     work budget ran out, LCP residual, LCP pivots +
--                     sweeps, contacts dropped beyond max_contacts; then
--                     the steps so far that hit the budget, that dropped
--                     contacts, and the contacts dropped so far)
--     input_port      effort (one per actuated dof, in tree order), if any
--     parameter       friction, restitution: the defaults of the shapes that
--                     give none, when a candidate pair takes one
--                     (world/step.lua, M.params), read by the step;
--                     damping (per moving joint), mass (per moving body),
--                     pair_friction, pair_restitution (per `pairs` entry
--                     that gives one, "A.B.friction")
--     cache_entry     work: the step's arrays and results (typed:
--                     PFX_work), computed from the state and the effort
--     cache_entry     grad: the step's Jacobians (typed: PFX_grad,
--                     world/grad.lua), computed from work on demand
--                     (absent with gradients = false); grad_mass: their
--                     columns for the masses (typed: PFX_gradm), from
--                     work and grad on demand
--     periodic_discrete_update  step, every time_step: copies work's
--                     results into the next state
--     output_port     position, velocity, poses (12 per body: R row-major,
--                     p), impulses, step_info, energy, gravity_effort (nv:
--                     the effort that holds each dof still against gravity,
--                     c(q, 0)); pos and vel name their elements by joint
--                     ("J.x", ...) and pos groups each joint's coordinates
--                     as "J" (world/signals.lua, which also makes the per
--                     body and per joint ports B.pose, J.q, ... that a
--                     diagram refers to: check/added_port.lua)
-- Every item is located at the world's declaration (an error the leaf
-- checks find in generated code is an internal one).
local errors = require("diagc.errors")
local util = require("diagc.util")
local check = require("diagc.world.check")
local step = require("diagc.world.step")
local fold = require("diagc.world.fold")
local size = require("diagc.world.size")
local grad = require("diagc.world.grad")
local ranges = require("diagc.world.ranges")
local signals = require("diagc.world.signals")

local M = {}

local function item(world, kind, args)
  return { _item = kind, loc = { file = world.loc.file, line = world.loc.line }, args = args }
end

local function zeros(n)
  local t = {}
  for i = 1, n do t[i] = 0 end
  return t
end

local function copy_calc(dst, src, n)
  return string.format("for (int i = 0; i < %d; i++) %s[i] = %s[i];", n, dst, src)
end

-- the C prefix of the world's static functions
function M.prefix(C)
  return "dcw_" .. C.name:gsub("[^%w]", "_") .. "_"
end

-- Two worlds of one model must not share C names: their prefixes may not
-- be equal, nor one the start of the other (world "w" defines dcw_w_*,
-- which holds world "w_tg"'s dcw_w_tg_*).  `taken`: prefix -> the earlier
-- world's {name=, loc=}, for one model.
local function claim_prefix(C, P, taken)
  for _, q in ipairs(util.sorted_keys(taken)) do
    local other = taken[q]
    if other.name == C.name then
      errors.raise(C.loc, "world \"%s\": another world of this model has that name (%s:%d); worlds need "
        .. "different names (their C functions and types are named after them)", C.name, other.loc.file,
        other.loc.line)
    elseif P:sub(1, #q) == q or q:sub(1, #P) == P then
      errors.raise(C.loc, "world \"%s\" would share C names with world \"%s\" (%s:%d): their C prefixes %s "
        .. "and %s overlap; rename one of them", C.name, other.name, other.loc.file, other.loc.line, P, q)
    end
  end
  taken[P] = { name = C.name, loc = C.loc }
end

local function outputs(world, C, P, items)
  local qn, vn = signals.state_names(C)
  local function out(name, size, prereqs, calc, names)
    items[#items + 1] = item(world, "output_port", { name, size = size, prerequisites = prereqs, calc = calc,
      names = names })
  end

  out("position", C.nq, { "pos" }, copy_calc("position", "pos", C.nq), qn)
  out("velocity", C.nv, { "vel" }, copy_calc("velocity", "vel", C.nv), vn)
  out("poses", 12 * C.nb, { "pos" }, string.format("%skinematics(pos, poses);", P))
  if C.nslots > 0 then
    out("impulses", C.nimp, { "imp" }, copy_calc("impulses", "imp", C.nimp))
  end
  out("step_info", C.ninfo, { "info" }, copy_calc("step_info", "info", C.ninfo))
  -- the inertial numbers: the parameters mass, com and inertia
  -- (world/step.lua's M.params), packed by P_inertial
  local pm = step.params(C)
  local has_com = #pm.com > 0
  local pre = string.format("double B[%d]; %sinertial(mass, %s, inertia, B); ", 10 * #pm.mass, P,
    has_com and "com" or "0")
  local function with(list)
    list[#list + 1] = "mass"
    if has_com then list[#list + 1] = "com" end
    list[#list + 1] = "inertia"
    return list
  end
  out("energy", 1, with({ "pos", "vel" }), string.format(
    "double X[%d]; %s%skinematics(pos, X); energy[0] = %senergy(pos, vel, X, B);", 12 * C.nb, pre, P, P))
  -- the bias at rest, c(q, 0): the effort on each dof that holds the
  -- world still against gravity (a gravity-compensation controller's term)
  out("gravity_effort", C.nv, with({ "pos" }), string.format(
    "double X[%d], at_rest[%d]; %sfor (int i = 0; i < %d; i++) at_rest[i] = 0.0; %skinematics(pos, X); "
      .. "%sbias(pos, at_rest, X, B, gravity_effort);", 12 * C.nb, C.nv, pre, C.nv, P, P))
end

-- The world's preamble (world/step.lua); a constant the generator folds
-- that is not finite is an error at the world's line naming what it is
-- part of (with the ranges of docs/world.md it cannot happen; this guards
-- the folding itself).
function M.preamble(C, P)
  local ok, pre = pcall(step.emit, C, P)
  if ok then return pre end
  if type(pre) == "table" and pre.world_tangent then
    errors.raise(C.loc, "world \"%s\": its step's Jacobians cannot be generated: cdiff cannot differentiate its "
      .. "dynamics (%s); set gradients = false to leave them out", C.name, pre.world_tangent)
  end
  if fold.is_nonfinite(pre) then
    errors.raise(C.loc, "world \"%s\": a constant of its generated %s is %s: the bodies' masses, inertias, "
      .. "centres of mass and placements combine to overflow; keep them within the ranges of docs/world.md",
      C.name, pre.part or "dynamics", ranges.fmt(pre.world_fold))
  end
  error(pre, 0)
end

-- taken: the C prefixes of the model's other worlds (claim_prefix); nil
-- for a world on its own
function M.lower(world, taken)
  local C = check.check(world)
  if C.nv == 0 then
    errors.raise(C.loc, "world \"%s\" has no moving body (every joint is fixed); give a body a "
      .. "free, revolute, prismatic or ball joint", C.name)
  end
  local P = M.prefix(C)
  if taken then claim_prefix(C, P, taken) end
  -- the sizes decided before any code is generated (world/size.lua)
  step.layout(C)
  if C.settings.gradients then size.gradients(C, grad.nnz(C)) end
  size.context(C, step.work_bytes(C, P), C.settings.gradients and grad.struct_bytes(C) or 0)
  local pre = M.preamble(C, P) -- sets C.nslots
  local qn, vn = signals.state_names(C)
  local items = {
    item(world, "c_preamble", { pre }),
    item(world, "discrete_state", { "pos", default = C.q_init, names = qn, groups = signals.groups(C) }),
    item(world, "discrete_state", { "vel", default = C.v_init, names = vn }),
    item(world, "discrete_state", { "info", default = zeros(C.ninfo), bookkeeping = true }),
  }
  local prereqs = { "pos", "vel", "info" }
  local args = "pos, vel"
  if C.nslots > 0 then
    items[#items + 1] = item(world, "discrete_state", { "imp", default = zeros(C.nimp), bookkeeping = true })
    prereqs[#prereqs + 1] = "imp"
    args = args .. ", imp"
  else
    args = args .. ", 0"
  end
  if #C.actuated > 0 then
    items[#items + 1] = item(world, "input_port", { "effort", size = #C.actuated })
    prereqs[#prereqs + 1] = "effort"
    args = args .. ", effort"
  else
    args = args .. ", 0"
  end
  -- the world's numeric parameters (world/step.lua, M.params): -p
  -- world.friction=..., parameter_jacobian
  local pm = step.params(C)
  for _, k in ipairs({ "friction", "restitution" }) do
    if pm[k] then
      items[#items + 1] = item(world, "parameter", { k, default = { pm[k] }, range = k })
      prereqs[#prereqs + 1] = k
    end
  end
  -- the joints' damping (one value per moving joint, -p world.J.damping=...)
  -- and the moving bodies' masses (-p world.B.mass=...), each element
  -- settable by its name
  -- and the `pairs` entries' own friction and restitution (-p
  -- world.A.B.friction=...)
  -- the moving bodies' centres of mass (-p world.B.com=x,y,z) and
  -- inertias (-p world.B.inertia=ixx,iyy,izz,ixy,ixz,iyz: the moments in
  -- the range inertia, the products in inertia_product, each body's
  -- tensor positive definite: world/signals.lua's M.check_param)
  local width = { com = 3, inertia = 6 }
  for _, k in ipairs({ "damping", "mass", "com", "inertia", "pair_friction", "pair_restitution" }) do
    if #pm[k] > 0 then
      local g, n = {}, width[k] or 1
      for j, name in ipairs(pm[k .. "_names"]) do g[j] = { name = name, first = n * (j - 1), size = n } end
      local range = (k:gsub("^pair_", ""))
      if k == "com" then range = "position" end
      if k == "inertia" then
        range = {}
        for j = 0, #pm[k] - 1 do range[j + 1] = j % 6 < 3 and "inertia" or "inertia_product" end
      end
      items[#items + 1] = item(world, "parameter", { k, default = pm[k], range = range, groups = g })
      prereqs[#prereqs + 1] = k
    end
  end
  items[#items + 1] = item(world, "cache_entry", { "work", type = P .. "work", prerequisites = prereqs,
    calc = string.format("%sstep(%s, info, %s, %s, %s, mass, %s, inertia, %s, %s, work);", P, args,
      pm.friction and "friction" or "0", pm.restitution and "restitution" or "0", #pm.damping > 0 and "damping" or "0",
      #pm.com > 0 and "com" or "0", #pm.pair_friction > 0 and "pair_friction" or "0",
      #pm.pair_restitution > 0 and "pair_restitution" or "0") })
  local gargs = string.format("pos, vel, %s, work, grad", #C.actuated > 0 and "effort" or "0")
  local gpre = { "pos", "vel", "work" }
  if #C.actuated > 0 then gpre[#gpre + 1] = "effort" end
  if C.settings.gradients then
    items[#items + 1] = item(world, "cache_entry", { "grad", type = P .. "grad", prerequisites = gpre,
      calc = string.format("%sstep_jacobians(%s);", P, gargs) })
    -- the masses' columns (world/grad.lua), only when asked for: a
    -- parameter Jacobian of world.mass, c:step_jacobians
    items[#items + 1] = item(world, "cache_entry", { "grad_mass", type = P .. "gradm",
      prerequisites = { "pos", "vel", "work", "grad" }, calc = string.format("%smass_jacobians(pos, vel, work, grad, "
        .. "grad_mass);", P) })
  end
  -- a failed step returns its reason (a negative diagc_status, diagc/model.h)
  local copy = { "if (work->status != 0) return work->status < 0 ? work->status : DIAGC_FAILED;",
    copy_calc("pos_next", "work->q_next", C.nq), copy_calc("vel_next", "work->v_next", C.nv),
    copy_calc("info_next", "work->info", C.ninfo) }
  if C.nslots > 0 then copy[#copy + 1] = copy_calc("imp_next", "work->imp_next", C.nimp) end
  -- pos, vel (and effort) too: the update's Jacobian (world/grad_coords.lua)
  -- is taken with respect to them
  local upre = { "work", "pos", "vel", "info" }
  if #C.actuated > 0 then upre[#upre + 1] = "effort" end
  -- and the masses (the update's Jacobian has their columns: grad.Tm)
  upre[#upre + 1] = "mass"
  items[#items + 1] = item(world, "periodic_discrete_update", { "step", period = C.time_step,
    prerequisites = upre, calc = table.concat(copy, "\n") })
  outputs(world, C, P, items)
  return { _kind = "leaf", name = world.name, loc = { file = world.loc.file, line = world.loc.line },
    items = items, world = C }
end

return M
