-- world/couplings.lua: a joint's Coulomb friction and its <mimic> coupling
-- (docs/world.md, "Joint friction and mimic joints"), as bilateral rows of
-- the step's contact LCP after the contacts and the limit rows.
--   M.check_friction(loc, what, t, f)  a joint's friction = F (>= 0; N m
--       or N) -> F
--   M.check_mimic(loc, what, t, m)  a joint's mimic = { "leader body",
--       multiplier =, offset = } -> { leader=, multiplier=, offset= }
--   M.resolve(C, by_name)  after the tree is numbered: each mimic's leader
--       body (its index), one error at the follower's line for a leader
--       that is missing, not a revolute or prismatic joint, or a loop of
--       mimics
--   M.collect(C)  C.couplings: one row per friction joint { kind =
--       "friction", dof=, tree=, col=, F= } and per mimic joint { kind =
--       "mimic", dof=, tree=, col=, qi=, ldof=, ltree=, lcol=, lqi=, m=,
--       off= }; C.ncouple_rows = #C.couplings
--   M.emit_rows(C, P), M.emit_tdepth(C, P, ncol, base): their C
--
-- A friction row is the unit row J = +1 on its joint's dof, of bounds
-- |x| <= F dt (a constant box: diagc_contact_problem.bound) and target 0:
-- the joint stops within the step when the impulse that needs is at most
-- F dt, and is braked by F dt otherwise.  A mimic row is J = e_f - m e_l
-- (follower f, leader l), of bounds +-infinity and target erp e / dt with
-- e = m q_l + off - q_f (its depth): the velocities keep v_f = m v_l and
-- the position error is removed at the contacts' erp per step.  Their
-- warm-start keys follow the limits': base + j for row j.
local errors = require("diagc.errors")
local util = require("diagc.util")
local vals = require("diagc.world.values")

local M = {}

local MOVING = { revolute = true, prismatic = true }

function M.check_friction(loc, what, t, f)
  if not MOVING[t] then
    errors.raise(loc, "%s: a %s joint has no friction (only revolute and prismatic joints do)", what, t)
  end
  return vals.ranged(loc, what .. " friction", "joint_friction", f)
end

local MIMIC_FIELDS = { "multiplier", "offset" }

function M.check_mimic(loc, what, t, m)
  if not MOVING[t] then
    errors.raise(loc, "%s: a %s joint cannot mimic another (only revolute and prismatic joints can)", what, t)
  end
  if type(m) ~= "table" or type(m[1]) ~= "string" then
    errors.raise(loc, "%s mimic must be { \"leader body\", multiplier = m, offset = o }, got %s", what,
      errors.describe(m))
  end
  for _, k in ipairs(util.sorted_keys(m)) do
    if k ~= 1 and k ~= "multiplier" and k ~= "offset" then
      errors.raise(loc, "%s mimic has no field '%s' (fields: the leader body, %s)", what, tostring(k),
        table.concat(MIMIC_FIELDS, ", "))
    end
  end
  return { leader = m[1],
    multiplier = m.multiplier == nil and 1 or vals.ranged(loc, what .. " mimic multiplier", "ratio", m.multiplier),
    offset = m.offset == nil and 0 or vals.ranged(loc, what .. " mimic offset", "position", m.offset) }
end

function M.resolve(C, by_name)
  for _, b in ipairs(C.bodies) do
    local m = b.joint.mimic
    if m then
      local l = by_name[m.leader]
      if not l then
        errors.raise(b.loc, "body '%s': its joint mimics '%s', which is not a body of this world", b.name, m.leader)
      end
      if not MOVING[l.joint.type] then
        errors.raise(b.loc, "body '%s': its joint mimics body '%s', whose joint is %s; a leader must be a revolute "
          .. "or prismatic joint", b.name, l.name, l.joint.type)
      end
      m.body = l.index
    end
  end
  -- a loop of mimics (a joint that follows itself through others) has no leader
  for _, b in ipairs(C.bodies) do
    local seen, x = {}, b
    while x.joint.mimic do
      if seen[x.index] then
        errors.raise(b.loc, "body '%s': its joint is in a loop of mimic joints (each follows the next back to "
          .. "itself); give the loop one leader that mimics nothing", b.name)
      end
      seen[x.index] = true
      x = C.bodies[x.joint.mimic.body]
    end
  end
end

function M.collect(C)
  if C.couplings then return end
  local facts = require("diagc.world.dynamics").facts(C)
  local function where(b)
    local tree = facts.tree_id[b.index]
    for i, k in ipairs(facts.tree_dofs[tree]) do
      if k == b.v0 then return tree, i - 1 end
    end
  end
  C.couplings = {}
  for _, b in ipairs(C.bodies) do
    local j = b.joint
    if j.friction and j.friction > 0 then
      local tree, col = where(b)
      C.couplings[#C.couplings + 1] = { kind = "friction", name = b.name, dof = b.v0, tree = tree, col = col,
        F = j.friction }
    end
  end
  for _, b in ipairs(C.bodies) do
    local m = b.joint.mimic
    if m then
      local l = C.bodies[m.body]
      local tree, col = where(b)
      local ltree, lcol = where(l)
      C.couplings[#C.couplings + 1] = { kind = "mimic", name = b.name, leader = l.name, dof = b.v0, qi = b.q0,
        tree = tree, col = col, ldof = l.v0, lqi = l.q0, ltree = ltree, lcol = lcol, m = m.multiplier,
        off = m.offset }
    end
  end
  C.ncouple_rows = #C.couplings
end

-- the dofs a row spans (its compact width)
function M.width(C, ndofs)
  M.collect(C)
  local w = 0
  for _, r in ipairs(C.couplings) do
    local n = ndofs[r.tree]
    if r.kind == "mimic" and r.ltree ~= r.tree then n = n + ndofs[r.ltree] end
    w = math.max(w, n)
  end
  return w
end

local d = util.c_double

-- PFX_couple_rows(q, w, nc) -> the new count: the rows after the nc
-- contacts and limits (w->bound of those: 0)
function M.emit_rows(C, P)
  M.collect(C)
  if C.ncouple_rows == 0 then return nil end
  local W, dt, base = C.width, C.time_step, C.limit_key0 + 2 * #C.limits
  local l = {
    "/* the joints' Coulomb friction (|x| <= F dt, target 0) and mimic rows (v_f - m v_l,",
    "   target erp (m q_l + off - q_f) / dt), bilateral rows after the contacts and limits",
    "   (docs/world.md, \"Joint friction and mimic joints\") */",
    string.format("static inline int %scouple_rows(const double *q, %swork *w, int nc)", P, P),
    "{",
    "  double *Jr, *Mr;",
    "  (void)q;",
    "  for (int i = 0; i < nc; i++) w->bound[i] = 0.0;",
  }
  for j, r in ipairs(C.couplings) do
    local na
    l[#l + 1] = string.format("  /* %s of '%s' */", r.kind, r.name)
    l[#l + 1] = string.format("  Jr = w->Jc + (size_t)3 * nc * %d, Mr = w->MJc + (size_t)3 * nc * %d;", W, W)
    l[#l + 1] = string.format("  for (int c = 0; c < 3 * %d; c++) Jr[c] = Mr[c] = 0.0;", W)
    if r.kind == "friction" then
      l[#l + 1] = string.format("  Jr[%d] = Mr[%d] = 1.0;", r.col, r.col)
      l[#l + 1] = string.format("  %ssolve_tree(w->M, %d, Mr);", P, r.tree)
      l[#l + 1] = string.format("  w->depth[nc] = 0.0; w->bound[nc] = %s;", d(r.F * dt))
      l[#l + 1] = string.format("  w->tag[2 * nc] = %d; w->tag[2 * nc + 1] = -1;", r.tree)
    else
      -- the leader's column: in the follower's tree, or after its dofs (tag b)
      local same, lc = r.ltree == r.tree, r.lcol
      if not same then
        na = #require("diagc.world.dynamics").facts(C).tree_dofs[r.tree]
        lc = na + r.lcol
      end
      l[#l + 1] = string.format("  Jr[%d] = Mr[%d] = 1.0;", r.col, r.col)
      l[#l + 1] = string.format("  Jr[%d] = Mr[%d] = %s;", lc, lc, d(-r.m))
      l[#l + 1] = string.format("  %ssolve_tree(w->M, %d, Mr);", P, r.tree)
      if not same then l[#l + 1] = string.format("  %ssolve_tree(w->M, %d, Mr + %d);", P, r.ltree, na) end
      l[#l + 1] = string.format("  w->depth[nc] = %s * q[%d] + %s - q[%d]; w->bound[nc] = HUGE_VAL;", d(r.m), r.lqi,
        d(r.off), r.qi)
      l[#l + 1] = string.format("  w->tag[2 * nc] = %d; w->tag[2 * nc + 1] = %d;", r.tree, same and -1 or r.ltree)
    end
    l[#l + 1] = string.format("  w->mu[nc] = 0.0; w->e[nc] = 0.0; w->key[nc] = %d; w->pair[nc] = -1;", base + j - 1)
    l[#l + 1] = "  nc++;"
  end
  l[#l + 1] = "  return nc;"
  l[#l + 1] = "}"
  return table.concat(l, "\n")
end

-- the rows' depth derivatives (world/grad.lua), for the rows i in [ncc,
-- nc) whose key is at or above base: a mimic row's d e/dq = m on the
-- leader's dof, -1 on the follower's; a friction row's depth is 0
function M.emit_tdepth(C, P, ncol)
  M.collect(C)
  local base = C.limit_key0 + 2 * #C.limits
  local l = {}
  for j, r in ipairs(C.couplings) do
    if r.kind == "mimic" then
      l[#l + 1] = string.format("    if (w->key[i] == %d) { g->Tdepth[i * %d + %d] = -1.0; g->Tdepth[i * %d + %d] += %s; }",
        base + j - 1, ncol, r.dof, ncol, r.ldof, d(r.m))
    end
  end
  if #l == 0 then return nil end
  table.insert(l, 1, "  for (int i = ncc; i < nc; i++) {")
  l[#l + 1] = "  }"
  return table.concat(l, "\n")
end

return M
