-- bench/world: a pile of 30 cubes of 0.2 m dropped on the ground (friction
-- 0.6) from a seeded random arrangement.  The poses come from the
-- generator of bench/world/pile.h, written again here in Lua (every value
-- is exact in a double, so both give the same bits; world_bench.c checks
-- the model's initial state against pile.h before it times anything):
--   MINSTD, s <- 48271 s mod (2^31 - 1), u = s / (2^31 - 1), seed 20260326;
--   5 layers of 3 x 2 sites 0.4 m apart, the odd layers shifted by
--   (0.2, 0.2) so their cubes land across the gaps below; the lowest
--   centres at z = 0.2, layers 0.4 m apart;
--   per cube, in order: x, y, z jitter 0.02 (2u - 1) m each, then a
--   rotation of 0.15 (2u - 1) rad about the axis (2u - 1, 2u - 1, 2u - 1)
--   (normalized; axes shorter than 0.1 are drawn again).
-- Centres are at least 0.4 - 2 * 0.02 = 0.36 m apart along some axis, more
-- than the cube's circumscribed diameter 0.2 sqrt 3 = 0.346 m, and the
-- lowest are 0.18 m above the ground: no overlaps at any rotation.
local a, m = 0.2, 1.0
local I = m * a * a / 6
-- TODO(cap): max_contacts goes when its default comes from the static pairs
local items = { time_step = 1e-3, friction = 0.6, max_contacts = 256, gradients = false }
items[1] = body { "ground", joint = { "fixed" }, shapes = { { "plane" } } }
local s = 20260326
local function u()
  s = (48271 * s) % 2147483647
  return s / 2147483647
end
for layer = 0, 4 do
  for j = 0, 1 do
    for i = 0, 2 do
      local sh = (layer % 2) * 0.2
      local x = -0.4 + 0.4 * i + sh + 0.02 * (2 * u() - 1)
      local y = -0.2 + 0.4 * j + sh + 0.02 * (2 * u() - 1)
      local z = 0.2 + 0.4 * layer + 0.02 * (2 * u() - 1)
      local th = 0.15 * (2 * u() - 1)
      local ax, ay, az, n
      repeat
        ax, ay, az = 2 * u() - 1, 2 * u() - 1, 2 * u() - 1
        n = math.sqrt(ax * ax + ay * ay + az * az)
      until n >= 0.1
      local sn = math.sin(th / 2) / n
      items[#items + 1] = body { "box" .. #items, mass = m, inertia = { I, I, I },
        joint = { "free", q = { x, y, z, math.cos(th / 2), sn * ax, sn * ay, sn * az } },
        shapes = { { "box", size = { a, a, a } } } }
    end
  end
end
return diagram "pile" { system { "world", world "pile" (items) } }
