/*
** typed_bad.c -- a plugin whose typed ops include a bad signature.
**
** setup() registers, in order:
**   "typed_bad_ok"     add_functions, valid            (expects YAIA_OK)
**   "typed_bad_plain"  add_service, a JSON service     (expects YAIA_OK)
**   "typed_bad"        add_functions: "fine" is valid, "broken" has the
**                      signature "double(double, dbl)" (expects YAIA_ERR_ARGUMENT)
** and then returns 0, ignoring the refusal: the refusal alone must fail the
** load, with code "bad_signature", and withdraw the first two services
** (typed_bad_plain's release() is called). With config {"fail":true} it
** returns 1 instead; the code must still be "bad_signature".
**
** What setup() saw is exported for the tests, which dlopen the same file
** (one image per process) and read it.
*/
#include <stdint.h>
#include <string.h>

#include "yaia_plugin.h"

/* add_functions / add_service results of the last setup(), -1 when not reached. */
YAIA_PLUGIN_EXPORT int typed_bad_status[3] = {-1, -1, -1};
YAIA_PLUGIN_EXPORT int typed_bad_setups;   /* setup() calls */
YAIA_PLUGIN_EXPORT int typed_bad_releases; /* release() calls of typed_bad_plain */
YAIA_PLUGIN_EXPORT int typed_bad_performs; /* perform() calls of typed_bad_plain: must stay 0 */

static double twice(double x) { return 2 * x; }

static void plain_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)ctx, (void)call, (void)op, (void)args_json;
    typed_bad_performs++;
}

static void plain_release(void *ctx)
{
    (void)ctx;
    typed_bad_releases++;
}

#define FN(f) ((void (*)(void))(f))

static const yaia_function ok_functions[] = {
    {sizeof(yaia_function), "twice", "double(double)", FN(twice), NULL},
};

static const yaia_function bad_functions[] = {
    {sizeof(yaia_function), "fine", "double(double)", FN(twice), NULL},
    {sizeof(yaia_function), "broken", "double(double, dbl)", FN(twice), NULL},
};

static int setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    typed_bad_setups++;
    typed_bad_status[0] = typed_bad_status[1] = typed_bad_status[2] = -1;
    if (api->size < offsetof(yaia_host_api, add_functions) + sizeof api->add_functions)
        return 1;
    typed_bad_status[0] = api->add_functions(host, "typed_bad_ok", ok_functions, 1, 0);
    yaia_service plain = {sizeof(yaia_service), "typed_bad_plain", NULL, plain_perform, NULL, plain_release, 0};
    typed_bad_status[1] = api->add_service(host, &plain);
    typed_bad_status[2] = api->add_functions(host, "typed_bad", bad_functions, 2, 0);
    return config_json && strstr(config_json, "\"fail\":true") ? 1 : 0;
}

static const yaia_plugin descriptor = {
    sizeof(yaia_plugin), 1, "typed_bad", "1.0.0", "a typed op with a bad signature", setup,
};

YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer)
{
    for (size_t i = 0; i < offer->abi_version_count; i++)
        if (offer->abi_versions[i] == 1)
            return &descriptor;
    return NULL;
}
