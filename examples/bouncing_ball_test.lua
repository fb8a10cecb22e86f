-- Run with: bin/diagc test examples/bouncing_ball_test.lua
-- Checks examples/bouncing_ball.lua against the analytic bounce sequence:
-- first impact at t1 = sqrt(2 h / g) with speed v1 = g t1; impact k leaves
-- at e^k v1, so t_{k+1} = t_k + 2 e^k v1 / g and apex k is e^(2k) h high.
local ffi = require("ffi")
local m = diagc.jit(diagc.root .. "/examples/bouncing_ball.lua")
local h, g, e = 1.0, 9.81, 0.8

local function analytic_impacts(n)
  local t1 = math.sqrt(2 * h / g)
  local v1 = g * t1
  local t = { t1 }
  for k = 1, n - 1 do t[k + 1] = t[k] + 2 * e ^ k * v1 / g end
  return t, v1
end

-- height at time t from the analytic sequence
local function analytic_y(t, impacts, v1)
  if t <= impacts[1] then return h - 0.5 * g * t * t end
  for k = 1, #impacts - 1 do
    if t <= impacts[k + 1] then
      local dt = t - impacts[k]
      return e ^ k * v1 * dt - 0.5 * g * dt * dt
    end
  end
  error("t beyond the analytic sequence")
end

-- runs to t_end, recording (t, vy) after every simulator step
local function run(opts, t_end)
  local sim = m:simulator(opts)
  local steps = {}
  local cb = ffi.cast("diagc_progress_fn", function(_, t)
    steps[#steps + 1] = { t, sim.context:get("ball.vy") }
  end)
  ffi.C.diagc_sim_set_progress_callback(sim.sim, cb, nil)
  sim:initialize()
  sim:advance_to(t_end)
  ffi.C.diagc_sim_set_progress_callback(sim.sim, nil, nil)
  cb:free()
  -- an impact ends a step with v < 0; the update reverses v at the start
  -- of the next step
  local impacts = {}
  for i = 1, #steps - 1 do
    if steps[i][2] < 0 and steps[i + 1][2] > 0 then impacts[#impacts + 1] = steps[i][1] end
  end
  return sim, impacts
end

test("bouncing_ball.impact_times", function()
  local want = analytic_impacts(6)
  local _, got = run({ accuracy = 1e-8 }, want[6] + 0.01)
  truthy(#got >= 6, "six impacts")
  for k = 1, 6 do near(got[k], want[k], { atol = 1e-8 }) end
end)

test("bouncing_ball.impact_times_default_accuracy", function()
  -- default accuracy 1e-4: isolated to 1% of it (1e-6 s)
  local want = analytic_impacts(4)
  local _, got = run({}, want[4] + 0.01)
  for k = 1, 4 do near(got[k], want[k], { atol = 2e-6 }) end
end)

test("bouncing_ball.apex_after_first_bounce", function()
  local sim = run({ accuracy = 1e-8 }, 1.2)
  local log = sim:log("ball.y")
  local impacts = analytic_impacts(2)
  local apex = -1
  for i, t in ipairs(log.t) do
    if t > impacts[1] and t < impacts[2] and log.v[i] > apex then apex = log.v[i] end
  end
  -- 1 ms samples: the nearest is within 0.5 ms of the apex (g/2 (5e-4)^2)
  near(apex, 0.64, { atol = 1.5e-6 })
end)

test("bouncing_ball.logged_every_ms_matches_analytic", function()
  local sim = run({ accuracy = 1e-8 }, 2.0)
  local log = sim:log("ball.y")
  eq(#log.t, 2001)
  local impacts, v1 = analytic_impacts(12)
  local worst = 0
  for i, t in ipairs(log.t) do
    near(t, (i - 1) * 1e-3, { atol = 1e-12 })
    local d = math.abs(log.v[i] - analytic_y(t, impacts, v1))
    if d > worst then worst = d end
  end
  truthy(worst < 1e-6, "worst height error " .. worst)
end)
