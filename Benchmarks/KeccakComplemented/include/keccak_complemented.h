#ifndef KECCAK_COMPLEMENTED_H
#define KECCAK_COMPLEMENTED_H

#include <stdint.h>

/// Keccak-f[1600] on 25 little-endian lanes (lane x + 5y), in place: the benchmarks' lane-complementing
/// C baseline (scripts/gen_keccak.py; the permutation CKeccak compiles), built with CKeccak's flags.
void lc_keccakf1600(uint64_t *lanes);

#endif
