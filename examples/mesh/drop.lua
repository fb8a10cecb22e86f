-- examples/mesh/drop.lua: a crate whose collision shape is a mesh (its
-- convex hull; crate.urdf names it package://demo_meshes/..., found through
-- package_path) dropped onto a wedge read from an OBJ file, fixed on the
-- ground: it lands on the wedge's 37 degree slope, turns onto it and stays
-- there (friction 0.8 > tan 37 degrees).
local W = world "drop" {
  time_step = 1e-3,
  friction = 0.8,
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  -- a wedge (OBJ), fixed, its flat 0.6 x 0.4 face down on the ground
  body { "wedge", joint = { "fixed", xyz = { 0, 0, 0.15 } },
    shapes = { { "mesh", file = "demo_meshes/meshes/wedge.obj" } } },
  urdf { "crate.urdf", base = "free", xyz = { 0.1, -0.1, 0.6 }, package_path = "." },
}

return diagram "drop" {
  system { "world", W },
  log { "world.position", period = 0.1 },
}
