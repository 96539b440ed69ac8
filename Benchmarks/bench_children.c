/*
** bench_children.c -- what child scenes cost, from C (docs/composition.md).
**
** A list screen whose rows are child scenes, one per item (the documents
** bench/list and bench/row in Benchmarks/children), against a row opened
** alone with the same args. In view patch mode and in whole-view mode:
**   (a) send   `togglePin` to one row of a list of 10,000 rows, by the
**              row's own id with yaia_send, vs the same send to a lone row
**   (b) open   the list with 10,000 rows (yaia_execute_n of an `open`),
**              per row, vs opening a lone row; each closed again, untimed
**   (c) send   `rowOpened` (keys 1 and 2 in turn) to the list of 10,000
**              rows, a send that changes none of them, vs the same send to
**              a list of one row
** Medians of batches, all in one run, the lone and the list batches in
** turn; the ratios of the medians printed with the goals:
** (a) at most 2x, (b) at most 3x, (c) at most 2x in patch mode (a whole
** view model holds every row, so its answer grows with the list).
**
**   usage: bench_children DOCUMENTS [PACK LIST_SCENE ROW_SCENE]
**
** DOCUMENTS is the folder of the two documents; a pack and the names of its
** pair of scenes (a list taking {"items": [{"id", "title"}]} whose slot
** "rows" holds rows taking {"id", "title"} with a `togglePin` action, as
** example/rows and example/row do) are measured the same way when given.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yaia.h"
#include "bench.h"

#define ROWS 10000
#define LONE_OPENS 200
#define BATCHES 15
#define SENDS 2000

static yaia_runtime *rt;
static int64_t target;
/* The actions a batch of sends takes in turn. */
static const char *actions[2] = {"{\"type\":\"togglePin\"}", "{\"type\":\"togglePin\"}"};
static const char *const row_actions[2] = {"{\"type\":\"togglePin\"}", "{\"type\":\"togglePin\"}"};
static const char *const list_actions[2] = {"{\"type\":\"rowOpened\",\"payload\":{\"key\":1}}",
                                            "{\"type\":\"rowOpened\",\"payload\":{\"key\":2}}"};
static const char *row_scene;
static const char *view_mode;
static char *list_request, *short_list_request;
static size_t list_request_len, short_list_request_len;

static char *must(char *r, const char *what)
{
    if (!r || !strstr(r, "\"ok\":true")) {
        fprintf(stderr, "bench_children: %s failed: %.300s\n", what, r ? r : "NULL");
        exit(1);
    }
    return r;
}

static int64_t scene_of(const char *r)
{
    const char *id = strstr(r, "\"scene\":");
    return id ? strtoll(id + 8, NULL, 10) : 0;
}

static void close_scene(int64_t id)
{
    char request[80];
    snprintf(request, sizeof request, "{\"op\":\"close\",\"scene\":%lld}", (long long)id);
    yaia_free(must(yaia_execute(rt, request), "close"));
}

static void new_runtime(const char *scenes)
{
    char config[4200];
    snprintf(config, sizeof config, "{\"scenes\":[\"%s\"]}", scenes);
    char *error = NULL;
    rt = yaia_runtime_new(config, &error);
    if (!rt) {
        fprintf(stderr, "bench_children: no runtime with %s: %s\n", scenes, error ? error : "?");
        exit(1);
    }
}

/* Opens a lone row (id 1); its scene id. */
static int64_t open_row(void)
{
    char request[300];
    snprintf(request, sizeof request, "{\"op\":\"open\",\"scene\":\"%s\",\"view\":\"%s\",\"args\":{\"id\":1,\"title\":\"Item 1\"}}",
             row_scene, view_mode);
    char *r = must(yaia_execute(rt, request), "open a lone row");
    int64_t id = scene_of(r);
    yaia_free(r);
    return id;
}

/* Opens the list of ROWS rows (or of one row); its scene id. */
static int64_t open_list_of(const char *request, size_t length)
{
    char *r = must(yaia_execute_n(rt, request, length), "open the list");
    int64_t id = scene_of(r);
    yaia_free(r);
    return id;
}

static int64_t open_list(void) { return open_list_of(list_request, list_request_len); }

/* The request that opens `list_scene` with `rows` rows. */
static char *build_list_request(const char *list_scene, int rows, size_t *length)
{
    size_t cap = 300 + (size_t)rows * 48, len = 0;
    char *request = malloc(cap);
    if (!request) exit(1);
    len += (size_t)snprintf(request, cap, "{\"op\":\"open\",\"scene\":\"%s\",\"view\":\"%s\",\"args\":{\"items\":[",
                            list_scene, view_mode);
    for (int i = 1; i <= rows; i++)
        len += (size_t)snprintf(request + len, cap - len, "%s{\"id\":%d,\"title\":\"Item %d\"}", i > 1 ? "," : "", i, i);
    len += (size_t)snprintf(request + len, cap - len, "]}}");
    *length = len;
    return request;
}

static void run_send(int n)
{
    for (int i = 0; i < n; i++) {
        char *r = yaia_send(rt, target, actions[i & 1]);
        bench_sink += r[0];
        yaia_free(r);
    }
}

/* One send's response length, untimed: it must work. */
static size_t send_bytes(void)
{
    char *r = must(yaia_send(rt, target, actions[0]), "a send");
    size_t n = strlen(r);
    yaia_free(r);
    return n;
}

/* The ns per call of one batch of `calls` sends to `scene` in `runtime`. */
static double send_batch(yaia_runtime *runtime, int64_t scene, int calls)
{
    rt = runtime;
    target = scene;
    double t0 = now_ns();
    run_send(calls);
    return (now_ns() - t0) / calls;
}

/* The ns per open of a batch of LONE_OPENS lone rows in `runtime`, each closed after, untimed. */
static double lone_open_batch(yaia_runtime *runtime)
{
    static int64_t ids[LONE_OPENS];
    rt = runtime;
    double t0 = now_ns();
    for (int i = 0; i < LONE_OPENS; i++) ids[i] = open_row();
    double ns = (now_ns() - t0) / LONE_OPENS;
    for (int i = 0; i < LONE_OPENS; i++) close_scene(ids[i]);
    return ns;
}

/* The ns per row of opening the list of ROWS rows in `runtime`, closed after, untimed. */
static double list_open_batch(yaia_runtime *runtime)
{
    rt = runtime;
    double t0 = now_ns();
    int64_t id = open_list();
    double ns = (now_ns() - t0) / ROWS;
    close_scene(id);
    return ns;
}

/* The medians of BATCHES batches of sends to `a` in `art` and to `b` in
** `brt`, in turn, after a batch of each to warm up. */
static void send_medians(yaia_runtime *art, int64_t a, yaia_runtime *brt, int64_t b, double *a_ns, double *b_ns)
{
    double as[BATCHES], bs[BATCHES];
    send_batch(art, a, SENDS);
    send_batch(brt, b, SENDS);
    for (int i = 0; i < BATCHES; i++) {
        as[i] = send_batch(art, a, SENDS);
        bs[i] = send_batch(brt, b, SENDS);
    }
    *a_ns = median(as, BATCHES);
    *b_ns = median(bs, BATCHES);
}

static const char *goal(double ratio, double most) { return ratio <= most ? "met" : "NOT met"; }

/*
** Each figure is the median of BATCHES batches; the lone and the list
** batches alternate, each in a runtime of its own, so that both see the
** same load of the machine; a ratio is of the two medians.
*/
static void measure(const char *scenes, const char *list_scene, const char *row, const char *form)
{
    static const char *views[2] = {"patch", "whole"};
    double lone[BATCHES], child[BATCHES];
    for (int v = 0; v < 2; v++) {
        view_mode = views[v];
        row_scene = row;
        actions[0] = row_actions[0], actions[1] = row_actions[1];
        list_request = build_list_request(list_scene, ROWS, &list_request_len);
        short_list_request = build_list_request(list_scene, 1, &short_list_request_len);
        new_runtime(scenes);
        yaia_runtime *lone_rt = rt;
        new_runtime(scenes);
        yaia_runtime *list_rt = rt;

        /* (a) a lone row, and the middle row of the list, by its id. */
        rt = lone_rt;
        int64_t lone_row = target = open_row();
        size_t lone_bytes = send_bytes();
        rt = list_rt;
        int64_t list = open_list();
        char request[200];
        snprintf(request, sizeof request, "{\"op\":\"send\",\"scene\":%lld,\"path\":[\"rows\",%d],\"action\":{\"type\":\"togglePin\"}}",
                 (long long)list, ROWS / 2);
        char *r = must(yaia_execute(rt, request), "a send by path");
        int64_t child_row = target = scene_of(r);
        yaia_free(r);
        size_t child_bytes = send_bytes();
        double lone_send, child_send;
        send_medians(lone_rt, lone_row, list_rt, child_row, &lone_send, &child_send);
        double send_ratio = child_send / lone_send;
        rt = lone_rt;
        close_scene(lone_row);

        /* (c) a send to the list that changes no row, and to a list of one row. */
        int64_t short_list = open_list_of(short_list_request, short_list_request_len);
        actions[0] = list_actions[0], actions[1] = list_actions[1];
        target = short_list;
        size_t short_bytes = send_bytes();
        rt = list_rt;
        target = list;
        size_t parent_bytes = send_bytes();
        double short_send, parent_send;
        send_medians(lone_rt, short_list, list_rt, list, &short_send, &parent_send);
        double parent_ratio = parent_send / short_send;
        rt = lone_rt;
        close_scene(short_list);
        rt = list_rt;
        close_scene(list);

        /* (b) opening. */
        lone_open_batch(lone_rt);
        list_open_batch(list_rt);
        for (int b = 0; b < BATCHES; b++) {
            lone[b] = lone_open_batch(lone_rt);
            child[b] = list_open_batch(list_rt);
        }
        double lone_open = median(lone, BATCHES), list_open = median(child, BATCHES), open_ratio = list_open / lone_open;
        yaia_runtime_free(lone_rt);
        yaia_runtime_free(list_rt);
        free(list_request);
        free(short_list_request);

        printf("\n  %s, view %s\n", form, view_mode);
        printf("    (a) send togglePin to a lone row          %10.0f ns  %5zu bytes\n", lone_send, lone_bytes);
        printf("        send togglePin to row %d of %d   %10.0f ns  %5zu bytes\n", ROWS / 2, ROWS, child_send, child_bytes);
        printf("    (b) open a lone row                       %10.0f ns\n", lone_open);
        printf("        open a list of %d rows, per row      %10.0f ns  (%.1f ms the list)\n", ROWS, list_open, list_open * ROWS / 1e6);
        printf("    (c) send rowOpened to a list of one row     %10.0f ns  %5zu bytes\n", short_send, short_bytes);
        printf("        send rowOpened to the list of %d   %10.0f ns  %5zu bytes\n", ROWS, parent_send, parent_bytes);
        printf("    goal (a) a row of %d at most 2x a lone row: %s (%.2fx)\n", ROWS, goal(send_ratio, 2), send_ratio);
        printf("    goal (b) opening %d rows, per row, at most 3x a lone row: %s (%.2fx)\n", ROWS, goal(open_ratio, 3), open_ratio);
        if (v == 0)
            printf("    goal (c) a send to the list of %d changing no row at most 2x one to a list of one row: %s (%.2fx)\n", ROWS,
                   goal(parent_ratio, 2), parent_ratio);
        else  /* a whole view model holds every row: its size is the list's */
            printf("    (c) whole view models hold every row: no goal (%.2fx)\n", parent_ratio);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 5) {
        fprintf(stderr, "usage: %s DOCUMENTS [PACK LIST_SCENE ROW_SCENE]\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (strpbrk(argv[i], "\"\\")) {
            fprintf(stderr, "bench_children: no quotes or backslashes in arguments: %s\n", argv[i]);
            return 2;
        }
    printf("yaia %s, C ABI: child scenes, medians of batches\n", yaia_version());
    measure(argv[1], "bench/list", "bench/row", "documents bench/list of bench/row");
    if (argc == 5) {
        char form[300];
        snprintf(form, sizeof form, "pack scenes %s of %s", argv[3], argv[4]);
        measure(argv[2], argv[3], argv[4], form);
    }
    return 0;
}
