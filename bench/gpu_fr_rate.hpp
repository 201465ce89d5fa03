// Device Fr multiplication throughput (multiplications per second on device 0).
#pragma once

namespace cuzk::bench {

double gpu_fr_muls_per_second();

}  // namespace cuzk::bench
