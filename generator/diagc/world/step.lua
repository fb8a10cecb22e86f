-- world/step.lua: the C of one world step (seed 002's World::step), for a
-- checked world: the generated dynamics (world/dynamics.lua), constant
-- tables of shapes and candidate pairs, and PFX_step, which runs
--   kinematics -> v* = v + dt M^-1 (tau - c) -> collision per candidate
--   pair -> contact rows J, M^-1 J^T -> diagc_contact_solve (boxed LCP per
--   island, warm-started by contact feature) -> v' -> q' = q (+) dt v' (or v)
-- Adds to the checked world: C.nslots (contact slots: each candidate pair
-- owns max contacts of its shape types; their sum is the default
-- capacity; then two per limited joint and one per joint with friction
-- or a mimic), C.max_contacts (contacts one step may hold, with the
-- limits', friction and mimic rows), C.max_collide (of them, the
-- collision's), C.nimp (doubles of the warm-start table: the world's
-- state imp, its impulses output and the step's imp_next), C.ninfo (the
-- info state: M.INFO, two more with effort limits, then the steps so far
-- whose LCP was left inexact at C.info_inexact), and world/limits.lua's
-- C.limits, C.effort_limits.  Joint position limits are rows after the
-- contacts (world/limits.lua), then the joints' friction and mimic rows
-- (world/couplings.lua); effort limits clamp the effort in PFX_smooth.
--
-- The warm start (the world's discrete state imp, C.nimp doubles) is
-- the last step's contacts, not its slots: entry i is [key, n, t1, t2] of
-- its i-th contact, key = 1 + FEATURES * pair + the contact's feature id
-- (diagc/world.h: stable while the configuration is), in increasing key
-- order (the collision lists the candidate pairs in order and each pair's
-- contacts by feature), then zeros (an empty entry; a zero state is no
-- warm start).  A step finds each contact's entry by one merge of the two
-- increasing lists (equal keys, a feature a pair reports twice, match in
-- turn), so the state grows with max_contacts, not with the slots of every
-- candidate pair (which grow with the square of the bodies).
local util = require("diagc.util")
local shapes = require("diagc.world.shapes")
local limits = require("diagc.world.limits")
local size = require("diagc.world.size")
local check = require("diagc.world.step_check")

local M = {}

-- the warm-start key's stride per candidate pair: above every feature id
-- diagc_collide gives (box-box's largest is 32 * 17 + 31 = 575; a larger
-- one would only miss its warm start); a world with a hull pair strides by
-- M.HULL_FEATURES (its ids reach 2^21 - 1, diagc/world.h)
M.FEATURES = 1024
M.HULL_FEATURES = 2097152

function M.features(C)
  for _, p in ipairs(C.pairs) do
    if C.shapes[p.a].type == "hull" or C.shapes[p.b].type == "hull" then return M.HULL_FEATURES end
  end
  return M.FEATURES
end

-- the runtime's shape type codes (diagc/world.h)
M.CODE = { sphere = "DIAGC_SHAPE_SPHERE", box = "DIAGC_SHAPE_BOX", capsule = "DIAGC_SHAPE_CAPSULE",
  plane = "DIAGC_SHAPE_PLANE", hull = "DIAGC_SHAPE_HULL" }
M.pair_max = shapes.pair_max

-- the entries of a world's info state (docs/world.md, §2): of the last
-- step, contacts held, 1 if the LCP work budget ran out, the LCP residual,
-- LCP pivots + sweeps, contacts dropped beyond max_contacts; then the
-- running counts of steps over the budget, of steps that dropped contacts,
-- and of contacts dropped
M.INFO = 8

local d = util.c_double

-- R (row-major, flat) of URDF's rpy: Rz(y) Ry(p) Rx(r)
local rpy_matrix = require("diagc.world.fold").rpy

local function list(t)
  local s = {}
  for i, x in ipairs(t) do s[i] = type(x) == "number" and (math.floor(x) == x and math.abs(x) < 2^31
    and string.format("%d", x) or d(x)) or tostring(x) end
  return table.concat(s, ", ")
end

-- the contact methods (world setting contact_method) and their codes
M.METHOD = { sparse = "DIAGC_CONTACT_SPARSE", dense = "DIAGC_CONTACT_DENSE" }
local METHOD_CODE = { sparse = 0, dense = 1 }

-- doubles of the contact solve's workspace for compact rows (the runtime's
-- own figure, asked through the host, which links the runtime; the
-- contact solve checks it again at run time: DIAGC_CONTACT_E_WORKSPACE)
function M.workspace_doubles(nv, nc, method)
  local ok, ffi = pcall(require, "ffi")
  if ok then
    pcall(ffi.cdef, "size_t diagc_contact_compact_workspace_size(int nv, int nc_max, int method);")
    local ok2, n = pcall(function()
      return tonumber(ffi.C.diagc_contact_compact_workspace_size(nv, nc, METHOD_CODE[method or "sparse"]))
    end)
    if ok2 and n and n > 0 then return math.ceil(n / 8) end
  end
  error("internal: the runtime's diagc_contact_compact_workspace_size is not reachable (run diagc through bin/diagc)", 0)
end

-- the trees' dofs (world/tree.lua), the widest tree, and each pair's
-- compact row width (its trees' dofs: C.width is the widest pair's, or a
-- limited joint's tree's when wider)
local function tree_layout(C)
  local t = require("diagc.world.dynamics").facts(C)
  local jac = require("diagc.world.jacobian")
  C.tree_width = jac.tree_columns(t)
  C.ntrees = t.ntrees
  local nd = {}
  for id = 0, t.ntrees - 1 do nd[id] = #t.tree_dofs[id] end
  C.width = 0
  for _, p in ipairs(C.pairs) do
    local ba, bb = C.shapes[p.a].body, C.shapes[p.b].body
    local ta = ba == 0 and -1 or t.tree_id[ba]
    local tb = bb == 0 and -1 or t.tree_id[bb]
    local w = (ta >= 0 and nd[ta] or 0) + ((tb >= 0 and tb ~= ta) and nd[tb] or 0)
    C.width = math.max(C.width, w)
  end
  -- a joint limit's row spans its own tree's dofs (world/limits.lua)
  for _, b in ipairs(C.bodies) do
    local l = b.joint.limit
    if l and l.lower then C.width = math.max(C.width, nd[t.tree_id[b.index]]) end
  end
  -- a friction row spans its tree's, a mimic row its two trees' (world/couplings.lua)
  C.width = math.max(C.width, require("diagc.world.couplings").width(C, nd), 1)
  return t
end

-- the slots of every pair; the contact bound of one step; the contact
-- solve's workspace (C.nslots, C.max_contacts, C.ws_doubles).  The
-- default bound is every contact the pairs can produce, within the memory
-- cap of world/size.lua (docs/world.md, "Capacity"); a max_contacts the
-- world sets stays as given (no more than the slots: no step can need more)
function M.layout(C)
  local n = 0
  for _, p in ipairs(C.pairs) do
    p.max = M.pair_max(C.shapes[p.a].type, C.shapes[p.b].type)
    p.base = n
    n = n + p.max
  end
  limits.collect(C)
  -- the joint limits' rows (world/limits.lua) have slots of their own after the pairs'
  local nl = C.nlim_rows
  C.nslots = n + nl
  C.info_inexact = M.INFO + (C.effort_limits.any and 2 or 0)
  C.ninfo = C.info_inexact + 1
  tree_layout(C)
  local function set(mc)
    C.max_contacts = mc + nl
    C.nimp = 4 * (mc + nl) -- the warm-start table: 4 per contact
    C.ws_doubles = limits.rows_on(C) and M.workspace_doubles(C.nv, mc + nl, C.settings.contact_method) or 0
  end
  local cap = C.settings.max_contacts
  if cap == nil then
    cap = size.default_contacts(n, function(mc)
      set(mc)
      return M.work_bytes(C, "x_")
    end)
  end
  set(math.max(1, math.min(cap, math.max(n, 1))))
  C.max_collide = C.max_contacts - nl
end

-- island tag of each body (0 = the world): the id of its subtree in the
-- dynamics (world/tree.lua), -1 when it is fixed to the world
local function tree_tags(C)
  local facts = require("diagc.world.dynamics").facts(C)
  local tag = { [0] = -1 }
  for i = 1, C.nb do tag[i] = facts.tree_id[i] end
  return tag
end

local function tables(C, P)
  local o = {}
  local ns = #C.shapes
  local shp, pose, body = {}, {}, {}
  for i, s in ipairs(C.shapes) do
    local hp = "0"
    if s.type == "hull" then
      -- the hull's constants (world/hull.lua; diagc_hull of diagc/world.h)
      local h, name = s.hull, string.format("%shull%d", P, i - 1)
      local v, pl, f0, fv = {}, {}, { 0 }, {}
      for _, x in ipairs(h.vertices) do v[#v + 1] = list(x) end
      for _, f in ipairs(h.faces) do
        pl[#pl + 1] = list({ f.n[1], f.n[2], f.n[3], f.d })
        for _, k in ipairs(f.verts) do fv[#fv + 1] = k - 1 end
        f0[#f0 + 1] = #fv
      end
      -- (a hull simplified by the vertex cap says so, with what it left out)
      o[#o + 1] = string.format("/* shape %d: the convex hull of %s (%d vertices, %d faces%s) */", i - 1,
        util.c_comment(h.file or "a mesh"), #h.vertices, #h.faces, h.dropped > 0 and
        string.format("; simplified to the vertex cap: %d points left outside, the farthest %s m", h.dropped,
          util.c_double(h.outside)) or "")
      o[#o + 1] = string.format("static const double %s_v[%d][3] = {{%s}};", name, #v, table.concat(v, "}, {"))
      o[#o + 1] = string.format("static const double %s_p[%d][4] = {{%s}};", name, #pl, table.concat(pl, "}, {"))
      o[#o + 1] = string.format("static const int %s_f[%d] = {%s};", name, #f0, list(f0))
      o[#o + 1] = string.format("static const int %s_fv[%d] = {%s};", name, #fv, list(fv))
      o[#o + 1] = string.format("static const diagc_hull %s = {%d, %d, &%s_v[0][0], &%s_p[0][0], %s_f, %s_fv};",
        name, #v, #pl, name, name, name, name)
      hp = "&" .. name
    end
    shp[i] = string.format("{%s, {%s}, %s}", M.CODE[s.type], list(s.size), hp)
    local R = rpy_matrix(s.rpy)
    pose[i] = list({ R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8], R[9], s.xyz[1], s.xyz[2], s.xyz[3] })
    body[i] = s.body
  end
  if ns > 0 then
    o[#o + 1] = string.format("static const diagc_shape %sshape[%d] = {%s};", P, ns, table.concat(shp, ", "))
    o[#o + 1] = string.format("static const double %sshape_pose[%d][12] = {{%s}};", P, ns,
      table.concat(pose, "}, {"))
    o[#o + 1] = string.format("static const int %sshape_body[%d] = {%s};", P, ns, list(body))
  end
  local np = #C.pairs
  if np > 0 then
    local tag = tree_tags(C)
    local rows = {}
    for i, p in ipairs(C.pairs) do
      local ba, bb = C.shapes[p.a].body, C.shapes[p.b].body
      rows[i] = string.format("{%d, %d, %d, %d, %d, %d}", p.a - 1, p.b - 1, p.base, p.max, tag[ba], tag[bb])
    end
    o[#o + 1] = string.format("/* candidate pairs: shape a, shape b, first slot, slots, island tags */")
    o[#o + 1] = string.format("static const int %spair[%d][6] = {%s};", P, np, table.concat(rows, ", "))
    if np >= M.BROADPHASE_PAIRS then
      local flat = {}
      for i, p in ipairs(C.pairs) do flat[i] = string.format("{%d, %d}", p.a - 1, p.b - 1) end
      o[#o + 1] = string.format("static const int %spair_flat[%d][2] = {%s};", P, np, table.concat(flat, ", "))
    end
  end
  if limits.rows_on(C) or C.settings.gradients then
    local t = require("diagc.world.dynamics").facts(C)
    local d0, dofs = { 0 }, {}
    for id = 0, t.ntrees - 1 do
      for _, k in ipairs(t.tree_dofs[id]) do dofs[#dofs + 1] = k end
      d0[#d0 + 1] = #dofs
    end
    o[#o + 1] = "/* the trees' dofs: tree t has tree_dofs[tree_dof0[t] .. tree_dof0[t + 1]) */"
    o[#o + 1] = string.format("static const int %stree_dof0[%d] = {%s};", P, #d0, list(d0))
    o[#o + 1] = string.format("static const int %stree_dofs[%d] = {%s};", P, math.max(#dofs, 1),
      #dofs > 0 and list(dofs) or "0")
  end
  if np > 0 then
    -- a pair's own number; where it takes the world's default
    -- (M.params), the other shape's own number (kind 2) or unused (kind 1)
    local mu, e, mk, ek = {}, {}, {}, {}
    for i, p in ipairs(C.pairs) do
      mu[i] = d(p.mu_kind == 2 and p.mu_own or p.friction)
      e[i] = d(p.e_kind == 2 and p.e_own or p.restitution)
      mk[i], ek[i] = tostring(p.mu_kind), tostring(p.e_kind)
    end
    o[#o + 1] = string.format("static const double %spair_mu[%d] = {%s};", P, np, table.concat(mu, ", "))
    o[#o + 1] = string.format("static const double %spair_e[%d] = {%s};", P, np, table.concat(e, ", "))
    local pm = M.params(C)
    if pm.friction or #pm.pair_friction > 0 then
      o[#o + 1] = "/* 0: pair_mu; 1: the parameter friction; 2: the smaller of the two; 3: the parameter "
        .. "pair_friction[pair_mu_ix] */"
      o[#o + 1] = string.format("static const unsigned char %spair_mu_kind[%d] = {%s};", P, np, table.concat(mk, ", "))
    end
    if pm.restitution or #pm.pair_restitution > 0 then
      o[#o + 1] = "/* 0: pair_e; 1: the parameter restitution; 2: the larger of the two; 3: the parameter "
        .. "pair_restitution[pair_e_ix] */"
      o[#o + 1] = string.format("static const unsigned char %spair_e_kind[%d] = {%s};", P, np, table.concat(ek, ", "))
    end
    -- the `pairs` entry's element of pair_friction (pair_restitution), 0 for the other pairs
    for _, k in ipairs({ { "pair_friction", "mu_entry", "mu_ix" }, { "pair_restitution", "e_entry", "e_ix" } }) do
      if #pm[k[1]] > 0 then
        local ix = {}
        for i, p in ipairs(C.pairs) do ix[i] = tostring(p[k[2]] and pm[k[1] .. "_ix"][p[k[2]].index] or 0) end
        o[#o + 1] = string.format("static const int %spair_%s[%d] = {%s};", P, k[3], np, table.concat(ix, ", "))
      end
    end
  end
  return table.concat(o, "\n")
end

local function lines(t) return table.concat(t, "\n") end

-- shape world poses: each shape's constant offset composed with its body's pose
local function shape_poses(C, P)
  return lines({
    string.format("static inline void %sshape_poses(const double *X, double (*Xs)[12])", P),
    "{",
    string.format("  for (int s = 0; s < %d; s++) {", #C.shapes),
    string.format("    const double *o = %sshape_pose[s];", P),
    string.format("    int b = %sshape_body[s];", P),
    "    if (b == 0) { for (int i = 0; i < 12; i++) Xs[s][i] = o[i]; continue; }",
    "    const double *B = X + 12 * (b - 1);",
    "    for (int r = 0; r < 3; r++) {",
    "      for (int c = 0; c < 3; c++)",
    "        Xs[s][3 * r + c] = B[3 * r] * o[c] + B[3 * r + 1] * o[3 + c] + B[3 * r + 2] * o[6 + c];",
    "      Xs[s][9 + r] = B[3 * r] * o[9] + B[3 * r + 1] * o[10] + B[3 * r + 2] * o[11] + B[9 + r];",
    "    }",
    "  }",
    "}",
  })
end

-- the broad phase runs when a world has at least this many candidate pairs
M.BROADPHASE_PAIRS = 8

-- collision over the candidate pairs (those whose bounding boxes overlap,
-- by sweep and prune, when there are many) into the contact list (at most
-- max_contacts; the rest are counted in *dropped, every one of them, so
-- that the count needed is the real total)
local function collide(C, P)
  local maxp = 0
  for _, p in ipairs(C.pairs) do maxp = math.max(maxp, p.max) end
  local margin = d(C.settings.margin or 1e-3)
  local bp = #C.pairs >= M.BROADPHASE_PAIRS
  local l = {
    string.format("static inline int %scollide(%swork *w, int *dropped)", P, P),
    "{",
    "  int nc = 0, n_cand;",
  }
  if bp then
    l[#l + 1] = string.format("  for (int s = 0; s < %d; s++) diagc_shape_aabb(&%sshape[s], w->Xs[s], %s, w->aabb[s]);",
      #C.shapes, P, margin)
    l[#l + 1] = string.format("  n_cand = diagc_broadphase(%d, &w->aabb[0][0], %d, &%spair_flat[0][0], w->bp_ws, w->cand);",
      #C.shapes, #C.pairs, P)
    l[#l + 1] = "  if (n_cand < 0) return -1;"
  else
    l[#l + 1] = string.format("  n_cand = %d;", #C.pairs)
  end
  local rest = {
    "  for (int i = 0; i < n_cand; i++) {",
    bp and "    int k = w->cand[i];" or "    int k = i;",
    string.format("    diagc_contact buf[%d];", math.max(maxp, 1)),
    string.format("    int a = %spair[k][0], b = %spair[k][1];", P, P),
    string.format("    int n = diagc_collide(&%sshape[a], w->Xs[a], &%sshape[b], w->Xs[b], %s, buf, %spair[k][3]);",
      P, P, margin, P),
    "    for (int j = 0; j < n; j++) {",
    string.format("      if (nc == %d) { (*dropped)++; continue; }", C.max_collide),
    string.format("      w->con[nc] = buf[j]; w->key[nc] = %dLL * k + buf[j].feature; w->pair[nc] = k; nc++;",
      M.features(C)),
    "    }",
    "  }",
    "  return nc;",
    "}",
  }
  for _, x in ipairs(rest) do l[#l + 1] = x end
  return lines(l)
end

-- compact contact rows (3 per contact: n, t1, t2 by diagc_contact_frame) on
-- the dofs of the contact's two trees (tree a's, then tree b's when it is
-- another; diagc/world.h, "compact rows"), from the point Jacobians of the
-- two bodies on their trees, and MJc = M^-1 J^T on the same columns (M is
-- block diagonal over the trees).
--
-- The body form (trees of at least M.BODY_FORM_DOFS dofs): a run of at
-- least M.BODY_FORM_RUN consecutive contacts of one body against the world
-- (a sole's points) takes M^-1 of the body's six rows once, [J(0); w] (the
-- point Jacobian at the origin, and the angular rows, J(e_x) - J(0) =
-- w x e_x and J(e_y) - J(0) = w x e_y), and each contact's rows as
-- combinations of them: F_r . J(p) = F_r . J(0) + (p x F_r) . w, so
-- M^-1 J_r^T = sum of the six columns weighted by (F_r, p x F_r): two
-- three-column solves per body instead of one per contact (the Atlas
-- standing: 16 sole points, 10 -> 2 solves per foot, the step 56 -> 50
-- us; docs/world.md, "Contact solve").  Smaller trees (a free box's 6
-- dofs) keep one solve per contact.
M.BODY_FORM_DOFS = 12
M.BODY_FORM_RUN = 4
local function rows(C, P)
  local W, WT = C.width, math.max(C.tree_width, 1)
  local body = C.tree_width >= M.BODY_FORM_DOFS
  local out = {
    string.format("static inline void %scontact_rows(const double *q, const double *X, const double *LDL, "
      .. "const diagc_contact *con, const int *pair, int nc, double *Jc, double *MJc)", P),
    "{",
  }
  if body then
    out[#out + 1] = string.format("  double G[%d]; /* M^-1 [J(0); w]^T of body cur, 6 rows of %d */", 6 * WT, WT)
    out[#out + 1] = string.format("  double B[%d]; /* [J(0); w] of body cur on its nonzero columns ch */", 6 * WT)
    out[#out + 1] = string.format("  int ch[%d], nch = 0, cur = -1, cur_t = -1;", WT)
  end
  local head = {
    "  for (int i = 0; i < nc; i++) {",
    string.format("    double F[9], Ja[%d], Jb[%d];", 3 * WT, 3 * WT),
    string.format("    const int *pr = %spair[pair[i]];", P),
    string.format("    int ta = pr[4], tb = pr[5], na = ta >= 0 ? %stree_dof0[ta + 1] - %stree_dof0[ta] : 0;", P, P),
    string.format("    int nb = (tb >= 0 && tb != ta) ? %stree_dof0[tb + 1] - %stree_dof0[tb] : 0;", P, P),
    "    for (int r = 0; r < 3; r++) F[r] = con[i].normal[r];",
    "    diagc_contact_frame(con[i].normal, F + 3, F + 6);",
  }
  for _, x in ipairs(head) do out[#out + 1] = x end
  if body then
    -- the pair loop's second statement is the first one at c + 1: a pair
    -- of columns per iteration (gcc -O2 vectorizes it; n is not constant)
    local function pairs2(indent, c, n, lhs, rhs)
      return {
        indent .. "int " .. c .. " = 0;",
        indent .. "for (; " .. c .. " + 2 <= " .. n .. "; " .. c .. " += 2) {",
        indent .. "  " .. lhs(c) .. " = " .. rhs(c) .. ";",
        indent .. "  " .. lhs(c .. " + 1") .. " = " .. rhs(c .. " + 1") .. ";",
        indent .. "}",
        indent .. "if (" .. c .. " < " .. n .. ") " .. lhs(c) .. " = " .. rhs(c) .. ";",
      }
    end
    local function gsum(arr, c)
      return string.format("g0 * %s[%s] + g1 * %s[%d + %s] + g2 * %s[%d + %s] + g3 * %s[%d + %s] + g4 * %s[%d + %s] + g5 * %s[%d + %s]",
        arr, c, arr, WT, c, arr, 2 * WT, c, arr, 3 * WT, c, arr, 4 * WT, c, arr, 5 * WT, c)
    end
    local bf = {
      "    /* one moving side (tree t, body bd, sign sg: its rows are +-F J(p)) in a run",
      "       of contacts of that body: the body form */",
      "    if ((ta < 0) != (tb < 0)) {",
      "      const int side = ta < 0 ? 1 : 0, t = side ? tb : ta, n = side ? nb : na;",
      string.format("      const int bd = %sshape_body[pr[side]];", P),
      "      const double sg = side ? -1.0 : 1.0;",
      "      int run = 0;",
      string.format("      for (int j = i; j < nc && run < %d && bd != cur; j++) {", M.BODY_FORM_RUN),
      string.format("        const int *pj = %spair[pair[j]];", P),
      string.format("        if ((pj[4] < 0) != (ta < 0) || (pj[5] < 0) != (tb < 0) || %sshape_body[pj[side]] != bd) break;", P),
      "        run++;",
      "      }",
      string.format("      if (bd != cur && run >= %d && n >= %d) {", M.BODY_FORM_RUN, M.BODY_FORM_DOFS),
      "        static const double o[3][3] = { { 0.0, 0.0, 0.0 }, { 1.0, 0.0, 0.0 }, { 0.0, 1.0, 0.0 } };",
      "        for (int e = 0; e < 3; e++) {",
      string.format("          %spoint_jacobian_tree(bd, q, X, o[e], e == 0 ? G : Ja);", P),
      "          if (e == 0) continue;",
      "          for (int c = 0; c < n; c++) { /* w x e_x = (0, w_z, -w_y), w x e_y = (-w_z, 0, w_x) */",
      string.format("            if (e == 1) G[%d + c] = G[%d + c] - Ja[%d + c], G[%d + c] = Ja[%d + c] - G[%d + c];",
        4 * WT, 2 * WT, 2 * WT, 5 * WT, WT, WT),
      string.format("            else G[%d + c] = Ja[%d + c] - G[%d + c];", 3 * WT, 2 * WT, 2 * WT),
      "          }",
      "        }",
      "        /* the six rows on the columns of the body's chain (its nonzero ones), packed */",
      "        nch = 0;",
      "        for (int c = 0; c < n; c++)",
      string.format("          if ((G[c] != 0.0) | (G[%d + c] != 0.0) | (G[%d + c] != 0.0) | (G[%d + c] != 0.0) | (G[%d + c] != 0.0) | (G[%d + c] != 0.0)) ch[nch++] = c;",
        WT, 2 * WT, 3 * WT, 4 * WT, 5 * WT),
      string.format("        for (int e = 0; e < 6; e++) for (int j = 0; j < nch; j++) B[%d * e + j] = G[%d * e + ch[j]];", WT, WT),
      string.format("        %ssolve_tree3(LDL, t, G, %d);", P, WT),
      string.format("        %ssolve_tree3(LDL, t, G + %d, %d);", P, 3 * WT, WT),
      "        cur = bd, cur_t = t;",
      "      }",
      "      if (bd == cur && t == cur_t) {",
      "        const double *p = con[i].point;",
      "        for (int r = 0; r < 3; r++) {",
      "          const double *f = F + 3 * r;",
      "          const double g0 = sg * f[0], g1 = sg * f[1], g2 = sg * f[2];",
      "          const double g3 = sg * (p[1] * f[2] - p[2] * f[1]), g4 = sg * (p[2] * f[0] - p[0] * f[2]);",
      "          const double g5 = sg * (p[0] * f[1] - p[1] * f[0]);",
      string.format("          double *Jr = Jc + (size_t)(3 * i + r) * %d, *Mr = MJc + (size_t)(3 * i + r) * %d;", W, W),
      "          /* the other side is the world: the row's columns are [0, n) */",
      string.format("          for (int c = 0; c < %d; c++) Jr[c] = 0.0;", W),
    }
    for _, x in ipairs(pairs2("          ", "j", "nch", function(c) return "Ja[" .. c .. "]" end,
      function(c) return gsum("B", c) end)) do
      bf[#bf + 1] = x
    end
    bf[#bf + 1] = "          for (j = 0; j < nch; j++) Jr[ch[j]] = Ja[j];"
    for _, x in ipairs(pairs2("          ", "c", "n", function(c) return "Mr[" .. c .. "]" end,
      function(c) return gsum("G", c) end)) do
      bf[#bf + 1] = x
    end
    local bf2 = {
      string.format("          for (c = n; c < %d; c++) Mr[c] = 0.0;", W),
      "        }",
      "        continue;",
      "      }",
      "    }",
    }
    for _, x in ipairs(bf2) do bf[#bf + 1] = x end
    for _, x in ipairs(bf) do out[#out + 1] = x end
  end
  local main = {
    "    /* the point Jacobians of the moving sides */",
    string.format("    if (ta >= 0) %spoint_jacobian_tree(%sshape_body[pr[0]], q, X, con[i].point, Ja);", P, P),
    string.format("    if (tb >= 0) %spoint_jacobian_tree(%sshape_body[pr[1]], q, X, con[i].point, Jb);", P, P),
    "    for (int r = 0; r < 3; r++) {",
    string.format("      double *Jr = Jc + (size_t)(3 * i + r) * %d, *Mr = MJc + (size_t)(3 * i + r) * %d;", W, W),
    "      for (int c = 0; c < na; c++) {",
    string.format("        double a0 = Ja[c], a1 = Ja[%d + c], a2 = Ja[%d + c];", WT, 2 * WT),
    string.format("        if (tb == ta) a0 -= Jb[c], a1 -= Jb[%d + c], a2 -= Jb[%d + c];", WT, 2 * WT),
    "        Jr[c] = F[3 * r] * a0 + F[3 * r + 1] * a1 + F[3 * r + 2] * a2;",
    "      }",
    "      for (int c = 0; c < nb; c++)",
    string.format("        Jr[na + c] = -(F[3 * r] * Jb[c] + F[3 * r + 1] * Jb[%d + c] + F[3 * r + 2] * Jb[%d + c]);",
      WT, 2 * WT),
    string.format("      for (int c = na + nb; c < %d; c++) Jr[c] = 0.0;", W),
    "      /* M^-1 J_r^T: the two trees' blocks of the factor, on the packed columns */",
    string.format("      for (int c = 0; c < %d; c++) Mr[c] = Jr[c];", W),
    "    }",
  }
  for _, x in ipairs(main) do out[#out + 1] = x end
  local tail = {
    "    {",
    string.format("      double *Mr = MJc + (size_t)(3 * i) * %d;", W),
    string.format("      if (na > 0) %ssolve_tree3(LDL, ta, Mr, %d);", P, W),
    string.format("      if (nb > 0) %ssolve_tree3(LDL, tb, Mr + na, %d);", P, W),
    "    }",
    "  }",
    "}",
  }
  for _, x in ipairs(tail) do out[#out + 1] = x end
  return lines(out)
end

-- the dense rows J (3 nc x nv) and M^-1 J^T (nv x 3 nc) of the compact ones
-- (the linearized step's form, world/grad.lua)
local function densify(C, P)
  local W, nv = C.width, C.nv
  return lines({
    string.format("static inline void %sdensify(const %swork *w, int nc, double *J, double *MJ)", P, P),
    "{",
    string.format("  for (int i = 0; i < 3 * nc * %d; i++) J[i] = MJ[i] = 0.0;", nv),
    "  for (int i = 0; i < nc; i++) {",
    C.nlim_rows > 0 and "    int ta = w->tag[2 * i], tb = w->tag[2 * i + 1];"
      or string.format("    const int *pr = %spair[w->pair[i]];", P),
    string.format("    int %sna = ta >= 0 ? %stree_dof0[ta + 1] - %stree_dof0[ta] : 0;",
      C.nlim_rows > 0 and "" or "ta = pr[4], tb = pr[5], ", P, P),
    string.format("    int nb = (tb >= 0 && tb != ta) ? %stree_dof0[tb + 1] - %stree_dof0[tb] : 0;", P, P),
    "    for (int r = 3 * i; r < 3 * i + 3; r++)",
    "      for (int c = 0; c < na + nb; c++) {",
    string.format("        int k = c < na ? %stree_dofs[%stree_dof0[ta] + c] : %stree_dofs[%stree_dof0[tb] + c - na];",
      P, P, P, P),
    string.format("        J[(size_t)r * %d + k] = w->Jc[(size_t)r * %d + c];", nv, W),
    string.format("        MJ[(size_t)k * 3 * nc + r] = w->MJc[(size_t)r * %d + c];", W),
    "      }",
    "  }",
    "}",
  })
end

-- v* = v + dt M^-1 (tau - c) into w->v_next, with the factor left in w->M
local function smooth(C, P)
  local l = {
    string.format("static inline void %ssmooth(const double *q, const double *v, const double *effort, %swork *w)", P, P),
    "{",
    string.format("  double c[%d];", C.nv),
    string.format("  %skinematics(q, w->X);", P),
  }
  if require("diagc.world.dynamics").mode(C) == "looped" then
    -- one pass for the motion columns and the inertias (world/looped.lua)
    l[#l + 1] = string.format("  %smass_bias(q, v, w->X, w->inertial, w->M, c);", P)
  else
    l[#l + 1] = string.format("  %smass_matrix(q, w->X, w->inertial, w->M);", P)
    l[#l + 1] = string.format("  %sbias(q, v, w->X, w->inertial, c);", P)
  end
  for _, x in ipairs({
    string.format("  %sdamping(w->damping, v, c);", P),
    string.format("  %sfactor(w->M);", P),
    string.format("  for (int i = 0; i < %d; i++) c[i] = -c[i];", C.nv),
  }) do l[#l + 1] = x end
  if C.effort_limits.any then
    -- the effort limits (world/limits.lua): the clamped effort, its count in info[8]
    l[#l + 1] = string.format("  double u[%d];", #C.actuated)
    l[#l + 1] = string.format("  w->info[8] = %seffort_clamp(v, effort, u);", P)
    l[#l + 1] = "  effort = u;"
  end
  for k, a in ipairs(C.actuated) do l[#l + 1] = string.format("  c[%d] += effort[%d];", a.dof, k - 1) end
  if #C.actuated == 0 then l[#l + 1] = "  (void)effort;" end
  l[#l + 1] = string.format("  %ssolve(w->M, c);", P)
  l[#l + 1] = string.format("  for (int i = 0; i < %d; i++) w->v_next[i] = v[i] + %s * c[i];", C.nv, d(C.time_step))
  if C.settings.gradients then
    l[#l + 1] = string.format("  for (int i = 0; i < %d; i++) w->acc[i] = c[i];", C.nv)
  end
  l[#l + 1] = "}"
  return lines(l)
end

-- the contact options of the world's settings
local function options(C)
  local l = {}
  for _, k in ipairs({ "erp", "allowed_penetration", "bounce_threshold", "cfm" }) do
    if C.settings[k] then l[#l + 1] = string.format("  o.%s = %s;", k, d(C.settings[k])) end
  end
  if C.settings.check_lcp then l[#l + 1] = "  o.check = 1;" end
  l[#l + 1] = string.format("  o.method = %s;", M.METHOD[C.settings.contact_method or "sparse"])
  l[#l + 1] = string.format("  o.restitution_passes = %d;", C.settings.restitution_passes)
  l[#l + 1] = string.format("  o.lcp.tol = %s;", d(C.settings.lcp_tol or 1e-13))
  if C.settings.lcp_budget then l[#l + 1] = string.format("  o.lcp.work_budget = %d;", C.settings.lcp_budget) end
  return lines(l)
end

-- the work of one step: every array it needs, and its results
local function work_type(C, P)
  local mc, nv = C.max_contacts, C.nv
  local l = {
    "/* The work of one step of this world: a typed cache entry of its leaf */",
    "typedef struct {",
    string.format("  double q_next[%d], v_next[%d], info[%d];", C.nq, nv, C.ninfo),
  }
  local rows_on = limits.rows_on(C)
  if rows_on then l[#l + 1] = string.format("  double imp_next[%d];", 4 * mc) end -- C.nimp
  l[#l + 1] = C.nlim_rows > 0
    and "  int status, nlim;  /* nlim: the last step's limit, friction and mimic rows (after its contacts) */"
    or "  int status;"
  l[#l + 1] = string.format("  double X[%d], M[%d];", 12 * C.nb, math.max(require("diagc.world.dynamics").facts(C).nm, 1))
  if C.settings.gradients then
    l[#l + 1] = string.format("  double acc[%d];  /* M^-1 (B u - c): the smooth acceleration (the step's Jacobians) */",
      math.max(nv, 1))
  end
  if rows_on then
    l[#l + 1] = #C.pairs > 0 and string.format("  double Xs[%d][12], vstar[%d];", #C.shapes, nv)
      or string.format("  double vstar[%d];", nv)
    l[#l + 1] = string.format("  double Jc[%d], MJc[%d], x[%d], depth[%d], mu[%d], e[%d];", 3 * mc * C.width, 3 * mc * C.width,
      3 * mc, mc, mc, mc)
    l[#l + 1] = string.format("  diagc_contact con[%d];", mc)
    if C.ncouple_rows > 0 then l[#l + 1] = string.format("  double bound[%d];", mc) end
    l[#l + 1] = string.format("  long long key[%d];", mc)
    l[#l + 1] = string.format("  int pair[%d], tag[%d];", mc, 2 * mc)
    l[#l + 1] = string.format("  double ws[%d];", C.ws_doubles)
    if #C.pairs >= M.BROADPHASE_PAIRS then
      l[#l + 1] = string.format("  double aabb[%d][6];", #C.shapes)
      l[#l + 1] = string.format("  int bp_ws[DIAGC_BROADPHASE_WS(%d)], cand[%d];", #C.shapes, #C.pairs)
    end
  end
  local pm = M.params(C)
  if pm.friction or pm.restitution then
    l[#l + 1] = "  double friction, restitution;  /* the world's parameters of this step */"
  end
  l[#l + 1] = string.format("  double damping[%d];  /* the parameter damping, per moving joint */",
    math.max(#pm.damping, 1))
  l[#l + 1] = string.format("  double inertial[%d];  /* the parameters mass, com, inertia: 10 per moving body */",
    10 * math.max(#pm.mass, 1))
  for _, k in ipairs({ "pair_friction", "pair_restitution" }) do
    if #pm[k] > 0 then
      l[#l + 1] = string.format("  double %s[%d];  /* the parameter %s, per `pairs` entry */", k, #pm[k], k)
    end
  end
  l[#l + 1] = string.format("} %swork;", P)
  return lines(l)
end

-- The world's numeric parameters (its leaf's `parameter`s, world/lower.lua):
-- friction and restitution, the defaults of the shapes that give none, when
-- some candidate pair takes one; damping, one value per moving joint (in
-- body order, each settable as "J.damping"), when there is one; mass, one
-- value per moving body ("B.mass"); inertia, 6 per moving body
-- ("B.inertia": ixx, iyy, izz, ixy, ixz, iyz about the centre of mass);
-- com, 3 per moving body ("B.com") but a lone free body whose spec puts it
-- at the body's origin (world/lone.lua's M.fixed_com); the `pairs`
-- entries' own numbers (docs/world.md, "Parameters").
-- -> {friction = default or nil, restitution = default or nil,
--     damping = {defaults}, damping_names = {"J.damping", ...},
--     mass = {defaults}, mass_names = {"B.mass", ...}, inertia, inertia_names,
--     com, com_names, com_of = {the moving body (0-based) of each B.com},
--     pair_friction, pair_friction_names, pair_friction_ix = {entry index -> element}, and so for restitution}
function M.params(C)
  local out = { damping = {}, damping_names = {}, mass = {}, mass_names = {}, inertia = {}, inertia_names = {},
    com = {}, com_names = {}, com_of = {} }
  local parent = {}
  for _, b in ipairs(C.bodies) do parent[b.joint.parent] = true end
  for i, b in ipairs(C.bodies) do
    if b.nq > 0 then
      out.damping[#out.damping + 1] = b.joint.damping or 0
      out.damping_names[#out.damping_names + 1] = b.joint.name .. ".damping"
    end
    -- every body a dof moves (world/tree.lua's M.inertial), in body order
    if not b.welded then
      local j = #out.mass
      out.mass[j + 1] = b.mass
      out.mass_names[j + 1] = b.name .. ".mass"
      for k = 1, 6 do out.inertia[6 * j + k] = b.inertia[k] or 0 end
      out.inertia_names[j + 1] = b.name .. ".inertia"
      local c = b.com or { 0, 0, 0 }
      local lone = b.joint.type == "free" and b.joint.parent == 0 and not parent[i]
      if not (lone and c[1] == 0 and c[2] == 0 and c[3] == 0) then
        for k = 1, 3 do out.com[#out.com + 1] = c[k] end
        out.com_names[#out.com_names + 1] = b.name .. ".com"
        out.com_of[#out.com_of + 1] = j
      end
    end
  end
  for _, p in ipairs(C.pairs or {}) do
    if p.mu_kind == 1 or p.mu_kind == 2 then out.friction = C.friction end
    if p.e_kind == 1 or p.e_kind == 2 then out.restitution = C.restitution end
  end
  -- the `pairs` entries' own numbers that some candidate pair takes, in
  -- entry order: pair_friction ("A.B.friction"), pair_restitution
  for _, k in ipairs({ { "pair_friction", "mu_entry", "friction" }, { "pair_restitution", "e_entry", "restitution" } }) do
    local used = {}
    for _, p in ipairs(C.pairs or {}) do
      local en = p[k[2]]
      if en then used[en.index] = en end
    end
    local vals, names, ix = {}, {}, {}
    for _, i in ipairs(util.sorted_keys(used)) do
      local en = used[i]
      vals[#vals + 1] = en[k[3]]
      names[#names + 1] = en.names[1] .. "." .. en.names[2] .. "." .. k[3]
      ix[i] = #vals - 1
    end
    out[k[1]], out[k[1] .. "_names"], out[k[1] .. "_ix"] = vals, names, ix
  end
  return out
end

-- a contact's friction and restitution from its pair (tables above): the
-- C expression of the kinds the world has (M.params)
local function pair_value(P, x, world_param, pair_param, combine)
  local k = string.format("%spair_%s_kind[w->pair[i]]", P, x)
  local own = string.format("%spair_%s[w->pair[i]]", P, x)
  local e = own
  if world_param then
    e = string.format("%s == 0 ? %s : %s == 1 ? w->%s : %s(w->%s, %s)", k, own, k, world_param, combine,
      world_param, own)
  end
  if pair_param then
    e = string.format("%s == 3 ? w->%s[%spair_%s_ix[w->pair[i]]] : %s", k, pair_param, P, x, e)
  end
  return e
end

local function mu_line(C, P)
  local pm = M.params(C)
  local mu = pair_value(P, "mu", pm.friction and "friction", #pm.pair_friction > 0 and "pair_friction", "fmin")
  local e = pair_value(P, "e", pm.restitution and "restitution", #pm.pair_restitution > 0 and "pair_restitution",
    "fmax")
  return string.format("    w->mu[i] = %s;\n    w->e[i] = %s;", mu, e)
end

-- the contact problem of the step's nc contacts in w and the world's
-- options (shared by the step and its Jacobians, world/grad.lua)
local function problem(C, P)
  return lines({
    string.format("static inline void %sproblem(const double *v, const %swork *w, int nc, "
      .. "diagc_contact_problem *pr, diagc_contact_options *op)", P, P),
    "{",
    "  diagc_contact_options o;",
    "  diagc_contact_options_init(&o);",
    options(C),
    "  *op = o;",
    string.format("  pr->nv = %d; pr->nc = nc; pr->J = NULL; pr->MinvJT = NULL; pr->v = v; pr->vstar = w->vstar;", C.nv),
    string.format("  pr->depth = w->depth; pr->mu = w->mu; pr->restitution = w->e; pr->tree = w->tag; pr->dt = %s;",
      d(C.time_step)),
    string.format("  pr->width = %d; pr->Jc = w->Jc; pr->MJc = w->MJc; pr->ntrees = %d;", C.width, C.ntrees),
    string.format("  pr->tree_dof0 = %stree_dof0; pr->tree_dofs = %stree_dofs;", P, P),
    -- the joints' Coulomb friction and mimic rows are bilateral (world/couplings.lua)
    C.ncouple_rows > 0 and "  pr->bound = w->bound;" or "  pr->bound = NULL;",
    "}",
  })
end

-- the contact phase: collision, rows, the solve, the warm-start table
-- (imp, imp_next: C.nimp)
local function contact(C, P)
  local lim = C.nlim_rows > 0
  local pre = #C.pairs == 0 and { "  int dropped = 0, nc = 0;" } or {
    "  int dropped = 0;",
    string.format("  %sshape_poses(w->X, w->Xs);", P),
    string.format("  int nc = %scollide(w, &dropped);", P),
    "  if (nc < 0) return DIAGC_CONTACT_E_ARG;",
    C.settings.contact_overflow == "drop" and "  /* contact_overflow = \"drop\": the first max_contacts are kept */"
      or "  if (dropped > 0) { w->info[0] = nc; w->info[4] = dropped; return DIAGC_WORLD_E_CONTACTS; }",
    string.format("  %scontact_rows(q, w->X, w->M, w->con, w->pair, nc, w->Jc, w->MJc);", P),
  }
  if lim then
    -- the joint limits' rows after the contacts (world/limits.lua), keys above every pair's
    pre[#pre + 1] = "  int ncc = nc;"
    if #C.limits > 0 then pre[#pre + 1] = string.format("  nc = %slimit_rows(q, w, nc);", P) end
    -- the joints' friction and mimic rows (world/couplings.lua)
    if C.ncouple_rows > 0 then pre[#pre + 1] = string.format("  nc = %scouple_rows(q, w, nc);", P) end
    pre[#pre + 1] = "  w->nlim = nc - ncc;"
  end
  local l = {
    string.format("static inline int %scontact(const double *q, const double *v, const double *imp, %swork *w)", P, P),
    "{",
  }
  for _, x in ipairs(pre) do l[#l + 1] = x end
  for _, x in ipairs({
    "  /* the warm start: each contact's entry of the same key in imp (both lists increase) */",
    "  for (int i = 0, j = 0; i < nc; i++) {",
    "    double key = 1.0 + w->key[i];",
  }) do l[#l + 1] = x end
  if lim then l[#l + 1] = "    if (i < ncc) {" end
  if #C.pairs > 0 then
    for _, x in ipairs({
      "    w->depth[i] = w->con[i].depth;",
      mu_line(C, P),
      string.format("    w->tag[2 * i] = %spair[w->pair[i]][4]; w->tag[2 * i + 1] = %spair[w->pair[i]][5];", P, P),
    }) do l[#l + 1] = x end
  end
  if lim then l[#l + 1] = "    }" end
  for _, x in ipairs({
    string.format("    while (j < %d && !(imp[4 * j] >= key)) j++;", C.max_contacts),
    string.format("    if (j < %d && imp[4 * j] == key) {", C.max_contacts),
    "      for (int r = 0; r < 3; r++) w->x[3 * i + r] = imp[4 * j + 1 + r];",
    "      j++;",
    "    } else {",
    "      for (int r = 0; r < 3; r++) w->x[3 * i + r] = 0.0;",
    "    }",
    "  }",
    "  diagc_contact_problem p;",
    "  diagc_contact_options o;",
    "  diagc_contact_stats st;",
    string.format("  %sproblem(v, w, nc, &p, &o);", P),
    "  int status = diagc_contact_solve(&p, &o, w->x, w->v_next, w->ws, sizeof w->ws, &st);",
  }) do l[#l + 1] = x end
  for _, x in ipairs(check.after_solve(C, P)) do l[#l + 1] = x end
  -- an island left above accept_tol (its best point used): counted, never silent
  l[#l + 1] = string.format("  if (status == DIAGC_CONTACT_INEXACT) w->info[%d] += 1.0;", C.info_inexact)
  for _, x in ipairs({
    "  if (status < 0) {",
    string.format("    for (int i = 0; i < %d; i++) w->imp_next[i] = 0.0;", C.nimp),
    "    return status;",
    "  }",
    "  for (int i = 0; i < nc; i++) {",
    "    w->imp_next[4 * i] = 1.0 + w->key[i];",
    "    for (int r = 0; r < 3; r++) w->imp_next[4 * i + 1 + r] = w->x[3 * i + r];",
    "  }",
    string.format("  for (int i = 4 * nc; i < %d; i++) w->imp_next[i] = 0.0;", C.nimp),
    "  w->info[0] = nc;",
    "  w->info[1] = st.budget_hit ? 1.0 : 0.0;",
    "  w->info[2] = st.residual;",
    "  w->info[3] = st.pivots + st.sweeps;",
    "  w->info[4] = dropped;",
    "  return 0;",
    "}",
  }) do l[#l + 1] = x end
  return lines(l)
end

-- P_inertial(mass, com, inertia, out): the parameters mass, com and
-- inertia packed as the generated dynamics take them (world/tree.lua's
-- M.INERTIAL: 10 per moving body; com 0 where it is no parameter)
local function inertial_fn(C, P)
  local pm = M.params(C)
  local n, nc = #pm.mass, #pm.com_of
  local l = { string.format("static inline void %sinertial(const double *mass, const double *com, const double *inertia, "
    .. "double *out)", P), "{" }
  if nc > 0 and nc < n then
    local ix, at = {}, {}
    for c, j in ipairs(pm.com_of) do at[j] = c - 1 end
    for j = 0, n - 1 do ix[j + 1] = tostring(at[j] or -1) end
    l[#l + 1] = string.format("  static const int com_of[%d] = {%s};  /* the body's B.com in com, -1 none */", n,
      table.concat(ix, ", "))
  elseif nc == 0 then
    l[#l + 1] = "  (void)com;"
  end
  l[#l + 1] = string.format("  for (int j = 0; j < %d; j++) {", n)
  l[#l + 1] = "    out[10 * j] = mass[j];"
  if nc == n then
    l[#l + 1] = "    for (int k = 0; k < 3; k++) out[10 * j + 1 + k] = com[3 * j + k];"
  elseif nc == 0 then
    l[#l + 1] = "    for (int k = 0; k < 3; k++) out[10 * j + 1 + k] = 0.0;"
  else
    l[#l + 1] = "    for (int k = 0; k < 3; k++) out[10 * j + 1 + k] = com_of[j] >= 0 ? com[3 * com_of[j] + k] : 0.0;"
  end
  l[#l + 1] = "    for (int k = 0; k < 6; k++) out[10 * j + 4 + k] = inertia[6 * j + k];"
  l[#l + 1] = "  }"
  l[#l + 1] = "}"
  return lines(l)
end

-- the step: the calc of the work entry; w->status is 0 or the failure
local function step_fn(C, P)
  local vq = C.position_update == "parallel" and "v" or "w->v_next"
  local pm = M.params(C)
  local l = {
    string.format("static inline void %sstep(const double *q, const double *v, const double *imp, "
      .. "const double *effort, const double *info, const double *friction, const double *restitution, "
      .. "const double *damping, const double *mass, const double *com, const double *inertia, "
      .. "const double *pair_friction, const double *pair_restitution, %swork *w)", P, P),
    "{",
    -- the world's parameters, read once per step (M.params)
    pm.friction and "  w->friction = friction[0];" or "  (void)friction;",
    pm.restitution and "  w->restitution = restitution[0];" or "  (void)restitution;",
    #pm.damping > 0 and string.format("  for (int j = 0; j < %d; j++) w->damping[j] = damping[j];", #pm.damping)
      or "  (void)damping;\n  w->damping[0] = 0.0;",
    string.format("  %sinertial(mass, com, inertia, w->inertial);", P),
    #pm.pair_friction > 0 and string.format("  for (int j = 0; j < %d; j++) w->pair_friction[j] = pair_friction[j];",
      #pm.pair_friction) or "  (void)pair_friction;",
    #pm.pair_restitution > 0 and string.format(
      "  for (int j = 0; j < %d; j++) w->pair_restitution[j] = pair_restitution[j];", #pm.pair_restitution)
      or "  (void)pair_restitution;",
    string.format("  %ssmooth(q, v, effort, w);", P),
    "  for (int i = 0; i < 5; i++) w->info[i] = 0.0;",
    "  w->info[5] = info[5];",
    "  w->info[6] = info[6];",
    "  w->info[7] = info[7];",
    string.format("  w->info[%d] = info[%d];", C.info_inexact, C.info_inexact),
    "  w->status = 0;",
  }
  -- v* not finite (the state, an effort or a force overflowed): the step
  -- fails saying so, before the contact solve would call it a bad argument
  l[#l + 1] = string.format("  for (int i = 0; i < %d; i++)", C.nv)
  l[#l + 1] = "    if (!isfinite(w->v_next[i])) { w->status = DIAGC_WORLD_E_NONFINITE; return; }"
  if C.effort_limits.any then l[#l + 1] = "  w->info[9] = info[9] + (w->info[8] > 0.0 ? 1.0 : 0.0);" end
  if limits.rows_on(C) then
    l[#l + 1] = string.format("  for (int i = 0; i < %d; i++) w->vstar[i] = w->v_next[i];", C.nv)
    l[#l + 1] = string.format("  w->status = %scontact(q, v, imp, w);", P)
    l[#l + 1] = "  if (w->status < 0) return;"
    l[#l + 1] = "  w->status = 0;"
    l[#l + 1] = "  w->info[5] += w->info[1];"
    l[#l + 1] = "  w->info[6] += w->info[4] > 0.0 ? 1.0 : 0.0;"
    l[#l + 1] = "  w->info[7] += w->info[4];"
  else
    l[#l + 1] = "  (void)imp;"
  end
  l[#l + 1] = string.format("  %sintegrate(q, %s, %s, w->q_next);", P, vq, d(C.time_step))
  l[#l + 1] = "}"
  return lines(l)
end

-- The preamble of a world's leaf: every function above, after the dynamics.
function M.emit(C, P)
  M.layout(C)
  local dynamics = require("diagc.world.dynamics")
  -- the preamble lands in the model's header: every function static inline
  local function inline(text)
    return (("\n" .. text):gsub("\nstatic (%a+) ", function(w)
      if w == "inline" or w == "const" then return nil end
      return "\nstatic inline " .. w .. " "
    end):sub(2))
  end
  local rows_on = limits.rows_on(C)
  local fns = rows_on
    and { "kinematics", "mass_matrix", "bias", "damping", "factor", "solve", "solve_tree", "point_jacobian_tree",
      "integrate", "energy", "velocities" }
    or { "kinematics", "mass_matrix", "bias", "damping", "factor", "solve", "integrate", "energy", "velocities" }
  if rows_on and #C.pairs > 0 then table.insert(fns, 8, "solve_tree3") end -- the contact rows'
  -- the mass columns of the step's Jacobians (world/grad.lua) take the
  -- centres of mass's point Jacobians on their trees
  if C.settings.gradients and not rows_on then table.insert(fns, 7, "point_jacobian_tree") end
  if dynamics.mode(C) == "looped" then table.insert(fns, 4, "mass_bias") end -- smooth's
  if C.settings.gradients then fns[#fns + 1] = "solve_cols" end -- the smooth tangent's columns (world/grad.lua)
  local parts = { "#include <diagc/world.h>", work_type(C, P), inline(dynamics.emit(C, P:sub(1, -2), { functions = fns })),
    tables(C, P), require("diagc.world.signals").emit(C, P) }
  parts[#parts + 1] = inertial_fn(C, P)
  parts[#parts + 1] = limits.emit_clamp(C, P)
  parts[#parts + 1] = smooth(C, P)
  if rows_on then
    local fs = #C.pairs > 0 and { shape_poses, collide, rows, problem } or { problem }
    for _, f in ipairs(fs) do parts[#parts + 1] = f(C, P) end
    parts[#parts + 1] = limits.emit_rows(C, P, M.features(C))
    parts[#parts + 1] = require("diagc.world.couplings").emit_rows(C, P)
    if C.settings.check_lcp then parts[#parts + 1] = check.emit(C, P) end
    parts[#parts + 1] = contact(C, P)
    if C.settings.gradients then parts[#parts + 1] = densify(C, P) end
  end
  parts[#parts + 1] = step_fn(C, P)
  -- the step's Jacobians (world/grad.lua) on the tangent dynamics (world/tangent.lua)
  if C.settings.gradients then
    local grad = require("diagc.world.grad")
    parts[#parts + 1] = inline(require("diagc.world.tangent").emit(C, P:sub(1, -2),
      { functions = grad.tangent_functions(C) }))
    parts[#parts + 1] = grad.emit(C, P)
  end
  return table.concat(parts, "\n\n") .. "\n"
end

M.sections = { tables = tables, shape_poses = shape_poses, collide = collide, rows = rows }

-- bytes of the work entry (after M.layout)
function M.work_bytes(C, P)
  return size.decl_bytes(work_type(C, P))
end

return M
