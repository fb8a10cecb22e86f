-- cli/assign.lua: setting a model's values by name before a run:
--   param  -p sys.param=v,...      numeric parameters (DIAGC_SRC_PN)
--   state  --state sys.name=v,...  a leaf's q, v or z (sys.q), a discrete
--                                  group (sys.x), one element (sys.theta,
--                                  world.ball.x), or a world's joint's
--                                  coordinates (world.elbow)
--   input  --input name=v,...      exported inputs of the root diagram and
--                                  fixed inputs (sys.port)
-- Names are checked against the model's descriptor, with "did you mean";
-- sizes and finiteness are checked before anything is set.
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local dffi = require("diagc.testing.ffi")

local M = {}

local KIND_OF = {} -- DIAGC_SRC_* -> "param" | "state" | "input" | "abstract"
local WORDS = { param = "numeric parameter", state = "state", input = "input" }
local A = { param = "a numeric parameter", state = "a state", input = "an input" }
local OPTION = { param = "-p", state = "--state", input = "--input" }
-- in diagc test's model API (no command): ctx:set_param and friends
local METHOD = { param = "set_param", state = "set_state", input = "set_input" }
local function label(kind, cmd) return cmd and OPTION[kind] or METHOD[kind] end

local function kinds()
  if next(KIND_OF) then return KIND_OF end
  local C = dffi.const
  KIND_OF[C.DIAGC_SRC_PN] = "param"
  KIND_OF[C.DIAGC_SRC_Q], KIND_OF[C.DIAGC_SRC_V], KIND_OF[C.DIAGC_SRC_Z] = "state", "state", "state"
  KIND_OF[C.DIAGC_SRC_XD] = "state"
  KIND_OF[C.DIAGC_SRC_INPUT], KIND_OF[C.DIAGC_SRC_FIXED_INPUT] = "input", "input"
  KIND_OF[C.DIAGC_SRC_XA], KIND_OF[C.DIAGC_SRC_PA] = "abstract", "abstract"
  return KIND_OF
end

-- every settable name of `kind`: {name = size}
function M.names(m, kind)
  local K, out = kinds(), {}
  for name, s in pairs(m.sources) do
    if K[s.kind] == kind then out[name] = s.size end
  end
  if kind == "state" then
    for name in pairs(m.elements) do out[name] = out[name] or 1 end
  end
  for name, g in pairs(m.groups or {}) do
    if (g.kind or "state") == kind then out[name] = out[name] or g.size end
  end
  return out
end

local function keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  return ks
end

local function leaves(m)
  local t = {}
  for i = 0, m.desc.n_leaves - 1 do t[#t + 1] = ffi.string(m.desc.leaf_names[i]) end
  return t
end

-- Why world leaf `sys`'s "B.mass" (".inertia", ".com") is no parameter,
-- or nil (world/signals.lua, M.not_a_parameter)
local function world_refusal(m, sys, leaf_name)
  for _, lc in ipairs(m.gen and m.gen.flat.leaves or {}) do
    if lc.path == sys and lc.type.world then
      return require("diagc.world.signals").not_a_parameter(lc.type.world, leaf_name)
    end
  end
end

-- Why world parameter `full` ("world.inertia") with vals set from its
-- element `first` (0-based) would be invalid as a whole (a body's inertia
-- not positive definite: world/signals.lua, M.check_param), or nil
local function world_check(m, ctx, full, first, vals)
  for _, lc in ipairs(m.gen and m.gen.flat.leaves or {}) do
    if lc.type.world and full:sub(1, #lc.path + 1) == lc.path .. "." then
      local pname = full:sub(#lc.path + 2)
      local signals = require("diagc.world.signals")
      if not signals.CHECKED[pname] then return nil end
      local cur = ctx:get(full)
      if type(cur) ~= "table" then cur = { cur } end
      local all = {}
      for i, v in ipairs(cur) do all[i] = v end
      for i, v in ipairs(vals) do all[first + i] = v end
      return signals.check_param(lc.type.world, pname, all)
    end
  end
end

-- Why `name` is not a settable `kind`, with the closest names.
local function unknown(m, kind, name, cmd)
  local K = kinds()
  local s = m.sources[name]
  local opt = label(kind, cmd)
  if s then
    local other = K[s.kind]
    if other == "abstract" then
      errors.raise(nil, "%s%s %s: '%s' is abstract (a C value) and cannot be set from the command line",
        cli.prefix(cmd), opt, cli.show(name), cli.show(name))
    elseif other and other ~= kind then
      errors.raise(nil, "%s%s %s: '%s' is %s, not %s; use %s", cli.prefix(cmd), opt, cli.show(name),
        cli.show(name), A[other], A[kind], label(other, cmd))
    end
    errors.raise(nil, "%s%s %s: '%s' cannot be set", cli.prefix(cmd), opt, cli.show(name), cli.show(name))
  end
  if m.elements[name] and kind ~= "state" then
    errors.raise(nil, "%s%s %s: '%s' is a state element, not %s; use %s", cli.prefix(cmd), opt,
      cli.show(name), cli.show(name), A[kind], label("state", cmd))
  end
  local all = keys(M.names(m, kind))
  local sys, leaf_name = name:match("^(.*)%.([^.]*)$")
  if sys and kind ~= "input" then
    local lv = leaves(m)
    local is_leaf = false
    -- the longest system path the name starts with: "world.bal.x" is
    -- world's "bal.x" (a world's names have dots)
    for _, l in ipairs(lv) do
      if name:sub(1, #l + 1) == l .. "." and (not is_leaf or #l > #sys) then
        is_leaf, sys, leaf_name = true, l, name:sub(#l + 2)
      end
    end
    if not is_leaf then
      errors.raise(nil, "%s%s %s: no system named '%s'%s", cli.prefix(cmd), opt, cli.show(name),
        cli.show(sys), cli.hint(sys, lv, "systems"))
    end
    -- a world's setting that is not (yet) a parameter says so
    local why = kind == "param" and world_refusal(m, sys, leaf_name)
    if why then errors.raise(nil, "%s%s %s: %s", cli.prefix(cmd), opt, cli.show(name), why) end
    local mine = {}
    for _, n in ipairs(all) do
      if n:sub(1, #sys + 1) == sys .. "." then mine[#mine + 1] = n:sub(#sys + 2) end
    end
    errors.raise(nil, "%s%s %s: system '%s' has no %s named '%s'%s", cli.prefix(cmd), opt, cli.show(name),
      cli.show(sys), WORDS[kind], cli.show(leaf_name), cli.hint(leaf_name, mine, WORDS[kind] .. "s"))
  end
  errors.raise(nil, "%s%s %s: no %s named '%s'%s", cli.prefix(cmd), opt, cli.show(name), WORDS[kind],
    cli.show(name), cli.hint(name, all, WORDS[kind] .. "s"))
end

-- Checks and sets `kind` value `name` to vals (a list of finite numbers)
-- in context ctx (testing/model.lua Context).
function M.set(m, ctx, kind, name, vals, cmd)
  local size = M.names(m, kind)[name]
  if not size then unknown(m, kind, name, cmd) end
  if #vals ~= size then
    errors.raise(nil, "%s%s %s: it has %d value%s, got %d", cli.prefix(cmd), label(kind, cmd), cli.show(name),
      size, size == 1 and "" or "s", #vals)
  end
  for i, v in ipairs(vals) do
    if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
      errors.raise(nil, "%s%s %s: value %d is %s; give finite numbers", cli.prefix(cmd), label(kind, cmd),
        cli.show(name), i, tostring(v))
    end
  end
  if kind == "param" then
    local it = M.param_item(m, name)
    -- a named run's values start at its first element (the range may
    -- differ per element: a list of world/ranges.lua keys)
    local g = m.groups and m.groups[name]
    local first = g and g.kind == "param" and g.first or 0
    if it and it.range then
      local ranges = require("diagc.world.ranges")
      for i, v in ipairs(vals) do
        local key = type(it.range) == "table" and it.range[first + i] or it.range
        local why = ranges.why_not(key, v)
        if why then
          errors.raise(nil, "%s%s %s: value %d: %s (range %s)", cli.prefix(cmd), label(kind, cmd), cli.show(name), i,
            why, ranges.describe(key))
        end
      end
    end
    local why = world_check(m, ctx, g and g.kind == "param" and g.source or name, first, vals)
    if why then errors.raise(nil, "%s%s %s: %s", cli.prefix(cmd), label(kind, cmd), cli.show(name), why) end
  end
  ctx:set(name, size == 1 and vals[1] or vals)
end

-- The checked item of numeric parameter `name` ("world.friction"), or nil
-- (a model without its generator's record).
function M.param_item(m, name)
  local g = m.groups and m.groups[name]
  if g and g.kind == "param" then return g.item end
  for _, lc in ipairs(m.gen and m.gen.flat.leaves or {}) do
    if name:sub(1, #lc.path + 1) == lc.path .. "." then
      local it = lc.type.names[name:sub(#lc.path + 2)]
      if it and it.kind == "pn" then return it end
    end
  end
end

-- Parses and applies "name=v1,v2" (as given to -p, --state, --input).
function M.apply(m, ctx, kind, kv, cmd)
  local name, vals = cli.assignment(cmd, OPTION[kind], kv)
  M.set(m, ctx, kind, name, vals, cmd)
end

-- Applies a command's -p, --state and --input options (o, as parsed) to ctx.
function M.apply_options(m, ctx, o, cmd)
  for _, pair in ipairs({ { "-p", "param" }, { "--state", "state" }, { "--input", "input" } }) do
    for _, kv in ipairs(o[pair[1]] or {}) do M.apply(m, ctx, pair[2], kv, cmd) end
  end
end

return M
