/*
** bench_effects.c -- what an effect costs, from C.
**
** (a) Effect round trips on example/jobs: yaia_send({"type":"run", ...})
**     -> the service performs -> it completes -> the outcome is reduced ->
**     yaia_receive() takes the event. Each sample is one round trip, timed
**     alone; the table shows the median and the 90th percentile in ns.
**       send (no effect)      yaia_send of a plain reduction on the same scene:
**                             the floor a round trip is compared with
**       echo plugin, inline   echo.so's op "echo": non-blocking, completes
**                             inside perform() on the sending thread
**       host, other thread    a host service handing the call to a thread
**                             of its own, which completes it (two wake-ups)
**       host, blocking pool   a YAIA_SERVICE_BLOCKING host service that
**                             completes inside perform(), on a pool thread
**       perform echo          {"op":"perform"} of echo: no scene, no event
**       C only hand-off       no Yaia: a request handed to another thread
**                             and the answer handed back (mutex and condition
**                             variables): the floor of the two threaded rows
**     The jobs scene logs every outcome, so its view model grows: before
**     every sample of every row the scene is closed and a fresh one opened
**     (outside the timing), so that each row reduces on the same state and
**     the rows compare the work of an effect, not the size of a log. The
**     rows take their samples in turns of TURN.
**
** (b) The store plugin's put + get through {"op":"perform"} (JSON request,
**     the store's queued job run on the waiting thread, SQLite, JSON result) against the same two statements run
**     directly through SQLite from C: same schema, prepared once, the same
**     pragmas as store.c (WAL, synchronous=NORMAL for a file), keys cycling
**     over KEYS. One sample = one put and one get of the same key.
**
** All figures come from one run on one machine; ratios compare like with
** like from that run.
**
**   usage: bench_effects PATH_TO_libyaia-examples.so
**
** (the examples pack has example/jobs; YAIA_PLUGIN_DIR and
** YAIA_TEST_PLUGIN_DIR say where store.so and echo.so are).
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "yaia.h"
#include "bench.h"

#define SAMPLES 20000
#define WARMUP 1000
#define KEYS 1000
#define TURN 1000        /* round trips a row takes in each turn */
#define TURN_WARMUP 100  /* and untimed, before them */
#define EFFECT_TARGET 3.0 /* echo round trip / plain send, at most */
#define STORE_TARGET 2.0  /* store put + get on a file / SQLite direct, at most */

typedef struct {
    double median, p90;
} figures;

static figures summarize(double *ns, int n)
{
    qsort(ns, (size_t)n, sizeof ns[0], by_value);
    return (figures){ns[n / 2], ns[(n * 9) / 10]};
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "bench_effects: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s)
        die("out of memory", NULL);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

/* Quoted for JSON (paths). */
static char *quote(const char *s)
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

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* ============================================================ host services */

/* Completes on a thread of its own: one call at a time (the bench waits for
** each round trip), handed over through a one-slot mailbox. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    yaia_call *call;
    int stopping;
    pthread_t thread;
} relay = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0};

static void *relay_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&relay.lock);
    for (;;) {
        while (!relay.call && !relay.stopping)
            pthread_cond_wait(&relay.wake, &relay.lock);
        if (relay.stopping)
            break;
        yaia_call *call = relay.call;
        relay.call = NULL;
        pthread_mutex_unlock(&relay.lock);
        yaia_call_complete(call, "1");
        pthread_mutex_lock(&relay.lock);
    }
    pthread_mutex_unlock(&relay.lock);
    return NULL;
}

static void relay_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)ctx;
    (void)op;
    (void)args_json;
    pthread_mutex_lock(&relay.lock);
    relay.call = call;
    pthread_cond_signal(&relay.wake);
    pthread_mutex_unlock(&relay.lock);
}

static void now_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)ctx;
    (void)op;
    yaia_call_complete(call, args_json);
}

/* ============================================================ (a) round trips */

static yaia_runtime *rt;
static int64_t scene;

static int64_t open_jobs(void)
{
    char *r = yaia_open(rt, "example/jobs", NULL);
    const char *id = strstr(r, "\"scene\":");
    if (!strstr(r, "\"ok\":true") || !id)
        die("cannot open example/jobs", r);
    int64_t s = strtoll(id + 8, NULL, 10);
    yaia_free(r);
    return s;
}

static void fresh_scene(void)
{
    char req[64];
    snprintf(req, sizeof req, "{\"op\":\"close\",\"scene\":%lld}", (long long)scene);
    yaia_free(yaia_execute(rt, req));
    scene = open_jobs();
}

/* One round trip: send the action; when it emits an effect, wait for its
** event. The answers are checked after the clock stops. */
static double round_trip(const char *action, int wait_event)
{
    double t0 = now_ns();
    char *r = yaia_send(rt, scene, action);
    char *ev = wait_event ? yaia_receive(rt, 5.0) : NULL;
    double t = now_ns() - t0;
    if (!strstr(r, "\"ok\":true"))
        die("the action failed", r);
    if (wait_event && !ev)
        die("no event within 5 s for", action);
    yaia_free(r);
    yaia_free(ev);
    return t;
}

/* The round-trip rows, measured in turn, a batch of each at a time (each
** batch after a short warm-up of its own), so that a machine that speeds up
** or slows down during the run moves every row alike and the ratios hold. */
typedef struct {
    const char *action;
    int wait_event;
} trip;

static void measure_round_trips(const trip *trips, figures *out, int rows)
{
    static double ns[4][SAMPLES];
    /* check once, with the whole answer, that each round trip does what it should */
    for (int r = 0; r < rows; r++) {
        char *a = yaia_send(rt, scene, trips[r].action);
        if (!strstr(a, "\"ok\":true") || (trips[r].wait_event && !strstr(a, "\"status\":\"running\"")))
            die("unexpected answer", a);
        yaia_free(a);
        if (trips[r].wait_event) {
            char *ev = yaia_receive(rt, 5.0);
            if (!ev || !strstr(ev, "{\"ok\":true,\"result\":"))
                die("unexpected outcome", ev ? ev : "(none)");
            yaia_free(ev);
        }
    }
    for (int b = 0; b < SAMPLES / TURN; b++) {
        for (int r = 0; r < rows; r++) {
            for (int i = -TURN_WARMUP; i < TURN; i++) {
                fresh_scene();
                double t = round_trip(trips[r].action, trips[r].wait_event);
                if (i >= 0)
                    ns[r][b * TURN + i] = t;
            }
        }
    }
    for (int r = 0; r < rows; r++)
        out[r] = summarize(ns[r], SAMPLES);
}

static figures measure_perform(const char *request)
{
    static double ns[SAMPLES];
    char *r = yaia_execute(rt, request);
    if (!strstr(r, "\"ok\":true"))
        die("perform failed", r);
    yaia_free(r);
    for (int i = 0; i < WARMUP + SAMPLES; i++) {
        double t0 = now_ns();
        r = yaia_execute(rt, request);
        double t = now_ns() - t0;
        yaia_free(r);
        if (i >= WARMUP)
            ns[i - WARMUP] = t;
    }
    return summarize(ns, SAMPLES);
}

/* The floor of any completion on another thread: a request handed to a
** thread and its answer handed back, with a mutex and condition variables,
** no Yaia. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t to_pong, to_ping;
    int request, answer, stopping;
} pp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

static void *pong_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pp.lock);
    for (;;) {
        while (!pp.request && !pp.stopping)
            pthread_cond_wait(&pp.to_pong, &pp.lock);
        if (pp.stopping)
            break;
        pp.request = 0;
        pp.answer = 1;
        pthread_cond_signal(&pp.to_ping);
    }
    pthread_mutex_unlock(&pp.lock);
    return NULL;
}

static figures measure_ping_pong(void)
{
    static double ns[SAMPLES];
    pthread_t pong;
    if (pthread_create(&pong, NULL, pong_main, NULL) != 0)
        die("cannot start the pong thread", NULL);
    for (int i = 0; i < WARMUP + SAMPLES; i++) {
        double t0 = now_ns();
        pthread_mutex_lock(&pp.lock);
        pp.request = 1;
        pthread_cond_signal(&pp.to_pong);
        while (!pp.answer)
            pthread_cond_wait(&pp.to_ping, &pp.lock);
        pp.answer = 0;
        pthread_mutex_unlock(&pp.lock);
        double t = now_ns() - t0;
        if (i >= WARMUP)
            ns[i - WARMUP] = t;
    }
    pthread_mutex_lock(&pp.lock);
    pp.stopping = 1;
    pthread_cond_signal(&pp.to_pong);
    pthread_mutex_unlock(&pp.lock);
    pthread_join(pong, NULL);
    return summarize(ns, SAMPLES);
}

/* ============================================================ (b) the store */

/* As in Examples/plugins/store/store.c. */
static const char schema[] =
    "CREATE TABLE IF NOT EXISTS store (key BLOB PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID";
static const char put_sql[] = "INSERT OR REPLACE INTO store (key, value) VALUES (?1, ?2)";
static const char get_sql[] = "SELECT value FROM store WHERE key = ?1";

static figures store_through_yaia(const char *plugin_json, const char *db_path)
{
    static double ns[SAMPLES];
    char *db = quote(db_path);
    char *config = fmt("{\"allow\":{\"ops\":[\"perform\"]},\"plugins\":[{\"path\":%s,\"config\":{\"path\":%s}}]}", plugin_json, db);
    free(db);
    char *err = NULL;
    yaia_runtime *srt = yaia_runtime_new(config, &err);
    if (!srt)
        die("cannot load store.so", err);
    free(config);
    char put[160], get[160];
    for (int i = 0; i < WARMUP + SAMPLES; i++) {
        int k = i % KEYS;
        snprintf(put, sizeof put,
                 "{\"op\":\"perform\",\"effect\":{\"service\":\"store\",\"op\":\"put\","
                 "\"args\":{\"key\":\"k%04d\",\"value\":{\"n\":%d,\"s\":\"hello world\"}}}}",
                 k, i);
        snprintf(get, sizeof get,
                 "{\"op\":\"perform\",\"effect\":{\"service\":\"store\",\"op\":\"get\",\"args\":{\"key\":\"k%04d\"}}}", k);
        double t0 = now_ns();
        char *a = yaia_execute(srt, put);
        char *b = yaia_execute(srt, get);
        double t = now_ns() - t0;
        if (i == 0 && (!strstr(a, "\"ok\":true") || !strstr(b, "\"hello world\"")))
            die("store put/get failed", strstr(a, "\"ok\":true") ? b : a);
        yaia_free(a);
        yaia_free(b);
        if (i >= WARMUP)
            ns[i - WARMUP] = t;
    }
    yaia_runtime_free(srt);
    return summarize(ns, SAMPLES);
}

static figures store_direct(const char *db_path)
{
    static double ns[SAMPLES];
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        die("sqlite3_open_v2", sqlite3_errmsg(db));
    sqlite3_busy_timeout(db, 5000);
    if (strcmp(db_path, ":memory:") != 0) {
        sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
        sqlite3_exec(db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
    }
    sqlite3_stmt *put = NULL, *get = NULL;
    if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db, put_sql, -1, SQLITE_PREPARE_PERSISTENT, &put, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db, get_sql, -1, SQLITE_PREPARE_PERSISTENT, &get, NULL) != SQLITE_OK)
        die("sqlite set-up", sqlite3_errmsg(db));
    char key[16], value[64];
    volatile size_t sink = 0;
    for (int i = 0; i < WARMUP + SAMPLES; i++) {
        int k = i % KEYS;
        int kn = snprintf(key, sizeof key, "k%04d", k);
        int vn = snprintf(value, sizeof value, "{\"n\":%d,\"s\":\"hello world\"}", i);
        double t0 = now_ns();
        sqlite3_bind_blob(put, 1, key, kn, SQLITE_STATIC);
        sqlite3_bind_text(put, 2, value, vn, SQLITE_STATIC);
        int rc1 = sqlite3_step(put);
        sqlite3_reset(put);
        sqlite3_bind_blob(get, 1, key, kn, SQLITE_STATIC);
        int rc2 = sqlite3_step(get);
        if (rc2 == SQLITE_ROW)
            sink += (size_t)sqlite3_column_bytes(get, 0) + (sqlite3_column_text(get, 0) != NULL);
        sqlite3_reset(get);
        double t = now_ns() - t0;
        if (rc1 != SQLITE_DONE || rc2 != SQLITE_ROW)
            die("direct put/get failed", sqlite3_errmsg(db));
        if (i >= WARMUP)
            ns[i - WARMUP] = t;
    }
    (void)sink;
    sqlite3_finalize(put);
    sqlite3_finalize(get);
    sqlite3_close(db);
    return summarize(ns, SAMPLES);
}

static void remove_db(const char *path)
{
    static const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        char *f = fmt("%s%s", path, suffix[i]);
        unlink(f);
        free(f);
    }
}

/* ============================================================ main */

static void row(const char *name, figures f, double base)
{
    printf("  %-44s %11.0f %11.0f %9.1f\n", name, f.median, f.p90, f.median / base);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH_TO_libyaia-examples.so\n", argv[0]);
        return 2;
    }
    const char *plugin_dir = env_or("YAIA_PLUGIN_DIR", ".build/yaia/plugins");
    const char *test_plugin_dir = env_or("YAIA_TEST_PLUGIN_DIR", ".build/yaia/test-plugins");
    char *echo_path = fmt("%s/echo.so", test_plugin_dir);
    char *store_path = fmt("%s/store.so", plugin_dir);
    char *echo_json = quote(echo_path), *store_json = quote(store_path);
    free(echo_path);
    free(store_path);

    char *pack_json = quote(argv[1]);
    char *config = fmt("{\"scenes\":[%s],\"plugins\":[%s],\"allow\":{\"ops\":[\"perform\"]}}", pack_json, echo_json);
    free(pack_json);
    char *err = NULL;
    rt = yaia_runtime_new(config, &err);
    if (!rt)
        die("cannot load the examples pack or echo.so", err);
    free(config);
    yaia_service relay_svc = {.size = sizeof relay_svc, .name = "relay", .perform = relay_perform};
    yaia_service pool_svc = {
        .size = sizeof pool_svc, .name = "pooled", .perform = now_perform, .flags = YAIA_SERVICE_BLOCKING};
    char *r1 = yaia_add_service(rt, &relay_svc), *r2 = yaia_add_service(rt, &pool_svc);
    if (!strstr(r1, "\"ok\":true") || !strstr(r2, "\"ok\":true"))
        die("yaia_add_service", r1);
    yaia_free(r1);
    yaia_free(r2);
    if (pthread_create(&relay.thread, NULL, relay_main, NULL) != 0)
        die("cannot start the relay thread", NULL);
    scene = open_jobs();

    const trip trips[] = {
        {"{\"type\":\"cancel\",\"payload\":\"none\"}", 0},
        {"{\"type\":\"run\",\"payload\":{\"service\":\"echo\",\"op\":\"echo\",\"args\":1}}", 1},
        {"{\"type\":\"run\",\"payload\":{\"service\":\"relay\",\"op\":\"r\",\"args\":1}}", 1},
        {"{\"type\":\"run\",\"payload\":{\"service\":\"pooled\",\"op\":\"p\",\"args\":1}}", 1},
    };
    figures rows[4];
    measure_round_trips(trips, rows, 4);
    figures plain = rows[0], echo = rows[1], other = rows[2], pooled = rows[3];
    figures ping = measure_ping_pong();
    figures direct = measure_perform("{\"op\":\"perform\",\"effect\":{\"service\":\"echo\",\"op\":\"echo\",\"args\":1}}");
    yaia_runtime_free(rt);
    pthread_mutex_lock(&relay.lock);
    relay.stopping = 1;
    pthread_cond_signal(&relay.wake);
    pthread_mutex_unlock(&relay.lock);
    pthread_join(relay.thread, NULL);

    char dir[] = "/tmp/yaia-bench-XXXXXX";
    if (!mkdtemp(dir))
        die("mkdtemp", NULL);
    char *yaia_file = fmt("%s/yaia.db", dir), *direct_file = fmt("%s/direct.db", dir);
    figures ym = store_through_yaia(store_json, ":memory:");
    figures dm = store_direct(":memory:");
    figures yf = store_through_yaia(store_json, yaia_file);
    figures df = store_direct(direct_file);
    remove_db(yaia_file);
    remove_db(direct_file);
    rmdir(dir);
    free(yaia_file);
    free(direct_file);
    free(echo_json);
    free(store_json);

    printf("yaia %s, SQLite %s: %d samples each (after %d warm-up), ns\n\n", yaia_version(), sqlite3_libversion(),
           SAMPLES, WARMUP);
    printf("(a) effect round trip on example/jobs: send run -> perform -> complete -> receive\n\n");
    printf("  %-44s %11s %11s %9s\n", "", "median", "p90", "x send");
    row("send, no effect (baseline)", plain, plain.median);
    row("echo plugin, completes inline", echo, plain.median);
    row("host service, completes on its own thread", other, plain.median);
    row("host service, blocking (worker pool)", pooled, plain.median);
    row("{\"op\":\"perform\"} of echo (no scene)", direct, plain.median);
    row("C only: hand-off to a thread and back", ping, plain.median);
    printf("\n  a completion on another thread costs two thread wake-ups, as the C-only\n"
           "  hand-off does: Yaia adds %.1f us (own thread) and %.1f us (pool) to it\n",
           (other.median - ping.median) / 1000, (pooled.median - ping.median) / 1000);
    printf("  target: an effect a plugin completes inline at most %.0fx a send: %s (%.2fx)\n", EFFECT_TARGET,
           echo.median <= EFFECT_TARGET * plain.median ? "met" : "NOT met", echo.median / plain.median);
    printf("\n(b) store: put + get of one key (%d keys), through {\"op\":\"perform\"} vs SQLite from C\n\n", KEYS);
    printf("  %-44s %11s %11s %9s\n", "", "median", "p90", "x direct");
    row("SQLite direct, :memory:", dm, dm.median);
    row("store.so via perform, :memory:", ym, dm.median);
    row("SQLite direct, file (WAL, synchronous=NORMAL)", df, df.median);
    row("store.so via perform, file", yf, df.median);
    printf("\n  overhead of Yaia per put+get: %.1f us (:memory:), %.1f us (file); a direct call runs the\n"
           "  store's job on the thread that waits for it, with no hand-off (a pair would cost %.1f us here)\n",
           (ym.median - dm.median) / 1000, (yf.median - df.median) / 1000, 2 * ping.median / 1000);
    printf("  target: put + get through perform, on a file, at most %.0fx SQLite direct: %s (%.2fx)\n", STORE_TARGET,
           yf.median <= STORE_TARGET * df.median ? "met" : "NOT met", yf.median / df.median);
    return 0;
}
