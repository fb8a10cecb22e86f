/* Internal: the double formatter behind diagc_format_double (diagc/csv.h).
 *
 * diagc_fmt_printf() is the definition: the shortest "%.Ng" (N = 1..17)
 * that strtod reads back to v, a fixed form of a larger N winning over an
 * exponential one when shorter -- snprintf and strtod, N by N.
 * diagc_fmt_shortest() gives the same bytes from exact integer arithmetic
 * on v = m 2^e (fmt_double.c), and says so when it cannot decide (then
 * diagc_format_double calls diagc_fmt_printf).
 * tests/c/test_format_double.c compares the two.
 */
#ifndef DIAGC_FMT_DOUBLE_H
#define DIAGC_FMT_DOUBLE_H

#include <stdint.h>

/* Longest text either writes, plus the NUL ("-2.2250738585072014e-308"). */
#define DIAGC_FMT_MAX 32

/* Both write v's text and a NUL into out (DIAGC_FMT_MAX bytes) and return
 * its length; diagc_fmt_shortest returns -1 (out unspecified) when its
 * table's rounding leaves a floor undecided. */
int diagc_fmt_printf(char *out, double v);
int diagc_fmt_shortest(char *out, double v);

/* The table of fmt_pow10.c (scripts/gen_fmt_pow10.py): entry q - Q_MIN is
 * {high, low} of ceil(2^K(q) / 10^q), in [2^127, 2^128), where
 * K(q) = diagc_fmt_pow10_shift(q). */
#define DIAGC_FMT_Q_MIN (-342)
#define DIAGC_FMT_Q_MAX 293
extern const uint64_t diagc_fmt_pow10[DIAGC_FMT_Q_MAX - DIAGC_FMT_Q_MIN + 1][2];

/* K(q): 127 for q = 0, else 128 + floor(q log2 10); |q| <= 400. */
int diagc_fmt_pow10_shift(int q);
/* floor(x log10 2), for -1100 <= x <= 1100. */
int diagc_fmt_floor_log10_pow2(int x);

#endif
