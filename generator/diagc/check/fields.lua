-- check/fields.lua: validation of one declaration's fields.
local errors = require("diagc.errors")
local util = require("diagc.util")
local c_code = require("diagc.check.c_code")
local limits = require("diagc.vocab.limits")

local M = {}

local C_KEYWORDS = {}
for w in ([[auto break case char const continue default do double else enum extern
  float for goto if inline int long register restrict return short signed sizeof static
  struct switch typedef union unsigned void volatile while _Bool _Complex _Imaginary
  main NULL]]):gmatch("%S+") do C_KEYWORDS[w] = true end
M.C_KEYWORDS = C_KEYWORDS

-- Names C accepts but the generated C would not mean by them: compiler
-- keywords and predefined macros outside C99 (tcc's asm, typeof, unix),
-- object-like macros of the C99 headers the generated C includes, POSIX
-- constants some C libraries define (M_PI), and the runtime's own names.
local C_CLASHES = {}
for w in ([[asm typeof unix linux i386 fortran
  INFINITY NAN HUGE_VAL HUGE_VALF HUGE_VALL FP_NAN FP_INFINITE FP_ZERO FP_SUBNORMAL FP_NORMAL
  FP_FAST_FMA FP_FAST_FMAF FP_FAST_FMAL FP_ILOGB0 FP_ILOGBNAN MATH_ERRNO MATH_ERREXCEPT
  math_errhandling errno EDOM ERANGE EILSEQ bool true false
  EOF BUFSIZ FILENAME_MAX FOPEN_MAX L_tmpnam TMP_MAX SEEK_SET SEEK_CUR SEEK_END stdin stdout
  stderr EXIT_SUCCESS EXIT_FAILURE RAND_MAX MB_CUR_MAX CHAR_BIT MB_LEN_MAX SCHAR_MIN SCHAR_MAX
  UCHAR_MAX CHAR_MIN CHAR_MAX SHRT_MIN SHRT_MAX USHRT_MAX INT_MIN INT_MAX UINT_MAX LONG_MIN
  LONG_MAX ULONG_MAX LLONG_MIN LLONG_MAX ULLONG_MAX SIZE_MAX PTRDIFF_MIN PTRDIFF_MAX
  SIG_ATOMIC_MIN SIG_ATOMIC_MAX WCHAR_MIN WCHAR_MAX WINT_MIN WINT_MAX INTMAX_MIN INTMAX_MAX
  UINTMAX_MAX INTPTR_MIN INTPTR_MAX UINTPTR_MAX DECIMAL_DIG
  CLOCKS_PER_SEC
  static_assert alignof alignas noreturn thread_local]]):gmatch("%S+") do C_CLASHES[w] = true end
M.C_CLASHES = C_CLASHES

-- Why a name would clash in the generated C, or nil.
function M.c_clash(s)
  if C_CLASHES[s] then
    return "is a compiler keyword or a macro of the C library"
  end
  if s:match("^M_[%u%d_]+$") then return "is a math constant macro of some C libraries (M_PI, ...)" end
  if s:match("^L?DBL_") or s:match("^FLT_") or s:match("^U?INT%d*_") or s:match("^U?INT_LEAST%d")
      or s:match("^U?INT_FAST%d") then
    return "is a macro of the C library (<float.h>, <stdint.h>)"
  end
  if s:lower():match("^diagc_") then return "starts with diagc_, which the runtime uses for its names" end
  return nil
end

-- Only these keys (besides positional ones up to npos) are allowed.
function M.only(item, allowed, npos)
  npos = npos or 0
  local set = {}
  for _, k in ipairs(allowed) do set[k] = true end
  for _, k in ipairs(util.sorted_keys(item.args)) do
    if type(k) == "number" then
      if k < 1 or k > npos or math.floor(k) ~= k then
        if npos == 0 then
          errors.raise(item.loc, "%s takes only named fields (%s)", item._item,
            table.concat(allowed, ", "))
        end
        errors.raise(item.loc, "%s takes %d positional value%s; found one at position %s",
          item._item, npos, npos == 1 and "" or "s", tostring(k))
      end
    elseif not set[k] then
      local best = util.suggest(tostring(k), allowed)
      errors.raise(item.loc, "%s has no field '%s'%s", item._item, tostring(k),
        best and string.format("; did you mean '%s'?", best)
          or string.format(" (fields: %s)", table.concat(allowed, ", ")))
    end
  end
end

function M.identifier(loc, what, s)
  if type(s) ~= "string" then
    errors.raise(loc, "%s must be a string name, got %s", what, type(s))
  end
  local long = limits.name_problem(what, s)
  if long then errors.raise(loc, "%s", long) end
  if not s:match("^[A-Za-z][A-Za-z0-9_]*$") then
    errors.raise(loc, "%s '%s' is not a valid name: use letters, digits and _ starting with a letter", what, s)
  end
  if s:find("__", 1, true) then
    errors.raise(loc, "%s '%s' contains '__', which diagc reserves for path separators", what, s)
  end
  if C_KEYWORDS[s] then
    errors.raise(loc, "%s '%s' is a C keyword; choose another name", what, s)
  end
  local clash = M.c_clash(s)
  if clash then
    errors.raise(loc, "%s '%s' %s, so the generated C would not mean the name; choose another name",
      what, s, clash)
  end
  return s
end

-- The name of a declaration: args[1] or args.name.
function M.name(item, what)
  local n = item.args[1]
  if n == nil then n = item.args.name end
  if n == nil then
    errors.raise(item.loc, "%s needs a name, as in %s { \"name\", ... }", item._item, item._item)
  end
  return M.identifier(item.loc, what or (item._item .. " name"), n)
end

function M.positive_int(loc, what, v)
  if type(v) ~= "number" or v ~= math.floor(v) or v < 1 or v > 1e7 then
    errors.raise(loc, "%s must be a positive integer, got %s", what, tostring(v))
  end
  return v
end

function M.number(loc, what, v)
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    errors.raise(loc, "%s must be a finite number, got %s", what, tostring(v))
  end
  return v
end

-- A vector of finite numbers; a single number is accepted as a 1-vector.
function M.vector(loc, what, v, size)
  if type(v) == "number" then v = { v } end
  if type(v) ~= "table" then
    errors.raise(loc, "%s must be a list of numbers such as {0, 1}, got %s", what, type(v))
  end
  local out = {}
  local n = #v
  for k in pairs(v) do
    if type(k) ~= "number" or k < 1 or k > n or k ~= math.floor(k) then
      errors.raise(loc, "%s must be a plain list of numbers such as {0, 1}", what)
    end
  end
  for i = 1, n do out[i] = M.number(loc, what .. "[" .. (i - 1) .. "]", v[i]) end
  if size and n ~= size then
    errors.raise(loc, "%s has %d value%s but the size is %d", what, n, n == 1 and "" or "s", size)
  end
  if n == 0 then errors.raise(loc, "%s is empty; give at least one value", what) end
  return out
end

function M.c_code(loc, what, v)
  if type(v) ~= "string" then
    errors.raise(loc, "%s must be a string of C statements (use [[ ... ]]), got %s", what, type(v))
  end
  return v
end

function M.c_type(loc, what, v)
  if type(v) ~= "string" or not v:match("^[%w_ ]+[%w_]$") then
    errors.raise(loc, "%s must be a C type name such as \"my_struct\" or \"int\", got %s",
      what, type(v) == "string" and ("'" .. v .. "'") or type(v))
  end
  for w in v:gmatch("[%w_]+") do
    if c_code.EXTENSION_WORDS[w] or c_code.is_reserved(w) or M.c_clash(w) then
      errors.raise(loc, "%s '%s': '%s' is not a C99 type name (a compiler extension, reserved "
        .. "or library macro name); declare a typedef in a c_preamble and use its name", what, v, w)
    end
  end
  return v
end

-- A port's unit (unit = "rad/s"): a label for plots and diagc info, not
-- checked across wires.  Up to UNIT_MAX bytes of printable text (UTF-8
-- letters such as "°" or "Ω" allowed), no control characters, no spaces
-- at its ends.
M.UNIT_MAX = 32

local function utf8_ok(s)
  local i = 1
  while i <= #s do
    local n = util.utf8_len(s, i)
    if not n then return false end
    i = i + n
  end
  return true
end

function M.unit(loc, what, v)
  if v == nil then return nil end
  if type(v) ~= "string" then
    errors.raise(loc, "%s unit must be a string such as \"rad/s\", got %s", what, errors.describe(v))
  end
  if v == "" or #v > M.UNIT_MAX then
    errors.raise(loc, "%s unit '%s' is %d bytes long; a unit is 1 to %d bytes, such as \"rad/s\"", what,
      (v:sub(1, M.UNIT_MAX):gsub("[%c\127]", "?")), #v, M.UNIT_MAX)
  end
  if v:find("[%c\127]") or not utf8_ok(v) then
    errors.raise(loc, "%s unit holds a control character or a byte that is not UTF-8; write it as printable "
      .. "text, such as \"m/s^2\"", what)
  end
  if v:find("^%s") or v:find("%s$") then
    errors.raise(loc, "%s unit '%s' starts or ends with a space; remove it", what, v)
  end
  return v
end

-- Find where a calc body's text sits in its spec file: {file, line, col}.
function M.locate(sources, loc, text)
  local src = sources[loc.file]
  if not src or text == "" then return { file = loc.file, line = loc.line, col = 1 } end
  local pos, line = 1, 1
  while line < loc.line do
    local nl = src:find("\n", pos, true)
    if not nl then break end
    pos, line = nl + 1, line + 1
  end
  -- Lua reports a call with a long-string argument (c_preamble [[ ... ]])
  -- at the string's last line: then the text starts before loc's line
  local s = src:find(text, pos, true)
  if not s then
    local from = 1
    while true do
      local f = src:find(text, from, true)
      if not f or f >= pos then break end
      s, from = f, f + 1
    end
  end
  if not s then return { file = loc.file, line = loc.line, col = 1 } end
  local before = src:sub(1, s - 1)
  local l = 1
  for _ in before:gmatch("\n") do l = l + 1 end
  local last_nl = before:match(".*()\n")
  local col = last_nl and (s - last_nl) or s
  return { file = loc.file, line = l, col = col }
end

return M
