/* The engine's 64-bit id hash (rankmeter/engine/keys.py ``id_hash``), shared by the compiled TREC reader
 * (rankmeter/io/_trecparse.c, which hashes doc ids while it parses) and the id operations
 * (rankmeter/engine/_idops.c): both give the same hashes to the bit, and those of the numpy oracle
 * tests/oracles/siphash.py.
 *
 * SipHash-1-3 (Aumasson and Bernstein; the hash of CPython's str and bytes and of Rust's HashMap) under a
 * fixed 128-bit key, the first 32 hex digits of pi's fraction. No shortcut to its collisions is known, so
 * two ids of equal hash cost about 2**32 hashes to find, not a few thousand tries. Nothing relies on it: every
 * key, join, grouping and duplicate check confirms a hash hit on the ids' bytes (a colliding pair only costs
 * time). Built with -DRANKMETER_CONSTANT_HASH every id hashes to one value: the tests' way to make every id
 * collide (keys.py reads the extension's HASH and makes its (query, doc) hashes constant too). Plain C with no
 * Python, so tests/ports/driver.c hashes with it on every platform (tools/portability_check.py). */
#ifndef RANKMETER_IDHASH_H
#define RANKMETER_IDHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Py_ssize_t when Python.h came first (the extensions), else ptrdiff_t (tests/ports/driver.c: no Python) */
#ifndef RM_SSIZE_T
#ifdef Py_PYTHON_H
#define RM_SSIZE_T Py_ssize_t
#else
#define RM_SSIZE_T ptrdiff_t
#endif
#endif

/* the hash's name, as keys.py HASH_NAME: an extension whose name differs is not used with keys.py's hashes */
#ifdef RANKMETER_CONSTANT_HASH
#define RANKMETER_HASH_NAME "constant"
#else
#define RANKMETER_HASH_NAME "siphash13:243f6a8885a308d3:13198a2e03707344"
#endif

#define RM_K0 0x243F6A8885A308D3ULL
#define RM_K1 0x13198A2E03707344ULL
#define RM_ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define RM_SIPROUND                                                                      \
    do {                                                                                 \
        v0 += v1; v1 = RM_ROTL(v1, 13); v1 ^= v0; v0 = RM_ROTL(v0, 32);                  \
        v2 += v3; v3 = RM_ROTL(v3, 16); v3 ^= v2;                                        \
        v0 += v3; v3 = RM_ROTL(v3, 21); v3 ^= v0;                                        \
        v2 += v1; v1 = RM_ROTL(v1, 17); v1 ^= v2; v2 = RM_ROTL(v2, 32);                  \
    } while (0)

/* Little-endian targets read a word with one memcpy; any other target (or a compiler that does not say)
 * assembles it byte by byte, which is right everywhere. MSVC targets only little-endian machines. */
#ifndef RM_LITTLE_ENDIAN /* -DRM_LITTLE_ENDIAN=0: the portable reads, as the tests build them */
#if (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || defined(_MSC_VER)
#define RM_LITTLE_ENDIAN 1
#else
#define RM_LITTLE_ENDIAN 0
#endif
#endif

/* The little-endian word of the first min(len, 8) bytes at p; ``end`` bounds what may be read. */
static inline uint64_t load_le(const unsigned char *p, RM_SSIZE_T len, const unsigned char *end) {
    uint64_t w = 0;
    RM_SSIZE_T k = len < 8 ? len : 8;
#if RM_LITTLE_ENDIAN
    if (end - p >= 8) {
        memcpy(&w, p, 8);
        return k == 8 ? w : w & ((1ULL << (8 * k)) - 1);
    }
#endif
    (void)end;
    for (RM_SSIZE_T i = 0; i < k; i++) w |= (uint64_t)p[i] << (8 * i);
    return w;
}

/* The engine's id hash: SipHash-1-3 of the id's bytes under (RM_K0, RM_K1) (its numpy oracle:
 * tests/oracles/siphash.py) */
static inline uint64_t id_hash(const unsigned char *p, RM_SSIZE_T len, const unsigned char *end) {
#ifdef RANKMETER_CONSTANT_HASH
    (void)p; (void)len; (void)end;
    return 0x5EED5EED5EED5EEDULL;
#else
    uint64_t v0 = RM_K0 ^ 0x736f6d6570736575ULL, v1 = RM_K1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = RM_K0 ^ 0x6c7967656e657261ULL, v3 = RM_K1 ^ 0x7465646279746573ULL;
    RM_SSIZE_T full = len >> 3;
    for (RM_SSIZE_T j = 0; j < full; j++) {
#if RM_LITTLE_ENDIAN
        uint64_t m;
        memcpy(&m, p + 8 * j, 8);
#else
        uint64_t m = load_le(p + 8 * j, 8, p + 8 * j);  /* no memcpy word: assembled byte by byte */
#endif
        v3 ^= m;
        RM_SIPROUND;
        v0 ^= m;
    }
    uint64_t b = ((uint64_t)len << 56) | load_le(p + 8 * full, len & 7, end);
    v3 ^= b;
    RM_SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    RM_SIPROUND;
    RM_SIPROUND;
    RM_SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
#endif
}

#endif
