-- Run with: bin/diagc test examples/control/quadrotor_lqr_test.lua
-- The planar quadrotor of quadrotor_lqr.lua: trimmed at hover (thrust M G
-- / 2 per rotor, level), its closed loop linearized against the hand
-- hover model A - B K with the gain the spec designed, stable, and a
-- simulation from a displaced start returning to the hover point.
local m = diagc.jit(diagc.root .. "/examples/control/quadrotor_lqr.lua")
local M, I, A, G = 0.5, 2e-3, 0.15, 9.81

local function hover()
  local c = m:context()
  c:set_input("thrust_ff", { 1, 1 })
  c:set("quad.theta", 0.05)
  local r = c:trim { free = { "thrust_ff" }, target = { ["quad.x"] = 0, ["quad.z"] = 1 } }
  return c, r
end

test("quadrotor_lqr.trim_hover", function()
  local _, r = hover()
  truthy(r.residual <= 1e-10, "residual " .. r.residual)
  near(r.u, { M * G / 2, M * G / 2 }, { rtol = 1e-12 })
  near(r.x, { 0, 1, 0, 0, 0, 0 }, { atol = 1e-12 })
end)

test("quadrotor_lqr.closed_loop", function()
  local c = hover()
  local r = c:linearize { input = "none", output = "none", eig = true }
  local k = c:get("lqr.k") -- the gain the spec designed, row by row (2 x 6)
  local Ah = {
    { 0, 0, 0, 1, 0, 0 }, { 0, 0, 0, 0, 1, 0 }, { 0, 0, 0, 0, 0, 1 },
    { 0, 0, -G, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 },
  }
  local Bh = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 1 / M, 1 / M }, { A / I, -A / I } }
  for i = 1, 6 do
    local row = {}
    for j = 1, 6 do row[j] = Ah[i][j] - (Bh[i][1] * k[j] + Bh[i][2] * k[6 + j]) end
    near(r.A[i], row, { rtol = 1e-12, atol = 1e-12 })
  end
  for _, e in ipairs(r.eig) do truthy(e.re < 0, "eigenvalue " .. e.re) end
end)

test("quadrotor_lqr.returns_to_hover", function()
  local sim = m:simulator { accuracy = 1e-8 }
  local c = sim.context
  c:set_input("thrust_ff", { M * G / 2, M * G / 2 })
  c:set("quad.x", 0.3)
  c:set("quad.z", 0.8)
  c:set("quad.theta", 0.1)
  sim:initialize()
  sim:advance_to(15)
  near({ c:get("quad.x"), c:get("quad.z"), c:get("quad.theta") }, { 0, 1, 0 }, { atol = 1e-6 })
end)
