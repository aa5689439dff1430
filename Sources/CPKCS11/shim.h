#ifndef SIGNERKIT_CPKCS11_SHIM_H
#define SIGNERKIT_CPKCS11_SHIM_H
/* PKCS#11 types and constants only: the module is reached through dlopen + C_GetFunctionList,
   never by linking p11-kit (whose own C_GetFunctionList is its proxy). */
#include <p11-kit-1/p11-kit/pkcs11.h>
#include <dlfcn.h>
#endif
