/*
** test_abi.c -- tests libyaia.so through its C ABI only, as a C host would.
**
** Prints one line per failed check and ends with "N passed, N failed".
** Exit status 1 when anything failed.
**
** Environment (the Makefile exports the first three):
**   YAIA_LIBRARY          libyaia.so       (.build/release/libyaia.so)
**   YAIA_PLUGIN_DIR       auth.so          (.build/yaia/plugins)
**   YAIA_TEST_PLUGIN_DIR  Tests/plugins    (.build/yaia/test-plugins)
**   YAIA_EXAMPLES_PACK    the example scenes (.build/release/libyaia-examples.so)
**   YAIA_CONFORMANCE_DIR  JSONTestSuite    (../shared/conformance/json-parsing)
**   YAIA_HEADER           yaia.h to parse  (Include/yaia.h)
**   YAIA_TEST_TIMEOUT     seconds a section may take before it counts as hung (120)
**
** Responses are canonical (sorted keys, no spaces), so substring checks on
** them are exact: "\"code\":\"unknown_op\"" can only mean that code.
*/
#define _GNU_SOURCE

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "harness.h"

/* ------------------------------------------------------------ paths */

static const char *library_path, *plugin_dir, *test_plugin_dir, *conformance_dir, *header_path;
static char *auth_path; /* quoted for JSON */

/* A test plugin's path, quoted for JSON. */
static char *test_plugin(const char *name) { return plugin_path(test_plugin_dir, name); }

/* ------------------------------------------------------------ scene helpers */

static int64_t open_login(yaia_runtime *rt, const char *name) { return open_scene(rt, "example/login", name); }

/* Sends an action and checks only that it was accepted. */
static void send_ok(yaia_runtime *rt, int64_t scene, const char *action, const char *name)
{
    char *r = send_action(rt, scene, action);
    check_has(r, name, "\"ok\":true", (const char *)NULL);
    yaia_free(r);
}

/* The runtime still answers after a refused request: a valid action on an
** open scene is reduced. */
static void still_works(yaia_runtime *rt, int64_t scene, const char *after)
{
    char *r = send_action(rt, scene, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}");
    char *name = fmt("runtime still works after %s", after);
    check_has(r, name, "\"ok\":true", "\"email\":\"a@b.c\"", (const char *)NULL);
    free(name);
    yaia_free(r);
}

/* Waits up to 5 s for the next event. */
static char *receive(yaia_runtime *rt, const char *why)
{
    set_current("yaia_receive: waiting for %s", why);
    return yaia_receive(rt, 5.0);
}

/* ================================================== 1. exports vs header */

#define FN(name) {#name, (void (*)(void))name}
/* Every function of yaia.h by address: a missing export fails to link. */
static const struct {
    const char *name;
    void (*address)(void);
} declared[] = {
    FN(yaia_version),     FN(yaia_abi_version), FN(yaia_free),          FN(yaia_runtime_new),
    FN(yaia_runtime_free), FN(yaia_execute),    FN(yaia_execute_n),     FN(yaia_receive),
    FN(yaia_open),        FN(yaia_send),        FN(yaia_resolve),       FN(yaia_add_service),
    FN(yaia_call_complete), FN(yaia_call_fail), FN(yaia_set_notifier), FN(yaia_execute_borrowed),
    FN(yaia_send_borrowed),
};
#define DECLARED_COUNT (sizeof declared / sizeof declared[0])

#define MAX_NAMES 128

typedef struct {
    char name[MAX_NAMES][128];
    int count;
} name_set;

static int in_set(const name_set *s, const char *name)
{
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->name[i], name) == 0)
            return 1;
    return 0;
}

static void add_name(name_set *s, const char *name, size_t len)
{
    if (s->count < MAX_NAMES && len < sizeof s->name[0]) {
        memcpy(s->name[s->count], name, len);
        s->name[s->count][len] = '\0';
        if (!in_set(s, s->name[s->count]))
            s->count++;
    }
}

static int is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Names of the functions yaia.h declares with YAIA_API: comments and
** preprocessor lines are blanked first, so the #define of YAIA_API and the
** prose do not count. */
static int parse_header(const char *path, name_set *out)
{
    char *text = read_file(path, NULL);
    if (!text)
        return 0;
    for (char *p = text; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *stop = e ? e + 2 : p + strlen(p);
            for (; p < stop; p++)
                if (*p != '\n')
                    *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++)
                *p = ' ';
            p--;
        }
    }
    for (char *line = text; *line;) {
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        char *nl = strchr(line, '\n');
        if (*s == '#') /* continuation lines are not used in yaia.h */
            for (char *q = line; q < (nl ? nl : line + strlen(line)); q++)
                *q = ' ';
        line = nl ? nl + 1 : line + strlen(line);
    }
    for (char *p = text; (p = strstr(p, "YAIA_API")) != NULL; p += 8) {
        if ((p > text && is_ident(p[-1])) || is_ident(p[8]))
            continue;
        char *paren = strchr(p, '(');
        if (!paren)
            break;
        char *end = paren;
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
            end--;
        char *start = end;
        while (start > p && is_ident(start[-1]))
            start--;
        if (end > start)
            add_name(out, start, (size_t)(end - start));
    }
    free(text);
    return 1;
}

/* Global symbols defined by the library, from nm -D. */
static int exported_symbols(const char *lib, name_set *out)
{
    if (strchr(lib, '\''))
        return 0;
    char *cmd = fmt("nm -D --defined-only '%s' 2>/dev/null", lib);
    FILE *p = popen(cmd, "r");
    free(cmd);
    if (!p)
        return 0;
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, p)) {
        char type, name[256];
        /* "VALUE TYPE NAME"; versioned names read "name@@VER". */
        if (sscanf(line, "%*s %c %255s", &type, name) != 2)
            continue;
        lines++;
        int global = (type >= 'A' && type <= 'Z') || type == 'u' || type == 'i' || type == 'v' ||
                     type == 'w';
        if (!global)
            continue;
        name[strcspn(name, "@")] = '\0';
        static const char *ignored[] = {"_init", "_fini", "_edata", "_end", "__bss_start"};
        int skip = 0;
        for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
            skip |= strcmp(name, ignored[i]) == 0;
        if (!skip)
            add_name(out, name, strlen(name));
    }
    int status = pclose(p);
    return status == 0 && lines > 0;
}

static void test_exports(void)
{
    section("exports");
    name_set header = {0}, exported = {0};
    if (!check(parse_header(header_path, &header), "exports: cannot read %s", header_path))
        return;
    check(header.count >= 10, "exports: found only %d YAIA_API functions in %s", header.count,
          header_path);

    /* The address table above must list exactly the header's functions. */
    for (int i = 0; i < header.count; i++) {
        int found = 0;
        for (size_t j = 0; j < DECLARED_COUNT; j++)
            found |= strcmp(declared[j].name, header.name[i]) == 0;
        check(found, "exports: %s (yaia.h) is missing from test_abi.c's address table",
              header.name[i]);
    }
    for (size_t j = 0; j < DECLARED_COUNT; j++) {
        check(in_set(&header, declared[j].name),
              "exports: %s is in the address table but not declared YAIA_API in yaia.h",
              declared[j].name);
        check(declared[j].address != NULL, "exports: %s has no address", declared[j].name);
    }

    if (!check(exported_symbols(library_path, &exported), "exports: nm -D --defined-only %s failed",
               library_path))
        return;
    for (int i = 0; i < header.count; i++)
        check(in_set(&exported, header.name[i]),
              "exports: %s is declared in yaia.h but not exported by libyaia.so", header.name[i]);
    for (int i = 0; i < exported.count; i++)
        check(in_set(&header, exported.name[i]),
              "exports: libyaia.so exports %s, which yaia.h does not declare", exported.name[i]);
}

/* ============================================================ 2. basics */

static void test_basics(void)
{
    section("basics");
    const char *v = yaia_version();
    check(v && *v, "yaia_version() is a non-empty string");
    unsigned major, minor, patch;
    char extra;
    check(v && sscanf(v, "%u.%u.%u%c", &major, &minor, &patch, &extra) == 3,
          "yaia_version() reads MAJOR.MINOR.PATCH, got \"%s\"", v ? v : "(NULL)");
    check(yaia_version() == v, "yaia_version() returns the same static string every time");
    check(yaia_abi_version() == YAIA_ABI_VERSION, "yaia_abi_version() == YAIA_ABI_VERSION (%d), got %d",
          YAIA_ABI_VERSION, yaia_abi_version());
    yaia_free(NULL);
    check(1, "yaia_free(NULL) is harmless");
}

/* ============================================== 3. runtime configuration */

static void expect_config_error(const char *config, const char *code, const char *name)
{
    set_current("yaia_runtime_new(%s)", config);
    char *err = NULL;
    yaia_runtime *rt = yaia_runtime_new(config, &err);
    check(rt == NULL, "%s: yaia_runtime_new returns NULL", name);
    check_error(err, code, name);
    yaia_free(err);
    yaia_runtime_free(rt);
}

static void test_config(void)
{
    section("runtime configuration");
    yaia_runtime *rt = yaia_runtime_new(NULL, NULL);
    check(rt != NULL, "yaia_runtime_new(NULL, NULL) gives a runtime");
    yaia_runtime_free(rt);

    static char sentinel[] = "not touched";
    char *err = sentinel;
    rt = yaia_runtime_new("{}", &err);
    check(rt != NULL, "yaia_runtime_new(\"{}\") gives a runtime");
    check(err == NULL, "yaia_runtime_new sets *error_json to NULL on success");
    yaia_runtime_free(rt);

    err = sentinel;
    rt = yaia_runtime_new("{\"plugins\":[]}", &err);
    check(rt != NULL && err == NULL, "yaia_runtime_new({\"plugins\":[]}) succeeds");
    yaia_runtime_free(rt);

    rt = yaia_runtime_new("{\"plugns\":[]}", NULL);
    check(rt == NULL, "a bad config without error_json still returns NULL");
    yaia_runtime_free(rt);

    expect_config_error("{\"plugns\":[]}", "bad_config", "config with an unknown key");
    expect_config_error("{\"plugins\":\"auth.so\"}", "bad_config", "config plugins not an array");
    expect_config_error("{\"plugins\":[5]}", "bad_config", "config plugin entry a number");
    expect_config_error("{\"plugins\":[{\"config\":{}}]}", "bad_config", "config plugin without path");
    expect_config_error("[]", "not_an_object", "config that is an array");
    expect_config_error("{\"plugins\":", "invalid_json", "config that is not JSON");

    /* libyaia.so has no scenes of its own: they come from the packs the
    ** config names (the Python tests cover every pack-loading code). */
    rt = yaia_runtime_new(NULL, NULL);
    expect_ok(rt, "{\"op\":\"scenes\"}", "a runtime without packs has no scene types", "\"packs\":[]",
              "\"types\":[]", (const char *)NULL);
    expect_error(rt, "{\"op\":\"open\",\"scene\":\"example/login\"}", "unknown_scene",
                 "a runtime without packs has no example/login");
    yaia_runtime_free(rt);
    err = NULL;
    rt = examples_runtime(NULL, &err);
    check(rt != NULL, "a runtime with the examples pack %s (error: %s)", examples_pack(), err ? err : "none");
    yaia_free(err);
    expect_ok(rt, "{\"op\":\"scenes\"}", "the examples pack is listed with its scene types",
              "\"packs\":[{\"name\":\"examples\",", "\"scenes\":[\"example/login\",", "\"example/login\"",
              (const char *)NULL);
    yaia_runtime_free(rt);
    expect_config_error("{\"scenes\":[\"/nonexistent/yaia/libnothing.so\"]}", "scene_pack_not_found",
                        "config naming a pack with no file");
    expect_config_error("{\"scenes\":\"libyaia-examples.so\"}", "bad_config", "config scenes not an array");
    char *pack = json_quote(examples_pack());
    char *twice = fmt("{\"scenes\":[%s,%s]}", pack, pack);
    expect_config_error(twice, "duplicate_scene", "config naming the examples pack twice");
    free(twice);
    free(pack);
}

/* ======================================================= 4. the protocol */

static void test_requests(void)
{
    section("requests");
    yaia_runtime *rt = examples_runtime("{\"allow\":{\"ops\":\"all\",\"files\":[\"/\"]}}", NULL);
    if (!check(rt != NULL, "requests: runtime"))
        return;

    char *r = yaia_open(rt, "example/login", NULL);
    check_has(r, "yaia_open(example/login) gives the initial scene update", "\"ok\":true",
              "\"seq\":0", "\"effects\":[]", "\"routes\":[]",
              "\"viewModel\":{\"canSubmit\":false,\"email\":\"\",\"error\":null,\"isSubmitting\":false}",
              (const char *)NULL);
    int64_t sid = int_of(r, "scene");
    check(sid >= 0, "yaia_open answers with a scene id");
    yaia_free(r);

    char *req = fmt("{\"op\":\"state\",\"scene\":%lld}", (long long)sid);
    expect_ok(rt, req, "state of a fresh login scene", "\"name\":\"example/login\"",
              "\"state\":{\"email\":\"\",\"error\":null,\"isSubmitting\":false,\"password\":\"\",\"user\":null}",
              "\"seq\":0", (const char *)NULL);
    free(req);

    r = send_action(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}");
    check_has(r, "emailChanged updates the view model", "\"ok\":true", "\"seq\":1",
              "\"viewModel\":{\"canSubmit\":false,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":false}",
              (const char *)NULL);
    yaia_free(r);
    r = send_action(rt, sid, "{\"type\":\"passwordChanged\",\"payload\":\"pw\"}");
    check_has(r, "passwordChanged makes the form submittable", "\"seq\":2", "\"canSubmit\":true",
              (const char *)NULL);
    yaia_free(r);

    r = send_action(rt, sid,
                    "{\"type\":\"emailChanged\",\"payload\":\"c@d.e\",\"meta\":{\"k\":[1]},\"error\":false}");
    check_has(r, "a full Flux Standard Action (meta, error) is accepted", "\"ok\":true",
              "\"email\":\"c@d.e\"", (const char *)NULL);
    yaia_free(r);

    req = fmt("{\"op\":\"send\",\"scene\":%lld.0,\"action\":{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}}",
              (long long)sid);
    expect_ok(rt, req, "a scene id written 1.0 is accepted", "\"email\":\"a@b.c\"", (const char *)NULL);
    free(req);

    r = yaia_open(rt, "example/login", "{\"email\":\"x@y.z\"}");
    check_has(r, "open args prefill the login email", "\"ok\":true", "\"email\":\"x@y.z\"",
              (const char *)NULL);
    int64_t sid2 = int_of(r, "scene");
    check(sid2 != sid && sid2 >= 0, "a second scene gets its own id (%lld vs %lld)", (long long)sid2,
          (long long)sid);
    yaia_free(r);

    expect_ok(rt, "{\"op\":\"open\",\"scene\":\"example/feed\",\"args\":{}}",
              "open example/feed through yaia_execute", "\"seq\":0",
              "\"viewModel\":{\"error\":null,\"isLoading\":false,\"items\":[]}", (const char *)NULL);

    char *entry = fmt("{\"id\":%lld,\"name\":\"example/login\",\"seq\":", (long long)sid);
    expect_ok(rt, "{\"op\":\"scenes\"}", "scenes lists the types and the open scenes",
              "\"example/login\"", "\"example/feed\"", "\"types\":[", entry, (const char *)NULL);
    free(entry);
    expect_ok(rt, "{\"op\":\"services\"}", "services of a runtime without any", "\"services\":[]",
              (const char *)NULL);

    req = fmt("{\"op\":\"close\",\"scene\":%lld}", (long long)sid2);
    char *closed = fmt("{\"closed\":true,\"ok\":true,\"scene\":%lld}", (long long)sid2);
    expect_ok(rt, req, "close answers {closed, ok, scene}", closed, (const char *)NULL);
    free(closed);
    expect_error(rt, req, "no_such_scene", "closing a closed scene");
    free(req);
    r = send_action(rt, sid2, "{\"type\":\"submit\"}");
    check_error(r, "no_such_scene", "sending to a closed scene");
    yaia_free(r);

    /* ---- every error code, each followed by a valid request */
    static const struct {
        const char *request, *code, *at, *name;
    } refused[] = {
        {"", "invalid_json", NULL, "empty text"},
        {"{", "invalid_json", NULL, "unterminated object"},
        {"nope", "invalid_json", NULL, "a bare word"},
        {"{\"op\":\"scenes\"} x", "invalid_json", NULL, "trailing text after the object"},
        {"{\"op\":\"scenes\",}", "invalid_json", NULL, "trailing comma"},
        {"{'op':'scenes'}", "invalid_json", NULL, "single quotes"},
        {"{\"op\":\"scen\xff\"}", "invalid_json", NULL, "bad UTF-8 byte"},
        {"{\"op\":\"\xc0\xaf\"}", "invalid_json", NULL, "overlong UTF-8"},
        {"{\"op\":\"\\ud800\"}", "invalid_json", NULL, "lone high surrogate escape"},
        {"{\"op\":\"\\udc00\"}", "invalid_json", NULL, "lone low surrogate escape"},
        {"{\"op\":\"scenes\",\"x\":1e400}", "invalid_json", NULL, "number beyond double range"},
        {"{\"op\":\"a\tb\"}", "invalid_json", NULL, "raw control character in a string"},
        {"[]", "not_an_object", NULL, "an array request"},
        {"1", "not_an_object", NULL, "a number request"},
        {"\"op\"", "not_an_object", NULL, "a string request"},
        {"null", "not_an_object", NULL, "a null request"},
        {"{\"op\":\"frobnicate\"}", "unknown_op", NULL, "an unknown op"},
        {"{}", "bad_request", "/op", "a request without op"},
        {"{\"op\":\"open\"}", "bad_request", "/scene", "open without scene"},
        {"{\"op\":\"open\",\"scene\":5}", "bad_request", "/scene", "open with a numeric scene name"},
        {"{\"op\":\"send\",\"scene\":\"1\",\"action\":{\"type\":\"submit\"}}", "bad_request", "/scene",
         "send with a string scene id"},
        {"{\"op\":\"send\",\"scene\":1.5,\"action\":{\"type\":\"submit\"}}", "bad_request", "/scene",
         "send with a fractional scene id"},
        {"{\"op\":\"state\"}", "bad_request", "/scene", "state without scene"},
        {"{\"op\":\"resolve\",\"effect\":\"x\",\"result\":1}", "bad_request", "/effect",
         "resolve with a string effect id"},
        {"{\"op\":\"load_plugin\"}", "bad_request", "/path", "load_plugin without path"},
        {"{\"op\":\"load_plugin\",\"path\":5}", "bad_request", "/path", "load_plugin with a numeric path"},
        {"{\"op\":\"open\",\"scene\":\"example/nope\"}", "unknown_scene", NULL, "open an unknown scene type"},
        {"{\"op\":\"open\",\"scene\":\"example/login\",\"args\":{\"email\":5}}", "bad_args", NULL,
         "open login with a numeric email"},
        {"{\"op\":\"open\",\"scene\":\"example/login\",\"args\":[]}", "not_an_object", NULL,
         "open with array args"},
        {"{\"op\":\"send\",\"scene\":987654321,\"action\":{\"type\":\"submit\"}}", "no_such_scene", NULL,
         "send to a scene id never opened"},
        {"{\"op\":\"state\",\"scene\":987654321}", "no_such_scene", NULL, "state of a scene never opened"},
        {"{\"op\":\"close\",\"scene\":987654321}", "no_such_scene", NULL, "close a scene never opened"},
        {"{\"op\":\"resolve\",\"effect\":987654321,\"result\":1}", "no_such_effect", NULL,
         "resolve an effect id never emitted"},
        {"{\"op\":\"load_plugin\",\"path\":\"/nonexistent/yaia/none.so\"}", "plugin_not_found", NULL,
         "load_plugin of a missing file"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        set_current("refused request: %s", refused[i].name);
        r = yaia_execute(rt, refused[i].request);
        char *name = fmt("%s is refused with %s", refused[i].name, refused[i].code);
        if (check_error(r, refused[i].code, name) && refused[i].at) {
            char *at = fmt("\"at\":\"%s\"", refused[i].at);
            char *at_name = fmt("%s: \"at\" points at %s", refused[i].name, refused[i].at);
            check_has(r, at_name, at, (const char *)NULL);
            free(at);
            free(at_name);
        }
        free(name);
        yaia_free(r);
        still_works(rt, sid, refused[i].name);
    }

    /* ---- actions, through yaia_execute (with "at") and yaia_send */
    static const struct {
        const char *action, *code, *at, *name;
    } bad_actions[] = {
        {"{}", "missing_action_type", NULL, "an action without type"},
        {"{\"type\":5}", "missing_action_type", "/action/type", "an action with a numeric type"},
        {"{\"type\":null}", "missing_action_type", NULL, "an action with a null type"},
        {"{\"type\":\"nope\"}", "unknown_action", NULL, "an action the scene does not know"},
        {"{\"type\":\"emailChanged\",\"payload\":5}", "bad_payload", "/action/payload",
         "emailChanged with a numeric payload"},
        {"{\"type\":\"emailChanged\"}", "bad_payload", NULL, "emailChanged without payload"},
        {"{\"type\":\"loginFailed\",\"payload\":5}", "bad_payload", NULL, "loginFailed with a number"},
        {"\"submit\"", "not_an_object", NULL, "an action that is a string"},
        {"[]", "not_an_object", NULL, "an action that is an array"},
    };
    for (size_t i = 0; i < sizeof bad_actions / sizeof bad_actions[0]; i++) {
        req = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":%s}", (long long)sid, bad_actions[i].action);
        set_current("refused action: %s", req);
        r = yaia_execute(rt, req);
        char *name = fmt("send %s (yaia_execute) is refused with %s", bad_actions[i].name,
                         bad_actions[i].code);
        if (check_error(r, bad_actions[i].code, name) && bad_actions[i].at) {
            char *at = fmt("\"at\":\"%s\"", bad_actions[i].at);
            char *at_name = fmt("%s: \"at\" points at %s", bad_actions[i].name, bad_actions[i].at);
            check_has(r, at_name, at, (const char *)NULL);
            free(at);
            free(at_name);
        }
        free(name);
        yaia_free(r);
        free(req);

        r = send_action(rt, sid, bad_actions[i].action);
        name = fmt("yaia_send %s is refused with %s", bad_actions[i].name, bad_actions[i].code);
        check_error(r, bad_actions[i].code, name);
        free(name);
        yaia_free(r);
        still_works(rt, sid, bad_actions[i].name);
    }
    r = send_action(rt, sid, "{\"type\":\"emailChanged\",");
    check_error(r, "invalid_json", "yaia_send with broken JSON");
    yaia_free(r);
    r = send_action(rt, 987654321, "{\"type\":\"submit\"}");
    check_error(r, "no_such_scene", "yaia_send to a scene id never opened");
    yaia_free(r);
    r = yaia_open(rt, "example/nope", NULL);
    check_error(r, "unknown_scene", "yaia_open of an unknown scene type");
    yaia_free(r);
    r = yaia_open(rt, "example/login", "{\"email\":5}");
    check_error(r, "bad_args", "yaia_open with args the scene refuses");
    yaia_free(r);
    r = yaia_open(rt, "example/login", "[1]");
    check_error(r, "not_an_object", "yaia_open with array args");
    yaia_free(r);
    r = yaia_resolve(rt, 987654321, "{\"result\":1}");
    check_error(r, "no_such_effect", "yaia_resolve of an effect id never emitted");
    yaia_free(r);
    still_works(rt, sid, "the yaia_send/yaia_open/yaia_resolve refusals");

    /* A refused action changes nothing: seq is where the last accepted one
    ** left it. */
    req = fmt("{\"op\":\"state\",\"scene\":%lld}", (long long)sid);
    r = yaia_execute(rt, req);
    long long seq_before = int_of(r, "seq");
    yaia_free(r);
    yaia_free(send_action(rt, sid, "{\"type\":\"nope\"}"));
    r = yaia_execute(rt, req);
    check(int_of(r, "seq") == seq_before && seq_before > 0,
          "a refused action leaves seq unchanged (%lld, then %lld)", seq_before, int_of(r, "seq"));
    yaia_free(r);
    free(req);

    /* ---- NULL arguments */
    set_current("NULL arguments");
    r = yaia_execute(rt, NULL);
    check_error(r, "null_argument", "yaia_execute(rt, NULL)");
    yaia_free(r);
    r = yaia_execute_n(rt, NULL, 5);
    check_error(r, "null_argument", "yaia_execute_n(rt, NULL, 5)");
    yaia_free(r);
    r = yaia_execute_n(rt, NULL, 0);
    check_error(r, "invalid_json", "yaia_execute_n(rt, NULL, 0) is the empty text");
    yaia_free(r);
    r = yaia_open(rt, NULL, NULL);
    check_error(r, "null_argument", "yaia_open(rt, NULL, NULL)");
    yaia_free(r);
    r = yaia_send(rt, sid, NULL);
    check_error(r, "null_argument", "yaia_send(rt, id, NULL)");
    yaia_free(r);
    r = yaia_resolve(rt, 1, NULL);
    check_error(r, "null_argument", "yaia_resolve(rt, id, NULL)");
    yaia_free(r);
    r = yaia_execute(NULL, "{\"op\":\"scenes\"}");
    check_error(r, "null_argument", "yaia_execute(NULL, request)");
    yaia_free(r);
    r = yaia_receive(NULL, 0);
    check_error(r, "null_argument", "yaia_receive(NULL, 0)");
    yaia_free(r);
    check(yaia_call_complete(NULL, "1") == YAIA_ERR_ARGUMENT, "yaia_call_complete(NULL, ...) is YAIA_ERR_ARGUMENT");
    check(yaia_call_fail(NULL, "1") == YAIA_ERR_ARGUMENT, "yaia_call_fail(NULL, ...) is YAIA_ERR_ARGUMENT");
    still_works(rt, sid, "NULL arguments");

    /* ---- yaia_execute_borrowed: the answer stays the library's until the thread's next call */
    set_current("yaia_execute_borrowed");
    {
        static const char sum[] = "{\"op\":\"logic\",\"rule\":{\"+\":[{\"var\":\"a\"},1]},\"data\":{\"a\":41}}";
        const char *b = yaia_execute_borrowed(rt, sum);
        check(b != NULL && strcmp(b, "{\"ok\":true,\"result\":42}") == 0, "yaia_execute_borrowed answers a request");
        const char *again = yaia_execute_borrowed(rt, "{\"op\":\"scenes\"}");
        check(again != NULL && strstr(again, "\"types\":[") != NULL, "the next call answers in the thread's buffer");
        b = yaia_execute_borrowed(rt, NULL);
        check(b != NULL && strstr(b, "\"code\":\"null_argument\"") != NULL, "yaia_execute_borrowed(rt, NULL) is null_argument");
        b = yaia_execute_borrowed(NULL, sum);
        check(b != NULL && strstr(b, "\"code\":\"null_argument\"") != NULL, "yaia_execute_borrowed(NULL, ...) is null_argument");
        b = yaia_execute_borrowed(rt, "{\"op\":\"logic\"}");
        check(b != NULL && strstr(b, "\"at\":\"/rule\"") != NULL, "a refused request answers its envelope");
    }

    /* ---- yaia_send_borrowed: yaia_send's answers, in the thread's buffer */
    set_current("yaia_send_borrowed");
    {
        static const char typed[] = "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}";
        int64_t one = open_login(rt, "borrowed one"), two = open_login(rt, "borrowed two");
        char *owned = yaia_send(rt, one, typed);
        const char *b = yaia_send_borrowed(rt, two, typed);
        /* The same update but for the scene's id: the owned one with two's id in it. */
        char expected[4096] = "", id_one[32], id_two[32];
        snprintf(id_one, sizeof id_one, "\"scene\":%lld", (long long)one);
        snprintf(id_two, sizeof id_two, "\"scene\":%lld", (long long)two);
        const char *at = owned ? strstr(owned, id_one) : NULL;
        if (at && strlen(owned) < 4000)
            snprintf(expected, sizeof expected, "%.*s%s%s", (int)(at - owned), owned, id_two, at + strlen(id_one));
        check(at != NULL && b != NULL && strcmp(b, expected) == 0, "yaia_send_borrowed answers yaia_send's update");
        yaia_free(owned);
        b = yaia_send_borrowed(rt, two, "{\"type\":\"nope\"}");
        check(b != NULL && strstr(b, "\"code\":\"unknown_action\"") != NULL && strstr(b, "\"seq\"") == NULL,
              "a refused action answers its envelope alone");
        b = yaia_send_borrowed(rt, two, NULL);
        check(b != NULL && strstr(b, "\"code\":\"null_argument\"") != NULL, "yaia_send_borrowed(rt, id, NULL) is null_argument");
        b = yaia_send_borrowed(NULL, two, typed);
        check(b != NULL && strstr(b, "\"code\":\"null_argument\"") != NULL, "yaia_send_borrowed(NULL, ...) is null_argument");
        b = yaia_send_borrowed(rt, 999999, typed);
        check(b != NULL && strstr(b, "\"code\":\"no_such_scene\"") != NULL, "an unknown scene is no_such_scene");
    }

    /* ---- yaia_execute_n: the length is the text, NUL bytes included */
    static const char scenes_nul[] = "{\"op\":\"scenes\"}\0";
    r = yaia_execute_n(rt, scenes_nul, sizeof scenes_nul - 2);
    check_has(r, "yaia_execute_n without the NUL runs the request", "\"ok\":true", "\"types\":[",
              (const char *)NULL);
    yaia_free(r);
    r = yaia_execute_n(rt, scenes_nul, sizeof scenes_nul - 1);
    check_error(r, "invalid_json", "yaia_execute_n with a NUL byte inside the length");
    yaia_free(r);
    static const char unterminated[] = {'{', '"', 'o', 'p', '"', ':', '"', 's', 'c', 'e', 'n', 'e', 's', '"', '}'};
    r = yaia_execute_n(rt, unterminated, sizeof unterminated);
    check_has(r, "yaia_execute_n on text without a terminating NUL", "\"ok\":true", (const char *)NULL);
    yaia_free(r);
    r = yaia_execute_n(rt, "{\"op\":\"scenes\"}garbage", 15);
    check_has(r, "yaia_execute_n stops at the length, not at the NUL", "\"ok\":true", (const char *)NULL);
    yaia_free(r);

    /* ---- nesting limit: 520 deep (the depth limit and 8) is JSON, 521 is not */
    /* A text may nest the depth limit and 8 levels more (what wraps the values it carries). */
    char deep[1100];
    memset(deep, '[', 520);
    memset(deep + 520, ']', 520);
    r = yaia_execute_n(rt, deep, 1040);
    check_error(r, "not_an_object", "arrays nested 520 deep are valid JSON (not_an_object)");
    yaia_free(r);
    memset(deep, '[', 521);
    memset(deep + 521, ']', 521);
    r = yaia_execute_n(rt, deep, 1042);
    check_error(r, "limit_exceeded", "arrays nested 521 deep reach the depth limit");
    yaia_free(r);
    still_works(rt, sid, "deep nesting");

    /* ---- tags are echoed, success or failure */
    expect_ok(rt, "{\"op\":\"scenes\",\"tag\":\"t1\"}", "tag (string) echoed on success", "\"tag\":\"t1\"",
              (const char *)NULL);
    expect_ok(rt, "{\"tag\":1.5,\"op\":\"open\",\"scene\":\"example/feed\"}", "tag (number) echoed on open",
              "\"tag\":1.5", (const char *)NULL);
    r = yaia_execute(rt, "{\"op\":\"nope\",\"tag\":{\"b\":[1,2],\"a\":null}}");
    check_has(r, "tag (object) echoed on error, canonically", "\"ok\":false", "\"code\":\"unknown_op\"",
              "\"tag\":{\"a\":null,\"b\":[1,2]}", (const char *)NULL);
    yaia_free(r);
    req = fmt("{\"op\":\"send\",\"scene\":%lld,\"tag\":42,\"action\":{\"type\":\"emailChanged\",\"payload\":5}}",
              (long long)sid);
    r = yaia_execute(rt, req);
    check_has(r, "tag echoed on a refused action", "\"code\":\"bad_payload\"", "\"tag\":42", (const char *)NULL);
    yaia_free(r);
    free(req);
    req = fmt("{\"op\":\"send\",\"scene\":%lld,\"tag\":[true],\"action\":{\"type\":\"emailChanged\",\"payload\":\"t@g.x\"}}",
              (long long)sid);
    expect_ok(rt, req, "tag echoed on a scene update", "\"tag\":[true]", "\"email\":\"t@g.x\"",
              (const char *)NULL);
    free(req);
    r = yaia_execute(rt, "{\"op\":\"scenes\"}");
    check_lacks(r, "\"tag\"", "a response without a request tag carries no tag");
    yaia_free(r);

    /* ---- output is canonical: the same value prints as the same bytes */
    r = yaia_execute(rt, "{ \"tag\" : { \"z\" : 1 , \"a\" : \"\\u0041\\u00e9\" } , \"op\" : \"nope\" }");
    check_has(r, "request white space and key order do not leak into the response",
              "\"tag\":{\"a\":\"A\xc3\xa9\",\"z\":1}", (const char *)NULL);
    yaia_free(r);

    yaia_runtime_free(rt);
}

/* ================================================ 5. pending effects */

/* One scripted session on a fresh runtime; its responses, joined. */
static char *pending_session(void)
{
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    if (!rt)
        return strdup("(no runtime)");
    size_t cap = 1 << 16, n = 0;
    char *all = calloc(1, cap);
    int64_t sid = 0;
    const char *steps[] = {"open", "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}",
                           "{\"type\":\"passwordChanged\",\"payload\":\"pw\"}", "{\"type\":\"submit\"}",
                           "resolve"};
    int64_t eid = -1;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        char *r;
        if (strcmp(steps[i], "open") == 0) {
            r = yaia_open(rt, "example/login", NULL);
            sid = int_of(r, "scene");
        } else if (strcmp(steps[i], "resolve") == 0) {
            r = yaia_resolve(rt, eid, "{\"result\":{\"user\":{\"email\":\"a@b.c\",\"n\":1.25}}}");
        } else {
            r = yaia_send(rt, sid, steps[i]);
            if (strstr(r, "\"effects\":[{"))
                eid = int_of(r, "id");
        }
        size_t len = strlen(r);
        if (n + len + 2 < cap) {
            memcpy(all + n, r, len);
            n += len;
            all[n++] = ' ';
        }
        yaia_free(r);
    }
    yaia_runtime_free(rt);
    return all;
}

static void test_pending(void)
{
    section("pending effects (no service)");
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    if (!check(rt != NULL, "pending: runtime"))
        return;
    int64_t sid = open_login(rt, "pending: open example/login");
    send_ok(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}", "pending: emailChanged");
    send_ok(rt, sid, "{\"type\":\"passwordChanged\",\"payload\":\"pw\"}", "pending: passwordChanged");

    char *r = send_action(rt, sid, "{\"type\":\"submit\"}");
    check_has(r, "submit without an auth service emits a pending effect", "\"ok\":true", "\"seq\":3",
              "\"effects\":[{\"args\":{\"email\":\"a@b.c\",\"password\":\"pw\"},\"id\":",
              "\"op\":\"login\",\"service\":\"auth\",\"status\":\"pending\"}]",
              "\"viewModel\":{\"canSubmit\":false,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":true}",
              (const char *)NULL);
    int64_t eid = int_of(r, "id");
    yaia_free(r);

    r = send_action(rt, sid, "{\"type\":\"submit\"}");
    check_has(r, "a second submit while submitting emits no effect and sets an error", "\"ok\":true",
              "\"effects\":[]", "\"isSubmitting\":true", (const char *)NULL);
    check_lacks(r, "\"error\":null", "a second submit while submitting reports an error");
    yaia_free(r);

    r = yaia_resolve(rt, eid, "{\"result\":5}");
    check_error(r, "bad_payload", "resolve with a result the scene cannot read");
    yaia_free(r);
    r = yaia_resolve(rt, eid, "{}");
    check_error(r, "bad_request", "resolve without result or error");
    yaia_free(r);
    r = yaia_resolve(rt, eid, "[]");
    check_error(r, "not_an_object", "resolve with an array outcome");
    yaia_free(r);
    r = yaia_resolve(rt, eid, "{\"result\":");
    check_error(r, "invalid_json", "resolve with broken JSON");
    yaia_free(r);

    r = yaia_resolve(rt, eid, "{\"result\":{\"user\":{\"email\":\"a@b.c\"}}}");
    check_has(r, "resolve success reduces loginSucceeded and pushes example/home", "\"ok\":true",
              "\"routes\":[{\"args\":{\"user\":{\"email\":\"a@b.c\"}},\"push\":\"example/home\"}]",
              "\"seq\":5", "\"canSubmit\":true", "\"isSubmitting\":false", (const char *)NULL);
    check_lacks(r, "\"event\"", "a resolve answer is a plain update, not an event");
    yaia_free(r);

    r = yaia_resolve(rt, eid, "{\"result\":{\"user\":{\"email\":\"a@b.c\"}}}");
    check_error(r, "effect_already_resolved", "resolving the same effect twice");
    yaia_free(r);
    r = yaia_resolve(rt, eid, "{\"error\":{\"message\":\"late\"}}");
    check_error(r, "effect_already_resolved", "failing a resolved effect");
    yaia_free(r);
    still_works(rt, sid, "effect_already_resolved");
    r = yaia_resolve(rt, eid + 1000, "{\"result\":1}");
    check_error(r, "no_such_effect", "resolving an unknown effect id");
    yaia_free(r);

    char *req = fmt("{\"op\":\"state\",\"scene\":%lld}", (long long)sid);
    expect_ok(rt, req, "the resolved user is in the state", "\"user\":{\"email\":\"a@b.c\"}", (const char *)NULL);
    free(req);

    /* the error path, through yaia_execute */
    r = send_action(rt, sid, "{\"type\":\"submit\"}");
    int64_t eid2 = int_of(r, "id");
    check_has(r, "submitting again emits a new pending effect", "\"status\":\"pending\"", (const char *)NULL);
    check(eid2 >= 0 && eid2 != eid, "effect ids are unique (%lld, then %lld)", (long long)eid, (long long)eid2);
    yaia_free(r);
    req = fmt("{\"op\":\"resolve\",\"effect\":%lld,\"error\":{\"message\":\"x\"},\"tag\":\"e\"}", (long long)eid2);
    expect_ok(rt, req, "resolve with an error reduces loginFailed",
              "\"viewModel\":{\"canSubmit\":true,\"email\":\"a@b.c\",\"error\":\"x\",\"isSubmitting\":false}",
              "\"routes\":[]", "\"tag\":\"e\"", (const char *)NULL);
    expect_error(rt, req, "effect_already_resolved", "resolve (execute) the failed effect again");
    free(req);

    r = send_action(rt, sid, "{\"type\":\"submit\"}");
    int64_t eid3 = int_of(r, "id");
    yaia_free(r);
    r = yaia_resolve(rt, eid3, "{\"error\":{\"code\":\"E42\"}}");
    check_has(r, "an error without a message reads \"Login failed\"", "\"error\":\"Login failed\"",
              (const char *)NULL);
    yaia_free(r);

    r = yaia_receive(rt, 0);
    check(r == NULL, "host resolutions queue no events (got %s)", r ? r : "NULL");
    yaia_free(r);

    /* effects of a closed scene are gone */
    r = send_action(rt, sid, "{\"type\":\"submit\"}");
    int64_t eid4 = int_of(r, "id");
    yaia_free(r);
    req = fmt("{\"op\":\"close\",\"scene\":%lld}", (long long)sid);
    expect_ok(rt, req, "close a scene with a pending effect", "\"closed\":true", (const char *)NULL);
    free(req);
    r = yaia_resolve(rt, eid4, "{\"result\":{\"user\":null}}");
    check(r && strstr(r, "\"ok\":false"), "resolving the effect of a closed scene is refused (got %s)",
          r ? r : "NULL");
    yaia_free(r);
    yaia_runtime_free(rt);

    char *a = pending_session(), *b = pending_session();
    size_t at = 0;
    while (a[at] && a[at] == b[at])
        at++;
    size_t from = at > 60 ? at - 60 : 0;
    check(a[at] == b[at],
          "determinism: two fresh runtimes answer the same inputs with the same bytes -- first difference"
          " at byte %zu: ...%.120s -- vs ...%.120s", at, a + from, b + from);
    check(strstr(a, "\"n\":1.25") != NULL, "determinism session reached the resolve:\n%s", a);
    free(a);
    free(b);
}

/* ============================================ 6. login through auth.so */

static void test_login_plugin(void)
{
    section("login with auth.so");
    char *config = fmt("{\"plugins\":[%s]}", auth_path);
    char *err = NULL;
    yaia_runtime *rt = examples_runtime(config, &err);
    check(rt != NULL, "runtime with auth.so from the config (error: %s)", err ? err : "none");
    yaia_free(err);
    free(config);
    if (!rt)
        return;

    expect_ok(rt, "{\"op\":\"services\"}", "services lists the plugin's auth",
              "\"services\":[{\"blocking\":false,\"name\":\"auth\",\"origin\":\"plugin\",\"plugin\":\"auth\"}]", (const char *)NULL);

    int64_t sid = open_login(rt, "login: open");
    send_ok(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}", "login: emailChanged");
    send_ok(rt, sid, "{\"type\":\"passwordChanged\",\"payload\":\"nope\"}", "login: wrong passwordChanged");
    char *r = send_action(rt, sid, "{\"type\":\"submit\"}");
    check_has(r, "login: submit hands the effect to the plugin (running)", "\"ok\":true", "\"seq\":3",
              "\"effects\":[{\"args\":{\"email\":\"a@b.c\",\"password\":\"nope\"},\"id\":",
              "\"op\":\"login\",\"service\":\"auth\",\"status\":\"running\"}]", "\"isSubmitting\":true",
              (const char *)NULL);
    int64_t eid = int_of(r, "id");
    yaia_free(r);

    r = yaia_resolve(rt, eid, "{\"result\":{\"user\":null}}");
    check(r && (strstr(r, "\"code\":\"effect_not_pending\"") || strstr(r, "\"code\":\"effect_already_resolved\"")),
          "login: the host cannot resolve a plugin's effect (got %s)", r ? r : "NULL");
    yaia_free(r);

    r = receive(rt, "the wrong-password outcome");
    char *effect = fmt("\"effect\":%lld", (long long)eid);
    check_has(r, "login: wrong password arrives as an update event", "\"ok\":true", "\"event\":\"update\"",
              effect, "\"seq\":4", "\"routes\":[]", "\"effects\":[]",
              "\"viewModel\":{\"canSubmit\":true,\"email\":\"a@b.c\",\"error\":\"Wrong email or password\",\"isSubmitting\":false}",
              (const char *)NULL);
    free(effect);
    yaia_free(r);

    send_ok(rt, sid, "{\"type\":\"passwordChanged\",\"payload\":\"hunter2\"}", "login: right passwordChanged");
    r = send_action(rt, sid, "{\"type\":\"submit\"}");
    check_has(r, "login: second submit runs", "\"status\":\"running\"", "\"error\":null", (const char *)NULL);
    eid = int_of(r, "id");
    yaia_free(r);
    r = receive(rt, "the right-password outcome");
    effect = fmt("\"effect\":%lld", (long long)eid);
    check_has(r, "login: right password pushes example/home with the user", "\"event\":\"update\"", effect,
              "\"seq\":7",
              "\"routes\":[{\"args\":{\"user\":{\"email\":\"a@b.c\"}},\"push\":\"example/home\"}]",
              "\"viewModel\":{\"canSubmit\":true,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":false}",
              (const char *)NULL);
    free(effect);
    yaia_free(r);

    r = yaia_receive(rt, 0);
    check(r == NULL, "login: the queue is empty after the two outcomes (got %s)", r ? r : "NULL");
    yaia_free(r);

    /* An email full of characters to escape makes the round trip through
    ** the plugin's own parser and printer unchanged. */
    static const char tricky[] = "q\\\"u\\\\o\\/\\u00e9\\ud83d\\ude00\\n\\u0001\\t@x.y";
    char *action = fmt("{\"type\":\"emailChanged\",\"payload\":\"%s\"}", tricky);
    r = send_action(rt, sid, action);
    free(action);
    char *vm = r ? raw_of(strstr(r, "\"viewModel\"") ? strstr(r, "\"viewModel\"") : r, "email") : NULL;
    yaia_free(r);
    yaia_free(send_action(rt, sid, "{\"type\":\"submit\"}"));
    r = receive(rt, "the tricky-email outcome");
    char *routes = r ? raw_of(r, "routes") : NULL;
    char *want = vm ? fmt("{\"user\":{\"email\":%s}}", vm) : NULL;
    check(vm && routes && want && strstr(routes, want),
          "login: an email with quotes, escapes, é, an emoji and control characters survives auth.so"
          " -- view model email %s -- routes %s", vm ? vm : "(none)", routes ? routes : "(none)");
    free(want);
    free(routes);
    free(vm);
    yaia_free(r);

    /* (Dropping the outcome of a closed scene is tested with a held host
    ** call in test_host_services: auth.so may complete before the close.) */

    /* Two scenes in flight at once: each outcome reaches its own scene. */
    int64_t s1 = open_login(rt, "login: open scene A"), s2 = open_login(rt, "login: open scene B");
    send_ok(rt, s1, "{\"type\":\"emailChanged\",\"payload\":\"a@a.a\"}", "login: A email");
    send_ok(rt, s2, "{\"type\":\"emailChanged\",\"payload\":\"b@b.b\"}", "login: B email");
    send_ok(rt, s1, "{\"type\":\"passwordChanged\",\"payload\":\"hunter2\"}", "login: A password");
    send_ok(rt, s2, "{\"type\":\"passwordChanged\",\"payload\":\"wrong\"}", "login: B password");
    send_ok(rt, s1, "{\"type\":\"submit\"}", "login: A submit");
    send_ok(rt, s2, "{\"type\":\"submit\"}", "login: B submit");
    int got_a = 0, got_b = 0;
    for (int i = 0; i < 2; i++) {
        r = receive(rt, "two concurrent outcomes");
        long long scene = int_of(r, "scene");
        if (scene == s1)
            got_a = r && strstr(r, "\"push\":\"example/home\"") && strstr(r, "\"email\":\"a@a.a\"");
        if (scene == s2)
            got_b = r && strstr(r, "\"error\":\"Wrong email or password\"") && strstr(r, "\"email\":\"b@b.b\"");
        yaia_free(r);
    }
    check(got_a, "login: scene A (right password) got its success");
    check(got_b, "login: scene B (wrong password) got its failure");

    yaia_runtime_free(rt);

    /* Freeing a runtime while auth.so's worker is completing a call: the
    ** worker's completion and the runtime's teardown race; neither may
    ** hang (the plugin joins its worker in release()) nor crash. */
    set_current("login: free the runtime with a login in flight, repeatedly");
    int rounds_ok = 0;
    for (int round = 0; round < 25; round++) {
        char *cfg = fmt("{\"plugins\":[%s]}", auth_path);
        yaia_runtime *busy = examples_runtime(cfg, NULL);
        free(cfg);
        if (!busy)
            break;
        int64_t scene = open_login(busy, "login: open before the racing free");
        yaia_free(yaia_send(busy, scene, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}"));
        yaia_free(yaia_send(busy, scene, "{\"type\":\"passwordChanged\",\"payload\":\"hunter2\"}"));
        char *sub = yaia_send(busy, scene, "{\"type\":\"submit\"}");
        rounds_ok += sub && strstr(sub, "\"status\":\"running\"") != NULL;
        yaia_free(sub);
        /* Free at once, after yielding to the worker, or after its outcome:
        ** the race, and both of its ends. */
        if (round % 5 == 3)
            sched_yield();
        if (round % 5 == 4)
            yaia_free(receive(busy, "login: the outcome before the free"));
        yaia_runtime_free(busy);
    }
    check(rounds_ok == 25, "login: 25 runtimes freed with a login in flight, without hang or crash (%d ran)",
          rounds_ok);
}

/* ============================================== 7. loading plugins */

static char *make_text_plugin(char *dir_out)
{
    strcpy(dir_out, "/tmp/yaia-test-XXXXXX");
    if (!mkdtemp(dir_out))
        return NULL;
    char *path = fmt("%s/x.so", dir_out);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("this is a text file, not a shared object\n", f);
        fclose(f);
    }
    return path;
}

static void test_plugin_loading(void)
{
    section("plugin loading");
    char tmpdir[64];
    char *text_path = make_text_plugin(tmpdir);
    check(text_path != NULL, "plugins: temp dir for x.so");
    char *text_q = text_path ? json_quote(text_path) : strdup("\"/tmp\"");
    char *abi_future = test_plugin("abi_future"), *no_entry = test_plugin("no_entry"),
         *init_fails = test_plugin("init_fails"), *dup_auth = test_plugin("dup_auth"),
         *echo = test_plugin("echo");

    /* The request path may load plugins only when the config grants it. */
    yaia_runtime *rt = examples_runtime("{\"allow\":{\"ops\":[\"load_plugin\"],\"files\":[\"/\"]}}", NULL);
    if (!check(rt != NULL, "plugins: runtime"))
        return;
    int64_t sid = open_login(rt, "plugins: open login");

    char *req = fmt("{\"op\":\"load_plugin\",\"path\":%s,\"config\":{},\"tag\":\"a\"}", auth_path);
    char *path_field = fmt("\"path\":%s", auth_path);
    expect_ok(rt, req, "load_plugin auth.so describes the plugin", "\"plugin\":{\"abi\":1,\"name\":\"auth\"",
              path_field, "\"services\":[\"auth\"]", "\"version\":\"1.0.0\"", "\"tag\":\"a\"", (const char *)NULL);
    free(path_field);
    expect_error(rt, req, "duplicate_service", "loading auth.so a second time");
    free(req);
    still_works(rt, sid, "loading auth.so twice");

    static const char only_auth[] = "\"services\":[{\"blocking\":false,\"name\":\"auth\",\"origin\":\"plugin\",\"plugin\":\"auth\"}]";
    const struct {
        const char *path, *code, *name;
    } failures[] = {
        {"\"/nonexistent/yaia/plugin.so\"", "plugin_not_found", "a path with no file"},
        {text_q, "plugin_not_loadable", "a text file named x.so"},
        {no_entry, "plugin_no_entry", "no_entry.so (no yaia_plugin_init)"},
        {abi_future, "plugin_abi_mismatch", "abi_future.so (ABI 99 only)"},
        {dup_auth, "duplicate_service", "dup_auth.so after auth.so"},
        {init_fails, "plugin_init_failed", "init_fails.so (setup fails)"},
    };
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++) {
        req = fmt("{\"op\":\"load_plugin\",\"path\":%s,\"tag\":%zu}", failures[i].path, i);
        char *name = fmt("load_plugin of %s is refused with %s", failures[i].name, failures[i].code);
        set_current("%s", name);
        char *r = yaia_execute(rt, req);
        check_error(r, failures[i].code, name);
        char *tag = fmt("\"tag\":%zu", i);
        char *tag_name = fmt("load_plugin of %s echoes its tag", failures[i].name);
        check_has(r, tag_name, tag, (const char *)NULL);
        if (strcmp(failures[i].code, "plugin_init_failed") == 0)
            check_has(r, "plugin_init_failed carries the plugin's set_error message", "on purpose",
                      (const char *)NULL);
        free(tag);
        free(tag_name);
        yaia_free(r);
        free(req);
        free(name);
        name = fmt("services unchanged after %s", failures[i].name);
        expect_ok(rt, "{\"op\":\"services\"}", name, only_auth, (const char *)NULL);
        free(name);
        still_works(rt, sid, failures[i].name);
    }
    char *r = yaia_execute(rt, "{\"op\":\"services\"}");
    check_lacks(r, "halfway", "the service init_fails registered before failing is withdrawn");
    yaia_free(r);

    req = fmt("{\"op\":\"load_plugin\",\"path\":%s}", echo);
    expect_ok(rt, req, "load_plugin echo.so", "\"services\":[\"echo\"]", (const char *)NULL);
    free(req);
    expect_ok(rt, "{\"op\":\"services\"}", "services lists auth and echo, sorted",
              "\"services\":[{\"blocking\":false,\"name\":\"auth\",\"origin\":\"plugin\",\"plugin\":\"auth\"},"
              "{\"blocking\":false,\"name\":\"echo\",\"origin\":\"plugin\",\"plugin\":\"echo\"}]",
              (const char *)NULL);

    /* auth.so still serves after all the failed loads */
    send_ok(rt, sid, "{\"type\":\"passwordChanged\",\"payload\":\"hunter2\"}", "plugins: password");
    send_ok(rt, sid, "{\"type\":\"submit\"}", "plugins: submit");
    r = receive(rt, "auth outcome after failed loads");
    check_has(r, "auth.so still serves after the failed loads", "\"event\":\"update\"",
              "\"push\":\"example/home\"", (const char *)NULL);
    yaia_free(r);
    yaia_runtime_free(rt);

    /* dup_auth alone is a fine plugin; its auth refuses everyone */
    char *config = fmt("{\"plugins\":[%s]}", dup_auth);
    rt = examples_runtime(config, NULL);
    free(config);
    check(rt != NULL, "dup_auth.so alone loads");
    if (rt) {
        sid = open_login(rt, "dup_auth: open");
        send_ok(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}", "dup_auth: email");
        send_ok(rt, sid, "{\"type\":\"passwordChanged\",\"payload\":\"hunter2\"}", "dup_auth: password");
        send_ok(rt, sid, "{\"type\":\"submit\"}", "dup_auth: submit");
        r = receive(rt, "dup_auth outcome (completed inside perform)");
        check_has(r, "a plugin failing a call inside perform() delivers the catch action",
                  "\"event\":\"update\"", "\"error\":\"dup_auth: this auth service refuses everyone\"",
                  (const char *)NULL);
        yaia_free(r);
        yaia_runtime_free(rt);
    }

    /* the same failures through the runtime configuration */
    const struct {
        const char *plugins, *code, *name;
    } config_failures[] = {
        {"\"/nonexistent/yaia/plugin.so\"", "plugin_not_found", "a path with no file"},
        {text_q, "plugin_not_loadable", "a text file named x.so"},
        {no_entry, "plugin_no_entry", "no_entry.so"},
        {abi_future, "plugin_abi_mismatch", "abi_future.so"},
        {init_fails, "plugin_init_failed", "init_fails.so"},
        {NULL, "duplicate_service", "auth.so then dup_auth.so"},
        {NULL, "duplicate_service", "auth.so twice"},
    };
    for (size_t i = 0; i < sizeof config_failures / sizeof config_failures[0]; i++) {
        if (config_failures[i].plugins)
            config = fmt("{\"plugins\":[%s]}", config_failures[i].plugins);
        else if (strstr(config_failures[i].name, "dup_auth"))
            config = fmt("{\"plugins\":[%s,{\"path\":%s,\"config\":{}}]}", auth_path, dup_auth);
        else
            config = fmt("{\"plugins\":[%s,%s]}", auth_path, auth_path);
        char *name = fmt("config with %s: %s", config_failures[i].name, config_failures[i].code);
        expect_config_error(config, config_failures[i].code, name);
        free(name);
        free(config);
    }

    config = fmt("{\"plugins\":[{\"path\":%s,\"config\":{\"anything\":[1]}},%s]}", auth_path, echo);
    char *err = NULL;
    rt = yaia_runtime_new(config, &err);
    check(rt != NULL && err == NULL, "config with {path, config} and a plain path loads both (error: %s)",
          err ? err : "none");
    yaia_free(err);
    free(config);
    if (rt)
        expect_ok(rt, "{\"op\":\"services\"}", "both configured plugins serve", "\"name\":\"auth\"",
                  "\"name\":\"echo\"", (const char *)NULL);
    yaia_runtime_free(rt);

    if (text_path) {
        unlink(text_path);
        rmdir(tmpdir);
    }
    free(text_path);
    free(text_q);
    free(abi_future);
    free(no_entry);
    free(init_fails);
    free(dup_auth);
    free(echo);
}

/* ============================================ 8. host services in C */

typedef enum {
    COMPLETE_NOW,    /* completes inside perform() */
    COMPLETE_THREAD, /* completes from a thread of its own, once the test says go */
    FAIL_NOW,        /* fails inside perform() */
    BAD_JSON,        /* completes with text that is not JSON */
    TWICE,           /* completes twice inside perform() */
    HOLD,            /* keeps the call for the test to complete */
} svc_mode;

typedef struct {
    svc_mode mode;
    const char *result;
    pthread_mutex_t lock;
    int performs, cancels, releases;
    int rc_first, rc_second;
    yaia_call *held;
    char op[32], args[256];
    pthread_t thread;
    int thread_started;
    pthread_cond_t go_changed; /* COMPLETE_THREAD: go was set */
    int go;
} host_svc;

static void host_svc_init(host_svc *s, svc_mode mode, const char *result)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->result = result;
    s->rc_first = s->rc_second = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->go_changed, NULL);
}

/* COMPLETE_THREAD: lets the completing thread go. */
static void host_svc_go(host_svc *s)
{
    pthread_mutex_lock(&s->lock);
    s->go = 1;
    pthread_cond_broadcast(&s->go_changed);
    pthread_mutex_unlock(&s->lock);
}

static void *complete_later(void *arg)
{
    host_svc *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->go)
        pthread_cond_wait(&s->go_changed, &s->lock);
    yaia_call *call = s->held;
    pthread_mutex_unlock(&s->lock);
    int rc = yaia_call_complete(call, s->result);
    pthread_mutex_lock(&s->lock);
    s->rc_first = rc;
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void host_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    host_svc *s = ctx;
    pthread_mutex_lock(&s->lock);
    s->performs++;
    snprintf(s->op, sizeof s->op, "%s", op ? op : "(NULL)");
    snprintf(s->args, sizeof s->args, "%s", args_json ? args_json : "(NULL)");
    s->held = call;
    pthread_mutex_unlock(&s->lock);
    switch (s->mode) {
    case COMPLETE_NOW:
        s->rc_first = yaia_call_complete(call, s->result);
        break;
    case FAIL_NOW:
        s->rc_first = yaia_call_fail(call, s->result);
        break;
    case BAD_JSON:
        s->rc_first = yaia_call_complete(call, "{\"items\":[1,2");
        break;
    case TWICE:
        s->rc_first = yaia_call_complete(call, s->result);
        s->rc_second = yaia_call_complete(call, "{\"items\":[\"second\"]}");
        break;
    case COMPLETE_THREAD:
        s->thread_started = pthread_create(&s->thread, NULL, complete_later, s) == 0;
        if (!s->thread_started)
            yaia_call_fail(call, "{\"message\":\"no thread\"}");
        break;
    case HOLD:
        break;
    }
}

static void host_cancel(void *ctx, yaia_call *call)
{
    host_svc *s = ctx;
    (void)call;
    pthread_mutex_lock(&s->lock);
    s->cancels++;
    pthread_mutex_unlock(&s->lock);
}

static void host_release(void *ctx)
{
    host_svc *s = ctx;
    pthread_mutex_lock(&s->lock);
    s->releases++;
    pthread_mutex_unlock(&s->lock);
}

static yaia_service service_of(const char *name, host_svc *s)
{
    yaia_service svc = {
        .size = sizeof svc,
        .name = name,
        .ctx = s,
        .perform = host_perform,
        .cancel = host_cancel,
        .release = host_release,
    };
    return svc;
}

/* A runtime with one host "feed" service and an open example/feed scene;
** sends load and returns the load update. */
static yaia_runtime *feed_runtime(host_svc *s, int64_t *sid, char **load_update, const char *name)
{
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    if (!rt)
        return NULL;
    yaia_service svc = service_of("feed", s);
    char *r = yaia_add_service(rt, &svc);
    char *title = fmt("%s: yaia_add_service(feed)", name);
    check_has(r, title, "{\"ok\":true,\"service\":\"feed\"}", (const char *)NULL);
    free(title);
    yaia_free(r);
    /* The struct was copied: scribbling on ours must not matter. */
    svc.perform = NULL;
    svc.name = "scribbled";
    r = yaia_open(rt, "example/feed", NULL);
    *sid = int_of(r, "scene");
    yaia_free(r);
    set_current("%s: send load", name);
    *load_update = yaia_send(rt, *sid, "{\"type\":\"load\"}");
    return rt;
}

static void test_host_services(void)
{
    section("host services");
    host_svc s;
    int64_t sid;
    char *r, *load;

    /* completes inside perform() */
    host_svc_init(&s, COMPLETE_NOW, "{\"items\":[1,\"two\",{\"three\":3}]}");
    yaia_runtime *rt = feed_runtime(&s, &sid, &load, "feed (sync)");
    if (!check(rt != NULL, "host services: runtime"))
        return;
    check_has(load, "feed (sync): load emits a running effect to the host service", "\"ok\":true",
              "\"seq\":1", "\"op\":\"fetch\",\"service\":\"feed\",\"status\":\"running\"",
              "\"isLoading\":true", (const char *)NULL);
    int64_t eid = int_of(load, "id");
    yaia_free(load);
    check(s.performs == 1, "feed (sync): perform called once (got %d)", s.performs);
    check(strcmp(s.op, "fetch") == 0, "feed (sync): perform gets op \"fetch\" (got \"%s\")", s.op);
    check(strcmp(s.args, "{}") == 0, "feed (sync): perform gets args \"{}\" (got \"%s\")", s.args);
    check(s.rc_first == YAIA_OK, "feed (sync): yaia_call_complete inside perform is YAIA_OK (got %d)", s.rc_first);
    r = receive(rt, "feed (sync) outcome");
    char *effect = fmt("\"effect\":%lld", (long long)eid);
    check_has(r, "feed (sync): the outcome arrives as an update event", "\"event\":\"update\"", effect,
              "\"seq\":2", "\"viewModel\":{\"error\":null,\"isLoading\":false,\"items\":[1,\"two\",{\"three\":3}]}",
              (const char *)NULL);
    free(effect);
    yaia_free(r);
    check(yaia_call_complete(s.held, "{\"items\":[]}") == YAIA_ERR_STALE,
          "feed (sync): completing a completed call is YAIA_ERR_STALE");
    check(yaia_call_fail(s.held, "{\"message\":\"x\"}") == YAIA_ERR_STALE,
          "feed (sync): failing a completed call is YAIA_ERR_STALE");
    r = yaia_receive(rt, 0);
    check(r == NULL, "feed (sync): a stale completion queues nothing (got %s)", r ? r : "NULL");
    yaia_free(r);
    expect_ok(rt, "{\"op\":\"services\"}", "services lists a host service without plugin",
              "\"services\":[{\"blocking\":false,\"name\":\"feed\",\"origin\":\"host\"}]", (const char *)NULL);

    /* registration errors */
    yaia_service svc = service_of("feed", &s);
    r = yaia_add_service(rt, &svc);
    check_error(r, "duplicate_service", "yaia_add_service of a second \"feed\"");
    yaia_free(r);
    const struct {
        const char *name;
        size_t size;
        int no_perform;
        const char *title;
    } bad[] = {
        {"other", sizeof(yaia_service), 1, "a service without perform"},
        {"other", sizeof(size_t), 0, "a service struct of size sizeof(size_t)"},
        {"other", 0, 0, "a service struct of size 0"},
        {"other", offsetof(yaia_service, perform), 0, "a service struct that ends before perform"},
        {NULL, sizeof(yaia_service), 0, "a service without a name"},
        {"", sizeof(yaia_service), 0, "a service with an empty name"},
        {"bad name", sizeof(yaia_service), 0, "a service name with a space"},
        {"b\xc3\xa4" "d", sizeof(yaia_service), 0, "a service name with non-ASCII"},
        {"a/b", sizeof(yaia_service), 0, "a service name with a slash"},
        {"x123456789x123456789x123456789x123456789x123456789x123456789x1234", sizeof(yaia_service), 0,
         "a service name of 65 bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        svc = service_of(bad[i].name, &s);
        svc.size = bad[i].size;
        if (bad[i].no_perform)
            svc.perform = NULL;
        set_current("yaia_add_service: %s", bad[i].title);
        r = yaia_add_service(rt, &svc);
        char *title = fmt("yaia_add_service with %s is bad_service", bad[i].title);
        check_error(r, "bad_service", title);
        free(title);
        yaia_free(r);
    }
    r = yaia_add_service(rt, NULL);
    check_error(r, "bad_service", "yaia_add_service(rt, NULL) is bad_service");
    yaia_free(r);
    expect_ok(rt, "{\"op\":\"services\"}", "refused services are not registered",
              "\"services\":[{\"blocking\":false,\"name\":\"feed\",\"origin\":\"host\"}]", (const char *)NULL);

    host_svc other;
    host_svc_init(&other, COMPLETE_NOW, "null");
    svc = service_of("x123456789x123456789x123456789x123456789x123456789x123456789x123", &other);
    r = yaia_add_service(rt, &svc);
    check_has(r, "a service name of 64 bytes is accepted", "\"ok\":true", (const char *)NULL);
    yaia_free(r);
    /* A newer author's struct, larger than ours: the host reads what it knows. */
    struct {
        yaia_service base;
        void *added_later;
    } newer = {service_of("Newer_1.0-svc", &other), &other};
    newer.base.size = sizeof newer;
    r = yaia_add_service(rt, &newer.base);
    check_has(r, "a larger service struct from a newer header is accepted", "\"ok\":true",
              "\"service\":\"Newer_1.0-svc\"", (const char *)NULL);
    yaia_free(r);

    check(s.releases == 0 && other.releases == 0, "release is not called before yaia_runtime_free");
    yaia_runtime_free(rt);
    check(s.releases == 1, "yaia_runtime_free releases the feed service once (got %d)", s.releases);
    check(other.releases == 2, "yaia_runtime_free releases each registered service (got %d of 2)",
          other.releases);
    check(yaia_call_complete(s.held, "null") == YAIA_ERR_STALE,
          "completing a call of a freed runtime is YAIA_ERR_STALE");

    /* completes from another thread */
    host_svc_init(&s, COMPLETE_THREAD, "{\"items\":[\"late\"]}");
    rt = feed_runtime(&s, &sid, &load, "feed (thread)");
    check_has(load, "feed (thread): load is running", "\"status\":\"running\"", (const char *)NULL);
    yaia_free(load);
    r = yaia_receive(rt, 0);
    check(r == NULL, "feed (thread): nothing is queued before the thread completes (got %s)", r ? r : "NULL");
    yaia_free(r);
    host_svc_go(&s); /* after yaia_send returned, so after perform() did */
    r = receive(rt, "feed (thread) outcome");
    check_has(r, "feed (thread): a completion from another thread arrives as an update",
              "\"event\":\"update\"", "\"items\":[\"late\"]", "\"isLoading\":false", (const char *)NULL);
    yaia_free(r);
    if (s.thread_started)
        pthread_join(s.thread, NULL);
    check(s.rc_first == YAIA_OK, "feed (thread): yaia_call_complete from another thread is YAIA_OK (got %d)",
          s.rc_first);
    yaia_runtime_free(rt);

    /* fails inside perform() */
    host_svc_init(&s, FAIL_NOW, "{\"message\":\"feed down\"}");
    rt = feed_runtime(&s, &sid, &load, "feed (fail)");
    yaia_free(load);
    check(s.rc_first == YAIA_OK, "feed (fail): yaia_call_fail is YAIA_OK (got %d)", s.rc_first);
    r = receive(rt, "feed (fail) outcome");
    check_has(r, "feed (fail): the error reaches the scene as its catch action", "\"event\":\"update\"",
              "\"viewModel\":{\"error\":\"feed down\",\"isLoading\":false,\"items\":[]}", (const char *)NULL);
    yaia_free(r);
    yaia_runtime_free(rt);

    /* completes with text that is not JSON */
    host_svc_init(&s, BAD_JSON, NULL);
    rt = feed_runtime(&s, &sid, &load, "feed (bad JSON)");
    yaia_free(load);
    check(s.rc_first == YAIA_ERR_JSON, "feed (bad JSON): yaia_call_complete with broken JSON is YAIA_ERR_JSON (got %d)",
          s.rc_first);
    r = receive(rt, "feed (bad JSON) outcome");
    check_has(r, "feed (bad JSON): the call fails instead (catch action, error set)", "\"event\":\"update\"",
              "\"isLoading\":false", "\"items\":[]", "\"error\":\"", (const char *)NULL);
    yaia_free(r);
    check(yaia_call_complete(s.held, "{\"items\":[]}") == YAIA_ERR_STALE,
          "feed (bad JSON): the failed call is completed: a retry is YAIA_ERR_STALE");
    yaia_runtime_free(rt);

    /* completes twice */
    host_svc_init(&s, TWICE, "{\"items\":[\"first\"]}");
    rt = feed_runtime(&s, &sid, &load, "feed (twice)");
    yaia_free(load);
    check(s.rc_first == YAIA_OK, "feed (twice): the first completion is YAIA_OK (got %d)", s.rc_first);
    check(s.rc_second == YAIA_ERR_STALE, "feed (twice): the second completion is YAIA_ERR_STALE (got %d)",
          s.rc_second);
    r = receive(rt, "feed (twice) outcome");
    check_has(r, "feed (twice): the first completion wins", "\"items\":[\"first\"]", (const char *)NULL);
    yaia_free(r);
    r = yaia_receive(rt, 0);
    check(r == NULL, "feed (twice): the second completion queues nothing (got %s)", r ? r : "NULL");
    yaia_free(r);
    yaia_runtime_free(rt);

    /* a held auth call: not resolvable by the host; completed later */
    host_svc_init(&s, HOLD, NULL);
    rt = examples_runtime(NULL, NULL);
    svc = service_of("auth", &s);
    yaia_free(yaia_add_service(rt, &svc));
    sid = open_login(rt, "hold: open login");
    send_ok(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"h@o.st\"}", "hold: email");
    send_ok(rt, sid, "{\"type\":\"passwordChanged\",\"payload\":\"pw\"}", "hold: password");
    r = send_action(rt, sid, "{\"type\":\"submit\"}");
    check_has(r, "hold: a host auth service performs login", "\"service\":\"auth\",\"status\":\"running\"",
              (const char *)NULL);
    eid = int_of(r, "id");
    yaia_free(r);
    check(s.performs == 1 && strcmp(s.args, "{\"email\":\"h@o.st\",\"password\":\"pw\"}") == 0,
          "hold: perform gets the login args as compact JSON (got %s)", s.args);
    r = yaia_resolve(rt, eid, "{\"result\":{\"user\":null}}");
    check_error(r, "effect_not_pending", "hold: the host resolving a running effect");
    yaia_free(r);
    check(yaia_call_complete(s.held, NULL) == YAIA_ERR_ARGUMENT, "hold: yaia_call_complete(call, NULL) is YAIA_ERR_ARGUMENT");
    check(yaia_call_fail(s.held, NULL) == YAIA_ERR_ARGUMENT, "hold: yaia_call_fail(call, NULL) is YAIA_ERR_ARGUMENT");
    r = yaia_receive(rt, 0);
    check(r == NULL, "hold: nothing queued before the completion (got %s)", r ? r : "NULL");
    yaia_free(r);
    check(yaia_call_complete(s.held, "{\"user\":{\"email\":\"h@o.st\"}}") == YAIA_OK,
          "hold: completing the held call later is YAIA_OK");
    r = receive(rt, "hold outcome");
    check_has(r, "hold: the late completion pushes example/home", "\"event\":\"update\"",
              "\"push\":\"example/home\"", (const char *)NULL);
    yaia_free(r);
    r = yaia_resolve(rt, eid, "{\"result\":{\"user\":null}}");
    check_error(r, "effect_already_resolved", "hold: resolving a completed effect");
    yaia_free(r);

    /* closing a scene cancels its running call */
    r = send_action(rt, sid, "{\"type\":\"submit\"}");
    yaia_free(r);
    yaia_call *held = s.held;
    char *req = fmt("{\"op\":\"close\",\"scene\":%lld}", (long long)sid);
    expect_ok(rt, req, "hold: close the scene with a call in flight", "\"closed\":true", (const char *)NULL);
    free(req);
    check(s.cancels == 1, "hold: closing the scene calls cancel() once (got %d)", s.cancels);
    check(yaia_call_complete(held, "{\"user\":null}") == YAIA_ERR_STALE,
          "hold: completing a cancelled call is YAIA_ERR_STALE");
    r = yaia_receive(rt, 0);
    check(r == NULL, "hold: a cancelled call queues nothing (got %s)", r ? r : "NULL");
    yaia_free(r);

    /* freeing the runtime cancels what is in flight, then releases */
    sid = open_login(rt, "hold: open another login");
    send_ok(rt, sid, "{\"type\":\"emailChanged\",\"payload\":\"h@o.st\"}", "hold: email 2");
    send_ok(rt, sid, "{\"type\":\"passwordChanged\",\"payload\":\"pw\"}", "hold: password 2");
    send_ok(rt, sid, "{\"type\":\"submit\"}", "hold: submit 2");
    held = s.held;
    yaia_runtime_free(rt);
    check(s.cancels == 2, "hold: yaia_runtime_free cancels the call in flight (cancels %d)", s.cancels);
    check(s.releases == 1, "hold: yaia_runtime_free releases the service (releases %d)", s.releases);
    check(yaia_call_complete(held, "{\"user\":null}") == YAIA_ERR_STALE,
          "hold: completing after yaia_runtime_free is YAIA_ERR_STALE");

    /* a host service may not take a plugin's name */
    char *config = fmt("{\"plugins\":[%s]}", auth_path);
    rt = yaia_runtime_new(config, NULL);
    free(config);
    host_svc_init(&s, HOLD, NULL);
    svc = service_of("auth", &s);
    r = yaia_add_service(rt, &svc);
    check_error(r, "duplicate_service", "yaia_add_service(auth) beside auth.so");
    yaia_free(r);
    yaia_runtime_free(rt);
    check(s.releases == 0, "a refused service is never released (got %d)", s.releases);

    /* made-up call handles */
    int local = 0;
    int rc = yaia_call_complete((yaia_call *)&local, "1");
    check(rc == YAIA_ERR_STALE || rc == YAIA_ERR_ARGUMENT,
          "yaia_call_complete on a made-up call is refused (got %d)", rc);
    rc = yaia_call_fail((yaia_call *)&local, "1");
    check(rc == YAIA_ERR_STALE || rc == YAIA_ERR_ARGUMENT, "yaia_call_fail on a made-up call is refused (got %d)", rc);
    check(local == 0, "a made-up call handle is not written to");
}

/* ============================================================ 9. handles */

/* Runs one call with a hostile handle in a child process, so a crash is a
** failed check instead of the end of the run. The child reports through a
** pipe, not its exit status, which valgrind may change. */
static void check_in_child(yaia_runtime *bogus, const char *name)
{
    fflush(stdout);
    int fds[2];
    if (pipe(fds) != 0) {
        check(0, "%s: pipe", name);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm(10);
        char *r = yaia_execute(bogus, "{\"op\":\"scenes\"}");
        const char *verdict = r && strstr(r, "\"code\":\"bad_handle\"") ? "ok" : "wrong";
        yaia_free(r);
        yaia_runtime_free(bogus);
        (void)!write(fds[1], verdict, strlen(verdict));
        _exit(0);
    }
    close(fds[1]);
    char buf[16] = {0};
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (n <= 0)
        check(0, "%s: the call died (%s %d)", name, WIFSIGNALED(status) ? "signal" : "exit",
              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    else
        check(strcmp(buf, "ok") == 0, "%s: answers bad_handle", name);
}

static void test_handles(void)
{
    section("handles");
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    char *r = yaia_open(rt, "example/login", NULL);
    int64_t sid = int_of(r, "scene");
    yaia_free(r);
    yaia_runtime_free(rt);

    r = yaia_execute(rt, "{\"op\":\"scenes\"}");
    check_error(r, "bad_handle", "yaia_execute on a freed runtime");
    yaia_free(r);
    r = yaia_execute_n(rt, "{\"op\":\"scenes\"}", 15);
    check_error(r, "bad_handle", "yaia_execute_n on a freed runtime");
    yaia_free(r);
    r = yaia_open(rt, "example/login", NULL);
    check_error(r, "bad_handle", "yaia_open on a freed runtime");
    yaia_free(r);
    r = yaia_send(rt, sid, "{\"type\":\"submit\"}");
    check_error(r, "bad_handle", "yaia_send on a freed runtime");
    yaia_free(r);
    r = yaia_resolve(rt, 1, "{\"result\":1}");
    check_error(r, "bad_handle", "yaia_resolve on a freed runtime");
    yaia_free(r);
    r = yaia_receive(rt, 0);
    check_error(r, "bad_handle", "yaia_receive on a freed runtime");
    yaia_free(r);
    host_svc s;
    host_svc_init(&s, HOLD, NULL);
    yaia_service svc = service_of("feed", &s);
    r = yaia_add_service(rt, &svc);
    check_error(r, "bad_handle", "yaia_add_service on a freed runtime");
    yaia_free(r);
    check(s.releases == 0, "a service refused by a freed runtime is not released");
    r = yaia_execute(rt, "{\"op\":\"scenes\",\"tag\":\"gone\"}");
    check_has(r, "bad_handle still echoes the tag", "\"code\":\"bad_handle\"", "\"tag\":\"gone\"", (const char *)NULL);
    yaia_free(r);
    yaia_runtime_free(rt);
    check(1, "yaia_runtime_free twice is harmless");
    yaia_runtime_free(NULL);
    check(1, "yaia_runtime_free(NULL) is harmless");

    /* made-up handles that are at least readable memory */
    long local[8] = {0};
    yaia_runtime *fake = (yaia_runtime *)(void *)local;
    r = yaia_execute(fake, "{\"op\":\"scenes\"}");
    check_error(r, "bad_handle", "yaia_execute on the address of a local variable");
    yaia_free(r);
    r = yaia_receive(fake, 0);
    check_error(r, "bad_handle", "yaia_receive on the address of a local variable");
    yaia_free(r);
    yaia_runtime_free(fake);
    check(1, "yaia_runtime_free on the address of a local variable is ignored");
    unsigned char *heap = malloc(256);
    memset(heap, 0xAB, 256);
    fake = (yaia_runtime *)(void *)heap;
    r = yaia_execute(fake, "{\"op\":\"scenes\"}");
    check_error(r, "bad_handle", "yaia_execute on a heap block full of 0xAB");
    yaia_free(r);
    yaia_runtime_free(fake);
    check(1, "yaia_runtime_free on a heap block is ignored");
    int intact = 1;
    for (int i = 0; i < 256; i++)
        intact &= heap[i] == 0xAB;
    check(intact && local[0] == 0, "made-up handles are not written to");
    free(heap);

    /* a freed runtime's handle stays dead when a new runtime is created */
    yaia_runtime *a = yaia_runtime_new(NULL, NULL);
    yaia_runtime_free(a);
    yaia_runtime *b = yaia_runtime_new(NULL, NULL);
    r = yaia_execute(b, "{\"op\":\"scenes\"}");
    check_has(r, "a new runtime works after another was freed", "\"ok\":true", (const char *)NULL);
    yaia_free(r);
    if (a != b) {
        r = yaia_execute(a, "{\"op\":\"scenes\"}");
        check_error(r, "bad_handle", "the freed handle stays bad after a new runtime is made");
        yaia_free(r);
    }
    yaia_runtime_free(b);

    /* made-up handles that are not readable: isolate in a child */
    check_in_child((yaia_runtime *)(uintptr_t)0x10, "a made-up handle 0x10");
    check_in_child((yaia_runtime *)(uintptr_t)0xdeadbeef0ULL, "a made-up handle 0xdeadbeef0");
}

/* ======================================================= 10. receive */

typedef struct {
    yaia_runtime *rt;
    double timeout;
    pid_t tid;
    char *result;
    int returned;
} receiver;

static void *receive_main(void *arg)
{
    receiver *w = arg;
    __atomic_store_n(&w->tid, gettid(), __ATOMIC_SEQ_CST);
    w->result = yaia_receive(w->rt, w->timeout);
    __atomic_store_n(&w->returned, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Waits until the receiving thread is blocked in a futex wait (Linux: state S
** and system call futex in /proc), which is where a yaia_receive without
** an event blocks, or until it returned; true when it is blocked. A receiver
** that never gets there is a hang, which the section's alarm reports. */
static int receiver_blocked(receiver *w)
{
    set_current("waiting for the receiving thread to block in yaia_receive");
    for (;;) {
        pid_t tid = __atomic_load_n(&w->tid, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&w->returned, __ATOMIC_SEQ_CST))
            return 0;
        if (tid) {
            char path[64], text[512];
            snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
            FILE *f = fopen(path, "r");
            size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
            if (f)
                fclose(f);
            text[n] = '\0';
            const char *state = strrchr(text, ')');
            long call = -1;
            snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
            f = fopen(path, "r");
            if (f) {
                if (fscanf(f, "%ld", &call) != 1)
                    call = -1;
                fclose(f);
            }
            if (state && state[1] == ' ' && state[2] == 'S' && call == SYS_futex)
                return 1;
        }
        sched_yield();
    }
}

static void test_receive(void)
{
    section("receive");
    yaia_runtime *rt = yaia_runtime_new(NULL, NULL);
    char *r = yaia_receive(rt, 0);
    check(r == NULL, "yaia_receive(rt, 0) on an empty queue returns NULL");
    yaia_free(r);
    r = yaia_receive(rt, 0.01);
    check(r == NULL, "yaia_receive(rt, 0.01) on an empty queue returns NULL when its time is up");
    yaia_free(r);
    r = yaia_receive(rt, NAN);
    check(r == NULL, "yaia_receive(rt, NaN) counts as 0");
    yaia_free(r);

    receiver w = {rt, -1, 0, NULL, 0};
    pthread_t thread;
    if (check(pthread_create(&thread, NULL, receive_main, &w) == 0, "receive: start a waiting thread")) {
        check(receiver_blocked(&w), "yaia_receive(rt, -1) blocks while nothing arrives");
        set_current("yaia_runtime_free must wake yaia_receive(rt, -1)");
        yaia_runtime_free(rt);
        pthread_join(thread, NULL);
        check(w.result == NULL, "yaia_runtime_free wakes a blocked yaia_receive, which returns NULL (got %s)",
              w.result ? w.result : "NULL");
        yaia_free(w.result);
    } else {
        yaia_runtime_free(rt);
    }

    /* A receive with a time-out blocks too, and an event wakes it. */
    host_svc s;
    host_svc_init(&s, COMPLETE_NOW, "{\"items\":[\"woken\"]}");
    int64_t sid;
    char *load;
    rt = feed_runtime(&s, &sid, &load, "receive (timed)");
    if (!check(rt != NULL, "receive (timed): runtime"))
        return;
    yaia_free(load);
    yaia_free(yaia_receive(rt, 0)); /* the first load's outcome */
    receiver timed = {rt, 60, 0, NULL, 0};
    if (check(pthread_create(&thread, NULL, receive_main, &timed) == 0, "receive (timed): start a waiting thread")) {
        check(receiver_blocked(&timed), "yaia_receive(rt, 60) blocks while nothing arrives");
        send_ok(rt, sid, "{\"type\":\"load\"}", "receive (timed): load again");
        pthread_join(thread, NULL);
        check_has(timed.result, "receive (timed): the event wakes the waiting yaia_receive", "\"event\":\"update\"",
                  "\"items\":[\"woken\"]", (const char *)NULL);
        yaia_free(timed.result);
    }
    yaia_runtime_free(rt);
}

/* =================================================== 11. concurrency */

#define SENDERS 4
#define SENDS_EACH 250

typedef struct {
    yaia_runtime *rt;
    int64_t scene;
    int index;
    int ok;
} sender;

static void *send_many(void *arg)
{
    sender *s = arg;
    char action[96];
    for (int i = 0; i < SENDS_EACH; i++) {
        snprintf(action, sizeof action, "{\"type\":\"emailChanged\",\"payload\":\"t%d-%d@x\"}", s->index, i);
        char *r = yaia_send(s->rt, s->scene, action);
        s->ok += r && strstr(r, "\"ok\":true") != NULL;
        yaia_free(r);
    }
    return NULL;
}

static void test_concurrency(void)
{
    section("concurrency");
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    int64_t shared = open_login(rt, "concurrency: open the shared scene");
    sender senders[SENDERS * 2];
    pthread_t threads[SENDERS * 2];
    int started = 0;
    for (int i = 0; i < SENDERS * 2; i++) {
        /* half on one shared scene, half on a scene each */
        int64_t scene = i < SENDERS ? shared : open_login(rt, "concurrency: open an own scene");
        senders[i] = (sender){rt, scene, i, 0};
        if (pthread_create(&threads[i], NULL, send_many, &senders[i]) == 0)
            started++;
        else
            senders[i].ok = -1;
    }
    for (int i = 0; i < SENDERS * 2; i++)
        if (senders[i].ok != -1)
            pthread_join(threads[i], NULL);
    check(started == SENDERS * 2, "concurrency: started %d threads", started);
    int all_ok = 1;
    for (int i = 0; i < SENDERS * 2; i++)
        all_ok &= senders[i].ok == SENDS_EACH;
    check(all_ok, "concurrency: every send from %d threads was accepted", SENDERS * 2);
    char *req = fmt("{\"op\":\"state\",\"scene\":%lld}", (long long)shared);
    char *seq = fmt("\"seq\":%d", SENDERS * SENDS_EACH);
    expect_ok(rt, req, "concurrency: the shared scene reduced every action once (seq)", seq, (const char *)NULL);
    free(seq);
    free(req);
    yaia_runtime_free(rt);
}

/* =================================================== 12. conformance */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_conformance(void)
{
    section("JSON conformance");
    DIR *dir = opendir(conformance_dir);
    if (!dir) {
        printf("SKIP: JSON conformance: no folder %s (set YAIA_CONFORMANCE_DIR)\n", conformance_dir);
        return;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        if ((n[0] != 'y' && n[0] != 'n' && n[0] != 'i') || n[1] != '_' || len < 6 ||
            strcmp(n + len - 5, ".json") != 0)
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 256;
            char **bigger = realloc(names, cap * sizeof *names);
            if (!bigger)
                break;
            names = bigger;
        }
        names[count++] = strdup(n);
    }
    closedir(dir);
    qsort(names, count, sizeof *names, by_name);
    check(count > 0, "conformance: %s holds y_/n_/i_ files", conformance_dir);

    yaia_runtime *rt = examples_runtime(NULL, NULL);
    int64_t sid = open_login(rt, "conformance: open login");
    int counts[3] = {0, 0, 0}; /* i_ files: invalid_json, other answer, NULL */
    for (size_t i = 0; i < count; i++) {
        char *path = fmt("%s/%s", conformance_dir, names[i]);
        size_t length = 0;
        char *bytes = read_file(path, &length);
        free(path);
        if (!check(bytes != NULL, "conformance: cannot read %s", names[i])) {
            free(names[i]);
            continue;
        }
        set_current("conformance file %s (%zu bytes)", names[i], length);
        alarm(section_timeout);
        char *r = yaia_execute_n(rt, bytes, length);
        /* Too deep is refused as a limit, before the syntax is read further. */
        int invalid = r && (strstr(r, "\"code\":\"invalid_json\"") || strstr(r, "\"limit\":\"depth\""));
        int envelope = r && strncmp(r, "{", 1) == 0 && strstr(r, "\"ok\":");
        switch (names[i][0]) {
        case 'n':
            check(invalid, "conformance: %s must be invalid_json, got %.200s", names[i], r ? r : "NULL");
            break;
        case 'y':
            check(envelope && !invalid, "conformance: %s is valid JSON, got %.200s", names[i], r ? r : "NULL");
            break;
        default:
            check(envelope, "conformance: %s must give an envelope, got %.200s", names[i], r ? r : "NULL");
            counts[r ? (invalid ? 0 : 1) : 2]++;
            break;
        }
        yaia_free(r);
        free(bytes);
        free(names[i]);
    }
    free(names);
    printf("note: conformance i_ files: %d refused as invalid_json, %d accepted\n", counts[0], counts[1]);
    still_works(rt, sid, "the conformance suite");
    yaia_runtime_free(rt);
}

/* ================================================================ main */

/* The "logic" request: JSON Logic on a runtime with no grants (docs/logic.md). */
static void test_logic(void)
{
    section("logic");
    yaia_runtime *rt = yaia_runtime_new("{}", NULL);
    if (!check(rt != NULL, "logic: runtime"))
        return;
    expect_ok(rt, "{\"op\":\"logic\",\"rule\":{\"+\":[{\"var\":\"a\"},1]},\"data\":{\"a\":41}}",
              "logic adds", "\"result\":42", (const char *)NULL);
    expect_ok(rt, "{\"op\":\"logic\",\"rule\":{\"/\":[1,0]}}", "logic: infinity is null", "\"result\":null",
              (const char *)NULL);
    char *r = yaia_execute(rt, "{\"op\":\"logic\",\"rule\":{\"and\":[true,{\"nope\":1}]}}");
    check_has(r, "logic: an unknown operator is bad_rule, located", "\"code\":\"bad_rule\"",
              "\"at\":\"/rule/and/1/nope\"", (const char *)NULL);
    yaia_free(r);
    expect_error(rt, "{\"op\":\"logic\",\"rule\":{\"reduce\":[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"
                     "21,22,23,24,25,26,27,28,29,30],{\"merge\":[{\"var\":\"accumulator\"},{\"var\":\"accumulator\"}]},[1]]}}",
                 "logic_budget_exceeded", "logic: a runaway rule stops");
    expect_error(rt, "{\"op\":\"logic\",\"data\":1}", "bad_request", "logic without a rule");
    yaia_runtime_free(rt);
}

int main(void)
{
    harness_start();
    library_path = env_or("YAIA_LIBRARY", ".build/release/libyaia.so");
    plugin_dir = env_or("YAIA_PLUGIN_DIR", ".build/yaia/plugins");
    test_plugin_dir = env_or("YAIA_TEST_PLUGIN_DIR", ".build/yaia/test-plugins");
    conformance_dir = env_or("YAIA_CONFORMANCE_DIR", "../shared/conformance/json-parsing");
    header_path = env_or("YAIA_HEADER", "Include/yaia.h");
    char *auth = fmt("%s/auth.so", plugin_dir);
    auth_path = json_quote(auth);
    free(auth);

    test_exports();
    test_basics();
    test_config();
    test_requests();
    test_logic();
    test_pending();
    test_login_plugin();
    test_plugin_loading();
    test_host_services();
    test_handles();
    test_receive();
    test_concurrency();
    test_conformance();

    free(auth_path);
    return harness_finish();
}
