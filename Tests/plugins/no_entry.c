/*
** no_entry.c -- a valid shared object that does not export yaia_plugin_init.
** dlopen() accepts it; the load must fail with "plugin_no_entry". It exports
** a near-miss name so the failure cannot come from an empty symbol table.
*/
#include "yaia_plugin.h"

YAIA_PLUGIN_EXPORT int yaia_plugin_init_misspelled(void);

YAIA_PLUGIN_EXPORT int yaia_plugin_init_misspelled(void)
{
    return 0;
}
