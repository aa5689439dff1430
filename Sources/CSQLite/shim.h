// SQLite for SignerKit's stores (the transaction journal of the signer service).
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: binds copy their value.
static inline sqlite3_destructor_type sk_sqlite_transient(void) { return SQLITE_TRANSIENT; }
