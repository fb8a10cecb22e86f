/* A harmonic oscillator in second-order form (one leaf "osc"):
 *   q' = v, v' = -q, q(0) = 1, v(0) = 0;  exact q = cos t, v = -sin t. */
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

typedef struct osc_ctx {
  double t;
  double accuracy;
  double xc[2]; /* state block: q, v */
  double xcdot[2];
} osc_ctx;

static void osc_init(void *c) {
  osc_ctx *x = (osc_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  x->xc[0] = 1.0;
}
static void osc_set_time(void *c, double t) { ((osc_ctx *)c)->t = t; }
static void osc_set_accuracy(void *c, double a) {
  ((osc_ctx *)c)->accuracy = a;
}
static void osc_set_xc(void *c, const double *xc) {
  memcpy(((osc_ctx *)c)->xc, xc, 2 * sizeof(double));
}
static double *osc_mutable_xc(void *c) { return ((osc_ctx *)c)->xc; }
static void osc_set_state(void *c, const void *st) {
  memcpy(((osc_ctx *)c)->xc, st, 2 * sizeof(double));
}
static int osc_derivs(void *c, const double **xcdot) {
  osc_ctx *x = (osc_ctx *)c;
  x->xcdot[0] = x->xc[1];
  x->xcdot[1] = -x->xc[0];
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
static void osc_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void osc_nop(void *c) { (void)c; }

static const char *const osc_xc_names[] = {"osc.q", "osc.v"};
static const char *const osc_leaf_names[] = {"osc"};

const diagc_model osc_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "osc",
    .context_size = sizeof(osc_ctx),
    .state_offset = offsetof(osc_ctx, xc),
    .state_size = 2 * sizeof(double),
    .time_offset = offsetof(osc_ctx, t),
    .xc_offset = offsetof(osc_ctx, xc),
    .xd_offset = offsetof(osc_ctx, xcdot),
    .nq = 1, .nv = 1, .nz = 0, .nxc = 2, .nxd = 0,
    .xc_names = osc_xc_names,
    .n_leaves = 1, .leaf_names = osc_leaf_names,
    .default_accuracy = 1e-4,
    .init = osc_init,
    .set_time = osc_set_time,
    .set_accuracy = osc_set_accuracy,
    .set_xc = osc_set_xc,
    .mutable_xc = osc_mutable_xc,
    .set_state = osc_set_state,
    .calc_derivatives = osc_derivs,
    .set_caching = osc_nop_int,
    .freeze_cache = osc_nop_int,
    .invalidate_all = osc_nop,
};
