//! Schema migrations, applied in order on open (rusqlite_migration, `user_version`).
//!
//! Never edit a released migration: add a new one. The event table's shape is part of every
//! existing ledger's hashes.

use rusqlite_migration::{M, Migrations};

/// The first schema version whose ledgers are kept with an anchor beside them (see
/// `crate::anchor`). Opening an older one writes its anchor from its signed head first.
pub const ANCHORED_SINCE: usize = 2;

pub fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(
            r#"
        CREATE TABLE events (
            seq          INTEGER PRIMARY KEY,
            corr         TEXT    NOT NULL,
            kind         TEXT    NOT NULL,
            payload      TEXT    NOT NULL,
            at_ms        INTEGER NOT NULL,
            wall_ms      INTEGER NOT NULL,
            state_before TEXT    NOT NULL,
            state_after  TEXT    NOT NULL,
            prev_hash    TEXT    NOT NULL,
            hash         TEXT    NOT NULL,
            -- keyed MAC of `hash` under a key derived from the device secret
            seal         TEXT    NOT NULL
        );
        CREATE INDEX events_kind ON events(kind);
        CREATE INDEX events_corr ON events(corr);
        CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
            BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: events cannot be changed'); END;
        CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
            BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: events cannot be deleted'); END;

        -- The signed head: the device key vouches for the last sequence and hash.
        CREATE TABLE head (
            id        INTEGER PRIMARY KEY CHECK (id = 1),
            seq       INTEGER NOT NULL,
            hash      TEXT    NOT NULL,
            signature TEXT    NOT NULL
        );

        -- A cache of kernel state at some sequence, so opening does not replay everything.
        -- Trusted only when its hash equals the chained state_after at that sequence.
        CREATE TABLE snapshot (
            id    INTEGER PRIMARY KEY CHECK (id = 1),
            seq   INTEGER NOT NULL,
            state TEXT    NOT NULL
        );
        "#,
        ),
        // Version 2: ledgers are anchored from here on. Deleting the signed head was one way to
        // make the next command re-sign a shortened chain; refuse it like an event deletion.
        M::up(
            r#"
        CREATE TRIGGER head_kept BEFORE DELETE ON head
            BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: its signed head cannot be deleted'); END;
        "#,
        ),
        // Version 3: how far the chain was last verified, sealed by the device, so that opening
        // checks only what came after it (see `crate::verified`).
        M::up(
            r#"
        CREATE TABLE verified (
            id     INTEGER PRIMARY KEY CHECK (id = 1),
            seq    INTEGER NOT NULL,
            hash   TEXT    NOT NULL,
            schema INTEGER NOT NULL,
            seal   TEXT    NOT NULL
        );
        "#,
        ),
        // Version 4: the timeline's tool filter reads the tool out of each payload; at a year of
        // use counting the matches read every payload (about a second for a million events).
        // The index keeps that expression — `query::TOOL_EXPR`, written the same (tested) —
        // so a filtered count and page read only the matching events. It reads only a payload
        // that is JSON: an index expression that fails would refuse the write (or this
        // migration, on a ledger whose payload was damaged) instead of leaving verify to name it.
        M::up(
            r#"
        CREATE INDEX events_tool ON events(
            CASE WHEN json_valid(payload) THEN
                coalesce(json_extract(payload, '$.tool'), json_extract(payload, '$.call.tool'),
                         json_extract(payload, '$.pending.call.tool'))
            END);
        "#,
        ),
        // Version 5: rows say how their hash is made (`crate::record`'s chain schemes). Every row
        // already written keeps scheme 1, the canonical JSON; new rows are written under 2, the
        // raw fields, which hash about 40 % faster — and every verify and open hashes each row
        // it reads. Adding a column with a default rewrites no row.
        M::up("ALTER TABLE events ADD COLUMN chain INTEGER NOT NULL DEFAULT 1;"),
    ])
}
