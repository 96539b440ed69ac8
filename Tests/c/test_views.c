/*
** test_views.c -- view models as patches through the C ABI only, as a C
** host would (docs/abi.md, "Patch mode"): the config's "view", open's and
** start's, updates with viewPatch and viewBase (responses and yaia_receive
** events), the view op, and whole mode's bytes unchanged.
**
** Prints one line per failed check and ends with "N passed, N failed".
** Exit status 1 when anything failed.
**
** Environment (the Makefile exports them):
**   YAIA_LIBRARY          libyaia.so       (.build/release/libyaia.so)
**   YAIA_EXAMPLES_PACK    the example scenes (.build/release/libyaia-examples.so)
**   YAIA_TEST_TIMEOUT     seconds a section may take before it counts as hung (120)
*/
#define _POSIX_C_SOURCE 200809L

#include "harness.h"

static int check_same(char *got, const char *expected, const char *name)
{
    int ok = got && strcmp(got, expected) == 0;
    check(ok, "%s -- expected %s -- got %s", name, expected, got ? got : "(NULL)");
    yaia_free(got);
    return ok;
}

/* The worked example of docs/abi.md, byte for byte. */
static void test_the_worked_example(void)
{
    section("the worked example");
    yaia_runtime *rt = examples_runtime("{\"view\":\"patch\"}", NULL);
    if (!check(rt != NULL, "a runtime in patch mode"))
        return;
    check_same(yaia_open(rt, "example/login", NULL),
               "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":0,"
               "\"viewModel\":{\"canSubmit\":false,\"email\":\"\",\"error\":null,\"isSubmitting\":false}}",
               "open answers the whole view model");
    check_same(yaia_send(rt, 1, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}"),
               "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":1,\"viewBase\":0,"
               "\"viewPatch\":[{\"op\":\"replace\",\"path\":\"/email\",\"value\":\"a@b.c\"}]}",
               "a send answers the patch");
    check_same(yaia_send(rt, 1, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}"),
               "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":2,\"viewBase\":1,\"viewPatch\":[]}",
               "nothing changed: an empty patch");
    check_same(yaia_execute(rt, "{\"op\":\"view\",\"scene\":1}"),
               "{\"ok\":true,\"scene\":1,\"seq\":2,\"view\":\"patch\","
               "\"viewModel\":{\"canSubmit\":false,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":false}}",
               "the view op gives the whole view model and its seq");
    char *r = yaia_execute(rt, "{\"op\":\"view\",\"scene\":7}");
    check_error(r, "no_such_scene", "view of no scene");
    yaia_free(r);
    yaia_runtime_free(rt);
}

/* Refusals: a view that is neither mode, in a request or the config. */
static void check_refusals(yaia_runtime *rt)
{
    char *r = yaia_execute(rt, "{\"op\":\"open\",\"scene\":\"example/login\",\"view\":\"diff\"}");
    check_error(r, "bad_request", "open with an unknown view");
    check_has(r, "the error points at view", "\"at\":\"/view\"", (const char *)NULL);
    yaia_free(r);
    char *error = NULL;
    yaia_runtime *bad = yaia_runtime_new("{\"view\":true}", &error);
    check(bad == NULL, "a config with a bad view makes no runtime");
    check_error(error, "bad_config", "config view");
    yaia_free(error);
}

/* Whole mode, the default, sends today's updates; one scene can ask for patches. */
static void test_modes_per_scene(void)
{
    section("modes per scene");
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    if (!check(rt != NULL, "a runtime"))
        return;
    yaia_free(yaia_open(rt, "example/login", NULL));
    yaia_free(yaia_execute(rt, "{\"op\":\"open\",\"scene\":\"example/login\",\"view\":\"patch\"}"));
    check_same(yaia_send(rt, 1, "{\"type\":\"passwordChanged\",\"payload\":\"pw\"}"),
               "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":1,"
               "\"viewModel\":{\"canSubmit\":false,\"email\":\"\",\"error\":null,\"isSubmitting\":false}}",
               "whole mode: the whole view model, as ever");
    check_same(yaia_send(rt, 2, "{\"type\":\"passwordChanged\",\"payload\":\"pw\"}"),
               "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":2,\"seq\":1,\"viewBase\":0,\"viewPatch\":[]}",
               "the scene opened with view patch");
    check_refusals(rt);
    yaia_runtime_free(rt);
}

/* An effect's time-out comes as a yaia_receive event carrying a patch. */
static void test_events(void)
{
    section("events");
    yaia_runtime *rt = examples_runtime("{\"view\":\"patch\",\"clock\":\"manual\"}", NULL);
    if (!check(rt != NULL, "a runtime on a manual clock"))
        return;
    yaia_free(yaia_open(rt, "example/search", NULL));
    char *r = yaia_send(rt, 1, "{\"type\":\"queryChanged\",\"payload\":\"ab\"}");
    check_has(r, "the search starts", "\"viewBase\":0", "\"seq\":1", "\"status\":\"pending\"", (const char *)NULL);
    check_lacks(r, "\"viewModel\"", "no whole view model in a patch-mode update");
    yaia_free(r);
    yaia_free(yaia_execute(rt, "{\"op\":\"advance\",\"seconds\":60}"));
    char *event = yaia_receive(rt, 0);
    check_has(event, "the time-out's event", "\"event\":\"update\"", "\"seq\":2", "\"viewBase\":1", "\"viewPatch\":[{",
              (const char *)NULL);
    check_lacks(event, "\"viewModel\"", "no whole view model in the event");
    yaia_free(event);
    yaia_runtime_free(rt);
}

/* A flow started in patch mode: the root's updates are patches, and the stack keeps whole view models. */
static void test_flows(void)
{
    section("flows");
    yaia_runtime *rt = examples_runtime(NULL, NULL);
    if (!check(rt != NULL, "a runtime"))
        return;
    char *r = yaia_execute(rt, "{\"op\":\"start\",\"scene\":\"example/login\",\"view\":\"patch\"}");
    check_has(r, "start answers whole", "\"viewModel\":{", "\"stack\":[", (const char *)NULL);
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"send\",\"flow\":1,\"action\":{\"type\":\"emailChanged\",\"payload\":\"x\"}}");
    check_has(r, "a send to the flow answers a patch", "\"viewBase\":0", "\"viewPatch\":[{\"op\":\"replace\",\"path\":\"/email\",\"value\":\"x\"}]",
              (const char *)NULL);
    yaia_free(r);
    yaia_runtime_free(rt);
}

int main(void)
{
    harness_start();
    test_the_worked_example();
    test_modes_per_scene();
    test_events();
    test_flows();
    return harness_finish();
}
