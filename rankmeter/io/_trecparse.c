/* The compiled reader of TREC run and qrels text: bytes -> columns in one pass.
 *
 * parse(data, kind, grades) reads a buffer of whole lines exactly as the pure reader
 * (rankmeter/io/trec.py) does -- lines split as bytes.splitlines (LF, CR, CRLF), fields as
 * bytes.split (runs of the six ASCII whitespace bytes), blank lines and lines whose first field
 * starts with '#' skipped -- and returns the columns the engine needs:
 *
 *   (nfields, rows, query_offsets, query_values, doc_offsets, doc_values, numbers, lines, tag,
 *    doc_hash, sub_offsets, sub_values, line_count)
 *
 * offsets are int32 (Arrow binary layout: rows + 1 of them, from 0), values the ids' bytes packed,
 * numbers float64 scores (runs) or int64 / float64 grades (qrels), lines the 1-based line of each
 * row (None when row i is line i + 1), tag the last line's run tag, doc_hash the engine's 64-bit
 * hash of each doc id (rankmeter/core/keys.py id_hash, bit for bit), sub_* the qrels' second field,
 * line_count the lines of the buffer. A buffer of only blank and comment lines gives nfields 0 and no
 * rows (a part of a file may be one; a whole file of them is the pure reader's to refuse).
 *
 * It returns None whenever it cannot vouch for the whole buffer (a wrong field count, a number
 * that is not one, a grade out of range, a truncated grade, a column past 2 GiB): the pure reader
 * then reads the buffer and names the line of the problem, so errors are the pure path's own and
 * nothing is ever accepted here that the pure path would refuse or read differently.
 *
 * Numbers: the pure path accepts [+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)? and reads it
 * with Python's float(). Here a mantissa of at most 2^53 with a decimal exponent within +-22 is
 * read with one multiplication or division of two exact doubles, which IEEE 754 rounds correctly
 * (Clinger, "How to read floating point numbers accurately", PLDI 1990); anything else goes
 * through PyOS_string_to_double, the converter float() itself uses.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__APPLE__)
#include <xlocale.h>
#endif

enum { KIND_RUN = 0, KIND_QRELS = 1 };
enum { GRADES_INTEGER = 0, GRADES_TRUNCATE = 1, GRADES_REAL = 2 };
#define MAX_FIELDS 6
#define OFFSET_LIMIT 0x7fffffffLL

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

/* What each byte is to the scan: part of a field, a field separator (bytes.split's whitespace but the
 * line ends), a line end (bytes.splitlines': LF, CR) or NUL (binary data). */
enum { BYTE_FIELD = 0, BYTE_SPACE = 1, BYTE_LINE_END = 2, BYTE_NUL = 3 };
static unsigned char BYTE_CLASS[256];

static void fill_byte_classes(void) {
    BYTE_CLASS[' '] = BYTE_CLASS['\t'] = BYTE_CLASS['\v'] = BYTE_CLASS['\f'] = BYTE_SPACE;
    BYTE_CLASS['\n'] = BYTE_CLASS['\r'] = BYTE_LINE_END;
    BYTE_CLASS[0] = BYTE_NUL;
}

#if defined(__GLIBC__) || defined(__APPLE__)
static locale_t c_locale = (locale_t)0;  /* made once at import, read-only after */
#endif

static const double EXACT_POWERS[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A finite number in the pure path's grammar, read as float() reads it; 0 when it is not one. */
static int read_double(const unsigned char *p, Py_ssize_t len, double *out) {
    Py_ssize_t i = 0;
    int negative = 0;
    if (i < len && (p[i] == '+' || p[i] == '-')) negative = p[i++] == '-';
    uint64_t mantissa = 0;
    int significant = 0, exponent = 0, any = 0;
    while (i < len && p[i] >= '0' && p[i] <= '9') {
        any = 1;
        if (significant || p[i] != '0') {
            if (significant < 19) mantissa = mantissa * 10 + (uint64_t)(p[i] - '0');
            else exponent++;
            significant++;
        }
        i++;
    }
    if (i < len && p[i] == '.') {
        i++;
        while (i < len && p[i] >= '0' && p[i] <= '9') {
            any = 1;
            if (significant || p[i] != '0') {
                if (significant < 19) { mantissa = mantissa * 10 + (uint64_t)(p[i] - '0'); exponent--; }
                significant++;
            } else {
                exponent--;
            }
            i++;
        }
    }
    if (!any) return 0;
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        int exp_negative = 0;
        if (i < len && (p[i] == '+' || p[i] == '-')) exp_negative = p[i++] == '-';
        if (i == len || p[i] < '0' || p[i] > '9') return 0;
        long value = 0;
        while (i < len && p[i] >= '0' && p[i] <= '9') {
            if (value < 100000000L) value = value * 10 + (p[i] - '0');
            i++;
        }
        exponent += (int)(exp_negative ? -value : value);
    }
    if (i != len) return 0;
    double value;
    if (mantissa == 0) {
        value = 0.0;
    } else if (significant <= 19 && mantissa <= (1ULL << 53) && exponent >= -22 && exponent <= 22) {
        value = (double)mantissa;
        value = exponent < 0 ? value / EXACT_POWERS[-exponent] : value * EXACT_POWERS[exponent];
    } else {
#if defined(__GLIBC__) || defined(__APPLE__)
        /* glibc's and macOS's strtod round correctly, as float() does; the text is already known to be
         * a decimal number (no hex, inf or nan reaches it), read in the C locale. No GIL is held here. */
        if (c_locale == (locale_t)0 || len > 4096) return 0;
        char text[4097];
        memcpy(text, p, (size_t)len);
        text[len] = '\0';
        char *end = NULL;
        value = strtod_l(text, &end, c_locale);
        if (end != text + len) return 0;
        if (value != value || value - value != 0.0) return 0; /* nan or inf: the pure path refuses it */
        *out = value;
        return 1;
#else
        return 0; /* elsewhere the pure path reads such numbers */
#endif
    }
    *out = negative ? -value : value;
    return 1;
}

/* [+-]?[0-9]+ within int64, as the pure path's int(); 0 when it is not one (the pure path decides). */
static int read_int(const unsigned char *p, Py_ssize_t len, int64_t *out) {
    Py_ssize_t i = 0;
    int negative = 0;
    if (i < len && (p[i] == '+' || p[i] == '-')) negative = p[i++] == '-';
    if (i == len) return 0;
    uint64_t value = 0;
    const uint64_t limit = negative ? (1ULL << 63) : (1ULL << 63) - 1;
    for (; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        unsigned d = p[i] - '0';
        if (value > (limit - d) / 10) return 0;
        value = value * 10 + d;
    }
    *out = negative ? (int64_t)(0 - value) : (int64_t)value;
    return 1;
}

/* A column written in place into a bytes object made big enough before the scan (the bounds come from the
 * buffer: no more rows than lines, no more id bytes than the buffer holds), then cut to what was written:
 * no copy, no growth while the scan runs without the GIL. Pages never written are never touched. */
typedef struct {
    PyObject *bytes;
    char *data;
    Py_ssize_t used, size;
} Column;

static int column_make(Column *g, Py_ssize_t size) {
    g->bytes = PyBytes_FromStringAndSize(NULL, size);
    if (g->bytes == NULL) return 0;
    g->data = PyBytes_AS_STRING(g->bytes);
    g->used = 0;
    g->size = size;
    return 1;
}

static int column_fits(Column *g, Py_ssize_t more) {
    return g->bytes != NULL && g->used + more <= g->size;  /* within the bounds by construction */
}

static inline int column_append(Column *g, const void *p, Py_ssize_t n) {
    if (!column_fits(g, n)) return 0;
    memcpy(g->data + g->used, p, (size_t)n);
    g->used += n;
    return 1;
}

typedef struct {
    Column query, query_off, doc, doc_off, sub, sub_off, numbers, lines, hashes;
} Columns;

static void columns_free(Columns *c) {
    Column *all[] = {&c->query, &c->query_off, &c->doc, &c->doc_off, &c->sub, &c->sub_off,
                      &c->numbers, &c->lines, &c->hashes};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) { Py_CLEAR(all[i]->bytes); all[i]->data = NULL; }
}

/* The bytes of a column, cut to what was written; the column gives up its reference. */
static PyObject *as_bytes(Column *g) {
    PyObject *out = g->bytes;
    g->bytes = NULL;
    g->data = NULL;
    if (out != NULL && _PyBytes_Resize(&out, g->used) < 0) return NULL;
    return out;
}

static inline int add_id(Column *values, Column *offsets, const unsigned char *p, Py_ssize_t len) {
    if (values->used + len > OFFSET_LIMIT) return 0;
    if (!column_append(values, p, len)) return 0;
    int32_t end = (int32_t)values->used;
    return column_append(offsets, &end, sizeof end);
}

/* Result codes of the scan (the GIL is released while it runs). */
enum { SCAN_OK = 0, SCAN_REFUSED = 1, SCAN_NO_MEMORY = 2 };

typedef struct {
    int nfields;          /* 2, 3 or 6 (at least 6) for runs; 4 for qrels */
    Py_ssize_t rows;
    int gapped;           /* a blank or comment line was met: line numbers are kept from there on */
    int64_t lines;        /* lines in the buffer, as bytes.splitlines counts them */
    const unsigned char *tag;
    Py_ssize_t tag_len;
} Scan;

static int scan(const unsigned char *data, Py_ssize_t n, int kind, int grades, Columns *c, Scan *s) {
    Py_ssize_t pos = 0;
    int64_t line = 0;
    int32_t zero = 0;
    if (!column_append(&c->query_off, &zero, sizeof zero) || !column_append(&c->doc_off, &zero, sizeof zero))
        return SCAN_NO_MEMORY;
    if (kind == KIND_QRELS && !column_append(&c->sub_off, &zero, sizeof zero)) return SCAN_NO_MEMORY;
    s->nfields = 0;
    s->rows = 0;
    s->gapped = 0;
    s->tag = NULL;
    s->tag_len = 0;
    const unsigned char *start[MAX_FIELDS];
    Py_ssize_t length[MAX_FIELDS];
    while (pos < n) {
        line++;
        /* one line, split into fields as it is read: up to the next LF or CR (CRLF is one line end) */
        int count = 0;
        Py_ssize_t i = pos;
        while (1) {
            while (i < n && BYTE_CLASS[data[i]] == BYTE_SPACE) i++;
            if (i >= n || BYTE_CLASS[data[i]] == BYTE_LINE_END) break;
            if (BYTE_CLASS[data[i]] == BYTE_NUL) return SCAN_REFUSED;  /* binary data: the pure path names it */
            Py_ssize_t from = i;
            while (i < n && BYTE_CLASS[data[i]] == BYTE_FIELD) i++;
            if (count < MAX_FIELDS) { start[count] = data + from; length[count] = i - from; }
            count++;
        }
        if (i < n) i += data[i] == '\r' && i + 1 < n && data[i + 1] == '\n' ? 2 : 1;
        pos = i;
        if (count == 0 || start[0][0] == '#') {
            if (!s->gapped) {  /* from here on rows and lines differ: number the rows so far 1, 2, ... */
                s->gapped = 1;
                if (!column_fits(&c->lines, (s->rows + 1) * (Py_ssize_t)sizeof(int64_t))) return SCAN_NO_MEMORY;
                for (Py_ssize_t r = 0; r < s->rows; r++) ((int64_t *)c->lines.data)[r] = r + 1;
                c->lines.used = s->rows * (Py_ssize_t)sizeof(int64_t);
            }
            continue;
        }
        if (s->nfields == 0) {
            if (kind == KIND_QRELS) {
                if (count != 4) return SCAN_REFUSED;
                s->nfields = 4;
            } else if (count == 2 || count == 3) {
                s->nfields = count;
            } else if (count >= 6) {
                s->nfields = 6;
            } else {
                return SCAN_REFUSED;
            }
        } else if (s->nfields == 6 ? count < 6 : count != s->nfields) {
            return SCAN_REFUSED;
        }
        int q = 0, d, number;
        if (kind == KIND_QRELS) { d = 2; number = 3; }
        else if (s->nfields == 6) { d = 2; number = 4; }
        else { d = 1; number = s->nfields == 3 ? 2 : -1; }
        if (kind == KIND_QRELS) {
            if (grades == GRADES_REAL) {
                double value;
                if (!read_double(start[number], length[number], &value)) return SCAN_REFUSED;
                if (!column_append(&c->numbers, &value, sizeof value)) return SCAN_NO_MEMORY;
            } else {
                int64_t value;
                if (!read_int(start[number], length[number], &value)) return SCAN_REFUSED;
                if (!column_append(&c->numbers, &value, sizeof value)) return SCAN_NO_MEMORY;
            }
            if (!add_id(&c->sub, &c->sub_off, start[1], length[1])) return SCAN_REFUSED;
        } else if (number >= 0) {
            double value;
            if (!read_double(start[number], length[number], &value)) return SCAN_REFUSED;
            if (!column_append(&c->numbers, &value, sizeof value)) return SCAN_NO_MEMORY;
        }
        if (!add_id(&c->query, &c->query_off, start[q], length[q])) return SCAN_REFUSED;
        if (!add_id(&c->doc, &c->doc_off, start[d], length[d])) return SCAN_REFUSED;
        uint64_t h = id_hash(start[d], length[d], data + n);
        if (!column_append(&c->hashes, &h, sizeof h) || (s->gapped && !column_append(&c->lines, &line, sizeof line)))
            return SCAN_NO_MEMORY;
        if (kind == KIND_RUN && s->nfields == 6) { s->tag = start[5]; s->tag_len = length[5]; }
        s->rows++;
    }
    s->lines = line;
    return SCAN_OK;
}

static PyObject *parse(PyObject *self, PyObject *args) {
    Py_buffer view;
    int kind, grades;
    if (!PyArg_ParseTuple(args, "y*ii", &view, &kind, &grades)) return NULL;
    if ((kind != KIND_RUN && kind != KIND_QRELS) || grades < GRADES_INTEGER || grades > GRADES_REAL) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "kind is 0 (run) or 1 (qrels); grades 0, 1 or 2");
        return NULL;
    }
    Columns c;
    memset(&c, 0, sizeof c);
    Scan s;
    int status;
    /* bounds from the buffer: a row per line at most (a line end per line, but perhaps the last) */
    const unsigned char *bytes = (const unsigned char *)view.buf;
    Py_ssize_t line_ends = 0;
    for (Py_ssize_t i = 0; i < view.len; i++) line_ends += bytes[i] == '\n' || bytes[i] == '\r';
    Py_ssize_t rows = line_ends + 1, offsets = (rows + 1) * (Py_ssize_t)sizeof(int32_t), values = view.len;
    int qrels = kind == KIND_QRELS;
    if (!column_make(&c.query_off, offsets) || !column_make(&c.query, values) || !column_make(&c.doc_off, offsets) ||
        !column_make(&c.doc, values) || !column_make(&c.numbers, rows * 8) || !column_make(&c.hashes, rows * 8) ||
        !column_make(&c.lines, rows * 8) || (qrels && (!column_make(&c.sub_off, offsets) || !column_make(&c.sub, values)))) {
        status = SCAN_NO_MEMORY;
    } else {
        Py_BEGIN_ALLOW_THREADS
        status = scan((const unsigned char *)view.buf, view.len, kind, grades, &c, &s);
        Py_END_ALLOW_THREADS
    }
    PyObject *result = NULL;
    if (status == SCAN_NO_MEMORY) {
        PyErr_NoMemory();
    } else if (status == SCAN_REFUSED) {
        result = Py_NewRef(Py_None);
    } else {
        /* row i is line i + 1 unless a blank or comment line was met (even after the last row) */
        Column *parts[] = {&c.query_off, &c.query, &c.doc_off, &c.doc, &c.numbers, &c.lines, &c.hashes,
                            &c.sub_off, &c.sub};
        int wanted[] = {1, 1, 1, 1, 1, s.gapped, 1, kind == KIND_QRELS, kind == KIND_QRELS};
        PyObject *made[9] = {NULL};
        int ok = 1;
        for (int i = 0; i < 9 && ok; i++) {
            made[i] = wanted[i] ? as_bytes(parts[i]) : Py_NewRef(Py_None);
            ok = made[i] != NULL;
        }
        PyObject *tag = NULL;
        if (ok) {
            tag = s.tag ? PyBytes_FromStringAndSize((const char *)s.tag, s.tag_len) : Py_NewRef(Py_None);
            ok = tag != NULL;
        }
        if (ok)
            result = Py_BuildValue("(inOOOOOOOOOOL)", s.nfields, s.rows, made[0], made[1], made[2], made[3],
                                   made[4], made[5], tag, made[6], made[7], made[8], (long long)s.lines);
        for (int i = 0; i < 9; i++) Py_XDECREF(made[i]);
        Py_XDECREF(tag);
    }
    columns_free(&c);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *hash_ids(PyObject *self, PyObject *args) {
    Py_buffer offsets, values;
    if (!PyArg_ParseTuple(args, "y*y*", &offsets, &values)) return NULL;
    Py_ssize_t n = offsets.len / 8 - 1;
    PyObject *out = NULL;
    if (n < 0 || offsets.len % 8) {
        PyErr_SetString(PyExc_ValueError, "offsets are int64, one more than the ids");
    } else if ((out = PyBytes_FromStringAndSize(NULL, n * 8)) != NULL) {
        const int64_t *off = (const int64_t *)offsets.buf;
        const unsigned char *v = (const unsigned char *)values.buf;
        uint64_t *h = (uint64_t *)PyBytes_AS_STRING(out);
        int ok = 1;
        for (Py_ssize_t i = 0; i < n; i++)
            if (off[i] < 0 || off[i + 1] < off[i] || off[i + 1] > values.len) { ok = 0; break; }
        if (!ok) {
            Py_CLEAR(out);
            PyErr_SetString(PyExc_ValueError, "offsets outside the values");
        } else {
            Py_BEGIN_ALLOW_THREADS
            for (Py_ssize_t i = 0; i < n; i++) h[i] = id_hash(v + off[i], off[i + 1] - off[i], v + values.len);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&values);
    return out;
}

/* keys.py HashIndex.lookup: the index (into the keys as given) of each probe, -1 where absent. The keys are
 * grouped by their top bits (bucket b holds keys[start[b]:start[b + 1]]); a one-bit-per-slot filter on the
 * top bits turns most absent probes away after one read. index_bytes / start_bytes: 4 or 8. */
static PyObject *lookup(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer keys, order, start, filter, probes, out;
    int shift, filter_shift;
    if (!PyArg_ParseTuple(args, "y*y*y*y*iiy*w*", &keys, &order, &start, &filter, &shift, &filter_shift,
                          &probes, &out))
        return NULL;
    Py_ssize_t nkeys = keys.len / 8, nprobes = probes.len / 8;
    int order_bytes = nkeys ? (int)(order.len / nkeys) : 4;
    Py_ssize_t nbuckets = ((Py_ssize_t)1 << (64 - shift));
    int start_bytes = (int)(start.len / (nbuckets + 1));
    int valid = shift > 0 && shift < 64 && filter_shift > 0 && filter_shift < 64 && out.len == nprobes * 8 &&
                (order_bytes == 4 || order_bytes == 8) && (start_bytes == 4 || start_bytes == 8) &&
                start.len == (nbuckets + 1) * start_bytes && filter.len * 8 >= ((Py_ssize_t)1 << (64 - filter_shift));
    if (!valid) {
        PyErr_SetString(PyExc_ValueError, "lookup: buffers of the wrong size");
    } else {
        const uint64_t *k = (const uint64_t *)keys.buf, *p = (const uint64_t *)probes.buf;
        const unsigned char *f = (const unsigned char *)filter.buf;
        int64_t *o = (int64_t *)out.buf;
        Py_BEGIN_ALLOW_THREADS
        /* Random reads into an index far bigger than the caches: each probe's filter byte and bucket start
         * are fetched AHEAD probes early and its bucket's keys AHEAD / 2 early, so the misses overlap. */
        enum { AHEAD = 16 };
#define START_AT(b) (start_bytes == 4 ? (int64_t)((const int32_t *)start.buf)[b] : ((const int64_t *)start.buf)[b])
        for (Py_ssize_t i = 0; i < nprobes; i++) {
#if defined(__GNUC__)
            if (i + AHEAD < nprobes) {
                uint64_t ahead = p[i + AHEAD];
                __builtin_prefetch(f + ((ahead >> filter_shift) >> 3));
                __builtin_prefetch((const char *)start.buf + (ahead >> shift) * start_bytes);
            }
            if (i + AHEAD / 2 < nprobes) {
                uint64_t half = p[i + AHEAD / 2], hs = half >> filter_shift;
                if ((f[hs >> 3] >> (hs & 7)) & 1) __builtin_prefetch(k + START_AT(half >> shift));
            }
#endif
            uint64_t probe = p[i], slot = probe >> filter_shift, bucket = probe >> shift;
            int64_t found = -1;
            if ((f[slot >> 3] >> (slot & 7)) & 1) {
                int64_t lo = START_AT(bucket), hi = START_AT(bucket + 1);
                for (int64_t j = lo; j < hi && j < nkeys; j++) {
                    if (k[j] == probe) {
                        found = order_bytes == 4 ? ((const int32_t *)order.buf)[j] : ((const int64_t *)order.buf)[j];
                        break;
                    }
                }
            }
            o[i] = found;
        }
#undef START_AT
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

/* keys.py HashIndex.__init__, the passes around its sort (n < 2**31 keys, index_bits <= 31).
 * index_pack: low[i] = the key's index_bits low bits, which the key gives up for its row i.
 * index_finish, on the packed keys sorted: each row out of its key, the key's low bits back (gathered by
 * row), the keys counted per bucket (start, zeroed, becomes the bucket offsets) and the filter bits set. */
static PyObject *index_pack(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer keys, low;
    int index_bits;
    if (!PyArg_ParseTuple(args, "w*w*i", &keys, &low, &index_bits)) return NULL;
    Py_ssize_t n = keys.len / 8;
    if (index_bits < 1 || index_bits > 31 || low.len != n * 4 || n >= ((Py_ssize_t)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "index_pack: buffers of the wrong size");
    } else {
        uint64_t *k = (uint64_t *)keys.buf, mask = ((uint64_t)1 << index_bits) - 1;
        uint32_t *l = (uint32_t *)low.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            l[i] = (uint32_t)(k[i] & mask);
            k[i] = (k[i] & ~mask) | (uint64_t)i;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&keys);
    PyBuffer_Release(&low);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyObject *index_finish(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer packed, low, order, start, filter;
    int index_bits, shift, filter_shift;
    if (!PyArg_ParseTuple(args, "w*y*w*w*w*iii", &packed, &low, &order, &start, &filter, &index_bits, &shift,
                          &filter_shift))
        return NULL;
    Py_ssize_t n = packed.len / 8;
    Py_ssize_t nbuckets = (shift > 0 && shift < 64) ? ((Py_ssize_t)1 << (64 - shift)) : 0;
    int valid = index_bits >= 1 && index_bits <= 31 && n < ((Py_ssize_t)1 << 31) && nbuckets > 0 &&
                filter_shift > 0 && filter_shift < 64 && low.len == n * 4 && order.len == n * 4 &&
                start.len == (nbuckets + 1) * 4 && filter.len * 8 >= ((Py_ssize_t)1 << (64 - filter_shift));
    if (!valid) {
        PyErr_SetString(PyExc_ValueError, "index_finish: buffers of the wrong size");
    } else {
        uint64_t *p = (uint64_t *)packed.buf, mask = ((uint64_t)1 << index_bits) - 1;
        const uint32_t *l = (const uint32_t *)low.buf;
        int32_t *o = (int32_t *)order.buf, *st = (int32_t *)start.buf;
        unsigned char *f = (unsigned char *)filter.buf;
        int bad = 0;
        Py_BEGIN_ALLOW_THREADS
        enum { AHEAD = 16 };
        for (Py_ssize_t i = 0; i < n; i++) {
#if defined(__GNUC__)
            if (i + AHEAD < n) __builtin_prefetch(l + (p[i + AHEAD] & mask));
#endif
            uint64_t row = p[i] & mask;
            if ((Py_ssize_t)row >= n) { bad = 1; break; }
            uint64_t key = (p[i] & ~mask) | l[row];
            o[i] = (int32_t)row;
            p[i] = key;
            st[(key >> shift) + 1]++;
            uint64_t slot = key >> filter_shift;
            f[slot >> 3] |= (unsigned char)(1u << (slot & 7));
        }
        for (Py_ssize_t b = 0; !bad && b < nbuckets; b++) st[b + 1] += st[b];
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
    {"index_pack", index_pack, METH_VARARGS,
     "index_pack(keys, low, index_bits): HashIndex's keys give their low bits to low (uint32) for their row."},
    {"index_finish", index_finish, METH_VARARGS,
     "index_finish(packed, low, order, start, filter, index_bits, shift, filter_shift): HashIndex after its sort."},
    {"lookup", lookup, METH_VARARGS,
     "lookup(keys, order, start, filter, shift, filter_shift, probes, out): HashIndex.lookup into out (int64)."},
    {"parse", parse, METH_VARARGS,
     "parse(data, kind, grades): the columns of TREC run (kind 0) or qrels (kind 1) text, or None."},
    {"hash_ids", hash_ids, METH_VARARGS,
     "hash_ids(offsets_int64, values): the engine's 64-bit id hash of each id, as bytes of uint64."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_trecparse",
                                    "The compiled TREC text reader (see rankmeter/io/compiled.py).", -1, methods};

PyMODINIT_FUNC PyInit__trecparse(void) {
    fill_byte_classes();
#if defined(__GLIBC__) || defined(__APPLE__)
    if (c_locale == (locale_t)0) c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
#endif
    return PyModule_Create(&module);
}
