-- Run with: bin/diagc test examples/control/ball_box_test.lua
-- The ball thrown at the box on the table (ball_box.lua), against closed
-- forms: the flight (semi-implicit Euler: x = x0 + vx t, z_n = z0 -
-- g dt^2 n (n + 1) / 2), the box at rest until the hit, the frictionless
-- impact with restitution 0.5 (docs/world.md, "Impacts") against the box's
-- mass and its inertia about the hit's height, and the slide that follows,
-- decelerating at mu g, for the world's friction and for a lower one set
-- as the parameter (the engineer's sweep).
local m = diagc.jit(diagc.root .. "/examples/control/ball_box.lua")
local G, DT, E = 9.81, 1e-3, 0.5
local MB, M, SIDE = 0.2, 1.0, 0.2 -- ball, box (kg), the box's side (m)
local I = M * SIDE * SIDE / 6     -- the box's inertia about y

-- steps the world one step at a time: box and ball poses and velocities
-- after each (body order: box, then ball; free joints: x y z qw qx qy qz
-- and vx vy vz wx wy wz)
local function run(mu, n)
  local sim = m:simulator()
  if mu then sim.context:set_param("world.friction", mu) end
  local out = {}
  for k = 1, n do
    sim:advance_to(k * DT)
    local q, v = sim.context:get("world.pos"), sim.context:get("world.vel")
    out[k] = { box = { q[1], q[2], q[3] }, ball = { q[8], q[9], q[10] },
      vbox = v[1], vball = v[7], vzbox = v[3] }
  end
  return out
end

local function hit_step(r)
  for k = 1, #r do if r[k].vball < 4 then return k end end
end

test("ball_box.flight_and_box_at_rest", function()
  local r = run(nil, 400)
  local k = hit_step(r)
  truthy(k and k > 150 and k < 250, "the ball hits the box at step " .. tostring(k))
  for n = 1, k - 1 do
    near(r[n].ball[1], -0.5 + 4 * n * DT, { atol = 1e-12 })
    near(r[n].ball[3], 1.07 - G * DT * DT * n * (n + 1) / 2, { atol = 1e-12 })
    near(r[n].box, { 0.5, 0, 0.85 }, { atol = 1e-12 })
  end
end)

test("ball_box.impact_is_newtons_law", function()
  local r = run(nil, 400)
  local k = hit_step(r)
  -- the hit's height against the box's centre at the start of the step:
  -- the impulse P along x turns the box too (1 / m_eff = 1 / M + d^2 / I)
  local d = r[k - 1].ball[3] - r[k - 1].box[3]
  local P = (1 + E) * 4 / (1 / MB + 1 / M + d * d / I)
  near(r[k].vball, 4 - P / MB, { atol = 1e-9 })
end)

local function slide(mu)
  local r = run(mu, 1500)
  local k = hit_step(r)
  -- once the box's rocking from the hit has settled (its vertical
  -- velocity round-off), it slides and decelerates by mu g dt per step
  local s
  for n = k, #r do
    if math.abs(r[n].vzbox) < 1e-12 and r[n].vbox > 0.1 then s = n break end
  end
  truthy(s and s < k + 50, "the box settles to sliding within 50 steps of the hit")
  for n = s + 1, s + 100 do near(r[n - 1].vbox - r[n].vbox, mu * G * DT, { rtol = 1e-9 }) end
  -- and then stops and stays
  near(r[#r].box[1], r[#r - 300].box[1], { atol = 1e-9 })
  return r[#r].box[1] - 0.5
end

test("ball_box.slide_with_the_worlds_friction", function()
  slide(0.4)
end)

test("ball_box.friction_parameter_sweep", function()
  local d4, d2 = slide(0.4), slide(0.2)
  -- v^2 / (2 mu g) from the same speed: half the friction, about twice the
  -- slide (the speed after the rocking differs a little)
  truthy(d2 > 1.8 * d4 and d2 < 2.2 * d4, ("slides %.4f m at 0.4, %.4f m at 0.2"):format(d4, d2))
end)
