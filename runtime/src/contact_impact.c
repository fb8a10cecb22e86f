/* contact_impact.c: the sequential impact phase of a contact step
 * (diagc_contact_options.restitution_passes > 0; diagc/world.h).
 *
 * Simultaneous restitution (one LCP with the targets e (-vn) of every
 * approaching contact) gives the wrong propagation through chains of
 * touching bodies: in Newton's cradle the struck ball and the whole row
 * move off together.  Here impacts are resolved first, one contact at a
 * time (Gauss-Seidel over the contacts in their order, repeated in
 * passes): a contact whose normal velocity vn = J_n u approaches faster
 * than bounce_threshold gets the normal impulse
 *     lambda = -(1 + e) vn / (J_n M^-1 J_n^T),
 * after which its normal velocity is -e vn, and u += M^-1 J_n^T lambda.
 * A two-body impulse conserves momentum, and with e = 1 kinetic energy;
 * the velocity it hands on makes the next contact approach, which the
 * same pass (or the next) resolves.  The passes stop when one applies no
 * impulse, or after restitution_passes.  The LCP then starts from u (its
 * restitution targets see u: only contacts still approaching after the
 * last pass bounce simultaneously).  Impacts are frictionless; the LCP's
 * friction acts on the velocity after them.
 */
#include <math.h>

#include "contact_internal.h"

/* Runs the passes on u (in: v; out: the velocity after the impacts);
 * lam[k]: the normal impulse given to contact k.  Returns the number of
 * impulses applied. */
int diagc__contact_impacts(const diagc_contact_problem *p, const diagc_contact_options *o, double *u,
                           double *lam, int *passes) {
  return diagc__contact_impacts_hook(p, o, u, lam, passes, NULL, NULL);
}

int diagc__contact_impacts_hook(const diagc_contact_problem *p, const diagc_contact_options *o, double *u,
                                double *lam, int *passes, diagc__impact_hook hook, void *ctx) {
  int nc = p->nc, k, pass, count = 0;
  for (k = 0; k < nc; k++) lam[k] = 0.0;
  for (pass = 0; pass < o->restitution_passes; pass++) {
    int applied = 0;
    for (k = 0; k < nc; k++) {
      double e = p->restitution[k], vn, a, l;
      if (!(e > 0.0)) continue;
      vn = diagc__row_dot(p, 3 * k, u);
      if (!(-vn > o->bounce_threshold)) continue;
      /* touching, or closing the gap within the step */
      if (p->depth[k] < 0.0 && !(vn * p->dt < p->depth[k])) continue;
      a = diagc__row_mrow(p, 3 * k, 3 * k);
      if (!(a > 0.0)) continue;
      l = -(1.0 + e) * vn / a;
      if (!isfinite(l)) continue;
      if (hook) hook(ctx, k, u, vn, a, l);
      diagc__row_axpy(p, 3 * k, l, u);
      lam[k] += l;
      applied++;
    }
    count += applied;
    if (applied == 0) {
      pass++;
      break;
    }
  }
  *passes = pass;
  return count;
}
