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
M.diagram_items = { "system", "connect", "export_input", "export_output", "fix_input", "log",
  "parameter_jacobian" }
-- Items a world may contain (world/check.lua), and the named settings it
-- takes beside them.
M.world_items = { "body", "urdf" }
M.world_settings = { "gravity", "time_step", "position_update", "friction", "restitution",
  "margin", "erp", "allowed_penetration", "bounce_threshold", "cfm", "max_contacts",
  "contact_overflow", "lcp_budget", "lcp_tol", "check_lcp", "restitution_passes", "bounce_gradient", "gradients",
  "exclude", "pairs", "contact_method", "dynamics", "pose" }

-- The file:line of the code that called, `level` frames up; past C
-- functions (pcall(leaf, ...), string.gsub callbacks) to the nearest Lua
-- file frame.
local function caller_loc(level)
  local first
  for l = level + 1, level + 20 do
    local info = debug.getinfo(l, "Sl")
    if not info then break end
    first = first or info
    if info.source:sub(1, 1) == "@" and info.currentline > 0 then
      return { file = info.source:sub(2), line = info.currentline }
    end
  end
  local src = first and first.source or "?"
  if src:sub(1, 1) == "@" then src = src:sub(2) end
  return { file = src, line = first and first.currentline or 0 }
end
M.caller_loc = caller_loc

-- What each constructor made, as it made it, keyed by the table handed to
-- the spec (weak keys).  The spec may change those tables afterwards;
-- spec.load rebuilds the diagram from these records (M.record) and so
-- never trusts a field the spec could have changed or forged.
local made = setmetatable({}, { __mode = "k" })
function M.record(v) return made[v] end

-- raw access throughout: these run on spec values, which may have metatables
local function is_item(v) return type(v) == "table" and rawget(v, "_item") ~= nil end
M.is_item = is_item
function M.is_leaf(v) return type(v) == "table" and rawget(v, "_kind") == "leaf" end
function M.is_diagram(v) return type(v) == "table" and rawget(v, "_kind") == "diagram" end
function M.is_world(v) return type(v) == "table" and rawget(v, "_kind") == "world" end
function M.is_system(v) return M.is_leaf(v) or M.is_diagram(v) or M.is_world(v) end

-- The kind of system an item belongs in.
function M.home_of(item)
  for _, k in ipairs(M.world_items) do if k == item then return "world" end end
  for _, k in ipairs(M.leaf_items) do if k == item then return "leaf" end end
  return "diagram"
end

-- An item constructor: name { fields } or name "text" (c_preamble; urdf "file.urdf").
local function item_ctor(kind)
  return function(args)
    local loc = caller_loc(2)
    if (kind == "c_preamble" or kind == "urdf") and type(args) == "string" then
      args = { args }
    end
    if type(args) ~= "table" then
      errors.raise(loc, "%s expects a table of fields, as in %s { ... }", kind, kind)
    end
    local it = { _item = kind, loc = loc, args = args }
    made[it] = { _item = kind, loc = { file = loc.file, line = loc.line }, args = args }
    -- (args stays the spec's table: it is read, raw, when the spec is loaded)
    return it
  end
end

-- leaf "Name" { items } and diagram "Name" { items }
local function system_ctor(kind, allowed, settings)
  local allowed_set, setting_set = {}, {}
  for _, k in ipairs(allowed) do allowed_set[k] = true end
  for _, k in ipairs(settings or {}) do setting_set[k] = true end
  return function(name)
    local loc = caller_loc(2)
    if type(name) ~= "string" then
      errors.raise(loc, "%s expects a name first, as in %s \"Name\" { ... }", kind, kind)
    end
    return function(items)
      if type(items) ~= "table" then
        errors.raise(loc, "%s \"%s\" expects a table of declarations after its name", kind, name)
      end
      local list, set = {}, {}
      local n = 0
      for k, v in next, items do
        if setting_set[k] then
          set[k] = v
        elseif type(k) ~= "number" then
          if settings then
            local best = require("diagc.util").suggest(tostring(k), settings)
            errors.raise(loc, "%s \"%s\": unknown setting '%s'%s", kind, name, tostring(k),
              best and string.format("; did you mean '%s'?", best)
                or " (settings: " .. table.concat(settings, ", ") .. ")")
          end
          errors.raise(loc, "%s \"%s\": unexpected field '%s'; declarations are listed without keys",
            kind, name, tostring(k))
        else
          n = n + 1
        end
      end
      for i = 1, n do
        local it = rawget(items, i)
        if it == nil then
          errors.raise(loc, "%s \"%s\": declaration %d is nil (a misspelled name?)", kind, name, i)
        end
        if not is_item(it) then
          errors.raise(loc, "%s \"%s\": declaration %d is a %s, not a declaration such as %s { ... }",
            kind, name, i, type(it), allowed[1])
        end
        local rec = made[it]
        if not rec then
          errors.raise(loc, "%s \"%s\": declaration %d was not made by a declaration such as %s { ... }",
            kind, name, i, allowed[1])
        end
        if not allowed_set[rec._item] then
          errors.raise(rec.loc, "'%s' cannot appear in a %s; it belongs in a %s",
            rec._item, kind, M.home_of(rec._item))
        end
        list[i] = it
      end
      local sys = { _kind = kind, name = name, loc = loc, items = list }
      made[sys] = { _kind = kind, name = name, loc = { file = loc.file, line = loc.line },
        settings = settings and set or nil }
      return sys
    end
  end
end

-- LuaJIT 2.1 does not bound the C stack used by string.gsub callbacks
-- (a replacement function or __index that calls gsub again): endless
-- recursion there is a segmentation fault, not a Lua error.  Specs reach
-- the real gsub through string methods ("a"):gsub(...), so the real one is
-- guarded, once, for everyone: at most MAX_GSUB_DEPTH nested callbacks.
M.MAX_GSUB_DEPTH = 200
if not rawget(string, "diagc_guarded_gsub") then
  local gsub, depth = string.gsub, 0
  local function leave(ok, ...)
    depth = depth - 1
    if not ok then error((...), 0) end
    return ...
  end
  string.gsub = function(s, pattern, repl, n)
    if type(repl) == "string" then return gsub(s, pattern, repl, n) end
    if depth >= M.MAX_GSUB_DEPTH then
      error(string.format("string.gsub callbacks nested more than %d deep", M.MAX_GSUB_DEPTH), 2)
    end
    depth = depth + 1
    return leave(pcall(gsub, s, pattern, repl, n))
  end
  rawset(string, "diagc_guarded_gsub", true)
end

-- A spec's own copy of a library table: changing it changes nothing the
-- generator uses.  `drop` lists functions left out.
local function library_copy(lib, drop)
  local t = {}
  for k, v in next, lib do
    if not (drop and drop[k]) then t[k] = v end
  end
  return t
end

-- getmetatable for specs: only tables have metatables a spec can see.  The
-- metatable of strings (whose __index is the generator's `string` table)
-- stays out of reach; so do those of diagc's own objects (__metatable).
local function spec_getmetatable(v)
  if type(v) ~= "table" then return nil end
  return getmetatable(v)
end

-- A read-only view of a library table: an unknown name lists the known ones.
local function read_only(what, fns)
  return setmetatable({}, {
    __metatable = false,
    __index = function(_, k)
      local f = fns[k]
      if f == nil then
        local names = {}
        for n in pairs(fns) do names[#names + 1] = n end
        table.sort(names)
        errors.raise(caller_loc(2), "%s has no '%s'; it has %s", what, tostring(k), table.concat(names, ", "))
      end
      return f
    end,
    __newindex = function() errors.raise(caller_loc(2), "%s is read-only", what) end,
  })
end


-- `control`: design at generation (docs/library.md, "Control design"):
-- the Riccati solvers of lib/riccati.lua; a problem without a stabilizing
-- solution, or bad matrices, is an error at the calling line.
local function control_library()
  local riccati = require("diagc.lib.riccati")
  local function checked(name, f)
    return function(...)
      local a, b, c = f(...)
      if a == nil then errors.raise(caller_loc(2), "control.%s: %s", name, tostring(b)) end
      return a, b, c
    end
  end
  local fns = {
    -- K, X (u = -K x)
    lqr = checked("lqr", function(A, B, Q, R, N)
      local X, K = riccati.care(A, B, Q, R, N)
      if not X then return nil, K end
      return K, X
    end),
    dlqr = checked("dlqr", function(A, B, Q, R, N)
      local X, K = riccati.dare(A, B, Q, R, N)
      if not X then return nil, K end
      return K, X
    end),
    care = checked("care", function(...) return riccati.care(...) end),
    dare = checked("dare", function(...) return riccati.dare(...) end),
    -- L, P
    kalman = checked("kalman", function(A, C, W, V) return riccati.kalman(A, C, W, V, false) end),
    dkalman = checked("dkalman", function(A, C, W, V) return riccati.kalman(A, C, W, V, true) end),
    -- A, B, h of a world's step at an operating point (lib/plant.lua)
    linearize_world = function(world, at)
      local r, why = require("diagc.lib.plant").linearize(world, at)
      if not r then errors.raise(caller_loc(2), "control.linearize_world: %s", tostring(why)) end
      return r.A, r.B, r.h
    end,
    -- a matrix's elements row by row (a parameter's default)
    flat = function(Mx)
      local out = {}
      if type(Mx) ~= "table" then errors.raise(caller_loc(2), "control.flat: expected a matrix (a table of rows)") end
      for _, r in ipairs(Mx) do
        if type(r) ~= "table" then errors.raise(caller_loc(2), "control.flat: expected a matrix (a table of rows)") end
        for _, v in ipairs(r) do out[#out + 1] = v end
      end
      return out
    end,
  }
  return read_only("control", fns)
end

-- Records an item or system a library made at the spec's line that asked
-- for it (lib/blocks.lua): its messages then point at the spec.
local function relocate(v, loc)
  local rec = made[v]
  if rec then rec.loc = { file = loc.file, line = loc.line } end
  if type(v) == "table" and rawget(v, "loc") then rawset(v, "loc", loc) end
  return v
end

-- Build the global environment a spec file runs in.
-- `import` is supplied by the loader (it knows the file system).
-- What a spec can reach is exactly this table (docs/security.md): no
-- io, os, debug, jit, ffi, require, load*, dofile, getfenv/setfenv,
-- collectgarbage, coroutine or string.dump.
function M.environment(import)
  local builtin = {
    leaf = system_ctor("leaf", M.leaf_items),
    diagram = system_ctor("diagram", M.diagram_items),
    world = system_ctor("world", M.world_items, M.world_settings),
    import = import,
    control = control_library(),
    -- the safe part of the standard library, as copies
    math = library_copy(math),
    string = library_copy(string, { dump = true, diagc_guarded_gsub = true }),
    table = library_copy(table),
    ipairs = ipairs, pairs = pairs, next = next, select = select,
    tostring = tostring, tonumber = tonumber, type = type,
    error = error, assert = assert, unpack = unpack or table.unpack,
    pcall = pcall, setmetatable = setmetatable, getmetatable = spec_getmetatable,
    rawget = rawget, rawset = rawset, rawequal = rawequal,
  }
  for _, k in ipairs(M.leaf_items) do builtin[k] = item_ctor(k) end
  for _, k in ipairs(M.diagram_items) do builtin[k] = item_ctor(k) end
  for _, k in ipairs(M.world_items) do builtin[k] = item_ctor(k) end
  builtin.blocks = read_only("blocks", require("diagc.lib.blocks").library(builtin, caller_loc, relocate, errors.raise))
  local known = {}
  for k in pairs(builtin) do known[#known + 1] = k end
  table.sort(known)
  -- the spec's globals live in `env` itself; the names of the language are
  -- read through __index and cannot be assigned
  return setmetatable({}, {
    __metatable = false,
    __newindex = function(t, k, v)
      if builtin[k] ~= nil then
        errors.raise(caller_loc(2), "'%s' is a name of the spec language and cannot be redefined; "
          .. "choose another name (a local variable, for example)", tostring(k))
      end
      rawset(t, k, v)
    end,
    __index = function(_, k)
      local v = builtin[k]
      if v ~= nil then return v end
      local loc = caller_loc(2)
      local best = require("diagc.util").suggest(tostring(k), known)
      local hint = best and string.format("; did you mean '%s'?", best) or ""
      errors.raise(loc, "unknown name '%s'%s", tostring(k), hint)
    end,
  })
end

return M
