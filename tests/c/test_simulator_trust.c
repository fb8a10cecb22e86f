/* Trust checks of the simulator (issue 14): non-finite values in discrete
 * state and logged outputs stop the run with their name and time, and no
 * step next to an event time is a sliver of roundoff. */
#include <math.h>
#include <string.h>

#include "diagc/simulator.h"
#include "models/check.h"
#include "models/thermal.c"

/* ---- every step, through the progress hook ---- */
typedef struct steps_t {
  double prev, smallest, t_smallest;
  long n;
} steps_t;

static void on_step(void *user, double t) {
  steps_t *s = (steps_t *)user;
  const double h = t - s->prev;
  if (h > 0 && (s->n == 0 || h < s->smallest)) {
    s->smallest = h;
    s->t_smallest = t;
  }
  if (h > 0) s->n++;
  s->prev = t;
}

/* Runs the thermostat to t_end and returns the smallest step taken. */
static double smallest_step(const char *integ, double max_step, double fixed,
                            double t_end, const char *name) {
  diagc_sim_options o;
  diagc_sim_statistics st;
  steps_t s;
  diagc_sim *sim;
  char nm[128];
  int rc;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.max_step = max_step;
  if (fixed > 0) {
    o.fixed_step = fixed;
    o.error_control = 0;
  }
  sim = diagc_sim_create(&thermal_model, &o);
  memset(&s, 0, sizeof s);
  diagc_sim_set_progress_callback(sim, on_step, &s);
  rc = diagc_sim_advance_to(sim, t_end);
  snprintf(nm, sizeof nm, "smallest_step.%s.rc", name);
  check(rc == 0, nm, "rc %d: %s", rc, diagc_sim_error(sim));
  diagc_sim_stats(sim, &st);
  /* the statistics agree with the steps seen by the hook */
  snprintf(nm, sizeof nm, "smallest_step.%s.stats", name);
  check(st.smallest_step == s.smallest, nm, "stats %.17g hook %.17g",
        st.smallest_step, s.smallest);
  /* structural: no step is a sliver next to an event time or the end */
  snprintf(nm, sizeof nm, "smallest_step.%s.not_tiny", name);
  check(s.smallest > 1e-6 * TH_PERIOD, nm,
        "smallest step %.3g ends at t = %.17g (%ld steps)", s.smallest,
        s.t_smallest, s.n);
  diagc_sim_destroy(sim);
  return s.smallest;
}

static void test_no_slivers(void) {
  /* the reported case: 10 s controller, default maximum step 0.1 */
  smallest_step("runge_kutta3", 0.1, 0, 200, "rk3");
  smallest_step("dormand_prince54", 0.1, 0, 200, "dp54");
  smallest_step("bogacki_shampine3", 0.1, 0, 200, "bs3");
  smallest_step("runge_kutta3", 0.3, 0, 200, "rk3.max_0.3");
  /* an end time between events and steps that do not divide it */
  smallest_step("runge_kutta3", 0.1, 0, 205.3, "rk3.until_205.3");
  smallest_step("runge_kutta4", 0.1, 0.1, 200, "rk4.fixed_0.1");
  smallest_step("runge_kutta4", 0.1, 0.1, 205.3, "rk4.fixed_until_205.3");
  smallest_step("explicit_euler", 0.01, 0.01, 200, "euler.fixed_0.01");
}

/* ---- non-finite values ---- */
typedef struct rows_t {
  int n;
  double t[64];
} rows_t;

static void on_log(void *user, double t, const unsigned char *fired,
                   const double *const *values) {
  rows_t *r = (rows_t *)user;
  (void)fired;
  (void)values;
  if (r->n < 64) r->t[r->n] = t;
  r->n++;
}

static th_ctx *thc(diagc_sim *sim) { return (th_ctx *)diagc_sim_context(sim); }

static diagc_sim *make(int check_finite) {
  diagc_sim_options o;
  diagc_sim *sim;
  diagc_sim_options_init(&o);
  o.check_finite = check_finite;
  sim = diagc_sim_create(&thermal_model, &o);
  return sim;
}

static void test_nonfinite_discrete(double bad, const char *name) {
  diagc_sim *sim = make(1);
  rows_t r;
  char nm[96], want[160];
  int rc;
  memset(&r, 0, sizeof r);
  diagc_sim_set_log_callback(sim, on_log, &r);
  thc(sim)->inject_xd = 3; /* updates at t = 0, 10, 20: the third at 20 */
  thc(sim)->inject_value = bad;
  rc = diagc_sim_advance_to(sim, 100);
  snprintf(nm, sizeof nm, "nonfinite.discrete.%s.rc", name);
  check(rc == DIAGC_SIM_E_NONFINITE, nm, "rc %d: %s", rc, diagc_sim_error(sim));
  snprintf(want, sizeof want,
           "non-finite value in discrete state 'ctrl.n' (xd[1]) = %g at "
           "t = 20 (after periodic discrete update 'ctrl.update')",
           bad);
  snprintf(nm, sizeof nm, "nonfinite.discrete.%s.message", name);
  check(strcmp(diagc_sim_error(sim), want) == 0, nm, "'%s' wanted '%s'",
        diagc_sim_error(sim), want);
  snprintf(nm, sizeof nm, "nonfinite.discrete.%s.stops_at_20", name);
  check(diagc_sim_time(sim) == 20 && r.n == 3, nm, "t %.17g, %d rows",
        diagc_sim_time(sim), r.n);
  rc = diagc_sim_advance_to(sim, 100);
  snprintf(nm, sizeof nm, "nonfinite.discrete.%s.sticky", name);
  check(rc == DIAGC_SIM_E_STATE, nm, "rc %d", rc);
  diagc_sim_destroy(sim);
}

static void test_nonfinite_output(void) {
  diagc_sim *sim = make(1);
  rows_t r;
  int rc;
  memset(&r, 0, sizeof r);
  diagc_sim_set_log_callback(sim, on_log, &r);
  thc(sim)->inject_out_t = 35;
  thc(sim)->inject_value = -INFINITY;
  rc = diagc_sim_advance_to(sim, 100);
  check(rc == DIAGC_SIM_E_NONFINITE, "nonfinite.output.rc", "rc %d: %s", rc,
        diagc_sim_error(sim));
  check(strcmp(diagc_sim_error(sim),
               "non-finite value in logged output 'room.T' = -inf at t = 40") ==
            0,
        "nonfinite.output.message", "'%s'", diagc_sim_error(sim));
  /* rows 0, 10, 20, 30 were logged; the row at 40 was not */
  check(r.n == 4 && r.t[3] == 30, "nonfinite.output.not_logged",
        "%d rows, last t %g", r.n, r.n ? r.t[r.n - 1] : -1.0);
  diagc_sim_destroy(sim);
}

static void test_nonfinite_off(void) {
  diagc_sim *sim = make(0);
  rows_t r;
  int rc;
  memset(&r, 0, sizeof r);
  diagc_sim_set_log_callback(sim, on_log, &r);
  thc(sim)->inject_xd = 3;
  thc(sim)->inject_out_t = 35;
  thc(sim)->inject_value = NAN;
  rc = diagc_sim_advance_to(sim, 100);
  check(rc == 0 && r.n == 11 && isnan(thc(sim)->xd[1]), "nonfinite.off.runs",
        "rc %d (%s), %d rows", rc, diagc_sim_error(sim), r.n);
  diagc_sim_destroy(sim);
}

static void test_nonfinite_initial(void) {
  diagc_sim *sim = make(1);
  int rc;
  thc(sim)->xd[0] = NAN;
  rc = diagc_sim_initialize(sim);
  check(rc == DIAGC_SIM_E_NONFINITE &&
            strcmp(diagc_sim_error(sim),
                   "non-finite value in discrete state 'ctrl.q' (xd[0]) = nan "
                   "at t = 0 (initial state)") == 0,
        "nonfinite.initial_state", "rc %d: '%s'", rc, diagc_sim_error(sim));
  diagc_sim_destroy(sim);

  sim = make(1);
  rc = diagc_sim_advance_to(sim, 10);
  check(rc == 0, "nonfinite.between_calls.first", "rc %d", rc);
  thc(sim)->xc[0] = INFINITY; /* as m->set_xc would, between calls */
  rc = diagc_sim_advance_to(sim, 20);
  check(rc == DIAGC_SIM_E_NONFINITE &&
            strstr(diagc_sim_error(sim),
                   "continuous state 'room.T' (xc[0]) = inf at t = 10 (set "
                   "before advance_to)") != NULL,
        "nonfinite.between_calls", "rc %d: '%s'", rc, diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

int main(void) {
  test_no_slivers();
  test_nonfinite_discrete(NAN, "nan");
  test_nonfinite_discrete(INFINITY, "inf");
  test_nonfinite_output();
  test_nonfinite_off();
  test_nonfinite_initial();
  return check_exit();
}
