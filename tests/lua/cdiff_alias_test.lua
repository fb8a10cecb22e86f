-- cdiff: pointers that alias an array at a constant offset (`const double
-- *r = a + 3;`, `helper(a + 12, ...)`), as the generated world dynamics
-- write them: the Jacobian code, compiled with TinyCC, against central
-- finite differences of the body; the elements reached and written.
local S = dofile("tests/lua/cdiff_support.lua")
local cdiff = require("diagc.cdiff")

local PRE = [[
static inline void rot2(const double *a, double *out)
{
  const double *c = a, *s = a + 1;
  out[0] = cos(c[0]) * s[0];
  out[1] = sin(c[0]) * s[0];
}
static inline void axpy3(double k, const double *x, double *y)
{
  int i;
  for (i = 0; i < 3; ++i) y[i] += k * x[i];
}
static inline void shift(const double *x, double *y)
{
  axpy3(2.0, x + 1, y + 1);
  rot2(x, y);
}
static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
]]

local function spec(body)
  return {
    body = body, preamble = PRE,
    inputs = { { name = "t" }, { name = "q", size = 6 } },
    outputs = { { name = "y", size = 6 } },
  }
end

local function check(sp, n)
  local r = S.analyze(sp)
  local c = S.compile(sp, r)
  local rnd = S.rng(11)
  local checked = 0
  for _ = 1, n do
    local k = S.check_fd(sp, c, S.point(c.nin, rnd, -1.5, 1.5))
    checked = checked + k
  end
  truthy(checked > 0)
  return r
end

test("cdiff.alias.helper_arguments_with_offsets", function()
  local r = check(spec([[
    double w[8] = { 0 };
    int k;
    for (k = 0; k < 6; ++k) y[k] = 0.0;
    shift(q, w);
    shift(q + 2, w + 4);
    rot2(q + 4, y + 4);
    axpy3(t, w + 1, y);
    y[3] = dot3(q + 3, w + 5) + w[0];
  ]]), 10)
  eq(#r.findings, 0)
end)

test("cdiff.alias.pointer_declarations", function()
  check(spec([[
    const double *a = q + 1, *b = a + 2;
    double *z = y + 3;
    double m[6] = { 1, 2, 3, 4, 5, 6 };
    double *row1 = m + 3;
    row1[2] = q[0] * t;
    z[0] = b[0] * a[0];
    z[1] = b[-2] + m[5] + sin(b[2]);
    z[2] = a[4];
    y[0] = dot3(a, b);
    y[1] = dot3(row1, a + 1);
    y[2] = t;
  ]]), 10)
end)

-- the elements a pointer reaches are those of the underlying array
test("cdiff.alias.pattern_follows_the_offsets", function()
  local r = S.analyze({ body = "const double *a = q + 2; y[0] = a[1]; shift(a, y + 2); y[1] = 0; y[5] = 0;",
    preamble = PRE, inputs = { { name = "q", size = 6 } }, outputs = { { name = "y", size = 6 } } })
  local deps = {}
  for _, e in ipairs(r.pattern) do
    deps[e.out_index] = deps[e.out_index] or {}
    deps[e.out_index][#deps[e.out_index] + 1] = e.in_index
  end
  -- y[0] = q[3]; y[2..3] = rot2(q + 2) (q[2], q[3]); y[4] += 2 q[4] (y[2], y[3] are overwritten by rot2)
  eq(deps, { [0] = { 3 }, [2] = { 2, 3 }, [3] = { 2, 3 }, [4] = { 4 } })
end)

test("cdiff.alias.a_write_through_a_const_pointer_is_a_finding", function()
  local r = S.analyze({ body = "double w[2] = { 0 }; const double *a = w; a[0] = 1; y[0] = w[0] + q[0];",
    inputs = { { name = "q", size = 1 } }, outputs = { { name = "y", size = 1 } } })
  truthy(#r.findings > 0)
  local _, p = cdiff.analyze({ body = "y[0] = 0; shift(q + 5, y);", preamble = PRE,
    inputs = { { name = "q", size = 6 } }, outputs = { { name = "y", size = 6 } }, lex = S.lex })
  eq(p.construct, "an index out of bounds")
  eq(p.source, "preamble")
end)

-- the C the world emitters generate (pointer aliases in the spatial
-- helpers, `X + 12` and `q + 2` arguments) is in the subset: the bias of
-- the generated dynamics differentiated in q and v, against central differences
test("cdiff.alias.generated_world_dynamics", function()
  local W = dofile("tests/lua/world_worlds.lua")
  local dyn = require("diagc.world.dynamics")
  for _, case in ipairs({ { W.cartpole(1, 0.1, 0.5), "cp" }, { W.mixed_chain(), "mc" } }) do
    local world, P = case[1], case[2]
    world.settings = { dynamics = "unrolled" } -- the unrolled form (the looped one is not cdiff's input)
    local f = dyn.facts(world)
    local sp = {
      body = string.format("double X[%d]; %s_kinematics(q, X); %s_bias(q, v, X, mass, c);", 12 * f.nb, P, P),
      preamble = (dyn.emit(world, P, { functions = { "kinematics", "bias" } }):gsub("#include[^\n]*\n", "")),
      -- (the inertial numbers, the world's parameters mass, com and
      -- inertia, 10 per moving body: differentiated too)
      inputs = { { name = "q", size = f.nq }, { name = "v", size = f.nv },
        { name = "mass", size = 10 * require("diagc.world.tree").nmass(f) } },
      outputs = { { name = "c", size = f.nv } },
    }
    local r = S.analyze(sp)
    eq(#r.findings, 0)
    local c = S.compile(sp, r)
    local rnd = S.rng(5)
    for _ = 1, 3 do
      local k, skipped = S.check_fd(sp, c, S.point(c.nin, rnd, -1, 1))
      truthy(k > 0 and skipped == 0, P .. ": " .. k .. " checked, " .. skipped .. " skipped")
    end
  end
end)
