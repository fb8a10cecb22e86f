/* diagc/world.h: the runtime side of a compiled rigid-body world (issue
 * #17, docs/world.md): collision detection ("Collision", runtime/src/
 * collide*.c) and the contact solve ("Contact solve", runtime/src/
 * contact*.c).  The generated code of a world computes the dynamics of its
 * tree (mass matrix, bias, factorization, contact Jacobians) and calls
 * these for the contacts.
 *
 * C99.  No heap allocation: the caller owns every buffer and workspace.
 */
#ifndef DIAGC_WORLD_H
#define DIAGC_WORLD_H

#include <stddef.h>

#include "diagc/lcp.h"
#include "diagc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Collision (collide*.c): see that section (written separately).          */
/* ======================================================================== */

/* ======================================================================== */
/* Contact solve (contact.c; docs/runtime-api.md, "Contact solve")          */
/* ======================================================================== */
/*
 * One time step's contact impulses, in DART's boxed-LCP form (seed 002,
 * docs/world.md).  The caller has the smooth dynamics' velocity v* (vstar)
 * and, per contact k (normal n_k from shape b to shape a, tangents t1_k,
 * t2_k), the three rows J_{3k}, J_{3k+1}, J_{3k+2} of the contact Jacobian
 * (the relative velocity of a with respect to b along n, t1, t2 at the
 * contact point) and M^-1 J^T from its own factorization of M.  It finds
 * the impulses x (3 per contact, along n, t1, t2) and
 *
 *     v_next = v* + M^-1 J^T x,
 *
 * such that, per contact, with A = J M^-1 J^T and w = A x - b = J v_next -
 * target (the contact velocity after the impulse minus its target):
 *
 *   normal row   x_n >= 0, w_n >= 0, x_n w_n = 0           (findex -1)
 *   tangent rows -mu x_n <= x_t <= mu x_n, w_t = 0 inside, w_t <= 0 at the
 *                upper bound, >= 0 at the lower one         (findex: normal)
 *
 * (Coulomb's law with a friction pyramid whose edges are t1, t2.)  The
 * targets of the rows:
 *
 *   tangent rows: 0.
 *   normal row of a touching contact (depth >= 0):
 *       max(e (-vn),            restitution, when the approach speed -vn,
 *                                vn = J_n v (the velocity at the start of
 *                                the step), exceeds bounce_threshold
 *           erp (depth - allowed_penetration) / dt,  penetration
 *                                correction, when depth > allowed_
 *                                penetration; at most max_correction_speed
 *           0)
 *   normal row of a separated contact (depth < 0, a speculative contact
 *   within the collision margin): depth / dt (< 0): an approach of less
 *   than the gap within the step needs no impulse; if v* closes the gap
 *   within the step (J_n v* < depth / dt) the restitution target applies
 *   as for a touching contact.
 *
 * Contacts are grouped into islands: two contacts are coupled through
 * M^-1 only when they touch a common tree (island tags: the tree id of
 * each side, -1 for the fixed world, which couples nothing).  Each island
 * is a separate LCP (diagc_lcp_solve, warm-started from x on entry), so the
 * result is that of the joint LCP (whose A is block diagonal after the same
 * permutation), at the cost of the islands'.  Contacts with mu = 0 have no
 * tangent rows (their x_t are 0).
 *
 * A work budget bounds the step (diagc_lcp_options.work_budget, counted by
 * operation, never by a clock): the islands share it in proportion to
 * the cube of their row counts (their pivoting cost), what one does not
 * use passing on to the next; when it is spent the best impulses found
 * are used, the step returns
 * DIAGC_LCP_BUDGET and stats.budget_hit = 1, stats.residual the largest
 * violation.  x and v_next are never NaN or infinity.
 *
 * Defaults (diagc_contact_options_init) and why:
 *   erp = 0.2                  a fifth of the penetration beyond the
 *                              allowance is removed per step (ODE's and
 *                              Bullet's value; DART: 0.01, slow to
 *                              recover from deep penetration)
 *   allowed_penetration = 1e-4 m: contacts within it get no correction
 *                              velocity, so a body at rest settles at a
 *                              constant depth in [0, 1e-4] with v_next = 0
 *                              exactly (no jitter, no drift)
 *   max_correction_speed = 1 m/s: a cap on the correction velocity (a
 *                              deep initial overlap does not launch bodies)
 *   bounce_threshold = 1e-2 m/s: slower approaches are inelastic (a body
 *                              resting under gravity approaches at g dt,
 *                              about 1e-2 m/s at 1 ms, and must not bounce)
 *   cfm = 0                    no regularization: the LCP solver handles a
 *                              singular A (redundant contacts) exactly by
 *                              dropping dependent columns, and a cfm > 0
 *                              biases every impulse by about cfm times the
 *                              contact's effective mass (DART: 1e-5, a
 *                              resting impulse off by 1e-5 relative for
 *                              m = 1 kg; the world's tests need 1e-9)
 *   lcp: diagc_lcp_options_init's (AUTO, tol 1e-9, accept_tol 1e-6, the
 *        default work budget, about 4 ms of CPU at 150 rows)
 *   check = 0 (1 when compiled with -DDIAGC_CONTACT_CHECK).
 *   restitution_passes = 0: DART's simultaneous restitution.  It gives the
 *        wrong propagation through chains of touching bodies (Newton's
 *        cradle: the struck ball and the row behind it move off together,
 *        -0.6 and 0.4 each for 5 balls, where the last should leave at 1
 *        and the others stop).  With restitution_passes = k > 0 impacts
 *        (contacts with e > 0 approaching faster than bounce_threshold,
 *        touching or closing within the step) are resolved first, one
 *        contact at a time (a normal impulse that leaves the contact at
 *        -e vn), in passes over the contacts until one applies none or k
 *        ran; momentum is conserved exactly, kinetic energy too for
 *        e = 1; the LCP then starts from the velocity after the impacts
 *        (frictionless impacts; friction acts in the LCP).  x returns the
 *        sum of both phases' impulses.
 */

/* The step's data.  Arrays are row-major and are not modified. */
typedef struct diagc_contact_problem {
  int nv;                 /* velocity dimension                             */
  int nc;                 /* contacts                                       */
  const double *J;        /* 3 nc x nv: rows n, t1, t2 per contact          */
  const double *MinvJT;   /* nv x 3 nc: M^-1 J^T                            */
  const double *v;        /* nv: velocity at the start of the step          */
  const double *vstar;    /* nv: velocity after the smooth dynamics         */
  const double *depth;    /* nc: penetration (> 0), gap (< 0)               */
  const double *mu;       /* nc: friction coefficients (>= 0, finite)      */
  const double *restitution; /* nc: coefficients in [0, 1]; NULL: all 0    */
  const int *tree;        /* 2 nc: tree id of side a, of side b (>= 0), or
                             -1 (the fixed world); NULL: one island        */
  double dt;              /* time step (> 0)                                */
} diagc_contact_problem;

typedef struct diagc_contact_options {
  double erp;                  /* error reduction in [0, 1] (default 0.2)  */
  double allowed_penetration;  /* >= 0 (default 1e-4)                      */
  double max_correction_speed; /* > 0, may be INFINITY (default 1)         */
  double bounce_threshold;     /* >= 0 (default 1e-2)                      */
  double cfm;                  /* >= 0: A + cfm I (default 0)              */
  int check;                   /* 1: verify every island's LCP (below)    */
  int restitution_passes;      /* 0 (default): restitution in the LCP,
                                  simultaneous (DART's); k > 0: impacts
                                  resolved first, one contact at a time,
                                  in up to k passes over the contacts
                                  (Newton's cradle: below)                 */
  diagc_lcp_options lcp;       /* method, tol, accept_tol, work_budget:
                                  the STEP's budget in units of n^2
                                  multiply-adds with n = the step's rows
                                  (0: diagc_lcp_work_budget's default for
                                  that n); workspace fields are ignored */
} diagc_contact_options;

typedef struct diagc_contact_stats {
  int islands;        /* LCPs solved (islands with at least one contact)   */
  int largest;        /* rows of the largest one                           */
  int rows;           /* rows of all                                        */
  int pivots;         /* LCP pivots, summed                                 */
  int sweeps;         /* LCP PGS sweeps, summed                             */
  double work;        /* multiply-adds charged by the LCP solves            */
  int budget_hit;     /* 1: the work budget ran out in some island         */
  double residual;    /* largest LCP violation over the islands             */
  int inexact;        /* islands above accept_tol (budget or unsolved)      */
  int checked;        /* islands verified (check on)                        */
  double check_violation; /* largest violation the check computed           */
  int impacts;        /* sequential impact impulses applied                 */
  int impact_passes;  /* passes of the impact phase run                     */
} diagc_contact_stats;

/* Bytes of workspace for nv velocities and up to nc_max contacts (0 if an
 * argument is negative or the size overflows). */
size_t diagc_contact_workspace_size(int nv, int nc_max);

/* The defaults above. */
void diagc_contact_options_init(diagc_contact_options *o);

/* One step's impulses.  x: 3 nc, the warm start on entry (the previous
 * step's impulses by contact slot; zeros allowed, non-finite entries read
 * as 0), the impulses on return; v_next: nv.  o may be NULL (defaults);
 * st may be NULL.  Returns
 *   DIAGC_OK                   every island solved to lcp.tol
 *   DIAGC_LCP_SOLVED_TOL       some only to lcp.accept_tol
 *   DIAGC_CONTACT_INEXACT      an island's LCP was not solved to
 *                              accept_tol (not for lack of work): its
 *                              best point is used
 *   DIAGC_LCP_BUDGET           the work budget ran out: the best points
 *                              are used (stats.residual)
 *   DIAGC_CONTACT_E_CHECK      check on: an island's LCP, scored again by
 *                              diagc_lcp_violation on the arrays the step
 *                              built, is above accept_tol although its
 *                              solve reported success (x, v_next set)
 *   DIAGC_CONTACT_E_NUMERIC    an island's A or impulse overflowed (not
 *                              finite): its impulses are 0 (x, v_next set)
 *   DIAGC_CONTACT_E_ARG        a bad argument (NULL array, nv or nc < 0,
 *                              dt <= 0, a non-finite entry, mu < 0,
 *                              restitution outside [0, 1], a tag < -1, an
 *                              option out of range); x, v_next unchanged
 *   DIAGC_CONTACT_E_WORKSPACE  ws NULL or ws_size below
 *                              diagc_contact_workspace_size(nv, nc);
 *                              x, v_next unchanged */
int diagc_contact_solve(const diagc_contact_problem *p, const diagc_contact_options *o,
                        double *x, double *v_next, void *ws, size_t ws_size,
                        diagc_contact_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DIAGC_WORLD_H */
