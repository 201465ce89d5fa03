#include <algorithm>
#include <stdexcept>

#include "cuda/check.hpp"
#include "r1cs/cuda/compiled_circuit_device.hpp"

namespace cuzk::r1cs::cuda {
namespace {

using cuzk::cuda::check;

constexpr unsigned kThreads = 256;

// One thread per row, grid-stride; rows past the matrix are the domain's zero padding; each entry
// by CompiledCircuit::add_entry, as on the CPU.
__global__ void __launch_bounds__(kThreads)
    product_kernel(const uint32_t* row_start, const uint32_t* column, const uint16_t* coeff, const Fr* table,
                   const Fr* witness, size_t rows, size_t n, Fr* out, Fr one) {
  for (size_t row = size_t(blockIdx.x) * blockDim.x + threadIdx.x; row < n; row += size_t(gridDim.x) * blockDim.x) {
    Fr acc = Fr::zero();
    if (row < rows) {
      const uint32_t end = row_start[row + 1];
      for (uint32_t e = row_start[row]; e != end; e++) {
        CompiledCircuit::add_entry(acc, witness[column[e]], coeff[e], table, one);
      }
    }
    out[row] = acc;
  }
}

template <class T, class Allocator>
cuzk::cuda::DeviceBuffer<T> upload(const std::vector<T, Allocator>& v, cudaStream_t stream) {
  cuzk::cuda::DeviceBuffer<T> d(v.size());
  if (!v.empty()) {
    check(cudaMemcpyAsync(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, stream),
          "compiled circuit upload");
  }
  return d;
}

}  // namespace

DeviceCompiledCircuit::DeviceCompiledCircuit(const CompiledCircuit& cc, cudaStream_t stream) : source_(&cc) {
  table_ = upload(cc.coefficients, stream);
  const SparseRows* host[3] = {&cc.a, &cc.b, &cc.c};
  for (int i = 0; i < 3; i++) {
    rows_[i].row_start = upload(host[i]->row_start, stream);
    rows_[i].column = upload(host[i]->column, stream);
    rows_[i].coeff = upload(host[i]->coeff, stream);
  }
  check(cudaStreamSynchronize(stream), "compiled circuit upload");
}

size_t DeviceCompiledCircuit::bytes() const {
  size_t b = table_.bytes();
  for (const Rows& r : rows_) b += r.row_start.bytes() + r.column.bytes() + r.coeff.bytes();
  return b;
}

void DeviceCompiledCircuit::product(Matrix m, const Fr* witness, Fr* out, size_t n, cudaStream_t stream) const {
  const size_t rows = source_->constraints;
  if (n < rows) throw std::invalid_argument("compiled circuit product: the output is shorter than the matrix");
  const Rows& r = rows_[int(m)];
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const size_t blocks = std::min<size_t>((n + kThreads - 1) / kThreads, size_t(sms) * 16);
  product_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(r.row_start.get(), r.column.get(), r.coeff.get(),
                                                            table_.get(), witness, rows, n, out, Fr::one());
  check(cudaGetLastError(), "compiled circuit product kernel");
}

}  // namespace cuzk::r1cs::cuda
