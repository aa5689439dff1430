#ifndef SIGNERKIT_CGCRYPT_SHIM_H
#define SIGNERKIT_CGCRYPT_SHIM_H
#include <gcrypt.h>
#endif
