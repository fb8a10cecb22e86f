-- world/urdf.lua: urdf { "file.urdf", ... } -> the body declarations it
-- stands for (frozen items {_item = "body", loc = {file=, line=}, args=}).
local errors = require("diagc.errors")

local M = {}

function M.bodies(item)
  errors.raise(item.loc, "urdf import is not available yet")
end

return M
