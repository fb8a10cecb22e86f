/* radau5 (three-stage Radau IIA, order 5): its order (fixed steps, error
 * ratio about 2^5 when h halves, autonomous and time-dependent), its
 * stability function and L-stability, error control, Robertson's kinetics
 * against the published reference at t = 1e11 (the IVP test set of the
 * University of Bari, problem ROBER: y = (0.2083340149701255e-7,
 * 0.8333360770334713e-13, 0.9999999791665050)) and against radau3 at
 * tight accuracy at t = 1e5, Van der Pol with mu = 1000, the Jacobian
 * source (a hand-written sparse Jacobian and the descriptor's, against
 * finite differences), and witness localization (the bouncing ball). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/simulator.h"
#include "../../runtime/src/implicit.h"
#include "models/check.h"
#include "models/sim_run.h"
#include "models/bouncing.c"
#include "models/decay.c"
#include "models/oscillator.c"
#include "models/robertson.c"
#include "models/vdp_stiff.c"

/* ---- order -------------------------------------------------------------- */

/* x' = cos(t) x, x(0) = 1: x = exp(sin t) (the decay model's context with
 * time-dependent derivatives, so the nodes c_i matter). */
static int tdep_derivs(void *c, const double **xcdot) {
  decay_ctx *x = (decay_ctx *)c;
  x->xcdot[0] = cos(x->t) * x->xc[0];
  *xcdot = x->xcdot;
  return DIAGC_OK;
}

static double fixed_error(int tdep, double h) {
  run_opts r = {"radau5", 0, h, 1e-13, 1.0, NULL};
  diagc_model m = decay_model;
  double x[2];
  if (tdep) {
    m.calc_derivatives = tdep_derivs;
    if (run(&m, &r, x, NULL) != 0) return NAN;
    return fabs(x[0] - exp(sin(1.0)));
  }
  if (run(&osc_model, &r, x, NULL) != 0) return NAN;
  return fmax(fabs(x[0] - cos(1.0)), fabs(x[1] + sin(1.0)));
}

/* Error ratios e(h) / e(h/2) for h = 0.4 ... 0.05: each about 32. */
static void order_test(int tdep) {
  double e[4], worst = 0;
  char detail[200] = "";
  int k, ok = 1;
  for (k = 0; k < 4; k++) {
    char part[48];
    e[k] = fixed_error(tdep, 0.4 / (1 << k));
    if (!(e[k] > 0)) ok = 0;
    snprintf(part, sizeof part, " h=%g:%.3g", 0.4 / (1 << k), e[k]);
    strncat(detail, part, sizeof detail - strlen(detail) - 1);
  }
  for (k = 0; k < 3; k++) {
    const double ratio = e[k] / e[k + 1];
    if (!(ratio > 26 && ratio < 38)) ok = 0;
    if (fabs(log2(ratio) - 5) > worst) worst = fabs(log2(ratio) - 5);
  }
  check(ok, tdep ? "radau5.order.time_dependent" : "radau5.order.oscillator",
        "error ratios off 2^5 by up to 2^%.2f;%s", worst, detail);
}

/* ---- stability ----------------------------------------------------------- */

/* The stability function of three-stage Radau IIA (the (2, 3) Pade
 * approximation of exp). */
static double radau5_r(double z) {
  return (1 + 2 * z / 5 + z * z / 20) /
         (1 - 3 * z / 5 + 3 * z * z / 20 - z * z * z / 60);
}

static double decay_run(double k, int error_control, double h, double t_end,
                        diagc_sim_statistics *st) {
  run_opts r = {"radau5", error_control, h, 1e-6, t_end, NULL};
  double x;
  decay_k = k;
  run(&decay_model, &r, &x, st);
  decay_k = 1.0;
  return x;
}

/* x' = -x with h = 1/8 reproduces R(-1/8)^8 (which checks the method's
 * coefficients through the transformed Newton iteration); x' = -1e6 x
 * with h = 1 gives R(-1e6) ~ 3e-6 per step (L-stable); error control
 * resolves the transient in a few dozen steps. */
static void stability_tests(void) {
  diagc_sim_statistics st;
  const double x = decay_run(1.0, 0, 0.125, 1.0, NULL);
  const double want = pow(radau5_r(-0.125), 8);
  const double x1 = decay_run(1e6, 0, 1.0, 1.0, NULL);
  const double x2 = decay_run(1e6, 0, 1.0, 2.0, NULL);
  double xe;
  check(fabs(x - want) < 1e-13 && fabs(x - exp(-1.0)) < 1e-8,
        "radau5.closed_form", "x %.17g want %.17g (exp(-1) %.17g)", x, want,
        exp(-1.0));
  check(fabs(x1 - radau5_r(-1e6)) < 1e-9 * fabs(radau5_r(-1e6)) &&
            fabs(x1) < 3.1e-6 && fabs(x2) < 1e-11,
        "radau5.l_stable", "one step %.3g (R = %.3g), two steps %.3g", x1,
        radau5_r(-1e6), x2);
  xe = decay_run(1e6, 1, 1.0, 1.0, &st);
  check(fabs(xe) < 1e-6 && st.integrator_steps < 100, "radau5.stiff_decay",
        "x(1) %.3g in %lld steps", xe, (long long)st.integrator_steps);
}

/* Error control meets the accuracy on the oscillator, in fewer steps than
 * radau3; tighter is better. */
static void accuracy_test(void) {
  diagc_sim_statistics s1, s2, s3;
  run_opts r = {"radau5", 1, 1.0, 1e-5, 1.0, NULL};
  double x[2], e1, e2;
  run(&osc_model, &r, x, &s1);
  e1 = fmax(fabs(x[0] - cos(1.0)), fabs(x[1] + sin(1.0)));
  r.accuracy = 1e-9;
  run(&osc_model, &r, x, &s2);
  e2 = fmax(fabs(x[0] - cos(1.0)), fabs(x[1] + sin(1.0)));
  r.integ = "radau3";
  run(&osc_model, &r, x, &s3);
  check(e1 < 1e-5 && e2 < 1e-9 && e2 < e1 &&
            s2.integrator_steps > s1.integrator_steps &&
            s2.integrator_steps < s3.integrator_steps,
        "radau5.accuracy",
        "acc 1e-5: error %.3g (%lld steps); acc 1e-9: error %.3g (%lld "
        "steps; radau3 %lld)", e1, (long long)s1.integrator_steps, e2,
        (long long)s2.integrator_steps, (long long)s3.integrator_steps);
}

/* ---- stiff problems -------------------------------------------------------- */

static const diagc_xc_jacobian rob_sparse = {7, rob_jac_colptr,
                                             rob_jac_rowind, rob_jac};
static const diagc_xc_jacobian vdp_sparse = {3, vdp_jac_colptr,
                                             vdp_jac_rowind, vdp_jac};

/* Robertson to t = 1e11 against the published reference (absolute, as the
 * accuracy), and to t = 1e5 against radau3 at accuracy 1e-12 (relative to
 * each state, y2 ~ 1e-7 included); mass conserved; the Jacobian kept over
 * steps on the long run. */
static void robertson_tests(void) {
  static const double ref11[3] = {0.2083340149701255e-7,
                                  0.8333360770334713e-13,
                                  0.9999999791665050};
  run_opts r = {"radau5", 1, 1e11, 1e-10, 1e11, &rob_sparse};
  run_opts tight = {"radau3", 1, 1e5, 1e-12, 1e5, &rob_sparse};
  diagc_sim_statistics st;
  double x[3], xref[3], d = 0;
  int i;
  run(&robertson_model, &r, x, &st);
  for (i = 0; i < 3; i++) d = fmax(d, fabs(x[i] - ref11[i]));
  check(d < 2e-10 && fabs(x[0] + x[1] + x[2] - 1) < 1e-12,
        "radau5.robertson_1e11",
        "y %.10g %.10g %.16g, max difference %.3g from the reference "
        "(%lld steps, %lld rejected)", x[0], x[1], x[2], d,
        (long long)st.integrator_steps, (long long)st.rejected_steps);
  check(st.jacobian_evals > 0 && st.jacobian_evals < st.integrator_steps &&
            st.lu_factorizations > 0 &&
            st.newton_iterations >= st.integrator_steps,
        "radau5.robertson.stats",
        "%lld steps, %lld Jacobians, %lld LUs, %lld Newton iterations",
        (long long)st.integrator_steps, (long long)st.jacobian_evals,
        (long long)st.lu_factorizations, (long long)st.newton_iterations);
  run(&robertson_model, &tight, xref, NULL);
  r.max_step = r.t_end = 1e5;
  r.accuracy = 1e-11;
  run(&robertson_model, &r, x, &st);
  check(rel_diff(x, xref, 3, 1e-12) < 1e-6, "radau5.robertson_1e5",
        "y %.12g %.8g %.12g, radau3 at 1e-12 %.12g %.8g %.12g (%lld steps)",
        x[0], x[1], x[2], xref[0], xref[1], xref[2],
        (long long)st.integrator_steps);
}

/* Van der Pol, mu = 1000, to t = 3000 (past the first relaxation jump):
 * against radau3 at accuracy 1e-10, in far fewer steps than radau3 at the
 * same accuracy; finite differences and the sparse Jacobian agree. */
static void vanderpol_test(void) {
  run_opts r = {"radau5", 1, 100.0, 1e-7, 3000.0, &vdp_sparse};
  run_opts tight = {"radau3", 1, 100.0, 1e-10, 3000.0, &vdp_sparse};
  run_opts r3 = {"radau3", 1, 100.0, 1e-7, 3000.0, &vdp_sparse};
  diagc_sim_statistics st, st3;
  double x[2], xf[2], xref[2], x3[2];
  run(&vdp_stiff_model, &tight, xref, NULL);
  run(&vdp_stiff_model, &r, x, &st);
  run(&vdp_stiff_model, &r3, x3, &st3);
  r.jac = NULL;
  run(&vdp_stiff_model, &r, xf, NULL);
  check(fabs(x[0] - xref[0]) < 1e-5 && fabs(x[1] - xref[1]) < 1e-3 &&
            fabs(xf[0] - x[0]) < 1e-5 &&
            3 * st.integrator_steps < st3.integrator_steps,
        "radau5.vanderpol_mu1000",
        "x(3000) %.10g %.10g (FD %.10g, reference %.10g %.10g), %lld steps "
        "(radau3 %lld)", x[0], x[1], xf[0], xref[0], xref[1],
        (long long)st.integrator_steps, (long long)st3.integrator_steps);
}

/* The Jacobian source: a hand-written sparse Jacobian gives the
 * finite-difference result within the tolerance with fewer derivative
 * evaluations, and each Jacobian formed calls it once; the descriptor's
 * Jacobian (as generated models carry) is the default, FD on request. */
static void jacobian_tests(void) {
  run_opts r = {"radau5", 1, 1e5, 1e-8, 1e5, NULL};
  diagc_model m = robertson_model;
  diagc_sim_options o;
  diagc_sim_statistics sf, ss, sm, sd;
  diagc_sim *sim;
  double xf[3], xs[3];
  long calls0;
  int i;
  run(&robertson_model, &r, xf, &sf);
  r.jac = &rob_sparse;
  calls0 = rob_jac_calls;
  run(&robertson_model, &r, xs, &ss);
  check(rel_diff(xs, xf, 3, 1e-9) < 1e-4 &&
            rob_jac_calls - calls0 == ss.jacobian_evals &&
            ss.jacobian_evals > 0 &&
            ss.derivative_evals < sf.derivative_evals &&
            sf.derivative_evals >= 3 * sf.jacobian_evals,
        "radau5.robertson.sparse_vs_fd",
        "sparse %.10g %.6g %.10g vs FD %.10g %.6g %.10g; evaluations %lld "
        "vs %lld", xs[0], xs[1], xs[2], xf[0], xf[1], xf[2],
        (long long)ss.derivative_evals, (long long)sf.derivative_evals);
  m.jac_xc_nnz = rob_sparse.nnz;
  m.jac_xc_colptr = rob_sparse.colptr;
  m.jac_xc_rowind = rob_sparse.rowind;
  m.jac_xc = rob_sparse.jac_xc;
  for (i = 0; i < 2; i++) {
    diagc_sim_options_init(&o);
    o.integrator = "radau5";
    o.accuracy = 1e-8;
    o.max_step = 1e5;
    o.jacobian = i == 0 ? DIAGC_JACOBIAN_MODEL : DIAGC_JACOBIAN_FD;
    sim = diagc_sim_create(&m, &o);
    diagc_sim_advance_to(sim, 1e5);
    diagc_sim_stats(sim, i == 0 ? &sm : &sd);
    diagc_sim_destroy(sim);
  }
  check(sm.jacobian_source == DIAGC_JACOBIAN_MODEL &&
            sd.jacobian_source == DIAGC_JACOBIAN_FD &&
            sm.integrator_steps == ss.integrator_steps &&
            sd.integrator_steps == sf.integrator_steps &&
            sm.derivative_evals == ss.derivative_evals,
        "radau5.descriptor_jacobian",
        "sources %d %d; steps %lld %lld (set: %lld, FD: %lld)",
        sm.jacobian_source, sd.jacobian_source,
        (long long)sm.integrator_steps, (long long)sd.integrator_steps,
        (long long)ss.integrator_steps, (long long)sf.integrator_steps);
}

/* Fixed steps too large for Newton stop with a message naming radau5. */
static void fixed_step_failure(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  int rc;
  diagc_sim_options_init(&o);
  o.integrator = "radau5";
  o.error_control = 0;
  o.max_step = 1e4;
  sim = diagc_sim_create(&vdp_stiff_model, &o);
  rc = diagc_sim_advance_to(sim, 3e4);
  check(rc == DIAGC_SIM_E_STEP &&
            strstr(diagc_sim_error(sim), "radau5: Newton") != NULL,
        "radau5.fixed_step_newton_failure", "rc %d: %s", rc,
        diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

/* Derivatives that turn NaN at t = 0.5: Newton fails at every step size
 * until the minimum step, which stops the run with a message (no endless
 * shrinking). */
static void newton_gives_up(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  double t;
  int rc;
  diagc_sim_options_init(&o);
  o.integrator = "radau5";
  decay_nan_after = 0.5;
  sim = diagc_sim_create(&decay_model, &o);
  rc = diagc_sim_advance_to(sim, 1.0);
  t = ((const decay_ctx *)diagc_sim_context(sim))->t;
  check(rc == DIAGC_SIM_E_STEP && t < 0.5 &&
            strstr(diagc_sim_error(sim), "radau5: Newton") != NULL,
        "radau5.newton_gives_up", "rc %d at t = %.17g: %s", rc, t,
        diagc_sim_error(sim));
  decay_nan_after = INFINITY;
  diagc_sim_destroy(sim);
}

/* ---- witnesses ------------------------------------------------------------ */

/* The bouncing ball's impact times (isolated by re-integrating from the
 * step's start, as for every integrator) against the analytic sequence
 * (t1 = sqrt(2 y0 / g), then intervals 2 e^k v1 / g). */
static void witness_test(double accuracy, double tol) {
  diagc_sim_options o;
  diagc_sim_statistics st;
  diagc_sim *sim;
  const double t1 = sqrt(2 * bb_y0 / bb_g), v1 = bb_g * t1;
  double tk = t1, worst = 0;
  char name[64];
  int k, rc;
  bb_n_bounce = bb_n_apex = 0;
  diagc_sim_options_init(&o);
  o.integrator = "radau5";
  o.accuracy = accuracy;
  sim = diagc_sim_create(&bb_model, &o);
  rc = diagc_sim_advance_to(sim, 3.0);
  diagc_sim_stats(sim, &st);
  for (k = 0; k < 6 && k < bb_n_bounce; k++) {
    worst = fmax(worst, fabs(bb_bounce_t[k] - tk));
    tk += 2 * pow(bb_e, k + 1) * v1 / bb_g;
  }
  snprintf(name, sizeof name, "radau5.witness.%g.bounce_times", accuracy);
  check(rc == 0 && bb_n_bounce >= 6 && worst < tol &&
            st.witness_triggers == bb_n_bounce + bb_n_apex,
        name, "rc %d bounces %d apexes %d triggers %lld, worst error %.3g",
        rc, bb_n_bounce, bb_n_apex, (long long)st.witness_triggers, worst);
  diagc_sim_destroy(sim);
}

int main(void) {
  order_test(0);
  order_test(1);
  stability_tests();
  accuracy_test();
  robertson_tests();
  vanderpol_test();
  jacobian_tests();
  fixed_step_failure();
  newton_gives_up();
  witness_test(1e-8, 1e-8);
  witness_test(1e-4, 1e-5);
  return check_exit();
}
