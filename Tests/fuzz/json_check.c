/*
** json_check.c -- whether a text is JSON (RFC 8259), for the fuzz target's
** check that every answer and event the runtime gives is (docs/fuzzing.md).
** Without recursion: the nesting an answer may carry is the runtime's to
** bound, not this checker's.
*/
#include <stdlib.h>
#include <string.h>

#include "json_check.h"

static size_t space(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

static int hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* The length of the UTF-8 sequence at s[i] (shortest form, no surrogates), or 0. */
static size_t utf8(const unsigned char *s, size_t i, size_t n)
{
    unsigned c = s[i];
    size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[i + k] & 0xC0) != 0x80)
            return 0;
    unsigned d = s[i + 1];
    if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F) || (c == 0xF0 && d < 0x90) || (c == 0xF4 && d > 0x8F))
        return 0;
    return len;
}

/* The index after the string at s[i] (a '"'), or 0. */
static size_t string_end(const char *s, size_t i, size_t n)
{
    for (i++; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            return i + 1;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (i + 1 >= n)
                return 0;
            char e = s[i + 1];
            if (e == 'u') {
                if (i + 5 >= n || !hex(s[i + 2]) || !hex(s[i + 3]) || !hex(s[i + 4]) || !hex(s[i + 5]))
                    return 0;
                i += 6;
            } else if (e && strchr("\"\\/bfnrt", e)) {
                i += 2;
            } else {
                return 0;
            }
            continue;
        }
        size_t len = utf8((const unsigned char *)s, i, n);
        if (len == 0)
            return 0;
        i += len;
    }
    return 0;
}

static size_t digits(const char *s, size_t i, size_t n)
{
    size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i > start ? i : 0;
}

/* The index after the number at s[i], or 0. */
static size_t number_end(const char *s, size_t i, size_t n)
{
    if (i < n && s[i] == '-')
        i++;
    if (i < n && s[i] == '0')
        i++;
    else if (!(i = digits(s, i, n)))
        return 0;
    if (i < n && s[i] == '.' && !(i = digits(s, i + 1, n)))
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (!(i = digits(s, i, n)))
            return 0;
    }
    return i;
}

/* The index after the scalar at s[i], or 0. */
static size_t scalar_end(const char *s, size_t i, size_t n)
{
    static const char *const words[] = {"true", "false", "null"};
    if (i >= n)
        return 0;
    if (s[i] == '"')
        return string_end(s, i, n);
    for (int w = 0; w < 3; w++) {
        size_t len = strlen(words[w]);
        if (n - i >= len && memcmp(s + i, words[w], len) == 0)
            return i + len;
    }
    return number_end(s, i, n);
}

/* After '{' or ',' in an object: the index after `"key":` and its white space, or 0. */
static size_t key_end(const char *s, size_t i, size_t n)
{
    if (i >= n || s[i] != '"' || !(i = string_end(s, i, n)))
        return 0;
    i = space(s, i, n);
    return i < n && s[i] == ':' ? space(s, i + 1, n) : 0;
}

int json_check(const char *s, size_t n)
{
    char *open = malloc(n + 1); /* the containers open: '{' or '[' */
    if (!open)
        return 0;
    size_t depth = 0, i = space(s, 0, n);
    int ok = 0;
    for (;;) {
        /* A value starts at s[i]. */
        if (i < n && (s[i] == '{' || s[i] == '[')) {
            char c = s[i];
            open[depth++] = c;
            i = space(s, i + 1, n);
            if (i < n && s[i] == (c == '{' ? '}' : ']')) {
                depth--;
                i++;
            } else {
                if (c == '{' && !(i = key_end(s, i, n)))
                    break;
                continue;
            }
        } else if (!(i = scalar_end(s, i, n))) {
            break;
        }
        /* After a value: the containers it ends, then a comma or the end. */
        for (;;) {
            i = space(s, i, n);
            if (depth == 0 || i >= n || s[i] != (open[depth - 1] == '{' ? '}' : ']'))
                break;
            depth--;
            i++;
        }
        if (depth == 0) {
            ok = i == n;
            break;
        }
        if (i >= n || s[i] != ',')
            break;
        i = space(s, i + 1, n);
        if (open[depth - 1] == '{' && !(i = key_end(s, i, n)))
            break;
    }
    free(open);
    return ok;
}
