-- world/looped.lua: the looped form of a world's dynamics (docs/world.md
-- §6, "Two forms"): the tree as one `static const` table (parents, joint
-- types, coordinate offsets, joint origins and axes, masses, centres of
-- mass, inertias, the dof parent array and the mass matrix's
-- storage) and the recursive algorithms as loops over it, so the code is
-- the same few hundred lines for every tree and only the table grows with
-- the bodies.  Same functions, signatures, storage and conventions as the
-- unrolled emitters (kinematics.lua, crba.lua, rnea.lua, ltdl.lua,
-- jacobian.lua, energy.lua); a lone free body (world/lone.lua) keeps its
-- closed form in the mass matrix and the bias, written after the loops.
--
--   looped = this module (diagc.world.looped)
--   local parts = looped.parts(world, t, prefix, h)   h: spatial.helpers
--   looped.emit(name, world, t, prefix, h, parts)  one function
--       (dynamics.ORDER's names but integrate); marks what it uses
--   parts:text()   the table and the helpers used, to precede the functions
--
-- The table, `prefix_tree`, holds per body: parent (0-based, -1 the
-- world), type (0 fixed, 1 revolute, 2 prismatic, 3 ball, 4 free), q0, v0,
-- nv, flags (1: moved by a dof, 2: also not a lone free body), send (1 +
-- the last body of its subtree: its subtree lies within [i, send), the
-- bodies between that are not in it told apart by their parents), last (the
-- last dof moving it, -1 none), joint (Ro row-major, the origin, the unit
-- axis), body (m, com, ixx iyy izz ixy ixz iyz); per dof: body,
-- parent dof, its place in its subtree's block (mpos), the block's offset
-- (moff) and size (mn); the subtrees' dofs (tdofs, from tstart[id]); gravity.
local fold = require("diagc.world.fold")
local kin = require("diagc.world.kinematics")
local lone = require("diagc.world.lone")

local M = {}

local TYPES = { fixed = 0, revolute = 1, prismatic = 2, ball = 3, free = 4 }

local function ints(list) return "{ " .. table.concat(list, ", ") .. " }" end

local function nums(list)
  local s = {}
  for i, x in ipairs(list) do s[i] = fold.num(x) end
  return "{ " .. table.concat(s, ", ") .. " }"
end

-- C text with P_ -> prefix_, @NAME@ -> subs[NAME]
local function fill(text, prefix, subs)
  text = text:gsub("@(%u+)@", function(k) return tostring(assert(subs[k], k)) end)
  return (text:gsub("P_(%w)", function(c) return prefix .. "_" .. c end))
end
M.fill = fill

-- the sizes every looped function is written with
function M.sizes(t)
  local width = 0
  for id = 0, t.ntrees - 1 do width = math.max(width, #t.tree_dofs[id]) end
  return { NB = t.nb, NV = t.nv, NT = t.ntrees, W = width }
end

-- the subtree end of each body (0-based, exclusive)
local function subtree_ends(world, t)
  local send = {}
  for i = 1, t.nb do send[i] = i end
  for i = t.nb, 1, -1 do
    local j = world.bodies[i].joint.parent
    -- i's ancestors end at i at least (i is the largest yet: stop at one that does)
    while j > 0 and send[j] < i do
      send[j] = i
      j = world.bodies[j].joint.parent
    end
  end
  return send
end

function M.table_text(world, t, prefix)
  local cols = { parent = {}, type = {}, q0 = {}, v0 = {}, nv = {}, flags = {}, send = {}, last = {}, mi = {} }
  local nm = 0
  local joint, body = {}, {}
  local send = subtree_ends(world, t)
  for i, b in ipairs(world.bodies) do
    cols.parent[i] = b.joint.parent - 1
    cols.type[i] = TYPES[b.joint.type]
    cols.q0[i], cols.v0[i], cols.nv[i] = t.q0[i], t.v0[i], t.nvi[i]
    local moving = #t.chain[i] > 0
    cols.flags[i] = (moving and 1 or 0) + ((moving and not lone.is_lone(world, t, i)) and 2 or 0)
    cols.send[i] = send[i]
    cols.last[i] = t.last_dof[i]
    -- the body's place among the moving bodies (its 10 numbers in
    -- `inertial`: world/tree.lua's M.inertial), -1 none
    cols.mi[i] = moving and nm or -1
    if moving then nm = nm + 1 end
    local Ro, o, a = kin.frame(b)
    local row = {}
    for k = 1, 9 do row[k] = Ro[k] end
    for k = 1, 3 do row[9 + k], row[12 + k] = o[k], a[k] end
    joint[i] = nums(row)
    local c, I = b.com or { 0, 0, 0 }, b.inertia
    body[i] = nums({ b.mass, c[1], c[2], c[3], I[1], I[2], I[3], I[4] or 0, I[5] or 0, I[6] or 0 })
  end
  local dof = { body = {}, parent = {}, mpos = {}, moff = {}, mn = {} }
  for k = 0, t.nv - 1 do
    local id = t.tree_id[t.dof_body[k]]
    dof.body[k + 1], dof.parent[k + 1] = t.dof_body[k] - 1, t.dof_parent[k]
    dof.mpos[k + 1], dof.moff[k + 1], dof.mn[k + 1] = t.m_pos[k], t.m_off[id], t.m_n[id]
  end
  local tdofs, tstart = {}, {}
  for id = 0, t.ntrees - 1 do
    tstart[#tstart + 1] = #tdofs
    for _, k in ipairs(t.tree_dofs[id]) do tdofs[#tdofs + 1] = k end
  end
  tstart[#tstart + 1] = #tdofs
  local g = world.gravity or { 0, 0, 0 }
  local s = M.sizes(t)
  local out = { fill([==[
/* P_: the tree as constant tables, for the looped dynamics (world/looped.lua) */
static const struct {
  int parent[@NB@], type[@NB@], q0[@NB@], v0[@NB@], nv[@NB@], flags[@NB@], send[@NB@], last[@NB@], mi[@NB@];
  double joint[@NB@][15], body[@NB@][10];
  int dof_body[@NV@], dof_parent[@NV@], mpos[@NV@], moff[@NV@], mn[@NV@], tdofs[@NV@], tstart[@TS@];
  double gravity[3];
} P_tree = {]==], prefix, { NB = s.NB, NV = s.NV, TS = s.NT + 1 }) }
  for _, key in ipairs({ "parent", "type", "q0", "v0", "nv", "flags", "send", "last", "mi" }) do
    out[#out + 1] = "  " .. ints(cols[key]) .. ","
  end
  out[#out + 1] = "  {\n    " .. table.concat(joint, ",\n    ") .. "\n  },"
  out[#out + 1] = "  {\n    " .. table.concat(body, ",\n    ") .. "\n  },"
  for _, key in ipairs({ "body", "parent", "mpos", "moff", "mn" }) do out[#out + 1] = "  " .. ints(dof[key]) .. "," end
  out[#out + 1] = "  " .. ints(tdofs) .. ","
  out[#out + 1] = "  " .. ints(tstart) .. ","
  out[#out + 1] = "  " .. nums(g)
  out[#out + 1] = "};\n"
  return table.concat(out, "\n")
end

-- the helpers of the looped functions, each emitted once and only when used
-- (clang warns of an unused static inline function): at (tree.lua's
-- mindex), col (a dof's motion column from the poses), inertia (a body's
-- world-frame spatial inertia)
local PIECES = { at = [==[
/* where entry (i, j) of the mass matrix is stored (world/tree.lua's mindex) */
static inline int P_lp_at(int i, int j)
{
  return P_tree.moff[i] + P_tree.mpos[i] * P_tree.mn[i] + P_tree.mpos[j];
}

]==], col = [==[
/* dof k's motion column S (world frame, about the origin; world/motion.lua)
   from the poses X */
static inline void P_lp_col(const double *X, int k, double *S)
{
  const int b = P_tree.dof_body[k], ty = P_tree.type[b];
  const double *J = P_tree.joint[b], *R = X + 12 * b, *p = X + 12 * b + 9;
  int e = k - P_tree.v0[b], r;
  double w[3];
  if (ty == 2 || (ty == 4 && e < 3)) {
    const int pa = P_tree.parent[b];
    const double u[3] = { ty == 2 ? J[12] : J[e], ty == 2 ? J[13] : J[3 + e], ty == 2 ? J[14] : J[6 + e] };
    const double *Rm = ty == 2 ? R : (pa >= 0 ? X + 12 * pa : 0);
    S[0] = S[1] = S[2] = 0.0;
    for (r = 0; r < 3; ++r) S[3 + r] = Rm ? Rm[3 * r] * u[0] + Rm[3 * r + 1] * u[1] + Rm[3 * r + 2] * u[2] : u[r];
    return;
  }
  if (ty == 1) {
    for (r = 0; r < 3; ++r) w[r] = R[3 * r] * J[12] + R[3 * r + 1] * J[13] + R[3 * r + 2] * J[14];
  } else {
    if (ty == 4) e -= 3;
    w[0] = R[e];
    w[1] = R[3 + e];
    w[2] = R[6 + e];
  }
  S[0] = w[0];
  S[1] = w[1];
  S[2] = w[2];
  S[3] = p[1] * w[2] - p[2] * w[1];
  S[4] = p[2] * w[0] - p[0] * w[2];
  S[5] = p[0] * w[1] - p[1] * w[0];
}

]==], inertia = [==[
/* the world-frame spatial inertia of body i at pose X (its inertial numbers the parameters') */
static inline void P_lp_inertia(const double *X, const double *inertial, int i, double *I)
{
  const double *B = P_tree.mi[i] >= 0 ? inertial + 10 * P_tree.mi[i] : P_tree.body[i];
  P_body_inertia(X + 12 * i, B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7], B[8], B[9], I);
}
]==], fill = [==[
/* the dofs' motion columns S (6 each) and the bodies' world inertias I (10
   each; only the bodies with flag 2) at pose X, for the mass matrix and the bias */
static inline void P_lp_fill(const double *X, const double *inertial, double *S, double *I)
{
  int i;
  for (i = 0; i < @NV@; ++i) P_lp_col(X, i, S + 6 * i);
  for (i = 0; i < @NB@; ++i) {
    if (P_tree.flags[i] & 2) P_lp_inertia(X, inertial, i, I + 10 * i);
  }
}

]==] }
-- each dof's ancestors as flat tables (anc): where entry (i, j) of the
-- factor is stored (lp) and j's place in its block (pos), for j = i's
-- parent dof, its parent's, ... (the order the walk up the tree takes);
-- i's from start[i]; dlp[i] where (i, i) is.  The solves read them instead
-- of walking dof_parent (a chain of dependent loads) and computing P_lp_at;
-- used up to ANC_MAX entries (a 128-link chain's 8128).
local ANC_MAX = 8192

local function ancestors(t)
  local start, lp, pos, dlp = {}, {}, {}, {}
  for i = 0, t.nv - 1 do
    local id = t.tree_id[t.dof_body[i]]
    local row = t.m_off[id] + t.m_pos[i] * t.m_n[id]
    start[i + 1] = #lp
    dlp[i + 1] = row + t.m_pos[i]
    local j = t.dof_parent[i]
    while j >= 0 do
      lp[#lp + 1], pos[#pos + 1] = row + t.m_pos[j], t.m_pos[j]
      j = t.dof_parent[j]
    end
  end
  start[t.nv + 1] = #lp
  return start, lp, pos, dlp
end

-- true when the solves read the anc tables (at most ANC_MAX entries, at least one)
function M.use_anc(t)
  local n = 0
  for i = 0, t.nv - 1 do
    local j = t.dof_parent[i]
    while j >= 0 do
      n = n + 1
      if n > ANC_MAX then return false end
      j = t.dof_parent[j]
    end
  end
  return n > 0
end

local function anc_text(t, prefix)
  local start, lp, pos, dlp = ancestors(t)
  return fill(string.format([==[
/* P_anc: each dof's ancestors for the solves (world/looped.lua) */
static const struct {
  int start[@NVP@], lp[@NA@], pos[@NA@], dlp[@NV@];
} P_anc = {
  %s,
  %s,
  %s,
  %s
};
]==], ints(start), ints(lp), ints(pos), ints(dlp)), prefix, { NVP = t.nv + 1, NA = #lp, NV = t.nv })
end

local PIECE_ORDER = { "at", "col", "inertia", "fill" }
local PIECE_SPATIAL = { inertia = { "body_inertia" } }
local PIECE_DEPS = { fill = { "col", "inertia" } }

local Parts = {}
Parts.__index = Parts

function Parts:use(name)
  if name == "anc" then
    self.anc = true
    return
  end
  assert(PIECES[name], "looped: no piece " .. name)
  self.used[name] = true
  for _, u in ipairs(PIECE_DEPS[name] or {}) do self:use(u) end
  for _, u in ipairs(PIECE_SPATIAL[name] or {}) do self.h:use(u) end
end

-- the table and the used helpers (empty when nothing looped was emitted)
function Parts:text()
  if not self.any then return "" end
  local out = { M.table_text(self.world, self.t, self.prefix) }
  if self.anc then out[#out + 1] = anc_text(self.t, self.prefix) end
  for _, name in ipairs(PIECE_ORDER) do
    if self.used[name] then out[#out + 1] = fill(PIECES[name], self.prefix, M.sizes(self.t)) end
  end
  return table.concat(out, "\n")
end

-- the looped parts of one text: prefix names the table and helpers, h the
-- spatial helpers they call
function M.parts(world, t, prefix, h)
  return setmetatable({ world = world, t = t, prefix = prefix, h = h, used = {}, any = false, cores = {} }, Parts)
end

local C = {}

C.kinematics = { [==[
static void P_kinematics(const double *q, double *X)
{
  int i, r;
  for (i = 0; i < @NB@; ++i) {
    const double *J = P_tree.joint[i], *a = J + 12;
    const int pa = P_tree.parent[i], ty = P_tree.type[i], q0 = P_tree.q0[i];
    double L[9], t[3], Q[9];
    double *Xi = X + 12 * i;
    for (r = 0; r < 3; ++r) t[r] = J[9 + r];
    if (ty == 1) {
      /* Ro (a a^T + cos q (I - a a^T) + sin q [a]x) */
      const double cq = cos(q[q0]), sq = sin(q[q0]), u = 1.0 - cq;
      Q[0] = a[0] * a[0] * u + cq;
      Q[1] = a[0] * a[1] * u - a[2] * sq;
      Q[2] = a[0] * a[2] * u + a[1] * sq;
      Q[3] = a[1] * a[0] * u + a[2] * sq;
      Q[4] = a[1] * a[1] * u + cq;
      Q[5] = a[1] * a[2] * u - a[0] * sq;
      Q[6] = a[2] * a[0] * u - a[1] * sq;
      Q[7] = a[2] * a[1] * u + a[0] * sq;
      Q[8] = a[2] * a[2] * u + cq;
      P_mul33(J, Q, L);
    } else if (ty == 3 || ty == 4) {
      P_quat_rot(q + q0 + (ty == 4 ? 3 : 0), Q);
      P_mul33(J, Q, L);
      if (ty == 4) {
        for (r = 0; r < 3; ++r) t[r] += J[3 * r] * q[q0] + J[3 * r + 1] * q[q0 + 1] + J[3 * r + 2] * q[q0 + 2];
      }
    } else {
      for (r = 0; r < 9; ++r) L[r] = J[r];
      if (ty == 2) {
        for (r = 0; r < 3; ++r) t[r] += (J[3 * r] * a[0] + J[3 * r + 1] * a[1] + J[3 * r + 2] * a[2]) * q[q0];
      }
    }
    if (pa < 0) {
      for (r = 0; r < 9; ++r) Xi[r] = L[r];
      for (r = 0; r < 3; ++r) Xi[9 + r] = t[r];
    } else {
      const double *Xp = X + 12 * pa;
      P_mul33(Xp, L, Xi);
      for (r = 0; r < 3; ++r) Xi[9 + r] = Xp[9 + r] + Xp[3 * r] * t[0] + Xp[3 * r + 1] * t[1] + Xp[3 * r + 2] * t[2];
    }
  }
}
]==], { "mul33", "quat_rot" }, {} }

-- the mass matrix and the bias forces share the dofs' motion columns S
-- and the bodies' world inertias I (P_lp_fill): each has a core taking
-- them (the mass matrix's turns I into the composite inertias, so the
-- bias's runs first where both are wanted: P_mass_bias)
C.mass_matrix = { [==[
static void P_mass_matrix(const double *q, const double *X, const double *inertial, double *M)
{
  double I[@NB@ * 10], S[@NV@ * 6];
  P_lp_fill(X, inertial, S, I);
  P_mass_matrix_si(q, X, inertial, S, I, M);
}
]==], { "inertia_add", "inertia_apply", "dot6" }, { "at", "fill" }, [==[
static void P_mass_matrix_si(const double *q, const double *X, const double *inertial, const double *S, double *I, double *M)
{
  int i, j;
  (void)q;
  (void)X;
  (void)inertial;
  for (i = @NB@ - 1; i >= 0; --i) {
    const int pa = P_tree.parent[i];
    if ((P_tree.flags[i] & 2) && pa >= 0 && (P_tree.flags[pa] & 1)) P_inertia_add(I + 10 * pa, I + 10 * i);
  }
  for (j = 0; j < @NV@; ++j) {
    const int b = P_tree.dof_body[j];
    double F[6];
    if (!(P_tree.flags[b] & 2)) continue;
    P_inertia_apply(I + 10 * b, S + 6 * j, F);
    for (i = j; i >= 0; i = P_tree.dof_parent[i]) {
      M[P_lp_at(i, j)] = P_dot6(S + 6 * i, F);
      if (i != j) M[P_lp_at(j, i)] = M[P_lp_at(i, j)];
    }
  }
]==] }

C.bias = { [==[
static void P_bias(const double *q, const double *v, const double *X, const double *inertial, double *c)
{
  double I[@NB@ * 10], S[@NV@ * 6];
  P_lp_fill(X, inertial, S, I);
  P_bias_si(q, v, X, inertial, S, I, c);
}
]==], { "cross_m", "body_force", "dot6" }, { "fill" }, [==[
static void P_bias_si(const double *q, const double *v, const double *X, const double *inertial, const double *S, const double *I, double *c)
{
  const double A0[6] = { 0.0, 0.0, 0.0, -P_tree.gravity[0], -P_tree.gravity[1], -P_tree.gravity[2] };
  double V[@NB@][6], A[@NB@][6], F[@NB@][6];
  int i, k, r;
  (void)q;
  (void)X;
  (void)inertial;
  for (i = 0; i < @NB@; ++i) {
    const int pa = P_tree.parent[i], fl = P_tree.flags[i], v0 = P_tree.v0[i];
    const double *Vp = pa >= 0 ? V[pa] : 0, *Ap = pa >= 0 ? A[pa] : A0;
    double vl[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 }, vr[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 }, x[6];
    if (!(fl & 2)) {
      for (r = 0; r < 6; ++r) {
        V[i][r] = 0.0;
        A[i][r] = A0[r];
      }
      continue;
    }
    /* a free joint's linear part (its columns turn with the parent) and the rest */
    for (k = v0; k < v0 + P_tree.nv[i]; ++k) {
      double *d = P_tree.type[i] == 4 && k - v0 < 3 ? vl : vr;
      for (r = 0; r < 6; ++r) d[r] += S[6 * k + r] * v[k];
    }
    for (r = 0; r < 6; ++r) V[i][r] = (Vp ? Vp[r] : 0.0) + vl[r] + vr[r];
    P_cross_m(V[i], vr, A[i]);
    if (Vp) {
      P_cross_m(Vp, vl, x);
      for (r = 0; r < 6; ++r) A[i][r] += x[r];
    }
    for (r = 0; r < 6; ++r) A[i][r] += Ap[r];
    P_body_force(I + 10 * i, V[i], A[i], F[i]);
  }
  for (i = @NB@ - 1; i >= 0; --i) {
    const int pa = P_tree.parent[i];
    if ((P_tree.flags[i] & 2) && pa >= 0 && (P_tree.flags[pa] & 1)) {
      for (r = 0; r < 6; ++r) F[pa][r] += F[i][r];
    }
  }
  for (k = 0; k < @NV@; ++k) {
    const int b = P_tree.dof_body[k];
    if (P_tree.flags[b] & 2) c[k] = P_dot6(S + 6 * k, F[b]);
  }
]==] }

-- both at once (the step's smooth part): S and I computed once
C.mass_bias = { [==[
static void P_mass_bias(const double *q, const double *v, const double *X, const double *inertial, double *M, double *c)
{
  double I[@NB@ * 10], S[@NV@ * 6];
  P_lp_fill(X, inertial, S, I);
  P_bias_si(q, v, X, inertial, S, I, c);
  P_mass_matrix_si(q, X, inertial, S, I, M);
}
]==], {}, { "fill" }, nil, { "mass_matrix", "bias" } }

C.factor = { [==[
static void P_factor(double *M)
{
  int k, i, j;
  for (k = @NV@ - 1; k >= 0; --k) {
    double r;
    if (P_tree.dof_parent[k] < 0) continue;
    r = 1.0 / M[P_lp_at(k, k)];
    for (i = P_tree.dof_parent[k]; i >= 0; i = P_tree.dof_parent[i]) {
      /* rows i and k of one subtree's block */
      double *Mi = M + P_tree.moff[i] + P_tree.mpos[i] * P_tree.mn[i];
      const double *Mk = M + P_tree.moff[k] + P_tree.mpos[k] * P_tree.mn[k];
      const double a = Mk[P_tree.mpos[i]] * r;
      for (j = i; j >= 0; j = P_tree.dof_parent[j]) Mi[P_tree.mpos[j]] -= a * Mk[P_tree.mpos[j]];
      M[P_lp_at(k, i)] = a;
    }
  }
}
]==], {}, { "at" } }

C.solve = { [==[
static void P_solve(const double *LDL, double *x)
{
  int i, j;
  for (i = @NV@ - 1; i >= 0; --i) {
    for (j = P_tree.dof_parent[i]; j >= 0; j = P_tree.dof_parent[j]) x[j] -= LDL[P_lp_at(i, j)] * x[i];
  }
  for (i = 0; i < @NV@; ++i) x[i] /= LDL[P_lp_at(i, i)];
  for (i = 0; i < @NV@; ++i) {
    double xi = x[i];
    for (j = P_tree.dof_parent[i]; j >= 0; j = P_tree.dof_parent[j]) xi -= LDL[P_lp_at(i, j)] * x[j];
    x[i] = xi;
  }
}
]==], {}, { "at" } }

-- each column of the nv x ncol X (row stride ld): solve's loops, the same
-- arithmetic, on x[i * ld]
C.solve_cols = { [==[
static void P_solve_cols(const double *LDL, double *X, int ncol, int ld)
{
  int c, i, j;
  for (c = 0; c < ncol; ++c) {
    double *x = X + c;
    for (i = @NV@ - 1; i >= 0; --i) {
      for (j = P_tree.dof_parent[i]; j >= 0; j = P_tree.dof_parent[j]) x[j * ld] -= LDL[P_lp_at(i, j)] * x[i * ld];
    }
    for (i = 0; i < @NV@; ++i) x[i * ld] /= LDL[P_lp_at(i, i)];
    for (i = 0; i < @NV@; ++i) {
      double xi = x[i * ld];
      for (j = P_tree.dof_parent[i]; j >= 0; j = P_tree.dof_parent[j]) xi -= LDL[P_lp_at(i, j)] * x[j * ld];
      x[i * ld] = xi;
    }
  }
}
]==], {}, { "at" } }

C.solve_tree = { [==[
static void P_solve_tree(const double *LDL, int tree, double *x)
{
  int n, first, last, i, j;
  if (tree < 0 || tree >= @NT@) return;
  first = P_tree.tstart[tree];
  last = P_tree.tstart[tree + 1];
  for (n = last - 1; n >= first; --n) {
    double xi;
    i = P_tree.tdofs[n];
    xi = x[P_tree.mpos[i]];
    if (xi == 0.0) continue; /* a row's zeros off its chain: nothing to carry */
    for (j = P_tree.dof_parent[i]; j >= 0; j = P_tree.dof_parent[j]) {
      x[P_tree.mpos[j]] -= LDL[P_lp_at(i, j)] * xi;
    }
  }
  for (n = first; n < last; ++n) x[n - first] /= LDL[P_lp_at(P_tree.tdofs[n], P_tree.tdofs[n])];
  for (n = first; n < last; ++n) {
    double xi;
    i = P_tree.tdofs[n];
    xi = x[P_tree.mpos[i]];
    for (j = P_tree.dof_parent[i]; j >= 0; j = P_tree.dof_parent[j]) xi -= LDL[P_lp_at(i, j)] * x[P_tree.mpos[j]];
    x[P_tree.mpos[i]] = xi;
  }
}
]==], {}, { "at" } }

-- a contact's three rows at once (x, x + stride, x + 2 stride): the tree's
-- indices walked once for the three
C.solve_tree3 = { [==[
static void P_solve_tree3(const double *LDL, int tree, double *x, int stride)
{
  int n, first, last, i, j;
  double *y = x + stride, *z = x + 2 * stride;
  if (tree < 0 || tree >= @NT@) return;
  first = P_tree.tstart[tree];
  last = P_tree.tstart[tree + 1];
  for (n = last - 1; n >= first; --n) {
    int pi;
    double xi, yi, zi;
    i = P_tree.tdofs[n];
    pi = P_tree.mpos[i];
    xi = x[pi], yi = y[pi], zi = z[pi];
    if (xi == 0.0 && yi == 0.0 && zi == 0.0) continue;
    for (j = P_tree.dof_parent[i]; j >= 0; j = P_tree.dof_parent[j]) {
      const double a = LDL[P_lp_at(i, j)];
      const int pj = P_tree.mpos[j];
      x[pj] -= a * xi, y[pj] -= a * yi, z[pj] -= a * zi;
    }
  }
  for (n = first; n < last; ++n) {
    const double d = LDL[P_lp_at(P_tree.tdofs[n], P_tree.tdofs[n])];
    x[n - first] /= d, y[n - first] /= d, z[n - first] /= d;
  }
  for (n = first; n < last; ++n) {
    int pi;
    i = P_tree.tdofs[n];
    pi = P_tree.mpos[i];
    for (j = P_tree.dof_parent[i]; j >= 0; j = P_tree.dof_parent[j]) {
      const double a = LDL[P_lp_at(i, j)];
      const int pj = P_tree.mpos[j];
      x[pi] -= a * x[pj], y[pi] -= a * y[pj], z[pi] -= a * z[pj];
    }
  }
}
]==], {}, { "at" } }

-- the same two read the anc tables (M.use_anc)
C.solve_tree_anc = { [==[
static void P_solve_tree(const double *LDL, int tree, double *x)
{
  int n, first, last, i, e;
  if (tree < 0 || tree >= @NT@) return;
  first = P_tree.tstart[tree];
  last = P_tree.tstart[tree + 1];
  for (n = last - 1; n >= first; --n) {
    double xi;
    i = P_tree.tdofs[n];
    xi = x[P_tree.mpos[i]];
    if (xi == 0.0) continue; /* a row's zeros off its chain: nothing to carry */
    for (e = P_anc.start[i]; e < P_anc.start[i + 1]; ++e) x[P_anc.pos[e]] -= LDL[P_anc.lp[e]] * xi;
  }
  for (n = first; n < last; ++n) x[n - first] /= LDL[P_anc.dlp[P_tree.tdofs[n]]];
  for (n = first; n < last; ++n) {
    const int pi = P_tree.mpos[P_tree.tdofs[n]];
    double xi = x[pi]; /* in a register: the stores below do not alias it */
    i = P_tree.tdofs[n];
    for (e = P_anc.start[i]; e < P_anc.start[i + 1]; ++e) xi -= LDL[P_anc.lp[e]] * x[P_anc.pos[e]];
    x[pi] = xi;
  }
}
]==], {}, { "anc" } }

C.solve_tree3_anc = { [==[
static void P_solve_tree3(const double *LDL, int tree, double *x, int stride)
{
  int n, first, last, i, e;
  double *y = x + stride, *z = x + 2 * stride;
  if (tree < 0 || tree >= @NT@) return;
  first = P_tree.tstart[tree];
  last = P_tree.tstart[tree + 1];
  for (n = last - 1; n >= first; --n) {
    int pi;
    double xi, yi, zi;
    i = P_tree.tdofs[n];
    pi = P_tree.mpos[i];
    xi = x[pi], yi = y[pi], zi = z[pi];
    if (xi == 0.0 && yi == 0.0 && zi == 0.0) continue;
    for (e = P_anc.start[i]; e < P_anc.start[i + 1]; ++e) {
      const double a = LDL[P_anc.lp[e]];
      const int pj = P_anc.pos[e];
      x[pj] -= a * xi, y[pj] -= a * yi, z[pj] -= a * zi;
    }
  }
  for (n = first; n < last; ++n) {
    const double d = LDL[P_anc.dlp[P_tree.tdofs[n]]];
    x[n - first] /= d, y[n - first] /= d, z[n - first] /= d;
  }
  for (n = first; n < last; ++n) {
    int pi;
    double xi, yi, zi;
    i = P_tree.tdofs[n];
    pi = P_tree.mpos[i];
    xi = x[pi], yi = y[pi], zi = z[pi];
    for (e = P_anc.start[i]; e < P_anc.start[i + 1]; ++e) {
      const double a = LDL[P_anc.lp[e]];
      const int pj = P_anc.pos[e];
      xi -= a * x[pj], yi -= a * y[pj], zi -= a * z[pj];
    }
    x[pi] = xi, y[pi] = yi, z[pi] = zi;
  }
}
]==], {}, { "anc" } }

local JAC = [==[
static void P_@NAME@(int body, const double *q, const double *X, const double p[3], double *Jp)
{
  int k;
  (void)q;
  for (k = 0; k < 3 * @LD@; ++k) Jp[k] = 0.0;
  if (body < 1 || body > @NB@) return;
  for (k = P_tree.last[body - 1]; k >= 0; k = P_tree.dof_parent[k]) {
    const int c = @COL@;
    double S[6];
    P_lp_col(X, k, S);
    Jp[c] = S[3] + S[1] * p[2] - S[2] * p[1];
    Jp[@LD@ + c] = S[4] + S[2] * p[0] - S[0] * p[2];
    Jp[2 * @LD@ + c] = S[5] + S[0] * p[1] - S[1] * p[0];
  }
}
]==]

C.point_jacobian = { (JAC:gsub("@NAME@", "point_jacobian"):gsub("@COL@", "k"):gsub("@LD@", "@NV@")), {}, { "col" } }
C.point_jacobian_tree = { (JAC:gsub("@NAME@", "point_jacobian_tree"):gsub("@COL@", "P_tree.mpos[k]")
  :gsub("@LD@", "@W@")), {}, { "col" } }

C.energy = { [==[
static double P_energy(const double *q, const double *v, const double *X, const double *inertial)
{
  double V[@NB@][6], S[6], e = 0.0;
  int i, k, r;
  (void)q;
  for (i = 0; i < @NB@; ++i) {
    const int pa = P_tree.parent[i];
    const double *B = P_tree.mi[i] >= 0 ? inertial + 10 * P_tree.mi[i] : P_tree.body[i];
    for (r = 0; r < 6; ++r) V[i][r] = pa >= 0 && (P_tree.flags[i] & 1) ? V[pa][r] : 0.0;
    for (k = P_tree.v0[i]; k < P_tree.v0[i] + P_tree.nv[i]; ++k) {
      P_lp_col(X, k, S);
      for (r = 0; r < 6; ++r) V[i][r] += S[r] * v[k];
    }
    e += P_body_energy(X + 12 * i, V[i], B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7], B[8], B[9],
                       P_tree.gravity[0], P_tree.gravity[1], P_tree.gravity[2]);
  }
  return e;
}
]==], { "body_energy" }, { "col" } }

C.velocities = { [==[
static void P_velocities(const double *q, const double *v, const double *X, double *V)
{
  double S[6];
  int i, k, r;
  (void)q;
  for (i = 0; i < @NB@; ++i) {
    const int pa = P_tree.parent[i];
    for (r = 0; r < 6; ++r) V[6 * i + r] = pa >= 0 && (P_tree.flags[i] & 1) ? V[6 * pa + r] : 0.0;
    for (k = P_tree.v0[i]; k < P_tree.v0[i] + P_tree.nv[i]; ++k) {
      P_lp_col(X, k, S);
      for (r = 0; r < 6; ++r) V[6 * i + r] += S[r] * v[k];
    }
  }
}
]==], {}, { "col" } }

-- the closed forms of the lone free bodies, after the loops
local TAIL = {
  mass_matrix = function(world, t, out)
    for i = 1, t.nb do
      if lone.is_lone(world, t, i) then
        for _, l in ipairs(lone.mass_lines(world, t, i)) do out[#out + 1] = l end
        -- its entries known zero too: the looped factor reads every
        -- entry of the ancestor chains
        local z = {}
        for _, e in ipairs(lone.block(world, t, i)) do
          if #e[3] == 0 then z[#z + 1] = string.format("M[%d] = ", t.mindex(e[1], e[2])) end
        end
        if #z > 0 then out[#out + 1] = "  " .. table.concat(z) .. "0.0;" end
      end
    end
  end,
  bias = function(world, t, out)
    for i = 1, t.nb do
      if lone.is_lone(world, t, i) then
        for _, l in ipairs(lone.bias_lines(world, t, i)) do out[#out + 1] = l end
      end
    end
  end,
}

function M.emit(name, world, t, prefix, h, parts, core_only)
  if C[name .. "_anc"] and M.use_anc(t) then name = name .. "_anc" end
  local spec = assert(C[name], "looped.emit: no looped " .. tostring(name))
  for _, u in ipairs(spec[2]) do h:use(u) end
  parts.any = true
  for _, u in ipairs(spec[3]) do parts:use(u) end
  -- a function with a core (spec[4]: the lone bodies' tail ends it)
  -- follows it; one calling cores (spec[5]) has those not yet emitted first
  local pre = {}
  for _, c in ipairs(spec[5] or {}) do
    if not parts.cores[c] then pre[#pre + 1] = M.emit(c, world, t, prefix, h, parts, true) end
  end
  if core_only or spec[4] then parts.cores[name] = true end
  local text = fill(spec[4] or spec[1], prefix, M.sizes(t))
  if TAIL[name] then
    local out = { text }
    TAIL[name](world, t, out)
    out[#out + 1] = "}\n"
    text = table.concat(out, "\n")
  end
  if spec[4] and not core_only then text = text .. "\n" .. fill(spec[1], prefix, M.sizes(t)) end
  pre[#pre + 1] = text
  return table.concat(pre, "\n")
end

return M
