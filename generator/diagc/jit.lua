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

-- One translation unit: the header inlined where the source includes it
-- (`source`: gen.source, or the checked unit gen.checked_source).  The
-- lines after the header keep their numbers in the source.
function M.unit(gen, source)
  source = source or gen.source
  local inc = '#include "' .. gen.header_name .. '"'
  local s, e = source:find(inc, 1, true)
  local _, before = source:sub(1, s):gsub("\n", "")
  return source:sub(1, s - 1) .. gen.header
    .. string.format('#line %d "%s"', before + 1, gen.source_name) .. source:sub(e + 1)
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

-- unit_name: the file name the compiler gives lines before any #line
local function compile_error(gen, msgs, allow_undefined, unit_name)
  for line in (msgs .. "\n"):gmatch("(.-)\n") do
    local file, l, col, rest = line:match("^(.-):(%d+):(%d+): error: (.*)$")
    if not file then file, l, rest = line:match("^(.-):(%d+): error: (.*)$") end
    if rest then rest = hint(rest) end
    if file then
      local loc = { file = file == unit_name and gen.source_name or file, line = tonumber(l) }
      local map = (file == gen.source_name and gen.source_restore)
        or (file == gen.header_name and gen.header_restore) or nil
      local spec_loc = map and map[loc.line]
      if spec_loc then
        errors.raise(spec_loc, "C error in %s: %s", spec_loc.block.what, rest)
      elseif file == gen.source_name or file == gen.header_name or file == "<string>"
          or file == unit_name then
        errors.raise(loc, "C error in generated code: %s", rest)
      end
      for _, b in ipairs(gen.user_blocks or {}) do
        if (b.cfile or b.file) == file and loc.line >= b.first and loc.line <= b.last then
          errors.raise({ file = b.file, line = loc.line, col = tonumber(col) }, "C error in %s: %s",
            b.what, rest)
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

-- The system C compiler that checks what tcc accepted at the documented
-- flags (gcc -std=c99 -Wall -Wextra -Werror -pedantic catches what tcc does
-- not: unused variables and parameters, unused static functions, ISO C
-- pedantry).  DIAGC_CHECK_CC names it (a command, or "none"); by default the
-- first of gcc and clang on PATH.  It compiles to a temporary object in a
-- private directory: nothing is linked or run, and the generated C includes
-- only standard headers.
M.CHECK_FLAGS = "-std=c99 -Wall -Wextra -Werror -pedantic"
local check_cc
local shq = require("diagc.util").shell_quote
function M.check_cc()
  if check_cc ~= nil then return check_cc end
  local want = os.getenv("DIAGC_CHECK_CC")
  check_cc = false
  if want == "none" then return check_cc end
  for _, c in ipairs(want and want ~= "" and { want } or { "gcc", "clang" }) do
    local p = io.popen("command -v " .. shq(c) .. " 2>/dev/null")
    local path = p and p:read("*l")
    if p then p:close() end
    if path and path ~= "" then check_cc = path; break end
  end
  -- a compiler the user named but that cannot be found never turns the
  -- check off in silence (without DIAGC_CHECK_CC, a machine with neither
  -- gcc nor clang skips it, as documented)
  if not check_cc and want and want ~= "" then
    errors.raise(nil, "DIAGC_CHECK_CC names '%s', which is not a command on PATH (one word: a "
      .. "compiler's name or path, without arguments); set it to gcc, clang, a path, or none to "
      .. "skip the C check", want)
  end
  return check_cc
end

-- A Lua pattern matching `s` literally.
local function lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

-- The check's cache key: the unit with what cannot change a diagnostic
-- made uniform, so that models differing only in their name and default
-- values (a test that builds 100 variants of one model) are checked once.
-- Replaced: identifiers that start with the model's prefix and `_` (the
-- generated names; spec names cannot take that form), the file names in
-- #line directives, the "generated by" comments, and the values of the
-- default-value arrays (finite numbers, already valid C).
local function check_key(gen, unit)
  local P = gen.prefix
  local k = unit:gsub("%f[%w_]" .. lit(P) .. "_", "P_")
  if P:upper() ~= P then k = k:gsub("%f[%w_]" .. lit(P:upper()) .. "_", "PU_") end
  k = k:gsub('(#line %d+ )"' .. lit(gen.source_name) .. '"', '%1"S"')
  k = k:gsub('(#line %d+ )"' .. lit(gen.header_name) .. '"', '%1"H"')
  k = k:gsub("/%* [^\n]-: generated by diagc [^\n]-%*/", "/* */")
  k = k:gsub("(\nstatic const double P__%w+%[%d+%] = )%b{};", "%1{0};")
  return k
end

local check_cache = {} -- check_key .. flags -> true (passed)

-- Runs the system compiler on `source` with the header beside it, as a
-- user builds the generated pair (clang warns of an unused static inline
-- function in the file it compiles, not in a header: the unit with the
-- header inlined would fail there on every setter a model does not call);
-- `unit` (the two inlined) keys the cache.  Raises the first error at its
-- spec line.  A compiler that cannot be run, or fails without a
-- diagnostic, is an error too (never a silent pass).
local function system_check(gen, unit, source, all_defines)
  local cc = M.check_cc()
  if not cc then return end
  local h = host()
  local defines = {}
  for _, k in ipairs(require("diagc.util").sorted_keys(all_defines)) do
    local v = all_defines[k]
    if k ~= "__STRICT_ANSI__" and v then -- -std=c99 defines __STRICT_ANSI__ itself
      defines[#defines + 1] = "-D" .. k .. (v == true and "" or ("=" .. tostring(v)))
    end
  end
  local flags = table.concat(defines, "\0")
  local key = check_key(gen, unit) .. "\0" .. cc .. "\0" .. flags
  if check_cache[key] then return end
  -- in a private directory (the compiler's own temporary files too), in a
  -- process group that a timeout or a signal kills whole (host stop.c);
  -- the object goes to a file there, never /dev/null: a compiler that
  -- removes its output on failure would, run as root, delete the device
  local argv = { cc }
  for w in M.CHECK_FLAGS:gmatch("%S+") do argv[#argv + 1] = w end
  for _, w in ipairs({ "-c", "-o", "unit.o", "-fdiagnostics-color=never", "-I" .. h.include_dir() }) do
    argv[#argv + 1] = w
  end
  for _, d in ipairs(defines) do argv[#argv + 1] = d end
  for _, w in ipairs({ "-x", "c", "unit.c" }) do argv[#argv + 1] = w end
  local rc, msgs = h.run_isolated(argv, { { name = "unit.c", text = source },
    { name = gen.header_name, text = gen.header } })
  if not rc then
    errors.raise(nil, "cannot run the C check with %s: %s; set DIAGC_CHECK_CC to none to skip it", cc, msgs)
  end
  if msgs:find(": error: ") then compile_error(gen, msgs, true, "unit.c") end
  if rc ~= 0 then
    errors.raise(nil, "the C check with %s failed (status %s): %s; set DIAGC_CHECK_CC to another compiler, "
      .. "or none to skip it", cc, tostring(rc), (msgs:match("[^\n]+") or "no message"))
  end
  check_cache[key] = true
end

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
  -- the system compiler reads only the functions that hold the spec's C
  -- (coder/emit.lua: the checked unit), so its cost does not grow with
  -- the number of systems
  system_check(gen, gen.checked_source and M.unit(gen, gen.checked_source) or unit, gen.checked_source or gen.source,
    defines)
  local r = {
    state = state,
    symbol = function(name) return h.tcc_symbol(state, name) end,
  }
  cache[key] = r
  return r
end

return M
