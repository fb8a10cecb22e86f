-- world/limits.lua: joint limits (docs/world.md, "Joint limits").
--   M.check(loc, what, type, limit)  a joint's limit = { lower, upper,
--       restitution =, effort =, velocity = } -> { lower=, upper=, e=,
--       effort=, velocity= } (lower <= upper, checked here for spec and
--       URDF joints alike)
--   M.collect(C)  C.limits: the position limits of the checked world, one
--       per limited revolute or prismatic joint { body=, dof= (0-based),
--       tree=, col= (the dof's column among its tree's compact columns),
--       lower=, upper=, e= }; C.nlim_rows = 2 #C.limits (a lower and an
--       upper slot each) + the joint friction and mimic rows that follow
--       them (world/couplings.lua: C.couplings); C.effort_limits: per
--       actuated dof (1-based as C.actuated) { effort=, velocity= } or nil
--   M.emit_rows(C, P), M.emit_clamp(C, P): their C (world/step.lua calls)
--
-- A position limit is a contact of the step's LCP with one frictionless
-- row on its joint's own dof: the unit row J = +1 (lower side, depth =
-- lower - q) or -1 (upper side, depth = q - upper), of the same targets as
-- a contact's normal row (restitution, erp beyond allowed_penetration, gap
-- / dt), active when depth > -margin or when v* crosses the limit within
-- the step (depth - dt J v* > 0).  Its warm-start key is above every
-- candidate pair's: FEATURES * npairs + 2 * limit + side.
local errors = require("diagc.errors")
local util = require("diagc.util")
local vals = require("diagc.world.values")

local M = {}

local FIELDS = { "restitution", "effort", "velocity" }

function M.check(loc, what, t, lim)
  if type(lim) ~= "table" then
    errors.raise(loc, "%s must be a table { lower, upper, restitution =, effort =, velocity = }, got %s", what,
      errors.describe(lim))
  end
  for _, k in ipairs(util.sorted_keys(lim)) do
    local ok = k == 1 or k == 2
    for _, f in ipairs(FIELDS) do ok = ok or k == f end
    if not ok then
      errors.raise(loc, "%s has no field '%s' (fields: lower and upper as its two entries, %s)", what,
        tostring(k), table.concat(FIELDS, ", "))
    end
  end
  local out = {}
  local n = #lim
  if n == 2 then
    local key = t == "revolute" and "angle" or "position"
    out.lower = vals.ranged(loc, what .. " lower", key, lim[1])
    out.upper = vals.ranged(loc, what .. " upper", key, lim[2])
    if out.lower > out.upper then
      errors.raise(loc, "%s: lower %.10g is above upper %.10g; write the smaller bound first", what, out.lower,
        out.upper)
    end
  elseif n ~= 0 then
    errors.raise(loc, "%s takes two bounds { lower, upper } (or none, for effort and velocity only), got %d", what, n)
  end
  out.e = lim.restitution == nil and 0 or vals.ranged(loc, what .. " restitution", "restitution", lim.restitution)
  if lim.effort ~= nil then out.effort = vals.ranged(loc, what .. " effort", "effort", lim.effort) end
  if lim.velocity ~= nil then out.velocity = vals.ranged(loc, what .. " velocity", "speed", lim.velocity) end
  if out.velocity and out.velocity < 0 then
    errors.raise(loc, "%s velocity must be >= 0, got %.10g", what, out.velocity)
  end
  return out
end

function M.collect(C)
  if C.limits then return end
  local facts = require("diagc.world.dynamics").facts(C)
  C.limits, C.effort_limits = {}, {}
  for _, b in ipairs(C.bodies) do
    local l = b.joint.limit
    if l and l.lower then
      local tree = facts.tree_id[b.index]
      local col
      for i, k in ipairs(facts.tree_dofs[tree]) do if k == b.v0 then col = i - 1 end end
      -- dof: the joint's velocity index; qi: its position index (they differ
      -- after a free joint, whose q has 7 entries and v 6)
      C.limits[#C.limits + 1] = { body = b.index, dof = b.v0, qi = b.q0, tree = tree, col = col, lower = l.lower,
        upper = l.upper, e = l.e, name = b.name }
    end
  end
  for k, a in ipairs(C.actuated) do
    local l = C.bodies[a.body].joint.limit
    if l and (l.effort or l.velocity) then
      C.effort_limits[k] = { effort = l.effort, velocity = l.velocity }
      C.effort_limits.any = true
    end
  end
  -- the joints' friction and mimic rows follow the limits' (world/couplings.lua)
  require("diagc.world.couplings").collect(C)
  C.nlim_rows = 2 * #C.limits + C.ncouple_rows
end

-- whether the world's step has contact rows (candidate pairs, limits,
-- joint friction or mimics)
function M.rows_on(C)
  M.collect(C)
  return #C.pairs > 0 or C.nlim_rows > 0
end

local d = util.c_double

-- the limit rows appended to the step's contacts: PFX_limit_rows(q, w, nc)
-- -> the new count (w->vstar: v*, w->M: the factor)
function M.emit_rows(C, P, features)
  M.collect(C)
  C.limit_key0 = features * #C.pairs
  if #C.limits == 0 then return nil end
  local W, dt = C.width, d(C.time_step)
  local margin = d(C.settings.margin or 1e-3)
  local rows = {}
  for i, l in ipairs(C.limits) do
    rows[i] = string.format("{%d, %d, %d, %d}", l.dof, l.tree, l.col, l.qi)
  end
  local lo, hi, e = {}, {}, {}
  for i, l in ipairs(C.limits) do lo[i], hi[i], e[i] = d(l.lower), d(l.upper), d(l.e) end
  local n = #C.limits
  return table.concat({
    "/* joint position limits: dof (v index), tree, compact column, q index; lower, upper, restitution */",
    string.format("static const int %slimit[%d][4] = {%s};", P, n, table.concat(rows, ", ")),
    string.format("static const double %slimit_lo[%d] = {%s};", P, n, table.concat(lo, ", ")),
    string.format("static const double %slimit_hi[%d] = {%s};", P, n, table.concat(hi, ", ")),
    string.format("static const double %slimit_e[%d] = {%s};", P, n, table.concat(e, ", ")),
    "/* the limit rows after the nc contacts: one frictionless row per side that is within",
    "   margin of its bound or that v* crosses within the step (docs/world.md, \"Joint limits\") */",
    string.format("static inline int %slimit_rows(const double *q, %swork *w, int nc)", P, P),
    "{",
    string.format("  for (int l = 0; l < %d; l++) {", n),
    string.format("    int k = %slimit[l][0], t = %slimit[l][1], c0 = %slimit[l][2], kq = %slimit[l][3];", P, P, P, P),
    "    for (int side = 0; side < 2; side++) {",
    "      double s = side == 0 ? 1.0 : -1.0;",
    string.format("      double depth = side == 0 ? %slimit_lo[l] - q[kq] : q[kq] - %slimit_hi[l];", P, P),
    string.format("      if (!(depth > -%s || depth - %s * s * w->vstar[k] > 0.0)) continue;", margin, dt),
    string.format("      double *Jr = w->Jc + (size_t)3 * nc * %d, *Mr = w->MJc + (size_t)3 * nc * %d;", W, W),
    string.format("      for (int c = 0; c < 3 * %d; c++) Jr[c] = Mr[c] = 0.0;", W),
    "      Jr[c0] = Mr[c0] = s;",
    string.format("      %ssolve_tree(w->M, t, Mr);", P),
    "      w->depth[nc] = depth;",
    string.format("      w->mu[nc] = 0.0; w->e[nc] = %slimit_e[l];", P),
    "      w->tag[2 * nc] = t; w->tag[2 * nc + 1] = -1;",
    string.format("      w->key[nc] = %d + 2 * l + side;", C.limit_key0),
    "      w->pair[nc] = -1;",
    "      nc++;",
    "    }",
    "  }",
    "  return nc;",
    "}",
  }, "\n")
end

-- the limit rows' depth derivatives (the step's Jacobians, world/grad.lua):
-- row i >= ncc of a limit: d depth/dq = -J on its dof (depth = lower - q
-- or q - upper)
function M.emit_tdepth(C, P, ncol)
  local base = C.limit_key0
  local l = {}
  if #C.limits > 0 then
    l[#l + 1] = table.concat({
      "  for (int i = ncc; i < nc; i++) {",
      string.format("    int r = w->key[i] - %d;", base),
      string.format("    if (r < %d) g->Tdepth[i * %d + %slimit[r / 2][0]] = r %% 2 == 0 ? -1.0 : 1.0;", 2 * #C.limits,
        ncol, P),
      "  }",
    }, "\n")
  end
  -- the mimic rows' (world/couplings.lua)
  l[#l + 1] = require("diagc.world.couplings").emit_tdepth(C, P, ncol)
  return table.concat(l, "\n")
end

-- the operators of the linearized step (diagc_step_ops) for a world whose
-- only rows are limits: constant rows (d(J y)/dq = 0, d(J^T x)/dq = 0)
function M.emit_ops(C, P, G)
  local nv = G.nv
  return table.concat({
    require("diagc.world.grad_ops").context(P, true),
    "",
    string.format("static void %sop_dJy(void *vc, const double *y, double *out)", P),
    "{",
    string.format("  const %sgctx *x = (const %sgctx *)vc;", P, P),
    "  (void)y;",
    string.format("  for (int i = 0; i < 3 * x->nall * %d; i++) out[i] = 0.0;", nv),
    "}",
    "",
    string.format("static void %sop_dJTx(void *vc, const double *xi, double *out)", P),
    "{",
    "  (void)vc; (void)xi;",
    string.format("  for (int i = 0; i < %d; i++) out[i] = 0.0;", nv * nv),
    "}",
    "",
    require("diagc.world.grad_ops").op_rest(P, G.lt),
  }, "\n")
end

-- the clamp of the effort input (effort limits; velocity limits cut an
-- effort that drives its joint at or beyond its rated speed):
-- PFX_effort_clamp(v, effort, out) -> the number of entries changed
function M.emit_clamp(C, P)
  M.collect(C)
  if not C.effort_limits.any then return nil end
  local nu = #C.actuated
  local l = {
    string.format("static inline int %seffort_clamp(const double *v, const double *effort, double *u)", P),
    "{",
    "  int n = 0;",
    "  (void)v;",
    string.format("  for (int i = 0; i < %d; i++) u[i] = effort[i];", nu),
  }
  for k, a in ipairs(C.actuated) do
    local el = C.effort_limits[k]
    if el then
      local i = k - 1
      if el.effort then
        l[#l + 1] = string.format("  if (u[%d] > %s) { u[%d] = %s; n++; } else if (u[%d] < -%s) { u[%d] = -%s; n++; }",
          i, d(el.effort), i, d(el.effort), i, d(el.effort), i, d(el.effort))
      end
      if el.velocity then
        l[#l + 1] = string.format("  if (u[%d] != 0.0 && ((u[%d] > 0.0 && v[%d] >= %s) || (u[%d] < 0.0 && v[%d] <= -%s))) "
          .. "{ u[%d] = 0.0; n++; }", i, i, a.dof, d(el.velocity), i, a.dof, d(el.velocity), i)
      end
    end
  end
  l[#l + 1] = "  return n;"
  l[#l + 1] = "}"
  return table.concat(l, "\n")
end

return M
