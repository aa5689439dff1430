// Textbook Keccak-f[1600] (FIPS 202, section 3.2), written independently of Sources/CKeccak.
//
// Lane (x, y) lives at st[x + 5 * y]. Each round applies theta, rho, pi, chi and iota as plain
// loops over x and y, driven by the rotation-offset table and the pi lane table below.
// There is no manual unrolling: this is the "plain C at -O3" baseline the benchmarks compare against.
#include "keccak_reference.h"

#define REF_ROUNDS 24

/// Round constants for iota (FIPS 202, Algorithm 5 / 6).
static const uint64_t kRoundConstants[REF_ROUNDS] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/// rho: rotation offset of lane (x, y), indexed by x + 5 * y.
static const unsigned kRotationOffsets[25] = {
     0,  1, 62, 28, 27,
    36, 44,  6, 55, 20,
     3, 10, 43, 25, 39,
    41, 45, 15, 21,  8,
    18,  2, 61, 56, 14,
};

/// pi: lane (x, y) moves to lane (y, 2x + 3y mod 5); entry x + 5 * y holds that destination index.
static const unsigned kPiLane[25] = {
     0, 10, 20,  5, 15,
    16,  1, 11, 21,  6,
     7, 17,  2, 12, 22,
    23,  8, 18,  3, 13,
    14, 24,  9, 19,  4,
};

static inline uint64_t rotl64(uint64_t v, unsigned n) {
    // `& 63` keeps the n == 0 case well defined.
    return (v << n) | (v >> ((64 - n) & 63));
}

void ref_keccakf1600(uint64_t st[25]) {
    uint64_t C[5];
    uint64_t B[25];
    uint64_t D;

    for (int round = 0; round < REF_ROUNDS; round++) {
        // theta: XOR every lane with the parities of two neighbouring columns.
        for (int x = 0; x < 5; x++) {
            C[x] = st[x] ^ st[x + 5] ^ st[x + 10] ^ st[x + 15] ^ st[x + 20];
        }
        for (int x = 0; x < 5; x++) {
            D = C[(x + 4) % 5] ^ rotl64(C[(x + 1) % 5], 1);
            for (int y = 0; y < 5; y++) {
                st[x + 5 * y] ^= D;
            }
        }

        // rho and pi: rotate each lane, then move it to its new position.
        for (int y = 0; y < 5; y++) {
            for (int x = 0; x < 5; x++) {
                int i = x + 5 * y;
                B[kPiLane[i]] = rotl64(st[i], kRotationOffsets[i]);
            }
        }

        // chi: non-linear mix along each row.
        for (int y = 0; y < 5; y++) {
            for (int x = 0; x < 5; x++) {
                st[x + 5 * y] = B[x + 5 * y] ^ (~B[(x + 1) % 5 + 5 * y] & B[(x + 2) % 5 + 5 * y]);
            }
        }

        // iota: break the symmetry with the round constant.
        st[0] ^= kRoundConstants[round];
    }
}
