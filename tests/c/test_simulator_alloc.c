/* No heap allocation inside diagc_sim_initialize / diagc_sim_advance_to.
 *
 * Allocations are counted by the interposer of counting_alloc.h; the
 * self-checks show it really sees the runtime's allocations (in create). */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/simulator.h"
#include "models/check.h"
#include "models/decay.c"
#include "models/bouncing.c"
#include "models/event_model.c"
#include "models/example_discrete.c"
#include "models/sample_hold.c"

#include "counting_alloc.h"

/* ---- the test ----------------------------------------------------------- */

static double sink;
static void on_log(void *user, double t, const unsigned char *fired,
                   const double *const *values) {
  (void)user;
  sink += t + (fired[0] && values[0] ? values[0][0] : 0);
}

static void run_counted(const char *name, const diagc_model *m,
                        const char *integ, double t1, double t2) {
  diagc_sim_options o;
  diagc_sim *sim;
  long created, during;
  int rc1, rc2, rc3;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  alloc_calls = 0;
  counting = 1;
  sim = diagc_sim_create(m, &o);
  counting = 0;
  created = alloc_calls;
  diagc_sim_set_log_callback(sim, on_log, NULL);
  alloc_calls = 0;
  counting = 1;
  rc1 = diagc_sim_initialize(sim);
  rc2 = diagc_sim_advance_to(sim, t1);
  rc3 = diagc_sim_advance_to(sim, t2);
  (void)diagc_sim_advance_to(sim, t2); /* AdvanceTo(now) */
  (void)diagc_sim_advance_to(sim, 0);  /* error path: backwards */
  m->set_time(diagc_sim_context(sim), t2 + 1);
  (void)diagc_sim_advance_to(sim, t2 + 2); /* error path: time changed */
  rc1 |= diagc_sim_initialize(sim);
  rc1 |= diagc_sim_advance_to(sim, t2 + 2);
  counting = 0;
  during = alloc_calls;
  check(created > 0 && during == 0 && rc1 == 0 && rc2 == 0 && rc3 == 0, name,
        "allocations: %ld in create, %ld in initialize/advance_to "
        "(rc %d %d %d)",
        created, during, rc1, rc2, rc3);
  diagc_sim_destroy(sim);
}

int main(void) {
  diagc_model dm = decay_model, em;
  resolve();
  {
    long n = counting_self_check();
    check(n == 3, "alloc.interposer_counts", "counted %ld", n);
  }
  dm.n_loggers = 1;
  dm.loggers = decay_logger_step;
  run_counted("alloc.example_discrete", &example_discrete_model,
              "runge_kutta3", 0.06, 0.5);
  run_counted("alloc.decay_rk3", &dm, "runge_kutta3", 1.0, 3.0);
  run_counted("alloc.decay_rk4", &dm, "runge_kutta4", 1.0, 3.0);
  run_counted("alloc.decay_euler", &dm, "explicit_euler", 1.0, 3.0);
  run_counted("alloc.decay_rk2", &dm, "runge_kutta2", 1.0, 3.0);
  run_counted("alloc.decay_semi_explicit_euler", &dm, "semi_explicit_euler", 1.0, 3.0);
  run_counted("alloc.decay_bogacki_shampine3", &dm, "bogacki_shampine3", 1.0, 3.0);
  run_counted("alloc.decay_dormand_prince54", &dm, "dormand_prince54", 1.0, 3.0);
  run_counted("alloc.decay_implicit_euler", &dm, "implicit_euler", 1.0, 3.0);
  run_counted("alloc.decay_radau3", &dm, "radau3", 1.0, 3.0);
  run_counted("alloc.decay_radau5", &dm, "radau5", 1.0, 3.0);
  /* witnesses: isolation, re-integration and witness events */
  run_counted("alloc.bouncing_ball_rk3", &bb_model, "runge_kutta3", 1.0, 2.0);
  run_counted("alloc.bouncing_ball_implicit_euler", &bb_model, "implicit_euler", 1.0, 2.0);
  run_counted("alloc.bouncing_ball_radau3", &bb_model, "radau3", 1.0, 2.0);
  run_counted("alloc.bouncing_ball_radau5", &bb_model, "radau5", 1.0, 2.0);
  run_counted("alloc.sample_hold", &sample_hold_model, "runge_kutta3", 1.0,
              2.0);
  em_reset();
  em_add_update("a.u_init", 0, DIAGC_TRIGGER_INITIALIZATION,
                DIAGC_UNRESTRICTED_UPDATE, 0, 0, 0, 0, 1, 5);
  em_add_update("a.d_init", 0, DIAGC_TRIGGER_INITIALIZATION,
                DIAGC_DISCRETE_UPDATE, 0, 0, 1, 0, 1, 1);
  em_add("a.p_step", 0, DIAGC_TRIGGER_PER_STEP, DIAGC_PUBLISH, 0, 0);
  em_add_update("b.u", 1, DIAGC_TRIGGER_PERIODIC, DIAGC_UNRESTRICTED_UPDATE,
                0.3, 0.1, 2, 2, 1, 1);
  em_add_update("b.d", 1, DIAGC_TRIGGER_PERIODIC, DIAGC_DISCRETE_UPDATE, 0.2,
                0, 3, 3, 1, 1);
  em_add("c.p", 2, DIAGC_TRIGGER_PERIODIC, DIAGC_PUBLISH, 0.25, 0.05);
  em = em_model(1, 0, NULL);
  run_counted("alloc.event_model", &em, "runge_kutta3", 1.0, 2.5);
  return check_exit();
}
