/* contact_friction.c: isotropic (Coulomb) friction in the contact solve
 * (diagc/world.h, "Contact solve"; docs/world.md, "Friction").
 *
 * The LCP bounds a contact's friction impulse by a box, |x_t1'| <= mu x_n
 * and |x_t2'| <= mu x_n, in a tangent frame that is turned per contact
 * and per step BEFORE the solve: t1' along u* = J_t v*, the contact's
 * tangential velocity at the velocity the LCP starts from (v*, after the
 * impacts), when |u*| > DIAGC__FRICTION_TURN_TOL; the default tangents
 * (diagc_contact_frame) otherwise.  The frame of contact k is an angle
 * given by (c, s) = (cos, sin), applied to the default tangents t1, t2:
 *
 *     t1' = c t1 + s t2,   t2' = -s t1 + c t2,
 *
 * i.e. R = [1 0 0; 0 c s; 0 -s c] on the rows [n, t1, t2]: x' = R x,
 * J' = R J, b' = R b, A'_kl = R_k A_kl R_l^T.  Every solver then sees an
 * ordinary boxed LCP.
 *
 * Sticking, and the onset of a slide: the frame alone.  For an isotropic
 * contact (A_kk's tangential block a multiple of I: a point mass, a
 * sphere) and for a body's contacts that move together (a box resting or
 * starting to slide on a slope: the same u* at every corner) the needed
 * friction is along -u*, so the stick limit is exactly mu in every
 * direction and a contact that breaks loose slides with x_t = -mu x_n u'/
 * |u'| (u' the post-step velocity, parallel to u*).
 *
 * Sliding: a turned contact that slid at the start of the step (|J_t v| >
 * DIAGC__FRICTION_SLIDE_TOL) is also HELD to t1': its t2' row has the
 * bounds [0, 0], so its friction is -mu x_n u* / |u*| or less along t1'.
 * Without that, the t2' rows of a body's several sliding contacts (a
 * spinning box's corners slide in different directions) would keep each
 * contact's velocity along its u* with up to the box corner sqrt(2) mu
 * x_n, freezing the ratio of spin to slide.  u* holds the last step's
 * sliding velocity (v* = v + dt a), so the frame follows a slide as it
 * turns (a step late on the turn).  A held contact that stops along t1'
 * within the step (its x_t1' inside its bound) is released (t2' bounds
 * back to +-mu) and its island solved again from that point, all the
 * island's stopped contacts at once (contact.c; the sparse method keeps
 * the first solve's blocks, order and factor: contact_sparse.c): this
 * happens on the step a slide ends; a contact at rest at the start of a
 * step is never held.
 *
 * Left outside the cone (counted: stats.friction_outside): a contact not
 * held whose needed friction is not along u* (one dragged by another
 * contact's impulse, the last step of a slide), up to sqrt(2) mu x_n.
 *
 * The turned frame depends on the state (v*, and q through J_t); the
 * linearized step (contact_grad.c) differentiates it and holds what the
 * solve held.
 */
#include <math.h>

#include "contact_internal.h"

int diagc__friction_frames(const diagc_contact_problem *p, const double *vs, const double *v, double *fr,
                           int *hold, double *ut) {
  int k, turned = 0;
  for (k = 0; k < p->nc; k++) {
    double u1 = 0.0, u2 = 0.0, r, a, b;
    fr[2 * k] = 1.0, fr[2 * k + 1] = 0.0;
    if (hold) hold[k] = 0;
    if (p->mu[k] > 0.0) { /* else: no tangent rows */
      diagc__tangent_dots(p, k, vs, &u1, &u2);
      r = u1 * u1 + u2 * u2; /* an overflow is not finite: the default frame */
      if (r > DIAGC__FRICTION_TURN_TOL * DIAGC__FRICTION_TURN_TOL && isfinite(r)) {
        r = sqrt(r);
        /* t1' along +-u*: a box and a hold are the same turned by pi (so
           c >= 0), and a turn below round-off is none (the rows stay the
           caller's, bit for bit) */
        a = u1 < 0.0 ? -u1 : u1, b = u1 < 0.0 ? -u2 : u2;
        if (fabs(b) > DIAGC__FRICTION_SNAP * a) fr[2 * k] = a / r, fr[2 * k + 1] = b / r;
        turned++;
        if (hold) hold[k] = diagc__friction_sliding(p, k, v);
      }
    }
    if (ut && fr[2 * k + 1] == 0.0) { /* u* in the frame */
      ut[2 * k] = u1, ut[2 * k + 1] = u2;
    } else if (ut) {
      ut[2 * k] = fr[2 * k] * u1 + fr[2 * k + 1] * u2;
      ut[2 * k + 1] = -fr[2 * k + 1] * u1 + fr[2 * k] * u2;
    }
  }
  return turned;
}

int diagc__friction_sliding(const diagc_contact_problem *p, int k, const double *v) {
  double a, b;
  diagc__tangent_dots(p, k, v, &a, &b);
  return a * a + b * b > DIAGC__FRICTION_SLIDE_TOL * DIAGC__FRICTION_SLIDE_TOL;
}

int diagc__friction_at_bound(double mu, const double xr[3]) {
  return xr[0] > 0.0 && fabs(xr[1]) >= mu * xr[0] * (1.0 - DIAGC__FRICTION_BOUND_TOL);
}

int diagc__friction_release(const diagc_contact_problem *p, const contact_ws *w, int isl, const double *x,
                            int *hold) {
  int a, n = 0;
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) {
    int k = w->list[a];
    if (!hold[k] || !(x[3 * k] > 0.0) || diagc__friction_at_bound(p->mu[k], x + 3 * k)) continue;
    hold[k] = 0; /* it stopped along t1' */
    n++;
  }
  return n;
}

/* 1 when frame k is not the default one */
static int turned(const double *fr, int k) { return fr && (fr[2 * k] != 1.0 || fr[2 * k + 1] != 0.0); }

void diagc__friction_turn(const double *fr, int nc, double *x, int back) {
  int k;
  for (k = 0; k < nc; k++) {
    double c, s, a, b;
    if (!turned(fr, k)) continue;
    c = fr[2 * k], s = back ? -fr[2 * k + 1] : fr[2 * k + 1];
    a = isfinite(x[3 * k + 1]) ? x[3 * k + 1] : 0.0; /* a non-finite warm start reads as 0 */
    b = isfinite(x[3 * k + 2]) ? x[3 * k + 2] : 0.0;
    x[3 * k + 1] = c * a + s * b;
    x[3 * k + 2] = -s * a + c * b;
  }
}

void diagc__friction_turn_block(const double *fr, int k, int l, double B[9]) {
  int i;
  if (turned(fr, k)) { /* rows: B <- R_k B */
    double c = fr[2 * k], s = fr[2 * k + 1];
    for (i = 0; i < 3; i++) {
      double a = B[3 + i], b = B[6 + i];
      B[3 + i] = c * a + s * b;
      B[6 + i] = -s * a + c * b;
    }
  }
  if (turned(fr, l)) { /* columns: B <- B R_l^T */
    double c = fr[2 * l], s = fr[2 * l + 1];
    for (i = 0; i < 3; i++) {
      double a = B[3 * i + 1], b = B[3 * i + 2];
      B[3 * i + 1] = c * a + s * b;
      B[3 * i + 2] = -s * a + c * b;
    }
  }
}

void diagc__friction_turn_island(const double *fr, const int *rows, int m, double *A) {
  int r, i;
  for (r = 0; r + 2 < m; r++) {
    int k = rows[r] / 3;
    double c, s;
    if (rows[r] % 3 != 0 || rows[r + 1] != rows[r] + 1 || !turned(fr, k)) continue;
    c = fr[2 * k], s = fr[2 * k + 1];
    for (i = 0; i < m; i++) { /* rows r + 1, r + 2 */
      double *a = A + (size_t)(r + 1) * (size_t)m + i, *b = a + m, t = *a;
      *a = c * t + s * *b;
      *b = -s * t + c * *b;
    }
    for (i = 0; i < m; i++) { /* columns r + 1, r + 2 */
      double *a = A + (size_t)i * (size_t)m + (size_t)(r + 1), t = a[0];
      a[0] = c * t + s * a[1];
      a[1] = -s * t + c * a[1];
    }
  }
}

int diagc__friction_outside(const diagc_contact_problem *p, const double *x) {
  int k, n = 0;
  for (k = 0; k < p->nc; k++) {
    double xn = x[3 * k], lim = p->mu[k] * xn * (1.0 + DIAGC__FRICTION_CONE_TOL);
    if (!(p->mu[k] > 0.0) || !(xn > 0.0)) continue;
    if (x[3 * k + 1] * x[3 * k + 1] + x[3 * k + 2] * x[3 * k + 2] > lim * lim) n++;
  }
  return n;
}

/* ---- rows in the turned frames (fr may be NULL: the default ones) ---- */

double diagc__frow_dot(const diagc_contact_problem *p, const double *fr, int r, const double *y) {
  int k = r / 3, t = r % 3;
  double a, b;
  if (t == 0 || !turned(fr, k)) return diagc__row_dot(p, r, y);
  a = diagc__row_dot(p, 3 * k + 1, y), b = diagc__row_dot(p, 3 * k + 2, y);
  return t == 1 ? fr[2 * k] * a + fr[2 * k + 1] * b : -fr[2 * k + 1] * a + fr[2 * k] * b;
}

double diagc__frow_mdiag(const diagc_contact_problem *p, const double *fr, int r) {
  int k = r / 3, t = r % 3;
  double c, s, a11, a22, a12;
  if (t == 0 || !turned(fr, k)) return diagc__row_mrow(p, r, r);
  c = fr[2 * k], s = fr[2 * k + 1];
  a11 = diagc__row_mrow(p, 3 * k + 1, 3 * k + 1), a22 = diagc__row_mrow(p, 3 * k + 2, 3 * k + 2);
  a12 = diagc__row_mrow(p, 3 * k + 1, 3 * k + 2) + diagc__row_mrow(p, 3 * k + 2, 3 * k + 1);
  return t == 1 ? c * c * a11 + c * s * a12 + s * s * a22 : s * s * a11 - c * s * a12 + c * c * a22;
}

void diagc__frow_axpy(const diagc_contact_problem *p, const double *fr, int r, double a, double *y) {
  int k = r / 3, t = r % 3;
  double c, s;
  if (t == 0 || !turned(fr, k)) {
    diagc__row_axpy(p, r, a, y);
    return;
  }
  c = fr[2 * k], s = fr[2 * k + 1]; /* row t1' = c t1 + s t2, t2' = -s t1 + c t2 */
  diagc__row_axpy(p, 3 * k + 1, t == 1 ? c * a : -s * a, y);
  diagc__row_axpy(p, 3 * k + 2, t == 1 ? s * a : c * a, y);
}
