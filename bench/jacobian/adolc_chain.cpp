// bench/jacobian/adolc_chain.cpp: the equations of the oscillator chain
// (bench/jacobian/specs/chain.lua.in) with ADOL-C's adoubles, and its
// sparse Jacobian by ADOL-C's column compression: the tape is recorded
// once; the sparsity pattern (index-domain propagation) and a coloring of
// the columns are computed once; every timed call is one vector forward
// sweep over the compressed seed and the recovery of the nonzeros.
//
// That is what sparse_jac does with repeat = 1 (its pattern and seed kept
// from the first call).  sparse_jac needs ADOL-C built with ColPack, which
// Debian's libadolc is not (it raises "can only be used if linked with
// ColPack"): then the same steps run through ADOL-C's own jac_pat and
// fov_forward, with a greedy partial distance-2 coloring of the columns in
// natural order (ColPack's kind of coloring for column compression) done
// here.  adolc_chain_driver() says which path ran.
#include <adolc/adolc.h>
#include <adolc/adolc_sparse.h>

#include <vector>

#include "adolc_chain.h"

namespace {

const short TAG = 1;
int n_states = 0;
int use_sparse_jac = 0;

// sparse_jac's arrays, kept between calls (repeat = 1)
int sj_nnz = 0;
unsigned *sj_rind = nullptr, *sj_cind = nullptr;
double *sj_vals = nullptr;
int sj_options[4] = { 0, 0, 0, 0 }; // index domains, safe, automatic, column compression

// the jac_pat + fov_forward path
int n_colors = 0;
std::vector<unsigned> rind, cind, color;
std::vector<double> vals, y;
double **seed = nullptr, **Y = nullptr;

// xdot = f(x), x = (positions, velocities), walls at 0 beyond both ends
void chain(int n, const chain_params &p, const adouble *x, adouble *xdot)
{
  for (int i = 0; i < n; ++i) {
    adouble dl, dr;
    if (i > 0) dl = x[i - 1] - x[i]; else dl = -x[i];
    if (i < n - 1) dr = x[i + 1] - x[i]; else dr = -x[i];
    xdot[i] = x[n + i];
    if (p.trig)
      xdot[n + i] = (p.k * (dl + dr) + p.kc * (dl * dl * dl + dr * dr * dr)
                     - p.c * x[n + i] - p.g * sin(x[i])) / p.m;
    else
      xdot[n + i] = (p.k * (dl + dr) + p.kc * (dl * dl * dl + dr * dr * dr)
                     - p.c * x[n + i]) / p.m;
  }
}

// pattern by jac_pat, greedy coloring, seed matrix
int prepare_compressed(const double *x0)
{
  const int n = n_states;
  std::vector<unsigned *> crs(n, nullptr);
  int opt[3] = { 0, 0, 0 };
  if (jac_pat(TAG, n, n, x0, crs.data(), opt) < 0) return 1;
  std::vector<std::vector<unsigned>> rows_of(n), cols_of(n);
  for (int r = 0; r < n; ++r)
    for (unsigned k = 1; k <= crs[r][0]; ++k) {
      unsigned c = crs[r][k];
      rind.push_back(r);
      cind.push_back(c);
      cols_of[r].push_back(c);
      rows_of[c].push_back(r);
    }
  for (int r = 0; r < n; ++r) free(crs[r]);
  color.assign(n, ~0u);
  std::vector<int> mark(n + 1, -1);
  for (int j = 0; j < n; ++j) {
    for (unsigned r : rows_of[j])
      for (unsigned c : cols_of[r])
        if (color[c] != ~0u) mark[color[c]] = j;
    unsigned k = 0;
    while (mark[k] == j) ++k;
    color[j] = k;
    if ((int)k + 1 > n_colors) n_colors = (int)k + 1;
  }
  seed = myalloc2(n, n_colors);
  Y = myalloc2(n, n_colors);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < n_colors; ++k) seed[j][k] = color[j] == (unsigned)k ? 1.0 : 0.0;
  vals.assign(rind.size(), 0.0);
  y.assign(n, 0.0);
  return 0;
}

} // namespace

extern "C" int adolc_chain_record(int n_mass, const chain_params *p, const double *x0)
{
  const int n = 2 * n_mass;
  std::vector<adouble> x(n), xd(n);
  std::vector<double> out(n);
  n_states = n;
  trace_on(TAG);
  for (int i = 0; i < n; ++i) x[i] <<= x0[i];
  chain(n_mass, *p, x.data(), xd.data());
  for (int i = 0; i < n; ++i) xd[i] >>= out[i];
  trace_off();
  try {
    use_sparse_jac = sparse_jac(TAG, n, n, 0, x0, &sj_nnz, &sj_rind, &sj_cind, &sj_vals, sj_options) >= 0;
  } catch (...) {
    use_sparse_jac = 0; // no ColPack
  }
  return use_sparse_jac ? 0 : prepare_compressed(x0);
}

extern "C" const char *adolc_chain_driver(int *colors)
{
  *colors = n_colors;
  return use_sparse_jac ? "sparse_jac" : "jac_pat + fov_forward";
}

extern "C" int adolc_chain_jac(const double *x, int *nnz, const unsigned **r,
                               const unsigned **c, const double **v)
{
  if (use_sparse_jac) {
    int rc = sparse_jac(TAG, n_states, n_states, 1, x, &sj_nnz, &sj_rind, &sj_cind, &sj_vals, sj_options);
    *nnz = sj_nnz, *r = sj_rind, *c = sj_cind, *v = sj_vals;
    return rc < 0;
  }
  if (fov_forward(TAG, n_states, n_states, n_colors, x, seed, y.data(), Y) < 0) return 1;
  for (size_t k = 0; k < rind.size(); ++k) vals[k] = Y[rind[k]][color[cind[k]]];
  *nnz = (int)rind.size(), *r = rind.data(), *c = cind.data(), *v = vals.data();
  return 0;
}
