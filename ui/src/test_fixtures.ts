// Values the unit tests share, typed by the generated bindings so a changed Rust type breaks the
// fixtures at the type check rather than letting them drift. Only tests import this.

import type { Snapshot } from "./bindings";

/** An empty bootstrap snapshot: nothing gathered yet. */
export const SNAPSHOT: Snapshot = {
  bootstrap_timestamp: 1_800_000_000_000,
  ladder_position: null,
  user_state_summary: "",
  stabilizers: "",
  one_step_gap: "",
  microstep_candidate: "",
  consent_state: "listen_only",
  derived_north_star_candidates: [],
  delivery_fit_notes: "",
};
