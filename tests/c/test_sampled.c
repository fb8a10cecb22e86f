/* diagc_linearize of a sampled loop (a continuous double integrator under
 * a discrete PD law, models/sampled_pd.c) under the sanitizers: A, B, C, D
 * against the hand ZOH discretization (Phi = [[1, h], [0, 1]], Gamma =
 * [h^2/2, h]: A = [[Phi - Gamma K, 0], [-K, 0]], B = [[Gamma kp], [kp]])
 * to 1e-12 from the model's Jacobians and 1e-8 by central differences;
 * the eigenvalues against the roots of z^2 - tr z + det; the refusals
 * (first_order_taylor, not an equilibrium); trim of the loop. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/linearize.h"
#include "diagc/trim.h"
#include "models/check.h"
#include "models/sampled_pd.c"

typedef struct out3 {
  double A[9], B[3], C[3], D[1], f0[3], y0[1], x0[3], u0[1];
  diagc_linear_system s;
} out3;

static void out_init(out3 *o) {
  memset(o, 0, sizeof *o);
  o->s.nx = 3, o->s.nu = 1, o->s.ny = 1;
  o->s.A = o->A, o->s.B = o->B, o->s.C = o->C, o->s.D = o->D;
  o->s.f0 = o->f0, o->s.y0 = o->y0, o->s.x0 = o->x0, o->s.u0 = o->u0;
}

static const double H = SP_H, KP = SP_KP, KD = SP_KD;

static void hand(double *A, double *B) {
  const double g1 = H * H / 2, g2 = H;
  const double a[9] = {1 - g1 * KP, H - g1 * KD, 0, -g2 * KP, 1 - g2 * KD, 0, -KP, -KD, 0};
  const double b[3] = {g1 * KP, g2 * KP, KP};
  memcpy(A, a, sizeof a);
  memcpy(B, b, sizeof b);
}

static double maxdiff(const double *a, const double *b, int n) {
  double d = 0;
  for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static void test_matrices(int jacobian, double tol, const char *name) {
  sp_ctx c;
  out3 o;
  diagc_linearize_options opt;
  char err[300];
  double A[9], B[3];
  int nx, nu, ny;
  sp_init(&c);
  diagc_linearize_options_init(&opt);
  opt.jacobian = jacobian;
  diagc_linearize_sizes(&sp_model, &opt, &nx, &nu, &ny);
  out_init(&o);
  int rc = diagc_linearize(&sp_model, &c, &opt, &o.s, err, sizeof err);
  hand(A, B);
  const double C[3] = {1, 0, 0};
  check(nx == 3 && nu == 1 && ny == 1 && rc == DIAGC_OK && o.s.time_period == H && maxdiff(o.A, A, 9) <= tol &&
            maxdiff(o.B, B, 3) <= tol && maxdiff(o.C, C, 3) == 0 && o.D[0] == 0,
        name, "rc %d (%s) sizes %d %d %d, A off by %g, B by %g", rc, err, nx, nu, ny, maxdiff(o.A, A, 9),
        maxdiff(o.B, B, 3));
  if (jacobian != DIAGC_JACOBIAN_MODEL) return;
  double re[3], im[3];
  rc = diagc_eigenvalues(3, o.A, re, im);
  double tr = A[0] + A[4], det = A[0] * A[4] - A[1] * A[3], q = sqrt(tr * tr - 4 * det);
  double z1 = (tr + q) / 2, z2 = (tr - q) / 2;
  int found = 0;
  for (int i = 0; i < 3; i++)
    found += (fabs(re[i] - z1) < 1e-12 || fabs(re[i] - z2) < 1e-12 || fabs(re[i]) < 1e-12) && fabs(im[i]) < 1e-12;
  check(rc == DIAGC_OK && found == 3, "sampled.eigenvalues", "rc %d: %g %g %g, expected %g %g 0", rc, re[0], re[1],
        re[2], z1, z2);
}

static void test_refusals(void) {
  sp_ctx c;
  out3 o;
  diagc_linearize_options opt;
  char err[300];
  sp_init(&c);
  diagc_linearize_options_init(&opt);
  opt.mode = DIAGC_FIRST_ORDER_TAYLOR;
  out_init(&o);
  int rc = diagc_linearize(&sp_model, &c, &opt, &o.s, err, sizeof err);
  check(rc == DIAGC_LIN_E_MODEL && strstr(err, "sampled loop") != NULL, "sampled.refuses_taylor", "rc %d: %s", rc,
        err);
  diagc_linearize_options_init(&opt);
  c.xc[0] = 0.5;
  rc = diagc_linearize(&sp_model, &c, &opt, &o.s, err, sizeof err);
  check(rc == DIAGC_LIN_E_EQUILIBRIUM && strstr(err, "pd.u[n+1] - pd.u[n] = -1") != NULL,
        "sampled.not_an_equilibrium", "rc %d: %s", rc, err);
}

static void test_trim(void) {
  sp_ctx c;
  diagc_trim_result r;
  char err[300];
  sp_init(&c);
  c.r[0] = 0.25;
  c.xc[1] = 1.0;
  int rc = diagc_trim(&sp_model, &c, NULL, &r, err, sizeof err);
  check(rc == DIAGC_OK && fabs(c.xc[0] - 0.25) < 1e-12 && fabs(c.xc[1]) < 1e-12 && fabs(c.xd[0]) < 1e-12,
        "sampled.trim", "rc %d (%s) x %g v %g u %g", rc, err, c.xc[0], c.xc[1], c.xd[0]);
}

int main(void) {
  test_matrices(DIAGC_JACOBIAN_MODEL, 1e-12, "sampled.model_matches_hand");
  test_matrices(DIAGC_JACOBIAN_FD, 1e-8, "sampled.fd_matches_hand");
  test_refusals();
  test_trim();
  return check_exit();
}
