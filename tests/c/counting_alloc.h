/* counting_alloc.h: a malloc interposer for the no-allocation tests.
 *
 * Defining malloc, calloc, realloc, aligned_alloc and posix_memalign in the
 * test program makes them take precedence over libc's (and over the
 * sanitizer's, to which they forward through dlsym(RTLD_NEXT)).  Every call
 * made while `counting` is set increments `alloc_calls`.  Call resolve()
 * first thing in main(); before that (dynamic loader, sanitizer start-up)
 * allocations come from a static buffer, and the interposer itself is not
 * instrumented: it runs before AddressSanitizer has set up its shadow
 * memory.  Include it once, in a program compiled with _GNU_SOURCE defined
 * before any header. */
#ifndef DIAGC_TESTS_COUNTING_ALLOC_H
#define DIAGC_TESTS_COUNTING_ALLOC_H
#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any #include (dlsym's RTLD_NEXT)"
#endif
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

/* The number of calls counted for one malloc, realloc and calloc (3 when
 * the interposer works). */
static long counting_self_check(void) {
  void *volatile p;
  alloc_calls = 0;
  counting = 1;
  p = malloc(24);
  p = realloc(p, 48);
  free(p);
  p = calloc(3, 8);
  free(p);
  counting = 0;
  return alloc_calls;
}

#endif
