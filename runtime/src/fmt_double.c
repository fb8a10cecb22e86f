/* diagc_format_double (diagc/csv.h): the bytes of diagc_fmt_printf
 * (fmt_printf.c, the definition) from exact integer arithmetic.
 *
 * A finite v != 0 is m 2^e (m an integer).  Let E be its decimal exponent
 * and q = E' - 16 with E' = E or E - 1; in units of 10^q, v is X with
 * floor(X) = D of 17 or 18 digits.  The doubles that strtod reads as v
 * fill an interval [lo, hi] around it: half the gap to each neighbour,
 * the ends included when m is even (ties go to the even neighbour); the
 * gap below a power of two is half the one above.  In units of 10^q its
 * integers run from lc to hf.  Then:
 *
 *   - "%.Ng" is D rounded to N digits (ties to even on v's exact value,
 *     as glibc's printf), i.e. the multiple of 10^(nd - N) nearest X;
 *     it reads back as v exactly when it lies in [lc, hf].
 *   - No N-digit decimal lies in [lc, hf] while no multiple of
 *     10^(nd - N) does, so the first N that round-trips is at least
 *     nd - smax, smax the largest s with a multiple of 10^s in [lc, hf];
 *     when the interval is symmetric the nearest one, "%.Ng", is in it
 *     too.  Below a power of two it may not be: N grows until it is.
 *   - The choice between that form and a fixed one of more digits is the
 *     loop of diagc_fmt_printf, step by step.
 *
 * X, lo and hi come from c 2^e2 / 10^q (c = 8m, 4m - 2 or 4m - 1, 4m + 2;
 * e2 = e - 2) times a 128-bit table entry rounded up (fmt_pow10.c): the
 * product exceeds the true value by less than 2^-65, so its floor is
 * exact unless the true value is an integer (decided apart, by
 * divisibility) or its fraction is below 2^-64 -- then
 * diagc_fmt_shortest says it cannot tell, and diagc_format_double asks
 * diagc_fmt_printf.
 */
#include <string.h>

#include "diagc/csv.h"
#include "diagc/status.h"
#include "fmt_double.h"

static const uint64_t POW10[20] = {
  1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
  1000000000u, 10000000000u, 100000000000u, 1000000000000u,
  10000000000000u, 100000000000000u, 1000000000000000u,
  10000000000000000u, 100000000000000000u, 1000000000000000000u,
  10000000000000000000u};

int diagc_fmt_pow10_shift(int q) {
  /* floor(q log2 10) with log2 10 as 3652498566964 / 2^40 (exact floors
   * for |q| <= 400, checked by the test against the table) */
  const int64_t c = 3652498566964;
  int64_t f;
  if (q == 0) return 127;
  if (q > 0) f = ((int64_t)q * c) >> 40;
  else f = -((((int64_t)-q * c) + ((int64_t)1 << 40) - 1) >> 40);
  return 128 + (int)f;
}

int diagc_fmt_floor_log10_pow2(int x) {
  const int64_t c = 330985980541; /* log10 2 as c / 2^40 */
  if (x >= 0) return (int)(((int64_t)x * c) >> 40);
  return (int)-((((int64_t)-x * c) + ((int64_t)1 << 40) - 1) >> 40);
}

/* The 128-bit product of a and b. */
static void mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
#if defined(__SIZEOF_INT128__)
  __extension__ typedef unsigned __int128 u128;
  const u128 p = (u128)a * b;
  *hi = (uint64_t)(p >> 64);
  *lo = (uint64_t)p;
#else
  const uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
  const uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *lo = (mid << 32) | (p00 & 0xffffffffu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

static int bit_length(uint64_t c) { /* c != 0 */
#if defined(__GNUC__)
  return 64 - __builtin_clzll(c);
#else
  int n = 0;
  while (c) {
    c >>= 1;
    n++;
  }
  return n;
#endif
}

static int trailing_zeros(uint64_t c) { /* c != 0 */
#if defined(__GNUC__)
  return __builtin_ctzll(c);
#else
  int n = 0;
  while (!(c & 1)) {
    c >>= 1;
    n++;
  }
  return n;
#endif
}

/* Bits [pos, pos + 64) of the 256-bit little-endian p (pos <= 191). */
static uint64_t window(const uint64_t p[4], int pos) {
  const int w = pos >> 6, b = pos & 63;
  return b ? (p[w] >> b) | (p[w + 1] << (64 - b)) : p[w];
}

/* Whether c 2^e2 / 10^q = c 5^-q 2^(e2 - q) is an integer. */
static int is_integer(uint64_t c, int e2, int q) {
  static const uint64_t POW5[28] = {
    1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u,
    9765625u, 48828125u, 244140625u, 1220703125u, 6103515625u,
    30517578125u, 152587890625u, 762939453125u, 3814697265625u,
    19073486328125u, 95367431640625u, 476837158203125u,
    2384185791015625u, 11920928955078125u, 59604644775390625u,
    298023223876953125u, 1490116119384765625u, 7450580596923828125u};
  const int need = q - e2; /* powers of two the quotient needs from c */
  if (need > 0 && (need >= 64 || trailing_zeros(c) < need)) return 0;
  if (q <= 0) return 1;
  return q < 28 && c % POW5[q] == 0;
}

/* *fl = floor(c 2^e2 / 10^q) (0 < c < 2^58, the quotient < 2^63) and
 * *exact = whether that is the quotient.  Returns 0 when the table's
 * rounding leaves the floor undecided.  k = diagc_fmt_pow10_shift(q). */
static int scaled_floor(uint64_t c, int e2, int q, int k, uint64_t *fl,
                        int *exact) {
  const uint64_t *t = diagc_fmt_pow10[q - DIAGC_FMT_Q_MIN];
  const int sh = k - e2; /* in (65, 191] */
  uint64_t p[4], h0, l0, h1, l1;
  mul64(c, t[1], &h0, &l0);
  mul64(c, t[0], &h1, &l1);
  p[0] = l0;
  p[1] = h0 + l1;
  p[2] = h1 + (p[1] < l1);
  p[3] = 0;
  *fl = window(p, sh);
  *exact = is_integer(c, e2, q);
  /* the product exceeds the quotient by less than 2^-65: its fraction
   * >= 2^-64 leaves the floor unchanged; an integer quotient's product
   * has the quotient's floor */
  return *exact || window(p, sh - 64) != 0;
}

/* v's fraction f = X - D, as it decides ties. */
enum { F_ZERO, F_BELOW_HALF, F_HALF, F_ABOVE_HALF };

/* D rounded to nd - s digits (s dropped), ties to even: *r gets the
 * digits (10^(nd - s) when the rounding carried); returns *r 10^s. */
static uint64_t round_to(uint64_t d, int s, int f, uint64_t *r) {
  uint64_t p, k, rem, h;
  if (s == 0) {
    *r = d + (uint64_t)(f == F_ABOVE_HALF || (f == F_HALF && (d & 1)));
    return *r;
  }
  p = POW10[s];
  k = d / p;
  rem = d - k * p;
  h = p / 2;
  k += (uint64_t)(rem > h || (rem == h && (f != F_ZERO || (k & 1))));
  *r = k;
  return k * p;
}

/* One "%.Ng" candidate: the digits without trailing zeros and the
 * exponent. */
typedef struct {
  char dig[20];
  int len, x, n;
} form;

static const char DIGITS2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* r: n digits, or 10^n when the rounding carried; e: the exponent of
 * its first digit before the carry. */
static void make_form(form *o, uint64_t r, int n, int e) {
  int len = n;
  char *p;
  if (r == POW10[n]) { /* carried to the next power of ten */
    r = 1;
    len = 1;
    e++;
  }
  while (r % 10 == 0) {
    r /= 10;
    len--;
  }
  o->len = len;
  o->x = e;
  o->n = n;
  p = o->dig + len;
  while (r >= 100) {
    const unsigned k = (unsigned)(r % 100) * 2;
    r /= 100;
    *--p = DIGITS2[k + 1];
    *--p = DIGITS2[k];
  }
  if (r >= 10) {
    *--p = DIGITS2[r * 2 + 1];
    *--p = DIGITS2[r * 2];
  } else {
    *--p = (char)('0' + r);
  }
}

static int exponential(const form *o) { return o->x < -4 || o->x >= o->n; }

/* Length of the form as %g writes it (without the sign). */
static int form_len(const form *o) {
  const int l = o->len, x = o->x;
  if (exponential(o)) return l + (l > 1) + 2 + (x >= 100 || x <= -100 ? 3 : 2);
  if (x >= 0) return l > x + 1 ? l + 1 : x + 1;
  return 2 + (-x - 1) + l;
}

static int write_form(char *out, int neg, const form *o) {
  char *p = out;
  const int l = o->len, x = o->x;
  if (neg) *p++ = '-';
  if (exponential(o)) {
    int a = x < 0 ? -x : x;
    *p++ = o->dig[0];
    if (l > 1) {
      *p++ = '.';
      memcpy(p, o->dig + 1, (size_t)(l - 1));
      p += l - 1;
    }
    *p++ = 'e';
    *p++ = x < 0 ? '-' : '+';
    if (a >= 100) {
      *p++ = (char)('0' + a / 100);
      a %= 100;
    }
    *p++ = (char)('0' + a / 10);
    *p++ = (char)('0' + a % 10);
  } else if (x >= 0) {
    if (l <= x + 1) {
      memcpy(p, o->dig, (size_t)l);
      p += l;
      memset(p, '0', (size_t)(x + 1 - l));
      p += x + 1 - l;
    } else {
      memcpy(p, o->dig, (size_t)(x + 1));
      p += x + 1;
      *p++ = '.';
      memcpy(p, o->dig + x + 1, (size_t)(l - x - 1));
      p += l - x - 1;
    }
  } else {
    *p++ = '0';
    *p++ = '.';
    memset(p, '0', (size_t)(-x - 1));
    p += -x - 1;
    memcpy(p, o->dig, (size_t)l);
    p += l;
  }
  *p = 0;
  return (int)(p - out);
}

static int write_special(char *out, const char *s) {
  const size_t n = strlen(s);
  memcpy(out, s, n + 1);
  return (int)n;
}

int diagc_fmt_shortest(char *out, double v) {
  uint64_t bits, m, d, x2, hx, lx, lc, hf, r, pw, hb;
  int neg, be, e, q, k, nd, ex2, exh, exl, incl, f, smax, n, first;
  form a, b;
  memcpy(&bits, &v, sizeof bits);
  neg = (int)(bits >> 63);
  be = (int)((bits >> 52) & 0x7ff);
  m = bits & (((uint64_t)1 << 52) - 1);
  if (be == 0x7ff) return write_special(out, m ? "nan" : neg ? "-inf" : "inf");
  if (be == 0 && m == 0) return write_special(out, neg ? "-0" : "0");
  if (be) {
    m |= (uint64_t)1 << 52;
    e = be - 1075;
  } else {
    e = -1074;
  }
  /* 2^(e + bits(m) - 1) <= v: q = E' - 16 with E' = E or E - 1 */
  q = diagc_fmt_floor_log10_pow2(e + bit_length(m) - 1) - 16;
  k = diagc_fmt_pow10_shift(q);
  incl = !(m & 1);
  if (!scaled_floor(8 * m, e - 2, q, k, &x2, &ex2) ||
      !scaled_floor(4 * m + 2, e - 2, q, k, &hx, &exh) ||
      !scaled_floor(4 * m - ((bits & (((uint64_t)1 << 52) - 1)) == 0 && be > 1 ? 1 : 2),
                    e - 2, q, k, &lx, &exl))
    return -1;
  d = x2 >> 1;
  f = ex2 ? ((x2 & 1) ? F_HALF : F_ZERO) : ((x2 & 1) ? F_ABOVE_HALF : F_BELOW_HALF);
  hf = hx - (uint64_t)(exh && !incl);
  lc = lx + (uint64_t)(!exl || !incl);
  nd = d >= POW10[17] ? 18 : 17;
  /* the most trailing zeros a decimal in [lc, hf] can have */
  smax = 0;
  pw = 1;
  hb = hf;
  while (smax < nd && (hb / 10) * pw * 10 >= lc) {
    hb /= 10;
    pw *= 10;
    smax++;
  }
  first = nd - smax < 1 ? 1 : nd - smax;
  for (n = first;; n++) {
    uint64_t c;
    if (n > 17) return -1; /* cannot happen: 17 digits always read back */
    c = round_to(d, nd - n, f, &r);
    if (c >= lc && c <= hf) break;
  }
  make_form(&a, r, n, q + nd - 1);
  /* diagc_fmt_printf's loop after its first round trip */
  if (!exponential(&a) || a.x < 0 || a.x + 1 > 17) return write_form(out, neg, &a);
  for (n = a.x + 1;; n++) {
    uint64_t c;
    if (n > 17) return -1; /* cannot happen */
    c = round_to(d, nd - n, f, &r);
    if (c >= lc && c <= hf) break;
  }
  make_form(&b, r, n, q + nd - 1);
  return write_form(out, neg, form_len(&b) < form_len(&a) ? &b : &a);
}

int diagc_format_double(char *buf, size_t bufsize, double v) {
  char tmp[DIAGC_FMT_MAX];
  char *out = bufsize >= DIAGC_FMT_MAX ? buf : tmp;
  int n = diagc_fmt_shortest(out, v);
  if (n < 0) n = diagc_fmt_printf(out, v);
  if (out == buf) return n;
  if ((size_t)n + 1 > bufsize) return DIAGC_CSV_E_BUFFER;
  memcpy(buf, tmp, (size_t)n + 1);
  return n;
}
