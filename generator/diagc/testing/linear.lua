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
--   opts.eig       also the eigenvalues of A (result.eig: M.eigenvalues)
--   result: {A=, B=, C=, D= (lists of rows), f0=, y0=, x0=, u0= (lists),
--     states=, inputs=, outputs= (element names: "pend.theta", "u[1]"),
--     time_period= (0: continuous; h: discrete, x[n+1] = A x[n] + ...)}
--
-- parameter_jacobian(model, ctx) -> {J=, rows=, cols=} | nil, message
-- (the periodic updates' Jacobians: testing/update_jacobian.lua)
local ffi = require("ffi")
local K = require("diagc.testing.ffi").const

local M = {}

M.MODES = { "linearize", "first_order_taylor" }

-- the options of c:linearize{...}; `diagc linearize` checks its flags with
-- the same entries (--tolerance: the range; cli/optcheck.lua)
M.OPTIONS = {
  { "mode", one_of = M.MODES },
  { "input", type = "string" },
  { "output", type = "string" },
  { "jacobian", one_of = { "model", "fd" } },
  { "tolerance", range = { min = 0 } },
  { "eig", flag = true },
}

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

-- "name", "name[i]", or "name.x" for a port whose elements have names
-- (els[k]: the list, or nil)
local function elements(names, sizes, first, count, els)
  local out = {}
  for k = first, first + count - 1 do
    for i = 0, sizes[k] - 1 do
      local el = els and els[k]
      out[#out + 1] = el and (names[k] .. "." .. el[i + 1])
        or (sizes[k] == 1 and names[k] or string.format("%s[%d]", names[k], i))
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
-- (exported for testing/update_jacobian.lua, as elements)
local function blocks(d)
  local ins = port_names(d, d.n_lin_inputs, d.lin_inputs, d.sources)
  local outs = port_names(d, d.n_lin_outputs, d.lin_outputs, d.outputs)
  local isz, osz = {}, {}
  for k = 0, d.n_lin_inputs - 1 do isz[k + 1] = d.sources[d.lin_inputs[k]].size end
  local oel = {}
  for k = 0, d.n_lin_outputs - 1 do
    local o = d.outputs[d.lin_outputs[k]]
    osz[k + 1] = o.size
    if o.elements ~= nil then
      local l = {}
      for i = 0, o.size - 1 do l[i + 1] = ffi.string(o.elements[i]) end
      oel[k + 1] = l
    end
  end
  return ins, isz, outs, osz, oel
end

local function options(C, d, opts)
  local why = require("diagc.cli.optcheck").options("linearize", opts, M.OPTIONS)
  if why then return nil, why end
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
-- discrete model, xc then xd for a sampled loop (with_xd; the parameter
-- Jacobian's rows are xc only), else xc
local function state_names(d, with_xd)
  local per, states = d.lin_time_period > 0, {}
  for i = 0, d.nxc - 1 do states[#states + 1] = ffi.string(d.xc_names[i]) end
  if per and (with_xd or d.nxc == 0) then
    for i = 0, d.nxd - 1 do states[#states + 1] = ffi.string(d.xd_names[i]) end
  end
  return states
end

-- the chosen ports' element names
local function names_of(d, o)
  local ins, isz, outs, osz, oel = blocks(d)
  local function range(sel, n)
    if sel == -2 then return 1, n end
    if sel == -1 then return 1, 0 end
    return sel + 1, 1
  end
  local i1, ic = range(o.input, #ins)
  local o1, oc = range(o.output, #outs)
  return state_names(d, true), elements(ins, isz, i1, ic), elements(outs, osz, o1, oc, oel)
end

-- The calc that fails at ctx on the way to the derivatives or the chosen
-- outputs (entries evaluated in dependency order on a copy of ctx: the
-- first that fails is the calc that returned a nonzero status), as
-- "; the calc of pd.force returned a nonzero status (spec.lua:12)", or "".
local function failing_calc(model, ctx, o)
  local F = model.gen.flat
  if not (F and F.root and F.root.entries and F.root.entries.xcdot) then return "" end
  local roots = { F.root.entries.xcdot }
  local _, _, outs = blocks(model.desc)
  local first, count = 1, #outs
  if o.output == K.DIAGC_LIN_NONE then count = 0 elseif o.output >= 0 then first, count = o.output + 1, 1 end
  for k = first, first + count - 1 do
    for _, y in ipairs(F.outputs) do
      if y.path == outs[k] and y.entry then roots[#roots + 1] = y.entry end
    end
  end
  local work = ctx:clone()
  local out = ffi.new("const double *[1]")
  for _, e in ipairs(require("diagc.tickets.eval_paths").post_order(roots)) do
    if e.calc and model.desc.eval_cache(work.ptr, e.index, out) == ffi.C.DIAGC_E_CALC then
      local loc = e.calc.body_loc or e.calc.loc
      return string.format("; the calc of %s returned a nonzero status%s", require("diagc.tickets.loops").entry_path(e),
        loc and loc.file and string.format(" (%s:%d)", loc.file, loc.line or 0) or "")
    end
  end
  return ""
end

-- The state elements of bookkeeping states (a world's counts and warm
-- start: check/leaf_names.lua), by their names (coder/descriptor.lua's).
local function bookkeeping_names(model)
  local F, set = model.gen and model.gen.flat, {}
  for _, leaf in ipairs(F and F.leaves or {}) do
    for _, g in ipairs(leaf.type.by_kind and leaf.type.by_kind.xd or {}) do
      if g.bookkeeping then
        for i = 1, g.size do
          set[leaf.path .. "." .. (g.elements and g.elements[i]
            or (g.name .. (g.size > 1 and ("[" .. (i - 1) .. "]") or "")))] = true
        end
      end
    end
  end
  return set
end

-- Leaves bookkeeping state elements out of r (A, B, C, f0, x0, states) when
-- nothing else reads them: their columns of A's other rows and of C are
-- zero, so the rest is exactly the system without them (A is block
-- triangular), and their own eigenvalues (a count's 1, a warm start's 0)
-- say nothing of the loop.  r.left_out names them.
local function leave_out_bookkeeping(model, r)
  local set = bookkeeping_names(model)
  local drop, keep = {}, {}
  for k, name in ipairs(r.states) do
    if set[name] then drop[#drop + 1] = k else keep[#keep + 1] = k end
  end
  if #drop == 0 then return end
  local dropped = {}
  for _, k in ipairs(drop) do dropped[k] = true end
  for _, k in ipairs(drop) do
    for i = 1, #r.states do
      if not dropped[i] and r.A[i][k] ~= 0 then return end
    end
    for i = 1, #r.C do
      if r.C[i][k] ~= 0 then return end
    end
  end
  local function pick(v) local t = {} for n, k in ipairs(keep) do t[n] = v[k] end return t end
  local A = {}
  for n, i in ipairs(keep) do A[n] = pick(r.A[i]) end
  local C = {}
  for i = 1, #r.C do C[i] = pick(r.C[i]) end
  r.left_out = {}
  for _, k in ipairs(drop) do r.left_out[#r.left_out + 1] = r.states[k] end
  r.A, r.B, r.C = A, pick(r.B), C
  r.f0, r.x0, r.states = pick(r.f0), pick(r.x0), pick(r.states)
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
  if rc ~= 0 then
    local msg = ffi.string(err)
    if rc == C.DIAGC_LIN_E_EVAL and msg:find("(" .. ffi.string(C.diagc_status_message(C.DIAGC_E_CALC)) .. ")", 1, true)
        and msg:find("at the operating point$") then
      msg = msg .. failing_calc(model, ctx, o)
    end
    return nil, msg, rc
  end
  local states, inputs, outputs = names_of(d, o)
  local r = {
    A = rows(A, nx, nx), B = rows(B, nx, nu), C = rows(Cm, ny, nx), D = rows(D, ny, nu),
    f0 = list(f0, nx), y0 = list(y0, ny), x0 = list(x0, nx), u0 = list(u0, nu),
    states = states, inputs = inputs, outputs = outputs, mode = opts and opts.mode or "linearize",
    time_period = sys.time_period,
  }
  leave_out_bookkeeping(model, r)
  if opts and opts.eig then
    local why2
    r.eig, why2 = M.eigenvalues(r.A, sys.time_period)
    if not r.eig then return nil, why2, C.DIAGC_LIN_E_EVAL end
  end
  return r
end

-- d(xcdot or x[n+1], y) / d p of the spec's parameter_jacobian at ctx,
-- dense: {J =, rows =, cols =} | nil, message
function M.parameter_jacobian(model, ctx)
  local d = model.desc
  if d.n_jac_params == 0 then return nil, "the spec asks for no parameter Jacobian (parameter_jacobian { ... })" end
  if d.jac_p == nil then
    return nil, "the model has no generated parameter Jacobian (a calc it needs is outside the differentiable subset, "
      .. "or it asks for a world's parameter other than mass, whose step has no derivatives in it); "
      .. "c:parameter_jacobian{ "
      .. "jacobian = \"fd\" } gives it by central differences"
  end
  local nz = ffi.new("double[?]", math.max(d.jac_p_nnz, 1))
  local rc = d.jac_p(ctx.ptr, nz)
  if rc ~= 0 then
    return nil, "jac_p failed with status " .. rc .. " (" .. ffi.string(ffi.C.diagc_status_message(rc)) .. ")"
  end
  local J = rows(ffi.new("double[?]", math.max(d.jac_p_nrow * d.jac_p_ncol, 1)), d.jac_p_nrow, d.jac_p_ncol)
  for col = 0, d.jac_p_ncol - 1 do
    for k = d.jac_p_colptr[col], d.jac_p_colptr[col + 1] - 1 do J[d.jac_p_rowind[k] + 1][col + 1] = nz[k] end
  end
  local _, _, outs, osz, oel = blocks(d)
  local params, psz = port_names(d, d.n_jac_params, d.jac_params, d.sources), {}
  for k = 0, d.n_jac_params - 1 do psz[k + 1] = d.sources[d.jac_params[k]].size end
  local r = state_names(d)
  for _, n in ipairs(elements(outs, osz, 1, #outs, oel)) do r[#r + 1] = n end
  return { J = J, rows = r, cols = elements(params, psz, 1, #params) }
end

-- The eigenvalues of the n x n A (a list of rows) through the runtime's
-- diagc_eigenvalues, as {re=, im=, abs=} sorted by decreasing real part
-- (continuous, h = 0) or modulus (discrete, period h > 0), then by
-- decreasing imaginary part; discrete ones also carry the continuous-time
-- equivalent s = log(z) / h as s_re, s_im (s_re = -inf for z = 0).
-- nil, message when the QR iteration does not converge.
function M.eigenvalues(A, h)
  local n = #A
  local a, re, im = ffi.new("double[?]", n * n + 1), ffi.new("double[?]", n + 1), ffi.new("double[?]", n + 1)
  for i = 1, n do for j = 1, n do a[(i - 1) * n + j - 1] = A[i][j] end end
  local rc = ffi.C.diagc_eigenvalues(n, a, re, im)
  if rc ~= 0 then return nil, "the eigenvalues of A: " .. ffi.string(ffi.C.diagc_status_message(rc)) end
  local out = {}
  for i = 0, n - 1 do
    local e = { re = re[i], im = im[i] == 0 and 0 or im[i] }
    e.abs = math.sqrt(e.re * e.re + e.im * e.im)
    if h and h > 0 then
      e.s_re = math.log(e.abs) / h
      e.s_im = (e.im == 0 and e.re >= 0) and 0 or math.atan2(e.im, e.re) / h
    end
    out[#out + 1] = e
  end
  local disc = h and h > 0
  table.sort(out, function(x, y)
    local kx, ky = disc and x.abs or x.re, disc and y.abs or y.re
    if kx ~= ky then return kx > ky end
    if x.im ~= y.im then return x.im > y.im end
    return x.re > y.re
  end)
  return out
end

M.blocks, M.elements = blocks, elements

return M
