/*
** bench.h -- what every C benchmark here measures with: a monotonic clock
** in ns and the median of a sample (medians shrug off scheduler noise, a
** mean would not). Header only; define _POSIX_C_SOURCE before including it.
*/
#ifndef YAIA_BENCH_H
#define YAIA_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
** The baseline that send targets are ratios to: the login scene's
** emailChanged written by hand in C, with no runtime. It finds the action's
** type and payload in the text, keeps the email, and answers the same update
** text as yaia_send, in a buffer of its own that the caller frees. Measured
** in the same run as the sends, so a target holds on a slower machine.
*/
struct hand_login { char email[256]; char password[256]; int submitting; };

static inline const char *hand_string(const char *text, const char *key, size_t *len)
{
    const char *p = strstr(text, key);
    if (!p) return NULL;
    p = strchr(p + strlen(key), '"');
    if (!p) return NULL;
    const char *end = strchr(p + 1, '"');
    if (!end) return NULL;
    *len = (size_t)(end - p - 1);
    return p + 1;
}

static inline char *hand_login_send(struct hand_login *s, long long seq, const char *action)
{
    size_t n = 0, m = 0;
    const char *type = hand_string(action, "\"type\":", &n);
    const char *payload = hand_string(action, "\"payload\":", &m);
    if (!type || n != 12 || memcmp(type, "emailChanged", 12) != 0 || !payload || m >= sizeof s->email) return NULL;
    memcpy(s->email, payload, m);
    s->email[m] = 0;
    int can_submit = !s->submitting && strchr(s->email, '@') != NULL && s->password[0] != 0;
    char *out = malloc(160 + m);
    if (!out) return NULL;
    snprintf(out, 160 + m,
             "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":%lld,\"viewModel\":"
             "{\"canSubmit\":%s,\"email\":\"%s\",\"error\":null,\"isSubmitting\":%s}}",
             seq, can_submit ? "true" : "false", s->email, s->submitting ? "true" : "false");
    return out;
}

/* Keeps the compiler from dropping calls whose result is unused. */
static volatile int bench_sink;

/* The baseline, `n` times: what run_* functions are timed against. */
static inline void run_hand_login(int n)
{
    struct hand_login s = {{0}, {0}, 0};
    for (int i = 0; i < n; i++) {
        char *r = hand_login_send(&s, i, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}");
        bench_sink += r ? r[0] : 0;
        free(r);
    }
}

/* The median ns per call of `run` over `batches` batches (at most 128) of
** `calls` calls, after a warm-up batch. */
static inline double batch_median_ns(void (*run)(int), int batches, int calls)
{
    double per_call[128];
    if (batches > 128) batches = 128;
    run(calls);
    for (int b = 0; b < batches; b++) {
        double t0 = now_ns();
        run(calls);
        per_call[b] = (now_ns() - t0) / calls;
    }
    return median(per_call, batches);
}

#endif
