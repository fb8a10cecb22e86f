/* Van der Pol's oscillator, stiff for a large mu (two continuous states):
 *   x' = v,  v' = mu (1 - x^2) v - x,  x(0) = 2, v(0) = 0,
 * with mu = vdp_mu (default 1000), and its hand-written sparse Jacobian
 * (3 structural nonzeros: x' depends on v only). */
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

typedef struct vdp_ctx {
  double t;
  double accuracy;
  double xc[2];
  double xcdot[2];
} vdp_ctx;

static double vdp_mu = 1000.0;

static void vdp_init(void *c) {
  vdp_ctx *x = (vdp_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  x->xc[0] = 2.0;
}
static void vdp_set_time(void *c, double t) { ((vdp_ctx *)c)->t = t; }
static void vdp_set_accuracy(void *c, double a) { ((vdp_ctx *)c)->accuracy = a; }
static void vdp_set_xc(void *c, const double *xc) {
  memcpy(((vdp_ctx *)c)->xc, xc, 2 * sizeof(double));
}
static double *vdp_mutable_xc(void *c) { return ((vdp_ctx *)c)->xc; }
static void vdp_set_state(void *c, const void *st) {
  memcpy(((vdp_ctx *)c)->xc, st, 2 * sizeof(double));
}
static int vdp_derivs(void *c, const double **xcdot) {
  vdp_ctx *x = (vdp_ctx *)c;
  const double *y = x->xc;
  x->xcdot[0] = y[1];
  x->xcdot[1] = vdp_mu * (1 - y[0] * y[0]) * y[1] - y[0];
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
static void vdp_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void vdp_nop(void *c) { (void)c; }

/* J = [[0, 1], [-2 mu x v - 1, mu (1 - x^2)]]: column 0 row 1; column 1
 * rows 0 1. */
static const int vdp_jac_colptr[3] = {0, 1, 3};
static const int vdp_jac_rowind[3] = {1, 0, 1};
static int vdp_jac(void *c, double *nz) {
  const double *y = ((const vdp_ctx *)c)->xc;
  nz[0] = -2 * vdp_mu * y[0] * y[1] - 1;
  nz[1] = 1;
  nz[2] = vdp_mu * (1 - y[0] * y[0]);
  return DIAGC_OK;
}

static const char *const vdp_xc_names[] = {"vdp.x", "vdp.v"};
static const char *const vdp_leaf_names[] = {"vdp"};

const diagc_model vdp_stiff_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "vdp_stiff",
    .context_size = sizeof(vdp_ctx),
    .state_offset = offsetof(vdp_ctx, xc),
    .state_size = 2 * sizeof(double),
    .time_offset = offsetof(vdp_ctx, t),
    .xc_offset = offsetof(vdp_ctx, xc),
    .xd_offset = offsetof(vdp_ctx, xcdot), /* nxd = 0 */
    .nq = 1, .nv = 1, .nz = 0, .nxc = 2, .nxd = 0,
    .xc_names = vdp_xc_names,
    .xd_names = NULL,
    .n_leaves = 1, .leaf_names = vdp_leaf_names,
    .default_accuracy = 1e-4,
    .init = vdp_init,
    .set_time = vdp_set_time,
    .set_accuracy = vdp_set_accuracy,
    .set_xc = vdp_set_xc,
    .mutable_xc = vdp_mutable_xc,
    .set_state = vdp_set_state,
    .calc_derivatives = vdp_derivs,
    .set_caching = vdp_nop_int,
    .freeze_cache = vdp_nop_int,
    .invalidate_all = vdp_nop,
};
