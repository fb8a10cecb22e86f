/* bench/eval_bench.c: invalidate-and-eval benchmarks (bench/run builds it).
 *
 *   pt3          PassThrough3: set the 7-wide diagram input, eval the output
 *   chain_input  CHAIN_N-leaf chain: set the diagram input, eval the last y
 *   chain_param  same chain: set parameter b of system CHAIN_PARAM_SYS, eval
 *   wide_xc      WIDE_N-leaf wide chain (specs/wide.lua.in): set the
 *                continuous state, evaluate the time derivatives (the
 *                simulator's step; the root's xcdot schedule)
 *
 * Three implementations of each, each in its own translation unit and
 * called through the same kind of API: the diagc-generated model, the
 * hand-written floor (handwritten.c) and the Drake-style tracker reference
 * (tracker_ref.c).  Every iteration writes a new value, so nothing can be
 * skipped, and the outputs feed a checksum that is printed and compared. */
#include "harness.h"

#include <string.h>

#include "chain.h"
#include "handwritten.h"
#include "pt3.h"
#include "pt3cnt.h" /* the same model built with its per-entry counters */
#include "tracker_ref.h"
#include "wide.h"

#ifndef CHAIN_PARAM_SYS
#define CHAIN_PARAM_SYS 500
#endif
#define PASTE2(a, b) a##b
#define PASTE(a, b) PASTE2(a, b)

/* Generated API names (docs/generated-c-api.md); bench/run reads the real
 * names from the generated headers and passes them with -D. */
#ifndef PT3_SET_INPUT
#define PT3_SET_INPUT pt3_set_input_u
#endif
#ifndef PT3CNT_SET_INPUT
#define PT3CNT_SET_INPUT pt3cnt_set_input_u
#endif
#ifndef PT3_EVAL_Y
#define PT3_EVAL_Y pt3_eval_y
#endif
#ifndef PT3CNT_EVAL_Y
#define PT3CNT_EVAL_Y pt3cnt_eval_y
#endif
#ifndef CHAIN_SET_INPUT
#define CHAIN_SET_INPUT chain_set_input_u
#endif
#ifndef CHAIN_EVAL_Y
#define CHAIN_EVAL_Y chain_eval_y
#endif
#ifndef CHAIN_SET_PARAM
#define CHAIN_SET_PARAM PASTE(PASTE(chain_set_s, CHAIN_PARAM_SYS), __b)
#endif

#ifndef WIDE_SET_INPUT
#define WIDE_SET_INPUT wide_set_input_u
#endif
#ifndef WIDE_SET_XC
#define WIDE_SET_XC wide_set_xc
#endif
#ifndef WIDE_DERIVATIVES
#define WIDE_DERIVATIVES wide_calc_derivatives
#endif

#define U0 0.25

static double pt3_value(long i, int k) { return (double)(i & 1023) + 0.125 * k; }
static double chain_u(long i) { return 0.5 * (double)(i & 1023); }
static double chain_b(long i) { return 0.001 * (double)(i & 1023); }

/* ---------------- PassThrough3 ---------------- */

static pt3_context g_pt3;
static hand_pt3 h_pt3;
static tr_system *t_pt3_sys;
static tr_context *t_pt3_ctx;
static tr_fixed_input *t_pt3_in;

static double pt3_generated(long iters)
{
  double v[7], sum = 0;
  long i;
  int k;
  for (i = 0; i < iters; ++i) {
    const double *y;
    for (k = 0; k < 7; ++k) v[k] = pt3_value(i, k);
    PT3_SET_INPUT(&g_pt3, v);
    if (PT3_EVAL_Y(&g_pt3, &y) != 0) abort();
    sum += y[0] + y[6];
  }
  return sum;
}

static pt3cnt_context g_pt3cnt;

static double pt3_generated_counters(long iters)
{
  double v[7], sum = 0;
  long i;
  int k;
  for (i = 0; i < iters; ++i) {
    const double *y;
    for (k = 0; k < 7; ++k) v[k] = pt3_value(i, k);
    PT3CNT_SET_INPUT(&g_pt3cnt, v);
    if (PT3CNT_EVAL_Y(&g_pt3cnt, &y) != 0) abort();
    sum += y[0] + y[6];
  }
  return sum;
}

static double pt3_handwritten(long iters)
{
  double v[7], sum = 0;
  long i;
  int k;
  for (i = 0; i < iters; ++i) {
    const double *y;
    for (k = 0; k < 7; ++k) v[k] = pt3_value(i, k);
    hand_pt3_set_input(&h_pt3, v);
    y = hand_pt3_eval(&h_pt3);
    sum += y[0] + y[6];
  }
  return sum;
}

static double pt3_tracker(long iters)
{
  double sum = 0;
  long i;
  int k;
  for (i = 0; i < iters; ++i) {
    const tr_vector *y;
    tr_vector *u = tr_fixed_input_get_mutable_vector(t_pt3_in);
    if (u->size != 7) abort();
    for (k = 0; k < 7; ++k) u->data[k] = pt3_value(i, k);
    y = tr_eval_output(t_pt3_sys, 0, t_pt3_ctx);
    sum += y->data[0] + y->data[6];
  }
  return sum;
}

/* PassThrough: y = u (Drake's PassThrough<double>(7)) */
static void pass_through_calc(const tr_system *s, const tr_context *c, tr_value *out)
{
  tr_vector *y = tr_value_mutable_vector(out);
  const tr_vector *u = tr_eval_vector_input(s, c, 0);
  int i;
  if (u->size != y->size) abort();
  for (i = 0; i < y->size; ++i) y->data[i] = u->data[i];
}

static void setup_pt3(void)
{
  tr_system *leaf[3];
  double zero[7] = { 0 };
  int i;
  pt3_init(&g_pt3);
  pt3cnt_init(&g_pt3cnt);
  hand_pt3_init(&h_pt3);
  t_pt3_sys = tr_diagram_new("pt3");
  for (i = 0; i < 3; ++i) {
    int u;
    leaf[i] = tr_leaf_new("PassThrough7");
    u = tr_declare_input_port(leaf[i], 7);
    tr_leaf_declare_output_port(leaf[i], 7, pass_through_calc, 1, &u);
    tr_diagram_add(t_pt3_sys, leaf[i]);
  }
  tr_diagram_connect(t_pt3_sys, leaf[0], 0, leaf[1], 0);
  tr_diagram_connect(t_pt3_sys, leaf[1], 0, leaf[2], 0);
  tr_diagram_export_input(t_pt3_sys, leaf[0], 0);
  tr_diagram_export_output(t_pt3_sys, leaf[2], 0);
  tr_diagram_finalize(t_pt3_sys);
  t_pt3_ctx = tr_allocate_context(t_pt3_sys);
  t_pt3_in = tr_fix_input(t_pt3_ctx, 0, 7, zero);
}

/* ---------------- chain ---------------- */

static chain_context g_chain_in, g_chain_p;
static hand_chain h_chain_in, h_chain_p;
static tr_system *t_chain_sys;
static tr_context *t_chain_in_ctx, *t_chain_p_ctx;
static tr_fixed_input *t_chain_in_u;

static double chain_input_generated(long iters)
{
  double sum = 0;
  long i;
  for (i = 0; i < iters; ++i) {
    const double *y;
    double v = chain_u(i);
    CHAIN_SET_INPUT(&g_chain_in, &v);
    if (CHAIN_EVAL_Y(&g_chain_in, &y) != 0) abort();
    sum += y[0];
  }
  return sum;
}

static double chain_input_handwritten(long iters)
{
  double sum = 0;
  long i;
  for (i = 0; i < iters; ++i) {
    double v = chain_u(i);
    hand_chain_set_input(&h_chain_in, &v);
    sum += hand_chain_eval(&h_chain_in)[0];
  }
  return sum;
}

static double chain_input_tracker(long iters)
{
  double sum = 0;
  long i;
  for (i = 0; i < iters; ++i) {
    tr_vector *u = tr_fixed_input_get_mutable_vector(t_chain_in_u);
    u->data[0] = chain_u(i);
    sum += tr_eval_output(t_chain_sys, 0, t_chain_in_ctx)->data[0];
  }
  return sum;
}

static double chain_param_generated(long iters)
{
  double sum = 0;
  long i;
  for (i = 0; i < iters; ++i) {
    const double *y;
    double b = chain_b(i);
    CHAIN_SET_PARAM(&g_chain_p, &b);
    if (CHAIN_EVAL_Y(&g_chain_p, &y) != 0) abort();
    sum += y[0];
  }
  return sum;
}

static double chain_param_handwritten(long iters)
{
  double sum = 0;
  long i;
  for (i = 0; i < iters; ++i) {
    double b = chain_b(i);
    hand_chain_set_b(&h_chain_p, CHAIN_PARAM_SYS - 1, &b);
    sum += hand_chain_eval(&h_chain_p)[0];
  }
  return sum;
}

static tr_context *t_chain_p_sub;

static double chain_param_tracker(long iters)
{
  double sum = 0;
  long i;
  for (i = 0; i < iters; ++i) {
    tr_vector *b = tr_get_mutable_numeric_parameter(t_chain_p_sub, 0);
    b->data[0] = chain_b(i);
    sum += tr_eval_output(t_chain_sys, 0, t_chain_p_ctx)->data[0];
  }
  return sum;
}

/* AddBias: y = u + b */
static void add_bias_calc(const tr_system *s, const tr_context *c, tr_value *out)
{
  tr_vector *y = tr_value_mutable_vector(out);
  const tr_vector *u = tr_eval_vector_input(s, c, 0);
  const tr_vector *b = tr_get_numeric_parameter(c, 0);
  y->data[0] = u->data[0] + b->data[0];
}

static void setup_chain(void)
{
  static tr_system *leaf[CHAIN_N];
  double u0 = U0;
  int i;
  chain_init(&g_chain_in);
  chain_init(&g_chain_p);
  CHAIN_SET_INPUT(&g_chain_in, &u0);
  CHAIN_SET_INPUT(&g_chain_p, &u0);
  hand_chain_init(&h_chain_in);
  hand_chain_init(&h_chain_p);
  hand_chain_set_input(&h_chain_in, &u0);
  hand_chain_set_input(&h_chain_p, &u0);
  t_chain_sys = tr_diagram_new("chain");
  for (i = 0; i < CHAIN_N; ++i) {
    int pre[2];
    leaf[i] = tr_leaf_new("AddBias");
    pre[1] = tr_leaf_declare_numeric_parameter(leaf[i], 1, 0.001);
    pre[0] = tr_declare_input_port(leaf[i], 1);
    tr_leaf_declare_output_port(leaf[i], 1, add_bias_calc, 2, pre);
    tr_diagram_add(t_chain_sys, leaf[i]);
  }
  for (i = 0; i + 1 < CHAIN_N; ++i) tr_diagram_connect(t_chain_sys, leaf[i], 0, leaf[i + 1], 0);
  tr_diagram_export_input(t_chain_sys, leaf[0], 0);
  tr_diagram_export_output(t_chain_sys, leaf[CHAIN_N - 1], 0);
  tr_diagram_finalize(t_chain_sys);
  t_chain_in_ctx = tr_allocate_context(t_chain_sys);
  t_chain_in_u = tr_fix_input(t_chain_in_ctx, 0, 1, &u0);
  t_chain_p_ctx = tr_allocate_context(t_chain_sys);
  tr_fix_input(t_chain_p_ctx, 0, 1, &u0);
  t_chain_p_sub = tr_subcontext(t_chain_p_ctx, CHAIN_PARAM_SYS - 1);
}

/* ---------------- wide chain ---------------- */

static wide_context g_wide;
static hand_wide h_wide;
static double wide_xc[2 * WIDE_NLAG];

static void wide_fill_xc(long i)
{
  int j;
  for (j = 0; j < 2 * WIDE_NLAG; ++j) wide_xc[j] = 0.001 * (double)(i & 1023) + 0.01 * j;
}

static double wide_xc_generated(long iters)
{
  double sum = 0;
  long i;
  for (i = 0; i < iters; ++i) {
    const double *d;
    wide_fill_xc(i);
    WIDE_SET_XC(&g_wide, wide_xc);
    if (WIDE_DERIVATIVES(&g_wide, &d) != 0) abort();
    sum += d[0] + d[2 * WIDE_NLAG - 1];
  }
  return sum;
}

static double wide_xc_handwritten(long iters)
{
  double sum = 0;
  long i;
  for (i = 0; i < iters; ++i) {
    const double *d;
    wide_fill_xc(i);
    hand_wide_set_xc(&h_wide, wide_xc);
    d = hand_wide_derivatives(&h_wide);
    sum += d[0] + d[2 * WIDE_NLAG - 1];
  }
  return sum;
}

static void setup_wide(void)
{
  double u0[2] = { 0, 0 };
  if (WIDE_NXC != 2 * WIDE_NLAG) abort();
  wide_init(&g_wide);
  WIDE_SET_INPUT(&g_wide, u0);
  hand_wide_init(&h_wide);
}

/* Notifications per iteration of the tracker reference. */
static void tracker_stats(const char *scenario, tr_context *ctx, bench_fn fn)
{
  tr_stats a, b;
  const long k = 100;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  tr_collect_stats(ctx, &a);
  fn(k);
  tr_collect_stats(ctx, &b);
  /* STATS scenario trackers subscriptions cache_values value_change/iter
   *       prereq/iter ignored/iter sent/iter */
  printf("STATS %s %lld %lld %lld %.1f %.1f %.1f %.1f\n", scenario, (long long)b.trackers,
         (long long)b.subscriptions, (long long)b.cache_values,
         (double)(b.value_change_received - a.value_change_received) / k,
         (double)(b.prereq_received - a.prereq_received) / k,
         (double)(b.ignored - a.ignored) / k, (double)(b.sent - a.sent) / k);
}

int main(int argc, char **argv)
{
  double scale = argc > 1 ? atof(argv[1]) : 1.0; /* iteration multiplier */
  int reps = argc > 2 ? atoi(argv[2]) : 15;
  bench_case pt3[4] = { { "generated", pt3_generated, 0, 0, 0, { 0 }, 0 },
                        { "handwritten", pt3_handwritten, 0, 0, 0, { 0 }, 0 },
                        { "tracker_ref", pt3_tracker, 0, 0, 0, { 0 }, 0 },
                        { "generated_counters", pt3_generated_counters, 0, 0, 0, { 0 }, 0 } };
  bench_case cin[3] = { { "generated", chain_input_generated, 0, 0, 0, { 0 }, 0 },
                        { "handwritten", chain_input_handwritten, 0, 0, 0, { 0 }, 0 },
                        { "tracker_ref", chain_input_tracker, 0, 0, 0, { 0 }, 0 } };
  bench_case cpar[3] = { { "generated", chain_param_generated, 0, 0, 0, { 0 }, 0 },
                         { "handwritten", chain_param_handwritten, 0, 0, 0, { 0 }, 0 },
                         { "tracker_ref", chain_param_tracker, 0, 0, 0, { 0 }, 0 } };
  bench_case wxc[2] = { { "generated", wide_xc_generated, 0, 0, 0, { 0 }, 0 },
                        { "handwritten", wide_xc_handwritten, 0, 0, 0, { 0 }, 0 } };
  setup_pt3();
  setup_chain();
  setup_wide();
  if (scale <= 0) scale = 1;
  printf("CONFIG chain_n %d chain_param_sys %d\n", CHAIN_N, CHAIN_PARAM_SYS);
  bench_run("pt3", pt3, 4, (long)(200000 * scale), reps);
  tracker_stats("pt3", t_pt3_ctx, pt3_tracker);
  bench_run("chain_input", cin, 3, (long)(2000 * scale), reps);
  tracker_stats("chain_input", t_chain_in_ctx, chain_input_tracker);
  bench_run("chain_param", cpar, 3, (long)(2000 * scale), reps);
  tracker_stats("chain_param", t_chain_p_ctx, chain_param_tracker);
  bench_run("wide_xc", wxc, 2, (long)(1000 * scale), reps);
  return 0;
}
