/* Robertson's chemical kinetics (stiff; three continuous states):
 *   y1' = -k1 y1 + k3 y2 y3
 *   y2' =  k1 y1 - k3 y2 y3 - k2 y2^2
 *   y3' =  k2 y2^2
 * with k1 = 0.04, k2 = 3e7, k3 = 1e4, y(0) = (1, 0, 0); y1 + y2 + y3 = 1.
 * Also its hand-written sparse Jacobian (compressed columns, 7 structural
 * nonzeros of 9: y3' depends on y2 only), for the Jacobian-source tests,
 * with a counter of its evaluations. */
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

typedef struct rob_ctx {
  double t;
  double accuracy;
  double xc[3];
  double xcdot[3];
} rob_ctx;

static long rob_jac_calls;

static void rob_init(void *c) {
  rob_ctx *x = (rob_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  x->xc[0] = 1.0;
}
static void rob_set_time(void *c, double t) { ((rob_ctx *)c)->t = t; }
static void rob_set_accuracy(void *c, double a) { ((rob_ctx *)c)->accuracy = a; }
static void rob_set_xc(void *c, const double *xc) {
  memcpy(((rob_ctx *)c)->xc, xc, 3 * sizeof(double));
}
static double *rob_mutable_xc(void *c) { return ((rob_ctx *)c)->xc; }
static void rob_set_state(void *c, const void *st) {
  memcpy(((rob_ctx *)c)->xc, st, 3 * sizeof(double));
}
static int rob_derivs(void *c, const double **xcdot) {
  rob_ctx *x = (rob_ctx *)c;
  const double *y = x->xc;
  x->xcdot[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
  x->xcdot[2] = 3e7 * y[1] * y[1];
  x->xcdot[1] = -x->xcdot[0] - x->xcdot[2];
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
static void rob_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void rob_nop(void *c) { (void)c; }

/* J = [[-k1, k3 y3, k3 y2], [k1, -k3 y3 - 2 k2 y2, -k3 y2],
 *      [0, 2 k2 y2, 0]] by columns: column 0 rows 0 1; column 1 rows
 * 0 1 2; column 2 rows 0 1. */
static const int rob_jac_colptr[4] = {0, 2, 5, 7};
static const int rob_jac_rowind[7] = {0, 1, 0, 1, 2, 0, 1};
static int rob_jac(void *c, double *nz) {
  const double *y = ((const rob_ctx *)c)->xc;
  rob_jac_calls++;
  nz[0] = -0.04;
  nz[1] = 0.04;
  nz[2] = 1e4 * y[2];
  nz[3] = -1e4 * y[2] - 6e7 * y[1];
  nz[4] = 6e7 * y[1];
  nz[5] = 1e4 * y[1];
  nz[6] = -1e4 * y[1];
  return DIAGC_OK;
}

static const char *const rob_xc_names[] = {"rob.y1", "rob.y2", "rob.y3"};
static const char *const rob_leaf_names[] = {"rob"};

const diagc_model robertson_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "robertson",
    .context_size = sizeof(rob_ctx),
    .state_offset = offsetof(rob_ctx, xc),
    .state_size = 3 * sizeof(double),
    .time_offset = offsetof(rob_ctx, t),
    .xc_offset = offsetof(rob_ctx, xc),
    .xd_offset = offsetof(rob_ctx, xcdot), /* nxd = 0 */
    .nq = 0, .nv = 0, .nz = 3, .nxc = 3, .nxd = 0,
    .xc_names = rob_xc_names,
    .xd_names = NULL,
    .n_leaves = 1, .leaf_names = rob_leaf_names,
    .default_accuracy = 1e-4,
    .init = rob_init,
    .set_time = rob_set_time,
    .set_accuracy = rob_set_accuracy,
    .set_xc = rob_set_xc,
    .mutable_xc = rob_mutable_xc,
    .set_state = rob_set_state,
    .calc_derivatives = rob_derivs,
    .set_caching = rob_nop_int,
    .freeze_cache = rob_nop_int,
    .invalidate_all = rob_nop,
};
