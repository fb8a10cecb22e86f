-- Linearization with Drake's semantics (runtime/src/linearize.c,
-- coder/jacobian_lin.lua): a pendulum with a torque input at its bottom
-- and top equilibria against the analytic A, B, C, D; linearize away from
-- an equilibrium is an error while first_order_taylor works there (its
-- affine terms checked analytically); the generated Jacobian against
-- central differences on a nonlinear two-input two-output diagram; port
-- selection; models it refuses.
local dsl = diagc.dsl

local M_, L, G, B = 2.0, 0.5, 9.81, 0.3

-- theta'' = (u - m g l sin(theta) - b theta') / (m l^2); y = theta
local function pendulum()
  local P = dsl.leaf "TorquePendulum" {
    dsl.continuous_state { q = { "theta" }, v = { "omega" }, q0 = { 0 }, v0 = { 0 } },
    dsl.parameter { "m", default = { M_ } },
    dsl.parameter { "l", default = { L } },
    dsl.parameter { "g", default = { G } },
    dsl.parameter { "b", default = { B } },
    dsl.input_port { "tau", size = 1 },
    dsl.derivatives {
      prerequisites = { "q", "v", "m", "l", "g", "b", "tau" },
      calc = [[
        qdot[0] = v[0];
        vdot[0] = (tau[0] - m[0] * g[0] * l[0] * sin(q[0]) - b[0] * v[0]) / (m[0] * l[0] * l[0]);
      ]],
    },
    dsl.output_port { "angle", size = 1, prerequisites = { "q" }, calc = "angle[0] = q[0];" },
  }
  return dsl.diagram "pend" {
    dsl.system { "p", P },
    dsl.export_input { "p.tau", as = "torque" },
    dsl.export_output { "p.angle", as = "theta" },
  }
end

local ml2 = M_ * L * L

test("linearize.pendulum_bottom", function()
  local m = diagc.jit(pendulum())
  local c = m:context()
  c:set_input("torque", 0)
  local r = c:linearize()
  near(r.A, { { 0, 1 }, { -G / L, -B / ml2 } }, { rtol = 1e-12, atol = 1e-12 })
  near(r.B, { { 0 }, { 1 / ml2 } }, { rtol = 1e-12 })
  near(r.C, { { 1, 0 } })
  near(r.D, { { 0 } })
  eq(r.states, { "p.theta", "p.omega" })
  eq(r.inputs, { "torque" })
  eq(r.outputs, { "theta" })
  near(r.f0, { 0, 0 })
  near(r.y0, { 0 })
end)

test("linearize.pendulum_top", function()
  local c = diagc.jit(pendulum()):context()
  c:set_state("p.theta", math.pi)
  c:set_input("torque", 0)
  -- sin(pi) is 1.2e-16, well inside the 1e-6 equilibrium tolerance
  local r = c:linearize()
  near(r.A, { { 0, 1 }, { G / L, -B / ml2 } }, { rtol = 1e-12, atol = 1e-12 })
  near(r.B, { { 0 }, { 1 / ml2 } }, { rtol = 1e-12 })
  near(r.y0, { math.pi })
end)

test("linearize.not_an_equilibrium", function()
  local c = diagc.jit(pendulum()):context()
  c:set_state("p.theta", 0.3)
  c:set_input("torque", 0)
  local msg = expect_error(function() c:linearize() end)
  truthy(msg:find("not an equilibrium", 1, true) and msg:find("p.omega", 1, true), msg)
  -- a torque that holds the pendulum makes it one again
  c:set_input("torque", M_ * G * L * math.sin(0.3))
  local r = c:linearize()
  near(r.A[2][1], -G / L * math.cos(0.3), { rtol = 1e-12 })
  near(r.u0, { M_ * G * L * math.sin(0.3) })
end)

test("linearize.first_order_taylor_anywhere", function()
  local c = diagc.jit(pendulum()):context()
  local th, om, u = 0.7, -0.4, 0.25
  c:set_state("p.theta", th)
  c:set_state("p.omega", om)
  c:set_input("torque", u)
  local r = c:linearize { mode = "first_order_taylor" }
  local a21, a22, b2 = -G / L * math.cos(th), -B / ml2, 1 / ml2
  near(r.A, { { 0, 1 }, { a21, a22 } }, { rtol = 1e-12, atol = 1e-12 })
  -- f0 = xcdot0 - A x0 - B u0, row by row
  local vdot = (u - M_ * G * L * math.sin(th) - B * om) / ml2
  near(r.f0, { om - om, vdot - (a21 * th + a22 * om) - b2 * u }, { rtol = 1e-12, atol = 1e-12 })
  near(r.y0, { 0 }, { atol = 1e-15 })
  near(r.x0, { th, om })
end)

-- two inputs, two outputs, a nonlinear feedthrough chain and a gain leaf
local function mimo()
  local Plant = dsl.leaf "Plant" {
    dsl.continuous_state { z = 2, z0 = { 0.3, -0.2 } },
    dsl.parameter { "k", default = { 1.5 } },
    dsl.input_port { "u", size = 2 },
    dsl.derivatives { prerequisites = { "z", "k", "u" }, calc = [[
      zdot[0] = -k[0] * z[0] + sin(z[1]) * u[0];
      zdot[1] = z[0] * z[1] - exp(0.1 * u[1]);
    ]] },
    dsl.output_port { "y", size = 2, prerequisites = { "z", "u" }, calc = [[
      y[0] = z[0] * z[0] + u[1];
      y[1] = atan2(z[1], 1.0 + z[0] * z[0]);
    ]] },
  }
  local Gain = dsl.leaf "Gain" {
    dsl.input_port { "u", size = 2 },
    dsl.output_port { "y", size = 1, prerequisites = { "u" }, calc = "y[0] = 2.0 * u[0] - u[1] * u[1];" },
  }
  return dsl.diagram "mimo" {
    dsl.system { "p", Plant }, dsl.system { "g", Gain },
    dsl.connect { "p.y", "g.u" },
    dsl.export_input { "p.u", as = "u" },
    dsl.export_output { "g.y", as = "out" },
    dsl.export_output { "p.y", as = "y" },
  }
end

test("linearize.generated_vs_central_differences", function()
  local c = diagc.jit(mimo()):context()
  c:set_input("u", { 0.4, -0.7 })
  local opts = { mode = "first_order_taylor" }
  local g = c:linearize(opts)
  opts.jacobian = "fd"
  local f = c:linearize(opts)
  eq(g.inputs, { "u[0]", "u[1]" })
  eq(g.outputs, { "out", "y[0]", "y[1]" })
  for _, k in ipairs({ "A", "B", "C", "D" }) do near(g[k], f[k], { rtol = 1e-6, atol = 1e-8 }) end
  near(g.f0, f.f0, { rtol = 1e-6, atol = 1e-8 })
  near(g.y0, f.y0, { rtol = 1e-6, atol = 1e-8 })
end)

test("linearize.chosen_ports", function()
  local c = diagc.jit(mimo()):context()
  c:set_input("u", { 0.4, -0.7 })
  local all = c:linearize { mode = "first_order_taylor" }
  local one = c:linearize { mode = "first_order_taylor", output = "y", input = "u" }
  eq(one.outputs, { "y[0]", "y[1]" })
  near(one.C, { all.C[2], all.C[3] })
  near(one.D, { all.D[2], all.D[3] })
  local none = c:linearize { mode = "first_order_taylor", input = "none", output = "none" }
  eq(#none.B[1], 0)
  eq(#none.C, 0)
  near(none.A, all.A)
  local msg = expect_error(function() c:linearize { output = "nope" } end)
  truthy(msg:find("no output port named 'nope'", 1, true), msg)
end)

test("linearize.caching_off_same_bits", function()
  local m = diagc.jit(mimo())
  local a, b = m:context(), m:context()
  a:set_input("u", { 0.4, -0.7 })
  b:set_input("u", { 0.4, -0.7 })
  m.desc.set_caching(b.ptr, 0)
  local ra, rb = a:linearize { mode = "first_order_taylor" }, b:linearize { mode = "first_order_taylor" }
  for _, k in ipairs({ "A", "B", "C", "D", "f0", "y0" }) do eq(ra[k], rb[k]) end
end)

test("linearize.refuses_hybrid", function()
  local Mixed = dsl.leaf "Mixed" {
    dsl.continuous_state { z = 1, z0 = { 0 } },
    dsl.discrete_state { "n", size = 1, default = { 0 } },
    dsl.discrete_state { "m", size = 1, default = { 0 } },
    dsl.derivatives { prerequisites = { "z", "xd" }, calc = "zdot[0] = n[0] + m[0] - z[0];" },
    -- two periods: not one sampled loop (one period is: sampled_test.lua)
    dsl.periodic_discrete_update { "tick", period = 0.1, writes = { "n" }, prerequisites = { "n" },
      calc = "n_next[0] = n[0] + 1.0;" },
    dsl.periodic_discrete_update { "tock", period = 0.3, writes = { "m" }, prerequisites = { "m" },
      calc = "m_next[0] = m[0] + 1.0;" },
  }
  local c = diagc.jit(dsl.diagram "mixed" { dsl.system { "c", Mixed } }):context()
  local msg = expect_error(function() c:linearize() end)
  truthy(msg:find("has discrete state (c.n)", 1, true) and msg:find("purely continuous", 1, true), msg)
end)

test("linearize.no_generated_jacobian", function()
  local Odd = dsl.leaf "Odd" {
    dsl.continuous_state { z = 1, z0 = { 0 } },
    dsl.derivatives { prerequisites = { "z" }, calc = "{ double *p = zdot; *p = -z[0]; }" },
  }
  local c = diagc.jit(dsl.diagram "odd" { dsl.system { "o", Odd } }):context()
  local msg = expect_error(function() c:linearize() end)
  truthy(msg:find("linearization needs the Jacobian of o.xcdot", 1, true), msg)
  local r = c:linearize { jacobian = "fd" }
  near(r.A, { { -1 } }, { rtol = 1e-8 })
end)

-- [A B; C D] of all ports, as one dense table
local function blocks(r)
  local J = {}
  for i, row in ipairs(r.A) do
    J[i] = {}
    for j, v in ipairs(row) do J[i][j] = v end
    for j, v in ipairs(r.B[i]) do J[i][#r.A + j] = v end
  end
  for i, row in ipairs(r.C) do
    local k = #r.A + i
    J[k] = {}
    for j, v in ipairs(row) do J[k][j] = v end
    for j, v in ipairs(r.D[i]) do J[k][#r.A + j] = v end
  end
  return J
end

-- the structural nonzeros of the descriptor's jac_lin: set["row,col"]
local function pattern(d)
  local set = {}
  for col = 0, d.jac_lin_ncol - 1 do
    for k = d.jac_lin_colptr[col], d.jac_lin_colptr[col + 1] - 1 do
      set[(d.jac_lin_rowind[k] + 1) .. "," .. (col + 1)] = true
    end
  end
  return set
end

-- every purely continuous example, away from its initial point: the
-- generated d(xcdot, y) / d(xc, u) against central differences, and its
-- pattern holds every nonzero perturbation finds
for _, name in ipairs({ "pendulum", "spring_mass", "pid_plant" }) do
  test("linearize.example_" .. name, function()
    local m = diagc.jit(diagc.root .. "/examples/" .. name .. ".lua")
    local c = m:context()
    local d = m.desc
    local xc = require("ffi").cast("double *", require("ffi").cast("char *", c.ptr) + d.xc_offset)
    for i = 0, d.nxc - 1 do c:set(require("ffi").string(d.xc_names[i]), xc[i] + 0.3 + 0.1 * i) end
    local g = blocks(c:linearize { mode = "first_order_taylor" })
    local f = blocks(c:linearize { mode = "first_order_taylor", jacobian = "fd" })
    eq(#g, d.jac_lin_nrow)
    local set = pattern(d)
    for i, row in ipairs(f) do
      for j, v in ipairs(row) do
        if math.abs(v) > 1e-7 then truthy(set[i .. "," .. j], string.format("%s: J[%d][%d] = %g not in the pattern", name, i, j, v)) end
        near(g[i][j], v, { rtol = 1e-6, atol = 1e-7 })
      end
    end
  end)
end

-- discrete time: a sampled double integrator x[n+1] = A x[n] + B u[n]
local H = 0.1
local function sampled(period2)
  local DI = dsl.leaf "DoubleIntegrator" {
    dsl.discrete_state { "x", size = 2, default = { 0, 0 } },
    dsl.input_port { "u", size = 1 },
    dsl.output_port { "pos", size = 1, prerequisites = { "xd" }, calc = "pos[0] = x[0];" },
    dsl.periodic_discrete_update { "step", period = H, prerequisites = { "xd", "u" }, calc = string.format([[
      x_next[0] = x[0] + %.17g * x[1] + %.17g * u[0];
      x_next[1] = x[1] + %.17g * u[0]; ]], H, H * H / 2, H) },
  }
  -- a nonlinear sampled leaf fed by the integrator's position
  local Pend = dsl.leaf "SampledPendulum" {
    dsl.discrete_state { "th", size = 1, default = { 0 } },
    dsl.input_port { "tau", size = 1 },
    dsl.output_port { "angle", size = 1, prerequisites = { "xd" }, calc = "angle[0] = th[0];" },
    dsl.periodic_discrete_update { "step", period = period2 or H, prerequisites = { "xd", "tau" },
      calc = string.format("th_next[0] = th[0] + %.17g * (tau[0] - sin(th[0]));", H) },
  }
  return dsl.diagram "sampled" {
    dsl.system { "di", DI }, dsl.system { "p", Pend },
    dsl.connect { "di.pos", "p.tau" },
    dsl.export_input { "di.u", as = "u" },
    dsl.export_output { "p.angle", as = "angle" },
  }
end

test("linearize.discrete_sampled", function()
  local m = diagc.jit(sampled())
  local c = m:context()
  c:set_input("u", 0)
  local r = c:linearize()
  eq(r.time_period, H)
  eq(r.states, { "di.x[0]", "di.x[1]", "p.th" })
  -- x = (di.x0, di.x1, th): th[n+1] = th + h (x0 - sin th)
  near(r.A, { { 1, H, 0 }, { 0, 1, 0 }, { H, 0, 1 - H } }, { rtol = 1e-12, atol = 1e-15 })
  near(r.B, { { H * H / 2 }, { H }, { 0 } }, { rtol = 1e-12, atol = 1e-15 })
  near(r.C, { { 0, 0, 1 } })
  near(r.D, { { 0 } })
end)

test("linearize.discrete_fixed_point_and_taylor", function()
  local c = diagc.jit(sampled()):context()
  c:set_state("di.x", { 0.3, 0.2 })
  c:set_input("u", 0)
  local msg = expect_error(function() c:linearize() end)
  -- the worst element: th moves by h (x0 - sin 0) = 0.03, x0 by h x1 = 0.02
  truthy(msg:find("not an equilibrium: p.th[n+1] - p.th[n] = 0.03", 1, true), msg)
  c:set_state("p.th", 0.4)
  local g = c:linearize { mode = "first_order_taylor" }
  local f = c:linearize { mode = "first_order_taylor", jacobian = "fd" }
  for _, k in ipairs({ "A", "B", "C", "D", "f0", "y0" }) do near(g[k], f[k], { rtol = 1e-6, atol = 1e-9 }) end
  near(g.A[3][3], 1 - H * math.cos(0.4), { rtol = 1e-12 })
  -- f0 = x[n+1](x0, u0) - A x0 - B u0; th row: th + h (x0 - sin th) - (h x0 + (1 - h cos th) th)
  near(g.f0[3], 0.4 + H * (0.3 - math.sin(0.4)) - (H * 0.3 + (1 - H * math.cos(0.4)) * 0.4), { rtol = 1e-12 })
end)

test("linearize.discrete_needs_one_period", function()
  local c = diagc.jit(sampled(2 * H)):context()
  local msg = expect_error(function() c:linearize { jacobian = "fd" } end)
  truthy(msg:find("one periodic discrete update", 1, true), msg)
end)

-- an output that reads its leaf's own derivative (prerequisites xcdot): its
-- C rows go through the derivative's rows (found by the random-diagram fuzz)
test("linearize.output_reads_xcdot", function()
  local Lag = dsl.leaf "Lag" {
    dsl.continuous_state { z = 2, z0 = { 0.3, -0.2 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "z", "u" }, calc = [[
      zdot[0] = sin(z[1]) * u[0] - z[0];
      zdot[1] = z[0] * z[1]; ]] },
    dsl.output_port { "acc", size = 2, prerequisites = { "xcdot", "z" }, calc = [[
      acc[0] = zdot[0] * zdot[1];
      acc[1] = zdot[0] + z[1] * z[1]; ]] },
  }
  local c = diagc.jit(dsl.diagram "xcd" {
    dsl.system { "l", Lag }, dsl.export_input { "l.u", as = "u" }, dsl.export_output { "l.acc", as = "acc" },
  }):context()
  c:set_input("u", 0.7)
  local g = c:linearize { mode = "first_order_taylor" }
  -- acc[1] = zdot0 + z1^2: d/dz0 = -1, d/dz1 = u cos z1 + 2 z1, d/du = sin z1
  near(g.C[2], { -1, 0.7 * math.cos(-0.2) - 0.4 }, { rtol = 1e-12 })
  near(g.D[2], { math.sin(-0.2) }, { rtol = 1e-12 })
  local f = c:linearize { mode = "first_order_taylor", jacobian = "fd" }
  for _, k in ipairs({ "A", "B", "C", "D" }) do near(g[k], f[k], { rtol = 1e-6, atol = 1e-9 }) end
end)

-- the Jacobians are cached values (coder/jacobian_cache.lua): a repeated
-- call in an unchanged context is a hit (it works with the cache frozen),
-- a change that stales a row's value stales the Jacobian, and one that
-- does not leaves it valid
test("linearize.jacobians_cached", function()
  local ffi = require("ffi")
  local Lag = dsl.leaf "Lag" {
    dsl.continuous_state { z = 1, z0 = { 0.4 } },
    dsl.parameter { "k", default = { 2.0 } },
    dsl.parameter { "g", default = { 3.0 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "z", "k", "u" }, calc = "zdot[0] = -k[0] * sin(z[0]) + u[0];" },
    dsl.output_port { "y", size = 1, prerequisites = { "z", "g" }, calc = "y[0] = g[0] * z[0] * z[0];" },
  }
  local m = diagc.jit(dsl.diagram "cached" {
    dsl.system { "l", Lag }, dsl.export_input { "l.u", as = "u" }, dsl.export_output { "l.y", as = "y" },
  })
  local d, c = m.desc, m:context()
  c:set_input("u", 0.1)
  local xc, lin = ffi.new("double[1]"), ffi.new("double[4]")
  eq(d.jac_xc(c.ptr, xc), 0)
  eq(d.jac_lin(c.ptr, lin), 0)
  d.freeze_cache(c.ptr, 1)
  eq({ d.jac_xc(c.ptr, xc), d.jac_lin(c.ptr, lin) }, { 0, 0 })   -- hits
  near(xc[0], -2.0 * math.cos(0.4), { rtol = 1e-12 })
  c:set("l.g", 5.0)                  -- only the output y reads g
  eq(d.jac_xc(c.ptr, xc), 0)         -- still valid
  eq(d.jac_lin(c.ptr, lin), ffi.C.DIAGC_E_FROZEN)
  c:set("l.k", 1.0)                  -- the derivative reads k
  eq(d.jac_xc(c.ptr, xc), ffi.C.DIAGC_E_FROZEN)
  d.freeze_cache(c.ptr, 0)
  eq(d.jac_xc(c.ptr, xc), 0)
  near(xc[0], -1.0 * math.cos(0.4), { rtol = 1e-12 })
  local r = c:linearize { mode = "first_order_taylor" }
  near(r.C[1][1], 2 * 5.0 * 0.4, { rtol = 1e-12 })
end)
