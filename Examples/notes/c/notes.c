/*
** notes.c -- the notes app driven from C: log in, create a note, rename it
** in its row, edit it, list, delete it from its row, log out. Auth and store are served by the example plugins,
** the store on a SQLite file in a temporary folder.
**
**   usage: notes SCENES PATH_TO_auth.so PATH_TO_store.so
**
** SCENES is what the runtime loads the notes scenes from (its config's
** "scenes" entry): the scene pack, Examples/notes/.build/release/libnotes.so
** (the Swift scenes), or the folder of scene documents,
** Examples/notes-documents (the same scenes as JSON). Both behave the same.
**
** This program plays the UI: it sends what a user does to the flow (the
** scene on top receives it) and prints the screen the top scene's view
** model describes. Plugins answer on threads of their own, so effect
** outcomes arrive through yaia_receive(). Any unexpected answer ends the
** program with exit status 1.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yaia.h"
#include "../../c/peek.h"

static yaia_runtime *rt;
static long long flow_id;
static long long list_id; /* the notes/list scene: its rows are sent to by path */
static char tmpdir[] = "/tmp/yaia-notes-XXXXXX";
static char db[64];

static void cleanup(void)
{
    yaia_runtime_free(rt);
    rt = NULL;
    if (db[0]) {
        /* SQLite's WAL files go with the database. */
        char path[80];
        unlink(db);
        snprintf(path, sizeof path, "%s-wal", db);
        unlink(path);
        snprintf(path, sizeof path, "%s-shm", db);
        unlink(path);
        rmdir(tmpdir);
    }
}

static void die(const char *what, char *response)
{
    fprintf(stderr, "notes: unexpected: %s\n", what);
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
** (Examples/c/peek.h picks members out of the library's answers.) */

/* Fails unless `json` contains `needle` (canonical text makes that exact). */
static void expect_has(char *json, const char *needle, const char *what)
{
    if (!json || !strstr(json, needle))
        die(what, json);
}

/* ------------------------------------------------------------ the screen */

/* "login > list > editor" from a stack; the top entry into *top. */
static char *render_stack(const char *stack, char **top)
{
    char *out = fmt("%s", "");
    *top = NULL;
    const char *cursor = stack ? stack : "[]";
    for (char *entry; (entry = next_element(&cursor)) != NULL;) {
        char *scene = member(entry, "scene");
        const char *name = scene && strchr(scene, '/') ? strchr(scene, '/') + 1 : "?";
        char *next = fmt("%s%s%.*s", out, *out ? " > " : "", (int)strcspn(name, "\""), name);
        free(out);
        out = next;
        free(scene);
        free(*top);
        *top = entry;
    }
    return out;
}

/* Prints a view model member (its JSON text) under a label, unless it is null. */
static void line(const char *vm, const char *key, const char *label)
{
    char *v = member(vm, key);
    if (v && strcmp(v, "null") != 0)
        printf("        %-10s %s\n", label, v);
    free(v);
}

/* What a UI shows for the top scene, from its view model. */
static void render(const char *entry)
{
    char *scene = member(entry, "scene"), *vm = member(entry, "viewModel");
    if (scene && strcmp(scene, "\"notes/login\"") == 0) {
        line(vm, "email", "email");
        line(vm, "emailError", "!");
        line(vm, "canSubmit", "canSubmit");
    } else if (scene && strcmp(scene, "\"notes/list\"") == 0) {
        line(vm, "user", "user");
        /* The rows are the children's view models; "shown" lists the ids the search shows. */
        char *rows = member(vm, "rows"), *shown = member(vm, "shown");
        const char *cursor = rows ? rows : "[]";
        for (char *row; (row = next_element(&cursor)) != NULL; free(row)) {
            char *id = member(row, "id"), *title = member(row, "title"), *preview = member(row, "preview");
            char *draft = member(row, "draft"), *confirming = member(row, "confirming");
            char *needle = fmt(",%s,", id ? id : "?"), *ids = fmt(",%.*s,", shown ? (int)strlen(shown) - 2 : 0, shown ? shown + 1 : "");
            if (strstr(ids, needle))
                printf("        #%-9s %s  %s%s%s\n", id ? id : "?", draft && strcmp(draft, "null") != 0 ? draft : title ? title : "?",
                       preview ? preview : "", draft && strcmp(draft, "null") != 0 ? "  (renaming)" : "",
                       confirming && strcmp(confirming, "true") == 0 ? "  delete?" : "");
            free(needle);
            free(ids);
            free(id);
            free(title);
            free(preview);
            free(draft);
            free(confirming);
        }
        free(rows);
        free(shown);
        line(vm, "placeholder", "");
    } else {
        line(vm, "heading", "heading");
        line(vm, "title", "title");
        line(vm, "titleError", "!");
        line(vm, "body", "body");
        line(vm, "canSave", "canSave");
    }
    line(vm, "error", "error");
    free(scene);
    free(vm);
}

/* Prints one step: what the user did, the stack, the top scene's screen. */
static void show(const char *what, const char *note)
{
    char *request = fmt("{\"op\":\"flow\",\"flow\":%lld}", flow_id);
    char *r = yaia_execute(rt, request);
    free(request);
    expect_has(r, "\"ok\":true", "the flow should be there");
    char *stack = member(r, "stack"), *top = NULL;
    char *rendered = render_stack(stack, &top);
    printf("  %-38s %s%s%s\n", what, rendered, note ? "   " : "", note ? note : "");
    if (top)
        render(top);
    free(rendered);
    free(top);
    free(stack);
    yaia_free(r);
}

/* ------------------------------------------------------------ requests */

static char *execute(const char *request)
{
    char *r = yaia_execute(rt, request);
    if (!r || !strstr(r, "\"ok\":true") || strstr(r, "\"navigationErrors\""))
        die(request, r);
    return r;
}

/* An action to the scene on top of the flow; payload is JSON text or NULL. */
static char *send(const char *type, const char *payload)
{
    char *request = payload ? fmt("{\"op\":\"send\",\"flow\":%lld,\"action\":{\"type\":\"%s\",\"payload\":%s}}", flow_id, type, payload)
                            : fmt("{\"op\":\"send\",\"flow\":%lld,\"action\":{\"type\":\"%s\"}}", flow_id, type);
    char *r = execute(request);
    free(request);
    return r;
}

/* An action to the row of note `note`, a child scene of the list, by its
** path from the list: ["rows", ID]. */
static char *send_row(long long note, const char *type, const char *payload)
{
    char *request = payload ? fmt("{\"op\":\"send\",\"scene\":%lld,\"path\":[\"rows\",%lld],\"action\":{\"type\":\"%s\",\"payload\":%s}}",
                                  list_id, note, type, payload)
                            : fmt("{\"op\":\"send\",\"scene\":%lld,\"path\":[\"rows\",%lld],\"action\":{\"type\":\"%s\"}}", list_id, note, type);
    char *r = execute(request);
    free(request);
    return r;
}

/* The next event: an effect's outcome, reduced. */
static char *await_update(const char *why)
{
    char *event = yaia_receive(rt, 10.0);
    if (!event)
        die(why, NULL);
    expect_has(event, "\"event\":\"update\"", why);
    return event;
}

/* An editor's write ends in two events: the editor's own update, whose pop
** changes the flow, and the list's, which received the result ("from" the
** editor). Their order is not fixed; returns the list's, checks the pop. */
static char *await_pop(const char *why)
{
    char *a = await_update(why), *b = await_update(why);
    char *result = int_member(a, "from") > 0 ? a : b, *popped = result == a ? b : a;
    if (int_member(result, "from") != int_member(popped, "scene"))
        die("the list should get the editor's result", result);
    expect_has(popped, "\"stack\":", "the editor should pop");
    yaia_free(popped);
    return result;
}

/* The next `count` events, whose order is not fixed, as one text: a row's
** update and the list's, which heard the row's output ("from" the row), or
** a row's new args ("from" the list). The checks look for what they need in it. */
static char *await_all(int count, const char *why)
{
    char *all = fmt("%s", "");
    for (int i = 0; i < count; i++) {
        char *event = await_update(why), *next = fmt("%s%s\n", all, event);
        yaia_free(event);
        free(all);
        all = next;
    }
    return all;
}

/* The list's view model now, as the runtime composes it with its rows'. */
static char *list_view(void)
{
    char *request = fmt("{\"op\":\"state\",\"scene\":%lld}", list_id);
    char *r = execute(request);
    free(request);
    return r;
}

/* ------------------------------------------------------------ the walk */

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s SCENES PATH_TO_auth.so PATH_TO_store.so\n"
                        "  SCENES: libnotes.so, or a folder of the notes scene documents\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!mkdtemp(tmpdir))
        die("cannot make a temporary folder", NULL);
    snprintf(db, sizeof db, "%s/notes.db", tmpdir);

    char *scenes = quote(argv[1]), *auth = quote(argv[2]), *store = quote(argv[3]), *file = quote(db);
    char *config = fmt("{\"scenes\":[%s],\"plugins\":[%s,{\"path\":%s,\"config\":{\"path\":%s}}]}", scenes, auth, store, file);
    free(scenes);
    free(auth);
    free(store);
    free(file);
    char *error = NULL;
    rt = yaia_runtime_new(config, &error);
    free(config);
    if (!rt)
        die("cannot create the runtime", error);
    printf("yaia %s; scenes from %s; store at %s\n\n", yaia_version(), argv[1], db);

    /* login: a wrong password, then the right one */
    char *r = execute("{\"op\":\"start\",\"flow\":\"notes\",\"scene\":\"notes/login\"}");
    flow_id = int_member(r, "flow");
    yaia_free(r);
    show("start notes/login", NULL);

    yaia_free(send("submit", NULL));
    show("submit (empty form)", NULL);
    yaia_free(send("emailChanged", "\"ada@example.com\""));
    yaia_free(send("passwordChanged", "\"letmein\""));
    r = send("submit", NULL);
    expect_has(r, "\"service\":\"auth\"", "submit should call auth.login");
    yaia_free(r);
    r = await_update("no answer from the auth plugin");
    expect_has(r, "\"error\":\"Login failed: Wrong email or password\"", "the wrong password should be refused");
    yaia_free(r);
    show("submit, password 'letmein' (auth)", NULL);

    yaia_free(send("passwordChanged", "\"hunter2\""));
    yaia_free(send("submit", NULL));
    r = await_update("no answer from the auth plugin");
    expect_has(r, "\"push\":\"notes/list\"", "a login should push the list");
    char *stack = member(r, "stack");
    const char *cursor = stack ? stack : "[]";
    for (char *entry; (entry = next_element(&cursor)) != NULL; free(entry))
        if (strstr(entry, "\"scene\":\"notes/list\""))
            list_id = int_member(entry, "id");
    free(stack);
    if (list_id <= 0)
        die("the stack should hold the list", r);
    yaia_free(r);

    /* list: the UI asks for the notes when the list appears */
    yaia_free(send("load", NULL));
    r = await_update("no answer from the store plugin");
    expect_has(r, "\"placeholder\":\"No notes yet\"", "a new store should have no notes");
    yaia_free(r);
    show("submit, password 'hunter2' -> list", "(load: store.list)");

    /* a new note: the title is required */
    r = send("newNote", NULL);
    expect_has(r, "\"push\":\"notes/editor\"", "newNote should push the editor");
    yaia_free(r);
    show("list: newNote -> editor", NULL);
    r = send("save", NULL);
    expect_has(r, "\"error\":\"A title is required\"", "an empty title should not be saved");
    yaia_free(r);
    show("editor: save (no title)", NULL);
    yaia_free(send("titleChanged", "\"Groceries\""));
    yaia_free(send("bodyChanged", "\"Milk\\nEggs\\nBread\""));
    show("editor: type a title and a body", NULL);
    r = send("save", NULL);
    expect_has(r, "\"op\":\"put\"", "save should call store.put");
    yaia_free(r);
    r = await_pop("no answer from the store plugin");
    expect_has(r, "\"shown\":[1]", "the list should show the new note");
    expect_has(r, "\"id\":1,\"isDeleting\":false,\"isSaving\":false,\"preview\":\"Milk\",\"title\":\"Groceries\",", "its row should show it");
    yaia_free(r);
    show("editor: save (store.put) -> pop", "list got {\"saved\": note 1}");

    /* rename it in its row: the row writes it, then tells the list */
    yaia_free(send_row(1, "startRename", NULL));
    yaia_free(send_row(1, "draftChanged", "\"  \""));
    r = send_row(1, "commitRename", NULL);
    expect_has(r, "\"error\":\"A title is required\"", "an empty title should not be saved");
    yaia_free(r);
    yaia_free(send_row(1, "draftChanged", "\"Groceries for Sunday\""));
    show("row 1: rename, type a title", NULL);
    r = send_row(1, "commitRename", NULL);
    expect_has(r, "\"op\":\"put\"", "commitRename should call store.put");
    yaia_free(r);
    /* The row's update (store.put's answer), the list's (it heard the row's
    ** renamed) and the row's again (its args, the note as the list now holds it). */
    char *events = await_all(3, "no answer from the store plugin");
    expect_has(events, "\"path\":[\"rows\",1]", "the row should get store.put's answer");
    expect_has(events, "\"from\":", "the list should hear the row");
    free(events);
    r = list_view();
    expect_has(r, "\"title\":\"Groceries for Sunday\"", "the list should show the new title");
    yaia_free(r);
    show("row 1: commitRename (store.put)", "list got the row's renamed");

    /* open it from its row and edit the body */
    yaia_free(send_row(1, "open", NULL));
    r = await_update("the list should hear the row");
    expect_has(r, "\"push\":\"notes/editor\"", "the row's open should push the editor");
    yaia_free(r);
    yaia_free(send("bodyChanged", "\"Milk, eggs and bread\""));
    show("row 1: open -> editor; edit the body", NULL);
    yaia_free(send("save", NULL));
    /* The editor's pop, the list's update with its result, and the row's new
    ** args: the saved note, "from" the list. */
    events = await_all(3, "no answer from the store plugin");
    expect_has(events, "\"stack\":", "the editor should pop");
    expect_has(events, "\"path\":[\"rows\",1]", "the row should get its new args");
    expect_has(events, "\"preview\":\"Milk, eggs and bread\"", "the row should show the new body");
    free(events);
    show("editor: save (store.put) -> pop", "list got {\"saved\": note 1}; row 1 its note");

    /* what the store holds now */
    yaia_free(send("load", NULL));
    r = await_update("no answer from the store plugin");
    expect_has(r, "\"title\":\"Groceries for Sunday\"", "the store should hold the renamed note");
    yaia_free(r);
    show("list: load (store.list)", NULL);

    /* delete it from its row, after a confirmation */
    r = send_row(1, "confirmDelete", NULL);
    expect_has(r, "\"effects\":[]", "no delete before the row asks");
    yaia_free(r);
    r = send_row(1, "askDelete", NULL);
    expect_has(r, "\"confirming\":true", "the row should ask first");
    yaia_free(r);
    show("row 1: askDelete", NULL);
    r = send_row(1, "confirmDelete", NULL);
    expect_has(r, "\"op\":\"delete\"", "confirmDelete should call store.delete");
    yaia_free(r);
    events = await_all(2, "no answer from the store plugin");
    expect_has(events, "\"rows\":[]", "the list should be empty again");
    free(events);
    show("row 1: confirmDelete (store.delete)", "list got the row's deleted");
    yaia_free(send("load", NULL));
    r = await_update("no answer from the store plugin");
    expect_has(r, "\"placeholder\":\"No notes yet\"", "the store should have no notes left");
    yaia_free(r);
    show("list: load (store.list)", NULL);

    /* log out */
    r = send("logout", NULL);
    expect_has(r, "\"popToRoot\":true", "logout should go back to the login");
    yaia_free(r);
    show("list: logout", NULL);

    if ((r = yaia_receive(rt, 0)) != NULL)
        die("an event nobody expected", r);
    char *request = fmt("{\"op\":\"close\",\"flow\":%lld}", flow_id);
    yaia_free(execute(request));
    free(request);
    cleanup();
    printf("\ndone.\n");
    return 0;
}
