// libpq, the PostgreSQL client library, for SignerKit's shared stores (SignerKitPostgres).
#include <libpq-fe.h>
