// Device Fr multiplication throughput (multiplications per second on device 0) of Fr's operator*
// (the even/odd product with Fr's sparse low words), or with dense_even_odd of the even/odd
// product for any modulus (ff::ptx::MontMulEoPtx), which it replaced, for comparison.
#pragma once

namespace cuzk::bench {

double gpu_fr_muls_per_second(bool dense_even_odd = false);

}  // namespace cuzk::bench
