-- lib/plant.lua: the linearization of a world at generation, as the
-- control library asks for it (blocks.lqr { plant = W }, control.linearize_world;
-- docs/world.md, "Linearizing a world at generation").
--
--   M.linearize(world, at) -> {A=, B=, h=, states=, inputs=} | nil, problem
--     world: a value made by `world "name" { ... }` in the spec
--     at:    nil or { q = {...}, v = {...}, effort = {...} } (zeros by default)
--
-- The work (generating the world's C, compiling it in-process, taking the
-- step's Jacobian) belongs to the pipeline, a later stage than this
-- library: the driver hands it in once with M.provide(fn), so this module
-- requires none of it.
local M = {}

local provider

function M.provide(fn) provider = fn end

function M.linearize(world, at)
  if not provider then
    return nil, "linearizing a world needs the diagc executable (bin/diagc); run the spec from there"
  end
  return provider(world, at)
end

return M
