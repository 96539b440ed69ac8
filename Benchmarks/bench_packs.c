/*
** bench_packs.c -- scenes from packs: the cost of a send, and of loading.
**
**   bench_packs EXAMPLES_PACK [NOTES_PACK]
**
** Measures, in one run and with the same method (medians of BATCHES batches):
**   abi_version   yaia_abi_version(): the floor of any call into the library
**   by hand       the same emailChanged on a login scene written by hand in C
**                 (bench.h): the baseline the target is a ratio to
**   hand-written  yaia_send(emailChanged) + yaia_free on example/login, whose
**                 JSON forms are written by hand (the examples pack)
**   Codable       the same on notes/login, written with Codable only (the
**                 notes app's pack), when NOTES_PACK is given
** and the cost of loading a pack: yaia_runtime_new naming the pack, in a
** fresh process each time (a pack loads once per process), against
** yaia_runtime_new without it in the same processes; then with the pack
** already loaded (a second runtime in the same process).
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "yaia.h"
#include "bench.h"

#define BATCHES 31
#define CALLS 20000
#define LOADS 21
/* The target, as a ratio to the hand-written C login of the same run. */
#define TARGET_RATIO 12.0

static const char action[] = "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}";

static yaia_runtime *rt;
static int64_t scene;
static void run_abi_version(int n)
{
    for (int i = 0; i < n; i++)
        bench_sink += yaia_abi_version();
}

static void run_send(int n)
{
    for (int i = 0; i < n; i++) {
        char *r = yaia_send(rt, scene, action);
        bench_sink += r[0];
        yaia_free(r);
    }
}

static char *config_for(const char *pack)
{
    static char config[4096];
    if (pack)
        snprintf(config, sizeof config, "{\"scenes\":[\"%s\"],\"workers\":1}", pack);
    else
        snprintf(config, sizeof config, "{\"workers\":1}");
    return config;
}

/* ns for one yaia_runtime_new + free with `pack`, or -1 on failure. */
static double time_runtime(const char *pack)
{
    char *error = NULL;
    double t0 = now_ns();
    yaia_runtime *r = yaia_runtime_new(config_for(pack), &error);
    double t = now_ns() - t0;
    if (!r) {
        fprintf(stderr, "bench_packs: %s\n", error ? error : "no runtime");
        yaia_free(error);
        return -1;
    }
    yaia_runtime_free(r);
    return t;
}

/* In a fresh child: a runtime without packs, then the first with `pack`
** (dlopen, the pack's constructors, its entry point), then a second one. */
static int load_in_child(const char *pack, double out[3])
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        double t[3] = {time_runtime(NULL), time_runtime(pack), time_runtime(pack)};
        ssize_t w = write(fds[1], t, sizeof t);
        _exit(w == (ssize_t)sizeof t ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], out, sizeof(double) * 3);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return got == (ssize_t)(sizeof(double) * 3) && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out[1] >= 0 ? 0 : -1;
}

static int report_load(const char *label, const char *pack)
{
    double bare[LOADS], first[LOADS], again[LOADS];
    for (int i = 0; i < LOADS; i++) {
        double t[3];
        if (load_in_child(pack, t) != 0) {
            fprintf(stderr, "bench_packs: loading %s failed\n", pack);
            return 1;
        }
        bare[i] = t[0];
        first[i] = t[1];
        again[i] = t[2];
    }
    double b = median(bare, LOADS), f = median(first, LOADS), a = median(again, LOADS);
    printf("  %-30s %10.1f us  (runtime alone %.1f us: the load adds %.1f us; loaded already: %.1f us)\n",
           label, f / 1e3, b / 1e3, (f - b) / 1e3, a / 1e3);
    return 0;
}

static int open_login(const char *pack, const char *name)
{
    char *error = NULL;
    rt = yaia_runtime_new(config_for(pack), &error);
    if (!rt) {
        fprintf(stderr, "bench_packs: no runtime: %s\n", error ? error : "?");
        yaia_free(error);
        return 1;
    }
    char *r = yaia_open(rt, name, NULL);
    const char *id = r ? strstr(r, "\"scene\":") : NULL;
    if (!id) {
        fprintf(stderr, "bench_packs: open %s: %s\n", name, r ? r : "NULL");
        yaia_free(r);
        return 1;
    }
    scene = strtoll(id + 8, NULL, 10);
    yaia_free(r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_packs EXAMPLES_PACK [NOTES_PACK]\n");
        return 2;
    }
    const char *examples = argv[1], *notes = argc > 2 ? argv[2] : NULL;
    printf("yaia %s, scene packs from C: medians of %d processes; %d batches x %d calls\n\n",
           yaia_version(), LOADS, BATCHES, CALLS);

    /* Children first: nothing of this process is loaded or running yet. */
    printf("  loading a pack (yaia_runtime_new, first in a process)\n");
    if (report_load("examples pack", examples) != 0) return 1;
    if (notes && report_load("notes pack", notes) != 0) return 1;
    printf("\n");

    double floor_ns = batch_median_ns(run_abi_version, BATCHES, CALLS);
    double by_hand = batch_median_ns(run_hand_login, BATCHES, CALLS);
    if (open_login(examples, "example/login") != 0) return 1;
    double hand = batch_median_ns(run_send, BATCHES, CALLS);
    yaia_runtime_free(rt);
    double codable = -1;
    if (notes) {
        if (open_login(notes, "notes/login") != 0) return 1;
        codable = batch_median_ns(run_send, BATCHES, CALLS);
        yaia_runtime_free(rt);
    }

    printf("  %-42s %8s %14s\n", "call", "ns/call", "x by hand");
    printf("  %-42s %8.1f %14.2f\n", "yaia_abi_version()", floor_ns, floor_ns / by_hand);
    printf("  %-42s %8.1f %14.2f\n", "login by hand in C (baseline)", by_hand, 1.0);
    printf("  %-42s %8.1f %14.2f\n", "send, hand-written example/login (pack)", hand, hand / by_hand);
    if (notes) {
        printf("  %-42s %8.1f %14.2f\n", "send, Codable notes/login (pack)", codable, codable / by_hand);
        printf("\n  Codable vs hand-written: %.2fx\n", codable / hand);
    }
    printf("  target: a send through a pack at most %.0fx the login by hand:\n", TARGET_RATIO);
    printf("    hand-written example/login: %s (%.2fx)\n", hand <= TARGET_RATIO * by_hand ? "met" : "NOT met", hand / by_hand);
    if (notes)
        printf("    Codable notes/login:        %s (%.2fx)\n", codable <= TARGET_RATIO * by_hand ? "met" : "NOT met",
               codable / by_hand);
    return 0;
}
