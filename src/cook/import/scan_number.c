/*
 * scan_number.c — the number scanner OBJ and MTL text share
 * (import_scan_number, import.h): below both importers, so neither calls
 * the other for it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/import.h"

static bool is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}

/* Length of `word` (lower case) at p, case-insensitively, or 0. */
static size_t match_word(const unsigned char *p, const unsigned char *end, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((char)p[i]) != word[i])
            return 0;
    return n;
}

static const double powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The common form, [sign] digits [. digits] with at most 15 digits in all
 * and fewer than 8 on either side of the point, read with the value the
 * general path below gives it (the same mantissa and exponent, both exact in
 * a double, one rounding); false, reading nothing, for anything else. Needs
 * 18 readable bytes from p. */
static bool scan_plain(const unsigned char **cursor, double *out) {
    const unsigned char *p = *cursor;
    bool negative = *p == '-';
    p += *p == '-' || *p == '+';
    uint32_t whole, fraction = 0;
    unsigned whole_digits = import_leading_digits(p, &whole), fraction_digits = 0;
    if (whole_digits == 8)
        return false;
    p += whole_digits;
    if (*p == '.') {
        p++;
        fraction_digits = import_leading_digits(p, &fraction);
        if (fraction_digits == 8)
            return false;
        p += fraction_digits;
    }
    if (whole_digits + fraction_digits == 0 || whole_digits + fraction_digits > 15 || *p == 'e' ||
        *p == 'E' || *p == '#')
        return false;
    uint64_t mantissa = (uint64_t)whole * (uint64_t)powers[fraction_digits] + fraction;
    double value = (double)mantissa / powers[fraction_digits];
    *out = negative ? -value : value;
    *cursor = p;
    return true;
}
#endif

bool import_scan_number(const char **cursor, const char *end, double *out) {
    const unsigned char *p = (const unsigned char *)*cursor;
    const unsigned char *e = (const unsigned char *)end;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (e - p >= 18 && scan_plain(&p, out)) {
        *cursor = (const char *)p;
        return true;
    }
#endif
    bool negative = false;
    if (p < e && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        p++;
    }
    const unsigned char *start = p; /* the unsigned number */
    uint64_t mantissa = 0;
    long exponent = 0;
    bool digits = false, inexact = false;
    /* Up to 18 significant digits are kept exactly; later ones only scale. */
    for (; p < e && is_digit(*p); p++) {
        digits = true;
        if (mantissa < 100000000000000000ull) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        } else {
            exponent += exponent < 1000000;
            inexact |= *p != '0';
        }
    }
    if (p < e && *p == '.') {
        p++;
        for (; p < e && is_digit(*p); p++) {
            digits = true;
            if (mantissa < 100000000000000000ull) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                exponent--;
            } else {
                inexact |= *p != '0';
            }
        }
    }
    if (!digits) {
        size_t n;
        double special;
        if ((n = match_word(p, e, "infinity")) || (n = match_word(p, e, "inf")))
            special = INFINITY;
        else if ((n = match_word(p, e, "nan")))
            special = NAN;
        else
            return false;
        *out = negative ? -special : special;
        *cursor = (const char *)(p + n);
        return true;
    }
    if (p < e && *p == '#') {
        /* MSVC's printf spellings: 1.#INF, -1.#IND, 1.#QNAN, 1.#SNAN (+ digits). */
        const unsigned char *q = p + 1;
        double special = 0.0;
        size_t n;
        if ((n = match_word(q, e, "inf")))
            special = INFINITY;
        else if ((n = match_word(q, e, "ind")) || (n = match_word(q, e, "qnan")) ||
                 (n = match_word(q, e, "snan")))
            special = NAN;
        if (n > 0) {
            q += n;
            while (q < e && is_digit(*q))
                q++;
            *out = negative ? -special : special;
            *cursor = (const char *)q;
            return true;
        }
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        const unsigned char *q = p + 1;
        bool exponent_negative = false;
        if (q < e && (*q == '-' || *q == '+')) {
            exponent_negative = *q == '-';
            q++;
        }
        if (q < e && is_digit(*q)) {
            long value = 0;
            for (; q < e && is_digit(*q); q++)
                if (value < 1000000)
                    value = value * 10 + (*q - '0');
            exponent += exponent_negative ? -value : value;
            p = q;
        }
    }

    double value;
    if (mantissa == 0) {
        value = 0.0;
    } else if (!inexact && mantissa <= (1ull << 53) && exponent >= -22 && exponent <= 22) {
        /* Both operands exact, one rounding: correctly rounded (Clinger). */
        value = exponent < 0 ? (double)mantissa / powers[-exponent]
                             : (double)mantissa * powers[exponent];
    } else {
        char text[96];
        size_t length = (size_t)(p - start);
        bool parsed = false;
        if (length < sizeof text) {
            char *stop = NULL;
            memcpy(text, start, length);
            text[length] = '\0';
            value = strtod(text, &stop);
            parsed = stop == text + length;
        }
        /* Too long for the buffer (text + length would point past it: the
         * fuzzer found that), or a locale with another decimal point. */
        if (!parsed)
            value = (double)mantissa * pow(10.0, (double)exponent);
    }
    *out = negative ? -value : value;
    *cursor = (const char *)p;
    return true;
}
