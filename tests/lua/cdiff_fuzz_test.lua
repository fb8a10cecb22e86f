-- cdiff: random calc bodies (seeded, deterministic) with branches, loops,
-- every math function and preamble helpers; their generated Jacobians
-- against central differences, their patterns against perturbation, and
-- the generated C against gcc and clang's strictest warnings.
local S = dofile("tests/lua/cdiff_support.lua")

local PREAMBLE = [[
static double h_sq(double x) { return x * x; }
static double h_leaky(double x) { return x > 0 ? x : 0.1 * x; }
static void h_axpy(double *y, const double *x, double a, int n) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}
static double h_dot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
static double h_clamp(double x, double lo, double hi) {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}
]]

local INPUTS = { { name = "t" }, { name = "q", size = 4 }, { name = "p", size = 3 } }
local OUTPUTS = { { name = "y", size = 3 } }

-- A body generator.  smooth = true: no branch and no kink anywhere, so the
-- pattern must be exactly what perturbation finds.
local function generator(rnd, smooth)
  local function pick(list) return list[1 + math.floor(rnd() * #list)] end
  local function int(n) return math.floor(rnd() * n) end
  local scope = {}
  local function leaf(loopvar)
    local r = rnd()
    if r < 0.3 then return "q[" .. (loopvar and (rnd() < 0.5) and loopvar or int(4)) .. "]" end
    if r < 0.45 then return "p[" .. int(3) .. "]" end
    if r < 0.55 then return "t" end
    if r < 0.7 and #scope > 0 then return pick(scope) end
    if r < 0.8 and loopvar then return "(double)" .. loopvar end
    return string.format("%.2f", 0.5 + 1.5 * rnd())
  end
  local SMOOTH1 = {
    "sin(%s)", "cos(%s)", "tanh(%s)", "atan(%s)", "exp(tanh(%s))", "log(1.5 + %s * %s)",
    "sqrt(1.0 + %s * %s)", "asin(0.9 * tanh(%s))", "acos(0.9 * tanh(%s))", "sinh(tanh(%s))",
    "cosh(tanh(%s))", "tan(0.5 * tanh(%s))", "log10(2.0 + %s * %s)", "h_sq(%s)",
  }
  local SMOOTH2 = { "pow(1.2 + %s * %s, tanh(%s))", "hypot(%s, 1.0 + %s * %s)", "atan2(%s, 2.0 + %s * %s)" }
  local KINKED = { "fabs(%s)", "fmin(%s, %s)", "fmax(%s, %s)", "floor(%s) * %s", "ceil(%s) + %s",
    "fmod(%s, 1.5 + %s * %s)", "copysign(%s, %s)", "h_leaky(%s)", "h_clamp(%s, -0.5, 0.5)",
    "(%s > %s ? %s : %s)" }
  local expr
  -- "%s * %s" squares one subexpression; every other %s is a fresh one
  local function fill(fmt, depth, lv)
    local f = fmt:gsub("%%s %* %%s", "\0")
    f = f:gsub("%%s", function() return expr(depth - 1, lv) end)
    return (f:gsub("%z", function()
      local x = expr(depth - 1, lv)
      return x .. " * " .. x
    end))
  end
  expr = function(depth, lv)
    if depth <= 0 or rnd() < 0.25 then return leaf(lv) end
    local r = rnd()
    if r < 0.35 then
      local op = pick({ "+", "-", "*", "*" })
      return "(" .. expr(depth - 1, lv) .. " " .. op .. " " .. expr(depth - 1, lv) .. ")"
    end
    if r < 0.42 then return "(" .. expr(depth - 1, lv) .. " / (1.5 + h_sq(" .. expr(depth - 1, lv) .. ")))" end
    if r < 0.47 then return "-(" .. expr(depth - 1, lv) .. ")" end
    if r < 0.8 or smooth then return fill(pick(rnd() < 0.8 and SMOOTH1 or SMOOTH2), depth, lv) end
    return fill(pick(KINKED), depth, lv)
  end
  local lines, nlocal = {}, 0
  local function add(s) lines[#lines + 1] = "  " .. s end
  local function new_local()
    nlocal = nlocal + 1
    local name = "a" .. nlocal
    add("double " .. name .. " = " .. expr(3) .. ";")
    scope[#scope + 1] = name
  end
  new_local()
  add("double w[3];")
  add("for (int i = 0; i < 3; i++) w[i] = " .. expr(2, "i") .. ";")
  scope[#scope + 1] = "w[" .. int(3) .. "]"
  for _ = 1, 3 + int(4) do
    local r = rnd()
    if r < 0.3 then new_local()
    elseif r < 0.45 then
      add(pick({ "a1", "w[1]" }) .. " " .. pick({ "+=", "-=", "*=", "=" }) .. " " .. expr(2) .. ";")
    elseif r < 0.6 then
      add("for (int i = 0; i < " .. (2 + int(3)) .. "; i++) { a1 += " .. expr(2, "i") .. "; }")
    elseif r < 0.7 then
      add("h_axpy(w, q, " .. expr(1) .. ", 3);")
    elseif r < 0.8 then
      add("a1 += h_dot(w, p, 3) * " .. expr(1) .. ";")
    elseif not smooth then
      add("if (" .. expr(2) .. " > " .. expr(1) .. ") { w[0] = " .. expr(2) .. "; } else { w[2] += "
        .. expr(2) .. "; }")
    else
      add("w[" .. int(3) .. "] = " .. expr(3) .. ";")
    end
  end
  for j = 0, 2 do add("y[" .. j .. "] = " .. expr(3) .. " + " .. pick(scope) .. ";") end
  return table.concat(lines, "\n")
end

local function body_spec(body)
  return { body = body, preamble = PREAMBLE, inputs = INPUTS, outputs = OUTPUTS }
end

local bodies = {}

local function run(seed, count, smooth)
  local rnd = S.rng(seed)
  local checked, skipped = 0, 0
  for b = 1, count do
    local body = generator(rnd, smooth)
    local sp = body_spec(body)
    local r = S.analyze(sp)
    bodies[#bodies + 1] = { sp = sp, r = r }
    local c = S.compile(sp, r)
    local found = {}
    for _ = 1, 4 do
      local x = S.point(c.nin, rnd, -1.2, 1.2)
      local ok, k, sk, nz = pcall(S.check_fd, sp, c, x, { what = "body " .. b })
      if not ok then error(k .. "\nbody:\n" .. body .. "\nat x = " .. table.concat(x, ", "), 0) end
      checked, skipped = checked + k, skipped + sk
      for key in pairs(nz) do found[key] = true end
    end
    if smooth then
      for _, p in ipairs(S.positions(sp, c.pattern)) do
        truthy(found[p.row .. ":" .. p.col], "pattern entry (" .. p.row .. ", " .. p.col
          .. ") is never nonzero in the branch-free body:\n" .. body)
      end
    end
  end
  truthy(skipped <= 0.05 * (checked + skipped), string.format("%d checked, %d skipped", checked, skipped))
  return checked
end

test("cdiff.fuzz.random_bodies_against_finite_differences", function()
  truthy(run(20261124, 60, false) > 1000)
end)

test("cdiff.fuzz.branch_free_patterns_are_exact", function()
  truthy(run(4242, 30, true) > 500)
end)

test("cdiff.fuzz.generator_is_deterministic", function()
  eq(generator(S.rng(99), false), generator(S.rng(99), false))
end)

-- gcc and clang at the project's flags accept every generated body.
local function have(cc)
  local h = io.popen("command -v " .. cc .. " 2>/dev/null")
  local out = h:read("*a")
  h:close()
  return out ~= ""
end

test("cdiff.fuzz.generated_c_is_warning_free", function()
  if #bodies == 0 then
    local rnd = S.rng(20261124)
    for _ = 1, 60 do
      local sp = body_spec(generator(rnd, false))
      bodies[#bodies + 1] = { sp = sp, r = S.analyze(sp) }
    end
  end
  local parts = { "#include <math.h>\n" .. PREAMBLE }
  for i, b in ipairs(bodies) do
    local src = S.source(b.sp, b.r, "_" .. i)
    parts[#parts + 1] = src:sub(#("#include <math.h>\n" .. PREAMBLE .. "\n") + 1)
  end
  local path = os.tmpname() .. ".c"
  local f = assert(io.open(path, "w"))
  f:write(table.concat(parts, "\n"))
  f:close()
  local ran = 0
  for _, cc in ipairs({ "gcc", "clang" }) do
    if have(cc) then
      -- never -o /dev/null: a compiler that removes its output on failure
      -- would delete the device when run as root
      local cmd = cc .. " -std=c99 -Wall -Wextra -Werror -pedantic -Wno-unused-function -O0 -c -o "
        .. path .. ".o " .. path .. " 2>&1"
      local h = io.popen(cmd)
      local out = h:read("*a")
      local ok = h:close()
      truthy(ok == true or ok == 0, cc .. ": " .. out:sub(1, 2000))
      ran = ran + 1
    end
  end
  os.remove(path)
  os.remove(path .. ".o")
  truthy(ran > 0, "neither gcc nor clang found")
end)

-- Integer arithmetic is folded by diagc with C's rules: random int
-- expressions (negative operands, / and % truncating toward zero,
-- comparisons, logic, conditionals, casts, loops) give what the C
-- compiler computes from the same body.
local function int_expr(rnd, depth)
  local function int(n) return math.floor(rnd() * n) end
  if depth <= 0 or rnd() < 0.2 then
    local v = int(19) - 9
    return v < 0 and "(" .. v .. ")" or tostring(v)
  end
  local a, b = int_expr(rnd, depth - 1), int_expr(rnd, depth - 1)
  local r = rnd()
  if r < 0.45 then return "(" .. a .. " " .. ({ "+", "-", "*" })[1 + int(3)] .. " " .. b .. ")" end
  if r < 0.6 then return "(" .. a .. " " .. ({ "/", "%" })[1 + int(2)] .. " (" .. b .. " % 7 + 8))" end
  if r < 0.7 then return "(" .. a .. " " .. ({ "<", ">", "<=", ">=", "==", "!=" })[1 + int(6)] .. " " .. b .. ")" end
  if r < 0.78 then return "(" .. a .. " " .. ({ "&&", "||" })[1 + int(2)] .. " " .. b .. ")" end
  if r < 0.84 then return "!" .. a end
  if r < 0.92 then return "(" .. a .. " > " .. b .. " ? " .. b .. " : " .. a .. ")" end
  return "(int)(" .. a .. " * " .. string.format("%.3f", rnd() * 4 - 2) .. ")"
end

test("cdiff.fuzz.integer_folding_matches_c", function()
  local rnd = S.rng(777)
  for _ = 1, 40 do
    local e1, e2, e3 = int_expr(rnd, 3), int_expr(rnd, 3), int_expr(rnd, 2)
    local body = table.concat({
      "int a = " .. e1 .. ";",
      "int s = 0;",
      "for (int i = a % 4; i < 6; i += 1 + (" .. e2 .. " % 3 + 3) % 3) s += i * " .. e3 .. ";",
      "y[0] = a;",
      "y[1] = s * q[0];",
      "y[2] = (double)(" .. e2 .. ") / 3 + (a / 2.0) * p[0];",
    }, "\n")
    local sp = { body = body, inputs = INPUTS, outputs = OUTPUTS }
    local r = S.analyze(sp)
    local c = S.compile(sp, r)
    -- check_fd first compares the outputs of the generated code with the body's
    S.check_fd(sp, c, S.point(c.nin, rnd, -1, 1), { what = body })
  end
end)
