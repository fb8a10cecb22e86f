-- check/init.lua: spec -> checked model.  Every leaf and diagram type is
-- checked once (types are values and may be reused many times).
local leaf = require("diagc.check.leaf")
local diagram = require("diagc.check.diagram")
local errors = require("diagc.errors")

local M = {}

function M.check(loaded)
  local memo, order = {}, {}
  local visiting = {}
  local function check_type(spec)
    local t = memo[spec]
    if t then return t end
    if visiting[spec] then
      errors.raise(spec.loc, "diagram \"%s\" contains itself", spec.name)
    end
    visiting[spec] = true
    if spec._kind == "leaf" then
      t = leaf.check(spec, loaded.sources, #order + 1)
    else
      t = diagram.check(spec, check_type)
    end
    visiting[spec] = nil
    memo[spec] = t
    order[#order + 1] = t
    return t
  end
  local root = check_type(loaded.root)
  local leaves = {}
  for _, t in ipairs(order) do if t.kind == "leaf" then leaves[#leaves + 1] = t end end
  return { root = root, leaf_types = leaves, sources = loaded.sources, main = loaded.main }
end

return M
