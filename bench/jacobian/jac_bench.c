/* bench/jacobian: the state Jacobian d xcdot / d xc of the oscillator chain
 * (bench/jacobian/specs/chain.lua.in, generated as jchain.c) by
 *   jac        the generated jchain_jac_xc after setting xc (its own
 *              derivative evaluation included, as an integrator calls it
 *              at a new state),
 *   deriv_jac  jchain_calc_derivatives then jchain_jac_xc (the Jacobian's
 *              own part is deriv_jac - deriv),
 *   deriv      one jchain_calc_derivatives after setting xc,
 *   fd         central differences of jchain_calc_derivatives (2 nxc
 *              evaluations, a dense nxc x nxc result),
 *   adolc      ADOL-C's sparse_jac (adolc_chain.cpp; absent when built
 *              with -DJB_NO_ADOLC),
 * all in this process, round-robin, each call at one of NX fixed states
 * in turn.
 *
 *   jac_bench REPS TARGET_MS N_MASS TRIG
 *       TRIG: 1 when the model has the g sin(x_i) term, 0 without
 *       ("poly"), as the spec was generated; batches of about TARGET_MS.
 *
 * Prints "time IMPL best_us median_us iterations" per implementation, the
 * agreement of the Jacobians at every state ("acc" lines, relative error
 * per entry against max(|entry|, 1e-6 max |J|)), the sparsity checks and
 * checksums.  Exits 1 when the generated Jacobian disagrees with central
 * differences beyond 1e-6 or with ADOL-C beyond 1e-12, or when
 * perturbation finds a nonzero outside the generated pattern. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jchain.h"
#ifndef JB_NO_ADOLC
#include "adolc_chain.h"
#endif

#define N JCHAIN_NXC
#define NNZ JCHAIN_JAC_XC_NNZ
#define NX 16
#define MAXREPS 101

static jchain_context ctx;
static double X[NX][N];
static double nz[NNZ];
static double Jfd[N * N];  /* column-major: Jfd[col * N + row] */
static const int *colptr = jchain_jac_xc_sparsity + 2;
static const int *rowind = jchain_jac_xc_sparsity + 3 + N;

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what)
{
  fprintf(stderr, "jac_bench: %s\n", what);
  exit(1);
}

/* central differences of calc_derivatives at the context's xc */
static void fd_central(double *J)
{
  static double fp[N];
  const double *xd;
  int j;
  for (j = 0; j < N; ++j) {
    double *x = jchain_mutable_xc(&ctx);
    double x0 = x[j], h = cbrt(DBL_EPSILON) * (fabs(x0) > 1.0 ? fabs(x0) : 1.0);
    int i;
    x[j] = x0 + h;
    if (jchain_calc_derivatives(&ctx, &xd) != 0) die("calc_derivatives failed");
    memcpy(fp, xd, sizeof fp);
    x = jchain_mutable_xc(&ctx);
    x[j] = x0 - h;
    if (jchain_calc_derivatives(&ctx, &xd) != 0) die("calc_derivatives failed");
    for (i = 0; i < N; ++i) J[j * N + i] = (fp[i] - xd[i]) / (2.0 * h);
    x = jchain_mutable_xc(&ctx);
    x[j] = x0;
  }
}

static double run_deriv(long iters)
{
  const double *xd;
  double s = 0;
  long it;
  for (it = 0; it < iters; ++it) {
    jchain_set_xc(&ctx, X[it % NX]);
    if (jchain_calc_derivatives(&ctx, &xd) != 0) die("calc_derivatives failed");
    s += xd[it % N];
  }
  return s;
}

static double run_jac(long iters)
{
  double s = 0;
  long it;
  for (it = 0; it < iters; ++it) {
    jchain_set_xc(&ctx, X[it % NX]);
    if (jchain_jac_xc(&ctx, nz) != 0) die("jac_xc failed");
    s += nz[it % NNZ];
  }
  return s;
}

static double run_deriv_jac(long iters)
{
  const double *xd;
  double s = 0;
  long it;
  for (it = 0; it < iters; ++it) {
    jchain_set_xc(&ctx, X[it % NX]);
    if (jchain_calc_derivatives(&ctx, &xd) != 0) die("calc_derivatives failed");
    if (jchain_jac_xc(&ctx, nz) != 0) die("jac_xc failed");
    s += xd[it % N] + nz[it % NNZ];
  }
  return s;
}

static double run_fd(long iters)
{
  double s = 0;
  long it;
  for (it = 0; it < iters; ++it) {
    jchain_set_xc(&ctx, X[it % NX]);
    fd_central(Jfd);
    s += Jfd[it % (N * N)];
  }
  return s;
}

#ifndef JB_NO_ADOLC
static double run_adolc(long iters)
{
  double s = 0;
  long it;
  for (it = 0; it < iters; ++it) {
    int n;
    const unsigned *r, *c;
    const double *v;
    if (adolc_chain_jac(X[it % NX], &n, &r, &c, &v) != 0) die("sparse_jac failed");
    s += v[it % n];
  }
  return s;
}
#endif

typedef struct impl {
  const char *name;
  double (*fn)(long);
  long iters;
  double t[MAXREPS]; /* us per call */
} impl;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : (x > y);
}

/* iterations for one batch of about target_s */
static long calibrate(impl *m, double target_s)
{
  long iters = 1;
  for (;;) {
    double t0 = now_s();
    m->fn(iters);
    if (now_s() - t0 >= target_s || iters >= (1L << 30)) return iters;
    iters *= 2;
  }
}

/* the generated Jacobian at the context, dense column-major */
static void gen_dense(double *J)
{
  int j, k;
  if (jchain_jac_xc(&ctx, nz) != 0) die("jac_xc failed");
  memset(J, 0, sizeof(double) * N * N);
  for (j = 0; j < N; ++j)
    for (k = colptr[j]; k < colptr[j + 1]; ++k) J[j * N + rowind[k]] = nz[k];
}

static double max_abs(const double *J)
{
  double m = 0;
  int k;
  for (k = 0; k < N * N; ++k) if (fabs(J[k]) > m) m = fabs(J[k]);
  return m;
}

/* max relative difference per entry, floor 1e-6 max |A| */
static double rel_diff(const double *A, const double *B)
{
  double floor = 1e-6 * max_abs(A), e = 0;
  int k;
  for (k = 0; k < N * N; ++k) {
    double d = fabs(A[k] - B[k]), s = fabs(A[k]) > floor ? fabs(A[k]) : floor;
    if (d / s > e) e = d / s;
  }
  return e;
}

static double sum_of(const double *J)
{
  double s = 0;
  int k;
  for (k = 0; k < N * N; ++k) s += J[k];
  return s;
}

int main(int argc, char **argv)
{
  static double Jg[N * N], Ja[N * N], in_pattern[N * N];
  int reps, r, i, k, nimpl = 0, failed = 0;
  double target_s, scale, e, e_fd = 0, e_ad = 0, cs_g = 0, cs_f = 0, cs_a = 0;
  long outside = 0, zero_in_pattern = 0;
  unsigned long long seed = 12345;
  impl impls[5];
  if (argc != 5) die("usage: jac_bench REPS TARGET_MS N_MASS TRIG");
  reps = atoi(argv[1]);
  target_s = atof(argv[2]) * 1e-3;
  if (reps < 1 || reps > MAXREPS || target_s <= 0) die("bad REPS or TARGET_MS");
  if (atoi(argv[3]) * 2 != N) die("N_MASS does not match the generated model");

  for (i = 0; i < NX; ++i)
    for (k = 0; k < N; ++k) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      X[i][k] = ((double)(seed >> 11) / 9007199254740992.0 - 0.5) * (k < N / 2 ? 1.0 : 0.5);
    }
  jchain_init(&ctx);
#ifndef JB_NO_ADOLC
  {
    chain_params p = { 1.0, 0.5, 0.01, 0.2, 1.0, 0 };
    int colors;
    const char *drv;
    p.trig = atoi(argv[4]);
    if (adolc_chain_record(N / 2, &p, X[0]) != 0) die("ADOL-C: recording or its pattern failed");
    drv = adolc_chain_driver(&colors);
    printf("adolc_driver %d %s\n", colors, drv);
  }
#endif

  /* agreement at every state */
  for (i = 0; i < NX; ++i) {
    jchain_set_xc(&ctx, X[i]);
    gen_dense(Jg);
    fd_central(Jfd);
    memset(in_pattern, 0, sizeof in_pattern);
    for (r = 0; r < N; ++r)
      for (k = colptr[r]; k < colptr[r + 1]; ++k) in_pattern[r * N + rowind[k]] = 1;
    scale = max_abs(Jg);
    for (k = 0; k < N * N; ++k) {
      if (!in_pattern[k] && fabs(Jfd[k]) > 1e-8 * scale) outside++;
      if (in_pattern[k] && Jg[k] == 0.0 && Jfd[k] == 0.0) zero_in_pattern++;
    }
    e = rel_diff(Jg, Jfd);
    if (e > e_fd) e_fd = e;
    cs_g += sum_of(Jg);
    cs_f += sum_of(Jfd);
#ifndef JB_NO_ADOLC
    {
      int n;
      const unsigned *ri, *ci;
      const double *v;
      if (adolc_chain_jac(X[i], &n, &ri, &ci, &v) != 0) die("sparse_jac failed");
      memset(Ja, 0, sizeof Ja);
      for (k = 0; k < n; ++k) Ja[ci[k] * N + ri[k]] = v[k];
      e = rel_diff(Jg, Ja);
      if (e > e_ad) e_ad = e;
      cs_a += sum_of(Ja);
      if (i == 0) printf("nnz adolc %d\n", n);
    }
#endif
  }
  printf("nnz generated %d\n", NNZ);
  printf("acc fd %.3g\n", e_fd);
  printf("pattern outside %ld zero_inside %ld\n", outside, zero_in_pattern);
  printf("checksum generated %.15g\n", cs_g);
  printf("checksum fd %.15g\n", cs_f);
#ifndef JB_NO_ADOLC
  printf("acc adolc %.3g\n", e_ad);
  printf("checksum adolc %.15g\n", cs_a);
#endif
  if (e_fd > 1e-6 || e_ad > 1e-12 || outside > 0) {
    fprintf(stderr, "jac_bench: the Jacobians disagree (fd %.3g, adolc %.3g, %ld nonzeros outside the pattern)\n",
            e_fd, e_ad, outside);
    failed = 1;
  }

  impls[nimpl++] = (impl){ "deriv", run_deriv, 0, { 0 } };
  impls[nimpl++] = (impl){ "jac", run_jac, 0, { 0 } };
  impls[nimpl++] = (impl){ "deriv_jac", run_deriv_jac, 0, { 0 } };
  impls[nimpl++] = (impl){ "fd", run_fd, 0, { 0 } };
#ifndef JB_NO_ADOLC
  impls[nimpl++] = (impl){ "adolc", run_adolc, 0, { 0 } };
#endif
  for (i = 0; i < nimpl; ++i) impls[i].iters = calibrate(&impls[i], target_s);
  for (r = 0; r < reps; ++r)
    for (i = 0; i < nimpl; ++i) {
      double t0 = now_s(), sink = impls[i].fn(impls[i].iters);
      impls[i].t[r] = (now_s() - t0) * 1e6 / (double)impls[i].iters;
      if (sink != sink) die("NaN");
    }
  for (i = 0; i < nimpl; ++i) {
    qsort(impls[i].t, (size_t)reps, sizeof(double), cmp_double);
    printf("time %s %.4g %.4g %ld\n", impls[i].name, impls[i].t[0], impls[i].t[reps / 2], impls[i].iters);
  }
  return failed;
}
