#ifndef SIGNERKIT_GCRYPT_SHIM_H
#define SIGNERKIT_GCRYPT_SHIM_H

/* gcry_control is variadic, which Swift cannot call: these fixed-argument wrappers can be. */
unsigned int sk_gcry_control0(int command);
unsigned int sk_gcry_control_uint(int command, unsigned int argument);

#endif
