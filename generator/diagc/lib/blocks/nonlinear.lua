-- lib/blocks/nonlinear.lua: discontinuous blocks with memory or steps
-- (docs/library.md, "Blocks"): a relay with hysteresis, a quantizer, a
-- rate limiter.  Their outputs are piecewise constant in their input (the
-- relay, the quantizer) or a state (the rate limiter), so the Jacobians
-- through them are exact where they exist: zero across the relay and the
-- quantizer, the update's own derivative for the rate limiter.
local M = {}

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, number, count, vector, leaf, raise, fmt =
    K.ctors, K.settings, K.number, K.count, K.vector, K.leaf, K.raise, K.fmt

  -- y = on_value once u rises to on, off_value once it falls to off
  -- (off < on): the switch is a witness (the simulator lands on the
  -- crossing) whose update flips the state `on`; at initialization the
  -- state follows u when u is outside the band, else `initial`.
  def("relay", function(s, loc)
    s = settings(loc, "relay", s, { on = true, off = true, on_value = true, off_value = true, initial = true })
    local on, off = number(loc, "relay", "on", s.on), number(loc, "relay", "off", s.off)
    if not (off < on) then raise(loc, "blocks.relay: off = %s must be below on = %s (the hysteresis band)", fmt(off), fmt(on)) end
    local initial = K.choice(loc, "relay", "initial", s.initial, "off", { "off", "on" })
    return leaf(loc, "Relay", {
      ctors.parameter { "on_at", default = { on } },
      ctors.parameter { "off_at", default = { off } },
      ctors.parameter { "on_value", default = { number(loc, "relay", "on_value", s.on_value, 1) } },
      ctors.parameter { "off_value", default = { number(loc, "relay", "off_value", s.off_value, 0) } },
      ctors.discrete_state { "on", default = { initial == "on" and 1 or 0 } },
      ctors.input_port { "u", size = 1 },
      ctors.initialization_unrestricted_update { "start", prerequisites = { "u", "on", "on_at", "off_at" }, writes = { "on" },
        calc = "if (u[0] >= on_at[0]) on_next[0] = 1.0; else if (u[0] <= off_at[0]) on_next[0] = 0.0;" },
      ctors.witness { "flip", direction = "negative_to_nonnegative", prerequisites = { "u", "on", "on_at", "off_at" },
        calc = "value = on[0] != 0.0 ? off_at[0] - u[0] : u[0] - on_at[0];",
        unrestricted_update = "on_next[0] = on[0] != 0.0 ? 0.0 : 1.0;", writes = { "on" } },
      ctors.output_port { "y", size = 1, prerequisites = { "on", "on_value", "off_value" },
        calc = "y[0] = on[0] != 0.0 ? on_value[0] : off_value[0];" },
    })
  end)

  -- y = interval * floor(u / interval + 1/2): u rounded to the nearest
  -- multiple of interval (halves up)
  def("quantizer", function(s, loc)
    s = settings(loc, "quantizer", s, { interval = true, size = true })
    local n = count(loc, "quantizer", "size", s.size, 1)
    local q = number(loc, "quantizer", "interval", s.interval)
    if not (q > 0) then raise(loc, "blocks.quantizer: interval must be positive, got %s", fmt(q)) end
    return leaf(loc, "Quantizer", {
      ctors.parameter { "interval", default = { q } },
      ctors.input_port { "u", size = n },
      ctors.output_port { "y", size = n, prerequisites = { "u", "interval" }, calc = string.format(
        "for (int i = 0; i < %d; i++) y[i] = interval[0] * floor(u[i] / interval[0] + 0.5);", n) },
    })
  end)

  -- sampled every period: y moves towards u by at most rising * period up
  -- and falling * period down (rates per second, both positive)
  def("rate_limiter", function(s, loc)
    s = settings(loc, "rate_limiter", s, { rising = true, falling = true, period = true, offset = true, x0 = true, size = true })
    local period, offset = K.timing(loc, "rate_limiter", s)
    local n = count(loc, "rate_limiter", "size", s.size, 1)
    local up = number(loc, "rate_limiter", "rising", s.rising)
    local down = number(loc, "rate_limiter", "falling", s.falling, up)
    if not (up > 0 and down > 0) then
      raise(loc, "blocks.rate_limiter: rising and falling must be positive (rates per second), got %s and %s", fmt(up), fmt(down))
    end
    return leaf(loc, "RateLimiter", {
      ctors.parameter { "rising", default = { up } },
      ctors.parameter { "falling", default = { down } },
      ctors.discrete_state { "x", default = vector(loc, "rate_limiter", "x0", s.x0 or 0, n) },
      ctors.input_port { "u", size = n },
      ctors.periodic_discrete_update { "step", period = period, offset = offset, writes = { "x" },
        prerequisites = { "u", "x", "rising", "falling" }, calc = string.format([[
for (int i = 0; i < %d; i++) {
  double d = u[i] - x[i], hi = rising[0] * %s, lo = -falling[0] * %s;
  x_next[i] = x[i] + (d > hi ? hi : d < lo ? lo : d);
}]], n, fmt(period), fmt(period)) },
      ctors.output_port { "y", size = n, prerequisites = { "x" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = x[i];", n) },
    })
  end)
end

return M
