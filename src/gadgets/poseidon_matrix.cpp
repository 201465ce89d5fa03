#include "gadgets/poseidon_matrix.hpp"

#include <stdexcept>
#include <utility>

namespace cuzk::gadgets::poseidon_matrix {

Matrix identity(size_t n) {
  Matrix r(n, std::vector<Fr>(n, Fr::zero()));
  for (size_t i = 0; i < n; i++) r[i][i] = Fr::one();
  return r;
}

Matrix invert(const Matrix& m) {
  const size_t n = m.size();
  Matrix a = m, inv = identity(n);
  for (size_t col = 0; col < n; col++) {
    size_t piv = col;
    while (piv < n && a[piv][col].is_zero()) piv++;
    if (piv == n) throw std::logic_error("poseidon: singular matrix");
    std::swap(a[piv], a[col]);
    std::swap(inv[piv], inv[col]);
    const Fr s = a[col][col].inverse();
    for (size_t j = 0; j < n; j++) {
      a[col][j] *= s;
      inv[col][j] *= s;
    }
    for (size_t i = 0; i < n; i++) {
      if (i == col || a[i][col].is_zero()) continue;
      const Fr f = a[i][col];
      for (size_t j = 0; j < n; j++) {
        a[i][j] -= f * a[col][j];
        inv[i][j] -= f * inv[col][j];
      }
    }
  }
  return inv;
}

Matrix minor00(const Matrix& m) {
  Matrix r;
  for (size_t i = 1; i < m.size(); i++) r.emplace_back(m[i].begin() + 1, m[i].end());
  return r;
}

Matrix mul(const Matrix& a, const Matrix& b) {
  const size_t n = a.size(), k = b.size(), p = b[0].size();
  Matrix r(n, std::vector<Fr>(p, Fr::zero()));
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < p; j++) {
      for (size_t l = 0; l < k; l++) r[i][j] += a[i][l] * b[l][j];
    }
  }
  return r;
}

Matrix transpose(const Matrix& m) {
  Matrix r(m[0].size(), std::vector<Fr>(m.size()));
  for (size_t i = 0; i < m.size(); i++) {
    for (size_t j = 0; j < m[0].size(); j++) r[j][i] = m[i][j];
  }
  return r;
}

void factor(const Matrix& m, Matrix& m_prime, Matrix& m_double_prime) {
  const size_t t = m.size();
  const Matrix m_hat_inv = invert(minor00(m));
  m_prime.assign(t, std::vector<Fr>(t, Fr::zero()));
  m_prime[0][0] = Fr::one();
  for (size_t i = 1; i < t; i++) {
    for (size_t j = 1; j < t; j++) m_prime[i][j] = m[i][j];
  }
  std::vector<Fr> w;
  for (size_t i = 1; i < t; i++) w.push_back(m[i][0]);
  const std::vector<Fr> w_hat = left_apply(m_hat_inv, w);
  m_double_prime.assign(t, std::vector<Fr>(t, Fr::zero()));
  m_double_prime[0] = m[0];
  for (size_t i = 1; i < t; i++) {
    m_double_prime[i][0] = w_hat[i - 1];
    m_double_prime[i][i] = Fr::one();
  }
}

}  // namespace cuzk::gadgets::poseidon_matrix
