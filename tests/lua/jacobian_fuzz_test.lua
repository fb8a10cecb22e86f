-- Jacobians of random diagrams: random leaves (continuous q, v, z,
-- parameters, input and output ports, feedthrough and state-only outputs,
-- cache entries), connected without algebraic loops (forward connections,
-- back edges from state-only outputs), nested in subdiagrams, with
-- exported (one exported input may drive several ports) and logged
-- ports; calc bodies drawn from the differentiable subset
-- (docs/jacobians.md): arithmetic, if / else if / else, ?:, && and ||,
-- constant-bound (nested) for loops over port and state elements,
-- <math.h> functions in safe domains, scalar, array, initialized and
-- two-dimensional locals, ints from run-time values, shadowing blocks,
-- compound assignments and static helpers of a c_preamble (calling each
-- other, writing arrays, returning from branches).  At three random
-- operating points per diagram (away from kinks: a point is used only
-- where difference quotients with steps h and h/4 agree):
--   1. d xcdot / d xc (c:state_jacobian, the descriptor's jac_xc) against
--      central differences, and every nonzero perturbation finds lies in
--      the generated pattern;
--   2. d(xcdot, y) / d(xc, u) (jac_lin) likewise, and
--      c:linearize{mode = "first_order_taylor"} against jacobian = "fd"
--      (A, B, C, D, f0, y0);
--   3. caching on and off give the same bits for jac_xc and jac_lin, at
--      the point and along a random sequence of sets and evals.
-- (diagc.jit also compiles every model, its Jacobians included, with the
-- system compiler's -std=c99 -Wall -Wextra -Werror -pedantic.)
-- DIAGC_JAC_FUZZ_N sets the number of diagrams (default 15; each costs
-- about a second, most of it diagc.jit and its gcc check),
-- DIAGC_JAC_FUZZ_SEED the first seed (default 1); DIAGC_JAC_FUZZ_XCDOT=0
-- keeps outputs from reading xcdot (they do by default: the Jacobian
-- through such a calc was the bug this fuzz found); DIAGC_JAC_FUZZ_VERBOSE=1
-- prints what each diagram checked.
local ffi = require("ffi")

local N_DIAGRAMS = tonumber(os.getenv("DIAGC_JAC_FUZZ_N") or "15")
local FIRST_SEED = tonumber(os.getenv("DIAGC_JAC_FUZZ_SEED") or "1")
local POINTS = 3 -- operating points per diagram
-- outputs that read the time derivatives (prerequisite "xcdot"): off by
-- default, their Jacobian entries are missing (the chain rule in
-- coder/jacobian_chain.lua leaves builtin:xcdot inputs out)
local XCDOT = os.getenv("DIAGC_JAC_FUZZ_XCDOT") ~= "0"
local VERBOSE = os.getenv("DIAGC_JAC_FUZZ_VERBOSE") == "1"
local RTOL, ATOL = 1e-6, 1e-7

-- xorshift32, deterministic everywhere
local rng = dofile("tests/lua/fuzz_rng.lua")

------------------------------------------------------------------------
-- Calc bodies

-- preamble helpers, in an order where a helper follows those it calls
local HELPERS = {
  { name = "h_sq", text = "static double h_sq(double x) { return x * x; }" },
  { name = "h_soft", needs = { "h_sq" }, text = "static double h_soft(double x) { return x / (1.0 + h_sq(x)); }" },
  { name = "h_sat", text = "static double h_sat(double x) {\n  if (x > 1.0) return 1.0;\n"
    .. "  if (x < -1.0) return -1.0;\n  return x;\n}" },
  { name = "h_blend", text = "static double h_blend(double a, double b, double s) {\n"
    .. "  const double w = 0.5 + 0.5 * tanh(s);\n  return w * a + (1.0 - w) * b;\n}" },
  { name = "h_poly", text = "static double h_poly(double x) {\n  const double c[3] = {0.5, -0.25, 0.125};\n"
    .. "  double r = 0.0;\n  for (int i = 0; i < 3; i++) r = r * x + c[2 - i];\n  return r;\n}" },
  { name = "h_dot", text = "static double h_dot(const double *a, const double *b, int n) {\n"
    .. "  double s = 0.0;\n  for (int i = 0; i < n; i++) s += a[i] * b[i];\n  return s;\n}" },
  { name = "h_axpy", text = "static void h_axpy(double *y, const double *x, double a, int n) {\n"
    .. "  for (int i = 0; i < n; i++) y[i] += a * x[i];\n}" },
}
local HELPER = {}
for _, h in ipairs(HELPERS) do HELPER[h.name] = h end

-- one argument; "%s * %s" squares one fresh subexpression
local SMOOTH1 = { "sin(%s)", "cos(%s)", "tanh(%s)", "atan(%s)", "exp(0.5 * sin(%s))",
  "sqrt(1.0 + %s * %s)", "log(1.5 + %s * %s)", "h_sq(%s)", "h_soft(%s)", "h_poly(tanh(%s))",
  "pow(1.2 + %s * %s, 0.75)" }
local SMOOTH2 = { "atan2(%s, 2.0 + %s * %s)", "hypot(%s, 1.0 + %s * %s)", "h_blend(%s, %s, %s)" }
-- kinks away from which the operating point is chosen.  A jump (a branch
-- between different values, floor) compares with a random offset `@`:
-- two sides that are equal in exact arithmetic (x and h_blend(x, x, s))
-- would otherwise choose by rounding, a jump at every point.
local KINKED = { "fabs(%s)", "fmin(%s, %s)", "fmax(%s, %s)", "h_sat(%s + @)", "(%s > %s + @ ? %s : %s)",
  "(0.1 * floor(2.0 * %s + @) + %s)", "(%s < %s + @ && %s > @ ? %s : %s)" }

-- A body generator for one calc.  reads: the arrays the calc may read,
-- { name =, size = } (size 0: the scalar t); outs: the arrays it writes.
-- Returns the body's text, the set of arrays it reads and the set of
-- helpers it calls.
local function body(r, reads, outs)
  local used, helpers = {}, {}
  local scope, arrays, lines, others_extra = {}, {}, {}, {}
  local nlocal = 0
  local function pick(list) return list[r(1, #list)] end
  local function add(s) lines[#lines + 1] = s end
  local function help(name)
    helpers[name] = true
    for _, n in ipairs(HELPER[name].needs or {}) do helpers[n] = true end
  end
  -- an element of a readable array: a constant index, or the loop
  -- counter lv.i when the array is long enough
  local function elem(lv)
    local a = pick(reads)
    used[a.name] = true
    if a.size == 0 then return a.name end
    if lv and a.size >= lv.n and r() < 0.6 then return a.name .. "[" .. lv.i .. "]" end
    return a.name .. "[" .. r(0, a.size - 1) .. "]"
  end
  local function leaf(lv)
    local x = r()
    if x < 0.55 then return elem(lv) end
    if x < 0.75 and #scope > 0 then return pick(scope) end
    if x < 0.82 and lv then return "(double)" .. lv.i end
    return string.format("%.2f", r() * 3 - 1.5)
  end
  local expr
  local function offset() return string.format("%.6f", r() - 0.5) end
  local function fill(fmt, depth, lv)
    for h in fmt:gmatch("h_[a-z]+") do help(h) end
    local f = fmt:gsub("@", offset):gsub("%%s %* %%s", "\0")
    f = f:gsub("%%s", function() return expr(depth - 1, lv) end)
    return (f:gsub("%z", function()
      local e = expr(depth - 1, lv)
      return e .. " * " .. e
    end))
  end
  expr = function(depth, lv)
    if depth <= 0 or r() < 0.2 then return leaf(lv) end
    local x = r()
    if x < 0.3 then
      return "(" .. expr(depth - 1, lv) .. " " .. pick({ "+", "-", "*" }) .. " " .. expr(depth - 1, lv) .. ")"
    end
    if x < 0.37 then return "(" .. expr(depth - 1, lv) .. " / (1.5 + " .. fill("%s * %s", depth, lv) .. "))" end
    if x < 0.4 then return "-(" .. expr(depth - 1, lv) .. ")" end
    if x < 0.7 then return fill(pick(SMOOTH1), depth, lv) end
    if x < 0.85 then return fill(pick(SMOOTH2), depth, lv) end
    return fill(pick(KINKED), depth, lv)
  end
  local function scalar_local()
    nlocal = nlocal + 1
    local n = "a" .. nlocal
    add("double " .. n .. " = " .. expr(3) .. ";")
    scope[#scope + 1] = n
    return n
  end
  local function scalars()
    local s = {}
    for _, v in ipairs(scope) do if not v:find("[", 1, true) then s[#s + 1] = v end end
    return s
  end
  -- a readable or local array of at least n elements, or nil
  local function array_of(n)
    local c = {}
    for _, a in ipairs(reads) do if a.size >= n then c[#c + 1] = a end end
    for _, a in ipairs(arrays) do if a.size >= n then c[#c + 1] = a end end
    if #c == 0 then return nil end
    local a = pick(c)
    if not a.loc then used[a.name] = true end
    return a
  end
  local STATEMENTS = {
    function() scalar_local() end,
    function() -- a local array filled by a loop
      nlocal = nlocal + 1
      local n, size = "w" .. nlocal, r(2, 3)
      add("double " .. n .. "[" .. size .. "];")
      add("for (int i = 0; i < " .. size .. "; i++) " .. n .. "[i] = " .. expr(2, { i = "i", n = size }) .. ";")
      arrays[#arrays + 1] = { name = n, size = size, loc = true }
      scope[#scope + 1] = n .. "[" .. r(0, size - 1) .. "]"
    end,
    function() -- an accumulating loop, its bound a named constant or a literal
      local a, n = pick(scalars()), r(1, 3)
      local bound = tostring(n)
      if r() < 0.4 then
        nlocal = nlocal + 1
        bound = "n" .. nlocal
        add("const int " .. bound .. " = " .. n .. ";")
      end
      add("for (int j = 0; j < " .. bound .. "; j++) { " .. a .. " " .. pick({ "+=", "-=" }) .. " "
        .. expr(2, { i = "j", n = n }) .. "; }")
    end,
    function() -- compound assignment
      local a, op = pick(scalars()), pick({ "+=", "-=", "*=", "/=" })
      if op == "*=" then add(a .. " *= 0.5 + 0.25 * " .. fill("sin(%s)", 2) .. ";")
      elseif op == "/=" then add(a .. " /= 2.0 + " .. fill("cos(%s)", 2) .. ";")
      else add(a .. " " .. op .. " " .. expr(2) .. ";") end
    end,
    function() -- if / else if / else on run-time values
      local a = pick(scalars())
      local cond = expr(2) .. " > " .. expr(1) .. " + " .. offset()
      if r() < 0.3 then cond = cond .. pick({ " && ", " || " }) .. "!(" .. expr(1) .. " < " .. offset() .. ")" end
      add("if (" .. cond .. ") {")
      add("  " .. a .. " = " .. expr(2) .. ";")
      if r() < 0.4 then
        add("} else if (" .. expr(1) .. " < " .. offset() .. ") {")
        add("  " .. a .. " *= " .. fill("tanh(%s)", 2) .. ";")
      end
      add("} else {")
      add("  " .. a .. " += " .. expr(2) .. ";")
      add("}")
    end,
    function() -- nested loops over two arrays
      local n1, n2 = r(1, 3), r(1, 3)
      local x, y = array_of(n1), array_of(n2)
      if not (x and y) then return end
      add("for (int i = 0; i < " .. n1 .. "; i++) {")
      add("  for (int j = 0; j < " .. n2 .. "; j++) " .. pick(scalars()) .. " += 0.25 * "
        .. fill("sin(%s)", 2, { i = "i", n = n1 }) .. " * " .. y.name .. "[j];")
      add("}")
    end,
    function() -- an array from an initializer list
      nlocal = nlocal + 1
      local n = "b" .. nlocal
      add("double " .. n .. "[] = {" .. expr(2) .. ", " .. expr(2) .. "};")
      arrays[#arrays + 1] = { name = n, size = 2, loc = true }
      scope[#scope + 1] = n .. "[" .. r(0, 1) .. "]"
    end,
    function() -- a two-dimensional local array
      nlocal = nlocal + 1
      local n, rows = "m" .. nlocal, r(1, 2)
      add("double " .. n .. "[" .. rows .. "][2];")
      add("for (int i = 0; i < " .. rows .. "; i++) {")
      add("  for (int j = 0; j < 2; j++) " .. n .. "[i][j] = (double)(i - j) * " .. expr(2, { i = "i", n = rows }) .. ";")
      add("}")
      scope[#scope + 1] = n .. "[" .. r(0, rows - 1) .. "][" .. r(0, 1) .. "]"
      others_extra[#others_extra + 1] = n .. "[0][0]"
    end,
    function() -- an int from a run-time value: a value, derivative zero
      nlocal = nlocal + 1
      local n = "ki" .. nlocal
      add("int " .. n .. " = (int)floor(2.0 * " .. expr(2) .. " + " .. offset() .. ");")
      add(pick(scalars()) .. " += 0.05 * (" .. n .. " % 3) + 0.01 * " .. n .. ";")
    end,
    function() -- a block with a local that shadows a1
      local others = {}
      for _, v in ipairs(scalars()) do if v ~= "a1" then others[#others + 1] = v end end
      if #others == 0 then return end
      add("{")
      add("  double a1 = sin(" .. elem() .. ") * " .. elem() .. ";")
      add("  " .. pick(others) .. " += 0.5 * a1;")
      add("}")
    end,
    function() -- the conditional operator
      nlocal = nlocal + 1
      local n = "a" .. nlocal
      add("double " .. n .. " = " .. expr(1) .. " " .. pick({ "<", ">=", "<=" }) .. " " .. expr(1) .. " + " .. offset()
        .. " ? " .. expr(2) .. " : " .. expr(2) .. ";")
      scope[#scope + 1] = n
    end,
    function() -- helpers on arrays
      local n = r(1, 3)
      local y, x = nil, array_of(n)
      for _, a in ipairs(arrays) do if a.size >= n then y = a end end
      if y and x and r() < 0.5 then
        help("h_axpy")
        add("h_axpy(" .. y.name .. ", " .. x.name .. ", " .. expr(1) .. ", " .. n .. ");")
      else
        local b = array_of(n)
        if not (x and b) then return end
        help("h_dot")
        add(pick(scalars()) .. " += h_dot(" .. x.name .. ", " .. b.name .. ", " .. n .. ") * " .. expr(1) .. ";")
      end
    end,
  }
  scalar_local()
  for _ = 1, r(2, 6) do STATEMENTS[r(1, #STATEMENTS)]() end
  -- every local is used (gcc's -Wunused-variable): a1 sums the others,
  -- the first output element reads a1
  local others = {}
  for _, v in ipairs(scalars()) do if v ~= "a1" then others[#others + 1] = v end end
  for _, a in ipairs(arrays) do others[#others + 1] = a.name .. "[0]" end
  for _, x in ipairs(others_extra) do others[#others + 1] = x end
  if #others > 0 then add("a1 += 0.1 * (" .. table.concat(others, " + ") .. ");") end
  local function wrap(e)
    local x = r()
    if x < 0.4 then return "2.0 * tanh(0.5 * (" .. e .. "))" end
    if x < 0.6 then return "0.5 * (" .. e .. ")" end
    return e
  end
  for _, o in ipairs(outs) do
    local x = r()
    if x < 0.35 then
      add("for (int i = 0; i < " .. o.size .. "; i++) " .. o.name .. "[i] = "
        .. wrap(expr(2, { i = "i", n = o.size }) .. " + " .. pick(scope)) .. ";")
    elseif x < 0.5 then
      for i = 0, o.size - 1 do
        add("if (" .. expr(1) .. " > " .. expr(1) .. " + " .. offset() .. ") " .. o.name .. "[" .. i .. "] = " .. wrap(expr(2))
          .. "; else " .. o.name .. "[" .. i .. "] = " .. wrap(pick(scope)) .. ";")
      end
    else
      for i = 0, o.size - 1 do
        add(o.name .. "[" .. i .. "] = " .. wrap(expr(2) .. " + " .. pick(scope)) .. ";")
        if r() < 0.25 then add(o.name .. "[" .. i .. "] += " .. expr(1) .. ";") end
      end
    end
  end
  add(outs[1].name .. "[0] += 0.1 * a1;")
  return table.concat(lines, "\n"), used, helpers
end

------------------------------------------------------------------------
-- Leaves and diagrams, written as the text of a spec file

local function list(xs)
  local t = {}
  for i, x in ipairs(xs) do t[i] = type(x) == "string" and string.format("%q", x) or string.format("%.3f", x) end
  return "{ " .. table.concat(t, ", ") .. " }"
end

local function randoms(r, n)
  local t = {}
  for i = 1, n do t[i] = r() * 2 - 1 end
  return t
end

-- The prerequisites of a calc: exactly the arrays it reads, sometimes
-- with a broader ticket (one that grants no input port when the calc
-- must not be feedthrough).
local STATE_TICKET = { q = "q", v = "v", z = "z", t = "time", qdot = "xcdot", vdot = "xcdot", zdot = "xcdot" }
local function prerequisites(r, used, order, feedthrough)
  local p, seen = {}, {}
  for _, name in ipairs(order) do
    local t = STATE_TICKET[name] or name
    if used[name] and not seen[t] then p[#p + 1] = t; seen[t] = true end
  end
  if r() < 0.25 then
    local broad = feedthrough and { "all_sources", "all_input_ports", "xc", "kinematics", "all_parameters" }
      or { "xc", "kinematics", "all_parameters", "all_state", "all_sources_except_input_ports" }
    p[#p + 1] = broad[r(1, #broad)]
  end
  if #p == 0 then p[1] = "time" end
  return p
end

-- A random leaf type, appended to `out` (lines of the spec file).
-- Returns { inputs = {{name, size}}, outputs = {{name, size, ft}} }, ft
-- whether the output may depend on an input port.
local function leaf(r, name, out, force_state)
  local L = { inputs = {}, outputs = {} }
  local nq, nv, nz = r(0, 2), r(0, 2), r(0, 2)
  if not force_state and r() < 0.3 then nq, nv, nz = 0, 0, 0 end
  if force_state and nq + nv + nz == 0 then nz = 1 end
  local items, helpers = {}, {}
  local state, params, inputs = {}, {}, {}
  if r() < 0.6 then state[#state + 1] = { name = "t", size = 0 } end
  for k, n in pairs({ q = nq, v = nv, z = nz }) do if n > 0 then state[#state + 1] = { name = k, size = n } end end
  table.sort(state, function(a, b) return a.name < b.name end)
  for i = 1, r(0, 2) do params[i] = { name = "k" .. i, size = r(1, 3) } end
  for i = 1, r(nq + nv + nz == 0 and 1 or 0, 2) do inputs[i] = { name = "u" .. i, size = r(1, 3) } end
  local order = { "t", "q", "v", "z" }
  for _, p in ipairs(params) do order[#order + 1] = p.name end
  for _, u in ipairs(inputs) do order[#order + 1] = u.name end
  local caches = {} -- { name, size, ft }
  local function calc(kind, fields, outs, ft, xcdot)
    local reads = {}
    if xcdot then
      for _, k in ipairs({ "q", "v", "z" }) do
        local n = ({ q = nq, v = nv, z = nz })[k]
        if n > 0 then reads[#reads + 1] = { name = k .. "dot", size = n } end
      end
    end
    for _, s in ipairs(state) do reads[#reads + 1] = s end
    for _, p in ipairs(params) do reads[#reads + 1] = p end
    if ft then for _, u in ipairs(inputs) do reads[#reads + 1] = u end end
    for _, c in ipairs(caches) do if ft or not c.ft then reads[#reads + 1] = c end end
    if #reads == 0 then reads[1] = { name = "t", size = 0 } end
    local text, used, h = body(r, reads, outs)
    for k in pairs(h) do helpers[k] = true end
    local o = {}
    for _, x in ipairs(order) do o[#o + 1] = x end
    for _, c in ipairs(caches) do o[#o + 1] = c.name end
    for _, k in ipairs({ "qdot", "vdot", "zdot" }) do o[#o + 1] = k end
    local pre = prerequisites(r, used, o, ft)
    items[#items + 1] = string.format("  %s {%s prerequisites = %s, calc = [==[\n%s\n]==] },",
      kind, fields, list(pre), text)
  end
  if nq + nv + nz > 0 then
    local s = {}
    for _, k in ipairs({ "q", "v", "z" }) do
      local n = ({ q = nq, v = nv, z = nz })[k]
      if n > 0 then s[#s + 1] = k .. " = " .. n end
    end
    items[#items + 1] = "  continuous_state { " .. table.concat(s, ", ") .. " },"
  end
  for _, p in ipairs(params) do
    items[#items + 1] = string.format("  parameter { %q, default = %s },", p.name, list(randoms(r, p.size)))
  end
  for _, u in ipairs(inputs) do
    items[#items + 1] = string.format("  input_port { %q, size = %d },", u.name, u.size)
    L.inputs[#L.inputs + 1] = { name = u.name, size = u.size }
  end
  for i = 1, r(0, 2) do
    local c = { name = "c" .. i, size = r(1, 3), ft = #inputs > 0 and r() < 0.5 }
    calc("cache_entry", string.format(" %q, size = %d,", c.name, c.size), { c }, c.ft)
    caches[#caches + 1] = c
  end
  if nq + nv + nz > 0 then
    local outs = {}
    for _, k in ipairs({ "q", "v", "z" }) do
      local n = ({ q = nq, v = nv, z = nz })[k]
      if n > 0 then outs[#outs + 1] = { name = k .. "dot", size = n } end
    end
    calc("derivatives", "", outs, true)
  end
  for i = 1, r(1, 2) do
    local y = { name = "y" .. i, size = r(1, 3), ft = #inputs > 0 and (nq + nv + nz == 0 or r() < 0.6) }
    -- an output may read the time derivatives (feedthrough when they read
    -- an input)
    local xcdot = nq + nv + nz > 0 and (y.ft or #inputs == 0) and r() < 0.3 and XCDOT
    calc("output_port", string.format(" %q, size = %d,", y.name, y.size), { y }, y.ft, xcdot)
    L.outputs[#L.outputs + 1] = y
  end
  local pre = {}
  for _, h in ipairs(HELPERS) do if helpers[h.name] then pre[#pre + 1] = h.text end end
  -- the preambles of all leaves share one translation unit: each leaf's
  -- helpers carry its name
  local function own(s) return (s:gsub("%f[%w_]h_(%l+)", name .. "_%1")) end
  out[#out + 1] = string.format("local %s = leaf %q {", name, name)
  if #pre > 0 then out[#out + 1] = own("  c_preamble [==[\n#include <math.h>\n" .. table.concat(pre, "\n") .. "\n]==],") end
  for _, it in ipairs(items) do out[#out + 1] = own(it) end
  out[#out + 1] = "}"
  return L
end

-- The items of a diagram over `children` ({ name, S }): every input of
-- every child is connected (from an earlier child's output, or from any
-- child's state-only output), fixed or exported (an exported input may
-- drive several); outputs are exported and logged.
-- Returns the items and the diagram's { inputs, outputs }.
local function wire(r, children, root)
  local items, D = {}, { inputs = {}, outputs = {} }
  local nin, nout = 0, 0
  for _, ch in ipairs(children) do items[#items + 1] = string.format("  system { %q, %s },", ch.name, ch.type) end
  for i, ch in ipairs(children) do
    for _, u in ipairs(ch.S.inputs) do
      local fwd, back = {}, {}
      for j, other in ipairs(children) do
        for _, o in ipairs(other.S.outputs) do
          if o.size == u.size then
            local path = other.name .. "." .. o.name
            if j < i then fwd[#fwd + 1] = path end
            if not o.ft then back[#back + 1] = path end
          end
        end
      end
      local x, dst = r(), ch.name .. "." .. u.name
      if #fwd > 0 and x < 0.4 then
        items[#items + 1] = string.format("  connect { %q, %q },", fwd[r(1, #fwd)], dst)
      elseif #back > 0 and x < 0.5 then
        items[#items + 1] = string.format("  connect { %q, %q },", back[r(1, #back)], dst)
      elseif x < 0.65 then
        items[#items + 1] = string.format("  fix_input { %q, value = %s },", dst, list(randoms(r, u.size)))
      else
        -- an exported input may drive several subsystem inputs
        local joined
        for _, e in ipairs(D.inputs) do
          if e.size == u.size and r() < 0.8 then joined = e; break end
        end
        if joined then joined.targets[#joined.targets + 1] = dst
        else
          nin = nin + 1
          D.inputs[#D.inputs + 1] = { name = "in" .. nin, size = u.size, targets = { dst } }
        end
      end
    end
  end
  for _, e in ipairs(D.inputs) do
    items[#items + 1] = string.format("  export_input { %s, as = %q },", list(e.targets):sub(3, -3), e.name)
  end
  for _, ch in ipairs(children) do
    for _, o in ipairs(ch.S.outputs) do
      local src = ch.name .. "." .. o.name
      if r() < (root and 0.4 or 0.7) then
        nout = nout + 1
        items[#items + 1] = string.format("  export_output { %q, as = %q },", src, "o" .. nout)
        D.outputs[#D.outputs + 1] = { name = "o" .. nout, size = o.size, ft = o.ft }
        if r() < 0.1 then -- the same output under a second name
          nout = nout + 1
          items[#items + 1] = string.format("  export_output { %q, as = %q },", src, "o" .. nout)
          D.outputs[#D.outputs + 1] = { name = "o" .. nout, size = o.size, ft = o.ft }
        end
      end
      if r() < (root and 0.25 or 0.1) then
        items[#items + 1] = string.format("  log { %q, period = 0.1 },", src)
      end
    end
  end
  return items, D
end

-- A random system (a leaf, or a diagram of 1 or 2 systems), appended to
-- `out`; returns its type's local name and { inputs, outputs }.
local function system(r, G, depth, out, force_state)
  G.n = G.n + 1
  local name = (depth >= 2 or r() < 0.7) and "R" .. G.seed .. "_" .. G.n or "D" .. G.seed .. "_" .. G.n
  if name:sub(1, 1) == "R" then return name, leaf(r, name, out, force_state) end
  local children = {}
  for i = 1, r(1, 2) do
    local t, S = system(r, G, depth + 1, out, force_state and i == 1)
    children[i] = { name = "s" .. i, type = t, S = S }
  end
  local items, D = wire(r, children, false)
  out[#out + 1] = string.format("local %s = diagram %q {", name, name)
  for _, it in ipairs(items) do out[#out + 1] = it end
  out[#out + 1] = "}"
  return name, D
end

-- The text of a random spec file; the first system has continuous state.
local function spec_text(seed)
  local r = rng(seed * 2654435761 % 4294967296 + 1)
  local G, out, children = { seed = seed, n = 0 }, {}, {}
  for i = 1, r(2, 4) do
    local t, S = system(r, G, 0, out, i == 1)
    children[i] = { name = "s" .. i, type = t, S = S }
  end
  local items = wire(r, children, true)
  out[#out + 1] = string.format("return diagram %q {", "jf" .. seed)
  for _, it in ipairs(items) do out[#out + 1] = it end
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

------------------------------------------------------------------------
-- Evaluating the model at a point X = (xc, u)

local function with_spec(text, what, fn)
  local ok, err = pcall(fn)
  if not ok then error(tostring(err) .. "\n" .. what .. ", the spec:\n" .. text, 0) end
end

-- F(X) = (xcdot, y): the model's derivatives and its linearization
-- outputs at xc = X[1 .. nxc], u = X[nxc + 1 ..]; X's layout is jac_lin's
-- columns, F's its rows.
local function evaluator(m, ctx)
  local d = m.desc
  local nx, ins, outs = d.nxc, {}, {}
  for k = 0, d.n_lin_inputs - 1 do
    local s = d.lin_inputs[k]
    ins[#ins + 1] = { index = s, size = d.sources[s].size }
  end
  for k = 0, d.n_lin_outputs - 1 do
    local o = d.lin_outputs[k]
    outs[#outs + 1] = { index = o, size = d.outputs[o].size }
  end
  local xbuf = ffi.new("double[?]", math.max(nx, 1))
  local ubuf = ffi.new("double[?]", 16)
  local pp = ffi.new("const double *[1]")
  local E = { nx = nx, ncol = d.jac_lin_ncol, nrow = d.jac_lin_nrow }
  function E.set(X)
    for i = 0, nx - 1 do xbuf[i] = X[i + 1] end
    d.set_xc(ctx.ptr, xbuf)
    local k = nx
    for _, u in ipairs(ins) do
      for i = 0, u.size - 1 do ubuf[i] = X[k + i + 1] end
      d.set_source(ctx.ptr, u.index, ubuf)
      k = k + u.size
    end
  end
  function E.get()
    local X = {}
    local xc = ffi.cast("double *", ffi.cast("char *", ctx.ptr) + d.xc_offset)
    for i = 0, nx - 1 do X[i + 1] = xc[i] end
    for _, u in ipairs(ins) do
      local p = ffi.cast("double *", ffi.cast("char *", ctx.ptr) + d.sources[u.index].offset)
      for i = 0, u.size - 1 do X[#X + 1] = p[i] end
    end
    return X
  end
  function E.F(X)
    E.set(X)
    local F = {}
    if d.calc_derivatives(ctx.ptr, pp) ~= 0 then error("calc_derivatives failed") end
    for i = 0, nx - 1 do F[i + 1] = pp[0][i] end
    for _, o in ipairs(outs) do
      if d.eval_output(ctx.ptr, o.index, pp) ~= 0 then error("eval_output failed") end
      for i = 0, o.size - 1 do F[#F + 1] = pp[0][i] end
    end
    return F
  end
  return E
end

-- (the runtime's central differences step / h)^2: their O(h^2) error
-- relative to that of the step h here
local RT_STEP2 = (2.220446049250313e-16 ^ (1 / 3) / 2e-5) ^ 2

-- Central differences of F at X0 with steps h and h/4, combined by
-- Richardson extrapolation (error O(h^4)).  Returns J[row][col], whether
-- every entry settled (the two quotients agree, so that no kink or branch
-- switch lies within the step), F(X0), and Err[row][col], the estimated
-- O(h^2) error of the runtime's central differences (jacobian = "fd").
local function differences(E, X0)
  local F0 = E.F(X0)
  local J, Err, settled = {}, {}, true
  for i = 1, #F0 do J[i], Err[i] = {}, {} end
  for col = 1, #X0 do
    local h = 2e-5 * math.max(1, math.abs(X0[col]))
    local function quotient(step)
      local X = {}
      for i, v in ipairs(X0) do X[i] = v end
      X[col] = X0[col] + step
      local fp = E.F(X)
      X[col] = X0[col] - step
      local fm = E.F(X)
      local q = {}
      for i = 1, #fp do q[i] = (fp[i] - fm[i]) / (2 * step) end
      return q
    end
    local d1, d2 = quotient(h), quotient(h / 4)
    for row = 1, #F0 do
      local scale = math.max(1, math.abs(F0[row]))
      if math.abs(d1[row] - d2[row]) > 1e-5 * math.max(math.abs(d1[row]), math.abs(d2[row])) + 1e-8 * scale then
        settled = false
      end
      J[row][col] = (16 * d2[row] - d1[row]) / 15
      Err[row][col] = RT_STEP2 * math.abs(d1[row] - d2[row]) * 16 / 15
    end
  end
  E.set(X0)
  return J, settled, F0, Err
end

-- the dense matrix of a compressed-column Jacobian, and its pattern
local function dense(nrow, ncol, colptr, rowind, nz)
  local J, P = {}, {}
  for i = 1, nrow do
    J[i] = {}
    for j = 1, ncol do J[i][j] = 0 end
  end
  for col = 0, ncol - 1 do
    for k = colptr[col], colptr[col + 1] - 1 do
      J[rowind[k] + 1][col + 1] = nz[k + 1]
      P[(rowind[k] + 1) .. "," .. (col + 1)] = true
    end
  end
  return J, P
end

local function nz_values(fn, ctx, nnz)
  local nz = ffi.new("double[?]", math.max(nnz, 1))
  local rc = fn(ctx.ptr, nz)
  if rc ~= 0 then error("Jacobian evaluation failed with status " .. rc) end
  local t = {}
  for k = 0, nnz - 1 do t[k + 1] = nz[k] end
  return t, nz
end

-- the largest |generated - differences| seen, as a fraction of the tolerance
local worst = 0

local function close(g, f, scale)
  local tol = ATOL * scale + RTOL * math.max(math.abs(g), math.abs(f))
  worst = math.max(worst, math.abs(g - f) / tol)
  return math.abs(g - f) <= tol
end

-- Compares a generated dense Jacobian G (pattern P) with the differences
-- Fd over rows 1..nrow and cols 1..ncol.  Returns the entries checked.
local function compare(what, G, P, Fd, F0, nrow, ncol)
  for i = 1, nrow do
    local scale = math.max(1, math.abs(F0[i]))
    for j = 1, ncol do
      local g, f = G[i][j], Fd[i][j]
      if math.abs(f) > 1e-8 * scale and not P[i .. "," .. j] then
        error(string.format("%s[%d][%d] = %.10g by perturbation, not in the generated pattern", what, i, j, f), 0)
      end
      if not close(g, f, scale) then
        error(string.format("%s[%d][%d]: generated %.17g, central differences %.17g", what, i, j, g, f), 0)
      end
    end
  end
  return nrow * ncol
end

------------------------------------------------------------------------
-- The operating point and the checks

-- every settable numeric source, by name, sorted
local function settable(m)
  local K = { [0] = true, [2] = true, [3] = true, [4] = true, [7] = true, [9] = true, [10] = true }
  local names = {}
  for n, s in pairs(m.sources) do if K[s.kind] and s.size > 0 then names[#names + 1] = n end end
  table.sort(names)
  return names
end

local function random_value(r, m, n)
  local v = {}
  for k = 1, m.sources[n].size do v[k] = n == "t" and r() * 2 or r() * 3 - 1.5 end
  return v
end

-- Sets every source of ctx at random; returns the values, by name.
local function random_point(r, m, ctx)
  local values = {}
  for _, n in ipairs(settable(m)) do
    values[n] = random_value(r, m, n)
    ctx:set(n, values[n])
  end
  return values
end

-- c:linearize with the generated Jacobian against jacobian = "fd": the
-- entries within the tolerance plus twice the estimated O(h^2) error of
-- the runtime's differences (Err); f0 = xcdot0 - A x0 - B u0 and y0 =
-- y(x0, u0) - C x0 - D u0 within that of the values plus that of the
-- entries times x0, u0.  The model's entries are jac_lin's, bit for bit.
local function check_linearize(ctx, E, Gl, F0, Err)
  local g = ctx:linearize { mode = "first_order_taylor" }
  local f = ctx:linearize { mode = "first_order_taylor", jacobian = "fd" }
  local function fd_entry(row, col)
    local k = (row <= E.nx and "A" or "C"):gsub(".", function(c) return col <= E.nx and c or (c == "A" and "B" or "D") end)
    return f[k][row <= E.nx and row or row - E.nx][col <= E.nx and col or col - E.nx], k
  end
  local function entry_tol(row, col, v, w)
    return ATOL * math.max(1, math.abs(F0[row])) + RTOL * math.max(math.abs(v), math.abs(w)) + 2 * Err[row][col]
  end
  local count = 0
  for row = 1, E.nrow do
    local ftol = 0
    for col = 1, E.ncol do
      local gv = Gl[row][col]
      local fv, k = fd_entry(row, col)
      local mv = g[k][row <= E.nx and row or row - E.nx][col <= E.nx and col or col - E.nx]
      if mv ~= gv then error(string.format("linearize %s at (%d, %d) is not jac_lin's value", k, row, col), 0) end
      local tol = entry_tol(row, col, gv, fv)
      worst = math.max(worst, math.abs(gv - fv) / tol)
      if math.abs(gv - fv) > tol then
        error(string.format("linearize %s at (%d, %d): model %.17g, fd %.17g", k, row, col, gv, fv), 0)
      end
      ftol = ftol + tol * math.abs(g.x0[col] or g.u0[col - E.nx])
      count = count + 1
    end
    local k, i = row <= E.nx and "f0" or "y0", row <= E.nx and row or row - E.nx
    local v, w = g[k][i], f[k][i]
    local tol = ftol + ATOL * math.max(1, math.abs(F0[row])) + RTOL * math.max(math.abs(v), math.abs(w))
    worst = math.max(worst, math.abs(v - w) / tol)
    if math.abs(v - w) > tol then error(string.format("linearize %s[%d]: model %.17g, fd %.17g", k, i, v, w), 0) end
    count = count + 1
  end
  return count
end

local function check_jacobians(m, ctx, E, Fd, F0, Err)
  local d, count = m.desc, 0
  -- 1. d xcdot / d xc from diagc test's view and from the descriptor
  local S = ctx:state_jacobian()
  local xv = nz_values(d.jac_xc, ctx, d.jac_xc_nnz)
  local Gx, Px = dense(d.nxc, d.nxc, d.jac_xc_colptr, d.jac_xc_rowind, xv)
  for i = 1, d.nxc do
    for j = 1, d.nxc do
      if S[i][j] ~= Gx[i][j] then error(string.format("state_jacobian[%d][%d] ~= jac_xc's", i, j), 0) end
    end
  end
  count = count + compare("d xcdot / d xc", Gx, Px, Fd, F0, E.nx, E.nx)
  -- 2. d(xcdot, y) / d(xc, u)
  local lv = nz_values(d.jac_lin, ctx, d.jac_lin_nnz)
  local Gl, Pl = dense(E.nrow, E.ncol, d.jac_lin_colptr, d.jac_lin_rowind, lv)
  count = count + compare("d(xcdot, y) / d(xc, u)", Gl, Pl, Fd, F0, E.nrow, E.ncol)
  return count + check_linearize(ctx, E, Gl, F0, Err)
end

local function same_bits(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if not (a[i] == b[i] and (a[i] ~= 0 or 1 / a[i] == 1 / b[i])) then return false end
  end
  return true
end

-- 3. caching on (A) and off (B) from the same values, then along a random
-- sequence of sets and evals
local function check_caching(r, m, values, steps)
  local d = m.desc
  local A, B = m:context(), m:context()
  d.set_caching(B.ptr, 0)
  for n, v in pairs(values) do A:set(n, v); B:set(n, v) end
  local names = settable(m)
  local outs = {}
  for n in pairs(m.outputs) do outs[#outs + 1] = n end
  table.sort(outs)
  local xcbuf = ffi.new("double[?]", math.max(1, d.nxc))
  local function jacs(step)
    local ax, bx = nz_values(d.jac_xc, A, d.jac_xc_nnz), nz_values(d.jac_xc, B, d.jac_xc_nnz)
    if not same_bits(ax, bx) then error("step " .. step .. ": jac_xc differs with caching off", 0) end
    local al, bl = nz_values(d.jac_lin, A, d.jac_lin_nnz), nz_values(d.jac_lin, B, d.jac_lin_nnz)
    if not same_bits(al, bl) then error("step " .. step .. ": jac_lin differs with caching off", 0) end
  end
  jacs(0)
  for step = 1, steps do
    local x = r()
    if x < 0.35 then
      local n = names[r(1, #names)]
      local v = random_value(r, m, n)
      A:set(n, v); B:set(n, v)
    elseif x < 0.45 then
      for k = 0, d.nxc - 1 do xcbuf[k] = r() * 3 - 1.5 end
      if r() < 0.5 then d.set_xc(A.ptr, xcbuf); d.set_xc(B.ptr, xcbuf)
      else
        local pa, pb = d.mutable_xc(A.ptr), d.mutable_xc(B.ptr)
        local k = r(0, d.nxc - 1)
        pa[k] = xcbuf[k]; pb[k] = xcbuf[k]
      end
    elseif x < 0.55 and #outs > 0 then
      local n = outs[r(1, #outs)]
      local va, vb = A:eval(n), B:eval(n)
      if not same_bits(type(va) == "table" and va or { va }, type(vb) == "table" and vb or { vb }) then
        error("step " .. step .. ": " .. n .. " differs with caching off", 0)
      end
    elseif x < 0.65 then
      if not same_bits(A:derivatives(), B:derivatives()) then error("step " .. step .. ": derivatives differ", 0) end
    else
      jacs(step)
    end
  end
  jacs(steps + 1)
end

local function run(seed)
  local text = spec_text(seed)
  local tmp = os.tmpname()
  local path = tmp .. "_jacfuzz" .. seed .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  local ok, m = pcall(diagc.jit, path, { prefix = "jf" .. seed })
  os.remove(path)
  os.remove(tmp)
  if not ok then error(tostring(m) .. "\nthe spec:\n" .. text, 0) end
  local d = m.desc
  if d.jac_xc == nil or d.jac_lin == nil then
    local why = m.gen.jac_xc_missing or m.gen.jac_lin_missing or {}
    error(string.format("no generated Jacobian (jac_xc %s, jac_lin %s): %s\nthe spec:\n%s",
      d.jac_xc == nil and "NULL" or "present", d.jac_lin == nil and "NULL" or "present",
      tostring(why.message), text), 0)
  end
  truthy(d.nxc > 0, "the generator gives every model continuous state")
  local r = rng(seed + 99)
  local ctx = m:context()
  local E = evaluator(m, ctx)
  local count, tries = 0, 0
  for point = 1, POINTS do
    local values, Fd, F0, Err
    repeat
      tries = tries + 1
      if tries > 3 * POINTS + 5 then error("too many operating points near kinks\nthe spec:\n" .. text, 0) end
      values = random_point(r, m, ctx)
      local settled
      Fd, settled, F0, Err = differences(E, E.get())
      if not settled then Fd = nil end
    until Fd
    with_spec(text, "at operating point " .. point .. ", X = " .. table.concat(E.get(), ", "), function()
      count = count + check_jacobians(m, ctx, E, Fd, F0, Err)
      check_caching(r, m, values, 40)
    end)
  end
  if VERBOSE then
    print(string.format("jf%d: nxc %d, ncol %d, nrow %d, jac_xc nnz %d, jac_lin nnz %d, points tried %d, entries %d, "
      .. "worst error %.3f of the tolerance", seed, d.nxc, E.ncol, E.nrow, d.jac_xc_nnz, d.jac_lin_nnz, tries, count, worst))
  end
end

for seed = FIRST_SEED, FIRST_SEED + N_DIAGRAMS - 1 do
  test(string.format("fuzz.jacobian.%03d", seed), function() run(seed) end)
end

test("fuzz.jacobian.generator_is_deterministic", function()
  eq(spec_text(17), spec_text(17))
end)
