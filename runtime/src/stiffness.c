/* The explicit methods' stiffness test (docs/simulator.md, "Stiffness"),
 * after Hairer's in DOPRI5 (Hairer, Norsett & Wanner, Solving ODEs I,
 * sec. II.10): an explicit method whose steps are held at its stability
 * limit, h |lambda| ~ the limit for the stiff eigenvalue lambda, takes far
 * more steps than the accuracy needs (error control keeps the step there,
 * rejecting the ones that go beyond), and a fixed step beyond the limit
 * grows the stiff component without bound (or into a wrong, bounded
 * oscillation).  Each method estimates h |lambda| from derivatives its
 * step evaluated anyway (explicit.c: the stages' difference along the
 * step's error, rho = |sum d_i k_i| / |sum d_i X_i| for stage states X_i
 * with sum d_i = sum d_i c_i = 0, exact for a linear model); explicit_euler
 * and semi_explicit_euler, with one derivative per step, from two
 * successive steps (here).
 *
 * A test runs on the first step, then after gaps doubling up to
 * TEST_EVERY accepted steps (steps 1, 3, 7, 15, ...: a short run is tested
 * too), and every step while one of the last CALM tests hit (h |lambda|
 * above HIT of the limit: under error control the steps hover at the
 * limit, and an unstable fixed step whose growth a nonlinearity bounds
 * keeps the estimate near it).  The evidence is conclusive at HITS hits (a hit
 * above STRONG times the limit, a clear instability, counts STRONG_HITS)
 * without CALM tests in a row below the limit in between; the statistics
 * then keep the time, and the step and h |lambda| as geometric means over
 * the tests since the first of those hits (the estimates of a stiff
 * component at the stability limit alternate about it, and error control
 * varies the step), and the tests stop.  Cost: a countdown per step
 * (integrators.c); a test reads a few stage vectors.  Results are
 * untouched (the test only reads).
 *
 * Called by integrators.c after each accepted step; calls the method's
 * estimator through the method table's pointer it is given. */
#include <math.h>
#include <stdint.h>

#include "sim_internal.h"

enum { TEST_EVERY = 1000, HITS = 15, CALM = 6, STRONG_HITS = 5 };
static const double HIT = 0.9, STRONG = 10;

void diagc_stiffness_reset(diagc_sim *s, const diagc_integrator_desc *d) {
  s->st.stiffness_tests = 0;
  s->st.stiffness_hits = 0;
  s->st.stability_limit =
      d && d->stability_limit > 0 ? d->stability_limit : NAN;
  s->st.stiff_time = NAN;
  s->st.stiff_step = NAN;
  s->st.stiff_hlambda = NAN;
  /* the first step is tested; the implicit methods and steppers never */
  s->sk_countdown = d && d->stability_limit > 0 ? 1 : INT64_MAX;
  s->sk_hits = 0;
  s->sk_calm = 0;
  s->sk_t = NAN;
  s->sk_loghl = 0;
  s->sk_logh = 0;
  s->sk_logn = 0;
}

/* Accepted steps to the next test while none hits: doubling from 1 with
 * every test, at most TEST_EVERY. */
static int64_t calm_gap(const diagc_sim *s) {
  const int64_t n = s->st.stiffness_tests;
  return n >= 10 ? TEST_EVERY : ((int64_t)1 << n) < TEST_EVERY
                                    ? (int64_t)1 << n
                                    : TEST_EVERY;
}

/* Counts a test's estimate hl for a step of h ending at t1. */
static void judge(diagc_sim *s, double hl, double h, double t1) {
  const double lim = s->st.stability_limit;
  s->st.stiffness_tests++;
  if (hl > HIT * lim) {
    if (s->sk_hits == 0) s->sk_loghl = s->sk_logh = 0, s->sk_logn = 0;
    s->st.stiffness_hits++;
    s->sk_hits += hl > STRONG * lim ? STRONG_HITS : 1;
    s->sk_calm = 0;
  } else if (++s->sk_calm >= CALM) {
    s->sk_hits = 0;
  }
  if (s->sk_hits > 0 && hl > 0 && h > 0) {
    s->sk_loghl += log(hl);
    s->sk_logh += log(h);
    s->sk_logn++;
  }
  if (s->sk_hits >= HITS) {
    s->st.stiff_time = t1;
    s->st.stiff_step = exp(s->sk_logh / s->sk_logn);
    s->st.stiff_hlambda = exp(s->sk_loghl / s->sk_logn);
    s->sk_countdown = INT64_MAX; /* conclusive: no more tests */
    return;
  }
  s->sk_countdown = s->sk_hits > 0 ? 1 : calm_gap(s);
}

/* h |lambda| from two successive steps: the first one's start x and
 * derivative f (kept), the second one's (s->x0, s->k0), h the first
 * step; NaN if the state did not move. */
static double across_steps(const diagc_sim *s) {
  double sf = 0, sx = 0;
  int i;
  for (i = 0; i < s->nxc; i++) {
    const double df = s->k0[i] - s->sk_f[i], dx = s->x0[i] - s->sk_x[i];
    sf += df * df;
    sx += dx * dx;
  }
  return sx > 0 ? s->sk_h * sqrt(sf / sx) : NAN;
}

void diagc_stiffness_test(diagc_sim *s, const diagc_integrator_desc *d,
                          double t0, double t1) {
  const double h = t1 - t0;
  double hl;
  if (d->hlambda) {
    hl = d->hlambda(s);
  } else if (s->sk_t == t0) {
    /* the second of two steps, continuing where the first ended */
    hl = across_steps(s);
    s->sk_t = NAN;
  } else {
    /* keep this step for the next one */
    diagc_vcopy(s->sk_x, s->x0, s->nxc);
    diagc_vcopy(s->sk_f, s->k0, s->nxc);
    s->sk_h = h;
    s->sk_t = t1;
    s->sk_countdown = 1;
    return;
  }
  if (isnan(hl)) {
    s->sk_countdown = s->sk_hits > 0 ? 1 : calm_gap(s);
    return;
  }
  judge(s, hl, h, t1);
}
