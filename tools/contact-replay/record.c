/* record.c: records the contact steps of a world into a file, for
 * contact-replay (see ./run).  Linked with -Wl,--wrap=diagc_contact_solve
 * into a world's program: each step's compact contact problem, options,
 * warm start and workspace size are appended to $CONTACT_RECORD (default
 * contact.rec) when the step took more than $CONTACT_RECORD_US
 * microseconds of CPU time (default 300) or is every 20th, for the first
 * $CONTACT_RECORD_STEPS steps (default 4000).  A developer's tool: the
 * format is this program's and replay.c's, on the same machine and build. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diagc/world.h"

int __real_diagc_contact_solve(const diagc_contact_problem *p, const diagc_contact_options *o, double *x,
                               double *v_next, void *ws, size_t ws_size, diagc_contact_stats *st);
int __wrap_diagc_contact_solve(const diagc_contact_problem *p, const diagc_contact_options *o, double *x,
                               double *v_next, void *ws, size_t ws_size, diagc_contact_stats *st);

static FILE *out;
static long steps;
static int failed;

static double cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void put(const void *a, size_t n) {
  if (n > 0 && !failed && fwrite(a, 1, n, out) != n) {
    fprintf(stderr, "record: cannot write the record file\n");
    failed = 1;
  }
}

static double env_num(const char *name, double dflt) {
  const char *s = getenv(name);
  return s && *s ? atof(s) : dflt;
}

static void record(const diagc_contact_problem *p, const diagc_contact_options *o, const double *x0, double us,
                   size_t ws_size) {
  int nc = p->nc, hdr[4], has_r = p->restitution != NULL, has_b = p->bound != NULL, nd;
  size_t rows = (size_t)3 * (size_t)nc * (size_t)p->width;
  if (!out) {
    const char *fn = getenv("CONTACT_RECORD");
    out = fopen(fn && *fn ? fn : "contact.rec", "ab");
    if (!out) {
      fprintf(stderr, "record: cannot open the record file\n");
      failed = 1;
      return;
    }
  }
  hdr[0] = p->nv, hdr[1] = nc, hdr[2] = p->width, hdr[3] = p->ntrees;
  nd = p->tree_dof0[p->ntrees];
  put(hdr, sizeof hdr);
  put(&p->dt, sizeof p->dt);
  put(&us, sizeof us);
  put(o, sizeof *o);
  put(p->Jc, sizeof(double) * rows);
  put(p->MJc, sizeof(double) * rows);
  put(p->v, sizeof(double) * (size_t)p->nv);
  put(p->vstar, sizeof(double) * (size_t)p->nv);
  put(p->depth, sizeof(double) * (size_t)nc);
  put(p->mu, sizeof(double) * (size_t)nc);
  put(&has_r, sizeof has_r);
  if (has_r) put(p->restitution, sizeof(double) * (size_t)nc);
  put(&has_b, sizeof has_b);
  if (has_b) put(p->bound, sizeof(double) * (size_t)nc);
  put(p->tree, sizeof(int) * 2 * (size_t)nc);
  put(p->tree_dof0, sizeof(int) * ((size_t)p->ntrees + 1));
  put(&nd, sizeof nd);
  put(p->tree_dofs, sizeof(int) * (size_t)nd);
  put(x0, sizeof(double) * 3 * (size_t)nc);
  put(&ws_size, sizeof ws_size);
  if (!failed && fflush(out) != 0) {
    fprintf(stderr, "record: cannot write the record file\n");
    failed = 1;
  }
}

int __wrap_diagc_contact_solve(const diagc_contact_problem *p, const diagc_contact_options *o, double *x,
                               double *v_next, void *ws, size_t ws_size, diagc_contact_stats *st) {
  double *x0 = NULL, t0, us;
  int rc, keep = p && p->Jc && p->nc > 0 && x && o && steps < (long)env_num("CONTACT_RECORD_STEPS", 4000);
  if (keep && (x0 = malloc(sizeof(double) * 3 * (size_t)p->nc)) != NULL)
    memcpy(x0, x, sizeof(double) * 3 * (size_t)p->nc);
  t0 = cpu_us();
  rc = __real_diagc_contact_solve(p, o, x, v_next, ws, ws_size, st);
  us = cpu_us() - t0;
  steps++;
  if (x0 && (us > env_num("CONTACT_RECORD_US", 300.0) || steps % 20 == 0)) record(p, o, x0, us, ws_size);
  free(x0);
  return rc;
}
