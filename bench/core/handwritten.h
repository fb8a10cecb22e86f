/* bench/handwritten.h: the hand-written floor for bench/run, with the same
 * API shape as the generated models (set a source, evaluate an output). */
#ifndef DIAGC_BENCH_HANDWRITTEN_H
#define DIAGC_BENCH_HANDWRITTEN_H

#ifndef CHAIN_N
#define CHAIN_N 1000
#endif

typedef struct hand_pt3 {
  double u[7], y1[7], y2[7], y3[7];
  int stale;
} hand_pt3;

void hand_pt3_init(hand_pt3 *c);
void hand_pt3_set_input(hand_pt3 *c, const double *v);
const double *hand_pt3_eval(hand_pt3 *c);

typedef struct hand_chain {
  double u;
  double b[CHAIN_N];
  double y[CHAIN_N];
  int first_stale; /* y[first_stale..] must be recomputed */
} hand_chain;

void hand_chain_init(hand_chain *c);
void hand_chain_set_input(hand_chain *c, const double *v);
void hand_chain_set_b(hand_chain *c, int i, const double *v);
const double *hand_chain_eval(hand_chain *c);

#ifndef WIDE_N
#define WIDE_N 1000
#endif
#define WIDE_NLAG (WIDE_N / 10)

/* bench/core/specs/wide.lua.in: 2-wide affine leaves y = k .* u + b, every
 * tenth a lag (zdot = (k .* u - z) / tau, y = z) */
typedef struct hand_wide {
  double u[2];
  double k[WIDE_N][2], b[WIDE_N][2], tau[WIDE_N][2]; /* b of affines, tau of lags */
  double z[WIDE_NLAG][2];
  double y[WIDE_N][2];
  double zdot[WIDE_NLAG][2];
  int stale; /* z changed: recompute from the first lag on */
} hand_wide;

void hand_wide_init(hand_wide *c);
void hand_wide_set_xc(hand_wide *c, const double *v);
const double *hand_wide_derivatives(hand_wide *c);

#endif
