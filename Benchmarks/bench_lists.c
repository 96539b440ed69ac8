/*
** bench_lists.c -- what a send costs beside a long list, from C.
**
** A todo list of N = 0, 1,000, 10,000 and 100,000 items, as the scene
** document `todo` (Examples/todo-documents) and as the pack scene
** example/todo (its twin in Swift, written as docs/scenes.md recommends),
** each opened with {"todos": [...N items...]}, in view patch mode and in
** whole-view mode. Three sends, each timed as the median of batches:
**   (a) scalar  `draft`, two texts in turn: changes one scalar
**   (b) item    `toggle` of the middle item's id: changes one item (none at N = 0)
**   (c) append  `add`: one more item; the items added are removed between
**               batches, untimed, so N stays N
** Each row: ns per send + yaia_free, and the bytes of the response.
** Targets (printed met / NOT met, per form, in patch mode):
**   (a) at 10,000 at most 1.5x (a) at 0; (b) and (c) at 10,000 at most 5x
**   (a) at 0; every row at 100,000 at most 2x the row at 10,000; each row's
**   response the same size at every N (up to the digits of ids, indexes and
**   counts).
**
**   usage: bench_lists TODO_DOCUMENTS EXAMPLES_PACK [PACK_SCENE]
**
** PACK_SCENE (example/todo) is left out, with a line that says so, when
** the pack does not have it.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yaia.h"
#include "bench.h"

#define SIZES 4
static const int sizes[SIZES] = {0, 1000, 10000, 100000};
enum { SCALAR, ITEM, APPEND, ROWS };
static const char *row_names[ROWS] = {"(a) scalar: draft", "(b) item: toggle", "(c) append: add"};
/* Sizes may differ by the digits of ids, indexes and counts (and of seq). */
#define BYTES_SLACK 32

static yaia_runtime *rt;
static int64_t scene;
static long long middle_id, next_id;
static int sends_in_batch;

static char *send_text(const char *action)
{
    char *r = yaia_send(rt, scene, action);
    if (!r || !strstr(r, "\"ok\":true")) {
        fprintf(stderr, "bench_lists: %s failed: %s\n", action, r ? r : "NULL");
        exit(1);
    }
    return r;
}

/* One send; its response's length. */
static size_t send_once(const char *action)
{
    char *r = send_text(action);
    size_t n = strlen(r);
    yaia_free(r);
    return n;
}

static void run_scalar(int n)
{
    static int flip;
    for (int i = 0; i < n; i++) {
        char *r = yaia_send(rt, scene, (flip ^= 1) ? "{\"type\":\"draft\",\"payload\":\"x\"}" : "{\"type\":\"draft\",\"payload\":\"y\"}");
        bench_sink += r[0];
        yaia_free(r);
    }
}

static void run_item(int n)
{
    char action[64];
    snprintf(action, sizeof action, "{\"type\":\"toggle\",\"payload\":%lld}", middle_id);
    for (int i = 0; i < n; i++) {
        char *r = yaia_send(rt, scene, action);
        bench_sink += r[0];
        yaia_free(r);
    }
}

static void run_append(int n)
{
    for (int i = 0; i < n; i++) {
        char *r = yaia_send(rt, scene, "{\"type\":\"add\",\"payload\":\"One more\"}");
        bench_sink += r[0];
        yaia_free(r);
    }
    sends_in_batch = n;
}

/* Removes the items the last append batch added (ids next_id on), untimed. */
static void restore(void)
{
    char action[64];
    for (int i = 0; i < sends_in_batch; i++) {
        snprintf(action, sizeof action, "{\"type\":\"remove\",\"payload\":%lld}", next_id++);
        send_once(action);
    }
    sends_in_batch = 0;
}

/* The median ns of `run` over `batches` batches of `calls`, restoring after each. */
static double timed(void (*run)(int), int batches, int calls)
{
    double per_call[64];
    for (int b = 0; b < batches; b++) {
        double t0 = now_ns();
        run(calls);
        per_call[b] = (now_ns() - t0) / calls;
        if (run == run_append) restore();
    }
    return median(per_call, batches);
}

/* A runtime with `scenes` and `name` open with n items in `view` mode; 0 when the runtime has no such scene. */
static int open_list(const char *scenes, const char *name, int n, const char *view)
{
    char config[4200];
    snprintf(config, sizeof config, "{\"scenes\":[\"%s\"]}", scenes);
    char *error = NULL;
    rt = yaia_runtime_new(config, &error);
    if (!rt) {
        fprintf(stderr, "bench_lists: no runtime with %s: %s\n", scenes, error ? error : "?");
        exit(1);
    }
    size_t cap = 200 + (size_t)n * 64, len = 0;
    char *request = malloc(cap);
    if (!request) exit(1);
    len += (size_t)snprintf(request, cap, "{\"op\":\"open\",\"scene\":\"%s\",\"view\":\"%s\",\"args\":{\"todos\":[", name, view);
    for (int i = 1; i <= n; i++)
        len += (size_t)snprintf(request + len, cap - len, "%s{\"id\":%d,\"title\":\"Item %d\",\"done\":%s}",
                                i > 1 ? "," : "", i, i, i % 3 ? "false" : "true");
    len += (size_t)snprintf(request + len, cap - len, "]}}");
    char *r = yaia_execute_n(rt, request, len);
    free(request);
    const char *id = strstr(r, "\"scene\":");
    if (!strstr(r, "\"ok\":true") || !id) {
        int unknown = strstr(r, "unknown_scene") != NULL;
        if (!unknown) fprintf(stderr, "bench_lists: cannot open %s with %d items: %.300s\n", name, n, r);
        yaia_free(r);
        yaia_runtime_free(rt);
        if (unknown) return 0;
        exit(1);
    }
    scene = strtoll(id + 8, NULL, 10);
    yaia_free(r);
    middle_id = n / 2 + 1;
    next_id = n + 1;
    return 1;
}

/* One form and mode: ns[size][row] and bytes[size][row]; 0 when the scene is missing. */
static int measure(const char *scenes, const char *name, const char *view, double ns[SIZES][ROWS], size_t bytes[SIZES][ROWS])
{
    for (int s = 0; s < SIZES; s++) {
        int n = sizes[s];
        if (!open_list(scenes, name, n, view)) return 0;
        /* Fewer samples where a send takes milliseconds: whole views of long lists. */
        int whole = strcmp(view, "whole") == 0;
        int batches = whole && n >= 100000 ? 5 : n >= 10000 ? 9 : 15;
        int calls = n >= 10000 ? 10 : n >= 1000 ? 40 : 400;
        if (whole && n >= 10000) calls = n >= 100000 ? 1 : 4;
        /* Each send once first, untimed: it must work, and its response's size
        ** (at seq 1 to 4 in every runtime, so seq has the same digits). */
        char toggle[64], removal[64];
        snprintf(toggle, sizeof toggle, "{\"type\":\"toggle\",\"payload\":%lld}", middle_id);
        bytes[s][SCALAR] = send_once("{\"type\":\"draft\",\"payload\":\"x\"}");
        bytes[s][ITEM] = n ? send_once(toggle) : 0;
        bytes[s][APPEND] = send_once("{\"type\":\"add\",\"payload\":\"One more\"}");
        snprintf(removal, sizeof removal, "{\"type\":\"remove\",\"payload\":%lld}", next_id++);
        send_once(removal);
        ns[s][SCALAR] = timed(run_scalar, batches, calls);
        ns[s][ITEM] = n ? timed(run_item, batches, calls % 2 ? calls + 1 : calls) : 0;
        ns[s][APPEND] = timed(run_append, batches, calls);
        yaia_runtime_free(rt);
    }
    return 1;
}

static int within(size_t a, size_t b) { return (a > b ? a - b : b - a) <= BYTES_SLACK; }

static void targets(double ns[SIZES][ROWS], size_t bytes[SIZES][ROWS])
{
    double zero = ns[0][SCALAR];
    printf("    target (a) at 10,000 at most 1.5x (a) at 0: %s (%.2fx)\n",
           ns[2][SCALAR] <= 1.5 * zero ? "met" : "NOT met", ns[2][SCALAR] / zero);
    for (int row = ITEM; row <= APPEND; row++)
        printf("    target %.3s at 10,000 at most 5x (a) at 0: %s (%.2fx)\n", row_names[row],
               ns[2][row] <= 5 * zero ? "met" : "NOT met", ns[2][row] / zero);
    for (int row = 0; row < ROWS; row++)
        printf("    target %.3s at 100,000 at most 2x at 10,000: %s (%.2fx)\n", row_names[row],
               ns[3][row] <= 2 * ns[2][row] ? "met" : "NOT met", ns[3][row] / ns[2][row]);
    for (int row = 0; row < ROWS; row++) {
        int same = 1;
        for (int s = row == ITEM ? 2 : 1; s < SIZES; s++)
            same &= within(bytes[s][row], bytes[row == ITEM ? 1 : 0][row]);
        printf("    target %.3s response bytes the same at every N: %s\n", row_names[row], same ? "met" : "NOT met");
    }
}

static void report(const char *form, const char *view, double ns[SIZES][ROWS], size_t bytes[SIZES][ROWS])
{
    printf("\n  %s, view %s\n", form, view);
    printf("    %-20s", "send");
    for (int s = 0; s < SIZES; s++) printf(" %12d items %9s", sizes[s], "bytes");
    printf("\n");
    for (int row = 0; row < ROWS; row++) {
        printf("    %-20s", row_names[row]);
        for (int s = 0; s < SIZES; s++) {
            if (row == ITEM && sizes[s] == 0) printf(" %12s ns %11s", "-", "-");
            else printf(" %12.0f ns %11zu", ns[s][row], bytes[s][row]);
        }
        printf("\n");
    }
    if (strcmp(view, "patch") == 0) targets(ns, bytes);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s TODO_DOCUMENTS EXAMPLES_PACK [PACK_SCENE]\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < 3; i++)
        if (strpbrk(argv[i], "\"\\")) {
            fprintf(stderr, "bench_lists: no quotes or backslashes in paths: %s\n", argv[i]);
            return 2;
        }
    const char *pack_scene = argc == 4 ? argv[3] : "example/todo";
    static const char *views[2] = {"patch", "whole"};
    static double ns[SIZES][ROWS];
    static size_t bytes[SIZES][ROWS];
    printf("yaia %s, C ABI: a list of N items, yaia_send + yaia_free, medians of batches (fewer at 100,000)\n",
           yaia_version());
    for (int v = 0; v < 2; v++) {
        measure(argv[1], "todo", views[v], ns, bytes);
        report("scene document todo", views[v], ns, bytes);
    }
    for (int v = 0; v < 2; v++) {
        if (!measure(argv[2], pack_scene, views[v], ns, bytes)) {
            printf("\n  skipped: %s not in the pack\n", pack_scene);
            break;
        }
        char form[200];
        snprintf(form, sizeof form, "pack scene %s", pack_scene);
        report(form, views[v], ns, bytes);
    }
    return 0;
}
