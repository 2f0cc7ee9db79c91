// What the expansion prototypes of this folder share (included by `expand_unordered.cu` and
// `expand_unordered_pdl.cu`): the error check, the kernel that holds the stream while a timed
// launch is queued, the warp's scan of its lanes' counts, and the election of the grid's last
// block.
#pragma once
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

// Spins until the host sets `flag`, so that the launches queued behind it start together (the
// way `warpwork bench` times a launch).
__global__ void hold(volatile uint32_t* flag) { while (*flag == 0) {} }

// The warp's sources, from each lane's K counts `c` (sources 32*K*w + K*lane + j): each
// source's first item in the warp (p), the lane's first (excl) and the warp's total.
template <int K>
__device__ __forceinline__ void warp_scan_counts(const uint32_t (&c)[K], uint32_t lane, uint32_t (&p)[K],
                                                 uint32_t& excl, uint32_t& total) {
  uint32_t sum = 0;
#pragma unroll
  for (int j = 0; j < K; j++) sum += c[j];
  uint32_t incl = sum;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) { uint32_t y = __shfl_up_sync(~0u, incl, d); if (lane >= d) incl += y; }
  total = __shfl_sync(~0u, incl, 31);
  excl = incl - sum;
  uint32_t r = excl;
#pragma unroll
  for (int j = 0; j < K; j++) { p[j] = r; r += c[j]; }
}

// True in every thread of the last block of the grid to get here (each block counts itself out
// in `exits`): that block resets the launch's shared words for the next launch, after seeing
// every other block's writes (the fences on both sides of the count).
__device__ __forceinline__ bool last_block_out(uint32_t* exits) {
  __shared__ uint32_t last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(exits, 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (last) __threadfence();
  return last;
}
