/* The definition of diagc_format_double's text (diagc/csv.h), by snprintf
 * and strtod: the shortest "%.Ng" (N = 1..17) that reads back to v.  Slow
 * (several snprintf and strtod calls a number); diagc_fmt_shortest
 * (fmt_double.c) gives the same bytes fast and falls back to this. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_double.h"

int diagc_fmt_printf(char *out, double v) {
  char tmp[40], best[40];
  int best_len = -1, n;

  if (isnan(v)) {
    strcpy(best, "nan");
    best_len = 3;
  } else if (isinf(v)) {
    strcpy(best, v > 0 ? "inf" : "-inf");
    best_len = v > 0 ? 3 : 4;
  } else {
    int start = 1, ex;
    /* Fast path: the nearest 15-digit decimal is at least as close to v as
     * any shorter one, so if it does not round-trip no shorter one does --
     * unless v is a power of two, whose rounding interval is asymmetric. */
    if (frexp(fabs(v), &ex) != 0.5) {
      int len = snprintf(tmp, sizeof tmp, "%.15g", v);
      if (len > 0 && len < (int)sizeof tmp && strtod(tmp, NULL) != v)
        start = 16;
    }
    for (n = start; n <= 17; n++) {
      int len = snprintf(tmp, sizeof tmp, "%.*g", n, v);
      const char *e;
      if (len < 0 || len >= (int)sizeof tmp) continue;
      if (strtod(tmp, NULL) != v) continue;
      if (best_len < 0 || len < best_len) {
        memcpy(best, tmp, (size_t)len + 1);
        best_len = len;
      }
      e = strchr(tmp, 'e');
      if (!e) break; /* fixed form: a larger N is never shorter */
      {
        /* Exponential form with exponent x: forms of N in (n, x] are
         * exponential and no shorter; a fixed form starts at N = x + 1. */
        int x = atoi(e + 1);
        if (x < 0 || x + 1 > 17) break;
        if (x + 1 > n + 1) n = x; /* loop increment makes it x + 1 */
      }
    }
    if (best_len < 0) { /* cannot happen: %.17g always round-trips */
      best_len = snprintf(best, sizeof best, "%.17g", v);
    }
  }
  if (best_len >= DIAGC_FMT_MAX) best_len = DIAGC_FMT_MAX - 1; /* cannot happen */
  memcpy(out, best, (size_t)best_len);
  out[best_len] = 0;
  return best_len;
}
