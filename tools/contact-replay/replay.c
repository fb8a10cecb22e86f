/* replay.c: solves the contact steps record.c recorded, with the runtime
 * it is linked against, and reports CPU time and quality per file:
 *
 *   replay FILE.rec...
 *
 * Every record is solved from its recorded warm start, so two builds of
 * the contact solver are compared on the same problems (a simulation's
 * trajectory, and with it the problems, would differ after the first
 * step at which they do).  Environment: REPLAY_SLOW (us, default 1000:
 * the threshold of the "slow" count), REPLAY_VERBOSE=1 (a line per slow
 * record), REPLAY_ONE=N (only record N, 1-based), REPLAY_DENSE=1 (the
 * dense reference method). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diagc/world.h"

static double cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int get(FILE *f, void *a, size_t n) { return n == 0 || fread(a, 1, n, f) == n; }

/* n bytes read into a new block (NULL at the end of the file) */
static void *block(FILE *f, size_t n, int *ok) {
  void *p = malloc(n ? n : 8);
  if (!p || !get(f, p, n)) *ok = 0;
  return p;
}

static void *aligned(size_t n) {
  void *p = NULL;
  return posix_memalign(&p, 64, n ? n : 64) == 0 ? p : NULL;
}

typedef struct {
  long n, slow, slow_rec, inexact, bad;
  double total, total_rec, worst, worst_rec, residual;
  uint64_t hash;
} tally;

/* Solves one record; 0 at the end of the file, -1 on a short record. */
static int one(FILE *f, long index, tally *t) {
  int hdr[4], ok = 1, has_r = 0, has_b = 0, nd = 0, i, rc, nv, nc, width, ntrees;
  double dt, us, t0, el;
  diagc_contact_options o;
  diagc_contact_problem p;
  diagc_contact_stats st;
  size_t wss = 0, rows;
  double *Jc, *MJc, *v, *vs, *depth, *mu, *res = NULL, *bound = NULL, *x, *vn;
  int *tree, *d0, *dofs;
  void *ws;
  const char *one_env = getenv("REPLAY_ONE");
  if (!get(f, hdr, sizeof hdr)) return 0;
  nv = hdr[0], nc = hdr[1], width = hdr[2], ntrees = hdr[3];
  if (nv < 0 || nc <= 0 || width < 0 || ntrees < 0 || nc > (1 << 20) || nv > (1 << 24)) return -1;
  rows = (size_t)3 * (size_t)nc * (size_t)width;
  ok = get(f, &dt, sizeof dt) && get(f, &us, sizeof us) && get(f, &o, sizeof o);
  Jc = block(f, sizeof(double) * rows, &ok), MJc = block(f, sizeof(double) * rows, &ok);
  v = block(f, sizeof(double) * (size_t)nv, &ok), vs = block(f, sizeof(double) * (size_t)nv, &ok);
  depth = block(f, sizeof(double) * (size_t)nc, &ok), mu = block(f, sizeof(double) * (size_t)nc, &ok);
  ok = ok && get(f, &has_r, sizeof has_r);
  if (ok && has_r) res = block(f, sizeof(double) * (size_t)nc, &ok);
  ok = ok && get(f, &has_b, sizeof has_b);
  if (ok && has_b) bound = block(f, sizeof(double) * (size_t)nc, &ok);
  tree = block(f, sizeof(int) * 2 * (size_t)nc, &ok), d0 = block(f, sizeof(int) * ((size_t)ntrees + 1), &ok);
  ok = ok && get(f, &nd, sizeof nd) && nd >= 0 && nd <= nv;
  dofs = block(f, sizeof(int) * (size_t)(ok ? nd : 0), &ok);
  x = block(f, sizeof(double) * 3 * (size_t)nc, &ok);
  ok = ok && get(f, &wss, sizeof wss);
  vn = malloc(sizeof(double) * (size_t)(nv ? nv : 1));
  if (ok && getenv("REPLAY_DENSE")) {
    o.method = DIAGC_CONTACT_DENSE;
    wss = diagc_contact_compact_workspace_size(nv, nc, DIAGC_CONTACT_DENSE);
  }
  ws = ok ? aligned(wss) : NULL;
  if (ok && ws && vn && (!one_env || atol(one_env) == index)) {
    memset(&p, 0, sizeof p);
    p.nv = nv, p.nc = nc, p.width = width, p.ntrees = ntrees, p.dt = dt;
    p.Jc = Jc, p.MJc = MJc, p.v = v, p.vstar = vs, p.depth = depth, p.mu = mu, p.restitution = res, p.bound = bound;
    p.tree = tree, p.tree_dof0 = d0, p.tree_dofs = dofs;
    t0 = cpu_us();
    rc = diagc_contact_solve(&p, &o, x, vn, ws, wss, &st);
    el = cpu_us() - t0;
    double slow = getenv("REPLAY_SLOW") ? atof(getenv("REPLAY_SLOW")) : 1000.0;
    t->n++, t->total += el, t->total_rec += us;
    t->slow += el > slow, t->slow_rec += us > slow;
    if (el > t->worst) t->worst = el;
    if (us > t->worst_rec) t->worst_rec = us;
    t->inexact += st.inexact;
    t->bad += rc != DIAGC_OK && rc != DIAGC_LCP_SOLVED_TOL;
    if (st.residual > t->residual) t->residual = st.residual;
    for (i = 0; i < 3 * nc; i++) {
      uint64_t b;
      memcpy(&b, &x[i], sizeof b);
      t->hash = (t->hash ^ b) * 1099511628211ull;
    }
    if (getenv("REPLAY_VERBOSE") && (el > slow || us > slow))
      printf("  record %ld: %d contacts, rows %d (largest island %d): %.0f us (recorded %.0f), inexact %d, "
             "status %d, residual %.2e, re-solves %d, held %d\n",
             index, nc, st.rows, st.largest, el, us, st.inexact, rc, st.residual, st.friction_resolves,
             st.friction_held);
  }
  free(Jc), free(MJc), free(v), free(vs), free(depth), free(mu), free(res), free(bound), free(tree), free(d0), free(dofs);
  free(x), free(vn), free(ws);
  return ok ? 1 : -1;
}

int main(int argc, char **argv) {
  int a, status = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: replay FILE.rec...\n");
    return 2;
  }
  for (a = 1; a < argc; a++) {
    FILE *f = fopen(argv[a], "rb");
    tally t;
    long index = 0;
    int r;
    if (!f) {
      fprintf(stderr, "replay: cannot open %s\n", argv[a]);
      status = 1;
      continue;
    }
    memset(&t, 0, sizeof t);
    t.hash = 1469598103934665603ull;
    while ((r = one(f, ++index, &t)) == 1) {
    }
    if (r < 0) {
      fprintf(stderr, "replay: %s: record %ld is short or malformed\n", argv[a], index);
      status = 1;
    }
    fclose(f);
    printf("%s: %ld steps, %.1f ms (recorded %.1f), slow %ld (recorded %ld), worst %.0f us (recorded %.0f), "
           "inexact islands %ld, failed steps %ld, largest residual %.2e, impulses hash %016llx\n",
           argv[a], t.n, t.total / 1e3, t.total_rec / 1e3, t.slow, t.slow_rec, t.worst, t.worst_rec, t.inexact, t.bad,
           t.residual, (unsigned long long)t.hash);
  }
  return status;
}
