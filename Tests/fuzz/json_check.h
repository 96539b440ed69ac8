/* json_check.h -- whether a text is JSON (json_check.c). */
#ifndef YAIA_FUZZ_JSON_CHECK_H
#define YAIA_FUZZ_JSON_CHECK_H

#include <stddef.h>

/* 1 if s[0..n) is exactly one JSON value (RFC 8259), white space around it allowed. */
int json_check(const char *s, size_t n);

#endif
