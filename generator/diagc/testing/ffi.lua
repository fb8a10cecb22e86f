-- testing/ffi.lua: LuaJIT FFI declarations of the runtime's public headers,
-- read from the headers themselves (preprocessor lines dropped, numeric
-- #defines turned into constants), so they cannot drift apart.
local ffi = require("ffi")

local M = { const = {} }

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- Strip comments and preprocessor directives; skip __cplusplus blocks;
-- collect numeric #defines.
local function to_cdef(text)
  text = text:gsub("/%*.-%*/", function(c) return (c:gsub("[^\n]", "")) end)
  text = text:gsub("//[^\n]*", "")
  local out, skip = {}, 0
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local d = line:match("^%s*#%s*(%w+)")
    if d then
      if d == "ifdef" and line:find("__cplusplus") then skip = skip + 1
      elseif (d == "if" or d == "ifdef" or d == "ifndef") and skip > 0 then skip = skip + 1
      elseif d == "endif" and skip > 0 then skip = skip - 1
      elseif d == "define" and skip == 0 then
        local name, val = line:match("^%s*#%s*define%s+([%w_]+)%s+%(?%s*(%-?[%d%.eE+]+)%s*%)?%s*$")
        if name and tonumber(val) then M.const[name] = tonumber(val) end
      end
    elseif skip == 0 then
      out[#out + 1] = line
    end
  end
  return table.concat(out, "\n")
end

-- The C library functions the CLI uses for checked file output (declared
-- once, whichever module asks first).
local stdio_done = false
function M.stdio()
  if stdio_done then return M end
  stdio_done = true
  ffi.cdef [[
typedef struct _IO_FILE FILE;
FILE *fopen(const char *, const char *);
FILE *fdopen(int, const char *);
int fclose(FILE *);
int fflush(FILE *);
int ferror(FILE *);
size_t fwrite(const void *, size_t, size_t, FILE *);
char *strerror(int);
int getpid(void);
char *realpath(const char *, char *);
void free(void *);
]]
  return M
end

-- Declares the runtime header include_dir/diagc/NAME once (an optional
-- library's, e.g. cvode.h, after load()).
local extra_done = {}
function M.header(include_dir, name)
  if extra_done[name] then return M end
  extra_done[name] = true
  ffi.cdef(to_cdef(read(include_dir .. "/diagc/" .. name)))
  return M
end

-- The shortest text that reads back as the finite number x, as `diagc run`
-- writes its CSV (the runtime's diagc_format_double, diagc/csv.h): the one
-- number formatter of diagc's numeric outputs (cli/json.lua,
-- cli/linearize.lua).
local numbuf
function M.number_text(x)
  M.load(require("diagc_host").include_dir())
  local size = M.const.DIAGC_DOUBLE_BUFSIZE
  numbuf = numbuf or ffi.new("char[?]", size)
  local n = ffi.C.diagc_format_double(numbuf, size, x)
  assert(n > 0, "diagc_format_double")
  return ffi.string(numbuf, n)
end

local done = false
-- include_dir: the runtime's headers (diagc_host.include_dir())
function M.load(include_dir)
  if done then return M end
  done = true
  local inc = include_dir .. "/diagc/"
  ffi.cdef(to_cdef(read(inc .. "status.h")))
  local model = read(inc .. "model.h")
  to_cdef(model) -- constants
  local region = model:match("/%* FFI%-BEGIN.-%*/(.-)/%* FFI%-END %*/")
  ffi.cdef(to_cdef(region))
  ffi.cdef(to_cdef(read(inc .. "simulator.h")))
  ffi.cdef(to_cdef(read(inc .. "linearize.h")))
  ffi.cdef(to_cdef(read(inc .. "trim.h")))
  M.stdio()
  ffi.cdef(to_cdef(read(inc .. "csv.h")))
  return M
end

return M
