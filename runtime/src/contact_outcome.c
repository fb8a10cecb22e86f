/* contact_outcome.c: an island's outcome into the step's stats and its
 * status (diagc/world.h, "Contact solve"), for both the dense path
 * (contact_island.c) and the sparse method (contact_sparse.c), including
 * the optional check of the solution against the LCP's conditions. */
#include <math.h>

#include "contact_internal.h"

int diagc__island_outcome(const diagc_contact_options *o, contact_ws *w, int m, int rc,
                          const diagc_lcp_stats *ls, diagc_contact_stats *st, double checked) {
  int check = o->check;
#ifdef DIAGC_CONTACT_CHECK
  check = 1;
#endif
  st->islands++;
  st->rows += m;
  if (m > st->largest) st->largest = m;
  st->pivots += ls->pivots;
  st->sweeps += ls->pgs_sweeps;
  if (ls->violation > st->residual) st->residual = ls->violation;
  if (rc == DIAGC_LCP_BUDGET) st->budget_hit = 1;
  if (rc == DIAGC_LCP_BUDGET || rc == DIAGC_LCP_E_UNSOLVED) st->inexact++;
  if (check) { /* the arrays built, scored afresh (or by the caller: checked >= 0) */
    double v = checked >= 0.0 ? checked : diagc_lcp_violation(m, w->A, w->b, w->lo, w->hi, w->fx, w->x);
    st->checked++;
    if (!(v <= st->check_violation)) st->check_violation = v;
    if (!(v <= o->lcp.accept_tol) && (rc == DIAGC_OK || rc == DIAGC_LCP_SOLVED_TOL))
      return DIAGC_CONTACT_E_CHECK;
  }
  if (rc == DIAGC_LCP_E_UNSOLVED) return DIAGC_CONTACT_INEXACT;
  return rc;
}
