/* test_expm.c: diagc_expm against analytic exponentials (a rotation, a
 * nilpotent block and the ZOH augmented double integrator, a diagonal
 * matrix whose norm forces squaring, a 2 x 2 with distinct real
 * eigenvalues), and diagc_eigenvalues against known spectra (real,
 * complex pairs, a companion matrix of a known polynomial, a 12 x 12
 * permutation: the 12th roots of unity). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "diagc/linearize.h"

static double maxdiff(int n, const double *a, const double *b) {
  double d = 0.0;
  for (int i = 0; i < n * n; i++) {
    double s = fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i]));
    if (s > d) d = s;
  }
  return d;
}

static void test_expm(void) {
  double E[16] = {0};
  /* rotation: exp([[0, w], [-w, 0]] t) = [[cos, sin], [-sin, cos]] */
  const double w = 7.0, t = 1.3;
  double A[4] = {0, w * t, -w * t, 0}, R[4] = {cos(w * t), sin(w * t), -sin(w * t), cos(w * t)};
  check(diagc_expm(2, A, E) == DIAGC_OK && maxdiff(2, E, R) < 1e-13, "expm.rotation", "diff %g",
        maxdiff(2, E, R));
  /* the ZOH of a double integrator driven by u: exp(h [[0,1,0],[0,0,1],[0,0,0]]) */
  const double h = 0.25;
  double Z[9] = {0, h, 0, 0, 0, h, 0, 0, 0}, ZE[9] = {1, h, h * h / 2, 0, 1, h, 0, 0, 1};
  check(diagc_expm(3, Z, E) == DIAGC_OK && maxdiff(3, E, ZE) < 1e-15, "expm.zoh_double_integrator", "diff %g",
        maxdiff(3, E, ZE));
  /* diagonal with a large norm (squarings) */
  double D[9] = {-50, 0, 0, 0, 3, 0, 0, 0, 0.5}, DE[9] = {exp(-50), 0, 0, 0, exp(3), 0, 0, 0, exp(0.5)};
  int rc = diagc_expm(3, D, E);
  check(rc == DIAGC_OK && fabs(E[0] - DE[0]) < 1e-30 && fabs(E[4] / DE[4] - 1) < 1e-13 &&
            fabs(E[8] / DE[8] - 1) < 1e-14 && E[1] == 0 && E[3] == 0,
        "expm.diagonal_scaled", "rc %d E %g %g %g", rc, E[0], E[4], E[8]);
  /* [[a, 1], [0, b]]: exp = [[e^a, (e^a - e^b)/(a - b)], [0, e^b]] */
  const double a = -1.5, b = 2.0;
  double T[4] = {a, 1, 0, b}, TE[4] = {exp(a), (exp(a) - exp(b)) / (a - b), 0, exp(b)};
  check(diagc_expm(2, T, E) == DIAGC_OK && maxdiff(2, E, TE) < 1e-14, "expm.triangular", "diff %g",
        maxdiff(2, E, TE));
  double bad[1] = {NAN};
  check(diagc_expm(1, bad, E) == DIAGC_LIN_E_ARG, "expm.nonfinite", "accepted");
  check(diagc_expm(0, NULL, NULL) == DIAGC_OK, "expm.empty", "refused");
}

static int has(int n, const double *re, const double *im, double r, double i, double tol) {
  for (int k = 0; k < n; k++)
    if (fabs(re[k] - r) < tol && fabs(im[k] - i) < tol) return 1;
  return 0;
}

static void test_eig(void) {
  double re[12], im[12];
  /* the damped pendulum's A: -0.05 +- i sqrt(9.81 - 0.0025) */
  double P[4] = {0, 1, -9.81, -0.1};
  double wd = sqrt(9.81 - 0.0025);
  int rc = diagc_eigenvalues(2, P, re, im);
  check(rc == DIAGC_OK && has(2, re, im, -0.05, wd, 1e-14) && has(2, re, im, -0.05, -wd, 1e-14) && im[0] > 0,
        "eig.complex_pair", "rc %d %g%+gi %g%+gi", rc, re[0], im[0], re[1], im[1]);
  /* the companion matrix of (s - 1)(s - 2)(s + 3)(s - 0.5) =
     s^4 - 0.5 s^3 - 7 s^2 + 9.5 s - 3 */
  double C[16] = {0.5, 7, -9.5, 3, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  rc = diagc_eigenvalues(4, C, re, im);
  check(rc == DIAGC_OK && has(4, re, im, 1, 0, 1e-12) && has(4, re, im, 2, 0, 1e-12) &&
            has(4, re, im, -3, 0, 1e-12) && has(4, re, im, 0.5, 0, 1e-12),
        "eig.companion_real", "rc %d %g %g %g %g", rc, re[0], re[1], re[2], re[3]);
  /* the cyclic permutation of 12: the 12th roots of unity */
  double Q[144] = {0};
  for (int i = 0; i < 12; i++) Q[i * 12 + (i + 1) % 12] = 1.0;
  rc = diagc_eigenvalues(12, Q, re, im);
  int all = rc == DIAGC_OK;
  for (int k = 0; k < 12 && all; k++)
    all = has(12, re, im, cos(2 * 3.14159265358979323846 * k / 12), sin(2 * 3.14159265358979323846 * k / 12), 1e-12);
  check(all, "eig.roots_of_unity", "rc %d", rc);
  /* upper triangular: the diagonal */
  double U[9] = {4, 1, 2, 0, -1, 5, 0, 0, 0.25};
  rc = diagc_eigenvalues(3, U, re, im);
  check(rc == DIAGC_OK && has(3, re, im, 4, 0, 1e-14) && has(3, re, im, -1, 0, 1e-14) &&
            has(3, re, im, 0.25, 0, 1e-14),
        "eig.triangular", "rc %d", rc);
  double bad[1] = {INFINITY};
  check(diagc_eigenvalues(1, bad, re, im) == DIAGC_LIN_E_ARG, "eig.nonfinite", "accepted");
}

int main(void) {
  (void)sleep_us;
  test_expm();
  test_eig();
  return failures != 0;
}
