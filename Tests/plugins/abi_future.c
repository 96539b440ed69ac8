/*
** abi_future.c -- a plugin from the future: it speaks only plugin ABI 99.
** A host offering version 1 gets NULL back, and the load must fail with
** "plugin_abi_mismatch" without setup() ever running.
*/
#include <stddef.h>

#include "yaia_plugin.h"
#include "../../Examples/plugins/common/plugin_util.h"

static int future_setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    /* Reaching this is a host bug: it accepted a version it never offered. */
    (void)config_json;
    api->set_error(host, "abi_future: setup() must not run on a host without ABI 99");
    return 1;
}

PLUGIN_ENTRY(99, "abi_future", "99.0.0", "Test plugin: supports only plugin ABI 99", future_setup)
