/*
** app.c -- the example app as a flow, driven from C: login, home, detail,
** about, with auth and store served by plugins; a back swipe, a deep link,
** a snapshot restored into a second runtime, the session's journal replayed.
**
**   usage: app PATH_TO_libyaia-examples.so PATH_TO_auth.so PATH_TO_store.so
**
** The scenes come from the examples pack (libyaia.so has none of its own),
** the services from the plugins: the runtime's config names them all.
** This program plays the UI. It sends what a user does to the flow (the top
** scene receives it), renders the stack the runtime answers with, and
** reports what the UI did by itself (a back swipe). Plugins complete their
** calls on threads of their own, so outcomes arrive through yaia_receive().
** Any unexpected answer ends the program with exit status 1.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yaia.h"
#include "peek.h"

static yaia_runtime *rt, *second;
static char tmpdir[] = "/tmp/yaia-app-XXXXXX";
static char journal[64];

static void cleanup(void)
{
    yaia_runtime_free(second);
    yaia_runtime_free(rt);
    second = rt = NULL;
    if (journal[0])
        unlink(journal);
    rmdir(tmpdir);
}

/* Frees what is left and stops: any unexpected answer ends the demo. */
static void die(const char *what, char *response)
{
    fprintf(stderr, "app: unexpected: %s\n", what);
    if (response)
        fprintf(stderr, "  response: %s\n", response);
    yaia_free(response);
    cleanup();
    exit(1);
}

static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s)
        die("out of memory", NULL);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

/* ------------------------------------------------------------ checks and screens
** (peek.h picks members out of the library's answers.) */

/* "example/home" -> home (quotes and prefix dropped), into out. */
static void short_name(const char *quoted, char *out, size_t size)
{
    const char *s = quoted && *quoted == '"' ? quoted + 1 : (quoted ? quoted : "?");
    const char *slash = strchr(s, '/');
    if (slash)
        s = slash + 1;
    size_t n = strcspn(s, "\"");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), s);
}

/* "login > home > [about]" from a response's stack; "" if it has none. */
static char *render_stack(const char *response)
{
    char *stack = member(response, "stack");
    char *out = fmt("%s", "");
    if (!stack)
        return out;
    const char *cursor = stack;
    for (char *entry; (entry = next_element(&cursor)) != NULL; free(entry)) {
        char *scene = member(entry, "scene");
        char *presentation = member(entry, "presentation");
        char name[64];
        short_name(scene, name, sizeof name);
        int presented = presentation && strcmp(presentation, "\"present\"") == 0;
        char *next = fmt("%s%s%s%s%s", out, *out ? " > " : "", presented ? "[" : "", name, presented ? "]" : "");
        free(out);
        out = next;
        free(scene);
        free(presentation);
    }
    free(stack);
    return out;
}

/* Prints one step: what the user or UI did, the flow version, the stack. */
static void step(const char *what, const char *response, const char *note)
{
    char *stack = render_stack(response);
    if (note)
        printf("  %-40s v%-3lld %-26s %s\n", what, int_member(response, "version"), stack, note);
    else
        printf("  %-40s v%-3lld %s\n", what, int_member(response, "version"), stack);
    free(stack);
}

/* Checks the stack of a response against "login > home" style text. */
static void expect_stack(char *response, const char *expected)
{
    char *got = render_stack(response);
    int ok = strcmp(got, expected) == 0;
    free(got);
    if (!ok)
        die(expected, response);
}

/* ------------------------------------------------------------ requests */

static char *expect_ok(char *response, const char *what)
{
    if (!response || !strstr(response, "\"ok\":true") || strstr(response, "\"navigationErrors\""))
        die(what, response);
    return response;
}

static char *execute(yaia_runtime *r, const char *request)
{
    return expect_ok(yaia_execute(r, request), request);
}

static long long flow_id;

/* An action to the top of the flow. */
static char *send(const char *type, const char *payload)
{
    char *request = payload ? fmt("{\"op\":\"send\",\"flow\":%lld,\"action\":{\"type\":\"%s\",\"payload\":%s}}", flow_id, type, payload)
                            : fmt("{\"op\":\"send\",\"flow\":%lld,\"action\":{\"type\":\"%s\"}}", flow_id, type);
    char *r = execute(rt, request);
    free(request);
    return r;
}

static char *describe(void)
{
    char *request = fmt("{\"op\":\"flow\",\"flow\":%lld}", flow_id);
    char *r = execute(rt, request);
    free(request);
    return r;
}

/* The next event, from a plugin's thread. */
static char *await_event(const char *why)
{
    char *event = yaia_receive(rt, 10.0);
    if (!event)
        die(why, NULL);
    if (!strstr(event, "\"event\":\"update\""))
        die(why, event);
    return event;
}

/* item/1="Groceries", ... from home's view model. */
static char *titles(const char *update)
{
    char *vm = member(update, "viewModel");
    char *items = vm ? member(vm, "items") : NULL;
    char *out = fmt("%s", "");
    const char *cursor = items ? items : "[]";
    for (char *item; (item = next_element(&cursor)) != NULL; free(item)) {
        char *key = member(item, "key"), *title = member(item, "title");
        const char *k = key && *key == '"' ? key + 1 : (key ? key : "?");
        char *next = fmt("%s%s%.*s=%s", out, *out ? ", " : "", (int)strcspn(k, "\""), k, title ? title : "?");
        free(out);
        out = next;
        free(key);
        free(title);
    }
    free(items);
    free(vm);
    return out;
}

/* ------------------------------------------------------------ the walk */

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s PATH_TO_libyaia-examples.so PATH_TO_auth.so PATH_TO_store.so\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!mkdtemp(tmpdir))
        die("cannot make a temporary folder", NULL);
    snprintf(journal, sizeof journal, "%s/session.jsonl", tmpdir);

    char *pack = quote(argv[1]), *auth = quote(argv[2]), *store = quote(argv[3]);
    /* This program is the host: it grants its own requests the ops it uses,
    ** and files in its temporary folder. */
    char *folder = quote(tmpdir);
    char *config = fmt("{\"scenes\":[%s],\"plugins\":[%s,%s],\"allow\":{\"ops\":[\"perform\",\"journal\",\"replay\","
                       "\"snapshot\",\"restore\"],\"files\":[%s]}}", pack, auth, store, folder);
    free(folder);
    char *error = NULL;
    rt = yaia_runtime_new(config, &error);
    if (!rt)
        die("cannot create the runtime", error);
    printf("yaia %s (C ABI %d), scenes from %s, plugins %s and %s\n\n", yaia_version(), yaia_abi_version(), argv[1],
           argv[2], argv[3]);
    printf("the example app as a flow (stack after each step; [x] = presented)\n");

    static const char *seed[][2] = {{"item/1", "Groceries"}, {"item/2", "Call the bank"}, {"item/3", "Read SICP"}};
    for (size_t i = 0; i < sizeof seed / sizeof seed[0]; i++) {
        char *put = fmt("{\"op\":\"perform\",\"effect\":{\"service\":\"store\",\"op\":\"put\","
                        "\"args\":{\"key\":\"%s\",\"value\":{\"title\":\"%s\"}}}}", seed[i][0], seed[i][1]);
        yaia_free(execute(rt, put));
        free(put);
    }
    printf("  store seeded with 3 items (perform store.put)\n");
    char *jq = quote(journal);
    char *request = fmt("{\"op\":\"journal\",\"start\":%s}", jq);
    yaia_free(execute(rt, request));
    free(request);
    printf("  journal -> %s\n", journal);

    /* login: a wrong password, then the right one */
    char *r = execute(rt, "{\"op\":\"start\",\"flow\":\"main\",\"scene\":\"example/login\"}");
    flow_id = int_member(r, "flow");
    step("start example/login", r, NULL);
    yaia_free(r);
    yaia_free(send("emailChanged", "\"ada@example.com\""));
    yaia_free(send("passwordChanged", "\"letmein\""));
    yaia_free(send("submit", NULL));
    r = await_event("no answer from the auth plugin");
    if (!strstr(r, "\"error\":\"Wrong email or password\"") || strstr(r, "\"stack\""))
        die("the wrong password should be refused", r);
    yaia_free(r);
    r = describe();
    step("submit 'letmein' (auth)", r, "error: Wrong email or password");
    yaia_free(r);
    yaia_free(send("passwordChanged", "\"hunter2\""));
    yaia_free(send("submit", NULL));
    r = await_event("no answer from the auth plugin");
    expect_stack(r, "login > home");
    step("submit 'hunter2' (auth) -> push", r, NULL);
    yaia_free(r);

    /* home: load from the store */
    yaia_free(send("load", NULL));
    r = await_event("no answer from the store plugin");
    char *t = titles(r);
    if (strcmp(t, "item/1=\"Groceries\", item/2=\"Call the bank\", item/3=\"Read SICP\"") != 0)
        die("home should list the seeded items", r);
    yaia_free(r);
    r = describe();
    step("home: load (store.list)", r, t);
    free(t);
    yaia_free(r);

    /* detail: edit, save, pop with a result */
    r = send("select", "\"item/2\"");
    expect_stack(r, "login > home > detail");
    if (!strstr(r, "\"onResult\":\"itemSaved\""))
        die("detail should be pushed with onResult itemSaved", r);
    step("home: select item/2 -> push", r, "onResult itemSaved");
    yaia_free(r);
    r = send("titleChanged", "\"Call the bank (done)\"");
    long long detail = int_member(r, "scene");
    yaia_free(r);
    r = describe();
    step("detail: titleChanged", r, "title 'Call the bank (done)'");
    yaia_free(r);
    yaia_free(send("save", NULL));
    char *events[2] = {await_event("no answer from the store plugin"), await_event("no second event")};
    char *result = NULL, *saved = NULL;
    for (int i = 0; i < 2; i++) {
        if (int_member(events[i], "from") == detail)
            result = events[i];
        else if (int_member(events[i], "scene") == detail)
            saved = events[i];
    }
    if (!result || !saved)
        die("save should deliver the result to home (\"from\") and pop detail", events[0]);
    expect_stack(saved, "login > home");
    char *note = fmt("home got itemSaved from #%lld", detail);
    step("detail: save (store.put) -> pop", saved, note);
    free(note);
    t = titles(result);
    if (!strstr(t, "item/2=\"Call the bank (done)\""))
        die("home should show the new title", result);
    printf("  %-40s      home: %s\n", "", t);
    free(t);
    yaia_free(events[0]);
    yaia_free(events[1]);

    /* about: present, dismiss */
    r = send("showAbout", NULL);
    expect_stack(r, "login > home > [about]");
    step("home: showAbout -> present", r, NULL);
    yaia_free(r);
    r = send("close", NULL);
    expect_stack(r, "login > home");
    step("about: close -> dismiss", r, NULL);
    yaia_free(r);

    /* a back swipe: the UI popped detail by itself and reports it */
    r = send("select", "\"item/1\"");
    long long version = int_member(r, "version");
    step("home: select item/1 -> push", r, NULL);
    yaia_free(r);
    request = fmt("{\"op\":\"popped\",\"flow\":%lld,\"depth\":2,\"version\":%lld}", flow_id, version);
    r = execute(rt, request);
    expect_stack(r, "login > home");
    char *caption = fmt("UI back swipe: popped depth 2 (v%lld)", version);
    step(caption, r, NULL);
    free(caption);
    yaia_free(r);
    r = yaia_execute(rt, request);
    if (!strstr(r, "\"code\":\"stale_navigation\""))
        die("a back swipe reported twice should be refused", r);
    printf("  %-40s -> stale_navigation\n", "same report again");
    yaia_free(r);
    free(request);

    /* a deep link */
    request = fmt("{\"op\":\"link\",\"flow\":%lld,\"path\":[\"example/home\",{\"scene\":\"example/detail\","
                  "\"args\":{\"key\":\"item/3\",\"title\":\"Read SICP\"},\"presentation\":\"present\"}]}", flow_id);
    r = execute(rt, request);
    free(request);
    expect_stack(r, "login > home > [detail]");
    step("deep link home/[detail item/3]", r, NULL);
    yaia_free(r);

    /* snapshot, restored into a second runtime: view models byte for byte */
    r = execute(rt, "{\"op\":\"snapshot\"}");
    char *snapshot = member(r, "snapshot");
    yaia_free(r);
    second = yaia_runtime_new(config, &error);
    if (!second)
        die("cannot create the second runtime", error);
    request = fmt("{\"op\":\"restore\",\"snapshot\":%s}", snapshot);
    char *restored = execute(second, request);
    free(request);
    free(snapshot);
    char *scenes = member(restored, "scenes");
    const char *cursor = scenes ? scenes : "[]";
    int compared = 0;
    for (char *scene; (scene = next_element(&cursor)) != NULL; free(scene)) {
        long long id = int_member(scene, "id");
        char *theirs = member(scene, "viewModel");
        request = fmt("{\"op\":\"state\",\"scene\":%lld}", id);
        char *state = execute(rt, request);
        free(request);
        char *ours = member(state, "viewModel");
        if (!ours || !theirs || strcmp(ours, theirs) != 0) {
            fprintf(stderr, "scene %lld: %s\n      vs %s\n", id, ours ? ours : "(none)", theirs ? theirs : "(none)");
            die("a view model differs after restore", state);
        }
        compared++;
        free(ours);
        free(theirs);
        yaia_free(state);
    }
    free(scenes);
    yaia_free(restored);
    if (compared != 3)
        die("the restored runtime should have 3 scenes", NULL);
    request = fmt("{\"op\":\"flow\",\"flow\":%lld}", flow_id);
    r = execute(second, request);
    char *ours = describe();
    char *a = member(r, "stack"), *b = member(ours, "stack");
    if (!a || !b || strcmp(a, b) != 0)
        die("the restored stack differs", r);
    free(a);
    free(b);
    yaia_free(ours);
    step("snapshot -> second runtime (3 scenes)", r, "view models identical, byte for byte");
    yaia_free(r);
    free(request);
    yaia_runtime_free(second);
    second = NULL;

    /* back to the root, then replay the journal */
    yaia_free(send("cancel", NULL));
    r = send("logout", NULL);
    expect_stack(r, "login");
    step("detail: cancel; home: logout", r, "popToRoot");
    yaia_free(r);
    request = fmt("{\"op\":\"close\",\"flow\":%lld}", flow_id);
    yaia_free(execute(rt, request));
    free(request);
    r = execute(rt, "{\"op\":\"journal\",\"stop\":true}");
    long long inputs = int_member(r, "inputs");
    yaia_free(r);
    printf("  journal: %lld inputs\n", inputs);
    request = fmt("{\"op\":\"replay\",\"journal\":%s}", jq);
    r = execute(rt, request);
    free(request);
    if (!strstr(r, "\"identical\":true") || int_member(r, "inputs") != inputs)
        die("the journal should replay identically", r);
    printf("  replay without services: %s\n", r);
    yaia_free(r);

    if ((r = yaia_receive(rt, 0)) != NULL)
        die("an event nobody expected", r);
    free(jq);
    free(pack);
    free(auth);
    free(store);
    free(config);
    cleanup();
    printf("\ndone.\n");
    return 0;
}
