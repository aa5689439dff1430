#ifndef SIGNERKIT_CPKCS11_SHIM_H
#define SIGNERKIT_CPKCS11_SHIM_H
/* PKCS#11 types and constants only: the module is reached through dlopen + C_GetFunctionList,
   never by linking p11-kit (whose own C_GetFunctionList is its proxy). */
#include <p11-kit-1/p11-kit/pkcs11.h>
#include <dlfcn.h>

/* Constants whose pkcs11.h definitions contain a C cast, which Swift does not import. */
static const CK_ULONG SK_CK_UNAVAILABLE_INFORMATION = ~(CK_ULONG)0;
static const CK_ULONG SK_CKR_VENDOR_DEFINED = (CK_ULONG)1 << 31;
static const CK_ULONG SK_CKA_VENDOR_DEFINED = (CK_ULONG)1 << 31;
static const CK_BBOOL SK_CK_TRUE = 1;
static const CK_BBOOL SK_CK_FALSE = 0;

/* The module's C_GetFunctionList, looked up with dlsym, called through its real prototype. */
static inline CK_RV sk_pkcs11_get_function_list(void *symbol, CK_FUNCTION_LIST_PTR *list) {
    return ((CK_C_GetFunctionList)symbol)(list);
}

/* dlerror() as a string that stays valid until the next dl* call on this thread (or NULL). */
static inline const char *sk_dlerror(void) {
    return dlerror();
}

#endif
