/* contact_island.c: the islands of a contact step and the LCP of one
 * island (diagc/world.h, "Contact solve"; called by contact.c).
 *
 * Islands: contacts are the edges of a graph over trees (a contact joins
 * the trees of its two sides; the fixed world, tag -1, joins nothing);
 * contacts of one connected component share the component's M^-1 blocks
 * and nothing else, so each component is a separate LCP.  Union-find over
 * the contacts (two contacts with a common tag are united), then the
 * islands numbered in the order of their first contact.
 *
 * The LCP of an island (DART's row convention): per contact the rows
 * [n, t1, t2] (only n when mu = 0), A = J_I M^-1 J_I^T (symmetrized:
 * (P + P^T) / 2 of the product P, which is symmetric up to round-off) +
 * cfm I, b = target - J_I v*, normal rows [0, inf) findex -1, tangent rows
 * [-mu, mu] findex = their normal's row; a bilateral row
 * (diagc_contact_problem.bound) [-bound, bound] findex -1.  The targets:
 * world.h.
 */
#include <math.h>
#include <string.h>

#include "contact_internal.h"

static int find(int *parent, int k) {
  int r = k;
  while (parent[r] != r) r = parent[r];
  while (parent[k] != r) { /* path compression */
    int nx = parent[k];
    parent[k] = r;
    k = nx;
  }
  return r;
}

static void unite(int *parent, int a, int b) {
  int ra = find(parent, a), rb = find(parent, b);
  if (ra == rb) return;
  if (ra < rb) /* the root: the lowest contact (deterministic) */
    parent[rb] = ra;
  else
    parent[ra] = rb;
}

/* 1 when contacts j and k touch a common tree. */
static int coupled(const int *tree, int j, int k) {
  int a, b;
  for (a = 0; a < 2; a++) {
    int t = tree[2 * j + a];
    if (t < 0) continue;
    for (b = 0; b < 2; b++)
      if (tree[2 * k + b] == t) return 1;
  }
  return 0;
}

void diagc__contact_islands(const diagc_contact_problem *p, contact_ws *w) {
  int nc = p->nc, j, k, n = 0;
  for (k = 0; k < nc; k++) w->parent[k] = k;
  if (p->Jc) { /* compact: tags below ntrees; each contact joins the first of its trees' */
    int *seen = w->tstart, t, s;
    for (t = 0; t < p->ntrees; t++) seen[t] = -1;
    for (k = 0; k < nc; k++)
      for (s = 0; s < 2; s++) {
        t = p->tree[2 * k + s];
        if (t < 0) continue;
        if (seen[t] < 0)
          seen[t] = k;
        else
          unite(w->parent, seen[t], k);
      }
  } else {
    for (k = 1; k < nc; k++)
      for (j = 0; j < k; j++)
        if (!p->tree || coupled(p->tree, j, k)) unite(w->parent, j, k);
  }
  /* islands numbered by their first contact (the root: the lowest) */
  for (k = 0; k < nc; k++) {
    int r = find(w->parent, k);
    w->label[k] = r == k ? n++ : w->label[r];
  }
  w->nislands = n;
  /* counting sort: the contacts of each island, in order */
  for (j = 0; j <= n; j++) w->start[j] = 0;
  for (k = 0; k < nc; k++) w->start[w->label[k] + 1]++;
  for (j = 0; j < n; j++) w->start[j + 1] += w->start[j];
  /* the union-find is done: parent[] holds the fill pointers */
  for (j = 0; j < n; j++) w->parent[j] = w->start[j];
  for (k = 0; k < nc; k++) w->list[w->parent[w->label[k]]++] = k;
}

int diagc__contact_island_rows(const diagc_contact_problem *p, const contact_ws *w, int isl) {
  int a, m = 0;
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) m += p->mu[w->list[a]] > 0.0 ? 3 : 1;
  return m;
}

/* The target normal velocity of contact c (world.h); *branch (if not
 * NULL) says which term it is (DIAGC__TARGET_*, contact_internal.h). */
double diagc__contact_normal_target(const diagc_contact_problem *p, const diagc_contact_options *o, int c,
                                    int *branch) {
  double vn, d = p->depth[c], e, rest, t;
  int b = DIAGC__TARGET_CONST;
  if (p->bound && p->bound[c] > 0.0) { /* a bilateral row: erp depth / dt, capped */
    double cap = o->max_correction_speed;
    t = o->erp * d / p->dt, b = DIAGC__TARGET_PENETRATION;
    if (fabs(t) > cap) t = t > 0.0 ? cap : -cap, b = DIAGC__TARGET_CONST;
    if (branch) *branch = b;
    return t;
  }
  vn = diagc__row_dot(p, 3 * c, p->v);
  e = p->restitution ? p->restitution[c] : 0.0;
  rest = (e > 0.0 && -vn > o->bounce_threshold) ? -e * vn : 0.0;
  if (d >= 0.0) {
    double pen = 0.0;
    if (d > o->allowed_penetration) {
      pen = o->erp * (d - o->allowed_penetration) / p->dt;
      b = DIAGC__TARGET_PENETRATION;
      if (pen > o->max_correction_speed) pen = o->max_correction_speed, b = DIAGC__TARGET_CONST;
    }
    if (rest > pen) b = DIAGC__TARGET_RESTITUTION;
    if (branch) *branch = b;
    return rest > pen ? rest : pen;
  }
  /* separated (speculative): no impulse unless v* closes the gap within
     the step; then the restitution target too */
  t = d / p->dt;
  b = DIAGC__TARGET_GAP;
  if (rest > 0.0 && diagc__row_dot(p, 3 * c, p->vstar) < t) t = rest, b = DIAGC__TARGET_RESTITUTION;
  if (branch) *branch = b;
  return t;
}

int diagc__island_setup(const diagc_contact_problem *p, const diagc_contact_options *o, contact_ws *w,
                        int isl, const double *x) {
  int m = 0, a, r;
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) {
    int c = w->list[a], nrow = m, t;
    double bd = p->bound ? p->bound[c] : 0.0; /* > 0: a bilateral row of bounds +-bd */
    w->rows[m] = 3 * c, w->fx[m] = -1, w->lo[m] = bd > 0.0 ? -bd : 0.0, w->hi[m] = bd > 0.0 ? bd : INFINITY;
    w->target[m] = diagc__contact_normal_target(p, o, c, NULL);
    w->b[m] = w->target[m] - diagc__row_dot(p, 3 * c, p->vstar);
    m++;
    if (!(p->mu[c] > 0.0)) continue; /* frictionless: no tangent rows */
    for (t = 1; t <= 2; t++, m++) { /* a held contact's t2' row: [0, 0] */
      double mu = t == 2 && w->hold[c] ? 0.0 : p->mu[c];
      w->rows[m] = 3 * c + t, w->fx[m] = nrow;
      w->lo[m] = -mu, w->hi[m] = mu, w->target[m] = 0.0;
      w->b[m] = -w->ut[2 * c + t - 1]; /* -J_t' v*: the frames' pass has it (contact_friction.c) */
    }
  }
  for (r = 0; r < m; r++) w->x[r] = isfinite(x[w->rows[r]]) ? x[w->rows[r]] : 0.0;
  return m;
}

/* The end of the block of island rows that starts at r0 (the rows of one
 * contact: its normal, then its tangents, are consecutive). */
static int block_end(const contact_ws *w, int m, int r0) {
  int r1 = r0 + 1;
  while (r1 < m && w->rows[r1] / 3 == w->rows[r0] / 3) r1++;
  return r1;
}

/* w->nz: the columns where some row of the block [r0, r1) of J is nonzero;
 * returns their count. */
static int block_columns(const diagc_contact_problem *p, contact_ws *w, int r0, int r1) {
  int nv = p->nv, k, r, nnz = 0;
  for (k = 0; k < nv; k++) {
    int any = 0;
    for (r = r0; r < r1 && !any; r++) any = p->J[(size_t)w->rows[r] * (size_t)nv + k] != 0.0;
    if (any) w->nz[nnz++] = k;
  }
  return nnz;
}

/* A's block of the contacts of rows [r0, r1) and [s0, s1): P_rs summed
 * over the nnz columns w->nz, in four interleaved partial sums (a fixed
 * order: deterministic; not the add latency of one long chain). */
static void block_product(const diagc_contact_problem *p, const contact_ws *w, int m, int nnz,
                          int r0, int r1, int s0, int s1) {
  int nv = p->nv, r, s, k;
  for (r = r0; r < r1; r++) {
    const double *Jr = p->J + (size_t)w->rows[r] * (size_t)nv;
    for (s = s0; s < s1; s++) {
      const double *Mc = w->mt + (size_t)w->rows[s] * (size_t)nv;
      double s4[4] = {0.0, 0.0, 0.0, 0.0};
      for (k = 0; k + 4 <= nnz; k += 4) {
        s4[0] += Jr[w->nz[k]] * Mc[w->nz[k]];
        s4[1] += Jr[w->nz[k + 1]] * Mc[w->nz[k + 1]];
        s4[2] += Jr[w->nz[k + 2]] * Mc[w->nz[k + 2]];
        s4[3] += Jr[w->nz[k + 3]] * Mc[w->nz[k + 3]];
      }
      for (; k < nnz; k++) s4[k & 3] += Jr[w->nz[k]] * Mc[w->nz[k]];
      w->A[(size_t)r * (size_t)m + s] = (s4[0] + s4[1]) + (s4[2] + s4[3]);
    }
  }
}

/* The same from compact rows: A by contact blocks (contact_rows.c) over
 * the pairs that share a tree, upper blocks mirrored, diagonal blocks
 * averaged with their transposes. */
static int compact_system(const diagc_contact_problem *p, const diagc_contact_options *o,
                          contact_ws *w, int m) {
  int r0, r1, s0, s1, a, b;
  double *A = w->A, B[9];
  for (r0 = 0; r0 < m; r0 = r1) {
    int k = w->rows[r0] / 3;
    r1 = block_end(w, m, r0);
    for (s0 = r0; s0 < m; s0 = s1) {
      int l = w->rows[s0] / 3;
      s1 = block_end(w, m, s0);
      if (!diagc__fcontact_block(p, w->frame, w->span, k, l, B)) continue;
      for (a = 0; a < r1 - r0; a++)
        for (b = 0; b < s1 - s0; b++) {
          double v = B[3 * a + b];
          if (s0 == r0) v = 0.5 * (v + B[3 * b + a]);
          A[(size_t)(r0 + a) * (size_t)m + (size_t)(s0 + b)] = v;
          A[(size_t)(s0 + b) * (size_t)m + (size_t)(r0 + a)] = v;
        }
    }
  }
  for (a = 0; a < m; a++) A[(size_t)a * (size_t)m + a] += o->cfm;
  return diagc__finite_run(A, (size_t)m * (size_t)m) ? 0 : -1;
}

/* A = P + cfm I with P = J_I M^-1 J_I^T (symmetric); 0, or -1 when
 * something is not finite (overflow).  P is formed contact block by
 * contact block, only for contacts that share a tree (M^-1 is block
 * diagonal over the trees: the other blocks are exact zeros), over the
 * columns where the block's rows of J are nonzero; the blocks above the
 * diagonal are computed and mirrored, a diagonal block is averaged with
 * its transpose. */
static int island_system(const diagc_contact_problem *p, const diagc_contact_options *o,
                         contact_ws *w, int m) {
  int r, s, r0, r1, s0, s1, k, nv = p->nv, ncol = 3 * p->nc;
  double *A = w->A;
  for (r = 0; r < m * m; r++) A[r] = 0.0;
  if (p->Jc) return compact_system(p, o, w, m);
  /* the island's columns of M^-1 J^T as contiguous rows */
  for (r = 0; r < m; r++)
    for (k = 0; k < nv; k++)
      w->mt[(size_t)w->rows[r] * (size_t)nv + k] = p->MinvJT[(size_t)k * (size_t)ncol + w->rows[r]];
  for (r0 = 0; r0 < m; r0 = r1) {
    int j = w->rows[r0] / 3, nnz;
    r1 = block_end(w, m, r0);
    nnz = block_columns(p, w, r0, r1);
    for (s0 = r0; s0 < m; s0 = s1) {
      int c = w->rows[s0] / 3;
      s1 = block_end(w, m, s0);
      if (!p->tree || j == c || coupled(p->tree, j, c)) block_product(p, w, m, nnz, r0, r1, s0, s1);
    }
  }
  diagc__friction_turn_island(w->frame, w->rows, m, A); /* the upper blocks, into the frames */
  for (r = 0; r < m; r++) {
    for (s = 0; s < r; s++) {
      if (w->rows[s] / 3 == w->rows[r] / 3) {
        double h = 0.5 * (A[(size_t)r * m + s] + A[(size_t)s * m + r]);
        A[(size_t)r * m + s] = A[(size_t)s * m + r] = h;
      } else {
        A[(size_t)r * m + s] = A[(size_t)s * m + r];
      }
    }
    A[(size_t)r * m + r] += o->cfm;
  }
  return diagc__finite_run(A, (size_t)m * (size_t)m) ? 0 : -1;
}

/* A of island isl's m rows into w->A, unless it holds it already: within
 * one step an island's rows are those of its support or all of its
 * contacts (contact_tree.c; different counts), and a friction re-solve
 * (contact.c) has the same rows and frames, only other bounds. */
static int island_a(const diagc_contact_problem *p, const diagc_contact_options *o, contact_ws *w, int isl,
                    int m) {
  if (w->a_isl == isl && w->a_m == m) return 0;
  w->a_isl = -1;
  if (island_system(p, o, w, m) != 0) return -1;
  w->a_isl = isl, w->a_m = m;
  return 0;
}

/* The island's LCP options: the step's, its workspace, its share of the
 * work left (at least one unit: the warm start scored). */
static void island_options(const diagc_contact_options *o, const contact_ws *w, int m,
                           const contact_budget *bud, diagc_lcp_options *lo) {
  double m3 = (double)m * (double)m * (double)m;
  double share = bud->cubes > m3 ? bud->left * (m3 / bud->cubes) : bud->left;
  double units = share / ((double)m * (double)m);
  *lo = o->lcp;
  lo->workspace = w->lcp_ws;
  lo->workspace_size = w->lcp_ws_size;
  lo->cfm = 0.0; /* in A */
  lo->warm_start = 1;
  lo->work_budget = units == INFINITY ? -1.0 : units >= 1.0 ? units : 1.0;
}

/* 1 for a small island of one articulated tree (contact_tree.c): the
 * dense path takes it from its warm start, which the LCP solver scores
 * on the formed A (m^2 multiply-adds; scored from the rows by the sparse
 * method it cost more than half of forming A, and was then scored again) */
static int tree_dense(const contact_ws *w, int m) {
  return w->one_tree == 2 && m <= DIAGC__TREE_DENSE_ROWS && m <= DIAGC_CONTACT_DENSE_ROWS && m <= w->dense_rows;
}

int diagc__contact_island(const diagc_contact_problem *p, const diagc_contact_options *o,
                          contact_ws *w, int isl, double *x, contact_budget *bud,
                          diagc_contact_stats *st) {
  diagc_lcp_options lo;
  diagc_lcp_stats ls;
  int m = diagc__island_setup(p, o, w, isl, x), r, a, rc = 1;
  double spent;
  /* the sparse method: every island's warm start scored from the rows
     first, islands above DIAGC_CONTACT_DENSE_ROWS solved (1: the dense
     path) */
  if (p->Jc && o->method == DIAGC_CONTACT_SPARSE && !tree_dense(w, m)) {
    w->a_isl = -1; /* its region solves write w->A */
    rc = diagc__contact_island_sparse(p, o, w, isl, m, bud, st);
  }
  if (rc != 1) {
    /* solved by the sparse method */
  } else if (m > w->dense_rows) { /* cannot happen: the sparse method decides */
    rc = DIAGC_CONTACT_E_WORKSPACE;
    memset(w->x, 0, sizeof(double) * (size_t)m);
  } else if (!diagc__finite_run(w->b, (size_t)m) || island_a(p, o, w, isl, m) != 0) {
    rc = DIAGC_CONTACT_E_NUMERIC;
    memset(w->x, 0, sizeof(double) * (size_t)m);
    memset(&ls, 0, sizeof ls);
    st->islands++;
    st->rows += m;
    if (m > st->largest) st->largest = m;
  } else {
    island_options(o, w, m, bud, &lo);
    rc = diagc_lcp_solve(m, w->A, w->b, w->lo, w->hi, w->fx, w->x, &lo, &ls);
    spent = ls.work * (double)m * (double)m;
    st->work += spent;
    bud->left -= spent;
    bud->cubes -= (double)m * (double)m * (double)m;
    if (rc < 0 && rc != DIAGC_LCP_E_UNSOLVED) { /* cannot happen: checked */
      memset(w->x, 0, sizeof(double) * (size_t)m);
      rc = DIAGC_CONTACT_E_NUMERIC;
    } else {
      rc = diagc__island_outcome(o, w, m, rc, &ls, st, -1.0);
    }
  }
  /* scatter: tangent impulses of frictionless contacts are 0 */
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) {
    int c = w->list[a];
    x[3 * c + 1] = x[3 * c + 2] = 0.0;
  }
  for (r = 0; r < m; r++) x[w->rows[r]] = w->x[r];
  return rc;
}
