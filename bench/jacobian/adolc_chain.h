/* bench/jacobian/adolc_chain.h: the oscillator chain of
 * bench/jacobian/specs/chain.lua.in written with ADOL-C's adoubles
 * (adolc_chain.cpp), behind a C interface for jac_bench.c. */
#ifndef DIAGC_BENCH_ADOLC_CHAIN_H
#define DIAGC_BENCH_ADOLC_CHAIN_H
#ifdef __cplusplus
extern "C" {
#endif

/* The chain's parameters, as the spec's defaults; trig: with the term
 * g sin(x_i) (0: the "poly" variant). */
typedef struct chain_params { double k, kc, c, g, m; int trig; } chain_params;

/* Records the tape of xdot = f(x) (x laid out as diagc's xc: the N
 * positions, then the N velocities) at x0 and computes the sparsity pattern
 * and the column coloring once.  0 on success. */
int adolc_chain_record(int n_mass, const chain_params *p, const double *x0);

/* "sparse_jac" or, when libadolc lacks ColPack, "jac_pat + fov_forward"
 * (adolc_chain.cpp); *colors: the number of colors of the latter. */
const char *adolc_chain_driver(int *colors);

/* The Jacobian at x by one compressed forward sweep (sparse_jac with
 * repeat = 1, or its steps); *nnz entries (rind[k], cind[k],
 * val[k]), valid until the next call.  0 on success. */
int adolc_chain_jac(const double *x, int *nnz, const unsigned **rind,
                    const unsigned **cind, const double **val);

#ifdef __cplusplus
}
#endif
#endif
