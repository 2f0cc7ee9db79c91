// Prototype, not shipped: a one-launch expansion whose output is in no particular order (each
// warp's items contiguous, the warps in the order their atomics land), to measure what such a
// strategy could give `Strategy::AUTO` on small inputs. Results and what they mean:
// docs/expand-history.md ("A one launch in no order"). Each warp scans its 32*K counts with
// shuffles and takes its output base with one atomicAdd. A warp with at most BUDGET items
// writes them itself, each lane finding an item's source by a shuffle binary search; a heavier
// warp appends itself to a list of heavy warps, and every warp, once its own items are out,
// walks the list from the start (skipping the prefix known to be used up), claiming chunks of
// CHUNK items of each entry with an atomicAdd on the entry's own counter (a ticket past its
// chunks means: next entry), until the list's end. No warp waits for another to start: an entry
// is reserved only by a running warp, and a warp leaves at the list's end (an entry appended
// later is walked by its own warp). Every result is checked on the host (each source's items
// present once: counts, locals in range, and their sum). Timed like `warpwork bench`: the stream
// held by a spinning kernel while the launch is queued, events around the launch, median of 21.
//
//   cargo run --release -p warpwork-cpu-reference --example dump_counts -- counts
//   nvcc -O3 -std=c++17 -arch=sm_90 -o expand_unordered lab/expand_unordered.cu
//   ./expand_unordered counts
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#include "expand_lab.cuh"

struct Ctrl { uint32_t cursor, exits, heavy, open; };  // open: no entry before it has chunks left
struct Heavy { uint32_t w, n, next, pad; };

// This lane's K sources of warp w: each one's first item in the warp (p), the lane's first
// (excl) and the warp's total.
template <int K>
__device__ __forceinline__ void warp_sources(const uint32_t* counts, uint32_t p1, uint32_t w, uint32_t lane,
                                             uint32_t (&p)[K], uint32_t& excl, uint32_t& total) {
  const uint32_t first = w * 32 * K + lane * K;
  uint32_t c[K];
#pragma unroll
  for (int j = 0; j < K; j++) c[j] = first + j < p1 ? counts[first + j] : 0;
  warp_scan_counts<K>(c, lane, p, excl, total);
}

// Items begin..end of warp w (whose items start at base), 32 at a time.
template <int K>
__device__ __forceinline__ void walk(uint32_t w, uint32_t lane, const uint32_t (&p)[K], uint32_t excl,
                                     uint32_t begin, uint32_t end, uint32_t base, uint2* out) {
  for (uint32_t i0 = begin; i0 < end; i0 += 32) {
    const uint32_t idx = i0 + lane;
    uint32_t L = 0;  // the last lane whose first item is at most idx
#pragma unroll
    for (int step = 16; step > 0; step >>= 1) {
      uint32_t e = __shfl_sync(~0u, excl, L + step);
      if (e <= idx) L += step;
    }
    uint32_t s = 0, loc = 0;
#pragma unroll
    for (int j = 0; j < K; j++) {
      uint32_t pj = __shfl_sync(~0u, p[j], L);
      if (pj <= idx) { s = j; loc = idx - pj; }
    }
    if (idx < end) out[base + idx] = make_uint2(w * 32 * K + L * K + s, loc);
  }
}

template <int K, uint32_t BUDGET, uint32_t CHUNK>
__global__ void __launch_bounds__(256) once_atomic(const uint32_t* __restrict__ counts, uint32_t p1, uint2* out,
                                                   Ctrl* ctrl, uint32_t* wbase, Heavy* list) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  uint32_t p[K], excl, total;
  warp_sources<K>(counts, p1, w, lane, p, excl, total);
  uint32_t base = 0;
  if (lane == 0 && total) base = atomicAdd(&ctrl->cursor, total);
  base = __shfl_sync(~0u, base, 0);
  if (total <= BUDGET) {
    walk<K>(w, lane, p, excl, 0, total, base, out);
  } else if (lane == 0) {
    wbase[w] = base;
    const uint32_t i = atomicAdd(&ctrl->heavy, 1);
    list[i].n = (total + CHUNK - 1) / CHUNK;
    __threadfence();
    *(volatile uint32_t*)&list[i].w = w + 1;
  }
  __syncwarp();
  for (uint32_t pos = 0;;) {
    uint32_t hw = 0, c = 0, status = 0;  // 0: leave, 1: chunk c of warp hw, 2: entry exhausted
    if (lane == 0) {
      pos = max(pos, *(volatile uint32_t*)&ctrl->open);
      if (pos < *(volatile uint32_t*)&ctrl->heavy) {
        uint32_t v;
        do { v = *(volatile uint32_t*)&list[pos].w; } while (v == 0);
        __threadfence();
        const uint32_t n = *(volatile uint32_t*)&list[pos].n;
        status = 2;
        if (*(volatile uint32_t*)&list[pos].next < n) {
          c = atomicAdd(&list[pos].next, 1);
          if (c < n) { status = 1; hw = v - 1; }
        }
        if (status == 2) atomicMax(&ctrl->open, pos + 1);
      }
    }
    status = __shfl_sync(~0u, status, 0);
    if (status == 0) break;
    if (status == 2) { pos++; continue; }  // lane 0's pos only matters
    hw = __shfl_sync(~0u, hw, 0);
    c = __shfl_sync(~0u, c, 0);
    uint32_t hp[K], hexcl, htotal;
    warp_sources<K>(counts, p1, hw, lane, hp, hexcl, htotal);
    const uint32_t hb = *(volatile uint32_t*)&wbase[hw];
    walk<K>(hw, lane, hp, hexcl, c * CHUNK, min((c + 1) * CHUNK, htotal), hb, out);
  }
  // The last block out clears the list and the counters for the next launch.
  if (last_block_out(&ctrl->exits)) {
    const uint32_t heavy = *(volatile uint32_t*)&ctrl->heavy;
    for (uint32_t i = threadIdx.x; i < heavy; i += blockDim.x) list[i] = Heavy{0, 0, 0, 0};
    if (threadIdx.x == 0) { ctrl->cursor = 0; ctrl->exits = 0; ctrl->heavy = 0; ctrl->open = 0; }
  }
}

template <int K, uint32_t BUDGET, uint32_t CHUNK>
void run(const std::string& name, int lg, const std::vector<uint32_t>& h, int reps) {
  uint32_t p1 = h.size();
  uint64_t total = 0; for (auto x : h) total += x;
  uint32_t warps = (p1 + 32 * K - 1) / (32 * K), blocks = (warps + 7) / 8;
  uint64_t qn = warps + 1;
  uint32_t *d_counts, *wbase; Ctrl* ctrl; uint2* out; Heavy* q;
  CK(cudaMalloc(&d_counts, 4ull * p1 + 16)); CK(cudaMalloc(&ctrl, sizeof(Ctrl))); CK(cudaMalloc(&out, 8ull * total + 8));
  CK(cudaMalloc(&wbase, 4ull * blocks * 8)); CK(cudaMalloc(&q, sizeof(Heavy) * qn));
  CK(cudaMemcpy(d_counts, h.data(), 4ull * p1, cudaMemcpyHostToDevice)); CK(cudaMemset(ctrl, 0, sizeof(Ctrl)));
  CK(cudaMemset(q, 0, sizeof(Heavy) * qn));
  // Those memsets run on the legacy default stream, asynchronously, and the launches' stream is a
  // non-blocking one that does not wait for it: the first launch could start on stale control
  // words left in reused memory (a wrong result, or a launch that never ends).
  CK(cudaDeviceSynchronize());
  uint32_t* flag; CK(cudaHostAlloc(&flag, 4, cudaHostAllocMapped));
  cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> t;
  uint64_t bad = 0;
  for (int r = 0; r < reps + 3; r++) {
    bool check = r == 0 || r == reps + 2;
    if (check) CK(cudaMemsetAsync(out, 0xff, 8ull * total, st));
    *(volatile uint32_t*)flag = 0;
    hold<<<1, 1, 0, st>>>(flag);
    CK(cudaEventRecord(a, st));
    once_atomic<K, BUDGET, CHUNK><<<blocks, 256, 0, st>>>(d_counts, p1, out, ctrl, wbase, q);
    CK(cudaEventRecord(b, st));
    *(volatile uint32_t*)flag = 1;
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r >= 2 && !check) t.push_back(ms);
    if (check) {
      std::vector<uint2> o(total); CK(cudaMemcpy(o.data(), out, 8ull * total, cudaMemcpyDeviceToHost));
      std::vector<uint32_t> seen(p1, 0); std::vector<uint64_t> lsum(p1, 0);
      for (auto& x : o) { if (x.x >= p1 || x.y >= h[x.x]) { bad++; continue; } seen[x.x]++; lsum[x.x] += x.y; }
      for (uint32_t s = 0; s < p1; s++)
        if (seen[s] != h[s] || lsum[s] != (uint64_t)h[s] * (h[s] - (h[s] > 0)) / 2) bad++;
    }
  }
  std::sort(t.begin(), t.end());
  float med = t[t.size() / 2];
  printf("| %-20s | 2^%d | K=%d B=%5u C=%5u | %9llu | %8.4f | %7.1f G/s |%s\n", name.c_str(), lg, K, BUDGET, CHUNK,
         (unsigned long long)total, med, total / (med * 1e-3) / 1e9, bad ? " CHECK FAILED" : "");
  cudaFree(d_counts); cudaFree(ctrl); cudaFree(out); cudaFree(wbase); cudaFree(q); cudaFreeHost(flag);
  cudaStreamDestroy(st); cudaEventDestroy(a); cudaEventDestroy(b);
}

int main(int argc, char** argv) {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("device: %s\n", prop.name);
  printf("| distribution | P1 | config | items | ms | items/s |\n|---|---|---|---|---|---|\n");
  for (int lg : {16, 18, 20}) {
    for (int k = 0; k < 7; k++) {
      std::string path = std::string(argv[1]) + "/d" + std::to_string(k) + "_" + std::to_string(lg) + ".bin";
      FILE* f = fopen(path.c_str(), "rb"); if (!f) { printf("no %s\n", path.c_str()); return 1; }
      char name[33] = {0}; if (fread(name, 1, 32, f) != 32) return 1;
      std::vector<uint32_t> c(1u << lg); if (fread(c.data(), 4, c.size(), f) != c.size()) return 1; fclose(f);
      run<1, 4096, 4096>(name, lg, c, 21); run<2, 8192, 4096>(name, lg, c, 21);
      run<4, 8192, 4096>(name, lg, c, 21); run<4, 4096, 2048>(name, lg, c, 21); run<4, 16384, 8192>(name, lg, c, 21);
    }
  }
}
