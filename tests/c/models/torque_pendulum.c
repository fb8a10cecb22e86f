/* theta'' = (tau - m g l sin(theta) - b theta') / (m l^2), written by hand
 * with its d(xcdot, y) / d(xc, u) (the layout of generated models'
 * jac_lin): states theta, omega; exported input "torque" (source 0);
 * outputs "theta" (theta) and "both" (theta + omega, tau * theta). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

#define TP_M 2.0
#define TP_L 0.5
#define TP_G 9.81
#define TP_B 0.3

typedef struct tp_ctx {
  double t, accuracy;
  double xc[2]; /* state block */
  double u[1];
  double xcdot[2], y0[1], y1[2];
} tp_ctx;

static void tp_init(void *c) {
  memset(c, 0, sizeof(tp_ctx));
  ((tp_ctx *)c)->accuracy = 1e-4;
}
static void tp_set_time(void *c, double t) { ((tp_ctx *)c)->t = t; }
static void tp_set_accuracy(void *c, double a) { ((tp_ctx *)c)->accuracy = a; }
static void tp_set_xc(void *c, const double *xc) { memcpy(((tp_ctx *)c)->xc, xc, 2 * sizeof(double)); }
static double *tp_mutable_xc(void *c) { return ((tp_ctx *)c)->xc; }
static void tp_set_state(void *c, const void *st) { memcpy(((tp_ctx *)c)->xc, st, 2 * sizeof(double)); }
static int tp_derivs(void *c, const double **xcdot) {
  tp_ctx *x = (tp_ctx *)c;
  x->xcdot[0] = x->xc[1];
  x->xcdot[1] = (x->u[0] - TP_M * TP_G * TP_L * sin(x->xc[0]) - TP_B * x->xc[1]) / (TP_M * TP_L * TP_L);
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
static int tp_eval_output(void *c, int i, const double **v) {
  tp_ctx *x = (tp_ctx *)c;
  switch (i) {
  case 0: x->y0[0] = x->xc[0]; *v = x->y0; return DIAGC_OK;
  case 1: x->y1[0] = x->xc[0] + x->xc[1]; x->y1[1] = x->u[0] * x->xc[0]; *v = x->y1; return DIAGC_OK;
  default: return DIAGC_E_INDEX;
  }
}
static int tp_eval_cache(void *c, int i, const double **v) { (void)c; (void)i; (void)v; return DIAGC_E_INDEX; }
static void tp_set_source(void *c, int i, const void *v) {
  if (i == 0) memcpy(((tp_ctx *)c)->u, v, sizeof(double));
}
static void tp_nop_int(void *c, int on) { (void)c; (void)on; }
static void tp_nop(void *c) { (void)c; }

/* rows: thetadot, omegadot, theta, theta + omega, tau theta; columns:
   theta, omega, tau; compressed columns */
static const int tp_colptr[] = {0, 4, 7, 9};
static const int tp_rowind[] = {1, 2, 3, 4, 0, 1, 3, 1, 4};
static int tp_jac_lin(void *c, double *nz) {
  tp_ctx *x = (tp_ctx *)c;
  double ml2 = TP_M * TP_L * TP_L;
  nz[0] = -TP_G / TP_L * cos(x->xc[0]);
  nz[1] = 1.0;
  nz[2] = 1.0;
  nz[3] = x->u[0];
  nz[4] = 1.0;
  nz[5] = -TP_B / ml2;
  nz[6] = 1.0;
  nz[7] = 1.0 / ml2;
  nz[8] = x->xc[0];
  return DIAGC_OK;
}

static const char *const tp_xc_names[] = {"p.theta", "p.omega"};
static const char *const tp_leaf_names[] = {"p"};
static const diagc_value_desc tp_outputs[] = {{"theta", 1, NULL}, {"both", 2, NULL}};
static const diagc_source_desc tp_sources[] = {
    {"torque", DIAGC_SRC_INPUT, 1, offsetof(tp_ctx, u), sizeof(double)}};
static const int tp_lin_outputs[] = {0, 1};
static const int tp_lin_inputs[] = {0};

const diagc_model tp_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "tp",
    .context_size = sizeof(tp_ctx),
    .state_offset = offsetof(tp_ctx, xc),
    .state_size = 2 * sizeof(double),
    .time_offset = offsetof(tp_ctx, t),
    .xc_offset = offsetof(tp_ctx, xc),
    .xd_offset = offsetof(tp_ctx, u),
    .nq = 1, .nv = 1, .nz = 0, .nxc = 2, .nxd = 0,
    .xc_names = tp_xc_names,
    .n_leaves = 1, .leaf_names = tp_leaf_names,
    .n_outputs = 2, .outputs = tp_outputs,
    .n_sources = 1, .sources = tp_sources,
    .default_accuracy = 1e-4,
    .init = tp_init,
    .set_time = tp_set_time,
    .set_accuracy = tp_set_accuracy,
    .set_xc = tp_set_xc,
    .mutable_xc = tp_mutable_xc,
    .set_state = tp_set_state,
    .calc_derivatives = tp_derivs,
    .set_caching = tp_nop_int,
    .freeze_cache = tp_nop_int,
    .invalidate_all = tp_nop,
    .set_source = tp_set_source,
    .eval_output = tp_eval_output,
    .eval_cache = tp_eval_cache,
    .n_lin_outputs = 2, .lin_outputs = tp_lin_outputs,
    .n_lin_inputs = 1, .lin_inputs = tp_lin_inputs,
    .jac_lin_nrow = 5, .jac_lin_ncol = 3, .jac_lin_nnz = 9,
    .jac_lin_colptr = tp_colptr, .jac_lin_rowind = tp_rowind,
    .jac_lin = tp_jac_lin,
};
