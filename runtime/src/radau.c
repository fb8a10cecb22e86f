/* radau3: the two-stage Radau IIA method (order 3, L-stable, stiffly
 * accurate), as Drake's RadauIntegrator<T, 2>, with the simplified Newton
 * iteration and the embedded error estimate of Hairer & Wanner (Solving
 * ODEs II, sec. IV.8).
 *
 * Stages at c = (1/3, 1) with A = [[5/12, -1/12], [3/4, 1/4]]; in terms of
 * the stage increments Z_i = X_i - x0 the stage equations are
 *   Z = h (A (x) I) F(Z),   F_i = f(t0 + c_i h, x0 + Z_i),
 * and x1 = x0 + Z_2 (b is A's last row).  Newton's method on them uses the
 * 2 nxc x 2 nxc iteration matrix I - h (A (x) J), the stages interleaved
 * and the states in a band ordering of J (band.c), factored by a banded
 * LU, with J from the Jacobian source (implicit.h).  Newton starts from
 * the last step's collocation polynomial, extrapolated, and a factored
 * matrix serves steps within a factor 1.25 of its own.  J is frozen: it is kept
 * across steps (and step-size changes, which only refactor) while Newton
 * contracts fast, formed anew at the step start after a slow convergence
 * and when Newton fails (the step is then retried once from Z = 0 with a
 * fresh J); a second failure makes error control shrink the step (an
 * infinite error estimate).  Newton stops by Hairer's rate test: with
 * theta the contraction of successive corrections and
 * eta = theta / (1 - theta) (carried over from the last step for the
 * first iteration), when eta |dZ| <= tol.
 *
 * Error estimate (not step doubling, which would triple the work): the
 * embedded second-order solution x^ = x0 + h (g0 f(t0, x0) + b^_1 F_1 +
 * b^_2 F_2) with g0 = 1/4, b^ = (3/8, 3/8) (order conditions sum = 1 and
 * sum b^_i c_i = 1/2, node 0 for f(t0, x0)); x^ - x1 = g0 h f0 + e1 Z_1 +
 * e2 Z_2 with e = (b^ - b)^T A^-1 = (-9/8, 1/8).  Filtered as Hairer &
 * Wanner do, err = (I - h g0 J)^-1 (x^ - x1), which stays bounded for
 * stiff components; when that estimate would reject the step it is
 * re-evaluated once with f(t0, x0 + err) in place of f0 (their refinement
 * for the first and rejected steps).  The estimate is O(h^3), so error
 * control uses the exponent 3.
 *
 * Called by integrators.c (the method table); J's refresh, the matrices'
 * reuse, the convergence test, failure handling, the stages, the
 * predictor and the accepted step are the Newton core's (newton.c). */
#include <math.h>
#include <string.h>

#include "methods.h"
#include "newton.h"
#include "sim_internal.h"

static const double RA11 = 5.0 / 12, RA12 = -1.0 / 12;
static const double RA21 = 3.0 / 4, RA22 = 1.0 / 4;
static const double NODES[2] = {1.0 / 3, 1.0};
static const double G0 = 0.25, E1 = -9.0 / 8, E2 = 1.0 / 8;
static const diagc_newton_rule RULE = {10, 0, 1.0, 0};
/* J is formed anew at the next step when Newton's contraction was slower */
static const double THETA_REUSE = 0.2;
/* A factored matrix is reused for steps within this ratio of the step it
 * was formed with (simplified Newton tolerates the difference) */
static const double LU_KEEP = 1.25;

/* The linear systems are solved in band order: state i is at position
 * inv[i], and stage st of state i at 2 inv[i] + st (interleaved). */

/* iter_m = LU(I - h (A (x) J)) in band order; 0, or -1 if singular. */
static int factor_stage_matrix(diagc_sim *s, double h) {
  const diagc_implicit *w = &s->imp;
  const int n = s->nxc, nn = 2 * n;
  const double a[2][2] = {{RA11, RA12}, {RA21, RA22}};
  double *m = w->iter_m;
  int bi, bj, i, j;
  memset(m, 0, (size_t)nn * (size_t)nn * sizeof(double));
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      const double jij = w->jac[(size_t)i * n + j];
      if (jij == 0 && i != j) continue;
      for (bi = 0; bi < 2; bi++)
        for (bj = 0; bj < 2; bj++)
          m[(size_t)(2 * w->inv[i] + bi) * nn + (size_t)(2 * w->inv[j] + bj)] =
              (bi == bj && i == j ? 1.0 : 0.0) - h * a[bi][bj] * jij;
    }
  s->st.lu_factorizations++;
  s->imp.lu_h = NAN;
  if (diagc_band_lu_factor(m, nn, 2 * w->kl + 1, 2 * w->ku + 1, w->piv) != 0)
    return -1;
  s->imp.lu_h = h;
  return 0;
}

/* iter_e = LU(I - h g0 J) in band order; 0, or -1 if singular. */
static int factor_error_matrix(diagc_sim *s, double h) {
  const diagc_implicit *w = &s->imp;
  const int n = s->nxc;
  double *m = w->iter_e;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      m[(size_t)w->inv[i] * n + w->inv[j]] =
          (i == j ? 1.0 : 0.0) - h * G0 * w->jac[(size_t)i * n + j];
  s->st.lu_factorizations++;
  s->imp.lue_h = NAN;
  if (diagc_band_lu_factor(m, n, w->kl, w->ku, w->piv_e) != 0) return -1;
  s->imp.lue_h = h;
  return 0;
}

/* Solves iter_m y = r for r = (r_1, r_2) (stages, 2 nxc) in place. */
static void solve_stage_matrix(diagc_sim *s, double *r) {
  const diagc_implicit *w = &s->imp;
  const int n = s->nxc;
  int i;
  for (i = 0; i < n; i++) {
    w->pb[2 * w->inv[i]] = r[i];
    w->pb[2 * w->inv[i] + 1] = r[n + i];
  }
  diagc_band_lu_solve(w->iter_m, 2 * n, 2 * w->kl + 1, 2 * w->ku + 1, w->piv,
                      w->pb);
  for (i = 0; i < n; i++) {
    r[i] = w->pb[2 * w->inv[i]];
    r[n + i] = w->pb[2 * w->inv[i] + 1];
  }
}

/* One Newton correction: dz = M^-1 (h (A (x) I) F - Z), Z += dz; returns
 * the scaled norm max |dz_i| / (1 + |x0_i|) (NaN propagates). */
static double newton_correct(diagc_sim *s, double h) {
  const int n = s->nxc;
  double *z = s->imp.z, *dz = s->imp.dz;
  const double *f = s->imp.f;
  double nrm = 0;
  int i;
  for (i = 0; i < n; i++) {
    dz[i] = h * (RA11 * f[i] + RA12 * f[n + i]) - z[i];
    dz[n + i] = h * (RA21 * f[i] + RA22 * f[n + i]) - z[n + i];
  }
  solve_stage_matrix(s, dz);
  for (i = 0; i < 2 * n; i++) {
    const double r = fabs(dz[i]) / (1 + fabs(s->x0[i % n]));
    z[i] += dz[i];
    if (!(r <= nrm)) nrm = r;
  }
  return nrm;
}

/* Simplified Newton on the stage equations from the predicted Z (or 0);
 * 1 if converged (imp.theta: the last contraction, 0 after one
 * iteration). */
static int newton_radau(diagc_sim *s, double t0, double h, int use_pred,
                        int *rc) {
  diagc_newton nt;
  int v;
  diagc_newton_start(s, &nt, &RULE, diagc_newton_tol(s, 1e-2));
  diagc_newton_predict(s, t0, h, NODES, 2, use_pred);
  do {
    if ((*rc = diagc_newton_eval_stages(s, t0, h, NODES, 2)) != 0) return 0;
    v = diagc_newton_judge(s, &nt, newton_correct(s, h));
  } while (v == DIAGC_NEWTON_CONTINUE);
  return v == DIAGC_NEWTON_CONVERGED;
}

/* Solves the stages: from the predicted Z with the current J, then, if
 * Newton fails, once more from Z = 0 with a fresh J (formed now unless it
 * already is).  *conv = 1 when solved. */
static int solve_stages(diagc_sim *s, double t0, double h, int *conv) {
  int fresh = 0, rc = 0, tries;
  if (!s->imp.jac_valid) {
    if ((rc = diagc_newton_refresh_jacobian(s, t0)) != 0) return rc;
    fresh = 1;
  }
  for (tries = 0;; tries++) {
    *conv = 0;
    if (diagc_newton_lu_usable(s->imp.lu_h, h, LU_KEEP) ||
        factor_stage_matrix(s, h) == 0) {
      *conv = newton_radau(s, t0, h, tries == 0, &rc);
      if (rc != 0) return rc;
    }
    if (*conv) break;
    diagc_newton_failure(s);
    if (tries == 1) return 0;
    if (!fresh && (rc = diagc_newton_refresh_jacobian(s, t0)) != 0) return rc;
    fresh = 1;
  }
  if (s->imp.theta > THETA_REUSE) s->imp.jac_valid = 0;
  return 0;
}

/* errv = |(I - h g0 J)^-1 (g0 h fs + e1 Z_1 + e2 Z_2)|, its infinity norm
 * returned (NaN or infinity if the matrix is singular); signed in xa. */
static double error_estimate(diagc_sim *s, double h, const double *fs) {
  const int n = s->nxc;
  const double *z = s->imp.z;
  double *e = s->xa, m = 0;
  int i;
  if (!diagc_newton_lu_usable(s->imp.lue_h, h, LU_KEEP) &&
      factor_error_matrix(s, h) != 0)
    return INFINITY;
  for (i = 0; i < n; i++) e[i] = G0 * h * fs[i] + (E1 * z[i] + E2 * z[n + i]);
  diagc_newton_band_solve(s, s->imp.iter_e, s->imp.piv_e, e);
  for (i = 0; i < n; i++) {
    s->errv[i] = fabs(e[i]);
    if (!(s->errv[i] <= m)) m = s->errv[i];
  }
  return m;
}

/* The error estimate, refined with f(t0, x0 + err) if it would reject. */
static int estimate_error(diagc_sim *s, double t0, double h) {
  int rc;
  double m = error_estimate(s, h, s->k0);
  if (!(m > s->accuracy_in_use) || !isfinite(m)) return 0;
  if ((rc = diagc_newton_eval_at_error(s, t0)) != 0) return rc;
  error_estimate(s, h, s->fx);
  return 0;
}

int diagc_step_radau3(diagc_sim *s, double h) {
  const int n = s->nxc;
  const double t0 = diagc_sim_ctx_time(s);
  int rc, conv;
  memcpy(s->x0, diagc_sim_xc(s), (size_t)n * sizeof(double));
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  if ((rc = solve_stages(s, t0, h, &conv)) != 0) return rc;
  if (!conv) return diagc_newton_give_up(s, "radau3", t0, h);
  if (!s->fixed_mode && (rc = estimate_error(s, t0, h)) != 0) return rc;
  diagc_newton_accept(s, t0, h, 2);
  return 0;
}
