// Device Fr multiplication throughput (multiplications per second on device 0) of Fr's operator*
// (the even/odd product with Fr's sparse low words), or with dense_even_odd of the even/odd
// product for any modulus (ff::ptx::MontMulEoPtx), which it replaced, for comparison.
#pragma once

#include <vector>

namespace cuzk::bench {

double gpu_fr_muls_per_second(bool dense_even_odd = false);

// The MSM's Fp product (ff::LazyMont<Fp>: the lazy even/odd product) on device 0, alone and with
// `dfma` independent double-precision FMAs issued beside each product: how much of the FP64
// pipe the IMAD-bound product leaves free (a product split between the two pipes would use it).
struct FpRate {
  unsigned dfma = 0;               // FMAs beside each product
  double products_per_second = 0;  // Fp products
  double dfma_per_second = 0;
};
std::vector<FpRate> gpu_fp_muls_per_second_with_dfma();

}  // namespace cuzk::bench
