-- world/grad_coords.lua: the step's Jacobians in the world leaf's state
-- coordinates, for the model's discrete-update Jacobians and linearization
-- (coder/jacobian_chain.lua calls PFX_coords_jacobian as the local
-- Jacobian of the world's update "step").  The grad entry's Jacobians are
-- in tangent coordinates; a ball or free joint's quaternion q maps to its
-- rotation vector by d = 4 E(q)^T dq (= 2 vec(q^-1 (x) dq)) and back by
-- dq = E(q) d, with E(q) the 4 x 3 matrix of q (x) (0, d / 2) (right
-- multiplication; E^T E = I / 4); every other
-- coordinate is its own tangent coordinate.  (Moving a quaternion off the
-- unit sphere changes nothing: the step normalizes, and E(q)^T q = 0.)
--   M.pattern(C) -> {{out=, out_index=, input=, in_index=}, ...}: the
--     update's outputs pos_next, vel_next (imp_next) against its inputs
--     pos, vel (effort), dense, in that order, then info_next[5, 6, 7]
--     against info[5, 6, 7] (running counts: 1; and [9], the steps that
--     clamped an effort, with effort limits; and the last, the steps left
--     inexact); the warm start imp and the rest of info have zero
--     derivatives
--   M.emit(C, P) -> C of PFX_coords_jacobian(pos, work, grad, grad_mass, jac), jac
--     in the pattern's order (both nothing beyond M.MAX_ENTRIES)
local dyn = require("diagc.world.dynamics")

local M = {}

local function lines(t)
  local o = {}
  for _, x in ipairs(t) do if x then o[#o + 1] = x end end
  return table.concat(o, "\n")
end

-- the update's outputs and inputs; with_mass: the parameter mass too
-- (grad.Tm, world/grad.lua: the parameter Jacobian of the masses)
local function groups(C, with_mass)
  local outs = { { "pos_next", C.nq }, { "vel_next", C.nv } }
  if require("diagc.world.limits").rows_on(C) and C.nslots > 0 then outs[#outs + 1] = { "imp_next", C.nimp } end
  local ins = { { "pos", C.nq }, { "vel", C.nv } }
  if #C.actuated > 0 then ins[#ins + 1] = { "effort", #C.actuated } end
  if with_mass then ins[#ins + 1] = { "mass", require("diagc.world.tree").nmass(dyn.facts(C)) } end
  return outs, ins
end

local function count(C, with_mass)
  local outs, ins = groups(C, with_mass)
  local no, ni = 0, 0
  for _, o in ipairs(outs) do no = no + o[2] end
  for _, x in ipairs(ins) do ni = ni + x[2] end
  return no * ni + #M.counts(C)
end

-- the most entries of the dense pattern: a world whose update Jacobian
-- would be larger (its rows imp_next grow with max_contacts: 4 per
-- contact) has none (the model's update Jacobians and linearization then
-- say why; finite differences still work)
M.MAX_ENTRIES = 4096

-- the running counts of info: steps over the budget, with contacts
-- dropped, contacts dropped (and steps that clamped an effort), steps
-- whose LCP was left inexact (C.info_inexact, world/step.lua)
function M.counts(C)
  local c = C.effort_limits and C.effort_limits.any and { 5, 6, 7, 9 } or { 5, 6, 7 }
  c[#c + 1] = assert(C.info_inexact, "internal: world/step.lua's layout first")
  return c
end

function M.size(C)
  return count(C, false)
end

-- whether the pattern holds the masses' columns: when the whole fits in
-- M.MAX_ENTRIES (a world whose pattern fits only without them keeps its
-- update Jacobian; its masses' parameter Jacobian is then by differences)
function M.with_mass(C)
  return count(C, true) <= M.MAX_ENTRIES
end

function M.pattern(C)
  if M.size(C) > M.MAX_ENTRIES then return nil end
  local outs, ins = groups(C, M.with_mass(C))
  local p = {}
  for _, o in ipairs(outs) do
    for i = 0, o[2] - 1 do
      for _, x in ipairs(ins) do
        for j = 0, x[2] - 1 do p[#p + 1] = { out = o[1], out_index = i, input = x[1], in_index = j } end
      end
    end
  end
  -- the running counts of info (steps over the budget, with contacts dropped, contacts dropped)
  for _, i in ipairs(M.counts(C)) do p[#p + 1] = { out = "info_next", out_index = i, input = "info", in_index = i } end
  return p
end

-- the quaternions: {q0 (coordinate of w), v0 (first tangent dof)}
local function quats(C)
  local f = dyn.facts(C)
  local l = {}
  for i, b in ipairs(C.bodies) do
    local t = b.joint.type
    if t == "ball" then l[#l + 1] = { q0 = f.q0[i], v0 = f.v0[i] }
    elseif t == "free" then l[#l + 1] = { q0 = f.q0[i] + 3, v0 = f.v0[i] + 3 } end
  end
  return l
end

-- the coordinate of each tangent dof that is not a rotation (-1: rotation)
local function scalar_map(C)
  local f = dyn.facts(C)
  local m = {}
  for k = 0, C.nv - 1 do m[k] = -1 end
  for i, b in ipairs(C.bodies) do
    local t = b.joint.type
    local lin = (t == "revolute" or t == "prismatic") and 1 or (t == "free" and 3 or 0)
    for e = 0, lin - 1 do m[f.v0[i] + e] = f.q0[i] + e end
  end
  local out = {}
  for k = 0, C.nv - 1 do out[k + 1] = m[k] end
  return out
end

local E = {
  "static inline void %sE(const double *q, double *E)",
  "{",
  "  /* d(q (x) (0, d/2)) / d d: rows w, x, y, z; columns d0, d1, d2 */",
  "  E[0] = -0.5 * q[1]; E[1] = -0.5 * q[2]; E[2] = -0.5 * q[3];",
  "  E[3] = 0.5 * q[0]; E[4] = -0.5 * q[3]; E[5] = 0.5 * q[2];",
  "  E[6] = 0.5 * q[3]; E[7] = 0.5 * q[0]; E[8] = -0.5 * q[1];",
  "  E[9] = -0.5 * q[2]; E[10] = 0.5 * q[1]; E[11] = 0.5 * q[0];",
  "}",
}

-- out (nq) = E t per quaternion (scale 1: the coordinates of a tangent
-- vector t at q; scale 4: a cotangent row t times d tangent / d
-- coordinates, 4 E^T as a row), t itself elsewhere
local function coords(C, P)
  local l = { string.format("static inline void %scoords(const double *q, const double *t, double scale, double *out)", P),
    "{" }
  local qs = quats(C)
  if #qs == 0 then l[#l + 1] = "  (void)q;\n  (void)scale;" end
  for k, qc in ipairs(scalar_map(C)) do
    if qc >= 0 then l[#l + 1] = string.format("  out[%d] = t[%d];", qc, k - 1) end
  end
  for _, r in ipairs(qs) do
    l[#l + 1] = "  {"
    l[#l + 1] = "    double e[12];"
    l[#l + 1] = string.format("    %sE(q + %d, e);", P, r.q0)
    l[#l + 1] = "    for (int i = 0; i < 4; i++)"
    l[#l + 1] = string.format("      out[%d + i] = scale * (e[3 * i] * t[%d] + e[3 * i + 1] * t[%d] + e[3 * i + 2] * t[%d]);",
      r.q0, r.v0, r.v0 + 1, r.v0 + 2)
    l[#l + 1] = "  }"
  end
  l[#l + 1] = "}"
  return lines(l)
end

-- jac in the pattern's order: for each output element (pos_next in
-- coordinates at q', vel_next, imp_next), its row over pos (coordinates
-- at q), vel, effort (and the masses: grad.Tm, M.with_mass)
local function coords_jacobian(C, P, G)
  local nv, nq, nu, ncol = C.nv, C.nq, #C.actuated, G.ncol
  local has_imp = require("diagc.world.limits").rows_on(C) and C.nslots > 0
  local nm = M.with_mass(C) and G.nm or 0
  -- gm NULL: the masses' columns are not asked for (zeros)
  local function masses(src)
    return nm > 0 and string.format("    for (int j = 0; j < %d; j++) jac[k++] = gm ? %s + j] : 0.0;", nm, src) or false
  end
  local l = {
    string.format("static inline void %scoords_jacobian(const double *pos, const %swork *w, const %sgrad *g, "
      .. "const %sgradm *gm, double *jac)", P, P, P, P),
    "{",
    string.format("  double col[%d], tq[%d], row[%d];", nv, nq, nq),
    "  int k = 0;",
    nm == 0 and "  (void)gm;" or false,
    "  /* pos_next: tangent rows mapped at q', columns as below */",
    string.format("  double rq[%d];", nq * ncol),
    string.format("  for (int c = 0; c < %d; c++) {", ncol),
    string.format("    for (int i = 0; i < %d; i++) col[i] = g->T[i * %d + c];", nv, ncol),
    string.format("    %scoords(w->q_next, col, 1.0, tq);", P),
    string.format("    for (int i = 0; i < %d; i++) rq[i * %d + c] = tq[i];", nq, ncol),
    "  }",
    nm > 0 and string.format("  double rm[%d];", nq * nm) or false,
    nm > 0 and string.format("  for (int c = 0; c < %d && gm; c++) {", nm) or false,
    nm > 0 and string.format("    for (int i = 0; i < %d; i++) col[i] = gm->Tm[i * %d + c];", nv, nm) or false,
    nm > 0 and string.format("    %scoords(w->q_next, col, 1.0, tq);", P) or false,
    nm > 0 and string.format("    for (int i = 0; i < %d; i++) rm[i * %d + c] = tq[i];", nq, nm) or false,
    nm > 0 and "  }" or false,
    string.format("  for (int i = 0; i < %d; i++) {", nq),
    string.format("    %scoords(pos, rq + i * %d, 4.0, row);", P, ncol),
    string.format("    for (int j = 0; j < %d; j++) jac[k++] = row[j];", nq),
    string.format("    for (int j = 0; j < %d; j++) jac[k++] = rq[i * %d + %d + j];", nv + nu, ncol, nv),
    masses(string.format("rm[i * %d", nm)),
    "  }",
    string.format("  for (int i = 0; i < %d; i++) {", nv),
    string.format("    %scoords(pos, g->T + (%d + i) * %d, 4.0, row);", P, nv, ncol),
    string.format("    for (int j = 0; j < %d; j++) jac[k++] = row[j];", nq),
    string.format("    for (int j = 0; j < %d; j++) jac[k++] = g->T[(%d + i) * %d + %d + j];", nv + nu, nv, ncol, nv),
    masses(string.format("gm->Tm[(%d + i) * %d", nv, nm)),
    "  }",
  }
  if has_imp then
    l[#l + 1] = string.format("  for (int i = 0; i < %d; i++) {", C.nimp)
    l[#l + 1] = string.format("    %scoords(pos, g->imp + i * %d, 4.0, row);", P, ncol)
    l[#l + 1] = string.format("    for (int j = 0; j < %d; j++) jac[k++] = row[j];", nq)
    l[#l + 1] = string.format("    for (int j = 0; j < %d; j++) jac[k++] = g->imp[i * %d + %d + j];", nv + nu, ncol, nv)
    l[#l + 1] = masses(string.format("gm->impm[i * %d", nm))
    l[#l + 1] = "  }"
  end
  local counts = M.counts(C)
  for i, c in ipairs(counts) do
    l[#l + 1] = string.format("  jac[k%s] = 1.0; /* info_next[%d] = info[%d] + ... */", i < #counts and "++" or "", c, c)
  end
  l[#l + 1] = "}"
  return lines(l)
end

function M.emit(C, P, G)
  if M.size(C) > M.MAX_ENTRIES then return "" end
  local e = {}
  for i, x in ipairs(E) do e[i] = i == 1 and string.format(x, P) or x end
  return table.concat({ lines(e), coords(C, P), coords_jacobian(C, P, G) }, "\n\n")
end

return M
