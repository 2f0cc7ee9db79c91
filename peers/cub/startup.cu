// The C++ twin of `warpwork bench startup`'s select row: what a CUDA C++ program with CUB pays
// from process start to its first ordered select's result, in one fresh process. Prints one
// line: the runtime's initialisation with the device's primary context (`cudaFree(0)`), then
// the first `cub::DeviceSelect::If` on 2^20 u32s (upload, temporary storage, the select, the
// count on the host), in milliseconds. Run it with and without CUDA_CACHE_DISABLE=1.
//   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_startup peers/cub/startup.cu && ./cub_startup
#include <chrono>
#include <cstdio>
#include <cub/device/device_select.cuh>
#include <vector>

using Clock = std::chrono::steady_clock;

static double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Less {
  unsigned threshold;
  __host__ __device__ bool operator()(unsigned x) const { return x < threshold; }
};

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e = (call);                                                      \
    if (e != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));            \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main() {
  const int n = 1 << 20;
  std::vector<unsigned> host(n);
  for (int i = 0; i < n; ++i) host[i] = (unsigned)i * 2654435761u;
  auto t0 = Clock::now();
  CHECK(cudaFree(0));
  double init = ms_since(t0);
  auto t1 = Clock::now();
  unsigned *in, *out;
  int *count;
  CHECK(cudaMalloc(&in, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&out, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&count, sizeof(int)));
  CHECK(cudaMemcpy(in, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  size_t temp_bytes = 0;
  Less keep{0x80000000u};
  CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, in, out, count, n, keep));
  void *temp;
  CHECK(cudaMalloc(&temp, temp_bytes));
  CHECK(cub::DeviceSelect::If(temp, temp_bytes, in, out, count, n, keep));
  int kept = 0;
  CHECK(cudaMemcpy(&kept, count, sizeof(int), cudaMemcpyDeviceToHost));
  double first = ms_since(t1);
  std::printf("cub startup: cudaFree(0) %.1f ms, first select result %.1f ms later (%d kept of %d)\n", init, first,
              kept, n);
  return 0;
}
