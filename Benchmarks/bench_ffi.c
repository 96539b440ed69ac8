/*
** bench_ffi.c -- the cost of a foreign call through the runtime, from C.
**
** Two cheap functions: add_i64 of the test library libyaiatypes.so
** (int64(int64, int64)) and libm's cos (double(double)). For each, in one
** run and with the same method:
**
**   direct C call       through a function pointer the compiler cannot see
**                       through (dlsym'd / volatile): the floor
**   perform             yaia_execute({"op":"perform","effect":{...}}) + yaia_free:
**                       parse, look up, check and convert the arguments,
**                       libffi call, result to JSON, answer
**   perform, host svc  the same request to a C host service (yaia_add_service)
**                       that completes inline with "42": the request machinery
**                       without libffi and argument conversion, for scale
**   scene (jobs)        for add_i64: yaia_send(run effect) + yaia_receive +
**                       2 x yaia_free on example/jobs: reduce, emit the
**                       effect, perform it inline, reduce its outcome, queue
**                       the update. The jobs log grows with every outcome,
**                       so each batch uses a fresh scene of SCENE_CALLS calls
**                       (opening and closing it is not timed).
**
** Each case is timed over BATCHES batches; the table shows the median batch
** in ns per call and its ratio to the direct C call of the same function.
**
**   usage: bench_ffi PATH_TO_libyaia-examples.so
**
** (the examples pack has example/jobs). Environment: YAIA_TEST_LIB_DIR (the
** folder of libyaiatypes.so; .build/yaia/lib by default).
*/
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yaia.h"
#include "bench.h"

#define BATCHES 31
#define SCENE_CALLS 64

static yaia_runtime *rt;
static int64_t (*volatile add_ptr)(int64_t, int64_t);
static double (*volatile cos_ptr)(double) = cos;
static volatile int64_t sink;
static volatile double sink_d;

static const char perform_add[] =
    "{\"op\":\"perform\",\"effect\":{\"service\":\"t\",\"op\":\"add_i64\",\"args\":[40,2]}}";
static const char perform_cos[] =
    "{\"op\":\"perform\",\"effect\":{\"service\":\"math\",\"op\":\"cos\",\"args\":[0.5]}}";
static const char perform_host[] =
    "{\"op\":\"perform\",\"effect\":{\"service\":\"host\",\"op\":\"add_i64\",\"args\":[40,2]}}";
static const char run_add[] =
    "{\"type\":\"run\",\"payload\":{\"service\":\"t\",\"op\":\"add_i64\",\"args\":[40,2]}}";

/* Each runner makes n calls and returns the ns they took. */

static double run_direct_add(int n)
{
    int64_t acc = 0;
    double t0 = now_ns();
    for (int i = 0; i < n; i++)
        acc = add_ptr(acc, i);
    double t = now_ns() - t0;
    sink = acc;
    return t;
}

static double run_direct_cos(int n)
{
    double acc = 0;
    double t0 = now_ns();
    for (int i = 0; i < n; i++)
        acc += cos_ptr(0.5);
    double t = now_ns() - t0;
    sink_d = acc;
    return t;
}

static double run_request(const char *request, int n)
{
    double t0 = now_ns();
    for (int i = 0; i < n; i++) {
        char *r = yaia_execute(rt, request);
        sink += r[0];
        yaia_free(r);
    }
    return now_ns() - t0;
}

static double run_perform_add(int n) { return run_request(perform_add, n); }
static double run_perform_cos(int n) { return run_request(perform_cos, n); }
static double run_perform_host(int n) { return run_request(perform_host, n); }

static void host_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)ctx, (void)op, (void)args_json;
    yaia_call_complete(call, "42");
}

static int64_t open_jobs(void)
{
    char *r = yaia_open(rt, "example/jobs", NULL);
    const char *id = strstr(r, "\"scene\":");
    int64_t scene = id && strstr(r, "\"ok\":true") ? strtoll(id + 8, NULL, 10) : -1;
    yaia_free(r);
    return scene;
}

static void close_scene(int64_t scene)
{
    char req[64];
    snprintf(req, sizeof req, "{\"op\":\"close\",\"scene\":%lld}", (long long)scene);
    yaia_free(yaia_execute(rt, req));
}

/* n is a multiple of SCENE_CALLS: a fresh scene for every SCENE_CALLS. */
static double run_scene(int n)
{
    double t = 0;
    for (int done = 0; done < n; done += SCENE_CALLS) {
        int64_t scene = open_jobs();
        double t0 = now_ns();
        for (int i = 0; i < SCENE_CALLS; i++) {
            char *r = yaia_send(rt, scene, run_add);
            sink += r[0];
            yaia_free(r);
            r = yaia_receive(rt, 0);
            sink += r ? r[0] : 0;
            yaia_free(r);
        }
        t += now_ns() - t0;
        close_scene(scene);
    }
    return t;
}

/* Median ns per call over BATCHES batches of calls calls, after a warm-up batch. */
static double median_ns(double (*run)(int), int calls)
{
    double per_call[BATCHES];
    run(calls);
    for (int b = 0; b < BATCHES; b++)
        per_call[b] = run(calls) / calls;
    qsort(per_call, BATCHES, sizeof per_call[0], by_value);
    return per_call[BATCHES / 2];
}

static int answers(const char *request, const char *want)
{
    char *r = yaia_execute(rt, request);
    int ok = strcmp(r, want) == 0;
    if (!ok)
        fprintf(stderr, "bench_ffi: %s answered %s, expected %s\n", request, r, want);
    yaia_free(r);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2 || strpbrk(argv[1], "\"\\")) {
        fprintf(stderr, "usage: %s PATH_TO_libyaia-examples.so (no quotes or backslashes in the path)\n", argv[0]);
        return 2;
    }
    const char *dir = getenv("YAIA_TEST_LIB_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/libyaiatypes.so", dir && *dir ? dir : ".build/yaia/lib");
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void *sym = lib ? dlsym(lib, "add_i64") : NULL;
    if (!sym) {
        fprintf(stderr, "bench_ffi: cannot load add_i64 from %s: %s\n", path, dlerror());
        return 1;
    }
    int64_t (*add)(int64_t, int64_t);
    memcpy(&add, &sym, sizeof add);
    add_ptr = add;

    char config[4200];
    snprintf(config, sizeof config,
             "{\"scenes\":[\"%s\"],\"allow\":{\"ops\":[\"perform\",\"bind\"],\"files\":[\"/\"]},"
             "\"bind\":[{\"service\":\"math\",\"library\":\"libm.so.6\",\"ops\":{\"cos\":\"double(double)\"}}]}",
             argv[1]);
    char *error = NULL;
    rt = yaia_runtime_new(config, &error);
    if (!rt) {
        fprintf(stderr, "bench_ffi: no runtime: %s\n", error ? error : "?");
        yaia_free(error);
        return 1;
    }
    char *bind = malloc(strlen(path) + 200);
    sprintf(bind, "{\"op\":\"bind\",\"service\":\"t\",\"library\":\"%s\",\"ops\":{\"add_i64\":\"int64(int64, int64)\"}}", path);
    char *r = yaia_execute(rt, bind);
    int bound = strstr(r, "\"ok\":true") != NULL;
    if (!bound)
        fprintf(stderr, "bench_ffi: bind failed: %s\n", r);
    yaia_free(r);
    free(bind);
    yaia_service host = {sizeof(yaia_service), "host", NULL, host_perform, NULL, NULL, 0};
    yaia_free(yaia_add_service(rt, &host));

    /* The measured calls must work before they are timed. */
    int ok = bound && answers(perform_add, "{\"ok\":true,\"result\":42}") &&
             answers(perform_host, "{\"ok\":true,\"result\":42}");
    if (ok) {
        r = yaia_execute(rt, perform_cos);
        const char *v = strstr(r, "\"result\":");
        ok = v && strtod(v + 9, NULL) == cos(0.5);
        if (!ok)
            fprintf(stderr, "bench_ffi: math.cos(0.5) answered %s\n", r);
        yaia_free(r);
    }
    int64_t scene = ok ? open_jobs() : -1;
    if (scene > 0) {
        r = yaia_send(rt, scene, run_add);
        ok = strstr(r, "\"status\":\"running\"") != NULL;
        yaia_free(r);
        r = yaia_receive(rt, 0);
        ok = ok && r && strstr(r, "{\"ok\":true,\"result\":42}");
        if (!ok)
            fprintf(stderr, "bench_ffi: the jobs scene path does not deliver at once: %s\n", r ? r : "(no event)");
        yaia_free(r);
        close_scene(scene);
    }
    if (!ok) {
        fprintf(stderr, "bench_ffi: the measured calls fail\n");
        yaia_runtime_free(rt);
        return 1;
    }

    double direct_add = median_ns(run_direct_add, 2000000);
    double direct_cos = median_ns(run_direct_cos, 2000000);
    double perf_add = median_ns(run_perform_add, 20000);
    double perf_cos = median_ns(run_perform_cos, 20000);
    double perf_host = median_ns(run_perform_host, 20000);
    double scene_add = median_ns(run_scene, SCENE_CALLS * 64);

    printf("yaia %s, foreign calls from C: medians of %d batches\n\n", yaia_version(), BATCHES);
    printf("  %-52s %10s %12s\n", "call", "ns/call", "x direct C");
    printf("  %-52s %10.1f %12.1f\n", "add_i64: direct C call (function pointer)", direct_add, 1.0);
    printf("  %-52s %10.1f %12.1f\n", "add_i64: yaia_execute(perform) + yaia_free", perf_add, perf_add / direct_add);
    printf("  %-52s %10.1f %12.1f\n", "same request to a C host service (no libffi)", perf_host, perf_host / direct_add);
    printf("  %-52s %10.1f %12.1f\n", "add_i64: jobs scene: send(run) + receive + 2 frees", scene_add,
           scene_add / direct_add);
    printf("  %-52s %10.1f %12.1f\n", "cos: direct C call (function pointer)", direct_cos, 1.0);
    printf("  %-52s %10.1f %12.1f\n", "cos: yaia_execute(perform) + yaia_free", perf_cos, perf_cos / direct_cos);
    printf("\n  runtime overhead per foreign call (perform - direct): add_i64 %.0f ns, cos %.0f ns\n",
           perf_add - direct_add, perf_cos - direct_cos);
    printf("  of which argument checks, libffi and result (perform - host service): %.0f ns\n", perf_add - perf_host);
    printf("  scene path vs perform (add_i64): %.2fx\n", scene_add / perf_add);

    yaia_runtime_free(rt);
    return 0;
}
