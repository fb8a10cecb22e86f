-- jacobian = "finite_difference" on a calc (check/calc.lua,
-- coder/jacobian_fd.lua): a calc outside the differentiable subset still
-- gives the model its Jacobians, its local part by central differences of
-- the calc; the descriptor lists such calcs; a calc in the subset can ask
-- for it too; values against central differences of the whole model.
local dsl = diagc.dsl
local ffi = require("ffi")

-- a lag chain whose middle calc uses a pointer (outside the subset)
local function spec(mode)
  local Lag = dsl.leaf "Lag" {
    dsl.continuous_state { z = 2, z0 = { 0.2, -0.1 } },
    dsl.parameter { "tau", default = { 0.5 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "z", "u", "tau" }, calc = [[
      zdot[0] = (sin(u[0]) - z[0]) / tau[0];
      zdot[1] = z[0] * z[1] - tanh(u[0]); ]] },
    dsl.output_port { "y", size = 1, prerequisites = { "z" }, calc = "y[0] = z[0] + 0.5 * z[1] * z[1];" },
  }
  local Odd = dsl.leaf "Odd" {
    dsl.input_port { "u", size = 1 },
    dsl.output_port { "y", size = 2, prerequisites = { "u" }, jacobian = mode, calc = [[
      const double *p = u;
      y[0] = exp(0.3 * *p);
      y[1] = *p * *p; ]] },
    dsl.output_port { "w", size = 1, prerequisites = { "u" }, calc = "w[0] = u[0] * sin(u[0]);" },
  }
  return dsl.diagram "fdchain" {
    dsl.system { "a", Lag }, dsl.system { "o", Odd }, dsl.system { "b", Lag },
    dsl.connect { "a.y", "o.u" },
    dsl.connect { "o.w", "b.u" },
    dsl.export_input { "a.u", as = "cmd" },
    dsl.export_output { "o.y", as = "mid" },
  }
end

local function fd_names(d)
  local t = {}
  for i = 0, d.n_jac_fd - 1 do t[i + 1] = ffi.string(d.jac_fd_calcs[i]) end
  return t
end

test("jacobian_fd.outside_the_subset_needs_it", function()
  local m = diagc.jit(spec(nil))
  -- o.y is not on the derivative path (b reads o.w), but it is an output
  truthy(m.desc.jac_xc ~= nil and m.desc.jac_lin == nil, "d xcdot/d xc only")
  local msg = expect_error(function() m:context():linearize() end)
  truthy(msg:find("the linearization needs the Jacobian of o.y", 1, true), msg)
end)

test("jacobian_fd.declared_gives_the_jacobians", function()
  local m = diagc.jit(spec("finite_difference"))
  local d = m.desc
  truthy(d.jac_xc ~= nil and d.jac_lin ~= nil, "both Jacobians")
  eq(fd_names(d), { "o.y" })
  local c = m:context()
  c:set_input("cmd", 0.4)
  local g = c:linearize { mode = "first_order_taylor" }
  local f = c:linearize { mode = "first_order_taylor", jacobian = "fd" }
  for _, k in ipairs({ "A", "B", "C", "D", "f0", "y0" }) do near(g[k], f[k], { rtol = 1e-6, atol = 1e-8 }) end
  -- d(mid)/d(a.z): y = exp(0.3 s), s^2 with s = a.z0 + 0.5 a.z1^2
  local z0, z1 = 0.2, -0.1
  local s = z0 + 0.5 * z1 * z1
  near(g.C[1][1], 0.3 * math.exp(0.3 * s), { rtol = 1e-8 })
  near(g.C[2][2], 2 * s * z1, { rtol = 1e-8 })
end)

test("jacobian_fd.in_the_subset_on_request", function()
  local exact = diagc.jit(spec("exact")):context()
  local fdm = diagc.jit(spec("finite_difference")):context()
  eq(fd_names(exact.model.desc), {})
  for _, c in ipairs({ exact, fdm }) do c:set_input("cmd", 0.4) end
  local e, f = exact:state_jacobian(), fdm:state_jacobian()
  near(f, e, { rtol = 1e-8, atol = 1e-10 })
end)

test("jacobian_fd.caching_off_same_bits", function()
  local m = diagc.jit(spec("finite_difference"))
  local a, b = m:context(), m:context()
  m.desc.set_caching(b.ptr, 0)
  for _, c in ipairs({ a, b }) do c:set_input("cmd", -0.3) end
  eq(a:state_jacobian(), b:state_jacobian())
end)
