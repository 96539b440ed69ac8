/*
** old_api.c -- a plugin built against the plugin header of ABI 1.1
** (Tests/plugins/abi-1.1), before the host table grew the call reads,
** result building and queues: a newer host must load it and serve its calls.
**
**   service "old" (its yaia_service of the 1.1 size)
**     op "echo"    completes inside perform() with result = args
**     op "table"   completes with {"older": BOOL, "abi": N}: whether the
**                  host's table is larger than the one this plugin knows
**                  (it reads no field beyond its own struct), and its abi_version
**     op "later"   completes with result = args from a thread of its own
**     other ops    fail with {"message": "unknown op"}
**   service "old_typed" (add_functions, the last field of the 1.1 table)
**     add          int64(int64, int64)
**
** setup() logs "old_api: set up" through the host handle after registering,
** and every completion that answers anything but YAIA_OK is logged at error
** level ("old_api: ...").
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi-1.1/yaia_plugin.h"

static const yaia_host_api *api;
static yaia_host *the_host;

static void expect_ok(const char *what, int rc)
{
    if (rc == YAIA_OK)
        return;
    char msg[96];
    snprintf(msg, sizeof msg, "old_api: %s returned %d, expected 0", what, rc);
    api->log(the_host, YAIA_LOG_ERROR, msg);
}

typedef struct {
    yaia_call *call;
    char *args;
} later;

static void *later_main(void *arg)
{
    later *l = arg;
    expect_ok("call_complete (later)", api->call_complete(l->call, l->args));
    free(l->args);
    free(l);
    return NULL;
}

static void old_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)ctx;
    if (strcmp(op, "echo") == 0) {
        expect_ok("call_complete (echo)", api->call_complete(call, args_json));
    } else if (strcmp(op, "table") == 0) {
        char result[64];
        snprintf(result, sizeof result, "{\"older\":%s,\"abi\":%u}", api->size > sizeof(yaia_host_api) ? "true" : "false",
                 (unsigned)api->abi_version);
        expect_ok("call_complete (table)", api->call_complete(call, result));
    } else if (strcmp(op, "later") == 0) {
        later *l = malloc(sizeof *l);
        pthread_t thread;
        if (l)
            l->call = call;
        if (l && (l->args = strdup(args_json)) != NULL && pthread_create(&thread, NULL, later_main, l) == 0) {
            pthread_detach(thread);
        } else {
            if (l)
                free(l->args);
            free(l);
            expect_ok("call_fail (later)", api->call_fail(call, "{\"message\":\"old_api: cannot start a thread\"}"));
        }
    } else {
        expect_ok("call_fail", api->call_fail(call, "{\"message\":\"unknown op\"}"));
    }
}

static int64_t add(int64_t a, int64_t b) { return a + b; }

static int old_setup(yaia_host *host, const yaia_host_api *host_api, const char *config_json)
{
    (void)config_json;
    if (!host_api || host_api->size < sizeof(yaia_host_api))
        return 1; /* older than the table this plugin was built for */
    api = host_api;
    the_host = host;
    yaia_service service = {
        .size = sizeof service,
        .name = "old",
        .perform = old_perform,
    };
    static const yaia_function functions[] = {
        {.size = sizeof(yaia_function), .op = "add", .signature = "int64(int64, int64)", .function = (void (*)(void))add},
    };
    if (api->add_service(host, &service) != YAIA_OK || api->add_functions(host, "old_typed", functions, 1, 0) != YAIA_OK)
        return 1;
    api->log(host, YAIA_LOG_INFO, "old_api: set up");
    return 0;
}

static const yaia_plugin descriptor = {
    .size = sizeof(yaia_plugin),
    .abi_version = 1,
    .name = "old_api",
    .version = "1.1.0",
    .description = "Test plugin built against the plugin header of ABI 1.1",
    .setup = old_setup,
};

YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer)
{
    for (size_t i = 0; offer && i < offer->abi_version_count; i++)
        if (offer->abi_versions[i] == 1)
            return &descriptor;
    return NULL;
}
