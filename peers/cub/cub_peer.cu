// warpwork's CUB peer: the CUB calls that warpwork's benchmarks compare against, behind a C ABI.
// `warpwork bench reduce` looks its entries (ww_cub_reduce_*, ww_cub_arg_reduce_*,
// ww_cub_segmented_sum_*) up by name when it runs.
//
// Built with nvcc on a GPU machine (peers/cub/build.sh) into libwarpwork_cub_peer.so, which
// `warpwork bench compact|expand|scan` loads at run time (WARPWORK_CUB_PEER, or the file next to
// the `warpwork` binary). The Rust side times each call with the same CUDA-event timer as
// warpwork's own rows, on the same device buffers and stream.
//
// Conventions (CUB's own):
// * Every operation is one function taking `temp` and `temp_bytes`. With `temp == NULL` it only
//   writes the temporary storage it needs into `*temp_bytes` and queues nothing; otherwise it
//   queues the work on `stream` (a `CUstream` / `cudaStream_t`; NULL is the legacy default
//   stream) and returns without waiting. The caller allocates `temp` once per (operation, n),
//   outside any timed region.
// * Pointers are device pointers; the return value is a `cudaError_t` (0 = success), whose text
//   `ww_cub_error_string` gives.
// * The CUDA runtime uses the device's primary context, the one cudarc's `CudaContext::new`
//   retains, so device pointers and streams from the Rust side are valid here as they are.
// * Built without `--default-stream per-thread`: a NULL stream means the legacy default stream,
//   which is warpwork's `Gpu::stream`.

#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

// Bumped whenever a signature below changes; the Rust loader refuses another version.
#define WW_CUB_ABI_VERSION 2u

namespace {

// Threads per block of the expansion's pass 2.
constexpr int kPass2Threads = 256;
// Alignment of the pieces carved out of one temporary allocation.
constexpr size_t kAlign = 256;

size_t align_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// warpwork's `Predicate::Less(threshold)` on u32 items.
struct LessThan {
  uint32_t threshold;
  __host__ __device__ __forceinline__ bool operator()(const uint32_t& item) const { return item < threshold; }
};

// CUB's 32-bit offset path takes `num_items` as a 32-bit count: the fastest, and what a CUB user
// with `int num_items` gets. Larger inputs are refused rather than silently switched.
bool fits_u32(uint64_t n) { return n <= UINT32_MAX; }

template <typename T>
int exclusive_sum(void* temp, size_t* temp_bytes, const T* in, T* out, uint64_t n, cudaStream_t stream) {
  if (temp_bytes == nullptr || !fits_u32(n)) return cudaErrorInvalidValue;
  return cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, in, out, static_cast<uint32_t>(n), stream);
}

// cub::DeviceReduce::Sum / Min / Max (op 0, 1, 2) of n items into out[0].
template <typename T>
int reduce_items(int op, void* temp, size_t* temp_bytes, const T* in, T* out, uint64_t n, cudaStream_t stream) {
  if (temp_bytes == nullptr || !fits_u32(n)) return cudaErrorInvalidValue;
  const uint32_t items = static_cast<uint32_t>(n);
  switch (op) {
    case 0: return cub::DeviceReduce::Sum(temp, *temp_bytes, in, out, items, stream);
    case 1: return cub::DeviceReduce::Min(temp, *temp_bytes, in, out, items, stream);
    case 2: return cub::DeviceReduce::Max(temp, *temp_bytes, in, out, items, stream);
    default: return cudaErrorInvalidValue;
  }
}

// cub::DeviceReduce::ArgMin (max == 0) or ArgMax (max != 0), the overload with separate value and
// index outputs (CCCL 2.8 and newer; the KeyValuePair one is deprecated).
template <typename T>
int arg_reduce_items(int max, void* temp, size_t* temp_bytes, const T* in, T* value, int64_t* index, uint64_t n,
                     cudaStream_t stream) {
  if (temp_bytes == nullptr || n > static_cast<uint64_t>(INT64_MAX)) return cudaErrorInvalidValue;
  const int64_t items = static_cast<int64_t>(n);
  if (max) return cub::DeviceReduce::ArgMax(temp, *temp_bytes, in, value, index, items, stream);
  return cub::DeviceReduce::ArgMin(temp, *temp_bytes, in, value, index, items, stream);
}

// cub::DeviceSegmentedReduce::Sum over `segments` segments given by segments + 1 offsets
// (segment s is in[offsets[s] .. offsets[s + 1]]).
template <typename T>
int segmented_sum_items(void* temp, size_t* temp_bytes, const T* in, T* out, const int64_t* offsets,
                        uint64_t segments, cudaStream_t stream) {
  if (temp_bytes == nullptr || segments > static_cast<uint64_t>(INT32_MAX)) return cudaErrorInvalidValue;
  return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, in, out, static_cast<int>(segments), offsets,
                                         offsets + 1, stream);
}

// Pass 2 of the expansion: destination item `i` belongs to the last source whose exclusive
// offset is at most `i` (an upper-bound binary search over the offsets), and is that source's
// item `i - offsets[src]`. A grid-stride loop over the total, which is read on the device, so no
// host synchronization sits between the scan and this pass (warpwork's `Dispatch::Persistent`).
// Items at or past `capacity` are not written; block 0 reports the total.
__global__ void __launch_bounds__(kPass2Threads)
    expand_pass2(const uint32_t* __restrict__ counts, const uint32_t* __restrict__ offsets, uint32_t p1,
                 uint2* __restrict__ pairs, uint32_t capacity, uint32_t* __restrict__ total_out) {
  const uint32_t total = offsets[p1 - 1] + counts[p1 - 1];
  if (blockIdx.x == 0 && threadIdx.x == 0) *total_out = total;
  const uint32_t end = total < capacity ? total : capacity;
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < end; i += stride) {
    uint32_t lo = 0, hi = p1;  // first source whose offset exceeds i
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (__ldg(offsets + mid) <= i) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const uint32_t src = lo - 1;
    pairs[i] = make_uint2(src, i - __ldg(offsets + src));
    if (i > UINT32_MAX - stride) break;  // the next index would wrap
  }
}

// Blocks of a full wave of `expand_pass2` on the current device (occupancy × SMs), computed once
// per device: queried on every call it would add host time to the timed region.
int pass2_wave(int* blocks) {
  static std::atomic<int> cached[64] = {};
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  if (device >= 0 && device < 64 && cached[device].load(std::memory_order_relaxed) > 0) {
    *blocks = cached[device].load(std::memory_order_relaxed);
    return cudaSuccess;
  }
  int sms = 0, per_sm = 0;
  if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess) return e;
  if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, expand_pass2, kPass2Threads, 0)) != cudaSuccess)
    return e;
  *blocks = (per_sm > 0 ? per_sm : 1) * sms;
  if (device >= 0 && device < 64) cached[device].store(*blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

}  // namespace

extern "C" {

// The ABI version of this library (WW_CUB_ABI_VERSION).
uint32_t ww_cub_abi_version(void) { return WW_CUB_ABI_VERSION; }

// CUB's version, as CUB_VERSION (major * 100000 + minor * 100 + patch).
int ww_cub_version(void) { return CUB_VERSION; }

// The CUDA runtime this library was built with (CUDART_VERSION, e.g. 13000).
int ww_cub_runtime_version(void) { return CUDART_VERSION; }

// The text of a `cudaError_t` returned by this library.
const char* ww_cub_error_string(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

// out[i] = in[0] + ... + in[i-1] (wrapping), out[0] = 0: cub::DeviceScan::ExclusiveSum.
int ww_cub_exclusive_sum_u32(void* temp, size_t* temp_bytes, const uint32_t* in, uint32_t* out, uint64_t n,
                             void* stream) {
  return exclusive_sum(temp, temp_bytes, in, out, n, static_cast<cudaStream_t>(stream));
}

int ww_cub_exclusive_sum_u64(void* temp, size_t* temp_bytes, const uint64_t* in, uint64_t* out, uint64_t n,
                             void* stream) {
  return exclusive_sum(temp, temp_bytes, in, out, n, static_cast<cudaStream_t>(stream));
}

// Keeps in[i] where flags[i] != 0, in input order, into out; *num_selected = how many
// (cub::DeviceSelect::Flagged). `out` must hold n items.
int ww_cub_select_flagged_u32(void* temp, size_t* temp_bytes, const uint32_t* in, const uint8_t* flags, uint32_t* out,
                              uint32_t* num_selected, uint64_t n, void* stream) {
  if (temp_bytes == nullptr || !fits_u32(n)) return cudaErrorInvalidValue;
  return cub::DeviceSelect::Flagged(temp, *temp_bytes, in, flags, out, num_selected, static_cast<int64_t>(n),
                                    static_cast<cudaStream_t>(stream));
}

// Keeps the items below `threshold`, in input order (cub::DeviceSelect::If with warpwork's
// `Predicate::Less`). `out` must hold n items.
int ww_cub_select_less_u32(void* temp, size_t* temp_bytes, const uint32_t* in, uint32_t threshold, uint32_t* out,
                           uint32_t* num_selected, uint64_t n, void* stream) {
  if (temp_bytes == nullptr || !fits_u32(n)) return cudaErrorInvalidValue;
  return cub::DeviceSelect::If(temp, *temp_bytes, in, out, num_selected, static_cast<int64_t>(n),
                               LessThan{threshold}, static_cast<cudaStream_t>(stream));
}

// Stable partition: the items below `threshold` first in input order, the others after them in
// reverse input order (cub::DevicePartition::If). `out` must hold n items.
int ww_cub_partition_less_u32(void* temp, size_t* temp_bytes, const uint32_t* in, uint32_t threshold, uint32_t* out,
                              uint32_t* num_selected, uint64_t n, void* stream) {
  if (temp_bytes == nullptr || !fits_u32(n)) return cudaErrorInvalidValue;
  return cub::DevicePartition::If(temp, *temp_bytes, in, out, num_selected, static_cast<int64_t>(n),
                                  LessThan{threshold}, static_cast<cudaStream_t>(stream));
}

// Stable partition by flag (cub::DevicePartition::Flagged): flagged items first in input order,
// the others after them in reverse input order. `out` must hold n items.
int ww_cub_partition_flagged_u32(void* temp, size_t* temp_bytes, const uint32_t* in, const uint8_t* flags,
                                 uint32_t* out, uint32_t* num_selected, uint64_t n, void* stream) {
  if (temp_bytes == nullptr || !fits_u32(n)) return cudaErrorInvalidValue;
  return cub::DevicePartition::Flagged(temp, *temp_bytes, in, flags, out, num_selected, static_cast<int64_t>(n),
                                       static_cast<cudaStream_t>(stream));
}

// Drops consecutive duplicates (cub::DeviceSelect::Unique). `out` must hold n items.
int ww_cub_unique_u32(void* temp, size_t* temp_bytes, const uint32_t* in, uint32_t* out, uint32_t* num_selected,
                      uint64_t n, void* stream) {
  if (temp_bytes == nullptr || !fits_u32(n)) return cudaErrorInvalidValue;
  return cub::DeviceSelect::Unique(temp, *temp_bytes, in, out, num_selected, static_cast<int64_t>(n),
                                   static_cast<cudaStream_t>(stream));
}

// The first (key, value) of every run of equal keys (cub::DeviceSelect::UniqueByKey). The
// outputs must hold n items each.
int ww_cub_unique_by_key_u32(void* temp, size_t* temp_bytes, const uint32_t* keys, const uint32_t* values,
                             uint32_t* keys_out, uint32_t* values_out, uint32_t* num_selected, uint64_t n,
                             void* stream) {
  if (temp_bytes == nullptr || !fits_u32(n)) return cudaErrorInvalidValue;
  return cub::DeviceSelect::UniqueByKey(temp, *temp_bytes, keys, values, keys_out, values_out, num_selected,
                                        static_cast<int64_t>(n), static_cast<cudaStream_t>(stream));
}

// Run-length encoding (cub::DeviceRunLengthEncode::Encode): each run's item and length. The
// outputs must hold n items each. `int` counts: CUB's signature takes them (n < 2^31).
int ww_cub_rle_encode_u32(void* temp, size_t* temp_bytes, const uint32_t* in, uint32_t* unique_out,
                          uint32_t* lengths_out, uint32_t* num_runs, uint64_t n, void* stream) {
  if (temp_bytes == nullptr || n > INT32_MAX) return cudaErrorInvalidValue;
  return cub::DeviceRunLengthEncode::Encode(temp, *temp_bytes, in, unique_out, lengths_out, num_runs,
                                            static_cast<int>(n), static_cast<cudaStream_t>(stream));
}

// The runs longer than one item (cub::DeviceRunLengthEncode::NonTrivialRuns): each one's offset
// and length. The outputs must hold n items each.
int ww_cub_rle_non_trivial_u32(void* temp, size_t* temp_bytes, const uint32_t* in, uint32_t* offsets_out,
                               uint32_t* lengths_out, uint32_t* num_runs, uint64_t n, void* stream) {
  if (temp_bytes == nullptr || n > INT32_MAX) return cudaErrorInvalidValue;
  return cub::DeviceRunLengthEncode::NonTrivialRuns(temp, *temp_bytes, in, offsets_out, lengths_out, num_runs,
                                                    static_cast<int>(n), static_cast<cudaStream_t>(stream));
}

// Work expansion the CUB way: an exclusive scan of the counts (cub::DeviceScan::ExclusiveSum into
// an offsets array in `temp`), then the binary-search pass 2 above, writing the (src, local)
// pairs of every destination item in canonical order (source-major, local ascending) as two u32
// each into `pairs` (at most `capacity` pairs). *total = the number of destination items, which
// may exceed `capacity` (the pairs past it are not written). Totals wrap at 2^32.
int ww_cub_expand(void* temp, size_t* temp_bytes, const uint32_t* counts, uint64_t p1, uint32_t* pairs,
                  uint64_t capacity, uint32_t* total, void* stream) {
  if (temp_bytes == nullptr || !fits_u32(p1) || !fits_u32(capacity)) return cudaErrorInvalidValue;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  size_t scan_bytes = 0;
  cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, static_cast<uint32_t*>(nullptr),
                                                static_cast<uint32_t>(p1), s);
  if (e != cudaSuccess) return e;
  const size_t offsets_at = align_up(scan_bytes);
  if (temp == nullptr) {
    *temp_bytes = offsets_at + (p1 > 0 ? p1 : 1) * sizeof(uint32_t);
    return cudaSuccess;
  }
  if (*temp_bytes < offsets_at + p1 * sizeof(uint32_t)) return cudaErrorInvalidValue;
  if (p1 == 0) return cudaMemsetAsync(total, 0, sizeof(uint32_t), s);
  uint32_t* offsets = reinterpret_cast<uint32_t*>(static_cast<char*>(temp) + offsets_at);
  e = cub::DeviceScan::ExclusiveSum(temp, scan_bytes, counts, offsets, static_cast<uint32_t>(p1), s);
  if (e != cudaSuccess) return e;
  int wave = 0;
  if ((e = static_cast<cudaError_t>(pass2_wave(&wave))) != cudaSuccess) return e;
  const uint64_t wanted = (capacity + kPass2Threads - 1) / kPass2Threads;
  const int blocks = static_cast<int>(wanted < 1 ? 1 : (wanted < static_cast<uint64_t>(wave) ? wanted : wave));
  expand_pass2<<<blocks, kPass2Threads, 0, s>>>(counts, offsets, static_cast<uint32_t>(p1),
                                                 reinterpret_cast<uint2*>(pairs), static_cast<uint32_t>(capacity),
                                                 total);
  return cudaGetLastError();
}

// The reductions of `warpwork bench reduce` (reduce_items, arg_reduce_items and segmented_sum_items
// above), for u32, u64, f32 and f64. `index` receives the index as an int64_t.
#define WW_CUB_REDUCE(name, T)                                                                                      \
  int ww_cub_reduce_##name(int op, void* temp, size_t* temp_bytes, const T* in, T* out, uint64_t n, void* stream) { \
    return reduce_items(op, temp, temp_bytes, in, out, n, static_cast<cudaStream_t>(stream));                      \
  }                                                                                                                 \
  int ww_cub_arg_reduce_##name(int max, void* temp, size_t* temp_bytes, const T* in, T* value, int64_t* index,      \
                               uint64_t n, void* stream) {                                                          \
    return arg_reduce_items(max, temp, temp_bytes, in, value, index, n, static_cast<cudaStream_t>(stream));        \
  }                                                                                                                 \
  int ww_cub_segmented_sum_##name(void* temp, size_t* temp_bytes, const T* in, T* out, const int64_t* offsets,     \
                                  uint64_t segments, void* stream) {                                                \
    return segmented_sum_items(temp, temp_bytes, in, out, offsets, segments, static_cast<cudaStream_t>(stream));   \
  }
WW_CUB_REDUCE(u32, uint32_t)
WW_CUB_REDUCE(u64, uint64_t)
WW_CUB_REDUCE(f32, float)
WW_CUB_REDUCE(f64, double)
#undef WW_CUB_REDUCE

}  // extern "C"
