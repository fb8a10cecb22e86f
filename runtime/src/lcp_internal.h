/* lcp_internal.h: shared between lcp.c and lcp_coupled.c (not installed). */
#ifndef DIAGC_LCP_INTERNAL_H
#define DIAGC_LCP_INTERNAL_H

/* x . y over m entries with four partial sums, combined as
 * (s0 + s1) + (s2 + s3): one summation order wherever a residual or a
 * direction is computed (the residual then has the same bits as
 * diagc_lcp_violation's). */
static inline double diagc__dot4(int m, const double *restrict xv, const double *restrict yv) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int i;
  for (i = 0; i + 3 < m; i += 4) {
    s0 += xv[i] * yv[i];
    s1 += xv[i + 1] * yv[i + 1];
    s2 += xv[i + 2] * yv[i + 2];
    s3 += xv[i + 3] * yv[i + 3];
  }
  for (; i < m; i++) s0 += xv[i] * yv[i];
  return (s0 + s1) + (s2 + s3);
}

/* Row states shared by the pivoting methods. */
enum { ST_FREE = 0, ST_LO = 1, ST_HI = 2 };

/* Coupled incremental pivoting (lcp_coupled.c). */
typedef struct {
  int n;
  const double *A, *b, *lo, *hi;
  const int *fx;   /* may be NULL */
  double cfm;
  double droptol;  /* Schur complements below this: dependent column */
  double wtol;     /* a driven row with |w_i| <= wtol (1 + |b_i|) is
                      complementary (at least 1e-13 is used) */
  int max_pivots;  /* pivot budget */
  int sym;         /* A symmetric (rows serve as columns) */
  int order;       /* 0: rows in order; 1: friction rows in reverse order;
                      2: friction rows by their box's width, widest first */
  const int *lead; /* rows processed first in their phase (may be NULL) */
  int nlead;
  int *fail_row;   /* if not NULL: the row being processed when it failed
                      (-1 when it did not fail) */
  double *work;    /* DIAGC__CP_WORK_DOUBLES(n) doubles */
  int *iwork;      /* 15 n + 1 ints */
} diagc__cp_args;

#define DIAGC__CP_WORK_DOUBLES(n) (2 * (size_t)(n) * (size_t)(n) + 16 * (size_t)(n) + 16)

/* Runs the method from x = 0.  On return x holds its point and state[] the
 * row states (ST_FREE for clamped rows and rows not processed).  Returns 0
 * when every row was processed; -1 when it failed (budget, cycling,
 * unbounded ray, singular update: x and state are where it stopped); -2
 * when it is not applicable (a friction row whose normal may be negative,
 * infinite friction multipliers) or x is not finite (x, state unusable).
 * *pivots is incremented per pivot. */
int diagc__lcp_cp(const diagc__cp_args *a, double *x, int *state, int *pivots);

#endif
