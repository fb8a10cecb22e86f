-- coder/emit.lua: a line buffer that knows its own line numbers, so calc
-- bodies can be wrapped in #line directives pointing at the spec.
local util = require("diagc.util")

local M = {}
M.__index = M

-- The file name a #line directive gives for a spec file: the name itself
-- (as a C string literal: quotes, backslashes and '?' escaped), with control
-- characters, which a compiler's one-line messages cannot carry, as '?'; a
-- path longer than a C99 string literal holds keeps its last characters
-- (".../specs/robot.lua"): it only names the file in compiler messages,
-- which diagc maps back to the spec.
function M.line_file(file)
  file = file:gsub("[%z\1-\31\127]", "?")
  local max = require("diagc.vocab.limits").STRING
  if #file > max then file = "..." .. file:sub(-(max - 3)) end
  return file
end

function M.new(file_name)
  -- restore[n]: the spec location of the user line just before generated
  -- line n (compilers sometimes report an error in a body's last line on
  -- the next line, after the #line that returns to generated code)
  return setmetatable({ lines = {}, file = file_name, restore = {}, blocks = {} }, M)
end

function M:line(s)
  self.lines[#self.lines + 1] = s or ""
end

function M:linef(fmt, ...)
  self.lines[#self.lines + 1] = string.format(fmt, ...)
end

-- A user's C text at its spec location: columns are kept by padding the
-- first line to the column where the text started in the spec.
-- what: how errors in this text are described ("a calc body", "a c_preamble")
function M:user_code(text, loc, what)
  local body = text:gsub("\r", "")
  local cfile = M.line_file(loc.file)
  self:linef('#line %d %s', loc.line, util.c_string(cfile))
  local first, n = true, 0
  for l in (body .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    if first and loc.col and loc.col > 1 then l = string.rep(" ", loc.col - 1) .. l end
    self:line(first and l or l)
    first = false
  end
  self:linef('#line %d %s', #self.lines + 2, util.c_string(self.file))
  local block = { file = loc.file, cfile = cfile, first = loc.line, last = loc.line + n - 1, what = what or "spec code" }
  self.restore[#self.lines + 1] = { file = loc.file, line = block.last, block = block }
  self.blocks[#self.blocks + 1] = block
end

-- The functions that hold a spec's C (calc functions, the init function)
-- are also gathered into a small unit the system compiler checks
-- (jit.lua): the rest of the generated C does not depend on the spec's C
-- and is checked by the project's own tests.  `begin_checked` and
-- `end_checked` bracket such lines; `fn` names a static function the unit
-- must reference so that it is not reported unused.
function M:begin_checked()
  self.checked_from = #self.lines + 1
end

function M:end_checked(fn)
  self.checked = self.checked or {}
  self.checked[#self.checked + 1] = { first = self.checked_from, last = #self.lines, fn = fn }
  self.checked_from = nil
end

-- The checked unit: lines 1..prologue_last, then every bracketed range at
-- its own line numbers, then one reference to each named function.
function M:checked_text(prologue_last, refs_name)
  local out = {}
  for i = 1, prologue_last do out[#out + 1] = self.lines[i] end
  local fns = {}
  for _, r in ipairs(self.checked or {}) do
    out[#out + 1] = string.format('#line %d "%s"', r.first, self.file)
    for i = r.first, r.last do out[#out + 1] = self.lines[i] end
    if r.fn then fns[#fns + 1] = "(void (*)(void))" .. r.fn end
  end
  if #fns > 0 then
    out[#out + 1] = string.format("void (*const %s[])(void) = {", refs_name)
    out[#out + 1] = "  " .. table.concat(fns, ",\n  ")
    out[#out + 1] = "};"
  end
  return table.concat(out, "\n") .. "\n"
end

function M:text()
  return table.concat(self.lines, "\n") .. "\n"
end

return M
