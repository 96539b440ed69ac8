/*
** test_ffi.c -- foreign functions through libffi (docs/ffi.md), through the
** C ABI only: {"op":"bind"}, the runtime config's "bind", {"op":"perform"},
** typed plugin ops (Tests/plugins/typed.c, typed_bad.c) and a foreign
** effect from a scene (example/jobs).
**
** Real libraries: libm (cos, cosf, pow, frexp, ldexp), libc (strlen, atoi,
** abs, labs, toupper) and zlib (crc32, adler32, zlibVersion), with results
** compared against direct C calls of the same functions on the same inputs.
** Every type of the signature language crosses both ways through the test
** library libyaiatypes.so (Tests/ffi/typelib.c).
**
** Prints one line per failed check and ends with "N passed, N failed".
** Exit status 1 when anything failed.
**
** Environment (the Makefile exports them):
**   YAIA_TEST_LIB_DIR     libyaiatypes.so  (.build/yaia/lib)
**   YAIA_TEST_PLUGIN_DIR  typed.so, typed_bad.so (.build/yaia/test-plugins)
**   YAIA_EXAMPLES_PACK    the example scenes (.build/release/libyaia-examples.so)
**   YAIA_TEST_TIMEOUT     seconds a section may take before it counts as hung (120)
**
** Responses are canonical (sorted keys, no spaces), so results are compared
** as exact text where the text is fixed, and doubles by their bits.
*/
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <zlib.h>

#include "harness.h"

/* ================================================================ harness (more in harness.h) */

/* Long texts (1 MiB arguments and results) cut for failure lines; two
** rotating buffers so one line may show two of them. */
static const char *shorten(const char *s)
{
    static char buf[2][360];
    static int which;
    if (!s)
        return "(NULL)";
    size_t n = strlen(s);
    if (n < 340)
        return s;
    which ^= 1;
    snprintf(buf[which], sizeof buf[which], "%.160s ...(%zu bytes)... %.120s", s, n, s + n - 120);
    return buf[which];
}

static int has(const char *s, const char *needle) { return s && needle && strstr(s, needle); }

/* -------------------------------------------------------- bytes arguments */

static char *base64(const unsigned char *data, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(4 * ((n + 2) / 3) + 1), *p = out;
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
        *p++ = abc[v >> 18];
        *p++ = abc[(v >> 12) & 63];
        *p++ = abc[(v >> 6) & 63];
        *p++ = abc[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0);
        *p++ = abc[v >> 18];
        *p++ = abc[(v >> 12) & 63];
        *p++ = i + 1 < n ? abc[(v >> 6) & 63] : '=';
        *p++ = '=';
    }
    *p = '\0';
    return out;
}

/* ------------------------------------------------------------ requests */

static char *execute(yaia_runtime *rt, const char *request)
{
    set_current("yaia_execute(%.400s)", request);
    return yaia_execute(rt, request);
}

/* expect_ok and expect_error of harness.h for this test's long texts (1 MiB
** arguments): the failure line shows the request and the answer shortened. */

/* Runs a request; checks "ok":true and every needle (NULL-terminated). */
static int ffi_expect_ok(yaia_runtime *rt, const char *request, const char *name, ...)
{
    char *r = execute(rt, request);
    va_list ap;
    va_start(ap, name);
    const char *missing = has(r, "\"ok\":true") ? NULL : "\"ok\":true";
    for (const char *n; (n = va_arg(ap, const char *)) != NULL;)
        if (!missing && !has(r, n))
            missing = n;
    va_end(ap);
    int ok = check(!missing, "%s -- request %s -- expected %s -- got %s", name, shorten(request),
                   missing ? missing : "", shorten(r));
    yaia_free(r);
    return ok;
}

/* Runs a request; checks it fails with code and holds every needle (NULL-terminated). */
static int ffi_expect_error(yaia_runtime *rt, const char *request, const char *code, const char *name, ...)
{
    char *r = execute(rt, request);
    char want[96];
    snprintf(want, sizeof want, "\"code\":\"%s\"", code);
    const char *missing = has(r, "\"ok\":false") ? (has(r, want) ? NULL : want) : "\"ok\":false";
    va_list ap;
    va_start(ap, name);
    for (const char *n; (n = va_arg(ap, const char *)) != NULL;)
        if (!missing && !has(r, n))
            missing = n;
    va_end(ap);
    int ok = check(!missing, "%s -- request %s -- expected %s -- got %s", name, shorten(request),
                   missing ? missing : "", shorten(r));
    yaia_free(r);
    return ok;
}

static char *perform(yaia_runtime *rt, const char *svc, const char *op, const char *args)
{
    char *req = args ? fmt("{\"op\":\"perform\",\"effect\":{\"service\":\"%s\",\"op\":\"%s\",\"args\":%s}}", svc, op, args)
                     : fmt("{\"op\":\"perform\",\"effect\":{\"service\":\"%s\",\"op\":\"%s\"}}", svc, op);
    set_current("perform %s.%s(%.300s)", svc, op, args ? args : "");
    char *r = yaia_execute(rt, req);
    free(req);
    return r;
}

/* The raw text of a successful perform's result (malloc'd), or NULL after
** reporting the failure. */
static char *result_of(yaia_runtime *rt, const char *svc, const char *op, const char *args)
{
    char *r = perform(rt, svc, op, args);
    char *res = NULL;
    if (r && strncmp(r, "{\"ok\":true,\"result\":", 20) == 0)
        res = raw_of(r, "result");
    else
        check(0, "%s.%s(%s) -- expected success -- got %s", svc, op, shorten(args), shorten(r));
    yaia_free(r);
    return res;
}

static int expect_result(yaia_runtime *rt, const char *svc, const char *op, const char *args, const char *want)
{
    char *res = result_of(rt, svc, op, args);
    if (!res)
        return 0;
    int ok = check(strcmp(res, want) == 0, "%s.%s(%s) -- expected %s -- got %s", svc, op, shorten(args),
                   shorten(want), shorten(res));
    free(res);
    return ok;
}

/* The JSON a double travels as. */
static char *double_text(double d)
{
    if (isnan(d))
        return strdup("\"NaN\"");
    if (isinf(d))
        return strdup(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    if (d == 0 && signbit(d))
        return strdup("-0.0"); /* "-0" would be the integer 0 */
    return fmt("%.17g", d);
}

/* Compares a JSON number (or NaN/Infinity string) with want, bit for bit
** (so -0.0 differs from 0.0; every NaN is one NaN). */
static int same_double(const char *text, double want)
{
    if (!text)
        return 0;
    if (isnan(want))
        return strcmp(text, "\"NaN\"") == 0;
    if (isinf(want))
        return strcmp(text, want > 0 ? "\"Infinity\"" : "\"-Infinity\"") == 0;
    char *end;
    errno = 0;
    double got = strtod(text, &end);
    return *end == '\0' && memcmp(&got, &want, sizeof got) == 0;
}

static int expect_double(yaia_runtime *rt, const char *svc, const char *op, const char *args, double want)
{
    char *res = result_of(rt, svc, op, args);
    if (!res)
        return 0;
    int ok = check(same_double(res, want), "%s.%s(%s) -- expected %.17g -- got %s", svc, op, shorten(args), want,
                   shorten(res));
    free(res);
    return ok;
}

/* A refused call: code bad_argument, "index": index in the detail (absent
** when index < 0), and no result. */
static int expect_bad_argument(yaia_runtime *rt, const char *svc, const char *op, const char *args, int index)
{
    char *r = perform(rt, svc, op, args);
    char want[48];
    snprintf(want, sizeof want, "\"index\":%d,", index);
    int ok = has(r, "\"ok\":false") && has(r, "\"code\":\"bad_argument\"") && has(r, "\"message\":\"") &&
             (index >= 0 ? has(r, want) : !has(r, "\"index\""));
    if (index >= 0)
        check(ok, "%s.%s(%s) -- expected bad_argument with %s -- got %s", svc, op, shorten(args), want, shorten(r));
    else
        check(ok, "%s.%s(%s) -- expected bad_argument without an index -- got %s", svc, op, shorten(args), shorten(r));
    yaia_free(r);
    return ok;
}

/* The services listing, for "nothing changed" checks. */
static char *services_of(yaia_runtime *rt)
{
    return execute(rt, "{\"op\":\"services\"}");
}

/* A runtime whose requests may bind and perform: the test plays the host. */
static yaia_runtime *new_runtime(const char *config, const char *name)
{
    set_current("yaia_runtime_new(%.400s)", config ? config : "NULL");
    const char *rest = config ? strchr(config, '{') : NULL;
    char *granted = rest ? fmt("{" ALLOW_ALL "%s%s", rest[1] == '}' ? "" : ",", rest + 1) : fmt("{" ALLOW_ALL "}");
    char *err = NULL;
    yaia_runtime *rt = yaia_runtime_new(granted, &err);
    check(rt != NULL, "%s: yaia_runtime_new(%s) -- got %s", name, shorten(granted), shorten(err));
    free(granted);
    yaia_free(err);
    return rt;
}

/* ------------------------------------------------------------ paths */

static const char *lib_dir, *test_plugin_dir;
static char *tl_path;    /* libyaiatypes.so, quoted for JSON */
static void *tl_handle;  /* the same image, opened by the test for its counters */

static char *test_plugin(const char *name) { return plugin_path(test_plugin_dir, name); }

/* A counter of the test library, read directly (not through the runtime). */
static long long tl_counter(const char *name)
{
    long long (*fn)(void) = NULL;
    void *sym = tl_handle ? dlsym(tl_handle, name) : NULL;
    memcpy(&fn, &sym, sizeof fn);
    return fn ? fn() : -999;
}

/* ================================================================ bindings used throughout */

static const char math_binding[] =
    "{\"service\":\"math\",\"library\":\"libm.so.6\",\"ops\":{"
    "\"cos\":\"double(double)\",\"cosf\":\"float(float)\",\"pow\":\"double(double,double)\","
    "\"frexp\":\"double(double, out int32)\",\"ldexp\":\"double(double, int32)\"}}";

static const char libc_binding[] =
    "{\"service\":\"libc\",\"library\":\"libc.so.6\",\"ops\":{"
    "\"strlen\":\"size_t(string)\",\"atoi\":\"int32(string)\",\"abs\":\"int32(int32)\","
    "\"labs\":\"int64(int64)\",\"toupper\":\"int32(int32)\"}}";

static const char zlib_binding[] =
    "{\"service\":\"z\",\"library\":\"libz.so.1\",\"ops\":{"
    "\"crc32\":\"uint64(uint64, bytes, len uint32)\",\"adler32\":\"uint64(uint64, bytes, len uint32)\","
    "\"zlibVersion\":\"string()\"}}";

/* {"op":"bind", ...binding} */
static char *bind_request(const char *binding)
{
    return fmt("{\"op\":\"bind\",%s", binding + 1);
}

typedef struct {
    const char *min, *max, *below, *above;
} limits;

/* The integer types, with the test library's suffix and their limits. */
static const struct {
    const char *type, *suffix, *wide;
    limits l;
    bool is_signed;
} integers[] = {
    {"int8", "i8", "int64", {"-128", "127", "-129", "128"}, true},
    {"int16", "i16", "int64", {"-32768", "32767", "-32769", "32768"}, true},
    {"int32", "i32", "int64", {"-2147483648", "2147483647", "-2147483649", "2147483648"}, true},
    {"int64", "i64", "int64",
     {"-9223372036854775808", "9223372036854775807", "-9223372036854775809", "9223372036854775808"}, true},
    {"uint8", "u8", "uint64", {"0", "255", "-1", "256"}, false},
    {"uint16", "u16", "uint64", {"0", "65535", "-1", "65536"}, false},
    {"uint32", "u32", "uint64", {"0", "4294967295", "-1", "4294967296"}, false},
    {"uint64", "u64", "uint64", {"0", "18446744073709551615", "-1", "18446744073709551616"}, false},
    {"size_t", "size", "uint64", {"0", "18446744073709551615", "-1", "18446744073709551616"}, false},
};
#define N_INTEGERS (sizeof integers / sizeof integers[0])

/* Fixed ops of the test library: op (= symbol) and signature. */
static const struct {
    const char *op, *sig;
} tl_fixed[] = {
    {"tl_touch", "void()"},
    {"tl_touches", "int64(void)"},
    {"add_i64", "int64(int64, int64)"},
    {"tl_low_i8", "int8(int64)"},
    {"tl_low_u8", "uint8(int64)"},
    {"tl_low_i16", "int16(int64)"},
    {"tl_low_u16", "uint16(int64)"},
    {"tl_low_i32", "int32(int64)"},
    {"tl_low_u32", "uint32(int64)"},
    {"tl_id_bool", "bool(bool)"},
    {"tl_not", "bool(bool)"},
    {"tl_widen_bool", "int64(bool)"},
    {"tl_nonzero", "bool(int32)"},
    {"tl_min_bool", "bool()"},
    {"tl_max_bool", "bool()"},
    {"tl_out_bool", "void(bool, out bool)"},
    {"tl_id_f32", "float(float)"},
    {"tl_widen_f32", "double(float)"},
    {"tl_narrow_f64", "float(double)"},
    {"tl_add_f32", "float(float, float)"},
    {"tl_max_f32", "float()"},
    {"tl_min_f32", "float()"},
    {"tl_tiny_f32", "float()"},
    {"tl_nan_f32", "float()"},
    {"tl_ninf_f32", "float()"},
    {"tl_out_f32", "void(float, out float)"},
    {"tl_isnan_f32", "bool(float)"},
    {"tl_isinf_f32", "int32(float)"},
    {"tl_id_f64", "double(double)"},
    {"tl_add_f64", "double(double, double)"},
    {"tl_max_f64", "double()"},
    {"tl_min_f64", "double()"},
    {"tl_tiny_f64", "double()"},
    {"tl_nan_f64", "double()"},
    {"tl_inf_f64", "double()"},
    {"tl_neg_zero", "double()"},
    {"tl_out_f64", "void(double, out double)"},
    {"tl_signbit", "bool(double)"},
    {"tl_isnan", "bool(double)"},
    {"tl_isinf", "int32(double)"},
    {"tl_strlen", "size_t(string)"},
    {"tl_id_str", "string(string)"},
    {"tl_static_str", "string()"},
    {"tl_null_str", "string()"},
    {"tl_bad_utf8", "string()"},
    {"tl_byte_at", "uint8(string, size_t)"},
    {"tl_strcmp", "int32(string, string)"},
    {"tl_dup", "string!(string)"},
    {"tl_dup_or_null", "string!(string)"},
    {"tl_repeat", "string!(string, int32)"},
    {"tl_allocs", "int64()"},
    {"tl_frees", "int64()"},
    {"tl_bad_frees", "int64()"},
    {"tl_live", "int64()"},
    {"tl_fnv1a", "uint64(bytes, len size_t)"},
    {"tl_len_u8", "int64(bytes, len uint8)"},
    {"tl_len_i8", "int64(bytes, len int8)"},
    {"tl_len_u16", "int64(bytes, len uint16)"},
    {"tl_len_i32", "int64(bytes, len int32)"},
    {"tl_len_u32", "int64(bytes, len uint32)"},
    {"tl_len_i64", "int64(bytes, len int64)"},
    {"tl_len_size", "int64(bytes, len size_t)"},
    {"tl_count_nul", "size_t(bytes, len size_t)"},
    {"tl_same_bytes", "bool(bytes, len size_t, bytes, len size_t)"},
    {"tl_first_byte", "int32(bytes, len size_t)"},
    {"tl_static_ptr", "pointer()"},
    {"tl_is_static", "bool(pointer)"},
    {"tl_deref", "int64(pointer)"},
    {"tl_ptr_bits", "uint64(pointer)"},
    {"tl_bits_ptr", "pointer(uint64)"},
    {"tl_null_ptr", "pointer()"},
    {"tl_is_null", "bool(pointer)"},
    {"tl_id_ptr", "pointer(pointer)"},
    {"tl_out_ptr", "void(pointer, out pointer)"},
    {"tl_box_new", "pointer(int64)"},
    {"tl_box_get", "int64(pointer)"},
    {"tl_box_set", "void(pointer, int64)"},
    {"tl_box_free", "void(pointer!)"},
    {"tl_box_drop", "void(pointer!, int64)"},
    {"tl_find", "int64(bytes, int32, len size_t)"},
    {"tl_boxes", "int64()"},
    {"tl_divmod", "int32(int64, int64, out int64, out int64)"},
    {"tl_out_first", "void(out int32, int32)"},
    {"tl_out_all", "void(out bool, out int8, out int16, out int32, out int64, out uint8, out uint16, "
                   "out uint32, out uint64, out size_t, out float, out double, out pointer)"},
    {"tl_out_mins", "void(bool, out int8, out int16, out int32, out int64)"},
    {"tl_describe", "string(int8, uint8, int16, uint16, int32, uint32, int64, uint64, bool, size_t, "
                    "float, double, float, double, float, double, float, double, float, double)"},
    {"tl_thread", "uint64()"},
    {"tl_wait", "int32(int32)"},
    {"tl_release", "int64(int64)"},
};

/* {"op":"bind","service":"t",...} for the whole test library; string!
** results are freed by tl_free, the binding's default. */
static char *typelib_bind_request(const char *service, const char *extra)
{
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "{\"op\":\"bind\",\"service\":\"%s\",\"library\":%s,\"free\":\"tl_free\"%s,\"ops\":{",
                          service, tl_path, extra);
    for (size_t i = 0; i < sizeof tl_fixed / sizeof tl_fixed[0]; i++)
        n += (size_t)snprintf(s + n, cap - n, "%s\"%s\":\"%s\"", i ? "," : "", tl_fixed[i].op, tl_fixed[i].sig);
    for (size_t i = 0; i < N_INTEGERS; i++) {
        const char *t = integers[i].type, *x = integers[i].suffix;
        n += (size_t)snprintf(s + n, cap - n,
                              ",\"tl_id_%s\":\"%s(%s)\",\"tl_widen_%s\":\"%s(%s)\",\"tl_min_%s\":\"%s()\","
                              "\"tl_max_%s\":\"%s()\",\"tl_add_%s\":\"%s(%s,%s)\",\"tl_out_%s\":\"void(%s, out %s)\"",
                              x, t, t, x, integers[i].wide, t, x, t, x, t, x, t, t, t, x, t, t);
    }
    snprintf(s + n, cap - n, "}}");
    return s;
}

/* ================================================================ 1. real system libraries */

static void test_libm(yaia_runtime *rt)
{
    section("libm");
    static const double xs[] = {0.0, -0.0, 1.0, -1.0, 0.5, 3.141592653589793, 1e6, 1e22, 1e300, -1e-300,
                                4.9406564584124654e-324, DBL_MAX, -DBL_MAX, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        char *x = double_text(xs[i]);
        char *args = fmt("[%s]", x);
        expect_double(rt, "math", "cos", args, cos(xs[i]));
        int e = 12345;
        double m = frexp(xs[i], &e);
        char *res = result_of(rt, "math", "frexp", args);
        if (res) {
            char *ret = raw_of(res, "return"), *out = raw_of(res, "out");
            check(same_double(ret, m), "math.frexp(%s) return -- expected %.17g -- got %s", x, m, res);
            /* The exponent is unspecified for NaN and infinities. */
            if (isfinite(xs[i])) {
                char *want = fmt("[%d]", e);
                check(out && strcmp(out, want) == 0, "math.frexp(%s) out -- expected %s -- got %s", x, want, res);
                free(want);
            } else {
                check(out && out[0] == '[' && out[1] != ']', "math.frexp(%s) has one out -- got %s", x, res);
            }
            free(ret);
            free(out);
            free(res);
        }
        if (fabs(xs[i]) <= FLT_MAX || !isfinite(xs[i]))
            expect_double(rt, "math", "cosf", args, (double)cosf((float)xs[i]));
        else
            expect_bad_argument(rt, "math", "cosf", args, 0);
        free(args);
        free(x);
    }
    static const double pows[][2] = {
        {2, 10}, {2, 0.5}, {0, -1}, {-0.0, -1}, {-8, 1.0 / 3}, {2, 1024}, {2, -1074}, {2, -1075}, {NAN, 0},
        {1, NAN}, {-1, INFINITY}, {10, -300}, {1.0000001, 1e9}, {-2, 3}, {0.1, 0.2}, {INFINITY, -1},
    };
    for (size_t i = 0; i < sizeof pows / sizeof pows[0]; i++) {
        char *a = double_text(pows[i][0]), *b = double_text(pows[i][1]);
        char *args = fmt("[%s,%s]", a, b);
        expect_double(rt, "math", "pow", args, pow(pows[i][0], pows[i][1]));
        free(args);
        free(a);
        free(b);
    }
    expect_result(rt, "math", "pow", "[2,10]", "1024");
    expect_result(rt, "math", "frexp", "[8]", "{\"out\":[4],\"return\":0.5}");
    expect_double(rt, "math", "ldexp", "[0.5,4]", 8.0);
    expect_double(rt, "math", "ldexp", "[1,-1074]", ldexp(1, -1074));
    expect_double(rt, "math", "ldexp", "[1,1024]", INFINITY);
    expect_double(rt, "math", "ldexp", "[1,-2147483648]", 0.0);
    expect_double(rt, "math", "ldexp", "[1,2147483647]", INFINITY);
    expect_bad_argument(rt, "math", "ldexp", "[1,2147483648]", 1);
    expect_bad_argument(rt, "math", "ldexp", "[1,0.5]", 1);
}

static void test_libc(yaia_runtime *rt)
{
    section("libc");
    expect_result(rt, "libc", "strlen", "[\"\"]", "0");
    expect_result(rt, "libc", "strlen", "[\"hello\"]", "5");
    expect_result(rt, "libc", "strlen", "[\"\xc3\xa9\xe2\x98\x83\"]", "5"); /* é☃: UTF-8 bytes */
    expect_result(rt, "libc", "strlen", "[\"\\u00e9\\u2603\\ud83d\\ude00\"]", "9"); /* escapes, a surrogate pair */
    expect_result(rt, "libc", "strlen", "[\"tab\\there\\n\"]", "9");

    size_t big = (size_t)1 << 20;
    char *s = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        s[i] = (char)('a' + i % 26);
    s[big] = '\0';
    char *args = fmt("[\"%s\"]", s);
    expect_result(rt, "libc", "strlen", args, "1048576");
    free(args);
    free(s);

    static const char *atois[] = {"42", "-17xyz", "  +7", "", "2147483647", "-2147483648", "0x10", "abc", "\\t\\n 99"};
    for (size_t i = 0; i < sizeof atois / sizeof atois[0]; i++) {
        char *a = fmt("[\"%s\"]", atois[i]);
        /* What C sees: the JSON escapes \t and \n decoded. */
        char decoded[64];
        size_t k = 0;
        for (const char *p = atois[i]; *p && k < sizeof decoded - 1; p++) {
            if (p[0] == '\\' && p[1] == 't') { decoded[k++] = '\t'; p++; }
            else if (p[0] == '\\' && p[1] == 'n') { decoded[k++] = '\n'; p++; }
            else decoded[k++] = *p;
        }
        decoded[k] = '\0';
        char *want = fmt("%d", atoi(decoded));
        expect_result(rt, "libc", "atoi", a, want);
        free(want);
        free(a);
    }
    static const int abss[] = {0, 5, -5, INT32_MAX, INT32_MIN + 1};
    for (size_t i = 0; i < sizeof abss / sizeof abss[0]; i++) {
        char *a = fmt("[%d]", abss[i]), *want = fmt("%d", abs(abss[i]));
        expect_result(rt, "libc", "abs", a, want);
        free(a);
        free(want);
    }
    static const long long labss[] = {0, -1, 1, INT64_MAX, INT64_MIN + 1, -4294967296LL};
    for (size_t i = 0; i < sizeof labss / sizeof labss[0]; i++) {
        char *a = fmt("[%lld]", labss[i]), *want = fmt("%ld", labs((long)labss[i]));
        expect_result(rt, "libc", "labs", a, want);
        free(a);
        free(want);
    }
    static const int uppers[] = {'a', 'z', 'A', '0', ' ', 0, 127, 255, -1 /* EOF */};
    for (size_t i = 0; i < sizeof uppers / sizeof uppers[0]; i++) {
        char *a = fmt("[%d]", uppers[i]), *want = fmt("%d", toupper(uppers[i]));
        expect_result(rt, "libc", "toupper", a, want);
        free(a);
        free(want);
    }
}

static void test_zlib(yaia_runtime *rt)
{
    section("zlib");
    expect_result(rt, "z", "crc32", "[0,\"\"]", "0");
    expect_result(rt, "z", "crc32", "[0,\"hello\"]", "907060870");
    expect_result(rt, "z", "crc32", "[0,\"The quick brown fox jumps over the lazy dog\"]", "1095738169");
    expect_result(rt, "z", "adler32", "[1,\"\"]", "1");
    expect_result(rt, "z", "adler32", "[1,\"Wikipedia\"]", "300286872");
    expect_result(rt, "z", "crc32", "[0,{\"base64\":\"\"}]", "0");
    expect_result(rt, "z", "crc32", "[0,{\"base64\":\"aGVsbG8=\"}]", "907060870");
    {
        char *want = fmt("%lu", crc32(0xFFFFFFFFul, (const Bytef *)"a", 1));
        expect_result(rt, "z", "crc32", "[4294967295,\"a\"]", want);
        free(want);
    }
    /* Chained: crc32(crc32(0, "hello "), "world") == crc32(0, "hello world"). */
    char *first = result_of(rt, "z", "crc32", "[0,\"hello \"]");
    if (first) {
        char *args = fmt("[%s,\"world\"]", first);
        char *want = fmt("%lu", crc32(0, (const Bytef *)"hello world", 11));
        expect_result(rt, "z", "crc32", args, want);
        free(args);
        free(want);
        free(first);
    }
    /* UTF-8 text: the bytes of the JSON string's UTF-8. */
    {
        const char *u = "\xc3\xa9\xe2\x98\x83";
        char *want = fmt("%lu", crc32(0, (const Bytef *)u, 5));
        expect_result(rt, "z", "crc32", "[0,\"\\u00e9\\u2603\"]", want);
        free(want);
    }
    /* A NUL byte inside bytes is data, not an end. */
    {
        char *want = fmt("%lu", crc32(0, (const Bytef *)"a\0b", 3));
        expect_result(rt, "z", "crc32", "[0,\"a\\u0000b\"]", want);
        free(want);
    }

    /* 1 MiB of pseudo-random bytes via base64, and 1 MiB of text as a string. */
    size_t big = (size_t)1 << 20;
    unsigned char *data = malloc(big);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < big; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (unsigned char)x;
    }
    char *b64 = base64(data, big);
    char *args = fmt("[0,{\"base64\":\"%s\"}]", b64);
    char *want = fmt("%lu", crc32(0, data, (uInt)big));
    expect_result(rt, "z", "crc32", args, want);
    free(args);
    free(want);
    args = fmt("[1,{\"base64\":\"%s\"}]", b64);
    want = fmt("%lu", adler32(1, data, (uInt)big));
    expect_result(rt, "z", "adler32", args, want);
    free(args);
    free(want);
    free(b64);

    for (size_t i = 0; i < big; i++)
        data[i] = (unsigned char)(' ' + i % 95); /* printable ASCII; " and \ replaced below */
    for (size_t i = 0; i < big; i++)
        if (data[i] == '"' || data[i] == '\\')
            data[i] = 'x';
    char *text = malloc(big + 1);
    memcpy(text, data, big);
    text[big] = '\0';
    args = fmt("[0,\"%s\"]", text);
    want = fmt("%lu", crc32(0, data, (uInt)big));
    expect_result(rt, "z", "crc32", args, want);
    free(args);
    free(want);
    args = fmt("[1,\"%s\"]", text);
    want = fmt("%lu", adler32(1, data, (uInt)big));
    expect_result(rt, "z", "adler32", args, want);
    free(args);
    free(want);
    free(text);
    free(data);

    char *v = json_quote(zlibVersion());
    expect_result(rt, "z", "zlibVersion", "[]", v);
    expect_result(rt, "z", "zlibVersion", NULL, v); /* no "args": null counts as none */
    free(v);
}

/* ================================================================ 2. every type, both ways */

static void test_integers(yaia_runtime *rt)
{
    section("integer types");
    for (size_t i = 0; i < N_INTEGERS; i++) {
        const char *x = integers[i].suffix;
        const limits *l = &integers[i].l;
        char op[32], *a;
        const char *vals[] = {l->min, l->max, "0", "1"};
        for (size_t v = 0; v < 4; v++) {
            a = fmt("[%s]", vals[v]);
            snprintf(op, sizeof op, "tl_id_%s", x);
            expect_result(rt, "t", op, a, vals[v]);
            snprintf(op, sizeof op, "tl_widen_%s", x);
            expect_result(rt, "t", op, a, vals[v]);
            char *out = fmt("{\"out\":[%s],\"return\":null}", vals[v]);
            snprintf(op, sizeof op, "tl_out_%s", x);
            expect_result(rt, "t", op, a, out);
            free(out);
            free(a);
        }
        snprintf(op, sizeof op, "tl_min_%s", x);
        expect_result(rt, "t", op, "[]", l->min);
        snprintf(op, sizeof op, "tl_max_%s", x);
        expect_result(rt, "t", op, "[]", l->max);
        /* Wrapping in C: max + 1 is min (signed, two's complement) or 0. */
        snprintf(op, sizeof op, "tl_add_%s", x);
        a = fmt("[%s,1]", l->max);
        expect_result(rt, "t", op, a, integers[i].is_signed ? l->min : "0");
        free(a);
        a = fmt("[%s,%s]", l->min, l->max);
        expect_result(rt, "t", op, a, integers[i].is_signed ? "-1" : l->max);
        free(a);

        /* Out of range by one, either side; fractions; other JSON types. */
        snprintf(op, sizeof op, "tl_id_%s", x);
        a = fmt("[%s]", l->below);
        expect_bad_argument(rt, "t", op, a, 0);
        free(a);
        a = fmt("[%s]", l->above);
        expect_bad_argument(rt, "t", op, a, 0);
        free(a);
        expect_bad_argument(rt, "t", op, "[1.5]", 0);
        expect_bad_argument(rt, "t", op, "[-0.5]", 0);
        expect_bad_argument(rt, "t", op, "[\"1\"]", 0);
        expect_bad_argument(rt, "t", op, "[true]", 0);
        expect_bad_argument(rt, "t", op, "[null]", 0);
        expect_bad_argument(rt, "t", op, "[[1]]", 0);
        expect_bad_argument(rt, "t", op, "[\"NaN\"]", 0);
        expect_bad_argument(rt, "t", op, "[1e300]", 0);
        snprintf(op, sizeof op, "tl_add_%s", x);
        a = fmt("[1,%s]", l->above);
        expect_bad_argument(rt, "t", op, a, 1);
        free(a);
        /* Whole numbers written with a fraction or exponent are integers. */
        snprintf(op, sizeof op, "tl_id_%s", x);
        expect_result(rt, "t", op, "[1.0]", "1");
        expect_result(rt, "t", op, "[1e2]", "100");
    }
    /* Beyond int64 below: the JSON text is not a double-precision accident. */
    expect_bad_argument(rt, "t", "tl_id_i64", "[-9223372036854777856]", 0);
    expect_bad_argument(rt, "t", "tl_id_i64", "[-18446744073709551616]", 0);
    expect_bad_argument(rt, "t", "tl_id_u64", "[18446744073709551616]", 0);
    expect_bad_argument(rt, "t", "tl_id_u64", "[18446744073709551617]", 0);

    /* Narrow returns whose register's upper bits are not clean. */
    expect_result(rt, "t", "tl_low_i8", "[511]", "-1");
    expect_result(rt, "t", "tl_low_i8", "[-129]", "127");
    expect_result(rt, "t", "tl_low_u8", "[-1]", "255");
    expect_result(rt, "t", "tl_low_u8", "[256]", "0");
    expect_result(rt, "t", "tl_low_i16", "[98304]", "-32768");
    expect_result(rt, "t", "tl_low_u16", "[-1]", "65535");
    expect_result(rt, "t", "tl_low_i32", "[6442450944]", "-2147483648");
    expect_result(rt, "t", "tl_low_i32", "[-1]", "-1");
    expect_result(rt, "t", "tl_low_u32", "[-1]", "4294967295");
    expect_result(rt, "t", "tl_low_u32", "[9223372036854775807]", "4294967295");
    expect_result(rt, "t", "add_i64", "[9223372036854775807,1]", "-9223372036854775808");
    expect_result(rt, "t", "add_i64", "[-4,6]", "2");
}

static void test_bool_void(yaia_runtime *rt)
{
    section("bool and void");
    expect_result(rt, "t", "tl_id_bool", "[true]", "true");
    expect_result(rt, "t", "tl_id_bool", "[false]", "false");
    expect_result(rt, "t", "tl_not", "[true]", "false");
    expect_result(rt, "t", "tl_not", "[false]", "true");
    expect_result(rt, "t", "tl_widen_bool", "[true]", "1");
    expect_result(rt, "t", "tl_widen_bool", "[false]", "0");
    expect_result(rt, "t", "tl_nonzero", "[2]", "true");
    expect_result(rt, "t", "tl_nonzero", "[-2147483648]", "true");
    expect_result(rt, "t", "tl_nonzero", "[0]", "false");
    expect_result(rt, "t", "tl_min_bool", "[]", "false");
    expect_result(rt, "t", "tl_max_bool", "[]", "true");
    expect_result(rt, "t", "tl_out_bool", "[true]", "{\"out\":[true],\"return\":null}");
    expect_result(rt, "t", "tl_out_bool", "[false]", "{\"out\":[false],\"return\":null}");
    expect_bad_argument(rt, "t", "tl_id_bool", "[1]", 0);
    expect_bad_argument(rt, "t", "tl_id_bool", "[0]", 0);
    expect_bad_argument(rt, "t", "tl_id_bool", "[\"true\"]", 0);
    expect_bad_argument(rt, "t", "tl_id_bool", "[null]", 0);

    long long before = tl_counter("tl_touches");
    expect_result(rt, "t", "tl_touch", "[]", "null");
    expect_result(rt, "t", "tl_touch", NULL, "null");
    check(tl_counter("tl_touches") == before + 2, "void(): two calls of tl_touch made two calls -- got %lld",
          tl_counter("tl_touches") - before);
    char *want = fmt("%lld", before + 2);
    expect_result(rt, "t", "tl_touches", "[]", want);
    free(want);
    /* Refused calls make no call at all. */
    expect_bad_argument(rt, "t", "tl_touch", "[1]", -1);
    expect_bad_argument(rt, "t", "tl_touch", "{}", -1);
    check(tl_counter("tl_touches") == before + 2, "a refused call of tl_touch made no call -- got %lld calls",
          tl_counter("tl_touches") - before);
}

static void test_floats(yaia_runtime *rt)
{
    section("float and double");
    /* float precision: 0.1 as float is 0.100000001490116119384765625. */
    expect_double(rt, "t", "tl_id_f32", "[0.1]", (double)0.1f);
    expect_double(rt, "t", "tl_widen_f32", "[0.1]", (double)0.1f);
    expect_double(rt, "t", "tl_narrow_f64", "[0.1]", (double)(float)0.1);
    expect_double(rt, "t", "tl_id_f32", "[16777217]", 16777216.0);
    expect_double(rt, "t", "tl_add_f32", "[16777216,1]", 16777216.0);
    expect_double(rt, "t", "tl_add_f32", "[0.1,0.2]", (double)(0.1f + 0.2f));
    expect_double(rt, "t", "tl_max_f32", "[]", (double)FLT_MAX);
    expect_double(rt, "t", "tl_min_f32", "[]", (double)-FLT_MAX);
    expect_double(rt, "t", "tl_tiny_f32", "[]", 1.401298464324817e-45);
    expect_double(rt, "t", "tl_nan_f32", "[]", NAN);
    expect_double(rt, "t", "tl_ninf_f32", "[]", -INFINITY);
    expect_double(rt, "t", "tl_id_f32", "[3.4028234663852886e38]", (double)FLT_MAX);
    expect_double(rt, "t", "tl_id_f32", "[-3.4028234663852886e38]", (double)-FLT_MAX);
    expect_double(rt, "t", "tl_id_f32", "[1.401298464324817e-45]", 1.401298464324817e-45);
    expect_double(rt, "t", "tl_id_f32", "[1e-50]", 0.0); /* underflow is in range: rounds to 0 */
    expect_double(rt, "t", "tl_id_f32", "[\"NaN\"]", NAN);
    expect_double(rt, "t", "tl_id_f32", "[\"Infinity\"]", INFINITY);
    expect_double(rt, "t", "tl_id_f32", "[\"-Infinity\"]", -INFINITY);
    expect_result(rt, "t", "tl_isnan_f32", "[\"NaN\"]", "true");
    expect_result(rt, "t", "tl_isinf_f32", "[\"-Infinity\"]", "-1");
    expect_result(rt, "t", "tl_out_f32", "[0.1]", "{\"out\":[0.10000000149011612],\"return\":null}");
    expect_result(rt, "t", "tl_out_f32", "[\"NaN\"]", "{\"out\":[\"NaN\"],\"return\":null}");
    expect_bad_argument(rt, "t", "tl_id_f32", "[3.5e38]", 0);
    expect_bad_argument(rt, "t", "tl_id_f32", "[-1e39]", 0);
    expect_bad_argument(rt, "t", "tl_id_f32", "[1e300]", 0);
    expect_bad_argument(rt, "t", "tl_add_f32", "[1,1.7976931348623157e308]", 1);
    expect_bad_argument(rt, "t", "tl_out_f32", "[4e38]", 0);

    expect_double(rt, "t", "tl_id_f64", "[0.1]", 0.1);
    expect_double(rt, "t", "tl_add_f64", "[0.1,0.2]", 0.1 + 0.2);
    expect_double(rt, "t", "tl_id_f64", "[1.7976931348623157e308]", DBL_MAX);
    expect_double(rt, "t", "tl_id_f64", "[5e-324]", 4.9406564584124654e-324);
    expect_double(rt, "t", "tl_id_f64", "[9007199254740993]", 9007199254740992.0); /* 2^53 + 1 rounds */
    expect_double(rt, "t", "tl_id_f64", "[18446744073709551615]", 18446744073709551616.0);
    expect_double(rt, "t", "tl_id_f64", "[-9223372036854775808]", -9223372036854775808.0);
    expect_double(rt, "t", "tl_max_f64", "[]", DBL_MAX);
    expect_double(rt, "t", "tl_min_f64", "[]", -DBL_MAX);
    expect_double(rt, "t", "tl_tiny_f64", "[]", 4.9406564584124654e-324);
    expect_double(rt, "t", "tl_nan_f64", "[]", NAN);
    expect_double(rt, "t", "tl_inf_f64", "[]", INFINITY);
    expect_double(rt, "t", "tl_id_f64", "[\"NaN\"]", NAN);
    expect_double(rt, "t", "tl_id_f64", "[\"Infinity\"]", INFINITY);
    expect_double(rt, "t", "tl_id_f64", "[\"-Infinity\"]", -INFINITY);
    expect_result(rt, "t", "tl_isnan", "[\"NaN\"]", "true");
    expect_result(rt, "t", "tl_isnan", "[1]", "false");
    expect_result(rt, "t", "tl_isinf", "[\"Infinity\"]", "1");
    expect_result(rt, "t", "tl_isinf", "[\"-Infinity\"]", "-1");
    expect_result(rt, "t", "tl_isinf", "[1e308]", "0");
    expect_result(rt, "t", "tl_out_f64", "[\"-Infinity\"]", "{\"out\":[\"-Infinity\"],\"return\":null}");
    expect_result(rt, "t", "tl_out_f64", "[2.5]", "{\"out\":[2.5],\"return\":null}");
    /* Negative zero: in as -0.0 (the sign arrives), and back out. */
    expect_result(rt, "t", "tl_signbit", "[-0.0]", "true");
    expect_result(rt, "t", "tl_signbit", "[0.0]", "false");
    {
        char *r = perform(rt, "t", "tl_signbit", "[-0]");
        printf("note: JSON -0 (no fraction) as a double argument: signbit %s\n", has(r, "\"result\":true") ? "set" : "clear (read as the integer 0)");
        yaia_free(r);
    }
    expect_double(rt, "t", "tl_neg_zero", "[]", -0.0);
    expect_double(rt, "t", "tl_id_f64", "[-0.0]", -0.0);
    expect_bad_argument(rt, "t", "tl_id_f64", "[\"nan\"]", 0);
    expect_bad_argument(rt, "t", "tl_id_f64", "[\"inf\"]", 0);
    expect_bad_argument(rt, "t", "tl_id_f64", "[\"1.5\"]", 0);
    expect_bad_argument(rt, "t", "tl_id_f64", "[true]", 0);
    expect_bad_argument(rt, "t", "tl_id_f64", "[null]", 0);
    expect_bad_argument(rt, "t", "tl_add_f64", "[1,{}]", 1);
}

static void test_strings(yaia_runtime *rt)
{
    section("strings");
    expect_result(rt, "t", "tl_strlen", "[\"\"]", "0");
    expect_result(rt, "t", "tl_id_str", "[\"\"]", "\"\"");
    expect_result(rt, "t", "tl_id_str", "[\"h\\u00e9llo \\u2603\"]", "\"h\xc3\xa9llo \xe2\x98\x83\"");
    expect_result(rt, "t", "tl_id_str", "[\"q\\\"b\\\\s\\n\\t\\u0001\"]", "\"q\\\"b\\\\s\\n\\t\\u0001\"");
    expect_result(rt, "t", "tl_static_str", "[]", "\"static \xc3\xa9\xe2\x98\x83\"");
    expect_result(rt, "t", "tl_null_str", "[]", "null");
    expect_result(rt, "t", "tl_byte_at", "[\"\\u00e9\",0]", "195");
    expect_result(rt, "t", "tl_byte_at", "[\"\\u00e9\",1]", "169");
    expect_result(rt, "t", "tl_strcmp", "[\"a\",\"b\"]", "-1");
    expect_result(rt, "t", "tl_strcmp", "[\"b\",\"a\"]", "1");
    expect_result(rt, "t", "tl_strcmp", "[\"\",\"\"]", "0");
    {
        char *r = perform(rt, "t", "tl_bad_utf8", "[]");
        check(has(r, "\"ok\":true") && !has(r, "\xff"),
              "string return that is not UTF-8 still gives valid JSON (no raw 0xFF) -- got %s", shorten(r));
        yaia_free(r);
    }
    /* 1 MiB both ways. */
    size_t big = (size_t)1 << 20;
    char *s = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        s[i] = (char)('A' + i % 26);
    s[big] = '\0';
    char *args = fmt("[\"%s\"]", s);
    expect_result(rt, "t", "tl_strlen", args, "1048576");
    char *want = fmt("\"%s\"", s);
    expect_result(rt, "t", "tl_id_str", args, want);
    free(want);
    free(args);
    free(s);

    expect_bad_argument(rt, "t", "tl_strlen", "[\"a\\u0000b\"]", 0);
    expect_bad_argument(rt, "t", "tl_strlen", "[\"\\u0000\"]", 0);
    expect_bad_argument(rt, "t", "tl_strcmp", "[\"a\",\"b\\u0000\"]", 1);
    expect_bad_argument(rt, "t", "tl_strlen", "[null]", 0);
    expect_bad_argument(rt, "t", "tl_strlen", "[5]", 0);
    expect_bad_argument(rt, "t", "tl_strlen", "[[\"a\"]]", 0);
    expect_bad_argument(rt, "t", "tl_strlen", "[{\"base64\":\"YQ==\"}]", 0);
}

static void test_owned_strings(yaia_runtime *rt)
{
    section("string! (owned results)");
    long long allocs = tl_counter("tl_allocs"), frees = tl_counter("tl_frees");
    expect_result(rt, "t", "tl_dup", "[\"x\"]", "\"x\"");
    expect_result(rt, "t", "tl_dup", "[\"\"]", "\"\"");
    expect_result(rt, "t", "tl_dup", "[\"\\u00e9\\u2603\"]", "\"\xc3\xa9\xe2\x98\x83\"");
    expect_result(rt, "t", "tl_dup_or_null", "[\"a\"]", "\"a\"");
    expect_result(rt, "t", "tl_dup_or_null", "[\"\"]", "null"); /* NULL: nothing to free */
    expect_result(rt, "t", "tl_repeat", "[\"ab\",3]", "\"ababab\"");
    expect_result(rt, "t", "tl_repeat", "[\"ab\",0]", "\"\"");
    {
        size_t big = (size_t)1 << 20;
        char *want = malloc(big + 3);
        want[0] = '"';
        memset(want + 1, 'z', big);
        want[big + 1] = '"';
        want[big + 2] = '\0';
        expect_result(rt, "t", "tl_repeat", "[\"z\",1048576]", want);
        free(want);
    }
    /* Refused calls allocate nothing. */
    expect_bad_argument(rt, "t", "tl_dup", "[\"a\\u0000\"]", 0);
    expect_bad_argument(rt, "t", "tl_repeat", "[\"a\",2147483648]", 1);
    long long da = tl_counter("tl_allocs") - allocs, df = tl_counter("tl_frees") - frees;
    check(da == 7, "string!: 7 results allocated -- got %lld", da);
    check(df == da, "string!: every result freed once by the binding's free (tl_free) -- %lld allocated, %lld freed", da, df);
    check(tl_counter("tl_bad_frees") == 0, "string!: nothing else given to tl_free -- got %lld bad frees",
          tl_counter("tl_bad_frees"));
    check(tl_counter("tl_live") == 0, "string!: no result left unfreed -- %lld live", tl_counter("tl_live"));
    /* The same counters, read through the runtime. */
    char *want = fmt("%lld", tl_counter("tl_frees"));
    expect_result(rt, "t", "tl_frees", "[]", want);
    free(want);

}

static void test_owned_free_override(yaia_runtime *rt)
{
    section("string! free functions per binding and per op");
    char *req = fmt("{\"op\":\"bind\",\"service\":\"own\",\"library\":%s,\"free\":\"free\",\"ops\":{"
                    "\"dup\":{\"symbol\":\"tl_dup\",\"signature\":\"string!(string)\",\"free\":\"tl_free\"},"
                    "\"upper\":{\"symbol\":\"tl_malloc_upper\",\"signature\":\"string!(string)\"}}}",
                    tl_path);
    ffi_expect_ok(rt, req, "bind with a default free and a per-op free", "\"ops\":[\"dup\",\"upper\"]",
                  (const char *)NULL);
    free(req);
    req = fmt("{\"op\":\"bind\",\"service\":\"own_libc\",\"library\":%s,\"ops\":{"
              "\"upper\":{\"symbol\":\"tl_malloc_upper\",\"signature\":\"string!(string)\"}}}",
              tl_path);
    ffi_expect_ok(rt, req, "bind without free (libc free)", (const char *)NULL);
    free(req);
    long long allocs = tl_counter("tl_allocs"), frees = tl_counter("tl_frees");
    expect_result(rt, "own", "dup", "[\"per-op\"]", "\"per-op\"");
    expect_result(rt, "own", "upper", "[\"abc\"]", "\"ABC\"");
    expect_result(rt, "own_libc", "upper", "[\"x y\"]", "\"X Y\"");
    check(tl_counter("tl_allocs") - allocs == 1 && tl_counter("tl_frees") - frees == 1,
          "per-op free tl_free freed the one tl_dup result; libc free the malloc'd ones -- allocs +%lld, frees +%lld",
          tl_counter("tl_allocs") - allocs, tl_counter("tl_frees") - frees);
    check(tl_counter("tl_bad_frees") == 0, "per-op free: no bad frees -- got %lld", tl_counter("tl_bad_frees"));
}

static unsigned long long fnv1a(const void *data, size_t n)
{
    const unsigned char *p = data;
    unsigned long long h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void test_bytes(yaia_runtime *rt)
{
    section("bytes");
    char *want = fmt("%llu", fnv1a("", 0));
    expect_result(rt, "t", "tl_fnv1a", "[\"\"]", want);
    free(want);
    want = fmt("%llu", fnv1a("hello", 5));
    expect_result(rt, "t", "tl_fnv1a", "[\"hello\"]", want);
    expect_result(rt, "t", "tl_fnv1a", "[{\"base64\":\"aGVsbG8=\"}]", want);
    free(want);
    unsigned char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    char *b64 = base64(all, 256), *args = fmt("[{\"base64\":\"%s\"}]", b64);
    want = fmt("%llu", fnv1a(all, 256));
    expect_result(rt, "t", "tl_fnv1a", args, want);
    expect_result(rt, "t", "tl_count_nul", args, "1");
    free(want);
    free(args);
    free(b64);
    expect_result(rt, "t", "tl_count_nul", "[\"a\\u0000b\\u0000\"]", "2");
    expect_result(rt, "t", "tl_count_nul", "[{\"base64\":\"AAAA\"}]", "3");
    expect_result(rt, "t", "tl_same_bytes", "[\"abc\",{\"base64\":\"YWJj\"}]", "true");
    expect_result(rt, "t", "tl_same_bytes", "[\"abc\",\"abd\"]", "false");
    expect_result(rt, "t", "tl_same_bytes", "[\"\",{\"base64\":\"\"}]", "true");
    expect_result(rt, "t", "tl_first_byte", "[\"\"]", "-1");
    expect_result(rt, "t", "tl_first_byte", "[{\"base64\":\"\"}]", "-1");
    expect_result(rt, "t", "tl_first_byte", "[\"\\u00ff\"]", "195");

    /* Each integer type as the length: its limit fits, one more does not. */
    const struct {
        const char *op;
        size_t fits, max;
    } lens[] = {{"tl_len_u8", 255, 255}, {"tl_len_i8", 127, 127}, {"tl_len_u16", 65535, 65535},
                {"tl_len_i32", 1 << 20, 0}, {"tl_len_u32", 1 << 20, 0}, {"tl_len_i64", 1 << 20, 0},
                {"tl_len_size", 1 << 20, 0}};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t n = lens[i].fits;
        char *s = malloc(n + 16);
        memset(s, 'b', n);
        s[n] = '\0';
        args = fmt("[\"%s\"]", s);
        want = fmt("%zu", n);
        expect_result(rt, "t", lens[i].op, args, want);
        free(want);
        free(args);
        args = fmt("[\"\"]");
        expect_result(rt, "t", lens[i].op, args, "0");
        free(args);
        if (lens[i].max) {
            s[n] = 'b';
            s[n + 1] = '\0';
            args = fmt("[\"%s\"]", s);
            expect_bad_argument(rt, "t", lens[i].op, args, 0);
            free(args);
        }
        free(s);
    }
    /* A length declared after another argument (memchr's layout): the
    ** argument between is the caller's, the length the runtime's. */
    expect_result(rt, "t", "tl_find", "[\"hello\",108]", "2");
    expect_result(rt, "t", "tl_find", "[\"hello\",122]", "-6");
    expect_result(rt, "t", "tl_find", "[\"\",0]", "-1");
    expect_bad_argument(rt, "t", "tl_find", "[\"hello\",108,5]", -1);
    expect_bad_argument(rt, "t", "tl_find", "[\"hello\",\"l\"]", 1);
    /* Two bytes parameters: the index counts JSON arguments, not C parameters. */
    expect_bad_argument(rt, "t", "tl_same_bytes", "[\"a\",5]", 1);
    expect_bad_argument(rt, "t", "tl_same_bytes", "[\"a\"]", -1);
    expect_bad_argument(rt, "t", "tl_same_bytes", "[\"a\",1,\"b\",1]", -1);
    expect_bad_argument(rt, "t", "tl_fnv1a", "[5]", 0);
    expect_bad_argument(rt, "t", "tl_fnv1a", "[null]", 0);
    expect_bad_argument(rt, "t", "tl_fnv1a", "[[1,2]]", 0);
    expect_bad_argument(rt, "t", "tl_fnv1a", "[{\"base64\":\"@@@@\"}]", 0);
    expect_bad_argument(rt, "t", "tl_fnv1a", "[{\"base64\":\"YQ==\",\"x\":1}]", 0);
    expect_bad_argument(rt, "t", "tl_fnv1a", "[{\"b64\":\"YQ==\"}]", 0);
    expect_bad_argument(rt, "t", "tl_fnv1a", "[{\"base64\":5}]", 0);
    expect_bad_argument(rt, "t", "tl_fnv1a", "[{}]", 0);
}

static void test_pointers(yaia_runtime *rt)
{
    section("pointers");
    char *p = result_of(rt, "t", "tl_static_ptr", "[]");
    if (!p)
        return;
    void *direct = NULL;
    void *sym = dlsym(tl_handle, "tl_static_ptr");
    if (sym) {
        void *(*fn)(void);
        memcpy(&fn, &sym, sizeof fn);
        direct = fn();
    }
    /* A returned pointer is a handle, not its address; the same address, the same handle. */
    char *address = fmt("%llu", (unsigned long long)(uintptr_t)direct);
    check(strcmp(p, address) != 0 && strtoull(p, NULL, 10) > 0, "pointer(): a handle, not the address -- got %s", p);
    expect_result(rt, "t", "tl_static_ptr", "[]", p);
    char *args = fmt("[%s]", p);
    expect_result(rt, "t", "tl_is_static", args, "true");
    expect_result(rt, "t", "tl_deref", args, "24301");
    expect_result(rt, "t", "tl_ptr_bits", args, address); /* the callee gets the address */
    expect_result(rt, "t", "tl_id_ptr", args, p);
    char *out = fmt("{\"out\":[%s],\"return\":null}", p);
    expect_result(rt, "t", "tl_out_ptr", args, out);
    free(out);
    free(args);

    /* Made-up pointers are refused before any call: the static's real
    ** address (a call would read 24301), a page that would fault, huge ones. */
    args = fmt("[%s]", address);
    expect_bad_argument(rt, "t", "tl_deref", args, 0);
    expect_bad_argument(rt, "t", "tl_is_static", args, 0);
    free(args);
    expect_bad_argument(rt, "t", "tl_deref", "[4096]", 0);
    expect_bad_argument(rt, "t", "tl_deref", "[18446744073709551615]", 0);
    expect_bad_argument(rt, "t", "tl_id_ptr", "[9223372036854775808]", 0);
    {
        char *r = perform(rt, "t", "tl_deref", "[4096]");
        check(has(r, "not a pointer handle of this service"), "made-up pointer: the message says why -- got %s", shorten(r));
        yaia_free(r);
    }
    /* Another service's handle is not this one's. */
    char *req = fmt("{\"op\":\"bind\",\"service\":\"t2\",\"library\":%s,\"ops\":{\"tl_deref\":\"int64(pointer)\"}}", tl_path);
    char *r = execute(rt, req);
    check(has(r, "\"ok\":true"), "bind t2 -- got %s", shorten(r));
    yaia_free(r);
    free(req);
    args = fmt("[%s]", p);
    expect_bad_argument(rt, "t2", "tl_deref", args, 0);
    free(args);
    free(address);
    free(p);

    expect_result(rt, "t", "tl_is_null", "[null]", "true");
    expect_result(rt, "t", "tl_is_null", "[0]", "true");
    expect_result(rt, "t", "tl_is_static", "[null]", "false");
    expect_result(rt, "t", "tl_deref", "[null]", "-1");
    expect_result(rt, "t", "tl_null_ptr", "[]", "0");
    expect_bad_argument(rt, "t", "tl_id_ptr", "[-1]", 0);
    expect_bad_argument(rt, "t", "tl_id_ptr", "[1.5]", 0);
    expect_bad_argument(rt, "t", "tl_id_ptr", "[\"0x10\"]", 0);
    expect_bad_argument(rt, "t", "tl_id_ptr", "[true]", 0);
    expect_bad_argument(rt, "t", "tl_id_ptr", "[18446744073709551616]", 0);

    /* Heap handles: create, use, change, free (pointer!: the handle goes with it). */
    long long boxes = tl_counter("tl_boxes");
    char *b = result_of(rt, "t", "tl_box_new", "[-7]");
    if (b) {
        args = fmt("[%s]", b);
        expect_result(rt, "t", "tl_box_get", args, "-7");
        free(args);
        args = fmt("[%s,-9223372036854775808]", b);
        expect_result(rt, "t", "tl_box_set", args, "null");
        free(args);
        args = fmt("[%s]", b);
        expect_result(rt, "t", "tl_box_get", args, "-9223372036854775808");
        check(tl_counter("tl_boxes") == boxes + 1, "pointer: one box alive");
        expect_result(rt, "t", "tl_box_free", args, "null");
        /* Freed: neither used nor freed again. */
        expect_bad_argument(rt, "t", "tl_box_get", args, 0);
        expect_bad_argument(rt, "t", "tl_box_free", args, 0);
        free(args);
        free(b);
    }
    check(tl_counter("tl_boxes") == boxes, "pointer: box freed through its handle -- %lld alive",
          tl_counter("tl_boxes") - boxes);
    /* A refused call consumes nothing: the box stays usable, then is dropped once. */
    b = result_of(rt, "t", "tl_box_new", "[5]");
    if (b) {
        args = fmt("[%s,\"x\"]", b);
        expect_bad_argument(rt, "t", "tl_box_drop", args, 1);
        free(args);
        args = fmt("[%s]", b);
        expect_result(rt, "t", "tl_box_get", args, "5");
        free(args);
        args = fmt("[%s,1]", b);
        expect_result(rt, "t", "tl_box_drop", args, "null");
        expect_bad_argument(rt, "t", "tl_box_drop", args, 0);
        free(args);
        free(b);
    }
    check(tl_counter("tl_boxes") == boxes, "pointer: a refused call freed nothing, the box was freed once");
}

/* A service holds at most 65536 handles: the next pointer-returning call is
** refused before it is made, and a consumed handle makes room. */
static void test_handle_table(yaia_runtime *rt)
{
    section("pointer handle table");
    char *req = fmt("{\"op\":\"bind\",\"service\":\"boxes\",\"library\":%s,"
                    "\"ops\":{\"tl_box_new\":\"pointer(int64)\",\"tl_box_free\":\"void(pointer!)\",\"tl_id_ptr\":\"pointer(pointer)\"}}",
                    tl_path);
    char *r = execute(rt, req);
    check(has(r, "\"ok\":true"), "bind boxes -- got %s", shorten(r));
    yaia_free(r);
    free(req);
    enum { LIMIT = 65536 };
    long long boxes = tl_counter("tl_boxes");
    long long *handles = calloc(LIMIT, sizeof *handles);
    int made = 0;
    for (; handles && made < LIMIT; made++) {
        r = perform(rt, "boxes", "tl_box_new", "[1]");
        const char *res = r ? strstr(r, "\"result\":") : NULL;
        if (!res) {
            check(0, "box %d -- got %s", made, shorten(r));
            yaia_free(r);
            break;
        }
        handles[made] = strtoll(res + 9, NULL, 10);
        yaia_free(r);
    }
    check(made == LIMIT, "%d boxes, each with a handle", made);
    r = perform(rt, "boxes", "tl_box_new", "[1]");
    check(has(r, "\"code\":\"handle_table_full\""), "one box too many: handle_table_full -- got %s", shorten(r));
    yaia_free(r);
    check(tl_counter("tl_boxes") == boxes + made, "the refused call made no box");
    /* Returning a pointer already held needs room too, and gets its own handle back. */
    char *args = fmt("[%lld]", handles[0]);
    r = perform(rt, "boxes", "tl_id_ptr", args);
    check(has(r, "\"code\":\"handle_table_full\""), "full table: tl_id_ptr refused -- got %s", shorten(r));
    yaia_free(r);
    expect_result(rt, "boxes", "tl_box_free", args, "null");
    free(args);
    r = perform(rt, "boxes", "tl_box_new", "[1]");
    const char *res = r ? strstr(r, "\"result\":") : NULL;
    check(res != NULL, "a freed box made room -- got %s", shorten(r));
    if (res)
        handles[0] = strtoll(res + 9, NULL, 10);
    yaia_free(r);
    for (int i = 0; i < made; i++) {
        char a[32];
        snprintf(a, sizeof a, "[%lld]", handles[i]);
        r = perform(rt, "boxes", "tl_box_free", a);
        if (!has(r, "\"ok\":true")) {
            check(0, "free box %d -- got %s", i, shorten(r));
            yaia_free(r);
            break;
        }
        yaia_free(r);
    }
    check(tl_counter("tl_boxes") == boxes, "every box freed once -- %lld alive", tl_counter("tl_boxes") - boxes);
    free(handles);
}

static void test_outs(yaia_runtime *rt)
{
    section("out-parameters");
    expect_result(rt, "t", "tl_divmod", "[17,5]", "{\"out\":[3,2],\"return\":0}");
    expect_result(rt, "t", "tl_divmod", "[-17,5]", "{\"out\":[-3,-2],\"return\":0}");
    expect_result(rt, "t", "tl_divmod", "[-9223372036854775808,7]",
                  "{\"out\":[-1317624576693539401,-1],\"return\":0}");
    expect_result(rt, "t", "tl_divmod", "[1,0]", "{\"out\":[0,0],\"return\":-1}");
    expect_result(rt, "t", "tl_out_first", "[21]", "{\"out\":[42],\"return\":null}");
    expect_bad_argument(rt, "t", "tl_out_first", "[2147483648]", 0);
    expect_bad_argument(rt, "t", "tl_out_first", "[0,21]", -1);
    expect_bad_argument(rt, "t", "tl_divmod", "[1,2,0,0]", -1);
    expect_bad_argument(rt, "t", "tl_divmod", "[1,\"2\"]", 1);
    expect_result(rt, "t", "tl_out_mins", "[false]",
                  "{\"out\":[-128,-32768,-2147483648,-9223372036854775808],\"return\":null}");
    expect_result(rt, "t", "tl_out_mins", "[true]", "{\"out\":[0,0,0,0],\"return\":null}");

    char *p = result_of(rt, "t", "tl_static_ptr", "[]");
    char *want = fmt("{\"out\":[true,127,32767,2147483647,9223372036854775807,255,65535,4294967295,"
                     "18446744073709551615,18446744073709551615,3.4028234663852886e+38,"
                     "1.7976931348623157e+308,%s],\"return\":null}",
                     p ? p : "?");
    char *got = result_of(rt, "t", "tl_out_all", "[]");
    if (got) {
        /* The numbers' spelling may differ (e+38 or e38): compare piecewise. */
        int ok = has(got, "\"out\":[true,127,32767,2147483647,9223372036854775807,255,65535,4294967295,"
                          "18446744073709551615,18446744073709551615,") &&
                 has(got, "\"return\":null");
        char *out = raw_of(got, "out");
        /* The float and double: the 11th and 12th values. */
        const char *q = out;
        for (int i = 0; q && i < 10; i++)
            q = strchr(q + 1, ',');
        double f = q ? strtod(q + 1, NULL) : 0, d = 0;
        const char *r = q ? strchr(q + 1, ',') : NULL;
        if (r)
            d = strtod(r + 1, NULL);
        const char *last = out ? strrchr(out, ',') : NULL;
        char *tail = p ? fmt(",%s]", p) : NULL;
        ok = ok && f == (double)FLT_MAX && d == DBL_MAX && last && tail && strcmp(last, tail) == 0;
        check(ok, "every scalar out at its maximum -- expected %s -- got %s", want, got);
        free(tail);
        free(out);
        free(got);
    }
    free(want);
    free(p);
}

static void test_many_args(yaia_runtime *rt)
{
    section("20 parameters");
    char want[512];
    snprintf(want, sizeof want,
             "\"%d %u %d %u %d %u %lld %llu %d %zu %.9g %.17g %.9g %.17g %.9g %.17g %.9g %.17g %.9g %.17g\"",
             -128, 255u, -32768, 65535u, -2147483647 - 1, 4294967295u, (long long)INT64_MIN,
             (unsigned long long)UINT64_MAX, 1, (size_t)SIZE_MAX, (double)0.1f, 0.2, (double)-1.5f, -2.5,
             (double)FLT_MAX, DBL_MAX, (double)1.401298464324817e-45f, 5e-324, (double)3.0f, 4.0);
    expect_result(rt, "t", "tl_describe",
                  "[-128,255,-32768,65535,-2147483648,4294967295,-9223372036854775808,18446744073709551615,true,"
                  "18446744073709551615,0.1,0.2,-1.5,-2.5,3.4028234663852886e38,1.7976931348623157e308,"
                  "1.401298464324817e-45,5e-324,3,4]",
                  want);
    expect_bad_argument(rt, "t", "tl_describe",
                        "[0,0,0,0,0,0,0,0,false,0,0,0,0,0,0,0,0,0,0,\"x\"]", 19);
    expect_bad_argument(rt, "t", "tl_describe", "[0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0]", 8);
    expect_bad_argument(rt, "t", "tl_describe", "[0,0,0,0,0,0,0,0,false,0,0,0,0,0,0,0,0,0,0]", -1);
}

/* ================================================================ 3. bad bindings */

static void test_bad_bindings(yaia_runtime *rt)
{
    section("bad bindings");
    char *before = services_of(rt);

    static const struct {
        const char *request, *code, *needle;
    } cases[] = {
        /* malformed */
        {"{\"op\":\"bind\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}}", "bad_binding", "\"at\":\"/service\""},
        {"{\"op\":\"bind\",\"service\":5,\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}}", "bad_binding", "\"at\":\"/service\""},
        {"{\"op\":\"bind\",\"service\":\"bad name!\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}}", "bad_binding", NULL},
        {"{\"op\":\"bind\",\"service\":\"\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}}", "bad_binding", NULL},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"ops\":{\"cos\":\"double(double)\"}}", "bad_binding", "\"at\":\"/library\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":7,\"ops\":{\"cos\":\"double(double)\"}}", "bad_binding", "\"at\":\"/library\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\"}", "bad_binding", "\"at\":\"/ops\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\",\"ops\":{}}", "bad_binding", "\"at\":\"/ops\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\",\"ops\":[\"cos\"]}", "bad_binding", "\"at\":\"/ops\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\",\"ops\":\"cos\"}", "bad_binding", "\"at\":\"/ops\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"},\"flavour\":1}", "bad_binding", "\"at\":\"/flavour\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"},\"blocking\":\"yes\"}", "bad_binding", "\"at\":\"/blocking\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"},\"free\":1}", "bad_binding", "\"at\":\"/free\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":5}}", "bad_binding", "\"at\":\"/ops/cos\""},
        {"{\"op\":\"bind\",\"service\":\"b1\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":{\"symbol\":\"cos\"}}}", "bad_binding", "\"at\":\"/ops/cos/signature\""},
        {"{\"op\":\"bind\",\"service\":\"b1a\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":{\"signature\":\"double(double)\",\"sybmol\":\"sin\"}}}", "bad_binding", "/ops/cos"},
        {"{\"op\":\"bind\",\"service\":\"b1b\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":{\"signature\":\"double(double)\",\"symbol\":5}}}", "bad_binding", "/ops/cos"},
        {"{\"op\":\"bind\",\"service\":\"b1c\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":{\"signature\":\"double(double)\",\"free\":false}}}", "bad_binding", "/ops/cos"},
        /* library_not_found */
        {"{\"op\":\"bind\",\"service\":\"b2\",\"library\":\"libyaia-no-such-library.so.7\",\"ops\":{\"f\":\"void()\"}}", "library_not_found", "libyaia-no-such-library.so.7"},
        {"{\"op\":\"bind\",\"service\":\"b2\",\"library\":\"/nonexistent/dir/libx.so\",\"ops\":{\"f\":\"void()\"}}", "library_not_found", "\"at\":\"/library\""},
        /* symbol_not_found */
        {"{\"op\":\"bind\",\"service\":\"b3\",\"library\":\"libm.so.6\",\"ops\":{\"yaia_no_such_symbol\":\"int32()\"}}", "symbol_not_found", "\"at\":\"/ops/yaia_no_such_symbol\""},
        {"{\"op\":\"bind\",\"service\":\"b3\",\"library\":\"libm.so.6\",\"ops\":{\"c\":{\"symbol\":\"nope_nope\",\"signature\":\"double(double)\"}}}", "symbol_not_found", "nope_nope"},
        {"{\"op\":\"bind\",\"service\":\"b3\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\",\"zz_missing\":\"int32()\"}}", "symbol_not_found", "zz_missing"},
        {"{\"op\":\"bind\",\"service\":\"b3\",\"library\":\"libc.so.6\",\"free\":\"no_such_free_fn\",\"ops\":{\"strdup\":\"string!(string)\"}}", "symbol_not_found", "no_such_free_fn"},
        {"{\"op\":\"bind\",\"service\":\"b3\",\"library\":\"libc.so.6\",\"ops\":{\"strdup\":{\"signature\":\"string!(string)\",\"free\":\"no_such_free_fn\"}}}", "symbol_not_found", "no_such_free_fn"},
        /* bad_signature: the token and its column */
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"dbl(double)\"}}", "bad_signature", "\\\"dbl\\\" at column 1"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double, dbl)\"}}", "bad_signature", "\\\"dbl\\\" at column 16"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double\"}}", "bad_signature", "at the end"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double double\"}}", "bad_signature", "\\\"double\\\" at column 8"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"\"}}", "bad_signature", "\"at\":\"/ops/cos\""},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double,)\"}}", "bad_signature", "\\\")\\\" at column 15"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(,double)\"}}", "bad_signature", "\\\",\\\" at column 8"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double) x\"}}", "bad_signature", "\\\"x\\\" at column 16"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double int32)\"}}", "bad_signature", "\\\"int32\\\" at column 15"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"strlen\":\"size_t(string!)\"}}", "bad_signature", "\\\"string!\\\" at column 8"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"strlen\":\"bytes(string)\"}}", "bad_signature", "\\\"bytes\\\" at column 1"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libz.so.1\",\"ops\":{\"crc32\":\"uint64(uint64, bytes)\"}}", "bad_signature", "bytes"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libz.so.1\",\"ops\":{\"crc32\":\"uint64(uint64, bytes, double)\"}}", "bad_signature", "\\\"bytes\\\" at column 16"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libz.so.1\",\"ops\":{\"crc32\":\"uint64(uint64, bytes, out uint32)\"}}", "bad_signature", "column 16"},
        /* The length of bytes is declared with len: an integer after it is an argument of its own. */
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libz.so.1\",\"ops\":{\"crc32\":\"uint64(uint64, bytes, uint32)\"}}", "bad_signature", "len size_t"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"memchr\":\"pointer(bytes, int32, size_t)\"}}", "bad_signature", "\\\"bytes\\\" at column 9"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libz.so.1\",\"ops\":{\"crc32\":\"uint64(uint64, len uint32)\"}}", "bad_signature", "\\\"len\\\" at column 16"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libz.so.1\",\"ops\":{\"crc32\":\"uint64(bytes, len double)\"}}", "bad_signature", "\\\"double\\\" at column 19"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libz.so.1\",\"ops\":{\"crc32\":\"uint64(bytes, len size_t, len size_t)\"}}", "bad_signature", "\\\"len\\\" at column 27"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libz.so.1\",\"ops\":{\"crc32\":\"bool(bytes, bytes, len size_t, len size_t)\"}}", "bad_signature", "\\\"bytes\\\" at column 6"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"malloc\":\"pointer!(size_t)\"}}", "bad_signature", "\\\"pointer!\\\" at column 1"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"free\":\"void(out pointer!)\"}}", "bad_signature", "\\\"pointer!\\\" at column 10"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"strlen\":\"size_t(out string)\"}}", "bad_signature", "\\\"string\\\" at column 12"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"strlen\":\"size_t(out bytes, size_t)\"}}", "bad_signature", "\\\"bytes\\\" at column 12"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"abs\":\"int32(void, int32)\"}}", "bad_signature", "\\\"void\\\" at column 7"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"abs\":\"int32(out void)\"}}", "bad_signature", "\\\"void\\\" at column 11"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"abs\":\"int32(out)\"}}", "bad_signature", "column 10"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"abs\":\"out int32(int32)\"}}", "bad_signature", "\\\"out\\\" at column 1"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"abs\":\"int32)(int32\"}}", "bad_signature", "\\\")\\\" at column 6"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"abs\":\"INT32(int32)\"}}", "bad_signature", "\\\"INT32\\\" at column 1"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"abs\":\"int(int)\"}}", "bad_signature", "\\\"int\\\" at column 1"},
        {"{\"op\":\"bind\",\"service\":\"b4\",\"library\":\"libc.so.6\",\"ops\":{\"abs\":\"int32(int32))\"}}", "bad_signature", "\\\")\\\" at column 13"},
        /* duplicate_service: math is bound already; so is t */
        {"{\"op\":\"bind\",\"service\":\"math\",\"library\":\"libm.so.6\",\"ops\":{\"sin\":\"double(double)\"}}", "duplicate_service", NULL},
        {"{\"op\":\"bind\",\"service\":\"t\",\"library\":\"libm.so.6\",\"ops\":{\"sin\":\"double(double)\"}}", "duplicate_service", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *name = fmt("bad binding #%zu is %s", i, cases[i].code);
        int refused = ffi_expect_error(rt, cases[i].request, cases[i].code, name, cases[i].needle, (const char *)NULL);
        free(name);
        /* Not partly registered, and the runtime still answers. (When the
        ** binding was accepted, its registration is no news.) */
        char *after = services_of(rt);
        if (refused)
            check(before && after && strcmp(before, after) == 0,
              "bad binding #%zu (%s) leaves the services unchanged -- before %s -- after %s", i, cases[i].code,
              shorten(before), shorten(after));
        /* Compare the next case with this state, so one failure is reported once. */
        yaia_free(before);
        before = after;
    }
    /* A file that is not a shared object. */
    {
        char tmp[] = "/tmp/yaia-not-a-library-XXXXXX";
        int fd = mkstemp(tmp);
        if (check(fd >= 0, "temp file for a library that is not ELF")) {
            (void)!write(fd, "not ELF\n", 8);
            close(fd);
            char *req = fmt("{\"op\":\"bind\",\"service\":\"b2\",\"library\":\"%s\",\"ops\":{\"f\":\"void()\"}}", tmp);
            ffi_expect_error(rt, req, "library_not_found", "bind a text file as a library", "\"at\":\"/library\"",
                             (const char *)NULL);
            free(req);
            unlink(tmp);
        }
    }
    /* A tag is echoed on failures too. */
    ffi_expect_error(rt, "{\"op\":\"bind\",\"service\":\"b5\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"dbl(double)\"},\"tag\":[7]}",
                     "bad_signature", "bad_signature echoes the tag", "\"tag\":[7]", (const char *)NULL);
    ffi_expect_error(rt, "{\"op\":\"bind\",\"service\":\"b5\",\"library\":\"nope.so\",\"ops\":{\"cos\":\"double(double)\"},\"tag\":\"x\"}",
                     "library_not_found", "library_not_found echoes the tag", "\"tag\":\"x\"", (const char *)NULL);
    yaia_free(before);
    expect_result(rt, "math", "pow", "[2,10]", "1024");
}

/* ================================================================ 4. bad calls */

static void test_bad_calls(yaia_runtime *rt)
{
    section("bad calls");
    /* wrong count: no index */
    expect_bad_argument(rt, "math", "pow", "[2]", -1);
    expect_bad_argument(rt, "math", "pow", "[]", -1);
    expect_bad_argument(rt, "math", "pow", "[1,2,3]", -1);
    expect_bad_argument(rt, "math", "pow", NULL, -1);
    expect_bad_argument(rt, "math", "frexp", "[8,0]", -1);     /* an out passed */
    expect_bad_argument(rt, "z", "crc32", "[0,\"a\",1]", -1);  /* a length passed */
    expect_bad_argument(rt, "math", "pow", "{\"x\":2,\"y\":10}", -1);
    expect_bad_argument(rt, "math", "cos", "2", -1);
    expect_bad_argument(rt, "math", "cos", "\"2\"", -1);
    /* wrong JSON type */
    expect_bad_argument(rt, "math", "pow", "[\"2\",10]", 0);
    expect_bad_argument(rt, "math", "pow", "[2,null]", 1);
    expect_bad_argument(rt, "math", "pow", "[2,true]", 1);
    expect_bad_argument(rt, "math", "pow", "[2,[10]]", 1);
    expect_bad_argument(rt, "libc", "strlen", "[5]", 0);
    expect_bad_argument(rt, "z", "crc32", "[0,5]", 1);
    expect_bad_argument(rt, "z", "crc32", "[\"0\",\"a\"]", 0);
    /* integer out of range */
    expect_bad_argument(rt, "libc", "abs", "[2147483648]", 0);
    expect_bad_argument(rt, "libc", "abs", "[-2147483649]", 0);
    expect_bad_argument(rt, "libc", "labs", "[9223372036854775808]", 0);
    expect_bad_argument(rt, "z", "crc32", "[-1,\"a\"]", 0);
    expect_bad_argument(rt, "z", "crc32", "[18446744073709551616,\"a\"]", 0);
    /* fraction for an integer */
    expect_bad_argument(rt, "libc", "abs", "[1.5]", 0);
    expect_bad_argument(rt, "libc", "labs", "[-0.5]", 0);
    expect_bad_argument(rt, "libc", "toupper", "[97.000001]", 0);
    expect_bad_argument(rt, "z", "crc32", "[0.5,\"a\"]", 0);
    /* NUL inside a string */
    expect_bad_argument(rt, "libc", "strlen", "[\"a\\u0000b\"]", 0);
    expect_bad_argument(rt, "libc", "atoi", "[\"1\\u0000\"]", 0);
    /* float out of range */
    expect_bad_argument(rt, "math", "cosf", "[3.5e38]", 0);
    expect_bad_argument(rt, "math", "cosf", "[-1e39]", 0);
    /* NaN and infinity only in their documented spelling */
    expect_bad_argument(rt, "math", "cos", "[\"nan\"]", 0);
    expect_bad_argument(rt, "math", "cos", "[\"inf\"]", 0);
    expect_bad_argument(rt, "math", "pow", "[2,\"+Infinity\"]", 1);
    /* the envelope's message names the problem; the detail repeats the code */
    {
        char *r = perform(rt, "math", "pow", "[2,\"x\"]");
        check(has(r, "\"detail\":{\"code\":\"bad_argument\",\"index\":1,\"message\":\"") && has(r, "argument 1"),
              "bad_argument: detail {code, index, message} names argument 1 -- got %s", shorten(r));
        yaia_free(r);
    }
    /* an op the service does not have, and a service that does not exist */
    {
        char *r = perform(rt, "math", "sin", "[1]");
        check(has(r, "\"ok\":false") && has(r, "\"code\":\"unknown_op\""),
              "math.sin (not bound) fails with unknown_op in its detail -- got %s", shorten(r));
        yaia_free(r);
    }
    ffi_expect_error(rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"nomath\",\"op\":\"cos\",\"args\":[1]}}",
                     "no_such_service", "perform on an unbound service", (const char *)NULL);
    /* still fine */
    expect_result(rt, "math", "pow", "[2,10]", "1024");
    expect_result(rt, "libc", "abs", "[-3]", "3");
}

/* ================================================================ 5. the runtime config's "bind" */

static void expect_config_error(const char *config, const char *code, const char *name, const char *needle)
{
    set_current("yaia_runtime_new(%.400s)", config);
    char *err = NULL;
    yaia_runtime *rt = yaia_runtime_new(config, &err);
    char want[96];
    snprintf(want, sizeof want, "\"code\":\"%s\"", code);
    check(rt == NULL && has(err, want) && (!needle || has(err, needle)),
          "%s -- config %s -- expected NULL and %s %s -- got %s", name, shorten(config), want, needle ? needle : "",
          shorten(err));
    yaia_free(err);
    yaia_runtime_free(rt);
}

static void test_config_bind(void)
{
    section("runtime config \"bind\"");
    char *config = fmt("{\"bind\":[%s,%s,%s],\"workers\":2}", math_binding, libc_binding, zlib_binding);
    yaia_runtime *rt = new_runtime(config, "config with three bindings");
    free(config);
    if (rt) {
        expect_result(rt, "math", "pow", "[2,10]", "1024");
        expect_result(rt, "libc", "toupper", "[97]", "65");
        expect_result(rt, "z", "crc32", "[0,\"hello\"]", "907060870");
        ffi_expect_ok(rt, "{\"op\":\"services\"}", "config bindings are listed as foreign services",
                      "{\"blocking\":false,\"library\":\"libm.so.6\",\"name\":\"math\",\"origin\":\"foreign\"}",
                      "{\"blocking\":false,\"library\":\"libc.so.6\",\"name\":\"libc\",\"origin\":\"foreign\"}",
                      "{\"blocking\":false,\"library\":\"libz.so.1\",\"name\":\"z\",\"origin\":\"foreign\"}",
                      (const char *)NULL);
        char *req = bind_request(math_binding);
        ffi_expect_error(rt, req, "duplicate_service", "bind after config: duplicate", (const char *)NULL);
        free(req);
        yaia_runtime_free(rt);
    }
    expect_config_error("{\"bind\":{}}", "bad_config", "\"bind\" not an array", "\"at\":\"/bind\"");
    expect_config_error("{\"bind\":[5]}", "bad_config", "a binding not an object", "\"at\":\"/bind/0\"");
    expect_config_error("{\"bind\":[{\"service\":\"m\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}},"
                        "{\"service\":\"m2\",\"library\":\"no-such-lib.so\",\"ops\":{\"cos\":\"double(double)\"}}]}",
                        "library_not_found", "config: missing library", "\"at\":\"/bind/1/library\"");
    expect_config_error("{\"bind\":[{\"service\":\"m\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"dbl(double)\"}}]}",
                        "bad_signature", "config: bad signature", "\"at\":\"/bind/0/ops/cos\"");
    expect_config_error("{\"bind\":[{\"service\":\"m\",\"library\":\"libm.so.6\",\"ops\":{\"nope_x\":\"int32()\"}}]}",
                        "symbol_not_found", "config: missing symbol", "\"at\":\"/bind/0/ops/nope_x\"");
    expect_config_error("{\"bind\":[{\"service\":\"m\",\"library\":\"libm.so.6\"}]}", "bad_binding",
                        "config: binding without ops", "\"at\":\"/bind/0/ops\"");
    expect_config_error("{\"bind\":[{\"service\":\"m\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}},"
                        "{\"service\":\"m\",\"library\":\"libm.so.6\",\"ops\":{\"sin\":\"double(double)\"}}]}",
                        "duplicate_service", "config: the same service twice", NULL);
    char *typed = test_plugin("typed");
    config = fmt("{\"plugins\":[%s],\"bind\":[{\"service\":\"calc\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}}]}", typed);
    expect_config_error(config, "duplicate_service", "config: a binding named like a plugin's service", NULL);
    free(config);
    free(typed);
    expect_config_error("{\"bind\":[],\"bnid\":[]}", "bad_config", "config: unknown key next to bind", NULL);
    rt = new_runtime("{\"bind\":[]}", "config with an empty bind list");
    yaia_runtime_free(rt);
}

/* ================================================================ 6. from a scene: example/jobs */

static char *receive(yaia_runtime *rt, const char *why)
{
    set_current("yaia_receive: waiting for %s", why);
    return yaia_receive(rt, 10.0);
}

/* Sends run(effect) to the jobs scene; returns the update of the effect's outcome. */
static char *run_job(yaia_runtime *rt, long long scene, const char *effect, const char *name)
{
    char *req = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"run\",\"payload\":%s}}", scene, effect);
    char *r = execute(rt, req);
    check(has(r, "\"ok\":true") && has(r, "\"status\":\"running\""), "%s: run is accepted and running -- got %s", name,
          shorten(r));
    long long id = int_of(r, "id");
    yaia_free(r);
    free(req);
    char *ev = receive(rt, name);
    char *want = fmt("\"effect\":%lld,", id);
    check(has(ev, "\"event\":\"update\"") && has(ev, want), "%s: an update for effect %lld arrives -- got %s", name, id,
          shorten(ev));
    free(want);
    return ev;
}

static void test_scene(void)
{
    section("example/jobs");
    char *bind = fmt("{\"bind\":[%s,%s]}", math_binding, zlib_binding);
    char *config = with_examples(bind); /* example/jobs is in the examples pack */
    free(bind);
    yaia_runtime *rt = new_runtime(config, "jobs runtime");
    free(config);
    if (!rt)
        return;
    char *req = typelib_bind_request("t", ",\"blocking\":true");
    ffi_expect_ok(rt, req, "blocking binding of the test library", (const char *)NULL);
    free(req);
    char *r = execute(rt, "{\"op\":\"open\",\"scene\":\"example/jobs\"}");
    check(has(r, "\"ok\":true"), "open example/jobs -- got %s", shorten(r));
    long long scene = int_of(r, "scene");
    yaia_free(r);

    char *ev = run_job(rt, scene, "{\"service\":\"math\",\"op\":\"pow\",\"args\":[2,10]}", "jobs math.pow");
    check(has(ev, "\"viewModel\":{\"log\":[{\"ok\":true,\"result\":1024}]}"),
          "jobs: the log holds {\"ok\":true,\"result\":1024} -- got %s", shorten(ev));
    yaia_free(ev);

    ev = run_job(rt, scene, "{\"service\":\"math\",\"op\":\"frexp\",\"args\":[8]}", "jobs math.frexp");
    check(has(ev, "{\"ok\":true,\"result\":{\"out\":[4],\"return\":0.5}}]"), "jobs: frexp's out in the log -- got %s",
          shorten(ev));
    yaia_free(ev);

    ev = run_job(rt, scene, "{\"service\":\"math\",\"op\":\"pow\",\"args\":[2]}", "jobs math.pow, one argument");
    check(has(ev, "{\"error\":{\"code\":\"bad_argument\",\"message\":\"") && !has(ev, "\"index\""),
          "jobs: a wrong count fails the effect with bad_argument, no index -- got %s", shorten(ev));
    yaia_free(ev);

    ev = run_job(rt, scene, "{\"service\":\"math\",\"op\":\"pow\",\"args\":[2,\"x\"]}", "jobs math.pow, bad type");
    check(has(ev, "{\"error\":{\"code\":\"bad_argument\",\"index\":1,\"message\":\""),
          "jobs: a wrong type fails the effect with bad_argument and index 1 -- got %s", shorten(ev));
    yaia_free(ev);

    ev = run_job(rt, scene, "{\"service\":\"z\",\"op\":\"crc32\",\"args\":[0,{\"base64\":\"aGVsbG8=\"}]}", "jobs zlib crc32");
    check(has(ev, "{\"ok\":true,\"result\":907060870}]"), "jobs: crc32 via base64 -- got %s", shorten(ev));
    yaia_free(ev);

    /* The blocking binding runs on a worker: the send returns while the call
    ** waits at the test library's gate, and the outcome arrives from there
    ** once the test opens it. */
    req = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"run\",\"payload\":"
              "{\"service\":\"t\",\"op\":\"tl_wait\",\"args\":[20]}}}", scene);
    r = execute(rt, req);
    free(req);
    check(has(r, "\"status\":\"running\""), "jobs: a blocking call held at the gate does not hold up the send -- got %s",
          shorten(r));
    long long held = int_of(r, "id");
    yaia_free(r);
    r = yaia_receive(rt, 0);
    check(r == NULL, "jobs: no outcome while the blocking call waits -- got %s", shorten(r));
    yaia_free(r);
    char *left = result_of(rt, "t", "tl_release", "[1]");
    check(left && strcmp(left, "1") == 0, "jobs: the gate opens for one call -- got %s", shorten(left));
    free(left);
    ev = receive(rt, "jobs blocking t.tl_wait");
    char *want = fmt("\"effect\":%lld,", held);
    check(has(ev, want) && has(ev, "{\"ok\":true,\"result\":20}]"), "jobs: blocking call's result -- got %s",
          shorten(ev));
    free(want);
    yaia_free(ev);
    ev = run_job(rt, scene, "{\"service\":\"t\",\"op\":\"tl_dup\",\"args\":[\"from a worker\"]}", "jobs blocking t.tl_dup");
    check(has(ev, "{\"ok\":true,\"result\":\"from a worker\"}]"), "jobs: blocking string! result -- got %s", shorten(ev));
    yaia_free(ev);

    req = fmt("{\"op\":\"state\",\"scene\":%lld}", scene);
    r = execute(rt, req);
    free(req);
    char *log = raw_of(r, "log");
    int entries = 0;
    for (const char *p = log; p && (p = strstr(p, "\"ok\":")); p++)
        entries++;
    check(entries == 7, "jobs: seven outcomes logged -- got %d in %s", entries, shorten(log));
    free(log);
    yaia_free(r);
    r = yaia_receive(rt, 0);
    check(r == NULL, "jobs: no stray event -- got %s", shorten(r));
    yaia_free(r);
    yaia_runtime_free(rt);
}

/* ================================================================ 7. blocking and inline */

static void test_blocking(yaia_runtime *rt)
{
    section("blocking bindings");
    char *req = typelib_bind_request("tb", ",\"blocking\":true");
    ffi_expect_ok(rt, req, "bind the test library as a blocking service", "\"service\":\"tb\"", (const char *)NULL);
    free(req);
    ffi_expect_ok(rt, "{\"op\":\"services\"}", "the blocking binding is listed as blocking",
                  "{\"blocking\":true,\"library\":", (const char *)NULL);
    char *self = fmt("%llu", (unsigned long long)pthread_self());
    char *inl = result_of(rt, "t", "tl_thread", "[]");
    check(inl && strcmp(inl, self) == 0, "an inline binding runs on the calling thread -- caller %s, callee %s", self,
          shorten(inl));
    char *wrk = result_of(rt, "tb", "tl_thread", "[]");
    check(wrk && strcmp(wrk, self) != 0, "a blocking binding runs on another thread -- caller %s, callee %s", self,
          shorten(wrk));
    free(inl);
    free(wrk);
    free(self);
    expect_result(rt, "tb", "add_i64", "[40,2]", "42");
    expect_bad_argument(rt, "tb", "add_i64", "[40,2.5]", 1);
    long long frees = tl_counter("tl_frees");
    expect_result(rt, "tb", "tl_dup", "[\"w\"]", "\"w\"");
    check(tl_counter("tl_frees") == frees + 1, "blocking string! freed once");
}

/* ================================================================ 8. many threads at once */

#define THREADS 4
#define CALLS_EACH 300

typedef struct {
    yaia_runtime *rt;
    int index, bad;
    char first_bad[256];
} worker;

static void *call_many(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < CALLS_EACH; i++) {
        char *req = fmt("{\"op\":\"perform\",\"effect\":{\"service\":\"t\",\"op\":\"tl_dup\",\"args\":[\"w%d-%d\"]}}",
                        w->index, i);
        char *want = fmt("{\"ok\":true,\"result\":\"w%d-%d\"}", w->index, i);
        char *r = yaia_execute(w->rt, req);
        if (!r || strcmp(r, want) != 0) {
            if (!w->bad++)
                snprintf(w->first_bad, sizeof w->first_bad, "%s -> %.150s", req, r ? r : "(NULL)");
        }
        yaia_free(r);
        free(req);
        free(want);
        req = fmt("{\"op\":\"perform\",\"effect\":{\"service\":\"t\",\"op\":\"add_i64\",\"args\":[%d,%d]}}", i, w->index);
        want = fmt("{\"ok\":true,\"result\":%d}", i + w->index);
        r = yaia_execute(w->rt, req);
        if (!r || strcmp(r, want) != 0) {
            if (!w->bad++)
                snprintf(w->first_bad, sizeof w->first_bad, "%s -> %.150s", req, r ? r : "(NULL)");
        }
        yaia_free(r);
        free(req);
        free(want);
    }
    return NULL;
}

static void test_threads(yaia_runtime *rt)
{
    section("threads");
    long long allocs = tl_counter("tl_allocs"), frees = tl_counter("tl_frees");
    pthread_t th[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){rt, i, 0, ""};
        pthread_create(&th[i], NULL, call_many, &w[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        check(w[i].bad == 0, "thread %d: %d of %d calls wrong, first: %s", i, w[i].bad, 2 * CALLS_EACH, w[i].first_bad);
    }
    long long da = tl_counter("tl_allocs") - allocs, df = tl_counter("tl_frees") - frees;
    check(da == THREADS * CALLS_EACH && df == da,
          "threads: %d string! results, each freed once -- allocated %lld, freed %lld", THREADS * CALLS_EACH, da, df);
    check(tl_counter("tl_bad_frees") == 0, "threads: no bad frees -- got %lld", tl_counter("tl_bad_frees"));
}

/* ================================================================ 9. typed plugin ops */

static void test_typed_plugin(yaia_runtime *rt)
{
    section("typed plugin ops");
    char *typed = test_plugin("typed");
    char *req = fmt("{\"op\":\"load_plugin\",\"path\":%s}", typed);
    ffi_expect_ok(rt, req, "load typed.so", "\"name\":\"typed\"", "\"services\":[\"calc\",\"calc_slow\",\"calc_v2\"]",
                  (const char *)NULL);
    ffi_expect_error(rt, req, "duplicate_service", "load typed.so twice", (const char *)NULL);
    free(req);
    ffi_expect_ok(rt, "{\"op\":\"services\"}", "typed services are listed with their plugin and flags",
                  "{\"blocking\":false,\"name\":\"calc\",\"origin\":\"plugin\",\"plugin\":\"typed\"}",
                  "{\"blocking\":true,\"name\":\"calc_slow\",\"origin\":\"plugin\",\"plugin\":\"typed\"}",
                  "{\"blocking\":false,\"name\":\"calc_v2\",\"origin\":\"plugin\",\"plugin\":\"typed\"}", (const char *)NULL);
    ffi_expect_error(rt, "{\"op\":\"bind\",\"service\":\"calc\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}}",
                     "duplicate_service", "bind a service named like a typed plugin's", (const char *)NULL);

    expect_double(rt, "calc", "add", "[1.5,2.25]", 3.75);
    expect_double(rt, "calc", "add", "[0.1,0.2]", 0.1 + 0.2);
    expect_double(rt, "calc", "add", "[1e308,1e308]", INFINITY);
    expect_double(rt, "calc", "add", "[\"Infinity\",\"-Infinity\"]", NAN);
    expect_bad_argument(rt, "calc", "add", "[1]", -1);
    expect_bad_argument(rt, "calc", "add", "[\"1\",2]", 0);
    expect_result(rt, "calc", "count_words", "[\"the quick  brown\\tfox\\n\"]", "4");
    expect_result(rt, "calc", "count_words", "[\"\"]", "0");
    expect_result(rt, "calc", "count_words", "[\"   \"]", "0");
    expect_result(rt, "calc", "count_words", "[\"\\u00e9t\\u00e9 \\u2603\"]", "2");
    {
        size_t big = (size_t)1 << 20;
        char *s = malloc(big + 1);
        for (size_t i = 0; i < big; i += 2)
            s[i] = 'w', s[i + 1] = ' ';
        s[big] = '\0';
        char *args = fmt("[\"%s\"]", s);
        expect_result(rt, "calc", "count_words", args, "524288");
        free(args);
        free(s);
    }
    expect_bad_argument(rt, "calc", "count_words", "[\"a\\u0000b\"]", 0);
    expect_bad_argument(rt, "calc", "count_words", "[null]", 0);

    expect_result(rt, "calc", "upper", "[\"abc \\u00e9\"]", "\"ABC \xc3\xa9\"");
    expect_result(rt, "calc", "upper", "[\"\"]", "\"\"");
    expect_result(rt, "calc", "allocs", "[]", "2");
    expect_result(rt, "calc", "frees", "[]", "2");
    expect_result(rt, "calc", "bad_frees", NULL, "0");
    expect_result(rt, "calc", "stats", "[\"abc\"]", "{\"out\":[294,98],\"return\":3}");
    expect_result(rt, "calc", "stats", "[{\"base64\":\"\"}]", "{\"out\":[0,0],\"return\":0}");
    expect_result(rt, "calc", "stats", "[{\"base64\":\"/w==\"}]", "{\"out\":[255,255],\"return\":1}");
    expect_bad_argument(rt, "calc", "stats", "[\"abc\",3]", -1);

    char *self = fmt("%llu", (unsigned long long)pthread_self());
    char *inl = result_of(rt, "calc", "thread", "[]");
    check(inl && strcmp(inl, self) == 0, "calc (inline) runs on the calling thread -- caller %s, callee %s", self, shorten(inl));
    char *wrk = result_of(rt, "calc_slow", "thread", "[]");
    check(wrk && strcmp(wrk, self) != 0, "calc_slow (BLOCKING) runs on a worker -- caller %s, callee %s", self, shorten(wrk));
    free(inl);
    free(wrk);
    free(self);
    expect_result(rt, "calc", "release", "[1]", "1");
    expect_result(rt, "calc_slow", "wait", "[15]", "15");
    expect_result(rt, "calc", "release", "[0]", "0");
    expect_double(rt, "calc_slow", "add", "[1,2]", 3.0);
    expect_bad_argument(rt, "calc_slow", "wait", "[2147483648]", 0);

    /* Entries larger than yaia_function: the host steps by their size. */
    expect_double(rt, "calc_v2", "mul", "[3,4]", 12.0);
    expect_result(rt, "calc_v2", "neg", "[5]", "-5");
    expect_result(rt, "calc_v2", "neg", "[-9223372036854775808]", "-9223372036854775808");
    {
        char *r = perform(rt, "calc", "mul", "[3,4]");
        check(has(r, "\"ok\":false") && has(r, "unknown_op"), "calc has no mul -- got %s", shorten(r));
        yaia_free(r);
    }

    /* The same plugin from the runtime config. */
    char *config = fmt("{\"plugins\":[%s]}", typed);
    yaia_runtime *rt2 = new_runtime(config, "typed.so from the config");
    if (rt2) {
        expect_double(rt2, "calc", "add", "[2,3]", 5.0);
        yaia_runtime_free(rt2);
    }
    free(config);
    free(typed);
}

static int *plugin_int(const char *plugin, const char *symbol)
{
    char *path = fmt("%s/%s.so", test_plugin_dir, plugin);
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    free(path);
    return h ? dlsym(h, symbol) : NULL;
}

static void test_typed_bad(yaia_runtime *rt)
{
    section("a typed plugin with a bad signature");
    char *before = services_of(rt);
    char *bad = test_plugin("typed_bad");
    char *req = fmt("{\"op\":\"load_plugin\",\"path\":%s}", bad);
    ffi_expect_error(rt, req, "bad_signature", "typed_bad.so fails to load with bad_signature", "broken",
                     "\\\"dbl\\\" at column 16", (const char *)NULL);
    char *after = services_of(rt);
    check(before && after && strcmp(before, after) == 0, "typed_bad.so leaves nothing registered -- before %s -- after %s",
          shorten(before), shorten(after));
    yaia_free(after);
    int *status = plugin_int("typed_bad", "typed_bad_status");
    int *releases = plugin_int("typed_bad", "typed_bad_releases");
    int *performs = plugin_int("typed_bad", "typed_bad_performs");
    check(status && status[0] == YAIA_OK && status[1] == YAIA_OK && status[2] == YAIA_ERR_ARGUMENT,
          "typed_bad: add_functions OK, add_service OK, add_functions with a bad signature YAIA_ERR_ARGUMENT -- got %d %d %d",
          status ? status[0] : -9, status ? status[1] : -9, status ? status[2] : -9);
    check(releases && *releases == 1, "typed_bad: the withdrawn JSON service was released once -- got %d",
          releases ? *releases : -9);
    ffi_expect_error(rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"typed_bad_ok\",\"op\":\"twice\",\"args\":[1]}}",
                     "no_such_service", "typed_bad_ok was withdrawn", (const char *)NULL);
    ffi_expect_error(rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"typed_bad\",\"op\":\"fine\",\"args\":[1]}}",
                     "no_such_service", "typed_bad was never registered", (const char *)NULL);
    free(req);

    /* setup() reporting failure too: the signature error still explains it. */
    req = fmt("{\"op\":\"load_plugin\",\"path\":%s,\"config\":{\"fail\":true}}", bad);
    ffi_expect_error(rt, req, "bad_signature", "typed_bad.so with a failing setup still says bad_signature", (const char *)NULL);
    free(req);
    check(releases && *releases == 2, "typed_bad: released again after the second load -- got %d", releases ? *releases : -9);
    after = services_of(rt);
    check(before && after && strcmp(before, after) == 0, "typed_bad.so (failing setup) leaves nothing registered");
    yaia_free(after);

    char *config = fmt("{\"plugins\":[%s]}", bad);
    expect_config_error(config, "bad_signature", "typed_bad.so in the runtime config", NULL);
    free(config);
    check(performs && *performs == 0, "typed_bad: the withdrawn service was never called -- got %d", performs ? *performs : -9);
    free(bad);
    yaia_free(before);
    expect_double(rt, "calc", "add", "[1,1]", 2.0);
}

/* ================================================================ main */

int main(void)
{
    harness_start();
    lib_dir = env_or("YAIA_TEST_LIB_DIR", ".build/yaia/lib");
    test_plugin_dir = env_or("YAIA_TEST_PLUGIN_DIR", ".build/yaia/test-plugins");
    char *path = fmt("%s/libyaiatypes.so", lib_dir);
    tl_path = json_quote(path);
    tl_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!tl_handle) {
        check(0, "cannot open the test library %s: %s (make builds it)", path, dlerror());
        return harness_finish();
    }
    free(path);

    yaia_runtime *rt = new_runtime(NULL, "main runtime");
    if (!rt)
        return harness_finish();
    static const char *bindings[] = {math_binding, libc_binding, zlib_binding};
    for (size_t i = 0; i < 3; i++) {
        char *req = bind_request(bindings[i]);
        ffi_expect_ok(rt, req, "bind a system library", "\"ops\":[", (const char *)NULL);
        free(req);
    }
    ffi_expect_ok(rt, "{\"op\":\"bind\",\"service\":\"m2\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"},\"tag\":1}",
                  "bind answers with service, sorted ops and the tag", "{\"ok\":true,\"ops\":[\"cos\"],\"service\":\"m2\",\"tag\":1}",
                  (const char *)NULL);
    ffi_expect_ok(rt, "{\"op\":\"bind\",\"service\":\"m3\",\"library\":\"libm.so.6\",\"ops\":{\"pow\":\"double(double,double)\",\"cos\":\"double(double)\",\"frexp\":\"double(double, out int32)\"}}",
                  "bind lists its ops sorted", "\"ops\":[\"cos\",\"frexp\",\"pow\"]", (const char *)NULL);
    char *req = typelib_bind_request("t", "");
    ffi_expect_ok(rt, req, "bind the test library", "\"service\":\"t\"", (const char *)NULL);
    free(req);

    test_libm(rt);
    test_libc(rt);
    test_zlib(rt);
    test_integers(rt);
    test_bool_void(rt);
    test_floats(rt);
    test_strings(rt);
    test_owned_strings(rt);
    test_owned_free_override(rt);
    test_bytes(rt);
    test_pointers(rt);
    test_handle_table(rt);
    test_outs(rt);
    test_many_args(rt);
    test_bad_bindings(rt);
    test_bad_calls(rt);
    test_blocking(rt);
    test_threads(rt);
    test_typed_plugin(rt);
    test_typed_bad(rt);
    test_config_bind();
    test_scene();

    section("the end");
    expect_result(rt, "math", "pow", "[2,10]", "1024");
    check(tl_counter("tl_live") == 0 && tl_counter("tl_bad_frees") == 0,
          "at the end: every string! result freed exactly once -- %lld live, %lld bad frees", tl_counter("tl_live"),
          tl_counter("tl_bad_frees"));
    yaia_runtime_free(rt);

    free(tl_path);
    return harness_finish();
}
