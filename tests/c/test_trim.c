/* diagc_trim (diagc/trim.h) on the hand-written torque pendulum of
 * test_linearize.c (models/torque_pendulum.c: m l^2 theta'' = tau - m g l
 * sin theta - b theta'), under the sanitizers: the inverted equilibrium
 * from theta = 2.5 by the model's Jacobian and by differences; theta held
 * at 1 by a free torque (tau = m g l sin 1); an output target with more
 * equations than needed (Gauss-Newton); a point that does not exist, a zero
 * Jacobian; bad arguments; the context holds the point. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/trim.h"
#include "models/check.h"
#include "models/torque_pendulum.c"

static const double PI = 3.14159265358979323846;

static void test_inverted(int jacobian, const char *name) {
  tp_ctx c;
  diagc_trim_problem p;
  diagc_trim_result r;
  char err[300];
  tp_init(&c);
  c.xc[0] = 2.5;
  c.xc[1] = 0.4;
  diagc_trim_problem_init(&p);
  p.jacobian = jacobian;
  int rc = diagc_trim(&tp_model, &c, &p, &r, err, sizeof err);
  check(rc == DIAGC_OK && fabs(c.xc[0] - PI) < 1e-10 && fabs(c.xc[1]) < 1e-10 && r.residual <= 1e-10 &&
            r.used_fd == (jacobian == DIAGC_JACOBIAN_FD),
        name, "rc %d (%s) theta %.17g omega %g residual %g after %d", rc, err, c.xc[0], c.xc[1], r.residual,
        r.iterations);
}

static void test_held_by_torque(void) {
  tp_ctx c;
  diagc_trim_problem p;
  diagc_trim_result r;
  char err[300];
  const int free_cols[] = {1, 2}; /* omega, the torque (column nx + 0) */
  const int eq[] = {0, 1};
  tp_init(&c);
  c.xc[0] = 1.0;
  diagc_trim_problem_init(&p);
  p.n_free = 2, p.free = free_cols, p.n_eq = 2, p.eq = eq;
  int rc = diagc_trim(&tp_model, &c, &p, &r, err, sizeof err);
  double tau = TP_M * TP_G * TP_L * sin(1.0);
  check(rc == DIAGC_OK && fabs(c.u[0] - tau) < 1e-12 * tau && c.xc[0] == 1.0, "trim.held_by_torque",
        "rc %d (%s) tau %.17g, expected %.17g", rc, err, c.u[0], tau);
  /* the output theta (row nx + 0) at 0.7 with theta, omega and tau free,
     and the output both[0] = theta + omega (row nx + 1) at 0.7 too:
     four equations, three unknowns, consistent */
  const int free3[] = {0, 1, 2};
  const int eq5[] = {0, 1, 2, 3};
  const double tg[] = {0, 0, 0.7, 0.7};
  tp_init(&c);
  p.n_free = 3, p.free = free3, p.n_eq = 4, p.eq = eq5, p.target = tg;
  rc = diagc_trim(&tp_model, &c, &p, &r, err, sizeof err);
  tau = TP_M * TP_G * TP_L * sin(0.7);
  check(rc == DIAGC_OK && fabs(c.xc[0] - 0.7) < 1e-12 && fabs(c.u[0] - tau) < 1e-11 && r.residual <= 1e-10,
        "trim.gauss_newton", "rc %d (%s) theta %.17g tau %.17g", rc, err, c.xc[0], c.u[0]);
}

static void test_failures(void) {
  tp_ctx c;
  diagc_trim_problem p;
  diagc_trim_result r;
  char err[300];
  /* theta alone cannot give theta = 0.7 and omega' = 0 with tau = 0 */
  const int f0[] = {0};
  const int e0[] = {1, 2};
  const double t0[] = {0, 0.7};
  tp_init(&c);
  diagc_trim_problem_init(&p);
  p.n_free = 1, p.free = f0, p.n_eq = 2, p.eq = e0, p.target = t0;
  int rc = diagc_trim(&tp_model, &c, &p, &r, err, sizeof err);
  check(rc == DIAGC_TRIM_E_NO_POINT && strstr(err, "no trim point") != NULL && r.residual > 1e-3,
        "trim.no_point", "rc %d: %s", rc, err);
  /* the torque does not move theta' = omega: a zero Jacobian */
  const int f1[] = {2};
  const int e1[] = {0};
  const double t1[] = {1};
  tp_init(&c);
  p.n_free = 1, p.free = f1, p.n_eq = 1, p.eq = e1, p.target = t1;
  rc = diagc_trim(&tp_model, &c, &p, &r, err, sizeof err);
  check(rc == DIAGC_TRIM_E_SINGULAR && strstr(err, "d/dt p.theta") != NULL, "trim.zero_jacobian", "rc %d: %s", rc,
        err);
  /* bad arguments */
  const int out_of_range[] = {7};
  const int twice[] = {0, 0};
  p.n_free = 1, p.free = out_of_range, p.n_eq = 1, p.eq = e1, p.target = NULL;
  check(diagc_trim(&tp_model, &c, &p, &r, err, sizeof err) == DIAGC_LIN_E_ARG && strstr(err, "outside") != NULL,
        "trim.index_out_of_range", "%s", err);
  p.n_free = 2, p.free = twice;
  check(diagc_trim(&tp_model, &c, &p, &r, err, sizeof err) == DIAGC_LIN_E_ARG &&
            strstr(err, "p.theta is free twice") != NULL,
        "trim.free_twice", "%s", err);
  diagc_trim_problem_init(&p);
  p.tolerance = 0;
  check(diagc_trim(&tp_model, &c, &p, &r, err, sizeof err) == DIAGC_LIN_E_ARG, "trim.zero_tolerance", "%s", err);
  check(diagc_trim(NULL, &c, NULL, NULL, err, sizeof err) == DIAGC_LIN_E_ARG, "trim.null_model", "accepted");
  tp_init(&c);
  c.xc[0] = 0.3;
  check(diagc_trim(&tp_model, &c, NULL, NULL, NULL, 0) == DIAGC_OK && fabs(c.xc[0]) < 1e-10, "trim.defaults",
        "theta %g", c.xc[0]);
}

int main(void) {
  test_inverted(DIAGC_JACOBIAN_MODEL, "trim.inverted_model");
  test_inverted(DIAGC_JACOBIAN_FD, "trim.inverted_fd");
  test_held_by_torque();
  test_failures();
  return check_exit();
}
