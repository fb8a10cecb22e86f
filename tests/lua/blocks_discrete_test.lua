-- The library's discrete additions (generator/diagc/lib/blocks/discrete.lua)
-- against closed forms: the discrete integrator's three methods on a
-- sampled ramp, its limits (no windup) on a step that changes sign, a
-- discrete transfer function's and a discrete state space's step
-- responses, and a moving average of a ramp.  Samples at 0.05 + 0.1 k,
-- logs at 0.1 k (no ties): the log at t shows the K samples taken by t.
local dsl = diagc.dsl
local blocks, system, connect, fix_input, log = dsl.blocks, dsl.system, dsl.connect, dsl.fix_input, dsl.log

local h, t0 = 0.1, 0.05
local function samples(t) return math.floor((t - t0) / h + 1e-9) + 1 end -- K (0 before the first)

local m = diagc.jit(dsl.diagram "blocks_discrete" {
  system { "r", blocks.ramp {} },
  system { "fe", blocks.discrete_integrator { period = h, offset = t0, k = 2 } },
  system { "be", blocks.discrete_integrator { period = h, offset = t0, k = 2, method = "backward_euler" } },
  system { "tr", blocks.discrete_integrator { period = h, offset = t0, k = 2, method = "trapezoidal", x0 = 1 } },
  system { "st", blocks.step { time = 1.23, initial = 1, final = -1 } },
  system { "lim", blocks.discrete_integrator { period = h, offset = t0, lower = -0.2, upper = 0.3 } },
  system { "tf", blocks.discrete_transfer_function { num = { 1, 0.5 }, den = { 1, -0.8 }, period = h, offset = t0 } },
  system { "ss", blocks.discrete_state_space { A = { { 0.5, 0 }, { 0, -0.25 } }, B = { { 1 }, { 2 } },
    C = { { 1, 1 } }, D = { { 0.5 } }, period = h, offset = t0 } },
  system { "ma", blocks.moving_average { samples = 4, period = h, offset = t0 } },
  connect { "r.y", "fe.u" }, connect { "r.y", "be.u" }, connect { "r.y", "tr.u" }, connect { "r.y", "ma.u" },
  connect { "st.y", "lim.u" },
  fix_input { "tf.u", value = { 1 } }, fix_input { "ss.u", value = { 1 } },
  log { "fe.y", period = 0.1 }, log { "be.y", period = 0.1 }, log { "tr.y", period = 0.1 }, log { "lim.y", period = 0.1 },
  log { "tf.y", period = 0.1 }, log { "ss.y", period = 0.1 }, log { "ma.y", period = 0.1 },
})

test("blocks.discrete_blocks", function()
  local sim = m:simulator {}
  sim:initialize()
  sim:advance_to(3)
  local function at(name)
    local l = sim:log(name)
    return function(k) return l.v[k] end, l.t
  end
  local fe, times = at("fe.y")
  local be, tr, lim, tf, ss, ma = at("be.y"), at("tr.y"), at("lim.y"), at("tf.y"), at("ss.y"), at("ma.y")
  -- after the sample at t_n = t0 + n h (n = K - 1 >= 0), with u_j = t_j:
  -- forward Euler 2 h sum_{j<n} u_j, backward 2 h sum_{0<j<=n} u_j,
  -- trapezoidal 1 + (t_n^2 - t0^2) exactly
  local lim_after = { 0, 0.1, 0.2, 0.3 } -- then 0.3 until the first -1 (sample 13, t = 1.25) counts at the next
  for k, t in ipairs(times) do
    local K = samples(t)
    local n = K - 1
    if K == 0 then
      eq({ fe(k), be(k), tr(k), lim(k) }, { 0, 0, 1, 0 })
    else
      near(fe(k), 2 * h * (n * t0 + h * n * (n - 1) / 2), { atol = 1e-12 })
      near(be(k), 2 * h * (n * t0 + h * n * (n + 1) / 2), { atol = 1e-12 })
      local tn = t0 + n * h
      near(tr(k), 1 + tn * tn - t0 * t0, { atol = 1e-12 })
      -- u = 1 at samples 0..11, -1 from 12 (t = 1.25): forward Euler adds
      -- 0.1 u_(n-1), kept in [-0.2, 0.3]: no windup, it turns at once
      local y = lim_after[math.min(n, 3) + 1]
      if n >= 13 then y = math.max(0.3 - 0.1 * (n - 12), -0.2) end
      near(lim(k), y, { atol = 1e-12 })
    end
    -- (1 + 0.5 z^-1) / (1 - 0.8 z^-1) of a unit step: 7.5 - 6.5 0.8^K
    near(tf(k), 7.5 - 6.5 * 0.8 ^ K, { atol = 1e-12 })
    -- x1 = (1 - 0.5^K) / 0.5, x2 = 2 (1 - (-0.25)^K) / 1.25, y = x1 + x2 + 0.5
    near(ss(k), (1 - 0.5 ^ K) / 0.5 + 2 * (1 - (-0.25) ^ K) / 1.25 + 0.5, { atol = 1e-12 })
    -- the mean of the last 4 samples (0 before the first)
    local sum = 0
    for j = K - 4, K - 1 do if j >= 0 then sum = sum + t0 + j * h end end
    near(ma(k), sum / 4, { atol = 1e-12 })
  end
end)
