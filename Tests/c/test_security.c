/*
** test_security.c -- the request path as an attacker meets it (docs/security.md).
**
** A runtime made without "allow" refuses every privileged op with
** not_permitted and changes nothing; a granted runtime confines the files
** requests name; every limit is reached, answered with limit_exceeded, and
** leaves the runtime usable; memory stays flat under a flood of events.
*/
#define _GNU_SOURCE
#include <stdatomic.h>
#include <sys/stat.h>

#include "harness.h"

static int64_t open_login(yaia_runtime *rt, const char *name) { return open_scene(rt, "example/login", name); }

/* Sends, checks "ok":true, frees. */
static void send_ok(yaia_runtime *rt, int64_t scene, const char *action, const char *name)
{
    char *r = send_action(rt, scene, action);
    check_has(r, name, "\"ok\":true", (const char *)NULL);
    yaia_free(r);
}

/* ------------------------------------------------------------ privileges */

static void test_untrusted(void)
{
    section("untrusted requests");
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    if (!check(rt != NULL, "a runtime without grants"))
        return;
    int64_t sid = open_login(rt, "untrusted: open login");

    char dir[] = "/tmp/yaia-security-XXXXXX";
    check(mkdtemp(dir) != NULL, "untrusted: a temp dir");
    char *marker = fmt("%s/ran", dir);
    char *bind = fmt("{\"op\":\"bind\",\"service\":\"c\",\"library\":\"libc.so.6\",\"ops\":{\"system\":\"int32(string)\"}}");
    char *perform = fmt("{\"op\":\"perform\",\"effect\":{\"service\":\"c\",\"op\":\"system\",\"args\":[\"touch %s\"]}}", marker);
    char *load = fmt("{\"op\":\"load_plugin\",\"path\":\"%s/auth.so\"}", env_or("YAIA_PLUGIN_DIR", ".build/yaia/plugins"));
    char *victim = fmt("%s/victim", dir);
    FILE *f = fopen(victim, "w");
    if (f) {
        fputs("precious", f);
        fclose(f);
    }
    char *journal = fmt("{\"op\":\"journal\",\"start\":\"%s\"}", victim);

    const char *requests[] = {bind, perform, load, journal, "{\"op\":\"journal\",\"start\":\"../x\"}",
                              "{\"op\":\"replay\",\"journal\":\"/etc/passwd\"}", "{\"op\":\"snapshot\"}",
                              "{\"op\":\"restore\",\"snapshot\":{}}", "{\"op\":\"rewind\",\"to\":0}"};
    for (size_t i = 0; i < sizeof requests / sizeof *requests; i++) {
        char *r = yaia_execute(rt, requests[i]);
        check_has(r, "untrusted: a privileged op is refused at /op", "\"code\":\"not_permitted\"", "\"at\":\"/op\"",
                  (const char *)NULL);
        yaia_free(r);
    }
    char *r = yaia_execute(rt, "{\"op\":\"services\"}");
    check_has(r, "untrusted: nothing was bound or loaded", "\"services\":[]", (const char *)NULL);
    yaia_free(r);
    struct stat st;
    check(stat(marker, &st) != 0, "untrusted: no command ran");
    f = fopen(victim, "r");
    char text[16] = {0};
    if (f) {
        check(fread(text, 1, sizeof text - 1, f) == 8, "untrusted: the victim file is whole");
        fclose(f);
    }
    check(strcmp(text, "precious") == 0, "untrusted: the victim file is untouched (%s)", text);
    send_ok(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}", "untrusted: the scene still works");

    unlink(victim);
    rmdir(dir);
    free(marker);
    free(bind);
    free(perform);
    free(load);
    free(victim);
    free(journal);
    yaia_runtime_free(rt);
}

static void test_confined(void)
{
    section("files confined to granted directories");
    char dir[] = "/tmp/yaia-granted-XXXXXX";
    if (!check(mkdtemp(dir) != NULL, "confined: a temp dir"))
        return;
    char *config = fmt("{\"allow\":{\"ops\":[\"journal\"],\"files\":[\"%s\"]}}", dir);
    yaia_runtime *rt = examples_runtime(config, NULL);
    free(config);
    if (!check(rt != NULL, "confined: a runtime granting journal in %s", dir))
        return;
    char *outside = fmt("{\"op\":\"journal\",\"start\":\"%s/../yaia-outside.jsonl\"}", dir);
    char *r = yaia_execute(rt, outside);
    check_has(r, "confined: a path out of the directory is refused at /start", "\"code\":\"not_permitted\"",
              "\"at\":\"/start\"", (const char *)NULL);
    yaia_free(r);
    expect_error(rt, "{\"op\":\"snapshot\"}", "not_permitted", "confined: ops not granted stay refused");
    char *inside = fmt("{\"op\":\"journal\",\"start\":\"%s/j.jsonl\"}", dir);
    r = yaia_execute(rt, inside);
    check_has(r, "confined: a path inside is accepted", "\"ok\":true", (const char *)NULL);
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"journal\",\"stop\":true}");
    yaia_free(r);
    yaia_runtime_free(rt);
    char *file = fmt("%s/j.jsonl", dir);
    unlink(file);
    rmdir(dir);
    free(file);
    free(outside);
    free(inside);
}

/* ------------------------------------------------------------ limits */

static long resident_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A million events nobody receives: the queue holds the newest "events"
** of them, counts the rest, and memory stays flat. */
static void test_event_flood(void)
{
    section("a flood of events");
    yaia_runtime *rt = examples_runtime("{\"inspect\":true,\"limits\":{\"events\":1000}}", NULL);
    if (!check(rt != NULL, "flood: runtime"))
        return;
    int64_t sid = open_login(rt, "flood: open login");
    long before = 0;
    int failures = 0;
    for (int i = 0; i < 1000000; i++) {
        if (i == 10000)
            before = resident_kb();
        char *r = yaia_send(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"someone@example.com\"}");
        failures += !(r && strstr(r, "\"ok\":true"));
        yaia_free(r);
    }
    long after = resident_kb();
    check(failures == 0, "flood: every send succeeded (%d failed)", failures);
    check(after - before < 16 * 1024, "flood: resident memory flat over 990,000 events (%ld kB -> %ld kB)", before, after);
    char *r = yaia_execute(rt, "{\"op\":\"limits\"}");
    check_has(r, "flood: 1000 queued, 999,000 dropped and counted", "\"events\":1000", "\"dropped\":999000",
              (const char *)NULL);
    yaia_free(r);
    r = yaia_receive(rt, 0);
    check_has(r, "flood: the first event received says how many were dropped", "\"dropped\":999000", (const char *)NULL);
    yaia_free(r);
    yaia_runtime_free(rt);
}

/* A host service that performs itself again from inside perform(). */
static yaia_runtime *loop_rt;
static atomic_int loop_depth, loop_max;

static void loop_perform(void *ctx, yaia_call *call, const char *op, const char *args)
{
    (void)ctx;
    (void)op;
    (void)args;
    int depth = atomic_fetch_add(&loop_depth, 1) + 1;
    if (depth > atomic_load(&loop_max))
        atomic_store(&loop_max, depth);
    char *r = yaia_execute(loop_rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"loop\",\"op\":\"again\"}}");
    /* The answer, success or envelope, is the result: the outermost sees the innermost. */
    yaia_call_complete(call, r ? r : "null");
    yaia_free(r);
    atomic_fetch_sub(&loop_depth, 1);
}

static void test_reentry(void)
{
    section("a service re-entering the runtime");
    loop_rt = examples_runtime("{\"allow\":{\"ops\":[\"perform\"]},\"limits\":{\"reentry\":6}}", NULL);
    if (!check(loop_rt != NULL, "reentry: runtime"))
        return;
    yaia_service svc = {.size = sizeof svc, .name = "loop", .perform = loop_perform};
    char *r = yaia_add_service(loop_rt, &svc);
    yaia_free(r);
    r = yaia_execute(loop_rt, "{\"op\":\"perform\",\"effect\":{\"service\":\"loop\",\"op\":\"again\"}}");
    check_has(r, "reentry: the innermost call stops with limit_exceeded (reentry)", "\"code\":\"limit_exceeded\"",
              "\"limit\":\"reentry\"", (const char *)NULL);
    yaia_free(r);
    check(atomic_load(&loop_max) == 6, "reentry: perform ran 6 deep, no deeper (%d)", atomic_load(&loop_max));
    int64_t sid = open_login(loop_rt, "reentry: the runtime is still usable");
    check(sid > 0, "reentry: opened a scene after");
    yaia_runtime_free(loop_rt);
}

static void test_request_limits(void)
{
    section("request size and depth");
    yaia_runtime *rt = examples_runtime("{\"limits\":{\"request_bytes\":4096,\"depth\":8}}", NULL);
    if (!check(rt != NULL, "limits: runtime"))
        return;
    int64_t sid = open_login(rt, "limits: open login");
    char big[8192];
    int n = snprintf(big, sizeof big, "{\"type\":\"emailChanged\",\"payload\":\"");
    memset(big + n, 'x', 5000);
    strcpy(big + n + 5000, "\"}");
    char *r = yaia_send(rt, sid, big);
    check_has(r, "limits: an action over request_bytes", "\"code\":\"limit_exceeded\"", "\"limit\":\"request_bytes\"",
              (const char *)NULL);
    yaia_free(r);
    r = yaia_execute_n(rt, big, (size_t)-1);
    check_has(r, "limits: a length of SIZE_MAX is refused, not read", "\"limit\":\"request_bytes\"", (const char *)NULL);
    yaia_free(r);
    /* depth 8: a text nests at most 8 + 8 levels. */
    r = yaia_send(rt, sid, "{\"type\":\"emailChanged\",\"payload\":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}");
    check_has(r, "limits: an action nested over depth", "\"limit\":\"depth\"", (const char *)NULL);
    yaia_free(r);
    r = yaia_open(rt, "example/login", "{\"a\":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}");
    check_has(r, "limits: open arguments nested over depth", "\"limit\":\"depth\"", (const char *)NULL);
    yaia_free(r);
    send_ok(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}", "limits: the scene still works");
    yaia_runtime_free(rt);

    rt = examples_runtime("{\"limits\":{\"scenes\":2}}", NULL);
    if (!check(rt != NULL, "limits: runtime with 2 scenes"))
        return;
    open_login(rt, "limits: scene 1");
    open_login(rt, "limits: scene 2");
    r = yaia_open(rt, "example/login", NULL);
    check_has(r, "limits: a third scene is refused", "\"limit\":\"scenes\"", (const char *)NULL);
    yaia_free(r);
    expect_ok(rt, "{\"op\":\"close\",\"scene\":1}", "limits: close one", (const char *)NULL);
    check(open_login(rt, "limits: then there is room") > 0, "limits: opened after a close");
    yaia_runtime_free(rt);
}

int main(void)
{
    harness_start();
    test_untrusted();
    test_confined();
    test_request_limits();
    test_reentry();
    test_event_flood();
    return harness_finish();
}
