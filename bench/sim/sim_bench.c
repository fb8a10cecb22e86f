/* bench/sim: steps per second of diagc's simulator on generated models
 * against the same simulator on hand-written descriptors, a hand-written
 * RK4 loop, and GSL's gsl_odeiv2 (rk4, rkf45).
 *
 *   sim_bench MODEL fixed STEPS REPS H
 *       fixed-step RK4, STEPS steps of H; prints per implementation the
 *       best and median ns per step, derivative evaluations per step and
 *       the final state's first element (a checksum)
 *   sim_bench MODEL ec T REPS ACCURACY
 *       error-controlled integration over [0, T]: diagc dormand_prince54
 *       and runge_kutta3 (maximum step 1) against GSL rkf45 (epsabs =
 *       ACCURACY, epsrel = 0); prints best and median ms, steps,
 *       evaluations and the max-norm error at T against GSL rk8pd at
 *       1e-13
 * MODEL: pendulum or chain.  Implementations are run round-robin. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "diagc/simulator.h"
#include "handwritten.h"

extern const diagc_model bpend_model, bchain_model;

#define MAXN (2 * HW_CHAIN_N)
#define MAXIMPL 8

static const diagc_model *gen_m, *hw_m;
static int nx;
static void (*rhs)(const double *, double *);
static void (*rk4_loop)(double *, double, long);
static long n_evals;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void initial(double *x) {
  memset(x, 0, (size_t)nx * sizeof(double));
  x[0] = nx == 2 ? 0.5 : 1.0; /* pendulum theta0, or the first mass */
}

static int gsl_f(double t, const double *y, double *dy, void *p) {
  (void)t;
  (void)p;
  n_evals++;
  rhs(y, dy);
  return GSL_SUCCESS;
}

typedef struct result {
  double secs, out[MAXN];
  long steps, evals;
} result;

/* diagc's simulator on model m */
static void run_diagc(const diagc_model *m, const char *integ, int fixed,
                      double h, double t_end, double acc, result *r) {
  diagc_sim_options o;
  diagc_sim *sim;
  diagc_sim_statistics st;
  double x[MAXN], t0;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  if (fixed) {
    o.error_control = 0;
    o.max_step = h;
  } else {
    o.accuracy = acc;
    o.max_step = 1.0;
  }
  sim = diagc_sim_create(m, &o);
  if (!sim) {
    fprintf(stderr, "sim_bench: cannot create the simulator\n");
    exit(1);
  }
  initial(x);
  m->set_xc(diagc_sim_context(sim), x);
  t0 = now_s();
  if (diagc_sim_advance_to(sim, t_end) != 0) {
    fprintf(stderr, "sim_bench: %s\n", diagc_sim_error(sim));
    exit(1);
  }
  r->secs = now_s() - t0;
  diagc_sim_stats(sim, &st);
  r->steps = (long)st.integrator_steps;
  r->evals = (long)st.derivative_evals;
  memcpy(r->out, (const char *)diagc_sim_context(sim) + m->xc_offset,
         (size_t)nx * sizeof(double));
  diagc_sim_destroy(sim);
}

static void run_loop(long steps, double h, result *r) {
  double t0;
  initial(r->out);
  t0 = now_s();
  rk4_loop(r->out, h, steps);
  r->secs = now_s() - t0;
  r->steps = steps;
  r->evals = 4 * steps;
}

static void run_gsl_rk4(long steps, double h, result *r) {
  gsl_odeiv2_system sys = {gsl_f, NULL, (size_t)nx, NULL};
  gsl_odeiv2_step *s = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk4, (size_t)nx);
  double yerr[MAXN], t = 0, t0;
  long k;
  initial(r->out);
  n_evals = 0;
  t0 = now_s();
  for (k = 0; k < steps; k++) {
    gsl_odeiv2_step_apply(s, t, h, r->out, yerr, NULL, NULL, &sys);
    t += h;
  }
  r->secs = now_s() - t0;
  r->steps = steps;
  r->evals = n_evals;
  gsl_odeiv2_step_free(s);
}

static void run_gsl_adaptive(const gsl_odeiv2_step_type *type, double t_end,
                             double eps, result *r) {
  gsl_odeiv2_system sys = {gsl_f, NULL, (size_t)nx, NULL};
  gsl_odeiv2_driver *d =
      gsl_odeiv2_driver_alloc_y_new(&sys, type, 1e-4, eps, 0.0);
  double t = 0, t0;
  initial(r->out);
  n_evals = 0;
  t0 = now_s();
  if (gsl_odeiv2_driver_apply(d, &t, t_end, r->out) != GSL_SUCCESS) {
    fprintf(stderr, "sim_bench: GSL driver failed\n");
    exit(1);
  }
  r->secs = now_s() - t0;
  r->steps = (long)d->n;
  r->evals = n_evals;
  gsl_odeiv2_driver_free(d);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const char *names[MAXIMPL];
  double times[MAXIMPL][64];
  result last[MAXIMPL];
  int n_impl, reps, i, k;
  double par;
  if (argc != 6) {
    fprintf(stderr, "usage: sim_bench pendulum|chain fixed|ec N REPS H|ACC\n");
    return 2;
  }
  if (strcmp(argv[1], "pendulum") == 0) {
    gen_m = &bpend_model;
    hw_m = &hw_pendulum_model;
    rhs = hw_pendulum_f;
    rk4_loop = hw_rk4_pendulum;
  } else {
    gen_m = &bchain_model;
    hw_m = &hw_chain_model;
    rhs = hw_chain_f;
    rk4_loop = hw_rk4_chain;
  }
  nx = gen_m->nxc;
  reps = atoi(argv[4]);
  if (reps > 64) reps = 64;
  par = atof(argv[5]);
  gsl_set_error_handler_off();
  if (strcmp(argv[2], "fixed") == 0) {
    const long steps = atol(argv[3]);
    const double h = par, t_end = (double)steps * h;
    names[0] = "generated";
    names[1] = "handwritten_descriptor";
    names[2] = "handwritten_rk4_loop";
    names[3] = "gsl_rk4";
    n_impl = 4;
    for (k = 0; k < reps; k++) {
      run_diagc(gen_m, "runge_kutta4", 1, h, t_end, 0, &last[0]);
      run_diagc(hw_m, "runge_kutta4", 1, h, t_end, 0, &last[1]);
      run_loop(steps, h, &last[2]);
      run_gsl_rk4(steps, h, &last[3]);
      for (i = 0; i < n_impl; i++) times[i][k] = last[i].secs / (double)last[i].steps * 1e9;
    }
    for (i = 0; i < n_impl; i++) {
      double best, med;
      qsort(times[i], (size_t)reps, sizeof(double), cmp_d);
      best = times[i][0];
      med = times[i][reps / 2];
      printf("%s %.2f %.2f %ld %.2f %.17g\n", names[i], best, med,
             last[i].steps, (double)last[i].evals / (double)last[i].steps,
             last[i].out[0]);
    }
  } else {
    const double t_end = atof(argv[3]), acc = par;
    result ref;
    run_gsl_adaptive(gsl_odeiv2_step_rk8pd, t_end, 1e-13, &ref);
    names[0] = "generated_dormand_prince54";
    names[1] = "generated_runge_kutta3";
    names[2] = "handwritten_descriptor_dormand_prince54";
    names[3] = "gsl_rkf45";
    n_impl = 4;
    for (k = 0; k < reps; k++) {
      run_diagc(gen_m, "dormand_prince54", 0, 0, t_end, acc, &last[0]);
      run_diagc(gen_m, "runge_kutta3", 0, 0, t_end, acc, &last[1]);
      run_diagc(hw_m, "dormand_prince54", 0, 0, t_end, acc, &last[2]);
      run_gsl_adaptive(gsl_odeiv2_step_rkf45, t_end, acc, &last[3]);
      for (i = 0; i < n_impl; i++) times[i][k] = last[i].secs * 1e3;
    }
    for (i = 0; i < n_impl; i++) {
      double err = 0;
      int j;
      qsort(times[i], (size_t)reps, sizeof(double), cmp_d);
      for (j = 0; j < nx; j++) {
        double d = fabs(last[i].out[j] - ref.out[j]);
        if (d > err) err = d;
      }
      printf("%s %.3f %.3f %ld %ld %.3g\n", names[i], times[i][0],
             times[i][reps / 2], last[i].steps, last[i].evals, err);
    }
  }
  return 0;
}
