/* Drake's ExampleDiscreteSystem and the VectorLogSink sampling rules. */
#include <math.h>
#include <string.h>

#include "diagc/simulator.h"
#include "models/check.h"
#include "models/example_discrete.c"

#define MAX_ROWS 64
#define MAX_LOG 4

typedef struct rows_t {
  int n, nlog;
  double t[MAX_ROWS];
  unsigned char fired[MAX_ROWS][MAX_LOG];
  double v[MAX_ROWS][MAX_LOG];
  int null_ok; /* values[i] == NULL exactly when !fired[i] */
} rows_t;

static void on_log(void *user, double t, const unsigned char *fired,
                   const double *const *values) {
  rows_t *r = (rows_t *)user;
  int i;
  if (r->n >= MAX_ROWS) return;
  r->t[r->n] = t;
  for (i = 0; i < r->nlog; i++) {
    r->fired[r->n][i] = fired[i];
    r->v[r->n][i] = fired[i] && values[i] ? values[i][0] : NAN;
    if ((values[i] == NULL) != (fired[i] == 0)) r->null_ok = 0;
  }
  r->n++;
}

static double xd0(diagc_sim *sim) {
  const ed_ctx *c = (const ed_ctx *)diagc_sim_context(sim);
  return c->xd[0];
}

static void test_example(void) {
  rows_t r;
  diagc_sim *sim = diagc_sim_create(&example_discrete_model, NULL);
  int rc, k, ok;
  memset(&r, 0, sizeof r);
  r.nlog = 1;
  r.null_ok = 1;
  diagc_sim_set_log_callback(sim, on_log, &r);
  /* 3h is exactly the double 0.06. */
  check(3 * ED_PERIOD == 0.06, "example.3h_is_0.06", "3h = %.17g", 3 * ED_PERIOD);
  rc = diagc_sim_advance_to(sim, 0.06);
  check(rc == 0, "example.advance_rc", "rc %d: %s", rc, diagc_sim_error(sim));
  ok = r.n == 4;
  for (k = 0; ok && k < 4; k++)
    ok = r.t[k] == 0. + k * ED_PERIOD && r.v[k][0] == 10. * k;
  check(ok, "example.log_0_10_20_30",
        "n=%d rows: (%.17g,%g) (%.17g,%g) (%.17g,%g) (%.17g,%g)", r.n, r.t[0],
        r.v[0][0], r.t[1], r.v[1][0], r.t[2], r.v[2][0], r.t[3], r.v[3][0]);
  check(diagc_sim_time(sim) == 0.06, "example.time", "t = %.17g",
        diagc_sim_time(sim));
  /* The update at 3h is still pending: x = 3, not 4. */
  check(xd0(sim) == 3, "example.update_at_tmax_pending", "x = %g", xd0(sim));
  /* AdvanceTo(now) takes one step: it applies the pending update and does
   * not log (the next sample is at 4h). */
  rc = diagc_sim_advance_to(sim, 0.06);
  check(rc == 0 && xd0(sim) == 4 && r.n == 4 && diagc_sim_time(sim) == 0.06,
        "example.advance_to_now", "rc %d x %g rows %d t %.17g", rc, xd0(sim),
        r.n, diagc_sim_time(sim));
  rc = diagc_sim_advance_to(sim, 5 * ED_PERIOD);
  check(rc == 0 && r.n == 6 && r.t[4] == 4 * ED_PERIOD && r.v[4][0] == 40 &&
            r.t[5] == 5 * ED_PERIOD && r.v[5][0] == 50,
        "example.continue", "rc %d rows %d (%.17g,%g) (%.17g,%g)", rc, r.n,
        r.t[4], r.v[4][0], r.t[5], r.v[5][0]);
  check(r.null_ok, "example.values_null_iff_not_fired", "mismatch");
  {
    diagc_sim_statistics st;
    diagc_sim_stats(sim, &st);
    /* steps: 3 (to 0.06), 1 (now), 2 (to 0.1); updates at 0, .02, .04,
     * .06 (the now-step) and .08 */
    check(st.steps == 6 && st.discrete_updates == 5 && st.log_rows == 6 &&
              st.integrator_steps == 0 && st.derivative_evals == 0,
          "example.stats", "steps %lld upd %lld rows %lld isteps %lld",
          (long long)st.steps, (long long)st.discrete_updates,
          (long long)st.log_rows, (long long)st.integrator_steps);
  }
  diagc_sim_destroy(sim);
}

/* A logger of period 0 samples at Initialize and after every step. */
static void test_period0_logger(void) {
  static const diagc_logger_desc lg[] = {{"example.Sn", 0, 1, 0.0}};
  diagc_model m = example_discrete_model;
  rows_t r;
  diagc_sim *sim;
  int rc, k, ok;
  m.loggers = lg;
  sim = diagc_sim_create(&m, NULL);
  memset(&r, 0, sizeof r);
  r.nlog = 1;
  r.null_ok = 1;
  diagc_sim_set_log_callback(sim, on_log, &r);
  rc = diagc_sim_initialize(sim);
  check(rc == 0 && r.n == 1 && r.t[0] == 0 && r.v[0][0] == 0,
        "period0.init_sample", "rc %d rows %d", rc, r.n);
  rc = diagc_sim_advance_to(sim, 0.07);
  /* steps end at 0.02, 0.04, 0.06 (updates) and 0.07 (boundary) */
  ok = rc == 0 && r.n == 5;
  for (k = 1; ok && k < 4; k++)
    ok = r.t[k] == k * ED_PERIOD && r.v[k][0] == 10. * k;
  ok = ok && r.t[4] == 0.07 && r.v[4][0] == 40;
  check(ok, "period0.every_step", "rc %d rows %d last (%.17g,%g)", rc, r.n,
        r.t[r.n - 1], r.v[r.n - 1][0]);
  rc = diagc_sim_advance_to(sim, 0.07); /* AdvanceTo(now): one more step */
  check(rc == 0 && r.n == 6 && r.t[5] == 0.07, "period0.advance_to_now",
        "rc %d rows %d", rc, r.n);
  diagc_sim_destroy(sim);
}

/* Period h: samples at 0, h, 2h, ... and not at a t_max that is not a
 * multiple of h. */
static void test_periodh_not_multiple(void) {
  rows_t r;
  diagc_sim *sim = diagc_sim_create(&example_discrete_model, NULL);
  int rc;
  memset(&r, 0, sizeof r);
  r.nlog = 1;
  r.null_ok = 1;
  diagc_sim_set_log_callback(sim, on_log, &r);
  rc = diagc_sim_advance_to(sim, 0.05);
  check(rc == 0 && r.n == 3 && r.t[2] == 2 * ED_PERIOD &&
            diagc_sim_time(sim) == 0.05,
        "periodh.tmax_not_multiple", "rc %d rows %d t %.17g", rc, r.n,
        diagc_sim_time(sim));
  diagc_sim_destroy(sim);
}

/* Two loggers with different periods: one row per instant, empty cells for
 * the logger that did not fire. */
static void test_two_loggers(void) {
  static const diagc_logger_desc lg[] = {{"A", 0, 1, 0.02},
                                         {"B", 0, 1, 0.03}};
  diagc_model m = example_discrete_model;
  rows_t r;
  diagc_sim *sim;
  int rc, ok;
  m.loggers = lg;
  m.n_loggers = 2;
  sim = diagc_sim_create(&m, NULL);
  memset(&r, 0, sizeof r);
  r.nlog = 2;
  r.null_ok = 1;
  diagc_sim_set_log_callback(sim, on_log, &r);
  rc = diagc_sim_advance_to(sim, 0.06);
  /* instants 0 (A,B) 0.02 (A) 0.03 (B) 0.04 (A) 0.06 (A,B) */
  ok = rc == 0 && r.n == 5 && r.null_ok;
  ok = ok && r.t[0] == 0 && r.fired[0][0] && r.fired[0][1];
  ok = ok && r.t[1] == 0.02 && r.fired[1][0] && !r.fired[1][1] &&
       r.v[1][0] == 10;
  ok = ok && r.t[2] == 0.03 && !r.fired[2][0] && r.fired[2][1] &&
       r.v[2][1] == 20;
  ok = ok && r.t[3] == 0.04 && r.fired[3][0] && !r.fired[3][1] &&
       r.v[3][0] == 20;
  ok = ok && r.t[4] == 2 * 0.03 && r.fired[4][0] && r.fired[4][1] &&
       r.v[4][0] == 30 && r.v[4][1] == 30;
  check(ok, "two_loggers.rows", "rc %d rows %d", rc, r.n);
  diagc_sim_destroy(sim);
}

/* Validation and misuse. */
static void test_misc(void) {
  diagc_model bad = example_discrete_model;
  diagc_sim_options o;
  char err[200];
  diagc_sim *sim;
  int rc;

  bad.abi_version = 99;
  sim = diagc_sim_create_ex(&bad, NULL, err, sizeof err);
  check(sim == NULL && strstr(err, "ABI") != NULL, "misc.abi_mismatch",
        "err '%s'", err);

  /* ABI 6: a table with entries needs its index-based function */
  bad = example_discrete_model;
  bad.set_source = NULL;
  sim = diagc_sim_create_ex(&bad, NULL, err, sizeof err);
  check(sim == NULL && strstr(err, "set_source") != NULL, "misc.no_set_source",
        "err '%s'", err);
  bad = example_discrete_model;
  bad.eval_output = NULL;
  sim = diagc_sim_create_ex(&bad, NULL, err, sizeof err);
  check(sim == NULL && strstr(err, "eval_output") != NULL, "misc.no_eval_output",
        "err '%s'", err);
  bad = example_discrete_model;
  bad.n_cache = 1;
  sim = diagc_sim_create_ex(&bad, NULL, err, sizeof err);
  check(sim == NULL && strstr(err, "eval_cache") != NULL, "misc.no_eval_cache",
        "err '%s'", err);
  bad = example_discrete_model;
  bad.n_sources = bad.n_outputs = bad.n_loggers = 0;
  bad.set_source = NULL;
  bad.eval_output = NULL;
  sim = diagc_sim_create_ex(&bad, NULL, err, sizeof err);
  check(sim != NULL, "misc.empty_tables_need_no_functions", "err '%s'", err);
  diagc_sim_destroy(sim);

  diagc_sim_options_init(&o);
  o.integrator = "heun_magic";
  sim = diagc_sim_create_ex(&example_discrete_model, &o, err, sizeof err);
  check(sim == NULL && strstr(err, "heun_magic") != NULL,
        "misc.unknown_integrator_create", "err '%s'", err);

  diagc_sim_options_init(&o);
  check(strcmp(o.integrator, "runge_kutta3") == 0 && o.accuracy == 1e-4 &&
            o.max_step == 0.1 && o.error_control == 1 &&
            o.initial_step == 1e-4 && o.suppress_initialization_events == 0,
        "misc.defaults", "unexpected defaults");

  sim = diagc_sim_create(&example_discrete_model, &o);
  check(diagc_sim_set_integrator(sim, "nope") != 0 &&
            strcmp(diagc_sim_integrator(sim), "runge_kutta3") == 0,
        "misc.set_integrator_unknown", "accepted");
  check(diagc_sim_set_integrator(sim, "runge_kutta4") == 0 &&
            strcmp(diagc_sim_integrator(sim), "runge_kutta4") == 0 &&
            diagc_sim_set_integrator(sim, "explicit_euler") == 0 &&
            diagc_sim_set_integrator(sim, "runge_kutta2") == 0 &&
            diagc_sim_set_integrator(sim, "runge_kutta3") == 0,
        "misc.set_integrator_known", "rejected");
  rc = diagc_sim_advance_to(sim, 0.04);
  check(rc == 0, "misc.advance", "rc %d", rc);
  rc = diagc_sim_advance_to(sim, 0.03);
  check(rc == DIAGC_SIM_E_ARG && diagc_sim_error(sim)[0] != 0,
        "misc.advance_backwards", "rc %d", rc);
  rc = diagc_sim_advance_to(sim, NAN);
  check(rc == DIAGC_SIM_E_ARG, "misc.advance_nan", "rc %d", rc);
  /* An external time change makes advance_to fail until re-initialized. */
  example_discrete_model.set_time(diagc_sim_context(sim), 1.0);
  rc = diagc_sim_advance_to(sim, 2.0);
  check(rc == DIAGC_SIM_E_TIME && strstr(diagc_sim_error(sim), "time") != NULL,
        "misc.external_time_change", "rc %d: %s", rc, diagc_sim_error(sim));
  rc = diagc_sim_initialize(sim);
  rc = rc == 0 ? diagc_sim_advance_to(sim, 1.0 + ED_PERIOD) : rc;
  check(rc == 0 && diagc_sim_time(sim) == 1.0 + ED_PERIOD,
        "misc.reinitialize_after_time_change", "rc %d: %s", rc,
        diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

int main(void) {
  test_example();
  test_period0_logger();
  test_periodh_not_multiple();
  test_two_loggers();
  test_misc();
  return check_exit();
}
