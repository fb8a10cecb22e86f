/* diagc_linearize (diagc/linearize.h) on a hand-written torque pendulum
 * with an analytic d(xcdot, y) / d(xc, u): A, B, C, D at the bottom
 * equilibrium against the analytic values, from the model's Jacobian and
 * by central differences; the equilibrium check and its message;
 * first_order_taylor's affine terms; port selection; the caller's context
 * left unchanged; bad arguments; the discrete-state refusal. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/linearize.h"
#include "models/check.h"
#include "models/decay.c"
#include "models/example_discrete.c"
#include "models/torque_pendulum.c"

#define ML2 (TP_M * TP_L * TP_L)

typedef struct lin_out {
  double A[4], B[2], C[6], D[3], f0[2], y0[3], x0[2], u0[1];
  diagc_linear_system s;
} lin_out;

static void out_init(lin_out *o, int nx, int nu, int ny) {
  memset(o, 0, sizeof *o);
  o->s.nx = nx, o->s.nu = nu, o->s.ny = ny;
  o->s.A = o->A, o->s.B = o->B, o->s.C = o->C, o->s.D = o->D;
  o->s.f0 = o->f0, o->s.y0 = o->y0, o->s.x0 = o->x0, o->s.u0 = o->u0;
}

static double maxdiff(const double *a, const double *b, int n) {
  double d = 0;
  for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static void test_bottom(int jacobian, const char *name) {
  tp_ctx c;
  lin_out o;
  diagc_linearize_options opt;
  char err[256];
  diagc_linearize_options_init(&opt);
  opt.jacobian = jacobian;
  tp_model.init(&c);
  tp_ctx before = c;
  out_init(&o, 2, 1, 3);
  int rc = diagc_linearize(&tp_model, &c, &opt, &o.s, err, sizeof err);
  double A[] = {0, 1, -TP_G / TP_L, -TP_B / ML2}, B[] = {0, 1 / ML2};
  double C[] = {1, 0, 1, 1, 0, 0}, D[] = {0, 0, 0};
  double tol = jacobian == DIAGC_JACOBIAN_MODEL ? 1e-15 : 1e-8;
  check(rc == DIAGC_OK && maxdiff(o.A, A, 4) < tol && maxdiff(o.B, B, 2) < tol &&
            maxdiff(o.C, C, 6) < tol && maxdiff(o.D, D, 3) < tol,
        name, "rc %d (%s), A %g %g %g %g", rc, err, o.A[0], o.A[1], o.A[2], o.A[3]);
  check(memcmp(&before.xc, &c.xc, sizeof c.xc) == 0 && memcmp(&before.u, &c.u, sizeof c.u) == 0,
        jacobian == DIAGC_JACOBIAN_MODEL ? "linearize.context_unchanged_model" : "linearize.context_unchanged_fd",
        "state or input changed");
}

static void test_not_equilibrium(void) {
  tp_ctx c;
  lin_out o;
  char err[256];
  tp_model.init(&c);
  c.xc[0] = 0.3;
  out_init(&o, 2, 1, 3);
  int rc = diagc_linearize(&tp_model, &c, NULL, &o.s, err, sizeof err);
  check(rc == DIAGC_LIN_E_EQUILIBRIUM && strstr(err, "p.omega") != NULL, "linearize.not_an_equilibrium",
        "rc %d: %s", rc, err);
}

static void test_taylor(void) {
  tp_ctx c;
  lin_out o;
  diagc_linearize_options opt;
  char err[256];
  double th = 0.7, om = -0.4, u = 0.25;
  diagc_linearize_options_init(&opt);
  opt.mode = DIAGC_FIRST_ORDER_TAYLOR;
  tp_model.init(&c);
  c.xc[0] = th, c.xc[1] = om, c.u[0] = u;
  out_init(&o, 2, 1, 3);
  int rc = diagc_linearize(&tp_model, &c, &opt, &o.s, err, sizeof err);
  double a21 = -TP_G / TP_L * cos(th), a22 = -TP_B / ML2;
  double vdot = (u - TP_M * TP_G * TP_L * sin(th) - TP_B * om) / ML2;
  double f0[] = {0, vdot - a21 * th - a22 * om - u / ML2};
  /* y = (theta, theta + omega, u theta): y0 = y(x0, u0) - C x0 - D u0 */
  double y0[] = {0, 0, u * th - u * th - th * u};
  check(rc == DIAGC_OK && maxdiff(o.f0, f0, 2) < 1e-12 && maxdiff(o.y0, y0, 3) < 1e-12, "linearize.taylor",
        "rc %d (%s), f0 %g %g, y0 %g %g %g", rc, err, o.f0[0], o.f0[1], o.y0[0], o.y0[1], o.y0[2]);
}

static void test_ports(void) {
  tp_ctx c;
  lin_out o;
  diagc_linearize_options opt;
  char err[256];
  int nx, nu, ny;
  diagc_linearize_options_init(&opt);
  opt.output = 1; /* "both" */
  tp_model.init(&c);
  check(diagc_linearize_sizes(&tp_model, &opt, &nx, &nu, &ny) == DIAGC_OK && nx == 2 && nu == 1 && ny == 2,
        "linearize.sizes", "%d %d %d", nx, nu, ny);
  out_init(&o, 2, 1, 2);
  int rc = diagc_linearize(&tp_model, &c, &opt, &o.s, err, sizeof err);
  double C[] = {1, 1, 0, 0};
  check(rc == DIAGC_OK && maxdiff(o.C, C, 4) == 0, "linearize.chosen_output", "rc %d (%s)", rc, err);
  opt.output = 2;
  check(diagc_linearize_sizes(&tp_model, &opt, &nx, &nu, &ny) == DIAGC_LIN_E_ARG, "linearize.bad_port", "accepted");
  opt.output = DIAGC_LIN_NONE;
  opt.input = DIAGC_LIN_NONE;
  out_init(&o, 2, 1, 0);
  rc = diagc_linearize(&tp_model, &c, &opt, &o.s, err, sizeof err);
  check(rc == DIAGC_LIN_E_ARG && strstr(err, "sizes") != NULL, "linearize.size_mismatch", "rc %d: %s", rc, err);
}

static void test_refusals(void) {
  double ctx[512];
  char err[256];
  lin_out o;
  out_init(&o, example_discrete_model.nxc, 0, 0);
  example_discrete_model.init(ctx);
  diagc_linearize_options opt;
  diagc_linearize_options_init(&opt);
  opt.input = opt.output = DIAGC_LIN_NONE;
  opt.jacobian = DIAGC_JACOBIAN_FD;
  int rc = diagc_linearize(&example_discrete_model, ctx, &opt, &o.s, err, sizeof err);
  check(rc == DIAGC_LIN_E_MODEL && strstr(err, "purely continuous") != NULL, "linearize.refuses_discrete",
        "rc %d: %s", rc, err);
  /* decay has no generated Jacobian: MODEL is refused, FD works */
  decay_model.init(ctx);
  out_init(&o, 1, 0, 0);
  opt.jacobian = DIAGC_JACOBIAN_MODEL;
  opt.mode = DIAGC_FIRST_ORDER_TAYLOR;
  rc = diagc_linearize(&decay_model, ctx, &opt, &o.s, err, sizeof err);
  check(rc == DIAGC_LIN_E_MODEL, "linearize.no_jacobian", "rc %d: %s", rc, err);
  opt.jacobian = DIAGC_JACOBIAN_FD;
  rc = diagc_linearize(&decay_model, ctx, &opt, &o.s, err, sizeof err);
  check(rc == DIAGC_OK && fabs(o.A[0] + decay_k) < 1e-9, "linearize.fd_without_jacobian", "rc %d: %s A %g", rc,
        err, o.A[0]);
  check(diagc_linearize(NULL, ctx, &opt, &o.s, err, sizeof err) == DIAGC_LIN_E_ARG, "linearize.null_model", "accepted");
}

int main(void) {
  test_bottom(DIAGC_JACOBIAN_MODEL, "linearize.bottom_model");
  test_bottom(DIAGC_JACOBIAN_FD, "linearize.bottom_fd");
  test_not_equilibrium();
  test_taylor();
  test_ports();
  test_refusals();
  return check_exit();
}
