/*
** dup_auth.c -- a plugin that registers a second service named "auth".
** Loaded after auth.so, its add_service() gets YAIA_ERR_EXISTS; like any
** careful plugin it reports that and fails setup(). The load must fail with
** "duplicate_service" (the cause), and the first "auth" must keep working.
** Loaded alone, it succeeds and its "auth" refuses every call.
*/
#include <stdlib.h>

#include "yaia_plugin.h"
#include "../../Examples/plugins/common/plugin_util.h"

/* Per registration: the API table is only promised during setup(). */
typedef struct {
    int (*call_fail)(yaia_call *, const char *);
} dup_service;

static void dup_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    dup_service *svc = ctx;
    (void)op;
    (void)args_json;
    svc->call_fail(call, "{\"message\":\"dup_auth: this auth service refuses everyone\"}");
}

static int dup_setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    (void)config_json;
    dup_service *svc = malloc(sizeof *svc);
    if (!svc) {
        api->set_error(host, "dup_auth: out of memory");
        return 1;
    }
    svc->call_fail = api->call_fail;
    yaia_service service = {
        .size = sizeof service,
        .name = "auth",
        .ctx = svc,
        .perform = dup_perform,
        .cancel = NULL,
        .release = free,
    };
    int rc = api->add_service(host, &service);
    if (rc != YAIA_OK) {
        free(svc); /* not registered: the host will not release it */
        api->set_error(host, rc == YAIA_ERR_EXISTS
                                 ? "dup_auth: a service named \"auth\" is registered already"
                                 : "dup_auth: add_service failed");
        return 1;
    }
    return 0;
}

PLUGIN_ENTRY(1, "dup_auth", "1.0.0", "Test plugin: registers a service named auth", dup_setup)
