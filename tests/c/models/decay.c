/* x' = -decay_k * x, x(0) = 1 (one leaf "decay", one continuous state).
 * Output "decay.x" = x.  For non-finite tests the derivative becomes NaN
 * once t >= decay_nan_after. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

typedef struct decay_ctx {
  double t;
  double accuracy;
  double xc[1]; /* state block */
  double xcdot[1];
  double y[1];
} decay_ctx;

static double decay_k = 1.0;
static double decay_nan_after = INFINITY;

static void decay_init(void *c) {
  decay_ctx *x = (decay_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  x->xc[0] = 1.0;
}
static void decay_set_time(void *c, double t) { ((decay_ctx *)c)->t = t; }
static void decay_set_accuracy(void *c, double a) {
  ((decay_ctx *)c)->accuracy = a;
}
static void decay_set_xc(void *c, const double *xc) {
  ((decay_ctx *)c)->xc[0] = xc[0];
}
static double *decay_mutable_xc(void *c) { return ((decay_ctx *)c)->xc; }
static void decay_set_state(void *c, const void *st) {
  memcpy(((decay_ctx *)c)->xc, st, sizeof(double));
}
static int decay_derivs(void *c, const double **xcdot) {
  decay_ctx *x = (decay_ctx *)c;
  x->xcdot[0] = x->t >= decay_nan_after ? NAN : -decay_k * x->xc[0];
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
/* Output 0: "decay.x". */
static int decay_eval_output(void *c, int i, const double **v) {
  decay_ctx *x = (decay_ctx *)c;
  switch (i) {
  case 0:
    x->y[0] = x->xc[0];
    *v = x->y;
    return DIAGC_OK;
  default:
    return DIAGC_E_INDEX;
  }
}
/* No cache entries: every index is out of range. */
static int decay_eval_cache(void *c, int i, const double **v) {
  (void)c;
  (void)i;
  (void)v;
  return DIAGC_E_INDEX;
}
/* Source 0: x. */
static void decay_set_source(void *c, int i, const void *v) {
  switch (i) {
  case 0:
    memcpy(((decay_ctx *)c)->xc, v, sizeof(double));
    break;
  default:
    break;
  }
}
static void decay_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void decay_nop(void *c) { (void)c; }

static const char *const decay_xc_names[] = {"decay.x"};
static const char *const decay_leaf_names[] = {"decay"};
static const diagc_value_desc decay_outputs[] = {{"decay.x", 1, NULL}};
static const diagc_source_desc decay_sources[] = {
    {"decay.x", DIAGC_SRC_Z, 1, offsetof(decay_ctx, xc), sizeof(double)}};
/* Available to tests: a per-step logger of x. */
const diagc_logger_desc decay_logger_step[] = {{"decay.x", 0, 1, 0.0}};

const diagc_model decay_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "decay",
    .context_size = sizeof(decay_ctx),
    .state_offset = offsetof(decay_ctx, xc),
    .state_size = sizeof(double),
    .time_offset = offsetof(decay_ctx, t),
    .xc_offset = offsetof(decay_ctx, xc),
    .xd_offset = offsetof(decay_ctx, xcdot), /* nxd = 0 */
    .nq = 0, .nv = 0, .nz = 1, .nxc = 1, .nxd = 0,
    .xc_names = decay_xc_names,
    .xd_names = NULL,
    .n_leaves = 1, .leaf_names = decay_leaf_names,
    .n_outputs = 1, .outputs = decay_outputs,
    .n_sources = 1, .sources = decay_sources,
    .n_events = 0, .events = NULL,
    .n_loggers = 0, .loggers = NULL,
    .default_accuracy = 1e-4,
    .init = decay_init,
    .set_time = decay_set_time,
    .set_accuracy = decay_set_accuracy,
    .set_xc = decay_set_xc,
    .mutable_xc = decay_mutable_xc,
    .set_state = decay_set_state,
    .calc_derivatives = decay_derivs,
    .set_caching = decay_nop_int,
    .freeze_cache = decay_nop_int,
    .invalidate_all = decay_nop,
    .set_source = decay_set_source,
    .eval_output = decay_eval_output,
    .eval_cache = decay_eval_cache,
};
