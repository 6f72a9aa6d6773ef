#!/bin/sh
# Removes what a production install does not need at run time from ./node_modules:
# - the native addon's compiler intermediates and vendored sources (better-sqlite3 loads
#   build/Release/better_sqlite3.node only);
# - the optional peers npm keeps for drizzle-orm although this service never loads them
#   (@electric-sql/pglite is the tests' database, @types are compile-time only).
# Run by the Dockerfile's prod-deps stage and by tests/support/production-install.ts, so the tests
# start the service from the same tree the image ships.
set -eu
addon=node_modules/better-sqlite3
[ -f "$addon/build/Release/better_sqlite3.node" ] || { echo "prune: $addon/build/Release/better_sqlite3.node missing" >&2; exit 1; }
rm -rf "$addon/build/Release/obj" "$addon/build/Release/obj.target" "$addon/build/Release/.deps" \
  "$addon/build/Release/sqlite3.a" "$addon/build/Release/test_extension.node" \
  "$addon/build/deps" "$addon/deps" "$addon/src"
rm -rf node_modules/@electric-sql node_modules/@types
