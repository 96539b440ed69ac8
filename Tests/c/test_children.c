/*
** test_children.c -- child scenes of pack scenes through the C ABI only, as
** a C host would (docs/composition.md): a C pack's scene whose slots and
** children cross yaia_scene.h (Tests/packs/board.c), and example/rows of the
** examples pack, a Swift pack. Opening, sending by path, outputs, a parent's
** child commands and intercept, closing, a snapshot restored, children()
** answering "the same" (and a pack that always writes), and the broken
** packs refused with their codes.
**
** Prints one line per failed check and ends with "N passed, N failed".
** Exit status 1 when anything failed.
**
** Environment (the Makefile exports them):
**   YAIA_LIBRARY          libyaia.so       (.build/release/libyaia.so)
**   YAIA_EXAMPLES_PACK    the example scenes (.build/release/libyaia-examples.so)
**   YAIA_TEST_PACK_DIR    the test packs (.build/yaia/test-packs)
**   YAIA_TEST_TIMEOUT     seconds a section may take before it counts as hung (120)
*/
#define _POSIX_C_SOURCE 200809L

#include "harness.h"

/* A runtime with the test pack NAME.so, or NULL with its error in *error. */
static yaia_runtime *pack_runtime(const char *name, char **error)
{
    char *path = plugin_path(env_or("YAIA_TEST_PACK_DIR", ".build/yaia/test-packs"), name);
    char *config = fmt("{\"scenes\":[%s]," ALLOW_ALL "}", path);
    yaia_runtime *rt = yaia_runtime_new(config, error);
    free(path);
    free(config);
    return rt;
}

static char *run(yaia_runtime *rt, const char *request)
{
    set_current("%s", request);
    return yaia_execute(rt, request);
}

/* Runs a request and checks that it succeeds holding every needle. */
#define EXPECT(rt, request, name, ...) expect_ok(rt, request, name, __VA_ARGS__, (const char *)NULL)

/* The id of the scene a request's answer is the update of; -1 when none. */
static long long scene_of(yaia_runtime *rt, const char *request, const char *name, const char *needle)
{
    char *r = run(rt, request);
    check_has(r, name, "\"ok\":true", needle, (const char *)NULL);
    long long id = int_of(r, "scene");
    yaia_free(r);
    return id;
}

/* `pack`: board, which answers "the same" while its keys stay, or
** board_always_writes, which writes them every time. */
static void test_a_c_pack_scene_with_children(const char *pack)
{
    char *title = fmt("a C pack's scene with children (%s)", pack);
    section(title);
    free(title);
    char *error = NULL;
    yaia_runtime *rt = pack_runtime(pack, &error);
    if (!check(rt != NULL, "a runtime with %s.so -- %s", pack, error ? error : "")) {
        yaia_free(error);
        return;
    }
    long long board = scene_of(rt, "{\"op\":\"open\",\"scene\":\"test/board\"}", "the board opens with its one child",
                               "\"viewModel\":{\"cells\":[],\"full\":0,\"header\":{\"hits\":0,\"id\":0},\"intercepted\":0,\"last\":null}");
    char *r;
    char *q;

    /* Children come and go with the parent's state. */
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"add\",\"payload\":7}}", board);
    EXPECT(rt, q, "a cell opens when the board's state wants it", "\"cells\":[{\"hits\":0,\"id\":7}]");
    free(q);
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"add\",\"payload\":9}}", board);
    EXPECT(rt, q, "cells in the state's order", "\"cells\":[{\"hits\":0,\"id\":7},{\"hits\":0,\"id\":9}]");
    free(q);

    /* Sending by path; the third hit says an output, which reaches the board. */
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"path\":[\"cells\",7],\"action\":{\"type\":\"hit\"}}", board);
    long long seven = scene_of(rt, q, "a send by path answers the child's update", "\"path\":[\"cells\",7]");
    check(seven > board, "the cell is a scene of its own (%lld)", seven);
    char *top = fmt("\"top\":%lld", board);
    EXPECT(rt, q, "the child's view model and its place", "\"viewModel\":{\"hits\":2,\"id\":7}", top);
    free(top);
    EXPECT(rt, q, "the third hit", "\"viewModel\":{\"hits\":3,\"id\":7}");
    free(q);
    q = fmt("{\"op\":\"state\",\"scene\":%lld}", board);
    EXPECT(rt, q, "the output arrived as the board's cellFull", "\"full\":1", "\"last\":7", "\"cells\":[{\"hits\":3,\"id\":7},{\"hits\":0,\"id\":9}]");
    free(q);
    r = yaia_receive(rt, 0);
    check_has(r, "the board's update of the output is an event from the cell", "\"event\":\"update\"", "\"full\":1", (const char *)NULL);
    char *from = fmt("\"from\":%lld", seven);
    check_has(r, "the event says where it came from", from, (const char *)NULL);
    free(from);
    yaia_free(r);

    /* A parent's child command. */
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"poke\",\"payload\":9}}", board);
    EXPECT(rt, q, "the board pokes cell 9", "\"scene\":");
    free(q);
    q = fmt("{\"op\":\"state\",\"scene\":%lld}", board);
    EXPECT(rt, q, "cell 9 was hit by the board's command", "{\"hits\":1,\"id\":9}");
    free(q);

    /* The header's slot intercepts: the board decides what the header gets. */
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"path\":[\"header\"],\"action\":{\"type\":\"nonsense\"}}", board);
    char *answer = fmt("\"scene\":%lld", board);
    EXPECT(rt, q, "an intercepted send answers the board's update", answer, "\"intercepted\":1");
    free(answer);
    free(q);
    q = fmt("{\"op\":\"state\",\"scene\":%lld}", board);
    EXPECT(rt, q, "the header got the board's hit in place of the action", "\"header\":{\"hits\":1,\"id\":0}");
    free(q);

    /* Refusals. */
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"path\":[\"cells\",5],\"action\":{\"type\":\"hit\"}}", board);
    expect_error(rt, q, "no_such_child", "a path to no child");
    free(q);
    q = fmt("{\"op\":\"close\",\"scene\":%lld}", seven);
    expect_error(rt, q, "scene_is_child", "a child is closed by its parent's state only");
    free(q);

    /* A snapshot restores the board and its children, the same bytes again. */
    char *snapshot = run(rt, "{\"op\":\"snapshot\"}");
    char *snap = raw_of(snapshot, "snapshot");
    if (check(snap != NULL, "a snapshot -- %s", snapshot ? snapshot : "(NULL)")) {
        char *error2 = NULL;
        yaia_runtime *other = pack_runtime(pack, &error2);
        check(other != NULL, "a second runtime -- %s", error2 ? error2 : "");
        yaia_free(error2);
        if (other) {
            q = fmt("{\"op\":\"restore\",\"snapshot\":%s}", snap);
            EXPECT(other, q, "the snapshot restores", "\"ok\":true");
            free(q);
            char *again = run(other, "{\"op\":\"snapshot\"}");
            char *snap2 = raw_of(again, "snapshot");
            check(snap2 && strcmp(snap, snap2) == 0, "the restored runtime's snapshot is the same bytes -- %s -- %s", snap,
                  snap2 ? snap2 : "(NULL)");
            free(snap2);
            yaia_free(again);
            yaia_runtime_free(other);
        }
    }
    free(snap);
    yaia_free(snapshot);

    /* A child goes with its parent's state, then all go with the parent. */
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"remove\",\"payload\":7}}", board);
    EXPECT(rt, q, "cell 7 is gone from the board's view model", "\"cells\":[{\"hits\":1,\"id\":9}]");
    free(q);
    q = fmt("{\"op\":\"state\",\"scene\":%lld}", seven);
    expect_error(rt, q, "no_such_scene", "cell 7 closed with its place in the state");
    free(q);
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"path\":[\"cells\",9],\"action\":{\"type\":\"hit\"}}", board);
    long long nine = scene_of(rt, q, "cell 9 is kept", "\"viewModel\":{\"hits\":2,\"id\":9}");
    free(q);
    q = fmt("{\"op\":\"close\",\"scene\":%lld}", board);
    EXPECT(rt, q, "the board closes", "\"closed\":true");
    free(q);
    q = fmt("{\"op\":\"state\",\"scene\":%lld}", nine);
    expect_error(rt, q, "no_such_scene", "its children closed with it");
    free(q);
    EXPECT(rt, "{\"op\":\"scenes\"}", "no scene is left", "\"scenes\":[]");
    yaia_runtime_free(rt);
}

static void test_rows_of_the_examples_pack(void)
{
    section("example/rows, a Swift pack's scene with children");
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    if (!check(rt != NULL, "a runtime with the examples pack"))
        return;
    long long rows = open_scene(rt, "example/rows", "example/rows opens");
    char *q = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"add\",\"payload\":{\"id\":4,\"title\":\"Butter\"}}}", rows);
    EXPECT(rt, q, "a row opens for the item", "\"id\":4,\"pinned\":false,\"saving\":false,\"title\":\"Butter\"}]");
    free(q);
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"path\":[\"rows\",4],\"action\":{\"type\":\"open\"}}", rows);
    EXPECT(rt, q, "a send to the row by its path", "\"path\":[\"rows\",4]");
    free(q);
    q = fmt("{\"op\":\"state\",\"scene\":%lld}", rows);
    EXPECT(rt, q, "the row's output reached the list", "\"opened\":4");
    free(q);
    q = fmt("{\"op\":\"send\",\"scene\":%lld,\"action\":{\"type\":\"remove\",\"payload\":4}}", rows);
    char *r = run(rt, q);
    check_has(r, "the list removes the item", "\"ok\":true", (const char *)NULL);
    check_lacks(r, "Butter", "the row goes with its item");
    yaia_free(r);
    free(q);
    yaia_runtime_free(rt);
}

/* "The same" is the list of the pack's last answer, which the runtime keeps:
** a pack that says so wrongly keeps its old children, and one that says so
** before any answer is refused. */
static void test_same_children(void)
{
    section("children() answering \"the same\"");
    char *error = NULL;
    yaia_runtime *rt = pack_runtime("board_same_stale", &error);
    if (check(rt != NULL, "board_same_stale loads -- %s", error ? error : "")) {
        EXPECT(rt, "{\"op\":\"open\",\"scene\":\"test/board\"}", "its first answer is written", "\"header\":{\"hits\":0,\"id\":0}");
        char *r = run(rt, "{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"add\",\"payload\":7}}");
        check_has(r, "\"the same\" keeps the children of the last answer", "\"ok\":true", "\"cells\":[]", "\"header\":{\"hits\":0,\"id\":0}",
                  (const char *)NULL);
        check_lacks(r, "childErrors", "\"the same\" after an answer is no error");
        yaia_free(r);
        EXPECT(rt, "{\"op\":\"send\",\"scene\":1,\"path\":[\"header\"],\"action\":{\"type\":\"hit\"}}", "the kept header is there",
               "\"intercepted\":1");
        expect_error(rt, "{\"op\":\"send\",\"scene\":1,\"path\":[\"cells\",7],\"action\":{\"type\":\"hit\"}}", "no_such_child",
                     "no cell opened on \"the same\"");
    }
    yaia_free(error);
    yaia_runtime_free(rt);

    error = NULL;
    rt = pack_runtime("board_same_first", &error);
    if (check(rt != NULL, "board_same_first loads -- %s", error ? error : "")) {
        char *r = run(rt, "{\"op\":\"open\",\"scene\":\"test/board\"}");
        check_has(r, "\"the same\" before any answer is reported, and the scene opens", "\"ok\":true", "\"childErrors\":[",
                  "\"code\":\"scene_pack_error\"", (const char *)NULL);
        yaia_free(r);
    }
    yaia_free(error);
    yaia_runtime_free(rt);
}

static void test_broken_packs(void)
{
    section("packs with broken children");
    char *error = NULL;
    yaia_runtime *rt = pack_runtime("board_bad_slots", &error);
    check(rt == NULL, "slots with problems fail the load");
    check_error(error, "scene_pack_invalid", "slots with problems");
    check_has(error, "every problem, each at its pointer", "/a~1b", "/cells/kind", "/cells/size", "/header/scene", (const char *)NULL);
    yaia_free(error);
    yaia_runtime_free(rt);

    const char *invalid[] = {"board_slots_garbage", "board_no_children"};
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        error = NULL;
        rt = pack_runtime(invalid[i], &error);
        check(rt == NULL, "%s fails the load", invalid[i]);
        check_error(error, "scene_pack_invalid", invalid[i]);
        yaia_free(error);
        yaia_runtime_free(rt);
    }

    const char *unreadable[] = {"board_children_garbage", "board_children_object"};
    for (size_t i = 0; i < sizeof unreadable / sizeof *unreadable; i++) {
        error = NULL;
        rt = pack_runtime(unreadable[i], &error);
        if (!check(rt != NULL, "%s loads -- %s", unreadable[i], error ? error : "")) {
            yaia_free(error);
            continue;
        }
        char *r = run(rt, "{\"op\":\"open\",\"scene\":\"test/board\"}");
        check_has(r, "children the runtime cannot read are reported, and the scene opens", "\"ok\":true", "\"childErrors\":[",
                  "\"code\":\"scene_pack_error\"", (const char *)NULL);
        yaia_free(r);
        r = run(rt, "{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"add\",\"payload\":1}}");
        check_has(r, "and the reduction stands", "\"ok\":true", "\"seq\":1", "\"code\":\"scene_pack_error\"", (const char *)NULL);
        yaia_free(r);
        yaia_runtime_free(rt);
    }
}

int main(void)
{
    harness_start();
    test_a_c_pack_scene_with_children("board");
    test_a_c_pack_scene_with_children("board_always_writes");
    test_same_children();
    test_rows_of_the_examples_pack();
    test_broken_packs();
    return harness_finish();
}
