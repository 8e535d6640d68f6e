/* The engine's 64-bit id hash (rankmeter/core/keys.py ``_id_hash``), shared by the compiled TREC reader
 * (rankmeter/io/_trecparse.c, which hashes doc ids while it parses) and the id operations
 * (rankmeter/core/_idops.c): both give the numpy function's hashes to the bit. */
#ifndef RANKMETER_IDHASH_H
#define RANKMETER_IDHASH_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

static const uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL;
static const uint64_t MIX1 = 0xBF58476D1CE4E5B9ULL;
static const uint64_t MIX2 = 0x94D049BB133111EBULL;

static inline uint64_t fmix(uint64_t h) {
    h ^= h >> 30; h *= MIX1;
    h ^= h >> 27; h *= MIX2;
    h ^= h >> 31;
    return h;
}

/* The little-endian word of the first min(len, 8) bytes at p; ``end`` bounds what may be read. */
static inline uint64_t load_le(const unsigned char *p, Py_ssize_t len, const unsigned char *end) {
    uint64_t w = 0;
    Py_ssize_t k = len < 8 ? len : 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p >= 8) {
        memcpy(&w, p, 8);
        return k == 8 ? w : w & ((1ULL << (8 * k)) - 1);
    }
#endif
    (void)end;
    for (Py_ssize_t i = 0; i < k; i++) w |= (uint64_t)p[i] << (8 * i);
    return w;
}

/* keys.py _id_hash: fmix((w0 ^ len * golden) + sum_{j>=1} fmix(w_j ^ (j + 1) * golden)) */
static inline uint64_t id_hash(const unsigned char *p, Py_ssize_t len, const unsigned char *end) {
    uint64_t summed = load_le(p, len, end) ^ ((uint64_t)len * GOLDEN);
    for (Py_ssize_t j = 1; 8 * j < len; j++)
        summed += fmix(load_le(p + 8 * j, len - 8 * j, end) ^ ((uint64_t)(j + 1) * GOLDEN));
    return fmix(summed);
}

#endif
