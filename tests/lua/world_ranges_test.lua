-- The ranges of a world's numbers (world/ranges.lua): docs/world.md's table
-- is the table's text; each range's ends are accepted and the numbers just
-- outside refused; worlds at the ends of every range generate, compile and
-- step with finite constants and state; and a constant that does not fold
-- (possible only by bypassing the checks) is an error at the world's line.
local ranges = require("diagc.world.ranges")
local check = require("diagc.world.check")
local lower = require("diagc.world.lower")
local errors = require("diagc.errors")
local dsl = diagc.dsl

test("world_ranges.docs_table_is_the_table", function()
  local f = assert(io.open(diagc.root .. "/docs/world.md", "rb"))
  local doc = f:read("*a")
  f:close()
  local want = ranges.markdown()
  assert(doc:find(want, 1, true), "docs/world.md does not hold ranges.markdown()'s table; paste it:\n" .. want)
end)

test("world_ranges.ends_accepted_outside_refused", function()
  for _, r in ipairs(ranges.LIST) do
    local lo = r.kind == "magnitude" and -r.hi or r.lo
    eq(ranges.why_not(r.key, lo), nil)
    eq(ranges.why_not(r.key, r.hi), nil)
    local below = lo == 0 and -1e-300 or lo - math.abs(lo) * 1e-12
    assert(ranges.why_not(r.key, below):find("below the smallest", 1, true), r.key)
    assert(ranges.why_not(r.key, r.hi * (1 + 1e-12)):find("above the largest", 1, true), r.key)
    for _, bad in ipairs({ 0 / 0, math.huge, -math.huge }) do
      assert(ranges.why_not(r.key, bad):find("not a finite number", 1, true), r.key)
    end
    if r.kind == "integer" then assert(ranges.why_not(r.key, lo + 0.5):find("not an integer", 1, true)) end
  end
  eq(ranges.describe("mass"), "[1e-9, 1e9] kg")
  eq(ranges.describe("position"), "[-1e6, 1e6] m")
end)

local R = ranges.BY_KEY

-- a world with every number at one end of its range (hi = true: the
-- largest magnitudes, else the smallest)
local function extreme_world(hi)
  local function v(key) return hi and R[key].hi or (R[key].lo or 0) end
  local m, I, p = v("mass"), v("inertia"), hi and R.position.hi or 0
  local size, a = v("size"), hi and R.angle.hi or -R.angle.hi
  local items = {
    gravity = { R.gravity.hi, -R.gravity.hi, -R.gravity.hi }, time_step = v("time_step"), friction = v("friction"),
    erp = v("erp"), cfm = v("cfm"), margin = v("margin"), allowed_penetration = v("allowed_penetration"),
    bounce_threshold = v("bounce_threshold"),
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane", xyz = { p, -p, p } } } },
    dsl.body { "base", mass = m, com = { p, -p, p }, inertia = { I, I, I, I / 10, -I / 10, I / 10 },
      joint = { "free", xyz = { -p, p, p }, rpy = { a, -a, a }, q = { p, p, -p, 1, 0, 0, 0 },
        v = { R.speed.hi, -R.speed.hi, R.speed.hi, R.speed.hi, R.speed.hi, -R.speed.hi } },
      shapes = { { "box", size = { size, size, size }, xyz = { p, p, p } },
        { "capsule", radius = size, length = v("length") } } },
    dsl.body { "arm", mass = m, com = { p, p, -p }, inertia = { I, I, I },
      joint = { "revolute", parent = "base", xyz = { p, p, p }, axis = { 1, 1e-300, 0 }, q = { a }, v = { R.speed.hi },
        damping = v("damping") },
      shapes = { { "sphere", radius = size } } },
    dsl.body { "slider", mass = m, inertia = { I, I, I },
      joint = { "prismatic", parent = "arm", axis = { 0, 1, 0 }, q = { -p }, v = { -R.speed.hi } },
      shapes = { { "sphere", radius = size } } },
  }
  return dsl.diagram "ends" { dsl.system { "w", dsl.world "ends" (items) } }
end

test("world_ranges.ends_generate_and_step_finitely", function()
  for _, hi in ipairs({ true, false }) do
    local m = diagc.jit(extreme_world(hi))
    local s = m:simulator()
    s:initialize()
    -- the simulator checks that every state stays finite
    s:advance_to(2 * (hi and R.time_step.hi or R.time_step.lo))
  end
end)

test("world_ranges.nonfinite_fold_is_an_error_at_the_world", function()
  local W = { _kind = "world", name = "w", loc = { file = "here.lua", line = 3 }, settings = {}, items = {
    { _item = "body", loc = { file = "here.lua", line = 4 }, args = { "ball", mass = 1, inertia = { 1, 1, 1 },
      joint = { "free", rpy = { 0, 0, math.pi / 4 } } } } } }
  local C = check.check(W)
  -- past the checks: a gravity whose body-frame components (folded for a
  -- lone free body turned by 45 degrees) overflow (the masses, centres of
  -- mass and inertias are parameters, no constants)
  C.gravity = { 1.5e308, 1.5e308, 0 }
  local ok, e = pcall(lower.preamble, C, lower.prefix(C))
  assert(not ok and errors.is(e), tostring(e))
  eq(errors.format(e), "here.lua:3: world \"w\": a constant of its generated bias forces (gravity on the masses, "
    .. "Coriolis terms) is inf: the bodies' masses, inertias, centres of mass and placements combine to "
    .. "overflow; keep them within the ranges of docs/world.md")
end)
