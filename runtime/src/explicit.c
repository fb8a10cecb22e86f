/* The explicit methods (Drake's DoStep of its explicit integrators):
 * explicit_euler, runge_kutta2, runge_kutta3, runge_kutta4,
 * semi_explicit_euler, bogacki_shampine3, dormand_prince54.  Each takes one
 * step of h from the context's (t0, xc), leaves the context at t0 + h and
 * the step's start in s->x0 and its derivative in s->k0 (a rejected step
 * is restored from them), and, with an error estimate, |error| in s->errv.
 * Called by integrators.c (the dispatch); calls nothing above it.
 *
 * Vector updates follow Drake's VectorBase::PlusEqScaled, which forms the
 * sum of the scaled operands first and then adds it:
 *   x[i] += (a[i]*sa + b[i]*sb + ...).
 */
/* The stage loops are element-wise (no reassociation), so vectorizing them
 * leaves every result bit-identical; GCC's -O2 cost model alone would
 * not vectorize them.  Before the includes: GCC does not inline a
 * function compiled with other optimization options, so the inline
 * helpers of sim_internal.h must get the same ones. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <math.h>
#include <string.h>

#include "methods.h"
#include "sim_internal.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- context access ---------------------------------------------------- */

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

/* First-same-as-last: the first stage of an FSAL step reuses the last
 * stage of the previous step when the context still holds exactly that
 * step's end (same time, same continuous state, and no update, witness
 * re-integration or advance_to call since; see simulator.c). */
static int eval_first_stage(diagc_sim *s, double t0, const double *x0,
                            double *out) {
  if (s->fsal_valid && s->fsal_t == t0 &&
      diagc_vsame(s->fsal_x, x0, s->nxc)) {
    diagc_vcopy(out, s->fsal_k, s->nxc);
    return 0;
  }
  return diagc_sim_eval_xcdot(s, out);
}

static void keep_last_stage(diagc_sim *s, double t1, const double *x1,
                            const double *k) {
  diagc_vcopy(s->fsal_x, x1, s->nxc);
  diagc_vcopy(s->fsal_k, k, s->nxc);
  s->fsal_t = t1;
  s->fsal_valid = 1;
}

/* ---- the steppers (Drake's DoStep); time becomes t0 + h ---------------- */

int diagc_step_euler(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  double *x;
  diagc_vcopy(s->x0, diagc_sim_xc(s), n);
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * h;
  xc_end(s, x);
  return 0;
}

/* Heun: xa = x0 + h f0; x1 = xa + (h/2 fa - h/2 f0). */
int diagc_step_rk2(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  double *x;
  diagc_vcopy(s->x0, diagc_sim_xc(s), n);
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * h;
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k1)) != 0) return rc;
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] += s->k1[i] * (h / 2) + s->k0[i] * (-h / 2);
  xc_end(s, x);
  return 0;
}

/* Drake's RK3 with the embedded midpoint error estimate in s->errv. */
int diagc_step_rk3(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  const double h6 = h / 6.0;
  double *x;
  diagc_vcopy(s->x0, diagc_sim_xc(s), n);
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  /* stage a at t0 + h/2 */
  put_time(s, t0 + h / 2);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * (h / 2);
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k1)) != 0) return rc;
  /* stage b at t1: x0 - h f0 + 2h fa */
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++)
    x[i] = s->x0[i] + (s->k0[i] * (-h) + s->k1[i] * (2 * h));
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k2)) != 0) return rc;
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
int diagc_step_rk4(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  double *x;
  diagc_vcopy(s->x0, diagc_sim_xc(s), n);
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  put_time(s, t0 + h / 2);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * (h / 2);
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k1)) != 0) return rc;
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k1[i] * (h / 2);
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k2)) != 0) return rc;
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k2[i] * h;
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k3)) != 0) return rc;
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
int diagc_step_semi_euler(diagc_sim *s, double h) {
  int i, n = s->nxc, nq = s->m->nq, rc;
  const double t0 = diagc_sim_ctx_time(s);
  diagc_vcopy(s->x0, diagc_sim_xc(s), n);
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  for (i = 0; i < nq; i++) s->xt[i] = s->x0[i];
  for (i = nq; i < n; i++) s->xt[i] = s->x0[i] + s->k0[i] * h;
  if (nq > 0) {
    diagc_sim_put_xc(s, s->xt);
    if ((rc = diagc_sim_eval_xcdot(s, s->k1)) != 0) return rc;
    for (i = 0; i < nq; i++) s->xt[i] = s->x0[i] + s->k1[i] * h;
  }
  put_time(s, t0 + h);
  diagc_sim_put_xc(s, s->xt);
  return 0;
}

/* Bogacki-Shampine 3(2), FSAL: the last stage is evaluated at the new
 * state (the model's cache then serves the next step's first stage).  The
 * third-order solution is propagated; errv gets |x3 - x2|. */
int diagc_step_bs3(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  double *x;
  diagc_vcopy(s->x0, diagc_sim_xc(s), n);
  if ((rc = eval_first_stage(s, t0, s->x0, s->k0)) != 0) return rc;
  put_time(s, t0 + h / 2);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k0[i] * (h / 2);
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k1)) != 0) return rc;
  put_time(s, t0 + 0.75 * h);
  x = xc_begin(s);
  for (i = 0; i < n; i++) x[i] = s->x0[i] + s->k1[i] * (0.75 * h);
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k2)) != 0) return rc;
  put_time(s, t0 + h);
  x = xc_begin(s);
  for (i = 0; i < n; i++)
    x[i] = s->x0[i] + (s->k0[i] * (2.0 / 9.0 * h) +
                       s->k1[i] * (1.0 / 3.0 * h) +
                       s->k2[i] * (4.0 / 9.0 * h));
  xc_end(s, x);
  if ((rc = diagc_sim_eval_xcdot(s, s->k3)) != 0) return rc;
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
  if (rc != 0 || *d == NULL) return diagc_sim_eval_failed(s, rc);
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

int diagc_step_dp54(diagc_sim *s, double h) {
  stage_io io;
  const double t0 = diagc_sim_ctx_time(s);
  const int n = s->nxc;
  stage_io_init(s, &io);
  if (s->fsal_valid && s->fsal_t == t0 && diagc_vsame(s->fsal_x, diagc_sim_xc(s), n)) {
    /* first same as last: the buffers holding the last step's end state
     * and derivative become this step's x0 and k1 (no copy) */
    swap_vec(&s->x0, &s->fsal_x);
    swap_vec(&s->k0, &s->fsal_k);
  } else {
    const double *d;
    int rc;
    diagc_vcopy(s->x0, diagc_sim_xc(s), n);
    if ((rc = stage_eval(s, &io, &d)) != 0) return rc;
    diagc_vcopy(s->k0, d, n);
  }
  s->fsal_valid = 0;
  return dp54_stages(s, &io, t0, h, n, s->x0, s->k0, s->k1, s->k2, s->k3,
                     s->k4, s->k5, s->fsal_k, s->fsal_x, s->errv);
}

/* A rejected step of an FSAL method (bogacki_shampine3, dormand_prince54),
 * with the context restored to its start (t0, s->x0): the retry's first
 * stage is the derivative there, which the rejected attempt evaluated into
 * k0. */
void diagc_fsal_rejected(diagc_sim *s, double t0) {
  swap_vec(&s->x0, &s->fsal_x);
  swap_vec(&s->k0, &s->fsal_k);
  s->fsal_t = t0;
  s->fsal_valid = 1;
}

/* ---- stiffness: h |lambda| from the last step's stages ----------------
 * (stiffness.c).  With stage derivatives k_j = f(t0 + c_j h, X_j) and
 * weights d (sum d_j = sum d_j c_j = 0), sum d_j k_j ~ J sum d_j X_j, and
 * sum d_j X_j = h sum_j (d^T A)_j k_j; so h |lambda| ~ |sum d_j k_j| /
 * |sum_j (d^T A)_j k_j| (Euclidean norms), exact for a linear model.  d is
 * the method's error estimate where that has order 2 or more (so the
 * difference is error-sized and the stiff components dominate it), or two
 * stages at the same time; with fixed steps the first two stages (an
 * unstable stiff component then dominates every difference). */

/* |sum_j cn_j k_j| / |sum_j cd_j k_j| over the first m stage vectors of
 * the last step (k0 ... k5 in order, then fsal_k: dormand_prince54's
 * seventh); NaN if the denominator is 0. */
static double stage_ratio(const diagc_sim *s, int m, const double *cn,
                          const double *cd) {
  const double *k[7];
  double sn = 0, sd = 0;
  int i, j;
  k[0] = s->k0;
  k[1] = s->k1;
  k[2] = s->k2;
  k[3] = s->k3;
  k[4] = s->k4;
  k[5] = s->k5;
  k[6] = s->fsal_k;
  for (i = 0; i < s->nxc; i++) {
    double a = 0, b = 0;
    for (j = 0; j < m; j++) {
      a += cn[j] * k[j][i];
      b += cd[j] * k[j][i];
    }
    sn += a * a;
    sd += b * b;
  }
  return sd > 0 ? sqrt(sn / sd) : NAN;
}

/* runge_kutta2 (fixed steps): the two stages, h apart along h f0. */
double diagc_hlambda_rk2(const diagc_sim *s) {
  static const double cn[2] = {-1, 1}, cd[2] = {1, 0};
  return stage_ratio(s, 2, cn, cd);
}

/* runge_kutta3: d = b - b^ (the midpoint) = (1/6, -1/3, 1/6), d^T A =
 * (-1/3, 1/3, 0); scaled by 6. */
double diagc_hlambda_rk3(const diagc_sim *s) {
  static const double cn[3] = {1, -2, 1}, cd[3] = {-2, 2, 0};
  return stage_ratio(s, 3, cn, cd);
}

/* runge_kutta4: its second and third stages, both at t0 + h/2, whose
 * states differ by h/2 (k1 - k0). */
double diagc_hlambda_rk4(const diagc_sim *s) {
  static const double cn[3] = {0, -1, 1}, cd[3] = {-0.5, 0.5, 0};
  return stage_ratio(s, 3, cn, cd);
}

/* bogacki_shampine3: d = its error weights (-5/72, 1/12, 1/9, -1/8),
 * d^T A = (1/72, 1/24, -1/18, 0). */
double diagc_hlambda_bs3(const diagc_sim *s) {
  static const double cn[4] = {-5.0 / 72, 1.0 / 12, 1.0 / 9, -1.0 / 8};
  static const double cd[4] = {1.0 / 72, 1.0 / 24, -1.0 / 18, 0};
  return stage_ratio(s, 4, cn, cd);
}

/* dormand_prince54: Hairer's own, k7 - k6 over x1 - X6 (both at t0 + h),
 * x1 - X6 = h sum_j (b_j - a_6j) k_j; with fixed steps (no k7) the first
 * two stages, h/5 apart along h/5 k1. */
double diagc_hlambda_dp54(const diagc_sim *s) {
  static const double cn[7] = {0, 0, 0, 0, 0, -1, 1};
  static const double cd[7] = {
      35.0 / 384 - 9017.0 / 3168, 355.0 / 33, 500.0 / 1113 - 46732.0 / 5247,
      125.0 / 192 - 49.0 / 176,   -2187.0 / 6784 + 5103.0 / 18656,
      11.0 / 84,                  0};
  static const double fn[2] = {-1, 1}, fd[2] = {0.2, 0};
  return s->fixed_mode ? stage_ratio(s, 2, fn, fd) : stage_ratio(s, 7, cn, cd);
}
