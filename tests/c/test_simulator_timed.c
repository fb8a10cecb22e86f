/* Drake's CalcNextUpdateTime (diagc_calc_next_update_time) against
 * analytic schedules, and one-shot timed events (next_update_time items):
 * exact firing times and simultaneity with a periodic event. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "diagc/simulator.h"
#include "models/check.h"
#include "models/sample_hold.c"
#include "models/thermal.c"
#include "models/timed.c"

static void test_query_periodic(void) {
  /* thermal: the controller every 10 s (offset 0) and its logger every
   * 10 s; sample_hold: period 0.1 (not exact in binary: k * 0.1) */
  th_ctx th;
  sh_ctx sh;
  unsigned char due[4];
  double tn;
  int n;
  thermal_model.init(&th);
  th.t = 0;
  n = diagc_calc_next_update_time(&thermal_model, &th, &tn, due, NULL, 0);
  check(n == 2 && tn == 10 && due[0] && due[1], "query.thermal.from_0",
        "n %d t %g due %d %d", n, tn, due[0], due[1]);
  th.t = 64.99999;
  n = diagc_calc_next_update_time(&thermal_model, &th, &tn, NULL, NULL, 0);
  check(n == 2 && tn == 70, "query.thermal.from_65-", "n %d t %.17g", n, tn);
  th.t = 70;
  n = diagc_calc_next_update_time(&thermal_model, &th, &tn, NULL, NULL, 0);
  check(n == 2 && tn == 80, "query.thermal.strictly_after", "n %d t %.17g", n,
        tn);
  th.t = -DBL_MIN;
  n = diagc_calc_next_update_time(&thermal_model, &th, &tn, NULL, NULL, 0);
  check(n == 2 && tn == 0, "query.thermal.from_just_before_0", "n %d t %g", n,
        tn);
  sample_hold_model.init(&sh);
  sh.t = 0.25;
  n = diagc_calc_next_update_time(&sample_hold_model, &sh, &tn, due, NULL, 0);
  check(n == 2 && tn == 3 * SH_H && due[0] && due[1], "query.sample_hold",
        "n %d t %.17g", n, tn);
}

static void test_query_timed(void) {
  tm_ctx c;
  unsigned char due[3];
  double tn;
  char err[200];
  int n;
  timed_model.init(&c);
  c.t = 0;
  n = diagc_calc_next_update_time(&timed_model, &c, &tn, due, err, sizeof err);
  /* 2^0 = 1 and the tick at 1 coincide */
  check(n == 2 && tn == 1 && due[0] && due[1] && !due[2], "query.timed.tie",
        "n %d t %g due %d %d %d (%s)", n, tn, due[0], due[1], due[2], err);
  c.xd[0] = 6;
  c.t = 31.5;
  n = diagc_calc_next_update_time(&timed_model, &c, &tn, due, err, sizeof err);
  check(n == 1 && tn == 32 && due[1] && !due[0], "query.timed.tick_first",
        "n %d t %g", n, tn);
  c.t = 31;
  c.xd[0] = 5;
  n = diagc_calc_next_update_time(&timed_model, &c, &tn, due, err, sizeof err);
  check(n == 2 && tn == 32 && due[0] && due[1], "query.timed.tie_at_32",
        "n %d t %g", n, tn);
  c.xd[0] = 4.0; /* 2^4 = 16 < 31: not after t */
  n = diagc_calc_next_update_time(&timed_model, &c, &tn, due, err, sizeof err);
  check(n == DIAGC_SIM_E_EVAL &&
            strstr(err, "next_update_time 'w.wake' returned t_next = 16, not "
                        "after t = 31") != NULL,
        "query.timed.past_is_an_error", "n %d '%s'", n, err);
}

static void test_fires_exactly(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  tm_ctx *c;
  int k, rc, ok = 1;
  diagc_sim_options_init(&o);
  o.max_step = 0.3; /* steps that do not divide the event times */
  sim = diagc_sim_create(&timed_model, &o);
  c = (tm_ctx *)diagc_sim_context(sim);
  for (k = 0; k <= 7 && ok; k++) {
    const double te = ldexp(1.0, k);
    rc = diagc_sim_advance_to(sim, te);
    ok = rc == 0 && c->xd[0] == k; /* the wake-up at te is pending */
    rc = diagc_sim_advance_to(sim, te);
    ok = ok && rc == 0 && c->xd[0] == k + 1 && c->xd[1] == te;
    check(ok, "timed.fires_at_2^k", "k %d rc %d n %g last %.17g (%s)", k, rc,
          c->xd[0], c->xd[1], diagc_sim_error(sim));
  }
  /* the tick at 128 ran in the same round as the wake-up, reading x- */
  check(c->xd[3] == 7 && c->xd[2] == 129, "timed.simultaneous_reads_x-",
        "seen %g ticks %g", c->xd[3], c->xd[2]);
  rc = diagc_sim_advance_to(sim, 200);
  /* ticks at 0 .. 199 ran; the one at 200 is pending */
  check(rc == 0 && c->xd[0] == 8 && c->xd[2] == 200, "timed.none_until_256",
        "n %g ticks %g", c->xd[0], c->xd[2]);
  {
    double tn;
    int n = diagc_sim_next_update_time(sim, &tn, NULL);
    check(n == 1 && tn == 201, "timed.sim_query", "n %d t %g", n, tn);
  }
  diagc_sim_destroy(sim);
}

static void test_bad_time(void) {
  diagc_sim *sim = diagc_sim_create(&timed_model, NULL);
  tm_ctx *c = (tm_ctx *)diagc_sim_context(sim);
  int rc;
  rc = diagc_sim_advance_to(sim, 1.5);
  check(rc == 0, "timed.bad.first", "rc %d", rc);
  c->bad = 1;
  rc = diagc_sim_advance_to(sim, 3);
  check(rc == DIAGC_SIM_E_EVAL &&
            strcmp(diagc_sim_error(sim),
                   "next_update_time 'w.wake' returned t_next = 1.5, not after "
                   "t = 1.5 (return a later time, or INFINITY for no event)") ==
                0,
        "timed.bad.current_time_is_an_error", "rc %d '%s'", rc,
        diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

int main(void) {
  test_query_periodic();
  test_query_timed();
  test_fires_exactly();
  test_bad_time();
  return check_exit();
}
