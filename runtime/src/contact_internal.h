/* contact_internal.h: what the contact solve's files share (not
 * installed).  Calls run one way: contact.c (API, workspace, driver) ->
 * contact_island.c (islands, an island's rows, the dense path) ->
 * contact_sparse.c (the sparse method) -> contact_outcome.c (an island's
 * stats and status) and contact_friction.c (the turned friction frames,
 * rows in them) -> contact_rows.c (rows of dense or compact problems);
 * contact_impact.c (impacts) uses contact_rows.c. */
#ifndef DIAGC_CONTACT_INTERNAL_H
#define DIAGC_CONTACT_INTERNAL_H

#include <stddef.h>

#include "diagc/world.h"

/* The workspace, laid out by contact.c (sizes for nc contacts, n = 3 nc). */
typedef struct {
  void *lcp_ws;          /* diagc_lcp_workspace_size(n) bytes              */
  size_t lcp_ws_size;
  double *A;             /* n x n: the island's A + cfm I                  */
  double *b, *lo, *hi, *x, *target; /* n each                              */
  int *fx, *rows;        /* n: findex; the island row's row of J           */
  int *parent;           /* nc: union-find over contacts                   */
  int *label;            /* nc: the island of each contact                 */
  int *start, *list;     /* nc + 1, nc: contacts of island i are
                            list[start[i] .. start[i + 1])                */
  double *u, *vs;        /* nv each: velocity after the impacts, and v*
                            shifted by them (restitution_passes > 0)      */
  double *lam;           /* nc: the impacts' normal impulses               */
  double *frame;         /* 2 nc: each contact's friction frame (cos, sin)
                            (contact_friction.c); the islands' rows, b, A
                            and x are in these frames                       */
  int *hold;             /* nc: 1 for a contact held to t1' (x_t2' = 0)     */
  double *ut;            /* 2 nc: J_t' v* of each contact (its b_t = -ut)   */
  int *nz;               /* nv: the nonzero columns of a row of J          */
  double *mt;            /* 3 nc x nv: (M^-1 J^T)^T, rows contiguous       */
  int nislands;
  int dense_rows;        /* the largest island the dense path can take     */
  /* the sparse path (contact_sparse.c; compact problems only) */
  double *w;             /* n: A x - b of the island's rows                 */
  double *rhs, *sol;     /* n: the reduced system's right side, solution   */
  double *blk;           /* the pool (pool_cap doubles): first A's 3 x 3
                            blocks, 9 per neighbour entry, then env        */
  double *env;           /* env_cap: the envelope LU of the reduced system,
                            in the pool after the island's blocks          */
  double *xbest;         /* n: the best point seen                          */
  double *xprox, *xpbest;/* n each: a proximal round's centre and best point */
  double *xprev;         /* n: the pivoting's last point (contact_sparse.c) */
  double *vt;            /* nv: scratch (the check's velocity)              */
  int *cls;              /* n: row classes (contact_sparse.c)               */
  int *clsprev;          /* n: the classes of xprev                          */
  int *cls0, *order0;    /* n, nc: the classes and the order the envelope's
                            factor is of (its leading rows are kept)        */
  int *red;              /* n: the row's reduced index, or -1               */
  int *first;            /* n: the first reduced column of a reduced row    */
  size_t *loff, *uoff;   /* n: offsets of the envelope's rows and columns   */
  int *drop;             /* n: 1 for a reduced row dropped (dependent)      */
  int *roff;             /* nc + 1: the island's rows of its i-th contact   */
  int *nbr0, *nbr;       /* nc + 1, nbr_cap: neighbours (local indices)     */
  int *order, *where;    /* nc each: the elimination order and its inverse */
  int *mark, *queue;     /* nc each                                          */
  int *tstart, *tlist;   /* nv + 2, 2 nc: the island's contacts per tree
                            (tlist: then the residual's marks of contacts
                            with a nonzero impulse, and after those K the
                            region rounds' marks)                          */
  int *span;             /* 2 DIAGC__SPAN_RUNS nc: each contact's nonzero
                            columns (compact problems; contact_rows.c)     */
  int nbr_cap;
  int blk_isl;           /* the island whose neighbours and blocks nbr0,
                            nbr, blk hold (a friction re-solve of the same
                            island reuses them), or -1                     */
  int fac_isl, fac_nred; /* the island whose factor the envelope holds (of
                            cls0 and order0; its reduced rows, nred), kept
                            for a friction re-solve of it, or -1          */
  size_t pool_cap, env_cap;
  int a_isl, a_m;        /* the island and row count whose A w->A holds
                            (contact_island.c; a_isl -1: none): a friction
                            re-solve of the same rows reuses it            */
  int one_tree;          /* nonzero while the island being solved is of
                            one tree (contact_tree.c): the sparse path
                            sends it to the dense one when small
                            (contact_sparse.c); 2 for an articulated tree,
                            whose warm start is not scored from the rows
                            first (contact_island.c), 1 for a lone body   */
} contact_ws;

/* Sizes of the sparse path's pools per contact of the workspace (plan()
 * in contact.c gives them all of the caller's room; docs/world.md,
 * "Context size"): neighbour entries (a contact's neighbours are the
 * contacts that share one of its trees, itself included), and doubles of
 * one pool shared by the neighbour blocks (9 per entry) and the envelope
 * of the reduced system (its L rows and U columns), so an island with
 * many blocks and a narrow envelope, or the reverse, fits.  Measured per
 * contact: 50-cube stack 12 entries and 20 envelope doubles per row (166
 * pool doubles), 30-box pile 18 and 20 (218), 10-box pyramid 31.5 and 41
 * (407).  Beyond them an island goes to the dense path if it fits, else
 * its best point is used (counted: stats.pool_overflows, inexact). */
#define DIAGC__NBR_PER_CONTACT 48
#define DIAGC__POOL_PER_CONTACT 480
/* The dense method's arrays in a sparse workspace: islands of up to this
 * many rows that the sparse method does not settle go to it. */
#define DIAGC__DENSE_FALLBACK_ROWS 48
/* An island of one tree of up to this many rows whose warm start does not
 * satisfy its LCP goes to the dense path (its A formed whole, pivoted from
 * the warm start): one body's few contacts, where the sparse machinery's
 * blocks, orderings and rescue rounds cost more than the dense solve. */
#define DIAGC__TREE_DENSE_ROWS 32



/* The work left to the step's islands, in multiply-adds (INFINITY: no
 * bound), and the sum of m^3 over the islands not yet solved (m: rows):
 * an island may use left * m^3 / cubes (the share of its pivoting cost;
 * what an island does not use passes on to the next). */
typedef struct {
  double left;
  double cubes;
} contact_budget;

/* Rows of island isl's LCP (3 per contact, 1 when mu = 0). */
int diagc__contact_island_rows(const diagc_contact_problem *p, const contact_ws *w, int isl);

/* Groups the contacts into islands (w->label, start, list, nislands), in
 * the order of their first contact. */
void diagc__contact_islands(const diagc_contact_problem *p, contact_ws *w);

/* contact_tree.c: island isl as diagc__contact_island does, but an
 * island of one tree whose flat patches have redundant contacts (normal
 * rows inside the convex hull of their group's) is solved on the others
 * first, the dropped ones at 0 when that solves the whole island's LCP
 * (checked); otherwise the whole island from that point. */
int diagc__contact_tree_island(const diagc_contact_problem *p, const diagc_contact_options *o,
                               contact_ws *w, int isl, double *x, contact_budget *bud,
                               diagc_contact_stats *st);

/* Builds and solves island isl's LCP, scatters its impulses into x (the
 * warm start on entry) and adds to the stats; returns its status. */
int diagc__contact_island(const diagc_contact_problem *p, const diagc_contact_options *o,
                          contact_ws *w, int isl, double *x, contact_budget *bud,
                          diagc_contact_stats *st);

/* The target normal velocity of contact c (diagc/world.h); *branch (may
 * be NULL): which term it is, for the linearized step (contact_grad.c). */
enum {
  DIAGC__TARGET_CONST = 0,       /* 0, or the capped correction speed      */
  DIAGC__TARGET_RESTITUTION = 1, /* -e J_n v                               */
  DIAGC__TARGET_PENETRATION = 2, /* erp (depth - allowed) / dt             */
  DIAGC__TARGET_GAP = 3          /* depth / dt (a separated contact)       */
};
double diagc__contact_normal_target(const diagc_contact_problem *p, const diagc_contact_options *o, int c,
                                    int *branch);

/* contact_impact.c: the sequential impact phase (restitution_passes > 0):
 * u (in: v) gets the impacts' impulses lam (nc); returns how many were
 * applied, *passes the passes run. */
typedef void (*diagc__impact_hook)(void *ctx, int k, const double *u, double vn, double a, double l);
int diagc__contact_impacts(const diagc_contact_problem *p, const diagc_contact_options *o, double *u,
                           double *lam, int *passes);
/* The same passes, calling hook(ctx, k, u, vn, a, l) before each impulse
 * l = -(1 + e) vn / a is applied to contact k (u: the velocity before it;
 * the linearized step replays the impacts with it). */
int diagc__contact_impacts_hook(const diagc_contact_problem *p, const diagc_contact_options *o, double *u,
                                double *lam, int *passes, diagc__impact_hook hook, void *ctx);

/* contact_friction.c: isotropic friction by turned tangent frames.
 * diagc__friction_frames: fr (2 nc) = each contact's (cos, sin): t1'
 * along +-u* (u* = J_t vs; cos >= 0) when |u*| > DIAGC__FRICTION_TURN_TOL
 * (m/s), else the default (1, 0) (also when the turn's |tan| is below
 * DIAGC__FRICTION_SNAP); hold (nc, may be NULL) = 1 for a turned contact that
 * slides at v (diagc__friction_sliding: |J_t v| > DIAGC__FRICTION_SLIDE_TOL
 * m/s): its t2' impulse is held at 0 (LCP bounds [0, 0]); ut (2 nc, may
 * be NULL) = u* in the frame (R u*: the tangent rows' J' vs); returns how
 * many were turned along their u*.  diagc__friction_release: the held contacts of island isl
 * whose impulse x (turned) is not at its bound mu x_n
 * (diagc__friction_at_bound: within DIAGC__FRICTION_BOUND_TOL, relative)
 * stopped: hold 0; returns how many.  diagc__friction_turn: x (3 nc) into
 * the frames (back = 0) or back to the default ones (1); a non-finite
 * tangent entry of a turned contact reads as 0.
 * diagc__friction_turn_block: B (3 x 3, the block of contacts k, l) <-
 * R_k B R_l^T.  diagc__friction_turn_island: the same on an island's m x m
 * A (rows: the island's rows of J).  diagc__friction_outside: contacts
 * whose friction impulse is outside the cone by more than
 * DIAGC__FRICTION_CONE_TOL (relative).  The frow functions are
 * contact_rows.c's in the frames fr (NULL: the default ones). */
#define DIAGC__FRICTION_TURN_TOL 1e-7
#define DIAGC__FRICTION_SLIDE_TOL 1e-6
#define DIAGC__FRICTION_BOUND_TOL 1e-9
#define DIAGC__FRICTION_CONE_TOL 1e-6
#define DIAGC__FRICTION_SNAP 1e-9 /* |tan| of a turn taken as none: u*'s direction is not known better */
int diagc__friction_frames(const diagc_contact_problem *p, const double *vs, const double *v, double *fr,
                           int *hold, double *ut);
int diagc__friction_sliding(const diagc_contact_problem *p, int k, const double *v);
int diagc__friction_at_bound(double mu, const double xr[3]);
int diagc__friction_release(const diagc_contact_problem *p, const contact_ws *w, int isl, const double *x,
                            int *hold);
void diagc__friction_turn(const double *fr, int nc, double *x, int back);
void diagc__friction_turn_block(const double *fr, int k, int l, double B[9]);
void diagc__friction_turn_island(const double *fr, const int *rows, int m, double *A);
int diagc__friction_outside(const diagc_contact_problem *p, const double *x);
double diagc__frow_dot(const diagc_contact_problem *p, const double *fr, int r, const double *y);
void diagc__frow_axpy(const diagc_contact_problem *p, const double *fr, int r, double a, double *y);
/* the diagonal entry J_r' M^-1 J_r'^T of row r in the frames fr */
double diagc__frow_mdiag(const diagc_contact_problem *p, const double *fr, int r);

/* contact_rows.c: rows of a dense or compact problem. */
int diagc__contact_width(const diagc_contact_problem *p, int k);
double diagc__row_dot(const diagc_contact_problem *p, int r, const double *y);
/* the tangent rows of contact k times y (as row_dot of 3k + 1, 3k + 2, in one pass) */
void diagc__tangent_dots(const diagc_contact_problem *p, int k, const double *y, double *a1, double *a2);
void diagc__row_axpy(const diagc_contact_problem *p, int r, double a, double *y);
double diagc__row_mrow(const diagc_contact_problem *p, int r, int q);
/* each contact's nonzero columns as runs (span: 2 DIAGC__SPAN_RUNS ints per contact) */
#define DIAGC__SPAN_RUNS 4
void diagc__contact_spans(const diagc_contact_problem *p, int *span);
int diagc__contact_block(const diagc_contact_problem *p, const int *span, int k, int l, double B[9]);
int diagc__contact_compact_ok(const diagc_contact_problem *p);
/* 1 when the n doubles from a are all finite (an integer test of their
   exponents, which the compiler vectorizes) */
int diagc__finite_run(const double *a, size_t n);
/* the block of contacts k, l in the frames fr (contact_friction.c; NULL: the default ones), over
   contact k's runs of span (diagc__contact_spans; NULL: all its columns) */
static inline int diagc__fcontact_block(const diagc_contact_problem *p, const double *fr, const int *span, int k,
                                        int l, double B[9]) {
  int shared = diagc__contact_block(p, span, k, l, B);
  if (shared && fr) diagc__friction_turn_block(fr, k, l, B);
  return shared;
}

/* contact_island.c: the rows of island isl (w->rows, fx, lo, hi, target,
 * b, and x from the warm start); returns their count. */
int diagc__island_setup(const diagc_contact_problem *p, const diagc_contact_options *o, contact_ws *w,
                        int isl, const double *x);
/* contact_outcome.c: the island's outcome into the stats (m rows, LCP
 * status rc and stats ls; checked: the violation the check computed, or
 * < 0 to score the dense arrays); returns its status. */
int diagc__island_outcome(const diagc_contact_options *o, contact_ws *w, int m, int rc,
                          const diagc_lcp_stats *ls, diagc_contact_stats *st, double checked);

/* contact_sparse.c: island isl by the sparse method (one of at most
 * DIAGC_CONTACT_DENSE_ROWS rows with no warm start: only that start,
 * scored from the rows); returns its status, or 1 when it hands the
 * island to the dense path (w->x: its warm start). */
int diagc__contact_island_sparse(const diagc_contact_problem *p, const diagc_contact_options *o,
                                 contact_ws *w, int isl, int m, contact_budget *bud,
                                 diagc_contact_stats *st);

#endif
