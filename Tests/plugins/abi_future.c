/*
** abi_future.c -- a plugin from the future: it speaks only plugin ABI 99.
** A host offering version 1 gets NULL back, and the load must fail with
** "plugin_abi_mismatch" without setup() ever running.
*/
#include <stddef.h>

#include "yaia_plugin.h"

static int future_setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    /* Reaching this is a host bug: it accepted a version it never offered. */
    (void)config_json;
    api->set_error(host, "abi_future: setup() must not run on a host without ABI 99");
    return 1;
}

static const yaia_plugin descriptor = {
    .size = sizeof(yaia_plugin),
    .abi_version = 99,
    .name = "abi_future",
    .version = "99.0.0",
    .description = "Test plugin: supports only plugin ABI 99",
    .setup = future_setup,
};

YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer)
{
    if (!offer || !offer->abi_versions)
        return NULL;
    for (size_t i = 0; i < offer->abi_version_count; i++)
        if (offer->abi_versions[i] == 99)
            return &descriptor;
    return NULL;
}
