#ifndef SIGNERKIT_CKECCAK_H
#define SIGNERKIT_CKECCAK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Rate of Keccak-256 in bytes (1600 - 2*256 bits).
#define SK_KECCAK256_RATE 136

/// Incremental Keccak-256 state. Treat as opaque.
typedef struct {
    uint64_t state[25];
    size_t pos;
} sk_keccak256_ctx;

/// Applies the 24-round Keccak-f[1600] permutation in place (lanes little-endian).
void sk_keccakf1600(uint64_t st[25]);

/// Resets a context to the empty message.
void sk_keccak256_init(sk_keccak256_ctx *ctx);
/// Absorbs `len` bytes.
void sk_keccak256_update(sk_keccak256_ctx *ctx, const uint8_t *data, size_t len);
/// Pads (Keccak 0x01..0x80), squeezes 32 bytes into `out`, and wipes the context.
void sk_keccak256_final(sk_keccak256_ctx *ctx, uint8_t out[32]);
/// One-shot Keccak-256.
void sk_keccak256(const uint8_t *data, size_t len, uint8_t out[32]);

/// Absorbs one 32-byte word (the unit of ABI and EIP-712 encoding): lane-aligned words are XORed
/// in directly (little-endian host, as in keccak.c), anything else goes through sk_keccak256_update.
static inline void sk_keccak256_update_word(sk_keccak256_ctx *ctx, const uint8_t word[32]) {
    size_t pos = ctx->pos;
    if ((pos & 7) == 0 && pos + 32 <= SK_KECCAK256_RATE) {
        uint64_t w[4];
        memcpy(w, word, 32);
        uint64_t *lane = &ctx->state[pos >> 3];
        lane[0] ^= w[0];
        lane[1] ^= w[1];
        lane[2] ^= w[2];
        lane[3] ^= w[3];
        pos += 32;
        if (pos == SK_KECCAK256_RATE) {
            sk_keccakf1600(ctx->state);
            pos = 0;
        }
        ctx->pos = pos;
        return;
    }
    sk_keccak256_update(ctx, word, 32);
}

#ifdef __cplusplus
}
#endif

#endif
