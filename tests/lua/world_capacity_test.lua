-- A world's contact capacity (issue #26, docs/world.md "Capacity"): the
-- default max_contacts holds every contact the candidate pairs can produce
-- within the memory cap, so a stack of 20 cubes resting on the ground keeps
-- all of its 80 contacts (4 per face: 19 cube-on-cube faces and the ground)
-- and stays up; a lower max_contacts stops the simulation with the world,
-- the time, the count and the cap; contact_overflow = "drop" goes on and
-- counts the drops.
local S = dofile("tests/lua/world_support.lua")
local n, a, dt = 20, 0.2, 1e-3
local CONTACTS = 4 * n -- every resting face touches at its 4 corners

local function stack(settings) return S.cube_stack(diagc, n, settings, "tower", "s") end

local function world_of(m)
  for _, leaf in ipairs(m.gen.flat.leaves) do
    if leaf.type.world then return leaf.type.world end
  end
end

test("world_capacity.default_holds_a_20_cube_stack", function()
  local m = stack()
  local C = world_of(m)
  -- the rule: every pair's most contacts (190 cube pairs and 20 cube-ground
  -- pairs, 8 each), or the largest count whose step work fits the cap
  eq(C.nslots, 8 * (n * (n - 1) / 2 + n))
  local size, step = require("diagc.world.size"), require("diagc.world.step")
  local function bytes(mc)
    local D = setmetatable({ max_contacts = mc, ws_doubles = step.workspace_doubles(C.nv, mc) }, { __index = C })
    return step.work_bytes(D, "x_")
  end
  local cap = size.LIMITS.default_work
  truthy(C.max_contacts >= CONTACTS, "max_contacts " .. C.max_contacts)
  truthy(C.max_contacts == C.nslots or (bytes(C.max_contacts) <= cap and bytes(C.max_contacts + 1) > cap),
    "max_contacts " .. C.max_contacts .. " is not the largest count within the cap")
  local sim = m:simulator()
  local q0 = sim.context:get("tower.pos")
  sim:advance_to(0.5)
  local info = sim.context:get("tower.info")
  eq(info[1], CONTACTS) -- the last step's contacts
  eq(info[5], 0)        -- none dropped in it
  eq(info[7], 0)        -- no step dropped any
  eq(info[8], 0)        -- none dropped in all
  local q = sim.context:get("tower.pos")
  for i = 1, n do
    local z = q[7 * (i - 1) + 3]
    near(z, q0[7 * (i - 1) + 3], { atol = 1e-3 })
    truthy(z > a / 2 - 1e-3, string.format("box %d at z = %g, below the floor", i, z))
  end
end)

test("world_capacity.too_few_stops_with_the_count", function()
  local m = stack({ max_contacts = 40 })
  local sim = m:simulator()
  local rc, msg = sim:try_advance_to(0.5)
  truthy(rc < 0, "rc " .. tostring(rc))
  eq(msg, string.format("world \"tower\" needs %d contacts at t = 0 s, more than max_contacts = 40; raise "
    .. "max_contacts to at least %d or set contact_overflow = \"drop\" (docs/world.md, \"Capacity\")", CONTACTS,
    CONTACTS))
  expect_error(function() m:simulator():advance_to(0.5) end,
    "simulator: world \"tower\" needs 80 contacts at t = 0 s, more than max_contacts = 40;")
end)

test("world_capacity.drop_goes_on_and_counts", function()
  local sim = stack({ max_contacts = 40, contact_overflow = "drop" }):simulator()
  sim:advance_to(0.5 * dt) -- one step, from the resting stack
  local info = sim.context:get("tower.info")
  eq(info[1], 40)
  eq(info[5], CONTACTS - 40)
  eq(info[7], 1)
  eq(info[8], CONTACTS - 40)
  sim:advance_to(0.1)
  info = sim.context:get("tower.info")
  eq(info[1], 40)
  truthy(info[7] >= 2 and info[8] >= info[7] * 1, "steps " .. info[7] .. ", dropped " .. info[8])
end)

-- the default count's rule on sizes whose answer is known: every slot when
-- they fit, else the largest count within the cap, at least 1
test("world_capacity.default_count_is_the_largest_that_fits", function()
  local size = require("diagc.world.size")
  local cap = size.LIMITS.default_work
  local function linear(n) return 1e5 * n end
  eq(size.default_contacts(10, linear), 10)
  eq(size.default_contacts(50000, linear), math.floor(cap / 1e5))
  eq(size.default_contacts(50000, function(n) return 4096 + 8 * 15 * (3 * n) ^ 2 end),
    math.floor(math.sqrt((cap - 4096) / 120) / 3))
  eq(size.default_contacts(50000, function(n) return cap + n end), 1)
  eq(size.default_contacts(0, linear), 1)
end)
