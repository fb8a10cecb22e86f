/* A sampled loop written by hand as a diagc_model: a double integrator
 * x'' = u under a discrete PD law u+ = kp (r - x) - kd v of period
 * SP_H (offset SP_OFF), with its d(xcdot, y) / d(xc, xd, u) (jac_lin of a
 * sampled loop: the xd column between xc and u) and the update's d x+ /
 * d(xc, xd, u) (jac_updates[0]).  States x, v (xc) and pd.u (xd); exported
 * input "ref" (source 1); output "x". */
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

#define SP_H 0.1
#define SP_OFF 0.03
#define SP_KP 2.0
#define SP_KD 3.0

typedef struct sp_ctx {
  double t, accuracy;
  double xc[2]; /* the state block: xc, then xd */
  double xd[1];
  double r[1];
  double xcdot[2], y[1];
} sp_ctx;

static void sp_init(void *c) {
  memset(c, 0, sizeof(sp_ctx));
  ((sp_ctx *)c)->accuracy = 1e-4;
}
static void sp_set_time(void *c, double t) { ((sp_ctx *)c)->t = t; }
static void sp_set_accuracy(void *c, double a) { ((sp_ctx *)c)->accuracy = a; }
static void sp_set_xc(void *c, const double *xc) { memcpy(((sp_ctx *)c)->xc, xc, 2 * sizeof(double)); }
static double *sp_mutable_xc(void *c) { return ((sp_ctx *)c)->xc; }
static void sp_set_state(void *c, const void *st) { memcpy(((sp_ctx *)c)->xc, st, 3 * sizeof(double)); }
static int sp_derivs(void *c, const double **xcdot) {
  sp_ctx *x = (sp_ctx *)c;
  x->xcdot[0] = x->xc[1];
  x->xcdot[1] = x->xd[0];
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
static int sp_eval_output(void *c, int i, const double **v) {
  sp_ctx *x = (sp_ctx *)c;
  if (i != 0) return DIAGC_E_INDEX;
  x->y[0] = x->xc[0];
  *v = x->y;
  return DIAGC_OK;
}
static int sp_eval_cache(void *c, int i, const double **v) { (void)c; (void)i; (void)v; return DIAGC_E_INDEX; }
static void sp_set_source(void *c, int i, const void *v) {
  sp_ctx *x = (sp_ctx *)c;
  if (i == 0) memcpy(x->xd, v, sizeof(double));
  if (i == 1) memcpy(x->r, v, sizeof(double));
}
static int sp_update(void *c, void *buf) {
  const sp_ctx *x = (const sp_ctx *)c;
  double *b = (double *)buf; /* the state block: x, v, u */
  b[2] = SP_KP * (x->r[0] - x->xc[0]) - SP_KD * x->xc[1];
  return DIAGC_SUCCEEDED;
}
static void sp_apply(void *c, const void *buf) { memcpy(((sp_ctx *)c)->xc, buf, 3 * sizeof(double)); }
static void sp_nop_int(void *c, int on) { (void)c; (void)on; }
static void sp_nop(void *c) { (void)c; }

/* jac_lin: rows xdot, vdot, y; columns x, v, u (xd), ref */
static const int sp_lin_colptr[] = {0, 1, 2, 3, 3};
static const int sp_lin_rowind[] = {2, 0, 1};
static int sp_jac_lin(void *c, double *nz) {
  (void)c;
  nz[0] = 1.0; /* dy/dx */
  nz[1] = 1.0; /* dxdot/dv */
  nz[2] = 1.0; /* dvdot/du */
  return DIAGC_OK;
}
/* jac_update0: rows x, v, u; columns x, v, u, ref */
static const int sp_up_colptr[] = {0, 2, 4, 4, 5};
static const int sp_up_rowind[] = {0, 2, 1, 2, 2};
static int sp_jac_up(void *c, double *nz) {
  (void)c;
  nz[0] = 1.0, nz[1] = -SP_KP, nz[2] = 1.0, nz[3] = -SP_KD, nz[4] = SP_KP;
  return DIAGC_OK;
}

static const char *const sp_xc_names[] = {"plant.x", "plant.v"};
static const char *const sp_xd_names[] = {"pd.u"};
static const char *const sp_leaf_names[] = {"plant", "pd"};
static const diagc_value_desc sp_outputs[] = {{"x", 1}};
static const diagc_source_desc sp_sources[] = {
    {"pd.u", DIAGC_SRC_XD, 1, offsetof(sp_ctx, xd), sizeof(double)},
    {"ref", DIAGC_SRC_INPUT, 1, offsetof(sp_ctx, r), sizeof(double)}};
static const diagc_event_desc sp_events[] = {
    {"pd.sample", 1, DIAGC_TRIGGER_PERIODIC, DIAGC_DISCRETE_UPDATE, SP_H, SP_OFF, sp_update, sp_apply}};
static const int sp_lin_outputs[] = {0};
static const int sp_lin_inputs[] = {1};
static const diagc_jac_update_desc sp_jac_updates[] = {
    {"jac_update0", SP_H, SP_OFF, 3, 4, 5, sp_up_colptr, sp_up_rowind, sp_jac_up}};

const diagc_model sp_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "sp",
    .context_size = sizeof(sp_ctx),
    .state_offset = offsetof(sp_ctx, xc),
    .state_size = 3 * sizeof(double),
    .time_offset = offsetof(sp_ctx, t),
    .xc_offset = offsetof(sp_ctx, xc),
    .xd_offset = offsetof(sp_ctx, xd),
    .nq = 1, .nv = 1, .nz = 0, .nxc = 2, .nxd = 1,
    .xc_names = sp_xc_names, .xd_names = sp_xd_names,
    .n_leaves = 2, .leaf_names = sp_leaf_names,
    .n_outputs = 1, .outputs = sp_outputs,
    .n_sources = 2, .sources = sp_sources,
    .n_events = 1, .events = sp_events,
    .default_accuracy = 1e-4,
    .init = sp_init,
    .set_time = sp_set_time,
    .set_accuracy = sp_set_accuracy,
    .set_xc = sp_set_xc,
    .mutable_xc = sp_mutable_xc,
    .set_state = sp_set_state,
    .calc_derivatives = sp_derivs,
    .set_caching = sp_nop_int,
    .freeze_cache = sp_nop_int,
    .invalidate_all = sp_nop,
    .set_source = sp_set_source,
    .eval_output = sp_eval_output,
    .eval_cache = sp_eval_cache,
    .n_lin_outputs = 1, .lin_outputs = sp_lin_outputs,
    .n_lin_inputs = 1, .lin_inputs = sp_lin_inputs,
    .jac_lin_nrow = 3, .jac_lin_ncol = 4, .jac_lin_nnz = 3,
    .jac_lin_colptr = sp_lin_colptr, .jac_lin_rowind = sp_lin_rowind,
    .jac_lin = sp_jac_lin,
    .lin_time_period = SP_H,
    .n_jac_updates = 1, .jac_updates = sp_jac_updates,
};
