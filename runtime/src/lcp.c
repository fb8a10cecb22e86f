/* lcp.c: boxed LCP with friction index (see diagc/lcp.h, docs/lcp.md):
 * the public API (workspace, options, diagc_lcp_solve), the continuation
 * in mu and the AUTO driver that chains the methods.  The scoring of
 * points that every method shares (residual, violation, best point) is in
 * lcp_score.c, with diagc_lcp_violation.  The methods have their own
 * files: lcp_coupled.c (coupled incremental pivoting), lcp_active_set.c
 * (active-set method), lcp_dantzig.c (incremental Dantzig pass),
 * lcp_lemke.c (Lemke's method) and lcp_pgs.c (projected Gauss-Seidel);
 * lcp_internal.h declares what they share.
 *
 * Coupled incremental pivoting ("coupled", lcp_coupled.c): Dantzig/Baraff
 * pivoting on the coupled problem itself, with an updated inverse of the
 * clamped block in which friction rows at a bound fold into their normal's
 * column.  The default path: up to CP_ORDERS attempts (the method can stop
 * on Painleve-like configurations or cycles; the first takes the friction
 * rows widest box first, later attempts process first the rows at which
 * earlier ones stopped, friction rows otherwise in turn and in reverse by
 * turns), each verified with the true coupled violation and, if it does not
 * verify, polished by a few active-set steps on its index sets.
 *
 * Continuation in mu for huge friction coefficients (sliding contacts
 * whose normal impulses are of order 1/mu).
 *
 * AUTO: (a warm start: active set from it;) coupled pivoting; then, if
 * the violation is still above tol: Dantzig pass + active set; active set
 * from the best point; a few PGS sweeps and the active set again; PGS
 * from the starting point in doubling rounds, the active set after each
 * (start_pgs_stage); Lemke (up to 4 variants); continuation in mu; rounds of PGS + active set; and
 * if all that fails, the point-dependent stages once more from the
 * starting point.  The best point seen is returned.
 */
#include "diagc/lcp.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lcp_internal.h"

#define DZ_REPS 2 /* Dantzig passes re-run with the friction bounds updated */
#define DZ_PIV 3  /* coupled active-set steps after each of them but the last */
#define DROP_REL 1e-11 /* pivot below DROP_REL * max|diag|: dependent column */
#define ALIGN 64
#define EARLY_PGS 40  /* AUTO: PGS sweeps before the first re-pivot          */
#define EARLY_PIV 15  /* AUTO: active-set steps after those sweeps           */
#define CP_POLISH 3   /* active-set steps polishing the coupled pivoting     */
#define START_PGS 1000 /* AUTO: PGS sweeps from the start point, at most     */
#define START_PGS0 25  /* ... in the first round (doubled per round)         */
#define START_STALL 0.8 /* ... stop when a round does not cut its violation
                           below this share of the previous round's        */
#define BUDGET_MAIN 0.75 /* AUTO, finite budget: the pivoting stages' share */
#define WARM_NOPROG 1 /* active-set steps from a warm start without halving
                         the violation before the coupled pivoting
                         (pivoting_stages)                                */
#ifndef CP_ORDERS
#define CP_ORDERS 8   /* coupled pivoting: attempts at most                  */
#endif
#ifndef CP_BUDGET0
#define CP_BUDGET0 2  /* coupled pivoting: pivots per row, first attempt   */
#endif
#ifndef CP_BUDGET1
#define CP_BUDGET1 1  /* ... and in the attempts with other orders         */
#endif

/* Workspace: a shared big region (the reduced matrix K of the active-set
 * method, n*n, the coupled pivoting's inverse and scratch, 2n*n + 16n, or
 * the Lemke tableau, N*(N+1) + N with N <= 4n LCP variables), N_DBL_VECS
 * vectors of n doubles, N_INT_VECS vectors of n ints
 * and the Lemke labels (6 vectors of N ints, plus one). */
#define N_DBL_VECS 12
#define N_INT_VECS 6

static size_t big_doubles(size_t n) {
  size_t lemke = 4 * n * (4 * n + 1) + 4 * n, cp = DIAGC__CP_WORK_DOUBLES(n);
  return lemke > cp ? lemke : cp;
}

double diagc_lcp_work_budget(int n, double work_budget) {
  double nn = n > 0 ? (double)n : 1.0, d;
  if (work_budget < 0.0 || work_budget == INFINITY) return INFINITY;
  if (work_budget > 0.0) return work_budget;
  d = DIAGC_LCP_WORK_FLOOR / (nn * nn);
  return d > DIAGC_LCP_WORK_CUBIC * nn ? d : DIAGC_LCP_WORK_CUBIC * nn;
}

size_t diagc_lcp_workspace_size(int n) {
  size_t nn;
  if (n < 0) return 0;
  nn = (size_t)n;
  if (nn > 4096) { /* overflow guard: 16 n^2 doubles must fit in size_t */
    if (nn > ((size_t)1 << (sizeof(size_t) * 4 - 4))) return 0;
  }
  return big_doubles(nn) * sizeof(double) + N_DBL_VECS * nn * sizeof(double) +
         (N_INT_VECS * nn + 6 * 4 * nn + 1) * sizeof(int) + 2 * ALIGN;
}

void diagc_lcp_options_init(diagc_lcp_options *opt, void *workspace,
                            size_t workspace_size) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  opt->method = DIAGC_LCP_AUTO;
  opt->tol = 1e-9;
  opt->accept_tol = 1e-6;
  opt->cfm = 0.0;
  opt->max_pivot_iter = 0;
  opt->max_pgs_iter = 10000;
  opt->fallback_rounds = 4;
  opt->fallback_sweeps = 50;
  opt->warm_start = 1;
  opt->work_budget = 0.0;
  opt->workspace = workspace;
  opt->workspace_size = workspace_size;
}

/* Continuation in the friction coefficient: solve with the friction
 * multipliers capped at 1, 10, 100, ... (each stage started from the
 * previous stage's answer), ending with the problem itself (there without
 * Lemke's method, already tried on it: diagc__lcp_lemke_attempts).  Sliding
 * contacts under a huge mu carry normal impulses of order 1/mu that the
 * active-set iteration finds easily by following them down. */
static void mu_continuation(diagc__lcp_ctx *c, int maxit, int *used) {
  int n = c->n, i;
  size_t nn = (size_t)n;
  const double *lo0 = c->lo, *hi0 = c->hi;
  double maxmu = 0.0, cap = 1.0;
  if (!c->fx) return;
  for (i = 0; i < n; i++)
    if (c->fx[i] >= 0) {
      if (-lo0[i] > maxmu) maxmu = -lo0[i];
      if (hi0[i] > maxmu) maxmu = hi0[i];
    }
  if (!(maxmu > 10.0)) return;
  memset(c->sx, 0, sizeof(double) * nn);
  for (;;) {
    int final = !(cap < maxmu);
    if (final) {
      c->lo = lo0, c->hi = hi0, c->stage = 0;
    } else {
      for (i = 0; i < n; i++) {
        int fr = c->fx[i] >= 0;
        c->slo[i] = fr && lo0[i] < -cap ? -cap : lo0[i];
        c->shi[i] = fr && hi0[i] > cap ? cap : hi0[i];
      }
      c->lo = c->slo, c->hi = c->shi, c->stage = 1;
      c->sbest_v = INFINITY;
    }
    memcpy(c->sol, c->sx, sizeof(double) * nn);
    diagc__lcp_residual(c, c->sol, c->rhs);
    /* from the previous stage's active set when it verified */
    diagc__lcp_pivot_run(c, c->sol, c->rhs, maxit, (cap > 1.0 && c->states_ok) ? 2 : 0);
    if (*diagc__lcp_cur_best_v(c) > c->tol) diagc__lcp_lemke_attempts(c, maxit, used);
    if (final || c->spent) {
      c->lo = lo0, c->hi = hi0, c->stage = 0; /* the problem itself again */
      break;
    }
    cap *= 10.0;
  }
  if (c->best_v <= c->tol) *used = DIAGC_LCP_CONTINUATION;
}


/* ------------------------------------------------------------------------ */

/* AUTO, before Lemke's method: PGS from the starting point (not from the
 * best point so far: the points where pivoting stopped can sit in a region
 * where PGS stalls), in rounds of doubling length, each followed by a few
 * active-set steps from the PGS iterate (which carries on unchanged).  On
 * degenerate problems (rank-deficient A, a large mu) where every pivoting
 * attempt stops, PGS often still converges, and the active set of its
 * iterate verifies long before PGS reaches the tolerance by itself.  A
 * round that does not cut the PGS violation to START_STALL of the previous
 * round's ends the stage (PGS stalls on such problems when mu ~ 1). */
static void start_pgs_stage(diagc__lcp_ctx *c, int *used) {
  int n = c->n, sweeps = START_PGS0, total = 0;
  size_t nn = (size_t)n;
  double *xs = c->sx, prev = INFINITY;
  memcpy(xs, c->alt, sizeof(double) * nn);
  while (total < START_PGS && diagc__lcp_go(c)) {
    double v;
    if (sweeps > START_PGS - total) sweeps = START_PGS - total;
    v = diagc__lcp_pgs_run(c, xs, sweeps);
    total += sweeps;
    if (!diagc__lcp_go(c)) break;
    memcpy(c->sol, xs, sizeof(double) * nn);
    diagc__lcp_residual(c, c->sol, c->rhs);
    diagc__lcp_pivot_run(c, c->sol, c->rhs, EARLY_PIV, 0);
    if (!(v <= START_STALL * prev)) break;
    prev = v;
    sweeps *= 2;
  }
  if (c->best_v <= c->tol) *used = DIAGC_LCP_PIVOT_AFTER_PGS;
}

/* The AUTO stages that start from the best point so far: the active set
 * from it, a few PGS sweeps then the active set (part 0); rounds of PGS
 * and the active set with growing sweep counts (part 1). */
static void seeded_stages(diagc__lcp_ctx *c, int method, int maxit, int *used_out, int part,
                          int extra) {
  int used = *used_out;
  if (part == 0) {
    if (diagc__lcp_go(c) && method != DIAGC_LCP_COUPLED) {
      memcpy(c->sol, c->best, sizeof(double) * (size_t)c->n);
      diagc__lcp_residual(c, c->sol, c->rhs);
      /* diagc__lcp_pivot_run reads (x0, w0) = (sol, rhs) once, before overwriting them */
      diagc__lcp_pivot_run(c, c->sol, c->rhs, maxit, 0);
    }
    if (diagc__lcp_go(c) && method == DIAGC_LCP_AUTO) {
      /* a few PGS sweeps usually land near the right active set, from
         which the active-set iteration converges in a few steps: much
         cheaper than Lemke's method when it works */
      memcpy(c->sol, c->best, sizeof(double) * (size_t)c->n);
      diagc__lcp_pgs_run(c, c->sol, EARLY_PGS);
      if (diagc__lcp_go(c)) {
        diagc__lcp_residual(c, c->sol, c->rhs);
        diagc__lcp_pivot_run(c, c->sol, c->rhs, EARLY_PIV, 0);
      }
      if (c->best_v <= c->tol) used = DIAGC_LCP_PIVOT_AFTER_PGS;
    }
  } else {
    if (diagc__lcp_go(c) && method == DIAGC_LCP_AUTO) {
      int round, sweeps = c->opt->fallback_sweeps > 0 ? c->opt->fallback_sweeps : 50;
      for (round = 0; round < c->opt->fallback_rounds + extra && diagc__lcp_go(c); round++) {
        double *xp = c->sol; /* the PGS iterate (diagc__lcp_pivot_run reads it first) */
        memcpy(xp, c->best, sizeof(double) * (size_t)c->n);
        diagc__lcp_pgs_run(c, xp, sweeps);
        used = DIAGC_LCP_PIVOT_AFTER_PGS;
        if (!diagc__lcp_go(c)) break;
        diagc__lcp_residual(c, xp, c->w);
        memcpy(c->rhs, c->w, sizeof(double) * (size_t)c->n);
        diagc__lcp_pivot_run(c, xp, c->rhs, maxit, 0);
        sweeps *= 2;
      }
    }
  }
  *used_out = used;
}

/* The diagonal: 0 if an entry is not finite; else *maxdiag = max |A_ii +
 * cfm|. */
static int check_diagonal(int n, const double *A, double cfm, double *maxdiag) {
  size_t nn = (size_t)n;
  double md = 0.0;
  int i;
  for (i = 0; i < n; i++) {
    double a = A[(size_t)i * nn + i];
    if (!isfinite(a)) return 0;
    a = fabs(a + cfm);
    if (a > md) md = a;
  }
  *maxdiag = md;
  return 1;
}

/* The common case, a symmetric A, cheaply: the pairs (A_ik, A_ki) in 2 x 2
 * blocks; per pair of rows, the sum of |A_ik - A_ki| is at most tol (then
 * each is: the order of the sum does not matter; a NaN or an infinity
 * fails it: A_ik - A_ki is not finite when either is not), one test per
 * pair of rows.  1: symmetric to tol; 0: sym_full must decide. */
static int sym_fast(int n, const double *A, double tol) {
  size_t nn = (size_t)n, k;
  int i;
  for (i = 0; i + 1 < n; i += 2) { /* rows i, i + 1 against columns i, i + 1 */
    const double *R0 = A + (size_t)i * nn, *R1 = R0 + nn;
    double s0 = fabs(R1[i] - R0[i + 1]), s1 = 0.0;
#ifdef __SSE2__ /* the 2 x 2 blocks in registers: row i's pair against
                   column i's (unpacklo), row i + 1's against i + 1's */
    __m128d a0 = _mm_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, acc;
    __m128d am = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    double h[2];
    for (k = 0; k + 2 < (size_t)i; k += 4) { /* two blocks: four sums */
      const double *C0 = A + k * nn + i, *C2 = C0 + 2 * nn;
      __m128d c0 = _mm_loadu_pd(C0), c1 = _mm_loadu_pd(C0 + nn);
      __m128d c2 = _mm_loadu_pd(C2), c3 = _mm_loadu_pd(C2 + nn);
      a0 = _mm_add_pd(a0, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R0 + k), _mm_unpacklo_pd(c0, c1)), am));
      a1 = _mm_add_pd(a1, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R1 + k), _mm_unpackhi_pd(c0, c1)), am));
      a2 = _mm_add_pd(a2, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R0 + k + 2), _mm_unpacklo_pd(c2, c3)), am));
      a3 = _mm_add_pd(a3, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R1 + k + 2), _mm_unpackhi_pd(c2, c3)), am));
    }
    if (k < (size_t)i) {
      const double *C0 = A + k * nn + i;
      __m128d c0 = _mm_loadu_pd(C0), c1 = _mm_loadu_pd(C0 + nn);
      a0 = _mm_add_pd(a0, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R0 + k), _mm_unpacklo_pd(c0, c1)), am));
      a1 = _mm_add_pd(a1, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R1 + k), _mm_unpackhi_pd(c0, c1)), am));
    }
    acc = _mm_add_pd(_mm_add_pd(a0, a1), _mm_add_pd(a2, a3));
    _mm_storeu_pd(h, acc);
    s1 = h[0] + h[1];
#else
    for (k = 0; k < (size_t)i; k += 2) { /* i even: k + 1 < i */
      const double *C0 = A + k * nn + i, *C1 = C0 + nn;
      s0 += fabs(R0[k] - C0[0]) + fabs(R0[k + 1] - C1[0]);
      s1 += fabs(R1[k] - C0[1]) + fabs(R1[k + 1] - C1[1]);
    }
#endif
    if (!(s0 + s1 <= tol)) return 0;
  }
  if (i < n) { /* the last row of an odd n */
    const double *Ai = A + (size_t)i * nn;
    double s0 = 0.0;
    for (k = 0; k < (size_t)i; k++) s0 += fabs(Ai[k] - A[k * nn + i]);
    if (!(s0 <= tol)) return 0;
  }
  return 1;
}

/* The full check, when sym_fast fails: 0 if an entry of A is not finite;
 * else *sym says whether max |A_ik - A_ki| <= tol.  d = A_ik - A_ki is not
 * finite when either is not (inf - inf, NaN: NaN) or when it overflows,
 * and d * 0 is then NaN (one branch for all of A); max |d| says whether A
 * is symmetric. */
static int sym_full(int n, const double *A, double tol, int *sym) {
  size_t nn = (size_t)n, k;
  double z0 = 0.0, z1 = 0.0, m0 = 0.0, m1 = 0.0;
  int i;
  for (i = 0; i + 1 < n; i += 2) {
    const double *R0 = A + (size_t)i * nn, *R1 = R0 + nn;
    double d;
    for (k = 0; k < (size_t)i; k += 2) {
      const double *C0 = A + k * nn + i, *C1 = C0 + nn;
      double d00 = R0[k] - C0[0], d01 = R0[k + 1] - C1[0];
      double d10 = R1[k] - C0[1], d11 = R1[k + 1] - C1[1];
      z0 += d00 * 0.0 + d01 * 0.0;
      z1 += d10 * 0.0 + d11 * 0.0;
      d00 = fabs(d00), d01 = fabs(d01), d10 = fabs(d10), d11 = fabs(d11);
      d00 = d00 > d01 ? d00 : d01;
      d10 = d10 > d11 ? d10 : d11;
      m0 = d00 > m0 ? d00 : m0;
      m1 = d10 > m1 ? d10 : m1;
    }
    d = R1[i] - R0[i + 1];
    z0 += d * 0.0;
    d = fabs(d);
    m0 = d > m0 ? d : m0;
  }
  if (i < n) {
    const double *Ai = A + (size_t)i * nn;
    for (k = 0; k < (size_t)i; k++) {
      double d = Ai[k] - A[k * nn + i];
      z1 += d * 0.0;
      d = fabs(d);
      m1 = d > m1 ? d : m1;
    }
  }
  z0 += z1;
  if (z0 != z0) { /* a difference is not finite: an entry, or an overflow
                     (A_ik = 1e308, A_ki = -1e308: finite, not symmetric) */
    for (k = 0; k < nn * nn; k++)
      if (!isfinite(A[k])) return 0;
    *sym = 0;
  } else {
    *sym = (m0 > m1 ? m0 : m1) <= tol;
  }
  return 1;
}

/* b finite, the bounds and the friction index as diagc/lcp.h requires. */
static int check_rows(int n, const double *b, const double *lo, const double *hi,
                      const int *fx) {
  int i;
  for (i = 0; i < n; i++) {
    int j = fx ? fx[i] : -1;
    if (!isfinite(b[i])) return 0;
    if (lo[i] != lo[i] || hi[i] != hi[i]) return 0;
    if (j < 0) {
      if (j != -1) return 0;
      if (!(lo[i] <= hi[i]) || lo[i] == INFINITY || hi[i] == -INFINITY) return 0;
    } else {
      if (j >= n || j == i || fx[j] != -1) return 0;
      if (!(lo[i] <= 0.0) || !(hi[i] >= 0.0)) return 0;
    }
  }
  return 1;
}

/* Checks the arguments (0: invalid).  Also sets *maxdiag = max |A_ii + cfm|
 * and *sym: A symmetric to 1e-12 maxdiag. */
static int check_args(int n, const double *A, const double *b, const double *lo,
                      const double *hi, const int *fx, const double *x, double cfm,
                      double *maxdiag, int *sym) {
  double tol;
  *maxdiag = 0.0;
  *sym = 1;
  if (n < 0) return 0;
  if (n == 0) return 1;
  if (!A || !b || !lo || !hi || !x) return 0;
  if (!check_diagonal(n, A, cfm, maxdiag)) return 0;
  tol = 1e-12 * *maxdiag;
  if (!sym_fast(n, A, tol) && !sym_full(n, A, tol, sym)) return 0;
  return check_rows(n, b, lo, hi, fx);
}

/* The checks of diagc_lcp_solve's arguments and options: DIAGC_OK or its
 * failure code; sets *maxdiag and *sym (check_args). */
static int check_call(int n, const double *A, const double *b, const double *lo,
                      const double *hi, const int *findex, const double *x,
                      const diagc_lcp_options *opt, double *maxdiag, int *sym) {
  int method;
  if (!opt || !opt->workspace) return DIAGC_LCP_E_WORKSPACE;
  if (!check_args(n, A, b, lo, hi, findex, x, opt->cfm, maxdiag, sym)) return DIAGC_LCP_E_ARG;
  if (!(opt->tol >= 0) || !(opt->cfm >= 0) || !isfinite(opt->cfm)) return DIAGC_LCP_E_ARG;
  if (opt->work_budget != opt->work_budget) return DIAGC_LCP_E_ARG; /* NaN */
  method = opt->method;
  if (method != DIAGC_LCP_AUTO && method != DIAGC_LCP_PIVOT && method != DIAGC_LCP_PGS &&
      method != DIAGC_LCP_COUPLED)
    return DIAGC_LCP_E_ARG;
  if (opt->workspace_size < diagc_lcp_workspace_size(n)) return DIAGC_LCP_E_WORKSPACE;
  return DIAGC_OK;
}

/* Lays out the caller's workspace (diagc_lcp_workspace_size) in c. */
static void carve_workspace(diagc__lcp_ctx *c, void *workspace) {
  size_t nn = (size_t)c->n;
  char *p = (char *)workspace;
  p += (ALIGN - (uintptr_t)p % ALIGN) % ALIGN;
  c->K = (double *)p;
  p += big_doubles(nn) * sizeof(double);
  c->rhs = (double *)p, p += nn * sizeof(double);
  c->xc = (double *)p, p += nn * sizeof(double);
  c->w = (double *)p, p += nn * sizeof(double);
  c->best = (double *)p, p += nn * sizeof(double);
  c->cinv = (double *)p, p += nn * sizeof(double);
  c->mult = (double *)p, p += nn * sizeof(double);
  c->sol = (double *)p, p += nn * sizeof(double);
  c->x0 = (double *)p, p += nn * sizeof(double);
  c->slo = (double *)p, p += nn * sizeof(double);
  c->shi = (double *)p, p += nn * sizeof(double);
  c->sx = (double *)p, p += nn * sizeof(double);
  c->alt = (double *)p, p += nn * sizeof(double);
  c->state = (int *)p, p += nn * sizeof(int);
  c->pos = (int *)p, p += nn * sizeof(int);
  c->freel = (int *)p, p += nn * sizeof(int);
  c->pivcol = (int *)p, p += nn * sizeof(int);
  c->chg = (int *)p, p += nn * sizeof(int);
  c->linked = (int *)p, p += nn * sizeof(int);
  c->basic = (int *)p, p += 4 * nn * sizeof(int);
  c->nonb = (int *)p, p += (4 * nn + 1) * sizeof(int);
  c->vrow = (int *)p, p += 4 * nn * sizeof(int);
  c->vsgn = (int *)p, p += 4 * nn * sizeof(int);
  c->vlink = (int *)p, p += 4 * nn * sizeof(int);
  c->ties = (int *)p;
}

/* The starting point c->xc (and c->alt): the warm start (non-finite
 * entries read as 0) or 0.  Returns 1 for a nonzero warm start. */
static int start_point(diagc__lcp_ctx *c, const double *x, int warm_start, int method) {
  int n = c->n, i, zero = 1;
  size_t nn = (size_t)n;
  if (warm_start)
    for (i = 0; i < n; i++) {
      double xi = isfinite(x[i]) ? x[i] : 0.0;
      c->xc[i] = xi;
      if (xi != 0.0) zero = 0;
    }
  else
    memset(c->xc, 0, sizeof(double) * nn);
  memcpy(c->alt, c->xc, sizeof(double) * nn);
  if (zero && method != DIAGC_LCP_PGS) {
    /* x = 0: the coupled pivoting starts there anyway (and solves a
       problem that x = 0 solves at once); its violation is computed
       only if it is still the best point at the end */
    memcpy(c->best, c->xc, sizeof(double) * nn);
    c->best_v = INFINITY;
    c->have_best = 1;
    c->alt_v = -1.0; /* not computed */
  } else {
    c->alt_v = diagc__lcp_score(c, c->xc);
  }
  return !zero;
}

/* Coupled incremental pivoting (lcp_coupled.c): up to CP_ORDERS attempts,
 * each polished by a few active-set steps on its index sets when it does
 * not verify. */
static void coupled_stage(diagc__lcp_ctx *c, int method, int maxit, int sym, int *used) {
  const diagc_lcp_options *opt = c->opt;
  int n = c->n;
  size_t nn = (size_t)n;
  diagc__cp_args a;
  int leads[CP_ORDERS], nlead = 0, frow = -1, att, tried[3] = {-1, -1, -1};
  a.n = n, a.A = c->A, a.b = c->b, a.lo = c->lo, a.hi = c->hi, a.fx = c->fx;
  a.lead = leads, a.nlead = 0, a.fail_row = &frow;
  a.cfm = c->cfm, a.droptol = c->droptol;
  /* driven rows: |w| below a tenth of tol (at most 1e-10) is zero */
  a.wtol = 0.1 * c->tol < 1e-10 ? 0.1 * c->tol : 1e-10;
  a.max_pivots = opt->max_pivot_iter > 0 ? opt->max_pivot_iter * 4 : CP_BUDGET0 * n + 20;
  a.work = c->K, a.iwork = c->basic, a.sym = sym;
  for (att = 0; att < CP_ORDERS && diagc__lcp_go(c); att++) {
    int rc, piv0 = c->pivots, cap;
    double v, left;
    /* attempt 0: friction rows the widest box first; then the rows
       at which attempts stopped go first, the friction rows in turn
       and in reverse by turns */
    a.order = att == 0 ? 2 : (att & 1) ^ 1;
    if (tried[a.order] == nlead) a.order ^= 1; /* it would repeat itself */
    if (tried[a.order] == nlead) break;         /* nothing new to try */
    tried[a.order] = nlead;
    a.nlead = nlead;
    c->iters++;
    if (att == 1) a.max_pivots = opt->max_pivot_iter > 0 ? opt->max_pivot_iter * 4 : CP_BUDGET1 * n + 20;
    /* the work budget: a pivot costs O(n k + k^2), k clamped rows (1 unit),
       the start one unit */
    left = diagc__lcp_work_left(c) - 1.0;
    if (left < 1.0) {
      diagc__lcp_charge(c, left + 2.0); /* spent */
      break;
    }
    cap = a.max_pivots;
    if (left < a.max_pivots) a.max_pivots = (int)left;
    rc = diagc__lcp_cp(&a, c->xc, c->state, &c->pivots);
    a.max_pivots = cap;
    diagc__lcp_charge(c, (double)(c->pivots - piv0) + 1.0);
    if (rc == -2) break; /* not applicable */
    if (rc != 0 && frow >= 0) {
      int e, seen = 0;
      for (e = 0; e < nlead; e++) seen |= leads[e] == frow;
      if (!seen && nlead < CP_ORDERS) leads[nlead++] = frow;
    }
    v = diagc__lcp_score(c, c->xc);
    if (c->best_v <= c->tol) *used = DIAGC_LCP_COUPLED;
    if (rc != 0) continue;
    if (v > c->tol && !c->spent) { /* polish: active-set steps from its index sets */
      memcpy(c->sol, c->xc, sizeof(double) * nn);
      memcpy(c->rhs, c->w, sizeof(double) * nn);
      diagc__lcp_pivot_run(c, c->sol, c->rhs, method == DIAGC_LCP_COUPLED ? maxit : CP_POLISH, 2);
    }
    if (c->best_v <= c->tol) *used = DIAGC_LCP_COUPLED;
  }
}

/* The incremental Dantzig pass (symmetric A), then the coupled active set
 * from its states; DZ_REPS more passes with the friction bounds updated. */
static void dantzig_stage(diagc__lcp_ctx *c, int maxit) {
  size_t nn = (size_t)c->n;
  int rep;
  double v;
  if (diagc__lcp_dz_run(c, NULL) != 0) return;
  v = diagc__lcp_score(c, c->xc);
  for (rep = 0; v > c->tol && !c->spent; rep++) {
    memcpy(c->sol, c->xc, sizeof(double) * nn);
    memcpy(c->rhs, c->w, sizeof(double) * nn);
    memcpy(c->x0, c->xc, sizeof(double) * nn);
    diagc__lcp_pivot_run(c, c->sol, c->rhs, rep < DZ_REPS ? DZ_PIV : maxit, 2);
    if (!diagc__lcp_go(c) || rep >= DZ_REPS) break;
    if (diagc__lcp_dz_run(c, c->x0) != 0) break;
    v = diagc__lcp_score(c, c->xc);
  }
}

/* AUTO's second chance: the point-dependent stages again from the
 * starting point, in case the points seen so far (a coupled attempt that
 * stopped near a solution) mislead them; the better answer is kept. */
static void second_chance(diagc__lcp_ctx *c, int method, int maxit, int *used) {
  size_t nn = (size_t)c->n;
  double bv;
  if (c->alt_v < 0.0) {
    diagc__lcp_residual(c, c->alt, c->w);
    c->alt_v = diagc__lcp_violation_w(c, c->alt, c->w);
  }
  if (!(c->alt_v < INFINITY)) return;
  bv = c->best_v;
  memcpy(c->x0, c->best, sizeof(double) * nn);
  memcpy(c->best, c->alt, sizeof(double) * nn);
  c->best_v = c->alt_v;
  seeded_stages(c, method, maxit, used, 0, 0);
  if (diagc__lcp_go(c)) seeded_stages(c, method, maxit, used, 1, 2);
  if (!(c->best_v < bv)) { /* not better: keep the first answer */
    memcpy(c->best, c->x0, sizeof(double) * nn);
    c->best_v = bv;
  }
}

/* The pivoting methods (AUTO, PIVOT, COUPLED) from the starting point. */
static void pivoting_stages(diagc__lcp_ctx *c, int method, int maxit, int sym, int warm,
                            int *used) {
  size_t nn = (size_t)c->n;
  if (warm) {
    /* a warm start: the active set from it, for as long as each step
       halves the violation (it converges, to round-off, when the warm
       start's active set is near the answer's: a contact island whose
       contacts kept their states).  When it is not, the iteration changes
       many states at once, refactorizing every step, and stalls (friction
       rows at a bound cycling) for the 12 steps of its usual stop before
       the coupled pivoting from zero runs anyway: on the small contact
       islands of bench/world's piles those steps cost 1.8x the whole
       solve (docs/lcp.md, "Automatic").  The active set from the best
       point still runs in full after the coupled pivoting. */
    memcpy(c->sol, c->xc, sizeof(double) * nn);
    memcpy(c->rhs, c->w, sizeof(double) * nn);
    c->noprog = WARM_NOPROG;
    diagc__lcp_pivot_run(c, c->sol, c->rhs, maxit, 0);
    c->noprog = 0;
  }
  if (diagc__lcp_go(c)) coupled_stage(c, method, maxit, sym, used);
  if (method == DIAGC_LCP_COUPLED) return; /* that method alone */
  if (diagc__lcp_go(c) && sym) dantzig_stage(c, maxit);
  seeded_stages(c, method, maxit, used, 0, 0);
  if (diagc__lcp_go(c) && method == DIAGC_LCP_AUTO) start_pgs_stage(c, used);
  if (diagc__lcp_go(c)) {
    diagc__lcp_lemke_attempts(c, maxit, used);
    if (diagc__lcp_go(c)) mu_continuation(c, maxit, used);
  }
  if (method != DIAGC_LCP_AUTO) return;
  if (diagc__lcp_go(c)) seeded_stages(c, method, maxit, used, 1, 0);
  if (diagc__lcp_go(c)) second_chance(c, method, maxit, used);
}

/* The answer: the best point seen (always finite) into x, its status and
 * the statistics. */
static int finish(diagc__lcp_ctx *c, double *x, int used, diagc_lcp_stats *stats) {
  double v;
  int status;
  if (!(c->best_v < INFINITY)) { /* still the start, never scored */
    diagc__lcp_residual(c, c->best, c->w);
    c->best_v = diagc__lcp_violation_w(c, c->best, c->w);
  }
  if (c->alt_v < 0.0 && c->best_v > c->tol) {
    /* not solved, and the (zero) start was never scored: it may beat
       every point seen (a stopped attempt's, the budget's last) */
    diagc__lcp_residual(c, c->alt, c->w);
    c->alt_v = diagc__lcp_violation_w(c, c->alt, c->w);
    if (c->alt_v < c->best_v) {
      memcpy(c->best, c->alt, sizeof(double) * (size_t)c->n);
      c->best_v = c->alt_v;
    }
  }
  if (diagc__lcp_all_finite(c->best, c->n)) {
    memcpy(x, c->best, sizeof(double) * (size_t)c->n);
    v = c->best_v;
  } else { /* cannot happen (keep_best takes finite points only): the
              last resort, no impulse */
    memset(x, 0, sizeof(double) * (size_t)c->n);
    v = diagc_lcp_violation(c->n, c->A, c->b, c->lo, c->hi, c->fx, x);
  }
  if (v <= c->opt->tol)
    status = DIAGC_OK;
  else if (v <= c->opt->accept_tol)
    status = DIAGC_LCP_SOLVED_TOL;
  else if (c->spent)
    status = DIAGC_LCP_BUDGET;
  else
    status = DIAGC_LCP_E_UNSOLVED;
  if (stats) {
    stats->method = used;
    stats->iterations = c->iters;
    stats->pivots = c->pivots + c->lemke_pivots;
    stats->pgs_sweeps = c->sweeps;
    stats->rank_drops = c->rank_drops;
    stats->violation = v;
    stats->work = c->work;
    stats->budget_hit = c->spent;
  }
  return status;
}

int diagc_lcp_solve(int n, const double *A, const double *b, const double *lo,
                    const double *hi, const int *findex, double *x,
                    const diagc_lcp_options *opt, diagc_lcp_stats *stats) {
  diagc__lcp_ctx c;
  int method, rc, used = DIAGC_LCP_PIVOT, maxit, sym = 1, warm;
  double maxdiag = 0.0;

  if (stats) memset(stats, 0, sizeof *stats);
  rc = check_call(n, A, b, lo, hi, findex, x, opt, &maxdiag, &sym);
  if (rc != DIAGC_OK) return rc;
  method = opt->method;
  if (method == DIAGC_LCP_COUPLED) used = DIAGC_LCP_COUPLED;
  if (n == 0) {
    if (stats) stats->method = method == DIAGC_LCP_PGS ? DIAGC_LCP_PGS : used;
    return DIAGC_OK;
  }

  memset(&c, 0, sizeof c);
  c.n = n;
  c.A = A;
  c.b = b;
  c.lo = lo;
  c.hi = hi;
  c.fx = findex;
  c.cfm = opt->cfm;
  c.tol = opt->tol;
  c.opt = opt;
  c.work_max = diagc_lcp_work_budget(n, opt->work_budget);
  carve_workspace(&c, opt->workspace);
  c.droptol = DROP_REL * (maxdiag > 0 ? maxdiag : 1.0); /* maxdiag, sym: check_args */
  maxit = opt->max_pivot_iter > 0 ? opt->max_pivot_iter : 40 + n / 5;
  warm = start_point(&c, x, opt->warm_start, method);

  if (method == DIAGC_LCP_PGS) {
    used = DIAGC_LCP_PGS;
    memcpy(c.sol, c.xc, sizeof(double) * (size_t)n); /* sol: the PGS iterate */
    if (c.best_v > c.tol)
      diagc__lcp_pgs_run(&c, c.sol, opt->max_pgs_iter > 0 ? opt->max_pgs_iter : 1);
  } else if (c.best_v > c.tol) {
    double full = c.work_max;
    /* AUTO under a finite budget: the pivoting stages get BUDGET_MAIN of
       it; if they spend that without a solution, PGS from the best point
       seen gets the rest (where pivoting stops, its best point can be far
       from complementary; PGS sweeps improve it at 1 unit each) */
    if (method == DIAGC_LCP_AUTO && full < INFINITY) c.work_max = BUDGET_MAIN * full;
    pivoting_stages(&c, method, maxit, sym, warm, &used);
    if (c.spent && c.work_max < full && c.best_v > c.tol) {
      c.work_max = full;
      c.spent = c.work >= full;
      memcpy(c.sol, c.best, sizeof(double) * (size_t)n);
      if (!c.spent) {
        double before = c.best_v;
        diagc__lcp_pgs_run(&c, c.sol, INT32_MAX);
        if (c.best_v < before) used = DIAGC_LCP_PGS;
      }
      c.spent = 1;
    }
    c.work_max = full;
  }
  return finish(&c, x, used, stats);
}
