/* The integrators: convergence order of every fixed-step method against
 * analytic solutions, accuracy of the error-controlled methods, stiffness
 * (implicit Euler), statistics and the progress hook. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/simulator.h"
#include "../../runtime/src/implicit.h"
#include "models/check.h"
#include "models/sim_run.h"
#include "models/decay.c"
#include "models/oscillator.c"

/* Runs osc_model to t_end; returns max(|q - cos t|, |v + sin t|), or NaN if
 * the run failed. */
static double osc_error(const char *integ, int error_control, double h,
                        double accuracy, double t_end,
                        diagc_sim_statistics *st) {
  diagc_sim_options o;
  diagc_sim *sim;
  const osc_ctx *c;
  double e = NAN;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.error_control = error_control;
  o.max_step = h;
  o.accuracy = accuracy;
  sim = diagc_sim_create(&osc_model, &o);
  if (!sim) return NAN;
  if (diagc_sim_advance_to(sim, t_end) == 0 && diagc_sim_time(sim) == t_end) {
    c = (const osc_ctx *)diagc_sim_context(sim);
    e = fabs(c->xc[0] - cos(t_end));
    if (fabs(c->xc[1] + sin(t_end)) > e) e = fabs(c->xc[1] + sin(t_end));
  }
  if (st) diagc_sim_stats(sim, st);
  diagc_sim_destroy(sim);
  return e;
}

/* The method's order: the least-squares slope of log(error) against
 * log(h) over h0, h0/2, h0/4, h0/8. */
static void order_test(const char *integ, double h0, double order) {
  double hs[4], es[4], slope;
  int k, ok = 1;
  char name[96], detail[200] = "";
  for (k = 0; k < 4; k++) {
    char part[40];
    hs[k] = h0 / (1 << k);
    es[k] = osc_error(integ, 0, hs[k], 1e-4, 1.0, NULL);
    if (!(es[k] > 0)) ok = 0;
    snprintf(part, sizeof part, " h=%g:%.3g", hs[k], es[k]);
    strncat(detail, part, sizeof detail - strlen(detail) - 1);
  }
  slope = order_slope(hs, es, 4);
  snprintf(name, sizeof name, "order.%s", integ);
  check(ok && fabs(slope - order) <= 0.2, name, "slope %.3f want %g;%s",
        slope, order, detail);
}

/* Error-controlled integration of the oscillator to t = 1 (maximum step 1)
 * meets the requested accuracy.  The accuracy bounds the error of each
 * step (as in Drake), so the bound on the global error is the accuracy
 * times the number of steps; the higher-order methods stay within twice
 * the accuracy.  A tighter accuracy gives a smaller error and more steps. */
static void accuracy_test(const char *integ, double acc, int per_step) {
  diagc_sim_statistics st, st2;
  char name[96];
  double e = osc_error(integ, 1, 1.0, acc, 1.0, &st);
  double e2 = osc_error(integ, 1, 1.0, acc / 100, 1.0, &st2);
  double b1 = per_step ? acc * (double)st.integrator_steps : 2 * acc;
  double b2 = per_step ? acc / 100 * (double)st2.integrator_steps : 2 * acc / 100;
  snprintf(name, sizeof name, "accuracy.%s.%g", integ, acc);
  check(e < b1 && e2 < b2 && e2 < e, name,
        "accuracy %g: error %g (bound %g, %lld steps); accuracy %g: error %g "
        "(bound %g)", acc, e, b1, (long long)st.integrator_steps, acc / 100,
        e2, b2);
  snprintf(name, sizeof name, "accuracy.%s.%g.adapts", integ, acc);
  check(st2.integrator_steps > st.integrator_steps &&
            st.smallest_step < st.largest_step && st.largest_step <= 1.0,
        name, "steps %lld then %lld, step range [%g, %g]",
        (long long)st.integrator_steps, (long long)st2.integrator_steps,
        st.smallest_step, st.largest_step);
}

static double run_decay_k(const char *integ, int error_control, double h,
                          double k, diagc_sim_statistics *st) {
  diagc_sim_options o;
  diagc_sim *sim;
  double x = NAN;
  decay_k = k;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.error_control = error_control;
  o.max_step = h;
  o.accuracy = 1e-4;
  sim = diagc_sim_create(&decay_model, &o);
  if (sim && diagc_sim_advance_to(sim, 1.0) == 0)
    x = ((const decay_ctx *)diagc_sim_context(sim))->xc[0];
  if (sim && st) diagc_sim_stats(sim, st);
  diagc_sim_destroy(sim);
  decay_k = 1.0;
  return x;
}

/* x' = -1000 x: explicit Euler with h = 0.01 is unstable (|1 - 10| > 1),
 * implicit Euler decays like the exact solution (e^-1000 ~ 0); with error
 * control, implicit Euler needs far fewer steps than RK3, whose steps are
 * limited by stability. */
static void stiff_test(void) {
  diagc_sim_statistics st_ie, st_rk;
  double xe = run_decay_k("explicit_euler", 0, 0.01, 1000, NULL);
  double xi = run_decay_k("implicit_euler", 0, 0.01, 1000, NULL);
  double xi2, xr;
  check(fabs(xe) > 1e10 && fabs(xi) < 1e-30, "stiff.implicit_euler_stable",
        "explicit %g implicit %g", xe, xi);
  xi2 = run_decay_k("implicit_euler", 1, 0.1, 1000, &st_ie);
  xr = run_decay_k("runge_kutta3", 1, 0.1, 1000, &st_rk);
  check(fabs(xi2) < 1e-4 && fabs(xr) < 1e-4 &&
            3 * st_ie.integrator_steps < st_rk.integrator_steps,
        "stiff.implicit_euler_fewer_steps",
        "implicit x %g steps %lld; rk3 x %g steps %lld", xi2,
        (long long)st_ie.integrator_steps, xr,
        (long long)st_rk.integrator_steps);
}

/* Implicit Euler on x' = -x with a fixed step reproduces the closed form
 * x_n = (1 + h)^-n (the problem is linear: Newton converges at once). */
static void implicit_closed_form(void) {
  double x = run_decay_k("implicit_euler", 0, 0.125, 1.0, NULL);
  double want = pow(1.125, -8);
  check(fabs(x - want) < 1e-12, "implicit_euler.closed_form",
        "x %.17g want %.17g", x, want);
}

/* Semi-explicit Euler on the oscillator is the symplectic map
 * v1 = v0 - h q0, q1 = q0 + h v1: compare with that recurrence. */
static void semi_explicit_recurrence(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  double q = 1, v = 0, h = 0.1;
  const osc_ctx *c;
  int k;
  diagc_sim_options_init(&o);
  o.integrator = "semi_explicit_euler";
  o.max_step = h;
  sim = diagc_sim_create(&osc_model, &o);
  diagc_sim_advance_to(sim, 1.0);
  for (k = 0; k < 10; k++) {
    v = v - h * q;
    q = q + h * v;
  }
  c = (const osc_ctx *)diagc_sim_context(sim);
  check(fabs(c->xc[0] - q) < 1e-12 && fabs(c->xc[1] - v) < 1e-12,
        "semi_explicit_euler.recurrence", "q %.17g (want %.17g) v %.17g (%.17g)",
        c->xc[0], q, c->xc[1], v);
  diagc_sim_destroy(sim);
}

/* Derivative evaluations of 8 fixed steps: bogacki_shampine3 reuses its
 * last stage as the next step's first (first same as last), so 4 + 7 * 3;
 * dormand_prince54 skips its error stage without error control. */
static void eval_counts(void) {
  static const struct {
    const char *name;
    int evals;
  } tab[] = {{"semi_explicit_euler", 16},
             {"bogacki_shampine3", 25},
             {"dormand_prince54", 48}};
  int i;
  for (i = 0; i < 3; i++) {
    diagc_sim_statistics st;
    char name[96];
    osc_error(tab[i].name, 0, 0.125, 1e-4, 1.0, &st);
    snprintf(name, sizeof name, "evals.%s", tab[i].name);
    check(st.integrator_steps == 8 &&
              st.derivative_evals == tab[i].evals,
          name, "steps %lld evals %lld", (long long)st.integrator_steps,
          (long long)st.derivative_evals);
  }
}

/* First same as last, checked against re-evaluation: a per-step
 * unrestricted update that writes the state back unchanged makes every
 * step start from a context the integrator did not leave (its stored last
 * stage is discarded and the first stage evaluated afresh), which must
 * not change a bit of the result; a model without mutable_xc (stages
 * copied in with set_xc) must not either.  Derivative evaluations: a
 * first-same-as-last method with s stages costs 1 + (s - 1) per attempt
 * when the last stage carries over, and a rejected attempt's retry reuses
 * the first stage at the restored start. */
static int touch_handler(void *ctx, void *state_buf) {
  (void)ctx;
  (void)state_buf; /* preloaded with the current state: unchanged */
  return DIAGC_SUCCEEDED;
}
static void touch_apply(void *ctx, const void *state_buf) {
  osc_set_state(ctx, state_buf);
}
static const diagc_event_desc touch_event = {
    "osc.touch", 0, DIAGC_TRIGGER_PER_STEP, DIAGC_UNRESTRICTED_UPDATE, 0, 0,
    touch_handler, touch_apply};

static int run_osc_model(const diagc_model *m, const char *integ,
                         double xc_out[2], diagc_sim_statistics *st) {
  diagc_sim_options o;
  diagc_sim *sim;
  int rc;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.accuracy = 1e-9;
  o.max_step = 10;
  o.initial_step = 0.5; /* too large: the first attempts are rejected */
  sim = diagc_sim_create(m, &o);
  if (!sim) return -100;
  rc = diagc_sim_advance_to(sim, 10.0);
  memcpy(xc_out, ((const osc_ctx *)diagc_sim_context(sim))->xc,
         2 * sizeof(double));
  diagc_sim_stats(sim, st);
  diagc_sim_destroy(sim);
  return rc;
}

static void fsal_test(const char *integ, int stages) {
  diagc_model touched = osc_model, copied = osc_model;
  diagc_sim_statistics a, b, c;
  double xa[2], xb[2], xc[2];
  char name[96];
  int ra, rb, rc;
  touched.n_events = 1;
  touched.events = &touch_event;
  copied.mutable_xc = NULL;
  ra = run_osc_model(&osc_model, integ, xa, &a);
  rb = run_osc_model(&touched, integ, xb, &b);
  rc = run_osc_model(&copied, integ, xc, &c);
  snprintf(name, sizeof name, "fsal.%s.bit_identical", integ);
  check(ra == 0 && rb == 0 && rc == 0 && memcmp(xa, xb, sizeof xa) == 0 &&
            memcmp(xa, xc, sizeof xa) == 0 &&
            a.integrator_steps == b.integrator_steps &&
            a.rejected_steps == b.rejected_steps &&
            b.unrestricted_updates == b.steps,
        name, "rc %d/%d/%d q %.17g / %.17g / %.17g steps %lld / %lld", ra,
        rb, rc, xa[0], xb[0], xc[0], (long long)a.integrator_steps,
        (long long)b.integrator_steps);
  snprintf(name, sizeof name, "fsal.%s.evals", integ);
  check(a.rejected_steps > 0 &&
            a.derivative_evals ==
                1 + (stages - 1) * (a.integrator_steps + a.rejected_steps) &&
            c.derivative_evals == a.derivative_evals &&
            b.derivative_evals ==
                b.integrator_steps +
                    (stages - 1) * (b.integrator_steps + b.rejected_steps),
        name, "steps %lld rejected %lld evals %lld (touched %lld)",
        (long long)a.integrator_steps, (long long)a.rejected_steps,
        (long long)a.derivative_evals, (long long)b.derivative_evals);
}

static int n_progress;
static double progress_t;
static void on_progress(void *user, double t) {
  (void)user;
  n_progress++;
  progress_t = t;
}

/* The progress hook is called once per simulator step with the time. */
static void progress_test(void) {
  diagc_sim *sim = diagc_sim_create(&osc_model, NULL);
  diagc_sim_statistics st;
  int rc;
  diagc_sim_set_progress_callback(sim, on_progress, NULL);
  rc = diagc_sim_advance_to(sim, 2.0);
  diagc_sim_stats(sim, &st);
  check(rc == 0 && n_progress == st.steps && progress_t == 2.0,
        "progress.per_step", "rc %d calls %d steps %lld last %g", rc,
        n_progress, (long long)st.steps, progress_t);
  diagc_sim_destroy(sim);
}

static void names_test(void) {
  static const char *const names[] = {
      "explicit_euler", "semi_explicit_euler", "runge_kutta2",
      "runge_kutta3",   "runge_kutta4",        "bogacki_shampine3",
      "dormand_prince54", "implicit_euler",      "radau3",
      "radau5"};
  int i, ok = 1;
  for (i = 0; i < 10; i++) ok &= diagc_integrator_known(names[i]);
  check(ok && !diagc_integrator_known("radau7"), "integrators.known",
        "a name is unknown or radau7 is known");
}

int main(void) {
  names_test();
  order_test("explicit_euler", 0.01, 1);
  order_test("semi_explicit_euler", 0.01, 1);
  order_test("implicit_euler", 0.01, 1);
  order_test("runge_kutta2", 0.02, 2);
  order_test("runge_kutta3", 0.05, 3);
  order_test("bogacki_shampine3", 0.05, 3);
  order_test("runge_kutta4", 0.1, 4);
  order_test("dormand_prince54", 0.2, 5);
  accuracy_test("runge_kutta3", 1e-4, 0);
  accuracy_test("bogacki_shampine3", 1e-4, 0);
  accuracy_test("dormand_prince54", 1e-4, 0);
  accuracy_test("dormand_prince54", 1e-8, 0);
  accuracy_test("implicit_euler", 1e-3, 1);
  accuracy_test("radau3", 1e-4, 0);
  accuracy_test("radau5", 1e-4, 0);
  accuracy_test("radau5", 1e-8, 0);
  stiff_test();
  implicit_closed_form();
  semi_explicit_recurrence();
  eval_counts();
  fsal_test("bogacki_shampine3", 4);
  fsal_test("dormand_prince54", 7);
  progress_test();
  return check_exit();
}
