-- bench/world: a pile of 30 cubes of 0.2 m dropped on the ground (friction
-- 0.6) from a seeded random arrangement: pile_poses of
-- bench/world/box_scenes.h (which says how it is drawn and why no two cubes
-- overlap), written again here in Lua.  The MINSTD draws are exact in
-- doubles, so both give the same numbers up to the last bit of sin, cos
-- and sqrt; world_bench.c checks the model's initial state against
-- box_scenes.h (to 1e-15) before it times anything.  It settles by 1.8 s.
-- bench/world/run writes the ensemble's other piles, pile_s1.lua ...
-- pile_s4.lua, from this file with the seed 20260326 + 7919 k.
local a, m = 0.2, 1.0
local I = m * a * a / 6
-- max_contacts = 256 is set so that the context compares with the stacks'
-- (1.7 MB); the default (every slot within the 8 MiB work cap: 1 545
-- contacts, 8.5 MB) steps the pile at the same speed (measured 2026-11-29).
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
