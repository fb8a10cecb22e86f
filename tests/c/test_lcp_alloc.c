/* No heap allocation inside diagc_lcp_solve, whatever path it takes
 * (active set, PGS-started re-pivot, Lemke, continuation in mu, PGS).
 *
 * The interposer is the one of test_simulator_alloc.c: malloc, calloc,
 * realloc, aligned_alloc and posix_memalign defined here take precedence
 * over libc's (and the sanitizer's), forward through dlsym(RTLD_NEXT) and
 * count the calls made while `counting` is set; allocations before main()
 * come from a static buffer. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/lcp.h"
#include "lcp/gen.h"

static volatile long alloc_calls;
static volatile int counting;

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef void *(*aligned_alloc_fn)(size_t, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);

#if defined(__GNUC__) || defined(__clang__)
#define NOSAN __attribute__((no_sanitize("address", "undefined")))
#else
#define NOSAN
#endif

static malloc_fn real_malloc;
static calloc_fn real_calloc;
static realloc_fn real_realloc;
static free_fn real_free;
static aligned_alloc_fn real_aligned_alloc;
static posix_memalign_fn real_posix_memalign;
static int ready; /* set in main() once resolve() ran */

/* Allocations made while dlsym itself is being resolved. */
static _Alignas(16) unsigned char boot_buf[1 << 20];
static size_t boot_used;

NOSAN static void *boot_alloc(size_t n) {
  void *p;
  n = (n + 15) & ~(size_t)15;
  if (boot_used + n > sizeof boot_buf) return NULL;
  p = boot_buf + boot_used;
  boot_used += n;
  return p; /* static storage: already zeroed */
}
NOSAN static int is_boot(const void *p) {
  return (const unsigned char *)p >= boot_buf &&
         (const unsigned char *)p < boot_buf + sizeof boot_buf;
}

#define RESOLVE(var, name)          \
  do {                              \
    void *sym = dlsym(RTLD_NEXT, name); \
    memcpy(&var, &sym, sizeof sym); \
  } while (0)

static void resolve(void) {
  RESOLVE(real_malloc, "malloc");
  RESOLVE(real_calloc, "calloc");
  RESOLVE(real_realloc, "realloc");
  RESOLVE(real_free, "free");
  RESOLVE(real_aligned_alloc, "aligned_alloc");
  RESOLVE(real_posix_memalign, "posix_memalign");
  ready = 1;
}

NOSAN void *malloc(size_t n) {
  if (!ready) return boot_alloc(n);
  if (counting) alloc_calls++;
  return real_malloc(n);
}

NOSAN void *calloc(size_t a, size_t b) {
  if (!ready) return boot_alloc(a * b);
  if (counting) alloc_calls++;
  return real_calloc(a, b);
}

NOSAN void *realloc(void *p, size_t n) {
  if (!ready) {
    void *q = boot_alloc(n);
    if (q && p) memmove(q, p, n); /* boot blocks: over-reading is safe */
    return q;
  }
  if (counting) alloc_calls++;
  if (is_boot(p)) {
    void *q = real_malloc(n);
    if (q) memmove(q, p, n);
    return q;
  }
  return real_realloc(p, n);
}

NOSAN void free(void *p) {
  if (!p || is_boot(p)) return;
  real_free(p);
}

NOSAN void *aligned_alloc(size_t al, size_t n) {
  if (!ready) {
    void *q = al <= 16 ? boot_alloc(n) : NULL;
    return q;
  }
  if (counting) alloc_calls++;
  return real_aligned_alloc(al, n);
}

NOSAN int posix_memalign(void **out, size_t al, size_t n) {
  if (!ready) {
    *out = al <= 16 ? boot_alloc(n) : NULL;
    return *out ? 0 : 12;
  }
  if (counting) alloc_calls++;
  return real_posix_memalign(out, al, n);
}

/* ---- the test ----------------------------------------------------------- */

static _Alignas(64) unsigned char ws[1 << 22];

static void run_counted(const char *name, int nc, int nb, double mu, int nextra, int dup,
                        int method, uint64_t seed) {
  lcpg_spec sp;
  lcpg_problem g;
  diagc_lcp_options o;
  diagc_lcp_stats st;
  double *x;
  int rc;
  long during;
  memset(&sp, 0, sizeof sp);
  sp.nc = nc, sp.nb = nb, sp.mu = mu, sp.nextra = nextra, sp.dup = dup;
  if (lcpg_make(&g, &sp, seed) != 0 || diagc_lcp_workspace_size(g.n) > sizeof ws) {
    printf("FAIL %s: set-up\n", name);
    return;
  }
  x = calloc((size_t)g.n, sizeof(double));
  diagc_lcp_options_init(&o, ws, sizeof ws);
  o.method = method;
  alloc_calls = 0;
  counting = 1;
  rc = diagc_lcp_solve(g.n, g.A, g.b, g.lo, g.hi, g.findex, x, &o, &st);
  counting = 0;
  during = alloc_calls;
  if (during == 0 && rc >= 0)
    printf("ok %s (method %d)\n", name, st.method);
  else
    printf("FAIL %s: %ld allocations (rc %d, method %d)\n", name, during, rc, st.method);
  free(x);
  lcpg_free(&g);
}

int main(void) {
  resolve();
  {
    void *volatile p;
    alloc_calls = 0;
    counting = 1;
    p = malloc(24);
    p = realloc(p, 48);
    free(p);
    p = calloc(3, 8);
    free(p);
    counting = 0;
    if (alloc_calls == 3)
      printf("ok lcp_alloc.interposer_counts\n");
    else
      printf("FAIL lcp_alloc.interposer_counts: counted %ld\n", alloc_calls);
  }
  run_counted("lcp_alloc.auto_small", 2, 1, 0.5, 0, 0, DIAGC_LCP_AUTO, 1);
  run_counted("lcp_alloc.auto_rank_deficient", 12, 2, 1.0, 3, 2, DIAGC_LCP_AUTO, 2);
  run_counted("lcp_alloc.auto_huge_mu", 10, 5, 1e6, 0, 0, DIAGC_LCP_AUTO, 3);
  run_counted("lcp_alloc.pivot", 8, 2, 0.5, 2, 0, DIAGC_LCP_PIVOT, 4);
  run_counted("lcp_alloc.pivot_cycling", 2, 1, 1e6, 0, 0, DIAGC_LCP_PIVOT, 1612);
  run_counted("lcp_alloc.pgs", 8, 2, 0.5, 2, 0, DIAGC_LCP_PGS, 5);
  return 0;
}
