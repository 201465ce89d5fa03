// Device Fr multiplication throughput (multiplications per second on device 0) of Fr's operator*
// (the even/odd product with Fr's sparse low words), or with dense_even_odd of the even/odd
// product for any modulus (ff::ptx::MontMulEoPtx), which it replaced, for comparison.
#pragma once

#include <string>
#include <vector>

namespace cuzk::bench {

double gpu_fr_muls_per_second(bool dense_even_odd = false);

// The MSM's Fp product (ff::LazyMont<Fp>: the lazy even/odd product) on device 0, alone and with
// other work issued beside each product: double-precision FMAs, int8 tensor-core MMAs, warp
// shuffles. How much of the other pipes the IMAD-bound product leaves free (a product split
// between pipes would use them).
struct FpRate {
  std::string beside;              // what runs beside the products
  unsigned count = 0;              // how many beside each product (MMAs: per warp, i.e. per 32 products)
  double products_per_second = 0;  // Fp products
  double beside_per_second = 0;    // beside operations
};
std::vector<FpRate> gpu_fp_muls_per_second_beside();

}  // namespace cuzk::bench
