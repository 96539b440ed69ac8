/*
** auth.c -- an example Yaia plugin: the "auth" service behind example/login.
**
**   op "login", args {"email": STRING, "password": STRING}
**     password "hunter2"  -> result {"user": {"email": EMAIL}}
**     anything else       -> error  {"message": "Wrong email or password"}
**   any other op          -> error  {"message": "unknown op NAME"}
**
** Calls complete on the host's worker threads through a queue, never inside
** perform(), so hosts exercise the asynchronous path: the update arrives
** through yaia_receive(). The host reads the args and writes the result, so
** the plugin holds no JSON code and no thread of its own.
**
** Build: cc -std=c11 -Wall -Wextra -O2 -IInclude -fPIC -shared
**           -fvisibility=hidden -o auth.so auth.c
** (auth.c includes ../common/plugin_util.h: copy it along.)
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_plugin.h"
#include "../common/plugin_util.h"

/* The host API table: valid for the life of the process. */
static const yaia_host_api *api;

/* A job: runs on a worker thread, one login at a time per registration. */
static void login(void *ctx, yaia_call *call)
{
    (void)ctx;
    const char *email, *password;
    size_t email_length, password_length;
    if (api->arg_string(call, "email", &email, &email_length) != YAIA_OK
        || api->arg_string(call, "password", &password, &password_length) != YAIA_OK) {
        api->call_error(call, NULL, "login needs a string email and password");
    } else if (password_length == 7 && memcmp(password, "hunter2", 7) == 0) {
        api->result_open(call, "user", YAIA_JSON_OBJECT);
        api->result_string(call, "email", email, email_length);
        api->call_finish(call);
    } else {
        api->call_error(call, NULL, "Wrong email or password");
    }
}

static void unknown_op(void *ctx, yaia_call *call)
{
    (void)ctx;
    const char *op = api->call_op(call);
    if (!op)
        return; /* the call ended while the job waited */
    char *message = malloc(strlen(op) + 12);
    if (message)
        sprintf(message, "unknown op %s", op);
    api->call_error(call, NULL, message ? message : "unknown op");
    free(message);
}

static void auth_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)args_json; /* read through the host instead */
    yaia_queue *queue = ctx;
    if (api->queue_submit(queue, call, strcmp(op, "login") == 0 ? login : unknown_op, NULL) == YAIA_ERR_RESOURCE)
        api->call_error(call, NULL, "auth: no worker thread could start");
}

/* Waits for the job running, if any: nothing of ours outlives the runtime. */
static void auth_release(void *ctx) { api->queue_free(ctx); }

static int auth_setup(yaia_host *host, const yaia_host_api *host_api, const char *config_json)
{
    (void)config_json; /* no configuration */
    if (!plugin_host_has_calls(host, host_api))
        return 1;
    api = host_api;
    yaia_queue *queue = api->queue_new();
    yaia_service service = {
        .size = sizeof service,
        .name = "auth",
        .ctx = queue,
        .perform = auth_perform,
        .release = auth_release,
    };
    int rc = queue ? api->add_service(host, &service) : YAIA_ERR_ARGUMENT;
    if (rc != YAIA_OK) {
        api->queue_free(queue); /* not registered, so the host will not release it */
        api->set_error(host, !queue ? "auth: out of memory"
                             : rc == YAIA_ERR_EXISTS ? "auth: a service named \"auth\" exists already"
                                                     : "auth: add_service failed");
    }
    return rc != YAIA_OK;
}

PLUGIN_ENTRY(1, "auth", "1.0.0", "Example login service: the password is hunter2", auth_setup)
