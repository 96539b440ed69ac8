/*
** typed.c -- typed plugin ops (yaia_host_api.add_functions, docs/ffi.md):
** plain C functions with signatures, no JSON glue.
**
**   service "calc" (inline)
**     add          double(double, double)
**     count_words  int64(string)         words separated by ASCII white space
**     upper        string!(string)       a malloc'd upper-case copy, freed by
**                                        calc_free (counted: "frees")
**     allocs       int64()               strings "upper" handed out
**     frees        int64()               of those, freed through calc_free
**     bad_frees    int64()               calc_free calls on anything else
**     thread       uint64()              pthread_self() of the calling thread
**     release      int64(int64)          lets n more calc_slow.wait calls
**                                        through; returns the permits left
**     stats        int32(bytes, len size_t, out uint64, out double)
**                                        byte sum and mean; returns the count
**
**   service "calc_slow" (YAIA_SERVICE_BLOCKING: called on the worker pool)
**     thread       uint64()
**     wait         int32(int32)          blocks until calc.release lets it
**                                        through, returns its argument
**     add          double(double, double)
**
**   service "calc_v2": its yaia_function entries are embedded in a larger
**   struct, with size set to that struct's size, as a plugin built against a
**   newer header (fields appended) would send them; the host must step by
**   the given size.
**     mul          double(double, double)
**     neg          int64(int64)
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_plugin.h"

static atomic_llong allocs, frees, bad_frees;

/* Pointers handed out by upper() and not yet freed. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static void *live[256];

static double add(double a, double b) { return a + b; }

static int64_t count_words(const char *text)
{
    int64_t n = 0;
    int in_word = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        int space = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v';
        if (!space && !in_word)
            n++;
        in_word = !space;
    }
    return n;
}

static char *upper(const char *s)
{
    char *p = strdup(s);
    if (!p)
        return NULL;
    for (char *c = p; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    pthread_mutex_lock(&live_lock);
    size_t i = 0;
    while (i < sizeof live / sizeof live[0] && live[i])
        i++;
    if (i == sizeof live / sizeof live[0]) {
        pthread_mutex_unlock(&live_lock);
        free(p);
        return NULL;
    }
    live[i] = p;
    pthread_mutex_unlock(&live_lock);
    atomic_fetch_add(&allocs, 1);
    return p;
}

static void calc_free(void *p)
{
    if (!p)
        return;
    int found = 0;
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++)
        if (live[i] == p) {
            live[i] = NULL;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    if (!found) {
        atomic_fetch_add(&bad_frees, 1);
        return;
    }
    free(p);
    atomic_fetch_add(&frees, 1);
}

static int64_t get_allocs(void) { return atomic_load(&allocs); }
static int64_t get_frees(void) { return atomic_load(&frees); }
static int64_t get_bad_frees(void) { return atomic_load(&bad_frees); }
static uint64_t thread(void) { return (uint64_t)pthread_self(); }

static int32_t stats(const void *data, size_t n, uint64_t *sum, double *mean)
{
    const unsigned char *p = data;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += p[i];
    *sum = s;
    *mean = n ? (double)s / (double)n : 0.0;
    return (int32_t)n;
}

/* A gate a test holds blocking calls at, instead of timing them. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_opened = PTHREAD_COND_INITIALIZER;
static int64_t permits;

static int32_t wait_for_permit(int32_t v)
{
    pthread_mutex_lock(&gate_lock);
    while (permits == 0)
        pthread_cond_wait(&gate_opened, &gate_lock);
    permits--;
    pthread_mutex_unlock(&gate_lock);
    return v;
}

static int64_t release(int64_t n)
{
    pthread_mutex_lock(&gate_lock);
    if (n > 0)
        permits += n;
    int64_t left = permits;
    pthread_cond_broadcast(&gate_opened);
    pthread_mutex_unlock(&gate_lock);
    return left;
}

static double mul(double a, double b) { return a * b; }
static int64_t neg(int64_t v) { return (int64_t)(0 - (uint64_t)v); }

#define FN(f) ((void (*)(void))(f))

static const yaia_function calc[] = {
    {sizeof(yaia_function), "add", "double(double, double)", FN(add), NULL},
    {sizeof(yaia_function), "count_words", "int64(string)", FN(count_words), NULL},
    {sizeof(yaia_function), "upper", "string!(string)", FN(upper), calc_free},
    {sizeof(yaia_function), "allocs", "int64()", FN(get_allocs), NULL},
    {sizeof(yaia_function), "frees", "int64()", FN(get_frees), NULL},
    {sizeof(yaia_function), "bad_frees", "int64(void)", FN(get_bad_frees), NULL},
    {sizeof(yaia_function), "thread", "uint64()", FN(thread), NULL},
    {sizeof(yaia_function), "release", "int64(int64)", FN(release), NULL},
    {sizeof(yaia_function), "stats", "int32(bytes, len size_t, out uint64, out double)", FN(stats), NULL},
};

static const yaia_function calc_slow[] = {
    {sizeof(yaia_function), "thread", "uint64()", FN(thread), NULL},
    {sizeof(yaia_function), "wait", "int32(int32)", FN(wait_for_permit), NULL},
    {sizeof(yaia_function), "add", "double(double,double)", FN(add), NULL},
};

/* A yaia_function as a newer header might define it: fields appended. */
typedef struct {
    yaia_function f;
    uint64_t appended[3];
} yaia_function_next;

static const yaia_function_next calc_v2[] = {
    {{sizeof(yaia_function_next), "mul", "double(double, double)", FN(mul), NULL}, {1, 2, 3}},
    {{sizeof(yaia_function_next), "neg", "int64(int64)", FN(neg), NULL}, {4, 5, 6}},
};

static int setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    (void)config_json;
    if (api->size < offsetof(yaia_host_api, add_functions) + sizeof api->add_functions) {
        api->set_error(host, "this host has no add_functions (typed ops)");
        return 1;
    }
    if (api->add_functions(host, "calc", calc, sizeof calc / sizeof calc[0], 0) != YAIA_OK)
        return 1;
    if (api->add_functions(host, "calc_slow", calc_slow, sizeof calc_slow / sizeof calc_slow[0],
                           YAIA_SERVICE_BLOCKING) != YAIA_OK)
        return 1;
    /* The host reads each entry's size and steps by it. */
    if (api->add_functions(host, "calc_v2", &calc_v2[0].f, sizeof calc_v2 / sizeof calc_v2[0], 0) != YAIA_OK)
        return 1;
    return 0;
}

static const yaia_plugin descriptor = {
    sizeof(yaia_plugin), 1, "typed", "1.0.0", "typed ops: calc, calc_slow, calc_v2", setup,
};

YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer)
{
    for (size_t i = 0; i < offer->abi_version_count; i++)
        if (offer->abi_versions[i] == 1)
            return &descriptor;
    return NULL;
}
