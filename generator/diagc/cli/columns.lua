-- cli/columns.lua: the CSV's column names of one logger, the rule of the
-- runtime's header (runtime/src/csv.c, diagc_csv_write_header):
-- `sys.port.ELEMENT` when the logged port names its elements, else
-- `sys.port` for a scalar and `sys.port[i]` (from 0) for a vector.
-- `diagc info`'s loggers (cli/info.lua, and through them the viewer's
-- CSV check) and `diagc sweep`'s summary columns (cli/sweep_batch.lua)
-- take their names from here.
local M = {}

-- name: the logger's name; size: its width; elements: the port's element
-- names (a Lua array) or nil.  Returns the array of `size` names.
function M.of(name, size, elements)
  local cols = {}
  for i = 1, size do
    if elements then cols[i] = name .. "." .. elements[i]
    elseif size == 1 then cols[i] = name
    else cols[i] = string.format("%s[%d]", name, i - 1) end
  end
  return cols
end

return M
