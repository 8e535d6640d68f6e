/* The C parts of rankmeter that need no Python -- the TREC reader's number readers (rankmeter/io/_trecnum.h)
 * and the engine's id hash (rankmeter/engine/_idhash.h) -- run on one token per line of an input file, so
 * their answers on every platform the wheels are built for can be compared (tools/portability_check.py
 * builds it for each target with zig, runs it natively, under wine or qemu, and compares the outputs with
 * each other and with Python's float() and int()). Not part of the package; no test of the suite builds it.
 *
 *   driver INPUT OUTPUT
 *
 * INPUT: tokens separated by LF (a CR stays part of its token; no text-mode translation: binary I/O on every
 * platform). OUTPUT, one line per token:
 *
 *   grammar double_ok double_bits slow int_ok int_bits trunc_ok trunc_bits hash
 *
 * grammar: number_grammar; double_*: read_double (bits as 16 hex digits, "-" when refused), slow: 1 when
 * read_double took the exact slow path (this driver's slow_double: the C library's strtod in the C locale;
 * the extension uses it on glibc, musl and macOS, CPython's converter on Windows); int_*: read_int; trunc_*:
 * read_truncated; hash: id_hash of the token's bytes, the same at every alignment 0-7 of the token in a
 * buffer and with the buffer ending at the token or 8 bytes later, or "HASH-DIFFERS". A first line "#"
 * names the platform (type widths, byte order, FLT_EVAL_METHOD), which the comparison leaves out. */
#if !defined(_WIN32) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* strtod_l (glibc, musl) */
#endif
#include <float.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__APPLE__)
#include <xlocale.h>
#endif

#include "_idhash.h"
#include "_trecnum.h"

static int slow_calls = 0;
#if defined(_WIN32)
static _locale_t c_locale;
#else
static locale_t c_locale;
#endif

/* as _trecparse.c's slow_double on glibc, musl and macOS: strtod_l in the C locale, finite values only (Windows:
 * _strtod_l, which the extension does not use there) */
static int slow_double(const unsigned char *p, ptrdiff_t len, double *out) {
    slow_calls++;
    char *text = (char *)malloc((size_t)len + 1);
    if (text == NULL) return 0;
    memcpy(text, p, (size_t)len);
    text[len] = '\0';
    char *end = NULL;
#if defined(_WIN32)
    double value = _strtod_l(text, &end, c_locale);
#else
    double value = strtod_l(text, &end, c_locale);
#endif
    int ok = end == text + len;
    free(text);
    if (!ok || value != value || value - value != 0.0) return 0;
    *out = value;
    return 1;
}

static void put_hex(FILE *f, uint64_t v) {
    char digits[17];
    for (int i = 15; i >= 0; i--) { digits[i] = "0123456789abcdef"[v & 15]; v >>= 4; }
    digits[16] = '\0';
    fputs(digits, f);
}

static void put_field(FILE *f, int ok, uint64_t bits) {
    fputs(ok ? " 1 " : " 0 ", f);
    if (ok) put_hex(f, bits); else fputc('-', f);
}

/* id_hash of the token, checked the same at every alignment and with a tight or loose end of the buffer */
static int hash_token(const unsigned char *p, ptrdiff_t len, uint64_t *out) {
    unsigned char *buffer = (unsigned char *)malloc((size_t)len + 24);
    if (buffer == NULL) return 0;
    uint64_t first = id_hash(p, len, p + len);
    int same = 1;
    for (int shift = 0; shift < 8; shift++) {
        memset(buffer, 0xA5, (size_t)len + 24);
        memcpy(buffer + shift, p, (size_t)len);
        same &= id_hash(buffer + shift, len, buffer + shift + len) == first;      /* the buffer ends here */
        same &= id_hash(buffer + shift, len, buffer + shift + len + 8) == first;  /* 8 more bytes readable */
    }
    free(buffer);
    *out = first;
    return same;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: driver INPUT OUTPUT\n"); return 2; }
#if defined(_WIN32)
    c_locale = _create_locale(LC_NUMERIC, "C");
#else
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
#endif
    if (!c_locale) { fprintf(stderr, "no C locale\n"); return 2; }
    FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
    if (!in || !out) { fprintf(stderr, "cannot open the files\n"); return 2; }
    size_t size = 0, cap = 1 << 16, got;
    unsigned char *data = (unsigned char *)malloc(cap);
    while (data && (got = fread(data + size, 1, cap - size, in)) > 0) {
        size += got;
        if (size == cap) data = (unsigned char *)realloc(data, cap *= 2);
    }
    if (!data) { fprintf(stderr, "no memory\n"); return 2; }
    fclose(in);
    fprintf(out, "# long %d size_t %d void* %d long double %d little-endian %d flt-eval %d\n", (int)sizeof(long),
            (int)sizeof(size_t), (int)sizeof(void *), (int)sizeof(long double), (int)RM_LITTLE_ENDIAN,
            (int)FLT_EVAL_METHOD);
    size_t at = 0;
    while (at < size) {
        size_t stop = at;
        while (stop < size && data[stop] != '\n') stop++;
        const unsigned char *p = data + at;
        ptrdiff_t len = (ptrdiff_t)(stop - at);
        double d = 0.0;
        int64_t i = 0, t = 0;
        uint64_t bits = 0, h = 0;
        int before = slow_calls;
        int dok = read_double(p, len, &d);
        memcpy(&bits, &d, 8);
        fputc(number_grammar(p, len) ? '1' : '0', out);
        put_field(out, dok, bits);
        fputs(slow_calls > before ? " 1" : " 0", out);
        int iok = read_int(p, len, &i);
        put_field(out, iok, (uint64_t)i);
        int tok = len > 0 && read_truncated(p, len, &t);
        put_field(out, tok, (uint64_t)t);
        fputc(' ', out);
        if (hash_token(p, len, &h)) put_hex(out, h); else fputs("HASH-DIFFERS", out);
        fputc('\n', out);
        at = stop + 1;
    }
    free(data);
    return fclose(out) == 0 ? 0 : 1;
}
