/*
** fuzz_surfaces.c -- what the lines of a fuzz input are, by the surface its
** first line chooses (fuzz_execute.c, docs/fuzzing.md): requests, a scene
** document and actions, actions for the fuzzing pack, a JSON Logic rule and
** its data, a scenario file.
*/
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Whether an answer whose first member is "ok" (as canonical JSON orders
** those of a register or a snapshot) is a success. */
static int succeeded(const char *answer) { return answer && strncmp(answer, "{\"ok\":true", 10) == 0; }

/* Whether an answer is an error envelope: {"error":{...},"ok":false}. */
static int failed(const char *answer)
{
    size_t n = answer ? strlen(answer) : 0;
    return n >= 12 && strcmp(answer + n - 12, ",\"ok\":false}") == 0;
}

/* The whole number of the top-level member "scene" of an answer, or 0. */
long scene_of(const char *answer)
{
    int depth = 0;
    for (const char *c = answer; c && *c; c++) {
        if (*c == '"') {
            if (depth == 1 && strncmp(c, "\"scene\":", 8) == 0 && c[8] >= '0' && c[8] <= '9')
                return strtol(c + 8, NULL, 10);
            for (c++; *c && *c != '"'; c++)
                if (*c == '\\' && c[1])
                    c++;
            if (!*c)
                break;
        } else if (*c == '{' || *c == '[') {
            depth++;
        } else if (*c == '}' || *c == ']') {
            depth--;
        }
    }
    return 0;
}

/* The request {"op":OP,REST,EXTRA} made from an answer {"ok":true,REST}
** (canonical JSON: "ok" comes before "scene" and "snapshot"); NULL if the
** answer is no success. */
static char *answer_as_request(const char *answer, const char *op, const char *extra, size_t extra_len)
{
    size_t n = answer ? strlen(answer) : 0;
    if (!succeeded(answer) || answer[10] != ',' || answer[n - 1] != '}')
        return NULL;
    char *text;
    if (asprintf(&text, "{\"op\":\"%s\",%.*s%.*s}", op, (int)(n - 12), answer + 11, (int)extra_len, extra) < 0)
        return NULL;
    return text;
}

/* Snapshots the runtime and restores the snapshot. With `must`, what the
** runtime saved it must restore: an input it cannot is reported. */
static void round_trip(yaia_runtime *rt, int must)
{
    char *snapshot = requestf(rt, "{\"op\":\"snapshot\"}");
    char *restore = answer_as_request(snapshot, "restore", "", 0);
    if (restore) {
        char *answer = request(rt, restore, strlen(restore));
        if (must && failed(answer)) {
            fprintf(stderr, "fuzz_execute: a snapshot the runtime took it does not restore:\n< %.300s\n", answer);
            abort();
        }
        yaia_free(answer);
    }
    free(restore);
    yaia_free(snapshot);
}

enum { REQUESTS, DOCUMENT, PACK, LOGIC, SCENARIO };

static const char *const headers[] = {"", "@document", "@pack", "@logic", "@scenario"};

#define SCENARIO_FILE "fuzz.scenario.json"

/* One input's run: its surface and what its lines have set up so far. */
typedef struct {
    yaia_runtime *rt;
    int surface;
    const char *args; /* the header's open arguments, or NULL */
    size_t args_len;
    int started;      /* the document was registered; the rule was read */
    long scene;       /* where actions go */
    const char *rule; /* @logic */
    size_t rule_len;
    int evaluated;
    FILE *scenario; /* @scenario: the file being written */
} fuzz_run;

static void run_line(fuzz_run *r, const char *text, size_t len) { yaia_free(request(r->rt, text, len)); }

/* Opens `scene` (a JSON string) with the header's arguments. */
static void open_scene(fuzz_run *r, const char *answer)
{
    char *extra = NULL;
    if (r->args && asprintf(&extra, ",\"args\":%.*s", (int)r->args_len, r->args) < 0)
        return;
    char *open = answer_as_request(answer, "open", extra ? extra : "", extra ? strlen(extra) : 0);
    if (open) {
        char *opened = request(r->rt, open, strlen(open));
        r->scene = scene_of(opened);
        yaia_free(opened);
    }
    free(open);
    free(extra);
}

static void send_action(fuzz_run *r, const char *p, size_t len)
{
    yaia_free(requestf(r->rt, "{\"op\":\"send\",\"scene\":%ld,\"action\":%.*s}", r->scene, (int)len, p));
    if (r->surface == PACK)
        yaia_free(requestf(r->rt, "{\"op\":\"state\",\"scene\":%ld}", r->scene));
}

static void begin(fuzz_run *r)
{
    if (r->surface == PACK)
        open_scene(r, "{\"ok\":true,\"scene\":\"fuzz/answers\"}");
    else if (r->surface == SCENARIO)
        r->scenario = fopen(SCENARIO_FILE, "w");
}

static void line(fuzz_run *r, const char *p, size_t len)
{
    if (len > 0 && p[0] == '#') {
        append_line(p, len);
        return;
    }
    if (len > 0 && (p[0] == '=' || p[0] == '!')) {
        const char *space = memchr(p, ' ', len);
        size_t slot = (size_t)((space ? space : p + len) - p - 1), skip = space ? slot + 2 : len;
        set_answer(p + 1, slot, p[0] == '!', p + skip, len - skip);
        return;
    }
    int raw = len >= 5 && memcmp(p, "{\"op\"", 5) == 0;
    switch (r->surface) {
    case DOCUMENT:
        if (!r->started) {
            r->started = 1;
            char *registered = requestf(r->rt, "{\"op\":\"register\",\"document\":%.*s}", (int)len, p);
            open_scene(r, registered);
            yaia_free(registered);
        } else if (raw) {
            run_line(r, p, len);
        } else {
            send_action(r, p, len);
        }
        break;
    case PACK:
        raw ? run_line(r, p, len) : send_action(r, p, len);
        break;
    case LOGIC:
        if (!r->started) {
            r->started = 1;
            r->rule = p;
            r->rule_len = len;
        } else {
            r->evaluated = 1;
            yaia_free(requestf(r->rt, "{\"op\":\"logic\",\"rule\":%.*s,\"data\":%.*s}", (int)r->rule_len, r->rule,
                               (int)len, p));
        }
        break;
    case SCENARIO:
        if (r->scenario) {
            fwrite(p, 1, len, r->scenario);
            fputc('\n', r->scenario);
        }
        break;
    default:
        run_line(r, p, len);
    }
}

static void end(fuzz_run *r)
{
    switch (r->surface) {
    case DOCUMENT:
        if (r->scene) {
            yaia_free(requestf(r->rt, "{\"op\":\"state\",\"scene\":%ld}", r->scene));
            round_trip(r->rt, 1);
        }
        break;
    case PACK:
        round_trip(r->rt, 0);
        /* Invariants are checked in scenario runs and simulations. */
        yaia_free(requestf(r->rt, "{\"op\":\"scenario\",\"scenario\":{\"yaia\":1,\"scene\":\"fuzz/answers\","
                                  "\"exhaustive\":false,\"steps\":[{\"send\":\"fuzz\"}]}}"));
        yaia_free(requestf(r->rt, "{\"op\":\"simulate\",\"scene\":\"fuzz/answers\",\"runs\":1,\"steps\":3,"
                                  "\"seed\":1,\"actions\":{\"fuzz\":null}}"));
        break;
    case LOGIC:
        if (r->started && !r->evaluated)
            yaia_free(requestf(r->rt, "{\"op\":\"logic\",\"rule\":%.*s}", (int)r->rule_len, r->rule));
        break;
    case SCENARIO:
        if (r->scenario) {
            fclose(r->scenario);
            yaia_free(requestf(r->rt, "{\"op\":\"scenario\",\"path\":\"" SCENARIO_FILE "\"}"));
        }
        break;
    }
}

/* The surface a first line "@NAME ARGS?" chooses; the header is consumed. */
static void choose_surface(fuzz_run *r, const char **p, const char *end)
{
    if (*p >= end || **p != '@')
        return;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t len = (size_t)((nl ? nl : end) - *p);
    for (int s = 1; s < (int)(sizeof headers / sizeof *headers); s++) {
        size_t h = strlen(headers[s]);
        if (len >= h && memcmp(*p, headers[s], h) == 0 && (len == h || (*p)[h] == ' ')) {
            r->surface = s;
            if (len > h + 1) {
                r->args = *p + h + 1;
                r->args_len = len - h - 1;
            }
        }
    }
    *p += len + 1;
}

void run_input(yaia_runtime *rt, const char *p, size_t size)
{
    fuzz_run r = {0};
    r.rt = rt;
    const char *end_of_input = p + size;
    choose_surface(&r, &p, end_of_input);
    begin(&r);
    while (p < end_of_input) {
        const char *nl = memchr(p, '\n', (size_t)(end_of_input - p));
        size_t len = (size_t)((nl ? nl : end_of_input) - p);
        line(&r, p, len);
        p += len + 1;
    }
    end(&r);
}
