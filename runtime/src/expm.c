/* expm.c: the matrix exponential (diagc/linearize.h) by scaling and
 * squaring with the degree-13 Pade approximant r13 (Higham, "The scaling
 * and squaring method for the matrix exponential revisited", 2005): A is
 * scaled by 2^-s so that its 1-norm is at most theta13, r13 = (V - U)^-1
 * (V + U) with U the odd and V the even part of the Pade numerator, then
 * squared s times.  The sampled-loop linearization's discretization. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/linearize.h"

/* C = A B (n x n) */
static void mul(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double v = 0.0;
      for (int k = 0; k < n; k++) v += A[i * n + k] * B[k * n + j];
      C[i * n + j] = v;
    }
}

/* solves P X = Q for X (into Q) by LU with partial pivoting; -1 when P is
   singular */
static int solve(int n, double *P, double *Q) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(P[i * n + k]) > fabs(P[p * n + k])) p = i;
    if (P[p * n + k] == 0.0) return -1;
    if (p != k)
      for (int j = 0; j < n; j++) {
        double t = P[k * n + j]; P[k * n + j] = P[p * n + j]; P[p * n + j] = t;
        t = Q[k * n + j]; Q[k * n + j] = Q[p * n + j]; Q[p * n + j] = t;
      }
    for (int i = k + 1; i < n; i++) {
      double l = P[i * n + k] / P[k * n + k];
      if (l == 0.0) continue;
      for (int j = k; j < n; j++) P[i * n + j] -= l * P[k * n + j];
      for (int j = 0; j < n; j++) Q[i * n + j] -= l * Q[k * n + j];
    }
  }
  for (int k = n - 1; k >= 0; k--)
    for (int j = 0; j < n; j++) {
      double v = Q[k * n + j];
      for (int i = k + 1; i < n; i++) v -= P[k * n + i] * Q[i * n + j];
      Q[k * n + j] = v / P[k * n + k];
    }
  return 0;
}

int diagc_expm(int n, const double *A, double *E) {
  static const double b[14] = {
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0,
    1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0};
  const double theta13 = 5.371920351148152;
  size_t nn = (size_t)(n > 0 ? n : 1) * (size_t)(n > 0 ? n : 1);
  double norm = 0.0, scale;
  int s = 0, i, j;
  if (n < 0 || (n > 0 && (!A || !E))) return DIAGC_LIN_E_ARG;
  if (n == 0) return DIAGC_OK;
  for (j = 0; j < n; j++) {
    double c = 0.0;
    for (i = 0; i < n; i++) {
      if (!isfinite(A[i * n + j])) return DIAGC_LIN_E_ARG;
      c += fabs(A[i * n + j]);
    }
    if (c > norm) norm = c;
  }
  if (!isfinite(norm)) return DIAGC_LIN_E_ARG;
  if (norm > theta13) s = (int)ceil(log2(norm / theta13));
  scale = ldexp(1.0, -s);
  double *w = malloc(7 * nn * sizeof(double));
  if (!w) return DIAGC_LIN_E_NOMEM;
  double *X = w, *X2 = w + nn, *X4 = w + 2 * nn, *X6 = w + 3 * nn, *U = w + 4 * nn, *V = w + 5 * nn,
         *T = w + 6 * nn;
  for (i = 0; i < n * n; i++) X[i] = scale * A[i];
  mul(n, X, X, X2);
  mul(n, X2, X2, X4);
  mul(n, X4, X2, X6);
  /* U = X [X6 (b13 X6 + b11 X4 + b9 X2) + b7 X6 + b5 X4 + b3 X2 + b1 I] */
  for (i = 0; i < n * n; i++) T[i] = b[13] * X6[i] + b[11] * X4[i] + b[9] * X2[i];
  mul(n, X6, T, U);
  for (i = 0; i < n * n; i++) U[i] += b[7] * X6[i] + b[5] * X4[i] + b[3] * X2[i];
  for (i = 0; i < n; i++) U[i * n + i] += b[1];
  memcpy(T, U, nn * sizeof(double));
  mul(n, X, T, U);
  /* V = X6 (b12 X6 + b10 X4 + b8 X2) + b6 X6 + b4 X4 + b2 X2 + b0 I */
  for (i = 0; i < n * n; i++) T[i] = b[12] * X6[i] + b[10] * X4[i] + b[8] * X2[i];
  mul(n, X6, T, V);
  for (i = 0; i < n * n; i++) V[i] += b[6] * X6[i] + b[4] * X4[i] + b[2] * X2[i];
  for (i = 0; i < n; i++) V[i * n + i] += b[0];
  /* (V - U) E = V + U */
  for (i = 0; i < n * n; i++) {
    X[i] = V[i] - U[i];
    E[i] = V[i] + U[i];
  }
  if (solve(n, X, E) != 0) {
    free(w);
    return DIAGC_LIN_E_ARG;
  }
  for (; s > 0; s--) {
    memcpy(T, E, nn * sizeof(double));
    mul(n, T, T, E);
  }
  for (i = 0; i < n * n; i++)
    if (!isfinite(E[i])) {
      free(w);
      return DIAGC_LIN_E_ARG;
    }
  free(w);
  return DIAGC_OK;
}
