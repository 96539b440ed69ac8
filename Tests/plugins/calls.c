/*
** calls.c -- the host API of plugin ABI 1.2 (reading a call, building its
** result, call queues), driven by the C service tests.
**
**   service "calls" (inline)
**     read     args {"as": KIND, "name": NAME or absent, ...}: reads member
**              NAME of the args (absent: the args themselves) as KIND --
**              "string", "int", "double", "bool", "json", "type", "count" --
**              and completes with {"rc": RC, "value": ...} ("length" and
**              "terminated" for strings and JSON text). A failed int, double
**              or bool read reports the untouched sentinels -7, -7.5, -1.
**     read_queued  the same, in a job of its queue (after perform() returned)
**     build    completes with a result made with every result_* function
**     misuse   completes with {"rcs": [...]}: the codes of calls that break
**              the rules, in the order of misuse() below
**     bad_json, bad_utf8, nan, too_deep, too_big
**              a result_* call that fails the call (bad_result or
**              limit_exceeded); its code must be YAIA_ERR_JSON or
**              YAIA_ERR_LIMIT, and call_finish afterwards YAIA_ERR_STALE
**     error    fails with {"code": "nope", "message": "it failed", "extra": 5}
**     plain_error  fails with {"message": "plain"}
**     pong     completes with "pong" (a result that is no object)
**     array    completes with [1, 2, {"a": true}] (closed by call_finish)
**     stale    completes, then checks that every function answers the call
**              as ended
**     config   what setup() read of its config: {"greeting", "n", "count",
**              "after_setup": whether setup_config() and reads of the
**              config answer NULL / YAIA_ERR_STALE now}
**     log      logs "calls: after setup" through the host handle of setup()
**     where    in a job: {"inline": whether it ran on perform()'s thread}
**     hold     a job that waits until op "open" opens the gate
**     holding  blocks until a hold job waits at the gate, then answers
**              {"holding": true} (the test's watchdog ends a wait that never ends)
**     open     opens the gate (inline, not queued)
**     seq      a job: {"n": args.n, "ran": its place in the order jobs ran,
**              "during_hold": whether it ran while a hold job was waiting}
**     drop     (blocking service only) frees the queue of "calls" while a
**              hold job waits: {"done_before_return": whether the hold job
**              had returned by the time queue_free() returned,
**              "submit_after": queue_submit()'s code on the freed queue}
**
**   service "calls_blocking" (YAIA_SERVICE_BLOCKING): where, seq, drop
**
** Unexpected return codes are logged at error level ("calls: ...").
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_plugin.h"
#include "../../Examples/plugins/common/plugin_util.h"

static const yaia_host_api *api;

/* One per registration; both services share it. */
typedef struct {
    yaia_host *host;
    yaia_call *config; /* the setup's config handle, stale afterwards */
    char greeting[64];
    int64_t n;
    size_t count;
    yaia_queue *queue, *blocking_queue;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* the gate opened, or a hold job began to wait */
    int gate_open, holding, hold_done, ran;
    int services; /* registered and not yet released */
} state;

static void expect(state *s, const char *what, int got, int want)
{
    if (got == want)
        return;
    char msg[160];
    snprintf(msg, sizeof msg, "calls: %s returned %d, expected %d", what, got, want);
    api->log(s->host, YAIA_LOG_ERROR, msg);
}

static int is(const char *a, const char *b) { return strcmp(a, b) == 0; }

static void read_op(void *ctx, yaia_call *call)
{
    (void)ctx;
    const char *as = "", *name = NULL;
    api->arg_string(call, "as", &as, NULL);
    if (api->arg_type(call, "name") == YAIA_JSON_STRING)
        api->arg_string(call, "name", &name, NULL);
    int rc;
    if (is(as, "string") || is(as, "json")) {
        const char *text = NULL;
        size_t length = 99;
        rc = is(as, "string") ? api->arg_string(call, name, &text, &length) : api->arg_json(call, name, &text, &length);
        if (rc == YAIA_OK) {
            api->result_string(call, "value", text, length);
            api->result_int(call, "length", (int64_t)length);
            api->result_bool(call, "terminated", text[length] == '\0');
        }
    } else if (is(as, "int")) {
        int64_t v = -7;
        rc = api->arg_int(call, name, &v);
        api->result_int(call, "value", v);
    } else if (is(as, "double")) {
        double v = -7.5;
        rc = api->arg_double(call, name, &v);
        api->result_double(call, "value", v);
    } else if (is(as, "bool")) {
        int v = -1;
        rc = api->arg_bool(call, name, &v);
        api->result_int(call, "value", v);
    } else if (is(as, "type")) {
        rc = api->arg_type(call, name);
    } else {
        rc = (int)api->arg_count(call, name);
    }
    api->result_int(call, "rc", rc);
    expect(ctx, "call_finish (read)", api->call_finish(call), YAIA_OK);
}

static void build(yaia_call *call)
{
    api->result_string(call, "s", "first", YAIA_NTS);
    api->result_string(call, "s", "a\0b\"", 4);
    api->result_int(call, "i", -42);
    api->result_double(call, "d", 1.5);
    api->result_bool(call, "b", 7);
    api->result_json(call, "j", " {\"z\": 1, \"a\": [null]} ", YAIA_NTS);
    api->result_json(call, "t", "truex", 4);
    api->result_open(call, "arr", YAIA_JSON_ARRAY);
    api->result_int(call, NULL, 1);
    api->result_string(call, "ignored", "two", YAIA_NTS);
    api->result_open(call, "ignored too", YAIA_JSON_OBJECT);
    api->result_bool(call, "three", 0);
    api->result_close(call);
    api->result_close(call);
    api->result_open(call, "o", YAIA_JSON_OBJECT);
    api->result_open(call, "deep", YAIA_JSON_OBJECT);
    api->result_int(call, "n", 5);
}

static void misuse(yaia_call *call)
{
    int rcs[12], n = 0;
    const char *text;
    int64_t v;
    rcs[n++] = api->result_close(call);                                  /* nothing open: STATE */
    rcs[n++] = api->result_open(call, "x", 99);                          /* no container type: ARGUMENT */
    api->result_open(call, "o", YAIA_JSON_OBJECT);
    rcs[n++] = api->result_int(call, NULL, 1);                           /* no name in an object: ARGUMENT */
    api->result_close(call);
    rcs[n++] = api->result_string(call, "s", NULL, 0);                   /* NULL string: ARGUMENT */
    rcs[n++] = api->result_int(call, NULL, 7);                           /* the result becomes 7: OK */
    rcs[n++] = api->result_int(call, "named", 1);                        /* no object to name it in: STATE */
    rcs[n++] = api->call_error(call, "c", "m");                          /* an error needs an object: STATE */
    rcs[n++] = api->arg_string(call, "k", NULL, NULL);                   /* NULL out: ARGUMENT */
    rcs[n++] = api->arg_int(call, "k", &v);                              /* a string: TYPE */
    rcs[n++] = api->arg_string(call, "nope", &text, NULL);               /* MISSING */
    rcs[n++] = api->call_op(NULL) == NULL && api->arg_type(NULL, NULL) == YAIA_JSON_NONE ? 0 : -1;
    rcs[n++] = api->result_reset(call);                                  /* OK: an object again */
    api->result_open(call, "rcs", YAIA_JSON_ARRAY);
    for (int i = 0; i < n; i++)
        api->result_int(call, NULL, rcs[i]);
}

/* A result_* call that must fail the call: its code, then call_finish's. */
static void refused(state *s, yaia_call *call, const char *op)
{
    int rc, want = YAIA_ERR_JSON;
    if (is(op, "bad_json")) {
        rc = api->result_json(call, "x", "{nope", YAIA_NTS);
    } else if (is(op, "bad_utf8")) {
        rc = api->result_string(call, "x", "\xff", YAIA_NTS);
    } else if (is(op, "nan")) {
        rc = api->result_double(call, "x", NAN);
    } else if (is(op, "too_deep")) {
        want = YAIA_ERR_LIMIT;
        rc = YAIA_OK;
        for (int i = 0; i < 10000 && rc == YAIA_OK; i++)
            rc = api->result_open(call, "x", YAIA_JSON_OBJECT);
    } else {
        want = YAIA_ERR_LIMIT;
        static char big[4096];
        memset(big, 'a', sizeof big);
        rc = YAIA_OK;
        for (int i = 0; i < 100000 && rc == YAIA_OK; i++) {
            char name[16];
            snprintf(name, sizeof name, "m%d", i);
            rc = api->result_string(call, name, big, sizeof big);
        }
    }
    expect(s, op, rc, want);
    expect(s, "call_finish after a refusal", api->call_finish(call), YAIA_ERR_STALE);
}

static void stale(state *s, yaia_call *call)
{
    const char *text;
    int64_t v;
    expect(s, "call_finish (stale, first)", api->call_finish(call), YAIA_OK);
    expect(s, "call_finish (stale, again)", api->call_finish(call), YAIA_ERR_STALE);
    expect(s, "call_error (stale)", api->call_error(call, "c", "m"), YAIA_ERR_STALE);
    expect(s, "result_int (stale)", api->result_int(call, "x", 1), YAIA_ERR_STALE);
    expect(s, "result_reset (stale)", api->result_reset(call), YAIA_ERR_STALE);
    expect(s, "arg_string (stale)", api->arg_string(call, "k", &text, NULL), YAIA_ERR_STALE);
    expect(s, "arg_int (stale)", api->arg_int(call, "k", &v), YAIA_ERR_STALE);
    expect(s, "arg_type (stale)", api->arg_type(call, NULL), YAIA_JSON_NONE);
    expect(s, "call_op (stale)", api->call_op(call) == NULL, 1);
    expect(s, "queue_submit (stale)", api->queue_submit(s->queue, call, read_op, NULL), YAIA_ERR_STALE);
}

typedef struct {
    state *s;
    pthread_t performer;
} where_job;

static void where(void *ctx, yaia_call *call)
{
    where_job *w = ctx;
    api->result_bool(call, "inline", pthread_equal(pthread_self(), w->performer));
    expect(w->s, "call_finish (where)", api->call_finish(call), YAIA_OK);
    free(w);
}

static void hold(void *ctx, yaia_call *call)
{
    state *s = ctx;
    pthread_mutex_lock(&s->lock);
    s->holding = 1;
    pthread_cond_broadcast(&s->changed);
    while (!s->gate_open)
        pthread_cond_wait(&s->changed, &s->lock);
    s->gate_open = 0;
    s->holding = 0;
    s->hold_done = 1;
    pthread_mutex_unlock(&s->lock);
    api->result_bool(call, "held", 1);
    api->call_finish(call); /* stale when its queue was freed meanwhile: fine */
}

static void seq(void *ctx, yaia_call *call)
{
    state *s = ctx;
    int64_t n = -1;
    api->arg_int(call, "n", &n);
    pthread_mutex_lock(&s->lock);
    int ran = s->ran++, during = s->holding;
    pthread_mutex_unlock(&s->lock);
    api->result_int(call, "n", n);
    api->result_int(call, "ran", ran);
    api->result_bool(call, "during_hold", during);
    api->call_finish(call);
}

static void drop(state *s, yaia_call *call)
{
    pthread_mutex_lock(&s->lock);
    s->hold_done = 0;
    pthread_mutex_unlock(&s->lock);
    yaia_queue *queue = s->queue;
    api->queue_free(queue);
    pthread_mutex_lock(&s->lock);
    int done = s->hold_done;
    pthread_mutex_unlock(&s->lock);
    api->result_bool(call, "done_before_return", done);
    api->result_int(call, "submit_after", api->queue_submit(queue, call, read_op, NULL));
    s->queue = api->queue_new();
    api->call_finish(call);
}

static void submit(state *s, yaia_queue *queue, yaia_call *call, yaia_job job, void *ctx)
{
    expect(s, "queue_submit", api->queue_submit(queue, call, job, ctx), YAIA_OK);
}

static void perform(state *s, yaia_queue *queue, yaia_call *call, const char *op)
{
    if (is(op, "read")) {
        read_op(s, call);
    } else if (is(op, "read_queued")) {
        submit(s, queue, call, read_op, s);
    } else if (is(op, "build")) {
        build(call);
        expect(s, "call_finish (build)", api->call_finish(call), YAIA_OK);
    } else if (is(op, "misuse")) {
        misuse(call);
        expect(s, "call_finish (misuse)", api->call_finish(call), YAIA_OK);
    } else if (is(op, "bad_json") || is(op, "bad_utf8") || is(op, "nan") || is(op, "too_deep") || is(op, "too_big")) {
        refused(s, call, op);
    } else if (is(op, "error")) {
        api->result_int(call, "extra", 5);
        api->result_string(call, "code", "overwritten", YAIA_NTS);
        expect(s, "call_error", api->call_error(call, "nope", "it failed"), YAIA_OK);
    } else if (is(op, "plain_error")) {
        expect(s, "call_error (plain)", api->call_error(call, NULL, "plain"), YAIA_OK);
    } else if (is(op, "pong")) {
        api->result_string(call, NULL, "pong", YAIA_NTS);
        api->call_finish(call);
    } else if (is(op, "array")) {
        api->result_open(call, NULL, YAIA_JSON_ARRAY);
        api->result_int(call, NULL, 1);
        api->result_int(call, NULL, 2);
        api->result_open(call, NULL, YAIA_JSON_OBJECT);
        api->result_bool(call, "a", 1);
        api->call_finish(call);
    } else if (is(op, "stale")) {
        stale(s, call);
    } else if (is(op, "config")) {
        const char *text;
        api->result_string(call, "greeting", s->greeting, YAIA_NTS);
        api->result_int(call, "n", s->n);
        api->result_int(call, "count", (int64_t)s->count);
        api->result_bool(call, "after_setup", api->setup_config(s->host) == NULL
                                                  && api->arg_string(s->config, "greeting", &text, NULL) == YAIA_ERR_STALE);
        api->call_finish(call);
    } else if (is(op, "log")) {
        api->log(s->host, YAIA_LOG_WARNING, "calls: after setup");
        api->call_finish(call);
    } else if (is(op, "where")) {
        where_job *w = malloc(sizeof *w);
        w->s = s;
        w->performer = pthread_self();
        submit(s, queue, call, where, w);
    } else if (is(op, "hold")) {
        submit(s, queue, call, hold, s);
    } else if (is(op, "holding")) {
        pthread_mutex_lock(&s->lock);
        while (!s->holding)
            pthread_cond_wait(&s->changed, &s->lock);
        pthread_mutex_unlock(&s->lock);
        api->result_bool(call, "holding", 1);
        api->call_finish(call);
    } else if (is(op, "open")) {
        pthread_mutex_lock(&s->lock);
        s->gate_open = 1;
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
        api->call_finish(call);
    } else if (is(op, "seq")) {
        submit(s, queue, call, seq, s);
    } else if (is(op, "drop")) {
        drop(s, call);
    } else {
        api->call_error(call, "unknown_op", op);
    }
}

static void calls_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)args_json;
    state *s = ctx;
    perform(s, s->queue, call, op);
}

static void blocking_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)args_json;
    state *s = ctx;
    perform(s, s->blocking_queue, call, op);
}

static void calls_release(void *ctx)
{
    state *s = ctx;
    pthread_mutex_lock(&s->lock);
    int last = --s->services == 0;
    pthread_mutex_unlock(&s->lock);
    if (!last)
        return;
    api->queue_free(s->queue);
    api->queue_free(s->blocking_queue);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static int calls_setup(yaia_host *host, const yaia_host_api *host_api, const char *config_json)
{
    (void)config_json;
    if (!plugin_host_has_calls(host, host_api))
        return 1;
    api = host_api;
    state *s = calloc(1, sizeof *s);
    if (!s)
        return 1;
    s->host = host;
    s->config = api->setup_config(host);
    const char *greeting = "";
    api->arg_string(s->config, "greeting", &greeting, NULL);
    snprintf(s->greeting, sizeof s->greeting, "%s", greeting);
    api->arg_int(s->config, "n", &s->n);
    s->count = api->arg_count(s->config, NULL);
    s->queue = api->queue_new();
    s->blocking_queue = api->queue_new();
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    s->services = 2;
    yaia_service inline_service = {.size = sizeof inline_service, .name = "calls", .ctx = s,
                                   .perform = calls_perform, .release = calls_release};
    yaia_service blocking = {.size = sizeof blocking, .name = "calls_blocking", .ctx = s,
                             .perform = blocking_perform, .release = calls_release, .flags = YAIA_SERVICE_BLOCKING};
    int a = api->add_service(host, &inline_service), b = api->add_service(host, &blocking);
    /* Whatever was registered is released by the host when setup fails. */
    s->services = (a == YAIA_OK) + (b == YAIA_OK);
    if (s->services == 0) {
        s->services = 1;
        calls_release(s);
    }
    return a != YAIA_OK || b != YAIA_OK;
}

PLUGIN_ENTRY(1, "calls", "1.0.0", "Test plugin: the host API of plugin ABI 1.2", calls_setup)
