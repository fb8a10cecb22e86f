/* Tests of diagc_contact_classify (diagc/world.h): each threshold of the
 * row classification (impulse column norm 1e-9, zero impulse 1e-6, inside
 * the bounds by 1e-5, outside by 1e-2), on one contact of a point mass
 * (nv = 3, M^-1 J^T = I / m), with values on both sides of each threshold. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "diagc/world.h"

static const char *NAME[3] = {"not_clamping", "clamping", "upper_bound"};

/* classes of one contact with impulses (xn, t1, t2), friction mu, and the
 * column scale s of M^-1 J^T (s I) */
static void classify(double xn, double t1, double t2, double mu, double s, int cls[3]) {
  double MJ[9] = {s, 0, 0, 0, s, 0, 0, 0, s}, x[3] = {xn, t1, t2};
  int rc = diagc_contact_classify(3, 1, MJ, x, &mu, cls);
  if (rc < 0) cls[0] = cls[1] = cls[2] = -1;
}

static void expect(const char *name, double xn, double t1, double mu, double s, int cn, int ct) {
  int cls[3];
  classify(xn, t1, 0.0, mu, s, cls);
  check(cls[0] == cn && cls[1] == ct, name, "normal %s (want %s), t1 %s (want %s)",
        cls[0] >= 0 ? NAME[cls[0]] : "error", NAME[cn], cls[1] >= 0 ? NAME[cls[1]] : "error", NAME[ct]);
}

int main(void) {
  const int N = DIAGC_ROW_NOT_CLAMPING, C = DIAGC_ROW_CLAMPING, U = DIAGC_ROW_UPPER_BOUND;
  int cls[3], rc;
  (void)sleep_us;
  /* column norm: 1e-9 */
  expect("classify.column_below_1e-9", 1.0, 0.1, 0.5, 0.9e-9, N, N);
  expect("classify.column_above_1e-9", 1.0, 0.1, 0.5, 1.1e-9, C, C);
  /* zero impulse: 1e-6 (sticking when the normal pushes) */
  expect("classify.normal_below_1e-6", 0.9e-6, 0.0, 0.5, 1.0, N, N);
  expect("classify.sticking_friction_zero", 1.0, 0.9e-6, 0.5, 1.0, C, C);
  expect("classify.friction_zero_normal_zero", 0.5e-6, 0.0, 0.5, 1.0, N, N);
  /* inside the bounds by 1e-5 */
  expect("classify.normal_inside_by_more_than_1e-5", 2e-5, 0.0, 0.5, 1.0, C, C);
  expect("classify.normal_within_1e-5_of_zero", 5e-6, 0.0, 0.5, 1.0, N, C);
  expect("classify.friction_inside", 1.0, 0.5 - 2e-5, 0.5, 1.0, C, C);
  expect("classify.friction_at_upper_bound", 1.0, 0.5 - 5e-6, 0.5, 1.0, C, U);
  expect("classify.friction_at_lower_bound", 1.0, -0.5 + 5e-6, 0.5, 1.0, C, U);
  /* outside by 1e-2 */
  expect("classify.friction_outside_by_less_than_1e-2", 1.0, 0.5 + 0.5e-2, 0.5, 1.0, C, U);
  expect("classify.friction_outside_by_more_than_1e-2", 1.0, 0.5 + 2e-2, 0.5, 1.0, C, C);
  expect("classify.normal_outside_by_more_than_1e-2", -2e-2, 0.0, 0.5, 1.0, C, C);
  /* at its bound with a normal not clamping: not clamping */
  expect("classify.friction_at_bound_normal_not_clamping", 8e-6, 0.5 * 8e-6 + 2e-6, 0.5, 1.0, N, N);
  /* the return value counts clamping rows; bad input is an error */
  {
    double MJ[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, x[3] = {1.0, 0.0, 0.5}, mu = 0.5;
    rc = diagc_contact_classify(3, 1, MJ, x, &mu, cls);
    check(rc == 2 && cls[2] == U, "classify.count", "rc %d cls %d %d %d", rc, cls[0], cls[1], cls[2]);
    x[1] = NAN;
    check(diagc_contact_classify(3, 1, MJ, x, &mu, cls) == DIAGC_CONTACT_E_ARG, "classify.nan_rejected", "%s", "");
    x[1] = 0.0, mu = -1.0;
    check(diagc_contact_classify(3, 1, MJ, x, &mu, cls) == DIAGC_CONTACT_E_ARG, "classify.negative_mu", "%s", "");
    check(diagc_contact_classify(3, 0, NULL, NULL, NULL, NULL) == 0, "classify.no_contacts", "%s", "");
  }
  return failures ? 1 : 0;
}
