/* The hand-written contract headers, seen from Swift. */
#ifndef CYAIA_H
#define CYAIA_H
#include "../../../Include/yaia.h"
#endif
