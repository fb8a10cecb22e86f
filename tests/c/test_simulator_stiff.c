/* The stiff integrators: radau3's order, stability and error control, the
 * classic stiff problems (Robertson's kinetics, Van der Pol with mu =
 * 1000), and the Jacobian source (a hand-written sparse Jacobian against
 * finite differences, for radau3 and implicit_euler). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/simulator.h"
#include "../../runtime/src/implicit.h"
#include "models/check.h"
#include "models/sim_run.h"
#include "models/decay.c"
#include "models/oscillator.c"
#include "models/robertson.c"
#include "models/vdp_stiff.c"

static double osc_error(double h, int error_control, double acc,
                        diagc_sim_statistics *st) {
  run_opts r = {"radau3", error_control, h, acc, 1.0, NULL};
  double x[2];
  if (run(&osc_model, &r, x, st) != 0) return NAN;
  return fmax(fabs(x[0] - cos(1.0)), fabs(x[1] + sin(1.0)));
}

/* The order from fixed steps h0 / 2^k (least squares). */
static void order_test(void) {
  double hs[4], es[4], slope;
  char detail[200] = "";
  int k, ok = 1;
  for (k = 0; k < 4; k++) {
    char part[40];
    hs[k] = 0.1 / (1 << k);
    es[k] = osc_error(hs[k], 0, 1e-13, NULL);
    if (!(es[k] > 0)) ok = 0;
    snprintf(part, sizeof part, " h=%g:%.3g", hs[k], es[k]);
    strncat(detail, part, sizeof detail - strlen(detail) - 1);
  }
  slope = order_slope(hs, es, 4);
  check(ok && fabs(slope - 3) <= 0.2, "radau3.order", "slope %.3f want 3;%s",
        slope, detail);
}

/* The stability function of two-stage Radau IIA. */
static double radau_r(double z) {
  return (1 + z / 3) / (1 - 2 * z / 3 + z * z / 6);
}

static double decay_run(double k, int error_control, double h, double t_end,
                        diagc_sim_statistics *st) {
  run_opts r = {"radau3", error_control, h, 1e-6, t_end, NULL};
  double x;
  decay_k = k;
  run(&decay_model, &r, &x, st);
  decay_k = 1.0;
  return x;
}

/* x' = -x with h = 1/8 reproduces R(-1/8)^8; x' = -1e6 x with h = 1 gives
 * R(-1e6) ~ -2e-6 per step (L-stability: the stiff component is damped,
 * not reflected as by the trapezoidal rule's R -> -1); error control
 * resolves the transient (to the absolute accuracy 1e-6) in a few hundred
 * steps, where an explicit method needs about 1e6. */
static void stability_tests(void) {
  diagc_sim_statistics st;
  const double x = decay_run(1.0, 0, 0.125, 1.0, NULL);
  const double want = pow(radau_r(-0.125), 8);
  const double x1 = decay_run(1e6, 0, 1.0, 1.0, NULL);
  const double x2 = decay_run(1e6, 0, 1.0, 2.0, NULL);
  double xe;
  check(fabs(x - want) < 1e-12, "radau3.closed_form", "x %.17g want %.17g",
        x, want);
  check(fabs(x1 - radau_r(-1e6)) < 1e-9 * fabs(radau_r(-1e6)) &&
            fabs(x1) < 2.1e-6 && fabs(x2) < 5e-12,
        "radau3.l_stable", "one step %.3g (R = %.3g), two steps %.3g", x1,
        radau_r(-1e6), x2);
  xe = decay_run(1e6, 1, 1.0, 1.0, &st);
  check(fabs(xe) < 1e-6 && st.integrator_steps < 300, "radau3.stiff_decay",
        "x(1) %.3g in %lld steps", xe, (long long)st.integrator_steps);
}

/* Error control meets the accuracy on the oscillator; tighter is better. */
static void accuracy_test(void) {
  diagc_sim_statistics s1, s2;
  const double e1 = osc_error(1.0, 1, 1e-5, &s1);
  const double e2 = osc_error(1.0, 1, 1e-8, &s2);
  check(e1 < 1e-4 && e2 < 1e-7 && e2 < e1 &&
            s2.integrator_steps > s1.integrator_steps,
        "radau3.accuracy", "acc 1e-5: error %.3g (%lld steps); acc 1e-8: "
        "error %.3g (%lld steps)", e1, (long long)s1.integrator_steps, e2,
        (long long)s2.integrator_steps);
}

static const diagc_xc_jacobian rob_sparse = {7, rob_jac_colptr,
                                             rob_jac_rowind, rob_jac};
static const diagc_xc_jacobian vdp_sparse = {3, vdp_jac_colptr,
                                             vdp_jac_rowind, vdp_jac};

/* Robertson to t = 1e5: mass is conserved, a run at accuracy 1e-8 agrees
 * with one at 1e-12, the Jacobian is reused across steps, and the sparse
 * Jacobian gives the finite-difference result with fewer evaluations. */
static void robertson_tests(void) {
  run_opts r = {"radau3", 1, 1e5, 1e-8, 1e5, NULL};
  run_opts tight = {"radau3", 1, 1e5, 1e-12, 1e5, &rob_sparse};
  diagc_sim_statistics st, sts;
  double x[3], xs[3], xref[3];
  long calls0;
  run(&robertson_model, &tight, xref, NULL);
  run(&robertson_model, &r, x, &st);
  check(fabs(x[0] + x[1] + x[2] - 1) < 1e-10 &&
            rel_diff(x, xref, 3, 1e-12) < 1e-4,
        "radau3.robertson", "y %.10g %.6g %.10g, reference %.10g %.6g %.10g",
        x[0], x[1], x[2], xref[0], xref[1], xref[2]);
  check(st.jacobian_evals > 0 && 4 * st.jacobian_evals < st.integrator_steps &&
            st.lu_factorizations > 0 && st.newton_iterations >= st.integrator_steps,
        "radau3.robertson.jacobian_reuse",
        "%lld steps, %lld Jacobians, %lld LUs, %lld Newton iterations",
        (long long)st.integrator_steps, (long long)st.jacobian_evals,
        (long long)st.lu_factorizations, (long long)st.newton_iterations);
  r.jac = &rob_sparse;
  calls0 = rob_jac_calls;
  run(&robertson_model, &r, xs, &sts);
  check(rel_diff(xs, x, 3, 1e-12) < 1e-5 &&
            rob_jac_calls - calls0 == sts.jacobian_evals &&
            sts.derivative_evals < st.derivative_evals,
        "radau3.robertson.sparse_jacobian",
        "sparse %.10g %.6g %.10g vs FD %.10g %.6g %.10g; %lld vs %lld "
        "derivative evaluations", xs[0], xs[1], xs[2], x[0], x[1], x[2],
        (long long)sts.derivative_evals, (long long)st.derivative_evals);
}

/* implicit_euler takes the same Jacobian source. */
static void implicit_euler_sparse(void) {
  run_opts r = {"implicit_euler", 1, 1e3, 1e-6, 100.0, NULL};
  diagc_sim_statistics st, sts;
  double x[3], xs[3];
  long calls0 = rob_jac_calls;
  run(&robertson_model, &r, x, &st);
  r.jac = &rob_sparse;
  run(&robertson_model, &r, xs, &sts);
  check(rel_diff(xs, x, 3, 1e-9) < 1e-5 &&
            rob_jac_calls - calls0 == sts.jacobian_evals &&
            sts.jacobian_evals > 0 && sts.derivative_evals < st.derivative_evals,
        "implicit_euler.robertson.sparse_jacobian",
        "sparse %.10g %.6g %.10g vs FD %.10g %.6g %.10g", xs[0], xs[1], xs[2],
        x[0], x[1], x[2]);
}

/* Van der Pol, mu = 1000, to t = 3000 (past the first relaxation jump near
 * t = 807): finite differences and the sparse Jacobian agree, and with a
 * reference at accuracy 1e-10 (the accuracy is absolute, and v reaches
 * about 1e3 in the jumps). */
static void vanderpol_test(void) {
  run_opts r = {"radau3", 1, 100.0, 1e-7, 3000.0, NULL};
  run_opts tight = {"radau3", 1, 100.0, 1e-10, 3000.0, &vdp_sparse};
  diagc_sim_statistics st;
  double x[2], xs[2], xref[2];
  run(&vdp_stiff_model, &tight, xref, NULL);
  run(&vdp_stiff_model, &r, x, &st);
  r.jac = &vdp_sparse;
  run(&vdp_stiff_model, &r, xs, NULL);
  check(fabs(x[0] - xref[0]) < 1e-3 && fabs(xs[0] - x[0]) < 1e-4 &&
            st.integrator_steps < 40000,
        "radau3.vanderpol_mu1000",
        "x(3000) %.10g (sparse %.10g, reference %.10g), %lld steps", x[0],
        xs[0], xref[0], (long long)st.integrator_steps);
}

/* A malformed pattern is refused; NULL returns to finite differences. */
static void bad_pattern(void) {
  static const int colptr[4] = {0, 2, 1, 7};
  const diagc_xc_jacobian bad = {7, colptr, rob_jac_rowind, rob_jac};
  diagc_sim *sim = diagc_sim_create(&robertson_model, NULL);
  int rc1 = diagc_sim_set_xc_jacobian(sim, &bad);
  int rc2 = diagc_sim_set_xc_jacobian(sim, NULL);
  check(rc1 == DIAGC_SIM_E_ARG && rc2 == 0 &&
            strstr(diagc_sim_error(sim), "pattern") != NULL,
        "jacobian.bad_pattern", "rc %d then %d: %s", rc1, rc2,
        diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

/* The band ordering narrows a scrambled chain's pattern to bandwidth 1,
 * and the banded LU in that order solves the system as the dense LU does
 * (also with kl = ku = n - 1 on the unordered matrix). */
static void band_test(void) {
  enum { N = 40 };
  static double jac[N * N], a[N * N], d[N * N];
  double b[N], bd[N], bb[N], err = 0;
  int perm[N], inv[N], deg[N], piv[N], pivd[N], lab[N], i, j, kl, ku, r1, r2;
  for (i = 0; i < N; i++) lab[i] = (i * 17) % N; /* chain node i is state lab[i] */
  for (i = 0; i < N; i++) {
    jac[lab[i] * N + lab[i]] = -2.0 - 0.01 * i;
    if (i > 0) jac[lab[i] * N + lab[i - 1]] = 1.0 + 0.001 * i;
    if (i < N - 1) jac[lab[i] * N + lab[i + 1]] = 0.5;
  }
  diagc_band_order(jac, N, perm, inv, deg, &kl, &ku);
  for (i = 0; i < N; i++) {
    b[i] = sin(i + 1.0);
    for (j = 0; j < N; j++) {
      const double v = (i == j) - 0.3 * jac[i * N + j];
      d[i * N + j] = v;
      a[inv[i] * N + inv[j]] = v;
    }
  }
  for (i = 0; i < N; i++) {
    bd[i] = b[i];
    bb[inv[i]] = b[i];
  }
  r1 = diagc_lu_factor(d, N, pivd);
  r2 = diagc_band_lu_factor(a, N, kl, ku, piv);
  diagc_lu_solve(d, N, pivd, bd);
  diagc_band_lu_solve(a, N, kl, ku, piv, bb);
  for (i = 0; i < N; i++) err = fmax(err, fabs(bb[inv[i]] - bd[i]));
  check(kl == 1 && ku == 1 && r1 == 0 && r2 == 0 && err < 1e-13,
        "jacobian.band_order_lu", "bandwidths %d %d, difference %.3g", kl, ku,
        err);
}

/* options.jacobian on a model that carries its Jacobian in the
 * descriptor (as generated models do): the default uses it, FD does not,
 * set_options switches both ways, other values are refused; the runs agree
 * within the tolerance and the model's Jacobian saves nxc derivative
 * evaluations per Jacobian. */
static diagc_sim *make(const diagc_model *m, const char *integ, double acc,
                       int jacobian, char *err, size_t errlen) {
  diagc_sim_options o;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.accuracy = acc;
  o.max_step = 10;
  o.jacobian = jacobian;
  return diagc_sim_create_ex(m, &o, err, errlen);
}

static int source_of(const diagc_sim *sim) {
  diagc_sim_statistics st;
  diagc_sim_stats(sim, &st);
  return st.jacobian_source;
}

static void set_source(diagc_sim *sim, int jacobian) {
  diagc_sim_options o;
  diagc_sim_options_init(&o);
  o.integrator = "radau3";
  o.jacobian = jacobian;
  diagc_sim_set_options(sim, &o);
}

/* Robertson to t = 40 with the given source; x gets the state. */
static void run_source(const diagc_model *m, const char *integ, double acc,
                       int jacobian, double *x, diagc_sim_statistics *st) {
  char err[200];
  diagc_sim *sim = make(m, integ, acc, jacobian, err, sizeof err);
  int i;
  for (i = 0; i < 3; i++) x[i] = NAN;
  memset(st, 0, sizeof *st);
  if (!sim) return;
  if (diagc_sim_advance_to(sim, 40.0) == 0)
    memcpy(x, (const char *)diagc_sim_context(sim) + m->xc_offset,
           3 * sizeof(double));
  diagc_sim_stats(sim, st);
  diagc_sim_destroy(sim);
}

static void jacobian_option(void) {
  static const char *const integ[2] = {"radau3", "implicit_euler"};
  static const double acc[2] = {1e-8, 1e-6};
  diagc_model m = robertson_model;
  diagc_sim_options o;
  diagc_sim_statistics sm, sf;
  char err[200];
  diagc_sim *a, *b;
  double x[3], y[3];
  int i, k, rc, src[4];
  m.jac_xc_nnz = rob_sparse.nnz;
  m.jac_xc_colptr = rob_sparse.colptr;
  m.jac_xc_rowind = rob_sparse.rowind;
  m.jac_xc = rob_sparse.jac_xc;
  a = make(&m, "radau3", 1e-8, DIAGC_JACOBIAN_MODEL, err, sizeof err);
  b = make(&m, "radau3", 1e-8, DIAGC_JACOBIAN_FD, err, sizeof err);
  src[0] = source_of(a);
  src[1] = source_of(b);
  set_source(a, DIAGC_JACOBIAN_FD);
  src[2] = source_of(a);
  set_source(a, DIAGC_JACOBIAN_MODEL);
  src[3] = source_of(a);
  check(src[0] == DIAGC_JACOBIAN_MODEL && src[1] == DIAGC_JACOBIAN_FD &&
            src[2] == DIAGC_JACOBIAN_FD && src[3] == DIAGC_JACOBIAN_MODEL,
        "jacobian.option_source", "default %d, fd %d, set fd %d, set model %d",
        src[0], src[1], src[2], src[3]);
  diagc_sim_options_init(&o);
  o.jacobian = 7;
  rc = diagc_sim_set_options(a, &o);
  check(rc == DIAGC_SIM_E_ARG && strstr(diagc_sim_error(a), "jacobian") &&
            source_of(a) == DIAGC_JACOBIAN_MODEL,
        "jacobian.option_bad_set", "rc %d: %s", rc, diagc_sim_error(a));
  diagc_sim_destroy(a);
  diagc_sim_destroy(b);
  a = make(&m, "radau3", 1e-8, -1, err, sizeof err);
  check(a == NULL && strstr(err, "unknown jacobian source -1") != NULL,
        "jacobian.option_bad_create", "%s", a ? "created" : err);
  diagc_sim_destroy(a);
  /* a model without a Jacobian stays on finite differences */
  a = make(&robertson_model, "radau3", 1e-8, DIAGC_JACOBIAN_MODEL, err,
           sizeof err);
  check(a && source_of(a) == DIAGC_JACOBIAN_FD, "jacobian.option_no_model",
        "source %d", a ? source_of(a) : -1);
  diagc_sim_destroy(a);
  for (k = 0; k < 2; k++) {
    double d = 0;
    run_source(&m, integ[k], acc[k], DIAGC_JACOBIAN_MODEL, x, &sm);
    run_source(&m, integ[k], acc[k], DIAGC_JACOBIAN_FD, y, &sf);
    for (i = 0; i < 3; i++) d = fmax(d, fabs(x[i] - y[i]));
    check(d <= 10 * acc[k] && sm.jacobian_evals > 0 &&
              sm.derivative_evals < sf.derivative_evals &&
              sf.derivative_evals >= 3 * sf.jacobian_evals,
          k == 0 ? "jacobian.model_vs_fd_radau3"
                 : "jacobian.model_vs_fd_implicit_euler",
          "max difference %.3g, evaluations %lld (model) vs %lld (fd), "
          "jacobians %lld vs %lld", d, (long long)sm.derivative_evals,
          (long long)sf.derivative_evals, (long long)sm.jacobian_evals,
          (long long)sf.jacobian_evals);
  }
}

int main(void) {
  band_test();
  order_test();
  stability_tests();
  accuracy_test();
  robertson_tests();
  implicit_euler_sparse();
  vanderpol_test();
  bad_pattern();
  jacobian_option();
  return check_exit();
}
