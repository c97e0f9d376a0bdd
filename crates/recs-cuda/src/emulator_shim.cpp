// Runs the kernels of kernels.cu on the CPU: every block and thread of a grid in turn.
// The kernels use no shared memory, barriers or warp intrinsics, so running threads one
// after another is one of the orders a GPU may run them in; atomics become plain
// additions. The launchers unpack arguments as cuLaunchKernel does (an array of
// pointers to each value) and check their number.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct Dim {
    unsigned x, y, z;
};
// Per test thread: tests run kernels on several threads at once.
static thread_local Dim threadIdx, blockIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __forceinline__ inline

static inline unsigned __float_as_uint(float f) {
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
static inline float __double2float_rn(double d) { return (float)d; }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    unsigned long long old = *p;
    *p = old + v;
    return old;
}
static inline unsigned atomicOr(unsigned* p, unsigned v) {
    unsigned old = *p;
    *p = old | v;
    return old;
}

#include KERNELS_PATH

template <class T>
static T at(void** params, int k) {
    return *reinterpret_cast<T*>(params[k]);
}
#define P(T, k) at<T>(params, k)

template <class F>
static void grid(const unsigned* g, const unsigned* b, F f) {
    gridDim = {g[0], g[1], g[2]};
    blockDim = {b[0], b[1], b[2]};
    for (unsigned bz = 0; bz < g[2]; ++bz)
        for (unsigned by = 0; by < g[1]; ++by)
            for (unsigned bx = 0; bx < g[0]; ++bx)
                for (unsigned tz = 0; tz < b[2]; ++tz)
                    for (unsigned ty = 0; ty < b[1]; ++ty)
                        for (unsigned tx = 0; tx < b[0]; ++tx) {
                            blockIdx = {bx, by, bz};
                            threadIdx = {tx, ty, tz};
                            f();
                        }
}

static void expect(int got, int want, const char* kernel) {
    if (got != want) {
        std::fprintf(stderr, "%s: %d arguments, the kernel takes %d\n", kernel, got, want);
        std::abort();
    }
}

#define BLOCK_UNPACK(s)                                                                    \
    P(u32, s + 0), P(u32, s + 1), P(const u32*, s + 2), P(const u32*, s + 3),             \
        P(u32, s + 4), P(u32, s + 5), P(const u64*, s + 6), P(const u32*, s + 7),         \
        P(u64*, s + 8), P(u64*, s + 9), P(u32, s + 10), P(u32, s + 11),                   \
        P(const u64*, s + 12), P(const u32*, s + 13), P(u64*, s + 14), P(u64*, s + 15),   \
        P(u32, s + 16), P(u32, s + 17), P(u64*, s + 18), P(u32, s + 19),                 \
        P(const u32*, s + 20), P(const u32*, s + 21), P(u32, s + 22), P(u64*, s + 23),    \
        P(u64*, s + 24)

extern "C" void launch_mark_items(const unsigned* g, const unsigned* b, void** params, int n) {
    expect(n, 5, "mark_items");
    grid(g, b, [&] {
        mark_items(P(u32, 0), P(const u32*, 1), P(const u32*, 2), P(u32, 3), P(u32*, 4));
    });
}

extern "C" void launch_count_factors(const unsigned* g, const unsigned* b, void** params,
                                     int n) {
    expect(n, 28, "count_factors");
    grid(g, b, [&] {
        count_factors(P(u32, 0), P(const float*, 1), P(const float*, 2), BLOCK_UNPACK(3));
    });
}

extern "C" void launch_count_scores(const unsigned* g, const unsigned* b, void** params,
                                    int n) {
    expect(n, 28, "count_scores");
    grid(g, b, [&] {
        count_scores(P(const float*, 0), P(u32, 1), P(const u32*, 2), BLOCK_UNPACK(3));
    });
}

extern "C" void launch_gather_scores(const unsigned* g, const unsigned* b, void** params,
                                     int n) {
    expect(n, 7, "gather_scores");
    grid(g, b, [&] {
        gather_scores(P(u32, 0), P(const u32*, 1), P(const u32*, 2), P(const float*, 3),
                      P(u32, 4), P(const u32*, 5), P(float*, 6));
    });
}
