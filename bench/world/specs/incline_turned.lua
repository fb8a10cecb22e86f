-- bench/world: a 0.2 m cube on a plane tilted 20 degrees about a horizontal
-- axis at 45 degrees to x (it falls along (1, -1, 0) / sqrt 2), friction
-- 0.3 < tan 20 degrees: it slides at g (sin 20 - 0.3 cos 20) in Coulomb's
-- law, whatever the slope's direction.  DART's and MuJoCo's scenes in
-- bench/world/dart_scenes.cpp and mujoco_scenes.c.
local th, phi, a = math.rad(20), math.rad(45), 0.2
local u = { math.cos(phi), math.sin(phi), 0 } -- the tilt axis
-- R = rotation by th about u (Rodrigues), as URDF's rpy (R = Rz Ry Rx)
local c, s = math.cos(th), math.sin(th)
local function R(i, j)
  local K = { { 0, -u[3], u[2] }, { u[3], 0, -u[1] }, { -u[2], u[1], 0 } }
  local KK = 0
  for k = 1, 3 do KK = KK + K[i][k] * K[k][j] end
  return (i == j and 1 or 0) + s * K[i][j] + (1 - c) * KK
end
local rpy = { math.atan2(R(3, 2), R(3, 3)), math.asin(-R(3, 1)), math.atan2(R(2, 1), R(1, 1)) }
local n = { R(1, 3), R(2, 3), R(3, 3) } -- the slope's normal
return diagram "incline_turned" { system { "world", world "slope" {
  time_step = 1e-3, friction = 0.3,
  body { "slope", joint = { "fixed", rpy = rpy }, shapes = { { "plane" } } },
  body { "box", mass = 1, inertia = { a * a / 6, a * a / 6, a * a / 6 },
    joint = { "free", q = { n[1] * a / 2, n[2] * a / 2, n[3] * a / 2,
      math.cos(th / 2), math.sin(th / 2) * u[1], math.sin(th / 2) * u[2], 0 } },
    shapes = { { "box", size = { a, a, a } } } },
} } }
