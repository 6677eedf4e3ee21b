#ifndef CHIREDIS_H
#define CHIREDIS_H
#include <hiredis/hiredis.h>
#endif
