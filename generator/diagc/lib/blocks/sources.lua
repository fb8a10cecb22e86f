-- lib/blocks/sources.lua: sources: no input, y a function of time
-- (docs/library.md, "Blocks").  M.add(B, K) puts this category's blocks
-- in the library table B, with K the shared checks (lib/blocks/common.lua).

local M = {}

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, number, count, vector, leaf = K.ctors, K.settings, K.number, K.count, K.vector, K.leaf

  def("constant", function(s, loc)
    s = settings(loc, "constant", s, { value = true, size = true })
    local n = count(loc, "constant", "size", s.size, type(s.value) == "table" and #s.value or 1)
    return leaf(loc, "Constant", {
      ctors.parameter { "value", default = vector(loc, "constant", "value", s.value, n) },
      ctors.output_port { "y", size = n, prerequisites = { "value" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = value[i];", n) },
    })
  end)

  -- A source that switches at a time holds its phase in a discrete state
  -- `on` (0, then 1), set by an event at that time: the simulator lands on
  -- it, every evaluation before it (an integrator's stages included) sees
  -- 0 and every one after it 1, so a plant driven by the source is
  -- integrated exactly across the switch.
  local function switch(at_time)
    return ctors.next_update_time { "turn_on", prerequisites = { "time", at_time },
      calc = string.format("if (t < %s[0]) t_next = %s[0];", at_time, at_time),
      discrete_update = "on_next[0] = 1.0;", writes = { "on" } }
  end

  -- y = initial before time, final from then on
  def("step", function(s, loc)
    s = settings(loc, "step", s, { time = true, initial = true, final = true, size = true })
    local n = count(loc, "step", "size", s.size, 1)
    return leaf(loc, "Step", {
      ctors.parameter { "step_time", default = { number(loc, "step", "time", s.time, 0) } },
      ctors.parameter { "initial", default = vector(loc, "step", "initial", s.initial or 0, n) },
      ctors.parameter { "final", default = vector(loc, "step", "final", s.final or 1, n) },
      ctors.discrete_state { "on", default = { 0 } },
      switch("step_time"),
      ctors.output_port { "y", size = n, prerequisites = { "on", "initial", "final" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = on[0] != 0.0 ? final[i] : initial[i];", n) },
    })
  end)

  -- y = initial, and initial + slope (t - start) from start on
  def("ramp", function(s, loc)
    s = settings(loc, "ramp", s, { slope = true, start = true, initial = true })
    return leaf(loc, "Ramp", {
      ctors.parameter { "slope", default = { number(loc, "ramp", "slope", s.slope, 1) } },
      ctors.parameter { "start", default = { number(loc, "ramp", "start", s.start, 0) } },
      ctors.parameter { "initial", default = { number(loc, "ramp", "initial", s.initial, 0) } },
      ctors.discrete_state { "on", default = { 0 } },
      switch("start"),
      ctors.output_port { "y", size = 1, prerequisites = { "time", "on", "slope", "start", "initial" },
        calc = "y[0] = on[0] != 0.0 ? initial[0] + slope[0] * (t - start[0]) : initial[0];" },
    })
  end)

  -- y = amplitude sin(frequency t + phase) + bias (frequency in rad/s)
  def("sine", function(s, loc)
    s = settings(loc, "sine", s, { amplitude = true, frequency = true, phase = true, bias = true })
    return leaf(loc, "Sine", {
      ctors.parameter { "amplitude", default = { number(loc, "sine", "amplitude", s.amplitude, 1) } },
      ctors.parameter { "frequency", default = { number(loc, "sine", "frequency", s.frequency, 1) } },
      ctors.parameter { "phase", default = { number(loc, "sine", "phase", s.phase, 0) } },
      ctors.parameter { "bias", default = { number(loc, "sine", "bias", s.bias, 0) } },
      ctors.output_port { "y", size = 1, prerequisites = { "time", "amplitude", "frequency", "phase", "bias" },
        calc = "y[0] = amplitude[0] * sin(frequency[0] * t + phase[0]) + bias[0];" },
    })
  end)


end

return M
