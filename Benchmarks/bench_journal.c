/*
** bench_journal.c -- what the journal costs, what replay costs, and how
** long snapshots and restores of a large runtime take.
**
**   bench_journal PATH_TO_libyaia-examples.so [JOURNAL_OUT]
**
** Every runtime names the examples pack (example/login, example/home) in
** its config, as do the runtimes that replay and restore.
**
** (a) yaia_send(emailChanged) on example/login, INPUTS inputs per round,
**     without and with a journal, rounds alternating. Three clocks: wall
**     time, the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) and the
**     process's CPU time -- the journal formats and writes lines on a
**     thread of its own, so the caller's CPU shows what a send pays and the
**     process's what the journal costs in all. A first journaled round,
**     not counted, starts that thread: from then on the process is
**     multi-threaded (glibc's locks take their atomic path) in both kinds
**     of rounds. "stop" is the final flush ({"op":"journal","stop":true}),
**     paid once per journal.
** (b) {"op":"replay"} of one of those journals (INPUTS + 1 inputs), per input.
**     With JOURNAL_OUT, the journals are written there and the last one is
**     kept (for bench_journal.py); else in a temporary folder.
** (c) {"op":"snapshot"} and {"op":"restore"} (into a fresh runtime) of a
**     runtime with 1,000 open scenes: 100 flows [login, home, detail], 450
**     login and 250 home scenes on their own; homes hold 20 items each.
** Every figure is the median of its rounds.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "yaia.h"
#include "bench.h"

#define INPUTS 100000
#define SEND_ROUNDS 11
#define REPLAY_ROUNDS 7
#define SNAP_ROUNDS 21
#define OVERHEAD_TARGET 10.0 /* a journaled send over a plain one, in percent, at most */

/* {"scenes":["PATH_TO_libyaia-examples.so"]}: every runtime's config. */
static char config[4200];

static void fail(const char *what, char *response)
{
    fprintf(stderr, "bench_journal: %s%s%s\n", what, response ? ": " : "", response ? response : "");
    yaia_free(response);
    exit(1);
}

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static char *ok(char *response, const char *what)
{
    if (!response || !strstr(response, "\"ok\":true"))
        fail(what, response);
    return response;
}

static long long int_after(const char *json, const char *key)
{
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\":", key);
    const char *p = strstr(json, needle);
    return p ? strtoll(p + strlen(needle), NULL, 10) : -1;
}

/* ---------------------------------------------------------------- (a) sends */

typedef struct {
    double wall, thread_cpu, process_cpu; /* ns for the INPUTS sends */
    double stop_wall;                     /* ns for the final flush */
} round_t;

/* One round: a fresh runtime, a login scene, INPUTS sends; with a journal
** to `path` when it is not NULL. */
static round_t send_round(const char *path)
{
    yaia_runtime *rt = yaia_runtime_new(config, NULL);
    if (!rt)
        fail("no runtime", NULL);
    if (path) {
        char request[4200];
        snprintf(request, sizeof request, "{\"op\":\"journal\",\"start\":\"%s\"}", path); /* no quotes or backslashes in it */
        yaia_free(ok(yaia_execute(rt, request), "journal start"));
    }
    char *r = ok(yaia_open(rt, "example/login", NULL), "open example/login");
    int64_t scene = int_after(r, "scene");
    yaia_free(r);

    /* The actions are formatted before the clock starts. */
    static char actions[INPUTS][64];
    for (int i = 0; i < INPUTS; i++)
        snprintf(actions[i], sizeof actions[i], "{\"type\":\"emailChanged\",\"payload\":\"user%d@example.com\"}", i);

    round_t t;
    double w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    int refused = 0;
    for (int i = 0; i < INPUTS; i++) {
        r = yaia_send(rt, scene, actions[i]);
        refused += !strstr(r, "\"ok\":true");
        yaia_free(r);
    }
    double w1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    t.wall = w1 - w0;
    t.thread_cpu = c1 - c0;
    t.stop_wall = 0;
    if (path) {
        r = ok(yaia_execute(rt, "{\"op\":\"journal\",\"stop\":true}"), "journal stop");
        t.stop_wall = clock_ns(CLOCK_MONOTONIC) - w1;
        if (int_after(r, "inputs") != INPUTS + 1)
            fail("the journal should hold every input", r);
        yaia_free(r);
    }
    t.process_cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0; /* includes the journal thread's work until stop */
    if (refused)
        fail("some sends were refused", NULL);
    yaia_runtime_free(rt);
    return t;
}

/* ---------------------------------------------------------------- (c) a big runtime */

static char *items_payload(int n)
{
    size_t cap = 64 + (size_t)n * 64;
    char *s = malloc(cap);
    size_t len = (size_t)snprintf(s, cap, "{\"type\":\"loaded\",\"payload\":{\"items\":[");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s{\"key\":\"item/%d\",\"value\":{\"title\":\"Item number %d\"}}", i ? "," : "", i, i);
    snprintf(s + len, cap - len, "]}}");
    return s;
}

static yaia_runtime *big_runtime(int *scenes)
{
    yaia_runtime *rt = yaia_runtime_new(config, NULL);
    char *loaded = items_payload(20);
    char request[256];
    *scenes = 0;
    for (int f = 0; f < 100; f++) {
        char *r = ok(yaia_execute(rt, "{\"op\":\"start\",\"scene\":\"example/login\"}"), "start");
        long long flow = int_after(r, "flow");
        yaia_free(r);
        snprintf(request, sizeof request, "{\"op\":\"send\",\"flow\":%lld,\"action\":{\"type\":\"loginSucceeded\",\"payload\":{\"user\":{\"email\":\"u%d@x\"}}}}", flow, f);
        yaia_free(ok(yaia_execute(rt, request), "loginSucceeded"));
        char *send = malloc(strlen(loaded) + 64);
        sprintf(send, "{\"op\":\"send\",\"flow\":%lld,\"action\":%s}", flow, loaded);
        yaia_free(ok(yaia_execute(rt, send), "loaded"));
        free(send);
        snprintf(request, sizeof request, "{\"op\":\"send\",\"flow\":%lld,\"action\":{\"type\":\"select\",\"payload\":\"item/%d\"}}", flow, f % 20);
        yaia_free(ok(yaia_execute(rt, request), "select"));
        *scenes += 3;
    }
    for (int i = 0; i < 450; i++, (*scenes)++) {
        snprintf(request, sizeof request, "{\"email\":\"user%d@example.com\"}", i);
        yaia_free(ok(yaia_open(rt, "example/login", request), "open login"));
    }
    for (int i = 0; i < 250; i++, (*scenes)++) {
        char *r = ok(yaia_open(rt, "example/home", "{\"user\":{\"email\":\"a@b.c\"}}"), "open home");
        int64_t id = int_after(r, "scene");
        yaia_free(r);
        yaia_free(ok(yaia_send(rt, id, loaded), "home loaded"));
    }
    free(loaded);
    return rt;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || strpbrk(argv[1], "\"\\")) {
        fprintf(stderr, "usage: %s PATH_TO_libyaia-examples.so [JOURNAL_OUT] (no quotes or backslashes in the paths)\n",
                argv[0]);
        return 2;
    }
    /* The benchmark is the host: its requests may journal, replay and snapshot anywhere. */
    snprintf(config, sizeof config, "{\"scenes\":[\"%s\"],\"allow\":{\"ops\":\"all\",\"files\":[\"/\"]}}", argv[1]);
    const char *keep = argc > 2 ? argv[2] : NULL;
    char dir[] = "/tmp/yaia-bench-XXXXXX";
    if (!mkdtemp(dir))
        fail("no temporary folder", NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    if (keep)
        snprintf(path, sizeof path, "%s", keep); /* the journal is written where it is to be kept */

    printf("yaia %s: the journal, replay, snapshots (medians)\n\n", yaia_version());

    /* (a) */
    double wall[2][SEND_ROUNDS], cpu[2][SEND_ROUNDS], proc[2][SEND_ROUNDS], stop[SEND_ROUNDS];
    send_round(NULL); /* warm-up */
    send_round(path);
    for (int i = 0; i < SEND_ROUNDS; i++) {
        for (int j = 0; j < 2; j++) {
            round_t t = send_round(j ? path : NULL);
            wall[j][i] = t.wall / INPUTS;
            cpu[j][i] = t.thread_cpu / INPUTS;
            proc[j][i] = t.process_cpu / INPUTS;
            if (j)
                stop[i] = t.stop_wall;
        }
    }
    double w0 = median(wall[0], SEND_ROUNDS), w1 = median(wall[1], SEND_ROUNDS);
    double c0 = median(cpu[0], SEND_ROUNDS), c1 = median(cpu[1], SEND_ROUNDS);
    double p0 = median(proc[0], SEND_ROUNDS), p1 = median(proc[1], SEND_ROUNDS);
    FILE *f = fopen(path, "rb");
    long bytes = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        bytes = ftell(f);
        fclose(f);
    }
    printf("(a) yaia_send(emailChanged) + yaia_free, %d inputs a round, %d rounds each\n", INPUTS, SEND_ROUNDS);
    printf("  %-34s %12s %12s %10s\n", "ns per send", "no journal", "journal", "overhead");
    printf("  %-34s %12.0f %12.0f %9.1f%%\n", "wall time", w0, w1, (w1 - w0) / w0 * 100);
    printf("  %-34s %12.0f %12.0f %9.1f%%\n", "calling thread CPU", c0, c1, (c1 - c0) / c0 * 100);
    printf("  %-34s %12.0f %12.0f %9.1f%%\n", "process CPU (all threads, to stop)", p0, p1, (p1 - p0) / p0 * 100);
    printf("  journal stop (final flush): %.2f ms; journal file: %.1f MB, %.0f bytes per input\n",
           median(stop, SEND_ROUNDS) / 1e6, (double)bytes / 1e6, (double)bytes / (INPUTS + 1));
    printf("  target: the journal adds at most %.0f%% to a send (wall time): %s (%.1f%%)\n\n", OVERHEAD_TARGET,
           (w1 - w0) / w0 * 100 <= OVERHEAD_TARGET ? "met" : "NOT met", (w1 - w0) / w0 * 100);

    /* (b) */
    yaia_runtime *rt = yaia_runtime_new(config, NULL);
    char request[4200];
    snprintf(request, sizeof request, "{\"op\":\"replay\",\"journal\":\"%s\"}", path);
    double replay[REPLAY_ROUNDS];
    for (int i = 0; i < REPLAY_ROUNDS; i++) {
        double t0 = clock_ns(CLOCK_MONOTONIC);
        char *r = yaia_execute(rt, request);
        replay[i] = clock_ns(CLOCK_MONOTONIC) - t0;
        if (!r || !strstr(r, "\"identical\":true") || int_after(r, "inputs") != INPUTS + 1)
            fail("the journal should replay identically", r);
        yaia_free(r);
    }
    double rp = median(replay, REPLAY_ROUNDS);
    printf("(b) {\"op\":\"replay\"} of that journal (%d inputs), %d rounds\n", INPUTS + 1, REPLAY_ROUNDS);
    printf("  %.1f ms in all, %.0f ns per input (%.2fx a live send)\n\n", rp / 1e6, rp / (INPUTS + 1), rp / (INPUTS + 1) / w0);
    yaia_runtime_free(rt);

    /* (c) */
    int scenes;
    rt = big_runtime(&scenes);
    double snap[SNAP_ROUNDS], restore[SNAP_ROUNDS];
    char *snapshot = NULL;
    for (int i = 0; i < SNAP_ROUNDS; i++) {
        double t0 = clock_ns(CLOCK_MONOTONIC);
        char *r = yaia_execute(rt, "{\"op\":\"snapshot\"}");
        snap[i] = clock_ns(CLOCK_MONOTONIC) - t0;
        if (!r || !strstr(r, "\"ok\":true"))
            fail("snapshot", r);
        if (i == 0) {
            snapshot = r;
        } else {
            yaia_free(r);
        }
    }
    /* {"ok":true,"snapshot":S} -> {"op":"restore","snapshot":S} */
    const char *s = strstr(snapshot, "\"snapshot\":");
    size_t slen = strlen(s + 11) - 1;
    char *restore_request = malloc(slen + 64);
    int n = sprintf(restore_request, "{\"op\":\"restore\",\"snapshot\":");
    memcpy(restore_request + n, s + 11, slen);
    strcpy(restore_request + n + slen, "}");
    for (int i = 0; i < SNAP_ROUNDS; i++) {
        yaia_runtime *target = yaia_runtime_new(config, NULL);
        double t0 = clock_ns(CLOCK_MONOTONIC);
        char *r = yaia_execute(target, restore_request);
        restore[i] = clock_ns(CLOCK_MONOTONIC) - t0;
        if (!r || !strstr(r, "\"ok\":true"))
            fail("restore", r);
        yaia_free(r);
        yaia_runtime_free(target);
    }
    printf("(c) a runtime with %d open scenes (100 flows of 3, 450 login, 250 home), %d rounds\n", scenes, SNAP_ROUNDS);
    printf("  snapshot: %.2f ms (%.1f us per scene), %.2f MB of JSON\n", median(snap, SNAP_ROUNDS) / 1e6,
           median(snap, SNAP_ROUNDS) / 1e3 / scenes, (double)strlen(snapshot) / 1e6);
    printf("  restore:  %.2f ms (%.1f us per scene), parsing the request included\n", median(restore, SNAP_ROUNDS) / 1e6,
           median(restore, SNAP_ROUNDS) / 1e3 / scenes);
    free(restore_request);
    yaia_free(snapshot);
    yaia_runtime_free(rt);

    if (!keep)
        unlink(path);
    rmdir(dir);
    return 0;
}
