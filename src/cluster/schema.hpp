// The cluster database's schema, as numbered migrations applied at start (issue 26).
//
// Each migration is a version number and its SQL statements, kept in the code so a binary
// always carries the schema it was written for. `apply_migrations` runs, in one transaction
// under an advisory lock (two hosts starting together apply each migration once), every
// migration newer than the database's `schema_version`; a second start applies nothing. A
// database newer than this binary is refused rather than used with a schema it does not know.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "cluster/pg_connection.hpp"

namespace snarkpipe::cluster {

struct Migration {
  int version;
  std::string_view description;
  std::vector<std::string_view> statements;  // one SQL command each (libpq runs one per call)
};

// Every migration, in version order (1, 2, ...).
std::span<const Migration> schema_migrations();

// The newest version this binary knows.
int latest_schema_version();

// Applies what the database lacks; returns the versions applied now (empty when current).
// Throws DatabaseError when a migration fails (nothing of it stays) and std::runtime_error when
// the database's schema is newer than this binary's.
std::vector<int> apply_migrations(PgConnection& db);

// The database's version; 0 when no migration has been applied.
int schema_version(PgConnection& db);

}  // namespace snarkpipe::cluster
