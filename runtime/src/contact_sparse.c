/* contact_sparse.c: the sparse method for one island of a compact contact
 * problem (diagc/world.h, "Contact solve"; docs/world.md, "Contact solve").
 *
 * A = J M^-1 J^T is never formed densely: contacts couple only through a
 * tree they share, so A is a sparse matrix of 3 x 3 contact blocks, kept
 * per contact for its neighbours (the contacts that share one of its
 * trees).  The contacts are put in reverse Cuthill-McKee order over that
 * graph: a stack or a chain becomes block tridiagonal, a pile banded.
 *
 * The warm start (the last step's impulses by contact slot) is scored
 * first, from the rows (no block formed): within WARM_ACCEPT round-off
 * levels of the LCP's conditions (after at most POLISH projected
 * Gauss-Seidel sweeps in velocity form, kept while they help) it is the
 * answer, and no point worse than it is ever returned.  An island of at
 * most DIAGC_CONTACT_DENSE_ROWS rows with no warm start, or of one tree
 * and at most DIAGC__TREE_DENSE_ROWS rows, goes to the dense path
 * (contact_island.c).
 * Otherwise the LCP is solved by block principal pivoting on row classes:
 * a normal row is clamped (w = 0) or zero (a bilateral row,
 * diagc_contact_problem.bound: clamped or at one of its bounds, x =
 * +-bound); a friction row of a clamped
 * normal is clamped (w = 0), at a bound (x = +-mu x_n, folded into its
 * normal's column) or held at zero (always, when its bounds are [0, 0]:
 * a sliding contact's t2' row, contact_friction.c).  The classes start from the warm
 * start (a quiet or steadily sliding scene keeps them: one solve).  Each
 * solve factorizes the reduced system in the envelope of that order (LU
 * without pivoting across rows) with its diagonal raised by REG of itself:
 * a statically indeterminate island (a box on two boxes, four corners of
 * a face) has dependent rows, and the raised pivots keep them, so the
 * factor selects one solution of the many instead of dropping rows at
 * round-off-dependent places (a pivot still below DROP drops its row: its
 * impulse stays).  The factor only preconditions: the solution is
 * corrected against A itself (K d = -w_F) to round-off, so the LCP solved
 * is the unregularized one.  The first solve after the warm start starts
 * from the warm point (its part in the null space of K stays: a
 * non-basic warm point of a scene at rest is found again); the others
 * start from 0;
 * the point is scored with the LCP's own violation (lcp.h), and rows that
 * violate their conditions change class (those within DAMP of the worst,
 * or, once that stops making progress, the worst one); a change whose
 * solve blows up (an inconsistent clamped set) is taken back for the
 * worst row's alone, and when that blows up too a ratio test along the
 * null direction chooses a row to leave (pivoting(), ratio_test()).
 * When that does not
 * settle, region rounds (region_rounds()) re-solve the neighbourhood of
 * the violated contacts exactly and pivot again; when those do not
 * settle either, rounds of block Gauss-Seidel with exact dense blocks (one
 * interface's contacts) seed it again, each followed, if that does not
 * settle either, by proximal rounds (proximal(): the same on A + rho I
 * with rho falling to 0).  What is left unsettled, or beyond
 * a pool, goes to the dense path if it fits; otherwise the best point seen
 * is used and counted (stats.inexact).
 */
#include <math.h>
#include <string.h>

#include "contact_internal.h"
#include "lcp_internal.h"

enum { C_ZERO = 0, C_FREE = 1, C_HI = 2, C_LO = 3 }; /* row classes */

#define REG 1e-8        /* the factor's pivots raised by this share of
                           their diagonal (well above DROP)                */
#define DROP 1e-11      /* pivot below DROP * |diagonal|: dependent row    */
#define STALL 3         /* all-row changes without progress before single */
#define WARM_ITERS 24    /* pivoting solves from the warm start (+ K / 8), and
                           from each block Gauss-Seidel point (+ K / 4)     */
#define ROUNDS 2         /* block Gauss-Seidel + pivoting rounds after the
                           warm start                                       */
#define REGION_ROUNDS 3  /* region rounds (region_rounds()) after the warm
                           pivoting, at most, ...                           */
#define REGION_SWEEPS 4  /* ... each with this many block Gauss-Seidel sweeps
                           over the region                                  */
#define DAMP 0.6        /* block changes: rows above this share of the worst */
#define BGS_CONTACTS 8  /* contacts of a block (one interface's, at most)  */
#define BGS_SWEEPS 20   /* block Gauss-Seidel sweeps in the first round, at
                           most (doubled per round, their tolerance divided
                           by 1000)                                         */
#define SPARSE_WORK 10000/* an island's work, at most, in passes over its
                           blocks (and within the step's budget)            */
#define BGS_TOL 1e-6    /* ... until the impulses change less (relative)   */
#define WARM_ACCEPT 4   /* a warm start within this many round-off levels
                           of the LCP's conditions is the answer          */
#define WARM_NEAR 16    /* a warm start within this many round-off levels */
#define WARM_QUICK 3    /* ... gets this many solves, and is then taken    */
#define POLISH 3        /* PGS sweeps polishing a nearly exact warm start  */
#define POLISH_FROM 1e3 /* ... one within this many round-off levels       */
#define ZERO_REL 1e-9   /* warm impulses below this share of the largest: 0 */
#define REFINE 2        /* refinement steps of a solve, at most            */
#define NOISE 1e-12     /* round-off level of a residual, relative (noise_level) */
#define PROX_RHO 0.1    /* proximal rounds: the first rho, a share of A's
                           largest diagonal entry ...                       */
#define PROX_DECAY 0.3  /* ... times this each round                       */
#define PROX_BGS 10     /* block Gauss-Seidel sweeps per proximal round    */
#define PROX_ROUNDS 40  /* proximal rounds, at most, ...                   */
#define PROX_STALL 8    /* ... and at most this many in a row that do not
                           lower the best violation by PROX_GAIN          */
#define PROX_GAIN 0.9
#define BLOW 3.0        /* a solve whose largest impulse is this many times the
                           last point's: its clamped set was inconsistent   */
#define CYCLE_MEM 16    /* class sets a pivoting run remembers (cycles)     */
#define EXCHANGES 8     /* rows a blow-up lets leave, at most               */

typedef struct {
  const diagc_contact_problem *p;
  contact_ws *w;
  int isl, K, m;          /* island, its contacts, its rows                 */
  int nred;               /* reduced rows                                   */
  double dmax;            /* the largest diagonal entry of A               */
  int check;              /* options: verify afresh                        */
  double tol;             /* options: lcp.tol                              */
  double work;            /* multiply-adds                                  */
  int from_x;             /* the next solve corrects the current point      */
  int valid;              /* the envelope holds the factor of w->cls0, order0 */
  double rho;             /* proximal rounds: rho (x - w->xprox) added to w */
  double *keep;           /* where pivoting keeps its best point (w->xbest) */
} sp;

static int contact_of(const sp *s, int i) { return s->w->list[s->w->start[s->isl] + i]; }

static int nrows(const sp *s, int i) { return s->w->roff[i + 1] - s->w->roff[i]; }

/* ---- structure: neighbours, blocks, order ------------------------------ */

/* The island's contacts per tree (w->tstart, tlist), then each contact's
 * neighbours (w->nbr0, nbr); -1 when the pool is too small.  The blocks
 * take the start of the workspace's pool, the envelope the rest. */
static int neighbours(sp *s) {
  contact_ws *w = s->w;
  const int *tag = s->p->tree;
  int nt = s->p->ntrees, i, t, e, n = 0;
  for (t = 0; t <= nt + 1; t++) w->tstart[t] = 0;
  for (i = 0; i < s->K; i++) {
    int c = contact_of(s, i), a = tag[2 * c], b = tag[2 * c + 1];
    if (a >= 0) w->tstart[a + 2]++;
    if (b >= 0 && b != a) w->tstart[b + 2]++;
  }
  for (t = 0; t < nt; t++) w->tstart[t + 2] += w->tstart[t + 1];
  for (i = 0; i < s->K; i++) {
    int c = contact_of(s, i), a = tag[2 * c], b = tag[2 * c + 1];
    if (a >= 0) w->tlist[w->tstart[a + 1]++] = i;
    if (b >= 0 && b != a) w->tlist[w->tstart[b + 1]++] = i;
  }
  /* now the contacts of tree t are tlist[tstart[t] .. tstart[t + 1]) */
  for (i = 0; i < s->K; i++) w->mark[i] = -1;
  for (i = 0; i < s->K; i++) {
    int c = contact_of(s, i), sd;
    w->nbr0[i] = n;
    for (sd = 0; sd < 2; sd++) {
      t = tag[2 * c + sd];
      if (t < 0) continue;
      for (e = w->tstart[t]; e < w->tstart[t + 1]; e++) {
        int j = w->tlist[e];
        if (w->mark[j] == i) continue;
        if (n == w->nbr_cap) return -1;
        w->mark[j] = i;
        w->nbr[n++] = j;
      }
    }
  }
  w->nbr0[s->K] = n;
  w->env = w->blk + 9 * (size_t)n;
  w->env_cap = w->pool_cap - 9 * (size_t)n;
  return 0;
}

/* A's blocks (w->blk, by neighbour slot): each pair computed once and
 * mirrored (a diagonal block averaged with its transpose), cfm added on
 * the diagonal; -1 when something is not finite. */
static int blocks(sp *s, double cfm) {
  contact_ws *w = s->w;
  int i, e, f, a, b;
  for (i = 0; i < s->K; i++) {
    int ci = contact_of(s, i);
    for (e = w->nbr0[i]; e < w->nbr0[i + 1]; e++) {
      int j = w->nbr[e];
      double *B = w->blk + 9 * (size_t)e;
      if (j < i) continue; /* mirrored below */
      diagc__fcontact_block(s->p, w->frame, w->span, ci, contact_of(s, j), B);
      s->work += 9.0 * (double)diagc__contact_width(s->p, ci);
      if (j == i) {
        for (a = 0; a < 3; a++)
          for (b = 0; b < a; b++) B[3 * a + b] = B[3 * b + a] = 0.5 * (B[3 * a + b] + B[3 * b + a]);
        for (a = 0; a < 3; a++) B[4 * a] += cfm;
      } else {
        for (f = w->nbr0[j]; f < w->nbr0[j + 1] && w->nbr[f] != i; f++) {
        }
        for (a = 0; a < 3; a++)
          for (b = 0; b < 3; b++) w->blk[9 * (size_t)f + 3 * b + a] = B[3 * a + b];
      }
      for (a = 0; a < 9; a++)
        if (!isfinite(B[a])) return -1;
    }
  }
  return 0;
}

/* Reverse Cuthill-McKee over the contact graph (w->order, w->where):
 * breadth-first from a pseudo-peripheral contact (the end of a first
 * search from one of least degree), neighbours by increasing degree. */
static int bfs(sp *s, int root, int *order) {
  contact_ws *w = s->w;
  int head = 0, tail = 0, i, e, last = root;
  for (i = 0; i < s->K; i++) w->mark[i] = 0;
  order[tail++] = root;
  w->mark[root] = 1;
  while (head < tail) {
    int u = order[head++], from = tail;
    last = u;
    for (e = w->nbr0[u]; e < w->nbr0[u + 1]; e++) {
      int v = w->nbr[e];
      if (w->mark[v]) continue;
      w->mark[v] = 1;
      order[tail++] = v;
    }
    /* the new ones by increasing degree (insertion sort: few) */
    for (i = from + 1; i < tail; i++) {
      int v = order[i], dv = w->nbr0[v + 1] - w->nbr0[v], k = i;
      while (k > from && w->nbr0[order[k - 1] + 1] - w->nbr0[order[k - 1]] > dv) {
        order[k] = order[k - 1];
        k--;
      }
      order[k] = v;
    }
  }
  return last;
}

static void rcm(sp *s) {
  contact_ws *w = s->w;
  int i, root = 0, best = w->nbr0[1] - w->nbr0[0], end;
  for (i = 1; i < s->K; i++) {
    int d = w->nbr0[i + 1] - w->nbr0[i];
    if (d < best) best = d, root = i;
  }
  end = bfs(s, root, w->queue);
  bfs(s, end, w->queue);
  for (i = 0; i < s->K; i++) w->order[i] = w->queue[s->K - 1 - i];
  for (i = 0; i < s->K; i++) w->where[w->order[i]] = i;
}

/* ---- the reduced system -------------------------------------------------- */

/* Island row r of contact i (local row a). */
static int row_of(const sp *s, int i, int a) { return s->w->roff[i] + a; }

/* The first position in the order from which the order or the contacts'
 * classes differ from those the envelope's factor is of (K when none, 0
 * when there is no factor): the factor's rows before it stay as they are
 * (Crout's row k depends only on K's leading k + 1 rows and columns). */
static int first_change(const sp *s) {
  const contact_ws *w = s->w;
  int q, r;
  if (!s->valid) return 0;
  for (q = 0; q < s->K; q++) {
    int i = w->order[q];
    if (i != w->order0[q]) return q;
    for (r = w->roff[i]; r < w->roff[i + 1]; r++)
      if (w->cls[r] != w->cls0[r]) return q;
  }
  return s->K;
}

/* Numbers the clamped (C_FREE) rows in the elimination order, and the
 * envelope: first[] per reduced row, loff/uoff, from position q0 on (the
 * numbering before it is kept) with the entries from there zeroed; returns
 * the first reduced row renumbered, or -1 when the pool is too small. */
static int envelope(sp *s, int q0) {
  contact_ws *w = s->w;
  int q, a, e, n, k0;
  size_t off, end;
  if (q0 >= s->K) return s->nred; /* nothing changed */
  n = k0 = q0 == 0 ? 0 : w->queue[q0]; /* rows before q0: numbered as they were */
  off = k0 == 0 ? 0 : w->uoff[k0 - 1] + (size_t)(k0 - 1 - w->first[k0 - 1]) + 1;
  end = off;
  for (q = q0; q < s->K; q++) {
    int i = w->order[q];
    w->queue[q] = n; /* the first reduced row of the contact at position q */
    for (a = 0; a < nrows(s, i); a++) {
      int r = row_of(s, i, a);
      w->red[r] = w->cls[r] == C_FREE ? n++ : -1;
    }
  }
  s->nred = n;
  for (q = q0; q < s->K; q++) {
    int i = w->order[q], fq = q;
    for (e = w->nbr0[i]; e < w->nbr0[i + 1]; e++)
      if (w->where[w->nbr[e]] < fq) fq = w->where[w->nbr[e]];
    for (a = 0; a < nrows(s, i); a++) {
      int r = row_of(s, i, a), k = w->red[r];
      if (k < 0) continue;
      w->first[k] = w->queue[fq];
      w->loff[k] = off;
      off += (size_t)(k - w->first[k]);
      w->uoff[k] = off;
      off += (size_t)(k - w->first[k]) + 1;
      if (off > w->env_cap) return -1;
    }
  }
  memset(w->env + end, 0, (off - end) * sizeof(double));
  return k0;
}

/* K[k][c] of the envelope (c within it). */
static double *entry(contact_ws *w, int k, int c) {
  if (c < k) return w->env + w->loff[k] + (size_t)(c - w->first[k]);
  return w->env + w->uoff[c] + (size_t)(k - w->first[c]);
}

static double mu_of(const sp *s, int i) { return s->p->mu[contact_of(s, i)]; }

/* A bilateral row's bound (diagc_contact_problem.bound), 0 for a contact:
 * its one row is clamped (C_FREE) inside its bounds, at a bound C_HI or
 * C_LO with x = +-bound (a constant, entering through the residual), and
 * never C_ZERO. */
static double bound_of(const sp *s, int i) { return s->p->bound ? s->p->bound[contact_of(s, i)] : 0.0; }

/* the class of a bilateral row of bound bd at impulse x (at a bound when
 * within rel of it) */
static int bilateral_class(double bd, double x, double rel) {
  return fabs(x) < bd * (1.0 - rel) ? C_FREE : x > 0.0 ? C_HI : C_LO;
}

/* 1 for a friction row held at 0 (bounds [0, 0]: contact_friction.c) */
static int held(const sp *s, int r) { return s->w->fx[r] >= 0 && s->w->lo[r] == 0.0 && s->w->hi[r] == 0.0; }

/* K = A_FF with the rows at a friction bound folded into their normal's
 * column, from position q0 of the order on: the rows of the contacts
 * there, and the other rows' entries in their columns.  A neighbour whose
 * normal is zero (its friction rows follow it) adds nothing. */
static void assemble(sp *s, int q0) {
  contact_ws *w = s->w;
  int i, e, a, b;
  if (q0 >= s->K) return;
  for (i = 0; i < s->K; i++) {
    int r0 = w->roff[i], whole = w->where[i] >= q0;
    for (a = 0; a < nrows(s, i); a++) {
      int k = w->red[r0 + a];
      if (k < 0) continue;
      for (e = w->nbr0[i]; e < w->nbr0[i + 1]; e++) {
        int j = w->nbr[e], q0j = w->roff[j], nj = w->roff[j + 1] - q0j;
        const double *B = w->blk + 9 * (size_t)e + 3 * a;
        if (w->cls[q0j] == C_ZERO || (!whole && w->where[j] < q0)) continue;
        for (b = 0; b < nj; b++) {
          int cl = w->cls[q0j + b];
          if (cl == C_FREE) {
            *entry(w, k, w->red[q0j + b]) += j == i && b == a ? B[b] + s->rho : B[b];
          } else if ((cl == C_HI || cl == C_LO) && b > 0) { /* b = 0: a bilateral row at its bound */
            *entry(w, k, w->red[q0j]) += B[b] * (cl == C_HI ? 1.0 : -1.0) * mu_of(s, j);
          }
        }
      }
    }
  }
}

static double dot(const double *x, const double *y, int n) {
  double acc = 0.0;
  int i;
  for (i = 0; i < n; i++) acc += x[i] * y[i];
  return acc;
}

/* Crout LU in the envelope from reduced row k0 on (the rows before it are
 * the factor's already), rows dropped at tiny pivots (w->sol, free until
 * the solve, holds the pivots' reciprocals meanwhile). */
static void factor(sp *s, int k0) {
  contact_ws *w = s->w;
  double *rinv = w->sol;
  int k, j, n = s->nred;
  for (k = 0; k < k0; k++) rinv[k] = 1.0 / w->env[w->uoff[k] + (size_t)(k - w->first[k])];
  for (k = k0; k < n; k++) {
    int fk = w->first[k];
    double *Lk = w->env + w->loff[k], *Uk = w->env + w->uoff[k], d, scale;
    for (j = fk; j < k; j++) {
      int fj = w->first[j], p = fj > fk ? fj : fk;
      double *Lj = w->env + w->loff[j], *Uj = w->env + w->uoff[j];
      if (w->drop[j]) {
        Uk[j - fk] = 0.0;
        Lk[j - fk] = 0.0;
        continue;
      }
      Uk[j - fk] -= dot(Lj + (p - fj), Uk + (p - fk), j - p);
      Lk[j - fk] = (Lk[j - fk] - dot(Lk + (p - fk), Uj + (p - fj), j - p)) * rinv[j];
      s->work += 2.0 * (double)(j - p);
    }
    scale = fabs(Uk[k - fk]);
    d = Uk[k - fk] + REG * scale - dot(Lk, Uk, k - fk);
    s->work += (double)(k - fk);
    w->drop[k] = !(fabs(d) > DROP * scale) || !isfinite(d);
    if (w->drop[k]) {
      for (j = fk; j < k; j++) Lk[j - fk] = Uk[j - fk] = 0.0;
      d = 1.0;
    }
    Uk[k - fk] = d;
    rinv[k] = 1.0 / d;
  }
}

/* Solves K y = rhs in place (dropped rows: 0). */
static void solve(sp *s, double *y) {
  contact_ws *w = s->w;
  int k, j, n = s->nred;
  for (k = 0; k < n; k++) {
    int fk = w->first[k];
    if (w->drop[k]) {
      y[k] = 0.0;
      continue;
    }
    y[k] -= dot(w->env + w->loff[k], y + fk, k - fk);
  }
  for (k = n - 1; k >= 0; k--) {
    int fk = w->first[k];
    const double *Uk = w->env + w->uoff[k];
    double yk = y[k] / Uk[k - fk];
    y[k] = yk;
    if (yk != 0.0)
      for (j = fk; j < k; j++) y[j] -= Uk[j - fk] * yk;
  }
  if (n > 0) s->work += 2.0 * (double)w->uoff[n - 1];
}

/* x of every island row from the reduced solution and the classes. */
static void expand(sp *s, const double *y) {
  contact_ws *w = s->w;
  int i, a;
  for (i = 0; i < s->K; i++) {
    int r0 = row_of(s, i, 0);
    double xn;
    w->x[r0] = w->cls[r0] == C_FREE ? y[w->red[r0]]
               : w->cls[r0] == C_HI   ? bound_of(s, i)
               : w->cls[r0] == C_LO   ? -bound_of(s, i)
                                      : 0.0;
    xn = w->x[r0];
    for (a = 1; a < nrows(s, i); a++) {
      int r = r0 + a, c = w->cls[r];
      w->x[r] = c == C_FREE ? y[w->red[r]] : c == C_HI ? mu_of(s, i) * xn : c == C_LO ? -mu_of(s, i) * xn : 0.0;
    }
  }
}

/* w = A x - b over the island's rows (from the blocks), of the contacts
 * `which` names: RES_ALL, RES_CLAMPED (those with a clamped row: what a
 * refinement step reads) or RES_REST (the others).  A neighbour whose
 * impulses are all 0 is skipped (w->tlist, free after neighbours(), marks
 * the contacts with a nonzero impulse): its products are zeros, which
 * leave the sums as they are (bit for bit: a sum that starts at +0 is
 * never -0, and the blocks are finite). */
enum { RES_ALL = 0, RES_CLAMPED = 1, RES_REST = 2 };

static int has_clamped(const sp *s, int i) {
  int r;
  for (r = s->w->roff[i]; r < s->w->roff[i + 1]; r++)
    if (s->w->red[r] >= 0) return 1;
  return 0;
}

static void residual_of(sp *s, int which) {
  contact_ws *w = s->w;
  int *live = w->tlist;
  int i, e, a, b, pairs = 0;
  for (i = 0; i < s->K; i++) {
    const double *xi = w->x + w->roff[i];
    int z = 0;
    for (a = 0; a < nrows(s, i); a++) z |= xi[a] != 0.0;
    live[i] = z;
  }
  for (i = 0; i < s->K; i++) {
    int ni = nrows(s, i);
    double acc[3] = {0.0, 0.0, 0.0};
    if (which != RES_ALL && has_clamped(s, i) != (which == RES_CLAMPED)) continue;
    for (e = w->nbr0[i]; e < w->nbr0[i + 1]; e++) {
      int j = w->nbr[e], nj;
      const double *B, *xj;
      if (!live[j]) continue;
      nj = nrows(s, j);
      B = w->blk + 9 * (size_t)e, xj = w->x + w->roff[j];
      pairs++;
      if (nj == 3 && ni == 3) {
        acc[0] += B[0] * xj[0], acc[0] += B[1] * xj[1], acc[0] += B[2] * xj[2];
        acc[1] += B[3] * xj[0], acc[1] += B[4] * xj[1], acc[1] += B[5] * xj[2];
        acc[2] += B[6] * xj[0], acc[2] += B[7] * xj[1], acc[2] += B[8] * xj[2];
        continue;
      }
      for (a = 0; a < ni; a++)
        for (b = 0; b < nj; b++) acc[a] += B[3 * a + b] * xj[b];
    }
    for (a = 0; a < ni; a++) w->w[row_of(s, i, a)] = acc[a] - w->b[row_of(s, i, a)];
    if (s->rho > 0.0)
      for (a = 0; a < ni; a++) {
        int r = row_of(s, i, a);
        w->w[r] += s->rho * (w->x[r] - w->xprox[r]);
      }
  }
  s->work += 9.0 * (double)pairs + (double)s->m;
}

static void residual(sp *s) { residual_of(s, RES_ALL); }

/* The violation of row r (lcp.h's rule) at the current x, w (friction
 * bounds mu x_n of its normal's row fx[r]). */
static double row_violation(const sp *s, int r) {
  const contact_ws *w = s->w;
  double L = w->lo[r], H = w->hi[r], xi = w->x[r], wi = w->w[r], t = DIAGC_LCP_BOUND_TOL;
  int j = w->fx[r];
  if (j >= 0) {
    double xj = w->x[j];
    if (xj == 0.0) {
      L = H = 0.0;
    } else {
      double a = w->lo[r] * xj, b = w->hi[r] * xj;
      L = xj > 0 ? a : b;
      H = xj > 0 ? b : a;
    }
  }
  return diagc__lcp_row_viol(xi, wi, L, H, t);
}

/* The largest row violation at the current x, w (INFINITY if NaN); with
 * rv not NULL, each row's in rv[]. */
static double violations(const sp *s, double *rv) {
  double v = 0.0;
  int r;
  for (r = 0; r < s->m; r++) {
    double vr = row_violation(s, r);
    if (rv) rv[r] = vr;
    if (!(vr <= v)) v = vr;
  }
  return v == v ? v : INFINITY;
}

static double violation(const sp *s) { return violations(s, NULL); }

/* A held contact (it slid along t1' at the start of the step) under a
 * clamped normal slides: its t1' row at the bound against u*, the slide in
 * its frame.  Entered sticking instead, its normal came out negative
 * wherever its friction at the bound is what holds the rest, and the
 * pivoting cycled (tools/contact-replay on the recorded piles: 10-30 %
 * less time, fewer steps left inexact).  r0: the contact's normal row. */
static void slide_class(sp *s, int i, int r0) {
  contact_ws *w = s->w;
  double u;
  if (w->cls[r0] != C_FREE || nrows(s, i) != 3 || !held(s, r0 + 2)) return;
  u = w->ut[2 * contact_of(s, i)];
  if (u != 0.0) w->cls[r0 + 1] = u > 0.0 ? C_LO : C_HI;
}

/* Classes from the island's warm start x. */
static void initial_classes(sp *s) {
  contact_ws *w = s->w;
  int i, a, r;
  double xmax = 0.0, zero;
  for (r = 0; r < s->m; r++)
    if (fabs(w->x[r]) > xmax) xmax = fabs(w->x[r]);
  zero = ZERO_REL * xmax; /* impulses this small were 0 (an inexact step's round-off) */
  for (i = 0; i < s->K; i++) {
    int r0 = row_of(s, i, 0);
    double xn = w->x[r0], mu = mu_of(s, i);
    w->cls[r0] = bound_of(s, i) > 0.0 ? bilateral_class(bound_of(s, i), xn, 1e-9) : xn > zero ? C_FREE : C_ZERO;
    for (a = 1; a < nrows(s, i); a++) {
      double xt;
      r = r0 + a;
      xt = w->x[r];
      /* a zero friction impulse under a clamped normal stays zero (the
         last step dropped it as dependent, or it carried no load): the
         previous basis is kept, and the row enters if its w is not 0 */
      if (w->cls[r0] == C_ZERO || fabs(xt) <= zero || held(s, r))
        w->cls[r] = C_ZERO;
      else if (fabs(xt) >= mu * xn * (1.0 - 1e-9))
        w->cls[r] = xt > 0.0 ? C_HI : C_LO;
      else
        w->cls[r] = C_FREE;
    }
    /* whatever its warm impulse (on the recorded piles another 10-25 %
       less time than with set_class's rule alone) */
    slide_class(s, i, r0);
  }
}

/* The class row r (of contact i) should change to, or -1 when a class
 * change cannot help: rows whose violation is their residual w at a
 * clamped class (round-off, a dependent row) stay as they are. */
static int fix_class(const sp *s, int r, int i, double tol) {
  const contact_ws *w = s->w;
  int c = w->cls[r], normal = r == row_of(s, i, 0);
  double x = w->x[r], wr = w->w[r], t = DIAGC_LCP_BOUND_TOL;
  if (!normal && held(s, r)) return -1;
  if (normal && bound_of(s, i) > 0.0) { /* a bilateral row: to and from its bounds */
    double bd = bound_of(s, i);
    if (c == C_FREE) return x > bd + t ? C_HI : x < -bd - t ? C_LO : -1;
    return (c == C_HI && wr > tol) || (c == C_LO && wr < -tol) ? C_FREE : -1;
  }
  if (normal) {
    if (c == C_FREE) return x < -t ? C_ZERO : -1;
    return wr < -tol ? C_FREE : -1;
  }
  if (c == C_FREE) {
    double H = mu_of(s, i) * w->x[row_of(s, i, 0)];
    if (H < 0.0) H = -H;
    return x > H + t ? C_HI : x < -H - t ? C_LO : -1;
  }
  if (c == C_HI) return wr > tol ? C_FREE : -1;
  if (c == C_LO) return wr < -tol ? C_FREE : -1;
  /* held at 0: under a clamped normal it enters when w is not 0; under a
     zero normal it is fixed */
  return w->cls[row_of(s, i, 0)] == C_FREE && fabs(wr) > tol ? C_FREE : -1;
}

/* Sets row r of contact i to class c (a normal's friction rows follow; a
 * held contact's enters sliding: slide_class). */
static void set_class(sp *s, int i, int r, int c) {
  contact_ws *w = s->w;
  int a;
  w->cls[r] = c;
  if (r != row_of(s, i, 0)) return;
  for (a = 1; a < nrows(s, i); a++) w->cls[r + a] = c == C_FREE && !held(s, r + a) ? C_FREE : C_ZERO;
  slide_class(s, i, r);
}

/* The level below which a residual is round-off, not a class to change:
 * tol, or NOISE of the island's scale (its largest |b|, and its largest
 * diagonal entry times its largest impulse times the rows a row sums). */
static double noise_level(const sp *s, double tol) {
  const contact_ws *w = s->w;
  double bmax = 0.0, xmax = 0.0, lvl;
  int r;
  for (r = 0; r < s->m; r++) {
    if (fabs(w->b[r]) > bmax) bmax = fabs(w->b[r]);
    if (fabs(w->x[r]) > xmax) xmax = fabs(w->x[r]);
  }
  lvl = NOISE * (bmax + 16.0 * s->dmax * xmax);
  return lvl > tol ? lvl : tol;
}

/* The largest diagonal entry of A (its diagonal blocks'). */
static double max_diagonal(const sp *s) {
  const contact_ws *w = s->w;
  double dmax = 0.0;
  int i, e, a;
  for (i = 0; i < s->K; i++)
    for (e = w->nbr0[i]; e < w->nbr0[i + 1]; e++)
      if (w->nbr[e] == i)
        for (a = 0; a < 3; a++)
          if (fabs(w->blk[9 * (size_t)e + 4 * a]) > dmax) dmax = fabs(w->blk[9 * (size_t)e + 4 * a]);
  return dmax;
}

/* One solve of the current classes: x, w; returns the violation. */
static double solve_classes(sp *s, int *fail) {
  contact_ws *w = s->w;
  int k, r, it, rest = 0, q0 = first_change(s), k0 = envelope(s, q0);
  if (k0 < 0) {
    *fail = 1;
    s->valid = 0;
    return INFINITY;
  }
  assemble(s, q0);
  factor(s, k0);
  if (q0 < s->K) {
    memcpy(w->order0 + q0, w->order + q0, sizeof(int) * (size_t)(s->K - q0));
    memcpy(w->cls0, w->cls, sizeof(int) * (size_t)s->m);
  }
  s->valid = 1;
  /* the first solve from the warm start's classes corrects the warm point
     (K d = -w_F): its part in K's null space (a statically indeterminate
     scene) stays, so a non-basic warm point at rest is found again; the
     other solves start from 0 (pivoting from stale impulses cycles) */
  /* from 0: the first residual is -b, no product (not with bilateral
     rows: one at its bound has an impulse) */
  int zero = !s->from_x && !s->p->bound && s->rho == 0.0;
  for (r = 0; r < s->m; r++)
    if ((k = w->red[r]) >= 0) w->sol[k] = s->from_x && isfinite(w->x[r]) ? w->x[r] : 0.0;
  s->from_x = 0;
  for (it = 0;; it++) {
    double big = 0.0;
    expand(s, w->sol);
    if (it == 0 && zero) {
      for (r = 0; r < s->m; r++) w->w[r] = -w->b[r];
      rest = 0;
    } else {
      residual_of(s, RES_CLAMPED); /* what a refinement step reads; the rest once, below */
      rest = 1;
    }
    for (r = 0; r < s->m; r++)
      if ((k = w->red[r]) >= 0 && !w->drop[k] && fabs(w->w[r]) > big) big = fabs(w->w[r]);
    /* corrected while the clamped rows' residual is above round-off */
    if (it > REFINE || !(big > 0.1 * noise_level(s, s->tol))) break;
    for (r = 0; r < s->m; r++)
      if ((k = w->red[r]) >= 0) w->rhs[k] = w->drop[k] ? 0.0 : -w->w[r];
    solve(s, w->rhs);
    for (k = 0; k < s->nred; k++) w->sol[k] += w->rhs[k];
  }
  if (rest) residual_of(s, RES_REST); /* the contacts with no clamped row, at the final point */
  return violations(s, w->rhs); /* each row's in w->rhs, free until the next solve */
}


/* Moves violating rows to their other class: all of them (single = 0)
 * or the worst; returns how many moved.  The rows' violations are
 * solve_classes' (w->rhs). */
static int pivot(sp *s, double tol, int single) {
  int i, a, moved = 0, bi = -1, br = -1, bc = 0;
  double worst = tol;
  for (i = 0; i < s->K; i++) {
    for (a = 0; a < nrows(s, i); a++) {
      int r = row_of(s, i, a), c;
      double rv = s->w->rhs[r]; /* solve_classes' row violations */
      if (!(rv > tol)) continue;
      c = fix_class(s, r, i, tol);
      if (c < 0) continue;
      if (single) {
        if (rv > worst || br < 0) worst = rv, bi = i, br = r, bc = c;
        continue;
      }
      set_class(s, i, r, c);
      if (a == 0 && c == C_FREE) s->w->mark[i] = 1; /* enters: ahead of its interface */
      moved++;
      if (a == 0) break; /* the contact's friction rows followed */
    }
  }
  if (single && br >= 0) {
    set_class(s, bi, br, bc);
    if (br == row_of(s, bi, 0) && bc == C_FREE) s->w->mark[bi] = 1;
    moved = 1;
  }
  return moved;
}

/* 1 when contacts i and j join the same two trees (an interface). */
static int same_interface(const sp *s, int i, int j) {
  const int *t = s->p->tree;
  int ci = contact_of(s, i), cj = contact_of(s, j);
  return (t[2 * ci] == t[2 * cj] && t[2 * ci + 1] == t[2 * cj + 1]) ||
         (t[2 * ci] == t[2 * cj + 1] && t[2 * ci + 1] == t[2 * cj]);
}

/* Orders each interface's consecutive contacts by their warm normal
 * impulse, largest first: when the interface's normals are dependent, the
 * elimination drops the later ones, so the rows kept are those that
 * carried the load (the warm point's support), not an arbitrary subset. */
static void load_first(sp *s) {
  contact_ws *w = s->w;
  int q0, q1, q, k;
  for (q0 = 0; q0 < s->K; q0 = q1) {
    for (q1 = q0 + 1; q1 < s->K && same_interface(s, w->order[q0], w->order[q1]); q1++) {
    }
    for (q = q0 + 1; q < q1; q++) {
      int v = w->order[q];
      double xv = w->x[row_of(s, v, 0)];
      for (k = q; k > q0 && w->x[row_of(s, w->order[k - 1], 0)] < xv; k--) w->order[k] = w->order[k - 1];
      w->order[k] = v;
    }
  }
  for (q = 0; q < s->K; q++) w->where[w->order[q]] = q;
}

/* Puts contacts whose normal entered the clamped set (w->mark) first
 * among the consecutive contacts of their interface in the order: when an
 * interface's normals are dependent (four corners of a face give three
 * independent ones) the elimination drops a later one, so the row that
 * entered replaces one that had been kept (a pivot), instead of being
 * dropped itself.  Neighbour sets within an interface are equal: the
 * envelope is unchanged. */
static void entered_first(sp *s) {
  contact_ws *w = s->w;
  int q0, q1, q, k;
  for (q0 = 0; q0 < s->K; q0 = q1) {
    for (q1 = q0 + 1; q1 < s->K && same_interface(s, w->order[q0], w->order[q1]); q1++) {
    }
    for (q = q0 + 1; q < q1; q++) { /* stable insertion: marked first */
      int v = w->order[q];
      if (!w->mark[v]) continue;
      for (k = q; k > q0 && !w->mark[w->order[k - 1]]; k--) w->order[k] = w->order[k - 1];
      w->order[k] = v;
    }
  }
  for (q = 0; q < s->K; q++) {
    w->where[w->order[q]] = q;
    w->mark[w->order[q]] = 0;
  }
}

/* The violation scored from the rows, independently of the blocks: v =
 * v* + M^-1 J^T x over the island's rows, w = J (v - v*) + cfm x - b (the
 * rows' own products, not the blocks). */
static double rows_violation(sp *s, double cfm) {
  contact_ws *w = s->w;
  const diagc_contact_problem *p = s->p;
  int r;
  memset(w->vt, 0, sizeof(double) * (size_t)p->nv);
  for (r = 0; r < s->m; r++)
    if (w->x[r] != 0.0) diagc__frow_axpy(p, w->frame, w->rows[r], w->x[r], w->vt);
  for (r = 0; r < s->m; r++) w->w[r] = diagc__frow_dot(p, w->frame, w->rows[r], w->vt) + cfm * w->x[r] - w->b[r];
  s->work += 2.0 * (double)s->m * (double)p->width;
  return violation(s);
}

/* The same as the options' check (o->check); with check off, -1. */
static double check_violation(sp *s, double cfm) {
  int check = s->check;
#ifdef DIAGC_CONTACT_CHECK
  check = 1;
#endif
  return check ? rows_violation(s, cfm) : -1.0;
}

/* The warm start scored from the rows alone, before any block is formed
 * (a scene at rest needs none): its violation, with the rows' diagonal
 * entries J_r M^-1 J_r^T + cfm in w->rhs (free until a solve) and their
 * largest in dmax. */
static double warm_by_rows(sp *s, double cfm) {
  int r;
  s->dmax = 0.0;
  for (r = 0; r < s->m; r++) {
    double d = diagc__frow_mdiag(s->p, s->w->frame, s->w->rows[r]) + cfm;
    s->w->rhs[r] = d;
    if (fabs(d) > s->dmax) s->dmax = fabs(d);
  }
  s->work += (double)s->m * (double)s->p->width;
  return rows_violation(s, cfm);
}

/* One projected Gauss-Seidel sweep on x in velocity form (the rows, not
 * the blocks; friction bounds from the current normals), from w->vt =
 * M^-1 J^T x as rows_violation left it and the diagonal in w->rhs
 * (warm_by_rows): a warm start that nearly satisfies the LCP (a
 * statically indeterminate scene at rest) is polished by a few. */
static void pgs_rows(sp *s, double cfm) {
  contact_ws *w = s->w;
  const diagc_contact_problem *p = s->p;
  int i, a;
  for (i = 0; i < s->K; i++) {
    int r0 = row_of(s, i, 0);
    for (a = 0; a < nrows(s, i); a++) {
      int r = r0 + a;
      double d = w->rhs[r], wr, xr, L, H;
      if (!(d > 0.0)) continue;
      wr = diagc__frow_dot(p, w->frame, w->rows[r], w->vt) + cfm * w->x[r] - w->b[r];
      xr = w->x[r] - wr / d;
      if (a == 0) {
        L = w->lo[r], H = w->hi[r]; /* [0, inf), or a bilateral row's bounds */
      } else {
        H = held(s, r) ? 0.0 : mu_of(s, i) * w->x[r0], L = -H;
      }
      xr = xr < L ? L : xr > H ? H : xr;
      if (xr != w->x[r]) diagc__frow_axpy(p, w->frame, w->rows[r], xr - w->x[r], w->vt);
      w->x[r] = xr;
    }
  }
  s->work += 4.0 * (double)s->m * (double)p->width;
}

/* One sweep of block Gauss-Seidel with exact blocks: the contacts in the
 * elimination order, in runs of one interface (at most BGS_CONTACTS), each
 * run's LCP solved densely (diagc_lcp_solve: its pivoting is exact and
 * robust on a small problem) with the others' impulses held; with `only`
 * not NULL, only the runs with a contact i that only[i] marks; returns the
 * largest change of an impulse, or -1 on a failure of the dense solver. */
static double block_sweep(sp *s, const diagc_contact_options *o, int backward, diagc_lcp_stats *ls,
                          const int *only) {
  contact_ws *w = s->w;
  int q0, q1, k, a, b, e, K = s->K;
  double change = 0.0;
  for (q0 = 0; q0 < K; q0 = q1) {
    int rl = 0, run[BGS_CONTACTS], nrun = 0, fx[3 * BGS_CONTACTS], rc;
    double lo[3 * BGS_CONTACTS], hi[3 * BGS_CONTACTS], x[3 * BGS_CONTACTS], bl[3 * BGS_CONTACTS];
    diagc_lcp_options lo_opt;
    diagc_lcp_stats lst;
    int qa = backward ? K - 1 - q0 : q0;
    run[nrun++] = w->order[qa];
    for (q1 = q0 + 1; q1 < K && nrun < BGS_CONTACTS; q1++) {
      int j = w->order[backward ? K - 1 - q1 : q1];
      if (!same_interface(s, run[0], j)) break;
      run[nrun++] = j;
    }
    if (only) {
      int any = 0;
      for (k = 0; k < nrun; k++) any |= only[run[k]];
      if (!any) continue;
    }
    /* local rows: the run's contacts' rows in turn; mark[i] = 1 + local contact */
    for (k = 0; k < nrun; k++) w->mark[run[k]] = 1 + k;
    for (k = 0; k < nrun; k++) {
      int i = run[k], r0 = row_of(s, i, 0), n0 = rl;
      for (a = 0; a < nrows(s, i); a++, rl++) {
        int r = r0 + a;
        double acc = w->b[r];
        lo[rl] = w->lo[r], hi[rl] = w->hi[r], x[rl] = w->x[r];
        fx[rl] = a == 0 ? -1 : n0;
        for (e = w->nbr0[i]; e < w->nbr0[i + 1]; e++) {
          int j = w->nbr[e], nj = nrows(s, j);
          const double *B = w->blk + 9 * (size_t)e + 3 * a;
          if (w->mark[j]) continue;
          for (b = 0; b < nj; b++) acc -= B[b] * w->x[w->roff[j] + b];
        }
        bl[rl] = s->rho > 0.0 ? acc + s->rho * w->xprox[r] : acc; /* proximal rounds: b + rho x_k */
      }
    }
    /* the run's block of A */
    for (k = 0; k < nrun; k++) {
      int i = run[k], ri = 0, t;
      for (t = 0; t < k; t++) ri += nrows(s, run[t]);
      for (e = w->nbr0[i]; e < w->nbr0[i + 1]; e++) {
        int j = w->nbr[e], rj = 0;
        const double *B = w->blk + 9 * (size_t)e;
        if (!w->mark[j]) continue;
        for (t = 0; t < w->mark[j] - 1; t++) rj += nrows(s, run[t]);
        for (a = 0; a < nrows(s, i); a++)
          for (b = 0; b < nrows(s, j); b++) w->A[(size_t)(ri + a) * (size_t)rl + (size_t)(rj + b)] = B[3 * a + b];
      }
    }
    if (s->rho > 0.0) /* proximal rounds: A + rho I */
      for (a = 0; a < rl; a++) w->A[(size_t)a * (size_t)rl + (size_t)a] += s->rho;
    for (k = 0; k < nrun; k++) w->mark[run[k]] = 0;
    diagc_lcp_options_init(&lo_opt, w->lcp_ws, w->lcp_ws_size);
    lo_opt.tol = o->lcp.tol;
    lo_opt.accept_tol = o->lcp.accept_tol;
    lo_opt.warm_start = 1;
    rc = diagc_lcp_solve(rl, w->A, bl, lo, hi, fx, x, &lo_opt, &lst);
    s->work += lst.work * (double)rl * (double)rl;
    ls->pivots += lst.pivots;
    if (rc < 0 && rc != DIAGC_LCP_E_UNSOLVED) return -1.0;
    rl = 0;
    for (k = 0; k < nrun; k++)
      for (a = 0; a < nrows(s, run[k]); a++, rl++) {
        int r = row_of(s, run[k], a);
        double d = fabs(x[rl] - w->x[r]);
        if (d > change) change = d;
        w->x[r] = x[rl];
      }
  }
  return change;
}

/* Classes of a rough point x (block Gauss-Seidel's): a normal is clamped when its
 * impulse is positive, a friction row at a bound when within a thousandth
 * of it. */
static void classes_of_point(sp *s) {
  contact_ws *w = s->w;
  int i, a;
  for (i = 0; i < s->K; i++) {
    int r0 = row_of(s, i, 0);
    double xn = w->x[r0], H = mu_of(s, i) * w->x[row_of(s, i, 0)];
    w->cls[r0] = bound_of(s, i) > 0.0 ? bilateral_class(bound_of(s, i), xn, 1e-3) : xn > 0.0 ? C_FREE : C_ZERO;
    for (a = 1; a < nrows(s, i); a++) {
      int r = r0 + a;
      double xt = w->x[r];
      if (w->cls[r0] == C_ZERO || held(s, r))
        w->cls[r] = C_ZERO;
      else if (H > 0.0 && fabs(xt) >= H * (1.0 - 1e-3))
        w->cls[r] = xt > 0.0 ? C_HI : C_LO;
      else
        w->cls[r] = C_FREE;
    }
  }
}

/* The largest impulse of the island's current point. */
static double xmax_of(const sp *s) {
  double xm = 0.0;
  int r;
  for (r = 0; r < s->m; r++)
    if (fabs(s->w->x[r]) > xm) xm = fabs(s->w->x[r]);
  return xm;
}

/* The row that violates its conditions most (above tol) and whose class
 * can change: *bi its contact, *br it, *bc its new class; 0 when none. */
static int worst_change(const sp *s, double tol, int *bi, int *br, int *bc) {
  int i, a, found = 0;
  double worst = tol;
  for (i = 0; i < s->K; i++)
    for (a = 0; a < nrows(s, i); a++) {
      int r = row_of(s, i, a), c;
      double rv = s->w->rhs[r];
      if (!(rv > worst)) continue;
      c = fix_class(s, r, i, tol);
      if (c < 0) continue;
      worst = rv, *bi = i, *br = r, *bc = c, found = 1;
    }
  return found;
}

/* The exchange's ratio test.  The classes were w->clsprev (point
 * w->xprev, its clamped rows' w = 0) with row er entering; the solve of
 * that set blew up: the entering column depends on the clamped ones, and
 * the solution is dominated by the null direction d = x - xprev.  Along d
 * (oriented so that er moves the way its violation asks: dir), the rows
 * clamped in both sets keep w = 0; the first of them to reach a bound (a
 * normal 0, a friction row its moving bound mu x_n, a bilateral row
 * +-bound) leaves, as in Dantzig's and Baraff's principal pivoting.
 * Returns that row (*li its contact, *lc its class), or -1. */
static int ratio_test(const sp *s, int er, double dir, int *li, int *lc) {
  const contact_ws *w = s->w;
  const double *x0 = w->xprev, *x1 = w->x;
  double sg = (x1[er] - x0[er]) * dir < 0.0 ? -1.0 : 1.0, tbest = INFINITY;
  int i, a, lr = -1;
  for (i = 0; i < s->K; i++) {
    int r0 = row_of(s, i, 0);
    double xn = x0[r0], dn = sg * (x1[r0] - x0[r0]), mu = mu_of(s, i), bd = bound_of(s, i);
    if (w->cls[r0] != C_FREE || w->clsprev[r0] != C_FREE || r0 == er) continue;
    if (bd > 0.0) {
      double t = dn > 0.0 ? (bd - xn) / dn : dn < 0.0 ? (xn + bd) / -dn : INFINITY;
      if (t < tbest) tbest = t, lr = r0, *li = i, *lc = dn > 0.0 ? C_HI : C_LO;
      continue;
    }
    if (dn < 0.0 && xn >= 0.0 && xn / -dn < tbest) tbest = xn / -dn, lr = r0, *li = i, *lc = C_ZERO;
    for (a = 1; a < nrows(s, i); a++) {
      int r = r0 + a;
      double xt = x0[r], dt = sg * (x1[r] - x0[r]), g0, g1;
      if (w->cls[r] != C_FREE || w->clsprev[r] != C_FREE || r == er) continue;
      g0 = mu * xn - xt, g1 = mu * dn - dt; /* to the upper bound */
      if (g1 < 0.0 && g0 >= 0.0 && g0 / -g1 < tbest) tbest = g0 / -g1, lr = r, *li = i, *lc = C_HI;
      g0 = mu * xn + xt, g1 = mu * dn + dt; /* to the lower bound */
      if (g1 < 0.0 && g0 >= 0.0 && g0 / -g1 < tbest) tbest = g0 / -g1, lr = r, *li = i, *lc = C_LO;
    }
  }
  return lr;
}

/* 1 when the current classes (and mode) are among the *n last in hist;
 * they join it (the last CYCLE_MEM kept). */
static int seen(const sp *s, unsigned long *hist, int *n, int mode) {
  unsigned long h = 2166136261ul + (unsigned long)mode;
  int r, k;
  for (r = 0; r < s->m; r++) h = (h ^ (unsigned long)s->w->cls[r]) * 16777619ul;
  for (k = 0; k < *n; k++)
    if (hist[k] == h) return 1;
  memmove(hist + 1, hist, sizeof(unsigned long) * (size_t)(CYCLE_MEM - 1));
  hist[0] = h;
  if (*n < CYCLE_MEM) ++*n;
  return 0;
}

/* Block principal pivoting from the current classes, at most maxit
 * solves; keeps the best point in w->xbest (*best: its violation).
 * Returns 1 when it settled (violation <= tol, or nothing left that a
 * class change could fix), 0 when not, -1 when a pool was too small.
 * A block change whose solve blows up (its largest impulse BLOW times the
 * last point's: the new clamped set is inconsistent, a column dependent
 * on the others) is taken back and replaced by the single change of the
 * worst row; when that one blows up too, the exchange's ratio test
 * (ratio_test()) chooses a row to leave, up to EXCHANGES of them. */
static int pivoting(sp *s, int maxit, double limit, double *best, diagc_lcp_stats *ls) {
  contact_ws *w = s->w;
  int it, stall = 0, prev = -1, fail = 0, r, changed = 0, er = -1, ei = -1, ec = 0, nex = 0;
  double v1 = -1.0, v2 = -1.0; /* the violations of the last two solves */
  double xpmax = -1.0, edir = 0.0;
  size_t mb = sizeof(double) * (size_t)s->m, mi = sizeof(int) * (size_t)s->m;
  unsigned long hist[CYCLE_MEM] = {0};
  int nh = 0;
  for (it = 0; it < maxit; it++) {
    int nviol = 0;
    double v = solve_classes(s, &fail), tau, xm;
    if (fail) return -1;
    ls->iterations++;
    if (v < *best) {
      *best = v;
      memcpy(s->keep, w->x, mb);
    }
    if (v <= s->tol) return 1;
    xm = xmax_of(s);
    if (changed > 0 && er >= 0 && xpmax > 0.0 && xm > BLOW * xpmax && nex < EXCHANGES) {
      /* an inconsistent clamped set: back to the last point's classes */
      int li = -1, lc = 0, lr = changed == 1 ? ratio_test(s, er, edir, &li, &lc) : -1;
      if (changed > 1 || lr >= 0) {
        memcpy(w->cls, w->clsprev, mi);
        if (changed == 1) { /* an exchange: er enters, lr leaves (and stays out) */
          nex++;
          set_class(s, li, lr, lc);
          memcpy(w->clsprev, w->cls, mi);
        }
        set_class(s, ei, er, ec);
        if (er == row_of(s, ei, 0) && ec == C_FREE) w->mark[ei] = 1;
        entered_first(s);
        changed = 1;
        ls->pivots++;
        if (s->work > limit) {
          ls->budget_hit = 1;
          return 0;
        }
        continue;
      }
    }
    /* classes seen before in this run, in the same mode (block or single
       changes): the changes cycle (a row and the rows it makes violated
       changing in turn, through up to CYCLE_MEM sets); more solves repeat
       them */
    if (seen(s, hist, &nh, stall >= STALL)) return 0;
    /* a point seen two solves ago: the classes cycle (a row and the row it
       makes violated changing in turn); more solves repeat it */
    if (v == v2 && v1 != v) return 0;
    v2 = v1, v1 = v;
    /* Judice and Pires' rule: block changes while the count of violated
       rows keeps reaching new lows, single changes after STALL that do not */
    tau = noise_level(s, s->tol);
    if (v <= tau) return 1; /* round-off only: no class change would help */
    for (r = 0; r < s->m; r++) nviol += w->rhs[r] > tau;
    if (prev < 0 || nviol < prev) {
      prev = nviol;
      stall = 0;
    } else {
      stall++;
    }
    /* the point and its classes, and the single change a blow-up takes */
    memcpy(w->xprev, w->x, mb);
    memcpy(w->clsprev, w->cls, mi);
    xpmax = xm, nex = 0, er = -1;
    if (worst_change(s, tau, &ei, &er, &ec)) edir = w->w[er] > 0.0 ? -1.0 : 1.0;
    {
      /* damped block changes: the rows violated by at least a share of the
         worst violation (a row violated only through another's wrong
         class then waits for that one) */
      double vmax = 0.0, cut;
      for (r = 0; r < s->m; r++)
        if (w->rhs[r] > vmax) vmax = w->rhs[r];
      cut = DAMP * vmax > tau ? DAMP * vmax : tau;
      changed = pivot(s, cut, stall >= STALL);
      if (changed == 0 && cut != tau) changed = pivot(s, tau, stall >= STALL);
      if (changed == 0) return 1;
    }
    entered_first(s);
    ls->pivots++;
    if (s->work > limit) {
      ls->budget_hit = 1;
      return 0;
    }
  }
  return 0;
}

/* Sweeps of block Gauss-Seidel from the current point until the impulses
 * change by less than BGS_TOL of the largest (or BGS_SWEEPS ran, or the
 * work budget is spent); returns -1 on a failure of the dense solver. */
static int block_gauss_seidel(sp *s, const diagc_contact_options *o, double limit, diagc_lcp_stats *ls,
                              int sweeps, double tol) {
  int k, r;
  for (k = 0; k < sweeps && s->work <= limit; k++) {
    double ch = block_sweep(s, o, k & 1, ls, NULL), scale = 0.0;
    ls->pgs_sweeps++;
    if (ch < 0.0) return -1;
    for (r = 0; r < s->m; r++)
      if (fabs(s->w->x[r]) > scale) scale = fabs(s->w->x[r]);
    if (ch <= tol * (scale > 0.0 ? scale : 1.0)) break;
  }
  return 0;
}

/* 1 when the island has no warm start (every impulse 0). */
static int cold(const sp *s) {
  int r;
  for (r = 0; r < s->m; r++)
    if (s->w->x[r] != 0.0) return 0;
  return 1;
}

/* Scores the current point (its coupled violation), keeping it when it is
 * the best; returns the violation. */
static double score(sp *s, double *best) {
  double v;
  residual(s);
  v = violation(s);
  if (v < *best) {
    *best = v;
    memcpy(s->w->xbest, s->w->x, sizeof(double) * (size_t)s->m);
  }
  return v;
}

/* Region rounds, for an island whose warm pivoting did not settle: at its
 * best point only a few rows are violated (1-5 of 150-200 on the recorded
 * piles), usually where dependent rows (a face's four corners) made the
 * pivoting cycle.  A round marks the contacts with a violated row and
 * their neighbours (the contacts of the trees they join), solves that
 * region exactly by REGION_SWEEPS sweeps of block Gauss-Seidel over its
 * runs alone (the rest of the island held at the best point, which already
 * satisfies its rows), and pivots again from the classes of the point they
 * reach: the classes outside the region are the best point's, so the
 * pivoting starts from a point that is wrong only where the region was
 * re-solved.  Returns 1 when a round settles the island, -1 when a pool
 * was too small.  Measured on the recorded piles (tools/contact-replay):
 * of ~940 islands whose warm pivoting does not settle, ~690 settle here at
 * ~0.6 ms each instead of ~2 ms in the full rounds; contact time 4.07 ->
 * 3.76 s (-8 %), islands left inexact 3 -> 1. */
static int region_rounds(sp *s, const diagc_contact_options *o, double limit, double *best,
                         diagc_lcp_stats *ls) {
  contact_ws *w = s->w;
  int *reg = w->tlist + s->K; /* tlist: K marks for residual_of, then these */
  int round, i, e, k, r, done = 0;
  for (round = 0; round < REGION_ROUNDS && !ls->budget_hit && s->work <= limit; round++) {
    double tau;
    memcpy(w->x, w->xbest, sizeof(double) * (size_t)s->m);
    residual(s);
    violations(s, w->rhs);
    tau = noise_level(s, s->tol);
    for (i = 0; i < s->K; i++) reg[i] = 0;
    for (i = 0; i < s->K; i++) {
      int bad = 0;
      for (r = w->roff[i]; r < w->roff[i + 1]; r++) bad |= w->rhs[r] > tau;
      if (bad)
        for (e = w->nbr0[i]; e < w->nbr0[i + 1]; e++) reg[w->nbr[e]] = 1;
    }
    for (k = 0; k < REGION_SWEEPS; k++) {
      ls->pgs_sweeps++;
      if (block_sweep(s, o, k & 1, ls, reg) < 0) return 0;
    }
    if (score(s, best) <= s->tol) return 1;
    classes_of_point(s);
    done = pivoting(s, WARM_ITERS, limit, best, ls);
    if (done != 0 || *best <= s->tol) return done < 0 ? -1 : 1;
  }
  return 0;
}

/* Proximal rounds, for what a round of block Gauss-Seidel and pivoting
 * left unsettled: dependent rows whose classes cycle (two normals each
 * needed alone but singular together: clamped both, their system is
 * inconsistent and its solution huge).  Round k solves the LCP of
 * A + rho_k I with b + rho_k x_k (x_k: the last round's point) by block
 * Gauss-Seidel sweeps and then the pivoting from their point's classes:
 * rho I makes every clamped system definite, so that cycle ends (and
 * Gauss-Seidel converges faster), and at a fixed point (x_k+1 = x_k) the
 * round's LCP is the island's own.  rho falls by PROX_DECAY a round, so
 * the last rounds are the island's own LCP nearly.  Each round's point is
 * scored on the island's own LCP (rho 0) and the best kept; returns 1
 * when one satisfies it, -1 when a pool was too small.  Measured on the
 * recorded piles (tools/contact-replay): islands left inexact 140 -> 3 of
 * 3440 steps, 23-32 % less time (the block Gauss-Seidel rounds they
 * replace, 4 -> 2, cost more than the rounds here). */
static int proximal(sp *s, const diagc_contact_options *o, double limit, double *best, diagc_lcp_stats *ls) {
  contact_ws *w = s->w;
  size_t bytes = sizeof(double) * (size_t)s->m;
  double rho = PROX_RHO * s->dmax;
  int round, done = 0, stall = 0;
  double before, v;
  memcpy(w->x, w->xbest, bytes);
  s->keep = w->xpbest;
  for (round = 0; round < PROX_ROUNDS && !ls->budget_hit && s->work <= limit; round++) {
    double pb = INFINITY;
    memcpy(w->xprox, w->x, bytes);
    s->valid = 0; /* the factor's diagonal holds the last round's rho */
    s->rho = rho;
    rho *= PROX_DECAY;
    if (block_gauss_seidel(s, o, limit, ls, PROX_BGS, BGS_TOL) < 0) break;
    classes_of_point(s);
    s->from_x = 1;
    if (pivoting(s, WARM_ITERS + s->K / 8, limit, &pb, ls) < 0) {
      done = -1;
      break;
    }
    if (pb < INFINITY) memcpy(w->x, w->xpbest, bytes);
    s->rho = 0.0;
    before = *best;
    v = score(s, best);
    if (v <= s->tol || v <= WARM_ACCEPT * noise_level(s, s->tol)) {
      done = 1;
      break;
    }
    stall = *best < PROX_GAIN * before ? 0 : stall + 1;
    if (stall >= PROX_STALL) break;
  }
  s->rho = 0.0;
  s->valid = 0;
  s->keep = w->xbest;
  return done;
}

int diagc__contact_island_sparse(const diagc_contact_problem *p, const diagc_contact_options *o,
                                 contact_ws *w, int isl, int m, contact_budget *bud,
                                 diagc_contact_stats *st) {
  sp s;
  int i, rc, round, done = 0, resolve, reuse;
  double best = INFINITY, tol = o->lcp.tol, units, limit;
  diagc_lcp_stats ls;
  memset(&s, 0, sizeof s);
  memset(&ls, 0, sizeof ls);
  s.p = p, s.w = w, s.isl = isl, s.m = m, s.K = w->start[isl + 1] - w->start[isl];
  s.check = o->check;
  s.tol = o->lcp.tol;
  s.keep = w->xbest;
  /* a friction re-solve of the island (contact.c: w->blk_isl is isl only
     then) has the same contacts and frames: the neighbours and blocks of
     its first solve, and (w->fac_isl) its elimination order and factor,
     whose leading rows up to the first released contact stay */
  resolve = w->blk_isl == isl;
  reuse = resolve && w->fac_isl == isl;
  w->fac_isl = -1;
  w->roff[0] = 0;
  for (i = 0; i < s.K; i++) w->roff[i + 1] = w->roff[i] + (p->mu[contact_of(&s, i)] > 0.0 ? 3 : 1);
  if (!resolve) {
    /* the warm start itself is the first candidate, scored from the rows
       (no block formed): what the step uses is never worse than it, and
       when it satisfies the LCP to round-off, after at most POLISH
       projected Gauss-Seidel sweeps kept while they help, it is the
       answer (a scene at rest: no block, no factorization); a re-solve's
       is scored on its blocks below */
    double v0 = warm_by_rows(&s, o->cfm), lvl = noise_level(&s, tol);
    int k;
    best = v0;
    memcpy(w->xbest, w->x, sizeof(double) * (size_t)m);
    for (k = 0; k < POLISH && v0 > WARM_ACCEPT * lvl && v0 <= POLISH_FROM * lvl; k++) {
      double v1;
      pgs_rows(&s, o->cfm);
      v1 = rows_violation(&s, o->cfm);
      if (!(v1 < v0)) break; /* a sweep that does not help: the best is kept */
      v0 = best = v1;
      memcpy(w->xbest, w->x, sizeof(double) * (size_t)m);
    }
    if (best <= WARM_ACCEPT * lvl) done = 1;
    else memcpy(w->x, w->xbest, sizeof(double) * (size_t)m);
  }
  if (done == 0 && m <= DIAGC_CONTACT_DENSE_ROWS && m <= w->dense_rows &&
      (cold(&s) || (w->one_tree && m <= DIAGC__TREE_DENSE_ROWS))) {
    /* a small island with no warm start (its contacts are new), or a
       small one of one tree: the dense path; a small warm one of several
       trees is pivoted from its warm start here (the dense path's search
       costs several m^3 on a pile at rest) */
    st->work += s.work;
    bud->left -= s.work;
    return 1;
  }
  if (done == 0 && !resolve) {
    w->blk_isl = -1;
    done = neighbours(&s) != 0 ? -1 : 0;
    if (done == 0 && blocks(&s, o->cfm) != 0) return DIAGC_CONTACT_E_NUMERIC;
    if (done == 0) w->blk_isl = isl;
  }
  /* multiply-adds this island may use: the step's budget, and with the
     default budget at most SPARSE_WORK times the products of one pass over
     its blocks */
  limit = bud->left;
  if (done == 0 && o->lcp.work_budget == 0.0 && SPARSE_WORK * 9.0 * (double)w->nbr0[s.K] < limit)
    limit = SPARSE_WORK * 9.0 * (double)w->nbr0[s.K];
  if (done == 0) {
    s.dmax = max_diagonal(&s);
    if (reuse) /* the first solve's order, and the factor of its last classes */
      s.valid = 1, s.nred = w->fac_nred;
    else
      rcm(&s);
    for (i = 0; i < s.K; i++) w->mark[i] = 0;
    /* the (polished) warm start scored again on the blocks */
    double v0 = score(&s, &best), lvl = noise_level(&s, tol);
    int near;
    if (best <= WARM_ACCEPT * lvl) {
      done = 1; /* the warm start satisfies the LCP (to round-off): the answer */
    } else {
      if (best < INFINITY) memcpy(w->x, w->xbest, sizeof(double) * (size_t)m);
      initial_classes(&s);
      if (!reuse) load_first(&s);
      s.from_x = 1;
      /* a warm start already near round-off gets a few solves to reach
         it, not a search (its dependent rows' round-off violations would
         send the pivoting round them): what it has is an answer */
      near = v0 <= WARM_NEAR * lvl;
      done = pivoting(&s, near ? WARM_QUICK : WARM_ITERS + s.K / 8, limit, &best, &ls);
      if (done == 0 && (best <= tol || (near && best <= WARM_NEAR * lvl))) done = 1;
    }
    if (done == 0 && !ls.budget_hit && best < INFINITY) done = region_rounds(&s, o, limit, &best, &ls);
    for (round = 0; done == 0 && !ls.budget_hit && round < ROUNDS; round++) {
      if (best < INFINITY) memcpy(w->x, w->xbest, sizeof(double) * (size_t)m);
      /* longer and finer sweeps each round; the point itself may be the
         answer (block Gauss-Seidel converges to it) */
      if (block_gauss_seidel(&s, o, limit, &ls, BGS_SWEEPS << round, BGS_TOL * pow(1e-3, round)) < 0) break;
      if (score(&s, &best) <= tol) {
        done = 1;
        break;
      }
      classes_of_point(&s);
      done = pivoting(&s, WARM_ITERS + s.K / 4, limit, &best, &ls);
      if (done == 0 && best <= tol) done = 1;
      if (done == 0 && !ls.budget_hit && best < INFINITY) done = proximal(&s, o, limit, &best, &ls);
    }
  }
  if (done < 0) st->pool_overflows++;
  if (s.valid) w->fac_isl = isl, w->fac_nred = s.nred; /* for a re-solve */
  units = s.work / ((double)m * (double)m);
  st->work += s.work;
  bud->left -= s.work;
  st->sparse_iterations += ls.iterations;
  if (best < INFINITY) memcpy(w->x, w->xbest, sizeof(double) * (size_t)m);
  if (best > o->lcp.accept_tol && m <= w->dense_rows && !ls.budget_hit) {
    st->sparse_fallbacks++;
    return 1; /* the dense path, from the best point */
  }
  bud->cubes -= (double)m * (double)m * (double)m;
  ls.violation = best;
  ls.work = units;
  ls.method = DIAGC_LCP_PIVOT;
  rc = best <= tol ? DIAGC_OK
       : best <= o->lcp.accept_tol ? DIAGC_LCP_SOLVED_TOL
       : ls.budget_hit ? DIAGC_LCP_BUDGET
                       : DIAGC_LCP_E_UNSOLVED;
  st->sparse_islands++;
  if (rc == DIAGC_LCP_E_UNSOLVED || rc == DIAGC_LCP_BUDGET) st->sparse_inexact++;
  return diagc__island_outcome(o, w, m, rc, &ls, st, check_violation(&s, o->cfm));
}
