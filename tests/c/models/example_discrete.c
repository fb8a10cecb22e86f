/* Drake's ExampleDiscreteSystem (discrete-systems page), written by hand as
 * a diagc_model, with a logger of its output every period:
 *   x_{n+1} = x_n + 1,  y_n = 10 x_n,  x_0 = 0,  h = 1/50, offset 0.
 * One leaf "example"; state block = xd. */
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

typedef struct ed_ctx {
  double t;
  double accuracy;
  double xd[1]; /* the state block */
  double y[1];  /* output storage */
} ed_ctx;

#define ED_PERIOD (1 / 50.)

static void ed_init(void *c) {
  ed_ctx *x = (ed_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
}
static void ed_set_time(void *c, double t) { ((ed_ctx *)c)->t = t; }
static void ed_set_accuracy(void *c, double a) { ((ed_ctx *)c)->accuracy = a; }
static void ed_set_state(void *c, const void *st) {
  memcpy(((ed_ctx *)c)->xd, st, sizeof(double));
}
/* Output 0: "example.Sn" = 10 x. */
static int ed_eval_output(void *c, int i, const double **v) {
  ed_ctx *x = (ed_ctx *)c;
  switch (i) {
  case 0:
    x->y[0] = 10 * x->xd[0];
    *v = x->y;
    return DIAGC_OK;
  default:
    return DIAGC_E_INDEX;
  }
}
static int ed_update(void *c, void *buf) {
  const ed_ctx *x = (const ed_ctx *)c;
  double *b = (double *)buf;
  b[0] = x->xd[0] + 1.;
  return DIAGC_SUCCEEDED;
}
static void ed_apply(void *c, const void *buf) {
  memcpy(((ed_ctx *)c)->xd, buf, sizeof(double));
}
/* Source 0: the discrete state. */
static void ed_set_source(void *c, int i, const void *v) {
  switch (i) {
  case 0:
    memcpy(((ed_ctx *)c)->xd, v, sizeof(double));
    break;
  default:
    break;
  }
}
static void ed_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void ed_nop(void *c) { (void)c; }

static const char *const ed_xd_names[] = {"example.x[0]"};
static const char *const ed_leaf_names[] = {"example"};
static const diagc_value_desc ed_outputs[] = {{"example.Sn", 1, NULL}};
static const diagc_source_desc ed_sources[] = {
    {"example.xd0", DIAGC_SRC_XD, 1, offsetof(ed_ctx, xd), sizeof(double)}};
static const diagc_event_desc ed_events[] = {
    {"example.update", 0, DIAGC_TRIGGER_PERIODIC, DIAGC_DISCRETE_UPDATE,
     ED_PERIOD, 0., ed_update, ed_apply}};
static const diagc_logger_desc ed_loggers[] = {
    {"example.Sn", 0, 1, ED_PERIOD}};

const diagc_model example_discrete_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "example_discrete",
    .context_size = sizeof(ed_ctx),
    .state_offset = offsetof(ed_ctx, xd),
    .state_size = sizeof(double),
    .time_offset = offsetof(ed_ctx, t),
    .xc_offset = offsetof(ed_ctx, xd), /* nxc = 0 */
    .xd_offset = offsetof(ed_ctx, xd),
    .nq = 0, .nv = 0, .nz = 0, .nxc = 0, .nxd = 1,
    .xc_names = NULL,
    .xd_names = ed_xd_names,
    .n_leaves = 1, .leaf_names = ed_leaf_names,
    .n_outputs = 1, .outputs = ed_outputs,
    .n_cache = 0, .cache = NULL,
    .n_sources = 1, .sources = ed_sources,
    .n_events = 1, .events = ed_events,
    .n_loggers = 1, .loggers = ed_loggers,
    .default_accuracy = 1e-4,
    .init = ed_init,
    .set_time = ed_set_time,
    .set_accuracy = ed_set_accuracy,
    .set_state = ed_set_state,
    .set_caching = ed_nop_int,
    .freeze_cache = ed_nop_int,
    .invalidate_all = ed_nop,
    .set_source = ed_set_source,
    .eval_output = ed_eval_output,
};
