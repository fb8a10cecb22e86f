// scripts/convert_fclib_lcp.cpp: FCLIB local problem (HDF5) -> the boxed-LCP
// text fixture read by tests/c/test_lcp.c.  Built and run by
// scripts/convert_fclib_lcp.sh (run once; the output is committed).
//
// Conversion (FCLIB's local problem W r + q = u to docs/lcp.md's form): A = W,
// b = -q; per contact the rows [normal, t1, t2]: normal [0, inf) with
// findex -1, tangents [-mu, mu] with findex pointing at the normal (the
// friction cone replaced by the enclosing pyramid, no De Saxce term).
//
// Output format (text, one record per line, '#' comments):
//   n N / contacts NC / mu MU
//   row I B LO HI FINDEX        (N lines; LO/HI may be inf/-inf)
//   a I J VALUE                 (the nonzeros of A, row-major order)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

extern "C" {
#include <fclib.h>
}

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: convert_fclib_lcp IN.hdf5 OUT.txt\n");
    return 2;
  }
  fclib_local *P = fclib_read_local(argv[1]);
  if (!P || !P->W || !P->q || !P->mu) {
    std::fprintf(stderr, "convert_fclib_lcp: cannot read a local problem from %s\n", argv[1]);
    return 2;
  }
  if (P->spacedim != 3) {
    std::fprintf(stderr, "convert_fclib_lcp: spacedim %d (only 3 is supported)\n", P->spacedim);
    return 2;
  }
  const fclib_matrix *W = P->W;
  int n = W->m, nc = n / 3;
  if (W->n != n || n % 3 != 0) {
    std::fprintf(stderr, "convert_fclib_lcp: W is %dx%d, not 3nc x 3nc\n", W->m, W->n);
    return 2;
  }
  std::map<std::pair<int, int>, double> a;  // sums duplicates of triplets
  if (W->nz == -2) {  // compressed rows
    for (int r = 0; r < n; r++)
      for (int k = W->p[r]; k < W->p[r + 1]; k++) a[{r, W->i[k]}] += W->x[k];
  } else if (W->nz == -1) {  // compressed columns
    for (int c = 0; c < n; c++)
      for (int k = W->p[c]; k < W->p[c + 1]; k++) a[{W->i[k], c}] += W->x[k];
  } else {  // triplets: p = rows, i = columns
    for (int k = 0; k < W->nz; k++) a[{W->p[k], W->i[k]}] += W->x[k];
  }
  FILE *f = std::fopen(argv[2], "w");
  if (!f) {
    std::fprintf(stderr, "convert_fclib_lcp: cannot write %s\n", argv[2]);
    return 2;
  }
  std::fprintf(f, "# boxed LCP from FCLIB local_problem_test.hdf5 (scripts/convert_fclib_lcp.sh)\n");
  std::fprintf(f, "# A = W, b = -q; pyramid friction: normals [0,inf) findex -1, tangents [-mu,mu]*x_n\n");
  std::fprintf(f, "n %d\ncontacts %d\nmu %.17g\n", n, nc, P->mu[0]);
  for (int c = 0; c < nc; c++) {
    std::fprintf(f, "row %d %.17g 0 inf -1\n", 3 * c, -P->q[3 * c]);
    for (int t = 1; t < 3; t++)
      std::fprintf(f, "row %d %.17g %.17g %.17g %d\n", 3 * c + t, -P->q[3 * c + t], -P->mu[c],
                   P->mu[c], 3 * c);
  }
  for (const auto &e : a)
    if (e.second != 0.0) std::fprintf(f, "a %d %d %.17g\n", e.first.first, e.first.second, e.second);
  std::fclose(f);
  std::printf("convert_fclib_lcp: %d contacts, n = %d, %zu nonzeros -> %s\n", nc, n, a.size(), argv[2]);
  fclib_delete_local(P);
  return 0;
}
