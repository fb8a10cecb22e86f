-- spec/dsl.lua: the vocabulary of a spec file.
-- Every constructor records where it was called (file:line), so the
-- checker can point at the exact declaration.  Nothing here validates
-- arguments beyond their outer shape; that is the checker's job.
local errors = require("diagc.errors")

local M = {}

-- Items a leaf may contain, and items a diagram may contain.
M.leaf_items = {
  "continuous_state", "discrete_state", "abstract_state",
  "parameter", "abstract_parameter",
  "input_port", "output_port", "cache_entry",
  "derivatives", "potential_energy", "kinetic_energy",
  "conservative_power", "nonconservative_power",
  "c_preamble",
  "periodic_publish", "periodic_discrete_update", "periodic_unrestricted_update",
  "per_step_publish", "per_step_discrete_update", "per_step_unrestricted_update",
  "initialization_publish", "initialization_discrete_update",
  "initialization_unrestricted_update",
  "witness", "next_update_time",
}
M.diagram_items = { "system", "connect", "export_input", "export_output", "fix_input", "log" }

local function caller_loc(level)
  local info = debug.getinfo(level + 1, "Sl")
  local src = info and info.source or "?"
  if src:sub(1, 1) == "@" then src = src:sub(2) end
  return { file = src, line = info and info.currentline or 0 }
end
M.caller_loc = caller_loc

local function is_item(v) return type(v) == "table" and v._item ~= nil end
M.is_item = is_item
function M.is_leaf(v) return type(v) == "table" and v._kind == "leaf" end
function M.is_diagram(v) return type(v) == "table" and v._kind == "diagram" end
function M.is_system(v) return M.is_leaf(v) or M.is_diagram(v) end

-- An item constructor: name { fields } or name "text" (c_preamble).
local function item_ctor(kind)
  return function(args)
    local loc = caller_loc(2)
    if kind == "c_preamble" and type(args) == "string" then
      args = { args }
    end
    if type(args) ~= "table" then
      errors.raise(loc, "%s expects a table of fields, as in %s { ... }", kind, kind)
    end
    return { _item = kind, loc = loc, args = args }
  end
end

-- leaf "Name" { items } and diagram "Name" { items }
local function system_ctor(kind, allowed)
  local allowed_set = {}
  for _, k in ipairs(allowed) do allowed_set[k] = true end
  return function(name)
    local loc = caller_loc(2)
    if type(name) ~= "string" then
      errors.raise(loc, "%s expects a name first, as in %s \"Name\" { ... }", kind, kind)
    end
    return function(items)
      if type(items) ~= "table" then
        errors.raise(loc, "%s \"%s\" expects a table of declarations after its name", kind, name)
      end
      local list = {}
      local n = 0
      for k in pairs(items) do
        if type(k) ~= "number" then
          errors.raise(loc, "%s \"%s\": unexpected field '%s'; declarations are listed without keys",
            kind, name, tostring(k))
        end
        n = n + 1
      end
      for i = 1, n do
        local it = items[i]
        if it == nil then
          errors.raise(loc, "%s \"%s\": declaration %d is nil (a misspelled name?)", kind, name, i)
        end
        if not is_item(it) then
          errors.raise(loc, "%s \"%s\": declaration %d is a %s, not a declaration such as %s { ... }",
            kind, name, i, type(it), allowed[1])
        end
        if not allowed_set[it._item] then
          errors.raise(it.loc, "'%s' cannot appear in a %s; it belongs in a %s",
            it._item, kind, kind == "leaf" and "diagram" or "leaf")
        end
        list[i] = it
      end
      return { _kind = kind, name = name, loc = loc, items = list }
    end
  end
end

-- Build the global environment a spec file runs in.
-- `import` is supplied by the loader (it knows the file system).
function M.environment(import)
  local env = {
    leaf = system_ctor("leaf", M.leaf_items),
    diagram = system_ctor("diagram", M.diagram_items),
    import = import,
    -- the safe part of the standard library
    math = math, string = string, table = table,
    ipairs = ipairs, pairs = pairs, next = next, select = select,
    tostring = tostring, tonumber = tonumber, type = type,
    error = error, assert = assert, unpack = unpack or table.unpack,
    pcall = pcall, setmetatable = setmetatable, getmetatable = getmetatable,
    rawget = rawget, rawset = rawset,
  }
  for _, k in ipairs(M.leaf_items) do env[k] = item_ctor(k) end
  for _, k in ipairs(M.diagram_items) do env[k] = item_ctor(k) end
  local known = {}
  for k in pairs(env) do known[#known + 1] = k end
  table.sort(known)
  return setmetatable(env, {
    __index = function(_, k)
      local loc = caller_loc(2)
      local best = require("diagc.util").suggest(tostring(k), known)
      local hint = best and string.format("; did you mean '%s'?", best) or ""
      errors.raise(loc, "unknown name '%s'%s", tostring(k), hint)
    end,
  })
end

return M
