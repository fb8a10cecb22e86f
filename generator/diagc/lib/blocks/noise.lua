-- lib/blocks/noise.lua: seeded random noise (docs/library.md, "Noise"),
-- uniform or Gaussian, drawn at offset + k period and held (band-limited
-- by the period), reproducible bit for bit from its seed.
--
-- The generator is L'Ecuyer's combined multiple recursive generator
-- MRG32k3a: two recurrences of order 3,
--   x1[n] = (1403580 x1[n-2] - 810728 x1[n-3]) mod m1, m1 = 2^32 - 209
--   x2[n] = (527612 x2[n-1] - 1370589 x2[n-3]) mod m2, m2 = 2^32 - 22853
-- combined as z = (x1[n] - x2[n]) mod m1, u = (z + 1) / (m1 + 1) in (0, 1).
-- Every product is below 2^53, so the six state words are integers held
-- exactly in doubles (the discrete state `s`), and the C is plain double
-- arithmetic with floor (no integer types, no bit operations): the same
-- bits under every compiler.  The seed starts both recurrences at
-- (0, 0, seed).  A Gaussian value is Box-Muller's sqrt(-2 ln u1)
-- cos(2 pi u2), two draws per value.
local M = {}

local M1, M2 = 4294967087, 4294944443

-- C statements that advance the six words w0..w5 and leave comb = z
local DRAW = [[
{ double p1 = 1403580.0 * w1 - 810728.0 * w0;
  p1 -= floor(p1 / 4294967087.0) * 4294967087.0; if (p1 < 0.0) p1 += 4294967087.0;
  w0 = w1; w1 = w2; w2 = p1; }
{ double p2 = 527612.0 * w5 - 1370589.0 * w3;
  p2 -= floor(p2 / 4294944443.0) * 4294944443.0; if (p2 < 0.0) p2 += 4294944443.0;
  w3 = w4; w4 = w5; w5 = p2; }
comb = w2 - w5; if (comb < 0.0) comb += 4294967087.0;
]]

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, number, count, leaf, raise, fmt = K.ctors, K.settings, K.number, K.count, K.leaf, K.raise, K.fmt

  def("noise", function(s, loc)
    s = settings(loc, "noise", s, { seed = true, period = true, offset = true, distribution = true,
      lower = true, upper = true, mean = true, sd = true, size = true })
    if s.seed == nil then
      raise(loc, "blocks.noise needs seed, a whole number from 1 to %d (the same seed gives the same bits)", M2 - 1)
    end
    local seed = number(loc, "noise", "seed", s.seed)
    if seed ~= math.floor(seed) or seed < 1 or seed > M2 - 1 then
      raise(loc, "blocks.noise: seed must be a whole number from 1 to %d, got %s", M2 - 1, fmt(seed))
    end
    local period, offset = K.timing(loc, "noise", s)
    local n = count(loc, "noise", "size", s.size, 1)
    if n > 256 then raise(loc, "blocks.noise: size must be at most 256, got %d", n) end
    local dist = K.choice(loc, "noise", "distribution", s.distribution, "uniform", { "uniform", "gaussian" })
    local items, value
    if dist == "uniform" then
      if s.mean ~= nil or s.sd ~= nil then raise(loc, "blocks.noise: uniform noise takes lower and upper (not mean, sd)") end
      local lo, hi = number(loc, "noise", "lower", s.lower, -1), number(loc, "noise", "upper", s.upper, 1)
      if not (lo < hi) then raise(loc, "blocks.noise: lower = %s must be below upper = %s", fmt(lo), fmt(hi)) end
      items = { ctors.parameter { "lower", default = { lo } }, ctors.parameter { "upper", default = { hi } } }
      value = DRAW .. "held_next[i] = lower[0] + (upper[0] - lower[0]) * ((comb + 1.0) / 4294967088.0);"
    else
      if s.lower ~= nil or s.upper ~= nil then raise(loc, "blocks.noise: gaussian noise takes mean and sd (not lower, upper)") end
      local sd = number(loc, "noise", "sd", s.sd, 1)
      if not (sd >= 0) then raise(loc, "blocks.noise: sd must be at least 0, got %s", fmt(sd)) end
      items = { ctors.parameter { "mean", default = { number(loc, "noise", "mean", s.mean, 0) } },
        ctors.parameter { "sd", default = { sd } } }
      value = DRAW .. "double u1 = (comb + 1.0) / 4294967088.0;\n" .. DRAW
        .. "double u2 = (comb + 1.0) / 4294967088.0;\n"
        .. "held_next[i] = mean[0] + sd[0] * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);"
    end
    local pre = { "s" }
    for _, it in ipairs(items) do pre[#pre + 1] = it.args[1] end
    items[#items + 1] = ctors.discrete_state { "s", default = { 0, 0, seed, 0, 0, seed } }
    items[#items + 1] = ctors.discrete_state { "held", default = K.vector(loc, "noise", "x0", 0, n) }
    items[#items + 1] = ctors.periodic_discrete_update { "draw", period = period, offset = offset,
      prerequisites = pre, writes = { "s", "held" }, calc = string.format([[
double w0 = s[0], w1 = s[1], w2 = s[2], w3 = s[3], w4 = s[4], w5 = s[5], comb = 0.0;
for (int i = 0; i < %d; i++) {
%s
}
s_next[0] = w0; s_next[1] = w1; s_next[2] = w2; s_next[3] = w3; s_next[4] = w4; s_next[5] = w5;]], n, value) }
    items[#items + 1] = ctors.output_port { "y", size = n, prerequisites = { "held" },
      calc = string.format("for (int i = 0; i < %d; i++) y[i] = held[i];", n) }
    return leaf(loc, dist == "uniform" and "UniformNoise" or "GaussianNoise", items)
  end)
end

return M
