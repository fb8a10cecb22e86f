-- cdiff: static sparsity on hand-checked bodies, and must-write findings.
local S = dofile("tests/lua/cdiff_support.lua")

local IN = { { name = "t" }, { name = "q", size = 4 }, { name = "u", size = 2 }, { name = "k", size = 1 },
  { name = "mode", size = 1, ty = "int" }, { name = "accuracy", active = false } }

local function rows(body, outputs, preamble)
  local r = S.analyze({ body = body, preamble = preamble, inputs = IN,
    outputs = outputs or { { name = "y", size = 3 } } })
  local out = {}
  for _, e in ipairs(r.pattern) do
    local key = e.out .. "[" .. e.out_index .. "]"
    out[key] = (out[key] and (out[key] .. " ") or "") .. e.input .. (e.input == "t" and "" or
      ("[" .. e.in_index .. "]"))
  end
  return out, r
end

test("cdiff.activity.hand_checked_patterns", function()
  eq(rows([[
    y[0] = q[0] * u[1] + k[0];
    y[1] = t * t;
    y[2] = 4.0;
  ]]), { ["y[0]"] = "q[0] u[1] k[0]", ["y[1]"] = "t" })
  -- a local that is overwritten forgets what it depended on
  eq(rows([[
    double a = q[0];
    a = 2 * q[1];
    y[0] = a; y[1] = 0; y[2] = 0;
  ]]), { ["y[0]"] = "q[1]" })
  -- a chain: each element only on its neighbours (a band)
  eq(rows([[
    double f[4];
    for (int i = 0; i < 4; i++) f[i] = -k[0] * q[i];
    for (int i = 0; i < 3; i++) { f[i] += q[i + 1] - q[i]; f[i + 1] -= q[i + 1] - q[i]; }
    y[0] = f[0]; y[1] = f[1]; y[2] = f[3];
  ]]), { ["y[0]"] = "q[0] q[1] k[0]", ["y[1]"] = "q[0] q[1] q[2] k[0]", ["y[2]"] = "q[2] q[3] k[0]" })
end)

test("cdiff.activity.comparisons_ints_and_cuts_carry_nothing", function()
  eq(rows([[
    y[0] = q[0] > q[1] ? u[0] : u[1];
    int n = (int)q[2];
    y[1] = n * 2.0 + floor(q[3]) + ceil(t) + copysign(u[0], q[0]) + mode[0] + accuracy;
    y[2] = (double)(q[0] < 1) + fmod(q[1], 2.0) + (mode[0] > 0 ? k[0] : 1.0);
  ]]), { ["y[0]"] = "u[0] u[1]", ["y[1]"] = "u[0]", ["y[2]"] = "q[1] k[0]" })
end)

test("cdiff.activity.union_over_branches", function()
  eq(rows([[
    double a = 0;
    if (t > 1) { a = q[0]; } else if (t > 0) { a = q[1] * q[2]; }
    y[0] = a;
    y[1] = 0;
    if (q[3] > 0) y[1] = u[0]; else y[1] = u[1];
    y[2] = fmin(u[0], k[0]);
  ]]), { ["y[0]"] = "q[0] q[1] q[2]", ["y[1]"] = "u[0] u[1]", ["y[2]"] = "u[0] k[0]" })
end)

test("cdiff.activity.helpers_and_constant_folding", function()
  local pre = [[
static double lin(const double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += (i + 1) * a[i]; return s; }
static int pick(int i) { return i == 0 ? 3 : 1; }
]]
  eq(rows("y[0] = lin(q, 2); y[1] = q[pick(0)]; y[2] = q[pick(1)] + lin(u, 1);", nil, pre),
    { ["y[0]"] = "q[0] q[1]", ["y[1]"] = "q[3]", ["y[2]"] = "q[1] u[0]" })
end)

test("cdiff.activity.order_is_deterministic", function()
  local _, r = rows("y[2] = k[0] + q[3] + t + u[0]; y[0] = q[1]; y[1] = q[0];")
  local got = {}
  for _, e in ipairs(r.pattern) do got[#got + 1] = e.out .. e.out_index .. ":" .. e.input .. e.in_index end
  eq(got, { "y0:q1", "y1:q0", "y2:t0", "y2:q3", "y2:u0", "y2:k0" })
end)

-- Must-write findings ---------------------------------------------------

local function findings(body, outputs)
  local r = S.analyze({ body = body, inputs = IN, outputs = outputs or { { name = "y", size = 3 } } })
  local out = {}
  for _, f in ipairs(r.findings) do
    out[#out + 1] = string.format("%s %s%s %d:%d", f.kind, f.out or f.name, f.index and ("[" .. f.index .. "]") or "",
      f.line, f.col)
  end
  return out, r.findings
end

test("cdiff.writes.all_written", function()
  eq(findings("for (int i = 0; i < 3; i++) y[i] = q[i];"), {})
  eq(findings("if (t > 0) { y[0] = 1; y[1] = 2; } else { y[1] = 3; y[0] = 4; } y[2] = 0;"), {})
  -- a branch decided at compile time is not a path
  eq(findings("const int n = 3; for (int i = 0; i < 3; i++) if (i < n) y[i] = 1;"), {})
end)

test("cdiff.writes.missing_elements", function()
  local got, f = findings([[
    y[0] = 1;
    if (q[0] > 0) {
      y[1] = 2;
    }
  ]])
  eq(got, { "maybe_unwritten y[1] 2:5", "never_written y[2] 1:1" })
  eq(f[1].message, "y[1] may not be written: a path through this branch leaves it unassigned")
  eq(f[2].message, "y[2] is never written")
  -- nested: the innermost branch that lacks the write is named
  got = findings([[
    y[0] = 0; y[2] = 0;
    if (t > 0) {
      if (q[1] > 0) y[1] = 1;
    } else y[1] = 2;
  ]])
  eq(got, { "maybe_unwritten y[1] 3:7" })
  -- a derivative that never assigns zdot (the issue's example)
  got = findings("(void)q;", { { name = "zdot", size = 1 } })
  eq(got, { "never_written zdot[0] 1:1" })
  got = findings("if (q[0] > 0) value = 1;", { { name = "value" } })
  eq(got, { "maybe_unwritten value[0] 1:1" })
end)

test("cdiff.writes.reads_before_writes_and_bad_writes", function()
  local got = findings("y[0] += q[0]; y[1] = y[0]; y[2] = 0;")
  eq(got, { "read_before_write y[0] 1:1" })
  got = findings("for (int i = 0; i < 3; i++) y[i] = 0;\n q[0] = 1; zz[1] = 2;")
  eq(got, { "not_an_output q 2:2", "not_an_output zz 2:12" })
end)

test("cdiff.activity.reads", function()
  local _, r = rows("y[0] = mode[0] > 0 ? q[1] : 0.0; y[1] = 0 ? t : k[0]; y[2] = accuracy;")
  eq(r.reads, { "q", "k", "mode", "accuracy" })
end)

test("cdiff.activity.preloaded_update_outputs_keep_the_current_value", function()
  -- an update's x_next starts as x: an unwritten element keeps x's value and derivative
  local sp = { body = "if (x[0] > 1) x_next[0] = 0.5 * x[0] * k[0]; x_next[2] += u[0];",
    inputs = { { name = "x", size = 3 }, { name = "k", size = 1 }, { name = "u", size = 1 } },
    outputs = { { name = "x_next", size = 3, preload = "x" } } }
  local r = S.analyze(sp)
  local got = {}
  for _, e in ipairs(r.pattern) do got[#got + 1] = e.out_index .. ":" .. e.input .. e.in_index end
  eq(got, { "0:x0", "0:k0", "1:x1", "2:x2", "2:u0" })
  eq(r.findings, {})
  local c = S.compile(sp, r)
  for _, x in ipairs({ { 2, 0.5, -1, 3, 0.25 }, { 0.5, 0.5, -1, 3, 0.25 } }) do S.check_fd(sp, c, x) end
  -- a state the calc does not read is a hidden column: still the identity
  sp = { body = "x_next[1] = 2 * k[0];",
    inputs = { { name = "x", size = 2, hidden = true }, { name = "k", size = 1 } },
    outputs = { { name = "x_next", size = 2, preload = "x" } } }
  r = S.analyze(sp)
  got = {}
  for _, e in ipairs(r.pattern) do got[#got + 1] = e.out_index .. ":" .. e.input .. e.in_index end
  eq(got, { "0:x0", "1:k0" })
  S.check_fd(sp, S.compile(sp, r), { 0.3, 0.7, 1.1 })
  local _, p = require("diagc.cdiff").analyze({ body = "x_next[0] = x[1];", inputs = sp.inputs,
    outputs = sp.outputs, lex = S.lex })
  eq(p.construct, "an unknown name")
end)
