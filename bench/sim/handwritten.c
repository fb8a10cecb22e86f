/* Hand-written C for bench/sim: the pendulum and the 100-mass chain of
 * bench/sim/specs/ as (1) diagc_model descriptors with direct derivative
 * code (what a careful programmer would write to use diagc's simulator
 * without the generator) and (2) plain fixed-step RK4 loops.  The
 * arithmetic matches the specs' calc bodies term for term. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "diagc/model.h"
#include "handwritten.h"

/* ---- pendulum ------------------------------------------------------------ */

typedef struct hw_pend_ctx {
  double t, accuracy;
  double xc[2];
  double xcdot[2];
  double length, gravity, damping;
} hw_pend_ctx;

static void pend_f(const double *x, double *d, double l, double g, double b) {
  d[0] = x[1];
  d[1] = -(g / l) * sin(x[0]) - b * x[1];
}

static void hp_init(void *c) {
  hw_pend_ctx *p = (hw_pend_ctx *)c;
  memset(p, 0, sizeof *p);
  p->accuracy = 1e-4;
  p->xc[0] = 0.5;
  p->length = 1.0;
  p->gravity = 9.81;
  p->damping = 0.1;
}
static void hp_set_time(void *c, double t) { ((hw_pend_ctx *)c)->t = t; }
static void hp_set_accuracy(void *c, double a) { ((hw_pend_ctx *)c)->accuracy = a; }
static void hp_set_xc(void *c, const double *x) { memcpy(((hw_pend_ctx *)c)->xc, x, 2 * sizeof(double)); }
static double *hp_mutable_xc(void *c) { return ((hw_pend_ctx *)c)->xc; }
static void hp_set_state(void *c, const void *s) { memcpy(((hw_pend_ctx *)c)->xc, s, 2 * sizeof(double)); }
static int hp_derivs(void *c, const double **out) {
  hw_pend_ctx *p = (hw_pend_ctx *)c;
  pend_f(p->xc, p->xcdot, p->length, p->gravity, p->damping);
  *out = p->xcdot;
  return 0;
}
static void nop_int(void *c, int on) { (void)c; (void)on; }
static void nop(void *c) { (void)c; }

const diagc_model hw_pendulum_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "hw_pendulum",
    .context_size = sizeof(hw_pend_ctx),
    .state_offset = offsetof(hw_pend_ctx, xc),
    .state_size = 2 * sizeof(double),
    .time_offset = offsetof(hw_pend_ctx, t),
    .xc_offset = offsetof(hw_pend_ctx, xc),
    .xd_offset = offsetof(hw_pend_ctx, xcdot),
    .nq = 1, .nv = 1, .nz = 0, .nxc = 2, .nxd = 0,
    .default_accuracy = 1e-4,
    .init = hp_init,
    .set_time = hp_set_time,
    .set_accuracy = hp_set_accuracy,
    .set_xc = hp_set_xc,
    .mutable_xc = hp_mutable_xc,
    .set_state = hp_set_state,
    .calc_derivatives = hp_derivs,
    .set_caching = nop_int,
    .freeze_cache = nop_int,
    .invalidate_all = nop,
};

/* ---- chain --------------------------------------------------------------- */

typedef struct hw_chain_ctx {
  double t, accuracy;
  double xc[2 * HW_CHAIN_N]; /* q (all), v (all) */
  double xcdot[2 * HW_CHAIN_N];
  double k[HW_CHAIN_N], c[HW_CHAIN_N], m[HW_CHAIN_N];
} hw_chain_ctx;

static void chain_f(const double *x, double *d, const double *k,
                    const double *c, const double *m) {
  const int n = HW_CHAIN_N;
  int i;
  for (i = 0; i < n; i++) {
    const double left = i > 0 ? x[i - 1] : 0.0;
    const double right = i < n - 1 ? x[i + 1] : 0.0;
    d[i] = x[n + i];
    d[n + i] = (k[i] * (left - 2.0 * x[i] + right) - c[i] * x[n + i]) / m[i];
  }
}

static void hc_init(void *c) {
  hw_chain_ctx *p = (hw_chain_ctx *)c;
  int i;
  memset(p, 0, sizeof *p);
  p->accuracy = 1e-4;
  for (i = 0; i < HW_CHAIN_N; i++) {
    p->k[i] = 1.0;
    p->c[i] = 0.01;
    p->m[i] = 1.0;
  }
}
static void hc_set_time(void *c, double t) { ((hw_chain_ctx *)c)->t = t; }
static void hc_set_accuracy(void *c, double a) { ((hw_chain_ctx *)c)->accuracy = a; }
static void hc_set_xc(void *c, const double *x) { memcpy(((hw_chain_ctx *)c)->xc, x, sizeof ((hw_chain_ctx *)c)->xc); }
static double *hc_mutable_xc(void *c) { return ((hw_chain_ctx *)c)->xc; }
static void hc_set_state(void *c, const void *s) { memcpy(((hw_chain_ctx *)c)->xc, s, sizeof ((hw_chain_ctx *)c)->xc); }
static int hc_derivs(void *c, const double **out) {
  hw_chain_ctx *p = (hw_chain_ctx *)c;
  chain_f(p->xc, p->xcdot, p->k, p->c, p->m);
  *out = p->xcdot;
  return 0;
}

const diagc_model hw_chain_model = {
    .abi_version = DIAGC_ABI_VERSION,
    .name = "hw_chain",
    .context_size = sizeof(hw_chain_ctx),
    .state_offset = offsetof(hw_chain_ctx, xc),
    .state_size = 2 * HW_CHAIN_N * sizeof(double),
    .time_offset = offsetof(hw_chain_ctx, t),
    .xc_offset = offsetof(hw_chain_ctx, xc),
    .xd_offset = offsetof(hw_chain_ctx, xcdot),
    .nq = HW_CHAIN_N, .nv = HW_CHAIN_N, .nz = 0, .nxc = 2 * HW_CHAIN_N, .nxd = 0,
    .default_accuracy = 1e-4,
    .init = hc_init,
    .set_time = hc_set_time,
    .set_accuracy = hc_set_accuracy,
    .set_xc = hc_set_xc,
    .mutable_xc = hc_mutable_xc,
    .set_state = hc_set_state,
    .calc_derivatives = hc_derivs,
    .set_caching = nop_int,
    .freeze_cache = nop_int,
    .invalidate_all = nop,
};

/* ---- plain RK4 loops ----------------------------------------------------- */

#define RK4_LOOP(N, F)                                                       \
  do {                                                                       \
    double k1[N], k2[N], k3[N], k4[N], xt[N];                                \
    long s;                                                                  \
    int i;                                                                   \
    for (s = 0; s < steps; s++) {                                            \
      F(x, k1);                                                              \
      for (i = 0; i < N; i++) xt[i] = x[i] + k1[i] * (h / 2);                \
      F(xt, k2);                                                             \
      for (i = 0; i < N; i++) xt[i] = x[i] + k2[i] * (h / 2);                \
      F(xt, k3);                                                             \
      for (i = 0; i < N; i++) xt[i] = x[i] + k3[i] * h;                      \
      F(xt, k4);                                                             \
      for (i = 0; i < N; i++)                                                \
        x[i] = x[i] + (k1[i] * (h / 6) + k2[i] * (h / 3) + k3[i] * (h / 3) + \
                       k4[i] * (h / 6));                                     \
    }                                                                        \
  } while (0)

#define PEND_F(xx, dd) pend_f(xx, dd, 1.0, 9.81, 0.1)
void hw_rk4_pendulum(double *x, double h, long steps) { RK4_LOOP(2, PEND_F); }

static const double *chain_k, *chain_c, *chain_m;
#define CHAIN_F(xx, dd) chain_f(xx, dd, chain_k, chain_c, chain_m)
void hw_rk4_chain(double *x, double h, long steps) {
  static double k[HW_CHAIN_N], c[HW_CHAIN_N], m[HW_CHAIN_N];
  int i;
  for (i = 0; i < HW_CHAIN_N; i++) {
    k[i] = 1.0;
    c[i] = 0.01;
    m[i] = 1.0;
  }
  chain_k = k;
  chain_c = c;
  chain_m = m;
  RK4_LOOP(2 * HW_CHAIN_N, CHAIN_F);
}

/* Right-hand sides for GSL (same arithmetic). */
void hw_pendulum_f(const double *x, double *d) { PEND_F(x, d); }
void hw_chain_f(const double *x, double *d) {
  static double k[HW_CHAIN_N], c[HW_CHAIN_N], m[HW_CHAIN_N];
  static int ready;
  int i;
  if (!ready) {
    for (i = 0; i < HW_CHAIN_N; i++) {
      k[i] = 1.0;
      c[i] = 0.01;
      m[i] = 1.0;
    }
    ready = 1;
  }
  chain_f(x, d, k, c, m);
}
