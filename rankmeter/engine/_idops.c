/* The engine's compiled kernels on ids and keys: id columns (rankmeter/engine/ids.py: take, compare, find runs,
 * sort, hash) and the (query, doc) hash index (rankmeter/engine/keys.py HashIndex: its build and probes).
 *
 * An id column is Arrow's binary layout: offsets (int32, or int64 when `wide`) into a buffer of bytes; id i is
 * values[off[i]:off[i + 1]]. Ids compare as C strcmp compares them (bytewise, a prefix first): trec_eval's
 * order. Every loop runs without the GIL. These are the one implementation the package runs; the numpy/Arrow
 * oracles in tests/oracles/pure_ids.py give the same arrays (tests/core/test_compiled_kernels.py).
 *
 * C99 that MSVC compiles too: GCC/Clang builtins only behind RM_PREFETCH, which has an MSVC form and a no-op.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_idhash.h"

/* A hint to fetch the cache line at p (random reads into an index far bigger than the caches). */
#if defined(RM_NO_PREFETCH) /* the tests' portable build */
#define RM_PREFETCH(p) ((void)(p))
#elif defined(__GNUC__) || defined(__clang__)
#define RM_PREFETCH(p) __builtin_prefetch(p)
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <xmmintrin.h>
#define RM_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#else
#define RM_PREFETCH(p) ((void)(p))
#endif

/* The widest bucket or filter count (2**bits) whose shift stays defined in a Py_ssize_t (62 on 64-bit). */
#define RM_MAX_BITS ((int)(8 * sizeof(Py_ssize_t)) - 2)
#define RM_SHIFT_OK(s) ((s) >= 64 - RM_MAX_BITS && (s) < 64)

typedef struct {
    Py_buffer off, val;
    int wide;
    Py_ssize_t n;
} Column;

static int64_t at(const Column *c, Py_ssize_t i) {
    return c->wide ? ((const int64_t *)c->off.buf)[i] : (int64_t)((const int32_t *)c->off.buf)[i];
}

/* Check the offsets once: n + 1 of them, non-decreasing, inside the values. */
static int column_open(Column *c, PyObject *off, int wide, PyObject *val) {
    c->wide = wide ? 1 : 0;
    if (PyObject_GetBuffer(off, &c->off, PyBUF_SIMPLE) < 0) return -1;
    if (PyObject_GetBuffer(val, &c->val, PyBUF_SIMPLE) < 0) { PyBuffer_Release(&c->off); return -1; }
    Py_ssize_t width = c->wide ? 8 : 4;
    c->n = c->off.len / width - 1;
    int ok = c->off.len % width == 0 && c->n >= 0;
    if (ok) {
        int64_t prev = at(c, 0);
        ok = prev >= 0;
        for (Py_ssize_t i = 1; ok && i <= c->n; i++) {
            int64_t cur = at(c, i);
            ok = cur >= prev;
            prev = cur;
        }
        ok = ok && prev <= c->val.len;
    }
    if (!ok) {
        PyBuffer_Release(&c->off);
        PyBuffer_Release(&c->val);
        PyErr_SetString(PyExc_ValueError, "id column: offsets not increasing within the values");
        return -1;
    }
    return 0;
}

static void column_close(Column *c) {
    PyBuffer_Release(&c->off);
    PyBuffer_Release(&c->val);
}

static int rows_open(Py_buffer *rows, PyObject *obj, Py_ssize_t limit) {
    if (PyObject_GetBuffer(obj, rows, PyBUF_SIMPLE) < 0) return -1;
    const int64_t *r = (const int64_t *)rows->buf;
    Py_ssize_t k = rows->len / 8;
    int ok = rows->len % 8 == 0;
    for (Py_ssize_t i = 0; ok && i < k; i++) ok = r[i] >= 0 && r[i] < limit;
    if (!ok) {
        PyBuffer_Release(rows);
        PyErr_SetString(PyExc_IndexError, "id column: a row number outside the column");
        return -1;
    }
    return 0;
}

/* strcmp's order: -1, 0, 1 */
static int compare(const Column *a, Py_ssize_t i, const Column *b, Py_ssize_t j) {
    int64_t sa = at(a, i), la = at(a, i + 1) - sa, sb = at(b, j), lb = at(b, j + 1) - sb;
    int64_t common = la < lb ? la : lb;
    int c = common ? memcmp((const char *)a->val.buf + sa, (const char *)b->val.buf + sb, (size_t)common) : 0;
    if (c) return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb;
}

/* take(offsets, wide, values, rows) -> (offsets, wide, values): the ids at rows (int64), in that order. */
static PyObject *take(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *off, *val, *rows_obj;
    int wide;
    if (!PyArg_ParseTuple(args, "OpOO", &off, &wide, &val, &rows_obj)) return NULL;
    Column c;
    if (column_open(&c, off, wide, val) < 0) return NULL;
    Py_buffer rows;
    if (rows_open(&rows, rows_obj, c.n) < 0) { column_close(&c); return NULL; }
    const int64_t *r = (const int64_t *)rows.buf;
    Py_ssize_t k = rows.len / 8;
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < k; i++) total += at(&c, r[i] + 1) - at(&c, r[i]);
    int out_wide = total > INT32_MAX;
    PyObject *new_off = PyBytes_FromStringAndSize(NULL, (k + 1) * (out_wide ? 8 : 4));
    PyObject *new_val = new_off ? PyBytes_FromStringAndSize(NULL, total) : NULL;
    if (new_val) {
        /* a bytes object's data is 8-aligned (after its 8-byte hash field, in a 16-aligned block) */
        char *o = PyBytes_AS_STRING(new_off), *v = PyBytes_AS_STRING(new_val);
        const char *src = (const char *)c.val.buf;
        Py_BEGIN_ALLOW_THREADS
        int64_t pos = 0;
        for (Py_ssize_t i = 0; i < k; i++) {
            if (out_wide) ((int64_t *)(void *)o)[i] = pos; else ((int32_t *)(void *)o)[i] = (int32_t)pos;
            int64_t s = at(&c, r[i]), len = at(&c, r[i] + 1) - s;
            memcpy(v + pos, src + s, (size_t)len);
            pos += len;
        }
        if (out_wide) ((int64_t *)(void *)o)[k] = pos; else ((int32_t *)(void *)o)[k] = (int32_t)pos;
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&rows);
    column_close(&c);
    if (!new_val) { Py_XDECREF(new_off); return NULL; }
    PyObject *out = Py_BuildValue("(NiN)", new_off, out_wide, new_val);
    return out;
}

/* equal(a_off, a_wide, a_val, a_rows, b_off, b_wide, b_val, b_rows) -> bytes: 1 where a[a_rows[i]] == b[b_rows[i]]. */
static PyObject *equal(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ao, *av, *ar, *bo, *bv, *br;
    int aw, bw;
    if (!PyArg_ParseTuple(args, "OpOOOpOO", &ao, &aw, &av, &ar, &bo, &bw, &bv, &br)) return NULL;
    Column a, b;
    Py_buffer arows, brows;
    if (column_open(&a, ao, aw, av) < 0) return NULL;
    if (column_open(&b, bo, bw, bv) < 0) { column_close(&a); return NULL; }
    if (rows_open(&arows, ar, a.n) < 0) { column_close(&a); column_close(&b); return NULL; }
    if (rows_open(&brows, br, b.n) < 0) {
        PyBuffer_Release(&arows); column_close(&a); column_close(&b); return NULL;
    }
    PyObject *out = NULL;
    Py_ssize_t k = arows.len / 8;
    if (brows.len / 8 != k) {
        PyErr_SetString(PyExc_ValueError, "equal: as many rows on both sides");
    } else if ((out = PyBytes_FromStringAndSize(NULL, k)) != NULL) {
        unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
        const int64_t *x = (const int64_t *)arows.buf, *y = (const int64_t *)brows.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < k; i++) {
            int64_t sa = at(&a, x[i]), la = at(&a, x[i] + 1) - sa, sb = at(&b, y[i]), lb = at(&b, y[i] + 1) - sb;
            o[i] = la == lb && (la == 0 || !memcmp((const char *)a.val.buf + sa, (const char *)b.val.buf + sb,
                                                   (size_t)la));
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&arows);
    PyBuffer_Release(&brows);
    column_close(&a);
    column_close(&b);
    return out;
}

/* starts(offsets, wide, values) -> bytes of int64: the first row of every run of equal consecutive ids. */
static PyObject *starts(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *off, *val;
    int wide;
    if (!PyArg_ParseTuple(args, "OpO", &off, &wide, &val)) return NULL;
    Column c;
    if (column_open(&c, off, wide, val) < 0) return NULL;
    Py_ssize_t count = 0;
    int64_t *found = c.n ? PyMem_RawMalloc((size_t)c.n * 8) : NULL;
    if (c.n && !found) { column_close(&c); return PyErr_NoMemory(); }
    Py_BEGIN_ALLOW_THREADS
    const char *v = (const char *)c.val.buf;
    int64_t prev_start = 0, prev_len = -1;  /* no id before row 0 */
    for (Py_ssize_t i = 0; i < c.n; i++) {
        int64_t start = at(&c, i), len = at(&c, i + 1) - start;
        if (len != prev_len || (len && memcmp(v + start, v + prev_start, (size_t)len))) found[count++] = i;
        prev_start = start;
        prev_len = len;
    }
    Py_END_ALLOW_THREADS
    PyObject *out = PyBytes_FromStringAndSize((const char *)found, count * 8);
    PyMem_RawFree(found);
    column_close(&c);
    return out;
}

static int64_t *merge_sort(const Column *c, int64_t *idx, int64_t *tmp, Py_ssize_t n) {
    /* bottom-up and stable: runs of 1, 2, 4 ... merged, the left run winning ties */
    for (Py_ssize_t width = 1; width < n; width *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * width) {
            Py_ssize_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            Py_ssize_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = compare(c, idx[j], c, idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid) tmp[o++] = idx[i++];
            while (j < hi) tmp[o++] = idx[j++];
        }
        int64_t *swap = idx; idx = tmp; tmp = swap;
    }
    return idx;
}

/* argsort(offsets, wide, values) -> bytes of int64: rows in ascending byte order, equal ids in row order. */
static PyObject *argsort(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *off, *val;
    int wide;
    if (!PyArg_ParseTuple(args, "OpO", &off, &wide, &val)) return NULL;
    Column c;
    if (column_open(&c, off, wide, val) < 0) return NULL;
    Py_ssize_t n = c.n;
    int64_t *a = PyMem_RawMalloc((size_t)(n ? n : 1) * 8), *b = PyMem_RawMalloc((size_t)(n ? n : 1) * 8);
    PyObject *out = NULL;
    if (!a || !b) {
        PyErr_NoMemory();
    } else {
        int64_t *sorted;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) a[i] = i;
        sorted = merge_sort(&c, a, b, n);
        Py_END_ALLOW_THREADS
        out = PyBytes_FromStringAndSize((const char *)sorted, n * 8);
    }
    PyMem_RawFree(a);
    PyMem_RawFree(b);
    column_close(&c);
    return out;
}

/* place(offsets, wide, values, row, at, piece_offsets, piece_values): a piece of ids (int32 offsets from 0) written
 * into a column being joined, as ids row, row + 1, ... whose bytes start at values[at]; offsets[row] is already
 * there (the previous piece's end). One pass, without the GIL: the reader joins its pieces this way. */
static PyObject *place(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer off, val, poff, pval;
    int wide;
    Py_ssize_t row, at;
    if (!PyArg_ParseTuple(args, "w*pw*nny*y*", &off, &wide, &val, &row, &at, &poff, &pval)) return NULL;
    Py_ssize_t width = wide ? 8 : 4, k = poff.len / 4 - 1;
    const int32_t *p = (const int32_t *)poff.buf;
    int ok = poff.len % 4 == 0 && k >= 0 && row >= 0 && at >= 0 && (row + k + 1) * width <= off.len
             && p[0] == 0 && (Py_ssize_t)p[k] == pval.len && at + pval.len <= val.len
             && (wide || at + pval.len <= INT32_MAX);
    for (Py_ssize_t i = 0; ok && i < k; i++) ok = p[i + 1] >= p[i];
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        if (wide) {
            int64_t *o = (int64_t *)off.buf + row + 1;
            for (Py_ssize_t i = 0; i < k; i++) o[i] = (int64_t)p[i + 1] + at;
        } else {
            int32_t *o = (int32_t *)off.buf + row + 1;
            for (Py_ssize_t i = 0; i < k; i++) o[i] = p[i + 1] + (int32_t)at;
        }
        if (pval.len) memcpy((char *)val.buf + at, pval.buf, (size_t)pval.len);
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "place: the piece does not fit the column");
    }
    PyBuffer_Release(&off);
    PyBuffer_Release(&val);
    PyBuffer_Release(&poff);
    PyBuffer_Release(&pval);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* hash_ids(offsets, wide, values) -> bytes of uint64: keys.py id_hash of every id. */
static PyObject *hash_ids(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *off, *val;
    int wide;
    if (!PyArg_ParseTuple(args, "OpO", &off, &wide, &val)) return NULL;
    Column c;
    if (column_open(&c, off, wide, val) < 0) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, c.n * 8);
    if (out) {
        uint64_t *h = (uint64_t *)(void *)PyBytes_AS_STRING(out);
        const unsigned char *v = (const unsigned char *)c.val.buf, *end = v + c.val.len;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < c.n; i++) {
            int64_t s = at(&c, i);
            h[i] = id_hash(v + s, (Py_ssize_t)(at(&c, i + 1) - s), end);
        }
        Py_END_ALLOW_THREADS
    }
    column_close(&c);
    return out;
}

/* keys.py HashIndex.lookup: the index (into the keys as given) of each probe, -1 where absent. The keys are
 * grouped by their top bits (bucket b holds keys[start[b]:start[b + 1]]); a one-bit-per-slot filter on the
 * top bits turns most absent probes away after one read. index_bytes / start_bytes: 4 or 8. */
/* lookup's probes for one layout of the bucket offsets (START_T) and rows (ORDER_T), as a function of its own: its
 * values stay in registers. Random reads into an index far bigger than the caches: each probe's filter byte and
 * bucket start are fetched AHEAD probes early and its bucket's keys AHEAD / 2 early, so the misses overlap. */
#define RM_DEFINE_LOOKUP(NAME, START_T, ORDER_T)                                                               \
    static void NAME(const uint64_t *k, Py_ssize_t nkeys, const void *order_buf, const void *start_buf,          \
                     const unsigned char *f, int shift, int filter_shift, const uint64_t *p, Py_ssize_t nprobes, \
                     int64_t *o) {                                                                             \
        enum { AHEAD = 16 };                                                                                   \
        const ORDER_T *order = (const ORDER_T *)order_buf;                                                     \
        const START_T *st = (const START_T *)start_buf;                                                        \
        for (Py_ssize_t i = 0; i < nprobes; i++) {                                                             \
            if (i + AHEAD < nprobes) {                                                                         \
                uint64_t ahead = p[i + AHEAD];                                                                 \
                RM_PREFETCH(f + ((ahead >> filter_shift) >> 3));                                               \
                RM_PREFETCH(st + (ahead >> shift));                                                            \
            }                                                                                                  \
            if (i + AHEAD / 2 < nprobes) {                                                                     \
                uint64_t half = p[i + AHEAD / 2], hs = half >> filter_shift;                                   \
                if ((f[hs >> 3] >> (hs & 7)) & 1) RM_PREFETCH(k + st[half >> shift]);                         \
            }                                                                                                  \
            uint64_t probe = p[i], slot = probe >> filter_shift, bucket = probe >> shift;                      \
            int64_t found = -1;                                                                                \
            if ((f[slot >> 3] >> (slot & 7)) & 1) {                                                            \
                int64_t lo = (int64_t)st[bucket], hi = (int64_t)st[bucket + 1];                                \
                for (int64_t j = lo; j < hi && j < nkeys; j++) {                                               \
                    if (k[j] == probe) {                                                                       \
                        found = (int64_t)order[j];                                                             \
                        break;                                                                                 \
                    }                                                                                          \
                }                                                                                              \
            }                                                                                                  \
            o[i] = found;                                                                                      \
        }                                                                                                      \
    }

RM_DEFINE_LOOKUP(lookup_32_32, int32_t, int32_t)
RM_DEFINE_LOOKUP(lookup_32_64, int32_t, int64_t)
RM_DEFINE_LOOKUP(lookup_64_32, int64_t, int32_t)
RM_DEFINE_LOOKUP(lookup_64_64, int64_t, int64_t)
#undef RM_DEFINE_LOOKUP

static PyObject *lookup(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer keys, order, start, filter, probes, out;
    int shift, filter_shift;
    if (!PyArg_ParseTuple(args, "y*y*y*y*iiy*w*", &keys, &order, &start, &filter, &shift, &filter_shift,
                          &probes, &out))
        return NULL;
    Py_ssize_t nkeys = keys.len / 8, nprobes = probes.len / 8;
    int order_bytes = nkeys ? (int)(order.len / nkeys) : 4;
    /* the shifts are checked before any shift by them (a shift by 64 or more is undefined) */
    int shifts_ok = RM_SHIFT_OK(shift) && RM_SHIFT_OK(filter_shift);
    Py_ssize_t nbuckets = shifts_ok ? ((Py_ssize_t)1 << (64 - shift)) : 0;
    int start_bytes = shifts_ok ? (int)(start.len / (nbuckets + 1)) : 0;
    int valid = shifts_ok && out.len == nprobes * 8 && order.len == nkeys * order_bytes &&
                (order_bytes == 4 || order_bytes == 8) && (start_bytes == 4 || start_bytes == 8) &&
                start.len == (nbuckets + 1) * start_bytes && filter.len * 8 >= ((Py_ssize_t)1 << (64 - filter_shift));
    if (!valid) {
        PyErr_SetString(PyExc_ValueError, "lookup: buffers of the wrong size");
    } else {
        void (*probe_all)(const uint64_t *, Py_ssize_t, const void *, const void *, const unsigned char *, int, int,
                          const uint64_t *, Py_ssize_t, int64_t *) =
            start_bytes == 4 ? (order_bytes == 4 ? lookup_32_32 : lookup_32_64)
                             : (order_bytes == 4 ? lookup_64_32 : lookup_64_64);
        Py_BEGIN_ALLOW_THREADS
        probe_all((const uint64_t *)keys.buf, nkeys, order.buf, start.buf, (const unsigned char *)filter.buf, shift,
                  filter_shift, (const uint64_t *)probes.buf, nprobes, (int64_t *)out.buf);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&keys);
    PyBuffer_Release(&order);
    PyBuffer_Release(&start);
    PyBuffer_Release(&filter);
    PyBuffer_Release(&probes);
    PyBuffer_Release(&out);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* keys.py HashIndex.__init__, the passes around its sort. Two layouts, told apart by the buffers' sizes:
 * narrow (n < 2**31 keys, index_bits <= 32: low uint32, order and start int32) and wide (low uint64, order
 * and start int64), for any n.
 * index_pack: low[i] = the key's index_bits low bits, which the key gives up for its row i.
 * index_finish, on the packed keys sorted: each row out of its key, the key's low bits back (gathered by
 * row), the keys counted per bucket (start, zeroed, becomes the bucket offsets) and the filter bits set. */
static PyObject *index_pack(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer keys, low;
    int index_bits;
    if (!PyArg_ParseTuple(args, "w*w*i", &keys, &low, &index_bits)) return NULL;
    Py_ssize_t n = keys.len / 8;
    int wide = n ? low.len == n * 8 : 0;
    int valid = keys.len % 8 == 0 && index_bits >= 1 && index_bits <= (wide ? 63 : 32) &&
                low.len == n * (wide ? 8 : 4) && (uint64_t)n <= ((uint64_t)1 << index_bits) &&
                (wide || (uint64_t)n < ((uint64_t)1 << 31));
    if (!valid) {
        PyErr_SetString(PyExc_ValueError, "index_pack: buffers of the wrong size");
    } else {
        uint64_t *k = (uint64_t *)keys.buf, mask = ((uint64_t)1 << index_bits) - 1;
        Py_BEGIN_ALLOW_THREADS
        if (wide) {
            uint64_t *l = (uint64_t *)low.buf;
            for (Py_ssize_t i = 0; i < n; i++) {
                l[i] = k[i] & mask;
                k[i] = (k[i] & ~mask) | (uint64_t)i;
            }
        } else {
            uint32_t *l = (uint32_t *)low.buf;
            for (Py_ssize_t i = 0; i < n; i++) {
                l[i] = (uint32_t)(k[i] & mask);
                k[i] = (k[i] & ~mask) | (uint64_t)i;
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&keys);
    PyBuffer_Release(&low);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* index_finish's passes for one layout (LOW_T the low bits, INDEX_T the order and the bucket offsets), as a
 * function of its own: its few values stay in registers. 0, or 1 for a row past the keys. */
#define RM_DEFINE_INDEX_FINISH(NAME, LOW_T, INDEX_T)                                                           \
    static int NAME(uint64_t *p, const void *low_buf, void *order_buf, void *start_buf, unsigned char *f,        \
                    Py_ssize_t n, Py_ssize_t nbuckets, int index_bits, int shift, int filter_shift) {           \
        enum { AHEAD = 16 };                                                                                   \
        const LOW_T *l = (const LOW_T *)low_buf;                                                               \
        INDEX_T *o = (INDEX_T *)order_buf, *st = (INDEX_T *)start_buf;                                         \
        const uint64_t mask = ((uint64_t)1 << index_bits) - 1, high = ~mask;                                   \
        for (Py_ssize_t i = 0; i < n; i++) {                                                                   \
            if (i + AHEAD < n) RM_PREFETCH(l + (p[i + AHEAD] & mask));                                         \
            uint64_t row = p[i] & mask;                                                                        \
            if (row >= (uint64_t)n) return 1;                                                                  \
            uint64_t key = (p[i] & high) | (uint64_t)l[row];                                                   \
            o[i] = (INDEX_T)row;                                                                               \
            p[i] = key;                                                                                        \
            st[(key >> shift) + 1]++;                                                                          \
            uint64_t slot = key >> filter_shift;                                                               \
            f[slot >> 3] |= (unsigned char)(1u << (slot & 7));                                                 \
        }                                                                                                      \
        for (Py_ssize_t b = 0; b < nbuckets; b++) st[b + 1] += st[b];                                          \
        return 0;                                                                                              \
    }

RM_DEFINE_INDEX_FINISH(index_finish_narrow, uint32_t, int32_t)
RM_DEFINE_INDEX_FINISH(index_finish_wide, uint64_t, int64_t)
#undef RM_DEFINE_INDEX_FINISH

static PyObject *index_finish(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer packed, low, order, start, filter;
    int index_bits, shift, filter_shift;
    if (!PyArg_ParseTuple(args, "w*y*w*w*w*iii", &packed, &low, &order, &start, &filter, &index_bits, &shift,
                          &filter_shift))
        return NULL;
    Py_ssize_t n = packed.len / 8;
    int shifts_ok = RM_SHIFT_OK(shift) && RM_SHIFT_OK(filter_shift);
    Py_ssize_t nbuckets = shifts_ok ? ((Py_ssize_t)1 << (64 - shift)) : 0;
    int wide = shifts_ok && start.len == (nbuckets + 1) * 8;
    Py_ssize_t width = wide ? 8 : 4;
    int valid = shifts_ok && packed.len % 8 == 0 && index_bits >= 1 && index_bits <= (wide ? 63 : 32) &&
                (uint64_t)n <= ((uint64_t)1 << index_bits) && (wide || (uint64_t)n < ((uint64_t)1 << 31)) &&
                low.len == n * width && order.len == n * width && start.len == (nbuckets + 1) * width &&
                filter.len * 8 >= ((Py_ssize_t)1 << (64 - filter_shift));
    if (!valid) {
        PyErr_SetString(PyExc_ValueError, "index_finish: buffers of the wrong size");
    } else {
        int bad;
        Py_BEGIN_ALLOW_THREADS
        bad = (wide ? index_finish_wide : index_finish_narrow)((uint64_t *)packed.buf, low.buf, order.buf, start.buf,
                                                              (unsigned char *)filter.buf, n, nbuckets, index_bits,
                                                              shift, filter_shift);
        Py_END_ALLOW_THREADS
        if (bad) PyErr_SetString(PyExc_ValueError, "index_finish: a row past the keys");
    }
    PyBuffer_Release(&packed);
    PyBuffer_Release(&low);
    PyBuffer_Release(&order);
    PyBuffer_Release(&start);
    PyBuffer_Release(&filter);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}
static PyMethodDef methods[] = {
    {"take", take, METH_VARARGS, "take(offsets, wide, values, rows): the ids at rows -> (offsets, wide, values)."},
    {"equal", equal, METH_VARARGS, "equal(a_off, a_wide, a_val, a_rows, b_off, b_wide, b_val, b_rows): 1 where equal."},
    {"starts", starts, METH_VARARGS, "starts(offsets, wide, values): first row of each run of equal ids (int64)."},
    {"argsort", argsort, METH_VARARGS, "argsort(offsets, wide, values): stable ascending byte order (int64)."},
    {"place", place, METH_VARARGS,
     "place(offsets, wide, values, row, at, piece_offsets, piece_values): a piece of ids into a column being joined."},
    {"hash_ids", hash_ids, METH_VARARGS, "hash_ids(offsets, wide, values): the engine's 64-bit id hash of each id."},
    {"index_pack", index_pack, METH_VARARGS,
     "index_pack(keys, low, index_bits): HashIndex's keys give their low bits to low (uint32/uint64) for their row."},
    {"index_finish", index_finish, METH_VARARGS,
     "index_finish(packed, low, order, start, filter, index_bits, shift, filter_shift): HashIndex after its sort."},
    {"lookup", lookup, METH_VARARGS,
     "lookup(keys, order, start, filter, shift, filter_shift, probes, out): HashIndex.lookup into out (int64)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_idops",
                                    "Compiled kernels on id columns and the hash index (rankmeter/engine/ids.py, keys.py).", -1, methods};

PyMODINIT_FUNC PyInit__idops(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "HASH", RANKMETER_HASH_NAME) < 0) Py_CLEAR(m);
    return m;
}
