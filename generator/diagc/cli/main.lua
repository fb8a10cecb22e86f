-- cli/main.lua: argument parsing shared by the subcommands.
local errors = require("diagc.errors")

local M = {}

-- spec: {flags = {name = true (takes value) | false}, positional = n}
function M.parse(args, spec, cmd)
  local out, pos = {}, {}
  local i = 1
  while i <= #args do
    local a = args[i]
    if a:sub(1, 1) == "-" and a ~= "-" then
      local name, val = a:match("^(%-%-?[^=]+)=(.*)$")
      name = name or a
      local takes = spec.flags[name]
      if takes == nil then
        errors.raise(nil, "%s: unknown option '%s' (see diagc --help)", cmd, name)
      end
      if takes then
        if val == nil then
          i = i + 1
          val = args[i]
          if val == nil then errors.raise(nil, "%s: option %s needs a value", cmd, name) end
        end
        if spec.multi and spec.multi[name] then
          out[name] = out[name] or {}
          table.insert(out[name], val)
        else
          out[name] = val
        end
      else
        out[name] = true
      end
    else
      pos[#pos + 1] = a
    end
    i = i + 1
  end
  return out, pos
end

function M.number(cmd, name, s)
  local v = tonumber(s)
  if not v then errors.raise(nil, "%s: %s expects a number, got '%s'", cmd, name, tostring(s)) end
  return v
end

return M
