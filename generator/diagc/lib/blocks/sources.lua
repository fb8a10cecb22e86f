-- lib/blocks/sources.lua: sources: no input, y a function of time
-- (docs/library.md, "Blocks").  M.add(B, K) puts this category's blocks
-- in the library table B, with K the shared checks (lib/blocks/common.lua).

local M = {}

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, number, count, vector, leaf = K.ctors, K.settings, K.number, K.count, K.vector, K.leaf
  local raise, fmt = K.raise, K.fmt

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


  -- A periodic pulse switches on at phase + j period and off duty period
  -- later.  The discrete state k counts the switches: the next one is
  -- edge(k) (even k a rise, odd k a fall), so the output is on exactly
  -- when k is odd.  An event at edge(k) adds one to k (the simulator lands
  -- on each switch, as for a step); the initialization event finds the
  -- first switch after the start time.
  local EDGE = "(%s) - 2.0 * floor((%s) / 2.0) == 1.0"
  local function edge(j)
    return string.format("phase[0] + floor((%s) / 2.0) * period[0] + (%s ? duty[0] * period[0] : 0.0)",
      j, EDGE:format(j, j))
  end
  local function pulse(name, typename, s, loc, low)
    local period = number(loc, name, "period", s.period)
    if not (period > 0) then raise(loc, "blocks.%s: period must be positive, got %s", name, fmt(period)) end
    local duty = number(loc, name, "duty", s.duty, 0.5)
    if not (duty > 0 and duty < 1) then raise(loc, "blocks.%s: duty must be between 0 and 1 (exclusive), got %s", name, fmt(duty)) end
    local pre = { "time", "k", "period", "duty", "phase" }
    return leaf(loc, typename, {
      ctors.parameter { "period", default = { period } },
      ctors.parameter { "duty", default = { duty } },
      ctors.parameter { "phase", default = { number(loc, name, "phase", s.phase, 0) } },
      ctors.parameter { "amplitude", default = { number(loc, name, "amplitude", s.amplitude, 1) } },
      ctors.parameter { "bias", default = { number(loc, name, "bias", s.bias, 0) } },
      ctors.discrete_state { "k", default = { 0 } },
      ctors.initialization_discrete_update { "first_switch", prerequisites = pre, writes = { "k" }, calc =
        "double j = 2.0 * floor((t - phase[0]) / period[0]);\n"
        .. "for (int i = 0; i < 4; i++) { if (" .. edge("j") .. " <= t) j = j + 1.0; }\nk_next[0] = j;" },
      ctors.next_update_time { "toggle", prerequisites = pre, writes = { "k" },
        calc = "t_next = " .. edge("k[0]") .. ";", discrete_update = "k_next[0] = k[0] + 1.0;" },
      ctors.output_port { "y", size = 1, prerequisites = { "k", "amplitude", "bias" }, calc = string.format(
        "y[0] = bias[0] + (%s ? amplitude[0] : %s);", EDGE:format("k[0]", "k[0]"), low) },
    })
  end
  -- y = bias + amplitude while on, bias while off
  def("pulse", function(s, loc)
    s = settings(loc, "pulse", s, { period = true, duty = true, amplitude = true, bias = true, phase = true })
    return pulse("pulse", "Pulse", s, loc, "0.0")
  end)
  -- y = bias + amplitude, then bias - amplitude
  def("square", function(s, loc)
    s = settings(loc, "square", s, { period = true, duty = true, amplitude = true, bias = true, phase = true })
    return pulse("square", "Square", s, loc, "-amplitude[0]")
  end)

  -- y = amplitude sin(2 pi (f0 t + (f1 - f0) t^2 / (2 T)) + phase) + bias:
  -- the frequency sweeps linearly from f0 to f1 (Hz) over [0, T], then
  -- stays at f1
  def("chirp", function(s, loc)
    s = settings(loc, "chirp", s, { amplitude = true, f0 = true, f1 = true, duration = true, phase = true, bias = true })
    local T = number(loc, "chirp", "duration", s.duration)
    if not (T > 0) then raise(loc, "blocks.chirp: duration must be positive, got %s", fmt(T)) end
    return leaf(loc, "Chirp", {
      ctors.parameter { "amplitude", default = { number(loc, "chirp", "amplitude", s.amplitude, 1) } },
      ctors.parameter { "f0", default = { number(loc, "chirp", "f0", s.f0) } },
      ctors.parameter { "f1", default = { number(loc, "chirp", "f1", s.f1) } },
      ctors.parameter { "duration", default = { T } },
      ctors.parameter { "phase", default = { number(loc, "chirp", "phase", s.phase, 0) } },
      ctors.parameter { "bias", default = { number(loc, "chirp", "bias", s.bias, 0) } },
      ctors.output_port { "y", size = 1, prerequisites = { "time", "amplitude", "f0", "f1", "duration", "phase", "bias" },
        calc = [[
double tt = t < duration[0] ? t : duration[0];
double cycles = f0[0] * tt + (f1[0] - f0[0]) * tt * tt / (2.0 * duration[0]) + f1[0] * (t - tt);
y[0] = amplitude[0] * sin(6.283185307179586 * cycles + phase[0]) + bias[0];]] },
    })
  end)
end

return M
