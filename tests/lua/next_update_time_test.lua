-- Drake's CalcNextUpdateTime (ctx:next_update_time()) against analytic
-- periodic schedules, and next_update_time items (one-shot events at a
-- time a calc computes: Drake's DoCalcNextUpdateTime override).
local dsl = diagc.dsl

local function names(events)
  local t = {}
  for _, e in ipairs(events) do t[#t + 1] = e.name .. ":" .. e.kind .. ":" .. e.trigger end
  table.sort(t)
  return t
end

-- periods and offsets that are exact in binary, so the times are exact
local function periodic_model()
  local L = dsl.leaf "P" {
    dsl.discrete_state { "x", default = { 0 } },
    dsl.periodic_publish { "pub", period = 0.75, offset = 0.25, prerequisites = { "nothing" },
      calc = [[ (void)0; ]] },
    dsl.periodic_discrete_update { "upd", period = 0.5, prerequisites = { "x" },
      calc = [[ x_next[0] = x[0] + 1; ]] },
    dsl.output_port { "y", size = 1, prerequisites = { "x" }, calc = [[ y[0] = x[0]; ]] },
  }
  return diagc.jit(dsl.diagram "per" { dsl.system { "p", L }, dsl.log { "p.y", period = 1.25 } })
end

test("next_update_time.periodic_schedule", function()
  local ctx = periodic_model():context()
  local cases = {
    { 0, 0.25, { "p.pub:publish:periodic" } },
    { 0.25, 0.5, { "p.upd:discrete_update:periodic" } },
    { 0.5, 1.0, { "p.pub:publish:periodic", "p.upd:discrete_update:periodic" } },
    { 1.0, 1.25, { "p.y:publish:logger" } },
    { 1.1, 1.25, { "p.y:publish:logger" } },
    { 2.4, 2.5, { "p.pub:publish:periodic", "p.upd:discrete_update:periodic", "p.y:publish:logger" } },
    { -1, 0, { "p.upd:discrete_update:periodic", "p.y:publish:logger" } },
  }
  for _, c in ipairs(cases) do
    ctx:set_time(c[1])
    local t, ev = ctx:next_update_time()
    eq(t, c[2], "next after " .. c[1])
    eq(names(ev), c[3], "events due after " .. c[1])
  end
end)

-- a leaf that wakes at t = 2^n (n counts its wake-ups) and a periodic
-- update every second in the same leaf that records n as it saw it
local function waker(extra)
  local items = {
    dsl.discrete_state { "n", default = { 0 } },
    dsl.discrete_state { "last", default = { -1 } },
    dsl.discrete_state { "ticks", default = { 0 } },
    dsl.discrete_state { "seen", default = { -1 } },
    dsl.next_update_time { "wake", prerequisites = { "n", "time" },
      calc = [[ t_next = ldexp(1.0, (int)n[0]); ]],
      discrete_update = [[ n_next[0] = n[0] + 1; last_next[0] = t; ]],
      writes = { "n", "last" } },
    dsl.periodic_discrete_update { "tick", period = 1, prerequisites = { "ticks", "n" },
      writes = { "ticks", "seen" },
      calc = [[ ticks_next[0] = ticks[0] + 1; seen_next[0] = n[0]; ]] },
    dsl.output_port { "count", size = 1, prerequisites = { "n" }, calc = [[ count[0] = n[0]; ]] },
  }
  for _, it in ipairs(extra or {}) do items[#items + 1] = it end
  local W = dsl.leaf "Waker" (items)
  -- a continuous clock so that the simulator integrates between events
  local Clock = dsl.leaf "Clock" {
    dsl.continuous_state { z = { "c" } },
    dsl.derivatives { prerequisites = { "nothing" }, calc = [[ zdot[0] = 1.0; ]] },
  }
  return diagc.jit(dsl.diagram "wake" { dsl.system { "clock", Clock }, dsl.system { "w", W },
    dsl.log { "w.count" } })
end

test("next_update_time.query_timed", function()
  local ctx = waker():context()
  local t, ev = ctx:next_update_time()
  eq(t, 1, "n = 0: 2^0, with the periodic tick at 1")
  eq(names(ev), { "w.tick:discrete_update:periodic", "w.wake:discrete_update:timed" })
  ctx:set("w.n", 3)
  ctx:set_time(7.5)
  t, ev = ctx:next_update_time()
  eq(t, 8, "n = 3: 2^3, with the periodic tick at 8")
  eq(names(ev), { "w.tick:discrete_update:periodic", "w.wake:discrete_update:timed" })
  ctx:set_time(3.5)
  t, ev = ctx:next_update_time()
  eq(t, 4, "the periodic tick at 4 comes first")
  eq(names(ev), { "w.tick:discrete_update:periodic" })
end)

test("next_update_time.fires_at_powers_of_two", function()
  local m = waker()
  local sim = m:simulator({ max_step = 0.1 })
  sim:initialize()
  local fired = {}
  for k = 0, 6 do
    sim:advance_to(2 ^ k)
    sim:advance_to(2 ^ k) -- flush the updates due now
    fired[#fired + 1] = sim.context:get("w.last")
    eq(sim.context:get("w.n"), k + 1, "n after 2^" .. k)
  end
  eq(fired, { 1, 2, 4, 8, 16, 32, 64 }, "fired exactly at 2^k")
  sim:advance_to(100)
  eq(sim.context:get("w.n"), 7, "no wake-up between 64 and 100")
  local t = sim.context:next_update_time()
  eq(t, 101, "next: the periodic tick at 101 (the wake-up is at 128)")
end)

test("next_update_time.simultaneous_with_periodic", function()
  local sim = waker():simulator({ max_step = 0.1 })
  sim:advance_to(4)
  -- the log at 4 sees x- (n = 2: wake-ups at 1 and 2)
  local l = sim:log("w.count")
  eq(l.t[#l.t], 4)
  eq(l.v[#l.v], 2, "publish at 4 sees x-")
  sim:advance_to(4)
  -- both updates due at 4 ran in one round, reading the state before it
  eq(sim.context:get("w.n"), 3, "the wake-up at 4 ran")
  eq(sim.context:get("w.ticks"), 5, "ticks at 0, 1, 2, 3, 4")
  eq(sim.context:get("w.seen"), 2, "the tick at 4 saw n before the wake-up at 4")
end)

test("next_update_time.publish_and_unrestricted", function()
  local W = dsl.leaf "W" {
    dsl.continuous_state { z = { "x" }, z0 = { 1 } },
    dsl.discrete_state { "k", default = { 0 } },
    dsl.derivatives { prerequisites = { "nothing" }, calc = [[ zdot[0] = 0.0; ]] },
    -- halve x at t = 0.3, 0.6, 0.9 (every 0.3 s while k < 3)
    dsl.next_update_time { "halve", prerequisites = { "k", "z", "time" },
      calc = [[ if (k[0] < 3) t_next = 0.3 * (k[0] + 1); ]],
      unrestricted_update = [[ z_next[0] = 0.5 * z[0]; k_next[0] = k[0] + 1; ]] },
    dsl.output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
  }
  local sim = diagc.jit(dsl.diagram "h" { dsl.system { "w", W } }):simulator()
  sim:advance_to(2)
  eq(sim.context:get("w.x"), 0.125, "three halvings")
  eq(sim.context:get("w.k"), 3)
  eq(sim.context:next_update_time(), math.huge, "no more events")
end)

test("next_update_time.bad_times_fail", function()
  local function run(body)
    local W = dsl.leaf "W" {
      dsl.discrete_state { "k", default = { 0 } },
      dsl.next_update_time { "bad", prerequisites = { "time" }, calc = body,
        publish = [[ (void)0; ]] },
    }
    local sim = diagc.jit(dsl.diagram "b" { dsl.system { "w", W } }):simulator()
    return sim:try_advance_to(1)
  end
  local rc, msg = run([[ t_next = t > 0.5 ? t : 0.75; ]])
  assert(rc < 0, "a time not after t fails")
  assert(msg:find("next_update_time 'w.bad' returned t_next = 0.75, not after t = 0.75", 1, true), msg)
  rc, msg = run([[ t_next = t > 0.5 ? NAN : 0.75; ]])
  assert(rc < 0 and msg:find("next_update_time 'w.bad' returned NaN at t = 0.75", 1, true), msg)
  -- at initialization the query runs from just before t = 0, reported as 0
  rc, msg = run([[ t_next = t < 0 ? -1.0 : 1.0; ]])
  assert(rc < 0 and msg:find("returned t_next = -1, not after t = 0", 1, true), msg)
end)

test("next_update_time.spec_errors", function()
  local function leaf(args)
    return dsl.diagram "e" { dsl.system { "w", dsl.leaf "W" {
      dsl.discrete_state { "k", default = { 0 } }, dsl.next_update_time(args) } } }
  end
  expect_error(function() diagc.jit(leaf { "a", calc = [[ t_next = 1; ]] }) end,
    "needs the event it fires")
  expect_error(function()
    diagc.jit(leaf { "a", calc = [[ t_next = 1; ]], publish = [[ ]], discrete_update = [[ ]] })
  end, "has both publish and discrete_update")
  expect_error(function() diagc.jit(leaf { "a", publish = [[ ]] }) end, "needs a calc")
  expect_error(function()
    diagc.jit(leaf { "a", calc = [[ t_next = 1; ]], publish = [[ ]], writes = { "k" } })
  end, "writes is only for an update")
  expect_error(function()
    diagc.jit(leaf { "a", calc = [[ t_next = 1; ]], discrete_update = [[ ]], writes = { "zz" } })
  end, "cannot write 'zz'")
  expect_error(function()
    diagc.jit(leaf { "a", prerequisites = { "nothing" }, calc = [[ t_next = k[0]; ]], publish = [[ ]] })
  end, "reads 'k'")
end)

test("next_update_time.publish_terminates_at_computed_time", function()
  local L = dsl.leaf "Stop" {
    dsl.continuous_state { z = { "x" } },
    dsl.parameter { "t_stop", default = { 2.7 } },
    dsl.derivatives { prerequisites = { "nothing" }, calc = [[ zdot[0] = 1.0; ]] },
    dsl.next_update_time { "stop", prerequisites = { "time", "t_stop" },
      calc = [[ if (t < t_stop[0]) t_next = t_stop[0]; ]],
      publish = [[ return DIAGC_REACHED_TERMINATION; ]] },
  }
  local sim = diagc.jit(dsl.diagram "s" { dsl.system { "s", L } }):simulator({ max_step = 0.25 })
  sim.context:set("s.t_stop", 2.7)
  eq(sim:advance_to(10), 1, "terminated")
  eq(sim:time(), 2.7, "at exactly t_stop")
  near(sim.context:get("s.x"), 2.7, { atol = 1e-12 })
end)
