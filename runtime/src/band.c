/* Banded linear algebra for the Radau methods' iteration matrices: a
 * bandwidth-reducing ordering of the states (reverse Cuthill-McKee on the
 * nonzeros of J, symmetrized) and an LU with partial pivoting that
 * touches only the band of a dense row-major matrix (LAPACK's dgbtf2
 * scheme: with kl sub- and ku super-diagonals, U gets kl + ku).  A chain
 * of masses, whose J couples only neighbours, becomes a narrow band; a
 * dense J gives kl = ku = n - 1, the plain dense LU.  No allocation: the
 * caller provides the work arrays. */
#include <math.h>

#include "sim_internal.h"

static int nonzero(const double *jac, int n, int i, int j) {
  return jac[(size_t)i * n + j] != 0 || jac[(size_t)j * n + i] != 0;
}

/* deg[i] = neighbours of i (i excluded) in the symmetrized pattern. */
static void degrees(const double *jac, int n, int *deg) {
  int i, j;
  for (i = 0; i < n; i++) {
    deg[i] = 0;
    for (j = 0; j < n; j++)
      if (j != i && nonzero(jac, n, i, j)) deg[i]++;
  }
}

/* Appends i's unvisited neighbours to order[*len], by increasing degree. */
static void visit(const double *jac, int n, int i, const int *deg, int *inv,
                  int *order, int *len) {
  int j, first = *len, k;
  for (j = 0; j < n; j++) {
    if (j == i || inv[j] >= 0 || !nonzero(jac, n, i, j)) continue;
    inv[j] = 1;
    k = (*len)++;
    while (k > first && deg[order[k - 1]] > deg[j]) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = j;
  }
}

void diagc_band_order(const double *jac, int n, int *perm, int *inv,
                      int *deg, int *kl, int *ku) {
  int i, j, len = 0, head = 0;
  degrees(jac, n, deg);
  for (i = 0; i < n; i++) inv[i] = -1;
  while (len < n) {
    int start = -1; /* each component from its least connected state */
    for (i = 0; i < n; i++)
      if (inv[i] < 0 && (start < 0 || deg[i] < deg[start])) start = i;
    inv[start] = 1;
    perm[len++] = start;
    while (head < len) visit(jac, n, perm[head++], deg, inv, perm, &len);
  }
  for (i = 0; i < n / 2; i++) { /* reversed */
    const int t = perm[i];
    perm[i] = perm[n - 1 - i];
    perm[n - 1 - i] = t;
  }
  for (i = 0; i < n; i++) inv[perm[i]] = i;
  *kl = *ku = 0;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      const int d = inv[i] - inv[j];
      if (jac[(size_t)i * n + j] == 0) continue;
      if (d > *kl) *kl = d;
      if (-d > *ku) *ku = -d;
    }
}

static int imin(int a, int b) { return a < b ? a : b; }

int diagc_band_lu_factor(double *a, int n, int kl, int ku, int *piv) {
  int i, j, k;
  for (k = 0; k < n; k++) {
    const int last = imin(n - 1, k + kl), jend = imin(n - 1, k + kl + ku);
    int p = k;
    double best = fabs(a[(size_t)k * n + k]), piv_v;
    for (i = k + 1; i <= last; i++)
      if (fabs(a[(size_t)i * n + k]) > best) {
        best = fabs(a[(size_t)i * n + k]);
        p = i;
      }
    piv[k] = p;
    if (!(best > 0) || !isfinite(best)) return -1;
    if (p != k)
      for (j = k; j <= jend; j++) {
        const double t = a[(size_t)k * n + j];
        a[(size_t)k * n + j] = a[(size_t)p * n + j];
        a[(size_t)p * n + j] = t;
      }
    piv_v = a[(size_t)k * n + k];
    for (i = k + 1; i <= last; i++) {
      double *row = a + (size_t)i * n;
      const double *prow = a + (size_t)k * n;
      const double l = row[k] / piv_v;
      row[k] = l;
      if (l != 0)
        for (j = k + 1; j <= jend; j++) row[j] -= l * prow[j];
    }
  }
  return 0;
}

void diagc_band_lu_solve(const double *a, int n, int kl, int ku,
                         const int *piv, double *b) {
  int i, j, k;
  for (k = 0; k < n; k++) {
    const int p = piv[k], last = imin(n - 1, k + kl);
    double bk;
    if (p != k) {
      const double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    bk = b[k];
    if (bk != 0)
      for (i = k + 1; i <= last; i++) b[i] -= a[(size_t)i * n + k] * bk;
  }
  for (i = n - 1; i >= 0; i--) {
    const int jend = imin(n - 1, i + kl + ku);
    const double *row = a + (size_t)i * n;
    double acc = b[i];
    for (j = i + 1; j <= jend; j++) acc -= row[j] * b[j];
    b[i] = acc / row[i];
  }
}

/* ---- the complex banded LU (radau5's complex matrix): the layout above,
 * each entry a pair ---------------------------------------------------- */

/* LU with partial pivoting of the n x n row-major complex a (entry (i, j)
 * at a[2 (i n + j)], its imaginary part next), kl sub- and ku
 * super-diagonals; 0 or -1 if singular. */
int diagc_cband_lu_factor(double *a, int n, int kl, int ku, int *piv) {
  int i, j, k;
  for (k = 0; k < n; k++) {
    const int last = imin(n - 1, k + kl), jend = imin(n - 1, k + kl + ku);
    double *pk = a + 2 * (size_t)k * n;
    double best = fabs(pk[2 * k]) + fabs(pk[2 * k + 1]), pr, pi, d;
    int p = k;
    for (i = k + 1; i <= last; i++) {
      const double *e = a + 2 * ((size_t)i * n + k);
      const double v = fabs(e[0]) + fabs(e[1]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    piv[k] = p;
    if (!(best > 0) || !isfinite(best)) return -1;
    if (p != k) {
      double *pp = a + 2 * (size_t)p * n;
      for (j = 2 * k; j <= 2 * jend + 1; j++) {
        const double t = pk[j];
        pk[j] = pp[j];
        pp[j] = t;
      }
    }
    /* 1 / pivot */
    d = pk[2 * k] * pk[2 * k] + pk[2 * k + 1] * pk[2 * k + 1];
    pr = pk[2 * k] / d;
    pi = -pk[2 * k + 1] / d;
    for (i = k + 1; i <= last; i++) {
      double *row = a + 2 * (size_t)i * n;
      const double lr = row[2 * k] * pr - row[2 * k + 1] * pi;
      const double li = row[2 * k] * pi + row[2 * k + 1] * pr;
      row[2 * k] = lr;
      row[2 * k + 1] = li;
      if (lr == 0 && li == 0) continue;
      for (j = k + 1; j <= jend; j++) {
        const double ur = pk[2 * j], ui = pk[2 * j + 1];
        row[2 * j] -= lr * ur - li * ui;
        row[2 * j + 1] -= lr * ui + li * ur;
      }
    }
  }
  return 0;
}

/* Solves LU y = b in place (b: n complex pairs). */
void diagc_cband_lu_solve(const double *a, int n, int kl, int ku,
                          const int *piv, double *b) {
  int i, j, k;
  for (k = 0; k < n; k++) {
    const int p = piv[k], last = imin(n - 1, k + kl);
    double br, bi;
    if (p != k) {
      double t = b[2 * k];
      b[2 * k] = b[2 * p];
      b[2 * p] = t;
      t = b[2 * k + 1];
      b[2 * k + 1] = b[2 * p + 1];
      b[2 * p + 1] = t;
    }
    br = b[2 * k];
    bi = b[2 * k + 1];
    if (br == 0 && bi == 0) continue;
    for (i = k + 1; i <= last; i++) {
      const double *l = a + 2 * ((size_t)i * n + k);
      b[2 * i] -= l[0] * br - l[1] * bi;
      b[2 * i + 1] -= l[0] * bi + l[1] * br;
    }
  }
  for (i = n - 1; i >= 0; i--) {
    const int jend = imin(n - 1, i + kl + ku);
    const double *row = a + 2 * (size_t)i * n;
    double ar = b[2 * i], ai = b[2 * i + 1], dr, di, d;
    for (j = i + 1; j <= jend; j++) {
      ar -= row[2 * j] * b[2 * j] - row[2 * j + 1] * b[2 * j + 1];
      ai -= row[2 * j] * b[2 * j + 1] + row[2 * j + 1] * b[2 * j];
    }
    dr = row[2 * i];
    di = row[2 * i + 1];
    d = dr * dr + di * di;
    b[2 * i] = (ar * dr + ai * di) / d;
    b[2 * i + 1] = (ai * dr - ar * di) / d;
  }
}
