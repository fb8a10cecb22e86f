/* Sample-and-hold: a counter d (discrete, period SH_H, offset 0,
 * d_{n+1} = d_n + 1, d_0 = 0) drives an integrator x' = d (x(0) = 0).
 * Two leaves: "counter" (event) and "integ" (continuous).  Every derivative
 * evaluation records (t, d) in sh_evals; output "integ.x" is logged every
 * SH_H.  With updates at n*h, x(k*h) = h * k (k + 1) / 2. */
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

#define SH_H 0.1
#define SH_MAX_EVALS 4096

typedef struct sh_ctx {
  double t;
  double accuracy;
  double xc[1]; /* state block: xc then xd */
  double xd[1];
  double xcdot[1];
  double y[1];
} sh_ctx;

static double sh_eval_t[SH_MAX_EVALS], sh_eval_d[SH_MAX_EVALS];
static long sh_nevals;

static void sh_init(void *c) {
  sh_ctx *x = (sh_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
}
static void sh_set_time(void *c, double t) { ((sh_ctx *)c)->t = t; }
static void sh_set_accuracy(void *c, double a) {
  ((sh_ctx *)c)->accuracy = a;
}
static void sh_set_xc(void *c, const double *xc) {
  ((sh_ctx *)c)->xc[0] = xc[0];
}
static double *sh_mutable_xc(void *c) { return ((sh_ctx *)c)->xc; }
static void sh_set_state(void *c, const void *st) {
  memcpy(((sh_ctx *)c)->xc, st, 2 * sizeof(double));
}
static int sh_derivs(void *c, const double **xcdot) {
  sh_ctx *x = (sh_ctx *)c;
  if (sh_nevals < SH_MAX_EVALS) {
    sh_eval_t[sh_nevals] = x->t;
    sh_eval_d[sh_nevals] = x->xd[0];
  }
  sh_nevals++;
  x->xcdot[0] = x->xd[0];
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
/* Output 0: "integ.x". */
static int sh_eval_output(void *c, int i, const double **v) {
  sh_ctx *x = (sh_ctx *)c;
  switch (i) {
  case 0:
    x->y[0] = x->xc[0];
    *v = x->y;
    return DIAGC_OK;
  default:
    return DIAGC_E_INDEX;
  }
}
static int sh_update(void *c, void *buf) {
  const sh_ctx *x = (const sh_ctx *)c;
  double *b = (double *)buf; /* b[0] = xc, b[1] = xd */
  b[1] = x->xd[0] + 1;
  return DIAGC_SUCCEEDED;
}
static void sh_apply(void *c, const void *buf) {
  memcpy(((sh_ctx *)c)->xd, (const double *)buf + 1, sizeof(double));
}
static void sh_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void sh_nop(void *c) { (void)c; }

static const char *const sh_xc_names[] = {"integ.x"};
static const char *const sh_xd_names[] = {"counter.d[0]"};
static const char *const sh_leaf_names[] = {"counter", "integ"};
static const diagc_value_desc sh_outputs[] = {{"integ.x", 1, NULL}};
static const diagc_event_desc sh_events[] = {
    {"counter.tick", 0, DIAGC_TRIGGER_PERIODIC, DIAGC_DISCRETE_UPDATE, SH_H,
     0., sh_update, sh_apply}};
static const diagc_logger_desc sh_loggers[] = {{"integ.x", 0, 1, SH_H}};

const diagc_model sample_hold_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "sample_hold",
    .context_size = sizeof(sh_ctx),
    .state_offset = offsetof(sh_ctx, xc),
    .state_size = 2 * sizeof(double),
    .time_offset = offsetof(sh_ctx, t),
    .xc_offset = offsetof(sh_ctx, xc),
    .xd_offset = offsetof(sh_ctx, xd),
    .nq = 0, .nv = 0, .nz = 1, .nxc = 1, .nxd = 1,
    .xc_names = sh_xc_names,
    .xd_names = sh_xd_names,
    .n_leaves = 2, .leaf_names = sh_leaf_names,
    .n_outputs = 1, .outputs = sh_outputs,
    .n_events = 1, .events = sh_events,
    .n_loggers = 1, .loggers = sh_loggers,
    .default_accuracy = 1e-4,
    .init = sh_init,
    .set_time = sh_set_time,
    .set_accuracy = sh_set_accuracy,
    .set_xc = sh_set_xc,
    .mutable_xc = sh_mutable_xc,
    .set_state = sh_set_state,
    .calc_derivatives = sh_derivs,
    .set_caching = sh_nop_int,
    .freeze_cache = sh_nop_int,
    .invalidate_all = sh_nop,
    .eval_output = sh_eval_output,
};
