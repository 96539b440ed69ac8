/* The scene-pack contract header, seen from Swift. */
#ifndef CYAIASCENE_H
#define CYAIASCENE_H
#include "../../../Include/yaia_scene.h"
#endif
