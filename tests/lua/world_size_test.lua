-- The size limits of a world (world/size.lua), decided before any code is
-- generated: the figures they use against what the generator then does.
local size = require("diagc.world.size")
local check = require("diagc.world.check")
local step = require("diagc.world.step")
local grad = require("diagc.world.grad")
local tangent = require("diagc.world.tangent")
local load = require("diagc.spec.load")
local dsl = diagc.dsl

local function frozen(items, settings)
  return { _kind = "world", name = "w", loc = { file = "here.lua", line = 1 }, settings = settings or {},
    items = items }
end

local function body(name, joint, shapes)
  return { _item = "body", loc = { file = "here.lua", line = 2 }, args = { name, mass = 1,
    inertia = { 0.01, 0.01, 0.01 }, joint = joint, shapes = shapes } }
end

local SPHERE = { { "sphere", radius = 0.05 } }

-- a chain of n revolute bodies above a ground plane
local function chain(n)
  local items = { body("ground", { "fixed" }, { { "plane" } }) }
  for i = 1, n do
    items[#items + 1] = body("b" .. i, { "revolute", parent = i == 1 and "world" or "b" .. (i - 1),
      xyz = { 0, 0, 0.1 }, axis = { 0, 1, 0 } }, SPHERE)
  end
  return frozen(items)
end

-- n free spheres (lone bodies)
local function pile(n)
  local items = { body("ground", { "fixed" }, { { "plane" } }) }
  for i = 1, n do items[#items + 1] = body("b" .. i, { "free", q = { i, 0, 1, 1, 0, 0, 0 } }, SPHERE) end
  return frozen(items)
end

-- a free base with `legs` legs of 3 revolute links
local function legs(n)
  local items = { body("ground", { "fixed" }, { { "plane" } }), body("base", { "free", q = { 0, 0, 1, 1, 0, 0, 0 } },
    SPHERE) }
  for l = 1, n do
    for s = 1, 3 do
      items[#items + 1] = body("l" .. l .. "s" .. s, { "revolute", parent = s == 1 and "base" or ("l" .. l .. "s" .. (s - 1)),
        xyz = { 0, 0.05, 0.1 }, axis = { 0, 1, 0 } }, SPHERE)
    end
  end
  return frozen(items)
end

test("world_size.factor_products_of_a_chain", function()
  -- one chain of n dofs: sum of d (d - 1) / 2 = (n^3 - n) / 6
  for _, n in ipairs({ 1, 2, 10, 50 }) do
    local f, deepest = size.factor_products(check.check(chain(n)))
    eq({ f, deepest }, { (n ^ 3 - n) / 6, n })
  end
  eq(size.LIMITS.factor, (50 ^ 3 - 50) / 6)
  -- lone free bodies: 6 dofs deep each
  eq({ size.factor_products(check.check(pile(3))) }, { 3 * (0 + 1 + 3 + 6 + 10 + 15), 6 })
end)

test("world_size.nnz_without_listing", function()
  local worlds = { chain(4), pile(3), legs(2) }
  for _, path in ipairs({ "/examples/world/cartpole.lua", "/examples/world/arm_push.lua", "/examples/world/stack.lua" }) do
    for _, it in ipairs(load.load(diagc.root .. path).root.items) do
      if it._item == "system" and it.args[2]._kind == "world" then worlds[#worlds + 1] = it.args[2] end
    end
  end
  for _, W in ipairs(worlds) do
    local C = check.check(W)
    step.layout(C)
    local nnz, ncol = grad.nnz(C)
    local all, listed = grad.sparsity(C)
    eq({ nnz, ncol }, { listed, all[2] })
  end
end)

test("world_size.decl_bytes", function()
  eq(size.decl_bytes("typedef struct {\n  double a[3], b[4];\n  int n, m[2];\n  diagc_contact con[2];\n"
    .. "  int ws[DIAGC_BROADPHASE_WS(5)];\n} x;"), 8 * 7 + 4 * 3 + 64 * 2 + 4 * 10)
end)

-- the derivative code's estimate against the code the generator writes
-- (the estimate is fitted for the worlds near its limit, whose code is
-- tens of times these; the smallest worlds' it overestimates)
test("world_size.gradient_estimate_within_25_percent", function()
  for _, W in ipairs({ chain(8), chain(12), pile(8), pile(16), legs(2), legs(3) }) do
    W.settings.dynamics = "unrolled" -- the estimate is of cdiff's code (looped tangents: no limit)
    local C = check.check(W)
    step.layout(C)
    local est = size.gradient_bytes(C, grad.nnz(C))
    local real = #tangent.emit(C, "dcw_w", { functions = grad.tangent_functions(C) }) + #grad.emit(C, "dcw_w_")
    assert(est > 0.75 * real and est < 1.25 * real, string.format("estimate %d, generated %d", est, real))
  end
end)

local function err_of(W, gradients)
  W.settings.gradients = gradients
  local ok, e = pcall(require("diagc.world.lower").lower, W)
  assert(not ok, "expected an error")
  return tostring(e)
end

local function unrolled(W)
  W.settings.dynamics = "unrolled"
  return W
end

test("world_size.limits_are_errors_at_the_world", function()
  -- the unrolled form's limits (the default, auto, loops these worlds)
  local e = err_of(unrolled(chain(51)), false)
  assert(e:find("here.lua:1: world \"w\" is too deep to unroll: its chains of joints reach 51 dofs", 1, true), e)
  assert(e:find("set dynamics = \"looped\"", 1, true), e)
  e = err_of(unrolled(chain(35)), true)
  assert(e:find("here.lua:1: world \"w\": the step's Jacobians would be about", 1, true), e)
  assert(e:find("set gradients = false", 1, true), e)
  e = err_of(unrolled(pile(53)), true)
  assert(e:find("world \"w\" has 318 dofs, more than the 316 a world with gradients may have", 1, true), e)
  -- 30 boxes: 3720 contact slots; a step of 3000 contacts solved by the
  -- dense reference method needs about 10 GB (the sparse default: ~20 MB)
  local W = pile(30)
  for i = 2, 31 do W.items[i].args.shapes = { { "box", size = { 0.1, 0.1, 0.1 } } } end
  W.settings.max_contacts = 3000
  W.settings.contact_method = "dense"
  e = err_of(W, false)
  assert(e:find("the step's context would take", 1, true) and e:find("lower max_contacts", 1, true), e)
end)
