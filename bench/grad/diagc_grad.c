/* bench/grad/diagc_grad.c: diagc's side of the step-Jacobian benchmark
 * (issue #18): on examples/world/{cartpole, stack, arm_push}.lua compiled
 * by bin/diagc, at one settled state of each scene, the time of one world
 * step (the world leaf's `work` cache entry), of all the Jacobians of that
 * step (its `grad` entry: dcw_<world>_step_jacobians) and of central
 * finite differences of the step, in tangent coordinates; with checks of
 * the Jacobians against those differences.  Built once per scene by
 * bench/grad/run with
 *   -DPFX=<diagram name> -DHEADER="<spec>.h" -DWORLD=dcw_<world>
 * and run as
 *   diagc_grad SCENE SETTLE QUICK
 *
 * SCENE: cartpole, stack or arm.  The diagram settles SETTLE steps of 1 ms
 * from its initial state under its controller (diagc_sim), as
 * mujoco_grad.c does; every timed call then starts from that state:
 *   step: restore the state block (a few hundred bytes, as mujoco_grad's
 *     restore), mark every cache entry stale, evaluate `work` (the step,
 *     with the controller's output as effort);
 *   jac: with `work` up to date, mark `grad` stale (its bit in valid[])
 *     and evaluate it: the Jacobians alone;
 *   fd: central differences of the step in tangent coordinates, eps 1e-6:
 *     2 (2 nv + nu) calls of dcw_<world>_step (the generated step the leaf
 *     runs) with pos, vel or effort perturbed (a ball or free joint's
 *     rotation by q (x) exp(d/2), through dcw_<world>_integrate), and the
 *     difference of the results (q' in tangent coordinates).
 * Time per call: the best over 11 rounds of the mean over a batch of at
 * least 30 ms, the batches of the three interleaved (QUICK: 2 rounds of
 * 5 ms).
 *
 * Profiling: `diagc_grad SCENE SETTLE QUICK step|jac|fd SECONDS` runs
 * the checks, then only calls of that kind for SECONDS (under perf
 * record), and prints their time per call.
 *
 * Output, tab-separated:
 *   DIAGC  scene step_us jac_us fd_us nv nu contacts kinks err_guarded
 *          err_plain smooth_cols cols
 *   CHECK  scene what ok|FAIL value
 *   INFO   scene what value
 * contacts, kinks: the grad entry's (kinks: rows or contacts at a mode
 * boundary, where the Jacobians are one-sided).  err_*: the largest
 * |Jacobian - central difference| / max(1, |central difference|) (as
 * tests/lua/world_grad_test.lua; INFO lines add the largest difference
 * per block, pos_pos, vel_pos, force_pos, pos_vel, vel_vel, force_vel,
 * relative to the block's largest entry): err_plain against the plain differences
 * (eps 1e-6), err_guarded against the differences with the active-set
 * guard of lcp-and-contact §5 (testing/step_jacobians.lua's: a column's
 * step halves from 1e-6 until both perturbed steps keep the nominal
 * step's mode, its grad entry's row classes, active rows, bounces, normal
 * targets and contacts; a column with none down to 1e-12 is a kink and
 * is left out), on smooth_cols of the cols = 2 nv + nu columns.  Only
 * err_guarded > 1e-4 fails (the settled scenes sit at contact kinks, where
 * the plain differences straddle two modes).  Compile with -DCONTACT_MODE
 * when the world has contact pairs (its grad entry has cls[]). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include HEADER
#include "diagc/simulator.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CTX CAT(PFX, _context)
#define MODEL CAT(PFX, _model)
#define WORK CAT(WORLD, _work)
#define GRAD CAT(WORLD, _grad)

#define EPS 1e-6
#define NV ((int)(sizeof(((WORK *)0)->v_next) / sizeof(double)))
#define NQ ((int)(sizeof(((WORK *)0)->q_next) / sizeof(double)))
#define NCOL ((int)(sizeof(((GRAD *)0)->T) / sizeof(double)) / (2 * NV))
#define NDX (2 * NV)

static const double DT = 1e-3;

/* a scene: the output port the example connects to the world's effort
 * (NULL: none), its size, and the world's joints in order ('s' a scalar
 * dof: revolute or prismatic; 'f' free; 'b' ball) */
typedef struct {
  const char *name, *effort;
  int nu;
  const char *joints;
} scene;

static const scene SCENES[] = {
  {"cartpole", "pd.force", 1, "ss"},
  {"stack", NULL, 0, "fffff"},
  {"arm", "pd.tau", 3, "sssf"},
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void check(const char *name, const char *what, int ok, double value) {
  printf("CHECK\t%s\t%s\t%s\t%.3e\n", name, what, ok ? "ok" : "FAIL", value);
}

static int find(const char *what, int n, const char *(*name)(int), const char *want) {
  for (int i = 0; i < n; i++)
    if (!strcmp(name(i), want)) return i;
  fprintf(stderr, "diagc_grad: no %s '%s' in %s\n", what, want, MODEL.name);
  exit(2);
}
static const char *source_name(int i) { return MODEL.sources[i].name; }
static const char *cache_name(int i) { return MODEL.cache[i].name; }
static const char *output_name(int i) { return MODEL.outputs[i].name; }

/* the world leaf in the diagram: its state and cache entries */
typedef struct {
  const scene *s;
  int nu, work, grad, effort;     /* cache / output indices (effort -1: none) */
  size_t pos, vel, info, imp;     /* byte offsets of its state in the context */
  int has_imp;
  char path[256];
} leaf;

static void find_leaf(const scene *s, leaf *w) {
  w->s = s;
  w->work = -1;
  for (int i = 0; i < MODEL.n_cache; i++) {
    const char *n = MODEL.cache[i].name, *dot = strrchr(n, '.');
    if (dot && !strcmp(dot, ".work")) {
      snprintf(w->path, sizeof w->path, "%.*s", (int)(dot - n), n);
      w->work = i;
    }
  }
  if (w->work < 0) { fprintf(stderr, "diagc_grad: %s has no world\n", MODEL.name); exit(2); }
  char buf[300];
#define AT(field, suffix) \
  (snprintf(buf, sizeof buf, "%s.%s", w->path, suffix), \
   w->field = MODEL.sources[find("source", MODEL.n_sources, source_name, buf)].offset)
  AT(pos, "pos");
  AT(vel, "vel");
  AT(info, "info");
  w->has_imp = 0;
  for (int i = 0; i < MODEL.n_sources; i++) {
    snprintf(buf, sizeof buf, "%s.imp", w->path);
    if (!strcmp(MODEL.sources[i].name, buf)) { w->imp = MODEL.sources[i].offset; w->has_imp = 1; }
  }
#undef AT
  snprintf(buf, sizeof buf, "%s.grad", w->path);
  w->grad = find("cache entry", MODEL.n_cache, cache_name, buf);
  w->nu = s->nu;
  w->effort = s->effort ? find("output", MODEL.n_outputs, output_name, s->effort) : -1;
}

static const double *at(const void *ctx, size_t off) { return (const double *)(const void *)((const char *)ctx + off); }

/* the effort the step reads (the controller's output), or NULL */
static const double *effort_of(CTX *c, const leaf *w) {
  const double *u = NULL;
  if (w->effort >= 0 && MODEL.eval_output(c, w->effort, &u) != 0) return NULL;
  return u;
}

/* ---- tangent coordinates (docs/world.md, "Gradients") */

static void qmul(const double *a, const double *b, double *o) {
  o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  o[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  o[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* (qa (-) qb) / h in tangent coordinates (nv) */
static void difference(const char *joints, const double *qa, const double *qb, double h, double *d) {
  int iq = 0, iv = 0;
  for (const char *j = joints; *j; j++) {
    int lin = *j == 's' ? 1 : *j == 'f' ? 3 : 0;
    for (int r = 0; r < lin; r++, iq++, iv++) d[iv] = (qa[iq] - qb[iq]) / h;
    if (*j == 's') continue;
    double bc[4] = {qb[iq], -qb[iq + 1], -qb[iq + 2], -qb[iq + 3]}, r[4];
    qmul(bc, qa + iq, r);
    if (r[0] < 0) for (int k = 0; k < 4; k++) r[k] = -r[k];
    double n = sqrt(r[1] * r[1] + r[2] * r[2] + r[3] * r[3]), th = 2 * atan2(n, r[0]);
    for (int k = 0; k < 3; k++) d[iv + k] = n > 0 ? th * r[k + 1] / n / h : 0;
    iq += 4, iv += 3;
  }
}

/* ---- the differences of the step */

typedef struct {
  double q[NQ], v[NV], u[NV + 1], e[NV];  /* the state and effort of the step */
  double qp[NQ], vp[NV], up[NV + 1];      /* perturbed */
  const double *imp, *info;
  WORK wp, wm;                            /* the steps at +eps and -eps */
  double Jfd[NDX * NCOL];                 /* [q'; v'] x [dq, dv, effort] */
  double Jg[NDX * NCOL];                  /* the same, guarded */
  double fwd[NDX * NCOL], bwd[NDX * NCOL]; /* one-sided differences (checks only) */
} fdiff;

static fdiff FD;

/* one step at the state of F with column c of [dq, dv, effort] moved by
 * h; the perturbed inputs are kept in F->qp, vp, up */
static void step_at(fdiff *F, const leaf *w, int c, double h, WORK *out) {
  memcpy(F->qp, F->q, sizeof F->qp);
  memcpy(F->vp, F->v, sizeof F->vp);
  memcpy(F->up, F->u, sizeof F->up);
  if (c < NV) {
    for (int k = 0; k < NV; k++) F->e[k] = k == c ? h : 0;
    CAT(WORLD, _integrate)(F->q, F->e, 1.0, F->qp);
  } else if (c < 2 * NV) F->vp[c - NV] += h;
  else F->up[c - 2 * NV] += h;
  CAT(WORLD, _step)(F->qp, F->vp, F->imp, w->nu ? F->up : NULL, F->info, out);
}

/* the column c of the difference of two steps (a - b) / h into J */
static void column(const leaf *w, const WORK *a, const WORK *b, double h, int c, double *J) {
  double d[NV];
  difference(w->s->joints, a->q_next, b->q_next, h, d);
  for (int i = 0; i < NV; i++) {
    J[i * NCOL + c] = d[i];
    J[(NV + i) * NCOL + c] = (a->v_next[i] - b->v_next[i]) / h;
  }
}

/* central differences of the step: 2 (2 nv + nu) steps, eps 1e-6;
 * returns the number of steps that failed */
static int central(fdiff *F, const leaf *w) {
  int bad = 0;
  for (int c = 0; c < NDX + w->nu; c++) {
    step_at(F, w, c, EPS, &F->wp);
    step_at(F, w, c, -EPS, &F->wm);
    bad += (F->wp.status != 0) + (F->wm.status != 0);
    column(w, &F->wp, &F->wm, 2 * EPS, c, F->Jfd);
  }
  return bad;
}

/* forward and backward differences (the same stencil's halves) */
static void one_sided(fdiff *F, const leaf *w, const WORK *w0) {
  for (int c = 0; c < NDX + w->nu; c++) {
    step_at(F, w, c, EPS, &F->wp);
    step_at(F, w, c, -EPS, &F->wm);
    column(w, &F->wp, w0, EPS, c, F->fwd);
    column(w, w0, &F->wm, EPS, c, F->bwd);
  }
}

/* ---- the active-set guard of lcp-and-contact §5, as
 * testing/step_jacobians.lua: a perturbed step's mode (the row classes,
 * the rows with a nonzero impulse, the bounces, the normal targets' terms,
 * the contacts: its grad entry's) must be the nominal step's */

static GRAD GS;  /* the grad of a perturbed step (its mode) */

static int same_mode(const GRAD *a, const GRAD *b) {
  if (a->contacts != b->contacts) return 0;
#ifdef CONTACT_MODE
  int n = a->contacts;
  return !memcmp(a->cls, b->cls, 3 * n * sizeof(int)) && !memcmp(a->active, b->active, 3 * n * sizeof(int)) &&
         !memcmp(a->bounce, b->bounce, n * sizeof(int)) && !memcmp(a->target, b->target, n * sizeof(int));
#else
  return 1;
#endif
}

/* the step at column c moved by h keeps the mode of g0 */
static int keeps_mode(fdiff *F, const leaf *w, int c, double h, WORK *out, const GRAD *g0) {
  step_at(F, w, c, h, out);
  if (out->status != 0) return 0;
  CAT(WORLD, _step_jacobians)(F->qp, F->vp, w->nu ? F->up : NULL, out, &GS);
  return same_mode(&GS, g0);
}

/* guarded central differences into F->Jg: a column's step halves from
 * 1e-6 until both sides keep the nominal mode; below 1e-12 the column is
 * a kink (NaN, skipped by the comparison).  Returns the kink columns. */
static int guarded(fdiff *F, const leaf *w, const GRAD *g0) {
  int kinks = 0;
  for (int c = 0; c < NDX + w->nu; c++) {
    double h = EPS;
    while (h >= 1e-12 && !(keeps_mode(F, w, c, h, &F->wp, g0) && keeps_mode(F, w, c, -h, &F->wm, g0))) h /= 2;
    if (h >= 1e-12) column(w, &F->wp, &F->wm, 2 * h, c, F->Jg);
    else {
      kinks++;
      for (int i = 0; i < NDX; i++) F->Jg[i * NCOL + c] = NAN;
    }
  }
  return kinks;
}

/* ---- comparison, by block: rows q' / v', columns dq / dv / effort */

static double block_err(const double *A, const double *B, int r0, int c0, int nc, double *scale) {
  double e = 0, s = 0;
  for (int i = r0; i < r0 + NV; i++)
    for (int j = c0; j < c0 + nc; j++) {
      if (isnan(B[i * NCOL + j])) continue;  /* a kink column of the guarded differences */
      e = fmax(e, fabs(A[i * NCOL + j] - B[i * NCOL + j]));
      s = fmax(s, fabs(B[i * NCOL + j]));
    }
  *scale = s;
  return s > 0 ? e / s : e;
}

static const char *BLOCKS[6] = {"pos_pos", "vel_pos", "force_pos", "pos_vel", "vel_vel", "force_vel"};

/* the largest relative error over the blocks (printed as INFO) */
static double compare(const char *name, const leaf *w, const double *A, const double *B, const char *what, int print) {
  double worst = 0, sc;
  for (int r = 0; r < 2; r++)
    for (int b = 0; b < 3; b++) {
      int c0 = b * NV, nc = b < 2 ? NV : w->nu;
      if (nc == 0) continue;
      double e = block_err(A, B, r * NV, c0, nc, &sc);
      worst = fmax(worst, e);
      if (print) printf("INFO\t%s\t%s_%s_rel_err(max|entry|=%.3g)\t%.3e\n", name, what, BLOCKS[3 * r + b], sc, e);
    }
  return worst;
}

/* the largest |A - B| / max(1, |B|) over the 2 nv + nu columns
 * (tests/lua/world_grad_test.lua's measure: relative where |B| > 1),
 * skipping NaN (kink) columns of B */
static double mixed_err(const leaf *w, const double *A, const double *B) {
  double e = 0;
  for (int i = 0; i < NDX; i++)
    for (int j = 0; j < NDX + w->nu; j++)
      if (!isnan(B[i * NCOL + j])) e = fmax(e, fabs(A[i * NCOL + j] - B[i * NCOL + j]) / fmax(1, fabs(B[i * NCOL + j])));
  return e;
}

/* entries where the forward and backward differences disagree by more
 * than 1e-4 of their block's largest entry: a kink inside the stencil */
static int stencil_kinks(const leaf *w, const fdiff *F) {
  int n = 0;
  for (int r = 0; r < 2; r++)
    for (int b = 0; b < 3; b++) {
      int c0 = b * NV, nc = b < 2 ? NV : w->nu;
      double sc;
      block_err(F->fwd, F->Jfd, r * NV, c0, nc, &sc);
      for (int i = r * NV; i < r * NV + NV; i++)
        for (int j = c0; j < c0 + nc; j++) n += fabs(F->fwd[i * NCOL + j] - F->bwd[i * NCOL + j]) > 1e-4 * sc;
    }
  return n;
}

/* ---- timing */

enum { STEP, JAC, FDIFF, NWHAT };

typedef struct {
  CTX *c;
  const CTX *settled;
  const leaf *w;
  int work_word, grad_word;
  uint64_t grad_bit;
} bench;

static int call(int what, bench *B) {
  CTX *c = B->c;
  if (what == STEP) {
    memcpy((char *)c + MODEL.state_offset, (const char *)B->settled + MODEL.state_offset, MODEL.state_size);
    CAT(PFX, _invalidate_all)(c);
    return CAT(PFX, __eval_entry)(c, B->w->work);
  }
  if (what == JAC) {
    c->valid[B->grad_word] &= ~B->grad_bit;
    return CAT(PFX, __eval_entry)(c, B->w->grad);
  }
  return central(&FD, B->w);
}

/* the mean time of n calls, in microseconds per call */
static double batch(int what, bench *B, int n) {
  int bad = 0;
  if (what == JAC) bad |= CAT(PFX, __eval_entry)(B->c, B->w->work);  /* work up to date first */
  double t0 = now();
  for (int k = 0; k < n; k++) bad |= call(what, B);
  double us = (now() - t0) / n * 1e6;
  if (bad) { fprintf(stderr, "diagc_grad: a timed call failed\n"); exit(1); }
  return us;
}

static void timed(bench *B, int reps, double target_ms, double us[NWHAT]) {
  int n[NWHAT];
  for (int w = 0; w < NWHAT; w++) {
    n[w] = 1;
    while (batch(w, B, n[w]) * n[w] < target_ms * 1e3) n[w] *= 2;
    us[w] = INFINITY;
  }
  for (int r = 0; r < reps; r++)
    for (int w = 0; w < NWHAT; w++) us[w] = fmin(us[w], batch(w, B, n[w]));
}

/* profiling (perf record): only calls of one kind, for a given time */
static int PROFILE = -1;
static double PROFILE_S;

static void profile(bench *B) {
  long n = 0;
  double t0 = now();
  if (PROFILE == JAC) CAT(PFX, __eval_entry)(B->c, B->w->work);
  while (now() - t0 < PROFILE_S)
    for (int k = 0; k < 16; k++, n++) call(PROFILE, B);
  printf("PROFILE\t%s\t%ld calls\t%.3f us/call\n", B->w->s->name, n, (now() - t0) / n * 1e6);
}

/* ---- one scene */

static int all_finite(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

static int run(const scene *s, int settle, int quick) {
  leaf w;
  find_leaf(s, &w);
  diagc_sim *sim = diagc_sim_create(&MODEL, NULL);
  if (!sim || diagc_sim_initialize(sim) != 0 || diagc_sim_advance_to(sim, (settle - 0.5) * DT) != 0) {
    fprintf(stderr, "diagc_grad: %s: cannot settle %d steps\n", s->name, settle);
    return 1;
  }
  CTX *settled = malloc(sizeof(CTX)), *c = malloc(sizeof(CTX));
  memcpy(settled, diagc_sim_context(sim), sizeof(CTX));
  diagc_sim_destroy(sim);
  CAT(PFX, _invalidate_all)(settled);
  memcpy(c, settled, sizeof(CTX));
  int fail = 0;
#define CHECK(what, cond, value) do { int ok_ = (cond); fail |= !ok_; check(s->name, what, ok_, value); } while (0)

  /* the step and its Jacobians through the context */
  const WORK *wk = NULL;
  const GRAD *g = NULL;
  int rc = MODEL.eval_cache(c, w.work, (const double **)(const void *)&wk);
  rc |= MODEL.eval_cache(c, w.grad, (const double **)(const void *)&g);
  if (rc || !wk || !g) { fprintf(stderr, "diagc_grad: %s: cannot evaluate work/grad\n", s->name); return 1; }
  int nu_grad = (int)(sizeof g->force_vel / sizeof(double)) / NV;
  int jq = 0, jv = 0;
  for (const char *j = s->joints; *j; j++) jq += *j == 's' ? 1 : *j == 'f' ? 7 : 4, jv += *j == 's' ? 1 : *j == 'f' ? 6 : 3;
  CHECK("dims(nq,nv,nu)_as_the_scene's_joints", jq == NQ && jv == NV && nu_grad == s->nu && NCOL >= NDX + s->nu,
        NV * 100 + s->nu);
  CHECK("work_status_0", wk->status == 0, wk->status);
  CHECK("grad_status_0", g->status == 0, g->status);
  CHECK("jacobians_finite", all_finite(g->T, NDX * NCOL) && all_finite(g->pos_pos, NV * NV) &&
        all_finite(g->vel_pos, NV * NV) && all_finite(g->pos_vel, NV * NV) && all_finite(g->vel_vel, NV * NV),
        NDX * NCOL);
  printf("INFO\t%s\tgrad(contacts,clamped,rank,kinks,bounces)\t%d,%d,%d,%d,%d\n", s->name, g->contacts, g->clamped,
         g->rank, g->kinks, g->bounces);
  if (strcmp(s->name, "cartpole")) CHECK("contacts_active", g->contacts > 0, g->contacts);

  /* the finite-difference state: the inputs the leaf's step read */
  memcpy(FD.q, at(c, w.pos), sizeof FD.q);
  memcpy(FD.v, at(c, w.vel), sizeof FD.v);
  const double *u = effort_of(c, &w);
  for (int i = 0; i < w.nu; i++) FD.u[i] = u[i];
  FD.info = at(c, w.info);
  FD.imp = w.has_imp ? at(c, w.imp) : NULL;
  static WORK w0;
  CAT(WORLD, _step)(FD.q, FD.v, FD.imp, w.nu ? FD.u : NULL, FD.info, &w0);
  CHECK("direct_step_eq_context_work", !memcmp(w0.q_next, wk->q_next, sizeof w0.q_next) &&
        !memcmp(w0.v_next, wk->v_next, sizeof w0.v_next), 0);

  bench B = {c, settled, &w, w.work / 64, w.grad / 64, UINT64_C(1) << (w.grad % 64)};
  if (PROFILE >= 0) { profile(&B); free(settled), free(c); return fail; }

  /* the Jacobians against central differences: plain (eps 1e-6), and
   * guarded (the columns whose stencil keeps the nominal mode) */
  int nfail = central(&FD, &w), ncols = NDX + w.nu;
  CHECK("fd_steps_status_0", nfail == 0, nfail);
  compare(s->name, &w, g->T, FD.Jfd, "model_vs_central", 1);
  double err_plain = mixed_err(&w, g->T, FD.Jfd);
  printf("INFO\t%s\tmodel_vs_central_max|d|/max(1,|fd|)\t%.3e\n", s->name, err_plain);
  one_sided(&FD, &w, &w0);
  printf("INFO\t%s\tcentral_fd_entries_forward_vs_backward_over_1e-4max|block|\t%d/%d\n", s->name,
         stencil_kinks(&w, &FD), NDX * ncols);
  int fd_kinks = guarded(&FD, &w, g);
  printf("INFO\t%s\tguarded_fd_kink_columns(mode_changes_down_to_1e-12)\t%d/%d\n", s->name, fd_kinks, ncols);
  compare(s->name, &w, g->T, FD.Jg, "model_vs_guarded", 1);
  double err = mixed_err(&w, g->T, FD.Jg);
  CHECK("model_jacobians_vs_guarded_central_fd(max|d|/max(1,|fd|)<=1e-4)", err <= 1e-4, err);
  central(&FD, &w);  /* the timed loop's differences start from the same state */

  /* the timed calls recompute: poison, evaluate, compare */
  double T0 = g->T[0], q0 = wk->q_next[0];
  ((GRAD *)(void *)(uintptr_t)g)->T[0] = NAN;
  call(JAC, &B);
  CHECK("jac_call_recomputes_grad", g->T[0] == T0, 0);
  ((WORK *)(void *)(uintptr_t)wk)->q_next[0] = NAN;
  call(STEP, &B);
  CHECK("step_call_recomputes_work", wk->q_next[0] == q0, 0);
  call(JAC, &B);

  /* timing */
  int contacts = g->contacts, kinks = g->kinks;
  double us[NWHAT], clone;
  timed(&B, quick ? 2 : 11, quick ? 5 : 30, us);
  {
    int n = 64;
    double t0 = now();
    for (int k = 0; k < n; k++) { memcpy(c, settled, sizeof(CTX)); __asm__ volatile("" ::: "memory"); }
    clone = (now() - t0) / n * 1e6;
  }
  printf("INFO\t%s\tcontext_bytes(work,grad)\t%zu(%zu,%zu)\n", s->name, sizeof(CTX), sizeof(WORK), sizeof(GRAD));
  printf("INFO\t%s\tcontext_clone_us(memcpy, not in the timings)\t%.3f\n", s->name, clone);
  printf("INFO\t%s\tratios(jac/step,fd/jac)\t%.2f,%.1f\n", s->name, us[JAC] / us[STEP], us[FDIFF] / us[JAC]);
  printf("DIAGC\t%s\t%.4f\t%.4f\t%.3f\t%d\t%d\t%d\t%d\t%.3e\t%.3e\t%d\t%d\n", s->name, us[STEP], us[JAC],
         us[FDIFF], NV, w.nu, contacts, kinks, err, err_plain, ncols - fd_kinks, ncols);
#undef CHECK
  fflush(stdout);
  free(settled), free(c);
  return fail;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: diagc_grad SCENE SETTLE [QUICK [step|jac|fd SECONDS]]\n"); return 2; }
  int quick = argc > 3 && atoi(argv[3]) != 0;
  if (argc > 5) {
    PROFILE = !strcmp(argv[4], "step") ? STEP : !strcmp(argv[4], "jac") ? JAC : FDIFF;
    PROFILE_S = atof(argv[5]);
  }
  for (size_t i = 0; i < sizeof SCENES / sizeof SCENES[0]; i++)
    if (!strcmp(SCENES[i].name, argv[1])) return run(&SCENES[i], atoi(argv[2]), quick);
  fprintf(stderr, "diagc_grad: no scene '%s'\n", argv[1]);
  return 2;
}
