/*
** auth.c -- an example Yaia plugin: the "auth" service behind example/login.
**
**   op "login", args {"email": STRING, "password": STRING}
**     password "hunter2"  -> result {"user": {"email": EMAIL}}
**     anything else       -> error  {"message": "Wrong email or password"}
**   any other op          -> error  {"message": "unknown op NAME"}
**
** Calls complete on a worker thread owned by the service, never inside
** perform(), so hosts exercise the asynchronous path: the update arrives
** through yaia_receive(). The worker is joined in release(), so nothing
** outlives the runtime that registered the service.
**
** Build: cc -std=c11 -Wall -Wextra -O2 -IInclude -fPIC -shared
**           -fvisibility=hidden -o auth.so auth.c -lpthread
** (auth.c includes ../common/plugin_util.h: copy it along.)
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_plugin.h"

/* What every plugin needs (PLUGIN_HAS_FIELD, plugin_offers, writing a JSON
** string, the pieces of reading one): see the header. */
#include "../common/plugin_util.h"

/* ------------------------------------------------------------------ JSON */

/* A decoded JSON string. It may hold NUL bytes (from \u0000), so it carries
** its length and is compared and escaped by length, never with strlen(). */
typedef struct {
    char *bytes;
    size_t length;
} text;

/*
** Reads the string starting at p (on its opening quote). Returns the byte
** after the closing quote, or NULL if the text is not a valid string. When
** out is not NULL the decoded bytes are stored there (malloc'd, NUL-added).
** Decoding never lengthens the text (an escape of n bytes yields at most n
** bytes of UTF-8), so the encoded span bounds the buffer.
*/
static const char *read_string(const char *p, text *out)
{
    if (*p != '"')
        return NULL;
    const char *start = ++p;
    while (*p != '"') {
        if (*p == '\0' || (unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\' && p[1] != '\0')
            p++;
        p++;
    }
    const char *end = p;

    char *buf = out ? malloc((size_t)(end - start) + 1) : NULL;
    if (out && !buf)
        return NULL;
    size_t n = 0;
    for (p = start; p < end; p++) {
        if (*p != '\\') {
            if (buf) buf[n] = *p;
            n++;
            continue;
        }
        char tmp[4];
        size_t len = 1;
        switch (*++p) {
        case '"':  tmp[0] = '"'; break;
        case '\\': tmp[0] = '\\'; break;
        case '/':  tmp[0] = '/'; break;
        case 'b':  tmp[0] = '\b'; break;
        case 'f':  tmp[0] = '\f'; break;
        case 'n':  tmp[0] = '\n'; break;
        case 'r':  tmp[0] = '\r'; break;
        case 't':  tmp[0] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (!plugin_hex4(p + 1, &cp))
                goto bad;
            p += 4;
            /* UTF-16 escapes: characters beyond the BMP come as a high and
            ** a low surrogate; either one alone is not a character. */
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                goto bad;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (end - p <= 6 || p[1] != '\\' || p[2] != 'u' || !plugin_hex4(p + 3, &lo)
                    || lo < 0xDC00 || lo > 0xDFFF)
                    goto bad;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
            len = plugin_put_utf8(tmp, cp);
            break;
        }
        default:
            goto bad;
        }
        if (buf) memcpy(buf + n, tmp, len);
        n += len;
    }
    if (out) {
        buf[n] = '\0';
        out->bytes = buf;
        out->length = n;
    }
    return end + 1;
bad:
    free(buf);
    return NULL;
}

/* Skips any JSON value; NULL if it is malformed. The depth bound keeps a
** hostile document from exhausting the stack. */
static const char *skip_value(const char *p, int depth)
{
    p = plugin_skip_ws(p);
    if (depth > 512)
        return NULL;
    switch (*p) {
    case '"':
        return read_string(p, NULL);
    case '{':
    case '[': {
        char close = *p == '{' ? '}' : ']';
        p = plugin_skip_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                p = read_string(plugin_skip_ws(p), NULL);
                if (!p || *(p = plugin_skip_ws(p)) != ':')
                    return NULL;
                p++;
            }
            p = skip_value(p, depth + 1);
            if (!p)
                return NULL;
            p = plugin_skip_ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    case 't':
        return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
    case 'f':
        return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
    case 'n':
        return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
    default: {
        /* The host sends validated JSON: a lenient scan of the number's
        ** characters is enough to step over it. */
        const char *q = p;
        while (*q && strchr("+-0123456789.eE", *q))
            q++;
        return q > p ? q : NULL;
    }
    }
}

/* Reads {"email": STRING, "password": STRING} (other members ignored, the
** last of duplicate names wins). Returns 1 when both strings were found. */
static int read_login_args(const char *json, text *email, text *password)
{
    const char *p = plugin_skip_ws(json);
    if (*p++ != '{')
        return 0;
    p = plugin_skip_ws(p);
    if (*p == '}')
        return 0;
    for (;;) {
        text key;
        p = read_string(plugin_skip_ws(p), &key);
        if (!p)
            return 0;
        text *slot = NULL;
        if (key.length == 5 && memcmp(key.bytes, "email", 5) == 0)
            slot = email;
        else if (key.length == 8 && memcmp(key.bytes, "password", 8) == 0)
            slot = password;
        free(key.bytes);

        p = plugin_skip_ws(p);
        if (*p++ != ':')
            return 0;
        p = plugin_skip_ws(p);
        if (slot && *p == '"') {
            text value;
            p = read_string(p, &value);
            if (!p)
                return 0;
            free(slot->bytes);
            *slot = value;
        } else {
            if (slot) { /* the field is there but not a string */
                free(slot->bytes);
                slot->bytes = NULL;
            }
            p = skip_value(p, 1);
            if (!p)
                return 0;
        }
        p = plugin_skip_ws(p);
        if (*p == '}')
            break;
        if (*p++ != ',')
            return 0;
    }
    return email->bytes != NULL && password->bytes != NULL;
}

/* Builds PREFIX "s" SUFFIX, s escaped for JSON; NULL when out of memory. */
static char *wrap_json_string(const char *prefix, const char *s, size_t n, const char *suffix)
{
    size_t a = strlen(prefix), b = strlen(suffix);
    char *out = malloc(a + 6 * n + 2 + b + 1);
    if (!out)
        return NULL;
    memcpy(out, prefix, a);
    char *end = plugin_json_string(out + a, s, n);
    memcpy(end, suffix, b + 1);
    return out;
}

/* --------------------------------------------------------------- service */

typedef struct job {
    struct job *next;
    yaia_call *call;
    char *op;
    char *args;
} job;

/* One per registration: a plugin loaded into two runtimes gets two. */
typedef struct auth_service {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    job *head, *tail;
    int stopping;
    pthread_t worker;
    /* Copied from the API table: the table is only promised during setup(). */
    yaia_host *host;
    int (*call_complete)(yaia_call *, const char *);
    int (*call_fail)(yaia_call *, const char *);
    void (*log)(yaia_host *, int, const char *);
} auth_service;

static void free_job(job *j)
{
    free(j->op);
    free(j->args);
    free(j);
}

static void report(auth_service *svc, int rc, const char *what)
{
    /* STALE is normal: the scene was closed or the runtime freed meanwhile. */
    if (rc != YAIA_OK && rc != YAIA_ERR_STALE && svc->log) {
        char msg[128];
        snprintf(msg, sizeof msg, "auth: %s returned %d", what, rc);
        svc->log(svc->host, YAIA_LOG_ERROR, msg);
    }
}

static void run_job(auth_service *svc, job *j)
{
    static const char out_of_memory[] = "{\"message\":\"auth: out of memory\"}";

    if (strcmp(j->op, "login") != 0) {
        /* The op comes from scene data: escape it, it could hold anything. */
        char *err = NULL;
        size_t n = strlen(j->op);
        char *name = malloc(n + 12);
        if (name) {
            memcpy(name, "unknown op ", 11);
            memcpy(name + 11, j->op, n + 1);
            err = wrap_json_string("{\"message\":", name, n + 11, "}");
            free(name);
        }
        report(svc, svc->call_fail(j->call, err ? err : out_of_memory), "call_fail");
        free(err);
        return;
    }

    text email = {NULL, 0}, password = {NULL, 0};
    if (!read_login_args(j->args, &email, &password)) {
        report(svc, svc->call_fail(j->call,
               "{\"message\":\"login needs a string email and password\"}"), "call_fail");
    } else if (password.length == 7 && memcmp(password.bytes, "hunter2", 7) == 0) {
        char *user = wrap_json_string("{\"user\":{\"email\":", email.bytes, email.length, "}}");
        if (user)
            report(svc, svc->call_complete(j->call, user), "call_complete");
        else
            report(svc, svc->call_fail(j->call, out_of_memory), "call_fail");
        free(user);
    } else {
        report(svc, svc->call_fail(j->call, "{\"message\":\"Wrong email or password\"}"),
               "call_fail");
    }
    free(email.bytes);
    free(password.bytes);
}

static void *worker_main(void *arg)
{
    auth_service *svc = arg;
    pthread_mutex_lock(&svc->lock);
    for (;;) {
        while (!svc->head && !svc->stopping)
            pthread_cond_wait(&svc->wake, &svc->lock);
        if (svc->stopping)
            break;
        job *j = svc->head;
        svc->head = j->next;
        if (!svc->head)
            svc->tail = NULL;
        /* Complete without the lock: the host may call cancel() meanwhile. */
        pthread_mutex_unlock(&svc->lock);
        run_job(svc, j);
        free_job(j);
        pthread_mutex_lock(&svc->lock);
    }
    pthread_mutex_unlock(&svc->lock);
    return NULL;
}

static void auth_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    auth_service *svc = ctx;
    /* op and args are borrowed for this call only: the worker needs copies. */
    job *j = calloc(1, sizeof *j);
    if (j) {
        j->call = call;
        j->op = strdup(op ? op : "");
        j->args = strdup(args_json ? args_json : "null");
    }
    if (!j || !j->op || !j->args) {
        if (j)
            free_job(j);
        report(svc, svc->call_fail(call, "{\"message\":\"auth: out of memory\"}"), "call_fail");
        return;
    }
    pthread_mutex_lock(&svc->lock);
    if (svc->tail)
        svc->tail->next = j;
    else
        svc->head = j;
    svc->tail = j;
    pthread_cond_signal(&svc->wake);
    pthread_mutex_unlock(&svc->lock);
}

static void auth_cancel(void *ctx, yaia_call *call)
{
    auth_service *svc = ctx;
    /* A queued call is dropped; one already taken by the worker completes
    ** and gets YAIA_ERR_STALE, which is harmless. */
    pthread_mutex_lock(&svc->lock);
    job *prev = NULL;
    for (job *j = svc->head; j; prev = j, j = j->next) {
        if (j->call != call)
            continue;
        if (prev)
            prev->next = j->next;
        else
            svc->head = j->next;
        if (svc->tail == j)
            svc->tail = prev;
        free_job(j);
        break;
    }
    pthread_mutex_unlock(&svc->lock);
}

/* Stops and joins the worker, then frees everything. Calls still queued were
** cancelled by the host before release(), so they are dropped. */
static void auth_release(void *ctx)
{
    auth_service *svc = ctx;
    pthread_mutex_lock(&svc->lock);
    svc->stopping = 1;
    pthread_cond_signal(&svc->wake);
    pthread_mutex_unlock(&svc->lock);
    pthread_join(svc->worker, NULL);

    while (svc->head) {
        job *j = svc->head;
        svc->head = j->next;
        free_job(j);
    }
    pthread_cond_destroy(&svc->wake);
    pthread_mutex_destroy(&svc->lock);
    free(svc);
}

/* ---------------------------------------------------------------- plugin */

static int auth_setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    (void)config_json; /* no configuration */
    if (!api || !PLUGIN_HAS_FIELD(api, yaia_host_api, set_error))
        return 1; /* a host older than ABI 1: nothing safe to call */

    auth_service *svc = calloc(1, sizeof *svc);
    if (!svc) {
        api->set_error(host, "auth: out of memory");
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
        api->set_error(host, "auth: cannot start its worker thread");
        return 1;
    }

    yaia_service service = {
        .size = sizeof service,
        .name = "auth",
        .ctx = svc,
        .perform = auth_perform,
        .cancel = auth_cancel,
        .release = auth_release,
    };
    int rc = api->add_service(host, &service);
    if (rc != YAIA_OK) {
        /* Not registered, so the host will not call release(): do it here. */
        auth_release(svc);
        api->set_error(host, rc == YAIA_ERR_EXISTS ? "auth: a service named \"auth\" exists already"
                                                   : "auth: add_service failed");
        return 1;
    }
    return 0;
}

static const yaia_plugin descriptor = {
    .size = sizeof(yaia_plugin),
    .abi_version = 1,
    .name = "auth",
    .version = "1.0.0",
    .description = "Example login service: the password is hunter2",
    .setup = auth_setup,
};

YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer)
{
    return plugin_offers(offer, descriptor.abi_version) ? &descriptor : NULL;
}
