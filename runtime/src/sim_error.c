/* sim_error.c: the simulator's one-line error message (diagc_sim_error),
 * set by the simulator (simulator.c) and by the integrators (integrators.c,
 * the methods and their Newton core) when a call fails.  On its own, at
 * the bottom of the calls (sim_internal.h), so that the integrators depend
 * on the simulator's state, not on simulator.c.
 */
#include <stdarg.h>
#include <stdio.h>

#include "sim_internal.h"

void diagc_sim_set_err(diagc_sim *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
}

int diagc_sim_eval_failed(diagc_sim *s, int rc) {
  diagc_sim_set_err(s, "calc_derivatives failed (status %d) at t = %.17g",
                    rc, diagc_sim_ctx_time(s));
  return DIAGC_SIM_E_EVAL;
}
