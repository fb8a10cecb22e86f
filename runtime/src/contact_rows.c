/* contact_rows.c: the rows of a contact problem (diagc/world.h, "Contact
 * solve"), dense (J, MinvJT: 3 nc rows over all nv dofs) or compact (Jc,
 * MJc: each contact's rows over the dofs of its two trees only).  Every
 * other contact file reads rows through these, so both forms give the
 * same step: a row times a velocity, a row's impulse added to a velocity,
 * and the 3 x 3 block of A = J M^-1 J^T of two contacts.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "contact_internal.h"

/* The dofs of contact k's side s (0: tree a, 1: tree b) as a range of
 * tree_dofs, and where they start among the contact's compact columns;
 * 0 when the side has none (the world, or tree b == tree a). */
static inline int side(const diagc_contact_problem *p, int k, int s, int *d0, int *col0) {
  int a = p->tree[2 * k], b = p->tree[2 * k + 1], t = s == 0 ? a : b, n;
  if (t < 0 || (s == 1 && b == a)) return 0;
  *d0 = p->tree_dof0[t]; /* trees have at least one dof: d0 names the tree */
  n = p->tree_dof0[t + 1] - *d0;
  *col0 = (s == 1 && a >= 0) ? p->tree_dof0[a + 1] - p->tree_dof0[a] : 0;
  return n;
}

int diagc__contact_width(const diagc_contact_problem *p, int k) {
  int s, w = 0, d0, c0;
  for (s = 0; s < 2; s++) w += side(p, k, s, &d0, &c0);
  return w;
}

double diagc__row_dot(const diagc_contact_problem *p, int r, const double *y) {
  double acc = 0.0;
  int s, i;
  if (!p->Jc) {
    const double *Jr = p->J + (size_t)r * (size_t)p->nv;
    for (i = 0; i < p->nv; i++) acc += Jr[i] * y[i];
    return acc;
  }
  for (s = 0; s < 2; s++) {
    int d0, c0, n = side(p, r / 3, s, &d0, &c0);
    const double *Jr = p->Jc + (size_t)r * (size_t)p->width + c0;
    const int *dof = p->tree_dofs + d0;
    for (i = 0; i < n; i++) acc += Jr[i] * y[dof[i]];
  }
  return acc;
}

void diagc__tangent_dots(const diagc_contact_problem *p, int k, const double *y, double *a1, double *a2) {
  double s1 = 0.0, s2 = 0.0;
  int s, i;
  if (!p->Jc) {
    *a1 = diagc__row_dot(p, 3 * k + 1, y), *a2 = diagc__row_dot(p, 3 * k + 2, y);
    return;
  }
  for (s = 0; s < 2; s++) {
    int d0, c0, n = side(p, k, s, &d0, &c0);
    const double *J1 = p->Jc + (size_t)(3 * k + 1) * (size_t)p->width + c0, *J2 = J1 + p->width;
    const int *dof = p->tree_dofs + d0;
    for (i = 0; i < n; i++) s1 += J1[i] * y[dof[i]], s2 += J2[i] * y[dof[i]];
  }
  *a1 = s1, *a2 = s2;
}

void diagc__row_axpy(const diagc_contact_problem *p, int r, double a, double *y) {
  int s, i;
  if (!p->Jc) {
    int n3 = 3 * p->nc;
    for (i = 0; i < p->nv; i++) y[i] += p->MinvJT[(size_t)i * (size_t)n3 + r] * a;
    return;
  }
  for (s = 0; s < 2; s++) {
    int d0, c0, n = side(p, r / 3, s, &d0, &c0);
    const double *Mr = p->MJc + (size_t)r * (size_t)p->width + c0;
    const int *dof = p->tree_dofs + d0;
    for (i = 0; i < n; i++) y[dof[i]] += Mr[i] * a;
  }
}

double diagc__row_mrow(const diagc_contact_problem *p, int r, int q) {
  double acc = 0.0;
  int i, s, u;
  if (!p->Jc) {
    const double *Jr = p->J + (size_t)r * (size_t)p->nv;
    int n3 = 3 * p->nc;
    for (i = 0; i < p->nv; i++) acc += Jr[i] * p->MinvJT[(size_t)i * (size_t)n3 + q];
    return acc;
  }
  for (s = 0; s < 2; s++) {
    int d0, c0, n = side(p, r / 3, s, &d0, &c0);
    if (n == 0) continue;
    for (u = 0; u < 2; u++) {
      int e0, f0, m = side(p, q / 3, u, &e0, &f0);
      if (m == 0 || e0 != d0) continue;
      {
        const double *Jr = p->Jc + (size_t)r * (size_t)p->width + c0;
        const double *Mq = p->MJc + (size_t)q * (size_t)p->width + f0;
        for (i = 0; i < n; i++) acc += Jr[i] * Mq[i];
      }
    }
  }
  return acc;
}

/* Each contact's nonzero columns as up to DIAGC__SPAN_RUNS runs [s, e) of
 * its compact columns (span: 2 DIAGC__SPAN_RUNS ints per contact, unused
 * runs empty): a contact on one body's chain has few (a foot on a
 * humanoid's 36 dofs: the base's 6 and the leg's 6).  Beyond the last run
 * the next ones are merged into it, zeros included. */
void diagc__contact_spans(const diagc_contact_problem *p, int *span) {
  int k, c, t, W = p->width;
  for (k = 0; k < p->nc; k++) {
    int *sp = span + 2 * DIAGC__SPAN_RUNS * k, n = 0, w = diagc__contact_width(p, k);
    const double *J = p->Jc + (size_t)(3 * k) * (size_t)W;
    for (c = 0; c < 2 * DIAGC__SPAN_RUNS; c++) sp[c] = 0;
    for (c = 0; c < w; c++) {
      int nz = 0;
      for (t = 0; t < 3; t++) nz |= J[(size_t)t * (size_t)W + c] != 0.0;
      if (!nz) continue;
      if (n > 0 && sp[2 * n - 1] == c) sp[2 * n - 1] = c + 1; /* extends the run */
      else if (n == DIAGC__SPAN_RUNS) sp[2 * n - 1] = c + 1;   /* merged into the last */
      else sp[2 * n] = c, sp[2 * n + 1] = c + 1, n++;
    }
  }
}

/* B += the 3 x 3 product of rows Jr (3, stride W) and Mq (3, stride W)
 * over the columns of the runs [run[2 u], run[2 u + 1]) (u < runs;
 * ascending, disjoint, each starting at a multiple of 4 and ending at one
 * or at the side's last column), each entry in four interleaved partial
 * sums, column c into sum c mod 4 (a fixed order: columns off the runs,
 * where Jr is zero, would add exact zeros, so the sums are those of all
 * the side's columns); inlined with one run of 6 columns (a free body's
 * tree) as the common case. */
static inline void block_add(const double *Jr, const double *Mq, int W, const int *run, int runs, double B[9]) {
  const double *a0 = Jr, *a1 = Jr + W, *a2 = Jr + 2 * (size_t)W;
  const double *b0 = Mq, *b1 = Mq + W, *b2 = Mq + 2 * (size_t)W;
  /* the sums as 9 pairs of 2-lane halves set to zero one by one: an
     initializer of the whole array became a `rep stos` whose start-up
     cost was a seventh of the function (perf, the Atlas hold) */
  double s[9][4];
  int c, u, e, l;
  for (e = 0; e < 9; e++) {
    s[e][0] = 0.0, s[e][1] = 0.0;
    s[e][2] = 0.0, s[e][3] = 0.0;
  }
  for (u = 0; u < runs; u++) {
    int c1 = run[2 * u + 1];
    for (c = run[2 * u]; c < c1; c += 4) {
      int nl = c1 - c < 4 ? c1 - c : 4; /* 4 but at the side's end */
      for (l = 0; l < nl; l++) {
        const double x0 = a0[c + l], x1 = a1[c + l], x2 = a2[c + l];
        const double y0 = b0[c + l], y1 = b1[c + l], y2 = b2[c + l];
        s[0][l] += x0 * y0, s[1][l] += x0 * y1, s[2][l] += x0 * y2;
        s[3][l] += x1 * y0, s[4][l] += x1 * y1, s[5][l] += x1 * y2;
        s[6][l] += x2 * y0, s[7][l] += x2 * y1, s[8][l] += x2 * y2;
      }
    }
  }
  for (e = 0; e < 9; e++) B[e] += (s[e][0] + s[e][1]) + (s[e][2] + s[e][3]);
}

/* The runs of block_add for contact k's side of n columns from c0: its
 * runs of span clipped to the side, widened to multiples of 4 (the
 * side's end at most) and merged where they then meet; all n columns
 * when span is NULL.  Returns their count. */
static int side_runs(const int *span, int k, int c0, int n, int run[2 * DIAGC__SPAN_RUNS]) {
  int r, m = 0;
  if (!span) {
    run[0] = 0, run[1] = n;
    return 1;
  }
  span += 2 * DIAGC__SPAN_RUNS * k;
  for (r = 0; r < DIAGC__SPAN_RUNS; r++) {
    int a = span[2 * r] - c0, b = span[2 * r + 1] - c0;
    if (a < 0) a = 0;
    if (b > n) b = n;
    if (b <= a) continue;
    a &= ~3, b = (b + 3) & ~3;
    if (b > n) b = n;
    if (m > 0 && a <= run[2 * m - 1]) run[2 * m - 1] = b > run[2 * m - 1] ? b : run[2 * m - 1];
    else run[2 * m] = a, run[2 * m + 1] = b, m++;
  }
  return m;
}

/* The block of contacts k and l: B[3 i + j] = J_{3k+i} M^-1 J_{3l+j}^T,
 * over the trees they share (on contact k's runs of span when not NULL);
 * returns 0 when they share none (B zero). */
int diagc__contact_block(const diagc_contact_problem *p, const int *span, int k, int l, double B[9]) {
  const int *tk = p->tree + 2 * k, *tl = p->tree + 2 * l, *d0 = p->tree_dof0;
  int s, u, i, shared = 0, W = p->width;
  for (i = 0; i < 9; i++) B[i] = 0.0;
  for (s = 0; s < 2; s++) {
    int t = tk[s], n, c0, run[2 * DIAGC__SPAN_RUNS], runs;
    if (t < 0 || (s == 1 && t == tk[0])) continue;
    n = d0[t + 1] - d0[t];
    c0 = (s == 1 && tk[0] >= 0) ? d0[tk[0] + 1] - d0[tk[0]] : 0;
    runs = side_runs(span, k, c0, n, run);
    for (u = 0; u < 2; u++) {
      int f0;
      const double *Jr = p->Jc + (size_t)(3 * k) * (size_t)W + c0;
      if (tl[u] != t || (u == 1 && tl[0] == t)) continue;
      f0 = (u == 1 && tl[0] >= 0) ? d0[tl[0] + 1] - d0[tl[0]] : 0;
      shared = 1;
      if (runs == 1 && run[0] == 0 && run[1] == 6)
        block_add(Jr, p->MJc + (size_t)(3 * l) * (size_t)W + f0, W, run, 1, B);
      else
        block_add(Jr, p->MJc + (size_t)(3 * l) * (size_t)W + f0, W, run, runs, B);
    }
  }
  return shared;
}

/* 1 when the n doubles from a are finite: no exponent field is all ones
 * (adding 1 to it carries into the sign bit only then), an integer test
 * the compiler vectorizes (isfinite entry by entry was a twentieth of the
 * Atlas's step) */
int diagc__finite_run(const double *a, size_t n) {
  const uint64_t E = UINT64_C(0x7ff0000000000000), ONE = UINT64_C(0x0010000000000000);
  uint64_t bad = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0;
  size_t i;
  for (i = 0; i + 8 <= n; i += 8) { /* eight lanes: four vectors a pass */
    uint64_t u0, u1, u2, u3, u4, u5, u6, u7;
    memcpy(&u0, a + i, 8);
    memcpy(&u1, a + i + 1, 8);
    memcpy(&u2, a + i + 2, 8);
    memcpy(&u3, a + i + 3, 8);
    memcpy(&u4, a + i + 4, 8);
    memcpy(&u5, a + i + 5, 8);
    memcpy(&u6, a + i + 6, 8);
    memcpy(&u7, a + i + 7, 8);
    b0 |= (u0 & E) + ONE;
    b1 |= (u1 & E) + ONE;
    b2 |= (u2 & E) + ONE;
    b3 |= (u3 & E) + ONE;
    b4 |= (u4 & E) + ONE;
    b5 |= (u5 & E) + ONE;
    b6 |= (u6 & E) + ONE;
    b7 |= (u7 & E) + ONE;
  }
  for (; i < n; i++) {
    uint64_t u;
    memcpy(&u, a + i, sizeof u);
    bad |= (u & E) + ONE;
  }
  bad |= b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7;
  return (bad >> 63) == 0;
}

/* The compact arrays present, consistent and finite. */
int diagc__contact_compact_ok(const diagc_contact_problem *p) {
  int k, t, i;
  if (!p->MJc || !p->tree || !p->tree_dof0 || !p->tree_dofs || p->ntrees < 0 || p->width < 0) return 0;
  if (p->tree_dof0[0] != 0) return 0;
  for (t = 0; t < p->ntrees; t++) /* each tree has dofs (its d0 names it) */
    if (p->tree_dof0[t + 1] <= p->tree_dof0[t] || p->tree_dof0[t + 1] > p->nv) return 0;
  for (i = 0; i < p->tree_dof0[p->ntrees]; i++)
    if (p->tree_dofs[i] < 0 || p->tree_dofs[i] >= p->nv) return 0;
  for (k = 0; k < p->nc; k++) {
    int w, l;
    if (p->tree[2 * k] >= p->ntrees || p->tree[2 * k + 1] >= p->ntrees) return 0;
    w = diagc__contact_width(p, k);
    if (w > p->width) return 0;
    if (w == p->width) { /* the rows of the contacts from k that fill the width, at once */
      size_t o = (size_t)(3 * k) * (size_t)w, n;
      for (l = k + 1; l < p->nc; l++) {
        if (p->tree[2 * l] >= p->ntrees || p->tree[2 * l + 1] >= p->ntrees) return 0;
        if (diagc__contact_width(p, l) != w) break;
      }
      n = (size_t)(3 * (l - k)) * (size_t)w;
      if (!diagc__finite_run(p->Jc + o, n) || !diagc__finite_run(p->MJc + o, n)) return 0;
      k = l - 1;
      continue;
    }
    for (t = 0; t < 3; t++) {
      size_t o = (size_t)(3 * k + t) * (size_t)p->width;
      if (!diagc__finite_run(p->Jc + o, (size_t)w) || !diagc__finite_run(p->MJc + o, (size_t)w)) return 0;
    }
  }
  return 1;
}
