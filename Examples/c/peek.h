/*
** peek.h -- reading libyaia's answers in the example programs, with no JSON
** library: the answers are canonical and compact (sorted keys, no spaces),
** so scanning is enough to pick members out.
**
** Header only. The including program defines
**     static void die(const char *what, char *response);
** which these helpers call when memory runs out. Every char * they return is
** malloc'd: free() it.
*/
#ifndef YAIA_EXAMPLES_PEEK_H
#define YAIA_EXAMPLES_PEEK_H

#include <stdlib.h>
#include <string.h>

static void die(const char *what, char *response);

/* Just past the JSON value that starts at p. */
static inline const char *value_end(const char *p)
{
    int depth = 0, in_string = 0;
    for (; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"') {
                in_string = 0;
                if (depth == 0)
                    return p + 1;
            }
            continue;
        }
        if (*p == '"') {
            in_string = 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0)
                return p;
            if (--depth == 0)
                return p + 1;
        } else if (*p == ',' && depth == 0) {
            return p;
        }
    }
    return p;
}

/* A copy of the text from `from` up to `to`. */
static inline char *copy(const char *from, const char *to)
{
    char *s = malloc((size_t)(to - from) + 1);
    if (!s)
        die("out of memory", NULL);
    memcpy(s, from, (size_t)(to - from));
    s[to - from] = '\0';
    return s;
}

/* A copy of the text of member `key` of the object `json`, or NULL. Only
** members of that object are seen, not nested ones. */
static inline char *member(const char *json, const char *key)
{
    if (!json || *json != '{')
        return NULL;
    size_t klen = strlen(key);
    const char *p = json + 1;
    while (*p == '"') {
        const char *colon = value_end(p); /* just past the key string */
        const char *v = colon + 1, *e = value_end(v);
        if ((size_t)(colon - p - 2) == klen && strncmp(p + 1, key, klen) == 0)
            return copy(v, e);
        if (*e != ',')
            break;
        p = e + 1;
    }
    return NULL;
}

/* Member `key` as a whole number, or -1. */
static inline long long int_member(const char *json, const char *key)
{
    char *v = member(json, key);
    long long n = v ? strtoll(v, NULL, 10) : -1;
    free(v);
    return n;
}

/* The next element of an array: *cursor starts at its '['; NULL at the end. */
static inline char *next_element(const char **cursor)
{
    const char *p = *cursor;
    if (*p == '[' || *p == ',')
        p++;
    if (*p == ']' || *p == '\0')
        return NULL;
    const char *e = value_end(p);
    *cursor = e;
    return copy(p, e);
}

/* `s` as a JSON string: quotes and backslashes escaped (the examples pass no
** control characters). */
static inline char *quote(const char *s)
{
    char *out = malloc(strlen(s) * 2 + 3), *p = out;
    if (!out)
        die("out of memory", NULL);
    *p++ = '"';
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            *p++ = '\\';
        *p++ = *s;
    }
    *p++ = '"';
    *p = '\0';
    return out;
}

#endif
