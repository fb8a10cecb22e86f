/* tests/c/lcp/gen.h: contact-like boxed LCP problems, shared by
 * tests/c/test_lcp*.c and bench/lcp (C99; also compiles as C++).
 *
 * A problem comes from a small rigid-body scene: nb free bodies (6 dof
 * each, diagonal mass and inertia), nc point contacts, each touching one
 * body (against the ground) or two.  Contact k contributes the rows
 * [normal, tangent1, tangent2] (DART's layout) with Jacobian rows
 * [d, r x d] per body (minus for the second body), so A = J M^-1 J^T is
 * symmetric positive semidefinite (rank-deficient once 3 nc > 6 nb) and
 * b = -J v* for random body velocities v*: w = A x - b is the contact
 * velocity after the impulse x.  Normal rows: [0, inf), findex -1;
 * tangent rows: [-mu, mu] (or asymmetric [-mu a, mu c]) times the normal.
 * Optional extra rows with constant bounds (joint-limit-like).
 *
 * Everything is allocated with malloc; free with lcpg_free.
 */
#ifndef DIAGC_TESTS_LCP_GEN_H
#define DIAGC_TESTS_LCP_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int n;        /* rows */
  int nc;       /* contacts (their rows come first, 3 per contact) */
  double *A, *b, *lo, *hi;
  int *findex;
} lcpg_problem;

/* The scene behind a problem (tests/c/test_contact.c builds contact steps
 * from it): J (n x ndof), the diagonal of M^-1 (ndof), v* (ndof). */
typedef struct {
  int ndof;
  double *J, *minv, *vstar;
} lcpg_scene;

typedef struct {
  int nc;         /* contacts */
  int nb;         /* bodies (>= 1) */
  double mu;      /* friction coefficient */
  int asym;       /* 1: tangent bounds [-mu a, mu c], a, c in [0.2, 1] */
  int nextra;     /* extra constant-bound rows after the contacts */
  int dup;        /* contacts duplicated (each copy of an earlier one) */
  double v_up;    /* bias added to the normal approach speed (> 0 separates) */
  lcpg_scene *scene; /* not NULL: receives the scene (free: lcpg_scene_free) */
} lcpg_spec;

static inline void lcpg_scene_free(lcpg_scene *sc) {
  free(sc->J);
  free(sc->minv);
  free(sc->vstar);
  memset(sc, 0, sizeof *sc);
}

static uint64_t lcpg_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double lcpg_unif(uint64_t *s) { /* [0, 1) */
  return (double)(lcpg_next(s) >> 11) * (1.0 / 9007199254740992.0);
}
static double lcpg_range(uint64_t *s, double a, double b) {
  return a + (b - a) * lcpg_unif(s);
}

static void lcpg_free(lcpg_problem *p) {
  free(p->A);
  free(p->b);
  free(p->lo);
  free(p->hi);
  free(p->findex);
  memset(p, 0, sizeof *p);
}

static void lcpg_cross(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

static void lcpg_unit(uint64_t *s, double *v) {
  double r;
  do {
    v[0] = lcpg_range(s, -1, 1);
    v[1] = lcpg_range(s, -1, 1);
    v[2] = lcpg_range(s, -1, 1);
    r = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  } while (r < 0.1 || r > 1.0);
  v[0] /= r, v[1] /= r, v[2] /= r;
}

/* Fills p; returns 0, or -1 on allocation failure. */
static int lcpg_make(lcpg_problem *p, const lcpg_spec *sp, uint64_t seed) {
  uint64_t s = seed * 0x2545F4914F6CDD1Dull + 12345u;
  int nc = sp->nc, nb = sp->nb > 0 ? sp->nb : 1, ndof = 6 * nb;
  int n = 3 * nc + sp->nextra, i, j, k, d;
  double *J, *minv, *vstar;
  memset(p, 0, sizeof *p);
  p->n = n;
  p->nc = nc;
  p->A = (double *)calloc((size_t)n * n + 1, sizeof(double));
  p->b = (double *)calloc((size_t)n + 1, sizeof(double));
  p->lo = (double *)calloc((size_t)n + 1, sizeof(double));
  p->hi = (double *)calloc((size_t)n + 1, sizeof(double));
  p->findex = (int *)calloc((size_t)n + 1, sizeof(int));
  J = (double *)calloc((size_t)n * ndof + 1, sizeof(double));
  minv = (double *)calloc((size_t)ndof, sizeof(double));
  vstar = (double *)calloc((size_t)ndof, sizeof(double));
  if (!p->A || !p->b || !p->lo || !p->hi || !p->findex || !J || !minv || !vstar) {
    free(J), free(minv), free(vstar);
    lcpg_free(p);
    return -1;
  }
  for (i = 0; i < nb; i++) {
    double m = lcpg_range(&s, 0.5, 2.0);
    for (d = 0; d < 3; d++) minv[6 * i + d] = 1.0 / m;
    for (d = 3; d < 6; d++) minv[6 * i + d] = 1.0 / (m * lcpg_range(&s, 0.05, 0.3));
    for (d = 0; d < 6; d++) vstar[6 * i + d] = lcpg_range(&s, -1, 1);
  }
  for (k = 0; k < nc; k++) {
    double nrm[3], t1[3], t2[3], tmp[3], r;
    double *dirs[3];
    int body[2], nbody, src = -1;
    if (sp->dup > 0 && k >= nc - sp->dup && k > 0) src = (int)(lcpg_next(&s) % (uint64_t)(nc - sp->dup > 0 ? nc - sp->dup : 1));
    if (src >= 0) { /* an exact duplicate of contact src */
      for (i = 0; i < 3; i++) memcpy(J + (size_t)(3 * k + i) * ndof, J + (size_t)(3 * src + i) * ndof, sizeof(double) * ndof);
      continue;
    }
    lcpg_unit(&s, nrm);
    /* tangents: any orthonormal pair */
    tmp[0] = fabs(nrm[0]) < 0.6 ? 1.0 : 0.0;
    tmp[1] = tmp[0] == 1.0 ? 0.0 : 1.0;
    tmp[2] = 0.0;
    lcpg_cross(nrm, tmp, t1);
    r = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    t1[0] /= r, t1[1] /= r, t1[2] /= r;
    lcpg_cross(nrm, t1, t2);
    dirs[0] = nrm, dirs[1] = t1, dirs[2] = t2;
    body[0] = (int)(lcpg_next(&s) % (uint64_t)nb);
    nbody = 1;
    if (nb > 1 && lcpg_unif(&s) < 0.3) {
      body[1] = (body[0] + 1 + (int)(lcpg_next(&s) % (uint64_t)(nb - 1))) % nb;
      nbody = 2;
    }
    for (j = 0; j < nbody; j++) {
      double rr[3], sg = j == 0 ? 1.0 : -1.0;
      for (d = 0; d < 3; d++) rr[d] = lcpg_range(&s, -0.5, 0.5);
      for (i = 0; i < 3; i++) {
        double *row = J + (size_t)(3 * k + i) * ndof + 6 * body[j], c[3];
        lcpg_cross(rr, dirs[i], c);
        for (d = 0; d < 3; d++) row[d] += sg * dirs[i][d];
        for (d = 0; d < 3; d++) row[3 + d] += sg * c[d];
      }
    }
  }
  for (k = 0; k < sp->nextra; k++) { /* constant-bound rows on one body */
    double dir[3], rr[3], c[3];
    int bo = (int)(lcpg_next(&s) % (uint64_t)nb);
    double *row = J + (size_t)(3 * nc + k) * ndof + 6 * bo;
    lcpg_unit(&s, dir);
    for (d = 0; d < 3; d++) rr[d] = lcpg_range(&s, -0.5, 0.5);
    lcpg_cross(rr, dir, c);
    for (d = 0; d < 3; d++) row[d] = dir[d], row[3 + d] = c[d];
  }
  /* A = J M^-1 J^T, b = -J v* (normal rows biased by v_up) */
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++) {
      double a = 0.0;
      for (d = 0; d < ndof; d++) a += J[(size_t)i * ndof + d] * minv[d] * J[(size_t)j * ndof + d];
      p->A[(size_t)i * n + j] = p->A[(size_t)j * n + i] = a;
    }
    {
      double v = 0.0;
      for (d = 0; d < ndof; d++) v += J[(size_t)i * ndof + d] * vstar[d];
      p->b[i] = -v;
    }
  }
  for (k = 0; k < nc; k++) {
    double a = 1.0, c = 1.0;
    p->b[3 * k] -= sp->v_up;
    if (sp->asym) {
      a = lcpg_range(&s, 0.2, 1.0);
      c = lcpg_range(&s, 0.2, 1.0);
    }
    p->lo[3 * k] = 0.0;
    p->hi[3 * k] = INFINITY;
    p->findex[3 * k] = -1;
    for (i = 1; i < 3; i++) {
      p->lo[3 * k + i] = -sp->mu * a;
      p->hi[3 * k + i] = sp->mu * c;
      p->findex[3 * k + i] = 3 * k;
    }
  }
  for (k = 0; k < sp->nextra; k++) {
    int r = 3 * nc + k;
    double f = lcpg_range(&s, 0.05, 0.5);
    p->findex[r] = -1;
    switch (k % 3) {
    case 0: p->lo[r] = -f, p->hi[r] = f; break;        /* motor-like  */
    case 1: p->lo[r] = 0.0, p->hi[r] = INFINITY; break; /* limit-like  */
    default: p->lo[r] = -INFINITY, p->hi[r] = INFINITY; break; /* joint */
    }
  }
  if (sp->scene) {
    sp->scene->ndof = ndof, sp->scene->J = J, sp->scene->minv = minv, sp->scene->vstar = vstar;
    return 0;
  }
  free(J), free(minv), free(vstar);
  return 0;
}

#endif /* DIAGC_TESTS_LCP_GEN_H */
