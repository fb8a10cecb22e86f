-- lib/blocks/init.lua: the standard block library a spec sees as `blocks`
-- (issue #28; docs/library.md, "Blocks").  Each block is a Lua function
-- of a table of settings that returns an ordinary leaf type, built with
-- the spec language's own constructors: numeric parameters (so -p,
-- sweeps and parameter_jacobian work on them), generated C calcs in the
-- differentiable subset, narrow prerequisites.  Ports: `u` (or `u1`,
-- `u2`, ...) in, `y` out.  One file per category; common.lua checks the
-- settings and makes the leaf.
--
--   M.library(ctors, at, relocate, raise) -> the `blocks` table
--     ctors: the spec language's constructors (leaf, parameter, ...)
--     at(level) -> {file=, line=}: the spec's line that called a block
--     relocate(item, loc): records an item at that line
--     raise(loc, fmt, ...): the one-line error
--   A block's items are recorded at that line, so every message about its
--   leaf points at the spec, never at the library.
local common = require("diagc.lib.blocks.common")
local categories = {
  require("diagc.lib.blocks.sources"),
  require("diagc.lib.blocks.noise"),
  require("diagc.lib.blocks.time_table"),
  require("diagc.lib.blocks.math"),
  require("diagc.lib.blocks.lookup"),
  require("diagc.lib.blocks.nonlinear"),
  require("diagc.lib.blocks.continuous"),
  require("diagc.lib.blocks.discrete"),
  require("diagc.lib.blocks.controllers"),
  require("diagc.lib.blocks.state_feedback"),
  require("diagc.lib.blocks.hybrid"),
}

local M = {}

function M.library(ctors, at, relocate, raise)
  local K = common.kit(ctors, at, relocate, raise)
  local B = {}
  for _, c in ipairs(categories) do c.add(B, K) end
  return B
end

return M
