/* lcp_coupled.c: incremental (Dantzig/Baraff-style) pivoting on the coupled
 * friction problem, with an updated inverse of the clamped block.
 *
 * Rows are processed one at a time, constant-bound rows first, then
 * friction rows (in the first attempt widest box (hi - lo) x_j first).
 * A processed row is clamped (in the set C: w_i = 0, x_i free), at a
 * bound, or (a numerically dependent column) inside with w_i = 0 but not
 * in C.  A friction row t at a bound has x_t = s_t x_j with
 * s_t = lo_t or hi_t and j = findex[t] its normal: linear in x_j, so its
 * column folds into the normal's: the clamped system is
 *     (A_CC + A_{C,T} S_{T,C}) dx_C = rhs,
 * nonsymmetric once a friction row is at a bound.  Its inverse M^-1 is kept
 * explicitly and updated per pivot in O(k^2): bordering when a row joins C,
 * the block-inverse formula when one leaves, Sherman-Morrison when a
 * friction row's column folds into (or out of) its normal's.  Each driving
 * step checks that the clamped rows' w stay at zero along the computed
 * direction; if not, M^-1 is rebuilt from scratch (Gauss-Jordan).
 *
 * The row being driven moves toward complementarity (a |w_i| below
 * wtol (1 + |b_i|), wtol = min(tol / 10, 1e-10), counts as zero: the
 * clamped rows' w are only as accurate as M^-1); the ratio test covers
 * its own w reaching 0, its bound (for a friction row, a bound moving with
 * its normal), clamped rows reaching a bound (again moving bounds for
 * friction rows: x_t and s x_j move at different rates), and rows at a
 * bound whose w reaches 0.  Friction rows whose normal is 0 and does not
 * move have the box [0, 0]: they follow the sign of their w.
 *
 * The coupled problem is not monotone (the folded matrix is not a
 * P-matrix).  After a pivot the row that changed state may move the wrong
 * way; the drive then continues backward (the driven row retreats), as in
 * Cottle and Dantzig's principal pivoting.  Rows that block the drive in
 * both of their states (a Painleve-like configuration), a driven friction
 * row caught by its moving bound, and numerically dependent rows are
 * deferred: left at their bound (or value) and processed again at the end.
 *
 * Not a complete algorithm: the driving direction can fail to block (an
 * unbounded ray) or rows can defer each other in a cycle; a pivot budget
 * and a limit on re-processing bound the work, and the caller verifies the
 * answer, retries with other row orders (the rows at which attempts
 * stopped first: args lead, fail_row) and falls back to other methods.
 *
 * CP_FAIL(reason) / CP_NOTE(reason) / CP_TRACE(...) are instrumentation
 * hooks (a driver that includes this file can define them to record why
 * an attempt stopped and trace the pivots); by default they do nothing.
 */
#include "lcp_internal.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#ifndef CP_FAIL
#define CP_FAIL(r) return -1
#define CP_NOTE(r) (void)0
#endif
#define CP_UNPROC (-1)
#define CP_EPS 1e-13
#define CP_REDO 2 /* a row processed again more often: a cycle */
#define CP_RING 8 /* pivots remembered by the cycle check */

typedef struct {
  int n, k, budget, sym;
  const double *A, *b, *lo, *hi;
  const int *fx;
  double cfm, droptol, maxdiag;
  double wtol; /* a driven row with |w| <= wtol (1 + |b|) is complementary */
  double *Mi;  /* k x k inverse of the clamped matrix, row stride n */
  double *M2;  /* n x n scratch for a rebuild */
  double *x, *w, *dx, *dw, *u, *v, *col, *rowv, *s, *rp;
  int *cl, *pos, *st, *sup, *ch;
  int *def, *stack, nstack; /* deferred rows (at a bound, w not tracked) */
  int *cnt;                 /* times a row was processed again */
  int *chs, *chl;           /* friction rows of normal j: chl[chs[j] .. chs[j+1]) */
  unsigned *cd;             /* bit r clear: row r cannot block a drive
                               (unprocessed, or FREE: in C or a constant
                               row); kept by cp_cand on each change; the
                               ratio test visits the set bits, in row
                               order */
  unsigned *out;            /* bit j set: j has friction rows and is out
                               of C (kept with pos[]) */
  int nsup;
  int *pivots;
  int cur;  /* the row being processed at the top level */
  int fric; /* friction rows are being processed (before: none is at a bound) */
} cp;

static double ap(const cp *z, int r, int c) {
  return z->A[(size_t)r * z->n + c] + (r == c ? z->cfm : 0.0);
}
static int fxo(const cp *z, int i) { return z->fx[i]; } /* never NULL here */
/* a friction row at a bound: its column is folded into its normal's */
static int folded(const cp *z, int t) {
  return fxo(z, t) >= 0 && (z->st[t] == ST_LO || z->st[t] == ST_HI);
}
/* the same for a row known to be a friction row (chl's entries) */
static int bnd(const cp *z, int t) { return z->st[t] == ST_LO || z->st[t] == ST_HI; }
/* Bit sets of rows, in words of CP_WB bits. */
#define CP_WB ((int)(sizeof(unsigned) * CHAR_BIT))
static void bit_put(unsigned *set, int r, int on) {
  unsigned m = 1u << (r % CP_WB);
  if (on)
    set[r / CP_WB] |= m;
  else
    set[r / CP_WB] &= ~m;
}
/* the lowest set bit of v != 0 */
static int bit_low(unsigned v) {
#if defined(__GNUC__) && !defined(__TINYC__)
  return __builtin_ctz(v);
#else
  int c = 0;
  while (!(v & 1u)) v >>= 1, c++;
  return c;
#endif
}
/* Sets pos[r] (-1: out of C), keeping the set `out`. */
static void cp_pos(cp *z, int r, int p) {
  z->pos[r] = p;
  if (z->chs[r] != z->chs[r + 1]) bit_put(z->out, r, p < 0);
}
/* Updates cd's bit r after a change of r's state or membership of C: a
 * row the ratio test looks at (at a bound; inside, out of C, a friction
 * row: its box moves with the normal).  A superset is harmless. */
static void cp_cand(cp *z, int r) {
  int sr = z->st[r];
  bit_put(z->cd, r, sr == ST_LO || sr == ST_HI || (sr == ST_FREE && z->pos[r] < 0 && z->fx[r] >= 0));
}

/* Dense kernels (restrict, unrolled: straight-line code that -O2
 * vectorizes; dots with four partial sums). */
static void cp_axpy(int m, double a, const double *restrict xv, double *restrict yv) {
  int i;
  for (i = 0; i + 3 < m; i += 4) { /* unrolled: -O2 vectorizes it (SLP) */
    yv[i] += a * xv[i];
    yv[i + 1] += a * xv[i + 1];
    yv[i + 2] += a * xv[i + 2];
    yv[i + 3] += a * xv[i + 3];
  }
  for (; i < m; i++) yv[i] += a * xv[i];
}
/* y += a0 x0 + a1 x1 + a2 x2 + a3 x3, added in that order (the same bits
 * as four cp_axpy calls, one pass over y) */
static void cp_axpy4(int m, const double *restrict a, const double *restrict x0,
                     const double *restrict x1, const double *restrict x2,
                     const double *restrict x3, double *restrict yv) {
  double a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  int i;
  for (i = 0; i + 1 < m; i += 2) {
    yv[i] = (((yv[i] + a0 * x0[i]) + a1 * x1[i]) + a2 * x2[i]) + a3 * x3[i];
    yv[i + 1] = (((yv[i + 1] + a0 * x0[i + 1]) + a1 * x1[i + 1]) + a2 * x2[i + 1]) + a3 * x3[i + 1];
  }
  for (; i < m; i++) yv[i] = (((yv[i] + a0 * x0[i]) + a1 * x1[i]) + a2 * x2[i]) + a3 * x3[i];
}
/* y += a0 X_r0 + ... + a7 X_r7 (X's rows at stride ld), added in that
 * order (the same bits as two cp_axpy4 calls, one pass over y) */
static void cp_axpy8(int m, const double *restrict a, const int *r, const double *X, size_t ld,
                     double *restrict yv) {
  const double *restrict x0 = X + (size_t)r[0] * ld, *restrict x1 = X + (size_t)r[1] * ld;
  const double *restrict x2 = X + (size_t)r[2] * ld, *restrict x3 = X + (size_t)r[3] * ld;
  const double *restrict x4 = X + (size_t)r[4] * ld, *restrict x5 = X + (size_t)r[5] * ld;
  const double *restrict x6 = X + (size_t)r[6] * ld, *restrict x7 = X + (size_t)r[7] * ld;
  double a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5], a6 = a[6], a7 = a[7];
  int i;
  for (i = 0; i + 1 < m; i += 2) {
    yv[i] = (((((((yv[i] + a0 * x0[i]) + a1 * x1[i]) + a2 * x2[i]) + a3 * x3[i]) + a4 * x4[i]) +
              a5 * x5[i]) + a6 * x6[i]) + a7 * x7[i];
    yv[i + 1] = (((((((yv[i + 1] + a0 * x0[i + 1]) + a1 * x1[i + 1]) + a2 * x2[i + 1]) +
                    a3 * x3[i + 1]) + a4 * x4[i + 1]) + a5 * x5[i + 1]) + a6 * x6[i + 1]) +
                a7 * x7[i + 1];
  }
  if (i < m)
    yv[i] = (((((((yv[i] + a0 * x0[i]) + a1 * x1[i]) + a2 * x2[i]) + a3 * x3[i]) + a4 * x4[i]) +
              a5 * x5[i]) + a6 * x6[i]) + a7 * x7[i];
}
/* y += a0 x0 + a1 x1 (in that order) */
static void cp_axpy2(int m, const double *restrict a, const double *restrict x0,
                     const double *restrict x1, double *restrict yv) {
  double a0 = a[0], a1 = a[1];
  int i;
  for (i = 0; i + 1 < m; i += 2) {
    yv[i] = (yv[i] + a0 * x0[i]) + a1 * x1[i];
    yv[i + 1] = (yv[i + 1] + a0 * x0[i + 1]) + a1 * x1[i + 1];
  }
  for (; i < m; i++) yv[i] = (yv[i] + a0 * x0[i]) + a1 * x1[i];
}
/* y += sum over e of a[e] X_{r[e]} (X's rows at stride ld), in order */
static void cp_axpys(int m, int cnt, const double *a, const int *r, const double *X, size_t ld,
                     double *restrict yv) {
  int e = 0;
  for (; e + 7 < cnt; e += 8) cp_axpy8(m, a + e, r + e, X, ld, yv);
  if (e + 3 < cnt) {
    cp_axpy4(m, a + e, X + (size_t)r[e] * ld, X + (size_t)r[e + 1] * ld, X + (size_t)r[e + 2] * ld,
             X + (size_t)r[e + 3] * ld, yv);
    e += 4;
  }
  for (; e + 3 < cnt; e += 4)
    cp_axpy4(m, a + e, X + (size_t)r[e] * ld, X + (size_t)r[e + 1] * ld, X + (size_t)r[e + 2] * ld,
             X + (size_t)r[e + 3] * ld, yv);
  if (e + 1 < cnt) {
    cp_axpy2(m, a + e, X + (size_t)r[e] * ld, X + (size_t)r[e + 1] * ld, yv);
    e += 2;
  }
  if (e < cnt) cp_axpy(m, a[e], X + (size_t)r[e] * ld, yv);
}
/* y = X x for the m x m block of X (row stride ld): a dot per row with
 * four partial sums, all in one call (the blocks are small: per-call
 * overhead matters) */
static void cp_mv(int m, const double *X, size_t ld, const double *restrict xv,
                  double *restrict yv) {
  int a;
  for (a = 0; a < m; a++) yv[a] = diagc__dot4(m, X + (size_t)a * ld, xv);
}
/* X_a += c_a r for the rows a < m of the m x m block of X (row stride ld),
 * skipping rows with c_a = 0 (cp_axpy per row, in one loop) */
static void cp_ger(int m, double *X, size_t ld, const double *c, const double *restrict r) {
  int a, i;
  for (a = 0; a < m; a++) {
    double *restrict Xa = X + (size_t)a * ld, ca = c[a];
    if (ca == 0.0) continue;
    for (i = 0; i + 1 < m; i += 2) {
      Xa[i] += ca * r[i];
      Xa[i + 1] += ca * r[i + 1];
    }
    if (i < m) Xa[i] += ca * r[i];
  }
}

/* Inverts the clamped matrix into M^-1 (Gauss-Jordan, partial pivoting).
 * Returns -1, or the position of a numerically dependent column. */
static int cp_invert(cp *z) {
  int n = z->n, k = z->k, r, c, t, col;
  double *M = z->M2, *Mi = z->Mi;
  for (r = 0; r < k; r++)
    for (c = 0; c < k; c++) M[(size_t)r * n + c] = ap(z, z->cl[r], z->cl[c]);
  for (t = 0; t < n; t++) {
    int j = fxo(z, t), p;
    if (!folded(z, t) || (p = z->pos[j]) < 0) continue;
    for (r = 0; r < k; r++) M[(size_t)r * n + p] += z->s[t] * z->A[(size_t)z->cl[r] * n + t];
  }
  for (r = 0; r < k; r++)
    for (c = 0; c < k; c++) Mi[(size_t)r * n + c] = r == c ? 1.0 : 0.0;
  for (col = 0; col < k; col++) {
    int p = -1;
    double big = z->droptol, piv;
    for (r = col; r < k; r++) {
      double a = fabs(M[(size_t)r * n + col]);
      if (a > big) big = a, p = r;
    }
    if (p < 0) return col; /* column col depends on the ones before */
    if (p != col) {
      for (c = 0; c < k; c++) {
        double a = M[(size_t)p * n + c], bb = Mi[(size_t)p * n + c];
        M[(size_t)p * n + c] = M[(size_t)col * n + c];
        M[(size_t)col * n + c] = a;
        Mi[(size_t)p * n + c] = Mi[(size_t)col * n + c];
        Mi[(size_t)col * n + c] = bb;
      }
    }
    /* M's columns up to col are never read again: only those after it
       are updated */
    piv = 1.0 / M[(size_t)col * n + col];
    for (c = col + 1; c < k; c++) M[(size_t)col * n + c] *= piv;
    for (c = 0; c < k; c++) Mi[(size_t)col * n + c] *= piv;
    for (r = 0; r < k; r++) {
      double f;
      if (r == col) continue;
      f = M[(size_t)r * n + col];
      if (f == 0.0) continue;
      for (c = col + 1; c < k; c++) M[(size_t)r * n + c] -= f * M[(size_t)col * n + c];
      cp_axpy(k, -f, Mi + (size_t)col * n, Mi + (size_t)r * n);
    }
  }
  return -1;
}

static void cp_defer(cp *z, int r);

/* Rebuilds M^-1 from the index sets.  A member whose column turns out
 * numerically dependent (the folded matrix can become singular) leaves C:
 * inside its box with w = 0, x fixed, deferred.  Returns 0, or -1. */
static int cp_rebuild(cp *z) {
  int tries;
  for (tries = 0; tries <= z->n; tries++) {
    int col = cp_invert(z), u, last;
    if (col < 0) return 0;
    u = z->cl[col];
    last = z->k - 1;
    cp_pos(z, u, -1);
    cp_cand(z, u);
    if (col != last) {
      z->cl[col] = z->cl[last];
      z->pos[z->cl[col]] = col;
    }
    z->k = last;
    cp_defer(z, u);
  }
  return -1;
}

/* Adds row u to C (bordering).  have_u: z->u holds M^-1 col already (the
 * driving direction of row u, which joins C at the end of its drive).
 * Returns 1 if added, 0 if its column is numerically dependent (then it
 * stays out of C). */
static int cp_add(cp *z, int u, int have_u) {
  int n = z->n, k = z->k, a, b, t, nch = 0, nz = 0;
  double d = ap(z, u, u), sigma, *Mi = z->Mi, *v;
  const double *A = z->A, *Au = A + (size_t)u * n, *s = z->s;
  const int *cl = z->cl, *chs = z->chs, *chl = z->chl;
  int *ch = z->ch, fric = z->fric;
  if (fric) /* (before: no friction row is at a bound) */
    for (t = chs[u]; t < chs[u + 1]; t++)
      if (bnd(z, chl[t])) ch[nch++] = chl[t];
  for (t = 0; t < nch; t++) d += s[ch[t]] * Au[ch[t]];
  /* row u's entries (rowv, with the members' folded friction rows) and,
     unless M^-1 col is known, its column (col, with its own); u is not
     in C: no diagonal entry (+ 0.0: what ap adds off the diagonal) */
  for (a = 0; a < k; a++) {
    int r = cl[a], e;
    double rv = Au[r] + 0.0;
    if (!have_u) {
      const double *Ar = A + (size_t)r * n;
      double sum = Ar[u] + 0.0;
      for (t = 0; t < nch; t++) sum += s[ch[t]] * Ar[ch[t]];
      z->col[a] = sum;
    }
    if (fric)
      for (e = chs[r]; e < chs[r + 1]; e++) {
        t = chl[e];
        if (bnd(z, t)) rv += s[t] * Au[t];
      }
    z->rowv[a] = rv;
    if (rv != 0.0) z->rp[nz] = rv, z->sup[nz++] = a; /* rp, sup: scratch
                                         here (no drive step is open) */
  }
  /* u = M^-1 col, v = rowv^T M^-1 (v is computed even when M is
     symmetric: taking v = u there, which would save k^2 flops, perturbs
     M^-1 at round-off level and with it the pivot paths of the hard,
     non-monotone problems; in the benchmark set more of them then
     needed the fallbacks, also with an update that keeps M^-1 exactly
     symmetric, (u_a u_b) sigma) */
  if (!have_u) cp_mv(k, Mi, (size_t)n, z->col, z->u);
  v = z->v;
  for (a = 0; a < k; a++) v[a] = 0.0;
  cp_axpys(k, nz, z->rp, z->sup, Mi, (size_t)n, v);
  sigma = d;
  for (a = 0; a < k; a++) sigma -= z->rowv[a] * z->u[a];
  if (!(fabs(sigma) > z->droptol)) {
    cp_cand(z, u); /* stays out of C */
    return 0;
  }
  sigma = 1.0 / sigma;
  for (a = 0; a < k; a++) { /* M^-1 += sigma u v^T, bordered by -sigma u,
                               -sigma v^T and sigma */
    double *restrict Ma = Mi + (size_t)a * n, ua = z->u[a] * sigma;
    for (b = 0; b + 1 < k; b += 2) {
      Ma[b] += ua * v[b];
      Ma[b + 1] += ua * v[b + 1];
    }
    if (b < k) Ma[b] += ua * v[b];
    Ma[k] = -ua;
  }
  for (b = 0; b < k; b++) Mi[(size_t)k * n + b] = -v[b] * sigma;
  Mi[(size_t)k * n + k] = sigma;
  z->cl[k] = u;
  cp_pos(z, u, k);
  bit_put(z->cd, u, 0);
  z->k = k + 1;
  return 1;
}

/* Removes the member at position p from C.  Returns 0, or -1 when the
 * rest is singular. */
static int cp_remove(cp *z, int p) {
  int n = z->n, k = z->k, a, b, last = k - 1, rebuild = 0;
  double *Mi = z->Mi, q = Mi[(size_t)p * n + p], scale = 0.0;
  for (a = 0; a < k; a++) {
    double r1 = fabs(Mi[(size_t)p * n + a]), c1 = fabs(Mi[(size_t)a * n + p]);
    if (r1 > scale) scale = r1;
    if (c1 > scale) scale = c1;
  }
  if (!(fabs(q) > 1e-10 * scale)) {
    rebuild = 1;
  } else {
    for (b = 0; b < k; b++) z->rp[b] = Mi[(size_t)p * n + b] / q;
    for (a = 0; a < k; a++) z->u[a] = -Mi[(size_t)a * n + p];
    z->u[p] = 0.0; /* row p: not updated (it is dropped) */
    cp_ger(k, Mi, (size_t)n, z->u, z->rp);
  }
  cp_pos(z, z->cl[p], -1);
  cp_cand(z, z->cl[p]);
  if (p != last) {
    for (b = 0; b < k; b++) Mi[(size_t)p * n + b] = Mi[(size_t)last * n + b];
    for (a = 0; a < k; a++) Mi[(size_t)a * n + p] = Mi[(size_t)a * n + last];
    z->cl[p] = z->cl[last];
    z->pos[z->cl[p]] = p;
  }
  z->k = last;
  return rebuild ? cp_rebuild(z) : 0;
}

/* Column p of the clamped matrix changes by ds * A[C, t] (friction row t
 * folding into, ds = s_t, or out of, ds = -s_t, its normal at position p):
 * Sherman-Morrison.  Returns 0, or -1 (singular). */
static int cp_fold(cp *z, int p, int t, double ds) {
  int n = z->n, k = z->k, a, b;
  double *Mi = z->Mi, den;
  if (ds == 0.0) return 0;
  for (a = 0; a < k; a++) z->col[a] = ds * z->A[(size_t)z->cl[a] * n + t];
  cp_mv(k, Mi, (size_t)n, z->col, z->u);
  den = 1.0 + z->u[p];
  if (!(fabs(den) > 1e-10)) return cp_rebuild(z);
  for (b = 0; b < k; b++) z->rp[b] = Mi[(size_t)p * n + b] / den;
  for (a = 0; a < k; a++) z->u[a] = -z->u[a];
  cp_ger(k, Mi, (size_t)n, z->u, z->rp);
  return 0;
}

/* Sets x_q (a snap to a bound), keeping w = A x - b consistent. */
static void cp_setx(cp *z, int q, double val) {
  int n = z->n, r;
  double d = val - z->x[q];
  if (d == 0.0) return;
  z->x[q] = val;
  if (z->sym) /* column q: row q (contiguous) */
    cp_axpy(n, d, z->A + (size_t)q * n, z->w);
  else
    for (r = 0; r < n; r++) z->w[r] += d * z->A[(size_t)r * n + q];
  z->w[q] += d * z->cfm;
}

/* x_q from 0 to its initial value (x holds it already; w follows). */
static void cp_setx_from0(cp *z, int q) {
  double v = z->x[q];
  z->x[q] = 0.0;
  cp_setx(z, q, v);
}

/* Puts friction row t at bound state st (its normal is processed). */
static int cp_to_bound(cp *z, int t, int st) {
  int j = z->fx[t];
  z->st[t] = st;
  bit_put(z->cd, t, 1);
  z->s[t] = st == ST_LO ? z->lo[t] : z->hi[t];
  cp_setx(z, t, z->s[t] * z->x[j]);
  if (z->pos[j] >= 0) return cp_fold(z, z->pos[j], t, z->s[t]);
  return 0;
}

/* dx_q = d for a row q not in the support sup[0 .. ns) yet (dx_q = 0):
 * q joins it if d is nonzero, with d in dv (dx on the support, gathered);
 * returns the new ns */
static int sup_add(double *dx, int *sup, double *dv, int ns, int q, double d) {
  dx[q] = d;
  if (d != 0.0) sup[ns] = q, dv[ns++] = d;
  return ns;
}

/* Friction rows with a collapsed box whose normal does not move follow the
 * sign of their w. */
static void cp_fix_collapsed(cp *z) {
  int e, wd, nw = (z->n + CP_WB - 1) / CP_WB, *st = z->st;
  const int *chs = z->chs, *chl = z->chl;
  const double *x = z->x, *w = z->w;
  unsigned bits;
  for (wd = 0; wd < nw; wd++)
    for (bits = z->out[wd]; bits; bits &= bits - 1) { /* normals with friction
                                                         rows, out of C ... */
      int j = wd * CP_WB + bit_low(bits);
      if (x[j] != 0.0) continue; /* ... at 0 */
      for (e = chs[j]; e < chs[j + 1]; e++) {
        int t = chl[e];
        if (st[t] != ST_LO && st[t] != ST_HI) continue;
        st[t] = w[t] >= 0.0 ? ST_LO : ST_HI;
        z->s[t] = st[t] == ST_LO ? z->lo[t] : z->hi[t];
      }
    }
}

/* Defers row r (at a bound): its w is no longer tracked until it is
 * processed again. */
static void cp_defer(cp *z, int r) {
  if (z->def[r]) return;
  z->def[r] = 1;
  z->stack[z->nstack++] = r;
}

/* A signature of the index sets (each row's state, membership of C), the
 * driven row and the direction. */
static unsigned long long cp_signature(const cp *z, int i, double dir) {
  unsigned long long h = (unsigned long long)(i * 2 + (dir > 0)) * 0x9E3779B97F4A7C15ull;
  int r;
  for (r = 0; r < z->n; r++) {
    unsigned long long v = (unsigned long long)(r * 5 + (z->pos[r] >= 0 ? 4 : z->st[r] + 1)) + 1;
    v *= 0xBF58476D1CE4E5B9ull;
    h += v ^ (v >> 29);
  }
  return h;
}

/* The event that ends one step of a drive. */
typedef struct {
  double s; /* step length (INFINITY: nothing blocks) */
  int kind; /* 1: w_i reaches 0; 2: x_i reaches the bound ahead; 3: a
               clamped row reaches a bound; 4: a row at a bound, its w
               reaching 0; 5: a friction row inside but out of C reaching
               its box (moving with the normal); 6: the bound behind x_i
               catches up */
  int who;  /* the row of kinds 3, 4 and 5 (-1 otherwise) */
  int wst;  /* its new state (kinds 3 and 5) */
} cp_event;

/* The last pivots' index-set signatures and w_i, x_i there (the cycle
 * check of a drive). */
typedef struct {
  unsigned long long sig[CP_RING];
  double wx[2 * CP_RING];
  int count;
} cp_ring;

/* The direction of a drive of row i: dx on the support z->sup (gathered
 * in z->rp: first C's members and i, *nsf entries, then the folded
 * friction rows) and dw, the clamped rows' dw set to 0.  When those are
 * not 0 up to round-off, M^-1 is rebuilt once and the direction computed
 * again.  Returns 0, or -1. */
static int cp_direction(cp *z, int i, double dir, int *nsf) {
  int n = z->n, a, r, q, k, tries;
  double maxdx = 0.0, err = 0.0;
  for (tries = 0;; tries++) {
    k = z->k;
    /* dx_C = -M^-1 e_i dir, e_i the column of i with its folded
       friction rows (a normal driven again after being deferred) */
    int nch = 0, ns0, e;
    if (z->fric) /* (before: no friction row is at a bound) */
      for (e = z->chs[i]; e < z->chs[i + 1]; e++)
        if (bnd(z, z->chl[e])) z->ch[nch++] = z->chl[e];
    for (a = 0; a < k; a++) {
      double sum = z->A[(size_t)z->cl[a] * n + i] + 0.0; /* ap: i is not in C */
      for (q = 0; q < nch; q++) sum += z->s[z->ch[q]] * z->A[(size_t)z->cl[a] * n + z->ch[q]];
      z->col[a] = -dir * sum;
    }
    cp_mv(k, z->Mi, (size_t)n, z->col, z->v);
    { /* the support of dx (members, i, folded friction rows: each row
         once, dx = 0 on entry), rp: dx on it, gathered */
      double *dx = z->dx, *rp = z->rp;
      int *sup = z->sup, ns = 0;
      const int *chs = z->chs, *chl = z->chl, *cl = z->cl;
      for (a = 0; a < k; a++) ns = sup_add(dx, sup, rp, ns, cl[a], z->v[a]);
      ns = sup_add(dx, sup, rp, ns, i, dir);
      *nsf = ns; /* then the folded friction rows: they move with their normal */
      ns0 = z->fric ? ns : 0;
      for (a = 0; a < ns0; a++) {
        int m = sup[a];
        for (e = chs[m]; e < chs[m + 1]; e++) {
          q = chl[e];
          if (bnd(z, q)) ns = sup_add(dx, sup, rp, ns, q, z->s[q] * rp[a]);
        }
      }
      z->nsup = ns;
      maxdx = 0.0;
      for (a = 0; a < ns; a++)
        if (fabs(rp[a]) > maxdx) maxdx = fabs(rp[a]);
    }
    if (z->sym) { /* dw = sum over the support of dx_q A[q, :] (rows: contiguous) */
      double *dw = z->dw;
      if (z->cfm == 0.0)
        memset(dw, 0, sizeof(double) * (size_t)n);
      else
        for (r = 0; r < n; r++) dw[r] = z->cfm * z->dx[r];
      cp_axpys(n, z->nsup, z->rp, z->sup, z->A, (size_t)n, dw);
    } else {
      for (r = 0; r < n; r++) {
        const double *Ar = z->A + (size_t)r * n;
        double sum = 0.0;
        for (a = 0; a < z->nsup; a++) sum += Ar[z->sup[a]] * z->dx[z->sup[a]];
        z->dw[r] = sum + z->cfm * z->dx[r];
      }
    }
    err = 0.0;
    for (a = 0; a < k; a++) { /* the clamped rows' dw: 0 up to round-off
                                 (set to 0: recomputed on a retry) */
      double e = fabs(z->dw[z->cl[a]]);
      if (e > err) err = e;
      z->dw[z->cl[a]] = 0.0;
    }
    if (!(err == err) || !(maxdx < INFINITY)) err = INFINITY;
    if (err <= 1e-9 * z->maxdiag * (1.0 + maxdx)) return 0;
    for (a = 0; a < z->nsup; a++) z->dx[z->sup[a]] = 0.0;
    if (tries > 0) CP_FAIL(2);
    if (cp_rebuild(z) != 0) CP_FAIL(8);
  }
}

/* The row that changed state at the last event (chk, from side chk_side)
 * must move into its new state's region: a row that entered C away from
 * the bound it left, a row that reached a bound with its w away from zero
 * on the allowed side.  Returns 1 when it would not (possible once
 * friction columns fold: the clamped matrix is not a P-matrix). */
static int cp_wrong_way(const cp *z, int chk, int chk_side) {
  double rho;
  int jc = fxo(z, chk);
  if (z->pos[chk] >= 0) { /* entered C from side chk_side */
    if (jc < 0)
      rho = chk_side == ST_LO ? z->dx[chk] : -z->dx[chk];
    else
      rho = chk_side == ST_LO ? z->dx[chk] - z->lo[chk] * z->dx[jc]
                              : z->hi[chk] * z->dx[jc] - z->dx[chk];
  } else { /* at a bound */
    rho = chk_side == ST_LO ? z->dw[chk] : -z->dw[chk];
  }
  return rho < -CP_EPS;
}

/* Reverses the drive's direction: dx (and its gathered copy rp), dw. */
static void cp_reverse(cp *z) {
  int a, r;
  for (a = 0; a < z->nsup; a++) {
    z->dx[z->sup[a]] = -z->dx[z->sup[a]];
    z->rp[a] = -z->rp[a];
  }
  for (r = 0; r < z->n; r++) z->dw[r] = -z->dw[r];
}

/* Ratio test, the driven row i itself (w_i = wi, its normal j or -1):
 * w_i reaching 0 (kind 1), x_i reaching the bound ahead (2) or the bound
 * behind it catching up, moving with the normal (6).  Sets z->dw[i] to 0
 * when it is below droptol. */
static void cp_ratio_driven(cp *z, int i, int j, double dir, double wi, cp_event *ev) {
  double s = INFINITY, t;
  int kind = 0;
  if ((wi < 0.0 && z->dw[i] > z->droptol) || (wi > 0.0 && z->dw[i] < -z->droptol)) {
    s = -wi / z->dw[i]; /* w_i reaches 0 */
    if (s < 0) s = 0;
    kind = 1;
  } else if (fabs(z->dw[i]) <= z->droptol) {
    z->dw[i] = 0.0;
  }
  if (j < 0) {
    double sb = dir > 0 ? z->hi[i] - z->x[i] : z->x[i] - z->lo[i];
    if (sb < 0) sb = 0;
    if (sb <= s) s = sb, kind = 2;
  } else {
    double g, rate, dxj = z->dx[j];
    if (dir > 0)
      g = z->hi[i] * z->x[j] - z->x[i], rate = z->hi[i] * dxj - 1.0;
    else
      g = z->x[i] - z->lo[i] * z->x[j], rate = -1.0 - z->lo[i] * dxj;
    if (rate < -CP_EPS) {
      t = (g > 0 ? g : 0) / -rate;
      if (t <= s) s = t, kind = 2;
    }
    /* the bound behind it can catch up, moving with the normal */
    if (dir > 0)
      g = z->x[i] - z->lo[i] * z->x[j], rate = 1.0 - z->lo[i] * dxj;
    else
      g = z->hi[i] * z->x[j] - z->x[i], rate = z->hi[i] * dxj + 1.0;
    if (rate < -CP_EPS) {
      t = (g > 0 ? g : 0) / -rate;
      if (t < s) s = t, kind = 6;
    }
  }
  ev->s = s, ev->kind = kind, ev->who = -1, ev->wst = 0;
}

/* Ratio test, the clamped rows: one reaching a bound of its box (kind 3). */
static void cp_ratio_clamped(const cp *z, cp_event *ev) {
  double s = ev->s, t;
  int kind = ev->kind, who = ev->who, wst = ev->wst, a;
  for (a = 0; a < z->k; a++) {
    int c = z->cl[a], jc = fxo(z, c);
    double d = z->dx[c];
    if (jc < 0) {
      if (d > CP_EPS) {
        t = (z->hi[c] - z->x[c]) / d;
        if (t < s) s = t < 0 ? 0 : t, kind = 3, who = c, wst = ST_HI;
      } else if (d < -CP_EPS) {
        t = (z->lo[c] - z->x[c]) / d;
        if (t < s) s = t < 0 ? 0 : t, kind = 3, who = c, wst = ST_LO;
      }
    } else {
      double dxj = z->dx[jc], g, rate;
      g = z->hi[c] * z->x[jc] - z->x[c];
      rate = z->hi[c] * dxj - d;
      if (rate < -CP_EPS) {
        t = (g > 0 ? g : 0) / -rate;
        if (t < s) s = t, kind = 3, who = c, wst = ST_HI;
      }
      g = z->x[c] - z->lo[c] * z->x[jc];
      rate = d - z->lo[c] * dxj;
      if (rate < -CP_EPS) {
        t = (g > 0 ? g : 0) / -rate;
        if (t < s) s = t, kind = 3, who = c, wst = ST_LO;
      }
    }
  }
  ev->s = s, ev->kind = kind, ev->who = who, ev->wst = wst;
}

/* Ratio test, the rows out of C (driven row i excluded): at a bound,
 * their w reaching 0 (kind 4); friction rows inside but out of C
 * (dependent columns: x fixed), their box moving with the normal (5). */
static void cp_ratio_out(const cp *z, int i, cp_event *ev) {
  double s = ev->s, t;
  int kind = ev->kind, who = ev->who, wst = ev->wst, r;
  const int *st = z->st;
  const double *dw = z->dw;
  int wd, nw = (z->n + CP_WB - 1) / CP_WB;
  unsigned bits;
  for (wd = 0; wd < nw; wd++)
  for (bits = z->cd[wd]; bits; bits &= bits - 1) { /* in row order */
    int sr, jr;
    double d;
    r = wd * CP_WB + bit_low(bits);
    sr = st[r];
    if (sr == ST_LO) {
      if (!((d = dw[r]) < -CP_EPS)) continue;
    } else if (sr == ST_HI) {
      if (!((d = dw[r]) > CP_EPS)) continue;
    } else {
      if (sr != ST_FREE || z->pos[r] >= 0 || (jr = z->fx[r]) < 0 || r == i) continue;
      /* a friction row inside, out of C */
      double dxj = z->dx[jr], g;
      if (z->hi[r] * dxj < -CP_EPS) {
        g = z->hi[r] * z->x[jr] - z->x[r];
        t = (g > 0 ? g : 0) / -(z->hi[r] * dxj);
        if (t < s) s = t, kind = 5, who = r, wst = ST_HI;
      }
      if (-z->lo[r] * dxj < -CP_EPS) {
        g = z->x[r] - z->lo[r] * z->x[jr];
        t = (g > 0 ? g : 0) / (z->lo[r] * dxj);
        if (t < s) s = t, kind = 5, who = r, wst = ST_LO;
      }
      continue;
    }
    { /* at a bound, w moving toward 0 */
      if (r == i || z->def[r]) continue;
      jr = z->fx[r];
      if (jr < 0 ? !(z->hi[r] > z->lo[r]) : (z->x[jr] == 0.0 && z->dx[jr] == 0.0))
        continue; /* a fixed row; a collapsed box, normal not moving */
      t = -z->w[r] / d;
      if (t < s) s = t < 0 ? 0 : t, kind = 4, who = r;
    }
  }
  ev->s = s, ev->kind = kind, ev->who = who, ev->wst = wst;
}

/* Takes the step of length s (rp: dx gathered, its first nsf entries
 * moved by s dx, the folded rows with their normal: x_q = s_q x_j up to
 * round-off, w followed through dw) and clears dx.  When row i joins C
 * (kind 1, x_i not 0) z->u gets M^-1 times its column, -dir dx_C, and 1 is
 * returned (at x_i = 0 its friction rows' collapsed boxes may flip). */
static int cp_step(cp *z, int i, double dir, const cp_event *ev, int nsf) {
  int a, q, have_u;
  for (a = 0; a < nsf; a++) z->x[z->sup[a]] += ev->s * z->rp[a];
  for (; a < z->nsup; a++) {
    q = z->sup[a];
    z->x[q] = z->s[q] * z->x[z->fx[q]];
  }
  cp_axpy(z->n, ev->s, z->dw, z->w);
  have_u = ev->kind == 1 && z->x[i] != 0.0;
  if (have_u)
    for (a = 0; a < z->k; a++) z->u[a] = -dir * z->dx[z->cl[a]];
  for (a = 0; a < z->nsup; a++) z->dx[z->sup[a]] = 0.0;
  (*z->pivots)++;
  return have_u;
}

/* The cycle check: 1 when the index sets (and w_i, x_i) are the same as a
 * few nondegenerate steps ago (possible once friction columns fold; the
 * drive would only burn the budget); else remembers them and returns 0. */
static int cp_ring_seen(cp_ring *g, const cp *z, int i, double dir) {
  unsigned long long h = cp_signature(z, i, dir);
  int e, lim = g->count < CP_RING ? g->count : CP_RING;
  for (e = 0; e < lim; e++)
    if (g->sig[e] == h && fabs(g->wx[2 * e] - z->w[i]) <= 1e-12 * (1.0 + fabs(z->w[i])) &&
        fabs(g->wx[2 * e + 1] - z->x[i]) <= 1e-12 * (1.0 + fabs(z->x[i])))
      return 1;
  g->sig[g->count % CP_RING] = h;
  g->wx[2 * (g->count % CP_RING)] = z->w[i];
  g->wx[2 * (g->count % CP_RING) + 1] = z->x[i];
  g->count++;
  return 0;
}

/* Applies the event that ended a step of the drive of row i (its normal
 * j).  dead: a degenerate step sending a row straight back (it is
 * deferred); have_u: from cp_step; tolw: w_i's zero.  Sets *chk, *chk_side
 * to the row that changed state when its next move must be checked
 * (cp_wrong_way).  Returns 1 when the drive is over, 0 when it goes on,
 * -1 when it failed. */
static int cp_apply(cp *z, int i, int j, double dir, const cp_event *ev, int have_u, int dead,
                    double tolw, int *chk, int *chk_side) {
  int kind = ev->kind, who = ev->who, wst = ev->wst;
  if (kind == 1) {
    z->w[i] = 0.0;
    z->st[i] = ST_FREE;
    if (!cp_add(z, i, have_u)) cp_defer(z, i); /* dependent: inside, w_i = 0, not in C */
    return 1;
  } else if (kind == 2) {
    int bst = dir > 0 ? ST_HI : ST_LO;
    if (j < 0) {
      cp_setx(z, i, dir > 0 ? z->hi[i] : z->lo[i]);
      z->st[i] = bst;
      bit_put(z->cd, i, 1);
    } else if (cp_to_bound(z, i, bst) != 0) {
      CP_FAIL(5);
    }
    /* after a retreat, the bound it started from: w_i on the wrong side */
    if (bst == ST_HI ? z->w[i] > tolw : z->w[i] < -tolw) cp_defer(z, i);
    return 1;
  } else if (kind == 3) {
    if (cp_remove(z, z->pos[who]) != 0) CP_FAIL(4);
    if (fxo(z, who) < 0) {
      cp_setx(z, who, wst == ST_HI ? z->hi[who] : z->lo[who]);
      z->st[who] = wst;
      bit_put(z->cd, who, 1);
    } else if (cp_to_bound(z, who, wst) != 0) {
      CP_FAIL(5);
    }
    if (dead)
      cp_defer(z, who);
    else
      *chk = who, *chk_side = wst;
  } else if (kind == 6) {
    /* at the bound behind it with w_i still on the wrong side: deferred */
    if (cp_to_bound(z, i, dir > 0 ? ST_LO : ST_HI) != 0) CP_FAIL(5);
    cp_defer(z, i);
    return 1;
  } else if (kind == 5) {
    if (cp_to_bound(z, who, wst) != 0) CP_FAIL(5);
  } else if (dead) {
    cp_defer(z, who); /* stays at its bound */
  } else {
    int jw = fxo(z, who), old = z->st[who];
    z->w[who] = 0.0;
    if (jw >= 0 && z->pos[jw] >= 0 && cp_fold(z, z->pos[jw], who, -z->s[who]) != 0) CP_FAIL(6);
    z->st[who] = ST_FREE;
    /* a negative Schur complement: with `who` in C its x leaves the box at
       once, and at its bound its w leaves zero (a Painleve-like
       configuration): no complementary continuation of the drive with
       it; it goes back to its bound, deferred */
    if (!cp_add(z, who, 0))
      cp_defer(z, who); /* dependent: tracked again at the end */
    else
      *chk = who, *chk_side = old;
  }
  return 0;
}

/* Drives row i to complementarity: per step, the direction, the retreat
 * rule, the ratio tests, the step, the cycle checks and the event.
 * Returns 0, or -1. */
static int cp_drive(cp *z, int i, double dir) {
  int n = z->n, j = fxo(z, i), rc;
  int zero = 0, lastwho = -1, lastkind = 0, dead = 0; /* degenerate steps */
  int turns = 0, flips = 0;                          /* retreats */
  cp_ring ring;
  int steps = 0, have_u, nsf = 0;
  int chk = -1, chk_side = 0; /* the row that changed state at the last event */
  double tolw = 1e-13 * (1.0 + fabs(z->b[i]));
  /* w_i this small is zero: the clamped rows' w are held to zero only up
     to the accuracy of M^-1 (see the check in cp_direction), so a w_i of
     that size is noise, and driving it only wanders along a near-null
     direction */
  double tola = z->wtol * (1.0 + fabs(z->b[i])) > tolw ? z->wtol * (1.0 + fabs(z->b[i])) : tolw;
  ring.count = 0;
  for (;;) {
    cp_event ev;
    double wi = z->w[i];
    int a;
    if (--z->budget < 0) CP_FAIL(1);
    if (fabs(wi) <= tola) { /* complementary within round-off */
      z->w[i] = 0.0;
      z->st[i] = ST_FREE;
      if (!cp_add(z, i, 0)) cp_defer(z, i);
      return 0;
    }
    if (cp_direction(z, i, dir, &nsf) != 0) return -1;
    /* a row moving the wrong way (cp_wrong_way): the drive continues
       backward, x_i retreating (Cottle-Dantzig's rule: the row's
       complement drives) */
    if (chk >= 0) {
      int back = cp_wrong_way(z, chk, chk_side);
      chk = -1;
      if (back) {
        dir = -dir;
        cp_reverse(z);
        if (++flips > 4 * n + 8) CP_FAIL(4);
      }
    }
    cp_ratio_driven(z, i, j, dir, wi, &ev);
    cp_ratio_clamped(z, &ev);
    cp_ratio_out(z, i, &ev);
    if (!(ev.s < INFINITY)) {
      for (a = 0; a < z->nsup; a++) z->dx[z->sup[a]] = 0.0;
      /* nothing blocks and w_i moves away from 0 (a negative Schur
         complement, possible once friction columns fold): turn back */
      if (wi * z->dw[i] > 0.0 && fabs(z->dw[i]) > z->droptol && ++turns <= 2) {
        dir = -dir;
        continue;
      }
      CP_FAIL(3);
    }
    /* degenerate (zero-length) steps: a cycle if they go on, or if a row
       goes straight back (both of its states block the drive) */
    if (ev.s <= 1e-14 * (1.0 + fabs(z->x[i]))) {
      if (++zero > 2 * z->k + 8) CP_FAIL(8);
      /* a row going straight back: both of its states block the drive */
      dead = ev.who >= 0 && ev.who == lastwho && ev.kind != lastkind;
      lastwho = ev.who, lastkind = ev.kind;
    } else {
      zero = 0, lastwho = -1, dead = 0;
    }
    have_u = cp_step(z, i, dir, &ev, nsf);
    /* after a nondegenerate step (the third of the drive on: most drives
       end sooner), the cycle check; degenerate steps are left to the
       dead-end rule above */
    if (zero == 0 && ++steps > 2 && cp_ring_seen(&ring, z, i, dir)) CP_FAIL(10);
#ifdef CP_TRACE
    CP_TRACE(z, i, dir, ev.kind, ev.who, ev.wst, ev.s);
#endif
    if (z->fric) cp_fix_collapsed(z);
    rc = cp_apply(z, i, j, dir, &ev, have_u, dead, tolw, &chk, &chk_side);
    if (rc < 0) return -1;
    if (rc > 0) return 0;
  }
}

/* Processes row i (unprocessed: x_i inside its box or at a bound). */
static int cp_process(cp *z, int i) {
  int j = fxo(z, i);
  double wi = z->w[i], tolw = 1e-13 * (1.0 + fabs(z->b[i]));
  if (j < 0) {
    if (z->lo[i] == z->hi[i]) {
      z->st[i] = ST_LO;
      bit_put(z->cd, i, 1);
      return 0;
    }
    if (z->x[i] == z->lo[i] && wi >= 0.0) {
      z->st[i] = ST_LO;
      bit_put(z->cd, i, 1);
      return 0;
    }
    if (z->x[i] == z->hi[i] && wi <= 0.0) {
      z->st[i] = ST_HI;
      bit_put(z->cd, i, 1);
      return 0;
    }
  } else {
    double L = z->lo[i] * z->x[j], H = z->hi[i] * z->x[j];
    if (z->x[j] == 0.0 && z->pos[j] < 0) { /* collapsed box [0, 0] */
      z->st[i] = wi >= 0.0 ? ST_LO : ST_HI;
      bit_put(z->cd, i, 1);
      z->s[i] = z->st[i] == ST_LO ? z->lo[i] : z->hi[i];
      cp_setx(z, i, 0.0);
      return 0;
    }
    if (z->x[i] == L && wi >= 0.0) return cp_to_bound(z, i, ST_LO);
    if (z->x[i] == H && wi <= 0.0) return cp_to_bound(z, i, ST_HI);
  }
  if (fabs(wi) <= tolw) {
    z->w[i] = 0.0;
    z->st[i] = ST_FREE;
    if (!cp_add(z, i, 0)) cp_defer(z, i);
    return 0;
  }
  return cp_drive(z, i, wi < 0.0 ? 1.0 : -1.0);
}

/* The cp of the arguments: the workspace laid out (ar->work, ar->iwork),
 * its bit sets cleared; no friction rows: fx an array of -1. */
static void cp_init(cp *z, const diagc__cp_args *ar, int *pivots) {
  int n = ar->n, i, nw = (n + CP_WB - 1) / CP_WB;
  size_t nn = (size_t)n;
  double *p = ar->work;
  memset(z, 0, sizeof *z);
  z->n = n;
  z->A = ar->A, z->b = ar->b, z->lo = ar->lo, z->hi = ar->hi, z->fx = ar->fx;
  z->cfm = ar->cfm;
  z->droptol = ar->droptol;
  z->wtol = ar->wtol;
  z->budget = ar->max_pivots;
  z->sym = ar->sym;
  z->pivots = pivots;
  z->Mi = p, p += nn * nn;
  z->M2 = p, p += nn * nn;
  z->x = p, p += nn + 1;
  z->w = p, p += nn + 1;
  z->dx = p, p += nn + 1;
  z->dw = p, p += nn + 1;
  z->u = p, p += nn + 1;
  z->v = p, p += nn + 1;
  z->col = p, p += nn + 1;
  z->rowv = p, p += nn + 1;
  z->s = p, p += nn + 1;
  z->rp = p;
  z->cl = ar->iwork;
  z->pos = z->cl + n;
  z->st = z->pos + n;
  z->sup = z->st + n;
  z->ch = z->sup + n;
  z->def = z->ch + n;
  z->stack = z->def + n;
  z->cnt = z->stack + n;
  z->chs = z->cnt + n;
  z->chl = z->chs + n + 1;
  /* after chl and the -1 array: the bit sets (int storage, read as
     unsigned), then the order-2 list */
  z->cd = (unsigned *)(z->chl + 2 * n);
  z->out = z->cd + nw;
  memset(z->cd, 0, sizeof(unsigned) * 2 * (size_t)nw);
  if (!z->fx) { /* no friction rows: an array of -1 (after chl) */
    int *nofx = z->chl + n;
    for (i = 0; i < n; i++) nofx[i] = -1;
    z->fx = nofx;
  }
  z->nstack = 0;
}

/* The start: x (0, or the bound nearest 0 of a box that excludes it), w,
 * the states (unprocessed), each row's friction rows grouped, maxdiag.
 * Returns 0, or -2 (not applicable: a friction row whose normal may be
 * negative, an infinite friction multiplier). */
static int cp_start(cp *z) {
  int n = z->n, i;
  size_t nn = (size_t)n;
  /* one pass over the rows: the start point, the states, the friction
     rows of each row counted (grouped below: counting sort) */
  const int *fx = z->fx;
  const double *A = z->A, *lo = z->lo, *hi = z->hi;
  double *xx = z->x, *w = z->w, maxdiag = 0.0;
  int *chs = z->chs, *chl = z->chl, tot = 0;
  memset(chs, 0, sizeof(int) * (nn + 1));
  for (i = 0; i < n; i++) {
    int j = fx[i];
    double d = fabs(A[(size_t)i * nn + i] + z->cfm);
    if (d > maxdiag) maxdiag = d;
    if (j >= 0) {
      if (!(lo[j] >= 0.0) || !isfinite(lo[i]) || !isfinite(hi[i])) return -2;
      xx[i] = 0.0;
      chs[j]++;
    } else {
      xx[i] = lo[i] > 0 ? lo[i] : hi[i] < 0 ? hi[i] : 0.0;
    }
    w[i] = -z->b[i];
    z->dx[i] = 0.0;
    z->s[i] = 0.0;
    z->st[i] = CP_UNPROC;
    z->pos[i] = -1;
    z->def[i] = 0;
    z->cnt[i] = 0;
  }
  z->maxdiag = maxdiag == 0.0 ? 1.0 : maxdiag;
  for (i = 0; i < n; i++) chs[i] = tot += chs[i]; /* block ends ... */
  chs[n] = tot;
  for (i = n - 1; i >= 0; i--) /* ... moved to the block starts */
    if (fx[i] >= 0) chl[--chs[fx[i]]] = i;
  for (i = 0; i < n; i++)
    if (chs[i] != chs[i + 1]) bit_put(z->out, i, 1); /* out of C */
  for (i = 0; i < n; i++) /* w = A x - b: x is 0 but for rows whose box excludes 0 */
    if (z->x[i] != 0.0) cp_setx_from0(z, i);
  return 0;
}

/* Order 2 (the friction phase): the friction row whose box (hi - lo) x_j is
 * the widest at the time, i.e. the contacts pressed hardest first: their
 * friction rows mostly end clamped inside, and the contacts whose normal is
 * small (a narrow box that moves with it: the source of the non-monotone
 * events) come last, their normal settled meanwhile. (On the benchmark's
 * problems, n = 30, 3 first attempts of 300 fail, against 22 with the rows
 * in turn.)  The unprocessed friction rows are kept in a list in row order
 * (ties go to the lowest row), with their box width hi - lo and normal
 * alongside; a row taken is marked dead in place (width -1 on a spare x
 * slot of 1: never above the running maxima's start, -1), the live range
 * [s0, m) trimmed at both ends.  O(f) per row, O(f^2) per attempt (two
 * running maxima, over the even and the odd places: two short dependency
 * chains), below the pivots' cost */
static int cp_widest_first(cp *z) {
  int n = z->n, i, nw = (n + CP_WB - 1) / CP_WB;
  size_t nn = (size_t)n;
  int *ul = (int *)(z->out + nw), *uj = ul + n, m = 0, s0 = 0, a;
  double *ud = z->rp + nn + 1;
  z->x[n] = 1.0; /* the dead entries' x (x has n + 1 slots) */
  for (i = 0; i < n; i++)
    if (z->fx[i] >= 0 && z->st[i] == CP_UNPROC)
      ul[m] = i, uj[m] = z->fx[i], ud[m++] = z->hi[i] - z->lo[i];
  while (m > s0) {
    int best, p0 = s0, p1 = m;
    double w0 = -1.0, w1 = -1.0;
    const double *xx = z->x;
    for (a = s0; a + 1 < m; a += 2) {
      double wa = ud[a] * xx[uj[a]], wb = ud[a + 1] * xx[uj[a + 1]];
      if (wa > w0) w0 = wa, p0 = a;
      if (wb > w1) w1 = wb, p1 = a + 1;
    }
    if (a < m) {
      double wa = ud[a] * xx[uj[a]];
      if (wa > w0) w0 = wa, p0 = a;
    }
    best = w1 > w0 || (w1 == w0 && p1 < p0) ? p1 : p0;
    i = ul[best];
    ud[best] = -1.0, uj[best] = n;
    while (s0 < m && uj[s0] == n) s0++;
    while (m > s0 && uj[m - 1] == n) m--;
    if (z->st[i] != CP_UNPROC) continue;
    z->cur = i;
    if (cp_process(z, i) != 0) return -1;
  }
  return 0;
}

/* The two phases (constant rows, then friction rows), each row processed
 * once.  Returns 0, or -1 (z->cur: the row being processed). */
static int cp_phases(cp *z, const diagc__cp_args *ar) {
  int n = z->n, phase;
  /* constant rows first, then friction rows (order 0: in turn, 1: in
     reverse, 2: the largest box first); in each phase the lead rows first
     (rows at which earlier attempts stopped: taking a troublesome row
     early changes the path) */
  for (phase = 0; phase < 2; phase++) {
    int ii, e;
    z->fric = phase;
    for (e = 0; e < ar->nlead; e++) {
      int i = ar->lead[e];
      if ((fxo(z, i) >= 0) != phase || z->st[i] != CP_UNPROC) continue;
      z->cur = i;
      if (cp_process(z, i) != 0) return -1;
    }
    if (phase == 1 && ar->order == 2 && cp_widest_first(z) != 0) return -1;
    for (ii = 0; ii < n; ii++) {
      int i = phase == 1 && ar->order == 1 ? n - 1 - ii : ii;
      if ((fxo(z, i) >= 0) != phase || z->st[i] != CP_UNPROC) continue;
      z->cur = i;
      if (cp_process(z, i) != 0) return -1;
    }
  }
  return 0;
}

/* Defers every row out of C whose complementarity broke since it was
 * processed (dependent columns are not tracked). */
static void cp_defer_broken(cp *z) {
  int n = z->n, i;
  for (i = 0; i < n; i++) {
    double tolw = 1e-11 * (1.0 + fabs(z->b[i]));
    int j = fxo(z, i);
    if (j < 0 ? z->lo[i] == z->hi[i] : (z->x[j] == 0.0 && z->pos[j] < 0)) continue; /* [L, L] */
    if ((z->st[i] == ST_LO && z->w[i] < -tolw) || (z->st[i] == ST_HI && z->w[i] > tolw) ||
        (z->st[i] == ST_FREE && z->pos[i] < 0 && fabs(z->w[i]) > tolw))
      cp_defer(z, i);
  }
}

/* The deferred rows, from their bound (at most `redo` in all, each row
 * CP_REDO times); then any row out of C whose complementarity broke
 * since.  Returns 0, or -1 (z->cur: the row being processed). */
static int cp_deferred(cp *z, int redo) {
  for (;;) {
    int r, j;
    double tolw;
    if (z->nstack == 0) {
      cp_defer_broken(z);
      if (z->nstack == 0) break;
    }
    r = z->stack[--z->nstack], j = fxo(z, r);
    z->def[r] = 0;
    z->cur = r;
    if (--z->budget < 0) return -1;
    if (--redo < 0 || ++z->cnt[r] > CP_REDO) { /* rows deferring each other in turn */
      CP_NOTE(9);
      return -1;
    }
    tolw = 1e-13 * (1.0 + fabs(z->b[r]));
    if ((z->st[r] == ST_LO && z->w[r] >= -tolw) || (z->st[r] == ST_HI && z->w[r] <= tolw) ||
        (z->st[r] == ST_FREE && fabs(z->w[r]) <= tolw))
      continue;
    if (folded(z, r) && z->pos[j] >= 0 && cp_fold(z, z->pos[j], r, -z->s[r]) != 0) return -1;
    z->st[r] = CP_UNPROC;
    bit_put(z->cd, r, 0);
    z->s[r] = 0.0;
    if (cp_process(z, r) != 0) return -1;
  }
  return 0;
}

int diagc__lcp_cp(const diagc__cp_args *ar, double *x, int *state, int *pivots) {
  int n = ar->n, i, rc;
  cp z;
  cp_init(&z, ar, pivots);
  if (cp_start(&z) != 0) return -2;
  rc = cp_phases(&z, ar);
  if (rc == 0) rc = cp_deferred(&z, 2 * n + 8);
  if (ar->fail_row) *ar->fail_row = rc != 0 ? z.cur : -1;
  /* the point and states reached (on failure: a start for other methods;
     rows not processed are inside their box) */
  for (i = 0; i < n; i++) {
    if (!isfinite(z.x[i])) return -2;
    x[i] = z.x[i];
    state[i] = z.st[i] == ST_HI ? ST_HI : z.st[i] == ST_LO ? ST_LO : ST_FREE;
  }
  return rc;
}
