/*
** harness.h -- what the C test programs of Tests/c share.
**
**   counters    check(), check_has(), check_lacks(), check_error(): count a
**               pass, or print "FAIL: ..." and count a failure;
**               harness_finish() prints "N passed, N failed" and gives the
**               exit status (1 when anything failed).
**   watchdog    harness_start() catches crashes (and SIGALRM) and reads the
**               section time-out (YAIA_TEST_TIMEOUT seconds, 120 by
**               default); section() names what runs and re-arms the alarm,
**               set_current() names a single step. A crash or hang is
**               reported on stderr with that name. (stress.c, which has no
**               sections, calls only harness_catch_signals().)
**   JSON        value_end(), value_of(), int_of(), raw_of(), json_quote():
**               substring peeking into the canonical JSON the runtime
**               answers with (sorted keys, no spaces), so a "key": needle
**               is exact.
**   requests    expect_ok(), expect_error(): run one request and check it;
**               open_scene(), send_action().
**   odds        fmt(), copy_span(), env_or(), plugin_path(), read_file().
**   scenes      examples_pack(), with_examples(), examples_runtime():
**               libyaia.so carries no scenes; the example scenes are in
**               the examples pack (YAIA_EXAMPLES_PACK, which the Makefile
**               sets, else .build/release/libyaia-examples.so), which a
**               runtime's config names: {"scenes":["/path/libyaia-examples.so"]}.
**
** Each program keeps its own checks and the helpers only it needs. Header
** only: every function is static inline, so a program pays nothing for what
** it does not use and each test still builds from its own .c file. Define
** _POSIX_C_SOURCE (or _GNU_SOURCE) before including it.
*/
#ifndef YAIA_TEST_HARNESS_H
#define YAIA_TEST_HARNESS_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yaia.h"

/* ================================================================ counters and watchdog */

static int passed, failed;

/* What is running now, for the crash and hang reports: a crash in the
** library kills this process, and the report should still say where. */
static char current[512] = "start-up";

/* Where those reports go: a test that redirects stderr keeps the real one here. */
static int real_stderr = 2;

static unsigned section_timeout = 120;

static inline void set_current(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(current, sizeof current, f, ap);
    va_end(ap);
}

static inline void on_fatal_signal(int sig)
{
    /* Only async-signal-safe calls here. */
    const char *what = sig == SIGALRM ? "HUNG (timed out) during: " : "CRASHED (signal) during: ";
    (void)!write(real_stderr, "\n", 1);
    (void)!write(real_stderr, what, strlen(what));
    (void)!write(real_stderr, current, strlen(current));
    (void)!write(real_stderr, "\n", 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Line-buffered stdout, and crash and hang reports. */
static inline void harness_catch_signals(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGALRM};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], on_fatal_signal);
}

/* The start of a test program with sections: signals, and the section time-out. */
static inline void harness_start(void)
{
    harness_catch_signals();
    signal(SIGPIPE, SIG_IGN);
    const char *t = getenv("YAIA_TEST_TIMEOUT");
    section_timeout = t && atoi(t) > 0 ? (unsigned)atoi(t) : 120;
}

static inline void section(const char *name)
{
    set_current("%s", name);
    alarm(section_timeout); /* re-armed per section: a hang fails loudly */
}

/* The last line of every test program; returns its exit status. */
static inline int harness_finish(void)
{
    alarm(0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* ================================================================ checks */

static inline int check(int ok, const char *f, ...)
{
    if (ok) {
        passed++;
        return 1;
    }
    failed++;
    va_list ap;
    va_start(ap, f);
    printf("FAIL: ");
    vprintf(f, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    return 0;
}

/* Checks that resp holds every needle (a NULL-terminated list). */
static inline int check_has(const char *resp, const char *name, ...)
{
    va_list ap;
    va_start(ap, name);
    const char *missing = NULL;
    for (const char *n; (n = va_arg(ap, const char *)) != NULL;)
        if (!missing && (!resp || !strstr(resp, n)))
            missing = n;
    va_end(ap);
    if (!missing) {
        passed++;
        return 1;
    }
    failed++;
    printf("FAIL: %s -- expected %s -- got %s\n", name, missing, resp ? resp : "(NULL)");
    fflush(stdout);
    return 0;
}

static inline int check_lacks(const char *resp, const char *needle, const char *name)
{
    if (resp && !strstr(resp, needle)) {
        passed++;
        return 1;
    }
    failed++;
    printf("FAIL: %s -- unexpected %s -- got %s\n", name, needle, resp ? resp : "(NULL)");
    fflush(stdout);
    return 0;
}

/* "code":"CODE" and "ok":false, as the error envelope prints them. */
static inline int check_error(const char *resp, const char *code, const char *name)
{
    char needle[96];
    snprintf(needle, sizeof needle, "\"code\":\"%s\"", code);
    return check_has(resp, name, "\"ok\":false", needle, (const char *)NULL);
}

/* A malloc'd printf; exits on out of memory. */
static inline char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

/* ================================================================ JSON peeking */

/* The end of the JSON value starting at p (strings and nesting aware): just
** past a string or a container, or at the ',', '}' or ']' after a scalar. */
static inline const char *value_end(const char *p)
{
    int depth = 0, in_string = 0;
    for (; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"') {
                in_string = 0;
                if (depth == 0)
                    return p + 1;
            }
            continue;
        }
        switch (*p) {
        case '"': in_string = 1; break;
        case '{': case '[': depth++; break;
        case '}': case ']':
            if (depth == 0)
                return p;
            if (--depth == 0)
                return p + 1;
            break;
        case ',':
            if (depth == 0)
                return p;
            break;
        }
    }
    return p;
}

/* The value of the first "key": in json, or NULL. The first is the
** top-level one for the keys the tests read, because keys are sorted and the
** nested objects that precede them do not use those names. */
static inline const char *value_of(const char *json, const char *key)
{
    if (!json)
        return NULL;
    char needle[80];
    snprintf(needle, sizeof needle, "\"%s\":", key);
    const char *p = strstr(json, needle);
    return p ? p + strlen(needle) : NULL;
}

/* The integer value of the first "key":, or -1 when there is none. */
static inline long long int_of(const char *json, const char *key)
{
    const char *p = value_of(json, key);
    if (!p || !(*p == '-' || (*p >= '0' && *p <= '9')))
        return -1;
    return strtoll(p, NULL, 10);
}

/* A malloc'd copy of [p, e). */
static inline char *copy_span(const char *p, const char *e)
{
    char *s = malloc((size_t)(e - p) + 1);
    if (!s)
        exit(2);
    memcpy(s, p, (size_t)(e - p));
    s[e - p] = '\0';
    return s;
}

/* A malloc'd copy of the raw text of the first "key":'s value, or NULL. */
static inline char *raw_of(const char *json, const char *key)
{
    const char *p = value_of(json, key);
    return p ? copy_span(p, value_end(p)) : NULL;
}

/* s as a JSON string literal (malloc'd), for paths and names in requests. */
static inline char *json_quote(const char *s)
{
    char *out = malloc(strlen(s) * 6 + 3);
    if (!out)
        exit(2);
    char *p = out;
    *p++ = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            *p++ = '\\';
            *p++ = (char)c;
        } else if (c < 0x20) {
            p += sprintf(p, "\\u%04x", c);
        } else {
            *p++ = (char)c;
        }
    }
    *p++ = '"';
    *p = '\0';
    return out;
}

/* ================================================================ requests */

/* Runs a request, checks that it fails with code, frees the response. */
static inline int expect_error(yaia_runtime *rt, const char *request, const char *code, const char *name)
{
    set_current("%s: %s", name, request);
    char *r = yaia_execute(rt, request);
    int ok = check_error(r, code, name);
    yaia_free(r);
    return ok;
}

/* Runs a request, checks it succeeds and holds every needle (NULL-terminated). */
static inline int expect_ok(yaia_runtime *rt, const char *request, const char *name, ...)
{
    set_current("%s: %s", name, request);
    char *r = yaia_execute(rt, request);
    va_list ap;
    va_start(ap, name);
    const char *missing = (r && strstr(r, "\"ok\":true")) ? NULL : "\"ok\":true";
    for (const char *n; (n = va_arg(ap, const char *)) != NULL;)
        if (!missing && !strstr(r, n))
            missing = n;
    va_end(ap);
    int ok = check(!missing, "%s -- request %s -- expected %s -- got %s", name, request, missing ? missing : "",
                   r ? r : "(NULL)");
    yaia_free(r);
    return ok;
}

/* Opens a scene of type `type`; checks the open update (seq 0) and returns
** the scene's id (-1 when it did not open). */
static inline int64_t open_scene(yaia_runtime *rt, const char *type, const char *name)
{
    set_current("%s: open %s", name, type);
    char *r = yaia_open(rt, type, NULL);
    check_has(r, name, "\"ok\":true", "\"seq\":0", (const char *)NULL);
    long long id = int_of(r, "scene");
    yaia_free(r);
    return id;
}

static inline char *send_action(yaia_runtime *rt, int64_t scene, const char *action)
{
    set_current("send %s to scene %lld", action, (long long)scene);
    return yaia_send(rt, scene, action);
}

/* ================================================================ environment, files */

/* The environment variable name, or fallback when it is unset or empty. */
static inline const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* DIR/NAME.so quoted for JSON (malloc'd). */
static inline char *plugin_path(const char *dir, const char *name)
{
    char *path = fmt("%s/%s.so", dir, name);
    char *q = json_quote(path);
    free(path);
    return q;
}

/* A whole file, NUL-added (malloc'd), its length in *length when given; NULL
** when it cannot be read. */
static inline char *read_file(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, cap * 2 + 1);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (length)
        *length = n;
    return buf;
}

/* ================================================================ the examples pack */

/* The examples pack's path: YAIA_EXAMPLES_PACK, else the build folder's
** (relative: right when run from the repository, as make does). */
static inline const char *examples_pack(void)
{
    return env_or("YAIA_EXAMPLES_PACK", ".build/release/libyaia-examples.so");
}

/* config (a JSON object's text; NULL counts as {}) with
** "scenes":[EXAMPLES_PACK] spliced in as its first member (malloc'd). The
** config must not name "scenes" itself. Text that is no object is copied as
** it is, for the runtime to refuse. */
static inline char *with_examples(const char *config)
{
    const char *p = config ? config : "{}";
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p != '{')
        return fmt("%s", config);
    const char *rest = p + 1;
    while (*rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r')
        rest++;
    char *pack = json_quote(examples_pack());
    char *spliced = fmt("{\"scenes\":[%s]%s%s", pack, *rest == '}' ? "" : ",", rest);
    free(pack);
    return spliced;
}

/* A config member granting requests every privileged op, on any file: for
** tests that play the host itself (docs/security.md). */
#define ALLOW_ALL "\"allow\":{\"ops\":\"all\",\"files\":[\"/\"]}"

/* yaia_runtime_new(with_examples(config), error_json): a runtime with the
** example scenes. When it fails and error_json is NULL, the error is printed
** (a missing pack shows up as scene_pack_not_found, with the path). */
static inline yaia_runtime *examples_runtime(const char *config, char **error_json)
{
    char *full = with_examples(config);
    char *err = NULL;
    yaia_runtime *rt = yaia_runtime_new(full, &err);
    if (!rt && !error_json)
        fprintf(stderr, "examples_runtime(%s): %s\n", full, err ? err : "(no error)");
    free(full);
    if (error_json)
        *error_json = err;
    else
        yaia_free(err);
    return rt;
}

#endif /* YAIA_TEST_HARNESS_H */
