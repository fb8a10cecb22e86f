-- coder/template.lua: the fixed shape of a generated file, with named
-- slots the coder fills.  Templates live in ROOT/templates/ (the checkout,
-- or PREFIX/share/diagc/templates once installed).
--
-- Syntax, line by line:
--   {{-- a comment }}   a line holding only this is dropped (notes for
--                       the reader of the template)
--   {{name}}            a line holding only a slot (indentation allowed)
--                       is a block: its value is a function(buf) that
--                       emits lines into the buffer (coder/emit.lua, which
--                       keeps the #line numbers right), or a list of lines
--   text {{name}} text  anywhere else a slot's value, a string or number
--                       (or a function returning one, called when the line
--                       is rendered: values known only once the blocks
--                       above have been emitted), is substituted in the line
-- A slot the template names and the caller did not fill, and a slot the
-- caller filled that the template does not name, are internal errors.
local M = {}

-- ROOT/generator/diagc/coder/template.lua -> ROOT/templates
local function dir()
  local src = debug.getinfo(1, "S").source
  local root = src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]+/[^/]+/[^/]+/[^/]+$")
  return (root or "../..") .. "/templates"
end

local parsed = {}

-- a template's lines as {kind = "text"|"block", text=|name=}
local function load(name)
  if parsed[name] then return parsed[name] end
  local path = dir() .. "/" .. name
  local f = io.open(path, "rb")
  if not f then
    -- a broken checkout or install, not a bug: one line, exit 2
    require("diagc.errors").raise(nil, "template %s is missing; reinstall diagc (make install)", path)
  end
  local text = f:read("*a")
  f:close()
  local lines = {}
  for l in text:gmatch("([^\n]*)\n") do
    local block = l:match("^%s*{{([%w_]+)}}%s*$")
    if block then lines[#lines + 1] = { kind = "block", name = block }
    elseif not l:match("^%s*{{%-%-.*}}%s*$") then lines[#lines + 1] = { kind = "text", text = l } end
  end
  parsed[name] = lines
  return lines
end

local function fail(name, fmt, ...)
  error(string.format("template %s: " .. fmt, name, ...))
end

local function substitute(name, text, slots, used)
  return (text:gsub("{{([%w_]+)}}", function(k)
    local v = slots[k]
    if type(v) == "function" then v = v() end
    if type(v) ~= "string" and type(v) ~= "number" then
      fail(name, "slot '%s' needs a string, got %s", k, type(v))
    end
    used[k] = true
    return tostring(v)
  end))
end

local function block(name, buf, slot, v)
  if type(v) == "function" then v(buf)
  elseif type(v) == "table" then for _, l in ipairs(v) do buf:line(l) end
  else fail(name, "block slot '%s' needs a function or a list of lines, got %s", slot, type(v)) end
end

-- Renders template `name` into the line buffer `buf` with `slots`.
function M.render(name, buf, slots)
  local used = {}
  for _, l in ipairs(load(name)) do
    if l.kind == "block" then
      used[l.name] = true
      block(name, buf, l.name, slots[l.name])
    else
      buf:line(substitute(name, l.text, slots, used))
    end
  end
  for k in pairs(slots) do
    if not used[k] then fail(name, "slot '%s' is filled but the template does not use it", k) end
  end
end

-- A minimal buffer for templates rendered to a string (no #line needs).
function M.to_string(name, slots)
  local out = { lines = {} }
  function out:line(s) self.lines[#self.lines + 1] = s or "" end
  M.render(name, out, slots)
  return table.concat(out.lines, "\n") .. "\n"
end

return M
