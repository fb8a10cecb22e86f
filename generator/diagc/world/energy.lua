-- world/energy.lua: emits PFX_energy(q, v, X, inertial), the total energy (kinetic +
-- gravitational potential) of the world, for tests: body velocities
-- propagated from the joint velocities as in the bias, each body's energy
-- from its centre-of-mass velocity and body-frame inertia.  Also
-- PFX_velocities(q, v, X, V): those body velocities themselves, 6 per body
-- (angular, then linear of the point at the world origin; world axes),
-- zeros for a body welded to the world (the per-body outputs,
-- world/signals.lua).
local spatial = require("diagc.world.spatial")
local tree = require("diagc.world.tree")
local motion = require("diagc.world.motion")
local fold = require("diagc.world.fold")
local crba = require("diagc.world.crba")

local M = {}

local function velocity(world, t, i, out, V)
  local p = world.bodies[i].joint.parent
  for _, l in ipairs(motion.lines(world, t, i, "  ")) do out[#out + 1] = l end
  if t.nvi[i] == 0 then V[i] = V[p] return end
  local e = {}
  for r = 0, 5 do
    local terms = {}
    if V[p] ~= "Z" then terms[1] = string.format("%s[%d]", V[p], r) end
    for k = t.v0[i], t.v0[i] + t.nvi[i] - 1 do terms[#terms + 1] = string.format("S%d[%d] * v[%d]", k, r, k) end
    e[r + 1] = table.concat(terms, " + ")
  end
  out[#out + 1] = string.format("  const double V%d[6] = { %s };", i, table.concat(e, ", "))
  V[i] = "V" .. i
end

function M.emit(world, t, prefix, h)
  local out = { string.format(
    "static double %s_energy(const double *q, const double *v, const double *X, const double *inertial)\n{", prefix) }
  out[#out + 1] = "  (void)q;\n  (void)inertial;"
  if t.nv == 0 then out[#out + 1] = "  (void)v;" end
  local V = { [0] = "Z" }
  local g = world.gravity or { 0, 0, 0 }
  local gs = table.concat({ fold.num(g[1]), fold.num(g[2]), fold.num(g[3]) }, ", ")
  local terms, zero = {}, false
  for i, b in ipairs(world.bodies) do
    if crba.moving(t, i) then velocity(world, t, i, out, V) else V[i] = "Z"; zero = true end
    terms[#terms + 1] = string.format("  e += %s(X + %d, %s, %s, %s);", h:use("body_energy"), 12 * (i - 1), V[i],
      spatial.body_args(b, tree.inertial(t, i)), gs)
  end
  if zero then out[#out + 1] = "  const double Z[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };" end
  out[#out + 1] = "  double e = 0.0;"
  for _, l in ipairs(terms) do out[#out + 1] = l end
  if t.nb == 0 then out[#out + 1] = "  (void)X;" end
  out[#out + 1] = "  return e;\n}\n"
  return table.concat(out, "\n")
end

function M.emit_velocities(world, t, prefix)
  local out = { string.format(
    "static void %s_velocities(const double *q, const double *v, const double *X, double *V)\n{", prefix) }
  out[#out + 1] = "  (void)q;"
  if t.nv == 0 then out[#out + 1] = "  (void)v;\n  (void)X;" end
  if t.nb == 0 then out[#out + 1] = "  (void)V;" end
  local Vn = { [0] = "Z" }
  local sets = {}
  for i = 1, t.nb do
    if crba.moving(t, i) then velocity(world, t, i, out, Vn) else Vn[i] = "Z" end
    for r = 0, 5 do
      sets[#sets + 1] = string.format("  V[%d] = %s;", 6 * (i - 1) + r,
        Vn[i] == "Z" and "0.0" or string.format("%s[%d]", Vn[i], r))
    end
  end
  for _, l in ipairs(sets) do out[#out + 1] = l end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

return M
