-- testing/step_jacobians.lua: a world step's Jacobians for `diagc test`
-- (issue #18; docs/world.md "Gradients"): read from the world leaf's grad
-- cache entry (world/grad.lua), or computed by central differences of the
-- whole step with the active-set guard of lcp-and-contact §5 (a
-- perturbation is kept only if it leaves the row classes, the rows with a
-- nonzero impulse, the bounces, the normal targets' terms and the contacts
-- as they are; otherwise the step halves, and a column whose
-- step falls below 1e-12 is reported as a kink, never averaged over).
--
-- step_jacobians(ctx, world, opts) -> J | nil, message
--   world: the world leaf's path (nil: the model's only world)
--   opts.jacobian = "model" (default) | "fd"
--   J.pos_pos, vel_pos, pos_vel, vel_vel: nv x nv (rows of tables, 1-based;
--   tangent coordinates), force_pos, force_vel: nv x nu, mu_pos, mu_vel:
--   nv x np (model only), mass_pos, mass_vel: nv x nm (the masses of the
--   moving bodies, the parameter mass; model only), J.T: 2 nv x ncol (all
--   columns but the masses'), J.pattern[i][j]
--   (true: a structural nonzero of T, as PFX_grad_sparsity), status,
--   contacts, clamped, rank, kinks, bounces, cls (3 per contact), nv, nu, np;
--   fd: J.eps[col] (the step kept), J.fd_kinks (columns flagged).
local ffi = require("ffi")
local gradc = require("diagc.world.grad")
local tangent = require("diagc.testing.world_tangent")

local M = {}

-- the world leaf context at path (or the only one)
local function find_world(model, path)
  local found
  for _, ctx in ipairs(model.gen.flat.leaves) do
    if ctx.type.world and (path == nil or ctx.path == path) then
      if found then return nil, "the model has several worlds: name one" end
      found = ctx
    end
  end
  if not found then return nil, path and ("no world named '" .. path .. "'") or "the model has no world" end
  return found
end

local function struct_type(model, leaf)
  model.grad_types = model.grad_types or {}
  local t = model.grad_types[leaf.path]
  if not t then
    t = ffi.typeof("$ *", ffi.typeof(gradc.ffi_struct(leaf.type.world)))
    model.grad_types[leaf.path] = t
  end
  return t
end

local function matrix(arr, off, rows, cols, stride, col0)
  local m = {}
  for i = 1, rows do
    m[i] = {}
    for j = 1, cols do m[i][j] = arr[(off + i - 1) * stride + col0 + j - 1] end
  end
  return m
end

-- the grad struct of the context (evaluated) and its sizes, or nil, message
local function grad_of(ctx, leaf)
  local m = ctx.model
  local entry = m.cache[leaf.path .. ".grad"]
  if not entry then return nil, "world " .. leaf.path .. " has no Jacobians (it sets gradients = false)" end
  local out = ffi.new("const double *[1]")
  local rc = m.desc.eval_cache(ctx.ptr, entry.index, out)
  if rc ~= 0 then return nil, string.format("eval of %s.grad failed with status %d", leaf.path, rc) end
  return ffi.cast(struct_type(m, leaf), out[0]), gradc.sizes(leaf.type.world)
end

-- only T (rows of tables), status, kinks, nu, np: what a rollout keeps
function M.read_T(ctx, leaf)
  local g, G = grad_of(ctx, leaf)
  if not g then return nil, G end
  return { T = matrix(g.T, 0, 2 * G.nv, G.ncol, G.ncol, 0), status = g.status, kinks = g.kinks, nu = G.nu,
    np = G.np }
end

-- the structural nonzeros of a world's T (the generated PFX_grad_sparsity):
-- pattern[row][col] = true, 1-based; computed once per model and world
local function pattern_of(model, leaf)
  model.grad_patterns = model.grad_patterns or {}
  local pat = model.grad_patterns[leaf.path]
  if pat then return pat end
  local C = leaf.type.world
  local sp, ncol, nv = gradc.sparsity(C), gradc.sizes(C).ncol, C.nv
  pat = {}
  for i = 1, 2 * nv do pat[i] = {} end
  for c = 0, ncol - 1 do
    for k = sp[3 + c], sp[3 + c + 1] - 1 do pat[sp[3 + ncol + 1 + k] + 1][c + 1] = true end
  end
  model.grad_patterns[leaf.path] = pat
  return pat
end

-- the grad entry of the context, read into tables
local function read(ctx, leaf)
  local g, G = grad_of(ctx, leaf)
  if not g then return nil, G end
  local nv, nu, np, ncol = G.nv, G.nu, G.np, G.ncol
  local J = { nv = nv, nu = nu, np = np, ncol = ncol, status = g.status, contacts = g.contacts,
    clamped = g.clamped, rank = g.rank, kinks = g.kinks, bounces = g.bounces }
  J.T = matrix(g.T, 0, 2 * nv, ncol, ncol, 0)
  J.pattern = pattern_of(ctx.model, leaf)
  J.pos_pos, J.vel_pos = matrix(g.T, 0, nv, nv, ncol, 0), matrix(g.T, 0, nv, nv, ncol, nv)
  J.pos_vel, J.vel_vel = matrix(g.T, nv, nv, nv, ncol, 0), matrix(g.T, nv, nv, nv, ncol, nv)
  J.force_pos, J.force_vel = matrix(g.T, 0, nv, nu, ncol, 2 * nv), matrix(g.T, nv, nv, nu, ncol, 2 * nv)
  -- the masses' columns: the grad_mass entry
  local m = ctx.model
  m.gradm_types = m.gradm_types or {}
  local tm = m.gradm_types[leaf.path]
  if not tm then
    tm = ffi.typeof("$ *", ffi.typeof(gradc.ffi_struct_m(leaf.type.world)))
    m.gradm_types[leaf.path] = tm
  end
  local out = ffi.new("const double *[1]")
  local rc = m.desc.eval_cache(ctx.ptr, m.cache[leaf.path .. ".grad_mass"].index, out)
  if rc ~= 0 then return nil, string.format("eval of %s.grad_mass failed with status %d", leaf.path, rc) end
  local gm = ffi.cast(tm, out[0])
  J.nm = G.nm
  J.mass_pos, J.mass_vel = matrix(gm.Tm, 0, nv, G.nm, G.nm, 0), matrix(gm.Tm, nv, nv, G.nm, G.nm, 0)
  J.cls, J.bounce = {}, {}
  if np > 0 then
    J.mu_pos, J.mu_vel = matrix(g.T, 0, nv, np, ncol, 2 * nv + nu), matrix(g.T, nv, nv, np, ncol, 2 * nv + nu)
    J.active = {}
    for i = 1, 3 * g.contacts do J.cls[i], J.active[i] = g.cls[i - 1], g.active[i - 1] end
    J.target = {}
    for i = 1, g.contacts do J.bounce[i], J.target[i] = g.bounce[i - 1], g.target[i - 1] end
  end
  return J
end

-- the mode of the step at the context's state: classes, bounces, contacts
local function mode(ctx, leaf)
  local J, msg = read(ctx, leaf)
  if not J then return nil, msg end
  return table.concat(J.cls, ",") .. "|" .. table.concat(J.active or {}, ",") .. "|" .. table.concat(J.bounce, ",")
    .. "|" .. table.concat(J.target or {}, ",") .. "|" .. J.contacts
end

-- the next state of the step at the context's state, from the work
-- entry's first fields (q_next, v_next, info, imp_next): {q=, v=, info=,
-- imp= (worlds with contact slots)}, or nil
function M.next_state(ctx, leaf)
  local m, C = ctx.model, leaf.type.world
  local out = ffi.new("const double *[1]")
  if m.desc.eval_cache(ctx.ptr, m.cache[leaf.path .. ".work"].index, out) ~= 0 then return nil end
  local p = out[0]
  local function slice(off, n)
    local t = {}
    for i = 1, n do t[i] = p[off + i - 1] end
    return t
  end
  local s = { q = slice(0, C.nq), v = slice(C.nq, C.nv), info = slice(C.nq + C.nv, C.ninfo) }
  if C.nslots > 0 then s.imp = slice(C.nq + C.nv + C.ninfo, C.nimp) end
  return s
end

-- (q', v') of the step at the context's state
local function step(ctx, leaf)
  local s = M.next_state(ctx, leaf)
  if not s then return nil end
  return s.q, s.v
end

-- central differences of column c with the guard; returns the column
-- (2 nv) and the step kept, or nil when the mode changes at every step
local function fd_column(ctx, leaf, c, base_mode, state)
  local C = leaf.type.world
  local nv = C.nv
  local eps = 1e-6
  while eps >= 1e-12 do
    local qp, vp, qm, vm, mp, mm
    state.apply(c, eps)
    qp, vp = step(ctx, leaf)
    mp = mode(ctx, leaf)
    state.apply(c, -eps)
    qm, vm = step(ctx, leaf)
    mm = mode(ctx, leaf)
    state.restore()
    if qp and qm and mp == base_mode and mm == base_mode then
      local col = tangent.difference(C, qp, qm, 2 * eps)
      for i = 1, nv do col[nv + i] = (vp[i] - vm[i]) / (2 * eps) end
      return col, eps
    end
    eps = eps / 2
  end
  return nil
end

local function fd(ctx, leaf)
  local J, msg = read(ctx, leaf)
  if not J then return nil, msg end
  local base = mode(ctx, leaf)
  local state, serr = tangent.perturber(ctx, leaf)
  if not state then return nil, serr end
  local nv = J.nv
  local T = {}
  for i = 1, 2 * nv do T[i] = {} end
  J.eps, J.fd_kinks = {}, {}
  for c = 1, 2 * nv + (state.effort and J.nu or 0) do
    local col, eps = fd_column(ctx, leaf, c, base, state)
    J.eps[c] = eps
    if not col then J.fd_kinks[#J.fd_kinks + 1] = c end
    for i = 1, 2 * nv do T[i][c] = col and col[i] or (0 / 0) end
  end
  J.T = T
  local function block(r0, c0, cols)
    local b = {}
    for i = 1, nv do
      b[i] = {}
      for j = 1, cols do b[i][j] = T[r0 + i][c0 + j] end
    end
    return b
  end
  J.pos_pos, J.vel_pos, J.pos_vel, J.vel_vel = block(0, 0, nv), block(0, nv, nv), block(nv, 0, nv), block(nv, nv, nv)
  if state.effort then J.force_pos, J.force_vel = block(0, 2 * nv, J.nu), block(nv, 2 * nv, J.nu) end
  J.mu_pos, J.mu_vel, J.mass_pos, J.mass_vel = nil, nil, nil, nil
  return J
end

local function nonfinite(name, v)
  if v ~= v then return name .. " is NaN" end
  if v == math.huge or v == -math.huge then return name .. " is " .. tostring(v) end
  return nil
end

-- the value of the world's effort input (a fixed or exported input, or
-- the output driving it) and where it comes from, or nil when it has none
local function effort_value(ctx, leaf)
  local m = ctx.model
  if #leaf.type.world.actuated == 0 then return nil end
  local src = m.gen.flat.resolve_input(leaf, "effort")
  if src.slot then return ctx:get(src.slot.name), src.slot.name end
  local out = ffi.new("const double *[1]")
  if m.desc.eval_cache(ctx.ptr, src.entry.index, out) ~= 0 or out[0] == nil then return nil end
  local v = {}
  for i = 1, src.entry.size do v[i] = out[0][i - 1] end
  local name = src.entry.ctx and src.entry.ctx.path ~= "" and (src.entry.ctx.path .. "." .. src.entry.name)
    or src.entry.name
  return v, name
end

-- Why the step at the context's state cannot be taken: the first
-- non-finite element of the world's pos, vel, imp (warm-start impulses)
-- or effort input ("plant.vel[1] is NaN", element indices 0-based as the
-- model's element names and the simulator's messages), or nil.
function M.check_finite(ctx, leaf)
  local path = leaf.path
  local groups = { "pos", "vel" }
  if leaf.type.world.nslots > 0 and #leaf.type.world.pairs > 0 then groups[3] = "imp" end
  for _, g in ipairs(groups) do
    local v = ctx:get(path .. "." .. g)
    if type(v) == "number" then v = { v } end
    for i, x in ipairs(v) do
      local why = nonfinite(string.format("%s.%s[%d]", path, g, i - 1), x)
      if why then return why end
    end
  end
  local u, from = effort_value(ctx, leaf)
  for i, x in ipairs(type(u) == "number" and { u } or u or {}) do
    local name = string.format("%s.effort[%d]", path, i - 1)
    if from ~= path .. ".effort" then name = name .. " (from " .. from .. ")" end
    local why = nonfinite(name, x)
    if why then return why end
  end
  return nil
end

-- the options of c:step_jacobians (cli/optcheck.lua)
M.OPTIONS = { { "jacobian", one_of = { "model", "fd" } } }

function M.step_jacobians(ctx, world, opts)
  local why = require("diagc.cli.optcheck").options("step_jacobians", opts, M.OPTIONS)
  if why then return nil, why end
  opts = opts or {}
  local leaf, msg = find_world(ctx.model, world)
  if not leaf then return nil, "step_jacobians: " .. msg end
  local bad = M.check_finite(ctx, leaf)
  if bad then return nil, "step_jacobians: " .. bad .. "; the step needs a finite state and effort" end
  if (opts.jacobian or "model") == "model" then return read(ctx, leaf) end
  return fd(ctx, leaf)
end

M.find_world = find_world
M.read = read
M.grad_of = grad_of -- the raw grad entry and its sizes (world/grad.lua)

return M
