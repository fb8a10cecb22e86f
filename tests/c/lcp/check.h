/* check.h: what the LCP tests share: the ok/FAIL reporting (CHECK) and
 * ref_viol, the violation metric of docs/lcp.md (section 4) written from
 * the specification alone, independent of
 * diagc_lcp_violation.  Include it once per test program. */
#ifndef DIAGC_TESTS_LCP_CHECK_H
#define DIAGC_TESTS_LCP_CHECK_H
#include <math.h>
#include <stdio.h>

static int failures;

#define CHECK(name, cond, ...)                 \
  do {                                         \
    if (cond) {                                \
      printf("ok %s\n", name);                 \
    } else {                                   \
      printf("FAIL %s: ", name);               \
      printf(__VA_ARGS__);                     \
      printf("\n");                            \
      failures++;                              \
    }                                          \
  } while (0)

/* The reference metric, written from the specification alone. */
static double ref_viol(int n, const double *A, const double *b, const double *lo,
                       const double *hi, const int *fx, const double *x, double cfm) {
  const double t = 1e-7;
  double worst = 0.0;
  int i, k;
  for (i = 0; i < n; i++) {
    double w = -b[i] + cfm * x[i], L = lo[i], H = hi[i], r;
    for (k = 0; k < n; k++) w += A[i * n + k] * x[k];
    if (fx && fx[i] >= 0) {
      double xn = x[fx[i]];
      if (xn == 0.0) {
        L = 0.0, H = 0.0;
      } else {
        L = lo[i] * xn, H = hi[i] * xn;
        if (L > H) {
          double s = L;
          L = H, H = s;
        }
      }
    }
    if (x[i] != x[i] || w != w) return INFINITY;
    if (x[i] < L - t)
      r = L - x[i];
    else if (x[i] > H + t)
      r = x[i] - H;
    else if (H - L < t)
      r = 0.0;
    else if (fabs(x[i] - L) <= t && fabs(x[i] - L) <= fabs(H - x[i]))
      r = w < 0 ? -w : 0.0;
    else if (fabs(H - x[i]) <= t)
      r = w > 0 ? w : 0.0;
    else
      r = fabs(w);
    if (r > worst) worst = r;
  }
  return worst;
}

#endif
