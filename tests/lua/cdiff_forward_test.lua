-- cdiff: the generated Jacobian code, compiled with TinyCC, against
-- central finite differences of the body itself (1e-6 relative), on
-- hand-written bodies: every math function, branches, loops, helpers.
local S = dofile("tests/lua/cdiff_support.lua")

local function spec(body, opts)
  opts = opts or {}
  return {
    body = body, preamble = opts.preamble,
    inputs = opts.inputs or { { name = "t" }, { name = "q", size = 3 }, { name = "p", size = 2 } },
    outputs = opts.outputs or { { name = "y", size = 3 } },
  }
end

-- Checks the body at `n` points drawn in [lo, hi]; returns the nonzeros
-- perturbation found at any point.
local function check(sp, n, lo, hi, seed)
  local r = S.analyze(sp)
  local c = S.compile(sp, r)
  local rnd = S.rng(seed or 7)
  local found, checked, skipped = {}, 0, 0
  for _ = 1, n or 20 do
    local x = S.point(c.nin, rnd, lo or -1.5, hi or 1.5)
    local k, sk, nz = S.check_fd(sp, c, x)
    checked, skipped = checked + k, skipped + sk
    for key in pairs(nz) do found[key] = true end
  end
  -- entries skipped for a kink within the step must be rare
  truthy(checked > 0 and skipped <= 0.05 * (checked + skipped),
    string.format("%d entries checked, %d skipped", checked, skipped))
  return r, c, found
end

-- For a branch-free body, the pattern is exactly what perturbation finds.
local function exact(sp, n)
  local _, c, found = check(sp, n)
  local pat = {}
  for _, p in ipairs(S.positions(sp, c.pattern)) do pat[p.row .. ":" .. p.col] = true end
  for key in pairs(pat) do truthy(found[key], "pattern entry " .. key .. " is never nonzero") end
  for key in pairs(found) do truthy(pat[key], "nonzero " .. key .. " missing from the pattern") end
end

test("cdiff.forward.polynomial_and_rational", function()
  exact(spec("y[0] = q[0] * q[1] + 3.0 * q[2] - t; y[1] = q[0] / (1.5 + q[1] * q[1]); "
    .. "y[2] = -p[0] * p[0] * p[1] / 2;"))
end)

local SMOOTH = {
  "sin(q[0])", "cos(q[0])", "tan(0.5 * q[0])", "asin(0.6 * q[0] / 1.5)", "acos(0.6 * q[0] / 1.5)",
  "atan(q[0])", "sinh(q[0])", "cosh(q[0])", "tanh(q[0])", "exp(q[0])", "log(2.0 + q[0])",
  "log10(2.0 + q[0])", "sqrt(2.0 + q[0])", "pow(2.0 + q[0], q[1])", "pow(q[0], 3)",
  "pow(2.0 + q[0], 0.5)", "atan2(q[0], q[1] + 2.0)", "hypot(q[0], q[1])",
}

test("cdiff.forward.every_smooth_math_function", function()
  for _, e in ipairs(SMOOTH) do
    exact(spec("y[0] = " .. e .. "; y[1] = q[2] * " .. e .. "; y[2] = " .. e .. " * " .. e .. ";"), 8)
  end
end)

test("cdiff.forward.functions_with_kinks", function()
  -- a.e. derivatives; points on a kink have measure zero and are skipped by the check
  for _, e in ipairs({ "fabs(q[0])", "fmin(q[0], q[1])", "fmax(q[0], q[1])", "floor(3 * q[0]) * q[1]",
    "ceil(3 * q[0]) + q[1]", "fmod(3 * q[0], 0.7 + p[0] * p[0])", "copysign(q[0], q[1])",
    "copysign(2.0, q[1]) * q[0]", "fmod(q[0], q[1] + 2)" }) do
    check(spec("y[0] = " .. e .. "; y[1] = " .. e .. " * q[2]; y[2] = 0;"), 20)
  end
end)

test("cdiff.forward.kink_choices", function()
  -- at the kink itself: fabs' = +1 at 0, fmin/fmax follow the first argument on a tie
  local sp = spec("y[0] = fabs(q[0]); y[1] = fmin(q[1], q[2]); y[2] = fmax(q[1], q[2]);")
  local r = S.analyze(sp)
  local c = S.compile(sp, r)
  local _, jv = c.J({ 0, 0, 0.5, 0.5, 0, 0 })
  local got = {}
  for k, e in ipairs(c.pattern) do got[#got + 1] = e.out .. e.out_index .. "/" .. e.input .. e.in_index .. "=" .. jv[k] end
  eq(got, { "y0/q0=1", "y1/q1=1", "y1/q2=0", "y2/q1=1", "y2/q2=0" })
  _, jv = c.J({ 0, -1e-300, 0.5, 0.75, 0, 0 })
  eq({ jv[1], jv[2], jv[3], jv[4], jv[5] }, { -1, 1, 0, 0, 1 })
end)

test("cdiff.forward.branches_take_the_derivative_of_the_branch_taken", function()
  local sp = spec([[
    double a;
    if (q[0] > 0.2) {
      a = q[1] * q[1];
    } else if (q[0] < -0.3) {
      a = sin(q[2]);
    } else {
      a = q[0] * p[0];
    }
    y[0] = a;
    y[1] = q[0] > q[1] ? exp(q[2]) : p[1] * q[1];
    y[2] = (q[0] > 0 && q[1] > 0) || t > 0.5 ? q[2] * q[0] : q[2] + q[1];
  ]])
  local r = check(sp, 40)
  -- sparsity is the union over the branches
  local rows = {}
  for _, e in ipairs(r.pattern) do
    rows[e.out_index] = (rows[e.out_index] or "") .. e.input .. e.in_index .. " "
  end
  eq(rows, { [0] = "q0 q1 q2 p0 ", [1] = "q1 q2 p1 ", [2] = "q0 q1 q2 " })
end)

test("cdiff.forward.loops_and_local_arrays", function()
  exact(spec([[
    double a[3];
    for (int i = 0; i < 3; i++) a[i] = q[i] * (i + 1);
    double s = 0;
    for (int i = 0; i < 3; i += 1) { s += a[i] * a[i]; }
    int n = 2;
    double m[2][3];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < 3; j++) m[i][j] = (i == j) ? p[i] : 0.5 * q[j];
    y[0] = s;
    for (int j = 0; j < 3; j++) { y[1] = j == 0 ? 0 : y[1]; y[1] += m[0][j] * q[j]; }
    y[2] = m[1][1] * m[0][2];
  ]]))
end)

local PRE = [[
#define GAIN 2.5
static const double OFFSET = 0.25;
static double sq(double x) { return x * x; }
static double cube(double x) { return sq(x) * x; }
static void scale(double *out, const double *in, int n, double g) {
  for (int i = 0; i < n; i++) out[i] = g * in[i] + OFFSET;
}
static double clip(double x, double lo, double hi) {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}
static double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
static int twice(int k) { return 2 * k; }
static double sgnsq(double x) { return x > 0 ? x * x : -x * x; }
]]

test("cdiff.forward.preamble_helpers_are_inlined", function()
  check(spec([[
    double w[3];
    scale(w, q, 3, GAIN);
    y[0] = cube(w[0]) + dot(w, q, twice(1) + 1);
    y[1] = clip(q[1] * 3, -1, 1) * sq(p[0]);
    scale(w, p, 1, 1.0);
    double b[2] = { q[0] > 0 ? q[1] : sgnsq(q[2]), 1 };
    y[2] = w[0] + w[2] + b[0] * b[1];
  ]], { preamble = PRE }), 30)
end)

test("cdiff.forward.scalar_outputs_and_inactive_inputs", function()
  local sp = spec("value = q[0] * accuracy + sin(t);", {
    inputs = { { name = "t" }, { name = "accuracy", active = false }, { name = "q", size = 1 } },
    outputs = { { name = "value" } } })
  local r = S.analyze(sp)
  eq(#r.pattern, 2)
  eq({ r.pattern[1].input, r.pattern[2].input }, { "t", "q" })
  local c = S.compile(sp, r)
  local y, jv = c.J({ 0.3, 2.0, 0.7 })
  near(y[1], 0.7 * 2.0 + math.sin(0.3), { rtol = 1e-15 })
  near(jv, { math.cos(0.3), 2.0 }, { rtol = 1e-15 })
end)

test("cdiff.forward.pendulum_against_its_analytic_jacobian", function()
  local sp = {
    body = [[
      qdot[0] = v[0];
      vdot[0] = -(gravity[0] / length[0]) * sin(q[0]) - damping[0] * v[0];
    ]],
    inputs = { { name = "q", size = 1 }, { name = "v", size = 1 }, { name = "length", size = 1 },
      { name = "gravity", size = 1 }, { name = "damping", size = 1 } },
    outputs = { { name = "qdot", size = 1 }, { name = "vdot", size = 1 } },
  }
  local r = S.analyze(sp)
  local c = S.compile(sp, r)
  local th, om, l, g, b = 0.4, -0.2, 1.3, 9.81, 0.1
  local _, jv = c.J({ th, om, l, g, b })
  local got = {}
  for k, e in ipairs(c.pattern) do got[e.out .. "/" .. e.input] = jv[k] end
  eq(#c.pattern, 6)
  eq(got["qdot/v"], 1)
  near(got["vdot/q"], -(g / l) * math.cos(th), { rtol = 1e-14 })
  near(got["vdot/v"], -b, { rtol = 1e-15 })
  near(got["vdot/length"], (g / (l * l)) * math.sin(th), { rtol = 1e-14 })
  near(got["vdot/gravity"], -math.sin(th) / l, { rtol = 1e-14 })
  near(got["vdot/damping"], -om, { rtol = 1e-15 })
end)

test("cdiff.forward.deterministic_text", function()
  local sp = spec("double a = q[0] > 0 ? sin(q[1]) : q[2]; y[0] = a * a; y[1] = fmin(a, p[0]); y[2] = t;")
  local a = S.analyze(sp).jacobian().code
  local b = S.analyze(sp).jacobian().code
  eq(a, b)
  truthy(not a:find("%.%d+e%-?%d+%.0"), "number format")
end)

test("cdiff.forward.jacobian_only_leaves_outputs_alone", function()
  local sp = spec("y[0] = q[0] * q[1]; y[1] = 2; y[2] = q[2];")
  local r = S.analyze(sp)
  local j = r.jacobian({ outputs = false, jac = "J" })
  truthy(not j.code:find("y%["), j.code)
  truthy(j.code:find("J[0] = q[1];", 1, true), j.code)
end)

test("cdiff.forward.chosen_columns_only", function()
  -- d(xdot)/dx without the parameter columns, as a linearization asks
  local sp = spec("y[0] = p[0] * sin(q[0]) + t; y[1] = q[1] * q[2] * p[1]; y[2] = p[0];")
  local r = S.analyze(sp)
  local j = r.jacobian({ inputs = { q = true } })
  local got = {}
  for _, e in ipairs(j.pattern) do got[#got + 1] = e.out_index .. ":" .. e.input .. e.in_index end
  eq(got, { "0:q0", "1:q1", "1:q2" })
  truthy(not j.code:find("jac%[3%]"), j.code)
  -- the values agree with the full Jacobian's
  local c = S.compile(sp, r)
  local x = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 }
  local _, full = c.J(x)
  local src = "#include <math.h>\nvoid part(const double *in_, double *out_, double *jac) {\n"
    .. "  const double t = in_[0]; const double *q = in_ + 1; const double *p = in_ + 4;\n"
    .. "  double *y = out_; (void)t; (void)p;\n" .. j.code .. "}\n"
  local host = require("diagc_host")
  local st = assert(host.tcc_compile(src, { options = "-Wall -Werror" }))
  local fn = require("ffi").cast("void (*)(const double *, double *, double *)", host.tcc_symbol(st, "part"))
  local ffi = require("ffi")
  local xin, out, jac = ffi.new("double[6]", x), ffi.new("double[3]"), ffi.new("double[3]")
  fn(xin, out, jac)
  -- full pattern order: y0: t q0 p0; y1: q1 q2 p1; y2: p0
  eq({ jac[0], jac[1], jac[2] }, { full[2], full[4], full[5] })
end)
