#include "gcrypt_shim.h"

#include <gcrypt.h>

unsigned int sk_gcry_control0(int command) {
    return (unsigned int)gcry_control((enum gcry_ctl_cmds)command, 0);
}

unsigned int sk_gcry_control_uint(int command, unsigned int argument) {
    return (unsigned int)gcry_control((enum gcry_ctl_cmds)command, argument);
}
