-- The checksum of each migration as it was applied (sha256 of its SQL,
-- line endings normalised), so a build whose migration files differ from
-- the ones that shaped this database is refused instead of running against
-- a schema it does not describe. Databases older than this table adopt the
-- checksums of the build that adds it (store/checksums.go).
CREATE TABLE schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	checksum   TEXT NOT NULL,
	applied_at TEXT NOT NULL
);
