-- spec/load.lua: run a spec file in its sandbox and return the root system.
-- Keeps every file's source text, so later stages can locate calc bodies.
local errors = require("diagc.errors")
local dsl = require("diagc.spec.dsl")
local util = require("diagc.util")

local M = {}

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
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

-- Turn a Lua error raised while running spec code into a diagc error.
local function lua_error_to_diagc(e)
  if errors.is(e) then return e end
  local msg = tostring(e)
  local file, line, rest = msg:match("^([^:]+):(%d+): (.*)$")
  if file then
    rest = rest:gsub("^%[string \"[^\"]*\"%]:%d+: ", "")
    return errors.new({ file = file, line = tonumber(line) }, rest)
  end
  return errors.new(nil, msg)
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
    local text = read_file(file)
    if not text then
      if from_loc then
        errors.raise(from_loc, "cannot import '%s': no such file", file)
      end
      errors.raise(nil, "cannot read spec file '%s'", file)
    end
    sources[file] = text
    local chunk, perr = loadstring(text, "@" .. file)
    if not chunk then
      local e = lua_error_to_diagc(perr)
      e.msg = "syntax error: " .. e.msg
      error(e, 0)
    end
    local function import(rel)
      local loc = dsl.caller_loc(2)
      if type(rel) ~= "string" then
        errors.raise(loc, "import expects a file path string")
      end
      local target = rel:sub(1, 1) == "/" and rel or (util.dirname(file) .. "/" .. rel)
      return run(target, loc)
    end
    setfenv(chunk, dsl.environment(import))
    stack[#stack + 1] = file
    loading[file] = #stack
    local ok, res = xpcall(chunk, function(e) return lua_error_to_diagc(e) end)
    loading[file] = nil
    stack[#stack] = nil
    if not ok then error(res, 0) end
    cache[file] = res == nil and false or res
    return res
  end

  local root = run(path, nil)
  return root, sources
end

-- Returns { root = system, sources = {file = text}, main = path }.
-- `value` may be a path or an already built system (for diagc.jit(spec)).
function M.load(path)
  local root, sources = run_file(path)
  if not dsl.is_system(root) then
    errors.raise({ file = normalize(path), line = 1 },
      "the spec must return a diagram, as in: return diagram \"name\" { ... } (it returned %s)",
      root == nil and "nothing" or type(root))
  end
  if dsl.is_leaf(root) then
    errors.raise(root.loc, "the spec returns leaf \"%s\"; return a diagram that contains it, "
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
return M
