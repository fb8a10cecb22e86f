/* Continuous integration: accuracy of the error-controlled RK3, orders of
 * the fixed-step integrators, sample-and-hold, non-finite states. */
#include <math.h>
#include <string.h>

#include "diagc/simulator.h"
#include "models/check.h"
#include "models/decay.c"
#include "models/sample_hold.c"

static double run_decay(const char *integ, double max_step, int error_control,
                        double accuracy, double t_end,
                        diagc_sim_statistics *st, int *rc_out) {
  diagc_sim_options o;
  diagc_sim *sim;
  double x;
  int rc;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.max_step = max_step;
  o.error_control = error_control;
  o.accuracy = accuracy;
  sim = diagc_sim_create(&decay_model, &o);
  rc = diagc_sim_advance_to(sim, t_end);
  x = ((const decay_ctx *)diagc_sim_context(sim))->xc[0];
  if (st) diagc_sim_stats(sim, st);
  if (rc_out) *rc_out = rc;
  if (rc == 0 && diagc_sim_time(sim) != t_end) x = NAN;
  diagc_sim_destroy(sim);
  return x;
}

static void test_rk3_accuracy(void) {
  diagc_sim_statistics st;
  int rc;
  const double exact = exp(-1.0);
  double x = run_decay("runge_kutta3", 0.1, 1, 1e-4, 1.0, &st, &rc);
  double rel = fabs(x - exact) / exact;
  check(rc == 0 && rel < 1e-4, "rk3.default_accuracy",
        "rc %d x %.17g rel err %g", rc, x, rel);
  check(st.derivative_evals == 3 * (st.integrator_steps + st.rejected_steps),
        "rk3.three_evals_per_attempt", "evals %lld steps %lld rejected %lld",
        (long long)st.derivative_evals, (long long)st.integrator_steps,
        (long long)st.rejected_steps);
  check(st.integrator_steps == st.steps && st.initial_step == 1e-4 &&
            st.largest_step <= 0.1 && st.smallest_step > 0 &&
            st.smallest_step <= st.largest_step,
        "rk3.step_stats", "steps %lld/%lld initial %g smallest %g largest %g",
        (long long)st.integrator_steps, (long long)st.steps, st.initial_step,
        st.smallest_step, st.largest_step);
  /* The step grows from the initial target, limited by the accuracy. */
  check(st.largest_step > 100 * st.initial_step && st.integrator_steps < 40,
        "rk3.step_grows", "largest %g steps %lld", st.largest_step,
        (long long)st.integrator_steps);
  {
    double xt = run_decay("runge_kutta3", 0.1, 1, 1e-8, 1.0, &st, &rc);
    double relt = fabs(xt - exact) / exact;
    check(rc == 0 && relt < 1e-8 && relt < rel, "rk3.tighter_accuracy",
          "rc %d rel err %g (default %g), steps %lld", rc, relt, rel,
          (long long)st.integrator_steps);
  }
}

static void order_check(const char *integ, int error_control, double order) {
  const double exact = exp(-1.0);
  double h = 0.125;
  int rc1, rc2;
  double e1 = fabs(run_decay(integ, h, error_control, 1e-4, 1.0, NULL, &rc1) -
                   exact);
  double e2 = fabs(
      run_decay(integ, h / 2, error_control, 1e-4, 1.0, NULL, &rc2) - exact);
  double slope = log2(e1 / e2);
  char name[80];
  snprintf(name, sizeof name, "order.%s%s", integ,
           error_control ? "" : "_fixed");
  check(rc1 == 0 && rc2 == 0 && fabs(slope - order) <= 0.2, name,
        "errors %g %g slope %.3f (want %g)", e1, e2, slope, order);
}

/* A fixed-step integrator takes exactly t/h steps of h. */
static void test_fixed_steps(void) {
  diagc_sim_statistics st;
  int rc;
  double x = run_decay("runge_kutta4", 0.125, 1, 1e-4, 1.0, &st, &rc);
  check(rc == 0 && st.integrator_steps == 8 && st.largest_step == 0.125 &&
            st.smallest_step == 0.125 && st.derivative_evals == 32 &&
            st.rejected_steps == 0 && !isnan(x),
        "fixed.rk4_steps", "steps %lld evals %lld",
        (long long)st.integrator_steps, (long long)st.derivative_evals);
  x = run_decay("runge_kutta3", 0.125, 0, 1e-4, 1.0, &st, &rc);
  check(rc == 0 && st.integrator_steps == 8 && st.derivative_evals == 24,
        "fixed.rk3_without_error_control", "steps %lld evals %lld",
        (long long)st.integrator_steps, (long long)st.derivative_evals);
  x = run_decay("explicit_euler", 0.125, 1, 1e-4, 1.0, &st, &rc);
  check(rc == 0 && x == pow(1 - 0.125, 8), "fixed.euler_exact_arithmetic",
        "x %.17g want %.17g", x, pow(1 - 0.125, 8));
}

/* fixed_step overrides max_step for fixed-step integration. */
static void test_fixed_step_option(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  diagc_sim_statistics st;
  int rc;
  diagc_sim_options_init(&o);
  o.integrator = "runge_kutta2";
  o.max_step = 0.5;
  o.fixed_step = 0.25;
  sim = diagc_sim_create(&decay_model, &o);
  rc = diagc_sim_advance_to(sim, 1.0);
  diagc_sim_stats(sim, &st);
  check(rc == 0 && st.integrator_steps == 4 && st.largest_step == 0.25,
        "fixed.fixed_step_option", "steps %lld", (long long)st.integrator_steps);
  diagc_sim_destroy(sim);
}

/* The integrator sees the held discrete value: with updates at n*h, any
 * evaluation at t in [n*h, (n+1)*h] (after the update at n*h) sees d_{n+1}. */
static void test_sample_hold(const char *integ) {
  diagc_sim_options o;
  diagc_sim *sim;
  int rc, ok = 1;
  long k, bad = -1;
  double x;
  char name[80];
  diagc_sim_options_init(&o);
  o.integrator = integ;
  sh_nevals = 0;
  sim = diagc_sim_create(&sample_hold_model, &o);
  rc = diagc_sim_advance_to(sim, 1.0);
  x = ((const sh_ctx *)diagc_sim_context(sim))->xc[0];
  for (k = 0; k < sh_nevals && k < SH_MAX_EVALS; k++) {
    const double n = sh_eval_d[k] - 1;
    if (!(n >= 0 && 0. + n * SH_H <= sh_eval_t[k] &&
          sh_eval_t[k] <= 0. + (n + 1) * SH_H)) {
      ok = 0;
      if (bad < 0) bad = k;
    }
  }
  snprintf(name, sizeof name, "sample_hold.%s.held_value", integ);
  check(rc == 0 && sh_nevals > 0 && ok, name,
        "rc %d evals %ld first bad: t %.17g d %g", rc, sh_nevals,
        bad >= 0 ? sh_eval_t[bad] : 0, bad >= 0 ? sh_eval_d[bad] : 0);
  snprintf(name, sizeof name, "sample_hold.%s.x_at_1", integ);
  check(fabs(x - 5.5) < 1e-12, name, "x(1) = %.17g, want 5.5", x);
  diagc_sim_destroy(sim);
}

/* A NaN or infinity in the continuous state stops with an error that
 * names the state and the time. */
static void test_nonfinite(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  int rc;
  decay_nan_after = 0.3;
  diagc_sim_options_init(&o);
  o.integrator = "explicit_euler";
  sim = diagc_sim_create(&decay_model, &o);
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc == DIAGC_SIM_E_NONFINITE &&
            strstr(diagc_sim_error(sim), "decay.x") != NULL &&
            strstr(diagc_sim_error(sim), "0.4") != NULL,
        "nonfinite.fixed_step", "rc %d msg '%s'", rc, diagc_sim_error(sim));
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc == DIAGC_SIM_E_STATE, "nonfinite.sticky", "rc %d", rc);
  diagc_sim_destroy(sim);

  sim = diagc_sim_create(&decay_model, NULL);
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc < 0 && strstr(diagc_sim_error(sim), "decay.x") != NULL &&
            diagc_sim_time(sim) < 0.31,
        "nonfinite.rk3", "rc %d t %.17g msg '%s'", rc, diagc_sim_time(sim),
        diagc_sim_error(sim));
  diagc_sim_destroy(sim);
  decay_nan_after = INFINITY;
}

/* Per-step logging of a continuous state. */
static int n_rows;
static double last_t, last_x;
static void on_row(void *user, double t, const unsigned char *fired,
                   const double *const *values) {
  (void)user;
  if (fired[0]) {
    n_rows++;
    last_t = t;
    last_x = values[0][0];
  }
}

static void test_logging(void) {
  diagc_model m = decay_model;
  diagc_sim *sim;
  diagc_sim_statistics st;
  int rc;
  m.n_loggers = 1;
  m.loggers = decay_logger_step;
  sim = diagc_sim_create(&m, NULL);
  diagc_sim_set_log_callback(sim, on_row, NULL);
  rc = diagc_sim_advance_to(sim, 2.0);
  diagc_sim_stats(sim, &st);
  check(rc == 0 && n_rows == st.steps + 1 && last_t == 2.0 &&
            fabs(last_x - exp(-2.0)) < 1e-4,
        "logging.per_step", "rc %d rows %d steps %lld last (%g, %g)", rc,
        n_rows, (long long)st.steps, last_t, last_x);
  diagc_sim_destroy(sim);
}

int main(void) {
  test_rk3_accuracy();
  order_check("explicit_euler", 1, 1);
  order_check("runge_kutta2", 1, 2);
  order_check("runge_kutta3", 0, 3);
  order_check("runge_kutta4", 1, 4);
  test_fixed_steps();
  test_fixed_step_option();
  test_sample_hold("runge_kutta3");
  test_sample_hold("runge_kutta4");
  test_sample_hold("explicit_euler");
  test_sample_hold("bogacki_shampine3");
  test_sample_hold("dormand_prince54");
  test_sample_hold("implicit_euler");
  test_sample_hold("radau3");
  test_sample_hold("radau5");
  test_nonfinite();
  test_logging();
  return check_exit();
}
