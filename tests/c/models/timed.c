/* One-shot timed events (a next_update_time item, Drake's
 * DoCalcNextUpdateTime override): leaf "w" wakes at t = 2^n, where n
 * (xd[0]) counts its wake-ups; the wake-up (discrete update "w.wake")
 * sets n += 1 and last (xd[1]) = t.  A periodic discrete update "w.tick"
 * every TM_PERIOD s counts ticks (xd[2]) and records the n it saw (xd[3]).
 * A clock c' = 1 (leaf "clock") makes the simulator integrate between
 * events.  The output "w.n" is logged every step. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

#define TM_PERIOD 1.0

typedef struct tm_ctx {
  double t;
  double accuracy;
  double xc[1];
  double xd[4]; /* n, last, ticks, seen */
  double xcdot[1];
  double y[1];
  int wake_calls;   /* calls of the next-update calc */
  int bad;          /* 1: the calc returns the current time */
} tm_ctx;

static void tm_init(void *c) {
  tm_ctx *x = (tm_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  x->xd[1] = -1;
  x->xd[3] = -1;
}
static void tm_set_time(void *c, double t) { ((tm_ctx *)c)->t = t; }
static void tm_set_xc(void *c, const double *xc) {
  ((tm_ctx *)c)->xc[0] = xc[0];
}
static double *tm_mutable_xc(void *c) { return ((tm_ctx *)c)->xc; }
static int tm_derivs(void *c, const double **xcdot) {
  tm_ctx *x = (tm_ctx *)c;
  x->xcdot[0] = 1.0;
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
/* Output 0: "w.n". */
static int tm_eval_output(void *c, int i, const double **v) {
  tm_ctx *x = (tm_ctx *)c;
  switch (i) {
  case 0:
    x->y[0] = x->xd[0];
    *v = x->y;
    return DIAGC_OK;
  default:
    return DIAGC_E_INDEX;
  }
}
static int tm_next(void *c, double *t_next) {
  tm_ctx *x = (tm_ctx *)c;
  x->wake_calls++;
  *t_next = x->bad ? x->t : ldexp(1.0, (int)x->xd[0]);
  return 0;
}
static int tm_wake(void *c, void *buf) {
  const tm_ctx *x = (const tm_ctx *)c;
  double *b = (double *)buf; /* b[0] = xc, b[1..4] = xd */
  b[1] = x->xd[0] + 1;
  b[2] = x->t;
  return DIAGC_SUCCEEDED;
}
static void tm_apply_wake(void *c, const void *buf) {
  memcpy(((tm_ctx *)c)->xd, (const double *)buf + 1, 2 * sizeof(double));
}
static int tm_tick(void *c, void *buf) {
  const tm_ctx *x = (const tm_ctx *)c;
  double *b = (double *)buf;
  b[3] = x->xd[2] + 1;
  b[4] = x->xd[0];
  return DIAGC_SUCCEEDED;
}
static void tm_apply_tick(void *c, const void *buf) {
  memcpy(((tm_ctx *)c)->xd + 2, (const double *)buf + 3, 2 * sizeof(double));
}

static const char *const tm_xc_names[] = {"clock.c"};
static const char *const tm_xd_names[] = {"w.n", "w.last", "w.ticks",
                                          "w.seen"};
static const char *const tm_leaf_names[] = {"clock", "w"};
static const diagc_value_desc tm_outputs[] = {{"w.n", 1, NULL}};
static const diagc_event_desc tm_events[] = {
    {"w.wake", 1, DIAGC_TRIGGER_TIMED, DIAGC_DISCRETE_UPDATE, 0., 0., tm_wake,
     tm_apply_wake},
    {"w.tick", 1, DIAGC_TRIGGER_PERIODIC, DIAGC_DISCRETE_UPDATE, TM_PERIOD, 0.,
     tm_tick, tm_apply_tick}};
static const diagc_timed_desc tm_timed[] = {{"w.wake", 1, tm_next, 0}};
static const diagc_logger_desc tm_loggers[] = {{"w.n", 0, 1, 0.}};

const diagc_model timed_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "timed",
    .context_size = sizeof(tm_ctx),
    .state_offset = offsetof(tm_ctx, xc),
    .state_size = 5 * sizeof(double),
    .time_offset = offsetof(tm_ctx, t),
    .xc_offset = offsetof(tm_ctx, xc),
    .xd_offset = offsetof(tm_ctx, xd),
    .nq = 0, .nv = 0, .nz = 1, .nxc = 1, .nxd = 4,
    .xc_names = tm_xc_names,
    .xd_names = tm_xd_names,
    .n_leaves = 2, .leaf_names = tm_leaf_names,
    .n_outputs = 1, .outputs = tm_outputs,
    .n_events = 2, .events = tm_events,
    .n_loggers = 1, .loggers = tm_loggers,
    .default_accuracy = 1e-4,
    .init = tm_init,
    .set_time = tm_set_time,
    .set_xc = tm_set_xc,
    .mutable_xc = tm_mutable_xc,
    .calc_derivatives = tm_derivs,
    .eval_output = tm_eval_output,
    .n_timed = 1, .timed = tm_timed,
};
