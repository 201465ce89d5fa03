// Square matrices over Fr for Poseidon's linear layers: products, inverse, and neptune's
// factorisation of the partial rounds' MDS into sparse matrices.
#pragma once

#include <span>
#include <vector>

#include "ff/fr.hpp"

namespace cuzk::gadgets {

using ff::Fr;
using Matrix = std::vector<std::vector<Fr>>;

namespace poseidon_matrix {

Matrix identity(size_t n);
// Gauss-Jordan; throws std::logic_error for a singular matrix (MDS matrices and their minors are not).
Matrix invert(const Matrix& m);
// m without its first row and column.
Matrix minor00(const Matrix& m);
Matrix mul(const Matrix& a, const Matrix& b);
Matrix transpose(const Matrix& m);
// neptune derive_mds_matrices: M = M' . M'' with M' = diag(1, M^) and M'' sparse.
void factor(const Matrix& m, Matrix& m_prime, Matrix& m_double_prime);

// M . v (inline: the native hash applies it every round).
inline std::vector<Fr> left_apply(const Matrix& m, std::span<const Fr> v) {
  std::vector<Fr> r(m.size(), Fr::zero());
  for (size_t i = 0; i < m.size(); i++) {
    for (size_t j = 0; j < v.size(); j++) r[i] += m[i][j] * v[j];
  }
  return r;
}

// v . M
inline std::vector<Fr> right_apply(const Matrix& m, std::span<const Fr> v) {
  std::vector<Fr> r(m[0].size(), Fr::zero());
  for (size_t j = 0; j < m[0].size(); j++) {
    for (size_t i = 0; i < v.size(); i++) r[j] += v[i] * m[i][j];
  }
  return r;
}

}  // namespace poseidon_matrix
}  // namespace cuzk::gadgets
