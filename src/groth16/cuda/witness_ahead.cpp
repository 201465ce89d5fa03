#include "groth16/cuda/witness_ahead.hpp"

#include <cstdio>
#include <exception>

#include "groth16/cuda/piece_locks.hpp"
#include "groth16/cuda/prepared_abc.hpp"

namespace cuzk::groth16::cuda {

using ff::Fr;

bool WitnessAhead::fit(size_t planned_bytes) {
  const size_t scalars = planned_bytes / sizeof(Fr);
  if (spare_.size() == scalars) return true;
  forget();
  spare_.reset();
  if (scalars == 0) return true;
  try {
    spare_ = cuzk::cuda::DeviceBuffer<Fr>(scalars);
    return true;
  } catch (const std::exception& e) {  // optional: the proofs upload their own witness
    cudaGetLastError();
    std::fprintf(stderr, "cuzk: no second witness buffer (%s): each witness goes up in its own proof\n", e.what());
    return false;
  }
}

Fr* WitnessAhead::take(const r1cs::ProvingAssignment& pa, Fr* primary) {
  const auto of = of_.lock();
  Fr* where = where_;
  const size_t aux = aux_;
  forget();
  const bool same = of && of == pa.abc_preparation() && aux == pa.num_aux();
  return same && (where == primary || (where && where == spare_.get())) ? where : nullptr;
}

bool WitnessAhead::start(const r1cs::ProvingAssignment& next, const Fr* in_use, Fr* primary, size_t primary_scalars,
                         cudaStream_t stream) {
  forget();
  if (!spare_.get() || !next.abc_pending()) return false;
  const auto prepared = std::dynamic_pointer_cast<const PreparedAbc>(next.abc_preparation());
  const Fr* aux = next.aux().data();
  const size_t count = next.num_aux();
  if (!prepared || !prepared->made_from(next) || !prepared->locked(aux)) return false;
  const size_t witness = count + next.num_inputs();  // the inputs follow aux (prove_start's upload)
  Fr* to = in_use == primary ? spare_.get() : primary;
  if (witness > (to == primary ? primary_scalars : spare_.size())) return false;
  cudaError_t error = cudaSuccess;
  for_each_pin_piece(aux, count * sizeof(Fr), [&](size_t offset, size_t piece) {
    if (error == cudaSuccess) {
      error = cudaMemcpyAsync(reinterpret_cast<char*>(to) + offset, reinterpret_cast<const char*>(aux) + offset, piece,
                              cudaMemcpyHostToDevice, stream);
    }
  });
  if (error != cudaSuccess) {  // the next proof uploads its own; this one goes on
    cudaGetLastError();
    std::fprintf(stderr, "cuzk: the next proof's witness could not go up ahead (%s)\n", cudaGetErrorString(error));
    return false;
  }
  of_ = prepared;
  where_ = to;
  aux_ = count;
  return true;
}

void WitnessAhead::forget() {
  of_.reset();
  where_ = nullptr;
  aux_ = 0;
}

void WitnessAhead::release() {
  forget();
  spare_.reset();
}

}  // namespace cuzk::groth16::cuda
