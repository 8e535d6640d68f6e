/* The compiled reader of TREC run and qrels text: bytes -> columns in one pass.
 *
 * parse(data, kind, grades, layout) reads a buffer of whole lines -- lines split as bytes.splitlines
 * (LF, CR, CRLF), fields as bytes.split (runs of the six ASCII whitespace bytes), blank lines and lines
 * whose first field starts with '#' skipped -- as the line-by-line oracle (tests/oracles/trec_lines.py)
 * does, and returns the columns the engine needs:
 *
 *   (nfields, rows, query_offsets, query_values, doc_offsets, doc_values, numbers, lines, tag,
 *    doc_hash, sub_offsets, sub_values, line_count)
 *
 * offsets are int32 (Arrow binary layout: rows + 1 of them, from 0), values the ids' bytes packed,
 * numbers float64 scores (runs) or int64 / float64 grades (qrels), lines the 1-based line of each
 * row (None when row i is line i + 1), tag the last line's run tag, doc_hash the engine's 64-bit
 * hash of each doc id (rankmeter/engine/keys.py id_hash, bit for bit), sub_* the qrels' second field,
 * line_count the lines of the buffer. A buffer of only blank and comment lines gives nfields 0 and no
 * rows (a part of a file may be one; a whole file of them is refused by rankmeter/io/trec.py).
 * kind 2 is a run whose rank and tag fields are kept too (rank_offsets, rank_values, tag_offsets,
 * tag_values follow line_count; rankmeter check looks at them). layout 2, 3 or 6 fixes a run's field
 * count (the first data line of the whole input decides it when the input is read in pieces); 0 lets
 * the first row of the buffer decide.
 *
 * A line it cannot read (a wrong field count, a number that is not one, a grade out of range, a NUL
 * byte, an id past 2 GiB) ends the scan: the answer is then (line, start, end, reason), the line's
 * number in the buffer, its byte span and REFUSED_* below, and rankmeter/io/trec.py names the problem.
 *
 * Numbers: [+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)? read as Python's float() reads it.
 * A mantissa of at most 2^53 with a decimal exponent within +-22 is read with one multiplication or
 * division of two exact doubles, which IEEE 754 rounds correctly (Clinger, "How to read floating point
 * numbers accurately", PLDI 1990); anything else goes through the C library's strtod_l in the C locale
 * (glibc, musl, macOS: correctly rounded) or else PyOS_string_to_double, the converter float() itself uses.
 * A truncated grade (grades "truncate") is C atol's reading of a number in that grammar: its leading
 * [+-]?[0-9]* (0 when it has no digit).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* strtod_l in the C locale where the C library has it and rounds correctly: glibc and musl (Linux; musl has no
 * macro of its own, so every Linux C library but Android's bionic) and macOS. Windows has _strtod_l, but the
 * rounding of Microsoft's UCRT is not checked here (tools/portability_check.py runs wine's, not Microsoft's), so
 * there CPython's converter reads the numbers outside the fast path. -DRM_NO_STRTOD_L builds that path
 * anywhere (tests/ports/test_converter_fallback.py). */
#if !defined(RM_NO_STRTOD_L) && ((defined(__linux__) && !defined(__ANDROID__)) || defined(__APPLE__))
#define RM_HAVE_STRTOD_L 1
#endif
#if defined(RM_HAVE_STRTOD_L) && defined(__APPLE__)
#include <xlocale.h>
#endif

enum { KIND_RUN = 0, KIND_QRELS = 1, KIND_RUN_FIELDS = 2 };
/* Why a line was refused (the fourth item of a refusal). */
enum { REFUSED_LINE = 0, REFUSED_NUL = 1, REFUSED_LONG_ID = 2 };
enum { GRADES_INTEGER = 0, GRADES_TRUNCATE = 1, GRADES_REAL = 2 };
#define MAX_FIELDS 6
#define OFFSET_LIMIT 0x7fffffffLL

#include "_idhash.h"

/* What each byte is to the scan: part of a field, a field separator (bytes.split's whitespace but the
 * line ends), a line end (bytes.splitlines': LF, CR) or NUL (binary data). */
enum { BYTE_FIELD = 0, BYTE_SPACE = 1, BYTE_LINE_END = 2, BYTE_NUL = 3 };
static unsigned char BYTE_CLASS[256];

static void fill_byte_classes(void) {
    BYTE_CLASS[' '] = BYTE_CLASS['\t'] = BYTE_CLASS['\v'] = BYTE_CLASS['\f'] = BYTE_SPACE;
    BYTE_CLASS['\n'] = BYTE_CLASS['\r'] = BYTE_LINE_END;
    BYTE_CLASS[0] = BYTE_NUL;
}

#ifdef RM_HAVE_STRTOD_L
static locale_t c_locale = (locale_t)0;  /* made once at import, read-only after */
#endif

/* A number outside the exact fast path: the C library's correctly rounded strtod_l in the C locale where
 * there is one, else CPython's own converter (float()'s) under the GIL. The text is already known to be a
 * decimal number in the grammar (no hex, inf or nan reaches here). 0 when the value is not finite. */
static int slow_double(const unsigned char *p, Py_ssize_t len, double *out) {
    char small[128];
    char *text = len < (Py_ssize_t)sizeof small ? small : (char *)malloc((size_t)len + 1);
    if (text == NULL) return 0;
    memcpy(text, p, (size_t)len);
    text[len] = '\0';
    char *end = NULL;
    double value;
    int ok;
#ifdef RM_HAVE_STRTOD_L
    if (c_locale != (locale_t)0) {
        value = strtod_l(text, &end, c_locale);
        ok = end == text + len;
    } else
#endif
    {
        PyGILState_STATE gil = PyGILState_Ensure();
        value = PyOS_string_to_double(text, &end, NULL);
        ok = !(value == -1.0 && PyErr_Occurred()) && end == text + len;
        if (!ok) PyErr_Clear();
        PyGILState_Release(gil);
    }
    if (text != small) free(text);
    if (!ok || value != value || value - value != 0.0) return 0; /* nan or inf: not a finite number */
    *out = value;
    return 1;
}

#include "_trecnum.h"

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
    Column query, query_off, doc, doc_off, sub, sub_off, numbers, lines, hashes, rank, rank_off, tag, tag_off;
} Columns;

static void columns_free(Columns *c) {
    Column *all[] = {&c->query, &c->query_off, &c->doc, &c->doc_off, &c->sub, &c->sub_off,
                      &c->numbers, &c->lines, &c->hashes, &c->rank, &c->rank_off, &c->tag, &c->tag_off};
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
    Py_ssize_t refused_start, refused_end;  /* the byte span of the line refused */
    int refused_reason;                      /* REFUSED_* */
} Scan;

static int scan(const unsigned char *data, Py_ssize_t n, int kind, int grades, int layout, Columns *c, Scan *s) {
    Py_ssize_t pos = 0, from_line = 0;
    int fields_kept = kind == KIND_RUN_FIELDS;
    if (fields_kept) kind = KIND_RUN;
    int64_t line = 0;
    int32_t zero = 0;
    if (!column_append(&c->query_off, &zero, sizeof zero) || !column_append(&c->doc_off, &zero, sizeof zero))
        return SCAN_NO_MEMORY;
    if (kind == KIND_QRELS && !column_append(&c->sub_off, &zero, sizeof zero)) return SCAN_NO_MEMORY;
    if (fields_kept && (!column_append(&c->rank_off, &zero, sizeof zero) || !column_append(&c->tag_off, &zero, sizeof zero)))
        return SCAN_NO_MEMORY;
    s->nfields = kind == KIND_QRELS ? 4 : layout;
    s->refused_reason = REFUSED_LINE;
    s->lines = 0;
    s->rows = 0;
    s->gapped = 0;
    s->tag = NULL;
    s->tag_len = 0;
    const unsigned char *start[MAX_FIELDS];
    Py_ssize_t length[MAX_FIELDS];
#define REFUSE(reason) do { s->refused_reason = (reason); goto refused; } while (0)
    while (pos < n) {
        line++;
        from_line = s->refused_end = pos;
        /* one line, split into fields as it is read: up to the next LF or CR (CRLF is one line end) */
        int count = 0;
        Py_ssize_t i = pos;
        while (1) {
            while (i < n && BYTE_CLASS[data[i]] == BYTE_SPACE) i++;
            if (i >= n || BYTE_CLASS[data[i]] == BYTE_LINE_END) break;
            if (BYTE_CLASS[data[i]] == BYTE_NUL) REFUSE(REFUSED_NUL);  /* binary data */
            Py_ssize_t from = i;
            while (i < n && BYTE_CLASS[data[i]] == BYTE_FIELD) i++;
            if (count < MAX_FIELDS) { start[count] = data + from; length[count] = i - from; }
            count++;
        }
        s->refused_end = i;
        if (i < n) i += data[i] == '\r' && i + 1 < n && data[i + 1] == '\n' ? 2 : 1;
        pos = i;
        if (count == 0 || start[0][0] == '#') {
            if (!s->gapped) {  /* from here on rows and lines differ: number the rows so far 1, 2, ... */
                s->gapped = 1;
                if (!column_fits(&c->lines, (s->rows + 1) * (Py_ssize_t)sizeof(int64_t))) return SCAN_NO_MEMORY;
                /* a bytes object's data is 8-aligned (after its 8-byte hash field, in a 16-aligned block) */
                for (Py_ssize_t r = 0; r < s->rows; r++) ((int64_t *)(void *)c->lines.data)[r] = r + 1;
                c->lines.used = s->rows * (Py_ssize_t)sizeof(int64_t);
            }
            continue;
        }
        if (s->nfields == 0) s->nfields = count == 2 || count == 3 ? count : 6;  /* a run's first row decides */
        if (s->nfields == 6 ? count < 6 : count != s->nfields) REFUSE(REFUSED_LINE);
        int q = 0, d, number;
        if (kind == KIND_QRELS) { d = 2; number = 3; }
        else if (s->nfields == 6) { d = 2; number = 4; }
        else { d = 1; number = s->nfields == 3 ? 2 : -1; }
        if (kind == KIND_QRELS) {
            if (grades == GRADES_REAL) {
                double value;
                if (!read_double(start[number], length[number], &value)) REFUSE(REFUSED_LINE);
                if (!column_append(&c->numbers, &value, sizeof value)) return SCAN_NO_MEMORY;
            } else {
                int64_t value;
                if (!(grades == GRADES_TRUNCATE ? read_truncated : read_int)(start[number], length[number], &value))
                    REFUSE(REFUSED_LINE);
                if (!column_append(&c->numbers, &value, sizeof value)) return SCAN_NO_MEMORY;
            }
            if (!add_id(&c->sub, &c->sub_off, start[1], length[1])) REFUSE(REFUSED_LONG_ID);
        } else if (number >= 0) {
            double value;
            if (!read_double(start[number], length[number], &value)) REFUSE(REFUSED_LINE);
            if (!column_append(&c->numbers, &value, sizeof value)) return SCAN_NO_MEMORY;
        }
        if (!add_id(&c->query, &c->query_off, start[q], length[q]) || !add_id(&c->doc, &c->doc_off, start[d], length[d])
            || (fields_kept && s->nfields == 6 && (!add_id(&c->rank, &c->rank_off, start[3], length[3])
                                                   || !add_id(&c->tag, &c->tag_off, start[5], length[5]))))
            REFUSE(REFUSED_LONG_ID);
        uint64_t h = id_hash(start[d], length[d], data + n);
        if (!column_append(&c->hashes, &h, sizeof h) || (s->gapped && !column_append(&c->lines, &line, sizeof line)))
            return SCAN_NO_MEMORY;
        if (kind == KIND_RUN && s->nfields == 6) { s->tag = start[5]; s->tag_len = length[5]; }
        s->rows++;
    }
    s->lines = line;
    return SCAN_OK;
refused:
    s->lines = line;
    s->refused_start = from_line;
    while (s->refused_end < n && BYTE_CLASS[data[s->refused_end]] != BYTE_LINE_END) s->refused_end++;
    return SCAN_REFUSED;
#undef REFUSE
}

static PyObject *parse(PyObject *self, PyObject *args) {
    Py_buffer view;
    int kind, grades, layout = 0;
    if (!PyArg_ParseTuple(args, "y*ii|i", &view, &kind, &grades, &layout)) return NULL;
    if (kind < KIND_RUN || kind > KIND_RUN_FIELDS || grades < GRADES_INTEGER || grades > GRADES_REAL
        || (layout != 0 && layout != 2 && layout != 3 && layout != 6)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "kind is 0 (run), 1 (qrels) or 2 (run with its fields); grades 0, 1 or 2; "
                                          "layout 0, 2, 3 or 6");
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
    int qrels = kind == KIND_QRELS, fields = kind == KIND_RUN_FIELDS;
    if (!column_make(&c.query_off, offsets) || !column_make(&c.query, values) || !column_make(&c.doc_off, offsets) ||
        !column_make(&c.doc, values) || !column_make(&c.numbers, rows * 8) || !column_make(&c.hashes, rows * 8) ||
        !column_make(&c.lines, rows * 8) || (qrels && (!column_make(&c.sub_off, offsets) || !column_make(&c.sub, values)))
        || (fields && (!column_make(&c.rank_off, offsets) || !column_make(&c.rank, values) ||
                       !column_make(&c.tag_off, offsets) || !column_make(&c.tag, values)))) {
        status = SCAN_NO_MEMORY;
    } else {
        Py_BEGIN_ALLOW_THREADS
        status = scan((const unsigned char *)view.buf, view.len, kind, grades, layout, &c, &s);
        Py_END_ALLOW_THREADS
    }
    PyObject *result = NULL;
    if (status == SCAN_NO_MEMORY) {
        PyErr_NoMemory();
    } else if (status == SCAN_REFUSED) {
        result = Py_BuildValue("(LnnI)", (long long)s.lines, s.refused_start, s.refused_end, (unsigned)s.refused_reason);
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
        if (result != NULL && fields) {  /* the rank and tag fields after the 13 usual items */
            PyObject *extra[4] = {as_bytes(&c.rank_off), as_bytes(&c.rank), as_bytes(&c.tag_off), as_bytes(&c.tag)};
            PyObject *longer = NULL;
            if (extra[0] && extra[1] && extra[2] && extra[3]) {
                PyObject *tail = Py_BuildValue("(OOOO)", extra[0], extra[1], extra[2], extra[3]);
                if (tail != NULL) longer = PySequence_Concat(result, tail);
                Py_XDECREF(tail);
            }
            for (int i = 0; i < 4; i++) Py_XDECREF(extra[i]);
            Py_SETREF(result, longer);
        }
        for (int i = 0; i < 9; i++) Py_XDECREF(made[i]);
        Py_XDECREF(tag);
    }
    columns_free(&c);
    PyBuffer_Release(&view);
    return result;
}

/* ---- from_dicts: pytrec_eval's dicts straight into the same columns (rankmeter/compat/pytrec_eval/dicts.py).
 *
 * from_dicts(data, qrels) walks {query: {doc: value}} with the C API: ids must be non-empty str without
 * NUL (as UTF-8), inner values dict, values int (qrels; bool is one) or float / int (runs, read as a double).
 * Returns (query_offsets, query_values,
 * doc_offsets, doc_values, numbers) -- int32 offsets, packed id bytes, int64 grades or float64 scores -- or
 * None for anything else (the Python path then checks the dicts and raises pytrec_eval's error). */
typedef struct {
    PyObject *bytes;
    Py_ssize_t used;
} Grown;

static int grown_add(Grown *g, const void *p, Py_ssize_t n) {
    Py_ssize_t size = g->bytes == NULL ? 0 : PyBytes_GET_SIZE(g->bytes);
    if (g->bytes == NULL || g->used + n > size) {
        Py_ssize_t want = size < 4096 ? 4096 : size;
        while (want < g->used + n) want *= 2;
        if (g->bytes == NULL) {
            g->bytes = PyBytes_FromStringAndSize(NULL, want);
            if (g->bytes == NULL) return 0;
        } else if (_PyBytes_Resize(&g->bytes, want) < 0) {
            return 0;
        }
    }
    memcpy(PyBytes_AS_STRING(g->bytes) + g->used, p, (size_t)n);
    g->used += n;
    return 1;
}

/* 1: added; 0: not an id this walker vouches for; -1: an error (no memory) is set. */
static int dict_id(PyObject *key, Grown *values, Grown *offsets) {
    if (!PyUnicode_Check(key)) return 0;
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(key, &len);
    if (text == NULL) { PyErr_Clear(); return 0; }  /* a lone surrogate: the Python path says so */
    if (len == 0 || memchr(text, 0, (size_t)len) != NULL) return 0;
    if (values->used + len > OFFSET_LIMIT) return 0;
    if (!grown_add(values, text, len)) return -1;
    int32_t end = (int32_t)values->used;
    return grown_add(offsets, &end, sizeof end) ? 1 : -1;
}

static PyObject *from_dicts(PyObject *self, PyObject *args) {
    PyObject *data;
    int qrels;
    if (!PyArg_ParseTuple(args, "O!p", &PyDict_Type, &data, &qrels)) return NULL;
    Grown g[5];  /* query offsets, query values, doc offsets, doc values, numbers */
    memset(g, 0, sizeof g);
    int32_t zero = 0;
    /* every column made at once (the id values and numbers empty), so each is a bytes object at the end */
    int status = grown_add(&g[0], &zero, sizeof zero) && grown_add(&g[2], &zero, sizeof zero)
                 && grown_add(&g[1], "", 0) && grown_add(&g[3], "", 0) && grown_add(&g[4], "", 0) ? 1 : -1;
    PyObject *q, *inner;
    Py_ssize_t pos = 0;
    while (status == 1 && PyDict_Next(data, &pos, &q, &inner)) {
        if (!PyDict_Check(inner) || !PyUnicode_Check(q)) { status = 0; break; }
        Py_ssize_t qlen;
        const char *qtext = PyUnicode_AsUTF8AndSize(q, &qlen);
        if (qtext == NULL) { PyErr_Clear(); status = 0; break; }
        if (qlen == 0 || memchr(qtext, 0, (size_t)qlen) != NULL) { status = 0; break; }
        PyObject *d, *value;
        Py_ssize_t inner_pos = 0;
        while (status == 1 && PyDict_Next(inner, &inner_pos, &d, &value)) {
            status = dict_id(d, &g[3], &g[2]);
            if (status != 1) break;
            if (g[1].used + qlen > OFFSET_LIMIT) { status = 0; break; }
            int32_t qend = (int32_t)(g[1].used + qlen);
            if (!grown_add(&g[1], qtext, qlen) || !grown_add(&g[0], &qend, sizeof qend)) { status = -1; break; }
            if (qrels) {
                if (!PyLong_Check(value)) { status = 0; break; }
                int overflow = 0;
                long long grade = PyLong_AsLongLongAndOverflow(value, &overflow);
                if (overflow || (grade == -1 && PyErr_Occurred())) { PyErr_Clear(); status = 0; break; }
                int64_t out = (int64_t)grade;
                if (!grown_add(&g[4], &out, sizeof out)) { status = -1; break; }
            } else {
                double score;
                if (PyFloat_Check(value)) {
                    score = PyFloat_AS_DOUBLE(value);
                } else if (PyLong_Check(value)) {
                    score = PyLong_AsDouble(value);
                    if (score == -1.0 && PyErr_Occurred()) { PyErr_Clear(); status = 0; break; }
                } else {
                    status = 0;
                    break;
                }
                if (!grown_add(&g[4], &score, sizeof score)) { status = -1; break; }
            }
        }
    }
    PyObject *result = NULL;
    if (status == 1) {
        int ok = 1;
        for (int i = 0; i < 5 && ok; i++) ok = _PyBytes_Resize(&g[i].bytes, g[i].used) == 0;
        if (ok) result = Py_BuildValue("(OOOOO)", g[0].bytes, g[1].bytes, g[2].bytes, g[3].bytes, g[4].bytes);
    } else if (status == 0) {
        result = Py_NewRef(Py_None);
    }
    for (int i = 0; i < 5; i++) Py_XDECREF(g[i].bytes);
    return result;
}

static PyMethodDef methods[] = {
    {"parse", parse, METH_VARARGS,
     "parse(data, kind, grades, layout=0): the columns of TREC run (kind 0, 2 with its rank and tag fields) or "
     "qrels (kind 1) text, or (line, start, end, reason) of the line refused."},
    {"from_dicts", from_dicts, METH_VARARGS,
     "from_dicts(data, qrels): the columns of pytrec_eval's {query: {doc: value}} dicts, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_trecparse",
                                    "The compiled TREC text reader (see rankmeter/io/compiled.py).", -1, methods};

PyMODINIT_FUNC PyInit__trecparse(void) {
    fill_byte_classes();
#ifdef RM_HAVE_STRTOD_L
    if (c_locale == (locale_t)0) c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
#endif
    PyObject *m = PyModule_Create(&module);
    /* the doc hashes' function (engine/_idhash.h): keys.py uses them only when it is its own */
    if (m && PyModule_AddStringConstant(m, "HASH", RANKMETER_HASH_NAME) < 0) Py_CLEAR(m);
    return m;
}
