/* Integrators and step-size control, after Drake's IntegratorBase
 * (systems/analysis/integrator_base.{h,cc}) and its explicit integrators.
 *
 * Vector updates follow Drake's VectorBase::PlusEqScaled, which forms the
 * sum of the scaled operands first and then adds it:
 *   x[i] += (a[i]*sa + b[i]*sb + ...).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* The stage loops are element-wise (no reassociation), so vectorizing them
 * leaves every result bit-identical; GCC's -O2 cost model alone would
 * not vectorize them. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Order of the index with the DIAGC_INT_* enum.  error_order is the
 * exponent used by step-size control (Drake's get_error_estimate_order). */
const diagc_integrator_desc diagc_integrators[DIAGC_N_INTEGRATORS] = {
    {"explicit_euler", 0, 0},
    {"runge_kutta2", 0, 0},
    {"runge_kutta3", 1, 3},
    {"runge_kutta4", 0, 0},
    {"semi_explicit_euler", 0, 0},
    {"bogacki_shampine3", 1, 3},
    {"dormand_prince54", 1, 5},
    {"implicit_euler", 1, 2},
    {"radau3", 1, 3},
    {"radau5", 1, 4}, /* its own controller: diagc_radau5_propose */
};

int diagc_find_integrator(const char *name) {
  int i;
  if (!name) return -1;
  for (i = 0; i < DIAGC_N_INTEGRATORS; i++)
    if (strcmp(name, diagc_integrators[i].name) == 0) return i;
  return -1;
}

void diagc_sim_reset_integrator_stats(diagc_sim *s) {
  s->st.integrator_steps = 0;
  s->st.rejected_steps = 0;
  s->st.derivative_evals = 0;
  s->st.initial_step = NAN;
  s->st.smallest_step = NAN;
  s->st.largest_step = NAN;
  s->st.smallest_adapted_step = NAN;
  s->st.newton_failures = 0;
  s->st.jacobian_evals = 0;
  s->st.lu_factorizations = 0;
  s->st.newton_iterations = 0;
  /* radau3 forms a new Jacobian at its next step */
  diagc_implicit_reset(&s->imp);
}

int diagc_integrator_alloc(diagc_sim *s) {
  diagc_implicit_reset(&s->imp);
  if (s->integ == DIAGC_INT_IMPLICIT_EULER) return diagc_implicit_alloc(s, 1);
  if (s->integ == DIAGC_INT_RADAU3) return diagc_implicit_alloc(s, 2);
  if (s->integ == DIAGC_INT_RADAU5) return diagc_implicit_alloc(s, 3);
  return 0;
}

/* ---- context access ---------------------------------------------------- */

/* Copies and bitwise comparisons of n doubles: inline for small systems,
 * where a library call costs more than the work. */
enum { SMALL_N = 8 };

static void vcopy(double *dst, const double *src, int n) {
  if (n <= SMALL_N) {
    int i;
    for (i = 0; i < n; i++) dst[i] = src[i];
  } else {
    memcpy(dst, src, (size_t)n * sizeof(double));
  }
}

static int vsame(const double *a, const double *b, int n) {
  if (n <= SMALL_N) {
    int i;
    for (i = 0; i < n; i++) {
      uint64_t u, v;
      memcpy(&u, &a[i], sizeof u);
      memcpy(&v, &b[i], sizeof v);
      if (u != v) return 0;
    }
    return 1;
  }
  return memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}

static const double *xc_now(const diagc_sim *s) {
  return (const double *)(const void *)(s->ctx + s->m->xc_offset);
}

static void put_xc(diagc_sim *s, const double *x) {
  if (s->m->set_xc) {
    s->m->set_xc(s->ctx, x);
  } else {
    double *xc = s->m->mutable_xc(s->ctx);
    memcpy(xc, x, (size_t)s->nxc * sizeof(double));
  }
}

static void put_time(diagc_sim *s, double t) { s->m->set_time(s->ctx, t); }

/* A stage's state is formed in place in the context when the model offers
 * mutable_xc (which invalidates like set_xc), else in s->xt and then copied
 * in with set_xc.  Either way the context holds exactly the same values. */
static double *xc_begin(diagc_sim *s) {
  return s->m->mutable_xc ? s->m->mutable_xc(s->ctx) : s->xt;
}

static void xc_end(diagc_sim *s, const double *x) {
  if (!s->m->mutable_xc) s->m->set_xc(s->ctx, x);
}

/* Evaluates xcdot at the context into out. */
static int eval_xcdot(diagc_sim *s, double *out) {
  const double *d = NULL;
  int rc = s->m->calc_derivatives(s->ctx, &d);
  s->st.derivative_evals++;
  if (rc != 0 || d == NULL) {
    diagc_sim_set_err(s, "calc_derivatives failed (status %d) at t = %.17g",
                      rc, diagc_sim_ctx_time(s));
    return DIAGC_SIM_E_EVAL;
  }
  vcopy(out, d, s->nxc);
  return 0;
}

int diagc_sim_eval_xcdot(diagc_sim *s, double *out) {
  return eval_xcdot(s, out);
}

/* First-same-as-last: the first stage of an FSAL step reuses the last
 * stage of the previous step when the context still holds exactly that
 * step's end (same time, same continuous state, and no update, witness
 * re-integration or advance_to call since; see simulator.c). */
static int eval_first_stage(diagc_sim *s, double t0, const double *x0,
                            double *out) {
  if (s->fsal_valid && s->fsal_t == t0 &&
      vsame(s->fsal_x, x0, s->nxc)) {
    vcopy(out, s->fsal_k, s->nxc);
    return 0;
  }
  return eval_xcdot(s, out);
}

static void keep_last_stage(diagc_sim *s, double t1, const double *x1,
                            const double *k) {
  vcopy(s->fsal_x, x1, s->nxc);
  vcopy(s->fsal_k, k, s->nxc);
  s->fsal_t = t1;
  s->fsal_valid = 1;
}

/* ---- the steppers (Drake's DoStep); time becomes t0 + h ---------------- */

static int step_euler(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  double *x;
  vcopy(s->x0, xc_now(s), n);
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * h;
  xc_end(s, x);
  return 0;
}

/* Heun: xa = x0 + h f0; x1 = xa + (h/2 fa - h/2 f0). */
static int step_rk2(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  double *x;
  vcopy(s->x0, xc_now(s), n);
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * h;
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k1)) != 0) return rc;
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] += s->k1[i] * (h / 2) + s->k0[i] * (-h / 2);
  xc_end(s, x);
  return 0;
}

/* Drake's RK3 with the embedded midpoint error estimate in s->errv. */
static int step_rk3(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  const double h6 = h / 6.0;
  double *x;
  vcopy(s->x0, xc_now(s), n);
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  /* stage a at t0 + h/2 */
  put_time(s, t0 + h / 2);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * (h / 2);
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k1)) != 0) return rc;
  /* stage b at t1: x0 - h f0 + 2h fa */
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++)
    x[i] = s->x0[i] + (s->k0[i] * (-h) + s->k1[i] * (2 * h));
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k2)) != 0) return rc;
  /* x1 = x0 + h/6 f0 + 2/3 h fa + h/6 fb; err = |x0 + h fa - x1| */
  x = xc_begin(s);
  for (i = 0; i < n; i++) {
    double e = s->x0[i];
    const double x1 =
        s->x0[i] + (s->k0[i] * h6 + s->k1[i] * (4 * h6) + s->k2[i] * h6);
    x[i] = x1;
    e += s->k1[i] * h;
    e += x1 * -1.0;
    s->errv[i] = fabs(e);
  }
  xc_end(s, x);
  return 0;
}

/* Classic fourth-order Runge-Kutta (fixed step only). */
static int step_rk4(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  double *x;
  vcopy(s->x0, xc_now(s), n);
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  put_time(s, t0 + h / 2);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * (h / 2);
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k1)) != 0) return rc;
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k1[i] * (h / 2);
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k2)) != 0) return rc;
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k2[i] * h;
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k3)) != 0) return rc;
  x = xc_begin(s);
  for (i = 0; i < n; i++)
    x[i] = s->x0[i] + (s->k0[i] * (h / 6) + s->k1[i] * (h / 3) +
                       s->k2[i] * (h / 3) + s->k3[i] * (h / 6));
  xc_end(s, x);
  return 0;
}

/* Semi-explicit (symplectic) Euler, as Drake's SemiExplicitEulerIntegrator
 * for systems whose q-dot is N(q) v:
 *   v1 = v0 + h vdot(t0, x0),  z1 = z0 + h zdot(t0, x0),
 *   q1 = q0 + h qdot(t0, q0, v1, z1)
 * The second evaluation takes only the q part of the derivatives, which is
 * N(q0) v1 for such systems (xc is laid out q, v, z). */
static int step_semi_euler(diagc_sim *s, double h) {
  int i, n = s->nxc, nq = s->m->nq, rc;
  const double t0 = diagc_sim_ctx_time(s);
  vcopy(s->x0, xc_now(s), n);
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  for (i = 0; i < nq; i++) s->xt[i] = s->x0[i];
  for (i = nq; i < n; i++) s->xt[i] = s->x0[i] + s->k0[i] * h;
  if (nq > 0) {
    put_xc(s, s->xt);
    if ((rc = eval_xcdot(s, s->k1)) != 0) return rc;
    for (i = 0; i < nq; i++) s->xt[i] = s->x0[i] + s->k1[i] * h;
  }
  put_time(s, t0 + h);
  put_xc(s, s->xt);
  return 0;
}

/* Bogacki-Shampine 3(2), FSAL: the last stage is evaluated at the new
 * state (the model's cache then serves the next step's first stage).  The
 * third-order solution is propagated; errv gets |x3 - x2|. */
static int step_bs3(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  double *x;
  vcopy(s->x0, xc_now(s), n);
  if ((rc = eval_first_stage(s, t0, s->x0, s->k0)) != 0) return rc;
  put_time(s, t0 + h / 2);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * (h / 2);
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k1)) != 0) return rc;
  put_time(s, t0 + 0.75 * h);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k1[i] * (0.75 * h);
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k2)) != 0) return rc;
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++)
    x[i] = s->x0[i] + (s->k0[i] * (2.0 / 9.0 * h) +
                       s->k1[i] * (1.0 / 3.0 * h) +
                       s->k2[i] * (4.0 / 9.0 * h));
  xc_end(s, x);
  if ((rc = eval_xcdot(s, s->k3)) != 0) return rc;
  keep_last_stage(s, t0 + h, x, s->k3);
  for (i = 0; i < n; i++)
    s->errv[i] = fabs(s->k0[i] * (-5.0 / 72.0 * h) + s->k1[i] * (1.0 / 12.0 * h) +
                      s->k2[i] * (1.0 / 9.0 * h) + s->k3[i] * (-1.0 / 8.0 * h));
  return 0;
}

/* Dormand-Prince 5(4), FSAL; the fifth-order solution is propagated and
 * errv gets |x5 - x4|.
 *
 * This is the hot path of error-controlled integration, and for a small
 * model a step's time is mostly the latency of its chain of stages (each
 * stage's state needs the previous stage's derivative).  So the step keeps
 * that chain short: each stage loop reads the derivative
 * just evaluated straight from the model's storage, copying it into its k
 * on the way, instead of from a copy made first (one store-to-load round
 * trip less per stage); the last stage's derivative and state are written
 * to the FSAL buffers, which become the next step's k1 and x0 by swapping
 * pointers, not by copying; and a rejected attempt leaves its first stage
 * for the retry.  The descriptor's functions are read once per step and
 * the scratch vectors are restrict-qualified (distinct slices of s->xsave,
 * never overlapping the context, a separate allocation).  The arithmetic,
 * term for term and in the same order, is that of the plain version, so
 * results are bit-identical. */
typedef struct stage_io {
  void *ctx;
  void (*set_time)(void *ctx, double t);
  double *(*mutable_xc)(void *ctx);
  void (*set_xc)(void *ctx, const double *xc);
  int (*calc)(void *ctx, const double **xcdot);
  double *xt; /* where a stage is formed without mutable_xc */
} stage_io;

static void stage_io_init(diagc_sim *s, stage_io *io) {
  io->ctx = s->ctx;
  io->set_time = s->m->set_time;
  io->mutable_xc = s->m->mutable_xc;
  io->set_xc = s->m->set_xc;
  io->calc = s->m->calc_derivatives;
  io->xt = s->xt;
}

/* Sets the stage time and returns where to form the stage's state. */
static inline double *stage_begin(const stage_io *io, double t) {
  io->set_time(io->ctx, t);
  return io->mutable_xc ? io->mutable_xc(io->ctx) : io->xt;
}

static inline void stage_end(const stage_io *io, const double *x) {
  if (!io->mutable_xc) io->set_xc(io->ctx, x);
}

#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int stage_eval_failed(diagc_sim *s, int rc) {
  diagc_sim_set_err(s, "calc_derivatives failed (status %d) at t = %.17g",
                    rc, diagc_sim_ctx_time(s));
  return DIAGC_SIM_E_EVAL;
}

/* Evaluates the derivatives at the context; *d points at the model's
 * storage.  The stage loops read *d directly while they write the next
 * stage's state through mutable_xc (and copy it into the stage's k on the
 * way): one store-to-load round trip less on the critical path of every
 * stage than copying it out first.  This relies on the descriptor contract
 * that set_time and mutable_xc only invalidate (they do not change the
 * values calc_derivatives returned), and that xcdot's storage does not
 * overlap xc. */
static inline int stage_eval(diagc_sim *s, const stage_io *io,
                             const double **d) {
  int rc;
  *d = NULL;
  rc = io->calc(io->ctx, d);
  s->st.derivative_evals++;
  if (rc != 0 || *d == NULL) return stage_eval_failed(s, rc);
  return 0;
}

static void swap_vec(double **a, double **b) {
  double *t = *a;
  *a = *b;
  *b = t;
}

/* Dormand-Prince 5(4): nodes c, matrix a, weights b (5th order) and e =
 * b(5th) - b(4th). */
static const double DP_C2 = 1.0 / 5, DP_C3 = 3.0 / 10, DP_C4 = 4.0 / 5, DP_C5 = 8.0 / 9;
static const double DP_A21 = 1.0 / 5;
static const double DP_A31 = 3.0 / 40, DP_A32 = 9.0 / 40;
static const double DP_A41 = 44.0 / 45, DP_A42 = -56.0 / 15, DP_A43 = 32.0 / 9;
static const double DP_A51 = 19372.0 / 6561, DP_A52 = -25360.0 / 2187,
                    DP_A53 = 64448.0 / 6561, DP_A54 = -212.0 / 729;
static const double DP_A61 = 9017.0 / 3168, DP_A62 = -355.0 / 33,
                    DP_A63 = 46732.0 / 5247, DP_A64 = 49.0 / 176,
                    DP_A65 = -5103.0 / 18656;
static const double DP_B1 = 35.0 / 384, DP_B3 = 500.0 / 1113, DP_B4 = 125.0 / 192,
                    DP_B5 = -2187.0 / 6784, DP_B6 = 11.0 / 84;
static const double DP_E1 = 71.0 / 57600, DP_E3 = -71.0 / 16695, DP_E4 = 71.0 / 1920,
                    DP_E5 = -17253.0 / 339200, DP_E6 = 22.0 / 525, DP_E7 = -1.0 / 40;

/* Stages 2 to 6: k2..k5 stored as they are read, each stage's state set
 * and evaluated; on return *dp is k6 (in the model's storage). */
static int dp54_middle(diagc_sim *s, const stage_io *io, double t0, double h,
                       int n, const double *restrict x0, const double *restrict k1,
                       double *restrict k2, double *restrict k3,
                       double *restrict k4, double *restrict k5, const double **dp) {
  int i, rc;
  double *x;
  const double *d;

  x = stage_begin(io, t0 + DP_C2 * h);
  {
    const double f1 = DP_A21 * h;
    for (i = 0; i < n; i++) x[i] = x0[i] + k1[i] * f1;
  }
  stage_end(io, x);
  if ((rc = stage_eval(s, io, &d)) != 0) return rc;
  x = stage_begin(io, t0 + DP_C3 * h);
  {
    const double f1 = DP_A31 * h, f2 = DP_A32 * h;
    for (i = 0; i < n; i++) {
      const double kn = d[i];
      k2[i] = kn;
      x[i] = x0[i] + (k1[i] * f1 + kn * f2);
    }
  }
  stage_end(io, x);
  if ((rc = stage_eval(s, io, &d)) != 0) return rc;
  x = stage_begin(io, t0 + DP_C4 * h);
  {
    const double f1 = DP_A41 * h, f2 = DP_A42 * h, f3 = DP_A43 * h;
    for (i = 0; i < n; i++) {
      const double kn = d[i];
      k3[i] = kn;
      x[i] = x0[i] + (k1[i] * f1 + k2[i] * f2 + kn * f3);
    }
  }
  stage_end(io, x);
  if ((rc = stage_eval(s, io, &d)) != 0) return rc;
  x = stage_begin(io, t0 + DP_C5 * h);
  {
    const double f1 = DP_A51 * h, f2 = DP_A52 * h, f3 = DP_A53 * h, f4 = DP_A54 * h;
    for (i = 0; i < n; i++) {
      const double kn = d[i];
      k4[i] = kn;
      x[i] = x0[i] + (k1[i] * f1 + k2[i] * f2 + k3[i] * f3 + kn * f4);
    }
  }
  stage_end(io, x);
  if ((rc = stage_eval(s, io, &d)) != 0) return rc;
  x = stage_begin(io, t0 + h);
  {
    const double f1 = DP_A61 * h, f2 = DP_A62 * h, f3 = DP_A63 * h, f4 = DP_A64 * h,
                 f5 = DP_A65 * h;
    for (i = 0; i < n; i++) {
      const double kn = d[i];
      k5[i] = kn;
      x[i] = x0[i] + (k1[i] * f1 + k2[i] * f2 + k3[i] * f3 + k4[i] * f4 +
                      kn * f5);
    }
  }
  stage_end(io, x);
  if ((rc = stage_eval(s, io, &d)) != 0) return rc;
  *dp = d;
  return 0;
}

/* The solution x1 (k6 = d stored), into the context (at the time already
 * set) and xf. */
static void dp54_solution(const stage_io *io, double h, int n, const double *restrict x0,
                          const double *restrict k1, const double *restrict k3,
                          const double *restrict k4, const double *restrict k5,
                          double *restrict k6, double *restrict xf, const double *d) {
  int i;
  double *x = io->mutable_xc ? io->mutable_xc(io->ctx) : io->xt;
  const double f1 = DP_B1 * h, f3 = DP_B3 * h, f4 = DP_B4 * h, f5 = DP_B5 * h,
               f6 = DP_B6 * h;
  for (i = 0; i < n; i++) {
    const double kn = d[i];
    const double x1 = x0[i] + (k1[i] * f1 + k3[i] * f3 + k4[i] * f4 +
                               k5[i] * f5 + kn * f6);
    k6[i] = kn;
    x[i] = x1;
    xf[i] = x1;
  }
  stage_end(io, x);
}

/* The error estimate |h sum e_i k_i| into errv (k7 = d stored). */
static void dp54_error(double h, int n, const double *restrict k1, const double *restrict k3,
                       const double *restrict k4, const double *restrict k5,
                       const double *restrict k6, double *restrict k7,
                       double *restrict errv, const double *d) {
  int i;
  const double f1 = DP_E1 * h, f3 = DP_E3 * h, f4 = DP_E4 * h, f5 = DP_E5 * h,
               f6 = DP_E6 * h, f7 = DP_E7 * h;
  for (i = 0; i < n; i++) {
    const double kn = d[i];
    k7[i] = kn;
    errv[i] = fabs(k1[i] * f1 + k3[i] * f3 + k4[i] * f4 + k5[i] * f5 +
                   k6[i] * f6 + kn * f7);
  }
}

/* Dormand-Prince's stages.  k1 is the derivative at (t0, x0).  With error
 * control, the last stage k7 = f(t0 + h, x1) goes to k7 and x1 to xf as
 * well as to the context: they become the next step's k1 and x0 (first
 * same as last). */
static int dp54_stages(diagc_sim *s, const stage_io *io, double t0, double h,
                       int n, const double *restrict x0, double *restrict k1,
                       double *restrict k2, double *restrict k3,
                       double *restrict k4, double *restrict k5,
                       double *restrict k6, double *restrict k7,
                       double *restrict xf, double *restrict errv) {
  int rc;
  const double *d;
  if ((rc = dp54_middle(s, io, t0, h, n, x0, k1, k2, k3, k4, k5, &d)) != 0) return rc;
  dp54_solution(io, h, n, x0, k1, k3, k4, k5, k6, xf, d);
  if (s->fixed_mode) return 0; /* the error estimate is not needed */
  if ((rc = stage_eval(s, io, &d)) != 0) return rc;
  dp54_error(h, n, k1, k3, k4, k5, k6, k7, errv, d);
  s->fsal_t = t0 + h;
  s->fsal_valid = 1;
  return 0;
}

static int step_dp54(diagc_sim *s, double h) {
  stage_io io;
  const double t0 = diagc_sim_ctx_time(s);
  const int n = s->nxc;
  stage_io_init(s, &io);
  if (s->fsal_valid && s->fsal_t == t0 && vsame(s->fsal_x, xc_now(s), n)) {
    /* first same as last: the buffers holding the last step's end state
     * and derivative become this step's x0 and k1 (no copy) */
    swap_vec(&s->x0, &s->fsal_x);
    swap_vec(&s->k0, &s->fsal_k);
  } else {
    const double *d;
    int rc;
    vcopy(s->x0, xc_now(s), n);
    if ((rc = stage_eval(s, &io, &d)) != 0) return rc;
    vcopy(s->k0, d, n);
  }
  s->fsal_valid = 0;
  return dp54_stages(s, &io, t0, h, n, s->x0, s->k0, s->k1, s->k2, s->k3,
                     s->k4, s->k5, s->fsal_k, s->fsal_x, s->errv);
}

/* ---- implicit Euler ------------------------------------------------------
 * x1 = x0 + h f(t0 + h, x1), solved by Newton's method on
 * g(x) = x - x0 - h f(t0 + h, x) with the iteration matrix I - h J, where J
 * comes from the Jacobian source (implicit.h: forward differences, or the
 * model's sparse Jacobian).  J is formed at (t0, x0) once per
 * step; if Newton does not converge it is re-formed at the last iterate
 * and the solve is retried once.  Error control takes the step as one step
 * of h and two of h/2 and propagates the two half steps (step doubling). */

/* iter_m = LU(I - h J) with partial pivoting; 0, or -1 if singular. */
static int factor_iteration_matrix(diagc_sim *s, double h) {
  int i, j, n = s->nxc;
  double *a = s->imp.iter_m;
  const double *jac = s->imp.jac;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      a[(size_t)i * n + j] = (i == j ? 1.0 : 0.0) - h * jac[(size_t)i * n + j];
  s->st.lu_factorizations++;
  return diagc_lu_factor(a, n, s->imp.piv);
}

/* Newton iterations for one implicit Euler step of h from xs into xr
 * (which holds the initial guess), ending at time t1.  Sets *conv; the
 * context is left at (t1, xr) when converged. */
static int newton_ie(diagc_sim *s, double t1, const double *xs, double h,
                     double *xr, int *conv) {
  int it, i, n = s->nxc, rc;
  const double tol = s->accuracy_in_use * 1e-2 > 1e-13 ? s->accuracy_in_use * 1e-2 : 1e-13;
  double prev = INFINITY;
  *conv = 0;
  put_time(s, t1);
  for (it = 0; it < 10; it++) {
    double nrm = 0;
    put_xc(s, xr);
    if ((rc = eval_xcdot(s, s->fx)) != 0) return rc;
    for (i = 0; i < n; i++) s->dx[i] = -(xr[i] - xs[i] - h * s->fx[i]);
    diagc_lu_solve(s->imp.iter_m, n, s->imp.piv, s->dx);
    s->st.newton_iterations++;
    for (i = 0; i < n; i++) {
      double r = fabs(s->dx[i]) / (1 + fabs(xr[i]));
      xr[i] += s->dx[i];
      if (!(r <= nrm)) nrm = r; /* NaN propagates */
    }
    if (isnan(nrm) || isinf(nrm)) return 0;
    if (nrm <= tol) {
      put_xc(s, xr);
      *conv = 1;
      return 0;
    }
    if (it >= 2 && nrm > prev) return 0; /* diverging */
    prev = nrm;
  }
  return 0;
}

/* One implicit Euler step of h from xs (where the derivative is f0) into
 * xr, ending exactly at time t1 (so that no evaluation falls past an event
 * time by rounding), with the Jacobian in s->jac. */
static int ie_substep(diagc_sim *s, double t1, const double *xs,
                      const double *f0, double h, double *xr, int *conv) {
  int rc, i, n = s->nxc, attempt;
  for (attempt = 0; attempt < 2; attempt++) {
    if (factor_iteration_matrix(s, h) == 0) {
      /* explicit Euler predictor */
      for (i = 0; i < n; i++) xr[i] = xs[i] + h * f0[i];
      if ((rc = newton_ie(s, t1, xs, h, xr, conv)) != 0) return rc;
      if (*conv) return 0;
    }
    s->st.newton_failures++;
    if (attempt == 0) {
      /* re-form the Jacobian at the last iterate */
      if (!isfinite(xr[0])) memcpy(xr, xs, (size_t)n * sizeof(double));
      for (i = 0; i < n; i++)
        if (!isfinite(xr[i])) {
          memcpy(xr, xs, (size_t)n * sizeof(double));
          break;
        }
      put_time(s, t1);
      put_xc(s, xr);
      if ((rc = eval_xcdot(s, s->k2)) != 0) return rc;
      if ((rc = diagc_form_jacobian(s, s->k2)) != 0) return rc;
    }
  }
  *conv = 0;
  return 0;
}

static int step_implicit_euler(diagc_sim *s, double h) {
  int i, n = s->nxc, rc, conv;
  const double t0 = diagc_sim_ctx_time(s);
  vcopy(s->x0, xc_now(s), n);
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  if ((rc = diagc_form_jacobian(s, s->k0)) != 0) return rc;
  if (s->fixed_mode) {
    if ((rc = ie_substep(s, t0 + h, s->x0, s->k0, h, s->xt, &conv)) != 0)
      return rc;
    if (!conv) {
      put_time(s, t0);
      put_xc(s, s->x0);
      diagc_sim_set_err(s,
                        "implicit_euler: Newton's method did not converge "
                        "at t = %.17g with step %g",
                        t0, h);
      return DIAGC_SIM_E_STEP;
    }
    return 0;
  }
  /* one full step into xa */
  if ((rc = ie_substep(s, t0 + h, s->x0, s->k0, h, s->xa, &conv)) != 0)
    return rc;
  if (conv) {
    /* two half steps into xt (same Jacobian, new iteration matrix) */
    put_time(s, t0);
    put_xc(s, s->x0);
    if ((rc = ie_substep(s, t0 + h / 2, s->x0, s->k0, h / 2, s->k1, &conv)) != 0)
      return rc;
    if (conv) {
      if ((rc = eval_xcdot(s, s->k3)) != 0) return rc;
      if ((rc = ie_substep(s, t0 + h, s->k1, s->k3, h / 2, s->xt, &conv)) != 0)
        return rc;
    }
  }
  if (!conv) {
    /* report an infinite error so that error control shrinks the step */
    for (i = 0; i < n; i++) s->errv[i] = INFINITY;
    put_time(s, t0 + h);
    put_xc(s, s->x0);
    return 0;
  }
  for (i = 0; i < n; i++) s->errv[i] = fabs(s->xa[i] - s->xt[i]);
  put_time(s, t0 + h);
  put_xc(s, s->xt);
  return 0;
}

static int do_step(diagc_sim *s, double h) {
  switch (s->integ) {
    case DIAGC_INT_EULER: return step_euler(s, h);
    case DIAGC_INT_RK2: return step_rk2(s, h);
    case DIAGC_INT_RK3: return step_rk3(s, h);
    case DIAGC_INT_SEMI_EULER: return step_semi_euler(s, h);
    case DIAGC_INT_BS3: return step_bs3(s, h);
    case DIAGC_INT_DP54: return step_dp54(s, h);
    case DIAGC_INT_IMPLICIT_EULER: return step_implicit_euler(s, h);
    case DIAGC_INT_RADAU3: return diagc_step_radau3(s, h);
    case DIAGC_INT_RADAU5: return diagc_step_radau5(s, h);
    default: return step_rk4(s, h);
  }
}

/* ---- error control (Drake's IntegratorBase) ---------------------------- */

static double working_min_step(const diagc_sim *s) {
  const double tol = 1e-14;
  double smart = fabs(diagc_sim_ctx_time(s)) * tol;
  if (smart < tol) smart = tol;
  return smart > s->opt.min_step ? smart : s->opt.min_step;
}

/* Infinity norm of the error estimate; NaN if any entry is NaN. */
static double err_norm(const diagc_sim *s) {
  int i;
  double m = 0;
  for (i = 0; i < s->nxc; i++) {
    if (isnan(s->errv[i])) return NAN;
    if (s->errv[i] > m) m = s->errv[i];
  }
  return m;
}

static void describe_nonfinite(diagc_sim *s, double t, const char *what) {
  int i;
  const double *x = xc_now(s);
  for (i = 0; i < s->nxc; i++) {
    if (!isfinite(x[i]) || !isfinite(s->k0[i])) {
      const char *nm = s->m->xc_names ? s->m->xc_names[i] : NULL;
      diagc_sim_set_err(s,
                        "%s at t = %.17g: continuous state %s (xc[%d]) = %g, "
                        "derivative %g",
                        what, t, nm ? nm : "(unnamed)", i, x[i], s->k0[i]);
      return;
    }
  }
  diagc_sim_set_err(s, "%s at t = %.17g", what, t);
}

/* Drake's CalcAdjustedStepSize.  Returns 0 or DIAGC_SIM_E_STEP. */
static int calc_adjusted_step(diagc_sim *s, double err, double h,
                              int *at_min, int *ok, double *next) {
  const double kSafety = 0.9, kMinShrink = 0.1, kMaxGrow = 5.0;
  const double kHysteresisLow = 0.9, kHysteresisHigh = 1.2;
  const double acc = s->accuracy_in_use;
  double hn, wmin;

  if (isnan(err) || isinf(err)) {
    *ok = 0;
    *next = kMinShrink * h;
    /* Drake loops forever here if the estimate stays non-finite; stop once
     * the step would fall below the working minimum. */
    if (*next < working_min_step(s)) {
      describe_nonfinite(s, diagc_sim_ctx_time(s),
                         "non-finite error estimate");
      return DIAGC_SIM_E_NONFINITE;
    }
    return 0;
  }
  if (err == 0) {
    hn = kMaxGrow * h;
  } else {
    /* Drake's kSafety * h * (acc / err)^(1/p), whose exact value only
     * matters between the clamps below: where the ratio puts it certainly
     * inside [0.9 h, 1.2 h) (the step is kept), above 5 h or below 0.1 h,
     * the outcome is known without pow().  The margins (1e-9 relative) are
     * far wider than pow's rounding, so the result is the same. */
    const int p = diagc_integrators[s->integ].error_order;
    const double r = acc / err;
    double keep = 1, grow = 1, shrink = 1;
    int j;
    for (j = 0; j < p; j++) {
      keep *= kHysteresisHigh / kSafety;
      grow *= kMaxGrow / kSafety;
      shrink *= kMinShrink / kSafety;
    }
    if (!*at_min && r >= 1 && r < keep * (1 - 1e-9))
      hn = h; /* as Drake: grows by less than 1.2, or shrinks with err <= acc */
    else if (r > grow * (1 + 1e-9))
      hn = kMaxGrow * h;
    else if (r < shrink * (1 - 1e-9) && !*at_min)
      hn = kMinShrink * h;
    else
      hn = kSafety * h * pow(r, 1.0 / p);
  }

  if (hn > h) {
    *at_min = 0;
    if (hn < kHysteresisHigh * h) hn = h;
  }
  if (hn < h && *at_min) {
    *ok = 1;
    *next = h;
    return 0;
  }
  if (hn < h) {
    if (err <= acc) {
      hn = h;
    } else {
      double test = kHysteresisLow * h;
      if (test < hn) hn = test;
    }
  }
  if (hn > kMaxGrow * h) hn = kMaxGrow * h;
  if (hn < kMinShrink * h) hn = kMinShrink * h;
  if (!isnan(s->max_step_in_use) && hn > s->max_step_in_use)
    hn = s->max_step_in_use;

  wmin = working_min_step(s);
  if (hn < wmin && hn < h) {
    diagc_sim_set_err(s,
                      "at t = %.17g: error control wants to select a step "
                      "(%g) smaller than the minimum allowed (%g)",
                      diagc_sim_ctx_time(s), hn, wmin);
    return DIAGC_SIM_E_STEP;
  }
  if (hn < wmin) hn = wmin;
  if (hn == wmin) {
    *at_min = 1;
    if (hn < h) {
      *ok = 0;
      *next = hn;
      return 0;
    }
  }
  /* a step stretched beyond the maximum to land on an event is accepted
   * when its error is within the accuracy (the next one is at most the
   * maximum) */
  *ok = hn >= h || (h > s->max_step_in_use && err <= acc);
  *next = hn;
  return 0;
}

/* radau5's step-size control: Gustafsson's predictive controller
 * (radau5.c) proposes, then max_step and the minimum step apply as in
 * calc_adjusted_step.  Returns 0, or DIAGC_SIM_E_STEP or _NONFINITE with
 * the context back at the step's start (t0, x0). */
static int calc_radau5_step(diagc_sim *s, double t0, double err, double h,
                            int *ok, double *next) {
  const double wmin = working_min_step(s);
  double hn;
  diagc_radau5_propose(s, err, h, ok, &hn);
  if (!isnan(s->max_step_in_use) && hn > s->max_step_in_use)
    hn = s->max_step_in_use;
  if (!*ok && hn < wmin) {
    put_time(s, t0);
    put_xc(s, s->x0);
    if (s->imp.newton_failed) {
      diagc_sim_set_err(s,
                        "radau5: Newton's method did not converge at "
                        "t = %.17g with step %g, and a step below the "
                        "minimum allowed (%g) would be next",
                        t0, h, wmin);
      return DIAGC_SIM_E_STEP;
    }
    if (isnan(err) || isinf(err)) {
      describe_nonfinite(s, t0, "non-finite error estimate");
      return DIAGC_SIM_E_NONFINITE;
    }
    diagc_sim_set_err(s,
                      "at t = %.17g: error control wants to select a step "
                      "(%g) smaller than the minimum allowed (%g)",
                      t0, hn, wmin);
    return DIAGC_SIM_E_STEP;
  }
  if (hn < wmin) hn = wmin;
  *next = hn;
  return 0;
}

/* Drake's StepOnceErrorControlledAtMost. *full_step = 1 if the step taken
 * equals h_max. */
static int step_error_controlled(diagc_sim *s, double h_max, int *full_step) {
  const double near_enough_smaller = 0.95, near_enough_larger = 1.001;
  const double t_cur = diagc_sim_ctx_time(s);
  double h = s->ideal_next;
  int at_min = 0, ok = 0, rc;

  /* a rejected step restores the context from s->x0, which every stepper
   * fills with the state at the step's start and never changes */
  if (isnan(h)) h = s->initial_target;

  do {
    int limited = 0;
    double next = 0, err;
    if (h_max < near_enough_smaller * h) {
      limited = 1;
      h = h_max;
    } else if (h_max < near_enough_larger * h) {
      h = h_max;
    }
    /* the maximum step, except for the stretch that lands exactly on an
     * event (h == h_max, at most 1 % beyond it, allowed by
     * diagc_integrate_no_further_than): clamping that stretch left a
     * sliver of roundoff (~1e-13 s) before the event */
    if (h > s->max_step_in_use && h != h_max) h = s->max_step_in_use;

    if ((rc = do_step(s, h)) != 0) return rc;
    err = err_norm(s);
    rc = s->integ == DIAGC_INT_RADAU5
             ? calc_radau5_step(s, t_cur, err, h, &ok, &next)
             : calc_adjusted_step(s, err, h, &at_min, &ok, &next);
    if (rc != 0) return rc;
    if (ok) {
      if (!limited) s->ideal_next = next;
      if (isnan(s->st.smallest_adapted_step) ||
          (h < s->st.smallest_adapted_step && h < h_max))
        s->st.smallest_adapted_step = h;
    } else {
      s->st.rejected_steps++;
      h = next;
      put_time(s, t_cur);
      put_xc(s, s->x0);
      if (s->integ == DIAGC_INT_DP54 || s->integ == DIAGC_INT_BS3) {
        /* the retry's first stage is the derivative at the restored start,
         * which the rejected attempt evaluated into k0 */
        swap_vec(&s->x0, &s->fsal_x);
        swap_vec(&s->k0, &s->fsal_k);
        s->fsal_t = t_cur;
        s->fsal_valid = 1;
      }
    }
  } while (!ok);
  *full_step = (h == h_max);
  return 0;
}

static void update_step_stats(diagc_sim *s, double h) {
  if (++s->st.integrator_steps == 1) {
    s->st.initial_step = h;
    s->st.largest_step = h;
  } else if (h > s->st.largest_step) {
    s->st.largest_step = h;
  }
  if (h > 0 && (isnan(s->st.smallest_step) || h < s->st.smallest_step))
    s->st.smallest_step = h;
}

/* One step of the installed stepper (diagc_sim_set_stepper) toward
 * `target` (the next event time or the boundary: the stepper limits its
 * steps to max_step itself, so no stretch is needed to land on events). */
static int external_step(diagc_sim *s, double target) {
  diagc_sim_step_request req;
  const double t0 = diagc_sim_ctx_time(s);
  int rc;
  req.t_stop = target;
  req.max_step = s->max_step_in_use;
  req.min_step = s->opt.min_step;
  req.accuracy = s->accuracy_in_use;
  req.jacobian = s->opt.jacobian;
  req.restart = s->ext_restart;
  req.stats = &s->st;
  req.err = s->err;
  req.errlen = sizeof s->err;
  rc = s->ext.step(s->ext.self, s, &req);
  if (rc != 0) return rc < 0 ? rc : DIAGC_SIM_E_STEP;
  s->ext_restart = 0;
  if (!(diagc_sim_ctx_time(s) > t0 && diagc_sim_ctx_time(s) <= target)) {
    diagc_sim_set_err(s,
                      "%s: the step from t = %.17g ended at %.17g, outside "
                      "(t, %.17g]",
                      s->ext.name, t0, diagc_sim_ctx_time(s), target);
    return DIAGC_SIM_E_STEP;
  }
  return 0;
}

/* Drake's IntegrateNoFurtherThanTime. */
int diagc_integrate_no_further_than(diagc_sim *s, double publish_time,
                                    double update_time, double boundary_time,
                                    int *result) {
  const double t0 = diagc_sim_ctx_time(s);
  int cand = DIAGC_STEP_REACHED_UPDATE, rc, full_step = 1;
  double target = update_time, h, max_h;

  if (publish_time - t0 < 0 || update_time - t0 < 0 ||
      boundary_time - t0 < 0) {
    diagc_sim_set_err(s, "internal: negative step requested at t = %.17g",
                      t0);
    return DIAGC_SIM_E_ARG;
  }
  if (publish_time < update_time) {
    cand = DIAGC_STEP_REACHED_PUBLISH;
    target = publish_time;
  }
  if (boundary_time < target) {
    cand = DIAGC_STEP_REACHED_BOUNDARY;
    target = boundary_time;
  }
  if (s->nxc == 0) {
    put_time(s, target);
    *result = cand;
    return 0;
  }

  if (s->integ == DIAGC_INT_EXTERNAL) {
    /* advance_to(now): a step that does not move time */
    if (target > t0 && (rc = external_step(s, target)) != 0) return rc;
    update_step_stats(s, diagc_sim_ctx_time(s) - t0);
    *result = diagc_sim_ctx_time(s) >= target ? cand : DIAGC_STEP_TIME_ADVANCED;
    return 0;
  }

  /* Stretch the step up to 1 % to land on an event time (Drake), and up
   * to 0.1 % to land on the boundary (where Drake does not stretch at all,
   * which leaves a sliver step when the boundary is a roundoff beyond a
   * maximum step away). */
  max_h = s->max_step_in_use;
  if ((cand == DIAGC_STEP_REACHED_BOUNDARY && t0 + max_h * 1.001 < target) ||
      (cand != DIAGC_STEP_REACHED_BOUNDARY && t0 + max_h * 1.01 < target)) {
    cand = DIAGC_STEP_TIME_ADVANCED;
    target = t0 + max_h;
  }
  h = target - t0;

  if (s->fixed_mode) {
    if ((rc = do_step(s, h)) != 0) return rc;
  } else {
    if ((rc = step_error_controlled(s, h, &full_step)) != 0) return rc;
  }
  update_step_stats(s, diagc_sim_ctx_time(s) - t0);

  if (full_step || diagc_sim_ctx_time(s) >= target) {
    /* snap exactly (only if needed: setting the time invalidates, and the
     * FSAL integrators' last stage is cached at the reached time) */
    if (diagc_sim_ctx_time(s) != target) put_time(s, target);
    *result = cand;
  } else {
    *result = DIAGC_STEP_TIME_ADVANCED;
  }
  return 0;
}
