#ifndef C_SQLITE_SHIM_H
#define C_SQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro that casts -1 to a destructor pointer, which Swift cannot
// import. These wrappers pass it for us, so SQLite copies the bytes before the call returns
// and Swift's buffer may go away at once; they hold no logic of their own.

/// sqlite3_bind_blob with SQLITE_TRANSIENT.
static inline int
CSQLite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

/// sqlite3_bind_text with SQLITE_TRANSIENT.
static inline int
CSQLite_bind_text(sqlite3_stmt *statement, int index, const char *text, int count) {
    return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}

#endif
