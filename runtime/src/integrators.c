/* The integrators: the method table, the dispatch of a step to its
 * method, and step-size control, after Drake's IntegratorBase
 * (systems/analysis/integrator_base.{h,cc}).
 *
 * Calls go one way: simulator.c calls this file; this file calls the
 * methods (methods.h: explicit.c, implicit_euler.c, radau.c, radau5.c),
 * which call the implicit methods' Newton core (newton.c), which calls
 * the Jacobian source and the linear algebra (implicit.c, band.c).  No
 * method calls back into this file.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "methods.h"
#include "sim_internal.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Order of the index with the DIAGC_INT_* enum.  error_order is the
 * exponent used by step-size control (Drake's get_error_estimate_order). */
/* The stability limits: where |R(z)| = 1 on the negative real axis for
 * the method's stability polynomial R (Heun's and Euler's 2; any
 * three-stage third-order method's 2.51275; the classic fourth order's
 * 2.78529; Dormand-Prince's 3.30657). */
const diagc_integrator_desc diagc_integrators[DIAGC_N_INTEGRATORS] = {
    {"explicit_euler", 0, 0, diagc_step_euler, 2.0, NULL},
    {"runge_kutta2", 0, 0, diagc_step_rk2, 2.0, diagc_hlambda_rk2},
    {"runge_kutta3", 1, 3, diagc_step_rk3, 2.51275, diagc_hlambda_rk3},
    {"runge_kutta4", 0, 0, diagc_step_rk4, 2.78529, diagc_hlambda_rk4},
    {"semi_explicit_euler", 0, 0, diagc_step_semi_euler, 2.0, NULL},
    {"bogacki_shampine3", 1, 3, diagc_step_bs3, 2.51275, diagc_hlambda_bs3},
    {"dormand_prince54", 1, 5, diagc_step_dp54, 3.30657, diagc_hlambda_dp54},
    {"implicit_euler", 1, 2, diagc_step_implicit_euler, 0, NULL},
    {"radau3", 1, 3, diagc_step_radau3, 0, NULL},
    /* its own controller: diagc_radau5_propose */
    {"radau5", 1, 4, diagc_step_radau5, 0, NULL},
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
  diagc_stiffness_reset(s, s->integ >= 0 && s->integ < DIAGC_N_INTEGRATORS
                               ? &diagc_integrators[s->integ]
                               : NULL);
  /* radau3 and radau5 form a new Jacobian at their next step */
  diagc_implicit_reset(&s->imp);
}

int diagc_integrator_alloc(diagc_sim *s) {
  diagc_implicit_reset(&s->imp);
  if (s->integ == DIAGC_INT_IMPLICIT_EULER) return diagc_implicit_alloc(s, 1);
  if (s->integ == DIAGC_INT_RADAU3) return diagc_implicit_alloc(s, 2);
  if (s->integ == DIAGC_INT_RADAU5) return diagc_implicit_alloc(s, 3);
  return 0;
}

static void put_time(diagc_sim *s, double t) { s->m->set_time(s->ctx, t); }

/* One step of h of the selected method (Drake's DoStep). */
static int do_step(diagc_sim *s, double h) {
  return diagc_integrators[s->integ].step(s, h);
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
  const double *x = diagc_sim_xc(s);
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
    diagc_sim_put_xc(s, s->x0);
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
      diagc_sim_put_xc(s, s->x0);
      if (s->integ == DIAGC_INT_DP54 || s->integ == DIAGC_INT_BS3)
        diagc_fsal_rejected(s, t_cur);
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

/* ---- the step-count limit (options.max_steps) -------------------------- */

/* Steps between two checks of the limit's projection. */
enum { LIMIT_WINDOW = 65536 };

void diagc_step_limit_start(diagc_sim *s, double t_max) {
  const int64_t n = s->st.integrator_steps + s->st.rejected_steps;
  s->run_end = t_max;
  s->lim_start = s->lim_n = n;
  s->lim_t = diagc_sim_ctx_time(s);
  s->lim_strikes = 0;
  s->lim_next = n + (s->opt.max_steps < LIMIT_WINDOW ? s->opt.max_steps + 1
                                                      : LIMIT_WINDOW);
}

/* Why the steps are small, for the limit's message ("" if nothing
 * tells): the stiffness test's evidence, or error control's rejections. */
static const char *limit_reason(const diagc_sim *s, char *buf, size_t len) {
  const diagc_sim_statistics *st = &s->st;
  const int64_t all = st->integrator_steps + st->rejected_steps;
  buf[0] = 0;
  if (!isnan(st->stiff_time)) {
    snprintf(buf, len,
             "; from t = %.6g the steps were held at the method's stability "
             "limit (h |lambda| = %.3g with h = %.3g s: |lambda| ~ %.3g /s): "
             "the model looks stiff",
             st->stiff_time, st->stiff_hlambda, st->stiff_step,
             st->stiff_hlambda / st->stiff_step);
  } else if (st->rejected_steps > 0 && all > 0) {
    snprintf(buf, len, "; error control rejected %lld of them (%.3g %%)",
             (long long)st->rejected_steps,
             100.0 * (double)st->rejected_steps / (double)all);
  }
  return buf;
}

/* more: the steps the projection needs beyond the taken ones (NaN: the
 * taken ones alone exceed the limit). */
static int step_limit_error(diagc_sim *s, int64_t taken, double more) {
  char why[200];
  const double t = diagc_sim_ctx_time(s);
  const int64_t lately = s->st.integrator_steps + s->st.rejected_steps -
                         s->lim_n;
  const char *reason = limit_reason(s, why, sizeof why);
  if (isnan(more)) {
    diagc_sim_set_err(s,
                      "%s: step-count limit: %lld steps, the limit per "
                      "advance_to (options.max_steps), reached only t = %.6g "
                      "of %.6g%s",
                      s->opt.integrator, (long long)taken, t, s->run_end,
                      reason);
  } else {
    diagc_sim_set_err(s,
                      "%s: step-count limit: after %lld steps, at t = %.6g, "
                      "reaching t = %.6g with steps of their recent size "
                      "(%.3g s) would take about %.3g more, beyond the "
                      "limit of %lld per advance_to (options.max_steps)%s",
                      s->opt.integrator, (long long)taken, t, s->run_end,
                      (t - s->lim_t) / (double)lately, more,
                      (long long)s->opt.max_steps, reason);
  }
  return DIAGC_SIM_E_STEP;
}

/* After a step: more steps than the limit, or two windows in a row whose
 * average step, continued to the target, would need more. */
static int check_step_limit(diagc_sim *s) {
  const int64_t n = s->st.integrator_steps + s->st.rejected_steps;
  const int64_t taken = n - s->lim_start, lim = s->opt.max_steps;
  const double t = diagc_sim_ctx_time(s);
  double per, more;
  if (n < s->lim_next) return 0;
  if (taken > lim) return step_limit_error(s, taken, NAN);
  per = (t - s->lim_t) / (double)(n - s->lim_n);
  more = t >= s->run_end ? 0 : per > 0 ? (s->run_end - t) / per : INFINITY;
  s->lim_strikes = (double)taken + more > (double)lim ? s->lim_strikes + 1 : 0;
  if (s->lim_strikes >= 2) return step_limit_error(s, taken, more);
  s->lim_n = n;
  s->lim_t = t;
  s->lim_next = n + LIMIT_WINDOW;
  if (s->lim_next > s->lim_start + lim + 1) s->lim_next = s->lim_start + lim + 1;
  return 0;
}

/* Drake's IntegrateNoFurtherThanTime. */
int diagc_integrate_no_further_than(diagc_sim *s, double publish_time,
                                    double update_time, double boundary_time,
                                    int *result) {
  const double t0 = diagc_sim_ctx_time(s);
  const diagc_integrator_desc *desc;
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
    return check_step_limit(s);
  }

  desc = &diagc_integrators[s->integ];
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
  if (--s->sk_countdown == 0)
    diagc_stiffness_test(s, desc, t0, diagc_sim_ctx_time(s));
  return check_step_limit(s);
}
