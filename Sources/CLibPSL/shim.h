// libpsl (Debian `libpsl-dev`): the Public Suffix List library libcurl itself uses.
#include <libpsl.h>
