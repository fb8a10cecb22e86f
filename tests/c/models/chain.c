/* A stiff nonlinear chain of CH_N nodes (one leaf "chain"), driven at its
 * left end:
 *   u_i' = ch_k (u_{i-1} - 2 u_i + u_{i+1}) - u_i^3,
 *   u_{-1} = sin(t), u_N = 0,  u_i(0) = cos(0.3 i) / 2,
 * with node i stored as state ch_lab[i] = 5 i mod CH_N (a scrambled order,
 * so that the implicit methods' band ordering has work to do), and its
 * hand-written sparse Jacobian (tridiagonal in node order: 3 CH_N - 2
 * structural nonzeros; ch_pattern() fills its pattern; left out with
 * CHAIN_NO_JACOBIAN defined). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

#define CH_N 16

typedef struct ch_ctx {
  double t, accuracy;
  double xc[CH_N];
  double xcdot[CH_N];
} ch_ctx;

static double ch_k = 1000.0;

static int ch_lab(int node) { return (node * 5) % CH_N; }

static void ch_init(void *c) {
  ch_ctx *x = (ch_ctx *)c;
  int i;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  for (i = 0; i < CH_N; i++) x->xc[ch_lab(i)] = 0.5 * cos(i * 0.3);
}
static void ch_set_time(void *c, double t) { ((ch_ctx *)c)->t = t; }
static void ch_set_accuracy(void *c, double a) {
  ((ch_ctx *)c)->accuracy = a;
}
static void ch_set_xc(void *c, const double *xc) {
  memcpy(((ch_ctx *)c)->xc, xc, sizeof(double) * CH_N);
}
static double *ch_mutable_xc(void *c) { return ((ch_ctx *)c)->xc; }
static void ch_set_state(void *c, const void *st) {
  memcpy(((ch_ctx *)c)->xc, st, sizeof(double) * CH_N);
}
static int ch_derivs(void *c, const double **xcdot) {
  ch_ctx *x = (ch_ctx *)c;
  int i;
  for (i = 0; i < CH_N; i++) {
    const double l = i > 0 ? x->xc[ch_lab(i - 1)] : sin(x->t);
    const double r = i < CH_N - 1 ? x->xc[ch_lab(i + 1)] : 0.0;
    const double u = x->xc[ch_lab(i)];
    x->xcdot[ch_lab(i)] = ch_k * (l - 2 * u + r) - u * u * u;
  }
  *xcdot = x->xcdot;
  return DIAGC_OK;
}

#ifndef CHAIN_NO_JACOBIAN
/* The compressed-column pattern (filled by ch_pattern()): column j (state
 * j) has the rows of j and of its neighbours' states, sorted. */
static int ch_colptr[CH_N + 1], ch_rowind[3 * CH_N - 2];

static void ch_pattern(void) {
  int node_of[CH_N], j, k = 0;
  for (j = 0; j < CH_N; j++) node_of[ch_lab(j)] = j;
  for (j = 0; j < CH_N; j++) {
    const int nd = node_of[j];
    int rows[3], nr = 0, a, b;
    ch_colptr[j] = k;
    rows[nr++] = j;
    if (nd > 0) rows[nr++] = ch_lab(nd - 1);
    if (nd < CH_N - 1) rows[nr++] = ch_lab(nd + 1);
    for (a = 0; a < nr; a++)
      for (b = a + 1; b < nr; b++)
        if (rows[b] < rows[a]) {
          const int r = rows[a];
          rows[a] = rows[b];
          rows[b] = r;
        }
    for (a = 0; a < nr; a++) ch_rowind[k++] = rows[a];
  }
  ch_colptr[CH_N] = k;
}

static int ch_jac(void *c, double *nz) {
  const ch_ctx *x = (const ch_ctx *)c;
  int j, k;
  for (j = 0; j < CH_N; j++)
    for (k = ch_colptr[j]; k < ch_colptr[j + 1]; k++)
      nz[k] = ch_rowind[k] == j ? -2 * ch_k - 3 * x->xc[j] * x->xc[j] : ch_k;
  return DIAGC_OK;
}
#endif

static void ch_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void ch_nop(void *c) { (void)c; }

static const char *const ch_leaf_names[] = {"chain"};

const diagc_model chain_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "chain",
    .context_size = sizeof(ch_ctx),
    .state_offset = offsetof(ch_ctx, xc),
    .state_size = sizeof(double) * CH_N,
    .time_offset = offsetof(ch_ctx, t),
    .xc_offset = offsetof(ch_ctx, xc),
    .xd_offset = offsetof(ch_ctx, xcdot), /* nxd = 0 */
    .nq = 0, .nv = 0, .nz = CH_N, .nxc = CH_N, .nxd = 0,
    .n_leaves = 1, .leaf_names = ch_leaf_names,
    .default_accuracy = 1e-4,
    .init = ch_init,
    .set_time = ch_set_time,
    .set_accuracy = ch_set_accuracy,
    .set_xc = ch_set_xc,
    .mutable_xc = ch_mutable_xc,
    .set_state = ch_set_state,
    .calc_derivatives = ch_derivs,
    .set_caching = ch_nop_int,
    .freeze_cache = ch_nop_int,
    .invalidate_all = ch_nop,
};
