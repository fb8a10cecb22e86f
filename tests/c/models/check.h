/* Tiny check helpers for the tests/c/test_simulator*.c programs: each check
 * prints "ok <name>" or "FAIL <name>: <detail>". */
#ifndef DIAGC_TEST_CHECK_H
#define DIAGC_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int check_failures;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int check(int cond, const char *name, const char *fmt, ...) {
  if (cond) {
    printf("ok %s\n", name);
  } else {
    va_list ap;
    printf("FAIL %s: ", name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    check_failures++;
  }
  fflush(stdout);
  return cond;
}

static int check_exit(void) { return check_failures ? 1 : 0; }

#endif
