-- coder/emit.lua: a line buffer that knows its own line numbers, so calc
-- bodies can be wrapped in #line directives pointing at the spec.
local util = require("diagc.util")

local M = {}
M.__index = M

-- The file name a #line directive gives for a spec file: the name itself
-- (as a C string literal: quotes, backslashes and '?' escaped), with control
-- characters, which a compiler's one-line messages cannot carry, as '?'.
function M.line_file(file)
  return (file:gsub("[%z\1-\31\127]", "?"))
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

function M:text()
  return table.concat(self.lines, "\n") .. "\n"
end

return M
