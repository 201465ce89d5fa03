// Device Fr multiplication throughput (multiplications per second on device 0); even_odd: the
// even/odd-accumulator PTX product (ff::ptx::MontMulEoPtx) instead of Fr's operator*.
#pragma once

namespace cuzk::bench {

double gpu_fr_muls_per_second(bool even_odd = false);

}  // namespace cuzk::bench
