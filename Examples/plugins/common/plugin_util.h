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
**       offer lists that plugin ABI version. An entry point is then
**           return plugin_offers(offer, descriptor.abi_version) ? &descriptor : NULL;
**
**   PLUGIN_ENTRY(abi, name, version, description, setup)
**       Both of the above in one line, for a plugin with a plain descriptor:
**       defines the descriptor and yaia_plugin_init(). The test plugins use
**       it; the examples spell the two out, as a plugin of your own might.
**
**   plugin_json_string(dst, s, n), plugin_json_escape(dst, s, n),
**   plugin_json_escape_byte(esc, c)
**       Writing a JSON string (with or without its quotes, or one byte at a
**       time): results and error messages that quote data (an op name, a
**       key, an email) must escape it, or a quote in the data would break
**       the JSON the plugin hands back.
**
**   plugin_skip_ws(p), plugin_hex4(p, &v), plugin_put_utf8(out, cp)
**       The pieces of reading a JSON string: white space, the four hex
**       digits of a \uXXXX escape, a code point encoded as UTF-8.
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

/* The same as a JSON string literal, quotes included: dst needs room for
** 6 * n + 2 bytes. */
static inline char *plugin_json_string(char *dst, const char *s, size_t n)
{
    *dst++ = '"';
    dst = plugin_json_escape(dst, s, n);
    *dst++ = '"';
    return dst;
}

/* ------------------------------------------------------------ reading JSON */

static inline const char *plugin_skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* The four hex digits at p (of a \uXXXX escape) into *out; 0 when they are
** not four hex digits. */
static inline int plugin_hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0; /* also stops at the terminating NUL */
    }
    *out = v;
    return 1;
}

/* Code point cp (at most U+10FFFF) as UTF-8 in out; returns its length (1 to 4). */
static inline size_t plugin_put_utf8(char out[4], unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

#endif /* YAIA_PLUGIN_UTIL_H */
