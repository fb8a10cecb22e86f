-- spec/load.lua: run a spec file in its sandbox and return the root system.
-- Keeps every file's source text, so later stages can locate calc bodies.
--
-- Stage contract: spec file -> loaded spec L (M.load):
--   L.root     the root diagram, a frozen system (below)
--   L.sources  file path -> source text, for every file the spec ran
--   L.main     the spec's path, normalized
-- A frozen system is a plain table no spec code can reach any more:
--   { _kind = "leaf" | "diagram", name = string, loc = {file=, line=},
--     items = { {_item = declaration name (dsl.leaf_items/diagram_items),
--                loc = {file=, line=}, args = plain copy of its fields}, ... } }
-- where a system used in args (system { "s", T }) is itself frozen, once
-- per table (a type reused twice is the same frozen table).
local errors = require("diagc.errors")
local dsl = require("diagc.spec.dsl")
local util = require("diagc.util")

local M = {}

-- Limits on what a spec may be (docs/security.md).
M.MAX_FILE_BYTES = 16 * 1024 * 1024 -- each spec or imported file
M.MAX_DEPTH = 200                   -- diagrams nested in diagrams
M.MAX_TABLE_DEPTH = 100             -- tables nested in one declaration's fields

-- The text of a regular file of at most MAX_FILE_BYTES; nil and why not.
-- Never blocks: a FIFO, a device or a directory is refused unopened.
local function read_file(path)
  local ok, host = pcall(require, "diagc_host")
  if ok and host.read_source then return host.read_source(path, M.MAX_FILE_BYTES) end
  local f = io.open(path, "rb")
  if not f then return nil, "no such file" end
  local s = f:read(M.MAX_FILE_BYTES + 1)
  f:close()
  if s and #s > M.MAX_FILE_BYTES then return nil, "it is larger than the limit of 16 MiB" end
  return s or "", nil
end

local function normalize(path)
  local parts = {}
  local abs = path:sub(1, 1) == "/"
  for seg in path:gmatch("[^/]+") do
    if seg == ".." and #parts > 0 and parts[#parts] ~= ".." then
      parts[#parts] = nil
    elseif seg ~= "." then
      parts[#parts + 1] = seg
    end
  end
  local s = table.concat(parts, "/")
  if abs then s = "/" .. s end
  return s == "" and "." or s
end

-- "not enough memory" raised by the Lua heap limit (bin/diagc's host)
local function memory_error(loc)
  local ok, host = pcall(require, "diagc_host")
  local mib = ok and host.memory_limit and math.floor(host.memory_limit() / 1048576) or 0
  collectgarbage()
  return errors.new(loc, string.format("the spec used more memory than the Lua heap limit of %d MiB "
    .. "(huge strings or tables?); build smaller values", mib))
end

-- The innermost stack frame running code of a spec file (one in `files`),
-- as a location; nil if none.  Called from a message handler.
local function spec_frame(files)
  for level = 2, 60 do
    local info = debug.getinfo(level, "Sl")
    if not info then return nil end
    local src = info.source
    if src:sub(1, 1) == "@" and files[src:sub(2)] and info.currentline > 0 then
      return { file = src:sub(2), line = info.currentline }
    end
  end
  return nil
end

-- Turn any Lua error value raised while running spec code into a diagc
-- error, without running the value's metamethods.  `files`: the spec files
-- being run, to locate errors whose value carries no position.
local function lua_error_to_diagc(e, files)
  if errors.is(e) then
    -- a diagc error, or a spec's table that looks like one: keep only what
    -- format() reads, as plain values
    local loc, msg = rawget(e, "loc"), rawget(e, "msg")
    if type(loc) == "table" and type(rawget(loc, "file")) == "string" then
      loc = { file = rawget(loc, "file"), line = tonumber(rawget(loc, "line")) or 0,
        col = tonumber(rawget(loc, "col")) }
    else
      loc = files and spec_frame(files) or nil
    end
    return errors.new(loc, errors.describe(msg))
  end
  if e == "not enough memory" then return memory_error(files and spec_frame(files) or nil) end
  if type(e) == "string" then
    local file, line, rest = e:match("^([^:\n]+):(%d+): (.*)$")
    if file then
      rest = rest:gsub("^%[string \"[^\"]*\"%]:%d+: ", "")
      return errors.new({ file = file, line = tonumber(line) }, rest)
    end
    return errors.new(files and spec_frame(files) or nil, e)
  end
  local what = string.format("an error was raised with %s instead of a message string",
    e == nil and "nil" or errors.describe(e))
  return errors.new(files and spec_frame(files) or nil, what)
end


-- Runs a spec file (and the files it imports) in the sandbox; returns what
-- it returned and the texts of the files read.
local function run_file(path)
  local sources, cache, loading, stack = {}, {}, {}, {}

  local function run(file, from_loc)
    file = normalize(file)
    if cache[file] ~= nil then return cache[file] end
    if loading[file] then
      local chain = {}
      for i = loading[file], #stack do chain[#chain + 1] = stack[i] end
      chain[#chain + 1] = file
      errors.raise(from_loc, "import cycle: %s", table.concat(chain, " → "))
    end
    local text, why = read_file(file)
    if not text then
      if from_loc then
        errors.raise(from_loc, "cannot import '%s': %s", file, why or "cannot read it")
      end
      errors.raise(nil, "cannot read spec file '%s': %s", file, why or "cannot read it")
    end
    if text:sub(1, 1) == "\27" then
      errors.raise(from_loc or { file = file, line = 1 },
        "'%s' is compiled Lua bytecode; specs and imports must be Lua source text", file)
    end
    sources[file] = text
    -- mode "t": source text only, never bytecode
    local chunk, perr = load(text, "@" .. file, "t")
    if not chunk then
      local e = lua_error_to_diagc(perr)
      e.msg = "syntax error: " .. e.msg
      error(e, 0)
    end
    local function import(rel)
      local loc = dsl.caller_loc(2)
      if loc.file ~= file then
        -- `return import "x"` is a tail call: the spec's frame is gone;
        -- locate the call by its argument in the text
        local at = type(rel) == "string" and text:find(rel, 1, true)
        local line = 1
        if at then line = select(2, text:sub(1, at):gsub("\n", "")) + 1 end
        loc = { file = file, line = line }
      end
      if type(rel) ~= "string" then
        errors.raise(loc, "import expects a file path string")
      end
      local target = rel:sub(1, 1) == "/" and rel or (util.dirname(file) .. "/" .. rel)
      return run(target, loc)
    end
    setfenv(chunk, dsl.environment(import))
    stack[#stack + 1] = file
    loading[file] = #stack
    local ok, res = xpcall(chunk, function(e) return lua_error_to_diagc(e, sources) end)
    loading[file] = nil
    stack[#stack] = nil
    if not ok then
      -- a memory error skips the handler: its value is the plain string
      if res == "not enough memory" then res = memory_error(from_loc or { file = file, line = 1 }) end
      if not errors.is(res) then res = lua_error_to_diagc(res) end
      -- no line could be found (a stack overflow in C): at least the file
      if rawget(res, "loc") == nil then res.loc = { file = file } end
      if type(res.msg) == "string" and res.msg:match("stack overflow$") then
        res.msg = res.msg .. " (a function that calls itself without end?)"
      end
      error(res, 0)
    end
    cache[file] = res == nil and false or res
    return res
  end

  local root = run(path, nil)
  return root, sources
end

-- A plain copy of what the spec built, from the records of the DSL's
-- constructors (dsl.record), read with raw access only.  Later stages read
-- this copy, so no spec code (metamethods) runs after loading and nothing
-- the spec changes or forges after the checker reaches the generated C.
-- Enforces MAX_DEPTH and MAX_TABLE_DEPTH and refuses cycles, so every
-- recursive walk of later stages is bounded.
local function freeze(root)
  local done, active = {}, {}
  local copy_system

  local function copy_value(v, loc, depth, sys_depth)
    if type(v) ~= "table" then return v end
    if dsl.record(v) and rawget(v, "_kind") ~= nil then return copy_system(v, sys_depth + 1) end
    if dsl.record(v) then
      errors.raise(loc, "a declaration (%s) is used as a value; declarations belong directly "
        .. "in a leaf or diagram", tostring(dsl.record(v)._item))
    end
    if rawget(v, "_kind") ~= nil or rawget(v, "_item") ~= nil then
      errors.raise(loc, "a table with a '_kind' or '_item' field is not a system or declaration; "
        .. "make systems with leaf \"Name\" { ... } or diagram \"Name\" { ... }")
    end
    if depth > M.MAX_TABLE_DEPTH then
      errors.raise(loc, "tables are nested more than %d deep in this declaration; flatten them",
        M.MAX_TABLE_DEPTH)
    end
    if active[v] then errors.raise(loc, "a table in this declaration contains itself") end
    if done[v] then return done[v] end
    active[v] = true
    local t = {}
    for k, x in next, v do
      if type(k) == "table" then
        errors.raise(loc, "a table is used as a field name; field names are strings")
      end
      t[k] = copy_value(x, loc, depth + 1, sys_depth)
    end
    active[v] = nil
    done[v] = t
    return t
  end

  function copy_system(v, sys_depth)
    local rec = dsl.record(v)
    if active[v] then
      errors.raise(rec.loc, "%s \"%s\" contains itself",
        rec._kind, rec.name)
    end
    if done[v] then return done[v] end
    if sys_depth > M.MAX_DEPTH then
      errors.raise(rec.loc, "diagrams are nested more than %d deep here; flatten the hierarchy",
        M.MAX_DEPTH)
    end
    -- the declarations are read from the system's `items` as it is now
    -- (a spec may add some after making it), but each must have been made
    -- by a declaration constructor allowed in this kind of system
    local list = rawget(v, "items")
    if type(list) ~= "table" then
      errors.raise(rec.loc, "%s \"%s\": its items were replaced by %s; leave them a list of "
        .. "declarations", rec._kind, rec.name, errors.describe(list))
    end
    local n = 0
    for _ in next, list do n = n + 1 end
    local allowed = {}
    local kind_items = { leaf = dsl.leaf_items, diagram = dsl.diagram_items, world = dsl.world_items }
    for _, k in ipairs(kind_items[rec._kind]) do allowed[k] = true end
    active[v] = true
    local items = {}
    for i = 1, n do
      local r = dsl.record(rawget(list, i))
      if not r or not allowed[r._item] then
        errors.raise(rec.loc, "%s \"%s\": item %d is not a declaration a %s can hold",
          rec._kind, rec.name, i, rec._kind)
      end
      items[i] = { _item = r._item, loc = { file = r.loc.file, line = r.loc.line },
        args = copy_value(r.args, r.loc, 1, sys_depth) }
    end
    active[v] = nil
    local s = { _kind = rec._kind, name = rec.name,
      loc = { file = rec.loc.file, line = rec.loc.line }, items = items }
    if rec.settings then s.settings = copy_value(rec.settings, rec.loc, 1, sys_depth) end
    done[v] = s
    return s
  end

  return copy_system(root, 1)
end
-- (testing/world_plant.lua freezes a world the spec hands the control
-- library, to generate it alone)
M.freeze = freeze

-- Returns { root = system, sources = {file = text}, main = path }.
function M.load(path)
  local root, sources = run_file(path)
  if dsl.is_system(root) and not dsl.record(root) then
    errors.raise({ file = normalize(path), line = 1 },
      "the spec returned a table that looks like a system but was not made by leaf or diagram")
  end
  if dsl.is_system(root) then root = freeze(root) end
  if not dsl.is_system(root) then
    errors.raise({ file = normalize(path), line = 1 },
      "the spec must return a diagram, as in: return diagram \"name\" { ... } (it returned %s)",
      root == nil and "nothing" or type(root))
  end
  if dsl.is_leaf(root) or dsl.is_world(root) then
    errors.raise(root.loc, "the spec returns " .. root._kind .. " \"%s\"; return a diagram that contains it, "
      .. "as in: return diagram \"name\" { system { \"%s\", %s } }", root.name,
      root.name:lower(), root.name)
  end
  return { root = root, sources = sources, main = normalize(path) }
end

-- What a spec file returns, whatever it is (a leaf, a diagram, a table of
-- systems): `dsl.import` in test files.
function M.import_value(path)
  return (run_file(path))
end

M.normalize = normalize
-- the plain, checked copy of a system built with the DSL (diagc.jit(value)
-- in test files gets the same depth and cycle limits as a spec file)
M.freeze = freeze
return M
