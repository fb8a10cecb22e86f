-- testing/world_plant.lua: a world's step linearized at generation, for
-- the control library (lib/plant.lua; docs/world.md, "Linearizing a world
-- at generation").  The world alone becomes a model of its own, generated,
-- compiled in-process with TinyCC and linearized at the operating point by
-- the runtime's diagc_linearize (testing/linear.lua, the path of `diagc
-- linearize`), the step's generated Jacobian its source.  That model holds
-- only the world, whose C diagc generates from its bodies and joints: no
-- spec code is compiled or run (docs/security.md).
--
--   M.linearize(world, at) -> {A=, B=, h=, states=, x0=, u0=} | nil, problem
--     x[n+1] = x0 + A (x[n] - x0) + B (u[n] - u0), x = (q, v) of every
--     joint, u the `effort` input, h the world's time_step
local M = {}

-- how far one step may move the operating point and still be an
-- equilibrium (relative to the point's size)
M.EQUILIBRIUM_TOLERANCE = 1e-9

local function zeros(n)
  local t = {}
  for i = 1, n do t[i] = 0 end
  return t
end

-- at.q, at.v, at.effort: nil (zeros) or n finite numbers
local function operating_vector(at, key, n, what)
  local v = at[key]
  if v == nil then return zeros(n) end
  if type(v) == "number" and n == 1 then v = { v } end
  if type(v) ~= "table" or #v ~= n then
    return nil, string.format("at.%s must be %d number%s (%s)", key, n, n == 1 and "" or "s", what)
  end
  local out = {}
  for i = 1, n do
    local x = rawget(v, i)
    if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
      return nil, string.format("at.%s[%d] must be a finite number", key, i)
    end
    out[i] = x
  end
  return out
end

local AT_KEYS = { q = true, v = true, effort = true }

function M.linearize(world, at)
  local dsl = require("diagc.spec.dsl")
  if not dsl.is_world(world) or not dsl.record(world) then
    return nil, "plant must be a world made by world \"name\" { ... } in this spec"
  end
  at = at or {}
  if type(at) ~= "table" then return nil, "at must be a table { q = {...}, v = {...}, effort = {...} }" end
  for k in next, at do
    if not AT_KEYS[k] then return nil, string.format("at: unknown key '%s' (q, v, effort)", tostring(k)) end
  end
  local rec = dsl.record(world)
  local loc = rec.loc
  -- the world checked alone (its errors are its own, at its lines), then
  -- alone in a diagram with its effort exported, frozen as spec.load
  -- freezes a spec
  local frozen = require("diagc.spec.load").freeze(world)
  local C = require("diagc.world.check").check(frozen)
  if C.nq ~= C.nv then
    return nil, string.format("world \"%s\" has a ball or free joint (%d coordinates, %d rates): its "
      .. "quaternions are not coordinates a linear model can hold; linearize worlds of revolute and "
      .. "prismatic joints", rec.name, C.nq, C.nv)
  end
  if #C.actuated == 0 then
    return nil, string.format("world \"%s\" has no actuated joint, so no input to design for; give "
      .. "the joints the controller drives actuated = true", rec.name)
  end
  local n, m = C.nq + C.nv, #C.actuated
  local q, why = operating_vector(at, "q", C.nq, "one per joint coordinate, in tree order")
  if not q then return nil, why end
  local v
  v, why = operating_vector(at, "v", C.nv, "one per joint rate, in tree order")
  if not v then return nil, why end
  local u
  u, why = operating_vector(at, "effort", m, "one per actuated joint")
  if not u then return nil, why end
  local root = {
    _kind = "diagram", name = "plant", loc = loc, items = {
      { _item = "system", loc = loc, args = { "w", frozen } },
      { _item = "export_input", loc = loc, args = { "w.effort", as = "effort" } },
    },
  }
  local compile = require("diagc.compile")
  -- (a model of its own, in a TinyCC state of its own: a fixed prefix)
  local gen = compile.compile_loaded({ root = root, sources = {}, main = loc.file }, { prefix = "plant" })

  local model = require("diagc.testing.model").from_generated(gen)
  local ctx = model:context()
  ctx:set("w.pos", q)
  ctx:set("w.vel", v)
  ctx:set("effort", u)
  local r, msg = require("diagc.testing.linear").linearize(model, ctx,
    { mode = "first_order_taylor", input = "effort", output = "none" })
  if not r then return nil, "linearizing the world: " .. msg end
  -- the operating point must be an equilibrium: one step stays put
  local x0 = {}
  for i = 1, C.nq do x0[i] = q[i] end
  for i = 1, C.nv do x0[C.nq + i] = v[i] end
  -- (the affine model x[n+1] = A x + B u + f0: the step from the point)
  local worst, at_state = 0, nil
  for i = 1, n do
    local next = r.f0[i]
    for j = 1, n do next = next + r.A[i][j] * x0[j] end
    for j = 1, m do next = next + r.B[i][j] * u[j] end
    local d = math.abs(next - x0[i]) / (1 + math.abs(x0[i]))
    if not (d <= worst) then worst, at_state = d, r.states[i]:gsub("^w%.", "") end
  end
  if worst > M.EQUILIBRIUM_TOLERANCE then
    return nil, string.format("the operating point is not an equilibrium of world \"%s\": one step "
      .. "moves %s by %.3g; give the effort that holds it (at.effort; diagc trim finds it)",
      rec.name, at_state, worst)
  end
  -- the world's state groups come in the order pos, vel, imp, info
  -- (world/lower.lua): (q, v) are the first n
  local A, B, states = {}, {}, {}
  for i = 1, n do
    local group = r.states[i]:match("^w%.([%w_]+)")
    assert(group and group ~= "imp" and group ~= "info", "world_plant: the state starts with q and v")
    A[i], B[i], states[i] = {}, {}, r.states[i]:gsub("^w%.", "")
    for j = 1, n do A[i][j] = r.A[i][j] end
    for j = 1, m do B[i][j] = r.B[i][j] end
  end
  return { A = A, B = B, h = r.time_period, states = states, x0 = x0, u0 = u }
end

return M
