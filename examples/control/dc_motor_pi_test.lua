-- Run with: bin/diagc test examples/control/dc_motor_pi_test.lua
-- The DC motor's 1 kHz PI speed loop of dc_motor_pi.lua: trimmed at a
-- speed setpoint against the analytic operating point, linearized in
-- closed loop (discrete time at 1 kHz: stable, unit DC gain from the
-- setpoint to the speed as the integrator demands), a step response that
-- respects the current limit and settles, a small step's response (rise
-- time, overshoot, final value) as the closed-loop linearization predicts
-- it, its plot (with gnuplot), and a speed the limits cannot reach is an
-- error.
local m = diagc.jit(diagc.root .. "/examples/control/dc_motor_pi.lua")
local R, KE, KT, B, KC, IMAX, VMAX = 1.0, 0.05, 0.05, 1e-5, 10.0, 2.0, 24.0

local function trimmed(w)
  local c = m:context()
  c:set_input("speed_ref", w)
  return c, c:trim()
end

test("dc_motor_pi.trim", function()
  local W = 100
  local _, r = trimmed(W)
  truthy(r.residual <= 1e-10, "residual " .. r.residual)
  -- i = b w / kt; the PI's output (its integral) i_ref = i + (R i + ke w) / kc
  local i = B * W / KT
  near(r.x, { i, W, i + (R * i + KE * W) / KC, 0 }, { rtol = 1e-10, atol = 1e-10 })
end)

-- (I - A)^-1 B for a column b
local function dc_gain(A, b)
  local n = #A
  local M = {}
  for i = 1, n do
    M[i] = {}
    for j = 1, n do M[i][j] = (i == j and 1 or 0) - A[i][j] end
    M[i][n + 1] = b[i]
  end
  for k = 1, n do -- Gauss-Jordan with partial pivoting
    local p = k
    for i = k + 1, n do if math.abs(M[i][k]) > math.abs(M[p][k]) then p = i end end
    M[k], M[p] = M[p], M[k]
    for i = 1, n do
      if i ~= k then
        local f = M[i][k] / M[k][k]
        for j = k, n + 1 do M[i][j] = M[i][j] - f * M[k][j] end
      end
    end
  end
  local x = {}
  for i = 1, n do x[i] = M[i][n + 1] / M[i][i] end
  return x
end

test("dc_motor_pi.closed_loop", function()
  local c = trimmed(100)
  local r = c:linearize { output = "speed", eig = true }
  eq(r.time_period, 1e-3)
  eq(r.states, { "motor.z[0]", "motor.z[1]", "pi.I", "pi.xf" })
  for _, e in ipairs(r.eig) do truthy(e.abs < 1, "|z| = " .. e.abs) end
  -- the integrator: a setpoint change moves the speed by as much
  local b = {}
  for i = 1, 4 do b[i] = r.B[i][1] end
  local x = dc_gain(r.A, b)
  near(x[2], 1, { rtol = 1e-9 })
  local fd = c:linearize { output = "speed", jacobian = "fd" }
  for i = 1, 4 do near(fd.A[i], r.A[i], { rtol = 1e-6, atol = 1e-6 }) end
end)

test("dc_motor_pi.step_response", function()
  local sim = m:simulator { accuracy = 1e-8 }
  sim.context:set_input("speed_ref", 100)
  sim:initialize()
  sim:advance_to(2)
  local w, i = sim:log("speed.y"), sim:log("current.y")
  near(w.v[#w.v], 100, { rtol = 1e-6 })
  -- the current stays within the limit (the PI's output is limited to
  -- IMAX; the current loop follows it within a few percent)
  local peak = 0
  for _, v in ipairs(i.v) do peak = math.max(peak, math.abs(v)) end
  truthy(peak <= IMAX * 1.05 and peak > 0.5 * IMAX, "peak current " .. peak)
end)

test("dc_motor_pi.beyond_the_limits", function()
  -- the highest speed: i_ref = IMAX with i = b w / kt gives
  -- w = IMAX / ((b / kt) (1 + R / kc) + ke / kc), about 383 rad/s
  local wmax = IMAX / ((B / KT) * (1 + R / KC) + KE / KC)
  truthy(wmax < 500 and wmax * KE < VMAX)
  local c = m:context()
  c:set_input("speed_ref", 500)
  expect_error(function() c:trim { target = { speed = 500 } } end, "trim: no trim point")
  -- without the target the loop settles saturated at wmax
  local r = c:trim()
  near(r.y[1], wmax, { rtol = 1e-9 })
end)

-- A step of 10 rad/s from rest stays inside the limits (the PI asks for
-- about 1 A at first), so the loop is linear and its sampled linearization
-- (exact in discrete time: the motor discretized by the matrix
-- exponential under the held command) predicts the speed at every
-- controller instant: y[k] = C x[k] + D r, x[k+1] = A x[k] + B r.
local STEP = 10

-- 10-90 % rise time (linear interpolation between samples), overshoot
-- above the final value in percent, of a response sampled every h
local function step_figures(y, h, final)
  local function crossing(level)
    for k = 2, #y do
      if y[k] >= level then return h * (k - 2 + (level - y[k - 1]) / (y[k] - y[k - 1])) end
    end
  end
  local peak = 0
  for _, v in ipairs(y) do peak = math.max(peak, v) end
  return crossing(0.9 * final) - crossing(0.1 * final), 100 * (peak - final) / final
end

test("dc_motor_pi.step_response_as_linearized", function()
  local lin = m:context():linearize { output = "speed" } -- at rest: everything zero
  local h, n = lin.time_period, #lin.A
  local x, predicted = {}, { 0 }
  for i = 1, n do x[i] = 0 end
  for k = 1, 600 do
    local nx = {}
    for i = 1, n do
      nx[i] = lin.B[i][1] * STEP
      for j = 1, n do nx[i] = nx[i] + lin.A[i][j] * x[j] end
    end
    x = nx
    local y = lin.D[1][1] * STEP
    for j = 1, n do y = y + lin.C[1][j] * x[j] end
    predicted[k + 1] = y
  end
  local sim = m:simulator { integrator = "radau5", accuracy = 1e-10 }
  sim.context:set_input("speed_ref", STEP)
  sim:initialize()
  local simulated = { sim.context:get("speed") }
  for k = 1, 600 do
    sim:advance_to(k * h)
    simulated[k + 1] = sim.context:get("speed")
    near(simulated[k + 1], predicted[k + 1], { atol = 1e-6 * STEP })
  end
  local rise, over = step_figures(simulated, h, STEP)
  local rise_lin, over_lin = step_figures(predicted, h, STEP)
  near(rise, rise_lin, { atol = 1e-6 })
  near(over, over_lin, { atol = 1e-4 })
  -- the figures of the docs' plot (docs/tutorial.md, chapter 12)
  truthy(rise > 0.03 and rise < 0.04, "rise time " .. rise)
  truthy(over > 8.5 and over < 9.5, "overshoot " .. over .. " %")
  -- the integral action leaves no error: the final value is the setpoint
  sim:advance_to(2)
  near(sim.context:get("speed"), STEP, { rtol = 1e-9 })
end)

-- diagc run --plot draws the step response into a PNG (gnuplot needed)
local have_gnuplot = os.execute("command -v gnuplot >/dev/null 2>&1") == 0
if not have_gnuplot then
  print("skip dc_motor_pi.step_plot: gnuplot is not installed (scripts/install-deps.sh gnuplot-nox)")
else
  test("dc_motor_pi.step_plot", function()
    local base = os.tmpname() -- (a private name; the PNG beside it)
    local png = base .. ".png"
    local rc = require("diagc.cli.run").main({ diagc.root .. "/examples/control/dc_motor_pi.lua",
      "--until", "0.6", "--input", "speed_ref=" .. STEP, "--integrator", "radau5", "--plot", png })
    eq(rc, 0)
    local f = io.open(png, "rb")
    local head = f and f:read(8)
    if f then f:close() end
    os.remove(png)
    os.remove(base)
    eq(head, "\137PNG\r\n\26\n")
  end)
end
