/* A configurable hand-written model for event-semantics tests.
 *
 * Context: t, accuracy, state block {xc[1], xd[4]}, then output storage.
 * Continuous state (when nxc = 1): x' = em_xcdot_value (default 1, so x
 * measures elapsed integration time).  Events are declared at run time with
 * em_add(); every handler and apply call is recorded in em_trace.
 *
 * An update handler writes buf.xd[var] = ctx.xd[src] * mul + inc (var = -2
 * targets xc[0] instead, from ctx.xc[0]); its apply copies that one value
 * from the buffer into the context.  var = -1: writes nothing.  Handlers
 * return em_specs[i].status. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"

#if defined(__GNUC__)
#define EM_UNUSED __attribute__((unused))
#else
#define EM_UNUSED
#endif

#define EM_MAX_EVENTS 16
#define EM_NXD 4
#define EM_MAX_TRACE 8192

typedef struct em_ctx {
  double t;
  double accuracy;
  double xc[1];       /* state block: xc, then xd */
  double xd[EM_NXD];
  double xcdot[1];
  double y_xd[EM_NXD];
  double y_xc[1];
} em_ctx;

typedef struct em_spec {
  int leaf, trigger, kind;
  double period, offset;
  int var, src;
  double mul, inc;
  int status;
} em_spec;

typedef struct em_rec {
  int ev;
  char what;          /* 'H' handler, 'A' apply */
  double t, xc;
  double xd[EM_NXD];  /* context xd at the call */
  double ctx_src;     /* handler: ctx.xd[src] */
  double buf_src;     /* handler: buf.xd[src] at entry (NaN for publish) */
} em_rec;

static em_spec em_specs[EM_MAX_EVENTS];
static char em_names[EM_MAX_EVENTS][32];
static diagc_event_desc em_events[EM_MAX_EVENTS];
static int em_n;
static em_rec em_trace[EM_MAX_TRACE];
static long em_ntrace;       /* records made (may exceed the capacity) */
static double em_xcdot_value = 1.0;
static long em_deriv_calls;

static void em_record(int i, char what, const em_ctx *x, const double *buf) {
  em_rec *r;
  const em_spec *sp = &em_specs[i];
  if (em_ntrace >= EM_MAX_TRACE) {
    em_ntrace++;
    return;
  }
  r = &em_trace[em_ntrace++];
  r->ev = i;
  r->what = what;
  r->t = x->t;
  r->xc = x->xc[0];
  memcpy(r->xd, x->xd, sizeof r->xd);
  r->ctx_src = sp->src >= 0 ? x->xd[sp->src] : x->xc[0];
  r->buf_src = buf ? (sp->src >= 0 ? buf[1 + sp->src] : buf[0]) : NAN;
}

/* Periodic-time checker: handler calls of event em_expect_ev must come at
 * exactly em_expect_offset + k * em_expect_period, k = 0, 1, 2, ... */
static int em_expect_ev = -1;
static double em_expect_period, em_expect_offset;
static long em_expect_k, em_expect_bad;
static double em_expect_first_bad_t;

static int em_handle(int i, void *c, void *b) {
  em_ctx *x = (em_ctx *)c;
  double *buf = (double *)b;
  const em_spec *sp = &em_specs[i];
  if (i == em_expect_ev) {
    const double want = em_expect_offset + (double)em_expect_k * em_expect_period;
    if (x->t != want && em_expect_bad++ == 0) em_expect_first_bad_t = x->t;
    em_expect_k++;
  }
  em_record(i, 'H', x, buf);
  if (buf && sp->var != -1) {
    const double from = sp->src >= 0 ? x->xd[sp->src] : x->xc[0];
    if (sp->var >= 0)
      buf[1 + sp->var] = from * sp->mul + sp->inc;
    else
      buf[0] = from * sp->mul + sp->inc;
  }
  return sp->status;
}

static void em_apply(int i, void *c, const void *b) {
  em_ctx *x = (em_ctx *)c;
  const double *buf = (const double *)b;
  const em_spec *sp = &em_specs[i];
  em_record(i, 'A', x, NULL);
  if (sp->var >= 0)
    x->xd[sp->var] = buf[1 + sp->var];
  else if (sp->var == -2)
    x->xc[0] = buf[0];
}

#define EM_STUB(i)                                                   \
  static int em_h##i(void *c, void *b) { return em_handle(i, c, b); } \
  static void em_a##i(void *c, const void *b) { em_apply(i, c, b); }
EM_STUB(0)
EM_STUB(1)
EM_STUB(2)
EM_STUB(3)
EM_STUB(4)
EM_STUB(5)
EM_STUB(6)
EM_STUB(7)
EM_STUB(8)
EM_STUB(9)
EM_STUB(10)
EM_STUB(11)
EM_STUB(12)
EM_STUB(13)
EM_STUB(14)
EM_STUB(15)
static int (*const em_hs[EM_MAX_EVENTS])(void *, void *) = {
    em_h0, em_h1, em_h2,  em_h3,  em_h4,  em_h5,  em_h6,  em_h7,
    em_h8, em_h9, em_h10, em_h11, em_h12, em_h13, em_h14, em_h15};
static void (*const em_as[EM_MAX_EVENTS])(void *, const void *) = {
    em_a0, em_a1, em_a2,  em_a3,  em_a4,  em_a5,  em_a6,  em_a7,
    em_a8, em_a9, em_a10, em_a11, em_a12, em_a13, em_a14, em_a15};

/* ---- the descriptor's functions ---------------------------------------- */

static void em_init(void *c) {
  em_ctx *x = (em_ctx *)c;
  memset(x, 0, sizeof *x);
  x->accuracy = 1e-4;
}
static void em_set_time(void *c, double t) { ((em_ctx *)c)->t = t; }
static void em_set_accuracy(void *c, double a) {
  ((em_ctx *)c)->accuracy = a;
}
static void em_set_xc(void *c, const double *xc) {
  ((em_ctx *)c)->xc[0] = xc[0];
}
static double *em_mutable_xc(void *c) { return ((em_ctx *)c)->xc; }
static void em_set_state(void *c, const void *st) {
  memcpy(((em_ctx *)c)->xc, st, sizeof(double) * (1 + EM_NXD));
}
static int em_derivs(void *c, const double **xcdot) {
  em_ctx *x = (em_ctx *)c;
  em_deriv_calls++;
  x->xcdot[0] = em_xcdot_value;
  *xcdot = x->xcdot;
  return DIAGC_OK;
}
/* Outputs: 0 "em.d" (the discrete state), 1 "em.x". */
static int em_eval_output(void *c, int i, const double **v) {
  em_ctx *x = (em_ctx *)c;
  switch (i) {
  case 0:
    memcpy(x->y_xd, x->xd, sizeof x->y_xd);
    *v = x->y_xd;
    return DIAGC_OK;
  case 1:
    x->y_xc[0] = x->xc[0];
    *v = x->y_xc;
    return DIAGC_OK;
  default:
    return DIAGC_E_INDEX;
  }
}
static void em_nop_int(void *c, int on) {
  (void)c;
  (void)on;
}
static void em_nop(void *c) { (void)c; }

static const char *const em_xc_names[] = {"em.x"};
static const char *const em_xd_names[] = {"em.d[0]", "em.d[1]", "em.d[2]",
                                          "em.d[3]"};
static const char *const em_leaf_names[] = {"a", "b", "c"};
static const diagc_value_desc em_outputs[] = {{"em.d", EM_NXD, NULL},
                                              {"em.x", 1, NULL}};
static const diagc_model em_template = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "event_model",
    .context_size = sizeof(em_ctx),
    .state_offset = offsetof(em_ctx, xc),
    .state_size = sizeof(double) * (1 + EM_NXD),
    .time_offset = offsetof(em_ctx, t),
    .xc_offset = offsetof(em_ctx, xc),
    .xd_offset = offsetof(em_ctx, xd),
    .nq = 0, .nv = 0, .nz = 0, .nxc = 0, .nxd = EM_NXD,
    .xc_names = em_xc_names,
    .xd_names = em_xd_names,
    .n_leaves = 3, .leaf_names = em_leaf_names,
    .n_outputs = 2, .outputs = em_outputs,
    .n_events = 0, .events = em_events,
    .n_loggers = 0, .loggers = NULL,
    .default_accuracy = 1e-4,
    .init = em_init,
    .set_time = em_set_time,
    .set_accuracy = em_set_accuracy,
    .set_xc = em_set_xc,
    .mutable_xc = em_mutable_xc,
    .set_state = em_set_state,
    .calc_derivatives = em_derivs,
    .set_caching = em_nop_int,
    .freeze_cache = em_nop_int,
    .invalidate_all = em_nop,
    .eval_output = em_eval_output,
};

/* ---- configuration API for tests --------------------------------------- */

EM_UNUSED static void em_reset(void) {
  memset(em_specs, 0, sizeof em_specs);
  memset(em_events, 0, sizeof em_events);
  em_n = 0;
  em_ntrace = 0;
  em_xcdot_value = 1.0;
  em_deriv_calls = 0;
  em_expect_ev = -1;
  em_expect_k = 0;
  em_expect_bad = 0;
  em_expect_first_bad_t = 0;
}

EM_UNUSED static void em_clear_trace(void) { em_ntrace = 0; }

/* Declares an event; returns its index. Defaults: var -1 (writes nothing),
 * src 0, mul 1, inc 1, status DIAGC_SUCCEEDED. */
EM_UNUSED static int em_add(const char *name, int leaf, int trigger, int kind,
                  double period, double offset) {
  int i = em_n++;
  em_spec *sp = &em_specs[i];
  sp->leaf = leaf;
  sp->trigger = trigger;
  sp->kind = kind;
  sp->period = period;
  sp->offset = offset;
  sp->var = -1;
  sp->src = 0;
  sp->mul = 1;
  sp->inc = 1;
  sp->status = DIAGC_SUCCEEDED;
  strncpy(em_names[i], name, sizeof em_names[i] - 1);
  em_names[i][sizeof em_names[i] - 1] = 0;
  return i;
}

/* An update writing xd[var] = ctx.xd[src] * mul + inc. */
EM_UNUSED static int em_add_update(const char *name, int leaf, int trigger, int kind,
                         double period, double offset, int var, int src,
                         double mul, double inc) {
  int i = em_add(name, leaf, trigger, kind, period, offset);
  em_specs[i].var = var;
  em_specs[i].src = src;
  em_specs[i].mul = mul;
  em_specs[i].inc = inc;
  return i;
}

/* The descriptor for the events declared so far. */
EM_UNUSED static diagc_model em_model(int nxc, int n_loggers,
                            const diagc_logger_desc *loggers) {
  diagc_model m = em_template;
  int i;
  for (i = 0; i < em_n; i++) {
    diagc_event_desc *e = &em_events[i];
    const em_spec *sp = &em_specs[i];
    e->name = em_names[i];
    e->leaf = sp->leaf;
    e->trigger = sp->trigger;
    e->kind = sp->kind;
    e->period = sp->period;
    e->offset = sp->offset;
    e->handler = em_hs[i];
    e->apply = sp->kind == DIAGC_PUBLISH ? NULL : em_as[i];
  }
  m.n_events = em_n;
  m.nxc = nxc;
  m.nz = nxc;
  m.n_loggers = n_loggers;
  m.loggers = loggers;
  return m;
}

/* Trace queries. */
EM_UNUSED static int em_count(int ev, char what) {
  long k;
  int n = 0;
  for (k = 0; k < em_ntrace && k < EM_MAX_TRACE; k++)
    if (em_trace[k].ev == ev && em_trace[k].what == what) n++;
  return n;
}

/* Index of the n-th (0-based) record of (ev, what), or -1. */
EM_UNUSED static long em_find(int ev, char what, int nth) {
  long k;
  for (k = 0; k < em_ntrace && k < EM_MAX_TRACE; k++)
    if (em_trace[k].ev == ev && em_trace[k].what == what && nth-- == 0)
      return k;
  return -1;
}
