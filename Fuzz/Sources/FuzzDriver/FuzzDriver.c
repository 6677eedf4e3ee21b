// The declaration in include/FuzzDriver.h is all there is; SwiftPM needs one source file.
#include "FuzzDriver.h"
