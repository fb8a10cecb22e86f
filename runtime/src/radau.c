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
 * control uses the exponent 3. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "sim_internal.h"

static const double RA11 = 5.0 / 12, RA12 = -1.0 / 12;
static const double RA21 = 3.0 / 4, RA22 = 1.0 / 4;
static const double RC1 = 1.0 / 3;
static const double G0 = 0.25, E1 = -9.0 / 8, E2 = 1.0 / 8;
enum { MAX_NEWTON = 10 };
/* J is formed anew at the next step when Newton's contraction was slower */
static const double THETA_REUSE = 0.2;
/* A factored matrix is reused for steps within this ratio of the step it
 * was formed with (simplified Newton tolerates the difference) */
static const double LU_KEEP = 1.25;

static int lu_usable(double formed_h, double h) {
  return h <= formed_h * LU_KEEP && h * LU_KEEP >= formed_h; /* NaN: no */
}

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

/* Solves iter_e y = r (nxc) in place. */
static void solve_error_matrix(diagc_sim *s, double *r) {
  const diagc_implicit *w = &s->imp;
  const int n = s->nxc;
  int i;
  for (i = 0; i < n; i++) w->pb[w->inv[i]] = r[i];
  diagc_band_lu_solve(w->iter_e, n, w->kl, w->ku, w->piv_e, w->pb);
  for (i = 0; i < n; i++) r[i] = w->pb[w->inv[i]];
}

/* F_i = f(t0 + c_i h, x0 + Z_i) for both stages; the second stage's time
 * is exactly t0 + h. */
static int eval_stages(diagc_sim *s, double t0, double h) {
  const int n = s->nxc;
  const double *z = s->imp.z;
  int st, i, rc;
  for (st = 0; st < 2; st++) {
    s->m->set_time(s->ctx, st == 0 ? t0 + RC1 * h : t0 + h);
    for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + z[st * n + i];
    diagc_sim_put_xc(s, s->xt);
    if ((rc = diagc_sim_eval_xcdot(s, s->imp.f + st * n)) != 0) return rc;
  }
  return 0;
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
  s->st.newton_iterations++;
  for (i = 0; i < 2 * n; i++) {
    const double r = fabs(dz[i]) / (1 + fabs(s->x0[i % n]));
    z[i] += dz[i];
    if (!(r <= nrm)) nrm = r;
  }
  return nrm;
}

/* The starting Z: the last step's collocation polynomial (through Z = 0,
 * Z_1, Z_2 at 0, c_1, 1 in units of its step), extrapolated to this step's
 * nodes, when this step starts where that one ended (same time and state:
 * no rejection, update or snap since); otherwise 0. */
static void predict(diagc_sim *s, double t0, double h, int use) {
  const int n = s->nxc;
  const diagc_implicit *w = &s->imp;
  double *z = w->z;
  int st, i;
  if (!use || !(w->tend == t0) ||
      memcmp(w->xend, s->x0, (size_t)n * sizeof(double)) != 0) {
    memset(z, 0, (size_t)(2 * n) * sizeof(double));
    return;
  }
  for (st = 0; st < 2; st++) {
    const double u = 1 + (st == 0 ? RC1 : 1.0) * h / w->hp;
    const double l1 = u * (u - 1) / (RC1 * (RC1 - 1));
    const double l2 = u * (u - RC1) / (1 - RC1);
    for (i = 0; i < n; i++)
      z[st * n + i] = l1 * w->zp[i] + l2 * w->zp[n + i] - w->zp[n + i];
  }
}

/* Keeps this step's Z for the next step's predictor. */
static void remember(diagc_sim *s, double t1, double h) {
  const int n = s->nxc;
  diagc_implicit *w = &s->imp;
  memcpy(w->zp, w->z, (size_t)(2 * n) * sizeof(double));
  memcpy(w->xend, s->xt, (size_t)n * sizeof(double));
  w->tend = t1;
  w->hp = h;
}

/* Simplified Newton on the stage equations from the predicted Z (or 0).
 * *theta gets the last contraction factor (0 after one iteration); 1 if
 * converged. */
static int newton_radau(diagc_sim *s, double t0, double h, int use_pred,
                        double *theta, int *rc) {
  const double tol =
      s->accuracy_in_use * 1e-2 > 1e-13 ? s->accuracy_in_use * 1e-2 : 1e-13;
  double eta = pow(s->imp.eta > DBL_EPSILON ? s->imp.eta : DBL_EPSILON, 0.8);
  double prev = 0;
  int it;
  *theta = 0;
  predict(s, t0, h, use_pred);
  for (it = 0; it < MAX_NEWTON; it++) {
    double nrm;
    if ((*rc = eval_stages(s, t0, h)) != 0) return 0;
    nrm = newton_correct(s, h);
    if (!isfinite(nrm)) return 0;
    if (it > 0) {
      *theta = prev > 0 ? nrm / prev : 0;
      if (*theta >= 1) return 0; /* diverging */
      eta = *theta / (1 - *theta);
    }
    if (eta * nrm <= tol || nrm == 0) {
      s->imp.eta = eta;
      return 1;
    }
    prev = nrm;
  }
  return 0;
}

/* The context back at (t0, x0), where f0 = f; a new J there, and its band
 * ordering. */
static int fresh_jacobian(diagc_sim *s, double t0) {
  diagc_implicit *w = &s->imp;
  int rc;
  s->m->set_time(s->ctx, t0);
  diagc_sim_put_xc(s, s->x0);
  w->jac_valid = 1;
  w->lu_h = w->lue_h = NAN;
  if ((rc = diagc_form_jacobian(s, s->k0)) != 0) return rc;
  diagc_band_order(w->jac, s->nxc, w->perm, w->inv, w->deg, &w->kl, &w->ku);
  return 0;
}

/* Solves the stages: from the predicted Z with the current J, then, if
 * Newton fails, once more from Z = 0 with a fresh J (formed now unless it
 * already is).  *conv = 1 when solved. */
static int solve_stages(diagc_sim *s, double t0, double h, int *conv) {
  int fresh = 0, rc = 0, tries;
  double theta = 0;
  if (!s->imp.jac_valid) {
    if ((rc = fresh_jacobian(s, t0)) != 0) return rc;
    fresh = 1;
  }
  for (tries = 0;; tries++) {
    *conv = 0;
    if (lu_usable(s->imp.lu_h, h) || factor_stage_matrix(s, h) == 0) {
      *conv = newton_radau(s, t0, h, tries == 0, &theta, &rc);
      if (rc != 0) return rc;
    }
    if (*conv) break;
    s->st.newton_failures++;
    s->imp.eta = 1.0;
    if (tries == 1) return 0;
    if (!fresh && (rc = fresh_jacobian(s, t0)) != 0) return rc;
    fresh = 1;
  }
  if (theta > THETA_REUSE) s->imp.jac_valid = 0;
  return 0;
}

/* errv = |(I - h g0 J)^-1 (g0 h fs + e1 Z_1 + e2 Z_2)|, its infinity norm
 * returned (NaN or infinity if the matrix is singular). */
static double error_estimate(diagc_sim *s, double h, const double *fs) {
  const int n = s->nxc;
  const double *z = s->imp.z;
  double *e = s->xa, m = 0;
  int i;
  if (!lu_usable(s->imp.lue_h, h) && factor_error_matrix(s, h) != 0)
    return INFINITY;
  for (i = 0; i < n; i++) e[i] = G0 * h * fs[i] + (E1 * z[i] + E2 * z[n + i]);
  solve_error_matrix(s, e);
  for (i = 0; i < n; i++) {
    s->errv[i] = fabs(e[i]);
    if (!(s->errv[i] <= m)) m = s->errv[i];
  }
  return m;
}

/* The error estimate, refined with f(t0, x0 + err) if it would reject. */
static int estimate_error(diagc_sim *s, double t0, double h) {
  const int n = s->nxc;
  int i, rc;
  double m = error_estimate(s, h, s->k0);
  if (!(m > s->accuracy_in_use) || !isfinite(m)) return 0;
  s->m->set_time(s->ctx, t0);
  for (i = 0; i < n; i++) s->xb[i] = s->x0[i] + s->xa[i];
  diagc_sim_put_xc(s, s->xb);
  if ((rc = diagc_sim_eval_xcdot(s, s->fx)) != 0) return rc;
  error_estimate(s, h, s->fx);
  return 0;
}

static int newton_failed(diagc_sim *s, double t0, double h) {
  int i;
  if (s->fixed_mode) {
    s->m->set_time(s->ctx, t0);
    diagc_sim_put_xc(s, s->x0);
    diagc_sim_set_err(s,
                      "radau3: Newton's method did not converge at "
                      "t = %.17g with step %g",
                      t0, h);
    return DIAGC_SIM_E_STEP;
  }
  /* an infinite error makes error control shrink the step */
  for (i = 0; i < s->nxc; i++) s->errv[i] = INFINITY;
  s->m->set_time(s->ctx, t0 + h);
  diagc_sim_put_xc(s, s->x0);
  return 0;
}

int diagc_step_radau3(diagc_sim *s, double h) {
  const int n = s->nxc;
  const double t0 = diagc_sim_ctx_time(s);
  int i, rc, conv;
  memcpy(s->x0, diagc_sim_xc(s), (size_t)n * sizeof(double));
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  if ((rc = solve_stages(s, t0, h, &conv)) != 0) return rc;
  if (!conv) return newton_failed(s, t0, h);
  if (!s->fixed_mode && (rc = estimate_error(s, t0, h)) != 0) return rc;
  for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + s->imp.z[n + i];
  remember(s, t0 + h, h);
  s->m->set_time(s->ctx, t0 + h);
  diagc_sim_put_xc(s, s->xt);
  return 0;
}
