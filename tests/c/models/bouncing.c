/* A bouncing ball (one leaf "ball"): y' = v, v' = -g, dropped from y0 at
 * rest.  Two witnesses:
 *   ball.ground: w = y, positive-to-non-positive, fires the unrestricted
 *                update v <- -e v (at the start of the next step);
 *   ball.apex:   w = v, either direction, fires a publish that records the
 *                time and height (v changes sign only at an apex: the
 *                bounce's jump happens between steps). */
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

#define BB_MAX 64
typedef struct bb_ctx {
  double t;
  double accuracy;
  double xc[2]; /* state block: y, v */
  double xcdot[2];
} bb_ctx;

static double bb_g = 9.81, bb_e = 0.8, bb_y0 = 1.0;
static int bb_n_bounce, bb_n_apex;
static double bb_bounce_t[BB_MAX], bb_apex_t[BB_MAX], bb_apex_y[BB_MAX];

static void bb_init(void *c) {
  bb_ctx *x = (bb_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
  x->xc[0] = bb_y0;
}
static void bb_set_time(void *c, double t) { ((bb_ctx *)c)->t = t; }
static void bb_set_accuracy(void *c, double a) { ((bb_ctx *)c)->accuracy = a; }
static void bb_set_xc(void *c, const double *xc) {
  memcpy(((bb_ctx *)c)->xc, xc, 2 * sizeof(double));
}
static double *bb_mutable_xc(void *c) { return ((bb_ctx *)c)->xc; }
static void bb_set_state(void *c, const void *st) {
  memcpy(((bb_ctx *)c)->xc, st, 2 * sizeof(double));
}
static int bb_derivs(void *c, const double **xcdot) {
  bb_ctx *x = (bb_ctx *)c;
  x->xcdot[0] = x->xc[1];
  x->xcdot[1] = -bb_g;
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
static int bb_w_ground(void *c, double *w) {
  *w = ((bb_ctx *)c)->xc[0];
  return 0;
}
static int bb_w_apex(void *c, double *w) {
  *w = ((bb_ctx *)c)->xc[1];
  return 0;
}
static int bb_bounce(void *c, void *buf) {
  bb_ctx *x = (bb_ctx *)c;
  double *b = (double *)buf;
  b[1] = -bb_e * x->xc[1];
  if (bb_n_bounce < BB_MAX) bb_bounce_t[bb_n_bounce] = x->t;
  bb_n_bounce++;
  return DIAGC_SUCCEEDED;
}
static void bb_apply(void *c, const void *buf) {
  memcpy(((bb_ctx *)c)->xc, buf, 2 * sizeof(double));
}
static int bb_apex(void *c, void *buf) {
  bb_ctx *x = (bb_ctx *)c;
  (void)buf;
  if (bb_n_apex < BB_MAX) {
    bb_apex_t[bb_n_apex] = x->t;
    bb_apex_y[bb_n_apex] = x->xc[0];
  }
  bb_n_apex++;
  return DIAGC_SUCCEEDED;
}
static void bb_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void bb_nop(void *c) { (void)c; }

static const char *const bb_xc_names[] = {"ball.y", "ball.v"};
static const char *const bb_leaf_names[] = {"ball"};
static const diagc_event_desc bb_events[] = {
    {"ball.bounce", 0, DIAGC_TRIGGER_WITNESS, DIAGC_UNRESTRICTED_UPDATE, 0, 0,
     bb_bounce, bb_apply},
    {"ball.apex", 0, DIAGC_TRIGGER_WITNESS, DIAGC_PUBLISH, 0, 0, bb_apex, NULL},
};
static const diagc_witness_desc bb_witnesses[] = {
    {"ball.ground", 0, DIAGC_WITNESS_POSITIVE_TO_NONPOSITIVE, bb_w_ground, 0},
    {"ball.apex", 0, DIAGC_WITNESS_CROSSING, bb_w_apex, 1},
};

const diagc_model bb_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "ball",
    .context_size = sizeof(bb_ctx),
    .state_offset = offsetof(bb_ctx, xc),
    .state_size = 2 * sizeof(double),
    .time_offset = offsetof(bb_ctx, t),
    .xc_offset = offsetof(bb_ctx, xc),
    .xd_offset = offsetof(bb_ctx, xcdot),
    .nq = 1, .nv = 1, .nz = 0, .nxc = 2, .nxd = 0,
    .xc_names = bb_xc_names,
    .n_leaves = 1, .leaf_names = bb_leaf_names,
    .n_events = 2, .events = bb_events,
    .default_accuracy = 1e-4,
    .init = bb_init,
    .set_time = bb_set_time,
    .set_accuracy = bb_set_accuracy,
    .set_xc = bb_set_xc,
    .mutable_xc = bb_mutable_xc,
    .set_state = bb_set_state,
    .calc_derivatives = bb_derivs,
    .set_caching = bb_nop_int,
    .freeze_cache = bb_nop_int,
    .invalidate_all = bb_nop,
    .n_witnesses = 2, .witnesses = bb_witnesses,
};
