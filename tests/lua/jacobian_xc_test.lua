-- The generated d xcdot / d xc (coder/jacobian.lua) of every example with
-- continuous state, and of specs with feedthrough chains, branches and
-- preamble helpers, against central finite differences of the model's
-- own derivatives (relative 1e-6); the pattern holds every nonzero that
-- perturbation finds; caching on and off give the same bits.
local ffi = require("ffi")
local dsl = diagc.dsl

-- the dense Jacobian from the descriptor's jac_xc, or nil
local function generated(m, ctx)
  local d = m.desc
  if d.jac_xc == nil then return nil end
  local n, nnz = d.nxc, d.jac_xc_nnz
  local nz = ffi.new("double[?]", math.max(nnz, 1))
  local rc = d.jac_xc(ctx.ptr, nz)
  if rc ~= 0 then error("jac_xc failed: " .. rc) end
  local J = {}
  for r = 0, n - 1 do J[r] = {} end
  for col = 0, n - 1 do
    for k = d.jac_xc_colptr[col], d.jac_xc_colptr[col + 1] - 1 do
      J[d.jac_xc_rowind[k]][col] = nz[k]
    end
  end
  return J
end

local function xcdot(m, ctx, x)
  local d = m.desc
  d.set_xc(ctx.ptr, x)
  local out = ffi.new("const double *[1]")
  if d.calc_derivatives(ctx.ptr, out) ~= 0 then error("calc_derivatives failed") end
  local f = {}
  for i = 0, d.nxc - 1 do f[i] = out[0][i] end
  return f
end

-- central differences at the context's state
local function finite(m, ctx)
  local d, n = m.desc, m.desc.nxc
  local x0 = ffi.new("double[?]", n)
  local xc = ffi.cast("double *", ffi.cast("char *", ctx.ptr) + d.xc_offset)
  for i = 0, n - 1 do x0[i] = xc[i] end
  local J = {}
  for r = 0, n - 1 do J[r] = {} end
  local x = ffi.new("double[?]", n)
  for col = 0, n - 1 do
    for i = 0, n - 1 do x[i] = x0[i] end
    local h = 1e-6 * math.max(1, math.abs(x0[col]))
    x[col] = x0[col] + h
    local fp = xcdot(m, ctx, x)
    x[col] = x0[col] - h
    local fm = xcdot(m, ctx, x)
    for r = 0, n - 1 do J[r][col] = (fp[r] - fm[r]) / (2 * h) end
  end
  d.set_xc(ctx.ptr, x0)
  return J
end

local function compare(m, ctx, what)
  local G = generated(m, ctx)
  truthy(G, what .. ": no generated Jacobian")
  local Fd = finite(m, ctx)
  local n = m.desc.nxc
  for r = 0, n - 1 do
    for col = 0, n - 1 do
      local g, f = G[r][col], Fd[r][col]
      if f ~= 0 and math.abs(f) > 1e-7 then
        truthy(g, string.format("%s: d xcdot[%d] / d xc[%d] = %g by perturbation, not in the pattern", what, r, col, f))
      end
      g = g or 0
      truthy(math.abs(g - f) <= 1e-7 + 1e-6 * math.max(math.abs(g), math.abs(f)),
        string.format("%s: d xcdot[%d] / d xc[%d]: generated %.17g, perturbation %.17g", what, r, col, g, f))
    end
  end
end

local function perturb(m, ctx)
  local d = m.desc
  local xc = ffi.cast("double *", ffi.cast("char *", ctx.ptr) + d.xc_offset)
  local x = ffi.new("double[?]", math.max(d.nxc, 1))
  for i = 0, d.nxc - 1 do x[i] = xc[i] + 0.3 + 0.1 * i end
  d.set_xc(ctx.ptr, x)
end

for _, name in ipairs({ "pendulum", "spring_mass", "pid_plant", "bouncing_ball", "hybrid_controller" }) do
  test("jacobian_xc.example_" .. name, function()
    local m = diagc.jit(diagc.root .. "/examples/" .. name .. ".lua")
    local ctx = m:context()
    perturb(m, ctx)
    compare(m, ctx, name)
  end)
end

local function chain(n)
  local Lag = dsl.leaf "Lag" {
    dsl.c_preamble [[ static double sat(double x) { return x > 1.0 ? 1.0 : (x < -1.0 ? -1.0 : x); } ]],
    dsl.continuous_state { z = 2 },
    dsl.parameter { "tau", default = { 0.5 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "z", "u", "tau" }, calc = [[
      int i;
      for (i = 0; i < 2; ++i) zdot[i] = (sat(u[0]) * sin(z[1 - i]) - z[i]) / tau[0];
      if (z[0] > 0.0) zdot[1] += z[0] * z[0]; ]] },
    dsl.output_port { "y", size = 1, prerequisites = { "z" }, calc = "y[0] = exp(0.1 * z[0]) + z[1];" },
  }
  local Gain = dsl.leaf "Gain" {
    dsl.input_port { "u", size = 1 },
    dsl.output_port { "y", size = 1, prerequisites = { "u" }, calc = "y[0] = 0.5 * u[0] * u[0];" },
  }
  local items = {}
  for i = 1, n do
    items[#items + 1] = dsl.system { "s" .. i, Lag }
    items[#items + 1] = dsl.system { "g" .. i, Gain }
  end
  for i = 1, n do
    items[#items + 1] = dsl.connect { "s" .. i .. ".y", "g" .. i .. ".u" }
    if i < n then items[#items + 1] = dsl.connect { "g" .. i .. ".y", "s" .. (i + 1) .. ".u" } end
  end
  items[#items + 1] = dsl.connect { "g" .. n .. ".y", "s1.u" }
  return dsl.diagram("ring" .. n)(items)
end

test("jacobian_xc.feedthrough_ring", function()
  local m = diagc.jit(chain(6))
  local ctx = m:context()
  perturb(m, ctx)
  compare(m, ctx, "ring6")
end)

test("jacobian_xc.caching_off_same_bits", function()
  local m = diagc.jit(chain(4))
  local a, b = m:context(), m:context()
  perturb(m, a)
  perturb(m, b)
  m.desc.set_caching(b.ptr, 0)
  local A, B = generated(m, a), generated(m, b)
  for r = 0, m.desc.nxc - 1 do
    for col = 0, m.desc.nxc - 1 do eq(A[r][col], B[r][col]) end
  end
end)

test("jacobian_xc.absent_outside_the_subset", function()
  local L = dsl.leaf "L" {
    dsl.continuous_state { z = 1 },
    dsl.derivatives { prerequisites = { "z" }, calc = "double *p = zdot; *p = -z[0];" },
  }
  local m = diagc.jit(dsl.diagram "nojac" { dsl.system { "l", L } })
  truthy(m.desc.jac_xc == nil, "no jac_xc")
  eq(m.desc.jac_xc_nnz, 0)
  truthy(m.gen.header:find("#define NOJAC_HAS_JAC_XC 0", 1, true), "header says so")
end)

-- diagc test's view (docs/testing.md): the pendulum's A at the bottom,
-- [[0, 1], [-g/l, -b]] at theta = 0 (examples/pendulum.lua writes
-- thetadot = omega, omegadot = -g/l sin(theta) - b omega)
test("jacobian_xc.state_jacobian_in_diagc_test", function()
  local m = diagc.jit(diagc.root .. "/examples/pendulum.lua")
  local c = m:context()
  c:set_state("pend.theta", 0)
  c:set_state("pend.omega", 0)
  local J = c:state_jacobian()
  eq(#J, 2)
  eq(J[1][1], 0)
  eq(J[1][2], 1)
  local g, l = c:get("pend.gravity"), c:get("pend.length")
  near(J[2][1], -g / l)
  near(J[2][2], -c:get("pend.damping"))
end)

test("jacobian_xc.needed_but_outside_the_subset", function()
  local L = dsl.leaf "L" {
    dsl.continuous_state { z = 1 },
    dsl.derivatives { prerequisites = { "z" }, calc = "double *p = zdot; *p = -z[0];" },
  }
  local m = diagc.jit(dsl.diagram "nojac2" { dsl.system { "l", L } })
  expect_error(function() m:context():state_jacobian() end, "d xcdot / d xc needs the Jacobian of l.xcdot")
end)
