-- cdiff: what the differentiable subset accepts, and what it names (with
-- line:col) when a body or helper is outside it.
local S = dofile("tests/lua/cdiff_support.lua")
local cdiff = require("diagc.cdiff")

local IFACE = {
  inputs = { { name = "t" }, { name = "q", size = 3 }, { name = "k", size = 2 } },
  outputs = { { name = "y", size = 3 } },
}

local function analyze(body, preamble)
  return cdiff.analyze({ body = body, preamble = preamble, inputs = IFACE.inputs,
    outputs = IFACE.outputs, lex = S.lex })
end

local ACCEPTED = {
  "y[0] = q[0]; y[1] = q[1]; y[2] = q[2];",
  "double a = 1.0, b[2] = {q[0], q[1]}; int n = 2; y[0] = a + b[0]; y[1] = b[1] * n; y[2] = 0;",
  "for (int i = 0; i < 3; i++) y[i] = q[i] * k[i % 2];",
  "int i; for (i = 2; i >= 0; --i) { y[i] = 0.0; y[i] += q[i]; y[i] *= 2; }",
  "y[0] = q[0] > 0 ? q[0] : -q[0]; y[1] = (q[1] > 0 && q[2] < 1) || !(t > 0) ? 1.0 : 2.0; y[2] = (double)(int)t;",
  "if (q[0] > 1) { y[0] = 1; } else if (q[0] < -1) y[0] = -1; else y[0] = q[0]; y[1] = y[0]; y[2] = 3;",
  "double m[2][2] = {{1, 2}, {3, 4}}; y[0] = m[1][0] * q[0]; y[1] = m[0][1]; y[2] = M_PI;",
  "const int N = 3; double a[N]; for (int i = 0; i < N; i++) a[i] = sin(q[i]); for (int i = 0; i < N; i++) y[i] = a[N - 1 - i];",
  "y[0] = pow(q[0], 2) + atan2(q[1], q[2]) + hypot(q[0], 1) + fmod(q[0], 0.7) + copysign(1.0, q[1]);"
    .. " y[1] = fmin(q[0], q[1]) + fmax(q[2], 0) + floor(q[0]) + ceil(q[1]) + fabs(q[2]);"
    .. " y[2] = exp(q[0]) + log(2 + q[0]) + log10(3 + q[1]) + sqrt(4 + q[2]) + tan(q[0]) + asin(0.5 * q[0])"
    .. " + acos(0.5 * q[1]) + atan(q[2]) + sinh(q[0]) + cosh(q[1]) + tanh(q[2]) + cos(t) + 1e-3 + .5f + 0x10;",
  "const double *p = q + 1, *r = p + 1; double *w = y + 2; w[0] = r[0]; y[0] = p[-1]; y[1] = p[0]; (void)p;",
  "(void)k; ; { } y[0] = y[1] = 0 == 0;",
}

test("cdiff.parse.accepts_the_subset", function()
  for i, body in ipairs(ACCEPTED) do
    local r, p = analyze(body)
    if i == #ACCEPTED then
      -- chained assignment is outside the subset (the last entry checks it is named)
      truthy(not r and p.construct == "an assignment inside an expression", body)
    else
      truthy(r, body .. ": " .. (p and (p.line .. ":" .. p.col .. " " .. p.message) or ""))
    end
  end
end)

-- body, construct named, line, col
local REJECTED = {
  { "while (t > 0) { y[0] = 1; }", "a while loop", 1, 1 },
  { "y[0] = 1;\n  do { } while (0);", "a do-while loop", 2, 3 },
  { "switch (1) { default: break; }", "a switch statement", 1, 1 },
  { "y[0] = 1; goto end;", "goto", 1, 11 },
  { "for (int i = 0; i < 3; i++) { if (i == 1) break; y[i] = 0; }", "break", 1, 43 },
  { "y[0] = *q;", "a pointer dereference", 1, 8 },
  { "double *p = q; y[0] = p[0];", "a non-const pointer to read-only data", 1, 9 },
  { "const double *p; y[0] = 0;", "a pointer without an initializer", 1, 15 },
  { "const double **p = q; y[0] = 0;", "a pointer declaration outside the subset", 1, 15 },
  { "const double *p = q + 4; y[0] = p[0];", "a pointer out of bounds", 1, 21 },
  { "const double *p = q + 1; y[0] = p[2];", "an index out of bounds", 1, 35 },
  { "const double *p = q + 1; y[0] = p[0][0];", "a partial array index", 1, 33 },
  { "const double *p = q + (int)t; y[0] = 0;", "a non-constant pointer offset", 1, 23 },
  { "const double *p = q; p = k; y[0] = 0;", "an assignment to a pointer", 1, 22 },
  { "const double *p = t; y[0] = 0;", "a scalar passed as an array", 1, 19 },
  { "const int *p = q; y[0] = 0;", "a pointer to an array of another type", 1, 16 },
  { "const double *p = q * 2; y[0] = 0;", "a pointer argument that is not an array name", 1, 21 },
  { "y[0] = q[0] & 1;", "the & operator (address or bitwise and)", 1, 13 },
  { "y[0] = 1 << 2;", "a shift", 1, 10 },
  { "struct { double a; } s; y[0] = 0;", "a struct", 1, 1 },
  { "y[0] = s.a;", "member access (.)", 1, 9 },
  { "float f = 1; y[0] = f;", "a float variable", 1, 1 },
  { "y[0] = (float)q[0];", "a cast to float", 1, 9 },
  { "y[0] = q[0]++;", "an increment inside an expression", 1, 12 },
  { "y[0] = sizeof(double);", "sizeof", 1, 8 },
  { "y[0] = \"a\"[0];", "a string literal", 1, 8 },
  { "y[0] = 'a';", "a character literal", 1, 8 },
  { "y[0] = 1UL;", "an integer literal with a suffix", 1, 8 },
  { "return;", "return in a calc body", 1, 1 },
  { "y[0] = (q[0], q[1]);", "the comma operator", 1, 13 },
  { "y[0] = printf(\"x\");", "a string literal", 1, 15 },
  { "y[0] = foo(q[0]);", "a call of an unknown function", 1, 8 },
  { "y[0] = z;", "an unknown name", 1, 8 },
  { "y[0] = sin(q[0], 1);", "a call with the wrong number of arguments", 1, 8 },
  { "int n = (int)q[0];\nfor (int i = 0; i < n; i++) y[0] = 1;", "a for loop with a non-constant bound", 2, 17 },
  { "int i = (int)q[0]; y[i] = 1;", "a non-constant array index", 1, 22 },
  { "int i = 0; if (q[0] > 0) i = 1; y[i] = 1;", "a non-constant array index", 1, 35 },
  { "y[3] = 1;", "an index out of bounds", 1, 3 },
  { "double a; y[0] = a;", "a read of an uninitialized variable", 1, 18 },
  { "double a; if (t > 0) a = 1; y[0] = a;", "a read of an uninitialized variable", 1, 36 },
  { "y[0] = q;", "an array used as a value", 1, 8 },
  { "y[0] = 5 % 2.0;", "% on doubles", 1, 10 },
  { "int n = 1 / 0; y[0] = n;", "a division by zero", 1, 11 },
  { "for (int i = 0; i < 1000000; i++) y[0] = i;", "a body too large to unroll", 1, 1 },
  { "for (int i = 0; ; i++) y[0] = i;", "a for loop without a condition", 1, 1 },
  { "y[0] = 1; /* unterminated", "a lexical error", 1, 11 },
  { "#define X 1\ny[0] = X;", "a preprocessor directive", 1, 1 },
}

test("cdiff.parse.names_what_is_outside_the_subset", function()
  for _, c in ipairs(REJECTED) do
    local r, p = analyze(c[1])
    truthy(not r, "accepted: " .. c[1])
    eq({ p.construct, p.line, p.col, p.source }, { c[2], c[3], c[4], "body" }, c[1] .. " (" .. p.message .. ")")
    truthy(type(p.message) == "string" and #p.message > 0)
  end
end)

test("cdiff.parse.deep_nesting_is_a_problem_not_a_crash", function()
  local _, p = analyze("y[0] = " .. string.rep("(", 5000) .. "1" .. string.rep(")", 5000) .. ";")
  eq(p.construct, "code nested too deeply")
  _, p = analyze(string.rep("{", 5000) .. string.rep("}", 5000))
  eq(p.construct, "code nested too deeply")
  _, p = analyze("double a[1] = " .. string.rep("{", 5000) .. "1" .. string.rep("}", 5000) .. ";")
  eq(p.construct, "code nested too deeply")
  _, p = analyze("y[0] = " .. string.rep("- ", 100000) .. "1;")
  eq(p.construct, "code nested too deeply")
  _, p = analyze("y[0] = " .. string.rep("(double)", 100000) .. "1;")
  eq(p.construct, "code nested too deeply")
  local r = analyze("y[0] = " .. string.rep("1 + ", 900) .. "q[0]; y[1] = 0; y[2] = 0;")
  truthy(r, "a long flat sum")
  _, p = analyze("y[0] = " .. string.rep("1 + ", 100000) .. "q[0];")
  eq(p.construct, "an expression too deep")
end)

test("cdiff.parse.problem_messages_say_why", function()
  local _, p = analyze("int n = (int)q[0];\nfor (int i = 0; i < n; i++) y[0] = 1;")
  truthy(p.message:find("not a compile-time constant", 1, true), p.message)
  _, p = analyze("y[0] = foo(q[0]);")
  truthy(p.message:find("'foo'", 1, true), p.message)
  _, p = analyze("y[3] = 1;")
  eq(p.message, "index 3 is out of bounds of 'y' (size 3)")
end)

local PRE = [[
#include <math.h>
#define GAIN 2.5
#define SQUARE(x) ((x) * (x))
static const double OFFSET = 0.25;
typedef struct { double a; } pair_t;
static double sq(double x) { return x * x; }
static double cube(double x) { return sq(x) * x; }
static void fill(double *out, const double *in, int n) {
  for (int i = 0; i < n; i++) out[i] = GAIN * in[i] + OFFSET;
}
static double clip(double x, double lo, double hi) {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}
static double fact(double x) { return x <= 1 ? 1 : x * fact(x - 1); }
static double ping(double x);
static double pong(double x) { return x > 0 ? ping(x - 1) : 0; }
static double ping(double x) { return pong(x); }
static double loopy(double x) { double s = 0; while (x > 0) { x -= 1; s += 1; } return s; }
static int count(void) { return 3; }
]]

test("cdiff.parse.preamble_helpers", function()
  local pre = cdiff.parse_preamble(PRE, S.lex)
  local names = {}
  for _, n in ipairs(pre.order) do if pre.helpers[n] then names[#names + 1] = n end end
  eq(names, { "sq", "cube", "fill", "clip", "count" })
  eq(pre.broken.fact.construct, "recursion")
  eq(pre.broken.fact.message, "recursion: fact -> fact")
  eq({ pre.broken.fact.line, pre.broken.fact.col }, { 16, 56 })
  eq(pre.broken.ping.construct, "recursion")
  eq(pre.broken.pong.construct, "recursion")
  truthy(pre.broken.pong.message:find("pong -> ping -> pong", 1, true) or
    pre.broken.pong.message:find("ping -> pong -> ping", 1, true), pre.broken.pong.message)
  eq(pre.broken.loopy.construct, "a while loop")
  eq({ pre.broken.loopy.line, pre.broken.loopy.col }, { 20, 47 })
  eq(pre.broken.SQUARE.construct, "a function-like macro")
  truthy(pre.consts.GAIN and pre.consts.OFFSET)
end)

-- a directive means what it means to the compiler: a comment is one
-- space, so F below is an object-like macro and K a constant
test("cdiff.parse.preamble_defines_read_as_the_compiler_does", function()
  local pre = cdiff.parse_preamble("#/**/define K /* c */ 2.5\n#define/**/F/**/(x) x\n# \\\ndefine G(x) x\n", S.lex)
  truthy(pre.consts.K, "K is a constant")
  eq(pre.broken.F.construct, "a macro")
  eq(pre.broken.G.construct, "a function-like macro")
end)

test("cdiff.parse.body_using_helpers", function()
  local r, p = analyze("fill(y, q, 3); y[0] += cube(q[0]) + clip(q[1], -1, 1) * count();", PRE)
  truthy(r, p and p.message)
  local _, p2 = analyze("y[0] = fact(q[0]); y[1] = 0; y[2] = 0;", PRE)
  eq({ p2.construct, p2.source, p2.line, p2.col, p2.call_line, p2.call_col }, { "recursion", "preamble", 16, 56, 1, 8 })
  eq(p2.message, "recursion: fact -> fact")
  local _, p3 = analyze("y[0] = loopy(q[0]);", PRE)
  eq(p3.construct, "a while loop")
  local _, p4 = analyze("y[0] = SQUARE(q[0]);", PRE)
  eq(p4.construct, "a function-like macro")
end)

test("cdiff.parse.problem_inside_a_helper_points_at_the_preamble", function()
  local pre = "static double f(double x, const double *a) { return x * a[5]; }\n"
    .. "static double g(double x) { return x / 2; }\n"
  local _, p = analyze("y[0] = 1;\n y[1] = g(q[0]) + f(q[0], k);", pre)
  eq({ p.construct, p.source, p.helper, p.line, p.col, p.call_line, p.call_col },
    { "an index out of bounds", "preamble", "f", 1, 59, 2, 19 })
  -- a helper reached through another one still gives the body's call site
  pre = "static double f(const double *a) { return a[0] + a[n_]; }\n"
    .. "static double g(const double *a) { return f(a); }\n"
  _, p = analyze("y[0] = g(q);", pre)
  eq({ p.construct, p.source, p.helper, p.line, p.call_line, p.call_col },
    { "an unknown name", "preamble", "f", 1, 1, 8 })
end)

test("cdiff.parse.helper_without_return_on_some_path", function()
  local pre = "static double f(double x) { if (x > 0) return 1; }\n"
  local _, p = analyze("y[0] = f(q[0]);", pre)
  eq({ p.construct, p.source, p.line, p.col, p.call_line }, { "a helper that can end without return",
    "preamble", 1, 15, 1 })
end)

test("cdiff.parse.number_literals_as_c_reads_them", function()
  local function value(e)
    local r, p = analyze("y[0] = " .. e .. "; y[1] = 0; y[2] = 0;")
    truthy(r, p and p.message)
    local v = r.prog.vals[r.prog.final.y[0]]
    eq(v.op, "const", e)
    return tonumber(v.v)
  end
  -- (the output converts to double: the values show the int arithmetic)
  eq(value("010"), 8)
  eq(value("0x1F"), 31)
  eq(value("0x1p3"), 8)
  eq(value("1e3"), 1000)
  eq(value("7 / 2"), 3)
  eq(value("-7 / 2"), -3)
  eq(value("-7 % 3"), -1)
  eq(value("7 / 2.0"), 3.5)
  eq(value("(int)-2.7"), -2)
  eq(value("0.1f"), 0.100000001490116119384765625)
  eq(value("1 ? 2 : q[0]"), 2)
  eq(value("0 && q[0] > 1"), 0)
end)

test("cdiff.parse.prototypes_and_non_static_functions", function()
  local pre = cdiff.parse_preamble("static double f(double x);\ndouble g(double x) { return x; }\n"
    .. "static double f(double x) { return 2 * x; }\n", S.lex)
  truthy(pre.helpers.f and not pre.broken.f)
  eq(pre.broken.g.construct, "a non-static function")
  eq({ pre.broken.g.line, pre.broken.g.col }, { 2, 8 })
end)

-- Token-level mutants of accepted bodies and of a preamble: the parser
-- answers each with a result or a problem, never with a Lua error.
test("cdiff.parse.never_raises_on_mutated_code", function()
  local rnd = S.rng(31337)
  local EXTRA = { "(", ")", "{", "}", "[", "]", ";", ",", "=", "+=", "?", ":", "*", "&", "-", "!",
    "if", "else", "for", "int", "double", "const", "return", "while", "q", "y", "0", "1.5", "sin",
    "sq", "static", "void", "#define", "\n" }
  local corpus = {}
  for _, b in ipairs(ACCEPTED) do corpus[#corpus + 1] = { body = b } end
  corpus[#corpus + 1] = { body = "y[0] = sq(q[0]); fill(y, q, 3);", pre = PRE }
  local function mutate(text)
    local toks = S.lex(text) or {}
    local words = {}
    for _, t in ipairs(toks) do words[#words + 1] = t.text end
    for _ = 1, 1 + math.floor(rnd() * 3) do
      local i = 1 + math.floor(rnd() * (#words + 1))
      local r = rnd()
      if r < 0.4 then table.remove(words, math.min(i, #words))
      elseif r < 0.8 then table.insert(words, i, EXTRA[1 + math.floor(rnd() * #EXTRA)])
      elseif #words > 1 then
        local j = 1 + math.floor(rnd() * #words)
        words[math.min(i, #words)], words[j] = words[j], words[math.min(i, #words)]
      end
    end
    return table.concat(words, " ")
  end
  local n = 0
  for _ = 1, 12 do
    for _, c in ipairs(corpus) do
      local body, pre = mutate(c.body), c.pre and mutate(c.pre)
      local ok, r, p = pcall(analyze, body, pre)
      truthy(ok, "raised on: " .. body .. " | " .. tostring(pre) .. ": " .. tostring(r))
      truthy(r or (p and p.construct and p.line and p.col), "neither result nor problem: " .. body)
      n = n + 1
    end
  end
  truthy(n > 100)
end)

test("cdiff.parse.describe", function()
  local _, p = analyze("while (t > 0) { y[0] = 1; }")
  eq(cdiff.describe(p), "a while loop ('while'); this is outside the differentiable subset of C "
    .. "(see docs/jacobians.md)")
  _, p = analyze("y[0] = 1;\n y[1] = f(q[0]);", "static double f(double x) { double s = 0; while (x > 0) x -= 1; return s; }")
  eq({ p.source, p.line, p.col, p.call_line, p.call_col }, { "preamble", 1, 43, 2, 9 })
  eq(cdiff.describe(p), "a while loop ('while'), in the c_preamble's 'f' (called at 2:9 of the body); this is "
    .. "outside the differentiable subset of C (see docs/jacobians.md)")
  _, p = analyze("y[0] = g(q[0]);", "static double g(double x) { return x * k[0]; }")
  eq(cdiff.describe(p), "'k' is not a local variable, a value this calc receives or a constant of the c_preamble "
    .. "(an unknown name), in the c_preamble's 'g' (called at 1:8 of the body); this is outside the "
    .. "differentiable subset of C (see docs/jacobians.md)")
end)

test("cdiff.parse.several_preambles", function()
  -- a leaf's preambles: helpers see each other, problems say which preamble
  local pres = { "static double f(double x) { return g(x) + 1; }\n",
    "static double g(double x) { return 2 * x; }\nstatic double h(double x) { return x & 1; }\n" }
  local r, p = analyze("y[0] = f(q[0]); y[1] = 0; y[2] = 0;", pres)
  truthy(r, p and p.message)
  _, p = analyze("y[0] = h(q[0]);", pres)
  eq({ p.source, p.preamble, p.line, p.col, p.call_line }, { "preamble", 2, 2, 38, 1 })
  pres[2] = "static double g(double x) { return f(x); }\n"
  _, p = analyze("y[0] = f(q[0]);", pres)
  eq({ p.construct, p.preamble }, { "recursion", 2 })
end)

test("cdiff.parse.values_named_like_math_functions", function()
  local _, p = cdiff.analyze({ body = "y[0] = 1;", inputs = { { name = "cos", size = 1 } },
    outputs = { { name = "y", size = 1 } }, lex = S.lex })
  eq(p.construct, "a value named like a math function")
end)
