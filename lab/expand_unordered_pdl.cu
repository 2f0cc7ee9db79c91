// Prototype, not shipped: the one-launch expansion in no order of `expand_unordered.cu`, its
// heavy work moved to a second, *programmatic dependent* launch. Kernel A (one warp per 32*K
// sources) scans its counts with shuffles, takes its output base with one atomic (per warp or,
// "blk", per block) and, where the warp's total is at most BUDGET, writes its items at once
// (two items per lane, one 16-byte store); a heavier warp publishes an entry (its base and its
// chunks of CHUNK items). Every warp then counts itself classified. Kernel B (G blocks per
// multiprocessor, launched with programmatic stream serialization, so that it starts once every
// block of A has started) walks the entries, claiming chunks with an atomic on each entry's
// counter, until every warp of A is classified and no entry has chunks left, sleeping S ns
// between polls. B may wait for A's warps: each of them started before any block of B did, so
// the wait is on running blocks only. B's last block clears the control words. Results and
// what they mean: docs/expand-history.md ("A heavy path in a dependent launch"). It also times
// two floors in the same way: an empty launch, and one launch that only writes the 16.5 MB of
// uniform 2^16's output. Every result is checked on the host (each source's items present once),
// and the control words are checked cleared after every checked run.
//
//   cargo run --release -p warpwork-cpu-reference --example dump_counts -- counts
//   nvcc -O3 -std=c++17 -arch=sm_90 -o expand_unordered_pdl lab/expand_unordered_pdl.cu
//   ./expand_unordered_pdl counts              # floors, then every distribution at 2^16 and 2^18
//   ./expand_unordered_pdl counts small        # only the distributions whose name holds "small"
//   PACED=1 ./expand_unordered_pdl counts floors  # floors only, no held stream (for a profiler)
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#include "expand_lab.cuh"

struct __align__(128) Ctrl {
  uint32_t cursor; uint32_t pad0[31];
  uint32_t classified, heavy, open, exits; uint32_t pad1[28];
};
struct Heavy { uint32_t w, base, n, next; };

__global__ void empty_kernel() {}
__global__ void fill(uint4* out, uint32_t n4) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) out[i] = make_uint4(i, i, i, i);
}

__device__ __forceinline__ void red_release_add(uint32_t* a, uint32_t v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(a), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire(const uint32_t* a) {
  uint32_t v; asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory"); return v;
}
__device__ __forceinline__ uint32_t ld_relaxed(const uint32_t* a) {
  uint32_t v; asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory"); return v;
}
__device__ __forceinline__ void st_release(uint32_t* a, uint32_t v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(a), "r"(v) : "memory");
}

// This lane's K sources of warp w: each one's first item in the warp (p), the lane's first
// (excl) and the warp's total.
template <int K>
__device__ __forceinline__ void warp_sources(const uint32_t* counts, uint32_t p1, uint32_t w, uint32_t lane,
                                             uint32_t (&p)[K], uint32_t& excl, uint32_t& total) {
  const uint32_t first = w * 32 * K + lane * K;
  uint32_t c[K];
  if (K == 4 && first + 4 <= p1) {
    const uint4 v = *reinterpret_cast<const uint4*>(counts + first);
    c[0] = v.x; c[K > 1 ? 1 : 0] = v.y; c[K > 2 ? 2 : 0] = v.z; c[K > 3 ? 3 : 0] = v.w;
  } else {
#pragma unroll
    for (int j = 0; j < K; j++) c[j] = first + j < p1 ? counts[first + j] : 0;
  }
  warp_scan_counts<K>(c, lane, p, excl, total);
}

// Item idx of the warp: its lane L and that lane's source s, and its local number.
template <int K>
__device__ __forceinline__ void find(uint32_t idx, uint32_t excl, const uint32_t (&p)[K], uint32_t& L, uint32_t& s, uint32_t& loc) {
  L = 0;
#pragma unroll
  for (int step = 16; step > 0; step >>= 1) {
    const uint32_t e = __shfl_sync(~0u, excl, L + step);
    if (e <= idx) L += step;
  }
  s = 0; loc = idx - __shfl_sync(~0u, excl, L);
#pragma unroll
  for (int j = 1; j < K; j++) {
    const uint32_t pj = __shfl_sync(~0u, p[j], L);
    if (pj <= idx) { s = j; loc = idx - pj; }
  }
}

// Items begin..end of the warp whose sources start at `first` and whose items start at base:
// pairs of output positions from an even one, one 16-byte store per full pair.
template <int K>
__device__ __forceinline__ void walk2(uint32_t first, uint32_t lane, const uint32_t (&p)[K], uint32_t excl,
                                      uint32_t begin, uint32_t end, uint32_t base, uint2* out) {
  const uint32_t lo = base + begin, hi = base + end;
  for (uint32_t q0 = lo & ~1u; q0 < hi; q0 += 64) {
    const uint32_t q = q0 + 2 * lane;
    const uint32_t i0 = q - base;
    uint32_t L0, s0, l0, L1, s1, l1;
    find<K>(i0, excl, p, L0, s0, l0);
    find<K>(i0 + 1, excl, p, L1, s1, l1);
    const bool v0 = q >= lo && q < hi, v1 = q + 1 >= lo && q + 1 < hi;
    const uint2 a = make_uint2(first + L0 * K + s0, l0), b = make_uint2(first + L1 * K + s1, l1);
    if (v0 && v1) *reinterpret_cast<uint4*>(out + q) = make_uint4(a.x, a.y, b.x, b.y);
    else if (v0) out[q] = a;
    else if (v1) out[q + 1] = b;
  }
}

template <int K, uint32_t BUDGET, uint32_t CHUNK, bool PERBLOCK>
__global__ void __launch_bounds__(256) light(const uint32_t* __restrict__ counts, uint32_t p1, uint2* out, Ctrl* ctrl, Heavy* list) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const uint32_t lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  const uint32_t w = blockIdx.x * 8 + wib;
  uint32_t p[K], excl, total;
  warp_sources<K>(counts, p1, w, lane, p, excl, total);
  uint32_t base = 0;
  if (PERBLOCK) {
    __shared__ uint32_t wt[8];
    __shared__ uint32_t bb;
    if (lane == 0) wt[wib] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
      uint32_t s = 0;
      for (int i = 0; i < 8; i++) { const uint32_t t = wt[i]; wt[i] = s; s += t; }
      bb = s ? atomicAdd(&ctrl->cursor, s) : 0;
    }
    __syncthreads();
    base = bb + wt[wib];
  } else {
    if (lane == 0 && total) base = atomicAdd(&ctrl->cursor, total);
    base = __shfl_sync(~0u, base, 0);
  }
  if (total <= BUDGET) {
    if (lane == 0) red_release_add(&ctrl->classified, 1);
    walk2<K>(w * 32 * K, lane, p, excl, 0, total, base, out);
  } else if (lane == 0) {
    const uint32_t i = atomicAdd(&ctrl->heavy, 1);
    list[i].base = base;
    list[i].n = (total + CHUNK - 1) / CHUNK;
    st_release(&list[i].w, w + 1);
    red_release_add(&ctrl->classified, 1);
  }
}

template <int K, uint32_t CHUNK>
__global__ void __launch_bounds__(256) helper(const uint32_t* __restrict__ counts, uint32_t p1, uint2* out, Ctrl* ctrl, Heavy* list,
                                              uint32_t nwarps, uint32_t sleep_ns) {
  const uint32_t lane = threadIdx.x & 31;
  uint32_t pos = 0;
  for (;;) {
    uint32_t status = 0, hw = 0, c = 0, hb = 0;  // 0: leave, 1: chunk c of warp hw, 2: entry used up, 3: wait
    if (lane == 0) {
      pos = max(pos, ld_relaxed(&ctrl->open));
      const uint32_t cl = ld_acquire(&ctrl->classified);
      const uint32_t h = ld_relaxed(&ctrl->heavy);
      if (pos < h) {
        uint32_t v;
        while ((v = ld_acquire(&list[pos].w)) == 0) {}
        const uint32_t n = ld_relaxed(&list[pos].n);
        status = 2;
        if (ld_relaxed(&list[pos].next) < n) {
          c = atomicAdd(&list[pos].next, 1);
          if (c < n) { status = 1; hw = v - 1; hb = ld_relaxed(&list[pos].base); }
        }
        if (status == 2) { atomicMax(&ctrl->open, pos + 1); pos++; }
      } else {
        status = cl == nwarps ? 0 : 3;
      }
    }
    status = __shfl_sync(~0u, status, 0);
    if (status == 0) break;
    if (status == 2) continue;
    if (status == 3) { __nanosleep(sleep_ns); continue; }
    hw = __shfl_sync(~0u, hw, 0);
    c = __shfl_sync(~0u, c, 0);
    hb = __shfl_sync(~0u, hb, 0);
    uint32_t hp[K], hexcl, htotal;
    warp_sources<K>(counts, p1, hw, lane, hp, hexcl, htotal);
    walk2<K>(hw * 32 * K, lane, hp, hexcl, c * CHUNK, min((c + 1) * CHUNK, htotal), hb, out);
  }
  if (last_block_out(&ctrl->exits)) {
    const uint32_t h = *(volatile uint32_t*)&ctrl->heavy;
    for (uint32_t i = threadIdx.x; i < h; i += blockDim.x) list[i] = Heavy{0, 0, 0, 0};
    if (threadIdx.x == 0) { ctrl->cursor = 0; ctrl->classified = 0; ctrl->heavy = 0; ctrl->open = 0; ctrl->exits = 0; }
  }
}

static int g_sms = 132;
static cudaStream_t st;
static cudaEvent_t ev_a, ev_b;
static uint32_t* flag;
static bool g_paced = false;  // PACED=1: no held stream (what a profiler needs)

template <typename F>
float timed(F launch, int reps, std::vector<float>* all = nullptr) {
  std::vector<float> t;
  for (int r = 0; r < reps + 2; r++) {
    *(volatile uint32_t*)flag = 0;
    if (!g_paced) hold<<<1, 1, 0, st>>>(flag);
    CK(cudaEventRecord(ev_a, st));
    launch();
    CK(cudaEventRecord(ev_b, st));
    *(volatile uint32_t*)flag = 1;
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    float ms; CK(cudaEventElapsedTime(&ms, ev_a, ev_b)); if (r >= 2) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <int K, uint32_t BUDGET, uint32_t CHUNK, bool PERBLOCK>
void run(const std::string& name, int lg, const std::vector<uint32_t>& h, int reps, int gmul, bool pdl, uint32_t sleep_ns) {
  uint32_t p1 = h.size();
  uint64_t total = 0; for (auto x : h) total += x;
  uint32_t warps = (p1 + 32 * K - 1) / (32 * K), blocks = (warps + 7) / 8, nwarps = blocks * 8;
  uint32_t *d_counts; Ctrl* ctrl; uint2* out; Heavy* q;
  CK(cudaMalloc(&d_counts, 4ull * p1 + 16)); CK(cudaMalloc(&ctrl, sizeof(Ctrl))); CK(cudaMalloc(&out, 8ull * total + 16));
  CK(cudaMalloc(&q, sizeof(Heavy) * (nwarps + 1)));
  CK(cudaMemcpy(d_counts, h.data(), 4ull * p1, cudaMemcpyHostToDevice)); CK(cudaMemset(ctrl, 0, sizeof(Ctrl)));
  CK(cudaMemset(q, 0, sizeof(Heavy) * (nwarps + 1)));
  // Those memsets run on the legacy default stream, asynchronously, and the launches' stream is a
  // non-blocking one that does not wait for it: the first launch could start on stale control
  // words left in reused memory (a wrong result, or a launch that never ends).
  CK(cudaDeviceSynchronize());
  const uint32_t gb = g_sms * gmul;
  auto launch = [&]() {
    light<K, BUDGET, CHUNK, PERBLOCK><<<blocks, 256, 0, st>>>(d_counts, p1, out, ctrl, q);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(gb); cfg.blockDim = dim3(256); cfg.dynamicSmemBytes = 0; cfg.stream = st;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = pdl ? 1 : 0;
    cfg.attrs = attr; cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, helper<K, CHUNK>, (const uint32_t*)d_counts, p1, out, ctrl, q, nwarps, sleep_ns));
  };
  uint64_t bad = 0;
  auto check = [&]() {
    CK(cudaMemsetAsync(out, 0xff, 8ull * total, st));
    launch(); CK(cudaStreamSynchronize(st)); CK(cudaGetLastError());
    std::vector<uint2> o(total); CK(cudaMemcpy(o.data(), out, 8ull * total, cudaMemcpyDeviceToHost));
    std::vector<uint32_t> seen(p1, 0); std::vector<uint64_t> lsum(p1, 0);
    for (auto& x : o) { if (x.x >= p1 || x.y >= h[x.x]) { bad++; continue; } seen[x.x]++; lsum[x.x] += x.y; }
    for (uint32_t s = 0; s < p1; s++)
      if (seen[s] != h[s] || lsum[s] != (uint64_t)h[s] * (h[s] - (h[s] > 0)) / 2) bad++;
    Ctrl hc; CK(cudaMemcpy(&hc, ctrl, sizeof(Ctrl), cudaMemcpyDeviceToHost));
    if (hc.cursor || hc.classified || hc.heavy || hc.open || hc.exits) bad += 1000000;
  };
  check();
  float med = timed(launch, reps);
  check();
  printf("| %-20s | 2^%d | K=%d B=%5u C=%5u %s G=%d×%s s=%u | %9llu | %8.4f |%s\n", name.c_str(), lg, K, BUDGET, CHUNK,
         PERBLOCK ? "blk" : "wrp", gmul, pdl ? "pdl" : "plain", sleep_ns, (unsigned long long)total, med * 1e3, bad ? " CHECK FAILED" : "");
  fflush(stdout);
  cudaFree(d_counts); cudaFree(ctrl); cudaFree(out); cudaFree(q);
}

int main(int argc, char** argv) {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("device: %s\n", prop.name);
  g_sms = prop.multiProcessorCount;
  g_paced = getenv("PACED") != nullptr;
  CK(cudaHostAlloc(&flag, 4, cudaHostAllocMapped));
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CK(cudaEventCreate(&ev_a)); CK(cudaEventCreate(&ev_b));
  const int reps = 21;
  // Floors in the same timing: an empty launch, and one launch writing uniform 2^16's 16.5 MB.
  {
    const uint64_t bytes = 2067988ull * 8;
    uint4* buf; CK(cudaMalloc(&buf, bytes + 16));
    const uint32_t n4 = bytes / 16;
    printf("floor: empty launch %.2f us\n", 1e3 * timed([&] { empty_kernel<<<1, 32, 0, st>>>(); }, reps));
    printf("floor: empty launch, %d blocks %.2f us\n", g_sms * 8, 1e3 * timed([&] { empty_kernel<<<g_sms * 8, 256, 0, st>>>(); }, reps));
    for (int gm : {4, 8, 16})
      printf("floor: fill 16.5 MB, grid %d×256 %.2f us\n", g_sms * gm, 1e3 * timed([&] { fill<<<g_sms * gm, 256, 0, st>>>(buf, n4); }, reps));
    printf("floor: fill 16.5 MB, one thread per 16 B (%u blocks) %.2f us\n", (n4 + 255) / 256, 1e3 * timed([&] { fill<<<(n4 + 255) / 256, 256, 0, st>>>(buf, n4); }, reps));
    printf("floor: cudaMemsetAsync 16.5 MB %.2f us\n", 1e3 * timed([&] { CK(cudaMemsetAsync(buf, 0, bytes, st)); }, reps));
    cudaFree(buf);
  }
  const char* only = argc > 2 ? argv[2] : "";
  if (!strcmp(only, "floors")) return 0;
  printf("| distribution | P1 | config | items | us |\n|---|---|---|---|---|\n");
  for (int lg : {16, 18}) {
    for (int k = 0; k < 7; k++) {
      std::string path = std::string(argv[1]) + "/d" + std::to_string(k) + "_" + std::to_string(lg) + ".bin";
      FILE* f = fopen(path.c_str(), "rb"); if (!f) { printf("no %s\n", path.c_str()); return 1; }
      char name[33] = {0}; if (fread(name, 1, 32, f) != 32) return 1;
      std::vector<uint32_t> c(1u << lg); if (fread(c.data(), 4, c.size(), f) != c.size()) return 1; fclose(f);
      if (only[0] && !strstr(name, only)) continue;
      run<1, 2048, 2048, false>(name, lg, c, reps, 2, true, 200);
      run<1, 2048, 2048, true>(name, lg, c, reps, 2, true, 200);
      run<2, 4096, 4096, false>(name, lg, c, reps, 2, true, 200);
      run<2, 4096, 4096, true>(name, lg, c, reps, 2, true, 200);
      run<4, 8192, 4096, true>(name, lg, c, reps, 2, true, 200);
      run<4, 4096, 2048, true>(name, lg, c, reps, 4, true, 200);
      run<2, 4096, 4096, true>(name, lg, c, reps, 4, true, 100);
      run<2, 4096, 4096, true>(name, lg, c, reps, 1, true, 500);
      run<2, 4096, 4096, true>(name, lg, c, reps, 2, false, 200);
    }
  }
}
