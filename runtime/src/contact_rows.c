/* contact_rows.c: the rows of a contact problem (diagc/world.h, "Contact
 * solve"), dense (J, MinvJT: 3 nc rows over all nv dofs) or compact (Jc,
 * MJc: each contact's rows over the dofs of its two trees only).  Every
 * other contact file reads rows through these, so both forms give the
 * same step: a row times a velocity, a row's impulse added to a velocity,
 * and the 3 x 3 block of A = J M^-1 J^T of two contacts.
 */
#include <math.h>

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

/* B += the 3 x 3 product of rows Jr (3, stride W) and Mq (3, stride W)
 * over n columns, each entry in four interleaved partial sums (a fixed
 * order); inlined with n = 6 (a free body's tree) as the common case. */
static inline void block_add(const double *Jr, const double *Mq, int W, int n, double B[9]) {
  int i, j, c;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      const double *a = Jr + (size_t)i * (size_t)W, *b = Mq + (size_t)j * (size_t)W;
      double s4[4] = {0.0, 0.0, 0.0, 0.0};
      for (c = 0; c + 4 <= n; c += 4) {
        s4[0] += a[c] * b[c];
        s4[1] += a[c + 1] * b[c + 1];
        s4[2] += a[c + 2] * b[c + 2];
        s4[3] += a[c + 3] * b[c + 3];
      }
      for (; c < n; c++) s4[c & 3] += a[c] * b[c];
      B[3 * i + j] += (s4[0] + s4[1]) + (s4[2] + s4[3]);
    }
}

/* The block of contacts k and l: B[3 i + j] = J_{3k+i} M^-1 J_{3l+j}^T,
 * over the trees they share; returns 0 when they share none (B zero). */
int diagc__contact_block(const diagc_contact_problem *p, int k, int l, double B[9]) {
  const int *tk = p->tree + 2 * k, *tl = p->tree + 2 * l, *d0 = p->tree_dof0;
  int s, u, i, shared = 0, W = p->width;
  for (i = 0; i < 9; i++) B[i] = 0.0;
  for (s = 0; s < 2; s++) {
    int t = tk[s], n, c0;
    if (t < 0 || (s == 1 && t == tk[0])) continue;
    n = d0[t + 1] - d0[t];
    c0 = (s == 1 && tk[0] >= 0) ? d0[tk[0] + 1] - d0[tk[0]] : 0;
    for (u = 0; u < 2; u++) {
      int f0;
      if (tl[u] != t || (u == 1 && tl[0] == t)) continue;
      f0 = (u == 1 && tl[0] >= 0) ? d0[tl[0] + 1] - d0[tl[0]] : 0;
      shared = 1;
      if (n == 6)
        block_add(p->Jc + (size_t)(3 * k) * (size_t)W + c0, p->MJc + (size_t)(3 * l) * (size_t)W + f0, W, 6, B);
      else
        block_add(p->Jc + (size_t)(3 * k) * (size_t)W + c0, p->MJc + (size_t)(3 * l) * (size_t)W + f0, W, n, B);
    }
  }
  return shared;
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
    int w;
    if (p->tree[2 * k] >= p->ntrees || p->tree[2 * k + 1] >= p->ntrees) return 0;
    w = diagc__contact_width(p, k);
    if (w > p->width) return 0;
    for (t = 0; t < 3; t++)
      for (i = 0; i < w; i++) {
        size_t o = (size_t)(3 * k + t) * (size_t)p->width + (size_t)i;
        if (!isfinite(p->Jc[o]) || !isfinite(p->MJc[o])) return 0;
      }
  }
  return 1;
}
