/* bench/sim: steps per second of diagc's simulator on generated models
 * against the same simulator on hand-written descriptors, a hand-written
 * RK4 loop, and GSL's gsl_odeiv2 (rk4; rkf45, rkck, rk8pd).
 *
 *   sim_bench MODEL fixed STEPS REPS H
 *       fixed-step RK4, STEPS steps of H; prints per implementation the
 *       best and median ns per step, derivative evaluations per step and
 *       the final state's first element (a checksum)
 *   sim_bench MODEL wp T REPS TOL...
 *       work-precision: error-controlled integration over [0, T] at each
 *       tolerance TOL (from loose to tight) with diagc's dormand_prince54,
 *       bogacki_shampine3 and runge_kutta3 (accuracy = TOL) and GSL's
 *       rkf45, rkck and rk8pd (epsabs = TOL, epsrel = 0; also at ten times
 *       the first and a tenth of the last TOL); prints per implementation and
 *       tolerance ("wp" lines) the best and median ms, steps, evaluations
 *       and the max-norm error at T against GSL rk8pd at 1e-14; then, per
 *       diagc point ("eq" lines), the time GSL needs for the same error
 *       (log-log interpolation between its points) divided by diagc's
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
    o.max_step = t_end; /* no step limit, like GSL's driver */
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
  if (argc < 6 || (strcmp(argv[2], "fixed") == 0 && argc != 6)) {
    fprintf(stderr, "usage: sim_bench pendulum|chain fixed STEPS REPS H\n"
                    "       sim_bench pendulum|chain wp T REPS TOL...\n");
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
    /* work-precision: diagc at the given tolerances, GSL also one decade
     * looser and one tighter (so that its errors bracket diagc's) */
    enum { NT = 18 };
    static const char *const names_wp[] = {
        "dormand_prince54", "bogacki_shampine3", "runge_kutta3",
        "rkf45",            "rkck",              "rk8pd"};
    const gsl_odeiv2_step_type *gtypes[3];
    const double t_end = atof(argv[3]);
    static double wt[6][NT][64], werr[6][NT], wbest[6][NT];
    static long wsteps[6][NT], wevals[6][NT];
    double tols[NT], ref_fine[MAXN], ref_diff = 0;
    char tolstr[NT][32];
    int nt = 0, t, j, d, g;
    result ref, ref2;
    gtypes[0] = gsl_odeiv2_step_rkf45;
    gtypes[1] = gsl_odeiv2_step_rkck;
    gtypes[2] = gsl_odeiv2_step_rk8pd;
    tols[nt++] = 10 * atof(argv[5]);
    for (j = 5; j < argc && nt < NT - 1; j++) tols[nt++] = atof(argv[j]);
    tols[nt] = tols[nt - 1] / 10;
    nt++;
    for (t = 0; t < nt; t++) { /* "1e-4" */
      char buf[32], *e;
      snprintf(buf, sizeof buf, "%.0e", tols[t]);
      e = strchr(buf, 'e');
      if (e && (e[1] == '-' || e[1] == '+')) {
        char *q = e + 2;
        while (q[0] == '0' && q[1]) memmove(q, q + 1, strlen(q));
        if (e[1] == '+') memmove(e + 1, e + 2, strlen(e + 1));
      }
      snprintf(tolstr[t], sizeof tolstr[t], "%s", buf);
    }
    run_gsl_adaptive(gsl_odeiv2_step_rk8pd, t_end, 1e-14, &ref);
    run_gsl_adaptive(gsl_odeiv2_step_rk8pd, t_end, 1e-13, &ref2);
    memcpy(ref_fine, ref.out, sizeof ref_fine);
    for (j = 0; j < nx; j++) {
      const double dd = fabs(ref2.out[j] - ref_fine[j]);
      if (dd > ref_diff) ref_diff = dd;
    }
    for (k = 0; k < reps; k++) {
      for (t = 0; t < nt; t++) {
        for (i = 0; i < 6; i++) {
          result r;
          if (i < 3) {
            if (t == 0 || t == nt - 1) continue;
            run_diagc(gen_m, names_wp[i], 0, 0, t_end, tols[t], &r);
          } else {
            run_gsl_adaptive(gtypes[i - 3], t_end, tols[t], &r);
          }
          wt[i][t][k] = r.secs * 1e3;
          wsteps[i][t] = r.steps;
          wevals[i][t] = r.evals;
          werr[i][t] = 0;
          for (j = 0; j < nx; j++) {
            const double dd = fabs(r.out[j] - ref_fine[j]);
            if (dd > werr[i][t]) werr[i][t] = dd;
          }
        }
      }
    }
    printf("ref rk8pd %.3g\n", ref_diff);
    for (i = 0; i < 6; i++) {
      for (t = 0; t < nt; t++) {
        if (i < 3 && (t == 0 || t == nt - 1)) continue;
        qsort(wt[i][t], (size_t)reps, sizeof(double), cmp_d);
        wbest[i][t] = wt[i][t][0];
        printf("wp %s %s %s %.4f %.4f %ld %ld %.3g\n", i < 3 ? "diagc" : "gsl",
               names_wp[i], tolstr[t], wt[i][t][0], wt[i][t][reps / 2],
               wsteps[i][t], wevals[i][t], werr[i][t]);
      }
    }
    /* GSL's time at diagc's achieved error: log-log interpolation between
     * the closest pair of GSL points whose errors bracket it (none outside
     * GSL's range) */
    for (d = 0; d < 3; d++) {
      for (t = 1; t < nt - 1; t++) {
        const double e = werr[d][t];
        printf("eq %s %s %.3g", names_wp[d], tolstr[t], e);
        for (g = 3; g < 6; g++) {
          double best_ratio = NAN, span = INFINITY;
          int a, b;
          for (a = 0; a < nt; a++) {
            for (b = 0; b < nt; b++) {
              const double ea = werr[g][a], eb = werr[g][b];
              double f, tg;
              if (!(ea >= e && eb <= e && ea > eb && eb > 0)) continue;
              if (!(log(ea / eb) < span)) continue;
              span = log(ea / eb);
              f = (log(e) - log(ea)) / (log(eb) - log(ea));
              tg = exp(log(wbest[g][a]) +
                       f * (log(wbest[g][b]) - log(wbest[g][a])));
              best_ratio = tg / wbest[d][t];
            }
          }
          if (isnan(best_ratio))
            printf(" n/a");
          else
            printf(" %.2f", best_ratio);
        }
        printf("\n");
      }
    }
  }
  return 0;
}
