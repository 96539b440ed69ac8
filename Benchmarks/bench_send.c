/*
** bench_send.c -- the cost of one yaia_send() round trip, from C.
**
** Measures, in one run and with the same method:
**   abi_version  yaia_abi_version(): the floor of any call into the library
**   state        yaia_execute({"op":"state"}) + yaia_free: parse, look up, print
**   send         yaia_send(emailChanged "a@b.c") + yaia_free: the full
**                reduce-and-answer path an application pays per user input
**   by hand      the same emailChanged on a login scene written by hand in C
**                (bench.h): the baseline the targets are ratios to
** Each is timed over BATCHES batches of CALLS calls; the table shows the
** median batch in ns per call (the median shrugs off scheduler noise, a mean
** would not) and the ratio to the hand-written baseline.
**
** Then the same send on notes/login, the notes app's login, in each form
** given: the Swift scene pack (libnotes.so) and the scene document (a
** folder of documents or login.json), in runtimes of their own.
**
**   usage: bench_send PATH_TO_libyaia-examples.so [NOTES_PACK [NOTES_DOCUMENTS]]
**
** (the scene pack with example/login, which the runtime's config names).
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yaia.h"
#include "bench.h"

#define BATCHES 31
#define CALLS 20000
/* Targets, as ratios to the hand-written C login of the same run. */
#define TARGET_RATIO 12.0
#define DOCUMENT_TARGET_RATIO 16.0

static const char action[] = "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}";

static yaia_runtime *rt;
static int64_t scene;
static char state_request[64];

/* The baseline's median, which targets are ratios to. */
static double hand_ns;

static void run_abi_version(int n)
{
    for (int i = 0; i < n; i++)
        bench_sink += yaia_abi_version();
}

static void run_state(int n)
{
    for (int i = 0; i < n; i++) {
        char *r = yaia_execute(rt, state_request);
        bench_sink += r[0];
        yaia_free(r);
    }
}

static void run_send(int n)
{
    for (int i = 0; i < n; i++) {
        char *r = yaia_send(rt, scene, action);
        bench_sink += r[0];
        yaia_free(r);
    }
}

/* A runtime with `scenes` (one path) and scene `name` open in it; exits on failure. */
static void open_scene(const char *scenes, const char *name)
{
    if (strpbrk(scenes, "\"\\")) {
        fprintf(stderr, "bench_send: no quotes or backslashes in paths: %s\n", scenes);
        exit(2);
    }
    char config[4200];
    snprintf(config, sizeof config, "{\"scenes\":[\"%s\"]}", scenes);
    char *error = NULL;
    rt = yaia_runtime_new(config, &error);
    if (!rt) {
        fprintf(stderr, "bench_send: no runtime with %s: %s\n", scenes, error ? error : "?");
        exit(1);
    }
    char *r = yaia_open(rt, name, NULL);
    const char *id = strstr(r, "\"scene\":");
    if (!strstr(r, "\"ok\":true") || !id) {
        fprintf(stderr, "bench_send: cannot open %s: %s\n", name, r);
        exit(1);
    }
    scene = strtoll(id + 8, NULL, 10);
    yaia_free(r);
    snprintf(state_request, sizeof state_request, "{\"op\":\"state\",\"scene\":%lld}", (long long)scene);
    /* Check once that the measured calls succeed: timing errors is useless. */
    r = yaia_send(rt, scene, action);
    int send_ok = strstr(r, "\"ok\":true") != NULL;
    yaia_free(r);
    r = yaia_execute(rt, state_request);
    int state_ok = strstr(r, "\"ok\":true") != NULL;
    yaia_free(r);
    if (!send_ok || !state_ok) {
        fprintf(stderr, "bench_send: the measured requests fail on %s\n", name);
        exit(1);
    }
}

/* The send's median on notes/login loaded from `scenes`, in a runtime of its own. */
static double notes_login_send(const char *scenes)
{
    open_scene(scenes, "notes/login");
    double ns = batch_median_ns(run_send, BATCHES, CALLS);
    yaia_runtime_free(rt);
    return ns;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s PATH_TO_libyaia-examples.so [NOTES_PACK [NOTES_DOCUMENTS]]\n", argv[0]);
        return 2;
    }
    open_scene(argv[1], "example/login");
    double floor_ns = batch_median_ns(run_abi_version, BATCHES, CALLS);
    hand_ns = batch_median_ns(run_hand_login, BATCHES, CALLS);
    double state_ns = batch_median_ns(run_state, BATCHES, CALLS);
    double send_ns = batch_median_ns(run_send, BATCHES, CALLS);
    yaia_runtime_free(rt);

    printf("yaia %s, C ABI: medians of %d batches x %d calls\n\n", yaia_version(), BATCHES, CALLS);
    printf("  %-44s %10s %14s\n", "call", "ns/call", "x by hand");
    printf("  %-44s %10.1f %14.2f\n", "yaia_abi_version()", floor_ns, floor_ns / hand_ns);
    printf("  %-44s %10.1f %14.2f\n", "login by hand in C (baseline)", hand_ns, 1.0);
    printf("  %-44s %10.1f %14.2f\n", "yaia_execute(state) + yaia_free", state_ns, state_ns / hand_ns);
    printf("  %-44s %10.1f %14.2f\n", "yaia_send(emailChanged) + yaia_free", send_ns, send_ns / hand_ns);
    printf("\n  send vs state: %.2fx\n", send_ns / state_ns);
    printf("  target: yaia_send round trip at most %.0fx the login by hand: %s (%.2fx)\n", TARGET_RATIO,
           send_ns <= TARGET_RATIO * hand_ns ? "met" : "NOT met", send_ns / hand_ns);

    if (argc >= 3) {
        double swift_ns = notes_login_send(argv[2]);
        printf("\n  notes/login, yaia_send(emailChanged) + yaia_free   %10s %14s\n", "ns/call", "x Swift pack");
        printf("  %-44s %10.1f %14.1f\n", "Swift scene pack (libnotes.so)", swift_ns, 1.0);
        if (argc == 4) {
            double document_ns = notes_login_send(argv[3]);
            printf("  %-44s %10.1f %14.2f\n", "scene document (login.json)", document_ns, document_ns / swift_ns);
            printf("  target: a document send at most %.0fx the login by hand: %s (%.2fx)\n", DOCUMENT_TARGET_RATIO,
                   document_ns <= DOCUMENT_TARGET_RATIO * hand_ns ? "met" : "NOT met", document_ns / hand_ns);
        }
    }
    return 0;
}
