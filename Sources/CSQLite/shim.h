#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: one fixed signature for the options
// that take an int and an int pointer.
static inline int taskpress_sqlite3_db_config_flag(sqlite3 *db, int option, int value) {
  return sqlite3_db_config(db, option, value, (int *)0);
}
