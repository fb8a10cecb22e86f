/* radau5, radau3 and implicit_euler on the stiff benchmark models (generated from
 * bench/stiff/specs/ by tests/cli/cvode_stiff.sh) against SUNDIALS CVODE
 * (BDF, rtol 1e-12, atol 1e-14, its own difference-quotient Jacobian) on
 * the same generated right-hand side: Robertson's kinetics at t = 1e5 and
 * Van der Pol with mu = 1000 at t = 3000.  Prints ok/FAIL lines. */
#include <math.h>
#include <stdio.h>

#include "cvode_model.h"
#include "diagc/simulator.h"

extern const diagc_model srob_model, svdp_model;

static int failures;

static int diagc_final(const diagc_model *m, const char *integ, double acc,
                       double t_end, double *x, long *steps) {
  diagc_sim_options o;
  diagc_sim_statistics st;
  diagc_sim *sim;
  int rc;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.accuracy = acc;
  o.max_step = t_end;
  sim = diagc_sim_create(m, &o);
  if (!sim) return -1;
  rc = diagc_sim_advance_to(sim, t_end);
  if (rc != 0) fprintf(stderr, "%s\n", diagc_sim_error(sim));
  memcpy(x, (const char *)diagc_sim_context(sim) + m->xc_offset,
         (size_t)m->nxc * sizeof(double));
  diagc_sim_stats(sim, &st);
  *steps = (long)st.integrator_steps;
  diagc_sim_destroy(sim);
  return rc;
}

/* Max over the states of |diagc - CVODE| / max(|CVODE|, floor) <= tol. */
static void compare(const char *name, const diagc_model *m, const char *integ,
                    double acc, double t_end, double floor, double tol) {
  double ref[8], x[8], worst = 0;
  long steps = 0, evals = 0;
  int i;
  if (cvm_run(m, t_end, 1e-12, 1e-14, ref, &steps, &evals) != 0) {
    printf("FAIL %s: CVODE failed\n", name);
    failures++;
    return;
  }
  if (diagc_final(m, integ, acc, t_end, x, &steps) != 0) {
    printf("FAIL %s: diagc simulation failed\n", name);
    failures++;
    return;
  }
  for (i = 0; i < m->nxc; i++)
    worst = fmax(worst, fabs(x[i] - ref[i]) / fmax(fabs(ref[i]), floor));
  if (worst <= tol) {
    printf("ok %s\n", name);
  } else {
    printf("FAIL %s: worst relative difference %.3g (tol %g; diagc %.12g, "
           "CVODE %.12g; %ld steps)\n", name, worst, tol, x[0], ref[0], steps);
    failures++;
  }
  fprintf(stderr, "%s: worst relative difference %.3g, %ld steps\n", name,
          worst, steps);
}

int main(void) {
  /* y2 ~ 1e-7 at t = 1e5: relative to each state, y2 included */
  compare("cvode_stiff.robertson.radau3", &srob_model, "radau3", 1e-11, 1e5,
          1e-12, 1e-7);
  compare("cvode_stiff.robertson.implicit_euler", &srob_model,
          "implicit_euler", 1e-8, 1e5, 1e-12, 2e-3);
  compare("cvode_stiff.vanderpol_mu1000.radau3", &svdp_model, "radau3", 1e-10,
          3000, 1e-6, 1e-7);
  compare("cvode_stiff.robertson.radau5", &srob_model, "radau5", 1e-11, 1e5,
          1e-12, 1e-7);
  compare("cvode_stiff.vanderpol_mu1000.radau5", &svdp_model, "radau5", 1e-10,
          3000, 1e-6, 1e-7);
  return failures ? 1 : 0;
}
