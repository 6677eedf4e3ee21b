#ifndef COPENSSLDIGEST_H
#define COPENSSLDIGEST_H
#include <openssl/sha.h>
#endif
