/* sim_error.c: the simulator's one-line error message (diagc_sim_error),
 * set by the simulator (simulator.c) and by the integrators
 * (integrators.c) when a call fails.  On its own so that the integrators
 * depend on the simulator's state (sim_internal.h), not on simulator.c.
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
