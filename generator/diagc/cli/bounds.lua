-- cli/bounds.lua: refuse runs that could not finish: a non-finite end
-- time, more steps or periodic events than a documented limit, or a step
-- or period too small for the times of the run to be told apart.  Checked
-- before simulating by diagc run, by diagc test's simulator (advance_to)
-- and by diagc deploy (docs/simulator.md, "Limits of a run").
local M = {}

M.MAX_EVENTS = 1e9       -- periodic event firings (and logger samples) per run
M.MIN_RELATIVE = 1e-12   -- step or period / largest |time| of the run

local function g(x) return string.format("%.6g", x) end

-- Periodic events of a model descriptor (diagc_model), and loggers with a
-- period: {{name=, period=, offset=, what=}}.
function M.from_desc(desc)
  local ffi = require("ffi")
  local C = require("diagc.testing.ffi").const
  local list = {}
  for i = 0, desc.n_events - 1 do
    local e = desc.events[i]
    if e.trigger == C.DIAGC_TRIGGER_PERIODIC then
      list[#list + 1] = { name = ffi.string(e.name), period = e.period, offset = e.offset, what = "periodic event" }
    end
  end
  for i = 0, desc.n_loggers - 1 do
    local l = desc.loggers[i]
    if l.period > 0 then
      list[#list + 1] = { name = ffi.string(l.name), period = l.period, offset = 0, what = "logger" }
    end
  end
  return list
end

-- Periodic events of a checked system type (leaf or diagram), with their
-- dotted names under `path`.
function M.from_type(t, path, list)
  list = list or {}
  local function join(a, b) return a == "" and b or (a .. "." .. b) end
  if t.kind == "leaf" then
    for _, e in ipairs(t.events) do
      if e.trigger == "periodic" then
        list[#list + 1] = { name = join(path, e.name), period = e.period, offset = e.offset or 0,
          what = "periodic event", loc = e.loc }
      end
    end
  else
    for _, s in ipairs(t.systems) do M.from_type(s.type, join(path, s.name), list) end
  end
  return list
end

-- Number of times offset + k*period (k >= 0) falls in [t0, t1].
local function firings(e, t0, t1)
  if t1 < e.offset then return 0 end
  local kmin = math.max(0, math.ceil((t0 - e.offset) / e.period))
  local kmax = math.floor((t1 - e.offset) / e.period)
  if kmax ~= kmax or kmax == math.huge then return math.huge end
  return math.max(0, kmax - kmin + 1)
end
M.firings = firings

-- Checks a run from t0 to t1.  opts: step = the maximum or fixed step (nil:
-- no continuous state, steps go from event to event), max_steps = the run's
-- step-count limit (default: the runtime's, DIAGC_SIM_MAX_STEPS of
-- diagc/simulator.h, which the simulator applies too) and max_steps_name how it is set,
-- events = a list as
-- above, end_name = how the end time is given ("--until", "t").  Returns nil,
-- or a message (without a command prefix) saying what to change.
function M.check(t0, t1, opts)
  opts = opts or {}
  local end_name = opts.end_name or "the end time"
  if t1 ~= t1 or t1 == math.huge or t1 == -math.huge then
    return string.format("%s %s is not a finite time; give a finite end time", end_name, tostring(t1))
  end
  local span = t1 - t0
  local scale = math.max(math.abs(t0), math.abs(t1))
  local h = opts.step
  if h and span > 0 then
    local n = span / h
    local limit = opts.max_steps or require("diagc.testing.ffi").const.DIAGC_SIM_MAX_STEPS
    if n > limit then
      return string.format("the run from t = %s to %s would take at least %s steps of %s s, more than the "
        .. "limit of %s steps per run; raise %s, raise %s or shorten the run", g(t0), g(t1), g(n), g(h),
        g(limit), opts.step_name or "the maximum step", opts.max_steps_name or "the step-count limit")
    end
    if h < M.MIN_RELATIVE * scale then
      return string.format("the step %s s is below %s times the time %s, so times would not be told apart; "
        .. "raise %s", g(h), g(M.MIN_RELATIVE), g(scale), opts.step_name or "the step")
    end
  end
  local total, worst = 0, nil
  for _, e in ipairs(opts.events or {}) do
    local n = firings(e, t0, t1)
    e.n = n
    total = total + n
    if not worst or n > worst.n then worst = { e = e, n = n } end
  end
  if total > M.MAX_EVENTS then
    local e = worst.e
    return string.format("the run to t = %s would fire periodic events %s times (%s '%s' with period %s s "
      .. "alone %s times), more than the limit of %s per run; give longer periods or shorten the run",
      g(t1), g(total), e.what, e.name, g(e.period), g(worst.n), g(M.MAX_EVENTS))
  end
  for _, e in ipairs(opts.events or {}) do
    if e.n > 0 and e.period < M.MIN_RELATIVE * math.max(scale, math.abs(e.offset)) then
      return string.format("%s '%s' has period %s s, below %s times the time %s of the run, so its times "
        .. "would not be told apart; give it a longer period", e.what, e.name, g(e.period),
        g(M.MIN_RELATIVE), g(math.max(scale, math.abs(e.offset))))
    end
  end
  return nil
end

return M
