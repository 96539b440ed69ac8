/*
** faults.c -- services that misbehave on purpose, for the C service tests.
**
**   "slow"     YAIA_SERVICE_BLOCKING. Sleeps args.ms milliseconds (0 to
**              60000; missing: 0) inside perform(), then completes with
**              result = args. A cancel cuts the sleep short; the completion
**              that follows must then answer YAIA_ERR_STALE. Records the
**              thread (gettid) of every perform and how many ran at once.
**   "never"    Never completes. Its cancel hook counts the cancel, then
**              completes the call, which must answer YAIA_ERR_STALE.
**   "twice"    Completes with args, then again: the second must answer
**              YAIA_ERR_STALE (the host logs and ignores it).
**   "badjson"  Completes with text that is not JSON: must answer
**              YAIA_ERR_JSON, and the call fails with {"code":"bad_result"}.
**   "stats"    Op "get": the counters below, as JSON. Op "reset": zeroes
**              them (answers {"reset":true}). Completes inside perform().
**
** The counters are per registration (one runtime), except "process", which
** counts across every load of the plugin in the process:
**
**   {"slow":    {"calls", "done", "stale", "cancels", "inFlight", "maxInFlight",
**                "threads": [TID, ...]},          distinct, at most 64
**    "never":   {"calls", "held", "cancels", "staleAfterCancel"},
**    "twice":   {"calls", "first": RC, "second": RC},   RC: last return codes
**    "badjson": {"calls", "rc": RC},
**    "process": {"contexts": N, "releases": N}}     contexts allocated and
**                                                     not yet freed
**
** CONFIG {"fail_after": N}: setup() registers its first N services (in the
** order above), then fails with set_error(): the host must withdraw and
** release those N, and nothing of the plugin may stay registered. The shared
** context is freed by the last release, so "process.contexts" returns to
** its value before the load.
**
** A return code that breaks the rules above is logged at error level
** ("faults: ...").
*/
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "yaia_plugin.h"
#include "../../Examples/plugins/common/plugin_util.h"

#define MAX_THREADS 64

/* Process-wide: how many contexts exist, how many releases happened. */
static pthread_mutex_t process_lock = PTHREAD_MUTEX_INITIALIZER;
static long process_contexts, process_releases;

typedef struct held {
    struct held *next;
    yaia_call *call;
} held;

typedef struct slow_call {
    struct slow_call *next;
    yaia_call *call;
    int cancelled;
} slow_call;

/* One per registration, shared by its services; freed by the last release. */
typedef struct faults {
    yaia_host *host;
    int (*call_complete)(yaia_call *, const char *);
    int (*call_fail)(yaia_call *, const char *);
    void (*log)(yaia_host *, int, const char *);

    pthread_mutex_t lock;
    pthread_cond_t wake; /* a slow call was cancelled */
    int refs;            /* registered services not yet released */

    long slow_calls, slow_done, slow_stale, slow_cancels, in_flight, max_in_flight;
    long threads[MAX_THREADS];
    int thread_count;
    slow_call *sleeping;

    long never_calls, never_cancels, never_stale;
    held *holding;

    long twice_calls;
    int twice_first, twice_second;

    long bad_calls;
    int bad_rc;
} faults;

static void complain(faults *f, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    f->log(f->host, YAIA_LOG_ERROR, msg);
}

/* args.ms: a whole number from 0 to 60000, found by a scan for "ms": in
** the compact JSON the host sends ({"ms":N,...}). Anything else is 0. */
static long read_ms(const char *args)
{
    const char *p = args ? strstr(args, "\"ms\":") : NULL;
    if (!p)
        return 0;
    long ms = strtol(p + 5, NULL, 10);
    return ms < 0 ? 0 : ms > 60000 ? 60000 : ms;
}

/* ------------------------------------------------------------------ slow */

static void slow_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    (void)op;
    long ms = read_ms(args_json);
    slow_call me = {NULL, call, 0};

    struct timespec due;
    clock_gettime(CLOCK_REALTIME, &due);
    due.tv_sec += ms / 1000;
    due.tv_nsec += (ms % 1000) * 1000000L;
    if (due.tv_nsec >= 1000000000L) {
        due.tv_sec++;
        due.tv_nsec -= 1000000000L;
    }

    long tid = (long)gettid();
    pthread_mutex_lock(&f->lock);
    f->slow_calls++;
    if (++f->in_flight > f->max_in_flight)
        f->max_in_flight = f->in_flight;
    int known = 0;
    for (int i = 0; i < f->thread_count; i++)
        known |= f->threads[i] == tid;
    if (!known && f->thread_count < MAX_THREADS)
        f->threads[f->thread_count++] = tid;
    me.next = f->sleeping;
    f->sleeping = &me;
    while (!me.cancelled) {
        int rc = pthread_cond_timedwait(&f->wake, &f->lock, &due);
        if (rc == ETIMEDOUT)
            break;
    }
    for (slow_call **p = &f->sleeping; *p; p = &(*p)->next)
        if (*p == &me) {
            *p = me.next;
            break;
        }
    f->in_flight--;
    int cancelled = me.cancelled;
    pthread_mutex_unlock(&f->lock);

    int rc = f->call_complete(call, args_json ? args_json : "null");
    pthread_mutex_lock(&f->lock);
    f->slow_done++;
    if (rc == YAIA_ERR_STALE)
        f->slow_stale++;
    pthread_mutex_unlock(&f->lock);
    if (cancelled && rc != YAIA_ERR_STALE)
        complain(f, "faults: slow: completing a cancelled call returned %d, expected YAIA_ERR_STALE", rc);
    else if (rc != YAIA_OK && rc != YAIA_ERR_STALE)
        complain(f, "faults: slow: call_complete returned %d", rc);
}

static void slow_cancel(void *ctx, yaia_call *call)
{
    faults *f = ctx;
    pthread_mutex_lock(&f->lock);
    f->slow_cancels++;
    for (slow_call *c = f->sleeping; c; c = c->next)
        if (c->call == call)
            c->cancelled = 1;
    pthread_cond_broadcast(&f->wake);
    pthread_mutex_unlock(&f->lock);
}

/* ----------------------------------------------------------------- never */

static void never_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    (void)op;
    (void)args_json;
    held *h = malloc(sizeof *h);
    pthread_mutex_lock(&f->lock);
    f->never_calls++;
    if (h) {
        h->call = call;
        h->next = f->holding;
        f->holding = h;
    }
    pthread_mutex_unlock(&f->lock);
}

static void never_cancel(void *ctx, yaia_call *call)
{
    faults *f = ctx;
    pthread_mutex_lock(&f->lock);
    f->never_cancels++;
    for (held **p = &f->holding; *p; p = &(*p)->next)
        if ((*p)->call == call) {
            held *h = *p;
            *p = h->next;
            free(h);
            break;
        }
    pthread_mutex_unlock(&f->lock);
    /* The call is withdrawn: completing it now must change nothing. */
    int rc = f->call_complete(call, "{\"late\":true}");
    pthread_mutex_lock(&f->lock);
    if (rc == YAIA_ERR_STALE)
        f->never_stale++;
    pthread_mutex_unlock(&f->lock);
    if (rc != YAIA_ERR_STALE)
        complain(f, "faults: never: completing a cancelled call returned %d, expected YAIA_ERR_STALE", rc);
}

/* ---------------------------------------------------- twice and badjson */

static void twice_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    (void)op;
    const char *args = args_json ? args_json : "null";
    int first = f->call_complete(call, args);
    int second = f->call_complete(call, "{\"second\":true}");
    pthread_mutex_lock(&f->lock);
    f->twice_calls++;
    f->twice_first = first;
    f->twice_second = second;
    pthread_mutex_unlock(&f->lock);
    if (first != YAIA_OK || second != YAIA_ERR_STALE)
        complain(f, "faults: twice: completions returned %d and %d, expected 0 and 2", first, second);
}

static void badjson_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    (void)op;
    (void)args_json;
    int rc = f->call_complete(call, "{\"unterminated\":[1,2");
    pthread_mutex_lock(&f->lock);
    f->bad_calls++;
    f->bad_rc = rc;
    pthread_mutex_unlock(&f->lock);
    if (rc != YAIA_ERR_JSON)
        complain(f, "faults: badjson: call_complete returned %d, expected YAIA_ERR_JSON", rc);
}

/* ----------------------------------------------------------------- stats */

static void stats_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    (void)args_json;
    if (op && strcmp(op, "reset") == 0) {
        pthread_mutex_lock(&f->lock);
        f->slow_calls = f->slow_done = f->slow_stale = f->slow_cancels = 0;
        f->max_in_flight = f->in_flight;
        f->thread_count = 0;
        f->never_calls = f->never_cancels = f->never_stale = 0;
        f->twice_calls = f->bad_calls = 0;
        f->twice_first = f->twice_second = f->bad_rc = -1;
        pthread_mutex_unlock(&f->lock);
        f->call_complete(call, "{\"reset\":true}");
        return;
    }
    if (!op || strcmp(op, "get") != 0) {
        f->call_fail(call, "{\"message\":\"stats: ops are get and reset\"}");
        return;
    }
    char text[4096], *p = text, *end = text + sizeof text;
    pthread_mutex_lock(&process_lock);
    long contexts = process_contexts, releases = process_releases;
    pthread_mutex_unlock(&process_lock);
    pthread_mutex_lock(&f->lock);
    long held_count = 0;
    for (held *h = f->holding; h; h = h->next)
        held_count++;
    p += snprintf(p, (size_t)(end - p),
                  "{\"badjson\":{\"calls\":%ld,\"rc\":%d},"
                  "\"never\":{\"calls\":%ld,\"cancels\":%ld,\"held\":%ld,\"staleAfterCancel\":%ld},"
                  "\"process\":{\"contexts\":%ld,\"releases\":%ld},"
                  "\"slow\":{\"calls\":%ld,\"cancels\":%ld,\"done\":%ld,\"inFlight\":%ld,\"maxInFlight\":%ld,"
                  "\"stale\":%ld,\"threads\":[",
                  f->bad_calls, f->bad_rc, f->never_calls, f->never_cancels, held_count, f->never_stale,
                  contexts, releases, f->slow_calls, f->slow_cancels, f->slow_done, f->in_flight,
                  f->max_in_flight, f->slow_stale);
    for (int i = 0; i < f->thread_count; i++)
        p += snprintf(p, (size_t)(end - p), "%s%ld", i ? "," : "", f->threads[i]);
    p += snprintf(p, (size_t)(end - p), "]},\"twice\":{\"calls\":%ld,\"first\":%d,\"second\":%d}}",
                  f->twice_calls, f->twice_first, f->twice_second);
    pthread_mutex_unlock(&f->lock);
    int rc = f->call_complete(call, text);
    if (rc != YAIA_OK && rc != YAIA_ERR_STALE)
        complain(f, "faults: stats: call_complete returned %d", rc);
}

/* ---------------------------------------------------------------- plugin */

static void faults_release(void *ctx)
{
    faults *f = ctx;
    pthread_mutex_lock(&process_lock);
    process_releases++;
    pthread_mutex_unlock(&process_lock);
    pthread_mutex_lock(&f->lock);
    int last = --f->refs == 0;
    pthread_mutex_unlock(&f->lock);
    if (!last)
        return;
    while (f->holding) {
        held *h = f->holding;
        f->holding = h->next;
        free(h);
    }
    pthread_cond_destroy(&f->wake);
    pthread_mutex_destroy(&f->lock);
    free(f);
    pthread_mutex_lock(&process_lock);
    process_contexts--;
    pthread_mutex_unlock(&process_lock);
}

/* {"fail_after": N} anywhere in the compact config; -1 when absent. */
static long read_fail_after(const char *config)
{
    const char *p = config ? strstr(config, "\"fail_after\":") : NULL;
    return p ? strtol(p + 13, NULL, 10) : -1;
}

static int faults_setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    faults *f = calloc(1, sizeof *f);
    if (!f) {
        api->set_error(host, "faults: out of memory");
        return 1;
    }
    f->host = host;
    f->call_complete = api->call_complete;
    f->call_fail = api->call_fail;
    f->log = api->log;
    f->twice_first = f->twice_second = f->bad_rc = -1;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->wake, NULL);
    pthread_mutex_lock(&process_lock);
    process_contexts++;
    pthread_mutex_unlock(&process_lock);

    const struct {
        const char *name;
        void (*perform)(void *, yaia_call *, const char *, const char *);
        void (*cancel)(void *, yaia_call *);
        uint32_t flags;
    } services[] = {
        {"slow", slow_perform, slow_cancel, YAIA_SERVICE_BLOCKING},
        {"never", never_perform, never_cancel, 0},
        {"twice", twice_perform, NULL, 0},
        {"badjson", badjson_perform, NULL, 0},
        {"stats", stats_perform, NULL, 0},
    };
    long fail_after = read_fail_after(config_json);
    int failed = 0;
    for (size_t i = 0; i < sizeof services / sizeof services[0]; i++) {
        if (fail_after >= 0 && (long)i == fail_after) {
            api->set_error(host, "faults: setup fails on purpose (fail_after)");
            failed = 1;
            break;
        }
        yaia_service s = {
            .size = sizeof s,
            .name = services[i].name,
            .ctx = f,
            .perform = services[i].perform,
            .cancel = services[i].cancel,
            .release = faults_release,
            .flags = services[i].flags,
        };
        /* Counted first: the host may release as soon as setup returns. */
        f->refs++;
        int rc = api->add_service(host, &s);
        if (rc != YAIA_OK) {
            f->refs--;
            api->set_error(host, "faults: add_service refused a service");
            failed = 1;
            break;
        }
    }
    if (failed) {
        if (f->refs == 0) {
            /* Nothing registered, so no release() will come: free it here. */
            f->refs = 1;
            pthread_mutex_lock(&process_lock);
            process_releases--; /* faults_release counts it; it is not the host's */
            pthread_mutex_unlock(&process_lock);
            faults_release(f);
        }
        return 1;
    }
    return 0;
}

PLUGIN_ENTRY(1, "faults", "1.0.0",
             "Test plugin: slow, never-completing, double-completing and bad-JSON services",
             faults_setup)
