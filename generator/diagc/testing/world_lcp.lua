-- testing/world_lcp.lua: the message of a simulation that a world's step
-- stopped because its contact LCP failed the check of check_lcp = true
-- (DIAGC_CONTACT_E_CHECK: a solution above the accepted tolerance, or an
-- LCP left unsolved; world/step_check.lua).  The simulator's own message
-- names the event, the time and the status; this one adds the pair of
-- bodies whose contact the solve could not resolve, read from the failed
-- step's work (its info: contacts, the candidate pair of the contact that
-- closes fastest after the solve, the residual, that contact's normal
-- velocity), and how to leave the pair out.  A step whose velocity blew
-- up (DIAGC_WORLD_E_NONFINITE) after a step that left its LCP unsolved
-- says that too.  `diagc run` and `diagc test` (testing/model.lua,
-- Sim:error) print it.
--
--   M.message(sim, msg) -> the message, or nil when msg is not this failure
local ffi = require("ffi")
local next_state = require("diagc.testing.step_jacobians").next_state

local M = {}

local function world_at(model, path)
  for _, leaf in ipairs(model.gen and model.gen.flat.leaves or {}) do
    if leaf.type.world and leaf.path == path then return leaf end
  end
end

-- a step that blew up (DIAGC_WORLD_E_NONFINITE) after steps whose LCP was
-- left unsolved: the last step's residual (the state's info[2]) says so
local function nonfinite(sim, msg, leaf)
  local info = sim.context:get(leaf.path .. ".info")
  local r = info and info[3]
  if not r or not (r > 1e-6) then return nil end
  return string.format("%s; the step before left its contact LCP unsolved (residual %.3g): set check_lcp = true "
    .. "to stop at the first such step and name the pair of bodies", msg, r)
end

function M.message(sim, msg)
  local path = msg:match("event '(.+)%.step' failed at t = [^:]+: ")
  local leaf = path and world_at(sim.model, path)
  if not leaf then return nil end
  local blown = ffi.string(ffi.C.diagc_status_message(ffi.C.DIAGC_WORLD_E_NONFINITE))
  if msg:sub(-#blown) == blown then return nonfinite(sim, msg, leaf) end
  local status = ffi.string(ffi.C.diagc_status_message(ffi.C.DIAGC_CONTACT_E_CHECK))
  if msg:sub(-#status) ~= status then return nil end
  if not leaf.type.world.settings.check_lcp then return nil end
  local s = next_state(sim.context, leaf)
  local C = leaf.type.world
  local p = s and s.info[1] >= 1 and C.pairs[s.info[2] + 1]
  if not p then return nil end
  local function body(shape)
    local b = C.bodies[C.shapes[shape].body]
    return b and b.name or "world", C.shapes[shape].type
  end
  local a, ta = body(p.a)
  local b, tb = body(p.b)
  return string.format("%s: the contact of bodies '%s' (%s) and '%s' (%s) has normal velocity %.3g m/s after "
    .. "the solve (LCP residual %.3g, %d contacts); if they overlap for good, leave the pair out: exclude = "
    .. "{ {\"%s\", \"%s\"} } (or an SRDF for a URDF robot)", msg, a, ta, b, tb, s.info[4] + 0.0, s.info[3],
    s.info[1], a, b)
end

return M
