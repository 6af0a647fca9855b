/* Host side of wheelport's device printf on amdgcn: prints the records that the support
 * library's vprintf writes into a module's FIFO `__wp_printf_fifo` (record layout and the
 * conversion grammar: kernels-ir/printf.py). Included by the shim library (wheelport_shim.c,
 * which drains the FIFOs at CUDA's synchronisation points) and by tools/amdgpu-exec's runner,
 * so the interpreter's fixture runs check this code against the H200's printf output.
 *
 * Each conversion is printed by the C library's snprintf with the conversion's flags, width,
 * precision and conversion character, and the argument as the type its length gives: int or
 * unsigned (long long for the 8-byte lengths; `h`/`hh` kept, so the C library narrows), double,
 * a pointer, or the record's copy of the string. `%n` prints nothing, `%%` a `%`, and any other
 * conversion character is printed as written. Everything read from a record is bounds-checked:
 * a malformed record ends the walk. */
#ifndef WP_PRINTF_H
#define WP_PRINTF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Size of the FIFO global in bytes (src/lower/mod.rs PRINTF_FIFO_BYTES, kernels-ir/printf.py
 * FIFO_BYTES); its first 16 bytes are the header (bytes reserved, records dropped). */
#define WP_PRINTF_FIFO_BYTES 1048576u
#define WP_PRINTF_HEADER 16u

typedef void (*wp_printf_emit_fn)(void *ctx, const char *text, size_t len);

static uint32_t wp_printf_u32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t wp_printf_u64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* One conversion printed by snprintf with spec `spec` (NUL-terminated) and the argument of
 * `kind`: 'i' int, 'u' unsigned, 'I' long long, 'U' unsigned long long, 'd' double, 'p'
 * pointer, 's' string. */
static void wp_printf_one(wp_printf_emit_fn emit, void *ctx, const char *spec, char kind,
                          uint64_t v, const char *str) {
    char small[256];
    char *buf = small;
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t cap = pass == 0 ? sizeof small : (size_t)n + 1;
        if (pass == 1) {
            buf = (char *)malloc(cap);
            if (!buf) return;
        }
        switch (kind) {
        case 'i': n = snprintf(buf, cap, spec, (int)(uint32_t)v); break;
        case 'u': n = snprintf(buf, cap, spec, (unsigned)(uint32_t)v); break;
        case 'I': n = snprintf(buf, cap, spec, (long long)v); break;
        case 'U': n = snprintf(buf, cap, spec, (unsigned long long)v); break;
        case 'd': {
            double d;
            memcpy(&d, &v, 8);
            n = snprintf(buf, cap, spec, d);
            break;
        }
        case 'p': n = snprintf(buf, cap, spec, (void *)(uintptr_t)v); break;
        default: n = snprintf(buf, cap, spec, str); break;
        }
        if (n < 0) break;
        if ((size_t)n < cap) {
            emit(ctx, buf, (size_t)n);
            break;
        }
    }
    if (buf != small) free(buf);
}

/* Print one record's format with its slots and strings; returns 0, or -1 when the record is
 * malformed (a slot or string beyond the record). */
static int wp_printf_record(const unsigned char *rec, uint32_t size, wp_printf_emit_fn emit,
                            void *ctx) {
    uint32_t nslots = wp_printf_u32(rec + 4);
    const char *fmt = (const char *)rec + 8;
    const unsigned char *end = rec + size;
    const void *nul = memchr(fmt, 0, size - 8);
    if (!nul) return -1;
    size_t flen = (size_t)((const char *)nul - fmt) + 1;
    size_t so = 8 + ((flen + 7) & ~(size_t)7);
    if (so > size || nslots > (size - so) / 8) return -1;
    const unsigned char *slots = rec + so;
    const char *strs = (const char *)slots + 8 * (size_t)nslots;
    uint32_t k = 0;
    const char *p = fmt;
    while (*p) {
        const char *lit = p;
        while (*p && *p != '%') p++;
        if (p > lit) emit(ctx, lit, (size_t)(p - lit));
        if (!*p) break;
        /* a conversion: rebuilt into spec with `*` replaced by the slot's value */
        char spec[96];
        size_t sl = 0;
        const char *start = p;
        spec[sl++] = *p++;
        while (*p && strchr("-+ #0", *p)) {
            if (sl < 40) spec[sl++] = *p;
            p++;
        }
        for (int part = 0; part < 2; part++) {
            if (part == 1) {
                if (*p != '.') break;
                spec[sl++] = *p++;
            }
            if (*p == '*') {
                if (k >= nslots) return -1;
                int w = (int)(uint32_t)wp_printf_u64(slots + 8 * (size_t)k++);
                sl += (size_t)snprintf(spec + sl, 16, "%d", w);
                p++;
            } else {
                while (*p >= '0' && *p <= '9') {
                    if (sl < 70) spec[sl++] = *p;
                    p++;
                }
            }
        }
        int longlen = 0, shortlen = 0;
        while (*p && strchr("hlLqjzt", *p)) {
            if (*p == 'h') shortlen++;
            else longlen = 1;
            p++;
        }
        char c = *p;
        if (!c) {
            emit(ctx, start, (size_t)(p - start));
            break;
        }
        p++;
        char kind = 0;
        if (c == 'c') {
            kind = 'i';
        } else if (strchr("diouxX", c)) {
            int sgn = c == 'd' || c == 'i';
            kind = longlen ? (sgn ? 'I' : 'U') : (sgn ? 'i' : 'u');
            if (longlen) {
                spec[sl++] = 'l';
                spec[sl++] = 'l';
            } else {
                for (int h = 0; h < shortlen && h < 2; h++) spec[sl++] = 'h';
            }
        } else if (strchr("fFeEgGaA", c)) {
            kind = 'd';
        } else if (c == 'p') {
            kind = 'p';
        } else if (c == 's') {
            kind = 's';
        } else if (c == 'n') {
            if (k >= nslots) return -1;
            k++;
            continue;
        } else if (c == '%') {
            emit(ctx, "%", 1);
            continue;
        } else {
            emit(ctx, start, (size_t)(p - start));
            continue;
        }
        spec[sl++] = c;
        spec[sl] = 0;
        if (k >= nslots) return -1;
        uint64_t v = wp_printf_u64(slots + 8 * (size_t)k++);
        const char *str = NULL;
        if (kind == 's') {
            const void *snul = memchr(strs, 0, (size_t)((const char *)end - strs));
            if ((const char *)strs >= (const char *)end || !snul) return -1;
            str = v ? strs : "(null)";
            strs = (const char *)snul + 1;
        }
        wp_printf_one(emit, ctx, spec, kind, v, str);
    }
    return 0;
}

/* Print the complete records of a FIFO's record area `data[0, used)` in order; returns the
 * bytes of the records printed (the walk stops at a record not complete yet, size 0, or at a
 * malformed one). */
static size_t wp_printf_records(const unsigned char *data, size_t used, wp_printf_emit_fn emit,
                                void *ctx) {
    size_t off = 0;
    while (off + 8 <= used) {
        uint32_t size = wp_printf_u32(data + off);
        if (size < 16 || size % 8 != 0 || size > used - off) break;
        if (wp_printf_record(data + off, size, emit, ctx) != 0) break;
        off += size;
    }
    return off;
}

#endif
