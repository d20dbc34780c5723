//! How far the chain was last verified: the mark that lets an open check only what is new.
//!
//! Opening a ledger must refuse one that was edited, and at a year of use re-checking every event
//! on every open costs seconds. But an event that was authentic when this device last checked it
//! stays authentic unless someone changes its row — and every way SQLite offers to change a row of
//! `events` (an `UPDATE`, a `DELETE`, a re-insert) first needs the append-only triggers dropped,
//! which changes the database's schema version. So the mark records, sealed with the device key,
//! (sequence, hash) of the last event verified *and* the schema version it was verified under;
//! an open whose mark still holds — seal good, the row at its sequence still has its hash, the
//! schema version unchanged — checks the events after it, the signed head and the anchor, and
//! nothing before it.
//!
//! What the mark does not see: the file edited byte by byte outside SQLite, or the schema version
//! set back by hand after the triggers were dropped. Those are found by the whole-chain pass that
//! `smart ledger verify` runs and that the app runs in the background after every start (at low
//! priority), and it names the sequence — the mark only decides how much an *open* re-reads.
//!
//! Without the device key there is no mark: opening then verifies everything, as before.

use crate::store::{HeadSigner, Ledger, LedgerError};
use rusqlite::{OptionalExtension, params};
use smart_kernel::Hash;

/// The last event verified, and the schema version of the file when it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub seq: u64,
    pub hash: String,
    pub schema: i64,
}

impl Mark {
    /// What the device seals: every field, under a context of its own (an event's seal is over
    /// its hash alone, so a mark's seal can never pass for an event's, or the other way round).
    fn sealed_hash(&self) -> Hash {
        let mut h = blake3::Hasher::new_derive_key("smart ledger verified mark v1");
        h.update(&self.seq.to_le_bytes());
        h.update(self.hash.as_bytes());
        h.update(&self.schema.to_le_bytes());
        Hash(*h.finalize().as_bytes())
    }
}

impl Ledger {
    /// The database's schema version: changed by every `CREATE` and `DROP`, the triggers'
    /// included.
    pub fn schema_version(&self) -> Result<i64, LedgerError> {
        Ok(self.connection().query_row("PRAGMA schema_version", [], |r| r.get(0))?)
    }

    /// The mark, if it still holds for this file: sealed by this device, the row at its sequence
    /// unchanged, the schema version the same. `None` means: verify everything.
    pub fn verified_mark(&self, sealer: &dyn HeadSigner) -> Result<Option<Mark>, LedgerError> {
        let stored: Option<(Mark, String)> = self
            .connection()
            .query_row("SELECT seq, hash, schema, seal FROM verified WHERE id = 1", [], |r| {
                Ok((Mark { seq: r.get::<_, i64>(0)? as u64, hash: r.get(1)?, schema: r.get(2)? }, r.get(3)?))
            })
            .optional()?;
        let Some((mark, seal)) = stored else { return Ok(None) };
        if sealer.seal_hex(&mark.sealed_hash()) != seal || mark.schema != self.schema_version()? {
            return Ok(None);
        }
        let row_holds = self.get(mark.seq)?.is_some_and(|row| row.hash == mark.hash);
        Ok(row_holds.then_some(mark))
    }

    /// Records that events 1..=`seq` (whose last has `hash`) verified under `schema`. A mark is
    /// never moved back.
    pub fn mark_verified(&self, mark: &Mark, sealer: &dyn HeadSigner) -> Result<(), LedgerError> {
        self.connection().execute(
            "INSERT INTO verified (id, seq, hash, schema, seal) VALUES (1, ?1, ?2, ?3, ?4)
             ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, schema = excluded.schema,
                 seal = excluded.seal
             WHERE excluded.seq >= verified.seq OR excluded.schema != verified.schema",
            params![mark.seq as i64, mark.hash, mark.schema, sealer.seal_hex(&mark.sealed_hash())],
        )?;
        Ok(())
    }
}
