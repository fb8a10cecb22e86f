-- jit.lua: compile generated C in-process with libtcc (through the host
-- executable) and hand back the model's symbols.
local errors = require("diagc.errors")

local M = {}

local cache = {} -- content hash -> compiled state (kept alive for the run)

local function host()
  local ok, h = pcall(require, "diagc_host")
  if not ok then
    errors.raise(nil, "the JIT needs the diagc executable (bin/diagc); run diagc from there")
  end
  return h
end

-- One translation unit: the header inlined where the source includes it.
function M.unit(gen)
  local inc = '#include "' .. gen.header_name .. '"'
  local s, e = gen.source:find(inc, 1, true)
  return gen.source:sub(1, s - 1) .. gen.header .. gen.source:sub(e + 1)
end

-- Turn tcc's messages into one diagc error (the first error wins).
-- The first spec location that mentions `word`, for errors with no line.
local function find_in_sources(gen, word)
  for _, file in ipairs(require("diagc.util").sorted_keys(gen.sources or {})) do
    local n = 0
    for line in (gen.sources[file] .. "\n"):gmatch("(.-)\n") do
      n = n + 1
      if line:find("%f[%w_]" .. word .. "%f[^%w_]") then return { file = file, line = n } end
    end
  end
end

-- How to fix the strict compile's most common complaints.
local function hint(rest)
  local m = rest:match("^'(M_[%w_]+)' undeclared")
  if m then
    return rest .. "; " .. m .. " is POSIX, not C99: define the constant yourself "
      .. "(e.g. #define PI 3.14159265358979323846 in a c_preamble)"
  end
  if rest:match("^implicit declaration of function") then
    return rest .. "; declare it before use (#include its C99 header at the top of the "
      .. "c_preamble, or define it there)"
  end
  return rest
end

local function compile_error(gen, msgs, allow_undefined)
  for line in (msgs .. "\n"):gmatch("(.-)\n") do
    local file, l, rest = line:match("^(.-):(%d+): error: (.*)$")
    if rest then rest = hint(rest) end
    if file then
      local loc = { file = file, line = tonumber(l) }
      local map = (file == gen.source_name and gen.source_restore)
        or (file == gen.header_name and gen.header_restore) or nil
      local spec_loc = map and map[loc.line]
      if spec_loc then
        errors.raise(spec_loc, "C error in %s: %s", spec_loc.block.what, rest)
      elseif file == gen.source_name or file == gen.header_name or file == "<string>" then
        errors.raise(loc, "C error in generated code: %s", rest)
      end
      for _, b in ipairs(gen.user_blocks or {}) do
        if (b.cfile or b.file) == file and loc.line >= b.first and loc.line <= b.last then
          errors.raise({ file = b.file, line = loc.line }, "C error in %s: %s", b.what, rest)
        end
      end
      errors.raise(loc, "C error: %s", rest)
    end
    local sym = line:match("undefined symbol '([^']+)'")
    if sym then
      if allow_undefined then return end
      errors.raise(find_in_sources(gen, sym), "undefined symbol '%s': spec code calls or uses it but "
        .. "nothing defines it; define it in a c_preamble (or link it when you build the generated C)", sym)
    end
  end
  errors.raise(nil, "C compilation failed: %s", msgs:gsub("\n", "; "))
end

-- The one compile rule of every command (run, test, -o, deploy): warnings
-- are errors, so an implicit declaration never compiles into a call that
-- returns garbage, and __STRICT_ANSI__ makes the C library declare only
-- C99's names (no M_PI), as under gcc and clang -std=c99 -pedantic.
M.OPTIONS = "-Wall -Werror"
M.DEFINES = { __STRICT_ANSI__ = true }

-- Compile a generated model; returns {state=, symbol=fn(name)}.
-- opts: {defines = {NAME = value} (added to M.DEFINES), allow_undefined =}
function M.compile(gen, opts)
  opts = opts or {}
  local unit = M.unit(gen)
  local defines = {}
  for k, v in pairs(M.DEFINES) do defines[k] = v end
  for k, v in pairs(opts.defines or {}) do defines[k] = v end
  local dkeys = {}
  for _, k in ipairs(require("diagc.util").sorted_keys(defines)) do
    dkeys[#dkeys + 1] = k .. "=" .. tostring(defines[k])
  end
  local key = unit .. "\0" .. table.concat(dkeys, "\0")
  local hit = cache[key]
  if hit then return hit end
  local h = host()
  local state, msgs = h.tcc_compile(unit, {
    options = M.OPTIONS,
    name = gen.prefix .. ".c",
    defines = defines,
  })
  if not state then
    compile_error(gen, msgs or "unknown error", opts.allow_undefined)
    return nil
  end
  local r = {
    state = state,
    symbol = function(name) return h.tcc_symbol(state, name) end,
  }
  cache[key] = r
  return r
end

return M
