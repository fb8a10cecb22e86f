-- cli/stiffness.lua: what diagc run says about stiffness (docs/simulator.md,
-- "Stiffness"): the explicit integrators' evidence, read from the
-- simulator's statistics (the runtime's stiffness test), as one warning, as
-- the reason added to a failed run's error, and as a --stats line.
local M = {}

local function g(x) return string.format("%.3g", x) end
local function nan(x) return x ~= x end

-- the stiff integrator to try, and whether the optional one is there
local function suggestion()
  local ok = require("diagc.testing.cvode").load()
  return ok and "try --integrator radau5 (or cvode_bdf)"
    or "try --integrator radau5 (cvode_bdf needs libsundials-dev)"
end

-- The evidence as a phrase, or nil when the test was not conclusive.
-- st: diagc_sim_statistics; run = { integrator =, fixed_step = (nil: error
-- control), max_step =, t_end = }.
function M.evidence(st, run)
  if nan(st.stiff_time) then return nil end
  local lambda = st.stiff_hlambda / st.stiff_step
  if run.fixed_step then
    return string.format("the model looks stiff for %s with fixed steps of %s s: from t = %s the steps were at "
      .. "the method's stability limit or beyond (h |lambda| ~ %s where the limit is %s; |lambda| ~ %s /s), so a "
      .. "stiff component is not damped and the results cannot be trusted; %s", run.integrator,
      g(run.fixed_step), g(st.stiff_time), g(st.stiff_hlambda), g(st.stability_limit), g(lambda), suggestion())
  end
  local steps, rejected = tonumber(st.integrator_steps), tonumber(st.rejected_steps)
  return string.format("the model looks stiff for %s: from t = %s its steps were held at the method's "
    .. "stability limit (h |lambda| = %s with h = %s s: |lambda| ~ %s /s); %d steps (and %d rejected, %s %%) "
    .. "averaged %s s where the maximum step is %s s; %s", run.integrator, g(st.stiff_time),
    g(st.stiff_hlambda), g(st.stiff_step), g(lambda), steps, rejected,
    g(100 * rejected / math.max(1, steps + rejected)), g(run.t_end / math.max(1, steps)), g(run.max_step),
    suggestion())
end

-- The warning of a finished run (nil: nothing to say).
function M.warning(st, run)
  local e = M.evidence(st, run)
  return e and ("diagc run: warning: " .. e .. "\n")
end

-- What a failed run's message gains: the evidence (or, when the runtime's
-- message already says the model looks stiff, the suggestion alone); when
-- the test was not conclusive but some tests hit, how many, as a hint.
function M.failure_suffix(msg, st, run)
  if nan(st.stiff_time) then
    if nan(st.stability_limit) or st.stiffness_hits == 0 then return "" end
    return string.format("; %d of %d stiffness tests found the steps at %s's stability limit or beyond: the "
      .. "model may be stiff; %s", tonumber(st.stiffness_hits), tonumber(st.stiffness_tests), run.integrator,
      suggestion())
  end
  if msg:find("looks stiff", 1, true) then return "; " .. suggestion() end
  return "; " .. M.evidence(st, run)
end

-- The --stats line: the explicit integrators' stiffness counters, when a
-- test found the step at or beyond the stability limit (nil otherwise).
function M.stats_line(st)
  if nan(st.stability_limit) or st.stiffness_hits == 0 then return nil end
  local s = string.format("stiffness tests %d, above the stability limit %s: %d", tonumber(st.stiffness_tests),
    g(st.stability_limit), tonumber(st.stiffness_hits))
  if nan(st.stiff_time) then return s .. ", not conclusive\n" end
  return s .. string.format(", conclusive at t = %s (h |lambda| = %s, h = %s s)\n", g(st.stiff_time),
    g(st.stiff_hlambda), g(st.stiff_step))
end

return M
