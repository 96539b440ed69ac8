/*
** faults.c -- services that misbehave on purpose, for the C service tests.
**
**   "slow"     YAIA_SERVICE_BLOCKING. Blocks inside perform() until the
**              test lets it through (stats op "release"), then completes
**              with result = args. A cancel ends the wait early; the
**              completion that follows must then answer YAIA_ERR_STALE.
**              Records the thread (gettid) of every perform and how many
**              ran at once.
**   "never"    Never completes. Its cancel hook counts the cancel, then
**              completes the call, which must answer YAIA_ERR_STALE.
**   "twice"    Completes with args, then again: the second must answer
**              YAIA_ERR_STALE (the host logs and ignores it).
**   "badjson"  Completes with text that is not JSON: must answer
**              YAIA_ERR_JSON, and the call fails with {"code":"bad_result"}.
**   "stats"    Completes inside perform(), on the caller's thread:
**              op "get"      the counters below, as JSON;
**              op "reset"    zeroes them and the permits (answers
**                            {"reset":true});
**              op "release"  args {"n": N}: N more slow calls may go
**                            through, those waiting first, then the next
**                            ones (answers {"released": N});
**              op "wait"     args {"GROUP.KEY": N, ...}: blocks until each
**                            named counter equals N, then answers as "get"
**                            does. Counters: slow.calls, slow.done,
**                            slow.stale, slow.cancels, slow.inFlight,
**                            never.calls, never.cancels, process.contexts,
**                            process.releases; another name fails the
**                            call. A test waits on what the plugin saw
**                            instead of on time; the test's watchdog ends
**                            a wait that never ends.
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

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yaia_plugin.h"
#include "../../Examples/plugins/common/plugin_util.h"

#define MAX_THREADS 64

/* One lock and one condition for every counter of every registration: a
** "wait" may name counters of both kinds, and "changed" is broadcast
** whenever any of them moves. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

/* Process-wide: how many contexts exist, how many releases happened. */
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

    int refs; /* registered services not yet released */

    long slow_calls, slow_done, slow_stale, slow_cancels, in_flight, max_in_flight;
    long permits; /* slow calls that may still go through */
    long threads[MAX_THREADS];
    int thread_count;
    slow_call *waiting;

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

/* Lock held: a change of any counter. */
static void bump(long *counter, long by)
{
    *counter += by;
    pthread_cond_broadcast(&changed);
}

/* ------------------------------------------------------------------ slow */

static void slow_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    (void)op;
    slow_call me = {NULL, call, 0};
    long tid = (long)gettid();

    pthread_mutex_lock(&lock);
    bump(&f->slow_calls, 1);
    bump(&f->in_flight, 1);
    if (f->in_flight > f->max_in_flight)
        f->max_in_flight = f->in_flight;
    int known = 0;
    for (int i = 0; i < f->thread_count; i++)
        known |= f->threads[i] == tid;
    if (!known && f->thread_count < MAX_THREADS)
        f->threads[f->thread_count++] = tid;
    me.next = f->waiting;
    f->waiting = &me;
    while (!me.cancelled && f->permits == 0)
        pthread_cond_wait(&changed, &lock);
    if (!me.cancelled)
        f->permits--;
    for (slow_call **p = &f->waiting; *p; p = &(*p)->next)
        if (*p == &me) {
            *p = me.next;
            break;
        }
    bump(&f->in_flight, -1);
    int cancelled = me.cancelled;
    pthread_mutex_unlock(&lock);

    int rc = f->call_complete(call, args_json ? args_json : "null");
    pthread_mutex_lock(&lock);
    bump(&f->slow_done, 1);
    if (rc == YAIA_ERR_STALE)
        bump(&f->slow_stale, 1);
    pthread_mutex_unlock(&lock);
    if (cancelled && rc != YAIA_ERR_STALE)
        complain(f, "faults: slow: completing a cancelled call returned %d, expected YAIA_ERR_STALE", rc);
    else if (rc != YAIA_OK && rc != YAIA_ERR_STALE)
        complain(f, "faults: slow: call_complete returned %d", rc);
}

static void slow_cancel(void *ctx, yaia_call *call)
{
    faults *f = ctx;
    pthread_mutex_lock(&lock);
    bump(&f->slow_cancels, 1);
    for (slow_call *c = f->waiting; c; c = c->next)
        if (c->call == call)
            c->cancelled = 1;
    pthread_mutex_unlock(&lock);
}

/* ----------------------------------------------------------------- never */

static void never_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    (void)op;
    (void)args_json;
    held *h = malloc(sizeof *h);
    pthread_mutex_lock(&lock);
    bump(&f->never_calls, 1);
    if (h) {
        h->call = call;
        h->next = f->holding;
        f->holding = h;
    }
    pthread_mutex_unlock(&lock);
}

static void never_cancel(void *ctx, yaia_call *call)
{
    faults *f = ctx;
    pthread_mutex_lock(&lock);
    bump(&f->never_cancels, 1);
    for (held **p = &f->holding; *p; p = &(*p)->next)
        if ((*p)->call == call) {
            held *h = *p;
            *p = h->next;
            free(h);
            break;
        }
    pthread_mutex_unlock(&lock);
    /* The call is withdrawn: completing it now must change nothing. */
    int rc = f->call_complete(call, "{\"late\":true}");
    pthread_mutex_lock(&lock);
    if (rc == YAIA_ERR_STALE)
        bump(&f->never_stale, 1);
    pthread_mutex_unlock(&lock);
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
    pthread_mutex_lock(&lock);
    bump(&f->twice_calls, 1);
    f->twice_first = first;
    f->twice_second = second;
    pthread_mutex_unlock(&lock);
    if (first != YAIA_OK || second != YAIA_ERR_STALE)
        complain(f, "faults: twice: completions returned %d and %d, expected 0 and 2", first, second);
}

static void badjson_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    (void)op;
    (void)args_json;
    int rc = f->call_complete(call, "{\"unterminated\":[1,2");
    pthread_mutex_lock(&lock);
    bump(&f->bad_calls, 1);
    f->bad_rc = rc;
    pthread_mutex_unlock(&lock);
    if (rc != YAIA_ERR_JSON)
        complain(f, "faults: badjson: call_complete returned %d, expected YAIA_ERR_JSON", rc);
}

/* ----------------------------------------------------------------- stats */

/* Lock held: the counter a "wait" names ("GROUP.KEY", n bytes), or NULL. */
static long *counter_named(faults *f, const char *name, size_t n)
{
    static const struct {
        const char *name;
        size_t offset;
    } counters[] = {
        {"slow.calls", offsetof(faults, slow_calls)},       {"slow.done", offsetof(faults, slow_done)},
        {"slow.stale", offsetof(faults, slow_stale)},       {"slow.cancels", offsetof(faults, slow_cancels)},
        {"slow.inFlight", offsetof(faults, in_flight)},     {"never.calls", offsetof(faults, never_calls)},
        {"never.cancels", offsetof(faults, never_cancels)},
    };
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
        if (strlen(counters[i].name) == n && memcmp(counters[i].name, name, n) == 0)
            return (long *)((char *)f + counters[i].offset);
    if (n == 16 && memcmp(name, "process.contexts", n) == 0)
        return &process_contexts;
    if (n == 16 && memcmp(name, "process.releases", n) == 0)
        return &process_releases;
    return NULL;
}

/* Lock held: 1 when every "NAME":N member of the flat object `args` (the
** host's compact JSON) holds, 0 when one does not yet, -1 when args is not
** such an object or names an unknown counter. */
static int wait_done(faults *f, const char *args)
{
    const char *p = args;
    if (!p || *p++ != '{')
        return -1;
    if (*p == '}')
        return 1;
    int done = 1;
    for (;;) {
        if (*p++ != '"')
            return -1;
        const char *name = p;
        while (*p && *p != '"')
            p++;
        if (*p != '"' || p[1] != ':')
            return -1;
        long *counter = counter_named(f, name, (size_t)(p - name));
        char *end;
        long want = strtol(p + 2, &end, 10);
        if (!counter || end == p + 2)
            return -1;
        done &= *counter == want;
        p = end;
        if (*p == '}')
            return done;
        if (*p++ != ',')
            return -1;
    }
}

/* {"n": N} of the compact args; -1 when absent or negative. */
static long read_n(const char *args)
{
    const char *p = args ? strstr(args, "\"n\":") : NULL;
    long n = p ? strtol(p + 4, NULL, 10) : -1;
    return n < 0 ? -1 : n;
}

static void stats_get(faults *f, yaia_call *call)
{
    char text[4096], *p = text, *end = text + sizeof text;
    pthread_mutex_lock(&lock);
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
                  process_contexts, process_releases, f->slow_calls, f->slow_cancels, f->slow_done, f->in_flight,
                  f->max_in_flight, f->slow_stale);
    for (int i = 0; i < f->thread_count; i++)
        p += snprintf(p, (size_t)(end - p), "%s%ld", i ? "," : "", f->threads[i]);
    p += snprintf(p, (size_t)(end - p), "]},\"twice\":{\"calls\":%ld,\"first\":%d,\"second\":%d}}",
                  f->twice_calls, f->twice_first, f->twice_second);
    pthread_mutex_unlock(&lock);
    int rc = f->call_complete(call, text);
    if (rc != YAIA_OK && rc != YAIA_ERR_STALE)
        complain(f, "faults: stats: call_complete returned %d", rc);
}

static void stats_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    faults *f = ctx;
    if (!op)
        op = "";
    if (strcmp(op, "get") == 0) {
        stats_get(f, call);
    } else if (strcmp(op, "reset") == 0) {
        pthread_mutex_lock(&lock);
        f->slow_calls = f->slow_done = f->slow_stale = f->slow_cancels = f->permits = 0;
        f->max_in_flight = f->in_flight;
        f->thread_count = 0;
        f->never_calls = f->never_cancels = f->never_stale = 0;
        f->twice_calls = f->bad_calls = 0;
        f->twice_first = f->twice_second = f->bad_rc = -1;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        f->call_complete(call, "{\"reset\":true}");
    } else if (strcmp(op, "release") == 0) {
        long n = read_n(args_json);
        if (n < 0) {
            f->call_fail(call, "{\"message\":\"stats.release takes {\\\"n\\\": N}, N >= 0\"}");
            return;
        }
        pthread_mutex_lock(&lock);
        bump(&f->permits, n);
        pthread_mutex_unlock(&lock);
        char text[64];
        snprintf(text, sizeof text, "{\"released\":%ld}", n);
        f->call_complete(call, text);
    } else if (strcmp(op, "wait") == 0) {
        pthread_mutex_lock(&lock);
        int done;
        while ((done = wait_done(f, args_json)) == 0)
            pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
        if (done < 0)
            f->call_fail(call, "{\"message\":\"stats.wait takes {\\\"GROUP.KEY\\\": N, ...} of known counters\"}");
        else
            stats_get(f, call);
    } else {
        f->call_fail(call, "{\"message\":\"stats: ops are get, reset, release and wait\"}");
    }
}

/* ---------------------------------------------------------------- plugin */

static void faults_release(void *ctx)
{
    faults *f = ctx;
    pthread_mutex_lock(&lock);
    bump(&process_releases, 1);
    int last = --f->refs == 0;
    if (last)
        bump(&process_contexts, -1);
    pthread_mutex_unlock(&lock);
    if (!last)
        return;
    while (f->holding) {
        held *h = f->holding;
        f->holding = h->next;
        free(h);
    }
    free(f);
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
    pthread_mutex_lock(&lock);
    bump(&process_contexts, 1);
    pthread_mutex_unlock(&lock);

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
        pthread_mutex_lock(&lock);
        f->refs++;
        pthread_mutex_unlock(&lock);
        int rc = api->add_service(host, &s);
        if (rc != YAIA_OK) {
            pthread_mutex_lock(&lock);
            f->refs--;
            pthread_mutex_unlock(&lock);
            api->set_error(host, "faults: add_service refused a service");
            failed = 1;
            break;
        }
    }
    if (failed) {
        pthread_mutex_lock(&lock);
        int none = f->refs == 0;
        if (none) {
            /* Nothing registered, so no release() will come: free it here. */
            f->refs = 1;
            process_releases--; /* faults_release counts it; it is not the host's */
        }
        pthread_mutex_unlock(&lock);
        if (none)
            faults_release(f);
        return 1;
    }
    return 0;
}

PLUGIN_ENTRY(1, "faults", "1.0.0",
             "Test plugin: slow, never-completing, double-completing and bad-JSON services",
             faults_setup)
