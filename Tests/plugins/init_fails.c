/*
** init_fails.c -- a plugin whose setup() fails after registering a service.
** The load must fail with "plugin_init_failed" carrying the message given to
** set_error(), and the service "halfway" must be withdrawn: it may not appear
** in {"op": "services"} afterwards.
*/
#include <stddef.h>

#include "yaia_plugin.h"

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

static const yaia_plugin descriptor = {
    .size = sizeof(yaia_plugin),
    .abi_version = 1,
    .name = "init_fails",
    .version = "1.0.0",
    .description = "Test plugin: setup() registers a service, then fails",
    .setup = init_fails_setup,
};

YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer)
{
    if (!offer || !offer->abi_versions)
        return NULL;
    for (size_t i = 0; i < offer->abi_version_count; i++)
        if (offer->abi_versions[i] == 1)
            return &descriptor;
    return NULL;
}
