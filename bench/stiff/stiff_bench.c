/* bench/stiff: work-precision of diagc's stiff integrators (implicit_euler,
 * radau3, radau5, each with the model's generated sparse Jacobian and with
 * finite differences: IMPL and IMPL_fd; and diagc's simulator with its
 * optional CVODE backend, diagc/cvode.h, fed with the generated Jacobian:
 * sim_cvode) against SUNDIALS CVODE called directly (BDF with its internal
 * difference-quotient Jacobian: cvode_bdf; with diagc's generated
 * Jacobian: cvode_bdf_jac), all on the same generated model.
 *
 *   stiff_bench MODEL REPS IE_MIN_TOL TOL...
 *       MODEL: robertson (T = 1e5), vanderpol (T = 3000) or chain (T = 10).
 *       For each tolerance TOL (loose to tight): diagc radau3, radau5,
 *       sim_cvode and implicit_euler (the latter only for TOL >=
 *       IE_MIN_TOL) with accuracy = TOL, max_step = T, and both CVODEs
 *       with atol = TOL, rtol = 0 (sim_cvode: atol = TOL, rtol = 1e-30,
 *       since its rtol = 0 means "the accuracy"); the CVODEs also one
 *       decade looser and three tighter than the range; "wp" lines:
 *         wp IMPL TOL best_ms median_ms steps evals error jacobians lus
 *       with the max-norm error of the state at T against CVODE at rtol
 *       1e-12, atol 1e-14 ("ref" line: that reference against one at 1e-11
 *       and 1e-13).  Then "eq" lines per diagc point:
 *         eq IMPL TOL error cvode_bdf_time/diagc_time cvode_bdf_jac_time/diagc_time
 *       (CVODE's time at that error: log-log interpolation between its
 *       points that bracket the error; n/a outside them).  Then the goal,
 *       the best diagc path at CVODE's own achieved errors: for each
 *       cvode_bdf point, each diagc path's time at that error (log-log
 *       between its bracketing points) and the fastest of them:
 *         gp TOL error cvode_bdf_ms best_impl best_ms cvode_bdf_ms/best_ms
 *         goal geomean min max points
 *       Implementations run round-robin. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cvode_model.h"
#include "diagc/cvode.h"
#include "diagc/simulator.h"

extern const diagc_model srob_model, svdp_model, schain_model;

#define MAXN 128
#define MAXPTS 96

typedef struct point {
  const char *impl;
  double tol;
  double best, med; /* ms */
  long steps, evals, jacs, lus;
  double err;
  int ok;
} point;

static const diagc_model *model;
static double T_end;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int is_cvode(const char *impl) {
  return strncmp(impl, "cvode_bdf", 9) == 0;
}

/* diagc's paths: its own integrators and the simulator's CVODE backend */
static const char *const DIAGC_PATHS[] = {"radau5", "radau5_fd", "radau3",
                                          "radau3_fd", "sim_cvode",
                                          "implicit_euler",
                                          "implicit_euler_fd"};
enum { N_PATHS = sizeof DIAGC_PATHS / sizeof DIAGC_PATHS[0] };

/* IMPL or IMPL_fd: the integrator's name and the Jacobian source. */
static int diagc_run(const char *impl, double tol, double *x, point *p) {
  diagc_sim_options o;
  diagc_sim_statistics st;
  diagc_sim *sim;
  char integ[32];
  size_t len = strlen(impl);
  int rc;
  diagc_sim_options_init(&o);
  if (len >= sizeof integ) return -1;
  memcpy(integ, impl, len + 1);
  if (len > 3 && strcmp(integ + len - 3, "_fd") == 0) {
    integ[len - 3] = 0;
    o.jacobian = DIAGC_JACOBIAN_FD;
  }
  o.integrator = strcmp(integ, "sim_cvode") == 0 ? "radau5" : integ;
  o.accuracy = tol;
  o.max_step = T_end;
  sim = diagc_sim_create(model, &o);
  if (!sim) return -1;
  if (strcmp(integ, "sim_cvode") == 0) {
    diagc_cvode_options co;
    diagc_cvode_options_init(&co);
    co.atol = tol;
    co.rtol = 1e-30; /* absolute control (0 would mean "the accuracy") */
    if (diagc_sim_use_cvode(sim, &co) != 0) {
      fprintf(stderr, "%s: %s\n", impl, diagc_sim_error(sim));
      diagc_sim_destroy(sim);
      return -1;
    }
  }
  diagc_sim_stats(sim, &st);
  if ((o.jacobian == DIAGC_JACOBIAN_MODEL) !=
      (st.jacobian_source == DIAGC_JACOBIAN_MODEL)) {
    fprintf(stderr, "%s: the model has no generated Jacobian\n", impl);
    diagc_sim_destroy(sim);
    return -1;
  }
  rc = diagc_sim_advance_to(sim, T_end);
  if (rc != 0) fprintf(stderr, "%s at %g: %s\n", integ, tol, diagc_sim_error(sim));
  memcpy(x, (const char *)diagc_sim_context(sim) + model->xc_offset,
         (size_t)model->nxc * sizeof(double));
  diagc_sim_stats(sim, &st);
  p->steps = (long)st.integrator_steps;
  p->evals = (long)st.derivative_evals;
  p->jacs = (long)st.jacobian_evals;
  p->lus = (long)st.lu_factorizations;
  diagc_sim_destroy(sim);
  return rc;
}

static int run_point(point *p, double *x) {
  if (is_cvode(p->impl)) {
    p->lus = -1;
    return cvm_run_ex(model, T_end, 0.0, p->tol,
                      strcmp(p->impl, "cvode_bdf_jac") == 0, x, &p->steps,
                      &p->evals, &p->jacs);
  }
  return diagc_run(p->impl, p->tol, x, p);
}

static double max_err(const double *x, const double *ref) {
  double e = 0;
  int i;
  for (i = 0; i < model->nxc; i++) e = fmax(e, fabs(x[i] - ref[i]));
  return isnan(e) ? INFINITY : e;
}

static int cmp_d(const void *a, const void *b) {
  const double u = *(const double *)a, v = *(const double *)b;
  return (u > v) - (u < v);
}

/* Runs every point REPS times round-robin; fills times and errors. */
static void measure(point *pts, int np, int reps, const double *ref) {
  static double t[MAXPTS][64];
  double x[MAXN];
  int r, i;
  for (r = 0; r < reps; r++)
    for (i = 0; i < np; i++) {
      const double t0 = now_s();
      pts[i].ok = run_point(&pts[i], x) == 0;
      t[i][r] = 1e3 * (now_s() - t0);
      pts[i].err = pts[i].ok ? max_err(x, ref) : INFINITY;
    }
  for (i = 0; i < np; i++) {
    qsort(t[i], (size_t)reps, sizeof(double), cmp_d);
    pts[i].best = t[i][0];
    pts[i].med = t[i][reps / 2];
  }
}

/* The next tighter tolerance than a's among cv's points (0: none). */
static double next_tol(const point *pts, int np, const char *cv, double tol) {
  double best = 0;
  int i;
  for (i = 0; i < np; i++)
    if (strcmp(pts[i].impl, cv) == 0 && pts[i].tol < tol && pts[i].tol > best)
      best = pts[i].tol;
  return best;
}

/* The time of implementation `cv` at error e, interpolated log-log
 * between two of its points of consecutive tolerances whose errors
 * bracket e; NaN outside. */
static double time_at(const point *pts, int np, const char *cv, double e) {
  int i, j;
  for (i = 0; i < np; i++) {
    if (strcmp(pts[i].impl, cv) != 0 || !pts[i].ok) continue;
    for (j = 0; j < np; j++) {
      const point *a = &pts[i], *b = &pts[j];
      double f;
      if (strcmp(b->impl, cv) != 0 || !b->ok || b->tol >= a->tol)
        continue;
      if (!(a->err >= e && b->err <= e) || a->err == b->err) continue;
      if (b->tol != next_tol(pts, np, cv, a->tol)) continue; /* consecutive */
      f = log(e / a->err) / log(b->err / a->err);
      return exp(log(a->best) + f * (log(b->best) - log(a->best)));
    }
  }
  return NAN;
}

/* The goal: at each of cvode_bdf's achieved errors, the fastest diagc
 * path there ("gp" lines), and the geometric mean of the ratios ("goal"). */
static void goal(const point *pts, int np) {
  double lsum = 0, lo = INFINITY, hi = 0;
  int i, k, n = 0;
  for (i = 0; i < np; i++) {
    const char *best = NULL;
    double tb = INFINITY;
    if (strcmp(pts[i].impl, "cvode_bdf") != 0 || !pts[i].ok) continue;
    for (k = 0; k < N_PATHS; k++) {
      const double t = time_at(pts, np, DIAGC_PATHS[k], pts[i].err);
      if (t < tb) {
        tb = t;
        best = DIAGC_PATHS[k];
      }
    }
    if (!best) continue;
    printf("gp %g %.3g %.3f %s %.3f %.2f\n", pts[i].tol, pts[i].err,
           pts[i].best, best, tb, pts[i].best / tb);
    lsum += log(pts[i].best / tb);
    lo = fmin(lo, pts[i].best / tb);
    hi = fmax(hi, pts[i].best / tb);
    n++;
  }
  if (n > 0)
    printf("goal %.2f %.2f %.2f %d\n", exp(lsum / n), lo, hi, n);
  else
    printf("goal n/a n/a n/a 0\n");
}

static int pick_model(const char *name) {
  if (strcmp(name, "robertson") == 0) {
    model = &srob_model;
    T_end = 1e5;
  } else if (strcmp(name, "vanderpol") == 0) {
    model = &svdp_model;
    T_end = 3000;
  } else if (strcmp(name, "chain") == 0) {
    model = &schain_model;
    T_end = 10;
  } else {
    return -1;
  }
  return model->nxc <= MAXN ? 0 : -1;
}

static int add(point *pts, int np, const char *impl, double tol) {
  if (np >= MAXPTS) return np;
  memset(&pts[np], 0, sizeof pts[np]);
  pts[np].impl = impl;
  pts[np].tol = tol;
  return np + 1;
}

int main(int argc, char **argv) {
  static point pts[MAXPTS];
  double ref[MAXN], ref2[MAXN], ie_min;
  long s1, e1;
  int reps, ntol, np = 0, i;
  if (argc < 5 || pick_model(argv[1]) != 0) {
    fprintf(stderr, "usage: stiff_bench robertson|vanderpol|chain REPS IE_MIN_TOL TOL...\n");
    return 2;
  }
  reps = atoi(argv[2]);
  if (reps < 1 || reps > 64) reps = 1;
  ie_min = atof(argv[3]);
  ntol = argc - 4;
  if (cvm_run(model, T_end, 1e-12, 1e-14, ref, &s1, &e1) != 0 ||
      cvm_run(model, T_end, 1e-11, 1e-13, ref2, &s1, &e1) != 0) {
    fprintf(stderr, "reference run failed\n");
    return 1;
  }
  printf("ref %s %.3g\n", argv[1], max_err(ref2, ref));
  np = add(pts, np, "cvode_bdf", atof(argv[4]) * 10);
  np = add(pts, np, "cvode_bdf_jac", atof(argv[4]) * 10);
  for (i = 0; i < ntol; i++) {
    const double tol = atof(argv[4 + i]);
    np = add(pts, np, "radau5", tol);
    np = add(pts, np, "radau5_fd", tol);
    np = add(pts, np, "radau3", tol);
    np = add(pts, np, "radau3_fd", tol);
    np = add(pts, np, "sim_cvode", tol);
    if (tol >= ie_min) {
      np = add(pts, np, "implicit_euler", tol);
      np = add(pts, np, "implicit_euler_fd", tol);
    }
    np = add(pts, np, "cvode_bdf", tol);
    np = add(pts, np, "cvode_bdf_jac", tol);
  }
  for (i = 1; i <= 3; i++) {
    const double tol = atof(argv[argc - 1]) / pow(10, i);
    np = add(pts, np, "cvode_bdf", tol);
    np = add(pts, np, "cvode_bdf_jac", tol);
  }
  measure(pts, np, reps, ref);
  for (i = 0; i < np; i++)
    printf("wp %s %g %.3f %.3f %ld %ld %.3g %ld %ld\n", pts[i].impl,
           pts[i].tol, pts[i].best, pts[i].med, pts[i].steps, pts[i].evals,
           pts[i].err, pts[i].jacs, pts[i].lus);
  for (i = 0; i < np; i++) {
    static const char *const cv[2] = {"cvode_bdf", "cvode_bdf_jac"};
    int k;
    if (is_cvode(pts[i].impl)) continue;
    printf("eq %s %g %.3g", pts[i].impl, pts[i].tol, pts[i].err);
    for (k = 0; k < 2; k++) {
      const double tc =
          pts[i].ok ? time_at(pts, np, cv[k], pts[i].err) : NAN;
      if (isnan(tc))
        printf(" n/a");
      else
        printf(" %.2f", tc / pts[i].best);
    }
    printf("\n");
  }
  goal(pts, np);
  return 0;
}
