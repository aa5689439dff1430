#ifndef SIGNERKIT_CSECP256K1_SHIM_H
#define SIGNERKIT_CSECP256K1_SHIM_H
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#endif
