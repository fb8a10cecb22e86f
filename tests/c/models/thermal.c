/* A room under a slow thermostat: T' = (Ta + q - T) / tau (continuous,
 * leaf "room"), and a controller (leaf "ctrl", periodic discrete update
 * every TH_PERIOD s) that sets the heating q = TH_HEAT while T < TH_SET,
 * else 0, and counts its updates in n.  The output "room.T" is logged
 * every TH_PERIOD s.
 *
 * Fault injection (fields of the context, 0 = off, set before
 * diagc_sim_initialize): the update numbered inject_xd (1-based) writes
 * inject_value into n (xd[1]) instead of its count; from
 * t >= inject_out_t (> 0) the logged output is inject_value. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

#define TH_PERIOD 10.0
#define TH_TAU 300.0
#define TH_TA 10.0
#define TH_HEAT 20.0
#define TH_SET 20.0

typedef struct th_ctx {
  double t;
  double accuracy;
  double xc[1]; /* state block: xc then xd */
  double xd[2]; /* q, n */
  double xcdot[1];
  double y[1];
  int inject_xd;
  double inject_value;
  double inject_out_t;
} th_ctx;

static void th_init(void *c) {
  th_ctx *x = (th_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  x->xc[0] = 15.0;
}
static void th_set_time(void *c, double t) { ((th_ctx *)c)->t = t; }
static void th_set_accuracy(void *c, double a) {
  ((th_ctx *)c)->accuracy = a;
}
static void th_set_xc(void *c, const double *xc) {
  ((th_ctx *)c)->xc[0] = xc[0];
}
static double *th_mutable_xc(void *c) { return ((th_ctx *)c)->xc; }
static void th_set_state(void *c, const void *st) {
  memcpy(((th_ctx *)c)->xc, st, 3 * sizeof(double));
}
static int th_derivs(void *c, const double **xcdot) {
  th_ctx *x = (th_ctx *)c;
  x->xcdot[0] = (TH_TA + x->xd[0] - x->xc[0]) / TH_TAU;
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
/* Output 0: "room.T" (or the injected value from inject_out_t on). */
static int th_eval_output(void *c, int i, const double **v) {
  th_ctx *x = (th_ctx *)c;
  switch (i) {
  case 0:
    x->y[0] = (x->inject_out_t > 0 && x->t >= x->inject_out_t)
                  ? x->inject_value
                  : x->xc[0];
    *v = x->y;
    return DIAGC_OK;
  default:
    return DIAGC_E_INDEX;
  }
}
static int th_update(void *c, void *buf) {
  const th_ctx *x = (const th_ctx *)c;
  double *b = (double *)buf; /* b[0] = xc, b[1] = q, b[2] = n */
  b[1] = x->xc[0] < TH_SET ? TH_HEAT : 0.0;
  b[2] = x->xd[1] + 1;
  if (x->inject_xd > 0 && (int)b[2] == x->inject_xd) b[2] = x->inject_value;
  return DIAGC_SUCCEEDED;
}
static void th_apply(void *c, const void *buf) {
  memcpy(((th_ctx *)c)->xd, (const double *)buf + 1, 2 * sizeof(double));
}
static void th_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void th_nop(void *c) { (void)c; }

static const char *const th_xc_names[] = {"room.T"};
static const char *const th_xd_names[] = {"ctrl.q", "ctrl.n"};
static const char *const th_leaf_names[] = {"room", "ctrl"};
static const diagc_value_desc th_outputs[] = {{"room.T", 1, NULL}};
static const diagc_event_desc th_events[] = {
    {"ctrl.update", 1, DIAGC_TRIGGER_PERIODIC, DIAGC_DISCRETE_UPDATE,
     TH_PERIOD, 0., th_update, th_apply}};
static const diagc_logger_desc th_loggers[] = {{"room.T", 0, 1, TH_PERIOD}};

const diagc_model thermal_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "thermal",
    .context_size = sizeof(th_ctx),
    .state_offset = offsetof(th_ctx, xc),
    .state_size = 3 * sizeof(double),
    .time_offset = offsetof(th_ctx, t),
    .xc_offset = offsetof(th_ctx, xc),
    .xd_offset = offsetof(th_ctx, xd),
    .nq = 0, .nv = 0, .nz = 1, .nxc = 1, .nxd = 2,
    .xc_names = th_xc_names,
    .xd_names = th_xd_names,
    .n_leaves = 2, .leaf_names = th_leaf_names,
    .n_outputs = 1, .outputs = th_outputs,
    .n_events = 1, .events = th_events,
    .n_loggers = 1, .loggers = th_loggers,
    .default_accuracy = 1e-4,
    .init = th_init,
    .set_time = th_set_time,
    .set_accuracy = th_set_accuracy,
    .set_xc = th_set_xc,
    .mutable_xc = th_mutable_xc,
    .set_state = th_set_state,
    .calc_derivatives = th_derivs,
    .set_caching = th_nop_int,
    .freeze_cache = th_nop_int,
    .invalidate_all = th_nop,
    .eval_output = th_eval_output,
};
