/* radau5: the three-stage Radau IIA method (order 5, L-stable, stiffly
 * accurate), the method of Hairer & Wanner's RADAU5 (Solving ODEs II,
 * sec. IV.8), written here from the published method, not from their code.
 *
 * Stages at c = ((4 - sqrt6)/10, (4 + sqrt6)/10, 1) with the collocation
 * matrix A (sum_j a_ij c_j^(k-1) = c_i^k / k, k = 1..3).  In terms of the
 * stage increments Z_i = X_i - x0 the stage equations are
 *   Z = h (A (x) I) F(Z),   F_i = f(t0 + c_i h, x0 + Z_i),
 * and x1 = x0 + Z_3.
 *
 * Linear algebra.  A^-1 has one real eigenvalue GAM and a complex pair
 * ALPHA +- i BETA; with T (columns: the real eigenvector and the real and
 * imaginary parts of the eigenvector of ALPHA - i BETA, scaled so that
 * T's last row is (1, 1, 0)), T^-1 A^-1 T = [[GAM, 0, 0], [0, ALPHA,
 * -BETA], [0, BETA, ALPHA]].  In the transformed increments W = (T^-1 (x)
 * I) Z, simplified Newton on F(Z) - h^-1 (A^-1 (x) I) Z = 0 becomes
 *   (GAM/h I - J) dW_1 = G_1 - GAM/h W_1
 *   ((ALPHA + i BETA)/h I - J) (dW_2 + i dW_3) =
 *       G_2 - (ALPHA W_2 - BETA W_3)/h + i (G_3 - (BETA W_2 + ALPHA W_3)/h)
 * with G = (T^-1 (x) I) F: one real and one complex nxc x nxc matrix, both
 * factored by a banded LU in a reverse Cuthill-McKee order of J's nonzeros
 * (band.c, the complex one too), instead of one 3 nxc x 3 nxc matrix.
 * The constants below were computed (40 digits, then rounded) from those
 * definitions; tests/c/test_simulator_radau5.c checks them.
 *
 * Newton (simplified: J and the factored matrices are kept across steps):
 * starts from the previous step's collocation polynomial, extrapolated to
 * this step's nodes, when the step continues where the last one ended
 * (else from Z = 0); at most NIT iterations; stops when eta |dW| <= tol,
 * eta = theta / (1 - theta), theta the contraction of successive
 * corrections (eta carried over from the last step for the first
 * iteration), tol = kappa accuracy with kappa = min(0.03, sqrt(accuracy))
 * (Hairer's choice, relative to 1 + |x0|); gives up when theta >= 0.99 or
 * when the contraction predicts no convergence within NIT iterations.  J
 * is formed anew at the next step when Newton contracted more slowly than
 * THET, after a rejected step (unless J is the step start's already), and
 * after a Newton failure; the step size is then reduced (by the factor the
 * contraction predicts, or 1/2).
 *
 * Error estimate (Hairer & Wanner (8.19)-(8.20)): the embedded
 * third-order solution x^ = x0 + h (GAM0 f(t0, x0) + sum b^_i F_i),
 * GAM0 = 1/GAM, b^ from the order conditions sum b^_i c_i^(k-1) = 1/k -
 * GAM0 [k = 1], gives x^ - x1 = GAM0 h f0 + sum E_i Z_i with E = A^-T
 * (b^ - b) = GAM0/3 (-13 - 7 sqrt6, -13 + 7 sqrt6, -1); filtered,
 *   err = (I - h GAM0 J)^-1 (GAM0 h f0 + sum E_i Z_i)
 *       = GAM/h (GAM/h I - J)^-1 (...),
 * which reuses the real matrix's LU.  On the first step and after a
 * rejection, an estimate that would reject is recomputed once with
 * f(t0, x0 + err) in place of f0.  The estimate is O(h^4).
 *
 * Step size: Gustafsson's predictive controller (Hairer & Wanner (8.25)),
 * in diagc_radau5_propose; the simulator applies max_step and the minimum
 * step (integrators.c).
 *
 * Dense output: the simulator does not need one (witness functions are
 * isolated by re-integrating from the step's start, loggers sample at
 * step ends), so, as radau3, radau5 keeps the collocation polynomial only
 * to predict the next step's stages.
 *
 * Called by integrators.c (the method table and, for the controller,
 * step-size control); J's refresh, the convergence test, failure
 * handling, the stages, the predictor and the accepted step are the
 * Newton core's (newton.c). */
#include <math.h>
#include <string.h>

#include "methods.h"
#include "newton.h"
#include "sim_internal.h"

/* the nodes c = ((4 - sqrt6)/10, (4 + sqrt6)/10, 1) */
static const double NODES[3] = {0.15505102572168219, 0.64494897427831781,
                                1.0};
/* eigenvalues of A^-1, the error estimate's coefficients */
static const double GAM = 3.6378342527444957, ALPHA = 2.6810828736277521,
                    BETA = 3.0504301992474106, GAM0 = 0.27488882959567737;
static const double E1 = -2.7623054547485994, E2 = 0.37993559825272888,
                    E3 = -0.091629609865225789;
/* T and T^-1 (T31 = T32 = 1, T33 = 0) */
static const double T11 = 0.094438762488975241, T12 = -0.14125529502095421,
                    T13 = -0.030029194105147424;
static const double T21 = 0.25021312296533331, T22 = 0.20412935229379993,
                    T23 = 0.38294211275726194;
static const double TI11 = 4.1787185915519047, TI12 = 0.32768282076106239,
                    TI13 = 0.52337644549944955;
static const double TI21 = -4.1787185915519047, TI22 = -0.32768282076106239,
                    TI23 = 0.47662355450055045;
static const double TI31 = -0.50287263494578688, TI32 = 2.5719269498556054,
                    TI33 = -0.59603920482822492;

enum { NIT = 7 };
/* Newton: NIT iterations at most, diverging at theta >= 0.99, and given
 * up early when the rate predicts no convergence within NIT */
static const diagc_newton_rule RULE = {NIT, 0, 0.99, 1};
/* J is kept for the next step when Newton contracted at least this fast */
static const double THET = 0.001;
/* the controller: safety, growth and shrink limits, and the band of
 * step ratios in which the step (and so the factored matrices) is kept */
static const double SAFE = 0.9, FAC_GROW = 8.0, FAC_SHRINK = 0.2;
static const double KEEP_LO = 1.0, KEEP_HI = 1.2;

/* ---- the iteration matrices --------------------------------------------- */

/* The workspace (implicit.h, allocated for 3 stages): iter_m holds the
 * real matrix (nxc^2) and then the complex one (2 nxc^2); piv their
 * pivots (nxc each). */
static double *real_m(const diagc_implicit *w) { return w->iter_m; }
static double *cplx_m(const diagc_implicit *w, int n) {
  return w->iter_m + (size_t)n * n;
}

/* Both matrices for step h in band order, factored; 0 or -1 if singular. */
static int factor_matrices(diagc_sim *s, double h) {
  diagc_implicit *w = &s->imp;
  const int n = s->nxc;
  const double g = GAM / h, ar = ALPHA / h, ai = BETA / h;
  double *mr = real_m(w), *mc = cplx_m(w, n);
  int i, j;
  memset(mr, 0, (size_t)n * (size_t)n * sizeof(double));
  memset(mc, 0, 2 * (size_t)n * (size_t)n * sizeof(double));
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      const double jij = w->jac[(size_t)i * n + j];
      const size_t at = (size_t)w->inv[i] * n + (size_t)w->inv[j];
      if (jij == 0 && i != j) continue;
      mr[at] = (i == j ? g : 0.0) - jij;
      mc[2 * at] = (i == j ? ar : 0.0) - jij;
      mc[2 * at + 1] = i == j ? ai : 0.0;
    }
  s->st.lu_factorizations += 2;
  w->lu_h = NAN;
  if (diagc_band_lu_factor(mr, n, w->kl, w->ku, w->piv) != 0 ||
      diagc_cband_lu_factor(mc, n, w->kl, w->ku, w->piv + n) != 0)
    return -1;
  w->lu_h = h;
  return 0;
}

/* Solves the real matrix's system for r (nxc) in place. */
static void solve_real(diagc_sim *s, double *r) {
  diagc_newton_band_solve(s, real_m(&s->imp), s->imp.piv, r);
}

/* Solves the complex matrix's system for re + i im (nxc each) in place. */
static void solve_complex(diagc_sim *s, double *re, double *im) {
  const diagc_implicit *w = &s->imp;
  const int n = s->nxc;
  int i;
  for (i = 0; i < n; i++) {
    w->pb[2 * w->inv[i]] = re[i];
    w->pb[2 * w->inv[i] + 1] = im[i];
  }
  diagc_cband_lu_solve(cplx_m(w, n), n, w->kl, w->ku, w->piv + n, w->pb);
  for (i = 0; i < n; i++) {
    re[i] = w->pb[2 * w->inv[i]];
    im[i] = w->pb[2 * w->inv[i] + 1];
  }
}

/* ---- Newton ------------------------------------------------------------- */

/* Z = (T (x) I) W. */
static void z_from_w(diagc_sim *s) {
  const int n = s->nxc;
  const double *w = s->imp.wv;
  double *z = s->imp.z;
  int i;
  for (i = 0; i < n; i++) {
    const double w1 = w[i], w2 = w[n + i], w3 = w[2 * n + i];
    z[i] = T11 * w1 + T12 * w2 + T13 * w3;
    z[n + i] = T21 * w1 + T22 * w2 + T23 * w3;
    z[2 * n + i] = w1 + w2;
  }
}

/* W = (T^-1 (x) I) Z. */
static void w_from_z(diagc_sim *s) {
  const int n = s->nxc;
  const double *z = s->imp.z;
  double *w = s->imp.wv;
  int i;
  for (i = 0; i < n; i++) {
    const double z1 = z[i], z2 = z[n + i], z3 = z[2 * n + i];
    w[i] = TI11 * z1 + TI12 * z2 + TI13 * z3;
    w[n + i] = TI21 * z1 + TI22 * z2 + TI23 * z3;
    w[2 * n + i] = TI31 * z1 + TI32 * z2 + TI33 * z3;
  }
}

/* One Newton correction: dW from the transformed systems, W += dW,
 * Z = T W; returns max |dW_i| / (1 + |x0_i|) (NaN propagates). */
static double newton_correct(diagc_sim *s, double h) {
  const int n = s->nxc;
  diagc_implicit *w = &s->imp;
  double *d1 = w->dz, *d2 = w->dz + n, *d3 = w->dz + 2 * n;
  const double *f = w->f, *wv = w->wv;
  const double g = GAM / h, ar = ALPHA / h, ai = BETA / h;
  double nrm = 0;
  int i;
  for (i = 0; i < n; i++) {
    const double f1 = f[i], f2 = f[n + i], f3 = f[2 * n + i];
    const double w1 = wv[i], w2 = wv[n + i], w3 = wv[2 * n + i];
    d1[i] = (TI11 * f1 + TI12 * f2 + TI13 * f3) - g * w1;
    d2[i] = (TI21 * f1 + TI22 * f2 + TI23 * f3) - (ar * w2 - ai * w3);
    d3[i] = (TI31 * f1 + TI32 * f2 + TI33 * f3) - (ai * w2 + ar * w3);
  }
  solve_real(s, d1);
  solve_complex(s, d2, d3);
  for (i = 0; i < 3 * n; i++) {
    const double r = fabs(w->dz[i]) / (1 + fabs(s->x0[i % n]));
    w->wv[i] += w->dz[i];
    if (!(r <= nrm)) nrm = r;
  }
  z_from_w(s);
  return nrm;
}

/* The starting Z and W: the last step's collocation polynomial
 * extrapolated (the core's predictor), or 0. */
static void predict(diagc_sim *s, double t0, double h) {
  if (diagc_newton_predict(s, t0, h, NODES, 3, 1))
    w_from_z(s);
  else
    memset(s->imp.wv, 0, (size_t)(3 * s->nxc) * sizeof(double));
}

/* Simplified Newton from the predicted Z.  1 if converged; on failure
 * imp.newton_fac gets the step reduction to try. */
static int newton(diagc_sim *s, double t0, double h, int *rc) {
  const double acc = s->accuracy_in_use;
  const double kappa = sqrt(acc) < 0.03 ? sqrt(acc) : 0.03;
  diagc_newton nt;
  int v;
  diagc_newton_start(s, &nt, &RULE, diagc_newton_tol(s, kappa));
  predict(s, t0, h);
  do {
    if ((*rc = diagc_newton_eval_stages(s, t0, h, NODES, 3)) != 0) return 0;
    v = diagc_newton_judge(s, &nt, newton_correct(s, h));
  } while (v == DIAGC_NEWTON_CONTINUE);
  return v == DIAGC_NEWTON_CONVERGED;
}

/* ---- the error estimate --------------------------------------------------- */

/* errv = |(I - h GAM0 J)^-1 (GAM0 h fs + sum E_i Z_i)| (also left signed
 * in xa); returns its infinity norm. */
static double error_estimate(diagc_sim *s, double h, const double *fs) {
  const int n = s->nxc;
  const double *z = s->imp.z;
  double *e = s->xa, m = 0;
  int i;
  for (i = 0; i < n; i++)
    e[i] = GAM0 * h * fs[i] + (E1 * z[i] + E2 * z[n + i] + E3 * z[2 * n + i]);
  solve_real(s, e);
  for (i = 0; i < n; i++) {
    e[i] *= GAM / h;
    s->errv[i] = fabs(e[i]);
    if (!(s->errv[i] <= m)) m = s->errv[i];
  }
  return m;
}

static int estimate_error(diagc_sim *s, double t0, double h) {
  const diagc_implicit *w = &s->imp;
  int rc;
  const double m = error_estimate(s, h, s->k0);
  if (!(m > s->accuracy_in_use) || !isfinite(m)) return 0;
  if (!(isnan(w->hacc) || w->rejected)) return 0; /* first or rejected only */
  if ((rc = diagc_newton_eval_at_error(s, t0)) != 0) return rc;
  error_estimate(s, h, s->fx);
  return 0;
}

/* ---- the step ------------------------------------------------------------ */

/* A failed solve: a J from an earlier point is formed anew at the retry,
 * which error control makes shorter. */
static int newton_failed(diagc_sim *s, double t0, double h) {
  diagc_newton_failure(s);
  if (!diagc_newton_jacobian_current(s, t0)) s->imp.jac_valid = 0;
  return diagc_newton_give_up(s, "radau5", t0, h);
}

int diagc_step_radau5(diagc_sim *s, double h) {
  const int n = s->nxc;
  const double t0 = diagc_sim_ctx_time(s);
  diagc_implicit *w = &s->imp;
  int rc = 0, conv;
  memcpy(s->x0, diagc_sim_xc(s), (size_t)n * sizeof(double));
  w->newton_failed = 0;
  w->newton_its = 0;
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  /* after a rejection, a J from an earlier point is formed anew */
  if (w->jac_valid && w->rejected && !diagc_newton_jacobian_current(s, t0))
    w->jac_valid = 0;
  if (!w->jac_valid && (rc = diagc_newton_refresh_jacobian(s, t0)) != 0)
    return rc;
  if (!diagc_newton_lu_usable(w->lu_h, h, 1.0) && factor_matrices(s, h) != 0)
    return newton_failed(s, t0, h);
  conv = newton(s, t0, h, &rc);
  if (rc != 0) return rc;
  if (!conv) return newton_failed(s, t0, h);
  if (!s->fixed_mode && (rc = estimate_error(s, t0, h)) != 0) return rc;
  diagc_newton_accept(s, t0, h, 3);
  /* J is formed anew at the next step after a slow convergence */
  if (w->theta > THET) w->jac_valid = 0;
  return 0;
}

/* ---- step-size control ---------------------------------------------------- */

void diagc_radau5_propose(diagc_sim *s, double err, double h, int *ok,
                          double *hn) {
  diagc_implicit *w = &s->imp;
  const double fac0 = (2.0 * NIT + 1) / (2.0 * NIT + w->newton_its);
  const double fac = fac0 < SAFE ? fac0 : SAFE;
  double q, quot;
  if (!isfinite(err) || w->newton_failed) {
    *ok = 0;
    *hn = h * (w->newton_failed ? w->newton_fac : FAC_SHRINK);
    w->rejected = 1;
    return;
  }
  q = err / s->accuracy_in_use;
  quot = pow(q, 0.25) / fac;
  if (quot < 1 / FAC_GROW) quot = 1 / FAC_GROW;
  if (quot > 1 / FAC_SHRINK) quot = 1 / FAC_SHRINK;
  if (q <= 1) {
    double r;
    if (!isnan(w->hacc)) {
      /* Gustafsson: the last two accepted steps' errors */
      double g = w->hacc / h * pow(q * q / w->erracc, 0.25) / SAFE;
      if (g < 1 / FAC_GROW) g = 1 / FAC_GROW;
      if (g > 1 / FAC_SHRINK) g = 1 / FAC_SHRINK;
      if (g > quot) quot = g;
    }
    w->hacc = h;
    w->erracc = q > 1e-2 ? q : 1e-2;
    *hn = h / quot;
    if (w->rejected && *hn > h) *hn = h; /* no growth right after a reject */
    r = *hn / h;
    if (r >= KEEP_LO && r <= KEEP_HI) *hn = h; /* keep the factored LU */
    w->rejected = 0;
    *ok = 1;
    return;
  }
  *ok = 0;
  *hn = isnan(w->hacc) ? 0.1 * h : h / quot;
  w->rejected = 1;
}
