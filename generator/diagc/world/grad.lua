-- world/grad.lua: the C of a world step's Jacobians (issue #18; seed 002's
-- table, docs/world.md "Gradients"), for a checked world whose step
-- world/step.lua emitted (C.nslots, C.max_contacts set).
-- Adds to the world's preamble: the typed cache entry PFX_grad (the
-- Jacobians and their scratch; no heap) and PFX_step_jacobians(q, v,
-- effort, work, grad), which, from the step's snapshot in work,
--   1. differentiates v* = v + dt M^-1 (B tau - c) (world/tangent.lua's
--      d(M a + c)/dq, dc/dv: cdiff's source transformation of the
--      generated dynamics),
--   2. differentiates the contact geometry (body twists from
--      d(kinematics)/dq, diagc_collide_tangent per pair) into d depth/dq
--      and the operators d(J y)/dq, d(J^T x)/dq, d(M y)/dq, M^-1,
--   3. runs the runtime's linearized contact step
--      (diagc_contact_tangent_solve) for dv'/d(q, v, tau, mu),
--   4. differentiates q' = q (+) dt v (or v'): identity for scalar and
--      linear dofs, R(phi)^T and the right Jacobian of SO(3) for rotations,
--      times DiffDART's bounce factor B (parallel update, bounce_gradient =
--      "approximate", the default) when a contact bounced.
-- Columns (directions): dq (nv, tangent coordinates), dv (nv), effort
-- (nu), then the friction coefficient of each candidate pair (np).
-- Apart, in the typed entry PFX_gradm (grad_mass, computed on demand by
-- PFX_mass_jacobians from work and grad), Tm: [q'; v'] x the masses of the
-- moving bodies (the parameter mass, nm columns): M and c are linear in body j's mass at fixed centre of
-- mass and inertia, d(M a + c)/d m_j = J_j^T J_j a + c_j(q, v) with J_j the
-- point Jacobian of its centre of mass and c_j the bias of a unit point
-- mass there (the generated bias on a unit `inertial`), so
-- d v*/d m_j = -dt M^-1 (J_j^T J_j a + c_j), a = M^-1 (tau - c); with
-- contacts the runtime's linearized step runs once more on these columns,
-- d(M y)/d m_j = J_j^T J_j y its only operator (J does not move).
local util = require("diagc.util")
local emit_ops = require("diagc.world.grad_ops")
local limits = require("diagc.world.limits")

local M = {}

local d = util.c_double

local function lines(t)
  local o = {}
  for _, x in ipairs(t) do if x then o[#o + 1] = x end end
  return table.concat(o, "\n")
end

-- doubles of the linearized contact step's workspace (the runtime's own
-- figure, asked through the host as step.workspace_doubles does)
function M.tangent_doubles(nv, nc, ncol)
  local ok, ffi = pcall(require, "ffi")
  if ok then
    pcall(ffi.cdef, "size_t diagc_contact_tangent_workspace_size(int nv, int nc_max, int ncol);")
    local ok2, n = pcall(function() return tonumber(ffi.C.diagc_contact_tangent_workspace_size(nv, nc, ncol)) end)
    if ok2 and n and n > 0 then return math.ceil(n / 8) end
  end
  error("internal: the runtime's diagc_contact_tangent_workspace_size is not reachable (run diagc through bin/diagc)", 0)
end

-- sizes of the Jacobians: G.nv, nu, np, ncol, mc (contacts), nb
function M.sizes(C)
  local G = { nv = C.nv, nu = #C.actuated, np = #C.pairs, mc = C.max_contacts, nb = C.nb, nslots = C.nslots,
    rows = limits.rows_on(C), nlim = C.nlim_rows, nm = require("diagc.world.tree").nmass(
      require("diagc.world.dynamics").facts(C)), lt = M.looped_tangents(C) }
  G.ncol = 2 * G.nv + G.nu + G.np
  G.width = require("diagc.world.jacobian").tree_columns(require("diagc.world.dynamics").facts(C))
  return G
end

-- the fields of PFX_grad (C declarations), in order
local function grad_fields(G)
  local nv, ncol = G.nv, G.ncol
  local l = {
    string.format("  double pos_pos[%d], vel_pos[%d], pos_vel[%d], vel_vel[%d];", nv * nv, nv * nv, nv * nv, nv * nv),
    string.format("  double force_pos[%d], force_vel[%d];", math.max(nv * G.nu, 1), math.max(nv * G.nu, 1)),
    string.format("  double T[%d];  /* [q'; v'] x [dq, dv, effort, mu]: all of them */", 2 * nv * ncol),
    "  int status, contacts, clamped, rank, kinks, bounces;",
    string.format("  double Tv[%d], Tvs[%d], Dq[%d], Dv[%d], a[%d], col[%d];", nv * ncol, nv * ncol, nv * nv,
      nv * nv, nv, nv),
  }
  if G.rows then
    local mc = G.mc
    if G.np > 0 then
      l[#l + 1] = string.format("  double mu_pos[%d], mu_vel[%d];", nv * G.np, nv * G.np)
      l[#l + 1] = string.format("  int mu_n, mu_live[%d];  /* the pairs whose mu columns of T, mu_pos, mu_vel, imp may be nonzero */",
        G.np)
    end
    l[#l + 1] = string.format("  double imp[%d];  /* d imp' (its entries [1 + slot, n, t1, t2]) x the same columns */",
      4 * mc * ncol)
    l[#l + 1] = string.format("  int cls[%d], active[%d], bounce[%d], target[%d], mu_col[%d];", 3 * mc, 3 * mc, mc, mc, mc)
    l[#l + 1] = "  int imp_n;  /* the entries whose rows of imp are set (the others are 0) */"
    l[#l + 1] = string.format("  double %sJb[%d], Dgeo[%d], D13[%d];", G.lt and "" or string.format("dX[%d], ", 12 * G.nb * nv),
      6 * G.nb * nv, 13 * mc * nv, 156 * 8)
    l[#l + 1] = string.format("  double Tdepth[%d], Tx[%d], V[%d], dV[%d], Wb[%d], dWb[%d];", mc * ncol, 3 * mc * ncol,
      6 * G.nb, 6 * G.nb * nv, 6 * G.nb, 6 * G.nb * nv)
    l[#l + 1] = string.format("  double B[%d], Bws[%d], Brows[%d], Be[%d];", nv * nv, mc * mc + 4 * mc, mc * nv, mc)
    l[#l + 1] = string.format("  double Jd[%d], MJd[%d];  /* the step's rows, dense (the compact ones spread) */",
      3 * mc * nv, 3 * mc * nv)
    l[#l + 1] = string.format("  double ws[%d];", M.tangent_doubles(nv, mc, ncol))
    if G.lt then
      -- PFX_tprim (world/tangent_looped.lua): the primal data of the looped
      -- tangents, formed once an evaluation and read by every operator
      l[#l + 1] = string.format("  double tp[%d];  /* PFX_tprim: the looped tangents' primal data */", 12 * nv + 20 * G.nb)
    end
  end
  return l
end

-- the fields of PFX_gradm, the masses' columns (a cache entry of its own,
-- grad_mass: computed only when asked for, from work and grad)
local function gradm_fields(G)
  local nv, nm = G.nv, G.nm
  local l = {
    string.format("  double Tm[%d];  /* [q'; v'] x the masses (the parameter mass) */", 2 * nv * nm),
    "  int status;",
    string.format("  double Tvm[%d], Jc[%d], mi[%d], bm[%d], col[%d];", nv * nm, 3 * G.width, 10 * nm, nv, nv),
  }
  if G.rows then
    l[#l + 1] = string.format("  double impm[%d];  /* d imp' (as grad.imp) x the masses */", 4 * G.mc * nm)
    l[#l + 1] = string.format("  double zm[%d], Txm[%d], ws[%d];", math.max(nv, G.mc) * nm, 3 * G.mc * nm,
      M.tangent_doubles(nv, G.mc, nm))
  end
  return l
end

local function gradm_type(P, G)
  local l = { "/* The step's Jacobians with respect to the masses (docs/world.md, \"Gradients\"):",
    "   a typed cache entry of its leaf, computed from work and grad */", "typedef struct {" }
  for _, f in ipairs(gradm_fields(G)) do l[#l + 1] = f end
  l[#l + 1] = string.format("} %sgradm;", P)
  return lines(l)
end

-- the same struct as an anonymous C type (testing/step_jacobians.lua)
function M.ffi_struct_m(C)
  return "struct {\n" .. table.concat(gradm_fields(M.sizes(C)), "\n") .. "\n}"
end

local function grad_type(C, P, G)
  local l = {
    "/* The Jacobians of one step of this world (tangent coordinates; docs/world.md,",
    "   \"Gradients\"): a typed cache entry of its leaf, computed from work */",
    "typedef struct {",
  }
  for _, f in ipairs(grad_fields(G)) do l[#l + 1] = f end
  l[#l + 1] = string.format("} %sgrad;", P)
  if G.lt and G.rows then
    -- tp as the looped tangents' PFX_tprim (doubles only: no padding; the
    -- typedef below fails to compile if the sizes ever differ)
    l[#l + 1] = string.format("typedef char %stp_fits[sizeof(%stprim) == sizeof(((%sgrad *)0)->tp) ? 1 : -1];", P, P, P)
    l[#l + 1] = string.format("static inline %stprim *%stp(%sgrad *g) { return (%stprim *)(void *)g->tp; }", P, P, P, P)
  end
  return lines(l)
end

-- the same struct as an anonymous C type, for LuaJIT's ffi.typeof
-- (testing/step_jacobians.lua reads a context's grad entry through it)
function M.ffi_struct(C)
  return "struct {\n" .. table.concat(grad_fields(M.sizes(C)), "\n") .. "\n}"
end

-- whether the mu columns are tracked (g->mu_live): only the pairs in
-- contact have nonzero mu columns, the others are written only to clear them
local function track(G) return G.rows and G.np > 0 end

-- the derivative of v* along every column into g->Tvs (g->Tv: of v)
local function smooth_tangent(C, P, G)
  local nv, ncol = G.nv, G.ncol
  local l = {
    string.format("static inline void %ssmooth_tangent(const double *q, const double *v, const double *effort, "
      .. "const %swork *w, %sgrad *g)", P, P, P),
    "{",
    "  /* a = M^-1 (B u - c - damping): the step's own (w->acc) */",
    string.format("  for (int i = 0; i < %d; i++) g->a[i] = w->acc[i];", nv),
    "  (void)q;",
  }
  local clamp = C.effort_limits.any
  if clamp then
    -- the effort the step used (world/limits.lua); a clamped entry's column is 0
    l[#l + 1] = string.format("  double u[%d];", G.nu)
    l[#l + 1] = string.format("  (void)%seffort_clamp(v, effort, u);", P)
  else
    l[#l + 1] = "  (void)effort;"
  end
  local dt = d(C.time_step)
  local rest = {
    G.lt and G.rows and string.format("  %sd_primal(w->X, w->inertial, %stp(g));\n"
      .. "  %sd_rnea_pre(%stp(g), v, g->a, g->Dq, g->Dv);", P, P, P, P)
      or G.lt and string.format("  %sd_rnea_at(w->X, v, g->a, w->inertial, g->Dq, g->Dv);", P)
      or string.format("  %sd_rnea(q, v, g->a, w->inertial, g->Dq, g->Dv);", P),
    -- the columns of -D and the effort's unit columns into Tvs, solved at
    -- once (0.0 - D: a zero entry +0, so a zero column stays +0); the
    -- rest of Tv and Tvs (the mu columns) is never written: 0 since P_init
    string.format("  for (int i = 0; i < %d; i++) {", nv),
    string.format("    double *r = g->Tvs + i * %d;", ncol),
    -- (entries in pairs, loaded before stored: a compiler may pair them)
    string.format("    for (int k = 0; k < %d; k += 2) {", nv - nv % 2),
    string.format("      const double q0 = g->Dq[i * %d + k], q1 = g->Dq[i * %d + k + 1], v0 = g->Dv[i * %d + k], "
      .. "v1 = g->Dv[i * %d + k + 1];", nv, nv, nv, nv),
    string.format("      r[k] = 0.0 - q0; r[k + 1] = 0.0 - q1; r[%d + k] = 0.0 - v0; r[%d + k + 1] = 0.0 - v1;", nv, nv),
    "    }",
    nv % 2 == 1 and string.format("    r[%d] = 0.0 - g->Dq[i * %d + %d]; r[%d] = 0.0 - g->Dv[i * %d + %d];", nv - 1, nv, nv - 1,
      2 * nv - 1, nv, nv - 1) or false,
    G.nu > 0 and string.format("    for (int k = 0; k < %d; k++) r[%d + k] = 0.0;", G.nu, 2 * nv) or false,
    "  }",
    "@EFFORT@",
    "  int c0 = 0; /* the leading zero columns (a free base's slides) stay 0 */",
    string.format("  for (int any = 0; c0 < %d && !any; c0 += !any)", 2 * nv + G.nu),
    string.format("    for (int i = 0; i < %d && !any; i++) any = g->Tvs[i * %d + c0] != 0.0;", nv, ncol),
    string.format("  %ssolve_cols(w->M, g->Tvs + c0, %d - c0, %d);", P, 2 * nv + G.nu, ncol),
    string.format("  for (int i = 0; i < %d; i++) {", nv),
    string.format("    double *r = g->Tvs + i * %d;", ncol),
    string.format("    for (int c = 0; c < %d; c += 2) { const double a = r[c], b = r[c + 1]; r[c] = %s * a; r[c + 1] = %s * b; }",
      (2 * nv + G.nu) - (2 * nv + G.nu) % 2, dt, dt),
    (2 * nv + G.nu) % 2 == 1 and string.format("    r[%d] = %s * r[%d];", 2 * nv + G.nu - 1, dt, 2 * nv + G.nu - 1) or false,
    string.format("    r[%d + i] += 1.0;", nv),
    string.format("    g->Tv[i * %d + %d + i] = 1.0;", ncol, nv),
    "  }",
  }
  -- the damping d_j v_k (world/rnea.lua's PFX_damping): d_j on Dv's diagonal
  local j, at = 0, 2
  for _, b in ipairs(C.bodies) do
    if b.nq > 0 then
      for k = b.v0, b.v0 + b.nv - 1 do
        table.insert(rest, at, string.format("  g->Dv[%d] += w->damping[%d];", k * nv + k, j))
        at = at + 1
      end
      j = j + 1
    end
  end
  local eff = {}
  for k, a in ipairs(C.actuated) do
    local set = string.format("g->Tvs[%d] = 1.0;", a.dof * ncol + 2 * nv + k - 1)
    -- a clamped entry's column stays 0
    eff[#eff + 1] = clamp and C.effort_limits[k] and string.format("  if (u[%d] == effort[%d]) %s", k - 1, k - 1, set)
      or "  " .. set
  end
  for _, x in ipairs(rest) do
    if x == "@EFFORT@" then
      for _, e in ipairs(eff) do l[#l + 1] = e end
    elseif x then
      l[#l + 1] = x
    end
  end
  l[#l + 1] = "}"
  return lines(l)
end

-- the moving bodies (1-based) and their trees, in the order of the
-- parameter mass
local function moving_bodies(C)
  local f = require("diagc.world.dynamics").facts(C)
  local body, tree = {}, {}
  for i = 1, f.nb do
    if #f.chain[i] > 0 then body[#body + 1], tree[#tree + 1] = i, f.tree_id[i] end
  end
  return body, tree
end

-- P_mass_com(w, g, j): the point Jacobian of moving body j's centre of
-- mass on its tree's dofs into g->Jc; returns the tree's first entry in
-- tree_dofs and sets *n to its dofs.  P_mass_tangent: d v*/d m into g->Tvm
local function mass_tangent(C, P, G)
  local nv, nm, W = G.nv, G.nm, G.width
  local body, tree = moving_bodies(C)
  local bl, tl = {}, {}
  for j = 1, nm do bl[j], tl[j] = tostring(body[j]), tostring(tree[j]) end
  local dt = d(C.time_step)
  return lines({
    "/* the moving bodies (1-based) and their trees, in the order of the parameter mass */",
    string.format("static const int %smass_body[%d] = {%s};", P, nm, table.concat(bl, ", ")),
    string.format("static const int %smass_tree[%d] = {%s};", P, nm, table.concat(tl, ", ")),
    "",
    string.format("static inline int %smass_com(const double *q, const %swork *w, %sgradm *g, int j, int *n)", P, P, P),
    "{",
    string.format("  const double *X = w->X + 12 * (%smass_body[j] - 1), *c = w->inertial + 10 * j + 1;", P),
    "  double p[3];",
    "  for (int r = 0; r < 3; r++) p[r] = X[9 + r] + X[3 * r] * c[0] + X[3 * r + 1] * c[1] + X[3 * r + 2] * c[2];",
    string.format("  %spoint_jacobian_tree(%smass_body[j], q, w->X, p, g->Jc);", P, P),
    string.format("  *n = %stree_dof0[%smass_tree[j] + 1] - %stree_dof0[%smass_tree[j]];", P, P, P, P),
    string.format("  return %stree_dof0[%smass_tree[j]];", P, P),
    "}",
    "",
    "/* d v* / d m_j = -dt M^-1 (J_j^T J_j a + c_j) for each moving body j (ga->a: M^-1 (tau - c)) */",
    string.format("static inline void %smass_tangent(const double *q, const double *v, const %swork *w, const %sgrad *ga, "
      .. "%sgradm *g)", P, P, P, P),
    "{",
    string.format("  for (int i = 0; i < %d; i++) g->mi[i] = 0.0;", 10 * nm),
    string.format("  for (int j = 0; j < %d; j++) {", nm),
    "    int n, t0;",
    "    double s[3] = { 0.0, 0.0, 0.0 };",
    "    g->mi[10 * j] = 1.0;",
    "    for (int r = 1; r < 4; r++) g->mi[10 * j + r] = w->inertial[10 * j + r];",
    string.format("    %sbias(q, v, w->X, g->mi, g->bm);", P),
    "    for (int r = 0; r < 4; r++) g->mi[10 * j + r] = 0.0;",
    string.format("    t0 = %smass_com(q, w, g, j, &n);", P),
    "    for (int r = 0; r < 3; r++)",
    string.format("      for (int c = 0; c < n; c++) s[r] += g->Jc[r * %d + c] * ga->a[%stree_dofs[t0 + c]];", W, P),
    string.format("    for (int i = 0; i < %d; i++) g->col[i] = -g->bm[i];", nv),
    "    for (int c = 0; c < n; c++)",
    string.format("      g->col[%stree_dofs[t0 + c]] -= g->Jc[c] * s[0] + g->Jc[%d + c] * s[1] + g->Jc[%d + c] * s[2];",
      P, W, 2 * W),
    string.format("    %ssolve(w->M, g->col);", P),
    string.format("    for (int i = 0; i < %d; i++) g->Tvm[i * %d + j] = %s * g->col[i];", nv, nm, dt),
    "  }",
    "}",
  })
end

-- the operators of the masses' contact step (P_mass_contact): J does not
-- move with a mass, M does: d(M y)/d m_j = J_j^T J_j y
local function mass_ops(C, P, G)
  local nv, nm, W = G.nv, G.nm, G.width
  return lines({
    string.format("typedef struct { const double *q; const %swork *w; %sgradm *g; int nc; } %smctx;", P, P, P),
    "",
    string.format("static void %sopm_dJy(void *ctx, const double *y, double *out)", P),
    "{",
    string.format("  const %smctx *x = (const %smctx *)ctx;", P, P),
    "  (void)y;",
    string.format("  for (int i = 0; i < 3 * x->nc * %d; i++) out[i] = 0.0;", nm),
    "}",
    "",
    string.format("static void %sopm_dJTx(void *ctx, const double *xi, double *out)", P),
    "{",
    "  (void)ctx;",
    "  (void)xi;",
    string.format("  for (int i = 0; i < %d; i++) out[i] = 0.0;", nv * nm),
    "}",
    "",
    string.format("static void %sopm_dMy(void *ctx, const double *y, double *out)", P),
    "{",
    string.format("  const %smctx *x = (const %smctx *)ctx;", P, P),
    string.format("  for (int i = 0; i < %d; i++) out[i] = 0.0;", nv * nm),
    string.format("  for (int j = 0; j < %d; j++) {", nm),
    "    int n;",
    string.format("    const int t0 = %smass_com(x->q, x->w, x->g, j, &n);", P),
    "    const double *J = x->g->Jc;",
    "    double s[3] = { 0.0, 0.0, 0.0 };",
    "    for (int r = 0; r < 3; r++)",
    string.format("      for (int c = 0; c < n; c++) s[r] += J[r * %d + c] * y[%stree_dofs[t0 + c]];", W, P),
    "    for (int c = 0; c < n; c++)",
    string.format("      out[%stree_dofs[t0 + c] * %d + j] = J[c] * s[0] + J[%d + c] * s[1] + J[%d + c] * s[2];", P,
      nm, W, 2 * W),
    "  }",
    "}",
    "",
    string.format("static void %sopm_solve(void *ctx, double *xv)", P),
    "{",
    string.format("  const %smctx *x = (const %smctx *)ctx;", P, P),
    string.format("  %ssolve(x->w->M, xv);", P),
    "}",
    "",
    string.format("static void %sopm_solve_cols(void *ctx, double *X, int ncol, int ld)", P),
    "{",
    string.format("  const %smctx *x = (const %smctx *)ctx;", P, P),
    string.format("  %ssolve_cols(x->w->M, X, ncol, ld);", P),
    "}",
    "",
    "/* the masses' columns through the contact step: the runtime's linearized step once more, on",
    "   them alone (the same problem and solution, so the same decisions) */",
    string.format("static inline int %smass_contact(const double *q, const double *v, const %swork *w, const %sgrad *ga, "
      .. "%sgradm *g, int nc)", P, P, P, P),
    "{",
    string.format("  %smctx x;", P),
    "  diagc_step_ops ops;",
    "  diagc_contact_tangent t;",
    "  diagc_contact_problem pr;",
    "  diagc_contact_options op;",
    string.format("  %sproblem(v, w, nc, &pr, &op);", P),
    "  pr.J = ga->Jd; pr.MinvJT = ga->MJd; pr.Jc = NULL; pr.MJc = NULL;",
    "  x.q = q; x.w = w; x.g = g; x.nc = nc;",
    string.format("  ops.ctx = &x; ops.dJy = %sopm_dJy; ops.dJTx = %sopm_dJTx; ops.dMy = %sopm_dMy; "
      .. "ops.solve = %sopm_solve; ops.solve_cols = %sopm_solve_cols;", P, P, P, P, P),
    string.format("  for (int i = 0; i < %d; i++) g->zm[i] = 0.0;", math.max(nv, G.mc) * nm),
    string.format("  t.ncol = %d; t.nq = %d; t.Tv = g->zm; t.Tvstar = g->Tvm; t.Tdepth = g->zm; t.mu_col = NULL;", nm, nm),
    string.format("  t.Tv_next = g->Tm + %d; t.Tx = g->Txm; t.cls = NULL; t.bounce = NULL; t.target = NULL;", nv * nm),
    "  int rc = diagc_contact_tangent_solve(&pr, &op, w->x, w->v_next, &ops, &t, g->ws, sizeof g->ws);",
    "  if (rc != 0) return rc;",
    string.format("  for (int i = 0; i < %d; i++) g->impm[i] = 0.0;", 4 * G.mc * nm),
    "  for (int i = 0; i < 3 * nc; i++)",
    string.format("    for (int c = 0; c < %d; c++) g->impm[(4 * (i / 3) + 1 + i %% 3) * %d + c] = g->Txm[i * %d + c];",
      nm, nm, nm),
    "  return 0;",
    "}",
  })
end

-- the joints' rotational dof groups (0-based first dof), for the position update
local function rotations(C)
  local facts = require("diagc.world.dynamics").facts(C)
  local rot = {}
  for i, b in ipairs(C.bodies) do
    local t = b.joint.type
    if t == "ball" then rot[#rot + 1] = facts.v0[i]
    elseif t == "free" then rot[#rot + 1] = facts.v0[i] + 3 end
  end
  return rot
end

-- q' = q (+) dt u (u = v or v'): d q' into the first nv rows of g->T,
-- given Tu (the derivative of u, nv x ncol) and u
local function position_tangent(C, P, G)
  local nv, ncol = G.nv, G.ncol
  local dt = d(C.time_step)
  -- tracked: the columns before the mu ones, then the mu columns cl
  -- (pairs) alone; the others are 0 in Tu and in T
  local nf = track(G) and 2 * nv + G.nu or ncol
  local l = {
    track(G) and string.format("static inline void %sposition_tangent(const double *u, const double *Tu, %sgrad *g, "
      .. "const int *cl, int ncl)", P, P)
      or string.format("static inline void %sposition_tangent(const double *u, const double *Tu, %sgrad *g)", P, P),
    "{",
    string.format("  for (int i = 0; i < %d; i++) {", nv),
    -- two columns at a time, both loaded before either is stored (Tu is
    -- another part of T or g->Tv: a compiler may then pair them)
    string.format("    for (int c = 0; c < %d; c += 2) {", nf - nf % 2),
    string.format("      const double u0 = Tu[i * %d + c], u1 = Tu[i * %d + c + 1];", ncol, ncol),
    string.format("      g->T[i * %d + c] = 0.0 + %s * u0;", ncol, dt),
    string.format("      g->T[i * %d + c + 1] = 0.0 + %s * u1;", ncol, dt),
    "    }",
    nf % 2 == 1 and string.format("    g->T[i * %d + %d] = 0.0 + %s * Tu[i * %d + %d];", ncol, nf - 1, dt, ncol, nf - 1)
      or false,
    string.format("    g->T[i * %d] = 1.0 + %s * Tu[i * %d];", ncol + 1, dt, ncol + 1),
    track(G) and string.format("    for (int k = 0; k < ncl; k++) { const int c = %d + cl[k]; "
      .. "g->T[i * %d + c] = 0.0 + %s * Tu[i * %d + c]; }", nf, ncol, dt, ncol) or false,
    "  }",
  }
  local rot = rotations(C)
  if #rot == 0 then l[#l + 1] = "  (void)u;" end
  for _, r in ipairs(rot) do
    l[#l + 1] = track(G) and string.format("  %sso3_rows(u + %d, %d, Tu, g->T, %d, %d, cl, ncl, 1);", P, r, r, ncol, nf)
      or string.format("  %sso3_rows(u + %d, %d, Tu, g->T, %d, %d, NULL, 0, 1);", P, r, r, ncol, ncol)
  end
  if #rot == 0 and track(G) then l[#l + 1] = "  (void)cl;\n  (void)ncl;" end
  l[#l + 1] = "}"
  -- the masses' columns (Tm): no identity, stride nm
  local nm = G.nm
  l[#l + 1] = ""
  l[#l + 1] = string.format("static inline void %sposition_tangent_m(const double *u, const double *Tu, %sgradm *g)", P, P)
  l[#l + 1] = "{"
  l[#l + 1] = string.format("  for (int i = 0; i < %d; i++) g->Tm[i] = %s * Tu[i];", nv * nm, dt)
  if #rot == 0 then l[#l + 1] = "  (void)u;" end
  for _, r in ipairs(rot) do
    l[#l + 1] = string.format("  %sso3_rows(u + %d, %d, Tu, g->Tm, %d, %d, NULL, 0, 0);", P, r, r, nm, nm)
  end
  l[#l + 1] = "}"
  for i = #l, 1, -1 do if not l[i] then table.remove(l, i) end end
  if #rot == 0 then return lines(l) end
  local so3 = {
    "/* rows r..r+2 of dq' for a rotation q' = q exp(phi), phi = dt u[0..2]:",
    "   R(phi)^T on dq, the right Jacobian Jr(phi) on d phi; columns 0 .. nf - 1 and nf + cl[k] */",
    string.format("static inline void %sso3_rows(const double *w, int r, const double *Tu, double *T, int ncol, int nf, "
      .. "const int *cl, int ncl, int ident)", P),
    "{",
    string.format("  const double p[3] = { %s * w[0], %s * w[1], %s * w[2] };", dt, dt, dt),
    "  const double th2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2], th = sqrt(th2);",
    "  const double A = th2 < 1e-8 ? 1.0 - th2 / 6.0 : sin(th) / th;",
    "  const double Bc = th2 < 1e-8 ? 0.5 - th2 / 24.0 : (1.0 - cos(th)) / th2;",
    "  const double Cc = th2 < 1e-8 ? 1.0 / 6.0 - th2 / 120.0 : (th - sin(th)) / (th2 * th);",
    "  const double K[9] = { 0.0, -p[2], p[1], p[2], 0.0, -p[0], -p[1], p[0], 0.0 };",
    "  double K2[9], R[9], Jr[9];",
    "  for (int i = 0; i < 3; i++)",
    "    for (int j = 0; j < 3; j++)",
    "      K2[3 * i + j] = K[3 * i] * K[j] + K[3 * i + 1] * K[3 + j] + K[3 * i + 2] * K[6 + j];",
    "  for (int i = 0; i < 9; i++) {",
    "    const double I = (i % 4 == 0) ? 1.0 : 0.0;",
    "    R[i] = I + A * K[i] + Bc * K2[i];",
    "    Jr[i] = I - Bc * K[i] + Cc * K2[i];",
    "  }",
    "  for (int k = 0; k < nf + ncl; k++) {",
    "    const int c = k < nf ? k : nf + cl[k - nf];",
    "    const double t0 = Tu[r * ncol + c], t1 = Tu[(r + 1) * ncol + c], t2 = Tu[(r + 2) * ncol + c];",
    string.format("    for (int i = 0; i < 3; i++) T[(r + i) * ncol + c] = %s * (Jr[3 * i] * t0 + Jr[3 * i + 1] * t1 + Jr[3 * i + 2] * t2);",
      dt),
    "  }",
    "  if (ident)",
    "    for (int i = 0; i < 3; i++)",
    "      for (int j = 0; j < 3; j++) T[(r + i) * ncol + r + j] += R[3 * j + i];",
    "}",
  }
  return lines(so3) .. "\n\n" .. lines(l)
end

-- the blocks of g->T into the named Jacobians
local function split(C, P, G)
  local nv, ncol, nu = G.nv, G.ncol, G.nu
  local l = {
    string.format("static inline void %sgrad_split(%sgrad *g)", P, P),
    "{",
    string.format("  for (int i = 0; i < %d; i++) {", nv),
    string.format("    const double *tq = g->T + i * %d, *tv = g->T + (%d + i) * %d;", ncol, nv, ncol),
    string.format("    for (int j = 0; j < %d; j++) {", nv),
    string.format("      g->pos_pos[i * %d + j] = tq[j]; g->vel_pos[i * %d + j] = tq[%d + j];", nv, nv, nv),
    string.format("      g->pos_vel[i * %d + j] = tv[j]; g->vel_vel[i * %d + j] = tv[%d + j];", nv, nv, nv),
    "    }",
  }
  if nu > 0 then
    l[#l + 1] = string.format("    for (int j = 0; j < %d; j++) { g->force_pos[i * %d + j] = tq[%d + j]; "
      .. "g->force_vel[i * %d + j] = tv[%d + j]; }", nu, nu, 2 * nv, nu, 2 * nv)
  end
  if track(G) then
    l[1] = string.format("static inline void %sgrad_split(%sgrad *g, const int *cl, int ncl)", P, P)
    l[#l + 1] = string.format("    for (int k = 0; k < ncl; k++) { const int j = cl[k]; g->mu_pos[i * %d + j] = tq[%d + j]; "
      .. "g->mu_vel[i * %d + j] = tv[%d + j]; }", G.np, 2 * nv + nu, G.np, 2 * nv + nu)
  elseif G.np > 0 then
    l[#l + 1] = string.format("    for (int j = 0; j < %d; j++) { g->mu_pos[i * %d + j] = tq[%d + j]; "
      .. "g->mu_vel[i * %d + j] = tv[%d + j]; }", G.np, G.np, 2 * nv + nu, G.np, 2 * nv + nu)
  end
  l[#l + 1] = "  }"
  if nu == 0 then l[#l + 1] = "  g->force_pos[0] = g->force_vel[0] = 0.0;" end
  l[#l + 1] = "}"
  return lines(l)
end

-- zeroes the rows of g->imp the last call set (a context starts zeroed:
-- P_init; clones copy the count with the rows; an entry's key row, 1 +
-- slot, is never set: its derivative is 0)
local function imp_clear(P, G)
  if track(G) then
    -- their columns before the mu ones and the mu columns of g->mu_live
    local nf = 2 * G.nv + G.nu
    return lines({
      string.format("static inline void %simp_clear(%sgrad *g)", P, P),
      "{",
      "  for (int i = 0; i < 3 * g->imp_n; i++) {",
      string.format("    double *r = g->imp + (4 * (i / 3) + 1 + i %% 3) * %d;", G.ncol),
      string.format("    for (int c = 0; c < %d; c++) r[c] = 0.0;", nf),
      string.format("    for (int k = 0; k < g->mu_n; k++) r[%d + g->mu_live[k]] = 0.0;", nf),
      "  }",
      "  g->imp_n = 0;",
      "}",
    })
  end
  return lines({
    string.format("static inline void %simp_clear(%sgrad *g)", P, P),
    "{",
    "  for (int i = 0; i < g->imp_n; i++)",
    string.format("    for (int k = 0; k < %d; k++) g->imp[(4 * i + 1) * %d + k] = 0.0;", 3 * G.ncol, G.ncol),
    "  g->imp_n = 0;",
    "}",
  })
end

-- whether the position rows take DiffDART's bounce factor B (the
-- parallel update with bounce_gradient = "approximate")
function M.bounce_factor(C)
  return C.position_update == "parallel" and C.settings.bounce_gradient == "approximate"
end

-- the contact part: geometry, the linearized solve, B
local function contact_tangent(C, P, G)
  local nv, ncol = G.nv, G.ncol
  local l = {
    string.format("static inline int %scontact_tangent(const double *q, const double *v, const %swork *w, %sgrad *g)",
      P, P, P),
    "{",
    "  int nc = (int)w->info[0];",
    string.format("  %sgctx x;", P),
    "  diagc_step_ops ops;",
    "  diagc_contact_problem pr;",
    "  diagc_contact_options op;",
    "  diagc_contact_tangent t;",
    G.nlim > 0 and "  int ncc = nc - w->nlim;" or false,
    G.nlim > 0 and "  x.q = q; x.w = w; x.g = g; x.nc = ncc; x.nall = nc;" or "  x.q = q; x.w = w; x.g = g; x.nc = nc;",
    string.format("  ops.ctx = &x; ops.dJy = %sop_dJy; ops.dJTx = %sop_dJTx; ops.dMy = %sop_dMy; ops.solve = %sop_solve;"
      .. " ops.solve_cols = %sop_solve_cols;", P, P, P, P, P),
    G.np > 0 and string.format("  int kinks = %sgeometry(q, w, g, %s);", P, G.nlim > 0 and "ncc" or "nc")
      or string.format("  int kinks = 0;\n  for (int i = 0; i < nc * %d; i++) g->Tdepth[i] = 0.0;", ncol),
    "  if (kinks < 0) return kinks;",
    G.nlim > 0 and limits.emit_tdepth(C, P, ncol) or false,
    string.format("  %sproblem(v, w, nc, &pr, &op);", P),
    string.format("  %sdensify(w, nc, g->Jd, g->MJd);", P),
    "  pr.J = g->Jd; pr.MinvJT = g->MJd; pr.Jc = NULL; pr.MJc = NULL;",
    "  for (int i = 0; i < nc; i++)",
    G.nlim > 0 and string.format("    g->mu_col[i] = i < ncc ? %d + w->pair[i] : -1;", 2 * nv + G.nu)
      or string.format("    g->mu_col[i] = %d + w->pair[i];", 2 * nv + G.nu),
    string.format("  t.ncol = %d; t.nq = %d; t.Tv = g->Tv; t.Tvstar = g->Tvs; t.Tdepth = g->Tdepth; t.mu_col = g->mu_col;",
      ncol, nv),
    string.format("  t.Tv_next = g->T + %d; t.Tx = g->Tx; t.cls = g->cls; t.bounce = g->bounce; t.target = g->target;", nv * ncol),
    "  int rc = diagc_contact_tangent_solve(&pr, &op, w->x, w->v_next, &ops, &t, g->ws, sizeof g->ws);",
    "  if (rc != 0) return rc;",
    "  g->clamped = t.clamped; g->rank = t.rank; g->kinks = kinks + t.kinks;",
    "  g->bounces = 0;",
    "  /* the mode beyond the classes: a normal row's impulse exactly 0 or not; the side of a friction bound */",
    "  for (int i = 0; i < 3 * nc; i++)",
    "    g->active[i] = i % 3 == 0 ? w->x[i] != 0.0 : g->cls[i] == DIAGC_ROW_UPPER_BOUND ? (w->x[i] > 0.0 ? 1 : -1) : 0;",
    "  for (int i = 0; i < nc; i++) g->bounces += g->bounce[i];",
    string.format("  %simp_clear(g);", P),
    track(G) and lines({
      "  for (int i = 0; i < 3 * nc; i++) {",
      string.format("    double *r = g->imp + (4 * (i / 3) + 1 + i %% 3) * %d;", ncol),
      string.format("    const double *s = g->Tx + i * %d;", ncol),
      string.format("    for (int c = 0; c < %d; c += 2) { const double a = s[c], b = s[c + 1]; r[c] = a; r[c + 1] = b; }",
        (2 * nv + G.nu) - (2 * nv + G.nu) % 2),
      (2 * nv + G.nu) % 2 == 1 and string.format("    r[%d] = s[%d];", 2 * nv + G.nu - 1, 2 * nv + G.nu - 1) or false,
      "    for (int k = 0; k < nc; k++) if (g->mu_col[k] >= 0) r[g->mu_col[k]] = s[g->mu_col[k]];",
      "  }",
    }) or lines({
      "  for (int i = 0; i < 3 * nc; i++)",
      string.format("    for (int c = 0; c < %d; c++) g->imp[(4 * (i / 3) + 1 + i %% 3) * %d + c] = g->Tx[i * %d + c];",
        ncol, ncol, ncol) }),
    "  g->imp_n = nc;",
    "  return 0;",
    "}",
  }
  local b = {
    "/* DiffDART's bounce factor on the position update's q and v columns */",
    string.format("static inline int %sbounce(const %swork *w, %sgrad *g)", P, P, P),
    "{",
    "  int m = 0, nc = (int)w->info[0];",
    "  for (int i = 0; i < nc; i++) {",
    "    if (!g->bounce[i]) continue;",
    string.format("    for (int j = 0; j < %d; j++) g->Brows[m * %d + j] = g->Jd[3 * i * %d + j];", nv, nv, nv),
    "    g->Be[m++] = w->e[i];",
    "  }",
    "  if (m == 0) return 0;",
    string.format("  int rc = diagc_bounce_matrix(%d, m, g->Brows, g->Be, g->B, g->Bws);", nv),
    "  if (rc != 0) return rc;",
    string.format("  for (int i = 0; i < %d; i++) {", nv),
    string.format("    double r[%d];", 2 * nv),
    string.format("    for (int j = 0; j < %d; j++) {", 2 * nv),
    string.format("      int o = j < %d ? 0 : %d, k = j - o;", nv, nv),
    "      double s = 0.0;",
    string.format("      for (int k2 = 0; k2 < %d; k2++) s += g->T[i * %d + o + k2] * g->B[k2 * %d + k];", nv, ncol, nv),
    "      r[j] = s;",
    "    }",
    string.format("    for (int j = 0; j < %d; j++) g->T[i * %d + j] = r[j];", 2 * nv, ncol),
    "  }",
    "  return 0;",
    "}",
  }
  local out = lines(l)
  if M.bounce_factor(C) then out = out .. "\n\n" .. lines(b) end
  return out
end

local function step_jacobians(C, P, G)
  local nv, ncol = G.nv, G.ncol
  local parallel = C.position_update == "parallel"
  local l = {
    "/* The step's Jacobians at the snapshot in w (the step computed from q, v, effort):",
    "   g->status 0, the runtime's failure code, or DIAGC_SIM_E_NONFINITE when q, v or",
    "   effort hold NaN or infinity (x - x is then not 0) */",
    string.format("static inline void %sstep_jacobians(const double *q, const double *v, const double *effort, "
      .. "const %swork *w, %sgrad *g)", P, P, P),
    "{",
    "  g->status = w->status; g->contacts = 0; g->clamped = g->rank = g->kinks = g->bounces = 0;",
    "  if (w->status != 0) return;",
  }
  for _, a in ipairs({ { "q", C.nq }, { "v", C.nv }, { "effort", G.nu } }) do
    if a[2] > 0 then
      l[#l + 1] = string.format("  for (int i = 0; i < %d; i++) if (!(%s[i] - %s[i] == 0.0)) g->status = "
        .. "DIAGC_SIM_E_NONFINITE;", a[2], a[1], a[1])
    end
  end
  for _, x in ipairs({
    "  if (g->status != 0) return;",
    string.format("  %ssmooth_tangent(q, v, effort, w, g);", P),
  }) do l[#l + 1] = x end
  local tr = track(G)
  if tr then
    -- the pairs whose mu columns may be nonzero: the last call's (g->mu_live,
    -- to clear) and this step's contacts'; g->mu_live covers both until
    -- they are written, then this step's alone
    l[#l + 1] = string.format("  int cl[%d], ncl = 0, now[%d], nnow = 0;", G.np, G.np)
    l[#l + 1] = string.format("  unsigned char seen[%d] = { 0 };", G.np)
    l[#l + 1] = "  for (int k = 0; k < g->mu_n; k++) { seen[g->mu_live[k]] = 1; cl[ncl++] = g->mu_live[k]; }"
  end
  if G.rows then
    l[#l + 1] = "  g->contacts = (int)w->info[0];"
    l[#l + 1] = "  if (g->contacts > 0) {"
    l[#l + 1] = string.format("    g->status = %scontact_tangent(q, v, w, g);", P)
    l[#l + 1] = "    if (g->status != 0) return;"
    if tr then
      l[#l + 1] = string.format("    for (int i = 0; i < g->contacts; i++) {")
      l[#l + 1] = string.format("      const int j = g->mu_col[i] - %d;", 2 * nv + G.nu)
      l[#l + 1] = "      if (j < 0) continue;"
      l[#l + 1] = "      if (seen[j] != 2) { if (!seen[j]) cl[ncl++] = j; seen[j] = 2; now[nnow++] = j; }"
      l[#l + 1] = "    }"
      l[#l + 1] = "    g->mu_n = ncl;"
      l[#l + 1] = "    for (int k = 0; k < ncl; k++) g->mu_live[k] = cl[k];"
    end
    l[#l + 1] = "  } else {"
    l[#l + 1] = string.format("    for (int i = 0; i < %d; i++) g->T[%d + i] = g->Tvs[i];", nv * ncol, nv * ncol)
    l[#l + 1] = string.format("    %simp_clear(g);", P)
    l[#l + 1] = "  }"
  else
    l[#l + 1] = string.format("  for (int i = 0; i < %d; i++) g->T[%d + i] = g->Tvs[i];", nv * ncol, nv * ncol)
  end
  if parallel then
    l[#l + 1] = string.format("  %sposition_tangent(v, g->Tv, g%s);", P, tr and ", cl, ncl" or "")
    if G.rows and M.bounce_factor(C) then
      l[#l + 1] = string.format("  if (g->bounces > 0 && (g->status = %sbounce(w, g)) != 0) return;", P)
    end
  else
    l[#l + 1] = string.format("  %sposition_tangent(w->v_next, g->T + %d, g%s);", P, nv * ncol, tr and ", cl, ncl" or "")
  end
  l[#l + 1] = string.format("  %sgrad_split(g%s);", P, tr and ", cl, ncl" or "")
  if tr then
    l[#l + 1] = "  g->mu_n = nnow;"
    l[#l + 1] = "  for (int k = 0; k < nnow; k++) g->mu_live[k] = now[k];"
  end
  l[#l + 1] = "}"
  return lines(l)
end

-- P_mass_jacobians: the grad_mass entry (grad's snapshot read, not changed)
local function mass_jacobians(C, P, G)
  local nv, nm = G.nv, G.nm
  local l = {
    "/* The step's Jacobians with respect to the masses at the snapshot in w and its Jacobians g */",
    string.format("static inline void %smass_jacobians(const double *q, const double *v, const %swork *w, "
      .. "const %sgrad *ga, %sgradm *g)", P, P, P, P),
    "{",
    "  g->status = ga->status;",
    "  if (g->status != 0) return;",
    string.format("  %smass_tangent(q, v, w, ga, g);", P),
  }
  local copy = string.format("for (int i = 0; i < %d; i++) g->Tm[%d + i] = g->Tvm[i];", nv * nm, nv * nm)
  if G.rows then
    l[#l + 1] = "  if (ga->contacts > 0) {"
    l[#l + 1] = string.format("    if ((g->status = %smass_contact(q, v, w, ga, g, ga->contacts)) != 0) return;", P)
    l[#l + 1] = "  } else {"
    l[#l + 1] = "    " .. copy
    l[#l + 1] = string.format("    for (int i = 0; i < %d; i++) g->impm[i] = 0.0;", 4 * G.mc * nm)
    l[#l + 1] = "  }"
  else
    l[#l + 1] = "  " .. copy
  end
  if C.position_update == "parallel" then
    -- q' = q (+) dt v: no mass moves it
    l[#l + 1] = string.format("  for (int i = 0; i < %d; i++) g->Tm[i] = 0.0;", nv * nm)
  else
    l[#l + 1] = string.format("  %sposition_tangent_m(w->v_next, g->Tm + %d, g);", P, nv * nm)
  end
  l[#l + 1] = "}"
  return lines(l)
end

-- the contact component of every dof (0-based): its tree's, trees joined
-- through candidate pairs (union-find), and of every pair; -1: welded
local function components(C)
  local f = require("diagc.world.dynamics").facts(C)
  local parent = {}
  local function find(t)
    while parent[t] and parent[t] ~= t do t = parent[t] end
    return t
  end
  for t = 0, f.ntrees - 1 do parent[t] = t end
  local function tree_of(shape) return f.tree_id[C.shapes[shape].body] or -1 end
  for _, p in ipairs(C.pairs) do
    local a, b = tree_of(p.a), tree_of(p.b)
    if a >= 0 and b >= 0 then
      local ra, rb = find(a), find(b)
      if ra ~= rb then parent[math.max(ra, rb)] = math.min(ra, rb) end
    end
  end
  local dof, pair = {}, {}
  for k = 0, C.nv - 1 do dof[k] = find(f.tree_id[f.dof_body[k]]) end
  for i, p in ipairs(C.pairs) do
    local a, b = tree_of(p.a), tree_of(p.b)
    pair[i] = find(a >= 0 and a or b)
  end
  return dof, pair
end

-- the structural nonzeros of T (rows q', v'; columns dq, dv, effort,
-- mu): a dof moves only with the dofs of its component (its tree and the
-- trees it can touch through candidate pairs), as CasADi-style CSC
-- {nrow, ncol, colptr..., rowind...}
-- the component of each column (0-based c) and each dof's
local function column_components(C)
  local G = M.sizes(C)
  local dof, pair = components(C)
  local nv = C.nv
  local function col_comp(c)
    if c < 2 * nv then return dof[c % nv] end
    if c < 2 * nv + G.nu then return dof[C.actuated[c - 2 * nv + 1].dof] end
    return pair[c - 2 * nv - G.nu + 1]
  end
  return G, dof, col_comp
end

function M.sparsity(C)
  local G, dof, col_comp = column_components(C)
  local nv = C.nv
  local colptr, rowind = { 0 }, {}
  for c = 0, G.ncol - 1 do
    local cc = col_comp(c)
    for r = 0, 2 * nv - 1 do
      if dof[r % nv] == cc then rowind[#rowind + 1] = r end
    end
    colptr[#colptr + 1] = #rowind
  end
  local all = { 2 * nv, G.ncol }
  for _, x in ipairs(colptr) do all[#all + 1] = x end
  for _, x in ipairs(rowind) do all[#all + 1] = x end
  return all, #rowind
end

-- the number of structural nonzeros of T and its columns, without listing
-- them: every column holds both rows (q', v') of each dof of its component
function M.nnz(C)
  local G = M.sizes(C)
  local dof, pair = components(C)
  local per = {}
  for k = 0, C.nv - 1 do per[dof[k]] = (per[dof[k]] or 0) + 1 end
  local nnz = 0
  for k = 0, C.nv - 1 do nnz = nnz + 2 * 2 * per[dof[k]] end -- the dq and dv columns of dof k
  for _, a in ipairs(C.actuated) do nnz = nnz + 2 * per[dof[a.dof]] end
  for i = 1, G.np do nnz = nnz + 2 * (per[pair[i]] or 0) end
  return nnz, G.ncol
end

-- bytes of the grad entry (after world/step.lua's layout)
function M.struct_bytes(C)
  local G = M.sizes(C)
  return require("diagc.world.size").decl_bytes("\n" .. table.concat(grad_fields(G), "\n"))
    + require("diagc.world.size").decl_bytes("\n" .. table.concat(gradm_fields(G), "\n"))
end

-- The table's text: every column of a component has the same rows, so a
-- component's row list, when long, is written once as a macro (undefined
-- after the table) and named by each of its columns; the array is the
-- same (a stack of 50 cubes: 1.1 million entries, 5.4 MB of text as
-- literals, 20 kB so).
local function sparsity_table(C, P)
  local G, dof, col_comp = column_components(C)
  local nv, ncol = C.nv, G.ncol
  local rows_of, count = {}, {} -- each component's rows, as text, and their number
  local head, cols, nnz = { tostring(2 * nv), tostring(ncol), "0" }, {}, 0
  local macros, defs = {}, {}
  for c = 0, ncol - 1 do
    local cc = col_comp(c)
    if not rows_of[cc] then
      local rows = {}
      for r = 0, 2 * nv - 1 do
        if dof[r % nv] == cc then rows[#rows + 1] = tostring(r) end
      end
      rows_of[cc], count[cc] = table.concat(rows, ", "), #rows
    end
    local text = rows_of[cc]
    if count[cc] > 16 then
      if not macros[cc] then
        macros[cc] = string.format("%sGRAD_ROWS%d", P:upper(), #defs)
        defs[#defs + 1] = { macros[cc], text }
      end
      text = macros[cc]
    end
    if text ~= "" then cols[#cols + 1] = text end
    nnz = nnz + count[cc]
    head[#head + 1] = tostring(nnz)
  end
  local total = #head + nnz
  local out = {
    "/* the structural nonzeros of grad.T (CSC: nrow, ncol, colptr, rowind): a dof moves only",
    "   with the dofs of the trees it can touch through candidate pairs */",
    string.format("enum { %sGRAD_NNZ = %d };", P:upper(), nnz),
  }
  for _, d in ipairs(defs) do out[#out + 1] = string.format("#define %s %s", d[1], d[2]) end
  local items = table.concat(head, ", ") .. (#cols > 0 and (", " .. table.concat(cols, ", ")) or "")
  out[#out + 1] = string.format("static const int %sgrad_sparsity[%d] = {%s};", P, total, items)
  for _, d in ipairs(defs) do out[#out + 1] = "#undef " .. d[1] end
  return table.concat(out, "\n")
end

-- The C of the step's Jacobians (after world/step.lua's and world/tangent.lua's)
function M.emit(C, P)
  local G = M.sizes(C)
  local parts = { grad_type(C, P, G), gradm_type(P, G), sparsity_table(C, P), smooth_tangent(C, P, G),
    mass_tangent(C, P, G), position_tangent(C, P, G), split(C, P, G) }
  if G.rows then
    parts[#parts + 1] = imp_clear(P, G)
    parts[#parts + 1] = G.np > 0 and emit_ops.emit(C, P, G) or limits.emit_ops(C, P, G)
    parts[#parts + 1] = mass_ops(C, P, G)
    parts[#parts + 1] = contact_tangent(C, P, G)
  end
  parts[#parts + 1] = step_jacobians(C, P, G)
  parts[#parts + 1] = mass_jacobians(C, P, G)
  parts[#parts + 1] = require("diagc.world.grad_coords").emit(C, P, G)
  return table.concat(parts, "\n\n") .. "\n"
end

-- are the world's tangents looped (world/tangent_looped.lua)?
function M.looped_tangents(C)
  return require("diagc.world.dynamics").mode(C, nil, "tangents") == "looped"
end

-- the tangent.lua functions the Jacobians call: when the tangents are
-- looped, at the step's poses (the _at forms: no kinematics of their own),
-- the bodies' Jacobians from the motion columns (bjac) and the velocity
-- derivatives of the contacts' bodies only (bvel_at); else from
-- d_kinematics and d_bvel (world/grad_ops.lua)
function M.tangent_functions(C)
  local lt = M.looped_tangents(C)
  if #C.pairs > 0 then
    if lt then return { "primal", "bjac_pre", "rnea_pre", "mvec_pre", "bvel_pre", "gforce_pre" } end
    return { "kinematics", "rnea", "mvec", "bvel", "gforce" }
  end
  if limits.rows_on(C) then return lt and { "primal", "rnea_pre", "mvec_pre" } or { "rnea", "mvec" } end
  return { lt and "rnea_at" or "rnea" }
end

return M
