-- world/crba.lua: emits PFX_mass_matrix(q, X, inertial, M), the joint-space mass
-- matrix by the composite-rigid-body algorithm, unrolled: world-frame
-- spatial inertias of the bodies a dof moves, composites accumulated from
-- the leaves up, then M_ij = S_i . (Ic_j S_j) for every dof i on dof j's
-- ancestor chain (both triangles written), stored per subtree (t.mindex,
-- world/tree.lua).  The structural zeros (pairs of dofs on different
-- branches of a subtree) are never written: the caller zeroes the buffer once (the factor and the solve never read them either), so a world
-- of many free bodies costs no nv * nv stores per call.  A lone free body
-- (world.lone) gets its closed form, its zero entries left unwritten too.
local spatial = require("diagc.world.spatial")
local motion = require("diagc.world.motion")
local lone = require("diagc.world.lone")
local tree = require("diagc.world.tree")

local M = {}

-- bodies moved by at least one dof (the others contribute nothing to M)
function M.moving(t, i) return #t.chain[i] > 0 end

-- bodies of the generic (CRBA / RNEA) path: moving, not lone free bodies
function M.generic(world, t, i) return M.moving(t, i) and not lone.is_lone(world, t, i) end

local function inertias(world, t, h, out)
  local bi, add = h:use("body_inertia"), nil
  for i, b in ipairs(world.bodies) do
    if M.generic(world, t, i) then
      out[#out + 1] = string.format("  %s(X + %d, %s, I%d);", bi, 12 * (i - 1), spatial.body_args(b, tree.inertial(t, i)), i)
    end
  end
  for i = t.nb, 1, -1 do
    local p = world.bodies[i].joint.parent
    if M.generic(world, t, i) and p > 0 and M.moving(t, p) then
      add = add or h:use("inertia_add")
      out[#out + 1] = string.format("  %s(I%d, I%d);", add, p, i)
    end
  end
end

local function entries(world, t, h, out)
  local apply, dot = h:use("inertia_apply"), h:use("dot6")
  local nv, at = t.nv, t.mindex
  for j = 0, nv - 1 do
    if M.generic(world, t, t.dof_body[j]) then
    out[#out + 1] = string.format("  %s(I%d, S%d, F);", apply, t.dof_body[j], j)
    local i = j
    while i >= 0 do
      out[#out + 1] = string.format("  M[%d] = %s(S%d, F);", at(i, j), dot, i)
      if i ~= j then out[#out + 1] = string.format("  M[%d] = M[%d];", at(j, i), at(i, j)) end
      i = t.dof_parent[i]
    end
    end
  end
end

function M.emit(world, t, prefix, h)
  local out = { string.format(
    "static void %s_mass_matrix(const double *q, const double *X, const double *inertial, double *M)\n{", prefix) }
  local decl = {}
  for i = 1, t.nb do
    if M.generic(world, t, i) then decl[#decl + 1] = "I" .. i .. "[10]" end
  end
  out[#out + 1] = "  (void)q;\n  (void)X;\n  (void)inertial;\n  (void)M;"
  if #decl > 0 then
    out[#out + 1] = "  double " .. table.concat(decl, ", ") .. ", F[6];"
    for i = 1, t.nb do
      if M.generic(world, t, i) then
        for _, l in ipairs(motion.lines(world, t, i, "  ")) do out[#out + 1] = l end
      end
    end
    inertias(world, t, h, out)
    entries(world, t, h, out)
  end
  for i = 1, t.nb do
    if lone.is_lone(world, t, i) then
      for _, l in ipairs(lone.mass_lines(world, t, i)) do out[#out + 1] = l end
    end
  end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

return M
