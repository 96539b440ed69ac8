/*
** plugin_util.h -- the few helpers every Yaia plugin needs, written once.
**
** Used by the example plugins (auth, store) and by the test plugins of
** Tests/plugins. What it offers:
**
**   PLUGIN_HAS_FIELD(ptr, type, field)
**       The versioning rule of yaia_plugin.h: a struct from the other side
**       may be older (smaller) than ours, so read a field only when the
**       size it carries reaches past that field.
**
**   plugin_offers(offer, version)
**       The version negotiation of yaia_plugin_init(): true when the host's
**       offer lists that plugin ABI version.
**
**   PLUGIN_ENTRY(abi, name, version, description, setup)
**       Both of the above in one line: defines the plugin's descriptor and
**       yaia_plugin_init(), which answers with it when the host offers
**       plugin ABI `abi`.
**
**   plugin_host_has_calls(host, api)
**       In setup(): true when the host's table has the functions of plugin
**       ABI 1.2 (reading a call, building its result, call queues);
**       otherwise the load fails with a message saying so.
**
**   plugin_json_escape(dst, s, n), plugin_json_escape_byte(esc, c)
**       Writing the inside of a JSON string, for a plugin that completes
**       calls with JSON text of its own (call_complete, call_fail) rather
**       than building results through the host: data quoted in it (an op
**       name, a key) must be escaped, or a quote in the data would break
**       the JSON.
**
** Why a header: these are the same few lines in every plugin, and they are
** easy to get subtly wrong (an off-by-one size check, a missing control
** character escape). Everything is static inline and depends only on
** yaia_plugin.h and the C library, so a plugin includes it and uses what it
** needs; if you copy a plugin out of this tree, copy this file with it.
*/
#ifndef YAIA_PLUGIN_UTIL_H
#define YAIA_PLUGIN_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "yaia_plugin.h"

/* True when a struct of the given size reaches past FIELD: the versioning
** rule says never to read a field beyond the size the other side filled. */
#define PLUGIN_HAS_FIELD(ptr, type, field) \
    ((ptr)->size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* True when the host offers plugin ABI `version` (yaia_plugin_init). */
static inline int plugin_offers(const yaia_plugin_offer *offer, uint32_t version)
{
    if (!offer || !PLUGIN_HAS_FIELD(offer, yaia_plugin_offer, abi_version_count) || !offer->abi_versions)
        return 0;
    for (size_t i = 0; i < offer->abi_version_count; i++)
        if (offer->abi_versions[i] == version)
            return 1;
    return 0;
}

/* The plugin's descriptor and entry point, at the end of its file (no
** semicolon after it): yaia_plugin_init() answers with the descriptor when
** the host offers plugin ABI `abi`, NULL otherwise. */
#define PLUGIN_ENTRY(abi, name_, version_, description_, setup_)                                \
    static const yaia_plugin plugin_descriptor = {                                              \
        .size = sizeof(yaia_plugin),                                                            \
        .abi_version = (abi),                                                                   \
        .name = (name_),                                                                        \
        .version = (version_),                                                                  \
        .description = (description_),                                                          \
        .setup = (setup_),                                                                      \
    };                                                                                          \
    YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer)      \
    {                                                                                           \
        return plugin_offers(offer, plugin_descriptor.abi_version) ? &plugin_descriptor : NULL; \
    }

/* True when the host offers reading calls, building results and call
** queues (plugin ABI 1.2); otherwise reports why the load fails. */
static inline int plugin_host_has_calls(yaia_host *host, const yaia_host_api *api)
{
    if (api && PLUGIN_HAS_FIELD(api, yaia_host_api, queue_free))
        return 1;
    if (api && PLUGIN_HAS_FIELD(api, yaia_host_api, set_error))
        api->set_error(host, "this plugin needs a host with plugin ABI 1.2 (call reads, results and queues)");
    return 0;
}

/* ------------------------------------------------------------ writing JSON */

/* The escape of byte c inside a JSON string, written to esc: 2 bytes (\" \\
** \b \f \n \r \t) or 6 (\u00XX, other control characters). Returns its
** length, or 0 when c needs no escape. Bytes >= 0x80 need none: valid UTF-8
** stays valid. */
static inline size_t plugin_json_escape_byte(char esc[6], unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    char letter;
    switch (c) {
    case '"':  letter = '"'; break;
    case '\\': letter = '\\'; break;
    case '\b': letter = 'b'; break;
    case '\f': letter = 'f'; break;
    case '\n': letter = 'n'; break;
    case '\r': letter = 'r'; break;
    case '\t': letter = 't'; break;
    default:
        if (c >= 0x20)
            return 0;
        esc[0] = '\\';
        esc[1] = 'u';
        esc[2] = '0';
        esc[3] = '0';
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        return 6;
    }
    esc[0] = '\\';
    esc[1] = letter;
    return 2;
}

/* Writes the n bytes at s escaped for the inside of a JSON string (no
** quotes) and returns the end (not NUL-terminated). dst needs room for
** 6 * n bytes. */
static inline char *plugin_json_escape(char *dst, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = plugin_json_escape_byte(dst, (unsigned char)s[i]);
        if (len)
            dst += len;
        else
            *dst++ = s[i];
    }
    return dst;
}

#endif /* YAIA_PLUGIN_UTIL_H */
