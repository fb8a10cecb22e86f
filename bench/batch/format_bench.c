/* bench/batch/format_bench.c: nanoseconds per number of diagc_format_double
 * (runtime/src/fmt_double.c) against diagc_fmt_printf, the snprintf/strtod
 * loop that defines its bytes (runtime/src/fmt_printf.c), on three sets of
 * doubles:
 *
 *   sweep   what a sweep's CSVs hold: times k 0.01 and 17-digit states
 *   nice    short decimals k / 1000
 *   bits    random bit patterns (any exponent)
 *
 * Usage: format_bench REPS.  Prints per set "set N printf_ns fast_ns same"
 * (best of REPS, process CPU time), "same" = 1 when every text matched. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../runtime/src/fmt_double.h"
#include "diagc/csv.h"

#define N 200000

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static void fill(const char *set, double *v) {
  uint64_t s = 42;
  int i;
  for (i = 0; i < N; i++) {
    if (!strcmp(set, "sweep")) {
      const int k = i / 3 % 201;
      v[i] = i % 3 == 0 ? 0.01 * k
           : i % 3 == 1 ? 0.5 * cos(0.031 * k + 1e-3 * (i / 603))
                        : 1.2 - 1e-4 * sin(0.017 * k) * (1 + 1e-3 * (i / 603));
    } else if (!strcmp(set, "nice")) {
      v[i] = (double)(splitmix(&s) % 1000000u) / 1000.0;
    } else {
      uint64_t b = splitmix(&s);
      memcpy(&v[i], &b, sizeof b);
    }
  }
}

int main(int argc, char **argv) {
  static const char *const sets[] = {"sweep", "nice", "bits"};
  static double v[N];
  static char a[N][DIAGC_DOUBLE_BUFSIZE], b[N][DIAGC_DOUBLE_BUFSIZE];
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  int si, r, i;
  for (si = 0; si < 3; si++) {
    double best_p = 1e30, best_f = 1e30;
    int same = 1;
    fill(sets[si], v);
    for (r = 0; r < reps; r++) {
      double t0 = cpu_s(), t1, t2;
      for (i = 0; i < N; i++) diagc_fmt_printf(a[i], v[i]);
      t1 = cpu_s();
      for (i = 0; i < N; i++) diagc_format_double(b[i], sizeof b[i], v[i]);
      t2 = cpu_s();
      if (t1 - t0 < best_p) best_p = t1 - t0;
      if (t2 - t1 < best_f) best_f = t2 - t1;
    }
    for (i = 0; i < N; i++) same &= strcmp(a[i], b[i]) == 0;
    printf("%s %d %.1f %.1f %d\n", sets[si], N, 1e9 * best_p / N, 1e9 * best_f / N, same);
  }
  return 0;
}
