-- The viewer's world data without a browser (cli/page_world.lua,
-- cli/pack.lua; docs/viewer.md "Worlds in 3D"): the bodies' tree, joint
-- frames and shapes as the specs declare them (read by hand), and the
-- packed columns against IEEE 754 bytes written out independently
-- (Python's struct.pack('<d', ...) and base64).
local page_world = require("diagc.cli.page_world")
local pack = require("diagc.cli.pack")

local function worlds(spec)
  return page_world.describe(diagc.compile(diagc.root .. "/examples/" .. spec, {}).flat)
end

test("viewer_world.pack_f64", function()
  -- struct.pack('<3d', 1, -2.5, 0.1) in base64
  eq(pack.f64({ 1, -2.5, 0.1 }, 3), "AAAAAAAA8D8AAAAAAAAEwJqZmZmZmbk/")
  -- an empty cell is a NaN (quiet, either sign)
  local nan = pack.f64({ nil }, 1)
  assert(nan == "AAAAAAAA+H8=" or nan == "AAAAAAAA+P8=", nan)
  eq(pack.f64({}, 0), "")
end)

test("viewer_world.cartpole_tree", function()
  -- cartpole_lqr.lua: cart on a prismatic joint along x from the world,
  -- pole on a revolute joint about y on the cart, com 0.5 above the hinge
  local w = worlds("control/cartpole_lqr.lua")
  eq(#w, 1)
  w = w[1]
  eq(w.path, "plant")
  eq(w.position, "plant.position")
  eq(w.poses, "plant.poses")
  local cart, pole = w.bodies[1], w.bodies[2]
  eq(cart.name .. " " .. cart.joint .. " " .. cart.parent .. " " .. cart.q, "cart prismatic -1 0")
  eq(pole.name .. " " .. pole.joint .. " " .. pole.parent .. " " .. pole.q, "pole revolute 0 1")
  eq(table.concat(cart.axis, " "), "1 0 0")
  eq(table.concat(pole.axis, " "), "0 1 0")
  eq(table.concat(pole.com, " "), "0 0 0.5")
  eq(pole.pose, "plant.pole.pose")
  eq(#cart.shapes + #pole.shapes, 0)
  eq(table.concat(w.q, " "), "0 0.1")
end)

test("viewer_world.shapes_and_hulls", function()
  -- mesh/drop.lua: a ground plane; the wedge (wedge.obj, a prism: 6
  -- corners, 2 triangles and 3 rectangles) fixed 0.15 up; the crate of
  -- crate.urdf, a unit cube scaled to 0.4 x 0.3 x 0.2 (8 corners, 6 faces)
  local w = worlds("mesh/drop.lua")[1]
  local ground, wedge, crate = w.bodies[1], w.bodies[2], w.bodies[3]
  eq(ground.shapes[1].type, "plane")
  eq(ground.pose, nil)
  eq(table.concat(wedge.o, " "), "0 0 0.15")
  local h = wedge.shapes[1].hull
  eq(#h.vertices / 3 .. " " .. #h.faces, "6 5")
  local sides = {}
  for _, f in ipairs(h.faces) do sides[#sides + 1] = #f end
  table.sort(sides)
  eq(table.concat(sides, " "), "3 3 4 4 4")
  local c = crate.shapes[1].hull
  eq(#c.vertices / 3 .. " " .. #c.faces, "8 6")
  local ext = { 0, 0, 0 }
  for i = 0, 7 do
    for k = 1, 3 do ext[k] = math.max(ext[k], math.abs(c.vertices[3 * i + k])) end
  end
  eq(string.format("%.12g %.12g %.12g", ext[1], ext[2], ext[3]), "0.2 0.15 0.1")
  eq(crate.joint, "free")
  eq(crate.pose, "world.crate.pose")
end)
