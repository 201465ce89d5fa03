#include "filecoin/snap/public_inputs.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::filecoin {

Fr empty_sector_update_k_and_h_select(const EmptySectorUpdateParams& params, size_t k, size_t h) {
  if (k >= params.partition_count) {
    throw std::invalid_argument("EmptySectorUpdate: partition index " + std::to_string(k) + " >= partition count " +
                                std::to_string(params.partition_count));
  }
  const uint64_t h_select = params.h_select(h);
  return Fr::from_u64(uint64_t(k) | h_select << params.partition_bit_len);
}

std::array<Fr, 4> empty_sector_update_public_inputs(const EmptySectorUpdateParams& params,
                                                    const EmptySectorUpdatePublicInputs& in) {
  return {empty_sector_update_k_and_h_select(params, in.k, in.h), in.comm_r_old, in.comm_d_new, in.comm_r_new};
}

}  // namespace cuzk::filecoin
