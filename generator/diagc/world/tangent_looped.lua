-- world/tangent_looped.lua: world/tangent.lua's functions for the looped
-- form of the dynamics (world/looped.lua): the same signatures and dense
-- row-major outputs, computed from one primal pass and the subtrees'
-- composites instead of cdiff's Jacobian of unrolled code.  O(1) code;
-- O(nb + nv (subtree dofs + depth)) work per call, plus writing the dense
-- outputs.
--
--   local text = tangent_looped.emit(world, t, prefix, names)
--
-- names: tangent.lua's, and primal, rnea_pre, mvec_pre, gforce_pre,
-- bvel_pre, bjac_pre: PFX_d_primal(X, inertial, &T) fills a PFX_tprim T
-- (motion columns, world inertias, composites, P_m below) that the _pre
-- forms take in place of the poses, so one primal pass serves them all;
-- the _at forms (and bjac) compute it and call their _pre form.
--
-- The derivation.  Moving tangent coordinate k (dof k of body b) by dk
-- moves b's subtree rigidly by the world twist s = S_k dk (world/motion.lua's
-- column: a revolute or ball rotation about the body origin, a prismatic
-- or free linear slide; tangent.lua's coordinates), and nothing else.
-- Under a twist s, every world-frame quantity carried by a moved body
-- changes as: a pose  dR = [w]x R, dp = w x p + v (s = (w, v)); a motion
-- column dS_m = s x S_m (motion cross product) when m's frame moves, that
-- is m's body is in the subtree, except a free joint's own linear
-- columns, which turn with its parent (aff below); a spatial inertia
-- dI y = s x* (I y) - I (s x y).
--
-- The RNEA (V_i = V_p + vl + vr, vl a free joint's linear part; A_i = A_p
-- + V_p x vl + V_i x vr + sum S a; F_i = I A + V x* (I V)) in the subtree
-- of b then changes as a rigid turn but for what stays fixed, the
-- velocity Vb and acceleration Ab of b's parent (with a free joint's
-- linear part, whose columns do not turn): dV_i = s x V_i - w, dA_i =
-- s x A_i - s x Ab - w x (V_i - Vb), w = s x Vb.  Summed over a subtree,
--   dF_j = s x* F_j + Ic_j c - Bc_j w,  c = Ab x s + w x Vb,
-- Ic_j the subtree's inertia, Bc_j the sum of its B_i: w -> I_i (w x V_i)
-- + w x* (I_i V_i) + V_i x* (I_i w), which is (Z_i wa + wa x ha, 2 wa x
-- hl), h = I V and Z_i a symmetric 3 x 3 (P_zsym), so Bc_j is the sums of
-- Z and h (w = (wa, wl): B ignores wl).  The output tau_m = S_m . F_j
-- (j m's body) turns with s for m in the subtree, and (s x S_m) . F +
-- S_m . (s x* F) = 0, so there
--   dtau_m/dq_k = P_m . c - Q_m . w,  P_m = Ic_j S_m, Q_m = Bc_j^T S_m,
-- per dof m once; a free joint's own linear columns (that do not turn)
-- take back (s x S_m) . F_b; b's ancestors (columns fixed) get S_m . dF_b.
-- d/dv_k: dV_i = s over the subtree, dA_i = s x V_i - s x g (g = 2 V_b -
-- vr_b, or 2 V_p + vl_b for a free joint's linear dof), so dF_j = Bc_j s -
-- Ic_j e (e = s x g) and dtau_m/dv_k = Q_m . s - P_m . e.  M y is the
-- RNEA with V = 0, a = y, no gravity: dtau_m/dq_k = P_m . c.
local looped = require("diagc.world.looped")
local spatial = require("diagc.world.spatial")

local M = {}

-- helpers shared by the functions
local PIECES = {
  aff = [==[
/* does dof k's motion turn the column of dof m (m's body in k's subtree)?
   all but a free joint's own linear columns, which turn with its parent */
static inline int P_aff(int k, int m)
{
  const int b = P_tree.dof_body[m];
  return !(b == P_tree.dof_body[k] && P_tree.type[b] == 4 && m - P_tree.v0[b] < 3);
}
]==],
  slide = [==[
/* is dof k a linear dof of a free joint on the world?  Moving it slides
   the joint's whole tree in a uniform gravity field, and its velocity is
   a uniform velocity of that tree (Galilean invariance): the RNEA's
   forces and M y change under neither, so their q and v columns are
   exactly 0 (computed, they were sums over every body of the tree that
   cancel to round-off: 1e-16 of the other columns on the A1) */
static inline int P_slide(int k)
{
  const int b = P_tree.dof_body[k];
  return P_tree.type[b] == 4 && P_tree.parent[b] < 0 && k - P_tree.v0[b] < 3;
}
]==],
  subtree = [==[
/* marks the bodies of body b's subtree in in[] over [b, send[b]) */
static inline void P_subtree(int b, unsigned char *in)
{
  int i;
  for (i = b; i < P_tree.send[b]; ++i) {
    const int pa = P_tree.parent[i];
    in[i] = (unsigned char)(i == b || (pa >= b && in[pa]));
  }
}
]==],
  winertia = [==[
/* body i's world spatial inertia at the poses X (P_lp_inertia's
   arithmetic, its numbers read in place) */
static inline void P_winertia(const double *X, const double *inertial, int i, double *I)
{
  const double *B = P_tree.mi[i] >= 0 ? inertial + 10 * P_tree.mi[i] : P_tree.body[i];
  const double *R = X + 12 * i, m = B[0];
  double T[9], c[3];
  int r;
  for (r = 0; r < 3; ++r) {
    c[r] = X[12 * i + 9 + r] + R[3 * r] * B[1] + R[3 * r + 1] * B[2] + R[3 * r + 2] * B[3];
    T[3 * r] = R[3 * r] * B[4] + R[3 * r + 1] * B[7] + R[3 * r + 2] * B[8];
    T[3 * r + 1] = R[3 * r] * B[7] + R[3 * r + 1] * B[5] + R[3 * r + 2] * B[9];
    T[3 * r + 2] = R[3 * r] * B[8] + R[3 * r + 1] * B[9] + R[3 * r + 2] * B[6];
  }
  I[0] = m;
  I[1] = m * c[0];
  I[2] = m * c[1];
  I[3] = m * c[2];
  I[4] = T[0] * R[0] + T[1] * R[1] + T[2] * R[2] + m * (c[1] * c[1] + c[2] * c[2]);
  I[5] = T[3] * R[3] + T[4] * R[4] + T[5] * R[5] + m * (c[0] * c[0] + c[2] * c[2]);
  I[6] = T[6] * R[6] + T[7] * R[7] + T[8] * R[8] + m * (c[0] * c[0] + c[1] * c[1]);
  I[7] = T[0] * R[3] + T[1] * R[4] + T[2] * R[5] - m * c[0] * c[1];
  I[8] = T[0] * R[6] + T[1] * R[7] + T[2] * R[8] - m * c[0] * c[2];
  I[9] = T[3] * R[6] + T[4] * R[7] + T[5] * R[8] - m * c[1] * c[2];
}

]==],
  scols = [==[
/* the motion columns S at the poses X */
static inline void P_scols(const double *X, double (*S)[6])
{
  int k;
  for (k = 0; k < @NV@; ++k) P_lp_col(X, k, S[k]);
}
]==],
  velocities = [==[
/* body velocities U_i = U_p + sum of its S_m y_m */
static inline void P_velocities(double (*S)[6], const double *y, double (*U)[6])
{
  int i, k, r;
  for (i = 0; i < @NB@; ++i) {
    const int pa = P_tree.parent[i];
    if (pa >= 0) {
      for (r = 0; r < 6; ++r) U[i][r] = U[pa][r];
    } else {
      for (r = 0; r < 6; ++r) U[i][r] = 0.0;
    }
    for (k = P_tree.v0[i]; k < P_tree.v0[i] + P_tree.nv[i]; ++k) {
      for (r = 0; r < 6; ++r) U[i][r] += S[k][r] * y[k];
    }
  }
}
]==],
  dterm = [==[
/* the change of body i's own term sum of S_m y_m along twist s (dof k) */
static inline void P_dterm(int k, const double *s, int i, double (*S)[6], const double *y, double *out)
{
  int m, r;
  double x[6];
  for (m = P_tree.v0[i]; m < P_tree.v0[i] + P_tree.nv[i]; ++m) {
    if (!P_aff(k, m)) continue;
    P_cross_m(s, S[m], x);
    for (r = 0; r < 6; ++r) out[r] += x[r] * y[m];
  }
}
]==],
  zsym = [==[
/* for body inertia I (m, c the first moment, Ib) moving at V = (w, v): the
   symmetric 3 x 3 Z = [w]x Ib - Ib [w]x - ([v]x [c]x + [c]x [v]x) (xx yy
   zz xy xz yz).  The map B: x -> I (x x V) + x x* (I V) + V x* (I x) is
   then (Z xa + xa x ha, 2 xa x hl), h = (ha, hl) = I V, and a sum of them
   (composite) the same of the sums of Z and h */
static inline void P_zsym(const double *I, const double *V, double *Z)
{
  const double *c = I + 1, *w = V, *v = V + 3;
  const double Ib[9] = { I[4], I[7], I[8], I[7], I[5], I[9], I[8], I[9], I[6] };
  const double d = 2.0 * (v[0] * c[0] + v[1] * c[1] + v[2] * c[2]);
  double C[9];
  int j;
  for (j = 0; j < 3; ++j) {
    C[j] = w[1] * Ib[6 + j] - w[2] * Ib[3 + j];
    C[3 + j] = w[2] * Ib[j] - w[0] * Ib[6 + j];
    C[6 + j] = w[0] * Ib[3 + j] - w[1] * Ib[j];
  }
  Z[0] = 2.0 * (C[0] - c[0] * v[0]) + d;
  Z[1] = 2.0 * (C[4] - c[1] * v[1]) + d;
  Z[2] = 2.0 * (C[8] - c[2] * v[2]) + d;
  Z[3] = C[1] + C[3] - (c[0] * v[1] + v[0] * c[1]);
  Z[4] = C[2] + C[6] - (c[0] * v[2] + v[0] * c[2]);
  Z[5] = C[5] + C[7] - (c[1] * v[2] + v[1] * c[2]);
}

/* out = B x (P_zsym: Z and h a composite's) */
static inline void P_bmul(const double *Z, const double *h, const double *x, double *out)
{
  out[0] = Z[0] * x[0] + Z[3] * x[1] + Z[4] * x[2] + x[1] * h[2] - x[2] * h[1];
  out[1] = Z[3] * x[0] + Z[1] * x[1] + Z[5] * x[2] + x[2] * h[0] - x[0] * h[2];
  out[2] = Z[4] * x[0] + Z[5] * x[1] + Z[2] * x[2] + x[0] * h[1] - x[1] * h[0];
  out[3] = 2.0 * (x[1] * h[5] - x[2] * h[4]);
  out[4] = 2.0 * (x[2] * h[3] - x[0] * h[5]);
  out[5] = 2.0 * (x[0] * h[4] - x[1] * h[3]);
}

/* the angular part of B^T x (its linear part is 0): Z xa + ha x xa + 2 hl x xl */
static inline void P_btmul(const double *Z, const double *h, const double *x, double *out)
{
  out[0] = Z[0] * x[0] + Z[3] * x[1] + Z[4] * x[2] + h[1] * x[2] - h[2] * x[1] + 2.0 * (h[4] * x[5] - h[5] * x[4]);
  out[1] = Z[3] * x[0] + Z[1] * x[1] + Z[5] * x[2] + h[2] * x[0] - h[0] * x[2] + 2.0 * (h[5] * x[3] - h[3] * x[5]);
  out[2] = Z[4] * x[0] + Z[5] * x[1] + Z[2] * x[2] + h[0] * x[1] - h[1] * x[0] + 2.0 * (h[3] * x[4] - h[4] * x[3]);
}
]==],
  base = [==[
/* the velocity Vb and acceleration Ab of what stays fixed when a dof of
   body b moves (b's subtree turning along its column): b's parent's Vp,
   Ap, and a free joint's linear part vl (columns S, coordinates a), whose
   columns do not turn; on the world Vb = 0, as a free tree's uniform
   velocity changes nothing (Galilean invariance: P_slide) */
static inline void P_base(int b, double (*S)[6], const double *Vp, const double *Ap, const double *vl, const double *a,
                          double *Vb, double *Ab)
{
  const int v0 = P_tree.v0[b];
  double x[6];
  int m, r;
  for (r = 0; r < 6; ++r) {
    Vb[r] = Vp[r];
    Ab[r] = Ap[r];
  }
  if (P_tree.type[b] != 4) return;
  if (P_tree.parent[b] >= 0) {
    P_cross_m(Vp, vl, x);
    for (r = 0; r < 6; ++r) {
      Ab[r] += x[r];
      Vb[r] += vl[r];
    }
  }
  for (m = v0; m < v0 + 3; ++m) {
    for (r = 0; r < 6; ++r) Ab[r] += S[m][r] * a[m];
  }
}
]==],
  cols = [==[
/* column k of D over the dofs m of k's body's subtree (P_tt): P_m . c,
   P_m . c - Q_m . w (cols_q), Q_m . s - P_m . e (cols_v); Q_m 3 numbers
   (w's, s's angular part) */
static inline void P_cols(int k, const double *c, double (*P)[6], double *D)
{
  const int b = P_tree.dof_body[k];
  int n;
  for (n = P_tt.dlo[b]; n < P_tt.dhi[b]; ++n) {
    const int m = P_tt.dofs[n];
    D[m * @NV@ + k] = P_dot6(P[m], c);
  }
}


/* the columns of k's body's own dofs that do not turn with k (a free
   joint's linear ones): less (S_k x S_m) . F, F the body's composite */
static inline void P_fixed(int k, double (*S)[6], const double *F, double *D)
{
  const int b = P_tree.dof_body[k], v0 = P_tree.v0[b];
  double x[6];
  int m;
  if (P_tree.type[b] != 4) return;
  for (m = v0; m < v0 + 3; ++m) {
    P_cross_m(S[k], S[m], x);
    D[m * @NV@ + k] -= P_dot6(x, F);
  }
}

/* column k of D over the dofs of the ancestors of k's body: S_m . u (and
   of E: S_m . ue, E non-null) */
static inline void P_up(int k, double (*S)[6], const double *u, double *D, const double *ue, double *E)
{
  int pa, m;
  for (pa = P_tree.parent[P_tree.dof_body[k]]; pa >= 0; pa = P_tree.parent[pa]) {
    for (m = P_tree.v0[pa]; m < P_tree.v0[pa] + P_tree.nv[pa]; ++m) {
      D[m * @NV@ + k] = P_dot6(S[m], u);
      if (E) E[m * @NV@ + k] = P_dot6(S[m], ue);
    }
  }
}
]==],
  cols_qv = [==[
static inline void P_cols_q(int k, const double *c, const double *w, double (*P)[6], double (*Q)[3], double *D)
{
  const int b = P_tree.dof_body[k];
  int n;
  for (n = P_tt.dlo[b]; n < P_tt.dhi[b]; ++n) {
    const int m = P_tt.dofs[n];
    D[m * @NV@ + k] = P_dot6(P[m], c) - (Q[m][0] * w[0] + Q[m][1] * w[1] + Q[m][2] * w[2]);
  }
}

static inline void P_cols_v(int k, const double *s, const double *e, double (*P)[6], double (*Q)[3], double *D)
{
  const int b = P_tree.dof_body[k];
  int n;
  for (n = P_tt.dlo[b]; n < P_tt.dhi[b]; ++n) {
    const int m = P_tt.dofs[n];
    D[m * @NV@ + k] = Q[m][0] * s[0] + Q[m][1] * s[1] + Q[m][2] * s[2] - P_dot6(P[m], e);
  }
}

]==],
}

local C = {}

C.kinematics = [==[
static inline void @PUB@_d_kinematics(const double *q, double *dX)
{
  double X[12 * @NB@], S[6];
  unsigned char in[@NB@];
  int k, i, c, n;
  P_kinematics(q, X);
  for (n = 0; n < 12 * @NB@ * @NV@; ++n) dX[n] = 0.0;
  for (k = 0; k < @NV@; ++k) {
    const int b = P_tree.dof_body[k];
    P_lp_col(X, k, S);
    P_subtree(b, in);
    for (i = b; i < P_tree.send[b]; ++i) {
      const double *R = X + 12 * i, *p = X + 12 * i + 9;
      double *d = dX + 12 * i * @NV@ + k;
      if (!in[i]) continue;
      for (c = 0; c < 3; ++c) {
        d[c * @NV@] = S[1] * R[6 + c] - S[2] * R[3 + c];
        d[(3 + c) * @NV@] = S[2] * R[c] - S[0] * R[6 + c];
        d[(6 + c) * @NV@] = S[0] * R[3 + c] - S[1] * R[c];
      }
      d[9 * @NV@] = S[1] * p[2] - S[2] * p[1] + S[3];
      d[10 * @NV@] = S[2] * p[0] - S[0] * p[2] + S[4];
      d[11 * @NV@] = S[0] * p[1] - S[1] * p[0] + S[5];
    }
  }
}
]==]

-- the primal data the _pre forms share (one computation at the poses X
-- for all of them); the _at forms compute it themselves
C.tprim = [==[
/* the looped tangents' primal data at the poses X (@PUB@_d_primal): the
   motion columns S, the bodies' world inertias I (0 for those no dof
   moves), their subtrees' composites Ic and P_m = Ic_j S_m (j m's body) */
typedef struct {
  double S[@NV@][6], I[@NB@][10], Ic[@NB@][10], P[@NV@][6];
} @PUB@_tprim;
]==]

C.primal = [==[
static inline void @PUB@_d_primal(const double *X, const double *inertial, @PUB@_tprim *T)
{
  int i, m, r;
  for (m = 0; m < @NV@; ++m) P_lp_col(X, m, T->S[m]);
  for (i = 0; i < @NB@; ++i) {
    if (P_tree.flags[i] & 1) P_winertia(X, inertial, i, T->I[i]);
    else for (r = 0; r < 10; ++r) T->I[i][r] = 0.0;
    for (r = 0; r < 10; ++r) T->Ic[i][r] = T->I[i][r];
  }
  for (i = @NB@ - 1; i >= 0; --i) {
    const int pa = P_tree.parent[i];
    if (pa < 0) continue;
    for (r = 0; r < 10; ++r) T->Ic[pa][r] += T->Ic[i][r];
  }
  for (m = 0; m < @NV@; ++m) P_inertia_apply(T->Ic[P_tree.dof_body[m]], T->S[m], T->P[m]);
}
]==]

-- the bodies' spatial Jacobians straight from the motion columns (no
-- derivative of the poses to difference back into twists)
C.bjac_pre = [==[
/* the bodies' spatial Jacobians (world frame, about the origin; (6 nb) x
   nv): column k of body i is dof k's motion column S_k when dof k moves
   body i (k's body i or an ancestor of it), else 0 */
static inline void @PUB@_d_bjac_pre(@PUB@_tprim *T, double *Jb)
{
  double (*S)[6] = T->S;
  int k, i, j, r, n;
  for (i = 0; i < @NB@; ++i) {
    double *Ji = Jb + 6 * i * @NV@;
    for (n = 0; n < 6 * @NV@; ++n) Ji[n] = 0.0;
    for (j = i; j >= 0; j = P_tree.parent[j]) {
      for (k = P_tree.v0[j]; k < P_tree.v0[j] + P_tree.nv[j]; ++k) {
        for (r = 0; r < 6; ++r) Ji[r * @NV@ + k] = S[k][r];
      }
    }
  }
}
]==]

-- d_bvel's blocks of chosen bodies only (the contacts' in ∂(J y)/∂q), one
-- cross product per ancestor dof instead of a pass per dof over its subtree
C.bvel_pre = [==[
/* the blocks of d_bvel (d U_i / dq, 6 x nv) of the bodies i with
   hit[i + 1] (1-based bodies: 0 is the world); the other blocks are not
   written.  U_i = U_p(j) + the own terms of the bodies from j (dof k's
   body) down to i, whose columns turn along S_k (but a free joint's own
   linear ones: P_aff, and S_k x them is 0 for a linear S_k), so dU_i/dq_k
   = S_k x (U_i - U_p(j) - the terms that do not turn) */
static inline void @PUB@_d_bvel_pre(@PUB@_tprim *T, const double *y, const unsigned char *hit, double *D)
{
  double (*S)[6] = T->S;
  double U[@NB@][6], u[6], x[6];
  int k, i, j, m, r;
  P_velocities(S, y, U);
  for (i = 0; i < @NB@; ++i) {
    double *Di = D + 6 * i * @NV@;
    if (!hit[i + 1]) continue;
    for (k = 0; k < 6 * @NV@; ++k) Di[k] = 0.0;
    for (j = i; j >= 0; j = P_tree.parent[j]) {
      const int pa = P_tree.parent[j], v0 = P_tree.v0[j];
      if (P_tree.nv[j] == 0) continue;
      for (r = 0; r < 6; ++r) u[r] = U[i][r] - (pa >= 0 ? U[pa][r] : 0.0);
      if (P_tree.type[j] == 4) {
        for (m = v0; m < v0 + 3; ++m) {
          for (r = 0; r < 6; ++r) u[r] -= S[m][r] * y[m];
        }
      }
      for (k = v0; k < v0 + P_tree.nv[j]; ++k) {
        P_cross_m(S[k], u, x);
        for (r = 0; r < 6; ++r) Di[r * @NV@ + k] = x[r];
      }
    }
  }
}
]==]

C.bvel = [==[
static inline void @PUB@_d_bvel(const double *q, const double *y, double *D)
{
  double X[12 * @NB@], S[@NV@][6], dU[@NB@][6];
  unsigned char in[@NB@];
  int k, i, r, n;
  P_kinematics(q, X);
  for (k = 0; k < @NV@; ++k) P_lp_col(X, k, S[k]);
  for (n = 0; n < 6 * @NB@ * @NV@; ++n) D[n] = 0.0;
  for (k = 0; k < @NV@; ++k) {
    const int b = P_tree.dof_body[k];
    P_subtree(b, in);
    for (i = b; i < P_tree.send[b]; ++i) {
      if (!in[i]) continue;
      for (r = 0; r < 6; ++r) dU[i][r] = i == b ? 0.0 : dU[P_tree.parent[i]][r];
      P_dterm(k, S[k], i, S, y, dU[i]);
      for (r = 0; r < 6; ++r) D[(6 * i + r) * @NV@ + k] = dU[i][r];
    }
  }
}
]==]

-- D[m][k] = (S_k x S_m) . F_j = S_k . G_m, G_m = S_m x* F_j (F_j the
-- composite of W over m's body's subtree), for the turning columns
C.gforce_pre = [==[
static inline void @PUB@_d_gforce_pre(@PUB@_tprim *T, const double *W, double *D)
{
  double (*S)[6] = T->S;
  double F[@NB@][6], G[@NV@][6];
  int k, i, m, r, n;
  for (i = 0; i < @NB@; ++i) {
    for (r = 0; r < 6; ++r) F[i][r] = W[6 * i + r];
  }
  for (i = @NB@ - 1; i >= 0; --i) {
    const int pa = P_tree.parent[i];
    if (pa < 0) continue;
    for (r = 0; r < 6; ++r) F[pa][r] += F[i][r];
  }
  for (m = 0; m < @NV@; ++m) {
    for (r = 0; r < 6; ++r) G[m][r] = 0.0;
    P_cross_f_add(S[m], F[P_tree.dof_body[m]], G[m]);
  }
  for (n = 0; n < @NV@ * @NV@; ++n) D[n] = 0.0;
  for (k = 0; k < @NV@; ++k) {
    const int b = P_tree.dof_body[k];
    for (n = P_tt.dlo[b]; n < P_tt.dhi[b]; ++n) {
      m = P_tt.dofs[n];
      D[m * @NV@ + k] = P_dot6(S[k], G[m]);
    }
    if (P_tree.type[b] == 4) {
      for (m = P_tree.v0[b]; m < P_tree.v0[b] + 3; ++m) D[m * @NV@ + k] = 0.0;
    }
  }
}
]==]

-- M y: the RNEA with V = 0, accelerations U (from y), no gravity
C.mvec_pre = [==[
static inline void @PUB@_d_mvec_pre(@PUB@_tprim *T, const double *y, double *D)
{
  static const double Z[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
  double (*S)[6] = T->S, (*I)[10] = T->I, (*Ic)[10] = T->Ic, (*P)[6] = T->P;
  double U[@NB@][6], F[@NB@][6], Vb[6], Ab[6], c[6], u[6];
  int k, b, i, r, n;
  P_velocities(S, y, U);
  for (i = 0; i < @NB@; ++i) P_inertia_apply(I[i], U[i], F[i]);
  for (i = @NB@ - 1; i >= 0; --i) {
    const int pa = P_tree.parent[i];
    if (pa < 0) continue;
    for (r = 0; r < 6; ++r) F[pa][r] += F[i][r];
  }
  for (n = 0; n < @NV@ * @NV@; ++n) D[n] = 0.0;
  for (b = 0; b < @NB@; ++b) {
    const int pa = P_tree.parent[b], v0 = P_tree.v0[b];
    if (P_tree.nv[b] == 0) continue;
    P_base(b, S, Z, pa >= 0 ? U[pa] : Z, Z, y, Vb, Ab);
    for (k = v0; k < v0 + P_tree.nv[b]; ++k) {
      if (P_slide(k)) continue;
      P_cross_m(Ab, S[k], c);
      P_cols(k, c, P, D);
      P_fixed(k, S, F[b], D);
      if (pa >= 0) {
        P_inertia_apply(Ic[b], c, u);
        P_cross_f_add(S[k], F[b], u);
        P_up(k, S, u, D, 0, 0);
      }
    }
  }
}
]==]

-- M a + c by the RNEA with acceleration a: V_i = V_p + vl + vr (vl: a free
-- joint's linear part, vr: the rest), A_i = A_p + V_p x vl + V_i x vr +
-- sum S a, F_i = I A + V x* (I V); the composites F, h = I V and B's Z,
-- then per dof Q_m, then the columns body by body
C.rnea_pre = [==[
static inline void @PUB@_d_rnea_pre(@PUB@_tprim *T, const double *v, const double *a, double *Dq, double *Dv)
{
  const double A0[6] = { 0.0, 0.0, 0.0, -P_tree.gravity[0], -P_tree.gravity[1], -P_tree.gravity[2] };
  static const double Z[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
  double (*S)[6] = T->S, (*I)[10] = T->I, (*Ic)[10] = T->Ic, (*P)[6] = T->P;
  double V[@NB@][6], A[@NB@][6], vl[@NB@][6], vr[@NB@][6], H[@NB@][6], F[@NB@][6], Y[@NB@][6], Q[@NV@][3],
    x[6], Vb[6], Ab[6], c[6], e[6], u[6], ue[6];
  double w[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 }; /* 0 on the world; set (and read) below a parent */
  int k, b, i, m, r, n;
  for (i = 0; i < @NB@; ++i) {
    const int pa = P_tree.parent[i], v0 = P_tree.v0[i];
    const double *Vp = pa >= 0 ? V[pa] : Z, *Ap = pa >= 0 ? A[pa] : A0;
    for (r = 0; r < 6; ++r) vl[i][r] = vr[i][r] = 0.0;
    for (m = v0; m < v0 + P_tree.nv[i]; ++m) {
      double *d = P_tree.type[i] == 4 && m - v0 < 3 ? vl[i] : vr[i];
      for (r = 0; r < 6; ++r) d[r] += S[m][r] * v[m];
    }
    for (r = 0; r < 6; ++r) V[i][r] = Vp[r] + vl[i][r] + vr[i][r];
    P_cross_m(V[i], vr[i], A[i]);
    if (P_tree.type[i] == 4) {
      P_cross_m(Vp, vl[i], x);
      for (r = 0; r < 6; ++r) A[i][r] += Ap[r] + x[r];
    } else {
      for (r = 0; r < 6; ++r) A[i][r] += Ap[r];
    }
    for (m = v0; m < v0 + P_tree.nv[i]; ++m) {
      for (r = 0; r < 6; ++r) A[i][r] += S[m][r] * a[m];
    }
    if (P_tree.flags[i] & 1) {
      P_inertia_apply(I[i], V[i], H[i]);
      P_inertia_apply(I[i], A[i], F[i]);
      P_cross_f_add(V[i], H[i], F[i]);
      P_zsym(I[i], V[i], Y[i]);
    } else {
      for (r = 0; r < 6; ++r) H[i][r] = F[i][r] = Y[i][r] = 0.0;
    }
  }
  for (i = @NB@ - 1; i >= 0; --i) {
    const int pa = P_tree.parent[i];
    if (pa < 0) continue;
    for (r = 0; r < 6; ++r) {
      H[pa][r] += H[i][r];
      F[pa][r] += F[i][r];
      Y[pa][r] += Y[i][r];
    }
  }
  /* Q_m = Bc_j^T S_m (j m's body) */
  for (m = 0; m < @NV@; ++m) P_btmul(Y[P_tree.dof_body[m]], H[P_tree.dof_body[m]], S[m], Q[m]);
  for (n = 0; n < @NV@ * @NV@; ++n) Dq[n] = Dv[n] = 0.0;
  for (b = 0; b < @NB@; ++b) {
    const int pa = P_tree.parent[b], v0 = P_tree.v0[b];
    const double *Vp = pa >= 0 ? V[pa] : Z;
    if (P_tree.nv[b] == 0) continue;
    P_base(b, S, Vp, pa >= 0 ? A[pa] : A0, vl[b], a, Vb, Ab);
    for (k = v0; k < v0 + P_tree.nv[b]; ++k) {
      const double *s = S[k];
      if (P_slide(k)) continue;
      /* q: w = s x Vb, c = Ab x s + w x Vb (on the world Vb = 0: w = 0);
         the ancestors get S_m . dF_b, dF_b = s x* F_b + Ic_b c - Bc_b w */
      P_cross_m(Ab, s, c);
      if (pa >= 0) {
        P_cross_m(s, Vb, w);
        P_cross_m(w, Vb, x);
        for (r = 0; r < 6; ++r) c[r] += x[r];
        P_cols_q(k, c, w, P, Q, Dq);
      } else {
        P_cols(k, c, P, Dq);
      }
      P_fixed(k, S, F[b], Dq);
      /* v: e = s x g, dtau_m = Q_m . s - P_m . e; the ancestors get S_m .
         (Bc_b s - Ic_b e) */
      for (r = 0; r < 6; ++r) {
        x[r] = P_tree.type[b] == 4 && k - v0 < 3 ? 2.0 * Vp[r] + vl[b][r] : 2.0 * V[b][r] - vr[b][r];
      }
      P_cross_m(s, x, e);
      P_cols_v(k, s, e, P, Q, Dv);
      if (pa >= 0) {
        P_inertia_apply(Ic[b], c, u);
        P_bmul(Y[b], H[b], w, x);
        for (r = 0; r < 6; ++r) u[r] -= x[r];
        P_cross_f_add(s, F[b], u);
        P_bmul(Y[b], H[b], s, ue);
        P_inertia_apply(Ic[b], e, x);
        for (r = 0; r < 6; ++r) ue[r] -= x[r];
        P_up(k, S, u, Dq, ue, Dv);
      }
    }
  }
}
]==]

-- the _at forms: the primal data at the poses X, then the _pre form (the
-- inertias only where used)
C.rnea_at = [==[
static inline void @PUB@_d_rnea_at(const double *X, const double *v, const double *a, const double *inertial,
                                   double *Dq, double *Dv)
{
  @PUB@_tprim T;
  @PUB@_d_primal(X, inertial, &T);
  @PUB@_d_rnea_pre(&T, v, a, Dq, Dv);
}
]==]

C.mvec_at = [==[
static inline void @PUB@_d_mvec_at(const double *X, const double *y, const double *inertial, double *D)
{
  @PUB@_tprim T;
  @PUB@_d_primal(X, inertial, &T);
  @PUB@_d_mvec_pre(&T, y, D);
}
]==]

C.gforce_at = [==[
static inline void @PUB@_d_gforce_at(const double *X, const double *W, double *D)
{
  @PUB@_tprim T;
  P_scols(X, T.S);
  @PUB@_d_gforce_pre(&T, W, D);
}
]==]

C.bvel_at = [==[
static inline void @PUB@_d_bvel_at(const double *X, const double *y, const unsigned char *hit, double *D)
{
  @PUB@_tprim T;
  P_scols(X, T.S);
  @PUB@_d_bvel_pre(&T, y, hit, D);
}
]==]

C.bjac = [==[
static inline void @PUB@_d_bjac(const double *X, double *Jb)
{
  @PUB@_tprim T;
  P_scols(X, T.S);
  @PUB@_d_bjac_pre(&T, Jb);
}
]==]

-- the q forms of the functions computed at the poses X (NAME_at): the
-- poses from q, then the same function (tangent.lua's signatures)
local AT = {
  rnea = { "const double *v, const double *a, const double *inertial, double *Dq, double *Dv", "v, a, inertial, Dq, Dv" },
  mvec = { "const double *y, const double *inertial, double *D", "y, inertial, D" },
  gforce = { "const double *W, double *D", "W, D" },
}
for name, sig in pairs(AT) do
  C[name] = "static inline void @PUB@_d_" .. name .. "(const double *q, " .. sig[1] .. ")\n{\n  double X[12 * @NB@];\n"
    .. "  P_kinematics(q, X);\n  @PUB@_d_" .. name .. "_at(X, " .. sig[2] .. ");\n}\n"
end

-- what each piece and function needs: pieces of this file (tt: the
-- subtrees' table), looped.lua's parts (table, col, inertia) and spatial
-- helpers
local NEEDS = {
  tt = {}, aff = {}, slide = {}, subtree = {}, velocities = {}, zsym = {},
  scols = { parts = { "col" } },
  winertia = {},
  dterm = { "aff", spatial = { "cross_m" } },
  base = { spatial = { "cross_m" } },
  cols = { "tt", spatial = { "cross_m", "dot6" } },
  cols_qv = { "cols" },
  -- the functions
  d_kinematics = { "kinematics", "subtree", parts = { "col" } },
  d_bvel = { "kinematics", "subtree", "dterm", parts = { "col" } },
  d_tprim = {},
  d_primal = { "winertia", parts = { "col" }, spatial = { "inertia_apply" } },
  d_bjac_pre = {},
  d_bvel_pre = { "velocities", spatial = { "cross_m" } },
  d_gforce_pre = { "tt", spatial = { "cross_f", "dot6" } },
  d_mvec_pre = { "velocities", "slide", "base", "cols", spatial = { "inertia_apply", "cross_f" } },
  d_rnea_pre = { "slide", "zsym", "base", "cols", "cols_qv", spatial = { "cross_m", "inertia_apply", "cross_f" } },
  d_bjac = { "scols" }, d_bvel_at = { "scols" }, d_gforce_at = { "scols" }, d_mvec_at = {}, d_rnea_at = {},
  d_gforce = { "kinematics" },
  d_mvec = { "kinematics" },
  d_rnea = { "kinematics" },
}
-- the functions a function calls, emitted before it
local CALLS = {
  rnea = { "rnea_at" }, mvec = { "mvec_at" }, gforce = { "gforce_at" },
  rnea_at = { "primal", "rnea_pre" }, mvec_at = { "primal", "mvec_pre" }, gforce_at = { "tprim", "gforce_pre" },
  bvel_at = { "tprim", "bvel_pre" }, bjac = { "tprim", "bjac_pre" },
  primal = { "tprim" }, rnea_pre = { "tprim" }, mvec_pre = { "tprim" }, gforce_pre = { "tprim" },
  bvel_pre = { "tprim" }, bjac_pre = { "tprim" },
}
local ORDER = { "kinematics", "tt", "aff", "slide", "subtree", "scols", "winertia", "velocities", "dterm", "zsym",
  "base", "cols", "cols_qv" }

-- the subtrees as ranges: the dofs body by body in a depth-first preorder
-- of the bodies (children in their order), body i's subtree's dofs at
-- [dlo[i], dhi[i]) of it, its own first
local function tt_text(world, t, tp)
  local kids = {}
  for i = 0, t.nb do kids[i] = {} end
  for i = 1, t.nb do
    local pa = world.bodies[i].joint.parent
    kids[pa][#kids[pa] + 1] = i
  end
  local dofs, dlo, dhi = {}, {}, {}
  local function visit(i)
    dlo[i] = #dofs
    for k = t.v0[i], t.v0[i] + t.nvi[i] - 1 do dofs[#dofs + 1] = k end
    for _, c in ipairs(kids[i]) do visit(c) end
    dhi[i] = #dofs
  end
  for _, r in ipairs(kids[0]) do visit(r) end
  local lo, hi = {}, {}
  for i = 1, t.nb do lo[i], hi[i] = dlo[i], dhi[i] end
  local function ints(list) return "{ " .. table.concat(list, ", ") .. " }" end
  return looped.fill([==[
/* P_tt: the dofs body by body in a depth-first preorder of the bodies;
   those of body i's subtree are dofs[dlo[i] .. dhi[i]), its own first */
static const struct {
  int dofs[@NV@], dlo[@NB@], dhi[@NB@];
} P_tt = {
  ]==], tp, looped.sizes(t)) .. ints(dofs) .. ",\n  " .. ints(lo) .. ",\n  " .. ints(hi) .. "\n};\n"
end

-- The text is self-contained (as cdiff's is): its own copy of the tree's
-- table, poses and helpers, named prefix_tl_*, so it needs nothing of the
-- dynamics' text and leaves nothing unused.
function M.emit(world, t, prefix, names)
  local tp = prefix .. "_tl"
  local h = spatial.helpers(tp)
  local parts = looped.parts(world, t, tp, h)
  parts.any = true
  local used = {}
  local function need(name)
    local n = NEEDS[name]
    if used[name] then return end
    used[name] = true
    for _, d in ipairs(n) do need(d) end
    for _, u in ipairs(n.parts or {}) do parts:use(u) end
    for _, u in ipairs(n.spatial or {}) do h:use(u) end
  end
  NEEDS.kinematics = {}
  local s = looped.sizes(t)
  s.PUB = prefix
  local fns, done = {}, {}
  local function fn(name)
    if done[name] then return end
    done[name] = true
    for _, c in ipairs(CALLS[name] or {}) do fn(c) end
    need("d_" .. name)
    fns[#fns + 1] = looped.fill(assert(C[name], name), tp, s)
  end
  for _, name in ipairs(names) do fn(name) end
  local pieces = {}
  for _, name in ipairs(ORDER) do
    if used[name] then
      if name == "kinematics" then
        pieces[#pieces + 1] = looped.emit("kinematics", world, t, tp, h, parts):gsub("^static void", "static inline void")
      elseif name == "tt" then
        pieces[#pieces + 1] = tt_text(world, t, tp)
      else
        pieces[#pieces + 1] = looped.fill(PIECES[name], tp, s)
      end
    end
  end
  return h:text() .. "\n" .. parts:text() .. "\n" .. table.concat(pieces, "\n") .. "\n" .. table.concat(fns, "\n")
end

return M
