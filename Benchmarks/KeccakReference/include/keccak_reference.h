// A plain, textbook Keccak-f[1600] used only as the benchmark baseline ("plain C -O3 reference").
#ifndef SIGNERKIT_KECCAK_REFERENCE_H
#define SIGNERKIT_KECCAK_REFERENCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Applies the 24-round Keccak-f[1600] permutation in place.
///
/// `st` holds 25 little-endian 64-bit lanes; lane (x, y) is `st[x + 5 * y]`.
/// Deliberately written as straightforward loops over x/y with lookup tables (no manual unrolling),
/// so that it measures what an ordinary C compiler makes of the textbook algorithm at -O3.
void ref_keccakf1600(uint64_t st[25]);

#ifdef __cplusplus
}
#endif

#endif
