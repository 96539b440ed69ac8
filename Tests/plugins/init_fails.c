/*
** init_fails.c -- a plugin whose setup() fails after registering a service.
** The load must fail with "plugin_init_failed" carrying the message given to
** set_error(), and the service "halfway" must be withdrawn: it may not appear
** in {"op": "services"} afterwards.
*/
#include <stddef.h>

#include "yaia_plugin.h"
#include "../../Examples/plugins/common/plugin_util.h"

static void halfway_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    /* Never called: the host withdraws this service when setup() fails, so
    ** no scene can reach it (the test checks that it is not listed). */
    (void)ctx;
    (void)op;
    (void)args_json;
    (void)call;
}

static int init_fails_setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    (void)config_json;
    /* No ctx: nothing to leak whether or not the host calls release() for a
    ** withdrawn service (the header does not say). */
    yaia_service service = {
        .size = sizeof service,
        .name = "halfway",
        .ctx = NULL,
        .perform = halfway_perform,
        .cancel = NULL,
        .release = NULL,
    };
    api->add_service(host, &service);
    api->set_error(host, "init_fails: setup fails on purpose after registering \"halfway\"");
    return 1;
}

PLUGIN_ENTRY(1, "init_fails", "1.0.0",
             "Test plugin: setup() registers a service, then fails",
             init_fails_setup)
