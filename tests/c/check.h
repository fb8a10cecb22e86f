/* check.h: the ok/FAIL reporting shared by the C tests that include it.
 *
 * check(cond, name, fmt, ...) prints "ok NAME" or "FAIL NAME: detail" (the
 * line format tests/run counts) and counts failures; main() returns
 * failures != 0.  skip(name, fmt, ...) prints "skip NAME: reason" for a
 * test that cannot run here (counted apart by tests/run).  sleep_us() sleeps without asserting anything about time.
 * Include it once per test program, after defining _POSIX_C_SOURCE. */
#ifndef DIAGC_TESTS_CHECK_H
#define DIAGC_TESTS_CHECK_H
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static int failures;

static void check(int cond, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(int cond, const char *name, const char *fmt, ...) {
  if (cond) {
    printf("ok %s\n", name);
    return;
  }
  failures++;
  printf("FAIL %s: ", name);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

static void skip(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static void skip(const char *name, const char *fmt, ...) {
  printf("skip %s: ", name);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

static void sleep_us(long us) {
  struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
  nanosleep(&ts, NULL);
}

#endif
