/* The number readers of the compiled TREC reader (rankmeter/io/_trecparse.c): scores, grades and the number
 * grammar, in C with no Python, so that tests/ports/driver.c runs them on every platform the wheels are built
 * for (tools/portability_check.py). Numbers: [+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?, read as
 * Python's float() and int() read them; see _trecparse.c's header comment.
 *
 * The includer defines slow_double(p, len, out) -- the exact conversion of a number outside the fast path --
 * before or after including this file: _trecparse.c with the C library's strtod_l or CPython's converter, the
 * driver with the C library's. RM_SSIZE_T is Py_ssize_t when Python.h came first, else ptrdiff_t (the same
 * width on every supported platform). */
#ifndef RANKMETER_TRECNUM_H
#define RANKMETER_TRECNUM_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>

#ifndef RM_SSIZE_T
#ifdef Py_PYTHON_H
#define RM_SSIZE_T Py_ssize_t
#else
#define RM_SSIZE_T ptrdiff_t
#endif
#endif

static int slow_double(const unsigned char *p, RM_SSIZE_T len, double *out);

/* The fast path needs each multiplication or division rounded once, to double. Where doubles are computed in
 * wider registers and rounded again when stored (FLT_EVAL_METHOD 2: x87 on 32-bit x86 without SSE2, as GCC
 * builds for i386 by default) that double rounding is 1 ulp off for about 1 fast-path number in 7,000 (e.g.
 * "3084437377989383e-15"), so there every number goes to the exact slow path. 0 (SSE2, ARM, every wheel's
 * target) and 1 (float computed as double) round doubles once. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 1
#define RM_FAST_PATH 0
#else
#define RM_FAST_PATH 1
#endif

static const double EXACT_POWERS[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A finite number in the grammar, read as float() reads it; 0 when it is not one. */
static int read_double(const unsigned char *p, RM_SSIZE_T len, double *out) {
    RM_SSIZE_T i = 0;
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
    } else if (RM_FAST_PATH && significant <= 19 && mantissa <= (1ULL << 53) && exponent >= -22 && exponent <= 22) {
        value = (double)mantissa;
        value = exponent < 0 ? value / EXACT_POWERS[-exponent] : value * EXACT_POWERS[exponent];
    } else {
        return slow_double(p, len, out);
    }
    *out = negative ? -value : value;
    return 1;
}

/* [+-]?[0-9]+ within int64, as Python's int(); 0 when it is not one. */
static int read_int(const unsigned char *p, RM_SSIZE_T len, int64_t *out) {
    RM_SSIZE_T i = 0;
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

/* Whether the text is a number in the grammar ([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?). */
static int number_grammar(const unsigned char *p, RM_SSIZE_T len) {
    RM_SSIZE_T i = 0;
    int digits = 0;
    if (i < len && (p[i] == '+' || p[i] == '-')) i++;
    while (i < len && p[i] >= '0' && p[i] <= '9') { i++; digits = 1; }
    if (i < len && p[i] == '.') {
        i++;
        while (i < len && p[i] >= '0' && p[i] <= '9') { i++; digits = 1; }
    }
    if (!digits) return 0;
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < len && (p[i] == '+' || p[i] == '-')) i++;
        if (i == len || p[i] < '0' || p[i] > '9') return 0;
        while (i < len && p[i] >= '0' && p[i] <= '9') i++;
    }
    return i == len;
}

/* A grade read as trec_eval's atol reads it: the leading [+-]?[0-9]* of a number in the grammar (0 without
 * a digit), within int64; 0 when it is no such number or out of range. */
static int read_truncated(const unsigned char *p, RM_SSIZE_T len, int64_t *out) {
    if (read_int(p, len, out)) return 1;
    if (!number_grammar(p, len)) return 0;
    RM_SSIZE_T i = (p[0] == '+' || p[0] == '-') ? 1 : 0;
    RM_SSIZE_T j = i;
    while (j < len && p[j] >= '0' && p[j] <= '9') j++;
    if (j == i) { *out = 0; return 1; }
    return read_int(p, j, out);
}

#endif
