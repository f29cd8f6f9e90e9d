/* Seeded pseudo-random numbers for tern-sim: splitmix64 to hash and to
 * seed, xoshiro256** for streams.  Same seed, same numbers, on every
 * machine: no libc rand(), no floating point in the generator itself. */
#ifndef TN_SIM_RNG_H
#define TN_SIM_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} tn_sim_rng_t;

/* One step of splitmix64; also a good 64-bit mixer of ids (hashes of flow
 * ids for ECMP, per-message seeds). */
static inline uint64_t tn_sim_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline void tn_sim_rng_seed(tn_sim_rng_t *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        x = tn_sim_mix64(x);
        r->s[i] = x;
    }
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0) {
        r->s[0] = 1;  /* the all-zero state is a fixed point */
    }
}

static inline uint64_t tn_sim_rng_next(tn_sim_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t out = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return out;
}

/* Uniform in [0, n), n > 0; Lemire's multiply-shift (the bias is below
 * n / 2^64, far under anything a simulation can see). */
static inline uint64_t tn_sim_rng_below(tn_sim_rng_t *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)tn_sim_rng_next(r) * n) >> 64);
}

/* Uniform in (0, 1]: never 0, so -log(u) is finite. */
static inline double tn_sim_rng_unit(tn_sim_rng_t *r)
{
    return (double)((tn_sim_rng_next(r) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

#endif
