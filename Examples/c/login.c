/*
** login.c -- example/login driven from C, with auth served by a plugin.
**
**   usage: login PATH_TO_libyaia-examples.so PATH_TO_auth.so
**
** The scene's logic lives in a scene pack, libyaia-examples.so (libyaia.so
** has no scenes of its own: a runtime has those of the packs its config
** names); this program is the "view": it sends what a user would type, and
** shows what the scene answers. The auth plugin completes logins on a thread
** of its own, so their outcomes arrive through yaia_receive(), as they would
** in an application's event loop.
**
** From the repository, after `make lib examples-pack plugins`:
**   cc -IInclude Examples/c/login.c -o login -L.build/release -lyaia -Wl,-rpath,$PWD/.build/release
**   ./login .build/release/libyaia-examples.so .build/yaia/plugins/auth.so
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaia.h"

static yaia_runtime *rt;

/* Frees what is left and stops: any unexpected answer ends the demo. */
static void die(const char *what, char *response)
{
    fprintf(stderr, "login: %s\n", what);
    if (response)
        fprintf(stderr, "  response: %s\n", response);
    yaia_free(response);
    yaia_runtime_free(rt);
    exit(1);
}

/* A successful response, or the end of the demo. */
static char *expect_ok(char *response, const char *what)
{
    if (!response || !strstr(response, "\"ok\":true"))
        die(what, response);
    return response;
}

/* The raw JSON text of a top-level member (responses are canonical and
** compact, so the first "key": at depth 1 is the one). Points into json;
** *length receives its length. */
static const char *member(const char *json, const char *key, size_t *length)
{
    size_t klen = strlen(key);
    int depth = 0, in_string = 0;
    for (const char *p = json; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_string = 0;
            continue;
        }
        if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            depth--;
        } else if (*p == '"') {
            if (depth == 1 && strncmp(p + 1, key, klen) == 0 && p[1 + klen] == '"' && p[2 + klen] == ':') {
                const char *v = p + 3 + klen, *e = v;
                int d = 0, s = 0;
                for (; *e; e++) {
                    if (s) {
                        if (*e == '\\' && e[1])
                            e++;
                        else if (*e == '"')
                            s = 0;
                    } else if (*e == '"') {
                        s = 1;
                    } else if (*e == '{' || *e == '[') {
                        d++;
                    } else if (*e == '}' || *e == ']') {
                        if (d-- == 0)
                            break;
                    } else if (*e == ',' && d == 0) {
                        break;
                    }
                }
                *length = (size_t)(e - v);
                return v;
            }
            in_string = 1;
        }
    }
    *length = 0;
    return NULL;
}

static void show_member(const char *caption, const char *json, const char *key)
{
    size_t n;
    const char *v = member(json, key, &n);
    printf("    %-10s %.*s\n", caption, (int)n, v ? v : "(none)");
}

/* Writes s at out as a JSON string (quotes included), escaping what JSON
** needs escaped; out has room for 2 * strlen(s) + 3 bytes. Returns the
** length written. */
static size_t put_json_string(char *out, const char *s)
{
    size_t n = 0;
    out[n++] = '"';
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            out[n++] = '\\';
        out[n++] = *s;
    }
    out[n++] = '"';
    out[n] = '\0';
    return n;
}

static void step(const char *caption, char *response)
{
    printf("  > %s\n    %s\n", caption, response);
}

static char *send_action(int64_t scene, const char *action, const char *caption)
{
    char *r = expect_ok(yaia_send(rt, scene, action), caption);
    step(caption, r);
    return r;
}

/* Waits for the outcome of the login in flight. */
static char *await_login(void)
{
    printf("  ... waiting for the auth plugin\n");
    char *event = yaia_receive(rt, 5.0);
    if (!event)
        die("no answer from the auth plugin within 5 seconds", NULL);
    if (!strstr(event, "\"event\":\"update\""))
        die("expected an update event", event);
    printf("  < update %s\n", event);
    return event;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PATH_TO_libyaia-examples.so PATH_TO_auth.so\n", argv[0]);
        return 2;
    }

    /* The config names the scene pack and the plugin:
    ** {"scenes":["PACK"],"plugins":["AUTH"]}. */
    char *config = malloc(2 * (strlen(argv[1]) + strlen(argv[2])) + 64);
    if (!config)
        die("out of memory", NULL);
    size_t n = (size_t)sprintf(config, "{\"scenes\":[");
    n += put_json_string(config + n, argv[1]);
    n += (size_t)sprintf(config + n, "],\"plugins\":[");
    n += put_json_string(config + n, argv[2]);
    strcpy(config + n, "]}");

    char *error = NULL;
    rt = yaia_runtime_new(config, &error);
    free(config);
    if (!rt)
        die("cannot create the runtime", error);
    printf("yaia %s (C ABI %d), scenes from %s, auth from %s\n\n", yaia_version(), yaia_abi_version(), argv[1],
           argv[2]);

    char *r = expect_ok(yaia_open(rt, "example/login", NULL), "cannot open example/login");
    step("open example/login", r);
    size_t len;
    const char *id = member(r, "scene", &len);
    int64_t scene = id ? strtoll(id, NULL, 10) : -1;
    yaia_free(r);

    printf("\nA wrong password:\n");
    yaia_free(send_action(scene, "{\"type\":\"emailChanged\",\"payload\":\"ada@example.com\"}", "emailChanged \"ada@example.com\""));
    yaia_free(send_action(scene, "{\"type\":\"passwordChanged\",\"payload\":\"letmein\"}", "passwordChanged \"letmein\""));
    r = send_action(scene, "{\"type\":\"submit\"}", "submit");
    if (!strstr(r, "\"status\":\"running\""))
        die("submit should hand the login to the auth plugin", r);
    yaia_free(r);
    r = await_login();
    if (strstr(r, "\"error\":null"))
        die("the wrong password was accepted", r);
    show_member("viewModel", r, "viewModel");
    yaia_free(r);

    printf("\nThe right password:\n");
    yaia_free(send_action(scene, "{\"type\":\"passwordChanged\",\"payload\":\"hunter2\"}", "passwordChanged \"hunter2\""));
    yaia_free(send_action(scene, "{\"type\":\"submit\"}", "submit"));
    r = await_login();
    if (!strstr(r, "\"push\":\"example/home\""))
        die("the right password should navigate to example/home", r);
    show_member("viewModel", r, "viewModel");
    show_member("routes", r, "routes");
    yaia_free(r);

    yaia_runtime_free(rt);
    printf("\ndone.\n");
    return 0;
}
