/* The CVODE backend (diagc/cvode.h, "cvode_bdf") in the simulator, built
 * with ASan and UBSan by tests/cli/sim_cvode.sh against the sanitized
 * runtime and backend:
 *  - a linear decay against exp(-t), with the model's Jacobian (KLU and
 *    dense) and CVODE's difference quotients;
 *  - Robertson's kinetics to t = 1e5 and Van der Pol (mu = 1000) to
 *    t = 3000 against radau3 at tight accuracy (itself checked against
 *    CVODE by tests/cli/cvode_stiff.sh), and the Jacobian's statistics;
 *  - event semantics: a periodic discrete update (sample-and-hold: every
 *    derivative evaluation sees the held value of its interval, x(1)
 *    exact) and witnesses (the bouncing ball's impacts and apexes against
 *    the analytic times);
 *  - no allocation in initialize / advance_to, events and restarts
 *    included;
 *  - selecting, switching and the errors.  Prints ok/FAIL lines. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../c/counting_alloc.h"
#include "diagc/cvode.h"
#include "diagc/simulator.h"
#include "../c/models/check.h"
#include "../c/models/bouncing.c"
#include "../c/models/decay.c"
#include "../c/models/robertson.c"
#include "../c/models/sample_hold.c"
#include "../c/models/vdp_stiff.c"

/* The decay's Jacobian d(-k x)/dx = -k (one nonzero). */
static const int dec_colptr[2] = {0, 1};
static const int dec_rowind[1] = {0};
static int dec_jac(void *c, double *nz) {
  (void)c;
  nz[0] = -decay_k;
  return DIAGC_OK;
}

/* The Jacobian's calls, counted through one wrapper. */
static int (*inner_jac)(void *, double *);
static long jac_calls;
static int counted_jac(void *c, double *nz) {
  jac_calls++;
  return inner_jac(c, nz);
}

/* A copy of m that carries a generated-style Jacobian (the test models
 * keep theirs apart), counted in jac_calls (one such model at a time). */
static diagc_model with_jac(const diagc_model *m, int nnz, const int *colptr,
                            const int *rowind, int (*jac)(void *, double *)) {
  diagc_model c = *m;
  c.jac_xc_nnz = nnz;
  c.jac_xc_colptr = colptr;
  c.jac_xc_rowind = rowind;
  c.jac_xc = counted_jac;
  inner_jac = jac;
  return c;
}

typedef struct cv_run {
  const char *integ; /* "cvode_bdf" or a built-in */
  int linear_solver;
  int jacobian;
  double accuracy, rtol, atol, max_step, t_end;
} cv_run;

/* Runs m to r->t_end; x gets the final continuous state.  0 or the
 * failing status (printed). */
static int run(const diagc_model *m, const cv_run *r, double *x,
               diagc_sim_statistics *st) {
  diagc_sim_options o;
  diagc_sim *sim;
  int i, rc;
  for (i = 0; i < m->nxc; i++) x[i] = NAN;
  diagc_sim_options_init(&o);
  o.accuracy = r->accuracy;
  o.max_step = r->max_step;
  o.jacobian = r->jacobian;
  if (strcmp(r->integ, DIAGC_CVODE_NAME) != 0) o.integrator = r->integ;
  sim = diagc_sim_create(m, &o);
  if (!sim) return -100;
  rc = 0;
  if (strcmp(r->integ, DIAGC_CVODE_NAME) == 0) {
    diagc_cvode_options co;
    diagc_cvode_options_init(&co);
    co.linear_solver = r->linear_solver;
    co.rtol = r->rtol;
    co.atol = r->atol;
    rc = diagc_sim_use_cvode(sim, &co);
  }
  if (rc == 0) rc = diagc_sim_advance_to(sim, r->t_end);
  if (rc == 0) {
    const double *xc = (const double *)(const void *)(
        (const char *)diagc_sim_context(sim) + m->xc_offset);
    for (i = 0; i < m->nxc; i++) x[i] = xc[i];
  } else {
    printf("# %s: %s\n", r->integ, diagc_sim_error(sim));
  }
  if (st) diagc_sim_stats(sim, st);
  diagc_sim_destroy(sim);
  return rc;
}

static const char *ls_name(int ls) {
  return ls == DIAGC_CVODE_KLU ? "klu" : ls == DIAGC_CVODE_DENSE ? "dense" : "auto";
}

static void test_decay(void) {
  diagc_model dm = with_jac(&decay_model, 1, dec_colptr, dec_rowind, dec_jac);
  const int solvers[3] = {DIAGC_CVODE_KLU, DIAGC_CVODE_DENSE, -1};
  int i;
  for (i = 0; i < 3; i++) {
    cv_run r = {DIAGC_CVODE_NAME, solvers[i] < 0 ? DIAGC_CVODE_AUTO : solvers[i],
                solvers[i] < 0 ? DIAGC_JACOBIAN_FD : DIAGC_JACOBIAN_MODEL,
                1e-10, 0, 0, 0.1, 1.0};
    diagc_sim_statistics st;
    double x[1];
    char name[80];
    int rc;
    if (solvers[i] == DIAGC_CVODE_KLU && !diagc_cvode_has_klu()) {
      printf("skip sim_cvode.decay.klu: built without KLU\n");
      continue;
    }
    rc = run(&dm, &r, x, &st);
    snprintf(name, sizeof name, "sim_cvode.decay.%s",
             solvers[i] < 0 ? "fd" : ls_name(solvers[i]));
    check(rc == 0 && fabs(x[0] - exp(-1.0)) < 1e-8 &&
              st.integrator_steps > 10 && st.largest_step <= 0.1 &&
              st.jacobian_evals > 0 && st.newton_iterations > 0 &&
              st.jacobian_source == r.jacobian,
          name,
          "rc %d x(1) %.17g (error %.3g) steps %lld largest %g jacobians "
          "%lld source %d",
          rc, x[0], x[0] - exp(-1.0), (long long)st.integrator_steps,
          st.largest_step, (long long)st.jacobian_evals, st.jacobian_source);
  }
}

/* Max over the states of |a - b| / max(|b|, floor). */
static double rel_diff(const double *a, const double *b, int n, double floor) {
  double w = 0;
  int i;
  for (i = 0; i < n; i++) w = fmax(w, fabs(a[i] - b[i]) / fmax(fabs(b[i]), floor));
  return w;
}

static void test_stiff(const char *what, const diagc_model *m, double t_end,
                       double ref_acc, double rtol, double atol, double floor,
                       double tol) {
  cv_run ref = {"radau3", 0, DIAGC_JACOBIAN_MODEL, ref_acc, 0, 0, t_end, t_end};
  double xr[3], x[3];
  diagc_sim_statistics st_model, st_fd;
  long calls[3] = {0, 0, 0};
  int k;
  if (run(m, &ref, xr, NULL) != 0) {
    printf("FAIL sim_cvode.%s: the radau3 reference failed\n", what);
    return;
  }
  for (k = 0; k < 3; k++) {
    const int ls = k == 0 ? DIAGC_CVODE_KLU : DIAGC_CVODE_DENSE;
    cv_run r = {DIAGC_CVODE_NAME, ls,
                k == 2 ? DIAGC_JACOBIAN_FD : DIAGC_JACOBIAN_MODEL, 1e-4, rtol,
                atol, t_end, t_end};
    diagc_sim_statistics *st = k == 2 ? &st_fd : &st_model;
    char name[96];
    double d;
    int rc;
    if (ls == DIAGC_CVODE_KLU && !diagc_cvode_has_klu()) {
      printf("skip sim_cvode.%s.klu: built without KLU\n", what);
      continue;
    }
    jac_calls = 0;
    rc = run(m, &r, x, st);
    calls[k] = jac_calls;
    d = rc == 0 ? rel_diff(x, xr, m->nxc, floor) : INFINITY;
    snprintf(name, sizeof name, "sim_cvode.%s.%s", what,
             k == 2 ? "fd" : ls_name(ls));
    check(d <= tol, name,
          "rc %d worst relative difference to radau3 %.3g (tol %g), x0 %.12g "
          "vs %.12g, %lld steps",
          rc, d, tol, x[0], xr[0], (long long)st->integrator_steps);
  }
  {
    char name[96];
    snprintf(name, sizeof name, "sim_cvode.%s.jacobian_stats", what);
    /* the dense run with the model's Jacobian (k = 1) called it once
     * per Jacobian CVODE formed; the difference quotients never */
    check(st_model.jacobian_source == DIAGC_JACOBIAN_MODEL &&
              st_fd.jacobian_source == DIAGC_JACOBIAN_FD &&
              st_model.jacobian_evals > 0 && st_model.lu_factorizations > 0 &&
              calls[1] == st_model.jacobian_evals && calls[2] == 0 &&
              st_fd.jacobian_evals > 0,
          name,
          "sources %d/%d, model: jacobians %lld (calls %ld), LU %lld; fd: "
          "jacobians %lld (calls %ld)",
          st_model.jacobian_source, st_fd.jacobian_source,
          (long long)st_model.jacobian_evals, calls[1],
          (long long)st_model.lu_factorizations,
          (long long)st_fd.jacobian_evals, calls[2]);
  }
}

/* The held value: any evaluation at t in [n h, (n + 1) h] sees d_{n+1};
 * x(1) = h (1 + 2 + ... + 10) = 5.5. */
static void test_sample_hold(void) {
  diagc_sim *sim = diagc_sim_create(&sample_hold_model, NULL);
  int rc, ok = 1;
  long k, bad = -1;
  double x;
  sh_nevals = 0;
  rc = diagc_sim_use_cvode(sim, NULL);
  if (rc == 0) rc = diagc_sim_advance_to(sim, 1.0);
  x = ((const sh_ctx *)diagc_sim_context(sim))->xc[0];
  for (k = 0; k < sh_nevals && k < SH_MAX_EVALS; k++) {
    const double n = sh_eval_d[k] - 1;
    if (!(n >= 0 && 0. + n * SH_H <= sh_eval_t[k] &&
          sh_eval_t[k] <= 0. + (n + 1) * SH_H)) {
      ok = 0;
      if (bad < 0) bad = k;
    }
  }
  check(rc == 0 && sh_nevals > 0 && ok, "sim_cvode.sample_hold.held_value",
        "rc %d (%s) evals %ld first bad: t %.17g d %g", rc,
        diagc_sim_error(sim), sh_nevals, bad >= 0 ? sh_eval_t[bad] : 0,
        bad >= 0 ? sh_eval_d[bad] : 0);
  check(fabs(x - 5.5) < 1e-9, "sim_cvode.sample_hold.x_at_1",
        "x(1) = %.17g, want 5.5", x);
  diagc_sim_destroy(sim);
}

/* Impacts at t1 = sqrt(2 y0 / g), then t_{k+1} = t_k + 2 e^k v1 / g;
 * apex k at t_k + e^k v1 / g, height e^(2k) y0 (test_simulator_witness.c
 * runs the same check on the built-in integrators). */
static void test_bouncing(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  diagc_sim_statistics st;
  const double t1 = sqrt(2 * bb_y0 / bb_g), v1 = bb_g * t1, tol = 1e-6;
  double tk = t1, worst_t = 0, worst_apex = 0;
  int k, rc, nb;
  bb_n_bounce = bb_n_apex = 0;
  diagc_sim_options_init(&o);
  o.accuracy = 1e-10;
  sim = diagc_sim_create(&bb_model, &o);
  rc = diagc_sim_use_cvode(sim, NULL);
  if (rc == 0) rc = diagc_sim_advance_to(sim, 3.0);
  diagc_sim_stats(sim, &st);
  nb = bb_n_bounce;
  for (k = 0; k < 6 && k < nb; k++) {
    const double up = pow(bb_e, k + 1) * v1;
    worst_t = fmax(worst_t, fabs(bb_bounce_t[k] - tk));
    if (k < bb_n_apex)
      worst_apex = fmax(worst_apex, fabs(bb_apex_t[k] - (tk + up / bb_g)));
    tk += 2 * up / bb_g;
  }
  check(rc == 0 && nb >= 6 && worst_t < tol, "sim_cvode.witness.bounce_times",
        "rc %d (%s) bounces %d worst error %g, first %.12g want %.12g", rc,
        diagc_sim_error(sim), nb, worst_t, bb_bounce_t[0], t1);
  check(rc == 0 && bb_n_apex >= 6 && worst_apex < tol &&
            fabs(bb_apex_y[0] - 0.64) < 1e-5,
        "sim_cvode.witness.apexes", "apexes %d worst time error %g, first height %.12g",
        bb_n_apex, worst_apex, bb_apex_y[0]);
  check(st.witness_triggers == nb + bb_n_apex, "sim_cvode.witness.stats",
        "witness_triggers %lld, events %d", (long long)st.witness_triggers,
        nb + bb_n_apex);
  diagc_sim_destroy(sim);
}

/* initialize and advance_to (events, witness re-integrations, restarts,
 * the error paths) allocate nothing. */
static void run_counted(const char *name, const diagc_model *m, int ls,
                        double t1, double t2) {
  diagc_sim *sim = diagc_sim_create(m, NULL);
  diagc_cvode_options co;
  long during;
  int rc0, rc1, rc2;
  diagc_cvode_options_init(&co);
  co.linear_solver = ls;
  rc0 = diagc_sim_use_cvode(sim, &co);
  alloc_calls = 0;
  counting = 1;
  rc1 = diagc_sim_initialize(sim);
  rc1 |= diagc_sim_advance_to(sim, t1);
  (void)diagc_sim_advance_to(sim, t1); /* AdvanceTo(now) */
  (void)diagc_sim_advance_to(sim, 0);  /* error path: backwards */
  rc2 = diagc_sim_advance_to(sim, t2);
  rc2 |= diagc_sim_initialize(sim);
  rc2 |= diagc_sim_advance_to(sim, t2 + 0.5);
  counting = 0;
  during = alloc_calls;
  check(rc0 == 0 && rc1 == 0 && rc2 == 0 && during == 0, name,
        "allocations in initialize/advance_to: %ld (rc %d %d %d: %s)", during,
        rc0, rc1, rc2, diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

static void test_alloc(void) {
  diagc_model dm = with_jac(&decay_model, 1, dec_colptr, dec_rowind, dec_jac),
              rm;
  run_counted("sim_cvode.alloc.decay_dense", &dm, DIAGC_CVODE_DENSE, 1, 3);
  run_counted("sim_cvode.alloc.decay_fd", &decay_model, DIAGC_CVODE_AUTO, 1, 3);
  run_counted("sim_cvode.alloc.bouncing_ball", &bb_model, DIAGC_CVODE_AUTO, 1, 2);
  run_counted("sim_cvode.alloc.sample_hold", &sample_hold_model,
              DIAGC_CVODE_AUTO, 1, 2);
  rm = with_jac(&robertson_model, 7, rob_jac_colptr, rob_jac_rowind, rob_jac);
  if (diagc_cvode_has_klu())
    run_counted("sim_cvode.alloc.robertson_klu", &rm, DIAGC_CVODE_KLU, 1, 10);
}

/* Selecting and switching by name; the errors. */
static void test_selection(void) {
  diagc_model dm = with_jac(&decay_model, 1, dec_colptr, dec_rowind, dec_jac);
  diagc_sim *sim = diagc_sim_create(&dm, NULL);
  diagc_sim_options o;
  diagc_cvode_options co;
  int rc_unknown, rc_use, rc_rk, rc_back, rc_jac, rc_adv;
  char msg_unknown[320], msg_jac[320];
  rc_unknown = diagc_sim_set_integrator(sim, DIAGC_CVODE_NAME);
  snprintf(msg_unknown, sizeof msg_unknown, "%s", diagc_sim_error(sim));
  check(rc_unknown == DIAGC_SIM_E_ARG && strstr(msg_unknown, "diagc_sim_use_cvode"),
        "sim_cvode.select.not_installed", "rc %d '%s'", rc_unknown, msg_unknown);
  rc_use = diagc_sim_use_cvode(sim, NULL);
  check(rc_use == 0 && strcmp(diagc_sim_integrator(sim), "cvode_bdf") == 0,
        "sim_cvode.select.use", "rc %d integrator %s", rc_use,
        diagc_sim_integrator(sim));
  rc_rk = diagc_sim_set_integrator(sim, "radau3");
  rc_back = diagc_sim_set_integrator(sim, "cvode_bdf");
  rc_adv = diagc_sim_advance_to(sim, 0.5);
  check(rc_rk == 0 && rc_back == 0 && rc_adv == 0 &&
            strcmp(diagc_sim_integrator(sim), "cvode_bdf") == 0 &&
            fabs(((const decay_ctx *)diagc_sim_context(sim))->xc[0] - exp(-0.5)) < 1e-3,
        "sim_cvode.select.switch", "rc %d %d %d (%s)", rc_rk, rc_back, rc_adv,
        diagc_sim_error(sim));
  /* the Jacobian source is fixed at diagc_sim_use_cvode */
  diagc_sim_get_options(sim, &o);
  o.jacobian = DIAGC_JACOBIAN_FD;
  diagc_sim_set_options(sim, &o);
  rc_jac = diagc_sim_advance_to(sim, 1.0);
  snprintf(msg_jac, sizeof msg_jac, "%s", diagc_sim_error(sim));
  check(rc_jac == DIAGC_SIM_E_ARG && strstr(msg_jac, "options.jacobian changed"),
        "sim_cvode.select.jacobian_changed", "rc %d '%s'", rc_jac, msg_jac);
  diagc_sim_destroy(sim);
  /* KLU without the model's Jacobian */
  sim = diagc_sim_create(&decay_model, NULL);
  diagc_cvode_options_init(&co);
  co.linear_solver = DIAGC_CVODE_KLU;
  rc_use = diagc_sim_use_cvode(sim, &co);
  check(rc_use == DIAGC_SIM_E_ARG && strstr(diagc_sim_error(sim), "KLU") &&
            strcmp(diagc_sim_integrator(sim), "runge_kutta3") == 0,
        "sim_cvode.select.klu_needs_jacobian", "rc %d '%s'", rc_use,
        diagc_sim_error(sim));
  co.linear_solver = 7;
  rc_use = diagc_sim_use_cvode(sim, &co);
  check(rc_use == DIAGC_SIM_E_ARG, "sim_cvode.select.bad_option", "rc %d",
        rc_use);
  /* no fixed-step mode */
  diagc_sim_get_options(sim, &o);
  o.integrator = "cvode_bdf";
  o.error_control = 0;
  rc_use = diagc_sim_use_cvode(sim, NULL);
  rc_rk = diagc_sim_set_options(sim, &o);
  check(rc_use == 0 && rc_rk == DIAGC_SIM_E_ARG &&
            strstr(diagc_sim_error(sim), "chooses its own steps"),
        "sim_cvode.select.no_fixed_steps", "rc %d %d '%s'", rc_use, rc_rk,
        diagc_sim_error(sim));
  /* removing the stepper falls back to runge_kutta3 */
  rc_use = diagc_sim_use_cvode(sim, NULL);
  rc_rk = diagc_sim_set_stepper(sim, NULL);
  check(rc_use == 0 && rc_rk == 0 &&
            strcmp(diagc_sim_integrator(sim), "runge_kutta3") == 0 &&
            diagc_sim_set_integrator(sim, "cvode_bdf") == DIAGC_SIM_E_ARG,
        "sim_cvode.select.remove", "rc %d %d integrator %s", rc_use, rc_rk,
        diagc_sim_integrator(sim));
  diagc_sim_destroy(sim);
}

int main(void) {
  diagc_model rm, vm;
  resolve();
  check(counting_self_check() == 3, "sim_cvode.alloc.interposer_counts",
        "the malloc interposer does not count");
  printf("# SUNDIALS %s, KLU %s\n", diagc_cvode_sundials_version(),
         diagc_cvode_has_klu() ? "yes" : "no");
  test_decay();
  /* y2 ~ 1e-7 at t = 1e5: relative to each state */
  rm = with_jac(&robertson_model, 7, rob_jac_colptr, rob_jac_rowind, rob_jac);
  test_stiff("robertson", &rm, 1e5, 1e-11, 1e-10, 1e-16, 1e-12, 1e-5);
  vm = with_jac(&vdp_stiff_model, 3, vdp_jac_colptr, vdp_jac_rowind, vdp_jac);
  test_stiff("vanderpol_mu1000", &vm, 3000, 1e-10, 1e-10, 1e-10, 1e-6, 1e-4);
  test_sample_hold();
  test_bouncing();
  test_alloc();
  test_selection();
  return check_exit();
}
