/*
** bench_before.c -- yaia_send now against the library before the send path
** was rewritten as one path, in one process and one run.
**
**   usage: bench_before BEFORE_DIR NOW_DIR
**          bench_before --count CASE N DIR
**
** Each DIR holds a release libyaia.so and its libyaia-examples.so. Both
** libraries are opened with dlopen (RTLD_LOCAL: each keeps its own Swift
** runtime and symbols), one runtime each, and their batches alternate, so
** load on the machine falls on both alike. The table gives each case's
** median batch in ns per send and the ratio now / before (target: 1.05).
**
** --count runs N sends of CASE on one library and nothing else: run under
** callgrind for two N, the difference is the instructions of N sends
** (Benchmarks/bench_before.py does that, the stable figure here).
**
** Cases: login (example/login's emailChanged, the smallest send),
** login-journal (the same, journaled), jobs (example/jobs's run: one effect
** per send).
*/
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define BATCHES 41
#define CALLS 3000
#define TARGET 1.05

typedef void rt_t;
typedef rt_t *(*new_fn)(const char *, char **);
typedef char *(*open_fn)(rt_t *, const char *, const char *);
typedef char *(*send_fn)(rt_t *, int64_t, const char *);
typedef void (*free_fn)(void *);

struct kase { const char *name, *scene, *action; int journal; };

static const struct kase cases[] = {
    {"login", "example/login", "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}", 0},
    {"login-journal", "example/login", "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}", 1},
    {"jobs", "example/jobs", "{\"type\":\"run\",\"payload\":{\"service\":\"jobs\",\"op\":\"work\",\"args\":{\"n\":1}}}", 0},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

struct side { send_fn send; free_fn free; rt_t *rt; int64_t scene; const char *action; double t[BATCHES]; };

static void *must(void *p, const char *what, const char *dir)
{
    if (!p) { fprintf(stderr, "bench_before: %s in %s: %s\n", what, dir, dlerror()); exit(1); }
    return p;
}

/* One runtime of the library in `dir` with `k`'s scene open. */
static void setup(struct side *s, const char *dir, const struct kase *k, const char *journal)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/libyaia.so", dir);
    void *lib = must(dlopen(path, RTLD_NOW | RTLD_LOCAL), "dlopen libyaia.so", dir);
    new_fn rnew = (new_fn)must(dlsym(lib, "yaia_runtime_new"), "yaia_runtime_new", dir);
    open_fn ropen = (open_fn)must(dlsym(lib, "yaia_open"), "yaia_open", dir);
    s->send = (send_fn)must(dlsym(lib, "yaia_send"), "yaia_send", dir);
    s->free = (free_fn)must(dlsym(lib, "yaia_free"), "yaia_free", dir);
    s->action = k->action;
    char config[9000];
    if (journal)
        snprintf(config, sizeof config, "{\"scenes\":[\"%s/libyaia-examples.so\"],\"journal\":\"%s\"}", dir, journal);
    else
        snprintf(config, sizeof config, "{\"scenes\":[\"%s/libyaia-examples.so\"]}", dir);
    char *err = NULL;
    s->rt = rnew(config, &err);
    if (!s->rt) { fprintf(stderr, "bench_before: no runtime in %s: %s\n", dir, err ? err : "?"); exit(1); }
    char *r = ropen(s->rt, k->scene, NULL);
    const char *id = r ? strstr(r, "\"scene\":") : NULL;
    if (!id || !strstr(r, "\"ok\":true")) { fprintf(stderr, "bench_before: open %s in %s: %s\n", k->scene, dir, r ? r : "?"); exit(1); }
    s->scene = strtoll(id + 8, NULL, 10);
    s->free(r);
    r = s->send(s->rt, s->scene, s->action);
    if (!r || !strstr(r, "\"ok\":true")) { fprintf(stderr, "bench_before: send in %s: %s\n", dir, r ? r : "?"); exit(1); }
    s->free(r);
}

static double batch(struct side *s, long n)
{
    double t0 = now_ns();
    for (long i = 0; i < n; i++) s->free(s->send(s->rt, s->scene, s->action));
    return (now_ns() - t0) / (double)n;
}

static const struct kase *find(const char *name)
{
    for (int i = 0; i < NCASES; i++)
        if (strcmp(cases[i].name, name) == 0) return &cases[i];
    fprintf(stderr, "bench_before: no case %s (login, login-journal, jobs)\n", name);
    exit(2);
}

/* A journal file of its own in the temporary folder, removed first. */
static const char *journal_path(char *buf, size_t size, const char *tag)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(buf, size, "%s/yaia-bench-before-%ld-%s.jsonl", tmp, (long)getpid(), tag);
    remove(buf);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--count") == 0) {
        const struct kase *k = find(argv[2]);
        char j[4096];
        struct side s;
        setup(&s, argv[4], k, k->journal ? journal_path(j, sizeof j, "count") : NULL);
        batch(&s, atol(argv[3]));
        if (k->journal) remove(j);
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: bench_before BEFORE_DIR NOW_DIR | bench_before --count CASE N DIR\n");
        return 2;
    }
    printf("yaia_send: the library before the one send path (%s) and now (%s), batches alternating\n", argv[1], argv[2]);
    printf("%-14s %12s %12s %8s %8s\n", "case", "before ns", "now ns", "ratio", "target");
    int missed = 0;
    for (int c = 0; c < NCASES; c++) {
        char ja[4096], jb[4096];
        struct side a, b;
        setup(&a, argv[1], &cases[c], cases[c].journal ? journal_path(ja, sizeof ja, "before") : NULL);
        setup(&b, argv[2], &cases[c], cases[c].journal ? journal_path(jb, sizeof jb, "now") : NULL);
        batch(&a, CALLS);
        batch(&b, CALLS);
        for (int i = 0; i < BATCHES; i++) {
            a.t[i] = batch(&a, CALLS);
            b.t[i] = batch(&b, CALLS);
        }
        double before = median(a.t, BATCHES), now = median(b.t, BATCHES), ratio = now / before;
        missed += ratio > TARGET;
        printf("%-14s %12.0f %12.0f %8.3f %8.2f%s\n", cases[c].name, before, now, ratio, TARGET, ratio > TARGET ? "  over" : "");
        if (cases[c].journal) { remove(ja); remove(jb); }
    }
    printf("%d of %d cases over the target\n", missed, NCASES);
    return 0;
}
