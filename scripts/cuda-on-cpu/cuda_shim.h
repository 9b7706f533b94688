// Just enough CUDA for check.py to run a baseline's device code on the CPU: one block at a time,
// one std::thread per CUDA thread, a barrier for __syncthreads and one per warp for the shuffles;
// __shared__ arrays are function statics (one block runs at a time), atomicAdd a std::atomic_ref.
// bfloat16 is a bit-level struct, float16 GCC's _Float16, both converting with round to nearest
// even as cuda_bf16.h and cuda_fp16.h do; float8_e4m3fn a bit-level struct converting as
// task/dtype.cpp does (round to nearest even, saturated at +-448, as cuda_fp8.h's __NV_SATFINITE).
#pragma once
#include <math.h>
#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__ static

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline std::barrier<>* block_barrier = nullptr;
inline std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
inline float shuffle_slots[1024];

inline float atomicAdd(float* address, float value) {
  return std::atomic_ref<float>(*address).fetch_add(value);
}
inline void __syncthreads() {
  block_barrier->arrive_and_wait();
}
inline int flat_thread() {
  return threadIdx.x + threadIdx.y * blockDim.x;
}
inline float __shfl_xor_sync(unsigned, float v, int offset) {
  int t = flat_thread();
  shuffle_slots[t] = v;
  warp_barriers[t / 32]->arrive_and_wait();
  float r = shuffle_slots[t ^ offset];
  warp_barriers[t / 32]->arrive_and_wait();
  return r;
}
inline float __shfl_down_sync(unsigned, float v, int offset) {
  int t = flat_thread();
  shuffle_slots[t] = v;
  warp_barriers[t / 32]->arrive_and_wait();
  float r = (t % 32) + offset < 32 ? shuffle_slots[t + offset] : v;
  warp_barriers[t / 32]->arrive_and_wait();
  return r;
}

template <typename F>
void launch(dim3 grid, dim3 block, F body) {
  gridDim = grid;
  blockDim = block;
  unsigned threads = block.x * block.y * block.z;
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        std::barrier<> barrier(threads);
        block_barrier = &barrier;
        warp_barriers.clear();
        for (unsigned w = 0; w < (threads + 31) / 32; ++w) {
          unsigned in_warp = std::min(32u, threads - 32 * w);
          warp_barriers.push_back(std::make_unique<std::barrier<>>(in_warp));
        }
        std::vector<std::thread> pool;
        for (unsigned ty = 0; ty < block.y; ++ty) {
          for (unsigned tx = 0; tx < block.x; ++tx) {
            pool.emplace_back([=] {
              threadIdx = dim3(tx, ty);
              blockIdx = dim3(bx, by, bz);
              body();
            });
          }
        }
        for (auto& t : pool) t.join();
      }
    }
  }
}

struct __nv_bfloat16 {
  std::uint16_t bits;
  __nv_bfloat16() = default;
  __nv_bfloat16(float value) {
    std::uint32_t u = std::bit_cast<std::uint32_t>(value);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) {
      bits = (u >> 16) | 0x40;
      return;
    }
    u += 0x7FFFu + ((u >> 16) & 1u);
    bits = u >> 16;
  }
  operator float() const { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }
};
using __half = _Float16;
inline float __bfloat162float(__nv_bfloat16 v) {
  return v;
}
inline __nv_bfloat16 __float2bfloat16_rn(float v) {
  return __nv_bfloat16(v);
}
inline float __half2float(__half v) {
  return static_cast<float>(v);
}
inline __half __float2half_rn(float v) {
  return static_cast<__half>(v);
}

struct __nv_fp8_e4m3 {
  std::uint8_t __x;
  __nv_fp8_e4m3() = default;
  explicit __nv_fp8_e4m3(float value) {
    std::uint32_t u = std::bit_cast<std::uint32_t>(value);
    std::uint8_t sign = (u >> 24) & 0x80u;
    float magnitude = std::fabs(value);
    if (std::isnan(value)) {
      __x = sign | 0x7Fu;
    } else if (magnitude >= 448.0f) {
      __x = sign | 0x7Eu;
    } else if (magnitude < 0x1p-6f) {  // units of 2^-9, rounded by the float add
      __x = sign | (std::bit_cast<std::uint32_t>(magnitude * 0x1p9f + 0x1p23f) - 0x4B000000u);
    } else {
      std::uint32_t kept = u & 0x7FFFFFFFu;
      kept += 0x7FFFFu + ((kept >> 20) & 1u);
      __x = sign | ((kept >> 20) - (120u << 3));
    }
  }
  explicit operator float() const {
    std::uint32_t sign = static_cast<std::uint32_t>(__x & 0x80u) << 24;
    std::uint32_t exponent = (__x >> 3) & 0xFu, mantissa = __x & 0x7u;
    if (exponent == 0xF && mantissa == 0x7) return std::bit_cast<float>(sign | 0x7FC00000u);
    if (exponent == 0) return sign != 0 ? -(mantissa * 0x1p-9f) : mantissa * 0x1p-9f;
    return std::bit_cast<float>(sign | ((exponent + 120) << 23) | (mantissa << 20));
  }
};
