-- lib/blocks/controllers.lua: controllers: PID
-- (docs/library.md, "Blocks").  M.add(B, K) puts this category's blocks
-- in the library table B, with K the shared checks (lib/blocks/common.lua).

local M = {}

function M.add(B, K)
  local def = K.definer(B)
  local ctors, raise, fmt, settings, number, leaf, timing = K.ctors, K.raise, K.fmt, K.settings, K.number, K.leaf, K.timing

  -- PID on the reference r and the measurement y, output u (parallel form
  -- u = kp (b r - y) + I + kd D, I' = ki (r - y), D = N s / (s + N) of
  -- (c r - y); ideal form: ki = kp / ti, kd = kp td), with output limits,
  -- anti-windup (clamping or back-calculation) and, with a period, the
  -- discrete law (forward Euler on I and on the filter).
  def("pid", function(s, loc)
    s = settings(loc, "pid", s, { kp = true, ki = true, kd = true, ti = true, td = true, form = true, n = true,
      b = true, c = true, lower = true, upper = true, anti_windup = true, kb = true, period = true, offset = true })
    local form = s.form or "parallel"
    if form ~= "parallel" and form ~= "ideal" then
      raise(loc, "blocks.pid: form must be \"parallel\" or \"ideal\", got %s", tostring(form))
    end
    local kp, ki, kd = number(loc, "pid", "kp", s.kp, 0)
    if form == "ideal" then
      if s.ki ~= nil or s.kd ~= nil then raise(loc, "blocks.pid: the ideal form takes kp, ti and td (not ki, kd)") end
      local ti, td = s.ti ~= nil and number(loc, "pid", "ti", s.ti) or nil, number(loc, "pid", "td", s.td, 0)
      if ti ~= nil and not (ti > 0) then raise(loc, "blocks.pid: ti must be positive, got %s", fmt(ti)) end
      ki, kd = ti and kp / ti or 0, kp * td
    else
      if s.ti ~= nil or s.td ~= nil then raise(loc, "blocks.pid: the parallel form takes kp, ki and kd (not ti, td)") end
      ki, kd = number(loc, "pid", "ki", s.ki, 0), number(loc, "pid", "kd", s.kd, 0)
    end
    local N = number(loc, "pid", "n", s.n, 100)
    if not (N > 0) then raise(loc, "blocks.pid: n (the derivative filter's bandwidth, rad/s) must be positive, got %s", fmt(N)) end
    local limited = s.lower ~= nil or s.upper ~= nil
    local lower, upper = number(loc, "pid", "lower", s.lower, -1e300), number(loc, "pid", "upper", s.upper, 1e300)
    if lower > upper then raise(loc, "blocks.pid: lower = %s is above upper = %s", fmt(lower), fmt(upper)) end
    local aw = s.anti_windup or (limited and "clamp" or "none")
    if aw ~= "none" and aw ~= "clamp" and aw ~= "back_calculation" then
      raise(loc, "blocks.pid: anti_windup must be \"none\", \"clamp\" or \"back_calculation\", got %s", tostring(aw))
    end
    if aw ~= "none" and not limited then raise(loc, "blocks.pid: anti_windup needs output limits (lower, upper)") end
    local kb = number(loc, "pid", "kb", s.kb, 1)
    if aw == "back_calculation" and not (kb > 0) then raise(loc, "blocks.pid: kb must be positive, got %s", fmt(kb)) end
    local discrete = s.period ~= nil
    local period, offset
    if discrete then period, offset = timing(loc, "pid", s) end
    if discrete and period * N >= 2 then
      raise(loc, "blocks.pid: period * n = %s: the discrete derivative filter needs period * n < 2 (lower n or the period)",
        fmt(period * N))
    end
    -- the law, from the state I, xf and the inputs: v (unlimited), u
    local law = [[
double e = r[0] - y[0];
double dd = c[0] * r[0] - y[0] - xf[0];
double v = kp[0] * (b[0] * r[0] - y[0]) + I[0] + kd[0] * n[0] * dd;
double uu = v < lower[0] ? lower[0] : v > upper[0] ? upper[0] : v;
(void)e;]]
    local rate = ({
      none = "ki[0] * e",
      clamp = "(uu != v && e * (v - uu) > 0.0) ? 0.0 : ki[0] * e",
      back_calculation = "ki[0] * e + kb[0] * (uu - v)",
    })[aw]
    local pre = { "r", "y", "kp", "ki", "kd", "n", "b", "c", "lower", "upper", "kb" }
    local items = {
      ctors.parameter { "kp", default = { kp } }, ctors.parameter { "ki", default = { ki } },
      ctors.parameter { "kd", default = { kd } }, ctors.parameter { "n", default = { N } },
      ctors.parameter { "b", default = { number(loc, "pid", "b", s.b, 1) } },
      ctors.parameter { "c", default = { number(loc, "pid", "c", s.c, 1) } },
      ctors.parameter { "lower", default = { lower } }, ctors.parameter { "upper", default = { upper } },
      ctors.parameter { "kb", default = { kb } },
      ctors.input_port { "r", size = 1 }, ctors.input_port { "y", size = 1 },
    }
    if discrete then
      items[#items + 1] = ctors.discrete_state { "I", default = { 0 } }
      items[#items + 1] = ctors.discrete_state { "xf", default = { 0 } }
      local spre = { "I", "xf" }
      for _, p in ipairs(pre) do spre[#spre + 1] = p end
      items[#items + 1] = ctors.periodic_discrete_update { "step", period = period, offset = offset, prerequisites = spre,
        writes = { "I", "xf" }, calc = law .. string.format("\n(void)uu;\nI_next[0] = I[0] + %s * (%s);\nxf_next[0] = xf[0] + %s * n[0] * dd;",
          fmt(period), rate, fmt(period)) }
      items[#items + 1] = ctors.output_port { "u", size = 1, prerequisites = spre, calc = law .. "\nu[0] = uu;" }
    else
      items[#items + 1] = ctors.continuous_state { z = 2, z0 = { 0, 0 } }
      local zpre = { "z" }
      for _, p in ipairs(pre) do zpre[#zpre + 1] = p end
      local zlaw = "const double *I = z, *xf = z + 1;\n" .. law
      items[#items + 1] = ctors.derivatives { prerequisites = zpre,
        calc = zlaw .. string.format("\n(void)uu;\nzdot[0] = %s;\nzdot[1] = n[0] * dd;", rate) }
      items[#items + 1] = ctors.output_port { "u", size = 1, prerequisites = zpre, calc = zlaw .. "\nu[0] = uu;" }
    end
    return leaf(loc, discrete and "DiscretePID" or "PID", items)
  end)

  return B

end

return M
