/*
** test_services.c -- the effect lifecycle and services of libyaia.so, tested
** through its C ABI only: policies, cancellation, time-outs, the worker pool,
** the notifier, direct perform, borrowed answers under re-entry, misbehaving
** services, the store plugin and example/search.
**
** Prints one line per failed check and ends with "N passed, N failed".
** Exit status 1 when anything failed.
**
** Environment (the Makefile exports the first three):
**   YAIA_PLUGIN_DIR       auth.so, store.so   (.build/yaia/plugins)
**   YAIA_TEST_PLUGIN_DIR  echo.so, faults.so  (.build/yaia/test-plugins)
**   YAIA_EXAMPLES_PACK    the example scenes  (.build/release/libyaia-examples.so)
**   YAIA_TEST_TIMEOUT     seconds a section may take before it counts as hung (120)
**
** No check waits for time to pass: time-outs run on a manual clock the test
** advances ({"op":"advance"}), blocking calls wait at a gate the test opens
** (the faults plugin's stats ops "release" and "wait"), and "nothing
** arrives" is checked once whatever could have queued it has returned.
**
** Responses are canonical (sorted keys, no spaces), so substring checks on
** them are exact. Effects are driven through example/jobs: {"type":"run",
** "payload":EFFECT} emits EFFECT (then "done", catch "failed"), and its view
** model {"log":[...]} lists the outcomes in arrival order.
*/
#define _GNU_SOURCE

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#include "harness.h"

/* ================================================================ harness (more in harness.h) */

/* The library's log (stderr) goes to a file while the tests run, so that
** checks can read what it logged; the real stderr is kept in real_stderr
** (harness.h), where crash reports go. */
static int log_fd = -1;

/* Seconds to wait for an event that must come: a safety net, generous
** enough for valgrind; an event that does not come fails its check. */
#define WAIT 60.0

/* ---------------------------------------------------------- JSON peeking */

/* The id of the first effect a scene update lists: effects are objects with
** sorted keys, so "args" (always present) comes first and "id" right after. */
static long long effect_id(const char *update)
{
    const char *p = update ? strstr(update, "\"effects\":[{\"args\":") : NULL;
    if (!p)
        return -1;
    p = value_end(p + strlen("\"effects\":[{\"args\":"));
    if (strncmp(p, ",\"id\":", 6) != 0)
        return -1;
    return strtoll(p + 6, NULL, 10);
}

/* A member of one group of the faults plugin's stats ({"GROUP":{...KEY:N}}). */
static long stat_of(const char *json, const char *group, const char *key)
{
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\":{", group);
    const char *g = json ? strstr(json, needle) : NULL;
    if (!g)
        return -999;
    g += strlen(needle) - 1;
    const char *end = value_end(g);
    snprintf(needle, sizeof needle, "\"%s\":", key);
    const char *p = strstr(g, needle);
    if (!p || p > end)
        return -999;
    return strtol(p + strlen(needle), NULL, 10);
}

/* The thread ids of stats.slow.threads; returns how many (at most max). */
static int stat_threads(const char *json, long *out, int max)
{
    const char *p = json ? strstr(json, "\"threads\":[") : NULL;
    if (!p)
        return -1;
    p += strlen("\"threads\":[");
    int n = 0;
    while (*p && *p != ']') {
        char *e;
        long v = strtol(p, &e, 10);
        if (e == p)
            break;
        if (n < max)
            out[n] = v;
        n++;
        p = *e == ',' ? e + 1 : e;
    }
    return n;
}

static long my_tid(void) { return (long)gettid(); }

/* ------------------------------------------------------------ the log */

/* Sends stderr to an unlinked file opened O_APPEND (so reading it with
** pread never moves where the library writes) and logs at info level. */
static void capture_log(void)
{
    char path[] = "/tmp/yaia-test-log-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return;
    unlink(path);
    fcntl(fd, F_SETFL, O_APPEND);
    fflush(stderr);
    real_stderr = dup(2);
    if (real_stderr < 0 || dup2(fd, 2) < 0) {
        close(fd);
        real_stderr = 2;
        return;
    }
    log_fd = fd;
    setenv("YAIA_LOG", "info", 1);
}

static off_t log_mark(void)
{
    struct stat st;
    return log_fd >= 0 && fstat(log_fd, &st) == 0 ? st.st_size : 0;
}

/* What was logged since mark (malloc'd). */
static char *log_since(off_t mark)
{
    off_t end = log_mark();
    size_t n = end > mark ? (size_t)(end - mark) : 0;
    char *text = malloc(n + 1);
    if (!text)
        exit(2);
    ssize_t got = n ? pread(log_fd, text, n, mark) : 0;
    text[got > 0 ? got : 0] = '\0';
    return text;
}

/* At the end: the captured log back on stderr, without the info lines. */
static void replay_log(void)
{
    if (log_fd < 0)
        return;
    char *text = log_since(0);
    dup2(real_stderr, 2);
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (strncmp(line, "yaia info ", 10) != 0)
            fwrite(line, 1, len, stderr);
        line += len;
    }
    free(text);
}

/* ------------------------------------------------------------ paths */

static const char *plugin_dir, *test_plugin_dir;

/* A runtime with the example scenes, the given plugins (test plugins by name,
** "store" from the example plugins) and extra config members (e.g.
** "\"workers\":2"). */
static yaia_runtime *runtime_with(const char *extra, const char *name, ...)
{
    char *list = fmt("");
    va_list ap;
    va_start(ap, name);
    for (const char *n = name; n; n = va_arg(ap, const char *)) {
        char *q = plugin_path(strcmp(n, "store") == 0 ? plugin_dir : test_plugin_dir, n);
        char *longer = fmt("%s%s%s", list, *list ? "," : "", q);
        free(q);
        free(list);
        list = longer;
    }
    va_end(ap);
    char *config = fmt("{" ALLOW_ALL ",\"plugins\":[%s]%s%s}", list, extra ? "," : "", extra ? extra : "");
    free(list);
    char *err = NULL;
    yaia_runtime *rt = examples_runtime(config, &err);
    check(rt != NULL, "runtime %s: %s", config, err ? err : "(no error)");
    yaia_free(err);
    free(config);
    return rt;
}

/* ------------------------------------------------------------ scene helpers */

/* Sends {"type":"run","payload":EFFECT} to a jobs scene; returns the update. */
static char *run_effect(yaia_runtime *rt, int64_t scene, const char *effect)
{
    char *action = fmt("{\"type\":\"run\",\"payload\":%s}", effect);
    char *r = send_action(rt, scene, action);
    free(action);
    return r;
}

/* Checks that the needles occur in text in this order. */
static int check_in_order(const char *text, const char *name, ...)
{
    va_list ap;
    va_start(ap, name);
    const char *p = text, *missing = NULL;
    for (const char *n; (n = va_arg(ap, const char *)) != NULL;) {
        if (missing)
            continue;
        const char *at = p ? strstr(p, n) : NULL;
        if (!at)
            missing = n;
        else
            p = at + strlen(n);
    }
    va_end(ap);
    return check(!missing, "%s -- expected %s (in order) -- got %s", name, missing ? missing : "", text ? text : "(NULL)");
}

/* Runs an effect, checks the update lists it with status; returns its id. */
static long long run_expect(yaia_runtime *rt, int64_t scene, const char *effect, const char *status,
                            const char *name)
{
    char *r = run_effect(rt, scene, effect);
    char *st = fmt("\"status\":\"%s\"", status);
    check_has(r, name, "\"ok\":true", st, (const char *)NULL);
    free(st);
    long long id = effect_id(r);
    check(id > 0, "%s: the update lists the effect's id -- got %s", name, r ? r : "(NULL)");
    yaia_free(r);
    return id;
}

static char *cancel_key(yaia_runtime *rt, int64_t scene, const char *key)
{
    char *action = fmt("{\"type\":\"cancel\",\"payload\":\"%s\"}", key);
    char *r = send_action(rt, scene, action);
    free(action);
    return r;
}

/* The next event, which must come (up to WAIT seconds). */
static char *next_event(yaia_runtime *rt, const char *why)
{
    set_current("yaia_receive: waiting for %s", why);
    return yaia_receive(rt, WAIT);
}

/* Checks that no event is queued. Called once whatever could queue one
** has returned: an outcome is queued before the completion that delivers
** it returns, and a fired deadline's before advance answers. */
static void expect_no_event(yaia_runtime *rt, const char *name)
{
    set_current("yaia_receive: %s", name);
    char *r = yaia_receive(rt, 0);
    check(r == NULL, "%s: no event expected, got %s", name, r ? r : "");
    yaia_free(r);
}

/* An event that must arrive: checks it is the update of effect `effect`
** and holds every needle; returns it (free with yaia_free). */
static char *expect_event(yaia_runtime *rt, long long effect, const char *name, ...)
{
    char *r = next_event(rt, name);
    char *e = fmt("\"effect\":%lld,", effect);
    int ok = check_has(r, name, "\"event\":\"update\"", e, (const char *)NULL);
    free(e);
    if (ok) {
        va_list ap;
        va_start(ap, name);
        const char *missing = NULL;
        for (const char *n; (n = va_arg(ap, const char *)) != NULL;)
            if (!missing && !strstr(r, n))
                missing = n;
        va_end(ap);
        check(!missing, "%s -- expected %s -- got %s", name, missing ? missing : "", r);
    }
    return r;
}

static char *scene_state(yaia_runtime *rt, int64_t scene)
{
    char *req = fmt("{\"op\":\"state\",\"scene\":%lld}", (long long)scene);
    char *r = yaia_execute(rt, req);
    free(req);
    return r;
}

/* The jobs scene's log, as raw JSON. */
static char *jobs_log(yaia_runtime *rt, int64_t scene)
{
    char *r = scene_state(rt, scene);
    char *vm = raw_of(r, "viewModel");
    yaia_free(r);
    char *log = vm ? raw_of(vm, "log") : NULL;
    free(vm);
    return log ? log : fmt("(no log)");
}

static void expect_log(yaia_runtime *rt, int64_t scene, const char *expected, const char *name)
{
    char *log = jobs_log(rt, scene);
    check(strcmp(log, expected) == 0, "%s: log should be %s -- got %s", name, expected, log);
    free(log);
}

static char *close_scene(yaia_runtime *rt, int64_t scene)
{
    char *req = fmt("{\"op\":\"close\",\"scene\":%lld}", (long long)scene);
    char *r = yaia_execute(rt, req);
    free(req);
    return r;
}

/* {"op":"perform"} of one effect; args and extra (",\"timeout\":1") are raw JSON. */
static char *perform(yaia_runtime *rt, const char *service, const char *op, const char *args, const char *extra)
{
    char *req = args ? fmt("{\"effect\":{\"args\":%s,\"op\":\"%s\",\"service\":\"%s\"%s},\"op\":\"perform\"}", args,
                           op, service, extra ? extra : "")
                     : fmt("{\"effect\":{\"op\":\"%s\",\"service\":\"%s\"%s},\"op\":\"perform\"}", op, service,
                           extra ? extra : "");
    set_current("perform %s", req);
    char *r = yaia_execute(rt, req);
    free(req);
    return r;
}

static char *stats(yaia_runtime *rt) { return perform(rt, "stats", "get", NULL, NULL); }

static void reset_stats(yaia_runtime *rt)
{
    char *r = perform(rt, "stats", "reset", NULL, NULL);
    check_has(r, "faults stats reset", "\"reset\":true", (const char *)NULL);
    yaia_free(r);
}

/* Blocks until the faults counters named in `until` ({"slow.inFlight":2})
** hold those values; returns the stats then. */
static char *await_stats(yaia_runtime *rt, const char *until)
{
    char *r = perform(rt, "stats", "wait", until, NULL);
    check_has(r, "faults stats wait", "\"ok\":true", (const char *)NULL);
    return r;
}

/* Lets n more slow calls through the faults plugin's gate. */
static void release_slow(yaia_runtime *rt, int n)
{
    char *args = fmt("{\"n\":%d}", n);
    char *r = perform(rt, "stats", "release", args, NULL);
    char *want = fmt("{\"released\":%d}", n);
    check_has(r, "faults stats release", want, (const char *)NULL);
    free(want);
    free(args);
    yaia_free(r);
}

/* Moves a manual clock; checks how many deadlines it passed (fired), unless
** that is -1: the deadline of an effect that ended may still count. */
static void advance(yaia_runtime *rt, double seconds, int fired, const char *name)
{
    char *req = fmt("{\"op\":\"advance\",\"seconds\":%g}", seconds);
    char *want = fired < 0 ? fmt("\"fired\":") : fmt("\"fired\":%d,", fired);
    set_current("%s: %s", name, req);
    char *r = yaia_execute(rt, req);
    check_has(r, name, "\"ok\":true", want, (const char *)NULL);
    yaia_free(r);
    free(want);
    free(req);
}

/* ===================================================== host services */

#define MAX_HELD 512

typedef struct {
    yaia_call *call;
    char op[64];
    char args[512];
    long tid;
    int cancelled;
} held_call;

typedef enum { HOLD, ECHO_NOW } host_mode;

/* A host service the test drives: it records every perform (call, op, args,
** thread) and every cancel; HOLD leaves completion to the test, ECHO_NOW
** completes with result = args inside perform(). */
typedef struct {
    host_mode mode;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    held_call calls[MAX_HELD];
    int performs, cancels, foreign_cancels, releases;
    int inline_rc;
} host_svc;

static void host_svc_init(host_svc *s, host_mode mode)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->inline_rc = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
}

static void host_svc_destroy(host_svc *s)
{
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
}

static void host_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    host_svc *s = ctx;
    pthread_mutex_lock(&s->lock);
    if (s->performs < MAX_HELD) {
        held_call *c = &s->calls[s->performs];
        c->call = call;
        snprintf(c->op, sizeof c->op, "%s", op ? op : "(NULL)");
        snprintf(c->args, sizeof c->args, "%s", args_json ? args_json : "(NULL)");
        c->tid = my_tid();
        c->cancelled = 0;
    }
    s->performs++;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    if (s->mode == ECHO_NOW) {
        int rc = yaia_call_complete(call, args_json ? args_json : "null");
        pthread_mutex_lock(&s->lock);
        s->inline_rc = rc;
        pthread_mutex_unlock(&s->lock);
    }
}

static void host_cancel(void *ctx, yaia_call *call)
{
    host_svc *s = ctx;
    pthread_mutex_lock(&s->lock);
    int found = 0;
    for (int i = 0; i < s->performs && i < MAX_HELD; i++)
        if (s->calls[i].call == call) {
            s->calls[i].cancelled++;
            found = 1;
        }
    s->cancels++;
    if (!found)
        s->foreign_cancels++;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void host_release(void *ctx)
{
    host_svc *s = ctx;
    pthread_mutex_lock(&s->lock);
    s->releases++;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static yaia_service service_of(const char *name, host_svc *s, uint32_t flags)
{
    yaia_service svc = {
        .size = sizeof svc,
        .name = name,
        .ctx = s,
        .perform = host_perform,
        .cancel = host_cancel,
        .release = host_release,
        .flags = flags,
    };
    return svc;
}

static void add_host_service(yaia_runtime *rt, const char *name, host_svc *s, uint32_t flags)
{
    yaia_service svc = service_of(name, s, flags);
    char *r = yaia_add_service(rt, &svc);
    char *title = fmt("yaia_add_service(%s)", name);
    check_has(r, title, "\"ok\":true", (const char *)NULL);
    free(title);
    yaia_free(r);
}

static int get_int(host_svc *s, const int *field)
{
    pthread_mutex_lock(&s->lock);
    int v = *field;
    pthread_mutex_unlock(&s->lock);
    return v;
}

/* Waits until *field >= want; returns its value. One that never gets
** there is a hang, which the section's alarm reports. */
static int wait_for(host_svc *s, const int *field, int want)
{
    set_current("waiting for a host service's count to reach %d", want);
    pthread_mutex_lock(&s->lock);
    while (*field < want)
        pthread_cond_wait(&s->changed, &s->lock);
    int v = *field;
    pthread_mutex_unlock(&s->lock);
    return v;
}

static held_call call_at(host_svc *s, int i)
{
    pthread_mutex_lock(&s->lock);
    held_call c = s->calls[i];
    pthread_mutex_unlock(&s->lock);
    return c;
}

static int complete_at(host_svc *s, int i, const char *result)
{
    held_call c = call_at(s, i);
    set_current("yaia_call_complete of call %d with %s", i, result);
    return yaia_call_complete(c.call, result);
}

/* Completing from a thread of our own. */
typedef struct {
    yaia_call *call;
    const char *result;
    int rc;
    long tid;
} completion;

static void *complete_main(void *arg)
{
    completion *c = arg;
    c->tid = my_tid();
    c->rc = yaia_call_complete(c->call, c->result);
    return NULL;
}

static completion complete_on_thread(yaia_call *call, const char *result)
{
    completion c = {call, result, -1, 0};
    pthread_t t;
    if (pthread_create(&t, NULL, complete_main, &c) == 0)
        pthread_join(t, NULL);
    return c;
}

/* ============================================ 1. policies and cancellation */

static void test_concurrent(void)
{
    section("policy concurrent");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    host_svc s;
    host_svc_init(&s, HOLD);
    add_host_service(rt, "held", &s, 0);
    int64_t sid = open_scene(rt, "example/jobs", "concurrent: open jobs");

    char *r = run_effect(rt, sid, "{\"service\":\"held\",\"op\":\"a\",\"args\":{\"n\":1},\"id\":\"k\"}");
    check_has(r, "concurrent: the update lists the effect with its key and status running",
              "\"effects\":[{\"args\":{\"n\":1},\"id\":", "\"key\":\"k\",\"op\":\"a\",\"service\":\"held\",\"status\":\"running\"}]",
              "\"seq\":1", (const char *)NULL);
    long long a = effect_id(r);
    yaia_free(r);
    r = run_effect(rt, sid, "{\"service\":\"held\",\"op\":\"b\",\"args\":{\"n\":2},\"id\":\"k\",\"policy\":\"concurrent\"}");
    check_has(r, "concurrent: a second effect with the same key runs too", "\"status\":\"running\"",
              "\"key\":\"k\"", (const char *)NULL);
    long long b = effect_id(r);
    yaia_free(r);
    check(a > 0 && b > a, "concurrent: effect ids are numbers that grow (%lld, %lld)", a, b);
    check(get_int(&s, &s.performs) == 2, "concurrent: both effects were performed (got %d)", s.performs);
    check(get_int(&s, &s.cancels) == 0, "concurrent: nothing was cancelled (got %d)", s.cancels);
    check(strcmp(call_at(&s, 0).args, "{\"n\":1}") == 0 && strcmp(call_at(&s, 0).op, "a") == 0,
          "concurrent: perform got op a and args {\"n\":1} (got %s %s)", s.calls[0].op, s.calls[0].args);

    /* Completed in reverse order: the log follows arrival, not emission. */
    check(complete_at(&s, 1, "{\"r\":\"b\"}") == YAIA_OK, "concurrent: completing b is YAIA_OK");
    r = expect_event(rt, b, "concurrent: b's outcome arrives first", "\"seq\":3",
                     "\"viewModel\":{\"log\":[{\"ok\":true,\"result\":{\"r\":\"b\"}}]}", (const char *)NULL);
    yaia_free(r);
    check(complete_at(&s, 0, "{\"r\":\"a\"}") == YAIA_OK, "concurrent: completing a is YAIA_OK");
    r = expect_event(rt, a, "concurrent: a's outcome arrives second", "\"seq\":4",
                     "\"log\":[{\"ok\":true,\"result\":{\"r\":\"b\"}},{\"ok\":true,\"result\":{\"r\":\"a\"}}]",
                     (const char *)NULL);
    yaia_free(r);
    expect_no_event(rt, "concurrent: nothing more");

    /* An effect without a key is listed without "key". */
    r = run_effect(rt, sid, "{\"service\":\"held\",\"op\":\"c\"}");
    check_has(r, "an effect without id has args null and no key",
              "\"effects\":[{\"args\":null,\"id\":", "\"op\":\"c\",\"service\":\"held\",\"status\":\"running\"}]",
              (const char *)NULL);
    yaia_free(r);
    check(complete_at(&s, 2, "1") == YAIA_OK, "an effect without id completes");
    yaia_free(next_event(rt, "keyless outcome"));

    yaia_runtime_free(rt);
    check(s.releases == 1, "concurrent: the host service is released once (got %d)", s.releases);
    host_svc_destroy(&s);
}

static void test_latest(void)
{
    section("policy latest");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    host_svc s;
    host_svc_init(&s, HOLD);
    add_host_service(rt, "held", &s, 0);
    int64_t sid = open_scene(rt, "example/jobs", "latest: open jobs");

    long long a = run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"q\",\"args\":1,\"id\":\"l\",\"policy\":\"latest\"}",
                             "running", "latest: the first effect runs");
    long long b = run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"q\",\"args\":2,\"id\":\"l\",\"policy\":\"latest\"}",
                             "running", "latest: the second effect runs");
    check(get_int(&s, &s.performs) == 2, "latest: both were performed (got %d)", s.performs);
    check(call_at(&s, 0).cancelled == 1, "latest: the first call's cancel hook was called once (got %d)",
          s.calls[0].cancelled);
    check(call_at(&s, 1).cancelled == 0, "latest: the second call is not cancelled");
    check(complete_at(&s, 0, "\"late\"") == YAIA_ERR_STALE,
          "latest: the replaced call's late completion is YAIA_ERR_STALE");
    check(yaia_call_fail(call_at(&s, 0).call, "{\"message\":\"late\"}") == YAIA_ERR_STALE,
          "latest: failing the replaced call is YAIA_ERR_STALE too");
    expect_no_event(rt, "latest: a dropped completion queues nothing");
    check(complete_at(&s, 1, "\"fresh\"") == YAIA_OK, "latest: the live call completes");
    char *r = expect_event(rt, b, "latest: only the latest outcome is delivered",
                           "\"log\":[{\"ok\":true,\"result\":\"fresh\"}]", (const char *)NULL);
    yaia_free(r);
    (void)a;

    /* latest with a different key leaves the first alone */
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"q\",\"id\":\"x\",\"policy\":\"latest\"}", "running",
               "latest: key x");
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"q\",\"id\":\"y\",\"policy\":\"latest\"}", "running",
               "latest: key y");
    check(get_int(&s, &s.cancels) == 1, "latest: a different key cancels nothing (cancels %d)", s.cancels);
    /* the same key in another scene is another key */
    int64_t other = open_scene(rt, "example/jobs", "latest: open a second jobs scene");
    run_expect(rt, other, "{\"service\":\"held\",\"op\":\"q\",\"id\":\"x\",\"policy\":\"latest\"}", "running",
               "latest: key x in another scene");
    check(get_int(&s, &s.cancels) == 1, "latest: keys are scoped to their scene (cancels %d)", s.cancels);
    check(get_int(&s, &s.foreign_cancels) == 0, "latest: no cancel of an unknown call");

    yaia_runtime_free(rt);
    /* the three calls still open were cancelled by yaia_runtime_free */
    check(s.cancels == 4, "latest: freeing the runtime cancels the 3 calls in flight (cancels %d of 4)", s.cancels);
    check(complete_at(&s, 2, "1") == YAIA_ERR_STALE, "latest: completing after yaia_runtime_free is STALE");
    check(s.releases == 1, "latest: released once (got %d)", s.releases);
    host_svc_destroy(&s);
}

static void test_queue(void)
{
    section("policy queue");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    host_svc s;
    host_svc_init(&s, HOLD);
    add_host_service(rt, "held", &s, 0);
    int64_t sid = open_scene(rt, "example/jobs", "queue: open jobs");

    long long a = run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"a\",\"id\":\"q\",\"policy\":\"queue\"}",
                             "running", "queue: the first effect runs");
    long long b = run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"b\",\"id\":\"q\",\"policy\":\"queue\"}",
                             "queued", "queue: the second effect shows status queued");
    long long c = run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"c\",\"id\":\"q\",\"policy\":\"queue\"}",
                             "queued", "queue: the third effect shows status queued");
    check(get_int(&s, &s.performs) == 1, "queue: only the first is performed (performs %d)", s.performs);
    expect_no_event(rt, "queue: waiting effects queue no event");

    check(complete_at(&s, 0, "\"a\"") == YAIA_OK, "queue: completing a is YAIA_OK");
    /* b starts on a pool thread, never inside a's call_complete */
    check(wait_for(&s, &s.performs, 2) == 2 && strcmp(call_at(&s, 1).op, "b") == 0,
          "queue: a's completion starts b (performs %d, op %s)", s.performs, s.calls[1].op);
    check(call_at(&s, 1).tid != call_at(&s, 0).tid, "queue: b is performed off the completing thread");
    char *r = expect_event(rt, a, "queue: a's outcome", "\"log\":[{\"ok\":true,\"result\":\"a\"}]", (const char *)NULL);
    yaia_free(r);
    check(yaia_call_fail(call_at(&s, 1).call, "{\"message\":\"b failed\"}") == YAIA_OK, "queue: failing b is YAIA_OK");
    check(wait_for(&s, &s.performs, 3) == 3 && strcmp(call_at(&s, 2).op, "c") == 0,
          "queue: b's failure starts c (performs %d)", s.performs);
    r = expect_event(rt, b, "queue: b's failure arrives as the catch action",
                     "{\"error\":{\"message\":\"b failed\"},\"ok\":false}", (const char *)NULL);
    yaia_free(r);
    check(complete_at(&s, 2, "\"c\"") == YAIA_OK, "queue: completing c");
    r = expect_event(rt, c, "queue: c's outcome", (const char *)NULL);
    yaia_free(r);
    expect_log(rt, sid,
               "[{\"ok\":true,\"result\":\"a\"},{\"error\":{\"message\":\"b failed\"},\"ok\":false},{\"ok\":true,\"result\":\"c\"}]",
               "queue: outcomes in order");

    /* a queue effect whose key is free starts at once */
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"d\",\"id\":\"q\",\"policy\":\"queue\"}", "running",
               "queue: with nothing in flight a queued effect runs at once");
    /* a concurrent effect with a key that has a queue in flight is not held back */
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"e\",\"id\":\"q\"}", "running",
               "queue: a concurrent effect with the same key runs at once");
    check(get_int(&s, &s.performs) == 5, "queue: d and e performed (performs %d)", s.performs);

    yaia_runtime_free(rt);
    /* c's perform() may still be returning on its pool thread; release() follows it. */
    check(wait_for(&s, &s.releases, 1) == 1, "queue: released once, after the last perform() returned");
    host_svc_destroy(&s);
}

static void test_cancel_command(void)
{
    section("cancel command");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL ",\"clock\":\"manual\"}", NULL);
    host_svc s;
    host_svc_init(&s, HOLD);
    add_host_service(rt, "held", &s, 0);
    int64_t sid = open_scene(rt, "example/jobs", "cancel: open jobs");

    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"a\",\"id\":\"x\",\"policy\":\"queue\"}", "running",
               "cancel: a runs");
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"b\",\"id\":\"x\",\"policy\":\"queue\"}", "queued",
               "cancel: b waits");
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"o\",\"id\":\"other\"}", "running", "cancel: another key runs");
    char *r = cancel_key(rt, sid, "x");
    check_has(r, "cancel: the cancel action is reduced", "\"ok\":true", "\"effects\":[]", "\"seq\":4",
              (const char *)NULL);
    yaia_free(r);
    check(call_at(&s, 0).cancelled == 1, "cancel: the running call's cancel hook was called");
    check(get_int(&s, &s.cancels) == 1, "cancel: the queued call, never started, gets no cancel (cancels %d)",
          s.cancels);
    check(complete_at(&s, 0, "1") == YAIA_ERR_STALE, "cancel: a cancelled call's completion is YAIA_ERR_STALE");
    expect_no_event(rt, "cancel: nothing delivered");
    check(get_int(&s, &s.performs) == 2, "cancel: the queued effect never starts (performs %d)", s.performs);
    expect_log(rt, sid, "[]", "cancel: empty log");
    check(complete_at(&s, 1, "\"o\"") == YAIA_OK, "cancel: the other key is untouched");
    yaia_free(next_event(rt, "other key outcome"));

    r = cancel_key(rt, sid, "nothing-here");
    check_has(r, "cancel: an unknown key is a no-op", "\"ok\":true", (const char *)NULL);
    yaia_free(r);

    /* a pending effect (no service of that name) is cancelled too */
    long long p = run_expect(rt, sid, "{\"service\":\"nosuch\",\"op\":\"p\",\"id\":\"p\"}", "pending",
                             "cancel: an effect nobody serves is pending");
    yaia_free(cancel_key(rt, sid, "p"));
    char *req = fmt("{\"op\":\"resolve\",\"effect\":%lld,\"result\":1}", p);
    r = yaia_execute(rt, req);
    check_error(r, "effect_already_resolved", "cancel: resolving a cancelled pending effect");
    yaia_free(r);
    free(req);
    /* and so is a timed pending effect: its deadline no longer fires */
    run_expect(rt, sid, "{\"service\":\"nosuch\",\"op\":\"p\",\"id\":\"t\",\"timeout\":0.5}", "pending",
               "cancel: a pending effect with a deadline");
    yaia_free(cancel_key(rt, sid, "t"));
    advance(rt, 1, -1, "cancel: the clock passes the cancelled effect's deadline");
    expect_no_event(rt, "cancel: a cancelled effect's deadline delivers nothing");
    expect_log(rt, sid, "[{\"ok\":true,\"result\":\"o\"}]", "cancel: only the other key's outcome");

    yaia_runtime_free(rt);
    host_svc_destroy(&s);
}

static void test_timeouts(void)
{
    section("time-outs");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL ",\"clock\":\"manual\"}", NULL);
    host_svc s;
    host_svc_init(&s, HOLD);
    add_host_service(rt, "held", &s, 0);
    int64_t sid = open_scene(rt, "example/jobs", "timeout: open jobs");

    long long a = run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"a\",\"timeout\":0.25}", "running",
                             "timeout: a timed effect runs");
    advance(rt, 0.125, 0, "timeout: half-way to the deadline nothing fires");
    expect_no_event(rt, "timeout: nothing before the deadline");
    check(call_at(&s, 0).cancelled == 0, "timeout: the call is not cancelled before its deadline");
    advance(rt, 0.125, 1, "timeout: the clock reaches the deadline");
    char *r = yaia_receive(rt, 0);
    check_has(r, "timeout: the deadline delivers the catch action before advance answers", "\"event\":\"update\"",
              "\"log\":[{\"error\":{\"code\":\"timeout\",\"message\":", (const char *)NULL);
    check(int_of(r, "effect") == a, "timeout: the update is a's (%lld) -- got %s", a, r ? r : "(NULL)");
    yaia_free(r);
    check(call_at(&s, 0).cancelled == 1, "timeout: the timed-out call's cancel hook was called");
    check(complete_at(&s, 0, "\"late\"") == YAIA_ERR_STALE, "timeout: a late completion is YAIA_ERR_STALE");
    expect_no_event(rt, "timeout: the late completion is dropped");

    /* completed in time: no time-out afterwards */
    long long b = run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"b\",\"timeout\":0.25}", "running",
                             "timeout: b runs");
    check(complete_at(&s, 1, "\"b\"") == YAIA_OK, "timeout: b completes in time");
    yaia_free(expect_event(rt, b, "timeout: b's outcome", "{\"ok\":true,\"result\":\"b\"}", (const char *)NULL));
    advance(rt, 1, -1, "timeout: the clock passes a completed effect's deadline");
    expect_no_event(rt, "timeout: a completed effect's deadline delivers nothing");
    check(get_int(&s, &s.cancels) == 1, "timeout: a completed effect is not cancelled (cancels %d)", s.cancels);

    /* the deadline counts from the start: a queued effect's clock waits */
    long long c = run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"c\",\"id\":\"t\",\"policy\":\"queue\"}",
                             "running", "timeout: c runs");
    long long d = run_expect(rt, sid,
                             "{\"service\":\"held\",\"op\":\"d\",\"id\":\"t\",\"policy\":\"queue\",\"timeout\":0.25}",
                             "queued", "timeout: d waits behind c");
    advance(rt, 1, 0, "timeout: a queued effect's deadline has not started");
    expect_no_event(rt, "timeout: a queued effect does not time out while it waits");
    check(complete_at(&s, 2, "\"c\"") == YAIA_OK, "timeout: c completes, d starts");
    yaia_free(expect_event(rt, c, "timeout: c's outcome", (const char *)NULL));
    /* d starts on a pool thread; its deadline is set before it is performed */
    check(wait_for(&s, &s.performs, 4) == 4 && strcmp(call_at(&s, 3).op, "d") == 0, "timeout: d is performed");
    advance(rt, 0.125, 0, "timeout: d's deadline counts from its start, not from its emission");
    expect_no_event(rt, "timeout: d has not timed out half-way");
    advance(rt, 0.125, 1, "timeout: d's deadline");
    r = yaia_receive(rt, 0);
    check_has(r, "timeout: d times out after it started", "{\"error\":{\"code\":\"timeout\"", (const char *)NULL);
    check(int_of(r, "effect") == d, "timeout: the update is d's (%lld) -- got %s", d, r ? r : "(NULL)");
    yaia_free(r);
    check(call_at(&s, 3).cancelled == 1, "timeout: d's call was cancelled");

    /* a pending effect times out as well */
    long long p = run_expect(rt, sid, "{\"service\":\"nosuch\",\"op\":\"p\",\"timeout\":0.5}", "pending",
                             "timeout: a pending effect with a deadline");
    advance(rt, 0.5, 1, "timeout: a pending effect's deadline");
    r = yaia_receive(rt, 0);
    check_has(r, "timeout: a pending effect times out", "\"code\":\"timeout\"", (const char *)NULL);
    check(int_of(r, "effect") == p, "timeout: the update is p's (%lld) -- got %s", p, r ? r : "(NULL)");
    yaia_free(r);
    char *req = fmt("{\"op\":\"resolve\",\"effect\":%lld,\"result\":1}", p);
    r = yaia_execute(rt, req);
    check_error(r, "effect_already_resolved", "timeout: resolving a timed-out effect");
    yaia_free(r);
    free(req);

    /* a bad timeout is refused as a bad payload */
    r = run_effect(rt, sid, "{\"service\":\"held\",\"op\":\"x\",\"timeout\":-1}");
    check_error(r, "bad_payload", "timeout: a negative timeout");
    yaia_free(r);
    r = run_effect(rt, sid, "{\"service\":\"held\",\"op\":\"x\",\"policy\":\"sometimes\"}");
    check_error(r, "bad_payload", "timeout: an unknown policy");
    yaia_free(r);

    yaia_runtime_free(rt);
    /* d's perform() ran on a pool thread, which may still be returning; release() follows it */
    check(wait_for(&s, &s.releases, 1) == 1, "timeout: released once, after the last perform() returned");
    host_svc_destroy(&s);
}

static void test_close_cancels(void)
{
    section("closing a scene");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL ",\"clock\":\"manual\"}", NULL);
    host_svc s;
    host_svc_init(&s, HOLD);
    add_host_service(rt, "held", &s, 0);
    int64_t keep = open_scene(rt, "example/jobs", "close: open the scene that stays");
    int64_t sid = open_scene(rt, "example/jobs", "close: open the scene to close");

    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"a\",\"id\":\"k\",\"policy\":\"queue\"}", "running", "close: a");
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"b\",\"id\":\"k\",\"policy\":\"queue\"}", "queued", "close: b");
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"t\",\"timeout\":0.2}", "running", "close: timed t");
    long long p = run_expect(rt, sid, "{\"service\":\"nosuch\",\"op\":\"p\"}", "pending", "close: pending p");
    long long k = run_expect(rt, keep, "{\"service\":\"held\",\"op\":\"k\"}", "running", "close: the other scene's effect");

    char *r = close_scene(rt, sid);
    check_has(r, "close: the scene closes", "\"closed\":true", (const char *)NULL);
    yaia_free(r);
    check(call_at(&s, 0).cancelled == 1 && call_at(&s, 1).cancelled == 1,
          "close: the cancel hooks of its running calls were called (a %d, t %d)", s.calls[0].cancelled,
          s.calls[1].cancelled);
    check(call_at(&s, 2).cancelled == 0, "close: the other scene's call is untouched");
    check(get_int(&s, &s.performs) == 3, "close: the queued effect never starts (performs %d)", s.performs);
    check(complete_at(&s, 0, "1") == YAIA_ERR_STALE, "close: completing a closed scene's call is YAIA_ERR_STALE");
    check(yaia_call_fail(call_at(&s, 1).call, "{}") == YAIA_ERR_STALE, "close: failing one is YAIA_ERR_STALE");
    char *req = fmt("{\"op\":\"resolve\",\"effect\":%lld,\"result\":1}", p);
    r = yaia_execute(rt, req);
    check(r && strstr(r, "\"ok\":false") != NULL, "close: its pending effect cannot be resolved -- got %s", r);
    yaia_free(r);
    free(req);
    expect_no_event(rt, "close: nothing delivered");
    advance(rt, 1, -1, "close: the clock passes the closed scene's deadline");
    expect_no_event(rt, "close: a closed scene's deadline delivers nothing");
    check(complete_at(&s, 2, "\"k\"") == YAIA_OK, "close: the other scene's call still completes");
    yaia_free(expect_event(rt, k, "close: the other scene's outcome", (const char *)NULL));

    /* freeing the runtime cancels too, and releases the service once */
    run_expect(rt, keep, "{\"service\":\"held\",\"op\":\"f\"}", "running", "close: f before free");
    int before = get_int(&s, &s.cancels);
    yaia_runtime_free(rt);
    check(s.cancels == before + 1, "free: the call in flight is cancelled (cancels %d, was %d)", s.cancels, before);
    check(complete_at(&s, 3, "1") == YAIA_ERR_STALE, "free: its completion is YAIA_ERR_STALE");
    check(s.releases == 1, "free: the service is released once (got %d)", s.releases);
    check(s.foreign_cancels == 0, "close: no cancel of a call the service never saw");
    host_svc_destroy(&s);
}

/* ============================================================ 2. the pool */

static void test_pool(void)
{
    section("worker pool");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    host_svc blocking, inline_svc, old;
    host_svc_init(&blocking, ECHO_NOW);
    host_svc_init(&inline_svc, ECHO_NOW);
    host_svc_init(&old, ECHO_NOW);
    add_host_service(rt, "blocking", &blocking, YAIA_SERVICE_BLOCKING);
    add_host_service(rt, "inline", &inline_svc, 0);
    /* a struct of the original size: no flags field, even if set beyond it */
    yaia_service v1 = service_of("v1", &old, YAIA_SERVICE_BLOCKING);
    v1.size = offsetof(yaia_service, flags);
    char *r = yaia_add_service(rt, &v1);
    check_has(r, "a service struct without flags (original size) is accepted", "{\"ok\":true,\"service\":\"v1\"}",
              (const char *)NULL);
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"services\"}");
    check_has(r, "services lists blocking true and false",
              "{\"blocking\":true,\"name\":\"blocking\",\"origin\":\"host\"}",
              "{\"blocking\":false,\"name\":\"inline\",\"origin\":\"host\"}",
              "{\"blocking\":false,\"name\":\"v1\",\"origin\":\"host\"}", (const char *)NULL);
    yaia_free(r);

    int64_t sid = open_scene(rt, "example/jobs", "pool: open jobs");
    long me = my_tid();
    long long e = run_expect(rt, sid, "{\"service\":\"inline\",\"op\":\"x\",\"args\":1}", "running", "pool: inline");
    check(get_int(&inline_svc, &inline_svc.performs) == 1 && call_at(&inline_svc, 0).tid == me,
          "pool: a non-blocking service runs inline on the sending thread (tid %ld, mine %ld)",
          inline_svc.calls[0].tid, me);
    yaia_free(expect_event(rt, e, "pool: inline outcome", (const char *)NULL));

    e = run_expect(rt, sid, "{\"service\":\"v1\",\"op\":\"x\",\"args\":1}", "running", "pool: v1");
    check(get_int(&old, &old.performs) == 1 && call_at(&old, 0).tid == me,
          "pool: a service struct without flags counts as non-blocking: inline (tid %ld, mine %ld)", old.calls[0].tid,
          me);
    yaia_free(expect_event(rt, e, "pool: v1 outcome", (const char *)NULL));

    e = run_expect(rt, sid, "{\"service\":\"blocking\",\"op\":\"x\",\"args\":2}", "running", "pool: blocking");
    check(wait_for(&blocking, &blocking.performs, 1) == 1, "pool: the blocking service is performed");
    check(call_at(&blocking, 0).tid != me && call_at(&blocking, 0).tid != 0,
          "pool: a blocking service runs on a pool thread, not the sender's (tid %ld, mine %ld)", blocking.calls[0].tid,
          me);
    r = expect_event(rt, e, "pool: blocking outcome", "{\"ok\":true,\"result\":2}", (const char *)NULL);
    yaia_free(r);
    r = perform(rt, "blocking", "y", "3", NULL);
    check_has(r, "pool: a direct perform of a blocking service", "{\"ok\":true,\"result\":3}", (const char *)NULL);
    yaia_free(r);
    check(wait_for(&blocking, &blocking.performs, 2) == 2 && call_at(&blocking, 1).tid != me,
          "pool: a direct perform of a blocking service runs on the pool too");
    yaia_runtime_free(rt);
    /* a pool thread may still be returning from perform(); release() follows it */
    check(wait_for(&blocking, &blocking.releases, 1) == 1, "pool: the blocking service is released once");
    host_svc_destroy(&blocking);
    host_svc_destroy(&inline_svc);
    host_svc_destroy(&old);

    /* the bound: workers 2, six slow calls held at the faults plugin's gate */
    rt = runtime_with("\"workers\":2", "faults", NULL);
    if (!rt)
        return;
    reset_stats(rt);
    sid = open_scene(rt, "example/jobs", "pool bound: open jobs");
    for (int i = 0; i < 6; i++) {
        char *eff = fmt("{\"service\":\"slow\",\"op\":\"s\",\"args\":{\"i\":%d}}", i);
        run_expect(rt, sid, eff, "running", "pool bound: slow runs");
        free(eff);
    }
    /* every send returned while the calls are held: sending does not block */
    r = await_stats(rt, "{\"slow.inFlight\":2}");
    check(stat_of(r, "slow", "calls") == 2,
          "pool bound: with workers 2, two held calls take both; the other 4 wait for a worker -- %s", r);
    yaia_free(r);
    expect_no_event(rt, "pool bound: no outcome while the calls are held");
    release_slow(rt, 6);
    int got = 0;
    for (int i = 0; i < 6; i++) {
        r = next_event(rt, "pool bound: slow outcomes");
        got += r && strstr(r, "\"event\":\"update\"") != NULL;
        yaia_free(r);
    }
    check(got == 6, "pool bound: all 6 outcomes arrive (got %d)", got);
    r = stats(rt);
    long threads[64];
    int nthreads = stat_threads(r, threads, 64);
    check(stat_of(r, "slow", "maxInFlight") == 2, "pool bound: at most 2 slow calls at once with workers 2 -- %s", r);
    check(nthreads >= 1 && nthreads <= 2, "pool bound: performed on at most 2 threads (%d)", nthreads);
    int mine = 0;
    for (int i = 0; i < nthreads && i < 64; i++)
        mine |= threads[i] == me;
    check(!mine, "pool bound: never on the sending thread");
    yaia_free(r);
    char *log = jobs_log(rt, sid);
    int each = 1;
    for (int i = 0; i < 6; i++) {
        char *entry = fmt("{\"ok\":true,\"result\":{\"i\":%d}}", i);
        const char *at = strstr(log, entry);
        each &= at != NULL && strstr(at + 1, entry) == NULL;
        free(entry);
    }
    check(each, "pool bound: each of the 6 outcomes is logged once -- %s", log);
    free(log);

    /* a call the pool has not started yet: cancelled without its hook */
    yaia_runtime_free(rt);
    rt = runtime_with("\"workers\":1", "faults", NULL);
    if (!rt)
        return;
    reset_stats(rt);
    sid = open_scene(rt, "example/jobs", "pool 1: open jobs");
    long long first = run_expect(rt, sid, "{\"service\":\"slow\",\"op\":\"s\",\"args\":\"a\",\"id\":\"a\"}",
                                 "running", "pool 1: the first slow call");
    yaia_free(await_stats(rt, "{\"slow.inFlight\":1}")); /* it holds the only worker */
    run_expect(rt, sid, "{\"service\":\"slow\",\"op\":\"s\",\"args\":\"b\",\"id\":\"b\"}", "running",
               "pool 1: the second waits for the worker");
    yaia_free(cancel_key(rt, sid, "b"));
    long long third = run_expect(rt, sid, "{\"service\":\"slow\",\"op\":\"s\",\"args\":\"c\",\"id\":\"c\"}",
                                 "running", "pool 1: a third, after the cancelled one");
    release_slow(rt, 1);
    yaia_free(expect_event(rt, first, "pool 1: the first completes", (const char *)NULL));
    /* the pool takes its jobs in order: once the third is under way, the
    ** cancelled second has been passed over */
    r = await_stats(rt, "{\"slow.calls\":2,\"slow.inFlight\":1}");
    check(stat_of(r, "slow", "cancels") == 0,
          "pool 1: a call cancelled before the pool started it is never performed and its hook not called -- %s", r);
    yaia_free(r);
    release_slow(rt, 1);
    yaia_free(expect_event(rt, third, "pool 1: the third completes", (const char *)NULL));
    yaia_free(await_stats(rt, "{\"slow.done\":2}"));
    expect_no_event(rt, "pool 1: the cancelled call delivers nothing");
    expect_log(rt, sid, "[{\"ok\":true,\"result\":\"a\"},{\"ok\":true,\"result\":\"c\"}]",
               "pool 1: only the first and third outcomes");
    yaia_runtime_free(rt);

    /* the default is 4 workers */
    rt = runtime_with(NULL, "faults", NULL);
    if (!rt)
        return;
    reset_stats(rt);
    sid = open_scene(rt, "example/jobs", "pool default: open jobs");
    for (int i = 0; i < 8; i++)
        run_expect(rt, sid, "{\"service\":\"slow\",\"op\":\"s\"}", "running", "pool default");
    r = await_stats(rt, "{\"slow.inFlight\":4}");
    check(stat_of(r, "slow", "calls") == 4, "pool default: 4 workers by default take 4 of 8 held calls -- %s", r);
    yaia_free(r);
    release_slow(rt, 8);
    for (int i = 0; i < 8; i++)
        yaia_free(next_event(rt, "pool default outcomes"));
    r = await_stats(rt, "{\"slow.done\":8}"); /* counted after call_complete returns */
    check(stat_of(r, "slow", "maxInFlight") == 4, "pool default: 4 workers by default (8 calls) -- %s", r);
    yaia_free(r);
    yaia_runtime_free(rt);

    /* workers in the config */
    static const char *bad[] = {"{\"workers\":0}", "{\"workers\":257}", "{\"workers\":1.5}", "{\"workers\":\"2\"}",
                                "{\"workers\":null}", "{\"workers\":-1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        yaia_runtime *x = yaia_runtime_new(bad[i], &err);
        char *name = fmt("config %s is bad_config", bad[i]);
        check(x == NULL, "%s: no runtime", name);
        check_error(err, "bad_config", name);
        check_has(err, name, "\"at\":\"/workers\"", (const char *)NULL);
        free(name);
        yaia_free(err);
        yaia_runtime_free(x);
    }
    static const char *good[] = {"{\"workers\":1}", "{\"workers\":256}", "{\"workers\":2.0}"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        yaia_runtime *x = yaia_runtime_new(good[i], NULL);
        check(x != NULL, "config %s gives a runtime", good[i]);
        yaia_runtime_free(x);
    }
}

/* ========================================================= 3. the notifier */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* calls grew */
    int calls;
    long tids[256];
    yaia_runtime *rt;  /* receive_inside: the notifier takes the event itself */
    int receive_inside;
    char *taken[16];
    int ntaken;
    int inside_failures;
} notes;

static void on_event(void *ctx)
{
    notes *n = ctx;
    char *ev = NULL;
    int scenes_ok = 1;
    if (n->receive_inside) {
        ev = yaia_receive(n->rt, 0);
        /* no runtime lock is held: any other call works too */
        char *r = yaia_execute(n->rt, "{\"op\":\"scenes\"}");
        scenes_ok = r && strstr(r, "\"ok\":true") != NULL;
        yaia_free(r);
    }
    pthread_mutex_lock(&n->lock);
    if (n->calls < 256)
        n->tids[n->calls] = my_tid();
    n->calls++;
    n->inside_failures += !scenes_ok;
    if (ev && n->ntaken < 16)
        n->taken[n->ntaken++] = ev;
    else
        yaia_free(ev);
    pthread_cond_broadcast(&n->changed);
    pthread_mutex_unlock(&n->lock);
}

static void on_event_other(void *ctx)
{
    int *count = ctx;
    __atomic_fetch_add(count, 1, __ATOMIC_SEQ_CST);
}

static int note_calls(notes *n)
{
    pthread_mutex_lock(&n->lock);
    int v = n->calls;
    pthread_mutex_unlock(&n->lock);
    return v;
}

/* The notifier runs after the event is queued, so a receiver may see the
** event first: wait for the count to catch up. */
static int wait_notes(notes *n, int want)
{
    pthread_mutex_lock(&n->lock);
    while (n->calls < want)
        pthread_cond_wait(&n->changed, &n->lock);
    int v = n->calls;
    pthread_mutex_unlock(&n->lock);
    return v;
}

static long note_tid(notes *n, int i)
{
    pthread_mutex_lock(&n->lock);
    long v = i < 256 ? n->tids[i] : 0;
    pthread_mutex_unlock(&n->lock);
    return v;
}

static void test_notifier(void)
{
    section("notifier");
    yaia_runtime *rt = runtime_with(NULL, "echo", "faults", NULL);
    if (!rt)
        return;
    host_svc s;
    host_svc_init(&s, HOLD);
    add_host_service(rt, "held", &s, 0);
    notes n;
    memset(&n, 0, sizeof n);
    pthread_mutex_init(&n.lock, NULL);
    pthread_cond_init(&n.changed, NULL);
    n.rt = rt;
    long me = my_tid();

    check(yaia_set_notifier(NULL, on_event, &n) == YAIA_ERR_ARGUMENT, "notifier: NULL runtime is YAIA_ERR_ARGUMENT");
    check(yaia_set_notifier((yaia_runtime *)(uintptr_t)0x5eed0003, on_event, &n) == YAIA_ERR_STALE,
          "notifier: a made-up runtime is YAIA_ERR_STALE");
    check(yaia_set_notifier(rt, on_event, &n) == YAIA_OK, "notifier: set");
    int64_t sid = open_scene(rt, "example/jobs", "notifier: open jobs");
    int64_t login = open_scene(rt, "example/login", "notifier: open login");
    yaia_free(send_action(rt, login, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}"));
    check(note_calls(&n) == 0, "notifier: a send that queues no event does not notify (calls %d)", n.calls);

    /* completed inside perform, on the sending thread */
    long long e = run_expect(rt, sid, "{\"service\":\"echo\",\"op\":\"echo\",\"args\":1}", "running", "notifier: echo");
    check(note_calls(&n) == 1, "notifier: one call for one queued event (calls %d)", n.calls);
    check(note_tid(&n, 0) == me, "notifier: called from the thread that queued the event (inside yaia_send)");
    char *r = yaia_receive(rt, 0);
    check_has(r, "notifier: the event is there when notified", "\"event\":\"update\"", (const char *)NULL);
    yaia_free(r);
    (void)e;

    /* completed on another thread */
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"h\"}", "running", "notifier: held");
    completion c = complete_on_thread(call_at(&s, 0).call, "\"t\"");
    check(c.rc == YAIA_OK, "notifier: completed from another thread");
    check(note_calls(&n) == 2 && note_tid(&n, 1) == c.tid,
          "notifier: called from the completing thread (calls %d, tid %ld vs %ld)", n.calls, n.tids[1], c.tid);
    yaia_free(next_event(rt, "notifier: thread outcome"));

    /* A deadline on the system clock: from the runtime's timer thread. (The
    ** one deadline of these tests left to the system clock; the check
    ** waits for the event, not for an amount of time.) */
    run_expect(rt, sid, "{\"service\":\"never\",\"op\":\"n\",\"timeout\":0.001}", "running", "notifier: never");
    yaia_free(next_event(rt, "notifier: time-out"));
    check(wait_notes(&n, 3) == 3, "notifier: the time-out event notifies once (calls %d)", n.calls);
    check(note_tid(&n, 2) != me && note_tid(&n, 2) != c.tid, "notifier: the time-out notifies from another thread");

    /* a blocking service: from its pool thread */
    reset_stats(rt);
    release_slow(rt, 1);
    run_expect(rt, sid, "{\"service\":\"slow\",\"op\":\"s\"}", "running", "notifier: slow");
    yaia_free(next_event(rt, "notifier: slow outcome"));
    wait_notes(&n, 4);
    r = stats(rt);
    long pool_tid[4];
    int np = stat_threads(r, pool_tid, 4);
    yaia_free(r);
    check(note_calls(&n) == 4 && np == 1 && note_tid(&n, 3) == pool_tid[0],
          "notifier: a pool completion notifies from the pool thread (calls %d, tid %ld, pool %ld)", n.calls,
          n.tids[3], np > 0 ? pool_tid[0] : 0);

    /* N events, N calls */
    for (int i = 0; i < 5; i++)
        run_expect(rt, sid, "{\"service\":\"echo\",\"op\":\"echo\",\"args\":2}", "running", "notifier: echo x5");
    check(note_calls(&n) == 9, "notifier: five events, five calls (calls %d)", n.calls);
    for (int i = 0; i < 5; i++)
        yaia_free(next_event(rt, "notifier: x5"));

    /* an error event (the scene refuses the outcome) notifies too */
    int64_t search = open_scene(rt, "example/search", "notifier: open search");
    host_svc ss;
    host_svc_init(&ss, HOLD);
    add_host_service(rt, "search", &ss, 0);
    yaia_free(send_action(rt, search, "{\"type\":\"queryChanged\",\"payload\":\"q\"}"));
    check(complete_at(&ss, 0, "{\"nothing\":true}") == YAIA_OK, "notifier: a result the scene cannot read");
    r = next_event(rt, "notifier: error event");
    check_has(r, "notifier: a refused outcome queues an error event", "\"event\":\"error\"", "\"ok\":false",
              "\"code\":\"bad_payload\"", (const char *)NULL);
    yaia_free(r);
    check(note_calls(&n) == 10, "notifier: the error event notifies (calls %d)", n.calls);

    /* the notifier may call yaia_receive itself */
    n.receive_inside = 1;
    run_expect(rt, sid, "{\"service\":\"echo\",\"op\":\"echo\",\"args\":3}", "running", "notifier: receive inside");
    run_expect(rt, sid, "{\"service\":\"held\",\"op\":\"h\"}", "running", "notifier: held 2");
    c = complete_on_thread(call_at(&s, 1).call, "\"u\"");
    pthread_mutex_lock(&n.lock);
    int taken = n.ntaken;
    int good = taken == 2 && strstr(n.taken[0], "{\"ok\":true,\"result\":3}") && strstr(n.taken[1], "\"u\"");
    for (int i = 0; i < n.ntaken; i++)
        yaia_free(n.taken[i]);
    n.ntaken = 0;
    n.receive_inside = 0;
    pthread_mutex_unlock(&n.lock);
    check(good, "notifier: a notifier may call yaia_receive and gets the event (took %d)", taken);
    check(n.inside_failures == 0, "notifier: a notifier may call yaia_execute (no runtime lock is held)");
    expect_no_event(rt, "notifier: nothing left after the notifier took them");

    /* replacing: the old one is not called again */
    int other = 0;
    check(yaia_set_notifier(rt, on_event_other, &other) == YAIA_OK, "notifier: replaced");
    int before = note_calls(&n);
    run_expect(rt, sid, "{\"service\":\"echo\",\"op\":\"echo\",\"args\":4}", "running", "notifier: echo after replace");
    check(note_calls(&n) == before && __atomic_load_n(&other, __ATOMIC_SEQ_CST) == 1,
          "notifier: after a replacement only the new one is called (old %d, new %d)", n.calls - before, other);
    yaia_free(next_event(rt, "notifier: after replace"));

    /* NULL removes it; the event is still queued */
    check(yaia_set_notifier(rt, NULL, NULL) == YAIA_OK, "notifier: NULL removes it");
    run_expect(rt, sid, "{\"service\":\"echo\",\"op\":\"echo\",\"args\":5}", "running", "notifier: echo after removal");
    check(__atomic_load_n(&other, __ATOMIC_SEQ_CST) == 1, "notifier: no call after removal (%d)", other);
    r = next_event(rt, "notifier: removed");
    check_has(r, "notifier: events still queue without a notifier", "{\"ok\":true,\"result\":5}", (const char *)NULL);
    yaia_free(r);

    yaia_runtime_free(rt);
    check(yaia_set_notifier(rt, on_event, &n) == YAIA_ERR_STALE, "notifier: a freed runtime is YAIA_ERR_STALE");
    check(yaia_set_notifier(rt, NULL, NULL) == YAIA_ERR_STALE, "notifier: removing on a freed runtime is STALE");
    pthread_cond_destroy(&n.changed);
    pthread_mutex_destroy(&n.lock);
    host_svc_destroy(&s);
    host_svc_destroy(&ss);
}

/* ===================================================== 4. direct perform */

typedef struct {
    yaia_runtime *rt;
    const char *request;
    char *response;
    int done;
    pthread_t thread;
} performer;

static void *perform_main(void *arg)
{
    performer *p = arg;
    p->response = yaia_execute(p->rt, p->request);
    __atomic_store_n(&p->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Runs a request on a thread of its own; false when none could start. */
static int start_performer(performer *p, yaia_runtime *rt, const char *request)
{
    *p = (performer){rt, request, NULL, 0, 0};
    return check(pthread_create(&p->thread, NULL, perform_main, p) == 0, "start a thread for %s", request);
}

static int performer_done(performer *p) { return __atomic_load_n(&p->done, __ATOMIC_SEQ_CST); }

static void test_perform(void)
{
    section("direct perform");
    yaia_runtime *rt = runtime_with("\"clock\":\"manual\"", "echo", "faults", NULL);
    if (!rt)
        return;
    char *r = perform(rt, "echo", "echo", "{\"a\":[1,\"two\",null]}", NULL);
    check(r && strcmp(r, "{\"ok\":true,\"result\":{\"a\":[1,\"two\",null]}}") == 0,
          "perform: a result -- got %s", r);
    yaia_free(r);
    r = perform(rt, "echo", "echo", NULL, NULL);
    check(r && strcmp(r, "{\"ok\":true,\"result\":null}") == 0, "perform: args default to null -- got %s", r);
    yaia_free(r);
    /* Args text is written on the stack up to 256 bytes and moves to the
    ** heap past that: every length around the edge arrives whole. */
    for (int n = 240; n <= 600; n += (n < 270 ? 1 : 55)) {
        char *text = malloc((size_t)n + 1);
        if (!text)
            break;
        memset(text, 'a' + n % 26, (size_t)n);
        text[n] = '\0';
        char *args = fmt("{\"s\":\"%s\"}", text), *want = fmt("{\"ok\":true,\"result\":%s}", args);
        r = perform(rt, "echo", "echo", args, NULL);
        check(r && strcmp(r, want) == 0, "perform: args of %d bytes arrive whole -- got %.80s", (int)strlen(args), r);
        yaia_free(r);
        free(text);
        free(args);
        free(want);
    }
    r = perform(rt, "echo", "later", "\"x\"", NULL);
    check(r && strcmp(r, "{\"ok\":true,\"result\":\"x\"}") == 0,
          "perform: a completion from the service's own thread -- got %s", r);
    yaia_free(r);

    r = perform(rt, "echo", "fail", "{\"message\":\"nope\",\"why\":7}", NULL);
    check(r && strcmp(r, "{\"error\":{\"code\":\"service_failed\",\"detail\":{\"message\":\"nope\",\"why\":7},"
                         "\"message\":\"nope\"},\"ok\":false}") == 0,
          "perform: a service error is service_failed with the error as detail -- got %s", r);
    yaia_free(r);
    r = perform(rt, "echo", "fail", "42", NULL);
    check_has(r, "perform: a non-object service error", "\"code\":\"service_failed\"", "\"detail\":42",
              (const char *)NULL);
    yaia_free(r);

    /* A perform waits on its thread until the clock passes its time-out. */
    reset_stats(rt);
    performer p;
    if (start_performer(&p, rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"never\",\"op\":\"n\",\"timeout\":0.25}}")) {
        yaia_free(await_stats(rt, "{\"never.calls\":1}")); /* its deadline is set before the call is made */
        advance(rt, 0.125, 0, "perform: half-way to the time-out");
        check(!performer_done(&p), "perform: still waiting half-way to its time-out");
        advance(rt, 0.125, 1, "perform: the clock reaches the time-out");
        pthread_join(p.thread, NULL);
        check_error(p.response, "timeout", "perform: a service that never completes times out");
        yaia_free(p.response);
    }
    r = stats(rt);
    check(stat_of(r, "never", "cancels") == 1 && stat_of(r, "never", "staleAfterCancel") == 1 &&
              stat_of(r, "never", "held") == 0,
          "perform: the timed-out call is cancelled; completing it then is STALE -- %s", r);
    yaia_free(r);

    r = perform(rt, "nosuch", "x", NULL, NULL);
    check_error(r, "no_such_service", "perform: no_such_service");
    check_has(r, "perform: no_such_service points at the service", "\"at\":\"/effect/service\"", (const char *)NULL);
    yaia_free(r);
    r = perform(rt, "badjson", "x", NULL, NULL);
    check_error(r, "bad_result", "perform: a completion that is not JSON is bad_result");
    check_has(r, "perform: bad_result carries the detail", "\"detail\":{\"code\":\"bad_result\"", (const char *)NULL);
    yaia_free(r);
    r = perform(rt, "echo", "bad", NULL, NULL);
    check_error(r, "bad_result", "perform: echo's bad op is bad_result");
    yaia_free(r);
    r = perform(rt, "twice", "x", "\"first\"", NULL);
    check(r && strcmp(r, "{\"ok\":true,\"result\":\"first\"}") == 0, "perform: twice gives its first result -- %s", r);
    yaia_free(r);
    r = stats(rt);
    check(stat_of(r, "twice", "first") == YAIA_OK && stat_of(r, "twice", "second") == YAIA_ERR_STALE,
          "perform: twice's second completion is YAIA_ERR_STALE -- %s", r);
    yaia_free(r);

    long me = my_tid();
    release_slow(rt, 1);
    r = perform(rt, "slow", "s", "{\"n\":20}", NULL);
    check(r && strcmp(r, "{\"ok\":true,\"result\":{\"n\":20}}") == 0, "perform: a blocking service -- got %s", r);
    yaia_free(r);
    r = stats(rt);
    long t[4];
    int nt = stat_threads(r, t, 4);
    check(nt == 1 && t[0] != me, "perform: a blocking service is not performed on the caller's thread -- %s", r);
    yaia_free(r);
    if (start_performer(&p, rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"slow\",\"op\":\"s\",\"timeout\":0.5}}")) {
        yaia_free(await_stats(rt, "{\"slow.inFlight\":1}")); /* held at the gate, on a pool thread */
        advance(rt, 0.5, 1, "perform: the clock reaches a blocking call's time-out");
        pthread_join(p.thread, NULL);
        check_error(p.response, "timeout", "perform: a slow blocking service times out");
        yaia_free(p.response);
    }
    r = await_stats(rt, "{\"slow.stale\":1,\"slow.inFlight\":0}");
    check(stat_of(r, "slow", "cancels") == 1,
          "perform: the time-out cancels the slow call, whose completion is then STALE -- %s", r);
    yaia_free(r);

    r = yaia_execute(rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"echo\",\"op\":\"echo\",\"args\":1},\"tag\":[7]}");
    check(r && strcmp(r, "{\"ok\":true,\"result\":1,\"tag\":[7]}") == 0, "perform: echoes the tag -- %s", r);
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"nosuch\",\"op\":\"x\"},\"tag\":\"t\"}");
    check_has(r, "perform: echoes the tag on errors", "\"tag\":\"t\"", "\"code\":\"no_such_service\"",
              (const char *)NULL);
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"perform\"}");
    check_error(r, "bad_request", "perform without effect");
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"echo\"}}");
    check_error(r, "bad_request", "perform of an effect without op");
    check_has(r, "perform: points at the missing op", "\"at\":\"/effect/op\"", (const char *)NULL);
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"echo\",\"op\":\"echo\",\"timeout\":0}}");
    check_error(r, "bad_request", "perform with timeout 0");
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"perform\",\"effect\":[]}");
    check_error(r, "not_an_object", "perform of an array");
    yaia_free(r);
    /* direct performs queue no events */
    expect_no_event(rt, "perform: direct performs queue no event");
    yaia_runtime_free(rt);

    /* A perform waiting when its runtime is freed returns. On a clock that
    ** stands still its time-out never comes: only the free can end it. */
    rt = runtime_with("\"clock\":\"manual\"", "faults", NULL);
    if (!rt)
        return;
    if (!start_performer(&p, rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"never\",\"op\":\"n\"}}"))
        return;
    yaia_free(await_stats(rt, "{\"never.calls\":1}"));
    set_current("perform: yaia_runtime_free must end a waiting perform");
    yaia_runtime_free(rt);
    pthread_join(p.thread, NULL);
    check_has(p.response, "perform: a perform cut short by yaia_runtime_free fails", "\"ok\":false",
              (const char *)NULL);
    printf("note: a perform cut short by yaia_runtime_free answers %s\n", p.response ? p.response : "(NULL)");
    yaia_free(p.response);
}

/* ============================================== 5. misbehaving services */

static long process_stat(yaia_runtime *rt, const char *key)
{
    char *r = stats(rt);
    long v = stat_of(r, "process", key);
    yaia_free(r);
    return v;
}

static void test_faults(void)
{
    section("faults");
    yaia_runtime *rt = runtime_with("\"clock\":\"manual\"", "faults", NULL);
    if (!rt)
        return;
    reset_stats(rt);
    int64_t sid = open_scene(rt, "example/jobs", "faults: open jobs");

    off_t mark = log_mark();
    long long e = run_expect(rt, sid, "{\"service\":\"twice\",\"op\":\"t\",\"args\":{\"n\":1}}", "running",
                             "faults: twice");
    yaia_free(expect_event(rt, e, "faults: twice delivers its first completion",
                           "\"log\":[{\"ok\":true,\"result\":{\"n\":1}}]", (const char *)NULL));
    expect_no_event(rt, "faults: twice's second completion is dropped");
    char *r = stats(rt);
    check(stat_of(r, "twice", "first") == YAIA_OK && stat_of(r, "twice", "second") == YAIA_ERR_STALE,
          "faults: twice's completions answer YAIA_OK then YAIA_ERR_STALE -- %s", r);
    yaia_free(r);
    char *logged = log_since(mark);
    check(log_fd < 0 || strstr(logged, "completed after it was completed or cancelled") != NULL,
          "faults: the ignored second completion is logged -- log: %s", logged);
    free(logged);
    mark = log_mark();

    e = run_expect(rt, sid, "{\"service\":\"badjson\",\"op\":\"b\"}", "running", "faults: badjson");
    yaia_free(expect_event(rt, e, "faults: a completion with invalid JSON is delivered as catch, code bad_result",
                           "{\"error\":{\"code\":\"bad_result\",\"message\":", (const char *)NULL));
    r = stats(rt);
    check(stat_of(r, "badjson", "rc") == YAIA_ERR_JSON, "faults: badjson's completion answers YAIA_ERR_JSON -- %s", r);
    yaia_free(r);
    logged = log_since(mark);
    check(log_fd < 0 || strstr(logged, "yaia warning") != NULL,
          "faults: a completion with invalid JSON is logged as a warning -- log: %s", logged);
    free(logged);

    e = run_expect(rt, sid, "{\"service\":\"never\",\"op\":\"n\",\"timeout\":0.5}", "running", "faults: never, timed");
    advance(rt, 0.5, 1, "faults: never's deadline");
    yaia_free(expect_event(rt, e, "faults: never with a deadline times out", "\"code\":\"timeout\"",
                           (const char *)NULL));
    r = stats(rt);
    check(stat_of(r, "never", "cancels") == 1 && stat_of(r, "never", "staleAfterCancel") == 1 &&
              stat_of(r, "never", "held") == 0,
          "faults: the deadline calls never's cancel hook; completing then is STALE -- %s", r);
    yaia_free(r);

    int64_t doomed = open_scene(rt, "example/jobs", "faults: open a scene to close");
    run_expect(rt, doomed, "{\"service\":\"never\",\"op\":\"n\"}", "running", "faults: never, no deadline");
    run_expect(rt, doomed, "{\"service\":\"never\",\"op\":\"n\"}", "running", "faults: never again");
    r = stats(rt);
    check(stat_of(r, "never", "held") == 2, "faults: never holds its 2 calls -- %s", r);
    yaia_free(r);
    yaia_free(close_scene(rt, doomed));
    r = stats(rt);
    check(stat_of(r, "never", "cancels") == 3 && stat_of(r, "never", "staleAfterCancel") == 3 &&
              stat_of(r, "never", "held") == 0,
          "faults: closing the scene cancels never's calls (hook called; late completion STALE) -- %s", r);
    yaia_free(r);
    expect_no_event(rt, "faults: nothing from the closed scene");

    e = run_expect(rt, sid, "{\"service\":\"slow\",\"op\":\"s\",\"timeout\":0.5}", "running",
                   "faults: slow with a deadline");
    yaia_free(await_stats(rt, "{\"slow.inFlight\":1}")); /* held at the gate, on a pool thread */
    advance(rt, 0.5, 1, "faults: slow's deadline");
    yaia_free(expect_event(rt, e, "faults: a slow blocking call times out", "\"code\":\"timeout\"", (const char *)NULL));
    r = await_stats(rt, "{\"slow.stale\":1}");
    check(stat_of(r, "slow", "cancels") == 1 && stat_of(r, "slow", "done") == 1,
          "faults: slow's cancel hook was called on the time-out; its late completion is STALE -- %s", r);
    yaia_free(r);
    char *log = jobs_log(rt, sid);
    check_in_order(log, "faults: the log lists the outcomes in arrival order", "{\"ok\":true,\"result\":{\"n\":1}}",
                   "\"code\":\"bad_result\"", "\"code\":\"timeout\"", "\"code\":\"timeout\"", (const char *)NULL);
    check(strstr(log, "\"late\"") == NULL && strstr(log, "\"second\"") == NULL,
          "faults: no late or second completion reached the log -- %s", log);
    free(log);

    /* a plugin whose setup fails halfway: nothing of it stays */
    long contexts = process_stat(rt, "contexts"), releases = process_stat(rt, "releases");
    yaia_runtime *other = yaia_runtime_new("{" ALLOW_ALL "}", NULL);
    char *path = plugin_path(test_plugin_dir, "faults");
    char *req = fmt("{\"op\":\"load_plugin\",\"path\":%s,\"config\":{\"fail_after\":2}}", path);
    r = yaia_execute(other, req);
    check_error(r, "plugin_init_failed", "faults: setup failing after 2 registrations");
    check_has(r, "faults: the load reports set_error's message", "fails on purpose", (const char *)NULL);
    yaia_free(r);
    free(req);
    r = yaia_execute(other, "{\"op\":\"services\"}");
    check(r && strcmp(r, "{\"ok\":true,\"services\":[]}") == 0, "faults: none of its services stays -- %s", r);
    yaia_free(r);
    check(process_stat(rt, "releases") == releases + 2,
          "faults: the 2 withdrawn services are released at once (releases %ld, was %ld)", process_stat(rt, "releases"),
          releases);
    check(process_stat(rt, "contexts") == contexts, "faults: the failed load's context was freed (%ld, was %ld)",
          process_stat(rt, "contexts"), contexts);
    req = fmt("{\"op\":\"load_plugin\",\"path\":%s,\"config\":{\"fail_after\":0}}", path);
    r = yaia_execute(other, req);
    check_error(r, "plugin_init_failed", "faults: setup failing before any registration");
    yaia_free(r);
    free(req);
    check(process_stat(rt, "contexts") == contexts && process_stat(rt, "releases") == releases + 2,
          "faults: nothing registered, nothing released by the host");

    /* a clash halfway: "stats" is taken by a host service */
    host_svc hs;
    host_svc_init(&hs, ECHO_NOW);
    add_host_service(other, "stats", &hs, 0);
    req = fmt("{\"op\":\"load_plugin\",\"path\":%s}", path);
    r = yaia_execute(other, req);
    check_error(r, "duplicate_service", "faults: a name clash in the fifth registration fails the load");
    yaia_free(r);
    free(req);
    r = yaia_execute(other, "{\"op\":\"services\"}");
    check(r && strcmp(r, "{\"ok\":true,\"services\":[{\"blocking\":false,\"name\":\"stats\",\"origin\":\"host\"}]}") == 0,
          "faults: only the host's stats stays -- %s", r);
    yaia_free(r);
    check(process_stat(rt, "releases") == releases + 6 && process_stat(rt, "contexts") == contexts,
          "faults: the 4 registered before the clash are released (releases %ld, want %ld)",
          process_stat(rt, "releases"), releases + 6);
    r = perform(other, "stats", "x", "1", NULL);
    check_has(r, "faults: the host's stats still works", "{\"ok\":true,\"result\":1}", (const char *)NULL);
    yaia_free(r);
    yaia_runtime_free(other);
    host_svc_destroy(&hs);

    /* in the runtime config: yaia_runtime_new fails, keeps nothing */
    char *config = fmt("{\"plugins\":[{\"path\":%s,\"config\":{\"fail_after\":3}}]}", path);
    char *err = NULL;
    other = yaia_runtime_new(config, &err);
    check(other == NULL, "faults: a runtime whose plugin fails halfway is not created");
    check_error(err, "plugin_init_failed", "faults: yaia_runtime_new reports plugin_init_failed");
    yaia_free(err);
    free(config);
    check(process_stat(rt, "releases") == releases + 9 && process_stat(rt, "contexts") == contexts,
          "faults: its 3 services were released (releases %ld, want %ld)", process_stat(rt, "releases"),
          releases + 9);

    /* init_fails.so (from test_abi) */
    free(path);
    path = plugin_path(test_plugin_dir, "init_fails");
    req = fmt("{\"op\":\"load_plugin\",\"path\":%s}", path);
    r = yaia_execute(rt, req);
    check_error(r, "plugin_init_failed", "faults: init_fails.so");
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"services\"}");
    check_lacks(r, "halfway", "faults: init_fails's service is withdrawn");
    yaia_free(r);
    free(req);
    free(path);

    /* A runtime freed while a blocking call is held: the free cancels it
    ** (the gate stays shut, so a free that waited for the call to end by
    ** itself would hang), and the plugin is released once it returns. */
    other = runtime_with(NULL, "faults", NULL);
    if (other) {
        long base = process_stat(rt, "contexts");
        int64_t s2 = open_scene(other, "example/jobs", "faults: jobs in a runtime to free");
        run_expect(other, s2, "{\"service\":\"slow\",\"op\":\"s\"}", "running", "faults: a held slow call");
        r = await_stats(other, "{\"slow.inFlight\":1}");
        check(stat_of(r, "slow", "inFlight") == 1, "faults: the slow call is under way");
        yaia_free(r);
        set_current("faults: yaia_runtime_free with a blocking call held");
        yaia_runtime_free(other);
        char *until = fmt("{\"process.contexts\":%ld}", base - 1);
        r = await_stats(rt, until);
        check(stat_of(r, "process", "contexts") == base - 1,
              "faults: freeing a runtime during a blocking call releases the plugin once the call returns");
        yaia_free(r);
        free(until);
    }
    yaia_runtime_free(rt);
}

/* ================================================================ 6. store */

typedef struct {
    yaia_runtime *rt;
    int thread;
    int count;
    int ok;
} putter;

static void *put_many(void *arg)
{
    putter *p = arg;
    for (int i = 0; i < p->count; i++) {
        char *args = fmt("{\"key\":\"t%d/%04d\",\"value\":{\"i\":%d,\"t\":%d}}", p->thread, i, i, p->thread);
        char *r = perform(p->rt, "store", "put", args, NULL);
        char *want = fmt("{\"ok\":true,\"result\":{\"key\":\"t%d/%04d\"}}", p->thread, i);
        p->ok += r && strcmp(r, want) == 0;
        free(want);
        free(args);
        yaia_free(r);
    }
    return NULL;
}

static void expect_perform(yaia_runtime *rt, const char *op, const char *args, const char *want, const char *name)
{
    char *r = perform(rt, "store", op, args, NULL);
    check(r && strcmp(r, want) == 0, "%s -- store.%s %s -- expected %s -- got %s", name, op, args ? args : "(none)",
          want, r ? r : "(NULL)");
    yaia_free(r);
}

static void expect_store_error(yaia_runtime *rt, const char *op, const char *args, const char *code, const char *name)
{
    char *r = perform(rt, "store", op, args, NULL);
    char *detail = fmt("\"detail\":{\"code\":\"%s\",\"message\":", code);
    check_has(r, name, "\"code\":\"service_failed\"", detail, (const char *)NULL);
    free(detail);
    yaia_free(r);
}

static char *store_config(const char *db)
{
    char *path = plugin_path(plugin_dir, "store");
    char *q = json_quote(db);
    char *config = fmt("{" ALLOW_ALL ",\"plugins\":[{\"path\":%s,\"config\":{\"path\":%s}}]}", path, q);
    free(q);
    free(path);
    return config;
}

static void test_store(void)
{
    section("store plugin");
    yaia_runtime *rt = runtime_with(NULL, "store", NULL);
    if (!rt)
        return;
    char *r = yaia_execute(rt, "{\"op\":\"services\"}");
    check(r && strcmp(r, "{\"ok\":true,\"services\":[{\"blocking\":false,\"name\":\"store\",\"origin\":\"plugin\","
                         "\"plugin\":\"store\"}]}") == 0,
          "store: registers a service \"store\" that is not blocking -- got %s", r);
    yaia_free(r);

    expect_perform(rt, "put", "{\"key\":\"a\",\"value\":{\"x\":[1,2,{\"y\":null}]}}",
                   "{\"ok\":true,\"result\":{\"key\":\"a\"}}", "store: put");
    expect_perform(rt, "get", "{\"key\":\"a\"}",
                   "{\"ok\":true,\"result\":{\"key\":\"a\",\"value\":{\"x\":[1,2,{\"y\":null}]}}}", "store: get");
    expect_perform(rt, "put", "{\"key\":\"a\",\"value\":\"replaced\"}", "{\"ok\":true,\"result\":{\"key\":\"a\"}}",
                   "store: put again");
    expect_perform(rt, "get", "{\"key\":\"a\"}", "{\"ok\":true,\"result\":{\"key\":\"a\",\"value\":\"replaced\"}}",
                   "store: put replaces");
    static const char *values[] = {
        "null", "true", "false", "0", "-1", "1.5", "1e+300", "-2.5e-7", "\"\"", "\"\\u0000\\\"\\\\\\n\\u001f\"",
        "\"\xc3\xa9\xf0\x9f\x98\x80\"", "[]", "{}", "[[[[[[[[[[1]]]]]]]]]]",
        "{\"a\":{\"b\":[true,false,null,\"c\",{\"d\":-0.5}]},\"z\":\"\xe2\x82\xac\"}",
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char *args = fmt("{\"key\":\"v%zu\",\"value\":%s}", i, values[i]);
        char *want_put = fmt("{\"ok\":true,\"result\":{\"key\":\"v%zu\"}}", i);
        char *name = fmt("store: value %s round-trips (put)", values[i]);
        expect_perform(rt, "put", args, want_put, name);
        free(args);
        args = fmt("{\"key\":\"v%zu\"}", i);
        /* get answers with the value as the library prints it: its canonical
        ** form, which the library also gives a request's tag */
        char *canon_req = fmt("{\"op\":\"perform\",\"effect\":{\"service\":\"store\",\"op\":\"get\",\"args\":%s}}", args);
        char *got = yaia_execute(rt, canon_req);
        char *expected_value = NULL;
        {
            char *tag_req = fmt("{\"op\":\"services\",\"tag\":%s}", values[i]);
            char *tagged = yaia_execute(rt, tag_req);
            expected_value = raw_of(tagged, "tag");
            yaia_free(tagged);
            free(tag_req);
        }
        char *want = fmt("{\"ok\":true,\"result\":{\"key\":\"v%zu\",\"value\":%s}}", i,
                         expected_value ? expected_value : "?");
        free(name);
        name = fmt("store: value %s round-trips (get)", values[i]);
        check(got && strcmp(got, want) == 0, "%s -- expected %s -- got %s", name, want, got ? got : "(NULL)");
        free(name);
        free(want);
        free(expected_value);
        yaia_free(got);
        free(canon_req);
        free(args);
        free(want_put);
    }

    expect_store_error(rt, "get", "{\"key\":\"missing\"}", "not_found", "store: get of a missing key is not_found");
    expect_perform(rt, "delete", "{\"key\":\"a\"}", "{\"ok\":true,\"result\":{\"deleted\":true,\"key\":\"a\"}}",
                   "store: delete");
    expect_perform(rt, "delete", "{\"key\":\"a\"}", "{\"ok\":true,\"result\":{\"deleted\":false,\"key\":\"a\"}}",
                   "store: delete again");
    expect_store_error(rt, "get", "{\"key\":\"a\"}", "not_found", "store: a deleted key is not_found");

    /* list: prefixes, limits, order by UTF-8 bytes */
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char *args = fmt("{\"key\":\"v%zu\"}", i);
        yaia_free(perform(rt, "store", "delete", args, NULL));
        free(args);
    }
    static const char *keys[] = {"b/2", "a", "b/1", "\xc3\xa9", "b/3", "c", "b", "b0", "a\\u0000b", ""};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char *args = fmt("{\"key\":\"%s\",\"value\":%zu}", keys[i], i);
        char *want = fmt("{\"ok\":true,\"result\":{\"key\":\"%s\"}}", keys[i]);
        expect_perform(rt, "put", args, want, "store: put for list");
        free(want);
        free(args);
    }
    expect_perform(rt, "list", "{\"prefix\":\"b/\"}",
                   "{\"ok\":true,\"result\":{\"items\":[{\"key\":\"b/1\",\"value\":2},{\"key\":\"b/2\",\"value\":0},"
                   "{\"key\":\"b/3\",\"value\":4}]}}",
                   "store: list by prefix, in key order");
    expect_perform(rt, "list", "{\"prefix\":\"b/\",\"limit\":2}",
                   "{\"ok\":true,\"result\":{\"items\":[{\"key\":\"b/1\",\"value\":2},{\"key\":\"b/2\",\"value\":0}]}}",
                   "store: list with a limit");
    expect_perform(rt, "list", "{\"prefix\":\"b\"}",
                   "{\"ok\":true,\"result\":{\"items\":[{\"key\":\"b\",\"value\":6},{\"key\":\"b/1\",\"value\":2},"
                   "{\"key\":\"b/2\",\"value\":0},{\"key\":\"b/3\",\"value\":4},{\"key\":\"b0\",\"value\":7}]}}",
                   "store: the prefix itself is included");
    static const char everything[] =
        "{\"ok\":true,\"result\":{\"items\":[{\"key\":\"\",\"value\":9},{\"key\":\"a\",\"value\":1},"
        "{\"key\":\"a\\u0000b\",\"value\":8},{\"key\":\"b\",\"value\":6},{\"key\":\"b/1\",\"value\":2},"
        "{\"key\":\"b/2\",\"value\":0},{\"key\":\"b/3\",\"value\":4},{\"key\":\"b0\",\"value\":7},"
        "{\"key\":\"c\",\"value\":5},{\"key\":\"\xc3\xa9\",\"value\":3}]}}";
    expect_perform(rt, "list", NULL, everything, "store: list without args: everything, by UTF-8 bytes");
    expect_perform(rt, "list", "{}", everything, "store: list with {}: the same");
    expect_perform(rt, "list", "{\"prefix\":\"\"}", everything, "store: list with an empty prefix: the same");
    expect_perform(rt, "list", "{\"limit\":0}", "{\"ok\":true,\"result\":{\"items\":[]}}", "store: limit 0");
    expect_perform(rt, "list", "{\"prefix\":\"zz\"}", "{\"ok\":true,\"result\":{\"items\":[]}}",
                   "store: no match is an empty list");
    expect_perform(rt, "list", "{\"prefix\":\"a\\u0000\"}",
                   "{\"ok\":true,\"result\":{\"items\":[{\"key\":\"a\\u0000b\",\"value\":8}]}}",
                   "store: a prefix with a NUL byte");
    expect_perform(rt, "list", "{\"prefix\":\"\xc3\xa9\"}",
                   "{\"ok\":true,\"result\":{\"items\":[{\"key\":\"\xc3\xa9\",\"value\":3}]}}",
                   "store: a non-ASCII prefix");
    expect_perform(rt, "get", "{\"key\":\"a\\u0000b\"}",
                   "{\"ok\":true,\"result\":{\"key\":\"a\\u0000b\",\"value\":8}}", "store: a key with a NUL byte");
    expect_perform(rt, "get", "{\"key\":\"\"}", "{\"ok\":true,\"result\":{\"key\":\"\",\"value\":9}}",
                   "store: the empty key");

    /* argument errors */
    expect_store_error(rt, "get", NULL, "bad_args", "store: get without args");
    expect_store_error(rt, "get", "{}", "bad_args", "store: get without key");
    expect_store_error(rt, "get", "{\"key\":5}", "bad_args", "store: a key that is a number");
    expect_store_error(rt, "get", "[\"a\"]", "bad_args", "store: args that are an array");
    expect_store_error(rt, "get", "{\"key\":\"a\",\"extra\":1}", "bad_args", "store: an unknown member");
    expect_store_error(rt, "put", "{\"key\":\"a\"}", "bad_args", "store: put without value");
    expect_store_error(rt, "put", "{\"value\":1}", "bad_args", "store: put without key");
    expect_store_error(rt, "delete", "{\"key\":null}", "bad_args", "store: delete of a null key");
    expect_store_error(rt, "list", "{\"limit\":-1}", "bad_args", "store: a negative limit");
    expect_store_error(rt, "list", "{\"limit\":1.5}", "bad_args", "store: a fractional limit");
    expect_store_error(rt, "list", "{\"limit\":10001}", "bad_args", "store: a limit too large");
    expect_store_error(rt, "list", "{\"limit\":\"5\"}", "bad_args", "store: a limit that is a string");
    expect_store_error(rt, "list", "{\"prefix\":1}", "bad_args", "store: a prefix that is a number");
    expect_store_error(rt, "list", "{\"key\":\"a\"}", "bad_args", "store: list takes no key");
    expect_store_error(rt, "list", "7", "bad_args", "store: list args that are a number");
    expect_store_error(rt, "frobnicate", "{}", "unknown_op", "store: an unknown op");
    expect_perform(rt, "list", "{\"limit\":10000,\"prefix\":\"c\"}",
                   "{\"ok\":true,\"result\":{\"items\":[{\"key\":\"c\",\"value\":5}]}}", "store: limit 10000");

    /* through a scene: the outcome arrives as an event */
    int64_t sid = open_scene(rt, "example/jobs", "store: open jobs");
    long long e = run_expect(rt, sid, "{\"service\":\"store\",\"op\":\"get\",\"args\":{\"key\":\"c\"}}", "running",
                             "store: get through a scene");
    yaia_free(expect_event(rt, e, "store: the get's outcome",
                           "\"log\":[{\"ok\":true,\"result\":{\"key\":\"c\",\"value\":5}}]", (const char *)NULL));
    e = run_expect(rt, sid, "{\"service\":\"store\",\"op\":\"get\",\"args\":{\"key\":\"nope\"}}", "running",
                   "store: a failing get through a scene");
    yaia_free(expect_event(rt, e, "store: not_found arrives as the catch action",
                           "{\"error\":{\"code\":\"not_found\",\"message\":", (const char *)NULL));

    /* many threads putting at once, through perform */
    enum { PUTTERS = 8, PUTS = 150 };
    putter ps[PUTTERS];
    pthread_t th[PUTTERS];
    for (int i = 0; i < PUTTERS; i++) {
        ps[i] = (putter){rt, i, PUTS, 0};
        pthread_create(&th[i], NULL, put_many, &ps[i]);
    }
    int all = 0;
    for (int i = 0; i < PUTTERS; i++) {
        pthread_join(th[i], NULL);
        all += ps[i].ok;
    }
    check(all == PUTTERS * PUTS, "store: %d concurrent puts from %d threads all succeed (%d ok)", PUTTERS * PUTS,
          PUTTERS, all);
    r = perform(rt, "store", "list", "{\"prefix\":\"t\",\"limit\":10000}", NULL);
    int items = 0;
    for (const char *p = r; p && (p = strstr(p, "{\"key\":\"t")) != NULL; p++)
        items++;
    check(items == PUTTERS * PUTS, "store: all %d concurrent puts are listed (%d)", PUTTERS * PUTS, items);
    check_has(r, "store: concurrent values intact", "{\"key\":\"t3/0149\",\"value\":{\"i\":149,\"t\":3}}",
              (const char *)NULL);
    yaia_free(r);
    yaia_runtime_free(rt);

    /* persistence in a file */
    char dir[] = "/tmp/yaia-store-XXXXXX";
    if (!check(mkdtemp(dir) != NULL, "store: mkdtemp"))
        return;
    char *db = fmt("%s/app.db", dir);
    char *config = store_config(db);
    char *err = NULL;
    rt = yaia_runtime_new(config, &err);
    check(rt != NULL, "store: a runtime with a database file -- %s", err ? err : "");
    yaia_free(err);
    if (rt) {
        expect_perform(rt, "put", "{\"key\":\"kept\",\"value\":{\"across\":\"runtimes\"}}",
                       "{\"ok\":true,\"result\":{\"key\":\"kept\"}}", "store file: put");
        expect_perform(rt, "put", "{\"key\":\"gone\",\"value\":1}", "{\"ok\":true,\"result\":{\"key\":\"gone\"}}",
                       "store file: put 2");
        expect_perform(rt, "delete", "{\"key\":\"gone\"}",
                       "{\"ok\":true,\"result\":{\"deleted\":true,\"key\":\"gone\"}}", "store file: delete");
        /* a second runtime on the same file at the same time (WAL) */
        yaia_runtime *rt2 = yaia_runtime_new(config, NULL);
        check(rt2 != NULL, "store file: a second runtime opens the same file");
        if (rt2) {
            expect_perform(rt2, "get", "{\"key\":\"kept\"}",
                           "{\"ok\":true,\"result\":{\"key\":\"kept\",\"value\":{\"across\":\"runtimes\"}}}",
                           "store file: the second runtime reads the first one's write");
            expect_perform(rt2, "put", "{\"key\":\"two\",\"value\":2}", "{\"ok\":true,\"result\":{\"key\":\"two\"}}",
                           "store file: the second runtime writes");
            expect_perform(rt, "get", "{\"key\":\"two\"}", "{\"ok\":true,\"result\":{\"key\":\"two\",\"value\":2}}",
                           "store file: the first runtime reads it");
            yaia_runtime_free(rt2);
        }
        struct stat st;
        char *wal = fmt("%s-wal", db);
        check(stat(wal, &st) == 0, "store file: the database uses WAL journaling (%s exists)", wal);
        free(wal);
        yaia_runtime_free(rt);
    }
    struct stat st;
    check(stat(db, &st) == 0 && st.st_size > 0, "store file: the database file exists after free");
    rt = yaia_runtime_new(config, NULL);
    check(rt != NULL, "store file: reopened");
    if (rt) {
        expect_perform(rt, "get", "{\"key\":\"kept\"}",
                       "{\"ok\":true,\"result\":{\"key\":\"kept\",\"value\":{\"across\":\"runtimes\"}}}",
                       "store file: data persists across runtime free and reopen");
        expect_store_error(rt, "get", "{\"key\":\"gone\"}", "not_found", "store file: deletes persist too");
        expect_perform(rt, "list", NULL,
                       "{\"ok\":true,\"result\":{\"items\":[{\"key\":\"kept\",\"value\":{\"across\":\"runtimes\"}},"
                       "{\"key\":\"two\",\"value\":2}]}}",
                       "store file: the list after reopening");
        yaia_runtime_free(rt);
    }
    free(config);
    static const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        char *f = fmt("%s%s", db, suffix[i]);
        unlink(f);
        free(f);
    }

    /* configuration errors */
    char *path = plugin_path(plugin_dir, "store");
    char *bad_dir = fmt("%s/no/such/dir/x.db", dir);
    char *bad_q = json_quote(bad_dir);
    char *junk = fmt("%s/junk.db", dir);
    FILE *jf = fopen(junk, "w");
    if (jf) {
        for (int i = 0; i < 200; i++)
            fputs("this is not an SQLite database. ", jf);
        fclose(jf);
    }
    char *junk_q = json_quote(junk);
    const char *bad_configs[][2] = {
        {"{\"path\":5}", "a path that is a number"},
        {"{\"path\":\"\"}", "an empty path"},
        {"{\"file\":\"x.db\"}", "an unknown key"},
        {NULL, "a file in a missing folder"},
        {"", "a file that is not a database"},
    };
    for (size_t i = 0; i < sizeof bad_configs / sizeof bad_configs[0]; i++) {
        char *pc = !bad_configs[i][0] ? fmt("{\"path\":%s}", bad_q)
                   : !*bad_configs[i][0] ? fmt("{\"path\":%s}", junk_q)
                                         : fmt("%s", bad_configs[i][0]);
        config = fmt("{\"plugins\":[{\"path\":%s,\"config\":%s}]}", path, pc);
        err = NULL;
        rt = yaia_runtime_new(config, &err);
        char *name = fmt("store config with %s is plugin_init_failed", bad_configs[i][1]);
        check(rt == NULL, "%s: no runtime", name);
        check_error(err, "plugin_init_failed", name);
        free(name);
        yaia_free(err);
        yaia_runtime_free(rt);
        free(config);
        free(pc);
    }
    unlink(junk);
    free(junk);
    free(junk_q);
    free(bad_q);
    free(bad_dir);
    free(path);
    free(db);
    check(rmdir(dir) == 0, "store: the temp folder is empty again (nothing left behind)");
}

/* ===================================== 7. the host API of plugin ABI 1.2 */

/* {"op":"perform"} of an op of the calls test plugin, compared whole. */
static void expect_calls(yaia_runtime *rt, const char *service, const char *op, const char *args, const char *want,
                         const char *name)
{
    char *r = perform(rt, service, op, args, NULL);
    check(r && strcmp(r, want) == 0, "%s -- %s.%s %s -- expected %s -- got %s", name, service, op,
          args ? args : "(none)", want, r ? r : "(NULL)");
    yaia_free(r);
}

static void expect_calls_error(yaia_runtime *rt, const char *op, const char *needle, const char *name)
{
    char *r = perform(rt, "calls", op, "{}", NULL);
    check_has(r, name, "\"ok\":false", needle, (const char *)NULL);
    yaia_free(r);
}

/* Returns once a hold job waits at the plugin's gate. */
static void wait_holding(yaia_runtime *rt)
{
    char *r = perform(rt, "calls", "holding", NULL, NULL);
    check_has(r, "host API: a hold job waits at the gate", "\"holding\":true", (const char *)NULL);
    yaia_free(r);
}

static void test_host_api(void)
{
    section("host API: reading a call, building its result, queues");
    char *path = plugin_path(test_plugin_dir, "calls");
    char *config = fmt("{" ALLOW_ALL ",\"limits\":{\"request_bytes\":65536},"
                       "\"plugins\":[{\"path\":%s,\"config\":{\"greeting\":\"hi\",\"n\":3}}]}", path);
    free(path);
    off_t mark = log_mark();
    char *err = NULL;
    yaia_runtime *rt = examples_runtime(config, &err);
    check(rt != NULL, "host API: the calls plugin loads -- %s", err ? err : "");
    yaia_free(err);
    free(config);
    if (!rt)
        return;

    /* Typed reads, inline and from a queued job (after perform() returned). */
    static const char *reads[][3] = {
        {"{\"as\":\"string\",\"name\":\"v\",\"v\":\"a\\u0000b\"}",
         "{\"length\":3,\"rc\":0,\"terminated\":true,\"value\":\"a\\u0000b\"}", "a string with a NUL byte, and its length"},
        {"{\"as\":\"string\",\"name\":\"v\",\"v\":\"\"}", "{\"length\":0,\"rc\":0,\"terminated\":true,\"value\":\"\"}",
         "the empty string"},
        {"{\"as\":\"string\",\"name\":\"v\",\"v\":5}", "{\"rc\":8}", "a number read as a string is YAIA_ERR_TYPE"},
        {"{\"as\":\"string\",\"name\":\"w\"}", "{\"rc\":7}", "a missing member is YAIA_ERR_MISSING"},
        {"{\"as\":\"int\",\"name\":\"v\",\"v\":-9007199254740993}", "{\"rc\":0,\"value\":-9007199254740993}",
         "an integer beyond 2^53, exactly"},
        {"{\"as\":\"int\",\"name\":\"v\",\"v\":2.0}", "{\"rc\":0,\"value\":2}", "2.0 is an integer"},
        {"{\"as\":\"int\",\"name\":\"v\",\"v\":2.5}", "{\"rc\":8,\"value\":-7}", "2.5 is no integer; the value is untouched"},
        {"{\"as\":\"int\",\"name\":\"v\",\"v\":9223372036854775808}", "{\"rc\":8,\"value\":-7}", "2^63 is out of range"},
        {"{\"as\":\"int\",\"name\":\"v\",\"v\":\"3\"}", "{\"rc\":8,\"value\":-7}", "a string is no integer"},
        {"{\"as\":\"double\",\"name\":\"v\",\"v\":-1.5}", "{\"rc\":0,\"value\":-1.5}", "a double"},
        {"{\"as\":\"double\",\"name\":\"v\",\"v\":true}", "{\"rc\":8,\"value\":-7.5}", "true is no number"},
        {"{\"as\":\"bool\",\"name\":\"v\",\"v\":true}", "{\"rc\":0,\"value\":1}", "true"},
        {"{\"as\":\"bool\",\"name\":\"v\",\"v\":false}", "{\"rc\":0,\"value\":0}", "false"},
        {"{\"as\":\"bool\",\"name\":\"v\",\"v\":null}", "{\"rc\":8,\"value\":-1}", "null is no bool"},
        {"{\"as\":\"json\",\"name\":\"v\",\"v\":{\"b\": [1, \"x\"], \"a\": null}}",
         "{\"length\":22,\"rc\":0,\"terminated\":true,\"value\":\"{\\\"a\\\":null,\\\"b\\\":[1,\\\"x\\\"]}\"}",
         "JSON text: compact, keys sorted"},
        {"{\"as\":\"json\",\"name\":\"v\",\"v\":\"q\"}", "{\"length\":3,\"rc\":0,\"terminated\":true,\"value\":\"\\\"q\\\"\"}",
         "a string as JSON text is quoted"},
        {"{\"as\":\"json\",\"name\":\"w\"}", "{\"rc\":7}", "JSON text of a missing member"},
        {"{\"as\":\"type\",\"name\":\"v\",\"v\":null}", "{\"rc\":1}", "the type of null"},
        {"{\"as\":\"type\",\"name\":\"v\",\"v\":false}", "{\"rc\":2}", "the type of a bool"},
        {"{\"as\":\"type\",\"name\":\"v\",\"v\":0}", "{\"rc\":3}", "the type of a number"},
        {"{\"as\":\"type\",\"name\":\"v\",\"v\":\"\"}", "{\"rc\":4}", "the type of a string"},
        {"{\"as\":\"type\",\"name\":\"v\",\"v\":[]}", "{\"rc\":5}", "the type of an array"},
        {"{\"as\":\"type\",\"name\":\"v\",\"v\":{}}", "{\"rc\":6}", "the type of an object"},
        {"{\"as\":\"type\",\"name\":\"w\"}", "{\"rc\":0}", "no member: YAIA_JSON_NONE"},
        {"{\"as\":\"type\"}", "{\"rc\":6}", "a NULL name reads the args themselves"},
        {"{\"as\":\"count\"}", "{\"rc\":1}", "the args' members"},
        {"{\"as\":\"count\",\"name\":\"v\",\"v\":[1,[2],3]}", "{\"rc\":3}", "an array's elements"},
        {"{\"as\":\"count\",\"name\":\"v\",\"v\":\"abc\"}", "{\"rc\":0}", "a string counts 0"},
    };
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        char *want = fmt("{\"ok\":true,\"result\":%s}", reads[i][1]);
        char *name = fmt("host API read: %s", reads[i][2]);
        expect_calls(rt, "calls", "read", reads[i][0], want, name);
        free(name);
        name = fmt("host API read in a queued job: %s", reads[i][2]);
        expect_calls(rt, "calls", "read_queued", reads[i][0], want, name);
        free(name);
        free(want);
    }

    /* Building results. */
    expect_calls(rt, "calls", "build", NULL,
                 "{\"ok\":true,\"result\":{\"arr\":[1,\"two\",{\"three\":false}],\"b\":true,\"d\":1.5,\"i\":-42,"
                 "\"j\":{\"a\":[null],\"z\":1},\"o\":{\"deep\":{\"n\":5}},\"s\":\"a\\u0000b\\\"\",\"t\":true}}",
                 "host API: a result built of every kind of value, closed by call_finish");
    expect_calls(rt, "calls", "misuse", "{\"k\":\"str\"}", "{\"ok\":true,\"result\":{\"rcs\":[4,1,1,1,0,4,4,1,8,7,0,0]}}",
                 "host API: misuse answers STATE, ARGUMENT, TYPE, MISSING and changes nothing");
    expect_calls(rt, "calls", "pong", NULL, "{\"ok\":true,\"result\":\"pong\"}", "host API: a result that is a string");
    expect_calls(rt, "calls", "array", NULL, "{\"ok\":true,\"result\":[1,2,{\"a\":true}]}",
                 "host API: a result that is an array");
    expect_calls_error(rt, "error", "\"detail\":{\"code\":\"nope\",\"extra\":5,\"message\":\"it failed\"}",
                       "host API: call_error adds code and message to the members built");
    expect_calls_error(rt, "plain_error", "\"detail\":{\"message\":\"plain\"}", "host API: call_error without a code");
    expect_calls_error(rt, "bad_json", "\"code\":\"bad_result\"", "host API: result_json of text that is not JSON fails the call");
    expect_calls_error(rt, "bad_utf8", "\"code\":\"bad_result\"", "host API: a string that is not UTF-8 fails the call");
    expect_calls_error(rt, "nan", "\"code\":\"bad_result\"", "host API: NaN fails the call");
    expect_calls_error(rt, "too_deep", "\"code\":\"limit_exceeded\"", "host API: nesting past the depth limit fails the call");
    expect_calls_error(rt, "too_big", "\"code\":\"limit_exceeded\"", "host API: a result past request_bytes fails the call");
    expect_calls(rt, "calls", "stale", NULL, "{\"ok\":true,\"result\":{}}",
                 "host API: call_finish with nothing built answers {}");
    expect_calls(rt, "calls", "config", NULL,
                 "{\"ok\":true,\"result\":{\"after_setup\":true,\"count\":2,\"greeting\":\"hi\",\"n\":3}}",
                 "host API: setup() reads its config; after setup the config handle is gone");
    expect_calls(rt, "calls", "log", NULL, "{\"ok\":true,\"result\":{}}", "host API: log after setup");

    /* Where jobs run: a thread that may block (a blocking service's perform(),
       or a direct call's, which only waits) runs the job of an idle queue itself. */
    expect_calls(rt, "calls", "where", NULL, "{\"ok\":true,\"result\":{\"inline\":true}}",
                 "host API: a direct call of an inline service runs the job on the waiting thread");
    expect_calls(rt, "calls_blocking", "where", NULL, "{\"ok\":true,\"result\":{\"inline\":true}}",
                 "host API: perform() of a blocking service runs the job of an idle queue at once");
    int64_t wid = open_scene(rt, "example/jobs", "host API: open jobs for where");
    run_expect(rt, wid, "{\"service\":\"calls\",\"op\":\"where\"}", "running", "host API: a scene's job");
    yaia_free(next_event(rt, "host API: the scene's job ends"));
    expect_log(rt, wid, "[{\"ok\":true,\"result\":{\"inline\":false}}]",
               "host API: the job of an inline service's call from a scene runs on a worker thread");
    yaia_free(close_scene(rt, wid));

    /* Jobs run one at a time, in order: none runs while a hold job waits. */
    enum { SEQ = 20 };
    int64_t sid = open_scene(rt, "example/jobs", "host API: open jobs");
    run_expect(rt, sid, "{\"service\":\"calls\",\"op\":\"hold\"}", "running", "host API: a hold job");
    wait_holding(rt);
    char *want = fmt("[{\"ok\":true,\"result\":{\"held\":true}}");
    for (int i = 0; i < SEQ; i++) {
        char *effect = fmt("{\"service\":\"calls\",\"op\":\"seq\",\"args\":{\"n\":%d}}", i);
        run_expect(rt, sid, effect, "running", "host API: a seq job queued behind it");
        free(effect);
        char *longer = fmt("%s,{\"ok\":true,\"result\":{\"during_hold\":false,\"n\":%d,\"ran\":%d}}", want, i, i);
        free(want);
        want = longer;
    }
    char *closed = fmt("%s]", want);
    free(want);
    expect_calls(rt, "calls", "open", NULL, "{\"ok\":true,\"result\":{}}", "host API: open the gate");
    for (int i = 0; i <= SEQ; i++) {
        char *r = next_event(rt, "host API: the queued jobs' outcomes");
        check(r != NULL, "host API: outcome %d of %d arrives", i + 1, SEQ + 1);
        yaia_free(r);
    }
    expect_log(rt, sid, closed, "host API: the jobs ran in order, one at a time, after the hold job");
    free(closed);
    yaia_free(close_scene(rt, sid));

    /* queue_free: waiting jobs fail as cancelled, the running one is waited for. */
    sid = open_scene(rt, "example/jobs", "host API: open jobs again");
    run_expect(rt, sid, "{\"service\":\"calls\",\"op\":\"hold\"}", "running", "host API: hold again");
    wait_holding(rt);
    long long waiting = run_expect(rt, sid, "{\"service\":\"calls\",\"op\":\"seq\",\"args\":{\"n\":99}}", "running",
                                   "host API: a job waiting behind it");
    run_expect(rt, sid, "{\"service\":\"calls_blocking\",\"op\":\"drop\"}", "running",
               "host API: drop frees the queue (on a worker thread)");
    yaia_free(expect_event(rt, waiting, "host API: the waiting job's call fails as cancelled", "\"code\":\"cancelled\"",
                           (const char *)NULL));
    expect_calls(rt, "calls", "open", NULL, "{\"ok\":true,\"result\":{}}", "host API: open the gate again");
    for (int i = 0; i < 2; i++) {
        char *r = next_event(rt, "host API: the hold and drop outcomes");
        check(r != NULL, "host API: outcome of %s arrives", i ? "drop" : "hold");
        yaia_free(r);
    }
    char *log = jobs_log(rt, sid);
    check(strstr(log, "{\"ok\":true,\"result\":{\"held\":true}}") != NULL, "host API: the running job finished -- %s", log);
    check(strstr(log, "{\"ok\":true,\"result\":{\"done_before_return\":true,\"submit_after\":2}}") != NULL,
          "host API: queue_free returned after the running job, and the freed queue answers YAIA_ERR_STALE -- %s", log);
    free(log);
    expect_calls(rt, "calls", "read_queued", "{\"as\":\"type\"}", "{\"ok\":true,\"result\":{\"rc\":6}}",
                 "host API: a new queue serves after the old was freed");
    yaia_runtime_free(rt);

    char *text = log_since(mark);
    check(strstr(text, "[calls]: calls: after setup") != NULL, "host API: log() after setup still names the plugin");
    check(strstr(text, "yaia error [calls]") == NULL,
          "host API: every function answered the expected code (the plugin logs any other) -- %s", text);
    free(text);
}

/* A plugin built against the plugin header of ABI 1.1 (Tests/plugins/abi-1.1). */
static void test_old_api(void)
{
    section("a plugin built against the ABI 1.1 header");
    off_t mark = log_mark();
    yaia_runtime *rt = runtime_with(NULL, "old_api", NULL);
    if (!rt)
        return;
    expect_calls(rt, "old", "echo", "{\"x\":[1,\"y\"]}", "{\"ok\":true,\"result\":{\"x\":[1,\"y\"]}}",
                 "old plugin: its service answers");
    expect_calls(rt, "old", "table", NULL, "{\"ok\":true,\"result\":{\"abi\":1,\"older\":true}}",
                 "old plugin: it was handed the larger table and read only its own part");
    expect_calls(rt, "old_typed", "add", "[2,40]", "{\"ok\":true,\"result\":42}",
                 "old plugin: add_functions, the last field of its table, works");
    int64_t sid = open_scene(rt, "example/jobs", "old plugin: open jobs");
    long long e = run_expect(rt, sid, "{\"service\":\"old\",\"op\":\"later\",\"args\":7}", "running",
                             "old plugin: a call completed from its own thread");
    yaia_free(expect_event(rt, e, "old plugin: the later outcome", "{\"ok\":true,\"result\":7}", (const char *)NULL));
    yaia_runtime_free(rt);
    char *text = log_since(mark);
    check(strstr(text, "[old_api]: old_api: set up") != NULL, "old plugin: its log names it -- %s", text);
    check(strstr(text, "yaia error [old_api]") == NULL, "old plugin: every completion answered YAIA_OK -- %s", text);
    free(text);
}

/* ======================================================= 8. example/search */

static void test_search(void)
{
    section("example/search");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL ",\"clock\":\"manual\"}", NULL);
    host_svc s;
    host_svc_init(&s, HOLD);
    add_host_service(rt, "search", &s, 0);
    int64_t sid = open_scene(rt, "example/search", "search: open");

    char *r = send_action(rt, sid, "{\"type\":\"queryChanged\",\"payload\":\"a\"}");
    check_has(r, "search: a query emits search.query with key search",
              "\"effects\":[{\"args\":{\"query\":\"a\"},\"id\":", "\"key\":\"search\",\"op\":\"query\",\"service\":\"search\",\"status\":\"running\"}]",
              "\"viewModel\":{\"error\":null,\"isSearching\":true,\"query\":\"a\",\"results\":[]}", (const char *)NULL);
    yaia_free(r);
    r = send_action(rt, sid, "{\"type\":\"queryChanged\",\"payload\":\"ab\"}");
    long long second = effect_id(r);
    check_has(r, "search: the next query emits a new search", "{\"query\":\"ab\"}", "\"status\":\"running\"",
              (const char *)NULL);
    yaia_free(r);
    check(get_int(&s, &s.performs) == 2, "search: the service was asked twice (%d)", s.performs);
    check(call_at(&s, 0).cancelled == 1, "search: the new query cancelled the one in flight (latest)");
    check(strcmp(call_at(&s, 1).args, "{\"query\":\"ab\"}") == 0, "search: perform got {\"query\":\"ab\"} (%s)",
          s.calls[1].args);
    check(complete_at(&s, 0, "{\"query\":\"a\",\"items\":[\"stale\"]}") == YAIA_ERR_STALE,
          "search: the old search's late answer is YAIA_ERR_STALE");
    expect_no_event(rt, "search: the stale answer is dropped");
    check(complete_at(&s, 1, "{\"query\":\"ab\",\"items\":[\"abc\",\"abd\"]}") == YAIA_OK,
          "search: the live search completes");
    r = expect_event(rt, second, "search: results arrive",
                     "\"viewModel\":{\"error\":null,\"isSearching\":false,\"query\":\"ab\",\"results\":[\"abc\",\"abd\"]}",
                     (const char *)NULL);
    yaia_free(r);

    /* an empty query cancels */
    yaia_free(send_action(rt, sid, "{\"type\":\"queryChanged\",\"payload\":\"abc\"}"));
    r = send_action(rt, sid, "{\"type\":\"queryChanged\",\"payload\":\"\"}");
    check_has(r, "search: an empty query emits nothing and clears",
              "\"effects\":[]", "\"viewModel\":{\"error\":null,\"isSearching\":false,\"query\":\"\",\"results\":[]}",
              (const char *)NULL);
    yaia_free(r);
    check(call_at(&s, 2).cancelled == 1, "search: the empty query cancelled the search in flight");
    check(complete_at(&s, 2, "{\"query\":\"abc\",\"items\":[]}") == YAIA_ERR_STALE,
          "search: its late answer is YAIA_ERR_STALE");
    expect_no_event(rt, "search: nothing after the cancel");

    /* failure */
    yaia_free(send_action(rt, sid, "{\"type\":\"queryChanged\",\"payload\":\"x\"}"));
    check(yaia_call_fail(call_at(&s, 3).call, "{\"message\":\"index offline\"}") == YAIA_OK, "search: the service fails");
    r = next_event(rt, "search: failure");
    check_has(r, "search: the failure arrives as searchFailed",
              "\"viewModel\":{\"error\":\"index offline\",\"isSearching\":false,\"query\":\"x\"", (const char *)NULL);
    yaia_free(r);

    /* the scene's own deadline: 5 s */
    yaia_free(send_action(rt, sid, "{\"type\":\"queryChanged\",\"payload\":\"slow\"}"));
    advance(rt, 4.5, -1, "search: 4.5 s after the query");
    expect_no_event(rt, "search: no time-out before 5 s");
    check(call_at(&s, 4).cancelled == 0, "search: the search is still running after 4.5 s");
    advance(rt, 0.5, -1, "search: 5 s after the query (the earlier queries' deadlines pass too)");
    r = yaia_receive(rt, 0);
    check_has(r, "search: a search that never answers times out as searchFailed after 5 s", "\"isSearching\":false",
              "timed out", (const char *)NULL);
    yaia_free(r);
    check(call_at(&s, 4).cancelled == 1, "search: the timed-out search was cancelled");

    yaia_runtime_free(rt);
    host_svc_destroy(&s);
}

/* ================================================= borrowed answers under re-entry */

/* A host service whose perform() asks yaia_execute_borrowed before it
** completes, with the answer it got as its result: op "leaf" asks a JSON
** Logic sum, op "nest" performs "leaf", so a direct perform of "nest" runs
** two borrowed calls inside its caller's. */
static const char nest_sum[] = "{\"op\":\"logic\",\"rule\":{\"+\":[1,2]}}";
static const char nest_leaf[] = "{\"op\":\"perform\",\"effect\":{\"service\":\"nesting\",\"op\":\"leaf\"}}";
static const char nest_nest[] = "{\"op\":\"perform\",\"effect\":{\"service\":\"nesting\",\"op\":\"nest\"}}";
/* What nest_nest answers: each level's answer whole, inside the next. */
static const char nested_answer[] = "{\"ok\":true,\"result\":{\"ok\":true,\"result\":{\"ok\":true,\"result\":3}}}";

static void nesting_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)args_json;
    const char *answer = yaia_execute_borrowed(ctx, strcmp(op, "nest") == 0 ? nest_leaf : nest_sum);
    yaia_call_complete(call, answer ? answer : "null");
}

static void nesting_cancel(void *ctx, yaia_call *call) { (void)ctx, (void)call; }

/* A notifier that, once armed, performs "nest" borrowed: three levels
** below the call that queued the event. */
typedef struct {
    yaia_runtime *rt;
    int armed, calls;
    char got[256];
} nesting_notes;

static void nesting_notify(void *ctx)
{
    nesting_notes *n = ctx;
    if (!__atomic_exchange_n(&n->armed, 0, __ATOMIC_SEQ_CST))
        return;
    const char *answer = yaia_execute_borrowed(n->rt, nest_nest);
    snprintf(n->got, sizeof n->got, "%s", answer ? answer : "(NULL)");
    __atomic_fetch_add(&n->calls, 1, __ATOMIC_SEQ_CST);
}

static void test_borrowed_reentry(void)
{
    section("borrowed answers under re-entry");
    yaia_runtime *rt = runtime_with("\"clock\":\"manual\"", NULL);
    if (!rt)
        return;
    yaia_service nesting = {
        .size = sizeof nesting, .name = "nesting", .ctx = rt, .perform = nesting_perform, .cancel = nesting_cancel,
    };
    char *r = yaia_add_service(rt, &nesting);
    check_has(r, "reentry: yaia_add_service(nesting)", "\"ok\":true", (const char *)NULL);
    yaia_free(r);

    const char *b = yaia_execute_borrowed(rt, nest_nest);
    check(b && strcmp(b, nested_answer) == 0,
          "reentry: a borrowed answer with two borrowed calls nested inside it is whole -- got %s", b ? b : "(NULL)");
    b = yaia_execute_borrowed(rt, nest_leaf);
    check(b && strcmp(b, "{\"ok\":true,\"result\":{\"ok\":true,\"result\":3}}") == 0,
          "reentry: one nested call -- got %s", b ? b : "(NULL)");
    r = yaia_execute(rt, nest_nest);
    check(r && strcmp(r, nested_answer) == 0, "reentry: borrowed calls inside yaia_execute -- got %s", r ? r : "(NULL)");
    yaia_free(r);

    /* the notifier: called inside the borrowed send whose completion queued the event */
    host_svc now;
    host_svc_init(&now, ECHO_NOW);
    add_host_service(rt, "now", &now, 0);
    nesting_notes n = {.rt = rt};
    check(yaia_set_notifier(rt, nesting_notify, &n) == YAIA_OK, "reentry: notifier set");
    int64_t sid = open_scene(rt, "example/jobs", "reentry: open jobs");
    char *send = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"run\",\"payload\":"
                     "{\"service\":\"now\",\"op\":\"echo\",\"args\":7}}}", (long long)sid);
    __atomic_store_n(&n.armed, 1, __ATOMIC_SEQ_CST);
    b = yaia_execute_borrowed(rt, send);
    char *want = fmt("{\"effects\":[{\"args\":7,\"id\":1,\"op\":\"echo\",\"service\":\"now\",\"status\":\"running\"}],"
                     "\"ok\":true,\"routes\":[],\"scene\":%lld,\"seq\":1,\"viewModel\":{\"log\":[]}}", (long long)sid);
    check(b && strcmp(b, want) == 0, "reentry: a borrowed send whose notifier nests three borrowed calls is whole -- got %s",
          b ? b : "(NULL)");
    check(n.calls == 1 && strcmp(n.got, nested_answer) == 0,
          "reentry: the notifier's own borrowed answer is whole (calls %d) -- got %s", n.calls, n.got);
    r = next_event(rt, "reentry: the echo's outcome");
    check_has(r, "reentry: the outcome's update", "\"event\":\"update\"", "{\"ok\":true,\"result\":7}", (const char *)NULL);
    yaia_free(r);
    b = yaia_execute_borrowed(rt, nest_sum);
    check(b && strcmp(b, "{\"ok\":true,\"result\":3}") == 0, "reentry: the thread's buffer serves the next call -- got %s",
          b ? b : "(NULL)");
    free(want);
    free(send);
    yaia_runtime_free(rt);
    host_svc_destroy(&now);
}

/* ================================================================ main */

int main(void)
{
    harness_start();
    capture_log();

    plugin_dir = env_or("YAIA_PLUGIN_DIR", ".build/yaia/plugins");
    test_plugin_dir = env_or("YAIA_TEST_PLUGIN_DIR", ".build/yaia/test-plugins");

    test_concurrent();
    test_latest();
    test_queue();
    test_cancel_command();
    test_timeouts();
    test_close_cancels();
    test_pool();
    test_notifier();
    test_perform();
    test_borrowed_reentry();
    test_faults();
    test_store();
    test_host_api();
    test_old_api();
    test_search();

    alarm(0);
    replay_log();
    return harness_finish();
}
