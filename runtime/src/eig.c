/* eig.c: the eigenvalues of a small dense real matrix (diagc/linearize.h),
 * for `diagc linearize --eig`: reduction to upper Hessenberg form by
 * Gaussian elimination with pivoting (a similarity), then the Francis
 * double-shift QR iteration with deflation on negligible subdiagonal
 * entries and exceptional shifts after 10 and 20 iterations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/linearize.h"

#define A_(i, j) a[(size_t)(i) * (size_t)n + (size_t)(j)]

static void hessenberg(int n, double *a) {
  for (int m = 1; m < n - 1; m++) {
    double x = 0.0;
    int p = m;
    for (int j = m; j < n; j++)
      if (fabs(A_(j, m - 1)) > fabs(x)) x = A_(j, m - 1), p = j;
    if (p != m) {
      for (int j = m - 1; j < n; j++) { double t = A_(p, j); A_(p, j) = A_(m, j); A_(m, j) = t; }
      for (int j = 0; j < n; j++) { double t = A_(j, p); A_(j, p) = A_(j, m); A_(j, m) = t; }
    }
    if (x == 0.0) continue;
    for (int i = m + 1; i < n; i++) {
      double y = A_(i, m - 1);
      if (y == 0.0) continue;
      y /= x;
      A_(i, m - 1) = 0.0;
      for (int j = m; j < n; j++) A_(i, j) -= y * A_(m, j);
      for (int j = 0; j < n; j++) A_(j, m) += y * A_(j, i);
    }
  }
}

static double sign_of(double a, double b) { return b >= 0.0 ? fabs(a) : -fabs(a); }

/* the QR iteration on the Hessenberg a; -1 when it does not converge */
static int hqr(int n, double *a, double *wr, double *wi) {
  int nn = n - 1, l = 0;
  double anorm = 0.0, t = 0.0, p = 0.0, q = 0.0, r = 0.0, s, w, x, y, z;
  for (int i = 0; i < n; i++)
    for (int j = i > 0 ? i - 1 : 0; j < n; j++) anorm += fabs(A_(i, j));
  while (nn >= 0) {
    int its = 0;
    do {
      for (l = nn; l >= 1; l--) {
        s = fabs(A_(l - 1, l - 1)) + fabs(A_(l, l));
        if (s == 0.0) s = anorm;
        if (fabs(A_(l, l - 1)) + s == s) {
          A_(l, l - 1) = 0.0;
          break;
        }
      }
      x = A_(nn, nn);
      if (l == nn) { /* one root */
        wr[nn] = x + t;
        wi[nn--] = 0.0;
      } else {
        y = A_(nn - 1, nn - 1);
        w = A_(nn, nn - 1) * A_(nn - 1, nn);
        if (l == nn - 1) { /* two roots */
          p = 0.5 * (y - x);
          q = p * p + w;
          z = sqrt(fabs(q));
          x += t;
          if (q >= 0.0) {
            z = p + sign_of(z, p);
            wr[nn - 1] = wr[nn] = x + z;
            if (z != 0.0) wr[nn] = x - w / z;
            wi[nn - 1] = wi[nn] = 0.0;
          } else {
            wr[nn - 1] = wr[nn] = x + p;
            wi[nn - 1] = z;
            wi[nn] = -z;
          }
          nn -= 2;
        } else {
          int m, mmin;
          if (its == 60) return -1;
          if (its == 10 || its == 20) { /* exceptional shift */
            t += x;
            for (int i = 0; i <= nn; i++) A_(i, i) -= x;
            s = fabs(A_(nn, nn - 1)) + fabs(A_(nn - 1, nn - 2));
            y = x = 0.75 * s;
            w = -0.4375 * s * s;
          }
          ++its;
          for (m = nn - 2; m >= l; m--) {
            z = A_(m, m);
            r = x - z;
            s = y - z;
            p = (r * s - w) / A_(m + 1, m) + A_(m, m + 1);
            q = A_(m + 1, m + 1) - z - r - s;
            r = A_(m + 2, m + 1);
            s = fabs(p) + fabs(q) + fabs(r);
            p /= s;
            q /= s;
            r /= s;
            if (m == l) break;
            double u = fabs(A_(m, m - 1)) * (fabs(q) + fabs(r));
            double v = fabs(p) * (fabs(A_(m - 1, m - 1)) + fabs(z) + fabs(A_(m + 1, m + 1)));
            if (u + v == v) break;
          }
          for (int i = m + 2; i <= nn; i++) {
            A_(i, i - 2) = 0.0;
            if (i != m + 2) A_(i, i - 3) = 0.0;
          }
          for (int k = m; k <= nn - 1; k++) {
            if (k != m) {
              p = A_(k, k - 1);
              q = A_(k + 1, k - 1);
              r = 0.0;
              if (k != nn - 1) r = A_(k + 2, k - 1);
              if ((x = fabs(p) + fabs(q) + fabs(r)) != 0.0) {
                p /= x;
                q /= x;
                r /= x;
              }
            }
            if ((s = sign_of(sqrt(p * p + q * q + r * r), p)) != 0.0) {
              if (k == m) {
                if (l != m) A_(k, k - 1) = -A_(k, k - 1);
              } else {
                A_(k, k - 1) = -s * x;
              }
              p += s;
              x = p / s;
              y = q / s;
              z = r / s;
              q /= p;
              r /= p;
              for (int j = k; j <= nn; j++) {
                p = A_(k, j) + q * A_(k + 1, j);
                if (k != nn - 1) {
                  p += r * A_(k + 2, j);
                  A_(k + 2, j) -= p * z;
                }
                A_(k + 1, j) -= p * y;
                A_(k, j) -= p * x;
              }
              mmin = nn < k + 3 ? nn : k + 3;
              for (int i = l; i <= mmin; i++) {
                p = x * A_(i, k) + y * A_(i, k + 1);
                if (k != nn - 1) {
                  p += z * A_(i, k + 2);
                  A_(i, k + 2) -= p * r;
                }
                A_(i, k + 1) -= p * q;
                A_(i, k) -= p;
              }
            }
          }
        }
      }
    } while (nn >= 0 && l < nn - 1);
  }
  return 0;
}

int diagc_eigenvalues(int n, const double *A, double *re, double *im) {
  if (n < 0 || (n > 0 && (!A || !re || !im))) return DIAGC_LIN_E_ARG;
  if (n == 0) return DIAGC_OK;
  for (int i = 0; i < n * n; i++)
    if (!isfinite(A[i])) return DIAGC_LIN_E_ARG;
  double *a = malloc((size_t)n * (size_t)n * sizeof(double));
  if (!a) return DIAGC_LIN_E_NOMEM;
  memcpy(a, A, (size_t)n * (size_t)n * sizeof(double));
  hessenberg(n, a);
  int rc = hqr(n, a, re, im);
  free(a);
  if (rc != 0) return DIAGC_LIN_E_EVAL;
  /* a complex pair: the positive imaginary part first */
  for (int i = 0; i + 1 < n; i++)
    if (im[i] < 0.0 && im[i + 1] == -im[i] && re[i] == re[i + 1]) {
      im[i] = -im[i];
      im[i + 1] = -im[i + 1];
      i++;
    }
  return DIAGC_OK;
}
