// Keccak-f[1600] and Keccak-256 with Ethereum's original padding (0x01 ... 0x80).
// The permutation between the GENERATED PERMUTATION markers comes from scripts/gen_keccak.py (lane
// complementing: one NOT per row of chi); the benchmarks compile the same code apart as a C baseline.
#include "keccak.h"

#include <string.h>

#define ROL64(v, n) (((v) << (n)) | ((v) >> (64 - (n))))

static const uint64_t kRoundConstants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

// GENERATED PERMUTATION BEGIN (scripts/gen_keccak.py)
// The lanes [(0, 4), (1, 0), (2, 0), (2, 2), (2, 3), (3, 1)] (x, y) are kept complemented between rounds, so chi needs one NOT per row.
void sk_keccakf1600(uint64_t *st) {
    uint64_t a00 = st[0];
    uint64_t a10 = ~st[1];
    uint64_t a20 = ~st[2];
    uint64_t a30 = st[3];
    uint64_t a40 = st[4];
    uint64_t a01 = st[5];
    uint64_t a11 = st[6];
    uint64_t a21 = st[7];
    uint64_t a31 = ~st[8];
    uint64_t a41 = st[9];
    uint64_t a02 = st[10];
    uint64_t a12 = st[11];
    uint64_t a22 = ~st[12];
    uint64_t a32 = st[13];
    uint64_t a42 = st[14];
    uint64_t a03 = st[15];
    uint64_t a13 = st[16];
    uint64_t a23 = ~st[17];
    uint64_t a33 = st[18];
    uint64_t a43 = st[19];
    uint64_t a04 = ~st[20];
    uint64_t a14 = st[21];
    uint64_t a24 = st[22];
    uint64_t a34 = st[23];
    uint64_t a44 = st[24];
    uint64_t c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
    uint64_t b00, b10, b20, b30, b40, b01, b11, b21, b31, b41, b02, b12, b22, b32, b42, b03, b13, b23, b33, b43, b04, b14, b24, b34, b44;
    uint64_t n0, n1, n2, n3, n4;
    for (int round = 0; round < 24; round++) {
        c0 = a00 ^ a01 ^ a02 ^ a03 ^ a04;
        c1 = a10 ^ a11 ^ a12 ^ a13 ^ a14;
        c2 = a20 ^ a21 ^ a22 ^ a23 ^ a24;
        c3 = a30 ^ a31 ^ a32 ^ a33 ^ a34;
        c4 = a40 ^ a41 ^ a42 ^ a43 ^ a44;
        d0 = c4 ^ ROL64(c1, 1);
        d1 = c0 ^ ROL64(c2, 1);
        d2 = c1 ^ ROL64(c3, 1);
        d3 = c2 ^ ROL64(c4, 1);
        d4 = c3 ^ ROL64(c0, 1);
        b00 = (a00 ^ d0);
        b13 = ROL64((a01 ^ d0), 36);
        b21 = ROL64((a02 ^ d0), 3);
        b34 = ROL64((a03 ^ d0), 41);
        b42 = ROL64((a04 ^ d0), 18);
        b02 = ROL64((a10 ^ d1), 1);
        b10 = ROL64((a11 ^ d1), 44);
        b23 = ROL64((a12 ^ d1), 10);
        b31 = ROL64((a13 ^ d1), 45);
        b44 = ROL64((a14 ^ d1), 2);
        b04 = ROL64((a20 ^ d2), 62);
        b12 = ROL64((a21 ^ d2), 6);
        b20 = ROL64((a22 ^ d2), 43);
        b33 = ROL64((a23 ^ d2), 15);
        b41 = ROL64((a24 ^ d2), 61);
        b01 = ROL64((a30 ^ d3), 28);
        b14 = ROL64((a31 ^ d3), 55);
        b22 = ROL64((a32 ^ d3), 25);
        b30 = ROL64((a33 ^ d3), 21);
        b43 = ROL64((a34 ^ d3), 56);
        b03 = ROL64((a40 ^ d4), 27);
        b11 = ROL64((a41 ^ d4), 20);
        b24 = ROL64((a42 ^ d4), 39);
        b32 = ROL64((a43 ^ d4), 8);
        b40 = ROL64((a44 ^ d4), 14);
        n2 = ~b20;
        a00 = b00 ^ (b10 | b20);
        a10 = b10 ^ (n2 | b30);
        a20 = b20 ^ (b30 & b40);
        a30 = b30 ^ (b40 | b00);
        a40 = b40 ^ (b00 & b10);
        n4 = ~b41;
        a01 = b01 ^ (b11 | b21);
        a11 = b11 ^ (b21 & b31);
        a21 = b21 ^ (b31 | n4);
        a31 = b31 ^ (b41 | b01);
        a41 = b41 ^ (b01 & b11);
        n3 = ~b32;
        a02 = b02 ^ (b12 | b22);
        a12 = b12 ^ (b22 & b32);
        a22 = b22 ^ (n3 & b42);
        a32 = n3 ^ (b42 | b02);
        a42 = b42 ^ (b02 & b12);
        n3 = ~b33;
        a03 = b03 ^ (b13 & b23);
        a13 = b13 ^ (b23 | b33);
        a23 = b23 ^ (n3 | b43);
        a33 = n3 ^ (b43 & b03);
        a43 = b43 ^ (b03 | b13);
        n1 = ~b14;
        a04 = b04 ^ (n1 & b24);
        a14 = n1 ^ (b24 | b34);
        a24 = b24 ^ (b34 & b44);
        a34 = b34 ^ (b44 | b04);
        a44 = b44 ^ (b04 & b14);
        a00 ^= kRoundConstants[round];
    }
    st[0] = a00;
    st[1] = ~a10;
    st[2] = ~a20;
    st[3] = a30;
    st[4] = a40;
    st[5] = a01;
    st[6] = a11;
    st[7] = a21;
    st[8] = ~a31;
    st[9] = a41;
    st[10] = a02;
    st[11] = a12;
    st[12] = ~a22;
    st[13] = a32;
    st[14] = a42;
    st[15] = a03;
    st[16] = a13;
    st[17] = ~a23;
    st[18] = a33;
    st[19] = a43;
    st[20] = ~a04;
    st[21] = a14;
    st[22] = a24;
    st[23] = a34;
    st[24] = a44;
}
// GENERATED PERMUTATION END

static inline uint64_t load_le64(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
#endif
}

static inline void store_le64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; i++) { p[i] = (uint8_t)(v >> (8 * i)); }
#endif
}

void sk_keccak256_init(sk_keccak256_ctx *ctx) {
    memset(ctx, 0, sizeof(*ctx));
}

void sk_keccak256_update(sk_keccak256_ctx *ctx, const uint8_t *data, size_t len) {
    uint8_t *bytes = (uint8_t *)ctx->state;
    size_t pos = ctx->pos;
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#error "sk_keccak256_update assumes a little-endian host; add a byte-order path before porting"
#endif
    if (pos == 0) {
        while (len >= SK_KECCAK256_RATE) {
            for (int i = 0; i < SK_KECCAK256_RATE / 8; i++) ctx->state[i] ^= load_le64(data + 8 * i);
            sk_keccakf1600(ctx->state);
            data += SK_KECCAK256_RATE;
            len -= SK_KECCAK256_RATE;
        }
    }
    while (len > 0) {
        size_t take = SK_KECCAK256_RATE - pos;
        if (take > len) take = len;
        size_t i = 0;
        /* bytes up to a lane boundary, whole lanes, then the tail */
        while (i < take && ((pos + i) & 7) != 0) { bytes[pos + i] ^= data[i]; i++; }
        while (i + 8 <= take) {
            ctx->state[(pos + i) >> 3] ^= load_le64(data + i);
            i += 8;
        }
        while (i < take) { bytes[pos + i] ^= data[i]; i++; }
        pos += take;
        data += take;
        len -= take;
        if (pos == SK_KECCAK256_RATE) {
            sk_keccakf1600(ctx->state);
            pos = 0;
        }
    }
    ctx->pos = pos;
}

void sk_keccak256_final(sk_keccak256_ctx *ctx, uint8_t out[32]) {
    uint8_t *bytes = (uint8_t *)ctx->state;
    bytes[ctx->pos] ^= 0x01;
    bytes[SK_KECCAK256_RATE - 1] ^= 0x80;
    sk_keccakf1600(ctx->state);
    for (int i = 0; i < 4; i++) store_le64(out + 8 * i, ctx->state[i]);
    memset(ctx, 0, sizeof(*ctx));
}

void sk_keccak256(const uint8_t *data, size_t len, uint8_t out[32]) {
    sk_keccak256_ctx ctx;
    sk_keccak256_init(&ctx);
    sk_keccak256_update(&ctx, data, len);
    sk_keccak256_final(&ctx, out);
}
