/*
** typelib.c -- libyaiatypes.so, the C library the foreign-function tests
** bind (docs/ffi.md). Built by the Makefile into .build/yaia/lib/.
**
** Every type of the signature language crosses here in both directions:
**
**   tl_id_T(T) -> T         identity: the argument goes in, the same comes back
**   tl_widen_T(T) -> int64/uint64/double
**                           the argument as C saw it, returned in a wide type,
**                           so argument passing is checked apart from returns
**   tl_min_T() / tl_max_T() the type's limits as returns (narrow returns are
**                           widened to ffi_arg by libffi: each is checked)
**   tl_out_T(T, T *out)     writes its argument through an out-parameter
**
** for T in bool i8 i16 i32 i64 u8 u16 u32 u64 size f32 f64 ptr, plus strings
** (borrowed, static, NULL), owned strings (string!) with a counting free
** function, byte buffers with every integer length type, pointers as
** integers (a static, heap boxes, NULL) and a 20-parameter function that
** puts arguments on the stack.
**
** string! results come from tl_dup and friends, which record each pointer,
** so tl_free can tell a pointer it allocated (freed once: tl_frees) from a
** double or foreign free (tl_bad_frees, left alone).
** Counters are atomic: blocking services call in from worker threads.
*/
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../c/gate.h"

#define API __attribute__((visibility("default")))

/* ------------------------------------------------------------ counters */

static atomic_llong touches, allocs, frees, bad_frees, boxes;

/* void() */
API void tl_touch(void) { atomic_fetch_add(&touches, 1); }
/* int64() */
API int64_t tl_touches(void) { return atomic_load(&touches); }
API int64_t tl_allocs(void) { return atomic_load(&allocs); }
API int64_t tl_frees(void) { return atomic_load(&frees); }
API int64_t tl_bad_frees(void) { return atomic_load(&bad_frees); }
API int64_t tl_boxes(void) { return atomic_load(&boxes); }
/* allocations not yet freed by tl_free */
API int64_t tl_live(void) { return atomic_load(&allocs) - atomic_load(&frees); }

/* ------------------------------------------------------------ integers */

#define INTEGER(NAME, T, WIDE, MIN, MAX)                        \
    API T tl_id_##NAME(T v) { return v; }                       \
    API WIDE tl_widen_##NAME(T v) { return (WIDE)v; }           \
    API T tl_min_##NAME(void) { return MIN; }                   \
    API T tl_max_##NAME(void) { return MAX; }                   \
    API T tl_add_##NAME(T a, T b) { return (T)((WIDE)a + (WIDE)b); } \
    API void tl_out_##NAME(T v, T *out) { *out = v; }

INTEGER(i8, int8_t, int64_t, INT8_MIN, INT8_MAX)
INTEGER(i16, int16_t, int64_t, INT16_MIN, INT16_MAX)
INTEGER(i32, int32_t, int64_t, INT32_MIN, INT32_MAX)
INTEGER(u8, uint8_t, uint64_t, 0, UINT8_MAX)
INTEGER(u16, uint16_t, uint64_t, 0, UINT16_MAX)
INTEGER(u32, uint32_t, uint64_t, 0, UINT32_MAX)
INTEGER(u64, uint64_t, uint64_t, 0, UINT64_MAX)
INTEGER(size, size_t, uint64_t, 0, SIZE_MAX)

/* int64 wraps through unsigned arithmetic: signed overflow is undefined. */
API int64_t tl_id_i64(int64_t v) { return v; }
API int64_t tl_widen_i64(int64_t v) { return v; }
API int64_t tl_min_i64(void) { return INT64_MIN; }
API int64_t tl_max_i64(void) { return INT64_MAX; }
API int64_t tl_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
API void tl_out_i64(int64_t v, int64_t *out) { *out = v; }

/* The benchmark's cheap function: int64(int64, int64). */
API int64_t add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

/* Narrow returns whose upper register bits are dirty on purpose: the value
** is computed in a full register and only its low bits are the result. */
API int8_t tl_low_i8(int64_t v) { return (int8_t)(uint8_t)(uint64_t)v; }
API uint8_t tl_low_u8(int64_t v) { return (uint8_t)(uint64_t)v; }
API int16_t tl_low_i16(int64_t v) { return (int16_t)(uint16_t)(uint64_t)v; }
API uint16_t tl_low_u16(int64_t v) { return (uint16_t)(uint64_t)v; }
API int32_t tl_low_i32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
API uint32_t tl_low_u32(int64_t v) { return (uint32_t)(uint64_t)v; }

/* ------------------------------------------------------------ bool */

API bool tl_id_bool(bool v) { return v; }
API bool tl_not(bool v) { return !v; }
API int64_t tl_widen_bool(bool v) { return v ? 1 : 0; }
/* bool(int32): x != 0, exactly 1 or 0 as C returns it */
API bool tl_nonzero(int32_t v) { return v != 0; }
API bool tl_min_bool(void) { return false; }
API bool tl_max_bool(void) { return true; }
API void tl_out_bool(bool v, bool *out) { *out = v; }

/* ------------------------------------------------------------ floating point */

API float tl_id_f32(float v) { return v; }
API double tl_widen_f32(float v) { return (double)v; }
API float tl_narrow_f64(double v) { return (float)v; }
API float tl_add_f32(float a, float b) { return a + b; }
API float tl_max_f32(void) { return FLT_MAX; }
API float tl_min_f32(void) { return -FLT_MAX; }
API float tl_tiny_f32(void) { return 1.40129846e-45f; } /* FLT_TRUE_MIN, a denormal */
API float tl_nan_f32(void) { return NAN; }
API float tl_ninf_f32(void) { return -INFINITY; }
API void tl_out_f32(float v, float *out) { *out = v; }

API double tl_id_f64(double v) { return v; }
API double tl_widen_f64(double v) { return v; }
API double tl_add_f64(double a, double b) { return a + b; }
API double tl_max_f64(void) { return DBL_MAX; }
API double tl_min_f64(void) { return -DBL_MAX; }
API double tl_tiny_f64(void) { return 4.9406564584124654e-324; } /* DBL_TRUE_MIN */
API double tl_nan_f64(void) { return NAN; }
API double tl_inf_f64(void) { return INFINITY; }
API double tl_neg_zero(void) { return -0.0; }
API void tl_out_f64(double v, double *out) { *out = v; }

/* bool(double): sign bit set (tells -0.0 from 0.0) */
API bool tl_signbit(double v) { return signbit(v) != 0; }
API bool tl_isnan(double v) { return isnan(v); }
/* int32(double): 1 for +inf, -1 for -inf, 0 otherwise */
API int32_t tl_isinf(double v) { return isinf(v) ? (v > 0 ? 1 : -1) : 0; }
API bool tl_isnan_f32(float v) { return isnan(v); }
API int32_t tl_isinf_f32(float v) { return isinf(v) ? (v > 0 ? 1 : -1) : 0; }

/* ------------------------------------------------------------ strings */

API size_t tl_strlen(const char *s) { return s ? strlen(s) : SIZE_MAX; }
/* string(string): returns the argument itself (the host copies it first) */
API const char *tl_id_str(const char *s) { return s; }
API const char *tl_static_str(void) { return "static \xc3\xa9\xe2\x98\x83"; }
API const char *tl_null_str(void) { return NULL; }
/* string(): not UTF-8 (a lone 0xFF byte); the host must still answer valid JSON */
API const char *tl_bad_utf8(void) { return "a\xff" "b"; }
/* uint8(string, size_t): the byte at i, or 0 past the end */
API uint8_t tl_byte_at(const char *s, size_t i) { return i < strlen(s) ? (uint8_t)s[i] : 0; }
/* int32(string, string): strcmp's sign */
API int32_t tl_strcmp(const char *a, const char *b)
{
    int c = strcmp(a, b);
    return (c > 0) - (c < 0);
}

/* ------------------------------------------------------------ owned strings (string!) */

/* Live allocations, so tl_free can tell a pointer it handed out (freed once:
** tl_frees) from a double or foreign free (tl_bad_frees, and not freed). */
static pthread_mutex_t owned_lock = PTHREAD_MUTEX_INITIALIZER;
static void **owned_list;
static size_t owned_count, owned_capacity;

static char *owned(size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    pthread_mutex_lock(&owned_lock);
    if (owned_count == owned_capacity) {
        size_t cap = owned_capacity ? owned_capacity * 2 : 64;
        void **list = realloc(owned_list, cap * sizeof *list);
        if (!list) {
            pthread_mutex_unlock(&owned_lock);
            free(p);
            return NULL;
        }
        owned_list = list;
        owned_capacity = cap;
    }
    owned_list[owned_count++] = p;
    pthread_mutex_unlock(&owned_lock);
    atomic_fetch_add(&allocs, 1);
    return p;
}

/* The free function named in bindings. NULL is ignored, as free() does. */
API void tl_free(void *p)
{
    if (!p)
        return;
    int found = 0;
    pthread_mutex_lock(&owned_lock);
    for (size_t i = 0; i < owned_count; i++)
        if (owned_list[i] == p) {
            owned_list[i] = owned_list[--owned_count];
            found = 1;
            break;
        }
    if (owned_count == 0) {
        free(owned_list);
        owned_list = NULL;
        owned_capacity = 0;
    }
    pthread_mutex_unlock(&owned_lock);
    if (!found) {
        atomic_fetch_add(&bad_frees, 1);
        return;
    }
    free(p);
    atomic_fetch_add(&frees, 1);
}

/* string!(string): a copy the caller frees with tl_free */
API char *tl_dup(const char *s)
{
    size_t n = strlen(s);
    char *p = owned(n);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

/* string!(string): NULL for "", else a copy (the host must not free NULL) */
API char *tl_dup_or_null(const char *s) { return *s ? tl_dup(s) : NULL; }

/* string!(string, int32): s repeated n times (large results) */
API char *tl_repeat(const char *s, int32_t n)
{
    size_t len = strlen(s), total = n > 0 ? len * (size_t)n : 0;
    char *p = owned(total);
    if (!p)
        return NULL;
    for (int32_t i = 0; i < n; i++)
        memcpy(p + (size_t)i * len, s, len);
    p[total] = '\0';
    return p;
}

/* string!(string): plain malloc, for a binding without "free" (libc free) */
API char *tl_malloc_upper(const char *s)
{
    char *p = strdup(s);
    for (char *c = p; c && *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    return p;
}

/* ------------------------------------------------------------ bytes */

/* uint64(bytes, size_t): FNV-1a 64 of the bytes */
API uint64_t tl_fnv1a(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* int64(bytes, T): the length as received, for every integer length type */
API int64_t tl_len_u8(const void *d, uint8_t n) { (void)d; return n; }
API int64_t tl_len_i8(const void *d, int8_t n) { (void)d; return n; }
API int64_t tl_len_u16(const void *d, uint16_t n) { (void)d; return n; }
API int64_t tl_len_i32(const void *d, int32_t n) { (void)d; return n; }
API int64_t tl_len_u32(const void *d, uint32_t n) { (void)d; return n; }
API int64_t tl_len_i64(const void *d, int64_t n) { (void)d; return n; }
API int64_t tl_len_size(const void *d, size_t n) { (void)d; return (int64_t)n; }

/* size_t(bytes, size_t): how many NUL bytes */
API size_t tl_count_nul(const void *data, size_t n)
{
    const unsigned char *p = data;
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += p[i] == 0;
    return c;
}

/* bool(bytes, size_t, bytes, size_t): equal contents */
API bool tl_same_bytes(const void *a, size_t n, const void *b, size_t m)
{
    return n == m && (n == 0 || memcmp(a, b, n) == 0);
}

/* int32(bytes, size_t): the first byte, -1 when empty; the pointer is never NULL */
API int32_t tl_first_byte(const void *data, size_t n)
{
    if (!data)
        return -2;
    return n ? ((const unsigned char *)data)[0] : -1;
}

/* int64(bytes, int32, len size_t), laid out as memchr: the index of the first
** c among the n bytes, or -n - 1 when there is none (so a test sees n) */
API int64_t tl_find(const void *data, int32_t c, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        if (p[i] == (unsigned char)c)
            return (int64_t)i;
    return -(int64_t)n - 1;
}

/* ------------------------------------------------------------ pointers */

static int64_t the_static = 0x5EED;

API void *tl_static_ptr(void) { return &the_static; }
API bool tl_is_static(void *p) { return p == &the_static; }
/* int64(pointer): reads the int64 it points at */
API int64_t tl_deref(void *p) { return p ? *(int64_t *)p : -1; }
API uint64_t tl_ptr_bits(void *p) { return (uint64_t)(uintptr_t)p; }
API void *tl_bits_ptr(uint64_t v) { return (void *)(uintptr_t)v; }
API void *tl_null_ptr(void) { return NULL; }
API bool tl_is_null(void *p) { return p == NULL; }
API void *tl_id_ptr(void *p) { return p; }
API void tl_out_ptr(void *v, void **out) { *out = v; }

API void *tl_box_new(int64_t v)
{
    int64_t *p = malloc(sizeof *p);
    if (p) {
        *p = v;
        atomic_fetch_add(&boxes, 1);
    }
    return p;
}
API int64_t tl_box_get(void *p) { return *(int64_t *)p; }
API void tl_box_set(void *p, int64_t v) { *(int64_t *)p = v; }
API void tl_box_free(void *p)
{
    if (p) {
        free(p);
        atomic_fetch_sub(&boxes, 1);
    }
}
/* void(pointer!, int64): tl_box_free with an argument after the pointer */
API void tl_box_drop(void *p, int64_t tag)
{
    (void)tag;
    tl_box_free(p);
}

/* ------------------------------------------------------------ out-parameters */

/* int32(int64, int64, out int64, out int64): 0, or -1 when b is 0 */
API int32_t tl_divmod(int64_t a, int64_t b, int64_t *q, int64_t *r)
{
    if (b == 0 || (a == INT64_MIN && b == -1))
        return -1;
    *q = a / b;
    *r = a % b;
    return 0;
}

/* void(out int32, int32): an out-parameter before the argument */
API void tl_out_first(int32_t *out, int32_t v) { *out = v * 2; }

/* Every scalar out at once, each its type's maximum (true for bool). */
API void tl_out_all(bool *b, int8_t *i8, int16_t *i16, int32_t *i32, int64_t *i64, uint8_t *u8,
                    uint16_t *u16, uint32_t *u32, uint64_t *u64, size_t *sz, float *f, double *d,
                    void **p)
{
    *b = true;
    *i8 = INT8_MAX;
    *i16 = INT16_MAX;
    *i32 = INT32_MAX;
    *i64 = INT64_MAX;
    *u8 = UINT8_MAX;
    *u16 = UINT16_MAX;
    *u32 = UINT32_MAX;
    *u64 = UINT64_MAX;
    *sz = SIZE_MAX;
    *f = FLT_MAX;
    *d = DBL_MAX;
    *p = &the_static;
}

/* Every out slot's minimum, and none written when skip is true: the host's
** slots start zeroed, so an untouched out reads 0. */
API void tl_out_mins(bool skip, int8_t *i8, int16_t *i16, int32_t *i32, int64_t *i64)
{
    if (skip)
        return;
    *i8 = INT8_MIN;
    *i16 = INT16_MIN;
    *i32 = INT32_MIN;
    *i64 = INT64_MIN;
}

/* ------------------------------------------------------------ many arguments */

/* 20 parameters: 10 integer-class and 10 floating-point, so some go on the
** stack on every ABI. Returns them printed, in a thread-local buffer. */
API const char *tl_describe(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e, uint32_t f,
                            int64_t g, uint64_t h, bool i, size_t j, float k, double l, float m,
                            double n, float o, double p, float q, double r, float s, double t)
{
    static _Thread_local char buf[512];
    snprintf(buf, sizeof buf,
             "%d %u %d %u %d %u %lld %llu %d %zu %.9g %.17g %.9g %.17g %.9g %.17g %.9g %.17g %.9g %.17g",
             a, b, c, d, e, f, (long long)g, (unsigned long long)h, i ? 1 : 0, j, (double)k, l,
             (double)m, n, (double)o, p, (double)q, r, (double)s, t);
    return buf;
}

/* ------------------------------------------------------------ threads */

/* uint64(): the calling thread, to tell inline calls from the worker pool */
API uint64_t tl_thread(void) { return (uint64_t)pthread_self(); }

/* int32(int32): waits for a permit from tl_release, returns v */
API int32_t tl_wait(int32_t v) { return gate_wait(v); }

/* int64(int64): lets n more tl_wait calls through (n < 0 counts as 0);
** returns the permits not yet taken */
API int64_t tl_release(int64_t n) { return gate_release(n); }
