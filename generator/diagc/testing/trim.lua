-- testing/trim.lua: an operating point where chosen derivatives vanish (or
-- take given values) and chosen outputs hit targets, through the runtime's
-- diagc_trim (diagc/trim.h; docs/jacobians.md, "Trim").  The shared core
-- of c:trim{...} in `diagc test` and of the `diagc trim` command.
--
-- trim(model, ctx, opts) -> result | nil, message, status
--   ctx: testing/model.lua Context, the starting point; holds the result
--   opts.free   {names}: inputs (a port or "port[i]") to free; states are
--               free by default (a name here that is a state is allowed)
--   opts.fix    {names}: states (an element or a group) held at their value
--   opts.target {name = value(s)}: an output (port or element) to hit, or
--               a state to hold at that value
--   opts.deriv  {name = value(s)}: the derivative of a state (element or
--               group) to take this value (default: every derivative 0)
--   opts.free_deriv {names}: states whose derivative is left free
--   opts.jacobian "model" (default: the generated one, central
--               differences when the model has none) | "fd"
--   opts.tolerance (1e-10), opts.max_iterations (50)
--   result: {iterations=, residual=, jacobian = "model" | "fd", states=,
--     x= (values), inputs=, u=, outputs=, y=, free= {names}, equations=
--     {names}, groups = {{name=, values=}...} (the --state / --input form)}
-- A name's kind (state, input, output) is found in that order.
local ffi = require("ffi")
local K = require("diagc.testing.ffi").const
local linear = require("diagc.testing.linear")

local M = {}

M.OPTIONS = {
  { "free", type = "table" }, { "fix", type = "table" }, { "target", type = "table" },
  { "deriv", type = "table" }, { "free_deriv", type = "table" },
  { "jacobian", one_of = { "model", "fd" } },
  { "tolerance", range = { min = 0, min_open = true } },
  { "max_iterations", range = { min = 1, max = 10000, integer = true } },
}

-- the elements: states (xc, then xd when the model has one periodic
-- update), inputs, outputs, with name -> {first index, count}
local function layout(m)
  local d = m.desc
  local n = ffi.new("int[3]")
  local o = ffi.new("diagc_linearize_options")
  ffi.C.diagc_linearize_options_init(o)
  assert(ffi.C.diagc_linearize_sizes(d, o, n, n + 1, n + 2) == 0)
  local nx, nu, ny = n[0], n[1], n[2]
  local L = { nx = nx, nu = nu, ny = ny, state = {}, input = {}, output = {}, states = {} }
  local sampled = d.lin_time_period > 0
  local nc = (sampled and d.nxc > 0 and d.nxd > 0 or not sampled) and d.nxc or 0
  for i = 0, nx - 1 do
    local name = i < nc and ffi.string(d.xc_names[i]) or ffi.string(d.xd_names[i - nc])
    L.states[i + 1] = name
    L.state[name] = { i, 1 }
  end
  -- groups (sys.q, sys.x): their offsets in xc or xd
  for name, s in pairs(m.sources) do
    local k, off = s.kind, tonumber(s.offset)
    if k == K.DIAGC_SRC_Q or k == K.DIAGC_SRC_V or k == K.DIAGC_SRC_Z then
      L.state[name] = L.state[name] or { (off - tonumber(d.xc_offset)) / 8, s.size }
    elseif k == K.DIAGC_SRC_XD and nx > nc then
      L.state[name] = L.state[name] or { nc + (off - tonumber(d.xd_offset)) / 8, s.size }
    end
  end
  local ins, isz, outs, osz = linear.blocks(d)
  local function ports(names, sizes, tbl, base)
    local at = base
    for k, p in ipairs(names) do
      tbl[p] = { at, sizes[k] }
      for i = 0, sizes[k] - 1 do tbl[string.format("%s[%d]", p, i)] = { at + i, 1 } end
      at = at + sizes[k]
    end
  end
  ports(ins, isz, L.input, nx)
  ports(outs, osz, L.output, nx)
  L.inputs, L.input_ports, L.input_sizes = linear.elements(ins, isz, 1, #ins), ins, isz
  L.outputs = linear.elements(outs, osz, 1, #outs)
  L.nc = nc
  return L
end

local function keys(t)
  local out = {}
  for k in pairs(t) do if not k:find("%[") then out[#out + 1] = k end end
  table.sort(out)
  return out
end

local function unknown(L, name, kinds, what)
  local all = {}
  for _, k in ipairs(kinds) do for _, n in ipairs(keys(L[k])) do all[#all + 1] = n end end
  local cli = require("diagc.cli.main")
  local extra = ""
  if L.discrete_names and L.discrete_names[name] then
    extra = " (a discrete state is held unless the model has one periodic discrete update)"
  end
  return string.format("no %s named '%s'%s%s", what, cli.show(name), extra, cli.hint(name, all, what .. "s"))
end

local function values_of(v, n, what)
  if type(v) == "number" then v = { v } end
  if type(v) ~= "table" or #v ~= n then
    return nil, string.format("%s: it has %d value%s, got %s", what, n, n == 1 and "" or "s",
      type(v) == "table" and tostring(#v) or type(v))
  end
  for i, x in ipairs(v) do
    if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
      return nil, string.format("%s: value %d is not a finite number", what, i)
    end
  end
  return v
end

local function names_list(v, what)
  if type(v) == "string" then v = { v } end
  if type(v) ~= "table" then return nil, what .. " must be a list of names" end
  for _, n in ipairs(v) do
    if type(n) ~= "string" then return nil, what .. " must be a list of names" end
  end
  return v
end

-- the sorted pairs of a {name = value} table (a list of {name, value}
-- pairs is kept in order)
local function pairs_of(t, what)
  if type(t) ~= "table" then return nil, what .. " must be a table of name = value" end
  local out = {}
  if #t > 0 then
    for _, p in ipairs(t) do out[#out + 1] = p end
    return out
  end
  for k, v in pairs(t) do
    if type(k) ~= "string" then return nil, what .. " must be a table of name = value" end
    out[#out + 1] = { k, v }
  end
  table.sort(out, function(a, b) return a[1] < b[1] end)
  return out
end

-- the unknowns (columns) and the equations (rows with targets)
local function problem(m, ctx, L, opts)
  local free, fixed, rows, drop = {}, {}, {}, {}
  for i = 0, L.nx - 1 do free[i] = true end
  local err
  local lists = {}
  for _, k in ipairs({ "free", "fix", "free_deriv" }) do
    lists[k], err = names_list(opts[k] or {}, k)
    if not lists[k] then return nil, err end
  end
  for _, name in ipairs(lists.fix) do
    local e = L.state[name]
    if not e then return nil, "fix: " .. unknown(L, name, { "state" }, "state") end
    for i = e[1], e[1] + e[2] - 1 do free[i] = nil; fixed[i] = name end
  end
  local targets, err2 = pairs_of(opts.target or {}, "target")
  if not targets then return nil, err2 end
  for _, p in ipairs(targets) do
    local name = p[1]
    local e = L.state[name] or L.output[name]
    if not e then return nil, "target: " .. unknown(L, name, { "output", "state" }, "output or state") end
    local v, why = values_of(p[2], e[2], "target " .. name)
    if not v then return nil, why end
    if L.state[name] then
      ctx:set(name, e[2] == 1 and v[1] or v)
      for i = e[1], e[1] + e[2] - 1 do free[i] = nil; fixed[i] = name end
    else
      for i = 1, e[2] do rows[e[1] + i - 1] = v[i] end
    end
  end
  for _, name in ipairs(lists.free) do
    local e = L.input[name] or L.state[name]
    if not e then return nil, "free: " .. unknown(L, name, { "input", "state" }, "input or state") end
    for i = e[1], e[1] + e[2] - 1 do
      if fixed[i] then
        return nil, string.format("free: '%s' is also held (fix or target %s); give one", name, fixed[i])
      end
      free[i] = true
    end
  end
  for i = 0, L.nx - 1 do rows[i] = 0 end
  for _, name in ipairs(lists.free_deriv) do
    local e = L.state[name]
    if not e then return nil, "free_deriv: " .. unknown(L, name, { "state" }, "state") end
    for i = e[1], e[1] + e[2] - 1 do drop[i] = true end
  end
  local derivs, err3 = pairs_of(opts.deriv or {}, "deriv")
  if not derivs then return nil, err3 end
  for _, p in ipairs(derivs) do
    local e = L.state[p[1]]
    if not e then return nil, "deriv: " .. unknown(L, p[1], { "state" }, "state") end
    local v, why = values_of(p[2], e[2], "deriv " .. p[1])
    if not v then return nil, why end
    for i = 1, e[2] do
      if drop[e[1] + i - 1] then
        return nil, string.format("deriv: the derivative of '%s' is also left free (free_deriv); give one", p[1])
      end
      rows[e[1] + i - 1] = v[i]
    end
  end
  for i in pairs(drop) do rows[i] = nil end
  local cols, eq, tgt = {}, {}, {}
  for i = 0, L.nx + L.nu - 1 do if free[i] then cols[#cols + 1] = i end end
  for i = 0, L.nx + L.ny - 1 do
    if rows[i] then eq[#eq + 1] = i; tgt[#tgt + 1] = rows[i] end
  end
  return cols, eq, tgt
end

local function col_name(L, c)
  return c < L.nx and L.states[c + 1] or L.inputs[c - L.nx + 1]
end

local function row_name(L, r)
  local n = L.states[r + 1]
  if r < L.nc then return "d/dt " .. n end
  if r < L.nx then return n .. "[n+1] - " .. n .. "[n]" end
  return L.outputs[r - L.nx + 1]
end

-- the point as --state NAME=V (one per state element) and --input
-- PORT=V,... (one per exported input port)
local function groups(L, x, u)
  local g = {}
  for i, n in ipairs(L.states) do g[#g + 1] = { kind = "state", name = n, values = { x[i] } } end
  local at = 1
  for k, p in ipairs(L.input_ports) do
    local v = {}
    for i = 1, L.input_sizes[k] do v[i] = u[at]; at = at + 1 end
    g[#g + 1] = { kind = "input", name = p, values = v }
  end
  return g
end

function M.trim(m, ctx, opts)
  local C = ffi.C
  opts = opts or {}
  local why = require("diagc.cli.optcheck").options("trim", opts, M.OPTIONS)
  if why then return nil, why, C.DIAGC_LIN_E_ARG end
  local L = layout(m)
  L.discrete_names = {}
  for i = 0, m.desc.nxd - 1 do L.discrete_names[ffi.string(m.desc.xd_names[i])] = true end
  local cols, eq, tgt = problem(m, ctx, L, opts)
  if not cols then return nil, eq, C.DIAGC_LIN_E_ARG end
  if #cols == 0 then return nil, "no unknown is free (every state is held and no input is freed)", C.DIAGC_LIN_E_ARG end
  if #eq == 0 then return nil, "no equation is asked for (every derivative is left free and no target is given)", C.DIAGC_LIN_E_ARG end
  local p = ffi.new("diagc_trim_problem")
  C.diagc_trim_problem_init(p)
  local fa, ea, ta = ffi.new("int[?]", #cols), ffi.new("int[?]", #eq), ffi.new("double[?]", #eq)
  for i, c in ipairs(cols) do fa[i - 1] = c end
  for i, r in ipairs(eq) do ea[i - 1] = r; ta[i - 1] = tgt[i] end
  p.n_free, p.free, p.n_eq, p.eq, p.target = #cols, fa, #eq, ea, ta
  if opts.jacobian == "fd" then p.jacobian = K.DIAGC_JACOBIAN_FD end
  if opts.tolerance then p.tolerance = opts.tolerance end
  if opts.max_iterations then p.max_iterations = opts.max_iterations end
  local res = ffi.new("diagc_trim_result")
  local err = ffi.new("char[600]")
  local rc = C.diagc_trim(m.desc, ctx.ptr, p, res, err, 600)
  if rc ~= 0 then return nil, ffi.string(err), rc end
  -- the point: read back through a linearization-free path (the values)
  local x, u, y = {}, {}, {}
  local d = m.desc
  for i, n in ipairs(L.states) do x[i] = ctx:get(n) end
  for k, pname in ipairs(L.input_ports) do
    local v = ctx:get(pname)
    if type(v) ~= "table" then v = { v } end
    for i = 1, L.input_sizes[k] do u[#u + 1] = v[i] end
  end
  local _, _, outs = linear.blocks(d)
  for _, o in ipairs(outs) do
    local v = ctx:eval(o)
    if type(v) ~= "table" then v = { v } end
    for _, e in ipairs(v) do y[#y + 1] = e end
  end
  local fnames, enames = {}, {}
  for i, c in ipairs(cols) do fnames[i] = col_name(L, c) end
  for i, r in ipairs(eq) do enames[i] = row_name(L, r) end
  return {
    iterations = res.iterations, residual = res.residual, jacobian = res.used_fd ~= 0 and "fd" or "model",
    states = L.states, x = x, inputs = L.inputs, u = u, outputs = L.outputs, y = y,
    free = fnames, equations = enames, targets = tgt, groups = groups(L, x, u),
  }
end

return M
