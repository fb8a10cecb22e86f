/* Helpers shared by the simulator tests (tests/c/test_simulator_*.c):
 * one run of a model to a given time with given options, the relative
 * difference of two states, and the least-squares order of a method from
 * its errors at several steps.  Include after diagc/simulator.h and
 * runtime/src/implicit.h (diagc_xc_jacobian). */
#ifndef DIAGC_TEST_SIM_RUN_H
#define DIAGC_TEST_SIM_RUN_H

#include <math.h>
#include <stdio.h>

typedef struct run_opts {
  const char *integ;
  int error_control;
  double max_step, accuracy, t_end;
  const diagc_xc_jacobian *jac; /* NULL: finite differences */
} run_opts;

/* Runs m to r->t_end; x gets the final continuous state (NaN if the run
 * failed, with the reason printed), st (if not NULL) the statistics.
 * Returns advance_to's status (-1 if the simulator was not created). */
static inline int run(const diagc_model *m, const run_opts *r, double *x,
                      diagc_sim_statistics *st) {
  diagc_sim_options o;
  diagc_sim *sim;
  int i, rc = -1;
  for (i = 0; i < m->nxc; i++) x[i] = NAN;
  diagc_sim_options_init(&o);
  o.integrator = r->integ;
  o.error_control = r->error_control;
  o.max_step = r->max_step;
  o.accuracy = r->accuracy;
  sim = diagc_sim_create(m, &o);
  if (!sim) return -1;
  if (r->jac && diagc_sim_set_xc_jacobian(sim, r->jac) != 0) goto done;
  rc = diagc_sim_advance_to(sim, r->t_end);
  if (rc == 0) {
    const double *xc = (const double *)(const void *)(
        (const char *)diagc_sim_context(sim) + m->xc_offset);
    for (i = 0; i < m->nxc; i++) x[i] = xc[i];
  } else {
    printf("# %s: %s\n", r->integ, diagc_sim_error(sim));
  }
done:
  if (st) diagc_sim_stats(sim, st);
  diagc_sim_destroy(sim);
  return rc;
}

/* max_i |a_i - b_i| / max(|b_i|, floor) */
static inline double rel_diff(const double *a, const double *b, int n,
                              double floor) {
  double d = 0;
  int i;
  for (i = 0; i < n; i++)
    d = fmax(d, fabs(a[i] - b[i]) / fmax(fabs(b[i]), floor));
  return d;
}

/* The least-squares slope of log(e) against log(h) over n points: the
 * order of a method whose errors at the steps h are e. */
static inline double order_slope(const double *h, const double *e, int n) {
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  int k;
  for (k = 0; k < n; k++) {
    mx += log(h[k]) / n;
    my += log(e[k]) / n;
  }
  for (k = 0; k < n; k++) {
    sxy += (log(h[k]) - mx) * (log(e[k]) - my);
    sxx += (log(h[k]) - mx) * (log(h[k]) - mx);
  }
  return sxy / sxx;
}

#endif
