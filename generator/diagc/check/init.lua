-- check/init.lua: spec -> checked model.  Every leaf and diagram type is
-- checked once (types are values and may be reused many times).
--
-- Stage contract: loaded spec L (spec/load.lua) -> checked model M (M.check):
--   M.root        the checked type of L.root (a checked diagram)
--   M.leaf_types  the checked leaf types, each once, in the order they
--                 were checked (depth first, in declaration order); a
--                 leaf type's id is its 1-based position among all checked
--                 types (leaves and diagrams, a diagram after its children)
--   M.sources, M.main   L's, unchanged
-- A world (world/lower.lua) is checked as the leaf it lowers to; that
-- leaf type's .world holds the checked world (world/check.lua).
-- Checked leaf types are described in check/leaf.lua, checked diagrams in
-- check/diagram.lua.  Errors of a declaration or a type (a bad field, an
-- unknown name, a prerequisite the leaf does not have, a bad writes list,
-- ...) are raised here with their spec file:line; the errors that need the
-- instantiated diagram are flatten's (parameter overrides, logger names)
-- and tickets/loops.lua's (algebraic loops).  Calc bodies are checked
-- against their scope by check/scope.lua's check_body, which needs the
-- host's C lexer and runs after this pass.
local leaf = require("diagc.check.leaf")
local world = require("diagc.world.lower")
local diagram = require("diagc.check.diagram")
local errors = require("diagc.errors")

local M = {}

function M.check(loaded)
  local memo, order = {}, {}
  local visiting = {}
  local worlds = {} -- the C prefixes of the worlds lowered so far (world/lower.lua)
  local function check_type(spec)
    local t = memo[spec]
    if t then return t end
    if visiting[spec] then
      errors.raise(spec.loc, "diagram \"%s\" contains itself", spec.name)
    end
    visiting[spec] = true
    if spec._kind == "world" then
      local lowered = world.lower(spec, worlds)
      t = leaf.check(lowered, loaded.sources, #order + 1)
      t.world = lowered.world
    elseif spec._kind == "leaf" then
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
