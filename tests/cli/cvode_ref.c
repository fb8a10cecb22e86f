/* Reference check against SUNDIALS CVODE (built by tests/cli/cvode.sh, not
 * by tests/run): the pendulum of examples/pendulum.lua and the Van der Pol
 * oscillator (tests/cli/cvode.sh writes its spec) simulated by diagc's
 * simulator on the generated models, against CVODE (BDF, Newton with a
 * dense solver, rtol = atol = 1e-12) on hand-written right-hand sides.
 * Prints ok/FAIL lines. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "diagc/simulator.h"

extern const diagc_model pendulum_model, vanderpol_model;

#define NT 40 /* samples at 0.25, 0.5, ..., 10 */

typedef struct ref_params {
  double a, b, c;
} ref_params;

/* theta'' = -(g/l) sin(theta) - b theta';  a = l, b = g, c = damping */
static int f_pendulum(sunrealtype t, N_Vector y, N_Vector yd, void *u) {
  const ref_params *p = (const ref_params *)u;
  const double *x = N_VGetArrayPointer(y);
  double *d = N_VGetArrayPointer(yd);
  (void)t;
  d[0] = x[1];
  d[1] = -(p->b / p->a) * sin(x[0]) - p->c * x[1];
  return 0;
}

/* x'' = mu (1 - x^2) x' - x;  a = mu */
static int f_vdp(sunrealtype t, N_Vector y, N_Vector yd, void *u) {
  const ref_params *p = (const ref_params *)u;
  const double *x = N_VGetArrayPointer(y);
  double *d = N_VGetArrayPointer(yd);
  (void)t;
  d[0] = x[1];
  d[1] = p->a * (1 - x[0] * x[0]) * x[1] - x[0];
  return 0;
}

static int cvode_run(CVRhsFn f, ref_params *p, const double y0[2],
                     double out[NT][2]) {
  SUNContext sctx;
  N_Vector y;
  SUNMatrix A;
  SUNLinearSolver LS;
  void *mem;
  int k, rc = 0;
  if (SUNContext_Create(NULL, &sctx) != 0) return -1;
  y = N_VNew_Serial(2, sctx);
  N_VGetArrayPointer(y)[0] = y0[0];
  N_VGetArrayPointer(y)[1] = y0[1];
  mem = CVodeCreate(CV_BDF, sctx);
  CVodeInit(mem, f, 0.0, y);
  CVodeSStolerances(mem, 1e-12, 1e-12);
  CVodeSetUserData(mem, p);
  CVodeSetMaxNumSteps(mem, 10000000);
  A = SUNDenseMatrix(2, 2, sctx);
  LS = SUNLinSol_Dense(y, A, sctx);
  CVodeSetLinearSolver(mem, LS, A);
  for (k = 0; k < NT; k++) {
    sunrealtype tret;
    if (CVode(mem, 0.25 * (k + 1), y, &tret, CV_NORMAL) < 0) {
      rc = -1;
      break;
    }
    out[k][0] = N_VGetArrayPointer(y)[0];
    out[k][1] = N_VGetArrayPointer(y)[1];
  }
  CVodeFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  SUNContext_Free(&sctx);
  return rc;
}

/* The index of the source `name`, or -1. */
static int find_source(const diagc_model *m, const char *name) {
  int i;
  for (i = 0; i < m->n_sources; i++)
    if (strcmp(m->sources[i].name, name) == 0) return i;
  return -1;
}

static int diagc_run(const diagc_model *m, const char *integ, double acc,
                     const char *param, double value, double out[NT][2],
                     long *steps) {
  diagc_sim_options o;
  diagc_sim *sim;
  diagc_sim_statistics st;
  int k;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.accuracy = acc;
  sim = diagc_sim_create(m, &o);
  if (!sim) return -1;
  if (param) {
    const int s = find_source(m, param);
    if (s < 0) {
      diagc_sim_destroy(sim);
      return -1;
    }
    m->set_source(diagc_sim_context(sim), s, &value);
  }
  for (k = 0; k < NT; k++) {
    const double *xc;
    if (diagc_sim_advance_to(sim, 0.25 * (k + 1)) != 0) {
      fprintf(stderr, "%s\n", diagc_sim_error(sim));
      diagc_sim_destroy(sim);
      return -1;
    }
    xc = (const double *)(const void *)((const char *)diagc_sim_context(sim) +
                                         m->xc_offset);
    out[k][0] = xc[0];
    out[k][1] = xc[1];
  }
  diagc_sim_stats(sim, &st);
  *steps = (long)st.integrator_steps;
  diagc_sim_destroy(sim);
  return 0;
}

static int failures;

static void compare(const char *name, const diagc_model *m, const char *integ,
                    double acc, const char *param, double value, CVRhsFn f,
                    ref_params p, const double y0[2], double tol) {
  double ref[NT][2], got[NT][2], worst = 0;
  long steps = 0;
  int k, j, wk = 0;
  if (cvode_run(f, &p, y0, ref) != 0) {
    printf("FAIL %s: CVODE failed\n", name);
    failures++;
    return;
  }
  if (diagc_run(m, integ, acc, param, value, got, &steps) != 0) {
    printf("FAIL %s: diagc simulation failed\n", name);
    failures++;
    return;
  }
  for (k = 0; k < NT; k++)
    for (j = 0; j < 2; j++) {
      double d = fabs(got[k][j] - ref[k][j]) / (1 + fabs(ref[k][j]));
      if (d > worst) {
        worst = d;
        wk = k;
      }
    }
  if (worst <= tol) {
    printf("ok %s\n", name);
  } else {
    printf("FAIL %s: worst relative difference %.3g at t = %g (tol %g; "
           "diagc %.12g %.12g, CVODE %.12g %.12g; %ld steps)\n",
           name, worst, 0.25 * (wk + 1), tol, got[wk][0], got[wk][1],
           ref[wk][0], ref[wk][1], steps);
    failures++;
  }
  fprintf(stderr, "%s: worst relative difference %.3g, %ld steps\n", name,
          worst, steps);
}

int main(void) {
  const double pend0[2] = {0.5, 0.0}, vdp0[2] = {2.0, 0.0};
  ref_params pend = {1.0, 9.81, 0.1}, mu1 = {1.0, 0, 0}, mu10 = {10.0, 0, 0};
  compare("cvode.pendulum.dormand_prince54", &pendulum_model,
          "dormand_prince54", 1e-10, NULL, 0, f_pendulum, pend, pend0, 1e-7);
  compare("cvode.pendulum.runge_kutta3", &pendulum_model, "runge_kutta3",
          1e-10, NULL, 0, f_pendulum, pend, pend0, 1e-7);
  compare("cvode.pendulum.bogacki_shampine3", &pendulum_model,
          "bogacki_shampine3", 1e-10, NULL, 0, f_pendulum, pend, pend0, 1e-7);
  compare("cvode.vanderpol_mu1.dormand_prince54", &vanderpol_model,
          "dormand_prince54", 1e-10, "vdp.mu", 1.0, f_vdp, mu1, vdp0, 1e-7);
  compare("cvode.vanderpol_mu1.runge_kutta3", &vanderpol_model,
          "runge_kutta3", 1e-10, "vdp.mu", 1.0, f_vdp, mu1, vdp0, 1e-7);
  compare("cvode.vanderpol_mu10.dormand_prince54", &vanderpol_model,
          "dormand_prince54", 1e-10, "vdp.mu", 10.0, f_vdp, mu10, vdp0, 1e-7);
  /* first order with per-step error control: agreement to the accuracy
   * times the number of steps only */
  compare("cvode.vanderpol_mu10.implicit_euler", &vanderpol_model,
          "implicit_euler", 1e-9, "vdp.mu", 10.0, f_vdp, mu10, vdp0, 5e-3);
  return failures ? 1 : 0;
}
