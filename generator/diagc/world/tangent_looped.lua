-- world/tangent_looped.lua: world/tangent.lua's functions for the looped
-- form of the dynamics (world/looped.lua): the same signatures and dense
-- row-major outputs, computed as forward-mode directional derivatives
-- looped over the nv tangent directions instead of cdiff's Jacobian of
-- unrolled code.  O(1) code; O(nv (subtree + depth)) work per call after
-- one primal pass, plus writing the dense outputs.
--
--   local text = tangent_looped.emit(world, t, prefix, names)
--
-- The derivation.  Moving tangent coordinate k (dof k of body b) by dk
-- moves b's subtree rigidly by the world twist S_k dk (world/motion.lua's
-- column: a revolute or ball rotation about the body origin, a prismatic
-- or free linear slide; tangent.lua's coordinates), and nothing else.
-- Under a twist s, every world-frame quantity carried by a moved body
-- changes as: a pose  dR = [w]x R, dp = w x p + v (s = (w, v)); a motion
-- column dS_m = s x S_m (motion cross product) when m's frame moves, that
-- is m's body is in the subtree, except a free joint's own linear
-- columns, which turn with its parent (aff below); a spatial inertia
-- dI y = s x* (I y) - I (s x y).  The recursions of tangent.lua's
-- quantities (body velocities V_i = V_p + S v, accelerations, forces,
-- composites, projections tau_m = S_m . F_c) are differentiated term by
-- term over the subtree, then the composite's change is carried up the
-- ancestors (their columns do not move).  d/dv of the RNEA is the same
-- pass with dv = e_k.
local looped = require("diagc.world.looped")
local spatial = require("diagc.world.spatial")

local M = {}

-- helpers: the subtree walk and aff, shared by the functions
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
  spin = [==[
/* is dof k a rotational dof of a free joint on the world?  Moving it turns
   the joint's whole tree rigidly about the joint's origin.  The RNEA's
   joint forces (and M y) are scalars of the tree's own frame: they change
   only as the world vectors the tree sees turn the other way, gravity and
   the free joint's linear acceleration (its linear velocity changes
   nothing: P_slide), which enter together as c = P a_lin - g (P the
   joint frame).  So that column is M's linear columns applied to
   -(w_k x c): P_spin_col, from the subtrees' masses and first moments
   (P_moments), with no pass over the tree.  The free joint's own linear
   columns stay fixed in the world (P_aff) while the argument turns every
   column: their rows take back the turn's term (S_k x S_m) . F_i */
static inline int P_spin(int k)
{
  const int b = P_tree.dof_body[k];
  return P_tree.type[b] == 4 && P_tree.parent[b] < 0 && k - P_tree.v0[b] >= 3;
}

/* Ic[i]: the mass and the first moment (m times the centre of mass, world
   frame) of body i's subtree (I: the bodies' world spatial inertias) */
static inline void P_moments(double (*I)[10], double (*Ic)[4])
{
  int i, r;
  for (i = 0; i < @NB@; ++i) {
    for (r = 0; r < 4; ++r) Ic[i][r] = P_tree.flags[i] & 1 ? I[i][r] : 0.0;
  }
  for (i = @NB@ - 1; i >= 0; --i) {
    const int pa = P_tree.parent[i];
    if (pa >= 0) {
      for (r = 0; r < 4; ++r) Ic[pa][r] += Ic[i][r];
    }
  }
}

/* column k (P_spin) of d(forces)/dq, given a (the free joint's linear
   acceleration is a[v0 .. v0 + 2]) and gs (1: gravity enters, 0: M y):
   D[m][k] = S_m . (hc x d, mc d), d = -(w_k x c), for the dofs m of the
   tree (in: its marks), mc and hc body m's subtree's (Ic), less
   (S_k x S_m) . F_i on the columns that do not turn (F: the composite
   forces) */
static inline void P_spin_col(int k, const unsigned char *in, double (*S)[6], double (*Ic)[4], double (*F)[6],
                              const double *a, double gs, double *D)
{
  const int b = P_tree.dof_body[k], v0 = P_tree.v0[b];
  const double *J = P_tree.joint[b], *w = S[k];
  double c[3], d[3], f[6], x[6];
  int i, m, r;
  for (r = 0; r < 3; ++r) c[r] = J[3 * r] * a[v0] + J[3 * r + 1] * a[v0 + 1] + J[3 * r + 2] * a[v0 + 2] - gs * P_tree.gravity[r];
  d[0] = w[2] * c[1] - w[1] * c[2];
  d[1] = w[0] * c[2] - w[2] * c[0];
  d[2] = w[1] * c[0] - w[0] * c[1];
  for (i = b; i < P_tree.send[b]; ++i) {
    const double *h = Ic[i] + 1;
    if (!in[i]) continue;
    f[0] = h[1] * d[2] - h[2] * d[1];
    f[1] = h[2] * d[0] - h[0] * d[2];
    f[2] = h[0] * d[1] - h[1] * d[0];
    for (r = 0; r < 3; ++r) f[3 + r] = Ic[i][0] * d[r];
    for (m = P_tree.v0[i]; m < P_tree.v0[i] + P_tree.nv[i]; ++m) {
      D[m * @NV@ + k] = P_dot6(S[m], f);
      if (!P_aff(k, m)) {
        P_cross_m(S[k], S[m], x);
        D[m * @NV@ + k] -= P_dot6(x, F[i]);
      }
    }
  }
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
  primal = [==[
/* the primal pass at the poses X: columns S, inertias I of the moving bodies */
static inline void P_primal(const double *X, const double *inertial, double (*S)[6], double (*I)[10])
{
  int i, k;
  for (k = 0; k < @NV@; ++k) P_lp_col(X, k, S[k]);
  if (I) {
    for (i = 0; i < @NB@; ++i) {
      if (P_tree.flags[i] & 1) P_lp_inertia(X, inertial, i, I[i]);
    }
  }
}
]==],
  velocities = [==[
/* body velocities U_i = U_p + sum of its S_m y_m */
static inline void P_velocities(double (*S)[6], const double *y, double (*U)[6])
{
  int i, k, r;
  for (i = 0; i < @NB@; ++i) {
    const int pa = P_tree.parent[i];
    for (r = 0; r < 6; ++r) U[i][r] = pa >= 0 ? U[pa][r] : 0.0;
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
  project = [==[
/* composites of the forces over the subtree of b (in: its marks), then the
   output column k: D[m][k] for the dofs of the subtree (dF: the changes
   of the forces, F: the composites, their columns turning when aff) and
   of b's ancestors (their columns fixed) */
static inline void P_project(int k, int b, const unsigned char *in, double (*S)[6], double (*F)[6],
                                double (*dF)[6], double *D)
{
  int i, m, r, pa;
  double x[6];
  for (i = P_tree.send[b] - 1; i > b; --i) {
    if (!in[i]) continue;
    pa = P_tree.parent[i];
    for (r = 0; r < 6; ++r) dF[pa][r] += dF[i][r];
  }
  for (i = b; i < P_tree.send[b]; ++i) {
    if (!in[i]) continue;
    for (m = P_tree.v0[i]; m < P_tree.v0[i] + P_tree.nv[i]; ++m) {
      double e = P_dot6(S[m], dF[i]);
      if (F && P_aff(k, m)) {
        P_cross_m(S[k], S[m], x);
        e += P_dot6(x, F[i]);
      }
      D[m * @NV@ + k] = e;
    }
  }
  for (pa = P_tree.parent[b]; pa >= 0; pa = P_tree.parent[pa]) {
    for (m = P_tree.v0[pa]; m < P_tree.v0[pa] + P_tree.nv[pa]; ++m) D[m * @NV@ + k] = P_dot6(S[m], dF[b]);
  }
}
]==],
  composite = [==[
/* composite forces from the leaves up */
static inline void P_composite(double (*F)[6])
{
  int i, r;
  for (i = @NB@ - 1; i >= 0; --i) {
    const int pa = P_tree.parent[i];
    if (pa >= 0) {
      for (r = 0; r < 6; ++r) F[pa][r] += F[i][r];
    }
  }
}
]==],
  dforce = [==[
/* dF = I dU - I (s x U) + s x* (I U): the change of F = I U when the body
   moves along s (moved) and U changes by dU */
static inline void P_dforce(const double *I, const double *s, const double *U, const double *h, const double *dU,
                               double *dF)
{
  double x[6];
  int r;
  P_cross_m(s, U, x);
  for (r = 0; r < 6; ++r) x[r] = dU[r] - x[r];
  P_inertia_apply(I, x, dF);
  P_cross_f_add(s, h, dF);
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

-- the bodies' spatial Jacobians straight from the motion columns (no
-- derivative of the poses to difference back into twists)
C.bjac = [==[
/* the bodies' spatial Jacobians at the poses X (world frame, about the
   origin; (6 nb) x nv): column k of body i is dof k's motion column S_k
   when dof k moves body i (i in the subtree of k's body), else 0 */
static inline void @PUB@_d_bjac(const double *X, double *Jb)
{
  double S[6];
  unsigned char in[@NB@];
  int k, i, r, n;
  for (n = 0; n < 6 * @NB@ * @NV@; ++n) Jb[n] = 0.0;
  for (k = 0; k < @NV@; ++k) {
    const int b = P_tree.dof_body[k];
    P_lp_col(X, k, S);
    P_subtree(b, in);
    for (i = b; i < P_tree.send[b]; ++i) {
      if (!in[i]) continue;
      for (r = 0; r < 6; ++r) Jb[(6 * i + r) * @NV@ + k] = S[r];
    }
  }
}
]==]

-- d_bvel's blocks of chosen bodies only (the contacts' in ∂(J y)/∂q), one
-- cross product per ancestor dof instead of a pass per dof over its subtree
C.bvel_at = [==[
/* the blocks of d_bvel (d U_i / dq, 6 x nv) of the bodies i with
   hit[i + 1] (1-based bodies: 0 is the world), at the poses X; the other
   blocks are not written.  U_i = U_p(b) + the own terms of the bodies
   from b (dof k's) down to i, whose columns turn along S_k (but a free
   joint's own linear ones: P_aff), so dU_i/dq_k = S_k x (U_i - U_p(b) -
   the terms that do not turn) */
static inline void @PUB@_d_bvel_at(const double *X, const double *y, const unsigned char *hit, double *D)
{
  double S[@NV@][6], U[@NB@][6], u[6], x[6];
  int k, i, j, m, r;
  for (k = 0; k < @NV@; ++k) P_lp_col(X, k, S[k]);
  P_velocities(S, y, U);
  for (i = 0; i < @NB@; ++i) {
    double *Di = D + 6 * i * @NV@;
    if (!hit[i + 1]) continue;
    for (k = 0; k < 6 * @NV@; ++k) Di[k] = 0.0;
    for (j = i; j >= 0; j = P_tree.parent[j]) {
      const int pa = P_tree.parent[j];
      for (k = P_tree.v0[j]; k < P_tree.v0[j] + P_tree.nv[j]; ++k) {
        for (r = 0; r < 6; ++r) u[r] = U[i][r] - (pa >= 0 ? U[pa][r] : 0.0);
        for (m = P_tree.v0[j]; m < P_tree.v0[j] + P_tree.nv[j]; ++m) {
          if (P_aff(k, m)) continue;
          for (r = 0; r < 6; ++r) u[r] -= S[m][r] * y[m];
        }
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
  P_primal(X, 0, S, 0);
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

C.gforce_at = [==[
static inline void @PUB@_d_gforce_at(const double *X, const double *W, double *D)
{
  double S[@NV@][6], F[@NB@][6], x[6];
  unsigned char in[@NB@];
  int k, i, m, r, n;
  P_primal(X, 0, S, 0);
  for (i = 0; i < @NB@; ++i) {
    for (r = 0; r < 6; ++r) F[i][r] = W[6 * i + r];
  }
  P_composite(F);
  for (n = 0; n < @NV@ * @NV@; ++n) D[n] = 0.0;
  for (k = 0; k < @NV@; ++k) {
    const int b = P_tree.dof_body[k];
    P_subtree(b, in);
    for (i = b; i < P_tree.send[b]; ++i) {
      if (!in[i]) continue;
      for (m = P_tree.v0[i]; m < P_tree.v0[i] + P_tree.nv[i]; ++m) {
        if (!P_aff(k, m)) continue;
        P_cross_m(S[k], S[m], x);
        D[m * @NV@ + k] = P_dot6(x, F[i]);
      }
    }
  }
}
]==]

C.mvec_at = [==[
static inline void @PUB@_d_mvec_at(const double *X, const double *y, const double *inertial, double *D)
{
  double S[@NV@][6], I[@NB@][10], U[@NB@][6], H[@NB@][6], F[@NB@][6], dU[@NB@][6], dF[@NB@][6], Ic[@NB@][4];
  unsigned char in[@NB@];
  int k, i, r, n;
  P_primal(X, inertial, S, I);
  P_moments(I, Ic);
  P_velocities(S, y, U);
  for (i = 0; i < @NB@; ++i) {
    if (P_tree.flags[i] & 1) P_inertia_apply(I[i], U[i], H[i]);
    else for (r = 0; r < 6; ++r) H[i][r] = 0.0;
    for (r = 0; r < 6; ++r) F[i][r] = H[i][r];
  }
  P_composite(F);
  for (n = 0; n < @NV@ * @NV@; ++n) D[n] = 0.0;
  for (k = 0; k < @NV@; ++k) {
    const int b = P_tree.dof_body[k];
    if (P_slide(k)) continue;
    P_subtree(b, in);
    if (P_spin(k)) {
      P_spin_col(k, in, S, Ic, F, y, 0.0, D);
      continue;
    }
    for (i = b; i < P_tree.send[b]; ++i) {
      if (!in[i]) continue;
      for (r = 0; r < 6; ++r) dU[i][r] = i == b ? 0.0 : dU[P_tree.parent[i]][r];
      P_dterm(k, S[k], i, S, y, dU[i]);
      P_dforce(I[i], S[k], U[i], H[i], dU[i], dF[i]);
    }
    P_project(k, b, in, S, F, dF, D);
  }
}
]==]

-- M a + c by the RNEA with acceleration a: V_i = V_p + vl + vr (vl: a free
-- joint's linear part, vr: the rest), A_i = A_p + V_p x vl + V_i x vr +
-- sum S a, F_i = I A + V x* (I V); d/dq and d/dv per direction
C.rnea_at = [==[
static inline void @PUB@_d_rnea_at(const double *X, const double *v, const double *a, const double *inertial,
                                   double *Dq, double *Dv)
{
  const double A0[6] = { 0.0, 0.0, 0.0, -P_tree.gravity[0], -P_tree.gravity[1], -P_tree.gravity[2] };
  static const double Z[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
  double S[@NV@][6], I[@NB@][10], V[@NB@][6], A[@NB@][6], vl[@NB@][6], vr[@NB@][6], H[@NB@][6],
    F[@NB@][6], IA[@NB@][6], dV[@NB@][6], dA[@NB@][6], dF[@NB@][6], x[6], u[6], Ic[@NB@][4];
  unsigned char in[@NB@];
  int k, i, m, r, n, wrt;
  P_primal(X, inertial, S, I);
  P_moments(I, Ic);
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
    P_cross_m(Vp, vl[i], x);
    for (r = 0; r < 6; ++r) A[i][r] += Ap[r] + x[r];
    for (m = v0; m < v0 + P_tree.nv[i]; ++m) {
      for (r = 0; r < 6; ++r) A[i][r] += S[m][r] * a[m];
    }
    if (P_tree.flags[i] & 1) {
      P_inertia_apply(I[i], V[i], H[i]);
      P_inertia_apply(I[i], A[i], IA[i]);
      for (r = 0; r < 6; ++r) F[i][r] = IA[i][r];
      P_cross_f_add(V[i], H[i], F[i]);
    } else {
      for (r = 0; r < 6; ++r) H[i][r] = IA[i][r] = F[i][r] = 0.0;
    }
  }
  P_composite(F);
  for (n = 0; n < @NV@ * @NV@; ++n) Dq[n] = Dv[n] = 0.0;
  for (wrt = 0; wrt < 2; ++wrt) {
    for (k = 0; k < @NV@; ++k) {
      const int b = P_tree.dof_body[k];
      if (P_slide(k)) continue;
      P_subtree(b, in);
      if (wrt == 0 && P_spin(k)) {
        P_spin_col(k, in, S, Ic, F, a, 1.0, Dq);
        continue;
      }
      for (i = b; i < P_tree.send[b]; ++i) {
        const int pa = P_tree.parent[i], v0 = P_tree.v0[i];
        const double *Vp = pa >= 0 ? V[pa] : Z, *dVp = i == b ? Z : dV[pa], *dAp = i == b ? Z : dA[pa];
        double dvl[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 }, dvr[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
        if (!in[i]) continue;
        for (r = 0; r < 6; ++r) dA[i][r] = dAp[r];
        if (wrt == 0) {
          /* q: the own columns turn along S_k (v and a terms) */
          for (m = v0; m < v0 + P_tree.nv[i]; ++m) {
            if (!P_aff(k, m)) continue;
            P_cross_m(S[k], S[m], x);
            for (r = 0; r < 6; ++r) {
              (P_tree.type[i] == 4 && m - v0 < 3 ? dvl : dvr)[r] += x[r] * v[m];
              dA[i][r] += x[r] * a[m];
            }
          }
        } else if (i == b) {
          /* v: the own velocity term of dof k */
          for (r = 0; r < 6; ++r) (P_tree.type[i] == 4 && k - v0 < 3 ? dvl : dvr)[r] = S[k][r];
        }
        for (r = 0; r < 6; ++r) dV[i][r] = dVp[r] + dvl[r] + dvr[r];
        /* the terms of a zero dVp (i == b) or zero dvl, dvr (v, below b; vl
           and dvl off a free joint's body) are zeros, not formed */
        if (i != b && P_tree.type[i] == 4) {
          P_cross_m(dVp, vl[i], x);
          for (r = 0; r < 6; ++r) dA[i][r] += x[r];
        }
        if ((wrt == 0 || i == b) && P_tree.type[i] == 4) {
          P_cross_m(Vp, dvl, x);
          for (r = 0; r < 6; ++r) dA[i][r] += x[r];
        }
        P_cross_m(dV[i], vr[i], x);
        for (r = 0; r < 6; ++r) dA[i][r] += x[r];
        if (wrt == 0 || i == b) {
          P_cross_m(V[i], dvr, x);
          for (r = 0; r < 6; ++r) dA[i][r] += x[r];
        }
        /* dF = dI A + I dA + dV x* (I V) + V x* (dI V + I dV), dI y = s x* (I y) - I (s x y) */
        if (wrt == 0) {
          P_cross_m(S[k], A[i], x);
          for (r = 0; r < 6; ++r) x[r] = dA[i][r] - x[r];
          P_inertia_apply(I[i], x, dF[i]);
          P_cross_f_add(S[k], IA[i], dF[i]);
          P_dforce(I[i], S[k], V[i], H[i], dV[i], u);
        } else {
          P_inertia_apply(I[i], dA[i], dF[i]);
          P_inertia_apply(I[i], dV[i], u);
        }
        P_cross_f_add(dV[i], H[i], dF[i]);
        P_cross_f_add(V[i], u, dF[i]);
      }
      P_project(k, b, in, S, wrt == 0 ? F : 0, dF, wrt == 0 ? Dq : Dv);
    }
  }
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

-- what each piece and function needs: pieces of this file, looped.lua's
-- parts (table, col, inertia) and spatial helpers
local NEEDS = {
  aff = {}, slide = {}, subtree = {}, velocities = {}, composite = {},
  spin = { "aff", spatial = { "cross_m", "dot6" } },
  primal = { parts = { "col", "inertia" } },
  dterm = { "aff", spatial = { "cross_m" } },
  project = { "aff", spatial = { "cross_m", "dot6" } },
  dforce = { spatial = { "cross_m", "inertia_apply", "cross_f" } },
  -- the functions
  d_kinematics = { "kinematics", "subtree", parts = { "col" } },
  d_bjac = { "subtree", parts = { "col" } },
  d_bvel = { "kinematics", "primal", "subtree", "dterm" },
  d_bvel_at = { "velocities", "aff", parts = { "col" }, spatial = { "cross_m" } },
  d_gforce_at = { "primal", "composite", "subtree", "aff", spatial = { "cross_m", "dot6" } },
  d_mvec_at = { "primal", "velocities", "composite", "subtree", "slide", "spin", "dterm", "dforce", "project",
    spatial = { "inertia_apply" } },
  d_rnea_at = { "primal", "composite", "subtree", "aff", "slide", "spin", "dforce", "project",
    spatial = { "cross_m", "inertia_apply", "cross_f" } },
  d_gforce = { "kinematics", "d_gforce_at" },
  d_mvec = { "kinematics", "d_mvec_at" },
  d_rnea = { "kinematics", "d_rnea_at" },
}
local ORDER = { "kinematics", "aff", "slide", "spin", "subtree", "primal", "velocities", "dterm", "project", "composite", "dforce" }

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
    if AT[name] then fn(name .. "_at") end
    need("d_" .. name)
    fns[#fns + 1] = looped.fill(assert(C[name], name), tp, s)
  end
  for _, name in ipairs(names) do fn(name) end
  local pieces = {}
  for _, name in ipairs(ORDER) do
    if used[name] then
      if name == "kinematics" then
        pieces[#pieces + 1] = looped.emit("kinematics", world, t, tp, h, parts):gsub("^static void", "static inline void")
      else
        pieces[#pieces + 1] = looped.fill(PIECES[name], tp, s)
      end
    end
  end
  return h:text() .. "\n" .. parts:text() .. "\n" .. table.concat(pieces, "\n") .. "\n" .. table.concat(fns, "\n")
end

return M
