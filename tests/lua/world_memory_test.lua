-- A world's context memory (issue #26, docs/world.md "Context size"): the
-- 50-cube stack fits in 2 MB, the context grows linearly with
-- max_contacts (the step's arrays and the warm-start table are sized per
-- contact; the mass matrix per tree), and the warm start is a table of the
-- last step's contacts ([key, n, t1, t2] each, key = 1 + 1024 pair +
-- feature, in increasing key order) that a restored context, caching off
-- and a table of keys that match no contact all handle exactly.  The figures are the C struct's size
-- (the model descriptor's context_size).
local S = dofile("tests/lua/world_support.lua")
local mass, g, dt = 1.0, 9.81, 1e-3

-- n cubes stacked on the ground, at rest; settings added to the world's
local function stack(n, settings) return S.cube_stack(diagc, n, settings, "w", "s") end

local function context_bytes(m) return tonumber(m.desc.context_size) end

test("world_memory.stack_50_under_2MB", function()
  -- the bench's 50-cube stack (bench/world/specs/stack.lua.in): 4 contacts
  -- per resting face, 51 faces with the ground's, and 4 spare
  local bytes = context_bytes(stack(50, { max_contacts = 4 * 50 + 4 }))
  truthy(bytes < 2e6, "the 50-cube stack's context is " .. bytes .. " bytes")
end)

test("world_memory.linear_in_contacts", function()
  -- max_contacts a multiple of 16 keeps every array of the step's
  -- workspace a whole number of its 64-byte alignment: exactly linear
  local counts, bytes = { 48, 96, 144, 192 }, {}
  for i, mc in ipairs(counts) do bytes[i] = context_bytes(stack(10, { max_contacts = mc })) end
  local per = (bytes[2] - bytes[1]) / 48
  for i = 3, #counts do eq(bytes[i] - bytes[i - 1], bytes[2] - bytes[1]) end
  -- regression guards: bytes per contact (its rows, the sparse method's
  -- pools and the warm-start entries) and the part that does not grow
  -- (10 cubes: their 6 x 6 blocks of M, the dense fallback's 48 rows)
  truthy(per < 6200, "bytes per contact " .. per)
  local fixed = bytes[1] - 48 * per
  truthy(fixed < 450e3, "fixed bytes " .. fixed)
end)

-- the world's state after k steps of a simulator
local function state(sim)
  local c = sim.context
  return { pos = c:get("w.pos"), vel = c:get("w.vel"), imp = c:get("w.imp"), info = c:get("w.info") }
end

local function advance(sim, k) sim:advance_to((k - 0.5) * dt) end

local function start_from(m, s, imp)
  local sim = m:simulator()
  for _, key in ipairs({ "pos", "vel", "info" }) do sim.context:set("w." .. key, s[key]) end
  sim.context:set("w.imp", imp or s.imp)
  return sim
end

test("world_memory.warm_start_table", function()
  local n = 3
  local m = stack(n)
  local sim = m:simulator()
  advance(sim, 100)
  local s = state(sim)
  local nc = s.info[1]
  eq(nc, 4 * n) -- every resting face on its 4 corners
  -- entries: increasing integer keys, then zero entries; the normal
  -- impulses carry the weight of the stack on the ground: n m g dt
  local ground, last = 0, 0
  for e = 0, #s.imp / 4 - 1 do
    local key = s.imp[4 * e + 1]
    if e < nc then
      truthy(key > last and key == math.floor(key), "entry " .. e .. " key " .. key)
      last = key
    else
      eq({ s.imp[4 * e + 1], s.imp[4 * e + 2], s.imp[4 * e + 3], s.imp[4 * e + 4] }, { 0, 0, 0, 0 })
    end
  end
  -- the cube-ground pairs come first (the ground's shape is the first)
  for e = 0, 3 do ground = ground + s.imp[4 * e + 2] end
  near(ground, n * mass * g * dt, { rtol = 1e-9 })
  eq(s.info[4], 0) -- at rest the warm start is the answer: no pivots, no sweeps

  -- a context restored from the state steps exactly as the original
  advance(sim, 200)
  local want = state(sim)
  local b = start_from(m, s)
  advance(b, 100)
  eq(state(b), want)
  -- caching off gives the same bits
  local c = m:simulator()
  c.context:set_caching(false)
  advance(c, 200)
  eq(state(c), want)

  -- keys that match no contact (negative, fractional, beyond every pair)
  -- are no warm start at all: the same step as an empty table
  local bogus, zero = {}, {}
  for i = 1, #s.imp do bogus[i], zero[i] = s.imp[i], 0 end
  for e = 0, nc - 1 do bogus[4 * e + 1] = ({ -3, 2.5, 1e9 })[e % 3 + 1] end
  local x, y = start_from(m, s, bogus), start_from(m, s, zero)
  advance(x, 1)
  advance(y, 1)
  local sx, sy = state(x), state(y)
  eq(sx, sy)
  truthy(sy.info[4] > 0, "from no warm start the solve pivots")
end)
