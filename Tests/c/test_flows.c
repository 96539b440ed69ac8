/*
** test_flows.c -- flows, snapshots and the journal through the C
** ABI only, as a C host would: start, send to a flow, routes and results
** (yaia_receive events with "from"), popped, link, snapshot and restore
** (view models compared byte for byte), journal, replay, rewind, inspection.
**
** Prints one line per failed check and ends with "N passed, N failed".
** Exit status 1 when anything failed.
**
** Environment (the Makefile exports the first two):
**   YAIA_LIBRARY          libyaia.so       (.build/release/libyaia.so)
**   YAIA_EXAMPLES_PACK    the example scenes (.build/release/libyaia-examples.so)
**   YAIA_TEST_TIMEOUT     seconds a section may take before it counts as hung (120)
**   TMPDIR                where journals are written (/tmp)
**
** Responses are canonical (sorted keys, no spaces), so substring checks on
** them are exact, and equal values print as equal bytes.
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>

#include "harness.h"

/* ================================================================ harness (more in harness.h) */

static int check_same(const char *got, const char *expected, const char *name)
{
    int ok = got && expected && strcmp(got, expected) == 0;
    return check(ok, "%s -- expected %s -- got %s", name, expected ? expected : "(NULL)", got ? got : "(NULL)");
}

/* Runs a request and checks it succeeds; returns the response (to free). */
static char *run_ok(yaia_runtime *rt, const char *request, const char *name)
{
    set_current("%s: %s", name, request);
    char *r = yaia_execute(rt, request);
    check_has(r, name, "\"ok\":true", (const char *)NULL);
    return r;
}

/* ---------------------------------------------------------- JSON peeking */

/* A malloc'd copy of the raw text of member "key" of the object json (its
** own members only, not nested ones), or NULL. */
static char *member(const char *json, const char *key)
{
    if (!json || *json != '{')
        return NULL;
    size_t klen = strlen(key);
    const char *p = json + 1;
    while (*p == '"') {
        const char *k = p + 1;
        const char *colon = value_end(p);
        const char *v = colon + 1;
        const char *e = value_end(v);
        if ((size_t)(colon - k - 1) == klen && strncmp(k, key, klen) == 0)
            return copy_span(v, e);
        if (*e != ',')
            break;
        p = e + 1;
    }
    return NULL;
}

static long long int_member(const char *json, const char *key)
{
    char *v = member(json, key);
    long long n = v && (*v == '-' || (*v >= '0' && *v <= '9')) ? strtoll(v, NULL, 10) : -1;
    free(v);
    return n;
}

/* Array elements: *cursor starts at '['; NULL at the end. Malloc'd copies. */
static char *next_element(const char **cursor)
{
    const char *p = *cursor;
    if (*p == '[' || *p == ',')
        p++;
    if (*p == ']' || *p == '\0')
        return NULL;
    const char *e = value_end(p);
    *cursor = e;
    return copy_span(p, e);
}

/* The scene names of a response's "stack", as "login,home,detail". */
static char *stack_names(const char *response)
{
    char *stack = member(response, "stack");
    char *out = fmt("%s", "");
    const char *cursor = stack ? stack : "[]";
    for (char *entry; (entry = next_element(&cursor)) != NULL; free(entry)) {
        char *scene = member(entry, "scene");
        const char *name = scene ? scene + 1 : "?";
        const char *slash = strchr(name, '/');
        if (slash)
            name = slash + 1;
        char *next = fmt("%s%s%.*s", out, *out ? "," : "", (int)strcspn(name, "\""), name);
        free(out);
        out = next;
        free(scene);
    }
    free(stack);
    return out;
}

static int check_stack(const char *response, const char *expected, const char *name)
{
    char *got = stack_names(response);
    int ok = check(strcmp(got, expected) == 0, "%s -- stack expected [%s] -- got [%s] in %s", name, expected, got,
                   response ? response : "(NULL)");
    free(got);
    return ok;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* ------------------------------------------------------------ app helpers */

static const char *tmp_dir;

/* A journal path unique to this process, quoted for JSON in *quoted. */
static char *journal_path(const char *name, char **quoted)
{
    char *path = fmt("%s/yaia-test-flows-%ld-%s.jsonl", tmp_dir, (long)getpid(), name);
    *quoted = json_quote(path);
    return path;
}

static char *send_flow(yaia_runtime *rt, long long flow, const char *action)
{
    char *request = fmt("{\"op\":\"send\",\"flow\":%lld,\"action\":%s}", flow, action);
    set_current("send %s", request);
    char *r = yaia_execute(rt, request);
    free(request);
    return r;
}

static void send_flow_ok(yaia_runtime *rt, long long flow, const char *action, const char *name)
{
    char *r = send_flow(rt, flow, action);
    check_has(r, name, "\"ok\":true", (const char *)NULL);
    check_lacks(r, "navigationErrors", name);
    yaia_free(r);
}

static char *describe(yaia_runtime *rt, long long flow)
{
    char *request = fmt("{\"op\":\"flow\",\"flow\":%lld}", flow);
    char *r = yaia_execute(rt, request);
    free(request);
    return r;
}

#define LOADED                                                                                                 \
    "{\"type\":\"loaded\",\"payload\":{\"items\":[{\"key\":\"item/1\",\"value\":{\"title\":\"One\"}},"        \
    "{\"key\":\"item/2\",\"value\":{\"title\":\"Two\"}},{\"key\":\"item/3\",\"value\":{\"title\":\"Three\"}}]}}"

/* Starts a flow [login, home] with home loaded; returns its id. */
static long long start_home(yaia_runtime *rt, const char *name)
{
    char *r = run_ok(rt, "{\"op\":\"start\",\"flow\":\"main\",\"scene\":\"example/login\"}", name);
    long long flow = int_member(r, "flow");
    yaia_free(r);
    send_flow_ok(rt, flow, "{\"type\":\"loginSucceeded\",\"payload\":{\"user\":{\"email\":\"a@b.c\"}}}", name);
    send_flow_ok(rt, flow, LOADED, name);
    return flow;
}

/* The id of the first effect a response lists, or -1. */
static long long first_effect_id(const char *response)
{
    char *effects = member(response, "effects");
    const char *cursor = effects ? effects : "[]";
    char *first = next_element(&cursor);
    long long id = first ? int_member(first, "id") : -1;
    free(first);
    free(effects);
    return id;
}

/* The id of the scene on top of a flow. */
static long long top_of(yaia_runtime *rt, long long flow)
{
    char *r = describe(rt, flow);
    char *stack = member(r, "stack");
    long long id = -1;
    const char *cursor = stack ? stack : "[]";
    for (char *entry; (entry = next_element(&cursor)) != NULL; free(entry))
        id = int_member(entry, "id");
    free(stack);
    yaia_free(r);
    return id;
}

/* The view model of a scene, as the runtime prints it (malloc'd). */
static char *view_model_of(yaia_runtime *rt, long long scene)
{
    char *request = fmt("{\"op\":\"state\",\"scene\":%lld}", scene);
    char *r = yaia_execute(rt, request);
    free(request);
    char *vm = member(r, "viewModel");
    yaia_free(r);
    return vm;
}

static char *receive(yaia_runtime *rt, double seconds, const char *why)
{
    set_current("yaia_receive: waiting for %s", why);
    return yaia_receive(rt, seconds);
}

/* A host "store" that answers every call at once and records it. */
typedef struct {
    pthread_mutex_t lock;
    int performs, cancels;
    char last_op[32], last_args[256];
} store_svc;

static void store_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    store_svc *s = ctx;
    pthread_mutex_lock(&s->lock);
    s->performs++;
    snprintf(s->last_op, sizeof s->last_op, "%s", op);
    snprintf(s->last_args, sizeof s->last_args, "%s", args_json);
    pthread_mutex_unlock(&s->lock);
    if (strcmp(op, "list") == 0)
        yaia_call_complete(call, "{\"items\":[{\"key\":\"item/9\",\"value\":{\"title\":\"Nine\"}}]}");
    else
        yaia_call_complete(call, "{\"key\":\"item/9\"}");
}

static void store_cancel(void *ctx, yaia_call *call)
{
    store_svc *s = ctx;
    (void)call;
    pthread_mutex_lock(&s->lock);
    s->cancels++;
    pthread_mutex_unlock(&s->lock);
}

static void store_release(void *ctx) { (void)ctx; }

static void add_store(yaia_runtime *rt, store_svc *s, const char *name)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    yaia_service svc = {
        .size = sizeof svc, .name = "store", .ctx = s,
        .perform = store_perform, .cancel = store_cancel, .release = store_release,
    };
    char *r = yaia_add_service(rt, &svc);
    check_has(r, name, "\"ok\":true", (const char *)NULL);
    yaia_free(r);
}

/* ================================================ 1. start, send, describe */

static void test_start(void)
{
    section("start");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    char *r = run_ok(rt, "{\"op\":\"start\",\"flow\":\"main\",\"scene\":\"example/login\",\"args\":{\"email\":\"x@y.z\"},\"tag\":7}", "start");
    check_has(r, "start answers with the root's update and the stack",
              "\"effects\":[],\"flow\":1,\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":0,"
              "\"stack\":[{\"id\":1,\"presentation\":\"root\",\"scene\":\"example/login\","
              "\"viewModel\":{\"canSubmit\":false,\"email\":\"x@y.z\",\"error\":null,\"isSubmitting\":false}}],"
              "\"tag\":7,\"version\":1",
              (const char *)NULL);
    yaia_free(r);

    r = describe(rt, 1);
    check_same(r, "{\"flow\":1,\"ok\":true,\"stack\":[{\"id\":1,\"presentation\":\"root\",\"scene\":\"example/login\","
                  "\"viewModel\":{\"canSubmit\":false,\"email\":\"x@y.z\",\"error\":null,\"isSubmitting\":false}}],\"version\":1}",
               "flow describes the stack");
    yaia_free(r);

    r = send_flow(rt, 1, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}");
    check_has(r, "send to a flow reaches its top", "\"scene\":1,\"seq\":1", "\"email\":\"a@b.c\"", (const char *)NULL);
    check_lacks(r, "\"stack\"", "a send that does not navigate carries no stack");
    yaia_free(r);
    r = yaia_send(rt, 1, "{\"type\":\"passwordChanged\",\"payload\":\"pw\"}");
    check_has(r, "yaia_send reaches a scene of a flow directly", "\"seq\":2", "\"canSubmit\":true", (const char *)NULL);
    yaia_free(r);

    expect_error(rt, "{\"op\":\"start\",\"scene\":\"example/nope\"}", "unknown_scene", "start an unknown scene");
    expect_error(rt, "{\"op\":\"start\",\"scene\":\"example/detail\"}", "bad_args", "start with refused args");
    expect_error(rt, "{\"op\":\"start\",\"flow\":1,\"scene\":\"example/login\"}", "bad_request", "a flow name must be a string");
    expect_error(rt, "{\"op\":\"start\",\"scene\":\"example/login\",\"args\":[]}", "not_an_object", "start args must be an object");
    expect_error(rt, "{\"op\":\"flow\",\"flow\":9}", "no_such_flow", "describe an unknown flow");
    expect_error(rt, "{\"op\":\"send\",\"flow\":9,\"action\":{\"type\":\"submit\"}}", "no_such_flow", "send to an unknown flow");
    expect_error(rt, "{\"op\":\"send\",\"flow\":1,\"scene\":1,\"action\":{\"type\":\"submit\"}}", "bad_request", "send to a flow and a scene");
    expect_error(rt, "{\"op\":\"close\",\"scene\":1}", "scene_in_flow", "a scene of a flow is not closed directly");
    r = send_flow(rt, 1, "{\"type\":\"select\",\"payload\":\"x\"}");
    check_error(r, "unknown_action", "the top scene refuses actions it does not have");
    check_has(r, "the fault is located in the action", "\"at\":\"/action/type\"", (const char *)NULL);
    yaia_free(r);

    r = run_ok(rt, "{\"op\":\"scenes\"}", "scenes lists flows");
    check_has(r, "scenes lists flows", "\"flows\":[{\"depth\":1,\"id\":1,\"name\":\"main\",\"version\":1}]", (const char *)NULL);
    yaia_free(r);

    yaia_free(run_ok(rt, "{\"op\":\"close\",\"flow\":1}", "close a flow"));
    expect_error(rt, "{\"op\":\"state\",\"scene\":1}", "no_such_scene", "closing a flow closes its scenes");
    expect_error(rt, "{\"op\":\"close\",\"flow\":1}", "no_such_flow", "a flow closes once");
    yaia_runtime_free(rt);
}

/* ================================================ 2. routes and results */

static void test_routes(void)
{
    section("routes");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    char *r = run_ok(rt, "{\"op\":\"start\",\"scene\":\"example/login\"}", "start");
    long long flow = int_member(r, "flow");
    yaia_free(r);

    r = send_flow(rt, flow, "{\"type\":\"loginSucceeded\",\"payload\":{\"user\":{\"email\":\"a@b.c\"}}}");
    check_has(r, "push: loginSucceeded", "\"routes\":[{\"args\":{\"user\":{\"email\":\"a@b.c\"}},\"push\":\"example/home\"}]",
              "\"version\":2", "{\"id\":2,\"presentation\":\"push\",\"scene\":\"example/home\"", (const char *)NULL);
    check_stack(r, "login,home", "push");
    yaia_free(r);
    send_flow_ok(rt, flow, LOADED, "home loaded");

    r = send_flow(rt, flow, "{\"type\":\"select\",\"payload\":\"item/2\"}");
    check_has(r, "push with onResult",
              "{\"id\":3,\"onResult\":\"itemSaved\",\"presentation\":\"push\",\"scene\":\"example/detail\","
              "\"viewModel\":{\"canSave\":true,\"error\":null,\"isSaving\":false,\"title\":\"Two\"}}",
              (const char *)NULL);
    check_stack(r, "login,home,detail", "push detail");
    yaia_free(r);

    /* A route from a covered scene is refused; the flow is unchanged. */
    char *before = describe(rt, flow);
    r = yaia_send(rt, 2, "{\"type\":\"showAbout\"}");
    check_has(r, "a route from a covered scene is stale",
              "\"navigationErrors\":[{\"error\":{\"code\":\"stale_navigation\"", "\"route\":{\"present\":\"example/about\"}}]",
              (const char *)NULL);
    check_lacks(r, "\"stack\"", "a refused route carries no stack");
    yaia_free(r);
    char *after = describe(rt, flow);
    check_same(after, before, "a refused route changes nothing");
    yaia_free(after);
    yaia_free(before);

    /* save waits for the host (no store service); resolving it pops with a result. */
    send_flow_ok(rt, flow, "{\"type\":\"titleChanged\",\"payload\":\"Deux\"}", "titleChanged");
    r = send_flow(rt, flow, "{\"type\":\"save\"}");
    check_has(r, "save emits store.put", "\"op\":\"put\"", "\"status\":\"pending\"", (const char *)NULL);
    long long put = first_effect_id(r);
    yaia_free(r);
    r = yaia_resolve(rt, put, "{\"result\":{\"key\":\"item/2\"}}");
    check_has(r, "resolve: saved pops with the result",
              "\"routes\":[{\"pop\":true,\"result\":{\"key\":\"item/2\",\"title\":\"Deux\"}}]", "\"scene\":3", (const char *)NULL);
    check_stack(r, "login,home", "pop");
    check_has(r, "the stack shows home with the result applied", "{\"key\":\"item/2\",\"title\":\"Deux\"}", (const char *)NULL);
    yaia_free(r);
    r = receive(rt, 0, "the result delivered to home");
    check_has(r, "the result arrives as an event from the popped scene",
              "\"event\":\"update\"", "\"from\":3", "\"scene\":2", "\"seq\":4", "{\"key\":\"item/2\",\"title\":\"Deux\"}",
              (const char *)NULL);
    check_lacks(r, "\"effect\":", "a result event has no effect id");
    yaia_free(r);
    r = receive(rt, 0, "nothing more");
    check(r == NULL, "one event for one result -- got %s", r ? r : "(NULL)");
    yaia_free(r);
    expect_error(rt, "{\"op\":\"state\",\"scene\":3}", "no_such_scene", "the popped scene is closed");

    /* present, dismiss */
    r = send_flow(rt, flow, "{\"type\":\"showAbout\"}");
    check_has(r, "present", "{\"id\":4,\"presentation\":\"present\",\"scene\":\"example/about\"", "\"version\":5", (const char *)NULL);
    yaia_free(r);
    r = send_flow(rt, flow, "{\"type\":\"close\"}");
    check_has(r, "dismiss", "\"routes\":[{\"dismiss\":true}]", "\"version\":6", (const char *)NULL);
    check_stack(r, "login,home", "dismiss");
    yaia_free(r);

    /* cancel pops without a result: no event */
    send_flow_ok(rt, flow, "{\"type\":\"select\",\"payload\":\"item/1\"}", "select item/1");
    r = send_flow(rt, flow, "{\"type\":\"cancel\"}");
    check_stack(r, "login,home", "pop without a result");
    yaia_free(r);
    r = receive(rt, 0, "no event");
    check(r == NULL, "a pop without a result delivers nothing -- got %s", r ? r : "(NULL)");
    yaia_free(r);

    /* popToRoot */
    r = send_flow(rt, flow, "{\"type\":\"logout\"}");
    check_has(r, "popToRoot", "\"routes\":[{\"popToRoot\":true}]", (const char *)NULL);
    check_stack(r, "login", "popToRoot");
    yaia_free(r);

    /* the root cannot be popped */
    r = run_ok(rt, "{\"op\":\"start\",\"scene\":\"example/detail\",\"args\":{\"key\":\"k\"}}", "start detail");
    long long lone = int_member(r, "flow");
    yaia_free(r);
    r = send_flow(rt, lone, "{\"type\":\"cancel\"}");
    check_has(r, "popping the root is refused", "\"code\":\"stale_navigation\"", (const char *)NULL);
    yaia_free(r);
    yaia_runtime_free(rt);
}

/* ================================================ 3. popped, link, effects of closed scenes */

static void test_popped_and_link(void)
{
    section("popped and link");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    long long flow = start_home(rt, "start home");
    send_flow_ok(rt, flow, "{\"type\":\"select\",\"payload\":\"item/1\"}", "select");
    char *r = send_flow(rt, flow, "{\"type\":\"save\"}");
    long long put = first_effect_id(r);
    yaia_free(r);

    char *request = fmt("{\"op\":\"popped\",\"flow\":%lld,\"depth\":2,\"version\":3}", flow);
    r = run_ok(rt, request, "popped");
    check_has(r, "popped keeps the first N", "\"version\":4", (const char *)NULL);
    check_stack(r, "login,home", "popped");
    yaia_free(r);
    expect_error(rt, request, "stale_navigation", "the same report twice");
    free(request);
    char *resolve = fmt("{\"op\":\"resolve\",\"effect\":%lld,\"result\":{}}", put);
    expect_error(rt, resolve, "effect_already_resolved", "a pending effect of a popped scene is cancelled");
    free(resolve);

    send_flow_ok(rt, flow, "{\"type\":\"select\",\"payload\":\"item/1\"}", "select again");
    request = fmt("{\"op\":\"popped\",\"flow\":%lld,\"depth\":1,\"version\":4}", flow);
    expect_error(rt, request, "stale_navigation", "a report for an old version");
    free(request);
    request = fmt("{\"op\":\"popped\",\"flow\":%lld,\"depth\":3}", flow);
    expect_error(rt, request, "stale_navigation", "a depth that does not exist");
    free(request);
    request = fmt("{\"op\":\"popped\",\"flow\":%lld,\"depth\":0}", flow);
    expect_error(rt, request, "stale_navigation", "depth 0");
    free(request);
    r = describe(rt, flow);
    check_stack(r, "login,home,detail", "refused reports change nothing");
    check_has(r, "refused reports change nothing", "\"version\":5", (const char *)NULL);
    yaia_free(r);

    /* links */
    char *before = describe(rt, flow);
    request = fmt("{\"op\":\"link\",\"flow\":%lld,\"path\":[\"example/home\",{\"scene\":\"example/nope\"}]}", flow);
    expect_error(rt, request, "unknown_scene", "a link to an unknown scene");
    free(request);
    request = fmt("{\"op\":\"link\",\"flow\":%lld,\"path\":[\"example/home\",{\"scene\":\"example/detail\",\"args\":{}}]}", flow);
    expect_error(rt, request, "bad_args", "a link with refused args");
    free(request);
    char *after = describe(rt, flow);
    check_same(after, before, "a refused link changes nothing");
    yaia_free(after);
    yaia_free(before);

    request = fmt("{\"op\":\"link\",\"flow\":%lld,\"path\":[\"example/home\",{\"scene\":\"example/detail\","
                  "\"args\":{\"key\":\"item/3\",\"title\":\"Three\"},\"presentation\":\"push\"}]}", flow);
    r = run_ok(rt, request, "link push items");
    check_stack(r, "login,home,detail", "link push items");
    check_has(r, "one step", "\"version\":6", "\"presentation\":\"push\",\"scene\":\"example/detail\",\"viewModel\":{\"canSave\":true,\"error\":null,\"isSaving\":false,\"title\":\"Three\"}", (const char *)NULL);
    yaia_free(r);
    free(request);
    request = fmt("{\"op\":\"link\",\"flow\":%lld,\"path\":[{\"scene\":\"example/home\"},{\"scene\":\"example/about\",\"presentation\":\"present\"}]}", flow);
    r = run_ok(rt, request, "link present items");
    check_has(r, "link present items", "\"presentation\":\"present\",\"scene\":\"example/about\"", "\"version\":7", (const char *)NULL);
    yaia_free(r);
    free(request);
    request = fmt("{\"op\":\"link\",\"flow\":%lld,\"path\":[{\"scene\":\"example/home\",\"presentation\":\"root\"}]}", flow);
    r = yaia_execute(rt, request);
    check_error(r, "bad_request", "presentation root is refused");
    check_has(r, "presentation root is refused", "\"at\":\"/path/0/presentation\"", (const char *)NULL);
    yaia_free(r);
    free(request);
    yaia_runtime_free(rt);
}

/* ================================================ 4. snapshot and restore */

/* Source: flow 1 [login, home] with home's load pending (reissue); flow 2
** [login, home, detail] with detail's save pending (cancel); a jobs scene
** with an "await" effect. */
static yaia_runtime *source_runtime(long long *load, long long *put, long long *job)
{
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    char *r = run_ok(rt, "{\"op\":\"start\",\"flow\":\"loading\",\"scene\":\"example/login\"}", "source: start");
    yaia_free(r);
    send_flow_ok(rt, 1, "{\"type\":\"loginSucceeded\",\"payload\":{\"user\":{\"email\":\"a@b.c\"}}}", "source: login");
    r = send_flow(rt, 1, "{\"type\":\"load\"}");
    *load = first_effect_id(r);
    yaia_free(r);
    long long flow = start_home(rt, "source: editing");
    send_flow_ok(rt, flow, "{\"type\":\"select\",\"payload\":\"item/2\"}", "source: select");
    send_flow_ok(rt, flow, "{\"type\":\"titleChanged\",\"payload\":\"h\\u00e9\\u2603\"}", "source: title");
    r = send_flow(rt, flow, "{\"type\":\"save\"}");
    *put = first_effect_id(r);
    yaia_free(r);
    r = yaia_open(rt, "example/jobs", NULL);
    long long jobs = int_member(r, "scene");
    yaia_free(r);
    r = yaia_send(rt, jobs, "{\"type\":\"run\",\"payload\":{\"service\":\"clock\",\"op\":\"now\",\"restore\":\"await\"}}");
    *job = first_effect_id(r);
    yaia_free(r);
    return rt;
}

static void test_snapshot_restore(void)
{
    section("snapshot and restore");
    long long load, put, job;
    yaia_runtime *src = source_runtime(&load, &put, &job);
    check(load > 0 && put > 0 && job > 0, "source effects %lld %lld %lld", load, put, job);
    char *r = run_ok(src, "{\"op\":\"snapshot\"}", "snapshot");
    char *snapshot = member(r, "snapshot");
    yaia_free(r);
    check_has(snapshot, "the snapshot document", "\"format\":\"yaia.snapshot/1\"",
              "\"next\":{\"effect\":4,\"flow\":3,\"scene\":7}", "\"restore\":\"reissue\"", "\"restore\":\"await\"",
              "\"status\":\"pending\"", (const char *)NULL);

    /* Into a fresh runtime without services: every restored view model
    ** equals the source's, byte for byte. */
    yaia_runtime *dst = examples_runtime("{" ALLOW_ALL "}", NULL);
    char *request = fmt("{\"op\":\"restore\",\"snapshot\":%s}", snapshot);
    r = run_ok(dst, request, "restore");
    char *expected = fmt("\"effects\":{\"awaiting\":[%lld],\"cancelled\":[%lld],\"reissued\":[%lld]},\"flows\":[1,2]", job, put, load);
    check_has(r, "restore lists what became of each effect", expected, (const char *)NULL);
    free(expected);
    char *scenes = member(r, "scenes");
    const char *cursor = scenes ? scenes : "[]";
    int n = 0;
    for (char *scene; (scene = next_element(&cursor)) != NULL; free(scene), n++) {
        long long id = int_member(scene, "id");
        char *theirs = member(scene, "viewModel");
        char *ours = view_model_of(src, id);
        char *name = fmt("restored view model of scene %lld", id);
        check_same(theirs, ours, name);
        free(name);
        free(ours);
        free(theirs);
    }
    check(n == 6, "6 scenes restored -- got %d", n);
    free(scenes);
    yaia_free(r);
    char *a = describe(src, 1), *b = describe(dst, 1);
    check_same(b, a, "a restored flow describes as the source's");
    yaia_free(a);
    yaia_free(b);
    /* Without a store, the reissued load waits for the host. */
    char *outcome = yaia_resolve(dst, load, "{\"result\":{\"items\":[]}}");
    check_has(outcome, "a reissued effect without its service is pending", "\"ok\":true", "\"isLoading\":false", (const char *)NULL);
    yaia_free(outcome);
    yaia_runtime_free(dst);

    /* Into a fresh runtime with a store service that records its calls and
    ** answers at once. */
    dst = examples_runtime("{" ALLOW_ALL "}", NULL);
    store_svc store;
    add_store(dst, &store, "target: add store");
    r = run_ok(dst, request, "restore with a store");
    scenes = member(r, "scenes");
    cursor = scenes ? scenes : "[]";
    for (char *scene; (scene = next_element(&cursor)) != NULL; free(scene)) {
        if (int_member(scene, "id") != 2)
            continue;
        char *theirs = member(scene, "viewModel");
        char *ours = view_model_of(src, 2);
        check(theirs && ours && strcmp(theirs, ours) == 0,
              "restore response shows home as restored, before its reissued load ran (%s vs %s)",
              theirs ? theirs : "(none)", ours ? ours : "(none)");
        free(theirs);
        free(ours);
    }
    free(scenes);
    yaia_free(r);

    /* reissue: performed again with the same args; its outcome is an event */
    pthread_mutex_lock(&store.lock);
    check(store.performs == 1 && strcmp(store.last_op, "list") == 0 && strcmp(store.last_args, "{\"prefix\":\"item/\"}") == 0,
          "reissue performs store.list again -- got %d calls, last %s %s", store.performs, store.last_op, store.last_args);
    pthread_mutex_unlock(&store.lock);
    int reissued = 0, interrupted = 0;
    for (char *e; (e = receive(dst, 0, "restore events")) != NULL; yaia_free(e)) {
        if (int_member(e, "effect") == load) {
            reissued++;
            check_has(e, "the reissued load completes", "\"scene\":2", "{\"key\":\"item/9\",\"title\":\"Nine\"}", (const char *)NULL);
        } else if (int_member(e, "effect") == put) {
            interrupted++;
            check_has(e, "cancel: the catch action gets interrupted", "\"scene\":5",
                      "\"error\":\"effect", "in flight when the snapshot was taken", "\"isSaving\":false", (const char *)NULL);
        } else {
            check(0, "unexpected event after restore: %s", e);
        }
    }
    check(reissued == 1 && interrupted == 1, "one event each for reissue and cancel -- got %d, %d", reissued, interrupted);

    /* await: still pending, resolvable by the host */
    outcome = yaia_resolve(dst, job, "{\"result\":{\"now\":\"noon\"}}");
    check_has(outcome, "await: the host resolves it", "\"viewModel\":{\"log\":[{\"ok\":true,\"result\":{\"now\":\"noon\"}}]}", (const char *)NULL);
    yaia_free(outcome);
    yaia_runtime_free(dst);

    /* restore in the config */
    char *config = fmt("{" ALLOW_ALL ",\"restore\":%s}", snapshot);
    char *error = NULL;
    dst = examples_runtime(config, &error);
    check(dst != NULL, "a runtime restored from its config -- %s", error ? error : "");
    yaia_free(error);
    free(config);
    if (dst) {
        char *a = view_model_of(src, 4), *b = view_model_of(dst, 4);
        check_same(b, a, "config restore: home's view model");
        free(a);
        free(b);
        yaia_runtime_free(dst);
    }

    /* bad snapshots */
    const char *format = strstr(snapshot, "yaia.snapshot/1");
    char *wrong = strdup(snapshot);
    wrong[format - snapshot + 14] = '9';
    free(request);
    request = fmt("{\"op\":\"restore\",\"snapshot\":%s}", wrong);
    r = yaia_execute(src, request);
    check_error(r, "bad_snapshot", "a wrong format");
    check_has(r, "a wrong format", "\"at\":\"/snapshot/format\"", (const char *)NULL);
    yaia_free(r);
    free(request);
    config = fmt("{\"restore\":%s}", wrong);
    error = NULL;
    dst = yaia_runtime_new(config, &error);
    check(dst == NULL, "a runtime with a bad snapshot is not made");
    check_error(error, "bad_snapshot", "a bad snapshot in the config");
    check_has(error, "a bad snapshot in the config", "\"at\":\"/restore/format\"", (const char *)NULL);
    yaia_free(error);
    free(config);
    free(wrong);
    expect_error(src, "{\"op\":\"restore\",\"snapshot\":{\"format\":\"yaia.snapshot/1\",\"flows\":[],\"effects\":[]}}",
                 "bad_snapshot", "a snapshot without scenes");
    expect_error(src, "{\"op\":\"restore\",\"snapshot\":{\"format\":\"yaia.snapshot/1\",\"scenes\":[],\"effects\":[]}}",
                 "bad_snapshot", "a snapshot without flows");
    expect_error(src, "{\"op\":\"restore\",\"snapshot\":{\"scenes\":[],\"flows\":[],\"effects\":[]}}", "bad_snapshot",
                 "a snapshot without format");
    expect_error(src, "{\"op\":\"restore\",\"snapshot\":[]}", "bad_snapshot", "a snapshot that is not an object");
    expect_error(src, "{\"op\":\"restore\"}", "bad_request", "restore without a snapshot");
    r = run_ok(src, "{\"op\":\"snapshot\"}", "snapshot after refusals");
    char *again = member(r, "snapshot");
    check_same(again, snapshot, "refused restores change nothing");
    free(again);
    yaia_free(r);
    free(snapshot);
    yaia_runtime_free(src);
}

/* ================================================ 5. journal, replay, rewind */

static void test_journal(void)
{
    section("journal and replay");
    char *quoted;
    char *path = journal_path("session", &quoted);
    char *config = fmt("{" ALLOW_ALL ",\"journal\":%s}", quoted);
    yaia_runtime *rt = examples_runtime(config, NULL);
    free(config);
    check(rt != NULL, "a runtime with a journal");
    if (!rt)
        return;
    store_svc store;
    add_store(rt, &store, "journal: add store");
    long long flow = start_home(rt, "journal: start home");                      /* 1 start, 2-3 send */
    send_flow_ok(rt, flow, "{\"type\":\"load\"}", "load");                           /* 4 send, 5 outcome */
    send_flow_ok(rt, flow, "{\"type\":\"select\",\"payload\":\"item/9\"}", "select"); /* 6 */
    send_flow_ok(rt, flow, "{\"type\":\"titleChanged\",\"payload\":\"Neun\"}", "edit"); /* 7 */
    char *at7 = view_model_of(rt, top_of(rt, flow));
    send_flow_ok(rt, flow, "{\"type\":\"save\"}", "save");                             /* 8 send, 9 outcome */
    send_flow_ok(rt, flow, "{\"type\":\"showAbout\"}", "showAbout");                   /* 10 */
    char *request = fmt("{\"op\":\"link\",\"flow\":%lld,\"path\":[\"example/home\",\"example/detail\"]}", flow);
    char *r = yaia_execute(rt, request); /* refused: detail needs a key; not journaled */
    check_error(r, "bad_args", "a refused link");
    yaia_free(r);
    free(request);
    request = fmt("{\"op\":\"popped\",\"flow\":%lld,\"depth\":2}", flow); /* 11 */
    yaia_free(run_ok(rt, request, "popped"));
    free(request);
    for (char *e; (e = receive(rt, 0, "drain")) != NULL;)
        yaia_free(e);
    r = run_ok(rt, "{\"op\":\"journal\",\"flush\":true}", "flush");
    check_has(r, "flush counts the inputs", "\"inputs\":11", (const char *)NULL);
    yaia_free(r);

    /* replay while recording goes on, then after stop */
    request = fmt("{\"op\":\"replay\",\"journal\":%s}", quoted);
    r = run_ok(rt, request, "replay");
    check_same(r, "{\"identical\":true,\"inputs\":11,\"ok\":true}", "the session replays identically");
    yaia_free(r);

    /* rewind to seq 7: detail on top, title Neun */
    r = run_ok(rt, "{\"op\":\"rewind\",\"to\":7}", "rewind");
    check_has(r, "rewind answers like restore", "\"to\":7", "\"flows\":[1]", (const char *)NULL);
    yaia_free(r);
    char *now = view_model_of(rt, top_of(rt, flow));
    check_same(now, at7, "rewind restores the state after seq 7");
    free(now);
    free(at7);
    r = describe(rt, flow);
    check_stack(r, "login,home,detail", "rewind restores the stack");
    yaia_free(r);
    expect_error(rt, "{\"op\":\"rewind\",\"to\":99}", "bad_request", "rewind beyond the journal");

    r = run_ok(rt, "{\"op\":\"journal\",\"stop\":true}", "stop");
    check_has(r, "stop counts the inputs, the rewind too", "\"inputs\":12", (const char *)NULL);
    yaia_free(r);
    expect_error(rt, "{\"op\":\"rewind\",\"to\":1}", "bad_journal", "rewind needs an active journal");
    r = run_ok(rt, request, "replay after stop");
    check_same(r, "{\"identical\":true,\"inputs\":12,\"ok\":true}", "a journal with a rewind replays identically");
    yaia_free(r);
    free(request);

    /* the file */
    char *text = read_file(path, NULL);
    check_has(text, "the journal's first line", "{\"format\":\"yaia.journal/1\",\"kind\":\"begin\",\"snapshot\":{", (const char *)NULL);
    check_has(text, "journal lines", "\"kind\":\"start\"", "\"kind\":\"outcome\"", "\"kind\":\"popped\"",
              "\"kind\":\"restore\"", "\"seq\":12", (const char *)NULL);
    check_lacks(text, "\"kind\":\"link\"", "a refused link is not journaled");

    /* replay up to a seq answers with the snapshot there */
    request = fmt("{\"op\":\"replay\",\"journal\":%s,\"to\":3}", quoted);
    r = run_ok(rt, request, "replay to 3");
    check_has(r, "replay to 3", "\"identical\":true", "\"inputs\":3", "\"snapshot\":{\"effects\":[]", (const char *)NULL);
    yaia_free(r);
    free(request);

    /* tampered: seq 7's title changes; the divergence is at 7 exactly */
    char *tampered_quoted;
    char *tampered = journal_path("tampered", &tampered_quoted);
    char *neun = text ? strstr(text, "\"Neun\"") : NULL;
    check(neun != NULL, "the journal holds the edited title");
    if (neun) {
        memcpy(neun + 1, "Nein", 4);
        check(write_file(tampered, text), "write the tampered journal");
        request = fmt("{\"op\":\"replay\",\"journal\":%s}", tampered_quoted);
        r = run_ok(rt, request, "replay a tampered journal");
        check_has(r, "the first divergence", "\"identical\":false", "\"inputs\":7", "\"kind\":\"send\"", "\"seq\":7",
                  "\"title\":\"Nein\"", "\"expected\":\"", "\"got\":\"", (const char *)NULL);
        yaia_free(r);
        free(request);
    }
    free(text);
    unlink(tampered);
    free(tampered);
    free(tampered_quoted);

    request = fmt("{\"op\":\"replay\",\"journal\":%s}", tampered_quoted = json_quote("/nonexistent/journal.jsonl"));
    expect_error(rt, request, "bad_journal", "replay of a missing file");
    free(request);
    free(tampered_quoted);
    request = fmt("{\"op\":\"journal\",\"start\":%s}", tampered_quoted = json_quote("/nonexistent/dir/j.jsonl"));
    expect_error(rt, request, "bad_journal", "a journal that cannot be opened");
    free(request);
    free(tampered_quoted);

    yaia_runtime_free(rt);
    unlink(path);
    free(path);
    free(quoted);
}

/* 100,000 inputs from C: recorded, replayed identically. */
static void test_journal_many(void)
{
    section("journal of 100,000 inputs");
    char *quoted;
    char *path = journal_path("many", &quoted);
    char *request = fmt("{\"op\":\"journal\",\"start\":%s}", quoted);
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    yaia_free(run_ok(rt, request, "journal start"));
    free(request);
    char *r = yaia_open(rt, "example/login", NULL);
    long long scene = int_member(r, "scene");
    yaia_free(r);
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        char action[96];
        snprintf(action, sizeof action, "{\"type\":\"emailChanged\",\"payload\":\"user%d@example.com\"}", i);
        r = yaia_send(rt, scene, action);
        bad += !r || !strstr(r, "\"ok\":true");
        yaia_free(r);
    }
    check(bad == 0, "100,000 sends accepted -- %d refused", bad);
    yaia_free(run_ok(rt, "{\"op\":\"journal\",\"stop\":true}", "journal stop"));
    request = fmt("{\"op\":\"replay\",\"journal\":%s}", quoted);
    r = run_ok(rt, request, "replay 100,000");
    check_same(r, "{\"identical\":true,\"inputs\":100001,\"ok\":true}", "100,000 inputs replay identically");
    yaia_free(r);
    free(request);
    yaia_runtime_free(rt);
    unlink(path);
    free(path);
    free(quoted);
}

/* ================================================ 6. inspection */

static void test_inspection(void)
{
    section("inspection");
    yaia_runtime *rt = examples_runtime("{\"inspect\":true}", NULL);
    check(rt != NULL, "a runtime with inspection on");
    if (!rt)
        return;
    char *r = run_ok(rt, "{\"op\":\"start\",\"scene\":\"example/login\"}", "start");
    yaia_free(r);
    send_flow_ok(rt, 1, "{\"type\":\"loginSucceeded\",\"payload\":{\"user\":{}}}", "login");
    const char *kinds[] = {"\"event\":\"action\"", "\"event\":\"route\"", "\"event\":\"flow\""};
    for (int i = 0; i < 3; i++) {
        r = receive(rt, 0, kinds[i]);
        check_has(r, kinds[i], kinds[i], "\"ok\":true", (const char *)NULL);
        if (i == 0)
            check_has(r, "the action event", "\"action\":{\"payload\":{\"user\":{}},\"type\":\"loginSucceeded\"}", "\"scene\":1", "\"seq\":1", (const char *)NULL);
        if (i == 1)
            check_has(r, "the route event", "\"route\":{\"args\":{\"user\":{}},\"push\":\"example/home\"}", (const char *)NULL);
        if (i == 2)
            check_stack(r, "login,home", "the flow event");
        yaia_free(r);
    }
    r = send_flow(rt, 1, "{\"type\":\"load\"}");
    yaia_free(r);
    yaia_free(receive(rt, 0, "the load action"));
    r = receive(rt, 0, "the effect event");
    check_has(r, "the effect event", "\"event\":\"effect\"", "\"request\":{\"args\":{\"prefix\":\"item/\"}", "\"restore\":\"reissue\"", (const char *)NULL);
    yaia_free(r);
    yaia_free(run_ok(rt, "{\"op\":\"inspect\",\"on\":false}", "inspect off"));
    send_flow_ok(rt, 1, "{\"type\":\"logout\"}", "logout");
    r = receive(rt, 0, "nothing");
    check(r == NULL, "no inspection events once off -- got %s", r ? r : "(NULL)");
    yaia_free(r);
    expect_error(rt, "{\"op\":\"inspect\",\"on\":1}", "bad_request", "inspect takes a boolean");
    yaia_runtime_free(rt);
}

/* ================================================================ main */

int main(void)
{
    harness_start();
    tmp_dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

    test_start();
    test_routes();
    test_popped_and_link();
    test_snapshot_restore();
    test_journal();
    test_journal_many();
    test_inspection();

    return harness_finish();
}
