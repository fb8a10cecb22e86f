/* Stiffness is never silent (issue #25): the explicit integrators'
 * stiffness test against the analytic eigenvalues of linear models
 * (x' = -k x: h |lambda| = h k exactly; the forced chain: the largest
 * |lambda| of its tridiagonal Jacobian), no evidence on non-stiff models,
 * and the step-count limit (options.max_steps) for every integrator and
 * for a stepper from outside the runtime. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/simulator.h"
#include "models/check.h"
#include "models/bouncing.c"
#define CHAIN_NO_JACOBIAN
#include "models/chain.c"
#include "models/decay.c"
#include "models/oscillator.c"
#include "models/thermal.c"
#include "models/torque_pendulum.c"

static const char *const EXPLICIT[] = {
    "explicit_euler", "runge_kutta2",      "runge_kutta3",    "runge_kutta4",
    "semi_explicit_euler", "bogacki_shampine3", "dormand_prince54"};
enum { N_EXPLICIT = 7 };
/* every built-in integrator */
static const char *const ALL[] = {
    "explicit_euler",    "runge_kutta2",     "runge_kutta3",
    "runge_kutta4",      "semi_explicit_euler", "bogacki_shampine3",
    "dormand_prince54",  "implicit_euler",   "radau3",
    "radau5"};
enum { N_ALL = 10 };
/* where |R(z)| = 1 on the negative real axis for each explicit method's
 * stability polynomial (computed independently: bisection on R) */
static const double LIMIT[N_EXPLICIT] = {2.0,    2.0,    2.51275, 2.78529,
                                         2.0,    2.51275, 3.30657};

typedef struct run_t {
  int rc;
  diagc_sim_statistics st;
  double x0; /* the first continuous state at the end */
  char err[512];
} run_t;

static run_t simulate(const diagc_model *m, const char *integ, int ec,
                      double h, double acc, double t_end, long long max_steps) {
  diagc_sim_options o;
  diagc_sim *sim;
  run_t r;
  memset(&r, 0, sizeof r);
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.error_control = ec;
  o.max_step = h;
  o.accuracy = acc;
  o.check_finite = 0;
  if (max_steps) o.max_steps = max_steps;
  sim = diagc_sim_create(m, &o);
  if (!sim) {
    r.rc = -100;
    return r;
  }
  r.rc = diagc_sim_advance_to(sim, t_end);
  diagc_sim_stats(sim, &r.st);
  snprintf(r.err, sizeof r.err, "%s", diagc_sim_error(sim));
  r.x0 = ((const double *)(const void *)((const char *)diagc_sim_context(sim) +
                                         m->xc_offset))[0];
  diagc_sim_destroy(sim);
  return r;
}

/* x' = -k x with fixed steps h: every method's estimate is h k (exact for
 * a linear model), conclusive when h k is beyond the limit; with h k at
 * half the limit no test hits.  Strong hits (h k > 10 times the limit)
 * count 5: three tests suffice (six steps for the methods that test
 * across two steps). */
static void linear_estimates(void) {
  int i;
  for (i = 0; i < N_EXPLICIT; i++) {
    const double h = 0.01, lim = LIMIT[i];
    const int across = i == 0 || i == 4;
    char name[96];
    run_t r;
    decay_k = 5 * lim / h;
    r = simulate(&decay_model, EXPLICIT[i], 0, h, 1e-4, 0.4, 0);
    snprintf(name, sizeof name, "stiffness.linear.%s.unstable", EXPLICIT[i]);
    check(r.rc == 0 && fabs(r.st.stiff_hlambda - h * decay_k) <=
                           1e-9 * h * decay_k &&
              fabs(r.st.stiff_step - h) < 1e-15 &&
              fabs(r.st.stability_limit - lim) < 1e-4,
          name, "rc %d, h |lambda| %.17g want %.17g, step %g, limit %g", r.rc,
          r.st.stiff_hlambda, h * decay_k, r.st.stiff_step,
          r.st.stability_limit);
    decay_k = 20 * lim / h;
    r = simulate(&decay_model, EXPLICIT[i], 0, h, 1e-4, 0.1, 0);
    snprintf(name, sizeof name, "stiffness.linear.%s.strong", EXPLICIT[i]);
    check(r.st.stiffness_tests == 3 &&
              fabs(r.st.stiff_time - (across ? 6 : 3) * h) < 1e-12,
          name, "%lld tests, conclusive at t = %.17g",
          (long long)r.st.stiffness_tests, r.st.stiff_time);
    decay_k = 0.5 * lim / h;
    r = simulate(&decay_model, EXPLICIT[i], 0, h, 1e-4, 20.0, 0);
    snprintf(name, sizeof name, "stiffness.linear.%s.stable", EXPLICIT[i]);
    check(r.rc == 0 && isnan(r.st.stiff_time) && r.st.stiffness_tests > 0 &&
              r.st.stiffness_hits == 0,
          name, "rc %d, %lld tests, %lld hits, conclusive at %g", r.rc,
          (long long)r.st.stiffness_tests, (long long)r.st.stiffness_hits,
          r.st.stiff_time);
  }
  decay_k = 1.0;
}

/* The forced chain u' = k (u_l - 2u + u_r) - u^3 under error control: the
 * steps are held at the limit, and |lambda| is the Jacobian's largest,
 * k (2 + 2 cos(pi / (N + 1))) (the cubic term adds at most 3 u^2 <= 0.75). */
static void chain_error_control(void) {
  const double lam = ch_k * (2 + 2 * cos(acos(-1.0) / (CH_N + 1)));
  int i;
  for (i = 2; i < N_EXPLICIT; i++) {
    char name[96];
    run_t r;
    double est;
    if (i == 3 || i == 4) continue; /* fixed steps only */
    r = simulate(&chain_model, EXPLICIT[i], 1, 0.1, 1e-4, 1.0, 0);
    est = r.st.stiff_hlambda / r.st.stiff_step;
    snprintf(name, sizeof name, "stiffness.chain.%s", EXPLICIT[i]);
    check(r.rc == 0 && fabs(est - lam) < 0.15 * lam &&
              r.st.stiff_hlambda > 0.9 * LIMIT[i] &&
              r.st.stiff_hlambda < 1.3 * LIMIT[i],
          name, "rc %d, |lambda| ~ %.6g (analytic %.6g), h |lambda| %.3g, "
          "limit %g, %lld steps", r.rc, est, lam, r.st.stiff_hlambda,
          LIMIT[i], (long long)r.st.integrator_steps);
  }
}

/* Non-stiff models never show evidence: the oscillator, the pendulum
 * with a torque input, the bouncing ball (witness crossings), the
 * thermostat (a relay under a periodic update), with every explicit
 * method, under error control and with fixed steps; the implicit methods
 * never test. */
static void non_stiff(void) {
  const diagc_model *models[4];
  static const double t_end[4] = {20.0, 10.0, 3.0, 600.0};
  static const double steps[4] = {0.01, 0.01, 0.001, 1.0};
  int i, k, ec, bad = 0, runs = 0;
  char detail[640] = "";
  models[0] = &osc_model;
  models[1] = &tp_model;
  models[2] = &bb_model;
  models[3] = &thermal_model;
  for (k = 0; k < 4; k++)
    for (i = 0; i < N_ALL; i++)
      for (ec = 0; ec <= 1; ec++) {
        run_t r;
        bb_n_bounce = bb_n_apex = 0;
        r = simulate(models[k], ALL[i], ec, ec ? 10 * steps[k] : steps[k],
                     1e-6, t_end[k], 0);
        runs++;
        if (r.rc != 0 || !isnan(r.st.stiff_time) ||
            (i >= N_EXPLICIT && r.st.stiffness_tests != 0)) {
          if (!bad)
            snprintf(detail, sizeof detail,
                     "%s %s ec=%d: rc %d, conclusive at %g, %lld tests (%s)",
                     models[k]->name, ALL[i], ec, r.rc, r.st.stiff_time,
                     (long long)r.st.stiffness_tests, r.err);
          bad++;
        }
      }
  check(bad == 0, "stiffness.non_stiff_models", "%d of %d runs: %s", bad,
        runs, detail);
}

/* ---- the step-count limit ---------------------------------------------- */

/* x' = -1e12 x to t = 1 with every integrator: bounded, and never silent.
 * The error-controlled explicit methods stop at the limit's projection
 * (two windows of 65536 steps) with the evidence; the fixed-step explicit
 * ones finish in ten steps (or overflow) with the evidence; the implicit
 * ones finish at x ~ 0. */
static void fast_decay_every_integrator(void) {
  int i;
  decay_k = 1e12;
  for (i = 0; i < N_ALL; i++) {
    const int implicit = i >= N_EXPLICIT;
    const int ec_explicit = i == 2 || i == 5 || i == 6;
    char name[96], want[64];
    run_t r = simulate(&decay_model, ALL[i], 1, 0.1, 1e-4, 1.0, 0);
    const long long n = (long long)(r.st.integrator_steps + r.st.rejected_steps);
    snprintf(name, sizeof name, "step_limit.fast_decay.%s", ALL[i]);
    snprintf(want, sizeof want, "%s: step-count limit", ALL[i]);
    if (implicit) {
      check(r.rc == 0 && fabs(r.x0) < 1e-6, name, "rc %d, x(1) = %g: %s",
            r.rc, r.x0, r.err);
    } else if (ec_explicit) {
      check(r.rc == DIAGC_SIM_E_STEP && strstr(r.err, want) &&
                strstr(r.err, "options.max_steps") &&
                strstr(r.err, "looks stiff") && n <= 2 * 65536 + 1,
            name, "rc %d after %lld steps: %s", r.rc, n, r.err);
    } else {
      check(n <= 10 && !isnan(r.st.stiff_time), name,
            "rc %d after %lld steps, conclusive at %g: %s", r.rc, n,
            r.st.stiff_time, r.err);
    }
  }
  decay_k = 1.0;
}

/* A small limit: a run needing more steps stops naming the integrator and
 * the option; one needing fewer runs; the limit holds per advance_to call;
 * negative is refused, 0 is the default. */
static void small_limit(void) {
  diagc_sim_options o, got;
  diagc_sim *sim;
  run_t r;
  int k, rc = 0;
  char err[256];
  r = simulate(&osc_model, "runge_kutta4", 0, 0.01, 1e-4, 5.0, 100);
  check(r.rc == DIAGC_SIM_E_STEP &&
            strstr(r.err, "runge_kutta4: step-count limit: 101 steps") &&
            r.st.integrator_steps == 101,
        "step_limit.fixed_steps", "rc %d, %lld steps: %s", r.rc,
        (long long)r.st.integrator_steps, r.err);
  r = simulate(&osc_model, "runge_kutta4", 0, 0.01, 1e-4, 0.9, 100);
  check(r.rc == 0, "step_limit.within", "rc %d: %s", r.rc, r.err);
  diagc_sim_options_init(&o);
  o.integrator = "runge_kutta4";
  o.error_control = 0;
  o.max_step = 0.01;
  o.max_steps = 100;
  sim = diagc_sim_create(&osc_model, &o);
  for (k = 1; k <= 10 && rc == 0; k++) rc = diagc_sim_advance_to(sim, 0.5 * k);
  check(rc == 0, "step_limit.per_advance_to", "rc %d at call %d: %s", rc, k,
        diagc_sim_error(sim));
  diagc_sim_destroy(sim);
  o.max_steps = -1;
  sim = diagc_sim_create_ex(&osc_model, &o, err, sizeof err);
  check(sim == NULL && strstr(err, "max_steps"), "step_limit.negative",
        "%s", sim ? "created" : err);
  diagc_sim_destroy(sim);
  o.max_steps = 0;
  sim = diagc_sim_create(&osc_model, &o);
  diagc_sim_get_options(sim, &got);
  check(got.max_steps == DIAGC_SIM_MAX_STEPS && DIAGC_SIM_MAX_STEPS == 1000000000,
        "step_limit.zero_is_default", "%lld", (long long)got.max_steps);
  diagc_sim_destroy(sim);
}

/* A stepper from outside the runtime that creeps (1e-9 s a step): the
 * limit's projection stops it, naming it. */
static int creep(void *self, diagc_sim *sim, diagc_sim_step_request *req) {
  const diagc_model *m = diagc_sim_model(sim);
  const double t = diagc_sim_time(sim) + 1e-9;
  (void)self;
  m->set_time(diagc_sim_context(sim), t < req->t_stop ? t : req->t_stop);
  return 0;
}

static void external_stepper(void) {
  diagc_sim_stepper st;
  diagc_sim_options o;
  diagc_sim *sim;
  diagc_sim_statistics s;
  int rc;
  diagc_sim_options_init(&o);
  o.max_steps = 100000;
  sim = diagc_sim_create(&osc_model, &o);
  memset(&st, 0, sizeof st);
  st.name = "creeper";
  st.step = creep;
  diagc_sim_set_stepper(sim, &st);
  rc = diagc_sim_advance_to(sim, 1.0);
  diagc_sim_stats(sim, &s);
  check(rc == DIAGC_SIM_E_STEP &&
            strstr(diagc_sim_error(sim), "creeper: step-count limit") &&
            s.integrator_steps <= 100001,
        "step_limit.external_stepper", "rc %d, %lld steps: %s", rc,
        (long long)s.integrator_steps, diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

int main(void) {
  linear_estimates();
  chain_error_control();
  non_stiff();
  fast_decay_every_integrator();
  small_limit();
  external_stepper();
  return check_exit();
}
