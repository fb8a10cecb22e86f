/* Integrators and step-size control, after Drake's IntegratorBase
 * (systems/analysis/integrator_base.{h,cc}) and its explicit integrators.
 *
 * Vector updates follow Drake's VectorBase::PlusEqScaled, which forms the
 * sum of the scaled operands first and then adds it:
 *   x[i] += (a[i]*sa + b[i]*sb + ...).
 */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

const diagc_integrator_desc diagc_integrators[4] = {
    {"explicit_euler", 0, 0},
    {"runge_kutta2", 0, 0},
    {"runge_kutta3", 1, 3},
    {"runge_kutta4", 0, 0},
};

int diagc_find_integrator(const char *name) {
  int i;
  if (!name) return -1;
  for (i = 0; i < 4; i++)
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
}

/* ---- context access ---------------------------------------------------- */

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
  memcpy(out, d, (size_t)s->nxc * sizeof(double));
  return 0;
}

/* ---- the steppers (Drake's DoStep); time becomes t0 + h ---------------- */

static int step_euler(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  memcpy(s->x0, xc_now(s), (size_t)n * sizeof(double));
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + s->k0[i] * h;
  put_time(s, t0 + h);
  put_xc(s, s->xt);
  return 0;
}

/* Heun: xa = x0 + h f0; x1 = xa + (h/2 fa - h/2 f0). */
static int step_rk2(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  memcpy(s->x0, xc_now(s), (size_t)n * sizeof(double));
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + s->k0[i] * h;
  put_time(s, t0 + h);
  put_xc(s, s->xt);
  if ((rc = eval_xcdot(s, s->k1)) != 0) return rc;
  for (i = 0; i < n; i++)
    s->xt[i] += s->k1[i] * (h / 2) + s->k0[i] * (-h / 2);
  put_xc(s, s->xt);
  return 0;
}

/* Drake's RK3 with the embedded midpoint error estimate in s->errv. */
static int step_rk3(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  const double h6 = h / 6.0;
  memcpy(s->x0, xc_now(s), (size_t)n * sizeof(double));
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  /* stage a at t0 + h/2 */
  for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + s->k0[i] * (h / 2);
  put_time(s, t0 + h / 2);
  put_xc(s, s->xt);
  if ((rc = eval_xcdot(s, s->k1)) != 0) return rc;
  /* stage b at t1: x0 - h f0 + 2h fa */
  for (i = 0; i < n; i++)
    s->xt[i] = s->x0[i] + (s->k0[i] * (-h) + s->k1[i] * (2 * h));
  put_time(s, t0 + h);
  put_xc(s, s->xt);
  if ((rc = eval_xcdot(s, s->k2)) != 0) return rc;
  /* x1 = x0 + h/6 f0 + 2/3 h fa + h/6 fb */
  for (i = 0; i < n; i++)
    s->xt[i] = s->x0[i] +
               (s->k0[i] * h6 + s->k1[i] * (4 * h6) + s->k2[i] * h6);
  put_xc(s, s->xt);
  /* err = |x0 + h fa - x1| */
  for (i = 0; i < n; i++) {
    double e = s->x0[i];
    e += s->k1[i] * h;
    e += s->xt[i] * -1.0;
    s->errv[i] = fabs(e);
  }
  return 0;
}

/* Classic fourth-order Runge-Kutta (fixed step only). */
static int step_rk4(diagc_sim *s, double h) {
  int i, n = s->nxc, rc;
  const double t0 = diagc_sim_ctx_time(s);
  memcpy(s->x0, xc_now(s), (size_t)n * sizeof(double));
  if ((rc = eval_xcdot(s, s->k0)) != 0) return rc;
  for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + s->k0[i] * (h / 2);
  put_time(s, t0 + h / 2);
  put_xc(s, s->xt);
  if ((rc = eval_xcdot(s, s->k1)) != 0) return rc;
  for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + s->k1[i] * (h / 2);
  put_xc(s, s->xt);
  if ((rc = eval_xcdot(s, s->k2)) != 0) return rc;
  for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + s->k2[i] * h;
  put_time(s, t0 + h);
  put_xc(s, s->xt);
  if ((rc = eval_xcdot(s, s->k3)) != 0) return rc;
  for (i = 0; i < n; i++)
    s->xt[i] = s->x0[i] + (s->k0[i] * (h / 6) + s->k1[i] * (h / 3) +
                           s->k2[i] * (h / 3) + s->k3[i] * (h / 6));
  put_xc(s, s->xt);
  return 0;
}

static int do_step(diagc_sim *s, double h) {
  switch (s->integ) {
    case DIAGC_INT_EULER: return step_euler(s, h);
    case DIAGC_INT_RK2: return step_rk2(s, h);
    case DIAGC_INT_RK3: return step_rk3(s, h);
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
  if (err == 0)
    hn = kMaxGrow * h;
  else
    hn = kSafety * h * pow(acc / err, 1.0 / diagc_integrators[s->integ].error_order);

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
  *ok = hn >= h;
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

  memcpy(s->xsave, xc_now(s), (size_t)s->nxc * sizeof(double));
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
    if (h > s->max_step_in_use) h = s->max_step_in_use;

    if ((rc = do_step(s, h)) != 0) return rc;
    err = err_norm(s);
    if ((rc = calc_adjusted_step(s, err, h, &at_min, &ok, &next)) != 0)
      return rc;
    if (ok) {
      if (!limited) s->ideal_next = next;
      if (isnan(s->st.smallest_adapted_step) ||
          (h < s->st.smallest_adapted_step && h < h_max))
        s->st.smallest_adapted_step = h;
    } else {
      s->st.rejected_steps++;
      h = next;
      put_time(s, t_cur);
      put_xc(s, s->xsave);
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

  max_h = s->max_step_in_use;
  if ((cand == DIAGC_STEP_REACHED_BOUNDARY && t0 + max_h < target) ||
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
    put_time(s, target); /* snap exactly */
    *result = cand;
  } else {
    *result = DIAGC_STEP_TIME_ADVANCED;
  }
  return 0;
}
