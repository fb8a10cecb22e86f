/* models/forced_spring.h: a hand-written model for the batch tests
 * (tests/c/test_batch*.c): q' = v, v' = -k q + u, with sources s.q, s.v,
 * the parameter s.k and the input u, and one logger s.y = (q, v) that
 * fires every step (period 0).  Definitions: include it once per
 * program. */
#ifndef DIAGC_TEST_FORCED_SPRING_H
#define DIAGC_TEST_FORCED_SPRING_H

#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

typedef struct sp_ctx {
  double t, accuracy;
  double xc[2];
  double k, u;
  double xcdot[2], y[2];
} sp_ctx;
static void sp_init(void *c) {
  sp_ctx *x = (sp_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  x->xc[0] = 1;
  x->k = 1;
}
static void sp_set_time(void *c, double t) { ((sp_ctx *)c)->t = t; }
static void sp_set_accuracy(void *c, double a) { ((sp_ctx *)c)->accuracy = a; }
static void sp_set_xc(void *c, const double *xc) { memcpy(((sp_ctx *)c)->xc, xc, 2 * sizeof(double)); }
static double *sp_mutable_xc(void *c) { return ((sp_ctx *)c)->xc; }
static void sp_set_state(void *c, const void *st) { memcpy(((sp_ctx *)c)->xc, st, 2 * sizeof(double)); }
static int sp_derivs(void *c, const double **xcdot) {
  sp_ctx *x = (sp_ctx *)c;
  x->xcdot[0] = x->xc[1];
  x->xcdot[1] = -x->k * x->xc[0] + x->u;
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
static int sp_eval_output(void *c, int i, const double **v) {
  sp_ctx *x = (sp_ctx *)c;
  if (i != 0) return DIAGC_E_INDEX;
  x->y[0] = x->xc[0];
  x->y[1] = x->xc[1];
  *v = x->y;
  return DIAGC_OK;
}
static int sp_eval_cache(void *c, int i, const double **v) { (void)c; (void)i; (void)v; return DIAGC_E_INDEX; }
static void sp_set_source(void *c, int i, const void *v) {
  sp_ctx *x = (sp_ctx *)c;
  switch (i) {
  case 0: memcpy(&x->xc[0], v, sizeof(double)); break;
  case 1: memcpy(&x->xc[1], v, sizeof(double)); break;
  case 2: memcpy(&x->k, v, sizeof(double)); break;
  case 3: memcpy(&x->u, v, sizeof(double)); break;
  default: break;
  }
}
static void sp_nop_int(void *c, int on) { (void)c; (void)on; }
static void sp_nop(void *c) { (void)c; }
static const char *const sp_xc_names[] = {"s.q", "s.v"};
static const char *const sp_leaf_names[] = {"s"};
static const diagc_value_desc sp_outputs[] = {{"s.y", 2, NULL}};
static const diagc_source_desc sp_sources[] = {
    {"s.q", DIAGC_SRC_Q, 1, offsetof(sp_ctx, xc), sizeof(double)},
    {"s.v", DIAGC_SRC_V, 1, offsetof(sp_ctx, xc) + sizeof(double), sizeof(double)},
    {"s.k", DIAGC_SRC_PN, 1, offsetof(sp_ctx, k), sizeof(double)},
    {"u", DIAGC_SRC_INPUT, 1, offsetof(sp_ctx, u), sizeof(double)}};
static const diagc_logger_desc sp_loggers[] = {{"s.y", 0, 2, 0.0}};
static const diagc_model sp_model = {
    .abi_version = DIAGC_ABI_VERSION, .name = "sp", .context_size = sizeof(sp_ctx),
    .state_offset = offsetof(sp_ctx, xc), .state_size = 2 * sizeof(double),
    .time_offset = offsetof(sp_ctx, t), .xc_offset = offsetof(sp_ctx, xc),
    .xd_offset = offsetof(sp_ctx, k), .nq = 1, .nv = 1, .nxc = 2, .nxd = 0,
    .xc_names = sp_xc_names, .n_leaves = 1, .leaf_names = sp_leaf_names,
    .n_outputs = 1, .outputs = sp_outputs, .n_sources = 4, .sources = sp_sources,
    .n_loggers = 1, .loggers = sp_loggers, .default_accuracy = 1e-4,
    .init = sp_init, .set_time = sp_set_time, .set_accuracy = sp_set_accuracy,
    .set_xc = sp_set_xc, .mutable_xc = sp_mutable_xc, .set_state = sp_set_state,
    .calc_derivatives = sp_derivs, .set_caching = sp_nop_int, .freeze_cache = sp_nop_int,
    .invalidate_all = sp_nop, .set_source = sp_set_source, .eval_output = sp_eval_output,
    .eval_cache = sp_eval_cache,
};

#endif
