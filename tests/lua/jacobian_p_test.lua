-- parameter_jacobian { ... } (coder/jacobian_p.lua): d(xcdot, y)/d p and,
-- for a purely discrete model, d(x[n+1], y)/d p, against the analytic
-- derivatives and central differences over the parameters; the state and
-- inputs held fixed; two instances of one leaf type, only one asked for.
local dsl = diagc.dsl

local G = 9.81

local function pendulum()
  local P = dsl.leaf "TorquePendulum" {
    dsl.continuous_state { q = { "theta" }, v = { "omega" }, q0 = { 0.3 }, v0 = { 0.1 } },
    dsl.parameter { "m", default = { 2.0 } },
    dsl.parameter { "l", default = { 0.5 } },
    dsl.parameter { "b", default = { 0.3 } },
    dsl.input_port { "tau", size = 1 },
    dsl.derivatives { prerequisites = { "q", "v", "m", "l", "b", "tau" }, calc = [[
      qdot[0] = v[0];
      vdot[0] = (tau[0] - m[0] * 9.81 * l[0] * sin(q[0]) - b[0] * v[0]) / (m[0] * l[0] * l[0]); ]] },
    dsl.output_port { "angle", size = 1, prerequisites = { "q", "l" }, calc = "angle[0] = l[0] * q[0];" },
  }
  return dsl.diagram "jp" {
    dsl.system { "p", P }, dsl.system { "r", P },
    dsl.connect { "p.angle", "r.tau" },
    dsl.export_input { "p.tau", as = "torque" },
    dsl.export_output { "r.angle", as = "theta" },
    dsl.parameter_jacobian { "p.b", "p.l" },
  }
end

-- central differences of (xcdot, outputs) over parameter `name`
local function fd_column(c, name, rows_of)
  local v0 = c:get(name)
  local h = 1e-6 * math.max(1, math.abs(v0))
  c:set(name, v0 + h)
  local up = rows_of(c)
  c:set(name, v0 - h)
  local dn = rows_of(c)
  c:set(name, v0)
  local col = {}
  for i = 1, #up do col[i] = (up[i] - dn[i]) / (2 * h) end
  return col
end

local function continuous_rows(c)
  local r = {}
  for _, x in ipairs(c:derivatives()) do r[#r + 1] = x end
  r[#r + 1] = c:eval("theta")
  return r
end

test("jacobian_p.pendulum_analytic_and_fd", function()
  local c = diagc.jit(pendulum()):context()
  c:set_input("torque", 0.2)
  local P = c:parameter_jacobian()
  eq(P.cols, { "p.b", "p.l" })
  eq(P.rows, { "p.theta", "r.theta", "p.omega", "r.omega", "theta" })
  local m, l, b, th, om, tau = 2.0, 0.5, 0.3, 0.3, 0.1, 0.2
  local f = tau - m * G * l * math.sin(th) - b * om
  near(P.J[3][1], -om / (m * l * l), { rtol = 1e-12 })
  near(P.J[3][2], -m * G * math.sin(th) / (m * l * l) - 2 * f / (m * l * l * l), { rtol = 1e-12 })
  -- r is driven by p.angle = l q: only its omega row depends on p.l
  near(P.J[4][2], th / (m * l * l), { rtol = 1e-12 })
  eq(P.J[4][1], 0)
  eq(P.J[5], { 0, 0 })
  for j, name in ipairs({ "p.b", "p.l" }) do
    local col = fd_column(c, name, continuous_rows)
    for i = 1, #col do near(P.J[i][j], col[i], { rtol = 1e-6, atol = 1e-9 }) end
  end
  -- the model's own differences (testing/param_fd.lua): same rows, columns, values
  local D = c:parameter_jacobian({ jacobian = "fd" })
  eq(D.rows, P.rows)
  eq(D.cols, P.cols)
  near(D.J, P.J, { rtol = 1e-6, atol = 1e-9 })
end)

test("jacobian_p.discrete", function()
  local Gain = dsl.leaf "SampledLag" {
    dsl.discrete_state { "x", size = 1, default = { 0.5 } },
    dsl.parameter { "a", default = { 0.9 } },
    dsl.parameter { "k", default = { 2.0 } },
    dsl.input_port { "u", size = 1 },
    dsl.output_port { "y", size = 1, prerequisites = { "xd", "k" }, calc = "y[0] = k[0] * x[0] * x[0];" },
    dsl.periodic_discrete_update { "step", period = 0.1, prerequisites = { "xd", "a", "u" },
      calc = "x_next[0] = a[0] * x[0] + (1.0 - a[0]) * tanh(u[0]);" },
  }
  local c = diagc.jit(dsl.diagram "lag" {
    dsl.system { "g", Gain },
    dsl.export_input { "g.u", as = "u" },
    dsl.export_output { "g.y", as = "y" },
    dsl.parameter_jacobian { "g.a", "g.k" },
  }):context()
  c:set_input("u", 0.4)
  local P = c:parameter_jacobian()
  eq(P.rows, { "g.x", "y" })
  near(P.J, { { 0.5 - math.tanh(0.4), 0 }, { 0, 0.25 } }, { rtol = 1e-12 })
  -- and by differences of the update (testing/param_fd.lua)
  local D = c:parameter_jacobian({ jacobian = "fd" })
  eq(D.rows, P.rows)
  near(D.J, { { 0.5 - math.tanh(0.4), 0 }, { 0, 0.25 } }, { rtol = 1e-8, atol = 1e-12 })
end)

test("jacobian_p.none_asked", function()
  local c = diagc.jit(diagc.root .. "/examples/pendulum.lua"):context()
  local msg = expect_error(function() c:parameter_jacobian() end)
  truthy(msg:find("asks for no parameter Jacobian", 1, true), msg)
end)
