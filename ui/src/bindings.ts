// Generated from the Rust command types by `src-tauri/src/bindings.rs`; do not edit.
// Regenerate: SMART_UPDATE_BINDINGS=1 cargo test -p smart-app bindings

export type CallOutcome = "committed" | "refused" | "pending" | "failed" | "denied" | "recorded";

export type BusEventKind = "state_changed" | "illegal_transition" | "utterance" | "proposal" | "reply" | "outcome" | "worker_starting" | "worker_ready" | "worker_fault" | "preparing" | "prepared" | "level" | "speech_start" | "speech_end" | "wake" | "wake_rejected" | "partial" | "heard" | "emergency" | "spoken";

export type Stance = "sensemaking" | "discovery" | "execution" | "evaluation";

export type Horizon = "short" | "mid" | "long";

export type LeaseView = { 
/**
 * The lease id's short form.
 */
id: string, frame: string, horizon: Horizon, state: LeaseViewState, duration_ms: number, 
/**
 * `None` until the commitment gate activates it.
 */
expires_at_ms: number | null, 
/**
 * What "done" means for this lease, in the person's words.
 */
success_criteria: Array<string>, non_goals: Array<string>, };

export type LeaseViewState = "drafted" | "active" | "expired";

export type GateView = { layer: number, gate_ms: number, remaining_ms: number, };

export type Usage = { used: number, limit: number, };

export type PendingSummary = { id: string, tool: string, layer: number, tier: number, why: string, call_hash: string, args: unknown, expires_at_ms: number, admissible_at_ms: number, };

export type ScopeView = { id: string, context: string, mutation: boolean, revoked: boolean, expires_at_ms: number, tools: Array<string>, };

export type Status = { data_dir: string, 
/**
 * The kernel's clock: countdowns are computed against it, not the screen's.
 */
now_ms: number, stance: Stance, lease: LeaseView | null, 
/**
 * Highest layer committed in this lease, 0..4.
 */
frontier: number, 
/**
 * One per layer 1..4: the time gate before its first call.
 */
gates: Array<GateView>, 
/**
 * Budget units spent in this lease, of the policy's limit.
 */
budget: Usage, 
/**
 * Steps taken in this lease, of the policy's limit.
 */
steps: Usage, pending: Array<PendingSummary>, scope: ScopeView | null, 
/**
 * The folders SMART may work in.
 */
roots: Array<string>, 
/**
 * Events in the ledger: the slow-loop panel re-reads when it grows.
 */
events: number, };

export type TurnEnd = "committed" | "refused" | "pending" | "failed" | "denied" | "recorded" | "propose_only" | "asked" | "no_call" | "bootstrap";

export type Outcome = { outcome: CallOutcome, 
/**
 * The stable refusal code (`time_gate`, `layer_not_reached`, …).
 */
code: string | null, reason: string | null, pending_id: string | null, seq: number | null, tier: number | null, admissible_in_ms: number | null, 
/**
 * Tier 2: the person is told.
 */
notify: boolean, };

export type StepView = { 
/**
 * template | model
 */
source: string, tool: string, args: unknown, 
/**
 * `None` when only proposed.
 */
outcome: Outcome | null, };

export type SayResult = { corr: string, utterance: string, steps: Array<StepView>, 
/**
 * The assistant's words when it made no call.
 */
reply: string | null, ended: TurnEnd, model: string | null, };

export type FileRow = { path: string, 
/**
 * `None` when it does not exist or cannot be read.
 */
bytes: number | null, is_dir: boolean, exists: boolean, };

export type MoveRow = { from: string, to: string, bytes: number | null, 
/**
 * Something is already at `to`: the move would be refused or rename around it.
 */
target_exists: boolean, };

export type Preview = { "kind": "files", files: Array<FileRow>, total_bytes: number, more: number, } | { "kind": "moves", moves: Array<MoveRow>, total_bytes: number, more: number, } | { "kind": "args", text: string, };

export type PendingView = { id: string, tool: string, layer: number, tier: number, 
/**
 * Why it needs the person, in words.
 */
why: string, 
/**
 * read_only | propose_only | reversible | irreversible
 */
reversibility: string, 
/**
 * The hash the approval will be bound to: what the dialog shows is what gets signed.
 */
call_hash: string, args: unknown, created_at_ms: number, 
/**
 * Approving before this is refused by the time gate; the dialog counts down to it.
 */
admissible_at_ms: number, expires_at_ms: number, preview: Preview, };

export type PendingList = { now_ms: number, calls: Array<PendingView>, };

export type TimelineFilter = { kinds: Array<string>, tool: string | null, corr: string | null, from_wall_ms: number | null, to_wall_ms: number | null, };

export type TimelineRow = { seq: number, corr: string, kind: string, wall_ms: number, tool: string | null, summary: string, 
/**
 * A committed call that recorded how to undo it (and is not itself an undo).
 */
undoable: boolean, };

export type TimelinePage = { 
/**
 * Events matching the filter, in all.
 */
total: number, offset: number, rows: Array<TimelineRow>, };

export type EventDetail = { row: TimelineRow, payload: unknown, at_ms: number, hash: string, prev_hash: string, state_before: string, state_after: string, hash_ok: boolean, link_ok: boolean, 
/**
 * `None` when the device key is not available to check the seal.
 */
seal_ok: boolean | null, 
/**
 * For approve/deny/emergency events: the person's Ed25519 signature.
 */
signature_ok: boolean | null, signature_error: string | null, };

export type VerifyBadge = { 
/**
 * False when either check found something: `first_bad_seq` and `reason` then say what.
 */
ok: boolean, events: number, head: string | null, first_bad_seq: number | null, reason: string | null, 
/**
 * Which check the verdict comes from.
 */
scope: VerifyScope, 
/**
 * The events checked just now came after this one (0: every event was).
 */
checked_after: number, 
/**
 * When the whole chain was last found intact in this run of the app (wall-clock ms).
 */
whole_chain_verified_ms: number | null, 
/**
 * A whole-chain check is running in the background.
 */
whole_chain_running: boolean, };

export type VerifyScope = "new_events" | "whole_chain";

export type ActivityBar = { start_wall_ms: number, events: number, refusals: number, };

export type HudEvent = { corr: string, 
/**
 * Which bus event this is.
 */
event: BusEventKind, 
/**
 * The interaction state entered (state_changed).
 */
state: string | null, 
/**
 * The utterance or reply text.
 */
text: string | null, tool: string | null, args: unknown, 
/**
 * What the kernel made of the turn's call (outcome).
 */
outcome: CallOutcome | null, 
/**
 * template | model (proposal).
 */
source: string | null, model: string | null, reason: string | null, 
/**
 * The microphone's loudness in dBFS (level).
 */
level: number | null, };

export type ModelRow = { name: string, description: string, purpose: string, bytes: number, 
/**
 * The model a fresh installation uses for its purpose.
 */
default: boolean, 
/**
 * missing | partial | verified | unverified
 */
status: string, 
/**
 * Bytes already downloaded of an interrupted fetch.
 */
partial_bytes: number, };

export type SetupState = { data_dir: string | null, initialised: boolean, roots: Array<string>, models_dir: string | null, models: Array<ModelRow>, 
/**
 * Why something above is unknown (no home directory, unreadable models folder, …).
 */
problem: string | null, };

export type FetchProgress = { model: string, stage: string, done: number, total: number, };

export type Settings = { 
/**
 * The global push-to-talk shortcut, in Tauri's accelerator syntax.
 */
hotkey: string, 
/**
 * Listen for the wake phrase (needs the voice worker).
 */
wake_word: boolean, wake_phrase: string, 
/**
 * Speak replies aloud (needs the voice worker).
 */
voice_output: boolean, 
/**
 * Where the overlay shows a spoken turn (`overlay.rs`), or off.
 */
overlay: OverlayPlace, };

export type OverlayPlace = "off" | "top" | "bottom";

export type VoiceStatus = { 
/**
 * off (not started yet) | starting | listening | no_microphone | unavailable
 */
state: string, 
/**
 * One line for the person: what works and, if something does not, why.
 */
detail: string, whisper: string | null, 
/**
 * push_to_talk | wake_word, while listening.
 */
mode: string | null, wake: string, microphone: string, };

export type UpdateCheck = { "state": "off", current: string, } | { "state": "up_to_date", current: string, } | { "state": "available", current: string, version: string, notes: string | null, date: string | null, };

export type UpdateProgress = { done: number, total: number | null, };

export type BootstrapResult = { 
/**
 * The kernel's word on the step (`refused` with the reason when the machine does not take it).
 */
outcome: Outcome, 
/**
 * Where bootstrap stands now; `None` when it has not started.
 */
stage: Stage | null, 
/**
 * The next question, if bootstrap asks one.
 */
prompt: string | null, 
/**
 * Whether the kernel holds the agent to propose-only.
 */
propose_only: boolean, 
/**
 * The turn that carried out the person's request once they said "dive in".
 */
turn: SayResult | null, };

export type ProposeResult = { 
/**
 * Whether the proposal was taken into the buffer (`refused` with the reason if not).
 */
outcome: Outcome, 
/**
 * The controller's verdict, once it has read the proposal.
 */
verdict: VerdictKind | null, 
/**
 * The controller's reason for the verdict.
 */
reason: string | null, };

export type PerceiveResult = { 
/**
 * The two reports in a few plain sentences.
 */
summary: string | null, 
/**
 * What the contrast report recommends, when it saw a gap.
 */
correction: string | null, 
/**
 * The rules that fired, each ledgered as a proposal or a signal.
 */
findings: Array<string>, took_ms: number | null, error: string | null, };

export type SlowLoopView = { now_ms: number, 
/**
 * There is context from before (a lease, decisions, principles): the check-in applies.
 */
existing_user: boolean, memory: MemoryView, 
/**
 * The gate controller's latest reads, newest first.
 */
reads: Array<ProposalRead>, 
/**
 * Gate transitions, newest first.
 */
gates: Array<GateTransition>, 
/**
 * Sessions, newest first (cut where the ledger was quiet for `session_gap_ms`).
 */
sessions: Array<SessionSummary>, session_gap_ms: number, };

export type MemoryView = { stance: Stance, slow: SlowMemory, fast: FastMemory, bridge: Bridge, proposals_waiting: Array<GateProposal>, work_orders: Array<WorkOrder>, bootstrap: BootstrapView | null, };

export type SlowMemory = { lease: LeaseView | null, decisions: Array<DecisionRecord>, principles: { [key in string]: Principle }, north_stars: { [key in string]: NorthStar }, };

export type FastMemory = { progress: Progress | null, signals: InteractionSignals, };

export type Bridge = { artifacts: Array<ArtifactEntry>, };

export type BootstrapView = { stage: Stage, 
/**
 * The next question, if bootstrap asks one.
 */
prompt: string | null, propose_only: boolean, snapshot: Snapshot, sessions: number, abbreviated: boolean, reentered: boolean, };

export type ProposalRead = { seq: number, at_ms: number, trigger: ReadTrigger, 
/**
 * Every proposal read, with its verdict, in the controller's order.
 */
verdicts: Array<Verdict>, };

export type GateTransition = { seq: number, at_ms: number, from: Stance, to: Stance, act: GateAct, 
/**
 * How many slow-memory writes the gate made.
 */
writes: number, };

export type SessionSummary = { first_seq: number, last_seq: number, start_ms: number, end_ms: number, events: number, 
/**
 * Calls carried out.
 */
committed: number, 
/**
 * Calls, signals and gate passes the kernel refused.
 */
refused: number, 
/**
 * Calls that waited for the person's approval.
 */
asked: number, approved: number, denied: number, 
/**
 * Undos carried out.
 */
undone: number, 
/**
 * Gate transitions (stance changes).
 */
gates: number, emergencies: number, 
/**
 * Calls whose execution failed after admission.
 */
failed: number, };

export type Millis = number;

export type GateAct = "framing" | "commitment" | "evaluate" | "renew" | "revise" | "release" | "lease_expiry" | "emergency";

export type GateProposal = { reason: string, severity: Severity, suggested_gate: SuggestedGate, source: GateSource, at: Millis, action?: ProposedAction | null, 
/**
 * Which evaluator, report or work order it came from, for the person's account.
 */
origin?: string | null, };

export type GateSource = "user_signal" | "decay_manager" | "perception" | "continuous_eval" | "task_agent";

export type Severity = "low" | "medium" | "high" | "emergency";

export type SuggestedGate = "framing" | "commitment" | "evaluation";

export type ProposedAction = "bootstrap_reentry" | "remain_listening" | "offer_structure" | "offer_work_order" | "offer_north_stars";

export type ReadTrigger = "gateway_pass" | "end_of_turn" | "request";

export type Verdict = { proposal: GateProposal, verdict: VerdictKind, effect?: Effect | null, reason: string, };

export type VerdictKind = "accepted" | "referred" | "rejected";

export type Effect = { "gate": GateAct } | "bootstrap_reentry";

export type DecisionRecord = { 
/**
 * 1-based position in the log; stable forever because nothing is removed.
 */
id: number, kind: DecisionKind, gate: GateAct, at: Millis, superseded_by?: number | null, decision: string, rationale: Array<string>, tradeoffs?: string, confidence: Confidence, revisit_triggers?: Array<string>, 
/**
 * The id of the decision this one replaces.
 */
supersedes?: number | null, };

export type DecisionKind = "frame" | "binding" | "supersession" | "emergency";

export type Confidence = "low" | "med" | "high";

export type Principle = { kind: PrincipleKind, text: string, set_at: Millis, };

export type PrincipleKind = "non_negotiable" | "review_cadence" | "constraint";

export type NorthStar = { text: string, version: number, ratified_at: Millis, };

export type Progress = { current_stage: string, next_actions: Array<string>, blockers: Array<string>, recent_wins: Array<string>, staleness_ms: number, updated_at: Millis, 
/**
 * The staleness clock: when this should be reconsidered.
 */
stale_at: Millis, stale: boolean, };

export type InteractionSignals = { user_preferences?: Array<string>, friction_signals?: Array<string>, effective_patterns?: Array<string>, avoidances?: Array<string>, };

export type ArtifactEntry = { status: ArtifactStatus, 
/**
 * Bumped by every registration of the same pointer.
 */
version: number, 
/**
 * "person", or the work order that registered it.
 */
owner: string, updated_at: Millis, freshness: Freshness, name: string, type: ArtifactKind, 
/**
 * A path, a link or an id: where the artifact is, not what it says.
 */
pointer: string, dependencies?: Array<string>, };

export type ArtifactKind = "doc" | "spec" | "code" | "deck" | "plan" | "data";

export type ArtifactStatus = "draft" | "review" | "final" | "deprecated";

export type Freshness = "current" | "stale" | "review_needed";

export type WorkOrder = { id: string, brief: string, 
/**
 * The lease whose scope it inherits, and that lease's epoch.
 */
lease: string, epoch: number, tools: Array<string>, opened_at: Millis, };

export type Stage = "ladder" | "anchor" | "gap" | "microstep" | "permission" | "listening" | "confirm_intent" | "check_in" | "done";

export type Snapshot = { bootstrap_timestamp: Millis, ladder_position: LadderPosition | null, 
/**
 * Only when the person gave a number themselves.
 */
ladder_number?: number | null, user_state_summary: string, stabilizers: string, one_step_gap: string, microstep_candidate: string, consent_state: Consent, derived_north_star_candidates: Array<string>, delivery_fit_notes: string, };

export type LadderPosition = "top" | "middle" | "bottom";

export type Consent = "listen_only" | "propose_structure" | "ready_for_commitment";
