/*
** echo.c -- service "echo", for tests of the completion rules (C and Python).
**
**   op "echo"   completes inside perform() with result = args
**   op "fail"   fails inside perform() with error = args
**   op "bad"    completes inside perform() with text that is not JSON: the
**               host must answer YAIA_ERR_JSON and fail the call with
**               {"code": "bad_result", ...} (delivered as the catch action)
**   op "twice"  completes with args, then again: the second must answer
**               YAIA_ERR_STALE and change nothing
**   op "later"  completes with result = args from a thread of the plugin's
**               own, which takes the call as soon as perform() hands it over
**   other ops   fail with {"message": "unknown op NAME"}
**
** A completion answering anything but the expected code is logged at error
** level ("echo: ..."), so a host bug shows on stderr even where the test
** cannot see the return value.
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_plugin.h"
#include "../../Examples/plugins/common/plugin_util.h"

typedef struct later {
    struct later *next;
    yaia_call *call;
    char *args;
} later;

/* One per registration. The API table is only promised during setup(), so
** the functions used later are copied. */
typedef struct echo_service {
    yaia_host *host;
    int (*call_complete)(yaia_call *, const char *);
    int (*call_fail)(yaia_call *, const char *);
    void (*log)(yaia_host *, int, const char *);

    pthread_mutex_t lock;
    pthread_cond_t wake;
    later *head, *tail; /* completed in the order performed */
    int stopping;
    pthread_t worker;
} echo_service;

/* Logs, as an error, a host API call that did not return what it should. */
static void expect(echo_service *svc, const char *what, int got, int want)
{
    if (got == want)
        return;
    char msg[160];
    snprintf(msg, sizeof msg, "echo: %s returned %d, expected %d", what, got, want);
    svc->log(svc->host, YAIA_LOG_ERROR, msg);
}

static void fail_unknown_op(echo_service *svc, yaia_call *call, const char *op)
{
    /* Escape the op: it comes from scene data and could hold anything. */
    size_t n = strlen(op);
    char *msg = malloc(6 * n + 64);
    if (!msg) {
        expect(svc, "call_fail", svc->call_fail(call, "{\"message\":\"unknown op\"}"), YAIA_OK);
        return;
    }
    char *p = msg + sprintf(msg, "{\"message\":\"unknown op ");
    p = plugin_json_escape(p, op, n);
    strcpy(p, "\"}");
    expect(svc, "call_fail", svc->call_fail(call, msg), YAIA_OK);
    free(msg);
}

static void *worker_main(void *arg)
{
    echo_service *svc = arg;
    pthread_mutex_lock(&svc->lock);
    while (!svc->stopping) {
        if (!svc->head) {
            pthread_cond_wait(&svc->wake, &svc->lock);
            continue;
        }
        later *job = svc->head;
        svc->head = job->next;
        if (!svc->head)
            svc->tail = NULL;
        /* Complete without the lock: the host may call cancel() meanwhile. */
        pthread_mutex_unlock(&svc->lock);
        int rc = svc->call_complete(job->call, job->args);
        if (rc != YAIA_ERR_STALE) /* stale: cancelled meanwhile, which is fine */
            expect(svc, "call_complete (later)", rc, YAIA_OK);
        free(job->args);
        free(job);
        pthread_mutex_lock(&svc->lock);
    }
    pthread_mutex_unlock(&svc->lock);
    return NULL;
}

static void schedule_later(echo_service *svc, yaia_call *call, const char *args)
{
    later *job = calloc(1, sizeof *job);
    char *copy = strdup(args); /* args is borrowed for perform() only */
    if (!job || !copy) {
        free(job);
        free(copy);
        expect(svc, "call_fail", svc->call_fail(call, "{\"message\":\"echo: out of memory\"}"),
               YAIA_OK);
        return;
    }
    job->call = call;
    job->args = copy;
    pthread_mutex_lock(&svc->lock);
    if (svc->tail)
        svc->tail->next = job;
    else
        svc->head = job;
    svc->tail = job;
    pthread_cond_signal(&svc->wake);
    pthread_mutex_unlock(&svc->lock);
}

static void echo_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    echo_service *svc = ctx;
    const char *args = args_json ? args_json : "null";
    if (!op)
        op = "";

    if (strcmp(op, "echo") == 0) {
        expect(svc, "call_complete (echo)", svc->call_complete(call, args), YAIA_OK);
    } else if (strcmp(op, "fail") == 0) {
        expect(svc, "call_fail (fail)", svc->call_fail(call, args), YAIA_OK);
    } else if (strcmp(op, "bad") == 0) {
        expect(svc, "call_complete (bad)", svc->call_complete(call, "{not json"), YAIA_ERR_JSON);
    } else if (strcmp(op, "twice") == 0) {
        expect(svc, "call_complete (twice, first)", svc->call_complete(call, args), YAIA_OK);
        expect(svc, "call_complete (twice, second)", svc->call_complete(call, args),
               YAIA_ERR_STALE);
    } else if (strcmp(op, "later") == 0) {
        schedule_later(svc, call, args);
    } else {
        fail_unknown_op(svc, call, op);
    }
}

static void echo_cancel(void *ctx, yaia_call *call)
{
    echo_service *svc = ctx;
    pthread_mutex_lock(&svc->lock);
    later *prev = NULL;
    for (later *job = svc->head; job; prev = job, job = job->next) {
        if (job->call != call)
            continue;
        if (prev)
            prev->next = job->next;
        else
            svc->head = job->next;
        if (svc->tail == job)
            svc->tail = prev;
        free(job->args);
        free(job);
        break;
    }
    pthread_mutex_unlock(&svc->lock);
}

/* Joins the worker; calls still queued were cancelled before release(). */
static void echo_release(void *ctx)
{
    echo_service *svc = ctx;
    pthread_mutex_lock(&svc->lock);
    svc->stopping = 1;
    pthread_cond_signal(&svc->wake);
    pthread_mutex_unlock(&svc->lock);
    pthread_join(svc->worker, NULL);
    while (svc->head) {
        later *job = svc->head;
        svc->head = job->next;
        free(job->args);
        free(job);
    }
    pthread_cond_destroy(&svc->wake);
    pthread_mutex_destroy(&svc->lock);
    free(svc);
}

static int echo_setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    (void)config_json;
    echo_service *svc = calloc(1, sizeof *svc);
    if (!svc) {
        api->set_error(host, "echo: out of memory");
        return 1;
    }
    svc->host = host;
    svc->call_complete = api->call_complete;
    svc->call_fail = api->call_fail;
    svc->log = api->log;
    pthread_mutex_init(&svc->lock, NULL);
    pthread_cond_init(&svc->wake, NULL);
    if (pthread_create(&svc->worker, NULL, worker_main, svc) != 0) {
        pthread_cond_destroy(&svc->wake);
        pthread_mutex_destroy(&svc->lock);
        free(svc);
        api->set_error(host, "echo: cannot start its worker thread");
        return 1;
    }
    yaia_service service = {
        .size = sizeof service,
        .name = "echo",
        .ctx = svc,
        .perform = echo_perform,
        .cancel = echo_cancel,
        .release = echo_release,
    };
    int rc = api->add_service(host, &service);
    if (rc != YAIA_OK) {
        echo_release(svc); /* not registered: the host will not release it */
        api->set_error(host, rc == YAIA_ERR_EXISTS ? "echo: a service named \"echo\" exists already"
                                                   : "echo: add_service failed");
        return 1;
    }
    return 0;
}

PLUGIN_ENTRY(1, "echo", "1.0.0", "Test plugin: echoes, fails, misbehaves on request", echo_setup)
