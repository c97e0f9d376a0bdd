// The counting kernels of a full-catalog evaluation on a GPU (see the crate's docs).
//
// A block of users is evaluated at once. Every (user, item) candidate is scored, then
// placed against the user's graded keys (one or two key orders) and, when it is a
// negative, against the pooled ROC's thresholds. Only integer counts are written, with
// atomic additions, so the order threads run in changes nothing.
//
// The arithmetic is the CPU's, bit for bit:
// - a score is the dot product of two f32 rows: +0.0, then each product (exact in f64)
//   added in dimension order, rounded to f64 after each addition, then to f32;
// - score_key and rank_key are recs_metrics::score_key and KeyOrder::key.
//
// No shared memory, no barriers, no warp-level intrinsics: every thread's work depends
// on its indices alone, which lets the tests run this very source on the CPU.

typedef unsigned int u32;
typedef unsigned long long u64;

// Users scored together by one thread: each item factor loaded serves all of them.
#define USERS_PER_THREAD 8
// Items visited by one thread (a block's threads stride through them together), so
// that each thread's final per-user additions are spread over many candidates.
#define ITEMS_PER_THREAD 16

__device__ __forceinline__ u32 score_key(float score) {
    if (score != score) {
        return 0u;  // NaN: missing, lowest
    }
    if (score == 0.0f) {
        return 0x80000000u;  // both zeros
    }
    u32 bits = __float_as_uint(score);
    u32 flip = ((u32)(((int)bits) >> 31)) | 0x80000000u;
    return bits ^ flip;
}

__device__ __forceinline__ u64 rank_key(float score, u32 item, u32 descending, u32 shift) {
    u32 low = descending ? ~item : item;
    return ((((u64)(~score_key(score))) << 32) | (u64)low) >> shift;
}

// The first j in [lo, hi) with keys[j] >= key, or hi.
template <class K>
__device__ __forceinline__ u32 lower_bound(const K* keys, u32 lo, u32 hi, K key) {
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// One key order's keys and counts for the block: user u's keys are
// keys[offsets[u] .. offsets[u + 1]], its counts on them on[offsets[u] + j], between
// them between[offsets[u] + u + j] (one more slot per user: below every key).
struct Order {
    const u64* keys;
    const u32* offsets;
    u64* between;
    u64* on;
    u32 descending;
    u32 shift;
};

// The pooled ROC's thresholds and counts; a negative of key k lies among
// keys[prefix[k >> shift] .. prefix[(k >> shift) + 1]] or just past them.
struct Pooled {
    const u32* keys;
    const u32* prefix;
    u32 shift;
    u64* below;
    u64* equal;
};

// The number of thresholds: the index's last entry.
__device__ __forceinline__ u32 pooled_count(const Pooled* p) {
    return p->prefix[(0xFFFFFFFFu >> p->shift) + 1];
}

struct Block {
    u32 n_items;
    u32 n_users;
    const u32* excluded;  // bitmap: user u, item i at bit i % 32 of word u * words + i / 32
    const u32* relevant;  // bitmap of the relevant graded items, as `excluded`
    u32 words;
    u32 n_orders;
    Order orders[2];
    u64* missing;         // per user: candidates whose score is NaN
    u32 roc;
    Pooled pooled;
};

__device__ __forceinline__ u32 bit(const u32* bitmap, u32 words, u32 user, u32 item) {
    return (bitmap[(u64)user * words + (item >> 5)] >> (item & 31u)) & 1u;
}

// Counts a thread keeps in registers and adds once at its end: the cells that take most
// candidates (below or above every graded key of a user; below or above every positive
// of the pooled ROC), where atomics from every thread would otherwise queue on one
// address.
// A thread visits at most USERS_PER_THREAD * ITEMS_PER_THREAD candidates: 32 bits hold
// any of these counts, in half the registers.
struct Tally {
    u32 below_all[USERS_PER_THREAD][2];
    u32 above_all[USERS_PER_THREAD][2];
    u32 pooled_low;
    u32 pooled_high;
};

// Counts candidate (user, item), the u-th user of the thread, of score `score` unless the
// item is excluded.
__device__ __forceinline__ void visit(const Block* b, u32 u, u32 user, u32 item, float score,
                                      Tally* tally) {
    if (bit(b->excluded, b->words, user, item)) {
        return;
    }
    if (score != score) {
        atomicAdd(&b->missing[user], 1ull);
    }
#pragma unroll
    for (u32 o = 0; o < 2; ++o) {
        if (o >= b->n_orders) {
            break;
        }
        const Order* order = &b->orders[o];
        u64 key = rank_key(score, item, order->descending, order->shift);
        u32 first = order->offsets[user];
        u32 end = order->offsets[user + 1];
        if (first == end || key > order->keys[end - 1]) {
            tally->below_all[u][o] += 1;
            continue;
        }
        if (key < order->keys[first]) {
            tally->above_all[u][o] += 1;
            continue;
        }
        u32 j = lower_bound(order->keys, first, end, key);
        if (order->keys[j] == key) {
            atomicAdd(&order->on[j], 1ull);
        } else {
            atomicAdd(&order->between[j + user], 1ull);
        }
    }
    if (b->roc && !bit(b->relevant, b->words, user, item)) {
        const Pooled* p = &b->pooled;
        u32 key = score_key(score);
        u32 cell = key >> p->shift;
        u32 lo = p->prefix[cell];
        u32 hi = p->prefix[cell + 1];
        u32 j = lower_bound(p->keys, lo, hi, key);
        if (j < hi && p->keys[j] == key) {
            atomicAdd(&p->equal[j], 1ull);
        } else if (j == pooled_count(p)) {
            tally->pooled_low += 1;
        } else if (j == 0) {
            tally->pooled_high += 1;
        } else {
            atomicAdd(&p->below[j], 1ull);
        }
    }
}

// Adds what the thread kept in registers.
__device__ __forceinline__ void finish_thread(const Block* b, u32 user0, u32 group,
                                              const Tally* tally) {
#pragma unroll
    for (u32 u = 0; u < USERS_PER_THREAD; ++u) {
        if (u >= group) {
            break;
        }
        u32 user = user0 + u;
#pragma unroll
        for (u32 o = 0; o < 2; ++o) {
            if (o >= b->n_orders) {
                break;
            }
            const Order* order = &b->orders[o];
            if (tally->below_all[u][o] != 0) {
                atomicAdd(&order->between[order->offsets[user + 1] + user], (u64)tally->below_all[u][o]);
            }
            if (tally->above_all[u][o] != 0) {
                atomicAdd(&order->between[order->offsets[user] + user], (u64)tally->above_all[u][o]);
            }
        }
    }
    if (b->roc) {
        const Pooled* p = &b->pooled;
        if (tally->pooled_low != 0) {
            atomicAdd(&p->below[pooled_count(p)], (u64)tally->pooled_low);
        }
        if (tally->pooled_high != 0) {
            atomicAdd(&p->below[0], (u64)tally->pooled_high);
        }
    }
}

__device__ __forceinline__ Block make_block(
    u32 n_items, u32 n_users, const u32* excluded, const u32* relevant, u32 words,
    u32 n_orders,
    const u64* keys0, const u32* offsets0, u64* between0, u64* on0, u32 descending0, u32 shift0,
    const u64* keys1, const u32* offsets1, u64* between1, u64* on1, u32 descending1, u32 shift1,
    u64* missing, u32 roc, const u32* t_keys, const u32* t_prefix, u32 t_shift, u64* t_below,
    u64* t_equal) {
    Block b;
    b.n_items = n_items;
    b.n_users = n_users;
    b.excluded = excluded;
    b.relevant = relevant;
    b.words = words;
    b.n_orders = n_orders;
    b.orders[0].keys = keys0;
    b.orders[0].offsets = offsets0;
    b.orders[0].between = between0;
    b.orders[0].on = on0;
    b.orders[0].descending = descending0;
    b.orders[0].shift = shift0;
    b.orders[1].keys = keys1;
    b.orders[1].offsets = offsets1;
    b.orders[1].between = between1;
    b.orders[1].on = on1;
    b.orders[1].descending = descending1;
    b.orders[1].shift = shift1;
    b.missing = missing;
    b.roc = roc;
    b.pooled.keys = t_keys;
    b.pooled.prefix = t_prefix;
    b.pooled.shift = t_shift;
    b.pooled.below = t_below;
    b.pooled.equal = t_equal;
    return b;
}

#define BLOCK_PARAMS                                                                      \
    u32 n_items, u32 n_users, const u32 *excluded, const u32 *relevant, u32 words,        \
        u32 n_orders, const u64 *keys0, const u32 *offsets0, u64 *between0, u64 *on0,     \
        u32 descending0, u32 shift0, const u64 *keys1, const u32 *offsets1, u64 *between1, \
        u64 *on1, u32 descending1, u32 shift1, u64 *missing, u32 roc, const u32 *t_keys,  \
        const u32 *t_prefix, u32 t_shift, u64 *t_below, u64 *t_equal

#define BLOCK_ARGS                                                                          \
    n_items, n_users, excluded, relevant, words, n_orders, keys0, offsets0, between0, on0, \
        descending0, shift0, keys1, offsets1, between1, on1, descending1, shift1, missing,  \
        roc, t_keys, t_prefix, t_shift, t_below, t_equal

// Sets the bit of every listed item: user u's items are items[offsets[u] .. offsets[u + 1]].
// Grid: one block per user.
extern "C" __global__ void mark_items(u32 n_users, const u32* offsets, const u32* items,
                                      u32 words, u32* bitmap) {
    u32 user = blockIdx.x;
    if (user >= n_users) {
        return;
    }
    for (u32 e = offsets[user] + threadIdx.x; e < offsets[user + 1]; e += blockDim.x) {
        u32 item = items[e];
        atomicOr(&bitmap[(u64)user * words + (item >> 5)], 1u << (item & 31u));
    }
}

// Counts every candidate of the USERS_PER_THREAD users from blockIdx.y and the
// ITEMS_PER_THREAD items of this thread, with scores from `scores(item, user0, group,
// out)`.
template <class Scores>
__device__ __forceinline__ void count_users(const Block* b, const Scores& scores) {
    u32 user0 = blockIdx.y * USERS_PER_THREAD;
    u32 group = b->n_users - user0 < USERS_PER_THREAD ? b->n_users - user0 : USERS_PER_THREAD;
    Tally tally;
#pragma unroll
    for (u32 u = 0; u < USERS_PER_THREAD; ++u) {
#pragma unroll
        for (u32 o = 0; o < 2; ++o) {
            tally.below_all[u][o] = 0;
            tally.above_all[u][o] = 0;
        }
    }
    tally.pooled_low = 0;
    tally.pooled_high = 0;
    u32 first = blockIdx.x * blockDim.x * ITEMS_PER_THREAD + threadIdx.x;
    for (u32 step = 0; step < ITEMS_PER_THREAD; ++step) {
        u32 item = first + step * blockDim.x;
        if (item >= b->n_items) {
            break;
        }
        float out[USERS_PER_THREAD];
        scores(item, user0, group, out);
        // Unrolled with constant indices, so that the tallies and scores stay in
        // registers.
#pragma unroll
        for (u32 u = 0; u < USERS_PER_THREAD; ++u) {
            if (u < group) {
                visit(b, u, user0 + u, item, out[u], &tally);
            }
        }
    }
    finish_thread(b, user0, group, &tally);
}

// Scores from factors: user u's row users[u * rank ..], item i's factors items_t[k *
// n_items + i] (dimension-major, so a warp's loads are contiguous).
struct FactorScores {
    u32 rank;
    u32 n_items;
    const float* users;
    const float* items_t;

    __device__ __forceinline__ void operator()(u32 item, u32 user0, u32 group,
                                               float* out) const {
        double sums[USERS_PER_THREAD];
#pragma unroll
        for (u32 u = 0; u < USERS_PER_THREAD; ++u) {
            sums[u] = 0.0;
        }
        for (u32 k = 0; k < rank; ++k) {
            double v = (double)items_t[(u64)k * n_items + item];
#pragma unroll
            for (u32 u = 0; u < USERS_PER_THREAD; ++u) {
                if (u < group) {
                    // The product is exact in f64: fused or not, one rounding.
                    sums[u] = __fma_rn((double)users[(u64)(user0 + u) * rank + k], v, sums[u]);
                }
            }
        }
#pragma unroll
        for (u32 u = 0; u < USERS_PER_THREAD; ++u) {
            out[u] = __double2float_rn(sums[u]);
        }
    }
};

// Scores given: user u's score of item i is scores[u * row_len + columns[i]] (rows of a
// block laid out as their producer wrote them, possibly in another item order).
struct GivenScores {
    u32 row_len;
    const u32* columns;
    const float* scores;

    __device__ __forceinline__ void operator()(u32 item, u32 user0, u32 group,
                                               float* out) const {
        u32 column = columns[item];
#pragma unroll
        for (u32 u = 0; u < USERS_PER_THREAD; ++u) {
            out[u] = u < group ? scores[(u64)(user0 + u) * row_len + column] : 0.0f;
        }
    }
};

// Grid: x over items (blockDim.x * ITEMS_PER_THREAD each), y over groups of
// USERS_PER_THREAD users.
extern "C" __global__ void count_factors(u32 rank, const float* users, const float* items_t,
                                         BLOCK_PARAMS) {
    Block b = make_block(BLOCK_ARGS);
    FactorScores scores = {rank, n_items, users, items_t};
    count_users(&b, scores);
}

// Grid: as count_factors.
extern "C" __global__ void count_scores(const float* scores, u32 row_len, const u32* columns,
                                        BLOCK_PARAMS) {
    Block b = make_block(BLOCK_ARGS);
    GivenScores given = {row_len, columns, scores};
    count_users(&b, given);
}

// The scores of listed (user, item) pairs of a block: out[e] = scores[rows[e] * row_len +
// columns[items[e]]]. Grid: over the pairs.
extern "C" __global__ void gather_scores(u32 n_pairs, const u32* rows, const u32* items,
                                         const float* scores, u32 row_len, const u32* columns,
                                         float* out) {
    u32 e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < n_pairs) {
        out[e] = scores[(u64)rows[e] * row_len + columns[items[e]]];
    }
}
