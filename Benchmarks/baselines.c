/*
** baselines.c -- libyaiabaselines.so: direct C calls timed in C, for
** benchmarks that cannot make a direct call themselves (bench_ffi.py).
** Each runs n calls through volatile function pointers (no inlining, no
** hoisting) and returns ns per call. add_i64 is the same function the
** test library libyaiatypes.so exports, which the benchmark binds.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <time.h>

#define API __attribute__((visibility("default")))

static int64_t add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

static int64_t (*volatile add_ptr)(int64_t, int64_t) = add_i64;
static double (*volatile cos_ptr)(double) = cos;
static volatile int64_t sink;
static volatile double sink_d;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per call of add_i64 over n calls */
API double bench_add_i64(int64_t n)
{
    int64_t acc = 0;
    double t0 = now_ns();
    for (int64_t i = 0; i < n; i++)
        acc = add_ptr(acc, i);
    double t1 = now_ns();
    sink = acc;
    return n > 0 ? (t1 - t0) / (double)n : 0;
}

/* ns per call of libm's cos over n calls */
API double bench_cos(int64_t n)
{
    double acc = 0;
    double t0 = now_ns();
    for (int64_t i = 0; i < n; i++)
        acc += cos_ptr(0.5);
    double t1 = now_ns();
    sink_d = acc;
    return n > 0 ? (t1 - t0) / (double)n : 0;
}
