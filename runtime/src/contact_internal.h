/* contact_internal.h: what contact.c (API, workspace, driver) and
 * contact_island.c (islands, the LCP of one island) share (not installed). */
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
  int *nz;               /* nv: the nonzero columns of a row of J          */
  double *mt;            /* 3 nc x nv: (M^-1 J^T)^T, rows contiguous       */
  int nislands;
} contact_ws;

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

#endif
