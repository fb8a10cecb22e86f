-- world/grad_ops.lua: the contact geometry's derivatives and the operators
-- the runtime's linearized contact step calls (diagc_step_ops), for a
-- world with candidate pairs (world/grad.lua includes them).
--   PFX_geometry(q, w, g, nc): body spatial Jacobians g->Jb (about the world
--     origin, from world/tangent.lua's d(kinematics)/dq), per contact the
--     13 x nv derivative g->Dgeo of (point, normal, t1, t2, depth) through
--     diagc_collide_tangent per pair and the shapes' twists, and g->Tdepth;
--     returns the contacts at a geometric kink, or a negative status.
--   PFX_op_dJy(ctx, y, out)   d(J y)/dq: 3 nc x nv
--   PFX_op_dJTx(ctx, x, out)  d(J^T x)/dq: nv x nv
--   PFX_op_dMy(ctx, y, out)   d(M y)/dq: nv x nv
--   PFX_op_solve(ctx, x)      x <- M^-1 x
-- A contact row is F_r . (v_a(p) - v_b(p)), v_b(p) = v_o + omega x p of
-- body b's spatial velocity (omega, v_o); its derivative takes the
-- change of the bodies' spatial velocities (d_bvel), of the frame F and
-- of the point p (the geometry).
local util = require("diagc.util")

local M = {}

local function lines(t)
  local o = {}
  for _, x in ipairs(t) do if x then o[#o + 1] = x end end
  return table.concat(o, "\n")
end

-- nc: the contacts of the collision; nall (worlds with joint limits):
-- with the limit rows after them (constant rows: d(J y)/dq = 0, no
-- d(J^T x)/dq)
local function context(P, lim)
  return lines({
    "typedef struct {",
    "  const double *q;",
    string.format("  const %swork *w;", P),
    string.format("  %sgrad *g;", P),
    lim and "  int nc, nall;" or "  int nc;",
    string.format("} %sgctx;", P),
  })
end
M.context = context

-- the twist Jacobians Jb of every body, from dX = d X / dq (the looped
-- tangents write them from the motion columns: PFX_d_bjac)
local function body_jacobians(C, P, G)
  local nv = G.nv
  if G.lt then return nil end
  return lines({
    string.format("static inline void %sbody_jacobians(const double *X, %sgrad *g)", P, P),
    "{",
    string.format("  for (int b = 0; b < %d; b++) {", G.nb),
    "    const double *R = X + 12 * b, *p = X + 12 * b + 9;",
    string.format("    for (int c = 0; c < %d; c++) {", nv),
    "      double dR[9], W[9], om[3], dp[3];",
    string.format("      for (int k = 0; k < 9; k++) dR[k] = g->dX[(12 * b + k) * %d + c];", nv),
    string.format("      for (int k = 0; k < 3; k++) dp[k] = g->dX[(12 * b + 9 + k) * %d + c];", nv),
    "      for (int i = 0; i < 3; i++)",
    "        for (int j = 0; j < 3; j++)",
    "          W[3 * i + j] = dR[3 * i] * R[3 * j] + dR[3 * i + 1] * R[3 * j + 1] + dR[3 * i + 2] * R[3 * j + 2];",
    "      om[0] = 0.5 * (W[7] - W[5]); om[1] = 0.5 * (W[2] - W[6]); om[2] = 0.5 * (W[3] - W[1]);",
    string.format("      double *J = g->Jb + 6 * b * %d + c;", nv),
    string.format("      J[0] = om[0]; J[%d] = om[1]; J[%d] = om[2];", nv, 2 * nv),
    "      /* v_o = dp - omega x p */",
    string.format("      J[%d] = dp[0] - (om[1] * p[2] - om[2] * p[1]);", 3 * nv),
    string.format("      J[%d] = dp[1] - (om[2] * p[0] - om[0] * p[2]);", 4 * nv),
    string.format("      J[%d] = dp[2] - (om[0] * p[1] - om[1] * p[0]);", 5 * nv),
    "    }",
    "  }",
    "}",
  })
end

-- the twist (omega, velocity of its origin) Jacobian of shape s: 6 x nv into xi
local function shape_twist(C, P, G)
  local nv = G.nv
  return lines({
    string.format("static inline void %sshape_twist(const %swork *w, const %sgrad *g, int s, double *xi)", P, P, P),
    "{",
    string.format("  int b = %sshape_body[s];", P),
    "  const double *ps = w->Xs[s] + 9;",
    string.format("  if (b == 0) { for (int i = 0; i < %d; i++) xi[i] = 0.0; return; }", 6 * nv),
    string.format("  const double *J = g->Jb + 6 * (b - 1) * %d;", nv),
    string.format("  for (int c = 0; c < %d; c++) {", nv),
    string.format("    const double o0 = J[c], o1 = J[%d + c], o2 = J[%d + c];", nv, 2 * nv),
    string.format("    xi[c] = o0; xi[%d + c] = o1; xi[%d + c] = o2;", nv, 2 * nv),
    string.format("    xi[%d + c] = J[%d + c] + o1 * ps[2] - o2 * ps[1];", 3 * nv, 3 * nv),
    string.format("    xi[%d + c] = J[%d + c] + o2 * ps[0] - o0 * ps[2];", 4 * nv, 4 * nv),
    string.format("    xi[%d + c] = J[%d + c] + o0 * ps[1] - o1 * ps[0];", 5 * nv, 5 * nv),
    "  }",
    "}",
  })
end

local function geometry(C, P, G)
  local nv, ncol = G.nv, G.ncol
  local margin = util.c_double(C.settings.margin or 1e-3)
  -- the shapes whose body moves (some dof on its chain): the others' twists are 0
  local f = require("diagc.world.dynamics").facts(C)
  local moves = {}
  for i, sh in ipairs(C.shapes) do moves[i] = (sh.body > 0 and #f.chain[sh.body] > 0) and "1" or "0" end
  return lines({
    "/* the shapes whose body moves with some dof */",
    string.format("static const unsigned char %sshape_moves[%d] = {%s};", P, #C.shapes, table.concat(moves, ", ")),
    "",
    string.format("static inline int %sgeometry(const double *q, const %swork *w, %sgrad *g, int nc)", P, P, P),
    "{",
    "  int kinks = 0;",
    string.format("  double xa[%d], xb[%d];", 6 * nv, 6 * nv),
    string.format("  int cols[%d];", math.max(nv, 1)),
    string.format("  unsigned char mark[%d] = { 0 };", math.max(nv, 1)),
    not G.lt and string.format("  %sd_kinematics(q, g->dX);", P),
    not G.lt and string.format("  %sbody_jacobians(w->X, g);", P),
    G.lt and "  (void)q;",
    G.lt and string.format("  %sd_bjac_pre(%stp(g), g->Jb);", P, P),
    "  /* the rows of this step's contacts, limits and couplings (w->info[0]): their dq columns (the",
    "     others are never written: 0 since P_init) */",
    "  for (int i = 0; i < (int)w->info[0]; i++)",
    string.format("    for (int c = 0; c < %d; c++) g->Tdepth[i * %d + c] = 0.0;", nv, ncol),
    "  for (int i0 = 0, i1; i0 < nc; i0 = i1) {",
    "    for (i1 = i0 + 1; i1 < nc && w->pair[i1] == w->pair[i0]; i1++) {}",
    string.format("    int sa = %spair[w->pair[i0]][0], sb = %spair[w->pair[i0]][1];", P, P),
    string.format("    int rc = diagc_collide_tangent(&%sshape[sa], w->Xs[sa], &%sshape[sb], w->Xs[sb], %s, "
      .. "w->con + i0, i1 - i0, g->D13);", P, P, margin),
    "    if (rc < 0) return rc;",
    "    if (rc == DIAGC_COLLIDE_KINK) kinks++;",
    string.format("    const int wa = %sshape_moves[sa], wb = %sshape_moves[sb];", P, P),
    string.format("    if (wa) %sshape_twist(w, g, sa, xa);", P),
    string.format("    if (wb) %sshape_twist(w, g, sb, xb);", P),
    "    /* the dofs that move either shape */",
    string.format("    const int ncols = %schain2(%sshape_body[sa], %sshape_body[sb], cols, mark);", P, P, P),
    "    for (int i = i0; i < i1; i++) {",
    "      const double *D = g->D13 + 156 * (i - i0);",
    string.format("      double *Dg = g->Dgeo + 13 * %d * i;", nv),
    string.format("      for (int r = 0; r < %d; r++) Dg[r] = 0.0;", 13 * nv),
    "      if (wa && wb) {",
    "        for (int cc = 0; cc < ncols; cc++) {",
    "          const int c = cols[cc];",
    "          double ta[6], tb[6];",
    string.format("          for (int k = 0; k < 6; k++) { ta[k] = xa[k * %d + c]; tb[k] = xb[k * %d + c]; }", nv, nv),
    "          for (int r = 0; r < 13; r++) {",
    "            double s = 0.0;",
    "            for (int k = 0; k < 6; k++) s += D[12 * r + k] * ta[k] + D[12 * r + 6 + k] * tb[k];",
    string.format("            Dg[r * %d + c] = s;", nv),
    "          }",
    "        }",
    "      } else { /* a shape that does not move: its twist is 0 */",
    "        const double *x1 = wa ? xa : xb, *D1 = wa ? D : D + 6;",
    "        int rows[13], nr = 0; /* the rows that move with the shape (a plane's normal does not) */",
    "        for (int r = 0; r < 13; r++) {",
    "          int any = 0;",
    "          for (int k = 0; k < 6; k++) any |= D1[12 * r + k] != 0.0;",
    "          if (any) rows[nr++] = r;",
    "        }",
    "        for (int cc = 0; cc < ncols; cc++) {",
    "          const int c = cols[cc];",
    "          double t1[6];",
    string.format("          for (int k = 0; k < 6; k++) t1[k] = x1[k * %d + c];", nv),
    "          for (int rr = 0; rr < nr; rr++) {",
    "            const int r = rows[rr];",
    "            double s = 0.0;",
    "            for (int k = 0; k < 6; k++) s += D1[12 * r + k] * t1[k];",
    string.format("            Dg[r * %d + c] = s;", nv),
    "          }",
    "        }",
    "      }",
    string.format("      for (int c = 0; c < %d; c++) g->Tdepth[i * %d + c] = Dg[12 * %d + c];", nv, ncol, nv),
    "    }",
    "  }",
    "  return kinks;",
    "}",
  })
end

-- each dof's parent dof and each body's last chain dof (-1: none; index 0:
-- the world), and P_chain2: the dofs on two bodies' chains, each once
-- (where a contact's derivatives can be nonzero)
local function chains(C, P, G)
  local f = require("diagc.world.dynamics").facts(C)
  local par, last = {}, { "-1" }
  for k = 0, G.nv - 1 do par[#par + 1] = tostring(f.dof_parent[k]) end
  for b = 1, G.nb do last[#last + 1] = tostring(f.last_dof[b] or -1) end
  if #par == 0 then par[1] = "-1" end
  return lines({
    string.format("static const int %sgdof_parent[%d] = {%s};", P, #par, table.concat(par, ", ")),
    string.format("static const int %sgbody_last[%d] = {%s};", P, #last, table.concat(last, ", ")),
    "",
    "/* the dofs on the chains of bodies a and b (0: the world), each once, into cl (mark: 0 in and out) */",
    string.format("static inline int %schain2(int a, int b, int *cl, unsigned char *mark)", P),
    "{",
    "  int n = 0;",
    string.format("  for (int k = %sgbody_last[a]; k >= 0; k = %sgdof_parent[k]) { mark[k] = 1; cl[n++] = k; }", P, P),
    string.format("  for (int k = %sgbody_last[b]; k >= 0 && !mark[k]; k = %sgdof_parent[k]) cl[n++] = k;", P, P),
    "  for (int m = 0; m < n; m++) mark[cl[m]] = 0;",
    "  return n;",
    "}",
  })
end

-- the frame rows F (n, t1, t2) of contact i
local function frame(P)
  return lines({
    string.format("static inline void %scontact_F(const diagc_contact *con, double *F)", P),
    "{",
    "  for (int r = 0; r < 3; r++) F[r] = con->normal[r];",
    "  diagc_contact_frame(con->normal, F + 3, F + 6);",
    "}",
  })
end

local function op_dJy(C, P, G)
  local nv, nb = G.nv, G.nb
  local zero = C.nlim_rows > 0 and string.format("  for (int i = 3 * x->nc * %d; i < 3 * x->nall * %d; i++) out[i] = 0.0;",
    nv, nv) or nil
  return lines({
    string.format("static void %sop_dJy(void *vc, const double *y, double *out)", P),
    "{",
    string.format("  const %sgctx *x = (const %sgctx *)vc;", P, P),
    string.format("  const %swork *w = x->w;", P),
    string.format("  %sgrad *g = x->g;", P),
    G.lt and string.format("  unsigned char hit[%d] = { 0 }; /* the contacts' bodies: V and dV of the others are not read */", nb + 1),
    string.format("  unsigned char mark[%d] = { 0 };", math.max(nv, 1)),
    string.format("  int cl[%d]; /* a contact's dofs: out is 0 in the other columns */", math.max(nv, 1)),
    G.lt and "  for (int i = 0; i < x->nc; i++)",
    G.lt and string.format("    hit[%sshape_body[%spair[w->pair[i]][0]]] = hit[%sshape_body[%spair[w->pair[i]][1]]] = 1;",
      P, P, P, P),
    G.lt and lines({
      "  /* V of the bodies hit, J_b y over b's chain (J_b is 0 off it), in increasing dof order */",
      string.format("  for (int b = 1; b <= %d; b++) {", nb),
      "    if (!hit[b]) continue;",
      "    int n = 0;",
      string.format("    for (int k = %sgbody_last[b]; k >= 0; k = %sgdof_parent[k]) cl[n++] = k;", P, P),
      "    for (int r = 6 * (b - 1); r < 6 * b; r++) {",
      "      double s = 0.0;",
      string.format("      for (int m = n - 1; m >= 0; m--) s += g->Jb[r * %d + cl[m]] * y[cl[m]];", nv),
      "      g->V[r] = s;",
      "    }",
      "  }" }) or false,
    not G.lt and string.format("  for (int r = 0; r < %d; r++) {", 6 * nb),
    not G.lt and "    double s = 0.0;",
    not G.lt and string.format("    for (int j = 0; j < %d; j++) s += g->Jb[r * %d + j] * y[j];", nv, nv),
    not G.lt and "    g->V[r] = s;",
    not G.lt and "  }",
    G.lt and string.format("  %sd_bvel_pre(%stp(g), y, hit, g->dV);", P, P) or string.format("  %sd_bvel(x->q, y, g->dV);", P),
    zero or false,
    "  for (int i = 0; i < x->nc; i++) {",
    string.format("    int ba = %sshape_body[%spair[w->pair[i]][0]], bb = %sshape_body[%spair[w->pair[i]][1]];", P, P, P, P),
    "    /* a body that does not move (no dof on its chain): V and dV are 0, as the world's */",
    string.format("    if (%sgbody_last[ba] < 0) ba = 0;", P),
    string.format("    if (%sgbody_last[bb] < 0) bb = 0;", P),
    "    const double *p = w->con[i].point;",
    string.format("    const double *Dg = g->Dgeo + 13 * %d * i;", nv),
    "    double F[9], rel[3] = {0.0, 0.0, 0.0}, wr[3] = {0.0, 0.0, 0.0};",
    string.format("    %scontact_F(&w->con[i], F);", P),
    "    for (int side = 0; side < 2; side++) {",
    "      int b = side == 0 ? ba : bb;",
    "      double sg = side == 0 ? 1.0 : -1.0;",
    "      if (b == 0) continue;",
    "      const double *V = g->V + 6 * (b - 1);",
    "      rel[0] += sg * (V[3] + V[1] * p[2] - V[2] * p[1]);",
    "      rel[1] += sg * (V[4] + V[2] * p[0] - V[0] * p[2]);",
    "      rel[2] += sg * (V[5] + V[0] * p[1] - V[1] * p[0]);",
    "      for (int k = 0; k < 3; k++) wr[k] += sg * V[k];",
    "    }",
    string.format("    for (int k = 0; k < %d; k++) out[3 * i * %d + k] = 0.0;", 3 * nv, nv),
    string.format("    const int ncl = %schain2(ba, bb, cl, mark);", P),
    "    for (int m = 0; m < ncl; m++) {",
    "      const int c = cl[m];",
    string.format("      const double dp[3] = { Dg[c], Dg[%d + c], Dg[%d + c] };", nv, 2 * nv),
    "      double dr[3];",
    "      dr[0] = wr[1] * dp[2] - wr[2] * dp[1];",
    "      dr[1] = wr[2] * dp[0] - wr[0] * dp[2];",
    "      dr[2] = wr[0] * dp[1] - wr[1] * dp[0];",
    "      for (int side = 0; side < 2; side++) {",
    "        int b = side == 0 ? ba : bb;",
    "        double sg = side == 0 ? 1.0 : -1.0, dV[6];",
    "        if (b == 0) continue;",
    string.format("        for (int k = 0; k < 6; k++) dV[k] = g->dV[(6 * (b - 1) + k) * %d + c];", nv),
    "        dr[0] += sg * (dV[3] + dV[1] * p[2] - dV[2] * p[1]);",
    "        dr[1] += sg * (dV[4] + dV[2] * p[0] - dV[0] * p[2]);",
    "        dr[2] += sg * (dV[5] + dV[0] * p[1] - dV[1] * p[0]);",
    "      }",
    "      for (int r = 0; r < 3; r++) {",
    string.format("        const double *dF = Dg + (3 + 3 * r) * %d + c;", nv),
    string.format("        out[(3 * i + r) * %d + c] = dF[0] * rel[0] + dF[%d] * rel[1] + dF[%d] * rel[2]", nv, nv, 2 * nv),
    "          + F[3 * r] * dr[0] + F[3 * r + 1] * dr[1] + F[3 * r + 2] * dr[2];",
    "      }",
    "    }",
    "  }",
    "}",
  })
end

local function op_dJTx(C, P, G)
  local nv, nb = G.nv, G.nb
  return lines({
    "/* d(J^T x)/dq = d(sum_b J_b^T W_b)/dq with W fixed (d_gforce) + sum_b J_b^T dW_b,",
    "   the contacts' dW summed per body first; the bodies no contact touches (hit: 0)",
    "   have dW_b = 0, and their J_b^T dW_b is not formed */",
    string.format("static void %sop_dJTx(void *vc, const double *xi, double *out)", P),
    "{",
    string.format("  const %sgctx *x = (const %sgctx *)vc;", P, P),
    string.format("  const %swork *w = x->w;", P),
    string.format("  %sgrad *g = x->g;", P),
    string.format("  for (int k = 0; k < %d; k++) g->Wb[k] = 0.0;", 6 * nb),
    "  for (int i = 0; i < x->nc; i++) {",
    string.format("    int ba = %sshape_body[%spair[w->pair[i]][0]], bb = %sshape_body[%spair[w->pair[i]][1]];", P, P, P, P),
    "    const double *p = w->con[i].point;",
    "    double F[9], f[3], W[6];",
    string.format("    %scontact_F(&w->con[i], F);", P),
    "    for (int k = 0; k < 3; k++) f[k] = xi[3 * i] * F[k] + xi[3 * i + 1] * F[3 + k] + xi[3 * i + 2] * F[6 + k];",
    "    W[0] = p[1] * f[2] - p[2] * f[1]; W[1] = p[2] * f[0] - p[0] * f[2]; W[2] = p[0] * f[1] - p[1] * f[0];",
    "    W[3] = f[0]; W[4] = f[1]; W[5] = f[2];",
    "    for (int k = 0; k < 6; k++) {",
    "      if (ba > 0) g->Wb[6 * (ba - 1) + k] += W[k];",
    "      if (bb > 0) g->Wb[6 * (bb - 1) + k] -= W[k];",
    "    }",
    "  }",
    G.lt and string.format("  %sd_gforce_pre(%stp(g), g->Wb, out);", P, P) or string.format("  %sd_gforce(x->q, g->Wb, out);", P),
    "  /* dW_b of the moving bodies a contact touches (hit), on the dofs of its contacts' chains */",
    string.format("  unsigned char hit[%d] = { 0 }, mark[%d] = { 0 };", nb + 1, math.max(nv, 1)),
    string.format("  int cl[%d], ncl;", math.max(nv, 1)),
    "  for (int i = 0; i < x->nc; i++) {",
    string.format("    int ba = %sshape_body[%spair[w->pair[i]][0]], bb = %sshape_body[%spair[w->pair[i]][1]];", P, P, P, P),
    string.format("    hit[ba] = %sgbody_last[ba] >= 0; hit[bb] = %sgbody_last[bb] >= 0;", P, P),
    "  }",
    string.format("  for (int b = 1; b <= %d; b++)", nb),
    string.format("    if (hit[b]) for (int k = 0; k < %d; k++) g->dWb[6 * (b - 1) * %d + k] = 0.0;", 6 * nv, nv),
    "  for (int i = 0; i < x->nc; i++) {",
    string.format("    int ba = %sshape_body[%spair[w->pair[i]][0]], bb = %sshape_body[%spair[w->pair[i]][1]];", P, P, P, P),
    "    const double *p = w->con[i].point;",
    string.format("    const double *Dg = g->Dgeo + 13 * %d * i;", nv),
    "    double F[9], f[3];",
    string.format("    %scontact_F(&w->con[i], F);", P),
    "    for (int k = 0; k < 3; k++) f[k] = xi[3 * i] * F[k] + xi[3 * i + 1] * F[3 + k] + xi[3 * i + 2] * F[6 + k];",
    "    ba = hit[ba] ? ba : 0; bb = hit[bb] ? bb : 0;",
    string.format("    ncl = %schain2(ba, bb, cl, mark);", P),
    "    for (int m = 0; m < ncl; m++) {",
    "      const int c = cl[m];",
    string.format("      const double dp[3] = { Dg[c], Dg[%d + c], Dg[%d + c] };", nv, 2 * nv),
    "      double df[3], dW[6];",
    "      for (int k = 0; k < 3; k++)",
    string.format("        df[k] = xi[3 * i] * Dg[(3 + k) * %d + c] + xi[3 * i + 1] * Dg[(6 + k) * %d + c]", nv, nv),
    string.format("          + xi[3 * i + 2] * Dg[(9 + k) * %d + c];", nv),
    "      dW[0] = dp[1] * f[2] - dp[2] * f[1] + p[1] * df[2] - p[2] * df[1];",
    "      dW[1] = dp[2] * f[0] - dp[0] * f[2] + p[2] * df[0] - p[0] * df[2];",
    "      dW[2] = dp[0] * f[1] - dp[1] * f[0] + p[0] * df[1] - p[1] * df[0];",
    "      dW[3] = df[0]; dW[4] = df[1]; dW[5] = df[2];",
    "      for (int k = 0; k < 6; k++) {",
    string.format("        if (ba > 0) g->dWb[(6 * (ba - 1) + k) * %d + c] += dW[k];", nv),
    string.format("        if (bb > 0) g->dWb[(6 * (bb - 1) + k) * %d + c] -= dW[k];", nv),
    "      }",
    "    }",
    "  }",
    string.format("  for (int b = 1; b <= %d; b++) {", nb),
    "    if (!hit[b]) continue;",
    "    /* the columns of dW_b: the chains of b's contacts */",
    "    ncl = 0;",
    "    for (int i = 0; i < x->nc; i++) {",
    string.format("      int ba = %sshape_body[%spair[w->pair[i]][0]], bb = %sshape_body[%spair[w->pair[i]][1]];", P, P, P, P),
    "      if (ba != b && bb != b) continue;",
    "      for (int side = 0; side < 2; side++)",
    string.format("        for (int k = %sgbody_last[side == 0 ? ba : bb]; k >= 0 && !mark[k]; k = %sgdof_parent[k]) { mark[k] = 1; cl[ncl++] = k; }",
      P, P),
    "    }",
    "    for (int m = 0; m < ncl; m++) mark[cl[m]] = 0;",
    "    /* out[j][c] += J_b[.][j] . dW_b[.][c] (6 terms) */",
    string.format("    const double *Jr = g->Jb + 6 * (b - 1) * %d, *Wr = g->dWb + 6 * (b - 1) * %d;", nv, nv),
    string.format("    for (int j = %sgbody_last[b]; j >= 0; j = %sgdof_parent[j]) {", P, P),
    string.format("      const double a0 = Jr[j], a1 = Jr[%d + j], a2 = Jr[%d + j], a3 = Jr[%d + j], a4 = Jr[%d + j], "
      .. "a5 = Jr[%d + j];", nv, 2 * nv, 3 * nv, 4 * nv, 5 * nv),
    "      for (int m = 0; m < ncl; m++) {",
    "        const int c = cl[m];",
    string.format("        out[j * %d + c] += a0 * Wr[c] + a1 * Wr[%d + c] + a2 * Wr[%d + c] + a3 * Wr[%d + c] + a4 * Wr[%d + c] "
      .. "+ a5 * Wr[%d + c];", nv, nv, 2 * nv, 3 * nv, 4 * nv, 5 * nv),
    "      }",
    "    }",
    "  }",
    "}",
  })
end

-- the operators every world's step shares: d(M y)/dq and the solve with M
-- (world/limits.lua's limits-only operators use them too); lt: the
-- tangents are looped (d_mvec at the step's poses)
function M.op_rest(P, lt)
  return lines({
    string.format("static void %sop_dMy(void *vc, const double *y, double *out)", P),
    "{",
    string.format("  const %sgctx *x = (const %sgctx *)vc;", P, P),
    lt and string.format("  %sd_mvec_pre(%stp(x->g), y, out);", P, P)
      or string.format("  %sd_mvec(x->q, y, x->w->inertial, out);", P),
    "}",
    "",
    string.format("static void %sop_solve(void *vc, double *v)", P),
    "{",
    string.format("  const %sgctx *x = (const %sgctx *)vc;", P, P),
    string.format("  %ssolve(x->w->M, v);", P),
    "}",
    "",
    string.format("static void %sop_solve_cols(void *vc, double *X, int ncol, int ld)", P),
    "{",
    string.format("  const %sgctx *x = (const %sgctx *)vc;", P, P),
    string.format("  %ssolve_cols(x->w->M, X, ncol, ld);", P),
    "}",
  })
end

function M.emit(C, P, G)
  local parts = { context(P, C.nlim_rows > 0), body_jacobians(C, P, G) or false, shape_twist(C, P, G), chains(C, P, G),
    geometry(C, P, G), frame(P), op_dJy(C, P, G), op_dJTx(C, P, G), M.op_rest(P, G.lt) }
  local o = {}
  for _, x in ipairs(parts) do if x then o[#o + 1] = x end end
  return table.concat(o, "\n\n")
end

return M
