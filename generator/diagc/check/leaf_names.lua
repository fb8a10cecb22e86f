-- check/leaf_names.lua: the first pass over a leaf's items: its
-- continuous state, and every named item (states, parameters, ports, cache
-- entries) with its size, default or C type, so the calcs of the second
-- pass (check/leaf.lua) can refer to any of them.  Also the leaf's
-- c_preambles, and the check that each abstract value's C type exists.
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local builtin = require("diagc.vocab.tickets")
local kinds = require("diagc.vocab.kinds")

local M = {}

-- names = {"x", "z", "theta"}: the element names of a vector of `size`
-- (an output port, a discrete state group): each a name (letters, digits
-- and _ starting with a letter; a world's generated names may join such
-- names with dots, "ball.x"), unique, one per element.  -> list or nil
function M.element_names(leaf, item, what, v, size)
  if v == nil then return nil end
  if type(v) ~= "table" then
    errors.raise(item.loc, "%s names must be a list of %d name%s, as in names = {\"x\", \"y\"}; got %s",
      what, size, size == 1 and "" or "s", errors.describe(v))
  end
  for k in pairs(v) do
    if type(k) ~= "number" or k < 1 or k ~= math.floor(k) or k > #v then
      errors.raise(item.loc, "%s names must be a plain list of names", what)
    end
  end
  if #v ~= size then
    errors.raise(item.loc, "%s has %d element%s but names lists %d; give one name per element",
      what, size, size == 1 and "" or "s", #v)
  end
  local seen, out = {}, {}
  local seg = leaf.generated and "^[A-Za-z][A-Za-z0-9_]*$" or nil
  for i, n in ipairs(v) do
    if type(n) ~= "string" then
      errors.raise(item.loc, "%s names[%d] must be a string, got %s", what, i, errors.describe(n))
    end
    local long = require("diagc.vocab.limits").name_problem(what .. " element name", n)
    if long then errors.raise(item.loc, "%s", long) end
    local ok = n:match("^[A-Za-z][A-Za-z0-9_]*$") and not n:find("__", 1, true)
    if not ok and seg then
      ok = true
      for part in (n .. "."):gmatch("([^.]*)%.") do ok = ok and part:match(seg) ~= nil end
    end
    if not ok then
      errors.raise(item.loc, "%s element name '%s' is not a valid name: use letters, digits and single _ "
        .. "starting with a letter", what, n)
    end
    if seen[n] then
      errors.raise(item.loc, "%s names element %d and %d both '%s'; element names must be unique",
        what, seen[n] - 1, i - 1, n)
    end
    seen[n] = i
    out[i] = n
  end
  return out
end

-- Adds a named item of `kind` to leaf.names, name_order and by_kind.
local function declare(leaf, item, kind, name)
  if builtin.reserved[name] or name:match("_next$") then
    errors.raise(item.loc, "'%s' is reserved in calc bodies (built-in ticket or generated name); "
      .. "choose another name", name)
  end
  local prev = leaf.names[name]
  if prev then
    errors.raise(item.loc, "leaf \"%s\" already declares '%s' (as %s at line %d); names must be "
      .. "unique within a leaf", leaf.name, name, kinds.words[prev.kind], prev.loc.line)
  end
  local it = { kind = kind, name = name, loc = item.loc, index = #leaf.by_kind[kind] + 1 }
  leaf.names[name] = it
  leaf.name_order[#leaf.name_order + 1] = name
  table.insert(leaf.by_kind[kind], it)
  return it
end

-- One part (q, v or z) of continuous_state: its element names and defaults.
local function state_part(leaf, item, part)
  local a = item.args
  local spec_part = a[part]
  local names = {}
  if type(spec_part) == "number" then
    if spec_part ~= math.floor(spec_part) or spec_part < 0 then
      errors.raise(item.loc, "continuous_state %s must be a count or a list of names", part)
    end
    for i = 1, spec_part do names[i] = part .. "[" .. (i - 1) .. "]" end
  elseif type(spec_part) == "table" then
    for i, n in ipairs(spec_part) do
      names[i] = fields.identifier(item.loc, "continuous_state " .. part .. " element", n)
    end
  elseif spec_part ~= nil then
    errors.raise(item.loc, "continuous_state %s must be a count or a list of names", part)
  end
  leaf[part] = names
  local d = a[part .. "0"]
  if d ~= nil then
    leaf[part .. "0"] = fields.vector(item.loc, "continuous_state " .. part .. "0", d, #names)
  else
    local z = {}
    for i = 1, #names do z[i] = 0 end
    leaf[part .. "0"] = z
  end
end

local function continuous_state(leaf, item, seen)
  fields.only(item, { "q", "v", "z", "q0", "v0", "z0" })
  if seen then errors.raise(item.loc, "leaf \"%s\" declares continuous_state twice; "
    .. "declare q, v and z in one continuous_state", leaf.name) end
  for _, part in ipairs({ "q", "v", "z" }) do state_part(leaf, item, part) end
  if #leaf.q + #leaf.v + #leaf.z == 0 then
    errors.raise(item.loc, "continuous_state declares no variables; give q, v or z")
  end
end

-- discrete_state or parameter: a named vector with a size or a default
local function numeric(leaf, item, k)
  local a = item.args
  local allowed = { "name", "size", "default" }
  if k == "discrete_state" then allowed[#allowed + 1] = "names" end
  -- a generated leaf's (a world's) named runs of state, ranges of parameters
  if leaf.generated then
    allowed[#allowed + 1] = "groups"
    if k == "parameter" then allowed[#allowed + 1] = "range" end
    if k == "discrete_state" then allowed[#allowed + 1] = "bookkeeping" end
  end
  fields.only(item, allowed, 1)
  local name = fields.name(item)
  local size = a.size and fields.positive_int(item.loc, k .. " size", a.size)
  local def
  if a.default ~= nil then
    def = fields.vector(item.loc, k .. " '" .. name .. "' default", a.default, size)
  elseif size then
    def = {}
    for i = 1, size do def[i] = 0 end
  else
    errors.raise(item.loc, "%s '%s' needs a size or a default, as in %s { \"%s\", default = {0} }",
      k, name, k, name)
  end
  local it = declare(leaf, item, k == "discrete_state" and "xd" or "pn", name)
  it.size, it.default = #def, def
  -- a world's counts and warm start: state that no dynamics read
  -- (testing/linear.lua leaves it out of a linearization it is decoupled from)
  it.bookkeeping = a.bookkeeping == true or nil
  -- a generated leaf's parameter may name the range of its values
  -- (world/ranges.lua's key: a world's friction), checked where -p sets it
  it.range = k == "parameter" and a.range or nil
  if k == "discrete_state" then
    it.elements = M.element_names(leaf, item, "discrete_state '" .. name .. "'", a.names, it.size)
  end
  -- a generated leaf's named runs of elements, each settable as "sys.NAME"
  -- ({name=, first=, size=}: a world's joints, their damping)
  it.groups = a.groups
end

local function abstract(leaf, item, k)
  local a = item.args
  fields.only(item, { "name", "type", "init" }, 1)
  local name = fields.name(item)
  local it = declare(leaf, item, k == "abstract_state" and "xa" or "pa", name)
  it.ctype = fields.c_type(item.loc, k .. " type", a.type)
  if a.init ~= nil then it.init = fields.c_code(item.loc, k .. " init", a.init) end
end

local function port(leaf, item, kind, allowed)
  if leaf.generated and kind == "output" then allowed[#allowed + 1] = "label" end
  fields.only(item, allowed, 1)
  local it = declare(leaf, item, kind, fields.name(item))
  it.size = fields.positive_int(item.loc, item._item .. " size", item.args.size)
  it.unit = fields.unit(item.loc, item._item .. " '" .. it.name .. "'", item.args.unit)
  if kind == "output" then
    -- a generated leaf's port may go by a dotted name ("ball.pose", world/lower.lua)
    it.label = item.args.label
    it.elements = M.element_names(leaf, item, "output_port '" .. (it.label or it.name) .. "'",
      item.args.names, it.size)
  end
  return it
end

local function cache_entry(leaf, item)
  local a = item.args
  fields.only(item, { "name", "size", "type", "init", "calc", "prerequisites", "jacobian" }, 1)
  local name = fields.name(item)
  local it = declare(leaf, item, "cache", name)
  if a.size ~= nil and a.type ~= nil then
    errors.raise(item.loc, "cache_entry '%s' has both size and type; a cache entry is either a "
      .. "vector (size) or a C value (type)", name)
  elseif a.type ~= nil then
    it.ctype = fields.c_type(item.loc, "cache_entry type", a.type)
    if a.init ~= nil then it.init = fields.c_code(item.loc, "cache_entry init", a.init) end
  else
    if a.init ~= nil then
      errors.raise(item.loc, "cache_entry '%s': init is only for typed entries (type = ...)", name)
    end
    it.size = fields.positive_int(item.loc, "cache_entry size", a.size)
  end
  return it
end

-- The first pass over spec.items.  Returns the items left for the second
-- pass, in order, as {item=, it= (the named output or cache entry, if
-- any)}.
function M.declare(leaf, spec, sources)
  local deferred, has_xc = {}, false
  for _, item in ipairs(spec.items) do
    local k = item._item
    if k == "continuous_state" then
      continuous_state(leaf, item, has_xc)
      has_xc = true
    elseif k == "discrete_state" or k == "parameter" then
      numeric(leaf, item, k)
    elseif k == "abstract_state" or k == "abstract_parameter" then
      abstract(leaf, item, k)
    elseif k == "input_port" then
      port(leaf, item, "input", { "name", "size", "unit" })
    elseif k == "output_port" then
      local it = port(leaf, item, "output", { "name", "size", "names", "unit", "calc", "prerequisites", "jacobian" })
      deferred[#deferred + 1] = { item = item, it = it }
    elseif k == "cache_entry" then
      deferred[#deferred + 1] = { item = item, it = cache_entry(leaf, item) }
    elseif k == "c_preamble" then
      fields.only(item, {}, 1)
      local text = fields.c_code(item.loc, "c_preamble", item.args[1])
      leaf.preambles[#leaf.preambles + 1] = { text = text, loc = fields.locate(sources, item.loc, text) }
    else
      deferred[#deferred + 1] = { item = item }
    end
  end
  return deferred
end

-- A discrete group's named elements are "sys.<element>" to --state and
-- diagc test, as continuous state's are: unique among the leaf's state
-- elements and apart from its other names (a group's "sys.x").
function M.check_elements(leaf)
  local taken = {}
  for _, part in ipairs({ "q", "v", "z" }) do
    for _, n in ipairs(leaf[part]) do taken[n] = "a continuous state element" end
  end
  for _, g in ipairs(leaf.by_kind.xd) do
    for _, n in ipairs(g.elements or {}) do
      local other = taken[n] or (leaf.names[n] and (require("diagc.vocab.kinds").words[leaf.names[n].kind]
        .. " '" .. n .. "'"))
      if other then
        errors.raise(g.loc, "discrete_state '%s' names an element '%s', which the leaf already has as %s; "
          .. "state elements are set as \"system.%s\", so choose another name", g.name, n, other, n)
      end
      taken[n] = "an element of discrete_state '" .. g.name .. "'"
    end
  end
end

-- C types an abstract value may name without a c_preamble defining them
local BUILTIN_TYPES = { int = true, double = true, float = true, char = true, long = true,
  short = true, unsigned = true, signed = true, _Bool = true, size_t = true }
for w in ("int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t"):gmatch("%S+") do
  BUILTIN_TYPES[w] = true
end

local function check_ctype(leaf, it, what)
  local last = it.ctype:match("([%w_]+)$")
  if BUILTIN_TYPES[last] then return end
  for _, pre in ipairs(leaf.preambles) do
    if pre.text:find("%f[%w_]" .. last .. "%f[^%w_]") then return end
  end
  errors.raise(it.loc, "%s '%s': unknown C type '%s'; define it in a c_preamble", what, it.name, it.ctype)
end

-- An abstract value's C type must be a C type or defined in this leaf's
-- c_preambles.
function M.check_ctypes(leaf)
  for _, it in ipairs(leaf.by_kind.xa) do check_ctype(leaf, it, "abstract_state") end
  for _, it in ipairs(leaf.by_kind.pa) do check_ctype(leaf, it, "abstract_parameter") end
  for _, it in ipairs(leaf.by_kind.cache) do if it.ctype then check_ctype(leaf, it, "cache_entry") end end
end

return M
