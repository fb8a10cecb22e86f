/* diagc_format_double (runtime/src/fmt_double.c) against its definition,
 * diagc_fmt_printf (runtime/src/fmt_printf.c: snprintf "%.Ng" and strtod,
 * N by N): the same bytes on edge cases and on seeded random doubles.
 * Also checks, with big integers of its own, every entry of the table of
 * powers of ten (runtime/src/fmt_pow10.c) and the exponent estimates.
 *
 * DIAGC_FMT_SCALE=k multiplies the random counts by k (a long one-off
 * run; DIAGC_FMT_SEED=s changes the seed). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/src/fmt_double.h"
#include "check.h"
#include "diagc/csv.h"
#include "diagc/status.h"

/* ---- big integers: little-endian 32-bit limbs --------------------------- */
#define LIMBS 96 /* 3072 bits */
typedef struct {
  uint32_t l[LIMBS];
} big;

static void big_set(big *a, uint64_t v) {
  memset(a, 0, sizeof *a);
  a->l[0] = (uint32_t)v;
  a->l[1] = (uint32_t)(v >> 32);
}

/* a *= k; returns 0 on overflow */
static int big_mul_small(big *a, uint32_t k) {
  uint64_t carry = 0;
  int i;
  for (i = 0; i < LIMBS; i++) {
    const uint64_t p = (uint64_t)a->l[i] * k + carry;
    a->l[i] = (uint32_t)p;
    carry = p >> 32;
  }
  return carry == 0;
}

static int big_mul_pow(big *a, uint32_t base, int n) {
  int ok = 1;
  while (n-- > 0) ok &= big_mul_small(a, base);
  return ok;
}

/* a = b * (hi 2^64 + lo) */
static int big_mul_128(big *a, const big *b, uint64_t hi, uint64_t lo) {
  const uint32_t w[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32)};
  uint64_t acc[LIMBS + 5];
  int i, j;
  memset(acc, 0, sizeof acc);
  for (i = 0; i < LIMBS; i++) {
    uint64_t carry = 0;
    if (!b->l[i]) continue;
    for (j = 0; j < 4; j++) {
      const uint64_t p = (uint64_t)b->l[i] * w[j] + (acc[i + j] & 0xffffffffu) + carry;
      acc[i + j] = p & 0xffffffffu;
      carry = p >> 32;
    }
    for (j = i + 4; carry; j++) {
      const uint64_t p = acc[j] + carry;
      acc[j] = p & 0xffffffffu;
      carry = p >> 32;
    }
  }
  for (i = LIMBS; i < LIMBS + 5; i++)
    if (acc[i]) return 0;
  for (i = 0; i < LIMBS; i++) a->l[i] = (uint32_t)acc[i];
  return 1;
}

static int big_cmp(const big *a, const big *b) {
  int i;
  for (i = LIMBS - 1; i >= 0; i--)
    if (a->l[i] != b->l[i]) return a->l[i] < b->l[i] ? -1 : 1;
  return 0;
}

/* 2^a 10^b as a big integer (a, b >= 0) */
static int big_pow(big *r, int a, int b) {
  big_set(r, 1);
  return big_mul_pow(r, 2, a) & big_mul_pow(r, 10, b);
}

static int imax(int a, int b) { return a > b ? a : b; }

/* Every entry T(q) is ceil(2^K / 10^q) with K = diagc_fmt_pow10_shift(q)
 * and 2^127 <= T < 2^128: T den >= num > (T - 1) den, with 2^K / 10^q =
 * num / den in integers. */
static void test_table(void) {
  int q, bad = 0;
  for (q = DIAGC_FMT_Q_MIN; q <= DIAGC_FMT_Q_MAX; q++) {
    const uint64_t *t = diagc_fmt_pow10[q - DIAGC_FMT_Q_MIN];
    const int k = diagc_fmt_pow10_shift(q);
    big num, den, hi, lo;
    uint64_t thi = t[0], tlo = t[1];
    int ok = big_pow(&num, imax(k, 0), imax(-q, 0)) & big_pow(&den, imax(-k, 0), imax(q, 0));
    ok &= big_mul_128(&hi, &den, thi, tlo);
    if (tlo-- == 0) thi--;
    ok &= big_mul_128(&lo, &den, thi, tlo);
    ok &= (t[0] >> 63) == 1 && big_cmp(&hi, &num) >= 0 && big_cmp(&lo, &num) < 0;
    if (!ok && bad++ < 5) printf("# table entry q = %d (K = %d) is not ceil(2^K / 10^q)\n", q, k);
  }
  check(bad == 0, "format_double.pow10_table", "%d of %d entries wrong", bad,
        DIAGC_FMT_Q_MAX - DIAGC_FMT_Q_MIN + 1);
}

/* sign of 2^x - 10^k */
static int cmp_pow2_pow10(int x, int k) {
  big l, r;
  big_pow(&l, imax(x, 0), imax(-k, 0));
  big_pow(&r, imax(-x, 0), imax(k, 0));
  return big_cmp(&l, &r);
}

/* floor(x log10 2): 10^k <= 2^x < 10^(k+1) for every binary exponent of a
 * double (and some beyond) */
static void test_log10(void) {
  int x, bad = 0;
  for (x = -1100; x <= 1100; x++) {
    const int k = diagc_fmt_floor_log10_pow2(x);
    if (!(cmp_pow2_pow10(x, k) >= 0 && cmp_pow2_pow10(x, k + 1) < 0) && bad++ < 5)
      printf("# floor(%d log10 2) computed as %d\n", x, k);
  }
  check(bad == 0, "format_double.floor_log10_pow2", "%d wrong", bad);
}

/* ---- comparison with the definition ------------------------------------ */
typedef struct {
  long n, bad, undecided;
} tally;

static void compare(tally *t, double v) {
  char want[DIAGC_FMT_MAX], got[DIAGC_FMT_MAX], fast[DIAGC_FMT_MAX];
  const int nw = diagc_fmt_printf(want, v);
  const int ng = diagc_format_double(got, sizeof got, v);
  const int nf = diagc_fmt_shortest(fast, v);
  t->n++;
  if (nf < 0) t->undecided++;
  if (ng != nw || strcmp(got, want) != 0 || (nf >= 0 && (nf != nw || strcmp(fast, want) != 0))) {
    if (t->bad < 10)
      printf("# %a (%.17g): '%s' (%d), the definition '%s' (%d)\n", v, v,
             nf >= 0 ? fast : got, nf >= 0 ? nf : ng, want, nw);
    t->bad++;
  }
}

static void report(const char *name, const tally *t) {
  printf("# %s: %ld values, %ld undecided by the fast path\n", name, t->n, t->undecided);
  check(t->bad == 0, name, "%ld of %ld values differ from the definition", t->bad, t->n);
}

static double from_bits(uint64_t b) {
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

static uint64_t to_bits(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

/* v and its k neighbours on each side (of the same sign) */
static void around(tally *t, double v, int k) {
  const uint64_t b = to_bits(v);
  int i;
  for (i = -k; i <= k; i++) {
    const uint64_t c = b + (uint64_t)(int64_t)i;
    if ((c ^ b) >> 63) continue; /* crossed zero */
    compare(t, from_bits(c));
    compare(t, -from_bits(c));
  }
}

static double parse(const char *fmt, double a, int e) {
  char s[64];
  snprintf(s, sizeof s, fmt, a, e);
  return strtod(s, NULL);
}

static void test_edges(void) {
  tally t = {0, 0, 0};
  char small[4], exact[6];
  int i, j, e;
  compare(&t, 0.0);
  compare(&t, -0.0);
  compare(&t, NAN);
  compare(&t, -NAN);
  compare(&t, INFINITY);
  compare(&t, -INFINITY);
  compare(&t, from_bits(0x7ff0000000000001u)); /* signalling NaN bits */
  around(&t, DBL_MAX, 3);
  around(&t, DBL_MIN, 3);
  around(&t, from_bits(1), 3);                    /* the least subnormal */
  around(&t, from_bits(0x000fffffffffffffu), 3); /* the largest one */
  for (e = -1074; e <= 1023; e++) around(&t, ldexp(1.0, e), 2);
  /* powers of ten and the %g switches (exponent -5/-4, N/N+1 digits) */
  for (e = -324; e <= 308; e++) around(&t, parse("%ge%d", 1.0, e), 3);
  /* 9.5-style boundaries: 9.5, 9.95, ..., 9.99...95 and 99.5-like at every
   * exponent, where rounding to fewer digits carries to a power of ten */
  for (j = 1; j <= 17; j++) {
    char m[32];
    memset(m, '9', (size_t)j);
    m[0] = '9';
    m[j] = '5';
    m[j + 1] = 0;
    for (e = -330; e <= 310; e += (e > -20 && e < 25) ? 1 : 7) {
      char s[64];
      snprintf(s, sizeof s, "0.%se%d", m, e);
      around(&t, strtod(s, NULL), 2);
    }
  }
  /* integers 0 .. 10^5 and around 2^53 */
  for (i = 0; i <= 100000; i += i < 20000 ? 1 : 7) compare(&t, (double)i);
  for (i = -1000; i <= 1000; i++) compare(&t, 9007199254740992.0 + 2.0 * i);
  /* decimal ties: k / 2^j for small odd k, ending in a 5 */
  for (j = 1; j <= 64; j++)
    for (i = 1; i < 400; i += 2) compare(&t, ldexp((double)i, -j));
  report("format_double.edges", &t);
  check(diagc_format_double(small, sizeof small, 0.125) == DIAGC_CSV_E_BUFFER,
        "format_double.small_buffer", "accepted");
  check(diagc_format_double(exact, sizeof exact, 0.125) == 5 && strcmp(exact, "0.125") == 0,
        "format_double.exact_buffer", "'%s'", exact);
}

/* ---- seeded random doubles ---------------------------------------------- */
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static void test_random(long scale, uint64_t seed) {
  static const double P10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  uint64_t s = seed;
  long i, n;
  tally t;

  memset(&t, 0, sizeof t); /* any bit pattern */
  for (i = 0, n = 400000 * scale; i < n; i++) compare(&t, from_bits(splitmix(&s)));
  report("format_double.random_bits", &t);

  memset(&t, 0, sizeof t); /* decimals k / 10^j and k 10^j, k < 10^7 */
  for (i = 0, n = 150000 * scale; i < n; i++) {
    const uint64_t r = splitmix(&s);
    const double k = (double)(r % 10000000u);
    const int j = (int)((r >> 40) % 10);
    compare(&t, (r >> 60) & 1 ? k * P10[j] : k / P10[j]);
  }
  report("format_double.random_decimals", &t);

  memset(&t, 0, sizeof t); /* simulation times: dt i and sums of dt */
  {
    const double dts[] = {1e-3, 1e-2, 0.1, 1e-4, 0.005, 0.02, 1.0 / 3.0, 0.25};
    for (i = 0; i < 8; i++) {
      double sum = 0;
      long k;
      for (k = 0, n = 15000 * scale; k < n; k++) {
        compare(&t, dts[i] * (double)k);
        compare(&t, sum);
        sum += dts[i];
      }
    }
  }
  report("format_double.times", &t);

  memset(&t, 0, sizeof t); /* integers below 2^53, and their multiples of 10^j */
  for (i = 0, n = 75000 * scale; i < n; i++) {
    const uint64_t r = splitmix(&s);
    const double k = (double)(r >> (11 + (r & 31)));
    compare(&t, k);
    compare(&t, k * P10[(r >> 5) % 10]);
  }
  report("format_double.random_integers", &t);

  memset(&t, 0, sizeof t); /* dyadic fractions (exact decimal ties) and
                            * uniform magnitudes over 10^-30 .. 10^30 */
  for (i = 0, n = 100000 * scale; i < n; i++) {
    const uint64_t r = splitmix(&s), r2 = splitmix(&s);
    const double k = (double)((r >> (11 + (r2 & 31))) | 1);
    compare(&t, ldexp(k, -(int)((r2 >> 8) % 70)));
    compare(&t, ((double)(r2 >> 11) * 0x1p-53 + 0.1) * pow(10.0, (double)((int)(r >> 50) % 61 - 30)));
  }
  report("format_double.random_dyadic_and_magnitudes", &t);
}

int main(void) {
  const char *sc = getenv("DIAGC_FMT_SCALE"), *sd = getenv("DIAGC_FMT_SEED");
  const long scale = sc && atol(sc) > 0 ? atol(sc) : 1;
  const uint64_t seed = sd ? strtoull(sd, NULL, 0) : 20261129u;
  (void)sleep_us;
  test_table();
  test_log10();
  test_edges();
  test_random(scale, seed);
  return failures != 0;
}
