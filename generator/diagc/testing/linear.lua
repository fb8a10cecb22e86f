-- testing/linear.lua: a linear (or affine) model of a compiled model at a
-- context, through the runtime's diagc_linearize (diagc/linearize.h; Drake's
-- Linearize and FirstOrderTaylorApproximation).  The shared core of
-- c:linearize() in `diagc test` and of the `diagc linearize` command.
--
-- linearize(model, ctx, opts) -> result | nil, message, status
--   model: testing/model.lua Model; ctx: its Context (the operating point)
--   opts.mode      "linearize" (default) | "first_order_taylor"
--   opts.input     an exported input's name, "all" (default) or "none"
--   opts.output    an output port's name (exported or logged), "all"
--                  (default) or "none"
--   opts.jacobian  "model" (default: the generated Jacobian) | "fd"
--   opts.tolerance the equilibrium tolerance (default 1e-6)
--   result: {A=, B=, C=, D= (lists of rows), f0=, y0=, x0=, u0= (lists),
--     states=, inputs=, outputs= (element names: "pend.theta", "u[1]"),
--     time_period= (0: continuous; h: discrete, x[n+1] = A x[n] + ...)}
--
-- parameter_jacobian(model, ctx) -> {J=, rows=, cols=} | nil, message
-- update_jacobian(model, ctx, opts) -> {J=, rows=, cols=, name=, period=,
--   offset=} | nil, message: d x+ / d(xc, xd, u) of one timing of the
--   periodic discrete updates (descriptor jac_updates; opts.period and
--   opts.offset choose it, needed when there are several), dense; with
--   opts.jacobian = "fd": by central differences of the update itself (the
--   state or input perturbed, the timing's event handlers run on the same
--   context, then their applies)
local ffi = require("ffi")
local K = require("diagc.testing.ffi").const

local M = {}

M.MODES = { "linearize", "first_order_taylor" }

local function port_names(d, n, list, tbl)
  local names = {}
  for k = 0, n - 1 do names[k + 1] = ffi.string(tbl[list[k]].name) end
  return names
end

-- the index k of port `name` among `names`, or DIAGC_LIN_ALL / _NONE
local function pick(names, name, what)
  if name == nil or name == "all" then return K.DIAGC_LIN_ALL end
  if name == "none" then return K.DIAGC_LIN_NONE end
  for k, n in ipairs(names) do
    if n == name then return k - 1 end
  end
  local avail = #names > 0 and table.concat(names, ", ") or "none"
  return nil, string.format("no %s named '%s' (the model has: %s)", what, tostring(name), avail)
end

local function elements(names, sizes, first, count)
  local out = {}
  for k = first, first + count - 1 do
    for i = 0, sizes[k] - 1 do
      out[#out + 1] = sizes[k] == 1 and names[k] or string.format("%s[%d]", names[k], i)
    end
  end
  return out
end

local function rows(p, nr, nc)
  local t = {}
  for i = 1, nr do
    local r = {}
    for j = 1, nc do r[j] = p[(i - 1) * nc + j - 1] end
    t[i] = r
  end
  return t
end

local function list(p, n)
  local t = {}
  for i = 1, n do t[i] = p[i - 1] end
  return t
end

-- the port names and sizes of the descriptor's linearization blocks
local function blocks(d)
  local ins = port_names(d, d.n_lin_inputs, d.lin_inputs, d.sources)
  local outs = port_names(d, d.n_lin_outputs, d.lin_outputs, d.outputs)
  local isz, osz = {}, {}
  for k = 0, d.n_lin_inputs - 1 do isz[k + 1] = d.sources[d.lin_inputs[k]].size end
  for k = 0, d.n_lin_outputs - 1 do osz[k + 1] = d.outputs[d.lin_outputs[k]].size end
  return ins, isz, outs, osz
end

local function options(C, d, opts)
  local o = ffi.new("diagc_linearize_options")
  C.diagc_linearize_options_init(o)
  local mode = opts.mode or "linearize"
  if mode == "first_order_taylor" then o.mode = K.DIAGC_FIRST_ORDER_TAYLOR
  elseif mode ~= "linearize" then return nil, "unknown mode '" .. tostring(mode) .. "' (linearize, first_order_taylor)" end
  local jac = opts.jacobian or "model"
  if jac == "fd" then o.jacobian = K.DIAGC_JACOBIAN_FD
  elseif jac ~= "model" then return nil, "unknown jacobian '" .. tostring(jac) .. "' (model, fd)" end
  if opts.tolerance then o.equilibrium_tolerance = opts.tolerance end
  local ins, _, outs = blocks(d)
  local input, err = pick(ins, opts.input, "exported input")
  if not input then return nil, err end
  local output, err2 = pick(outs, opts.output, "output port")
  if not output then return nil, err2 end
  o.input, o.output = input, output
  return o
end

-- the names of the linearization's state elements: xd for a purely
-- discrete model, else xc
local function state_names(d)
  local disc, states = d.lin_time_period > 0, {}
  for i = 0, (disc and d.nxd or d.nxc) - 1 do
    states[i + 1] = ffi.string((disc and d.xd_names or d.xc_names)[i])
  end
  return states
end

-- the chosen ports' element names
local function names_of(d, o)
  local ins, isz, outs, osz = blocks(d)
  local function range(sel, n)
    if sel == -2 then return 1, n end
    if sel == -1 then return 1, 0 end
    return sel + 1, 1
  end
  local i1, ic = range(o.input, #ins)
  local o1, oc = range(o.output, #outs)
  return state_names(d), elements(ins, isz, i1, ic), elements(outs, osz, o1, oc)
end

function M.linearize(model, ctx, opts)
  local C, d = ffi.C, model.desc
  local o, why = options(C, d, opts or {})
  if not o then return nil, why, C.DIAGC_LIN_E_ARG end
  local n = ffi.new("int[3]")
  assert(C.diagc_linearize_sizes(d, o, n, n + 1, n + 2) == 0)
  local nx, nu, ny = n[0], n[1], n[2]
  local function arr(k) return ffi.new("double[?]", k > 0 and k or 1) end
  -- the arrays stay referenced by these locals while C writes through sys
  local A, B, Cm, D = arr(nx * nx), arr(nx * nu), arr(ny * nx), arr(ny * nu)
  local f0, y0, x0, u0 = arr(nx), arr(ny), arr(nx), arr(nu)
  local sys = ffi.new("diagc_linear_system", { nx, nu, ny, A, B, Cm, D, f0, y0, x0, u0, 0 })
  local err = ffi.new("char[512]")
  local rc = C.diagc_linearize(d, ctx.ptr, o, sys, err, 512)
  if rc ~= 0 then return nil, ffi.string(err), rc end
  local states, inputs, outputs = names_of(d, o)
  return {
    A = rows(A, nx, nx), B = rows(B, nx, nu), C = rows(Cm, ny, nx), D = rows(D, ny, nu),
    f0 = list(f0, nx), y0 = list(y0, ny), x0 = list(x0, nx), u0 = list(u0, nu),
    states = states, inputs = inputs, outputs = outputs, mode = opts and opts.mode or "linearize",
    time_period = sys.time_period,
  }
end

-- d(xcdot or x[n+1], y) / d p of the spec's parameter_jacobian at ctx,
-- dense: {J =, rows =, cols =} | nil, message
function M.parameter_jacobian(model, ctx)
  local d = model.desc
  if d.n_jac_params == 0 then return nil, "the spec asks for no parameter Jacobian (parameter_jacobian { ... })" end
  if d.jac_p == nil then return nil, "a calc the parameter Jacobian needs is outside the differentiable subset" end
  local nz = ffi.new("double[?]", math.max(d.jac_p_nnz, 1))
  local rc = d.jac_p(ctx.ptr, nz)
  if rc ~= 0 then
    return nil, "jac_p failed with status " .. rc .. " (" .. ffi.string(ffi.C.diagc_status_message(rc)) .. ")"
  end
  local J = rows(ffi.new("double[?]", math.max(d.jac_p_nrow * d.jac_p_ncol, 1)), d.jac_p_nrow, d.jac_p_ncol)
  for col = 0, d.jac_p_ncol - 1 do
    for k = d.jac_p_colptr[col], d.jac_p_colptr[col + 1] - 1 do J[d.jac_p_rowind[k] + 1][col + 1] = nz[k] end
  end
  local _, _, outs, osz = blocks(d)
  local params, psz = port_names(d, d.n_jac_params, d.jac_params, d.sources), {}
  for k = 0, d.n_jac_params - 1 do psz[k + 1] = d.sources[d.jac_params[k]].size end
  local r = state_names(d)
  for _, n in ipairs(elements(outs, osz, 1, #outs)) do r[#r + 1] = n end
  return { J = J, rows = r, cols = elements(params, psz, 1, #params) }
end

------------------------------------------------ periodic update Jacobians

local function timing_list(d)
  local l = {}
  for k = 0, d.n_jac_updates - 1 do
    local t = d.jac_updates[k]
    l[#l + 1] = string.format("period %.17g offset %.17g", t.period, t.offset)
  end
  return l
end

-- the jac_updates row opts chooses: index k or nil, message
local function pick_timing(d, opts)
  if d.n_jac_updates == 0 then return nil, "the model has no periodic discrete update" end
  local found
  for k = 0, d.n_jac_updates - 1 do
    local t = d.jac_updates[k]
    if (opts.period == nil or t.period == opts.period) and (opts.offset == nil or t.offset == opts.offset) then
      if found then
        return nil, "several periodic update timings match (" .. table.concat(timing_list(d), "; ")
          .. "): choose one with period = and offset ="
      end
      found = k
    end
  end
  if not found then return nil, "no periodic update timing matches (the model has: " .. table.concat(timing_list(d), "; ") .. ")" end
  return found
end

-- the element names of the rows (xc, xd) and columns (xc, xd, u)
local function update_names(d)
  local rows = {}
  for i = 0, d.nxc - 1 do rows[#rows + 1] = ffi.string(d.xc_names[i]) end
  for i = 0, d.nxd - 1 do rows[#rows + 1] = ffi.string(d.xd_names[i]) end
  local ins, isz = blocks(d)
  local cols = {}
  for i, n in ipairs(rows) do cols[i] = n end
  for _, n in ipairs(elements(ins, isz, 1, #ins)) do cols[#cols + 1] = n end
  return rows, cols
end

local function zeros(nr, nc)
  local J = {}
  for i = 1, nr do
    J[i] = {}
    for j = 1, nc do J[i][j] = 0 end
  end
  return J
end

-- the generated Jacobian of timing t, dense
local function generated(ctx, t)
  if t.jac == nil then return nil, ffi.string(t.name) .. " was not generated (an unrestricted update at the same "
    .. "timing, a calc outside the differentiable subset, or --no-jacobian); use jacobian = \"fd\"" end
  local nz = ffi.new("double[?]", math.max(t.nnz, 1))
  local rc = t.jac(ctx.ptr, nz)
  if rc ~= 0 then
    return nil, ffi.string(t.name) .. " failed with status " .. rc .. " (" .. ffi.string(ffi.C.diagc_status_message(rc)) .. ")"
  end
  local J = zeros(t.nrow, t.ncol)
  for col = 0, t.ncol - 1 do
    for k = t.colptr[col], t.colptr[col + 1] - 1 do J[t.rowind[k] + 1][col + 1] = nz[k] end
  end
  return J
end

-- x+ at context c (modified): the timing's handlers on one buffer, then
-- their applies; returns the state (xc then xd) or nil, message
local function apply_update(d, c, t)
  local buf = ffi.new("char[?]", math.max(tonumber(d.state_size), 1))
  ffi.copy(buf, ffi.cast("char *", c.ptr) + d.state_offset, d.state_size)
  local evs = {}
  for i = 0, d.n_events - 1 do
    local e = d.events[i]
    if e.trigger == K.DIAGC_TRIGGER_PERIODIC and e.kind == K.DIAGC_DISCRETE_UPDATE
        and e.period == t.period and e.offset == t.offset then
      evs[#evs + 1] = e
    end
  end
  for _, e in ipairs(evs) do
    local rc = e.handler(c.ptr, buf)
    if rc == K.DIAGC_FAILED then return nil, ffi.string(e.name) .. " failed" end
  end
  for _, e in ipairs(evs) do e.apply(c.ptr, buf) end
  local x = {}
  local xc = ffi.cast("double *", ffi.cast("char *", c.ptr) + d.xc_offset)
  local xd = ffi.cast("double *", ffi.cast("char *", c.ptr) + d.xd_offset)
  for i = 0, d.nxc - 1 do x[#x + 1] = xc[i] end
  for i = 0, d.nxd - 1 do x[#x + 1] = xd[i] end
  return x
end

-- the context ctx with column j (0-based: xc, xd, then u) moved by dv
local function perturbed(d, ctx, j, dv)
  local c = ctx:clone()
  local nx = d.nxc + d.nxd
  if j < nx then
    local st = ffi.new("char[?]", math.max(tonumber(d.state_size), 1))
    ffi.copy(st, ffi.cast("char *", c.ptr) + d.state_offset, d.state_size)
    local off = j < d.nxc and (d.xc_offset + 8 * j) or (d.xd_offset + 8 * (j - d.nxc))
    local p = ffi.cast("double *", st + (off - d.state_offset))
    p[0] = p[0] + dv
    d.set_state(c.ptr, st)
    return c
  end
  local k = j - nx
  for b = 0, d.n_lin_inputs - 1 do
    local si = d.lin_inputs[b]
    local s = d.sources[si]
    if k < s.size then
      local v = ffi.new("double[?]", s.size)
      ffi.copy(v, ffi.cast("char *", c.ptr) + s.offset, 8 * s.size)
      v[k] = v[k] + dv
      d.set_source(c.ptr, si, v)
      return c
    end
    k = k - s.size
  end
  error("testing/linear: no column " .. j)
end

local function value_of(d, ctx, j)
  local nx = d.nxc + d.nxd
  if j < nx then
    local off = j < d.nxc and (d.xc_offset + 8 * j) or (d.xd_offset + 8 * (j - d.nxc))
    return ffi.cast("double *", ffi.cast("char *", ctx.ptr) + off)[0]
  end
  local k = j - nx
  for b = 0, d.n_lin_inputs - 1 do
    local s = d.sources[d.lin_inputs[b]]
    if k < s.size then return ffi.cast("double *", ffi.cast("char *", ctx.ptr) + s.offset)[k] end
    k = k - s.size
  end
end

-- central differences of x+, step cbrt(eps) max(1, |value|)
local function differences(d, ctx, t)
  local J = zeros(t.nrow, t.ncol)
  for j = 0, t.ncol - 1 do
    local h = 6.0554544523933395e-06 * math.max(1, math.abs(value_of(d, ctx, j)))
    local xp, e1 = apply_update(d, perturbed(d, ctx, j, h), t)
    if not xp then return nil, e1 end
    local xm, e2 = apply_update(d, perturbed(d, ctx, j, -h), t)
    if not xm then return nil, e2 end
    for i = 1, t.nrow do J[i][j + 1] = (xp[i] - xm[i]) / (2 * h) end
  end
  return J
end

function M.update_jacobian(model, ctx, opts)
  opts = opts or {}
  local d = model.desc
  local k, why = pick_timing(d, opts)
  if not k then return nil, why end
  local t = d.jac_updates[k]
  local jac = opts.jacobian or "model"
  local J, err
  if jac == "fd" then J, err = differences(d, ctx, t)
  elseif jac == "model" then J, err = generated(ctx, t)
  else return nil, "unknown jacobian '" .. tostring(jac) .. "' (model, fd)" end
  if not J then return nil, err end
  local rows, cols = update_names(d)
  local pattern
  if t.jac ~= nil then
    pattern = {}
    for col = 0, t.ncol - 1 do
      for q = t.colptr[col], t.colptr[col + 1] - 1 do pattern[#pattern + 1] = { t.rowind[q] + 1, col + 1 } end
    end
  end
  return { J = J, rows = rows, cols = cols, name = ffi.string(t.name), period = t.period, offset = t.offset,
    pattern = pattern }
end

return M
